/*
** host.h - private header of the sandboxed host API (include/kfjob.h).
**
** The host owns lua_States.  Each run creates a fresh state whose
** allocator enforces the memory limit and whose count hook enforces the
** instruction budget, opens only the allow-listed libraries, runs the
** config script under lua_pcall, renders every job it returns through the
** core (kf_render), and hands each result to the host's callback.  The
** state is closed before the run returns, so nothing survives between
** runs and every byte is freed (valgrind-clean).
**
**   sandbox.c  the restricted state: allocator, budget, allowed globals
**   render.c   one job -> kf_render -> the callback
**   driver.c   what a config returns -> jobs; one run start to end
**   api.c      the KFJOB_API functions
**
** Rules that keep the host safe:
**  - every Lua call runs inside one lua_pcall (pmain); the only API calls
**    outside it (lua_newstate, lua_setwarnf, lua_sethook, pushing light C
**    functions, lua_close) cannot raise;
**  - memory the host sees (rendered data, warnings, names) is either
**    anchored on the Lua stack or held in an arena and buffer over the
**    state's allocator that are made and freed with no Lua call in between;
**  - C library functions whose running time a script controls (pattern
**    matching, table.insert/remove/move, string.rep) charge the same
**    instruction budget, because count hooks never fire inside C;
**  - Lua finalizers are refused (setmetatable with __gc), because Lua runs
**    them with hooks disabled.
*/
#ifndef KF_HOST_H
#define KF_HOST_H

#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "kfjob.h"
#include "kf_core.h"

#define HOOK_STEP 1000           /* instructions between count hooks */
#define MSG_MAX 4096             /* kfjob_host_message(), bytes */

struct kfjob_host {
  kfjob_host_options opt;
  int busy;                      /* inside a run: refuse re-entry */
  kfjob_usage usage;
  char msg[MSG_MAX];
  int not_input;                 /* kfjob_host_not_input() */
};

enum { MODE_SCRIPT, MODE_DECODE };

/* One run: everything the state's allocator, hook and driver share.
** It is the allocator's ud, so kfh_run(L) finds it from any lua_State. */
typedef struct run {
  kfjob_host *h;
  kfjob_run_options o;
  kfjob_job_fn cb;
  void *ud;
  int mode;
  /* script */
  const char *src;
  size_t len;
  const char *chunkname;         /* "@path" or "=name" */
  /* decode */
  const char *task_type;
  int in_version;
  /* limits */
  size_t mem, mem_peak, mem_limit;
  unsigned long long allocated;  /* bytes handed out, for the work meter */
  unsigned long long used, limit;
  unsigned long long deadline_ns;  /* CLOCK_MONOTONIC; 0: no time limit */
  int mem_hit, limit_hit, time_hit, closing;
  /* outcome */
  kfjob_status st;               /* status of a failure in this phase */
  int not_input;                 /* the failure: a data config with a NUL byte */
  int stopped;
  int selected;                  /* jobs that matched o.select */
  unsigned long emitted;         /* jobs the config produced, for max_jobs */
  int named_seen;                /* jobs named by the config itself */
  size_t index, total, failed;
  char first_error[512];
  char short_src[LUA_IDSIZE];    /* how Lua names the script */
  /* warn() pieces */
  char warnbuf[512];
  size_t warnlen;
  int warncont;
} run;

static inline run *kfh_run(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  return (run *)ud;
}

/* ---- sandbox.c -------------------------------------------------------- */

/* Allocator of every state (ud: the run): enforces the memory limit. */
void *kfh_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Nanoseconds of CLOCK_MONOTONIC. */
unsigned long long kfh_now_ns(void);
/* The deadline of a run on that clock, saturating: a limit too large for
** the clock (a host passing ULONG_MAX to mean "none") never wraps to a
** deadline in the past.  0 (the options' default) is the default limit;
** the effective limit goes back into *time_limit_ms for the message.
** 0: no time limit. */
unsigned long long kfh_deadline_ns(unsigned long *time_limit_ms);
/* Count hook: charges HOOK_STEP instructions, raises past the budget or
** the time limit. */
void kfh_hook(lua_State *L, lua_Debug *ar);
/* Raises "time limit exceeded" past the run's deadline (unless the
** callback stopped the run): after each job callback, whose time counts;
** at the line that made the job at `job` (0: none) when it is known. */
void kfh_check_time(lua_State *L, run *R, int job);
/* lua_WarnFunction (ud: the run): warn() text to the host's log. */
void kfh_warnf(void *ud, const char *msg, int tocont);
/* The sandbox's require: loaded libraries and the preloaded kfjob modules. */
int kfh_require(lua_State *L);
/* Open the allow-listed globals and libraries and preload kfjob. */
void kfh_open_sandbox(lua_State *L);

/* ---- render.c --------------------------------------------------------- */

/* Render the job at `job` named by the string at `name` and hand it to
** the callback.  `named`: the config gave the name (a table key, an
** iterator), so o.select applies.  Sets R->stopped when the callback asks
** to stop. */
void kfh_emit(lua_State *L, run *R, int name, int job, int version, int named);
/* The same job rendered and thrown away: its failure raised as kfh_emit
** raises it (a data config renders all its jobs so before writing one). */
void kfh_emit_dry(lua_State *L, run *R, int name, int job, int version, int named);
/* A job that failed before or while it was made (keep_going): counted
** and handed to the callback with kfjob_job::error = msg. */
void kfh_emit_failed(lua_State *L, run *R, const char *name, const char *kind,
                     const char *task_type, int version, const char *msg);
/* Raises a job error unless the string at idx can name a job
** (kf_name_problem); the name is shown escaped. */
void kfh_check_name(lua_State *L, run *R, int idx);

/* ---- entry.c ---------------------------------------------------------- */

/* The core's options for job kj named `name` in the run's format: the
** run's flags, then the entry's opts (the table at `jobopts` of a
** `{ job =, opts = }` entry; 0: none) over them, which must be options of
** the output being rendered ("opts.<key>: unknown option for -f <format>
** (known: ...)").  `version` is the run's; opts.version may replace it
** (ro->enc.version).  Nodes and strings live in A; no Lua call raises. */
struct kf_render_opts;
struct kf_job;
kf_status kfh_render_opts(lua_State *L, int jobopts, const struct kf_job *kj,
                          const run *R, const char *name, int version, kf_arena *A,
                          struct kf_render_opts *ro, kf_err *e);

/* ---- site.c ----------------------------------------------------------- */

/* Raise "FILE: job 'NAME': message" (FILE only for scripts). */
int kfh_job_error(lua_State *L, run *R, const char *name, const char *msg);
/* After a kfjob module is loaded: template.variants, the job constructors
** and job:with record where the config called them (the messages of
** failed variants and of jobs that cannot be rendered name that line). */
void kfh_wrap_template(lua_State *L);
/* Pushes "FILE:LINE" where the config made the job at idx and returns it,
** or pushes nothing and returns NULL. */
const char *kfh_site(lua_State *L, int idx);
#define SITES "kfjob.host.sites"   /* registry: job -> "FILE:LINE", weak keys */

/* ---- data.c ----------------------------------------------------------- */

/* Is the chunk (its name ends .yaml, .yml or .json) a data config? */
int kfh_is_data(const char *chunkname);
/* Runs a data config (R->src): each job built by its kind's constructor,
** then emitted as a Lua config's jobs are. */
void kfh_run_data(lua_State *L, run *R);
/* Pushes a to-be-closed box holding an arena over the state's allocator
** (the memory limit counts it): freed when the stack is cut below the box
** or an error unwinds it, so no Lua call can leak it. */
struct kf_arena *kfh_push_arena(lua_State *L);

/* ---- driver.c --------------------------------------------------------- */

/* Run R (set up by api.c) in a fresh state; fills h's message and usage. */
kfjob_status kfh_do_run(kfjob_host *h, run *R);

/* ---- api.c ------------------------------------------------------------ */
/* Checks the run options as every run does (message in h). */
kfjob_status kfh_check_options(kfjob_host *h, const kfjob_run_options *o);

/* printf into h->msg (site.c). */
void kfh_msg(kfjob_host *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif

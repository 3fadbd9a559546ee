/*
** lkf_binding.h - the binding's private header, shared by all of src/lua (and the host's driver).
** Only binding files include lua.h; the core (kf_*.c) never does.
*/
#ifndef LKFJOB_H
#define LKFJOB_H

#include <stdint.h>

#include "lkf_compat.h"   /* lua.h and lauxlib.h, any Lua from 5.1 on */
#include "kf_job.h"
#include "kf_pb.h"
#include "kf_target.h"
#include "kf_emit.h"
#include "kf_options.h"   /* the methods' options as rows */

#define CTX_NAME "kfjob.context"
#define RUNPOLICY_NAME "kfjob.RunPolicy"
/* Metatable names, which are also the constructors' names in messages. */
extern const char *const lkf_job_mt[KF_NKINDS];     /* "kfjob.TFJob", ... */
extern const char *const lkf_group_mt[KF_NROLES];   /* "kfjob.Worker", ... */

/* A group userdata: its role, then the packed kf_group. */
typedef struct lgroup {
  int role;
  void *pad;               /* keeps the packed group aligned */
} lgroup;
#define GROUP_OF(p) ((kf_group *)(void *)((char *)(p) + sizeof(lgroup)))

/* Per-state context: the arena and buffer every operation borrows. */
typedef struct lctx {
  kf_arena A;
  kf_buf buf;
  int busy;   /* 1: a call is using it; 2: a nested call's temporary;
                 3: collected (__gc ran) */
  lua_State *owner;     /* the thread of the call that took it last */
  uintptr_t owner_sp;   /* without lua_toclose: that call's C frame */
  int anchored;         /* owner is a coroutine, anchored in the registry */
  int released;         /* released since the last call took it (nothing
                           held: the next call need not release it) */
  const kf_meter *meter;   /* the sandbox's work meter, or NULL */
} lctx;

/* The allocator of a context's arena and buffer: the state's own, except
** on LuaJIT, whose allocator aligns blocks to 8 bytes only (the arena's
** chunks need max_align_t): there the C library's. */
void lkf_ctx_init(lua_State *L, lctx *c);

/* Context of the running C function (upvalue 1), reset for a new call.
** Sets the stack to `nargs` arguments (missing ones become nil), then
** pushes one slot above them: a to-be-closed guard, or a nested call's
** own context. */
lctx *lkf_ctx(lua_State *L, int nargs);
/* Raise a core error (allocation failures as "not enough memory"). */
int lkf_raise(lua_State *L, kf_err *e);
/* Return fail, message (allocation failures still raise). */
int lkf_fail(lua_State *L, kf_err *e);
/* Lua value at idx -> kf_node in the context's arena; raises on error. */
kf_node *lkf_checknode(lua_State *L, lctx *X, int idx, const char *who, kf_err *e);
/* The same for a value whose own path is `prefix` ("opts"). */
kf_node *lkf_checknode_at(lua_State *L, lctx *X, int idx, const char *who,
                          const char *prefix, kf_err *e);
/* A constructor table at idx straight into *j (kf_feed_*, no value tree):
** 1 when it is a valid job; 0 for anything else, with nothing raised, and
** the caller takes the general path, which reports the error. */
int lkf_feedjob(lua_State *L, lctx *X, int idx, int kind, kf_job *j,
                const char *who, kf_feed *F);   /* F: for kf_job_pack_fed */
void lkf_pushnode(lua_State *L, const kf_node *n);
int lkf_jobkind(lua_State *L, int idx);             /* -1: not a job */
lgroup *lkf_testgroup(lua_State *L, int idx);       /* NULL: not a group */
/* The context's close (clears the busy mark) and gc metamethods. */
int lkf_ctx_close(lua_State *L);
int lkf_ctx_gc(lua_State *L);
/* The sandbox's work meter (none: nothing to do): the bytes the state
** had allocated at a function's start, then, at its end, those since
** charged and the budget checked (a function whose work is all C). */
unsigned long long lkf_meter_mark(lua_State *L, const lctx *X);
void lkf_meter_since(lua_State *L, const lctx *X, unsigned long long before);
const kf_job *lkf_checkjob(lua_State *L, int idx);
/* opts.kind at idx of a decoder: a kind with a task type, or -1 (raises
** for another name, as for a kind no decoder makes). */
int lkf_kind_opt(lua_State *L, int idx, const char *who);
/* Light userdata key of a job metatable: its kind, an integer ("__kind"
** holds the same; the shared methods table is "methods" and job_index's
** upvalue). */
extern const char lkf_kind_key;
void lkf_pushjob(lua_State *L, const kf_job *j);
void lkf_pushjob_from(lua_State *L, const kf_job *j, int from, int kept,
                      const kf_moves *m);
/* Options tables: reject unknown keys; read one field (always pushes it,
** nil when absent). */
void lkf_checkopts(lua_State *L, int idx, const char *who, const char *const *known);
int lkf_optfield(lua_State *L, int idx, const char *key);
/* opts.target (absent: dflt); raises on a bad or unknown name. */
void lkf_opt_nul(lua_State *L, const char *who, const char *key);
const char *lkf_check_task_type(lua_State *L, int idx, const char *who);
/* The string at `idx` (*n its length): a string only, a number is not
** coerced ("bad argument #1 to 'decode' (string expected, got number)",
** the README's error policy: wrong argument types raise). */
const char *lkf_checkstr(lua_State *L, int idx, size_t *n);
kf_target lkf_opt_target(lua_State *L, int idx, const char *who, kf_target dflt);
/* check's and lint's default target: flyte, or operator for a kind Flyte
** does not carry. */
kf_target lkf_default_target(const kf_job *j);
/* version / replica_encoding; on a bad value raises, or pushes the message
** and returns 1 when raise_errors is 0. */
int lkf_encopts(lua_State *L, int idx, const char *who, kf_encopts *o,
                 int raise_errors);
/* Set functions of r into the table on top, each with the context upvalue. */
void lkf_setfuncs(lua_State *L, const luaL_Reg *r, int ctxidx);
/* What each binding file exports, registered by luaopen_kfjob
** (lkfjob_open.c): module functions and job methods. */
extern const luaL_Reg lkf_job_funcs[], lkf_job_methods[];           /* lkfjob.c */
extern const luaL_Reg lkf_json_funcs[], lkf_json_methods[];         /* lkfjob_json.c */
extern const luaL_Reg lkf_manifest_funcs[], lkf_manifest_methods[]; /* lkfjob_manifest.c */
extern const luaL_Reg lkf_schema_funcs[];                           /* lkfjob_schema.c */
extern const luaL_Reg lkf_target_methods[];                         /* lkfjob_target.c */
extern const luaL_Reg lkf_sweep_funcs[];                            /* lkfjob_sweep.c */
extern const luaL_Reg lkf_import_funcs[];                           /* lkfjob_import.c */
/* The objects' metatables and constructors into the module table on top
** (lkfjob.c); `methods` indexes the shared methods table. */
void lkf_open_objects(lua_State *L, int ctx, int methods);


#endif

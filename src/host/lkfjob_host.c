/*
** lkfjob_host.c - the sandboxed host API of include/kfjob.h.
**
** A binding-layer file: it owns lua_States.  Each run creates a fresh
** state whose allocator enforces the memory limit and whose count hook
** enforces the instruction budget, opens only safe libraries, runs the
** config script under lua_pcall, renders every job it returns by calling
** the job methods (feature-detected), and hands each result to the host's
** callback.  The state is closed before the run returns, so nothing
** survives between runs and every byte is freed (valgrind-clean).
**
** Rules that keep the host safe:
**  - every Lua call runs inside one lua_pcall (pmain); the only API calls
**    outside it (lua_newstate, lua_setwarnf, lua_sethook, pushing light C
**    functions, lua_close) cannot raise;
**  - memory the host sees (rendered data, warnings) is anchored on the Lua
**    stack while the callback runs; the one malloc'd buffer (YAML text) is
**    made and freed with no Lua call in between;
**  - C library functions whose running time a script controls (pattern
**    matching, table.insert/remove/move, string.rep) charge the same
**    instruction budget, because count hooks never fire inside C;
**  - Lua finalizers are refused (setmetatable with __gc), because Lua runs
**    them with hooks disabled.
*/
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

#include "kfjob.h"
#include "kf_core.h"
#include "kf_json.h"
#include "kf_manifest.h"

#define HOOK_STEP 1000           /* instructions between count hooks */
#define MSG_MAX 4096             /* kfjob_host_message(), bytes */

#if defined(__GNUC__)
#define unlikely_(x) __builtin_expect(((x) != 0), 0)
#else
#define unlikely_(x) (x)
#endif

struct kfjob_host {
  kfjob_host_options opt;
  int busy;                      /* inside a run: refuse re-entry */
  kfjob_usage usage;
  char msg[MSG_MAX];
};

enum { MODE_SCRIPT, MODE_DECODE };

/* One run: everything the state's allocator, hook and driver share.
** It is the allocator's ud, so getrun(L) finds it from any lua_State. */
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
  unsigned long long used, limit;
  int mem_hit, limit_hit, closing;
  /* outcome */
  kfjob_status st;               /* status of a failure in this phase */
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

static run *getrun(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  return (run *)ud;
}

/* ======================================================================
** Memory limit: the allocator of every state
** ====================================================================== */

static void *host_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  run *R = (run *)ud;
  void *p;
  if (ptr == NULL) osize = 0;    /* osize then encodes the object type */
  if (nsize == 0) {
    free(ptr);
    R->mem -= osize;
    return NULL;
  }
  /* no limit while closing: finalizers of C objects must still run */
  if (nsize > osize && R->mem_limit && !R->closing &&
      (nsize - osize > R->mem_limit - R->mem || R->mem > R->mem_limit)) {
    R->mem_hit = 1;
    return NULL;
  }
  p = realloc(ptr, nsize);
  if (p == NULL) {
    if (nsize <= osize) return ptr;  /* shrinking must not fail: keep it */
    R->mem_hit = 1;
    return NULL;
  }
  R->mem = R->mem - osize + nsize;
  if (R->mem > R->mem_peak) R->mem_peak = R->mem;
  return p;
}

/* ======================================================================
** Instruction budget: count hook + charges from C library functions
** ====================================================================== */

static void hook(lua_State *L, lua_Debug *ar);

static void over_budget(lua_State *L, run *R) {
  R->limit_hit = 1;
  /* from now on every instruction of this thread raises, so a script
  ** that catches the error with pcall cannot keep running */
  lua_sethook(L, hook, LUA_MASKCOUNT, 1);
  if (R->closing)
    luaL_error(L, "finalizers do not run in the kfjob sandbox");
  luaL_error(L, "instruction budget exceeded (%I instructions)",
             (lua_Integer)R->limit);
}

static void hook(lua_State *L, lua_Debug *ar) {
  run *R = getrun(L);
  (void)ar;
  if (R->closing) over_budget(L, R);
  R->used += R->limit_hit ? 1 : HOOK_STEP;
  if (R->limit && R->used > R->limit) over_budget(L, R);
}

/* Charge n steps of C work to the budget. */
static void charge(lua_State *L, unsigned long long n) {
  run *R = getrun(L);
  R->used += n;
  if (R->limit && R->used > R->limit) over_budget(L, R);
}

/* ======================================================================
** Library functions whose running time a script controls from C, where
** the count hook cannot see it.  Each wrapper bounds or charges the work
** up front, then calls the standard function (upvalue 1).
** ====================================================================== */

/* Lua patterns backtrack: at each start position the matcher may retry
** once per expanding item (*, +, -, %b), so the work grows like
** (length + 1) ^ (items + 1), one power less when anchored with '^'.
** ".-.-.-b" over 100 kB would run for hours inside one C call.  The bound
** is a worst case, so it also refuses some harmless calls on long strings;
** a sandboxed config has little use for patterns over long text. */
#define PATTERN_MAX_COST 1e8

static int pattern_items(const char *p, size_t n) {
  size_t i;
  int k = 0;
  for (i = 0; i < n; i++) {
    if (p[i] == '%') {
      if (i + 1 < n && p[i + 1] == 'b') k++;
      i++;
    } else if (p[i] == '[') {  /* a set: skip to its closing bracket */
      i++;
      if (i < n && p[i] == '^') i++;
      if (i < n && p[i] == ']') i++;
      while (i < n && p[i] != ']') i += p[i] == '%' ? 2 : 1;
    } else if (p[i] == '*' || p[i] == '+' || p[i] == '-') {
      k++;
    }
  }
  return k;
}

static int sb_pattern(lua_State *L) {
  size_t ls, lp;
  const char *p;
  int is_find = (int)lua_tointeger(L, lua_upvalueindex(2));
  luaL_checklstring(L, 1, &ls);
  p = luaL_checklstring(L, 2, &lp);
  if (!(is_find && lua_toboolean(L, 4))) {  /* plain find costs nothing */
    int k = pattern_items(p, lp) + (lp == 0 || p[0] != '^');
    if (k > 0 && pow((double)ls + 1, k) > PATTERN_MAX_COST)
      return luaL_error(L, "pattern too costly for the kfjob sandbox (%d repetition "
                           "items over %d bytes; the limit is "
                           "(length + 1) ^ (items + 1) <= 1e8)",
                        pattern_items(p, lp), (int)(ls > INT_MAX ? INT_MAX : ls));
  }
  charge(L, ls + lp);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* string.rep("", 1e18) loops 1e18 times without allocating. */
static int sb_rep(lua_State *L) {
  size_t l, lsep;
  luaL_checklstring(L, 1, &l);
  luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &lsep);
  if (l + lsep == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

/* table.insert / remove / move shift elements in C; with a __len
** metamethod a script can make that 2^62 steps.  Charge the shift first. */
static void charge_span(lua_State *L, lua_Integer from, lua_Integer to) {
  if (to > from) charge(L, (unsigned long long)to - (unsigned long long)from);
}

static int sb_table(lua_State *L) {
  int which = (int)lua_tointeger(L, lua_upvalueindex(2));
  if (which == 2) {  /* move(a1, f, e, t [, a2]) */
    charge_span(L, luaL_checkinteger(L, 2) - 1, luaL_checkinteger(L, 3));
  } else if (lua_type(L, 1) == LUA_TTABLE || luaL_getmetafield(L, 1, "__len") != LUA_TNIL) {
    lua_Integer n = luaL_len(L, 1), pos;
    if (which == 0)  /* insert(t, [pos,] v) */
      pos = lua_gettop(L) >= 3 ? luaL_checkinteger(L, 2) : n + 1;
    else             /* remove(t [, pos]) */
      pos = luaL_optinteger(L, 2, n);
    charge_span(L, pos, n + 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* ======================================================================
** The sandbox
** ====================================================================== */

/* load(chunk [, name [, mode [, env]]]): text only. */
static int sb_load(lua_State *L) {
  const char *mode = luaL_optstring(L, 3, "t");
  if (strchr(mode, 't') == NULL)
    return luaL_error(L, "load: binary chunks are not allowed in the kfjob "
                         "sandbox (mode '%s')", mode);
  lua_settop(L, 4);
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 4, LUA_MULTRET);
  return lua_gettop(L);
}

/* setmetatable without __gc: Lua runs finalizers with hooks disabled, so a
** looping finalizer could never be stopped. */
static int sb_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L, "setmetatable: __gc metamethods are not allowed in "
                           "the kfjob sandbox");
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

/* xpcall(f, handler, ...) with the handler wrapped: a budget error is
** raised from the count hook, and Lua calls message handlers at the point
** of the error, where hooks are off, so a looping handler could never be
** stopped.  Once the budget is spent the handler is skipped. */
static int xpcall_handler(lua_State *L) {
  if (getrun(L)->limit_hit) return 1;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

static int finish_call(lua_State *L, int status, lua_KContext ctx) {
  (void)status;
  (void)ctx;
  return lua_gettop(L);
}

static int sb_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, xpcall_handler, 1);
  lua_replace(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_callk(L, n, LUA_MULTRET, 0, finish_call);
  return finish_call(L, LUA_OK, 0);
}

static void logtext(run *R, const char *s, size_t n) {
  if (R->h->opt.log && !R->closing) R->h->opt.log(R->h->opt.log_ud, s, n);
}

static int sb_print(lua_State *L) {
  int i, n = lua_gettop(L);
  luaL_Buffer b;
  size_t len;
  const char *s;
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  s = lua_tolstring(L, -1, &len);
  logtext(getrun(L), s, len);
  return 0;
}

static void warnf(void *ud, const char *msg, int tocont) {
  run *R = (run *)ud;
  size_t n = strlen(msg);
  if (!R->warncont && !tocont && msg[0] == '@') return;  /* control */
  if (!R->warncont) {
    memcpy(R->warnbuf, "warning: ", 9);
    R->warnlen = 9;
  }
  if (n > sizeof R->warnbuf - 1 - R->warnlen) n = sizeof R->warnbuf - 1 - R->warnlen;
  memcpy(R->warnbuf + R->warnlen, msg, n);
  R->warnlen += n;
  R->warnbuf[R->warnlen] = '\0';
  R->warncont = tocont;
  if (!tocont) logtext(R, R->warnbuf, R->warnlen);
}

static int is_kfjob_module(const char *name) {
  return strcmp(name, "kfjob") == 0 || strncmp(name, "kfjob.", 6) == 0;
}

/* require: what is already loaded (the standard libraries opened here),
** else the preloaded kfjob modules; nothing from disk. */
static int sb_require(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_settop(L, 1);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);   /* 2 */
  if (lua_getfield(L, 2, name) != LUA_TNIL && lua_toboolean(L, -1)) return 1;
  lua_pop(L, 1);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);  /* 3 */
  if (!is_kfjob_module(name) || lua_getfield(L, 3, name) != LUA_TFUNCTION)
    return luaL_error(L, "module '%s' not found: the kfjob sandbox provides "
                         "only the kfjob modules and the standard libraries "
                         "string, table, math, utf8, coroutine and os", name);
  lua_pushvalue(L, 1);
  lua_pushliteral(L, ":preload:");
  lua_call(L, 2, 1);
  if (!lua_isnil(L, -1)) lua_setfield(L, 2, name);
  else lua_pop(L, 1);
  if (lua_getfield(L, 2, name) == LUA_TNIL) {
    lua_pushboolean(L, 1);
    lua_copy(L, -1, -2);
    lua_setfield(L, 2, name);
  }
  return 1;
}

static void setfunc(lua_State *L, int t, const char *name, lua_CFunction f,
                    int wrap_original) {
  if (wrap_original) lua_getfield(L, t, name);
  lua_pushcclosure(L, f, wrap_original ? 1 : 0);
  lua_setfield(L, t, name);
}

/* Wrap the standard t[name] as upvalue 1 of f, with an integer tag as
** upvalue 2 (which function a shared wrapper stands for). */
static void wrapfunc(lua_State *L, int t, const char *name, lua_CFunction f,
                     int tag) {
  lua_getfield(L, t, name);
  lua_pushinteger(L, tag);
  lua_pushcclosure(L, f, 2);
  lua_setfield(L, t, name);
}

static void nil_fields(lua_State *L, int t, const char *const *names) {
  for (; *names; names++) {
    lua_pushnil(L);
    lua_setfield(L, t, *names);
  }
}

static void open_sandbox(lua_State *L) {
  static const luaL_Reg libs[] = {
      {LUA_GNAME, luaopen_base},         {LUA_TABLIBNAME, luaopen_table},
      {LUA_STRLIBNAME, luaopen_string},  {LUA_MATHLIBNAME, luaopen_math},
      {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine},
      {LUA_OSLIBNAME, luaopen_os},       {NULL, NULL}};
  static const char *const base_drop[] = {"dofile", "loadfile", NULL};
  static const char *const os_drop[] = {"execute", "exit", "getenv", "remove",
                                        "rename", "tmpname", "setlocale",
                                        "difftime", NULL};
  static const char *const str_drop[] = {"dump", NULL};
  const luaL_Reg *l;
  int g;
  for (l = libs; l->name; l++) {
    luaL_requiref(L, l->name, l->func, 1);
    lua_pop(L, 1);
  }
  lua_pushglobaltable(L);
  g = lua_gettop(L);
  nil_fields(L, g, base_drop);
  setfunc(L, g, "load", sb_load, 1);
  setfunc(L, g, "setmetatable", sb_setmetatable, 1);
  setfunc(L, g, "xpcall", sb_xpcall, 1);
  setfunc(L, g, "print", sb_print, 0);
  setfunc(L, g, "require", sb_require, 0);

  lua_getfield(L, g, LUA_OSLIBNAME);
  nil_fields(L, lua_gettop(L), os_drop);
  lua_pop(L, 1);

  lua_getfield(L, g, LUA_STRLIBNAME);
  nil_fields(L, lua_gettop(L), str_drop);
  setfunc(L, lua_gettop(L), "rep", sb_rep, 1);
  wrapfunc(L, lua_gettop(L), "find", sb_pattern, 1);
  wrapfunc(L, lua_gettop(L), "match", sb_pattern, 0);
  wrapfunc(L, lua_gettop(L), "gmatch", sb_pattern, 0);
  wrapfunc(L, lua_gettop(L), "gsub", sb_pattern, 0);
  lua_pop(L, 1);

  lua_getfield(L, g, LUA_TABLIBNAME);
  wrapfunc(L, lua_gettop(L), "insert", sb_table, 0);
  wrapfunc(L, lua_gettop(L), "remove", sb_table, 1);
  wrapfunc(L, lua_gettop(L), "move", sb_table, 2);
  lua_pop(L, 2);

  kfjob_preload(L);
}

/* ======================================================================
** Error messages
** ====================================================================== */

static int starts_with(const char *s, const char *prefix) {
  return prefix[0] && strncmp(s, prefix, strlen(prefix)) == 0 &&
         s[strlen(prefix)] == ':';
}

/* Message handler: errors read "FILE:LINE: message", FILE being the
** script, LINE the innermost line of the script on the stack (an error
** raised by a kfjob function or deep in kfjob.template points at the
** script line that called it).  Never runs metamethods of the error
** value. */
static int msgh(lua_State *L) {
  run *R = getrun(L);
  const char *msg;
  lua_Debug ar;
  int level;
  if (lua_type(L, 1) == LUA_TSTRING) {
    msg = lua_tostring(L, 1);
  } else if (lua_isnil(L, 1)) {
    msg = lua_pushliteral(L, "nil error");
  } else {
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  if (R->short_src[0] == '\0' || starts_with(msg, R->short_src)) return 1;
  for (level = 0; lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 &&
        strcmp(ar.short_src, R->short_src) == 0 && ar.what[0] != 'C') {
      lua_pushfstring(L, "%s:%d: %s", R->short_src, ar.currentline, msg);
      return 1;
    }
  }
  lua_pushfstring(L, "%s: %s", R->short_src, msg);
  return 1;
}

/* Raise "FILE: job 'NAME': message" (FILE only for scripts). */
static int job_error(lua_State *L, run *R, const char *name, const char *msg) {
  R->st = KFJOB_EJOB;
  if (R->short_src[0])
    return luaL_error(L, "%s: job '%s': %s", R->short_src, name, msg);
  return luaL_error(L, "job '%s': %s", name, msg);
}

/* ======================================================================
** JSON text -> YAML text (KFJOB_FORMAT_YAML) with the core's parser and
** emitter, in memory from the state's allocator (so it counts against the
** limit).  No Lua call happens while that memory is held.
** ====================================================================== */

typedef struct yamlout {
  kf_buf b;
  kf_err e;
} yamlout;

static kf_status json_to_yaml(lua_State *L, const char *json, size_t n,
                              yamlout *y) {
  kf_alloc a;
  kf_arena A;
  kf_node *doc;
  kf_status st;
  a.f = (kf_allocf)lua_getallocf(L, &a.ud);
  kf_arena_init(&A, a);
  kf_buf_init(&y->b, a);
  st = kf_json_parse(json, n, &A, &doc, &y->e);
  if (st == KF_OK)
    st = kf_yaml((const kf_node *const *)&doc, 1, 2, &y->b, &y->e);
  if (st == KF_OK && !kf_buf_addc(&y->b, '\0')) st = kf_nomem(&y->e);
  kf_arena_free(&A);
  if (st != KF_OK) kf_buf_free(&y->b);
  return st;
}

/* ======================================================================
** Rendering one job
** ====================================================================== */

static const char *const format_names[] = {
    "pb", "json", "yaml", "template", "template-json", "manifest",
    "manifest-json", "none"};

/* The job method each format needs. */
static const char *method_of(kfjob_format f) {
  switch (f) {
    case KFJOB_FORMAT_PB: case KFJOB_FORMAT_NONE: return "encode";
    case KFJOB_FORMAT_JSON: case KFJOB_FORMAT_YAML: return "to_json";
    case KFJOB_FORMAT_TEMPLATE: case KFJOB_FORMAT_TEMPLATE_JSON: return "task_template";
    default: return "manifest";
  }
}

static int is_manifest(kfjob_format f) {
  return f == KFJOB_FORMAT_MANIFEST || f == KFJOB_FORMAT_MANIFEST_JSON;
}

static int getfield_raw(lua_State *L) {  /* (obj, key) -> obj[key] */
  lua_gettable(L, 1);
  return 1;
}

/* Push job[name] when it is a function, else push nothing and return 0.
** Job objects raise on unknown fields, hence the protected lookup. */
static int get_method(lua_State *L, int job, const char *name) {
  int top = lua_gettop(L);
  lua_pushcfunction(L, getfield_raw);
  lua_pushvalue(L, job);
  lua_pushstring(L, name);
  if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_isfunction(L, -1)) return 1;
  if (getrun(L)->limit_hit) lua_error(L);
  lua_settop(L, top);
  return 0;
}

/* Options table of the format's method for the job called `name`. */
static void push_render_opts(lua_State *L, run *R, const char *name,
                             int version) {
  kfjob_format f = R->o.format;
  lua_newtable(L);
  if (is_manifest(f)) {
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, f == KFJOB_FORMAT_MANIFEST ? "yaml" : "json");
    lua_setfield(L, -2, "format");
    if (R->o.namespace_) {
      lua_pushstring(L, R->o.namespace_);
      lua_setfield(L, -2, "namespace");
    }
    if (R->o.image) {
      lua_pushstring(L, R->o.image);
      lua_setfield(L, -2, "image");
    }
  } else {
    lua_pushinteger(L, version);
    lua_setfield(L, -2, "version");
    if (R->o.replica_encoding) {
      lua_pushstring(L, R->o.replica_encoding);
      lua_setfield(L, -2, "replica_encoding");
    }
    if (f == KFJOB_FORMAT_TEMPLATE_JSON) {
      lua_pushliteral(L, "json");
      lua_setfield(L, -2, "format");
    }
  }
  if (R->o.indent > 0 && (f == KFJOB_FORMAT_JSON || f == KFJOB_FORMAT_TEMPLATE_JSON ||
                          f == KFJOB_FORMAT_MANIFEST_JSON)) {
    lua_pushinteger(L, R->o.indent);
    lua_setfield(L, -2, "indent");
  }
}

/* Protected part of rendering: (job, name, version) -> data, lint|nil.
** Runs under its own lua_pcall so a failing job can be reported with
** keep_going. */
static int prender(lua_State *L) {
  run *R = getrun(L);
  const char *name = lua_tostring(L, 2);
  int version = (int)lua_tointeger(L, 3);
  const char *m = method_of(R->o.format);
  if (!get_method(L, 1, m)) {
    R->st = KFJOB_EUNSUPPORTED;
    return luaL_error(L, "format '%s' needs job:%s(), which this build of "
                         "kfjob does not provide", format_names[R->o.format], m);
  }
  lua_pushvalue(L, 1);
  push_render_opts(L, R, name, version);
  lua_call(L, 2, 1);                                      /* 4: data */
  if (lua_type(L, -1) != LUA_TSTRING)
    return luaL_error(L, "job:%s() returned a %s, expected a string", m,
                      luaL_typename(L, -1));
  if (R->o.format == KFJOB_FORMAT_NONE) {
    lua_pop(L, 1);
    lua_pushnil(L);
  }
  if (R->o.lint && get_method(L, 1, "lint")) {            /* 5: lint */
    lua_pushvalue(L, 1);
    lua_newtable(L);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, version);
    lua_setfield(L, -2, "version");
    if (R->o.image) {
      lua_pushstring(L, R->o.image);
      lua_setfield(L, -2, "image");
    }
    lua_call(L, 2, 1);
    if (!lua_istable(L, -1)) {
      lua_pop(L, 1);
      lua_pushnil(L);
    }
  } else {
    lua_pushnil(L);
  }
  return 2;
}

/* Warnings of a lint table at `idx`, in a userdata pushed on the stack
** (strings stay anchored by the table). */
static kfjob_warning *collect_warnings(lua_State *L, int idx, size_t *n) {
  kfjob_warning *w;
  size_t i, len;
  *n = 0;
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) {
    lua_pushnil(L);
    return NULL;
  }
  len = (size_t)lua_rawlen(L, idx);
  w = (kfjob_warning *)lua_newuserdatauv(L, (len ? len : 1) * sizeof *w, 0);
  for (i = 0; i < len; i++) {
    const char *path = "", *msg = "";
    if (lua_rawgeti(L, idx, (lua_Integer)i + 1) == LUA_TTABLE) {
      lua_pushliteral(L, "path");
      if (lua_rawget(L, -2) == LUA_TSTRING) path = lua_tostring(L, -1);
      lua_pop(L, 1);
      lua_pushliteral(L, "message");
      if (lua_rawget(L, -2) == LUA_TSTRING) msg = lua_tostring(L, -1);
      lua_pop(L, 1);
    } else if (lua_type(L, -1) == LUA_TSTRING) {
      msg = lua_tostring(L, -1);
    }
    lua_pop(L, 1);  /* the item stays anchored in the lint table */
    w[*n].path = path;
    w[*n].message = msg;
    (*n)++;
  }
  return w;
}

static int call_host(run *R, kfjob_job *j) {
  int rc;
  if (R->cb == NULL) return 0;
  rc = R->cb(R->ud, j);
  return rc;
}

/* Render the job at `job` named by the string at `name` and hand it to
** the callback.  `named`: the config gave the name (a table key, an
** iterator), so o.select applies.  Sets R->stopped when the callback asks
** to stop. */
static void emit(lua_State *L, run *R, int name, int job, int version,
                 int named) {
  int top = lua_gettop(L), status;
  size_t namelen;
  const char *nm = lua_tolstring(L, name, &namelen);
  kfjob_job j;
  yamlout yaml;
  memset(&j, 0, sizeof j);
  if (++R->emitted > (R->o.max_jobs ? R->o.max_jobs : KFJOB_DEFAULT_MAX_JOBS))
    luaL_error(L, "more than %I jobs in one render (the limit; split the sweep "
                  "or raise max_jobs)",
               (lua_Integer)(R->o.max_jobs ? R->o.max_jobs : KFJOB_DEFAULT_MAX_JOBS));
  if (namelen == 0 || strlen(nm) != namelen)
    job_error(L, R, nm, "job names must be non-empty strings without NUL bytes");
  if (named) R->named_seen = 1;
  if (R->o.select && named) {
    if (strcmp(R->o.select, nm) != 0) return;
    R->selected++;
  }
  luaL_checkstack(L, 12, NULL);
  lua_pushliteral(L, "kind");
  j.kind = (lua_gettable(L, job) == LUA_TSTRING) ? lua_tostring(L, -1) : "?";
  lua_pushliteral(L, "task_type");
  j.task_type = (lua_gettable(L, job) == LUA_TSTRING) ? lua_tostring(L, -1) : "?";
  lua_pushcfunction(L, prender);
  lua_pushvalue(L, job);
  lua_pushvalue(L, name);
  lua_pushinteger(L, version);
  status = lua_pcall(L, 3, 2, 0);
  if (status != LUA_OK) {
    const char *msg;
    if (R->limit_hit || status == LUA_ERRMEM || R->st == KFJOB_EUNSUPPORTED)
      lua_error(L);
    msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error";
    if (R->mem_hit && strstr(msg, "not enough memory")) lua_error(L);
    if (!R->o.keep_going) job_error(L, R, nm, msg);
    if (R->failed++ == 0)
      snprintf(R->first_error, sizeof R->first_error, "job '%s': %s", nm, msg);
    j.error = msg;
  } else {
    j.warnings = collect_warnings(L, -1, &j.nwarnings);
    if (lua_type(L, -3) == LUA_TSTRING) j.data = lua_tolstring(L, -3, &j.size);
  }
  j.name = nm;
  j.version = version;
  j.format = R->o.format;
  j.index = R->index++;
  j.total = R->total;
  if (j.data && R->o.format == KFJOB_FORMAT_YAML) {
    /* no Lua call from here to kf_buf_free() */
    kf_status st = json_to_yaml(L, j.data, j.size, &yaml);
    if (st == KF_ENOMEM) {
      lua_pushliteral(L, "not enough memory");
      lua_error(L);
    } else if (st != KF_OK) {
      job_error(L, R, nm, yaml.e.msg);
    }
    j.data = yaml.b.p;
    j.size = yaml.b.n - 1;
    if (call_host(R, &j) != 0) R->stopped = 1;
    kf_buf_free(&yaml.b);
  } else if (call_host(R, &j) != 0) {
    R->stopped = 1;
  }
  lua_settop(L, top);
}

/* ======================================================================
** The driver: what the config script returned -> jobs
** ====================================================================== */

/* Is the value at idx a kfjob job?  Asks kfjob.is_job (no module loaded:
** nothing can be a job). */
static int is_job(lua_State *L, int idx) {
  int r = 0, top = lua_gettop(L);
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TUSERDATA) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, KFJOB_LIBNAME) == LUA_TTABLE &&
      lua_getfield(L, -1, "is_job") == LUA_TFUNCTION) {
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    r = lua_toboolean(L, -1);
  }
  lua_settop(L, top);
  return r;
}

static const char *base_name(run *R) { return R->o.name ? R->o.name : "job"; }

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int not_a_job(lua_State *L, run *R, const char *what, int idx) {
  R->st = KFJOB_ESCRIPT;
  return luaL_error(L, "%s: %s is a %s, not a kfjob job", R->short_src, what,
                    luaL_typename(L, idx));
}

/* Jobs of a table: a list (names NAME-1...) or {name = job} (sorted). */
static void emit_table(lua_State *L, run *R, int t, int version) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, t), i, nstr = 0, nall = 0;
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    nall++;
    if (lua_type(L, -1) == LUA_TSTRING) nstr++;
  }
  if (nall == 0) return;
  if (nstr == 0 && nall == n) {                 /* a list */
    R->total = (size_t)n;
    for (i = 1; i <= n && !R->stopped; i++) {
      lua_rawgeti(L, t, i);
      if (!is_job(L, -1)) {
        lua_pushfstring(L, "item %I of the returned list", (LUAI_UACINT)i);
        not_a_job(L, R, lua_tostring(L, -1), -2);
      }
      lua_pushfstring(L, "%s-%I", base_name(R), (LUAI_UACINT)i);
      emit(L, R, lua_gettop(L), lua_gettop(L) - 1, version, 0);
      lua_pop(L, 2);
    }
  } else if (nstr == nall) {                    /* {name = job} */
    const char **keys;
    lua_Integer k = 0;
    int anchor;
    lua_createtable(L, (int)nstr, 0);           /* keeps the key strings */
    anchor = lua_gettop(L);
    keys = (const char **)lua_newuserdatauv(L, (size_t)nstr * sizeof *keys, 0);
    lua_pushnil(L);
    while (lua_next(L, t)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_rawseti(L, anchor, ++k);
      keys[k - 1] = lua_tostring(L, -1);
    }
    qsort((void *)keys, (size_t)nstr, sizeof *keys, cmp_str);
    R->total = R->o.select ? 1 : (size_t)nstr;
    for (k = 0; k < nstr && !R->stopped; k++) {
      lua_pushstring(L, keys[k]);
      lua_pushvalue(L, -1);
      lua_rawget(L, t);
      if (!is_job(L, -1)) {
        lua_pushfstring(L, "'%s' in the returned table", keys[k]);
        not_a_job(L, R, lua_tostring(L, -1), -2);
      }
      emit(L, R, lua_gettop(L) - 1, lua_gettop(L), version, 1);
      lua_pop(L, 2);
    }
    lua_pop(L, 2);
  } else {
    R->st = KFJOB_ESCRIPT;
    luaL_error(L, "%s: the returned table mixes a list and named jobs",
               R->short_src);
  }
}

/* Jobs of an iterator: f, s, ctrl as the generic for uses them. */
static void emit_iter(lua_State *L, run *R, int f, int version) {
  lua_Integer i = 0;
  int seen, named;
  lua_newtable(L);                              /* names seen */
  seen = lua_gettop(L);
  lua_pushvalue(L, f + 2);                      /* control */
  while (!R->stopped) {
    int ctl = lua_gettop(L);
    lua_pushvalue(L, f);
    lua_pushvalue(L, f + 1);
    lua_pushvalue(L, ctl);
    R->st = KFJOB_ESCRIPT;
    lua_call(L, 2, 2);                          /* name, job */
    if (lua_isnil(L, -2)) break;
    lua_pushvalue(L, -2);                       /* the next control value */
    lua_replace(L, ctl);
    i++;
    named = 1;
    if (lua_isnil(L, -1) && is_job(L, -2)) {    /* an iterator of jobs */
      named = 0;
      lua_pop(L, 1);
      lua_pushfstring(L, "%s-%I", base_name(R), (LUAI_UACINT)i);
      lua_insert(L, -2);
    }
    if (lua_type(L, -2) != LUA_TSTRING) {
      R->st = KFJOB_ESCRIPT;
      luaL_error(L, "%s: the iterator gave a %s as job name, expected a string",
                 R->short_src, luaL_typename(L, -2));
    }
    if (!is_job(L, -1)) {
      lua_pushfstring(L, "job '%s' from the iterator", lua_tostring(L, -2));
      not_a_job(L, R, lua_tostring(L, -1), -2);
    }
    lua_pushvalue(L, -2);
    if (lua_rawget(L, seen) != LUA_TNIL)
      job_error(L, R, lua_tostring(L, -3), "the name is used by another job");
    lua_pop(L, 1);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, seen);
    emit(L, R, lua_gettop(L) - 1, lua_gettop(L), version, named);
    lua_settop(L, ctl);
  }
}

static void push_params(lua_State *L, run *R) {
  size_t i;
  lua_createtable(L, 0, (int)R->o.nparams);
  for (i = 0; i < R->o.nparams; i++) {
    const char *kv = R->o.params[i];
    const char *eq = strchr(kv, '=');
    const char *v = eq + 1;
    lua_pushlstring(L, kv, (size_t)(eq - kv));
    if (lua_stringtonumber(L, v) == 0) {
      if (strcmp(v, "true") == 0) lua_pushboolean(L, 1);
      else if (strcmp(v, "false") == 0) lua_pushboolean(L, 0);
      else lua_pushstring(L, v);
    }
    lua_rawset(L, -3);
  }
}

static void run_script(lua_State *L, run *R) {
  const char *src = R->src;
  size_t len = R->len;
  int base, nres, version = R->o.version < 0 ? 1 : R->o.version;
  lua_Debug ar;
  if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) src += 3, len -= 3;
  if (len > 0 && src[0] == '#') {   /* "#!" line: keep its newline */
    while (len > 0 && src[0] != '\n') src++, len--;
  }
  R->st = KFJOB_ESCRIPT;
  if (luaL_loadbufferx(L, src, len, R->chunkname, "t") != LUA_OK) lua_error(L);
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  snprintf(R->short_src, sizeof R->short_src, "%s", ar.short_src);
  push_params(L, R);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "params");
  base = lua_gettop(L) - 1;                     /* the chunk */
  R->used = 0;                                  /* the budget is the script's */
  lua_call(L, 1, LUA_MULTRET);
  nres = lua_gettop(L) - base + 1;
  if (nres == 0 || lua_isnil(L, base)) {
    luaL_error(L, "%s: the config returned nothing; it must return a job, a "
                  "list of jobs, a {name = job} table or an iterator of name, "
                  "job", R->short_src);
  }
  lua_settop(L, base + 2);                      /* f, s, ctrl for iterators */
  if (is_job(L, base)) {
    R->total = 1;
    lua_pushstring(L, base_name(R));
    emit(L, R, lua_gettop(L), base, version, 0);
  } else if (lua_istable(L, base)) {
    emit_table(L, R, base, version);
  } else if (lua_isfunction(L, base)) {
    emit_iter(L, R, base, version);
  } else {
    luaL_error(L, "%s: the config returned a %s; it must return a job, a "
                  "list of jobs, a {name = job} table or an iterator of name, "
                  "job", R->short_src, luaL_typename(L, base));
  }
  if (R->o.select && R->named_seen && R->selected == 0 && !R->stopped) {
    R->st = KFJOB_EJOB;
    luaL_error(L, "%s: no job named '%s'", R->short_src, R->o.select);
  }
}

/* Push the name a decoded TaskTemplate gives (info.name or info.id.name),
** else the run's base name. */
static void push_template_name(lua_State *L, run *R, int info) {
  if (lua_istable(L, info)) {
    if (lua_getfield(L, info, "name") == LUA_TSTRING && lua_rawlen(L, -1) > 0)
      return;
    lua_pop(L, 1);
    if (lua_getfield(L, info, "id") == LUA_TTABLE) {
      if (lua_getfield(L, -1, "name") == LUA_TSTRING && lua_rawlen(L, -1) > 0) {
        lua_remove(L, -2);
        return;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pushstring(L, base_name(R));
}

static void run_decode(lua_State *L, run *R) {
  const char *src = R->src;
  const char *tt = R->task_type;
  size_t i = 0;
  int version = R->in_version, json, kind = -1;
  while (i < R->len && isspace((unsigned char)src[i])) i++;
  json = i < R->len && src[i] == '{';
  if (tt && (kind = kf_kind_by_name(tt)) >= 0)  /* a kind: "HorovodJob" */
    tt = kf_kinds[kind].task_type;
  lua_pushcfunction(L, sb_require);
  lua_pushliteral(L, KFJOB_LIBNAME);
  lua_call(L, 1, 1);
  lua_getfield(L, -1, R->task_type == NULL ? "decode_task_template"
                      : json ? "from_json" : "decode");
  if (!lua_isfunction(L, -1)) {
    R->st = KFJOB_EUNSUPPORTED;
    luaL_error(L, "decoding %s needs kfjob.%s, which this build of kfjob "
                  "does not provide",
               R->task_type == NULL ? "a TaskTemplate" : json ? "JSON" : "bytes",
               R->task_type == NULL ? "decode_task_template"
               : json ? "from_json" : "decode");
  }
  R->st = KFJOB_EDATA;
  if (R->task_type == NULL) {
    lua_pushlstring(L, src, R->len);
    lua_call(L, 1, 2);                          /* job, info | nil, msg */
  } else {
    lua_pushstring(L, tt);
    lua_pushlstring(L, src, R->len);
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, version);
    lua_setfield(L, -2, "version");
    if (kind >= 0) {
      lua_pushstring(L, kf_kinds[kind].name);
      lua_setfield(L, -2, "kind");
    }
    lua_call(L, 3, 2);
  }
  if (!is_job(L, -2)) {
    if (lua_type(L, -1) == LUA_TSTRING) lua_error(L);
    luaL_error(L, "the input is not a valid %s", R->task_type ? R->task_type
                                                              : "TaskTemplate");
  }
  if (R->task_type == NULL && lua_istable(L, -1)) {
    if (lua_getfield(L, -1, "version") == LUA_TNUMBER)
      version = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    push_template_name(L, R, lua_gettop(L));
  } else {
    lua_pushstring(L, base_name(R));
  }
  R->total = 1;
  if (R->o.version >= 0) version = R->o.version;
  R->st = KFJOB_EJOB;
  emit(L, R, lua_gettop(L), lua_gettop(L) - 2, version, 0);
}

static int pmain(lua_State *L) {
  run *R = (run *)lua_touserdata(L, 1);
  lua_settop(L, 0);
  R->st = KFJOB_EMEMORY;
  open_sandbox(L);
  if (R->mode == MODE_SCRIPT) run_script(L, R);
  else run_decode(L, R);
  return 0;
}

/* ======================================================================
** Public entry points
** ====================================================================== */

static void hmsg(kfjob_host *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void hmsg(kfjob_host *h, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->msg, sizeof h->msg, fmt, ap);
  va_end(ap);
}

static kfjob_status check_opts(kfjob_host *h, const kfjob_run_options *o) {
  size_t i;
  if ((unsigned)o->format > (unsigned)KFJOB_FORMAT_NONE) {
    hmsg(h, "unknown format %d", (int)o->format);
    return KFJOB_EARG;
  }
  if (o->version < -1 || o->version > 1) {
    hmsg(h, "unsupported task_type_version (expected 0 or 1)");
    return KFJOB_EARG;
  }
  if (o->replica_encoding && strcmp(o->replica_encoding, "flat") != 0 &&
      strcmp(o->replica_encoding, "common") != 0) {
    hmsg(h, "replica_encoding: expected \"flat\" or \"common\", got \"%s\"",
            o->replica_encoding);
    return KFJOB_EARG;
  }
  if (o->nparams && o->params == NULL) {
    hmsg(h, "params is NULL but nparams is not 0");
    return KFJOB_EARG;
  }
  for (i = 0; i < o->nparams; i++) {
    const char *kv = o->params[i];
    if (kv == NULL || strchr(kv, '=') == NULL || kv[0] == '=') {
      hmsg(h, "parameter '%s' is not key=value", kv ? kv : "(null)");
      return KFJOB_EARG;
    }
  }
  if (o->name && o->name[0] == '\0') {
    hmsg(h, "the job name must not be empty");
    return KFJOB_EARG;
  }
  return KFJOB_OK;
}

static kfjob_status do_run(kfjob_host *h, run *R) {
  lua_State *L;
  int status;
  kfjob_status st = KFJOB_OK;
  R->h = h;
  R->mem_limit = h->opt.memory_limit;
  R->limit = h->opt.instruction_limit;
  memset(&h->usage, 0, sizeof h->usage);
  h->msg[0] = '\0';
  L = lua_newstate(host_alloc, R);
  if (L == NULL) {
    hmsg(h, "memory limit too small to create a Lua state");
    return KFJOB_EMEMORY;
  }
  h->busy = 1;
  lua_setwarnf(L, warnf, R);
  lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_STEP);
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, pmain);
  lua_pushlightuserdata(L, R);
  status = lua_pcall(L, 1, 0, 1);
  if (status != LUA_OK) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    if (R->limit_hit) {
      st = KFJOB_ELIMIT;
    } else if (status == LUA_ERRMEM ||
               (R->mem_hit && (status == LUA_ERRERR ||
                               strstr(msg, "not enough memory") != NULL))) {
      st = KFJOB_EMEMORY;
      if (R->mem_hit && R->mem_limit) {
        hmsg(h, "%s%smemory limit exceeded (%zu bytes)", R->short_src,
             R->short_src[0] ? ": " : "", R->mem_limit);
        msg = NULL;
      }
    } else {
      st = R->st == KFJOB_OK ? KFJOB_ESCRIPT : R->st;
    }
    if (msg) snprintf(h->msg, sizeof h->msg, "%s", msg);
  } else if (R->stopped) {
    st = KFJOB_ESTOPPED;
    hmsg(h, "stopped by the job callback");
  } else if (R->failed) {
    st = KFJOB_EJOB;
    snprintf(h->msg, sizeof h->msg, "%s%s%zu of %zu jobs could not be rendered "
             "(first: %s)", R->short_src, R->short_src[0] ? ": " : "",
             R->failed, R->index, R->first_error);
  }
  /* close with every instruction raising: no script code runs any more */
  R->closing = 1;
  lua_sethook(L, hook, LUA_MASKCOUNT, 1);
  lua_close(L);
  h->busy = 0;
  h->usage.memory_peak = R->mem_peak;
  h->usage.instructions = R->used;
  h->usage.jobs = R->index;
  h->usage.failed = R->failed;
  return st;
}

static kfjob_status begin(kfjob_host *h, run *R, const kfjob_run_options *o,
                          kfjob_job_fn cb, void *ud) {
  kfjob_status st;
  memset(R, 0, sizeof *R);
  if (h == NULL) return KFJOB_EARG;
  if (h->busy) {
    /* the message belongs to the running call: leave it alone */
    return KFJOB_EARG;
  }
  h->msg[0] = '\0';
  if (o) R->o = *o;
  else kfjob_run_options_init(&R->o);
  if ((st = check_opts(h, &R->o)) != KFJOB_OK) return st;
  R->cb = cb;
  R->ud = ud;
  return KFJOB_OK;
}

KFJOB_API kfjob_status kfjob_host_run_string(kfjob_host *h, const char *src,
                                             size_t len, const char *chunkname,
                                             const kfjob_run_options *o,
                                             kfjob_job_fn cb, void *ud) {
  run R;
  char name[LUA_IDSIZE + 2];
  kfjob_status st = begin(h, &R, o, cb, ud);
  if (st != KFJOB_OK) return st;
  if (src == NULL) {
    hmsg(h, "the script is NULL");
    return KFJOB_EARG;
  }
  snprintf(name, sizeof name, "=%s", chunkname ? chunkname : "config");
  R.mode = MODE_SCRIPT;
  R.src = src;
  R.len = len;
  R.chunkname = name;
  return do_run(h, &R);
}

KFJOB_API kfjob_status kfjob_host_run_file(kfjob_host *h, const char *path,
                                           const kfjob_run_options *o,
                                           kfjob_job_fn cb, void *ud) {
  run R;
  FILE *f;
  char *buf = NULL, *chunk;
  size_t n = 0, cap = 0, plen;
  kfjob_status st = begin(h, &R, o, cb, ud);
  if (st != KFJOB_OK) return st;
  if (path == NULL) {
    hmsg(h, "the script path is NULL");
    return KFJOB_EARG;
  }
  if ((f = fopen(path, "rb")) == NULL) {
    hmsg(h, "cannot open %s: %s", path, strerror(errno));
    return KFJOB_EIO;
  }
  for (;;) {
    size_t r;
    if (n == cap) {
      char *p;
      cap = cap ? cap * 2 : 4096;
      if ((p = (char *)realloc(buf, cap)) == NULL) {
        free(buf);
        fclose(f);
        hmsg(h, "not enough memory to read %s", path);
        return KFJOB_EMEMORY;
      }
      buf = p;
    }
    r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0) break;
  }
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    free(buf);
    hmsg(h, "cannot read %s: %s", path, strerror(e));
    return KFJOB_EIO;
  }
  fclose(f);
  plen = strlen(path);
  if ((chunk = (char *)malloc(plen + 2)) == NULL) {
    free(buf);
    hmsg(h, "not enough memory");
    return KFJOB_EMEMORY;
  }
  chunk[0] = '@';
  memcpy(chunk + 1, path, plen + 1);
  R.mode = MODE_SCRIPT;
  R.src = buf;
  R.len = n;
  R.chunkname = chunk;
  st = do_run(h, &R);
  free(chunk);
  free(buf);
  return st;
}

KFJOB_API kfjob_status kfjob_host_decode(kfjob_host *h, const char *task_type,
                                         int version, const void *data,
                                         size_t size,
                                         const kfjob_run_options *o,
                                         kfjob_job_fn cb, void *ud) {
  run R;
  kfjob_status st = begin(h, &R, o, cb, ud);
  if (st != KFJOB_OK) return st;
  if (data == NULL && size > 0) {
    hmsg(h, "the data is NULL");
    return KFJOB_EARG;
  }
  if (version != 0 && version != 1) {
    hmsg(h, "unsupported task_type_version (expected 0 or 1)");
    return KFJOB_EARG;
  }
  R.mode = MODE_DECODE;
  R.src = data ? (const char *)data : "";
  R.len = size;
  R.task_type = task_type;
  R.in_version = version;
  return do_run(h, &R);
}

KFJOB_API void kfjob_host_options_init(kfjob_host_options *o) {
  if (o == NULL) return;
  memset(o, 0, sizeof *o);
  o->memory_limit = KFJOB_DEFAULT_MEMORY_LIMIT;
  o->instruction_limit = KFJOB_DEFAULT_INSTRUCTION_LIMIT;
}

KFJOB_API void kfjob_run_options_init(kfjob_run_options *o) {
  if (o == NULL) return;
  memset(o, 0, sizeof *o);
  o->format = KFJOB_FORMAT_JSON;
  o->version = -1;
}

KFJOB_API kfjob_status kfjob_host_new(const kfjob_host_options *opts,
                                      kfjob_host **out) {
  kfjob_host *h;
  if (out == NULL) return KFJOB_EARG;
  *out = NULL;
  if ((h = (kfjob_host *)calloc(1, sizeof *h)) == NULL) return KFJOB_EMEMORY;
  if (opts) h->opt = *opts;
  else kfjob_host_options_init(&h->opt);
  *out = h;
  return KFJOB_OK;
}

KFJOB_API void kfjob_host_free(kfjob_host *h) {
  if (h == NULL || h->busy) return;
  free(h);
}

KFJOB_API const char *kfjob_host_message(const kfjob_host *h) {
  if (h == NULL) return "no kfjob_host (NULL handle)";
  return h->msg;
}

KFJOB_API void kfjob_host_usage(const kfjob_host *h, kfjob_usage *u) {
  if (u == NULL) return;
  if (h == NULL) memset(u, 0, sizeof *u);
  else *u = h->usage;
}

KFJOB_API const char *kfjob_status_string(kfjob_status s) {
  switch (s) {
    case KFJOB_OK: return "ok";
    case KFJOB_ESCRIPT: return "script error";
    case KFJOB_EJOB: return "job error";
    case KFJOB_EMEMORY: return "memory limit exceeded";
    case KFJOB_ELIMIT: return "instruction budget exceeded";
    case KFJOB_EDATA: return "invalid input data";
    case KFJOB_EIO: return "I/O error";
    case KFJOB_EARG: return "invalid argument";
    case KFJOB_EUNSUPPORTED: return "unsupported by this build";
    case KFJOB_ESTOPPED: return "stopped by the callback";
  }
  return "unknown status";
}

KFJOB_API const char *kfjob_format_name(kfjob_format f) {
  if ((unsigned)f > (unsigned)KFJOB_FORMAT_NONE) return NULL;
  return format_names[f];
}

KFJOB_API int kfjob_format_parse(const char *name, kfjob_format *out) {
  int i;
  if (name == NULL) return 0;
  for (i = 0; i <= (int)KFJOB_FORMAT_NONE; i++)
    if (strcmp(name, format_names[i]) == 0) {
      if (out) *out = (kfjob_format)i;
      return 1;
    }
  return 0;
}

/*
** sandbox.c - the restricted Lua state of a run: the allocator that
** enforces the memory limit, the count hook and charges that enforce the
** instruction budget, wrappers of the library functions a script could
** abuse, and the allow-list of globals and library functions.
*/
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

#include "host.h"
#include "kf_job.h"

/* ======================================================================
** Memory limit: the allocator of every state
** ====================================================================== */

void *kfh_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
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
  if (nsize > osize) R->allocated += nsize - osize;
  if (R->mem > R->mem_peak) R->mem_peak = R->mem;
  return p;
}

/* ======================================================================
** Instruction budget: count hook + charges from C library functions
** ====================================================================== */

static void over_budget(lua_State *L, run *R) {
  R->limit_hit = 1;
  /* from now on every instruction of this thread raises, so a script
  ** that catches the error with pcall cannot keep running */
  lua_sethook(L, kfh_hook, LUA_MASKCOUNT, 1);
  if (R->closing)
    luaL_error(L, "finalizers do not run in the kfjob sandbox");
  /* no position here: the run's message handler puts the config's line
  ** (not a line of kfjob's own Lua modules) in front */
  lua_pushfstring(L, "instruction budget exceeded (%I instructions)",
                  (lua_Integer)R->limit);
  lua_error(L);
}

unsigned long long kfh_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000u + (unsigned long long)ts.tv_nsec;
}

unsigned long long kfh_deadline_ns(unsigned long *time_limit_ms) {
  unsigned long long now = kfh_now_ns();
  unsigned long ms = *time_limit_ms ? *time_limit_ms : KFJOB_DEFAULT_TIME_LIMIT_MS;
  *time_limit_ms = ms;
  if (ms == KFJOB_NO_TIME_LIMIT) return 0;
  if (ms >= (~0ULL - now) / 1000000u) return ~0ULL;
  return now + (unsigned long long)ms * 1000000u;
}

/* The wall-clock limit (kfjob_run_options.time_limit_ms), a last resort:
** once past it, every instruction raises again, as for the budget. */
static int past_deadline(const run *R) {
  return R->deadline_ns && (R->time_hit || kfh_now_ns() > R->deadline_ns);
}

/* `where`: the config's position, or NULL (the message handler adds it) */
static void time_over(lua_State *L, run *R, const char *where) {
  char ms[24];   /* unsigned: a limit above LUA_MAXINTEGER is not negative */
  snprintf(ms, sizeof ms, "%lu", R->o.time_limit_ms);
  R->time_hit = R->limit_hit = 1;
  lua_sethook(L, kfh_hook, LUA_MASKCOUNT, 1);
  lua_pushfstring(L, "%s%stime limit exceeded (%s ms)", where ? where : "",
                  where ? ": " : "", ms);   /* no position of kfjob's own modules */
  lua_error(L);
}

static void check_time(lua_State *L, run *R) {
  if (past_deadline(R)) time_over(L, R, NULL);
}

void kfh_check_time(lua_State *L, run *R, int job) {
  if (!R->stopped && past_deadline(R)) time_over(L, R, job ? kfh_site(L, job) : NULL);
}

void kfh_hook(lua_State *L, lua_Debug *ar) {
  run *R = kfh_run(L);
  (void)ar;
  if (R->closing) over_budget(L, R);
  R->used += R->limit_hit ? 1 : HOOK_STEP;
  check_time(L, R);
  if (R->limit && R->used > R->limit) over_budget(L, R);
}

/* The binding's work meter (kf_meter): kfjob's own C functions add the
** bytes they process, and check the budget at the start of each call. */
static void meter_add(void *L, unsigned long long units) {
  kfh_run((lua_State *)L)->used += units;
}

static void meter_check(void *L) {
  run *R = kfh_run((lua_State *)L);
  check_time((lua_State *)L, R);
  if (R->limit && R->used > R->limit) over_budget((lua_State *)L, R);
}

static unsigned long long meter_allocated(void *L) {
  return kfh_run((lua_State *)L)->allocated;
}

static const kf_meter meter = {meter_add, meter_check, meter_allocated};

/* Charge n steps of C work to the budget. */
static void charge(lua_State *L, unsigned long long n) {
  run *R = kfh_run(L);
  R->used += n;
  if (R->limit && R->used > R->limit) over_budget(L, R);
}

/* ======================================================================
** Library functions whose running time a script controls from C, where
** the count hook cannot see it.  Each wrapper bounds or charges the work
** up front, then calls the standard function (upvalue 1).
** ====================================================================== */

/* Lua patterns backtrack: at each start position the matcher may retry
** once per expanding or optional item (*, +, -, ?, %b), so the work grows like
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
    } else if (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?') {
      k++;   /* '?' backtracks too: ("a?"):rep(n) tries 2^n ways */
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

/* v + d without signed overflow: __len and the positions are the
** script's (math.maxinteger, math.mininteger); saturates, as only the size
** of the charge matters. */
static lua_Integer sat_add(lua_Integer v, lua_Integer d) {
  if (d > 0 && v > LUA_MAXINTEGER - d) return LUA_MAXINTEGER;
  if (d < 0 && v < LUA_MININTEGER - d) return LUA_MININTEGER;
  return v + d;
}

static int sb_table(lua_State *L) {
  int which = (int)lua_tointeger(L, lua_upvalueindex(2));
  if (which == 2) {  /* move(a1, f, e, t [, a2]) */
    charge_span(L, sat_add(luaL_checkinteger(L, 2), -1), luaL_checkinteger(L, 3));
  } else if (lua_type(L, 1) == LUA_TTABLE || luaL_getmetafield(L, 1, "__len") != LUA_TNIL) {
    lua_Integer n = luaL_len(L, 1), pos;
    if (which == 0)  /* insert(t, [pos,] v) */
      pos = lua_gettop(L) >= 3 ? luaL_checkinteger(L, 2) : sat_add(n, 1);
    else             /* remove(t [, pos]) */
      pos = luaL_optinteger(L, 2, n);
    charge_span(L, pos, sat_add(n, 1));
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* ======================================================================
** The sandbox
** ====================================================================== */

/* The reader function of load(reader): each piece it returns is charged
** before the parser reads it (parsing runs in C, unseen by the hook). */
static int sb_reader(lua_State *L) {
  lua_settop(L, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_call(L, 0, 1);
  if (lua_type(L, 1) == LUA_TSTRING) charge(L, lua_rawlen(L, 1));
  return 1;
}

/* load(chunk [, name [, mode [, env]]]): text only. */
static int sb_load(lua_State *L) {
  const char *mode = luaL_optstring(L, 3, "t");
  if (strchr(mode, 't') == NULL)
    return luaL_error(L, "load: binary chunks are not allowed in the kfjob "
                         "sandbox (mode '%s')", mode);
  if (lua_type(L, 1) == LUA_TFUNCTION) {
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, sb_reader, 1);
    lua_replace(L, 1);
  } else if (lua_type(L, 1) == LUA_TSTRING) {
    charge(L, lua_rawlen(L, 1));   /* the text the parser reads */
  }
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
  if (kfh_run(L)->limit_hit) return 1;
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
  logtext(kfh_run(L), s, len);
  return 0;
}

void kfh_warnf(void *ud, const char *msg, int tocont) {
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
int kfh_require(lua_State *L) {
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
  if (strncmp(name, "kfjob", 5) == 0) kfh_wrap_template(L);
  return 1;
}

/* ======================================================================
** The allow-list: every global and library function a config may use,
** as data.  After the libraries are opened, every other name is removed
** from the global table and from each library table; then each listed
** wrapper replaces (or, for require, provides) its name.
** ====================================================================== */

typedef struct sb_name {
  const char *lib;      /* library table ("string"), or NULL: a global */
  const char *name;
  lua_CFunction f;      /* NULL: the standard value as it is */
  int up;               /* with f: 0 f alone; 1 the standard function as
                           upvalue 1; 2 and `tag` as upvalue 2 */
  int tag;              /* which function a shared wrapper stands for */
} sb_name;

#define STD(lib, name) {lib, name, NULL, 0, 0}
#define G(name) STD(NULL, name)
#define S(name) STD(LUA_STRLIBNAME, name)
#define T(name) STD(LUA_TABLIBNAME, name)
#define M(name) STD(LUA_MATHLIBNAME, name)
#define U(name) STD(LUA_UTF8LIBNAME, name)
#define C(name) STD(LUA_COLIBNAME, name)
#define OS(name) STD(LUA_OSLIBNAME, name)

static const sb_name allowed[] = {
    /* base library; dofile and loadfile are left out */
    G("_G"), G("_VERSION"), G("assert"), G("collectgarbage"), G("error"),
    G("getmetatable"), G("ipairs"), G("next"), G("pairs"), G("pcall"),
    G("rawequal"), G("rawget"), G("rawlen"), G("rawset"), G("select"),
    G("tonumber"), G("tostring"), G("type"), G("warn"),
    {NULL, "load", sb_load, 1, 0},
    {NULL, "setmetatable", sb_setmetatable, 1, 0},
    {NULL, "xpcall", sb_xpcall, 1, 0},
    {NULL, "print", sb_print, 0, 0},
    {NULL, "require", kfh_require, 0, 0},
    /* the libraries */
    G(LUA_STRLIBNAME), G(LUA_TABLIBNAME), G(LUA_MATHLIBNAME), G(LUA_UTF8LIBNAME),
    G(LUA_COLIBNAME), G(LUA_OSLIBNAME),
    /* string: no dump (binary chunks) */
    S("byte"), S("char"), S("format"), S("len"), S("lower"), S("pack"),
    S("packsize"), S("reverse"), S("sub"), S("unpack"), S("upper"),
    {LUA_STRLIBNAME, "rep", sb_rep, 1, 0},
    {LUA_STRLIBNAME, "find", sb_pattern, 2, 1},
    {LUA_STRLIBNAME, "match", sb_pattern, 2, 0},
    {LUA_STRLIBNAME, "gmatch", sb_pattern, 2, 0},
    {LUA_STRLIBNAME, "gsub", sb_pattern, 2, 0},
    /* table */
    T("concat"), T("pack"), T("sort"), T("unpack"),
    {LUA_TABLIBNAME, "insert", sb_table, 2, 0},
    {LUA_TABLIBNAME, "remove", sb_table, 2, 1},
    {LUA_TABLIBNAME, "move", sb_table, 2, 2},
    /* math, with the LUA_COMPAT_MATHLIB functions where Lua has them */
    M("abs"), M("acos"), M("asin"), M("atan"), M("ceil"), M("cos"), M("deg"),
    M("exp"), M("floor"), M("fmod"), M("huge"), M("log"), M("max"),
    M("maxinteger"), M("min"), M("mininteger"), M("modf"), M("pi"), M("rad"),
    M("random"), M("randomseed"), M("sin"), M("sqrt"), M("tan"),
    M("tointeger"), M("type"), M("ult"), M("atan2"), M("cosh"), M("frexp"),
    M("ldexp"), M("log10"), M("pow"), M("sinh"), M("tanh"),
    /* utf8, coroutine */
    U("char"), U("charpattern"), U("codepoint"), U("codes"), U("len"),
    U("offset"),
    C("close"), C("create"), C("isyieldable"), C("resume"), C("running"),
    C("status"), C("wrap"), C("yield"),
    /* os: the clock only; no processes, files, environment or locale */
    OS("clock"), OS("date"), OS("time")};

#undef STD
#undef G
#undef S
#undef T
#undef M
#undef U
#undef C
#undef OS

#define NALLOWED (sizeof allowed / sizeof allowed[0])

static int is_allowed(const char *lib, const char *name) {
  size_t i;
  for (i = 0; i < NALLOWED; i++)
    if ((allowed[i].lib == NULL ? lib == NULL
                                : lib != NULL && strcmp(allowed[i].lib, lib) == 0) &&
        strcmp(allowed[i].name, name) == 0)
      return 1;
  return 0;
}

/* Remove every field of the table at t that `lib` does not allow. */
static void keep_allowed(lua_State *L, int t, const char *lib) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING || !is_allowed(lib, lua_tostring(L, -1))) {
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, t);   /* clearing a field keeps the traversal valid */
    }
  }
}

void kfh_open_sandbox(lua_State *L) {
  static const luaL_Reg libs[] = {
      {LUA_GNAME, luaopen_base},         {LUA_TABLIBNAME, luaopen_table},
      {LUA_STRLIBNAME, luaopen_string},  {LUA_MATHLIBNAME, luaopen_math},
      {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine},
      {LUA_OSLIBNAME, luaopen_os},       {NULL, NULL}};
  const luaL_Reg *l;
  size_t i;
  int g;
  for (l = libs; l->name; l++) {
    luaL_requiref(L, l->name, l->func, 1);
    lua_pop(L, 1);
  }
  lua_pushglobaltable(L);
  g = lua_gettop(L);
  keep_allowed(L, g, NULL);
  for (l = libs + 1; l->name; l++) {
    lua_getfield(L, g, l->name);
    keep_allowed(L, lua_gettop(L), l->name);
    lua_pop(L, 1);
  }
  for (i = 0; i < NALLOWED; i++) {
    const sb_name *a = &allowed[i];
    if (a->f == NULL) continue;
    if (a->lib) lua_getfield(L, g, a->lib);
    else lua_pushvalue(L, g);
    if (a->up > 0) lua_getfield(L, -1, a->name);
    if (a->up > 1) lua_pushinteger(L, a->tag);
    lua_pushcclosure(L, a->f, a->up);
    lua_setfield(L, -2, a->name);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_pushlightuserdata(L, (void *)&meter);
  lua_setfield(L, LUA_REGISTRYINDEX, KF_METER_KEY);
  kfjob_preload(L);
}

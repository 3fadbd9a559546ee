/*
** site.c - where a run's messages point: the host's message, a job's
** error, and the "FILE:LINE" where the config made each job (the job
** constructors, job:with and template.variants wrapped once a module is
** loaded).  Below driver.c, render.c and sandbox.c; calls none of them.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "lkf_binding.h"
#include "host.h"

void kfh_msg(kfjob_host *h, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->msg, sizeof h->msg, fmt, ap);
  va_end(ap);
}

/* Raise "FILE: job 'NAME': message" (FILE only for scripts). */
int kfh_job_error(lua_State *L, run *R, const char *name, const char *msg) {
  R->st = KFJOB_EJOB;
  if (R->short_src[0])
    return luaL_error(L, "%s: job '%s': %s", R->short_src, name, msg);
  return luaL_error(L, "job '%s': %s", name, msg);
}

/* kfjob.template.variants as the sandbox's configs see it: the real
** function (upvalue 1), then the position of the config's call recorded
** as the iterator's `site`.  A C function called in tail position
** (`return template.variants(...)`, the usual last line of a sweep) still
** sees its caller's frame, which the Lua function would not. */
static int variants_at(lua_State *L) {
  lua_Debug ar;
  int n = lua_gettop(L), r;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  r = lua_gettop(L);
  if (r >= 1 && lua_isfunction(L, 1) && lua_getstack(L, 1, &ar) &&
      lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && ar.what[0] != 'C') {
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "kfjob.template.variants") == LUA_TTABLE &&
        lua_getfield(L, -1, "info") == LUA_TFUNCTION) {
      lua_pushvalue(L, 1);
      lua_call(L, 1, 1);
      if (lua_istable(L, -1)) {
        lua_pushfstring(L, "%s:%d", ar.short_src, ar.currentline);
        lua_setfield(L, -2, "site");
      }
    }
    lua_settop(L, r);
  }
  return r;
}

/* ---- where the config made each job ----------------------------------- */

/* Records "FILE:LINE" of the config's frame at `level` for the object at
** idx, when that frame is the config's (not kfjob.template's). */
static void record_site(lua_State *L, int idx, int level) {
  run *R = kfh_run(L);
  lua_Debug ar;
  idx = lua_absindex(L, idx);
  if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "Sl", &ar) ||
      ar.currentline <= 0 || strcmp(ar.short_src, R->short_src) != 0)
    return;
  if (lua_getfield(L, LUA_REGISTRYINDEX, SITES) == LUA_TTABLE) {
    lua_pushvalue(L, idx);
    lua_pushfstring(L, "%s:%d", ar.short_src, ar.currentline);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
}

/* A job constructor or job:with (upvalue 1), then where it was called. */
static int made_at(lua_State *L) {
  int n = lua_gettop(L), r;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  r = lua_gettop(L);
  if (r >= 1 && lua_type(L, 1) == LUA_TUSERDATA) record_site(L, 1, 1);
  lua_settop(L, r);
  return r;
}

/* Pushes "FILE:LINE" where the config made the job at idx, or nothing;
** returns it or NULL. */
const char *kfh_site(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_getfield(L, LUA_REGISTRYINDEX, SITES) == LUA_TTABLE) {
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TSTRING) {
      lua_remove(L, -2);
      return lua_tostring(L, -1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return NULL;
}

static void wrap_field(lua_State *L, int t, const char *k, lua_CFunction f) {
  if (lua_getfield(L, t, k) == LUA_TFUNCTION) {
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, t, k);
  } else {
    lua_pop(L, 1);
  }
}

/* After a kfjob module is loaded, once each: kfjob.template.variants
** becomes variants_at; the job constructors and job:with become made_at,
** so a job that fails to render is reported at the line that made it. */
void kfh_wrap_template(lua_State *L) {
  int top = lua_gettop(L), k;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "kfjob.template") == LUA_TTABLE &&
      lua_getfield(L, -1, "variants") == LUA_TFUNCTION &&
      !lua_iscfunction(L, -1)) {
    lua_pushcclosure(L, variants_at, 1);
    lua_setfield(L, -2, "variants");
  }
  lua_settop(L, top + 1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, SITES) == LUA_TNIL &&
      lua_getfield(L, top + 1, KFJOB_LIBNAME) == LUA_TTABLE) {
    int mod = lua_gettop(L);
    lua_newtable(L);                            /* the sites, weak keys */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, SITES);
    for (k = 0; k < KF_NKINDS; k++) wrap_field(L, mod, kf_kinds[k].name, made_at);
    /* the methods table all job metatables share */
    if (luaL_getmetatable(L, lkf_job_mt[0]) == LUA_TTABLE &&
        lua_getfield(L, -1, "methods") == LUA_TTABLE)
      wrap_field(L, lua_gettop(L), "with", made_at);
  }
  lua_settop(L, top);
}

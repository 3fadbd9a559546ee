/*
** lkf_compat.h - the Lua 5.4 C API the binding uses, on Lua 5.1, 5.2, 5.3
** and LuaJIT 2.1 too.  Include it instead of lua.h / lauxlib.h.
**
** Written for kfjob (not a copy of a compatibility library): each block
** gives what one version range lacks, with 5.4's semantics where the
** binding depends on them.
**
**  * Integers: on 5.1, 5.2 and LuaJIT every number is a double.  There
**    lua_isinteger() is true for a number with an integral value in the
**    range of lua_Integer (64 bits), and lua_tointeger[x]() converts only
**    those (5.3's rule: 2.5 is not an integer, "converts" to 0, isnum 0),
**    so the core's int32 rules see the same values on every version.
**  * Metatables made by luaL_newmetatable() get a "__name" field, as on
**    5.3+, so messages name kfjob objects the same way everywhere.
**  * lua_toclose() has no equivalent: lkf_ctx() (lkfjob_util.c) uses
**    LKF_HAVE_TOCLOSE to choose its own way of finding nested calls.
*/
#ifndef LKF_COMPAT_H
#define LKF_COMPAT_H

#include "lua.h"
#include "lauxlib.h"

/* LuaJIT (its lua.h says 5.1; luajit.h is beside it) */
#if LUA_VERSION_NUM == 501 && defined(__has_include)
#if __has_include("luajit.h")
#include "luajit.h"
#endif
#endif
#ifdef LUAJIT_VERSION
#define LKF_LUAJIT 1
#else
#define LKF_LUAJIT 0
#endif

/* Lua integers of 64 bits (kfjob.hash64's integer form) */
#if LUA_VERSION_NUM >= 503 && defined(LUA_MAXINTEGER) && LUA_MAXINTEGER >= 9223372036854775807
#define LKF_INT64 1
#else
#define LKF_INT64 0
#endif

#if LUA_VERSION_NUM >= 504
#define LKF_HAVE_TOCLOSE 1
#else
#define LKF_HAVE_TOCLOSE 0
#endif

/* ---- Lua 5.1 and LuaJIT (LUA_VERSION_NUM 501) ------------------------ */
#if LUA_VERSION_NUM < 502

#ifndef LUA_OK
#define LUA_OK 0
#endif
#define lua_rawlen(L, i) lua_objlen(L, (i))
#define luaL_len(L, i) ((lua_Integer)lua_objlen(L, (i)))
#define luaL_checkversion(L) ((void)0)

static inline int lkfc_absindex(lua_State *L, int i) {
  return i > 0 || i <= LUA_REGISTRYINDEX ? i : lua_gettop(L) + i + 1;
}
#define lua_absindex lkfc_absindex

static inline void lkfc_setfuncs(lua_State *L, const luaL_Reg *r, int nup) {
  int i;
  luaL_checkstack(L, nup + 1, "too many upvalues");
  for (; r->name; r++) {
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
    lua_pushcclosure(L, r->func, nup);
    lua_setfield(L, -(nup + 2), r->name);
  }
  lua_pop(L, nup);
}
#define luaL_setfuncs lkfc_setfuncs

static inline void lkfc_setmetatable(lua_State *L, const char *tname) {
  luaL_getmetatable(L, tname);
  lua_setmetatable(L, -2);
}
#define luaL_setmetatable lkfc_setmetatable

static inline void *lkfc_testudata(lua_State *L, int ud, const char *tname) {
  void *p = lua_touserdata(L, ud);
  if (p == NULL || !lua_getmetatable(L, ud)) return NULL;
  luaL_getmetatable(L, tname);
  if (!lua_rawequal(L, -1, -2)) p = NULL;
  lua_pop(L, 2);
  return p;
}
#define luaL_testudata lkfc_testudata

static inline int lkfc_getsubtable(lua_State *L, int idx, const char *fname) {
  idx = lkfc_absindex(L, idx);
  lua_getfield(L, idx, fname);
  if (lua_istable(L, -1)) return 1;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, idx, fname);
  return 0;
}
#define luaL_getsubtable lkfc_getsubtable

static inline void lkfc_requiref(lua_State *L, const char *name,
                                 lua_CFunction openf, int glb) {
  lua_pushcfunction(L, openf);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  lkfc_getsubtable(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  if (glb) {
    lua_pushvalue(L, -1);
    lua_setglobal(L, name);
  }
}
#define luaL_requiref lkfc_requiref

/* mode "t" refuses precompiled chunks, as 5.2+ do */
static inline int lkfc_loadbufferx(lua_State *L, const char *s, size_t n,
                                   const char *name, const char *mode) {
  int bin = n > 0 && s[0] == LUA_SIGNATURE[0];
  const char *m;
  for (m = mode; m && *m && *m != (bin ? 'b' : 't'); m++) {}
  if (mode && !*m) {
    lua_pushfstring(L, "attempt to load a %s chunk (mode is '%s')",
                    bin ? "binary" : "text", mode);
    return LUA_ERRSYNTAX;
  }
  return luaL_loadbuffer(L, s, n, name);
}
#define luaL_loadbufferx lkfc_loadbufferx

#endif /* < 502 */

/* ---- Lua 5.1, 5.2 and LuaJIT ----------------------------------------- */
#if LUA_VERSION_NUM < 503

#ifndef LUA_LOADED_TABLE
#define LUA_LOADED_TABLE "_LOADED"
#endif

/* Getters return the type of the value they push. */
#define lua_getfield(L, i, k) (lua_getfield(L, (i), (k)), lua_type(L, -1))
#define lua_rawget(L, i) (lua_rawget(L, (i)), lua_type(L, -1))
#define lua_rawgeti(L, i, n) (lua_rawgeti(L, (i), (n)), lua_type(L, -1))
#undef lua_getglobal
#if LUA_VERSION_NUM < 502
#define lua_getglobal(L, s) lua_getfield(L, LUA_GLOBALSINDEX, (s))
#else
static inline int lkfc_getglobal(lua_State *L, const char *s) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
  lua_getfield(L, -1, s);
  lua_remove(L, -2);
  return lua_type(L, -1);
}
#define lua_getglobal lkfc_getglobal
#endif
/* lua_dump has no strip argument */
#define lua_dump(L, w, d, strip) lua_dump(L, (w), (d))
#define luaL_getmetafield(L, i, e) \
  (luaL_getmetafield(L, (i), (e)) ? lua_type(L, -1) : LUA_TNIL)

/* Numbers with an integral value in lua_Integer's range are integers. */
static inline int lkfc_isinteger(lua_State *L, int i) {
  lua_Number d;
  if (lua_type(L, i) != LUA_TNUMBER) return 0;
  d = lua_tonumber(L, i);
  return d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
         (lua_Number)(lua_Integer)d == d;
}
#define lua_isinteger lkfc_isinteger

static inline lua_Integer lkfc_tointegerx(lua_State *L, int i, int *isnum) {
  lua_Number d = lua_tonumber(L, i);   /* numeric strings convert, as in 5.3 */
  int ok = lua_isnumber(L, i) && d >= -9223372036854775808.0 &&
           d < 9223372036854775808.0 && (lua_Number)(lua_Integer)d == d;
  if (isnum) *isnum = ok;
  return ok ? (lua_Integer)d : 0;
}
#undef lua_tointeger
#define lua_tointegerx lkfc_tointegerx
#define lua_tointeger(L, i) lkfc_tointegerx(L, (i), NULL)

#endif /* < 503 */

/* luaL_tolstring: 5.2 has it, without "__name" */
#if LUA_VERSION_NUM < 503
static inline const char *lkfc_tolstring(lua_State *L, int idx, size_t *len) {
  idx = lua_absindex(L, idx);
  if (luaL_callmeta(L, idx, "__tostring")) {
    if (!lua_isstring(L, -1)) luaL_error(L, "'__tostring' must return a string");
  } else {
    switch (lua_type(L, idx)) {
      case LUA_TNUMBER: case LUA_TSTRING:
        lua_pushvalue(L, idx);
        break;
      case LUA_TBOOLEAN:
        lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false");
        break;
      case LUA_TNIL:
        lua_pushliteral(L, "nil");
        break;
      default: {
        int t = luaL_getmetafield(L, idx, "__name");
        const char *kind = t == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx);
        lua_pushfstring(L, "%s: %p", kind, lua_topointer(L, idx));
        if (t != LUA_TNIL) lua_remove(L, -2);
        break;
      }
    }
  }
  return lua_tolstring(L, -1, len);
}
#define luaL_tolstring lkfc_tolstring

/* metatables carry their name, as 5.3+ set it */
static inline int lkfc_newmetatable(lua_State *L, const char *tname) {
  if (!luaL_newmetatable(L, tname)) return 0;
  lua_pushstring(L, tname);
  lua_setfield(L, -2, "__name");
  return 1;
}
#define luaL_newmetatable lkfc_newmetatable
#endif

/* ---- Lua 5.1, 5.2, 5.3 and LuaJIT ------------------------------------ */
#if LUA_VERSION_NUM < 504

/* no user values: kfjob asks for none */
#define lua_newuserdatauv(L, sz, nuv) lua_newuserdata(L, (sz))
#define luaL_pushfail(L) lua_pushnil(L)

static inline int lkfc_typeerror(lua_State *L, int arg, const char *tname) {
  const char *got;
  if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)
    got = lua_tostring(L, -1);
  else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
    got = "light userdata";
  else
    got = luaL_typename(L, arg);
  return luaL_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, got));
}
#define luaL_typeerror lkfc_typeerror
#define luaL_argexpected(L, cond, arg, tname) \
  ((void)((cond) || lkfc_typeerror(L, (arg), (tname))))

#endif /* < 504 */

/* The table package.preload is kept in: the registry's _PRELOAD from 5.2
** on and in LuaJIT, package.preload itself in Lua 5.1. */
static inline void lkfc_getpreload(lua_State *L) {
#if LUA_VERSION_NUM < 502 && !defined(LUA_PRELOAD_TABLE)
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (lua_getfield(L, -1, "package") == LUA_TTABLE &&
      lua_getfield(L, -1, "preload") == LUA_TTABLE) {
    lua_remove(L, -2);
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 3);
#endif
#ifndef LUA_PRELOAD_TABLE
#define LUA_PRELOAD_TABLE "_PRELOAD"
#endif
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
}

#endif

/*
** gen.c - kfjob_generate: the generators of the embedded Lua layer
** (lua/kfjob/meta.lua, schema.lua, explain.lua) run in a plain state of
** their own.  They read only the schema rows, so no sandbox is needed.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

#include "kfjob.h"

static char *dup_string(lua_State *L, int idx) {
  size_t n;
  const char *s = lua_tolstring(L, idx, &n);
  char *c = malloc(n + 1);
  if (c == NULL) return NULL;
  memcpy(c, s ? s : "", s ? n : 0);
  c[s ? n : 0] = '\0';
  return c;
}

/* require("kfjob.<what>")(args...): the text, or nil and a message. */
static int pgen(lua_State *L) {
  const char *what = (const char *)lua_touserdata(L, 1);
  const char *const *args = (const char *const *)lua_touserdata(L, 2);
  int i;
  luaL_openlibs(L);
  kfjob_preload(L);
  lua_settop(L, 0);
  lua_getglobal(L, "require");
  lua_pushfstring(L, "kfjob.%s", what);
  lua_call(L, 1, 1);
  for (i = 0; i < 3; i++)
    if (args && args[i]) lua_pushstring(L, args[i]); else lua_pushnil(L);
  lua_call(L, 3, 2);
  return 2;
}

KFJOB_API kfjob_status kfjob_generate(const char *what,
                                      const char *const args[3], char **out) {
  lua_State *L;
  kfjob_status st = KFJOB_OK;
  if (out == NULL) return KFJOB_EARG;
  *out = NULL;
  if (what == NULL || (strcmp(what, "meta") && strcmp(what, "schema") &&
                       strcmp(what, "explain") && strcmp(what, "convert"))) {
    static const char fmt[] = "kfjob_generate: unknown generator '%.64s' (expected meta, "
                              "schema, explain or convert)";
    size_t n = sizeof fmt + 64;
    if ((*out = malloc(n)) == NULL) return KFJOB_EMEMORY;
    snprintf(*out, n, fmt, what ? what : "(null)");
    return KFJOB_EARG;
  }
  if ((L = luaL_newstate()) == NULL) return KFJOB_EMEMORY;
  lua_pushcfunction(L, pgen);
  lua_pushlightuserdata(L, (void *)what);
  lua_pushlightuserdata(L, (void *)args);
  if (lua_pcall(L, 2, 2, 0) != LUA_OK) {
    st = KFJOB_EARG;   /* the generator's error: its message */
  } else if (lua_isstring(L, -2)) {
    lua_pop(L, 1);
  } else {
    st = KFJOB_EARG;   /* nil, message */
  }
  *out = dup_string(L, -1);
  lua_close(L);
  if (*out == NULL) return KFJOB_EMEMORY;
  return st;
}

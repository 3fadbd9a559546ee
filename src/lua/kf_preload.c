/*
** kf_preload.c - the pure-Lua layer compiled into the library: each file
** of lua/kfjob/ is embedded (kf_lua_embed.c, generated at build time) and
** registered in package.preload.
*/
#include "lkf_compat.h"

#include "kfjob.h"

typedef struct kf_lua_file {
  const char *module;
  const char *chunkname;
  const char *src;
  unsigned long len;
} kf_lua_file;

extern const kf_lua_file kf_lua_files[];

static int load_embedded(lua_State *L) {
  const kf_lua_file *f = (const kf_lua_file *)lua_touserdata(L, lua_upvalueindex(1));
  /* text only: mode "t" */
  if (luaL_loadbufferx(L, f->src, f->len, f->chunkname, "t") != LUA_OK)
    return lua_error(L);
  lua_pushstring(L, f->module);
  lua_call(L, 1, 1);
  return 1;
}

/* package.preload.kfjob = open, then every embedded module: kfjob_preload
** (lkfjob_open.c) passes luaopen_kfjob, so this file calls nothing above it */
void lkf_preload(lua_State *L, lua_CFunction open) {
  const kf_lua_file *f;
  lkfc_getpreload(L);   /* package.preload */
  lua_pushcfunction(L, open);
  lua_setfield(L, -2, "kfjob");
  for (f = kf_lua_files; f->module != NULL; f++) {
    lua_pushlightuserdata(L, (void *)f);
    lua_pushcclosure(L, load_embedded, 1);
    lua_setfield(L, -2, f->module);
  }
  lua_pop(L, 1);
}

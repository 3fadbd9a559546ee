/*
** lkfjob_open.c - luaopen_kfjob: makes the per-state context, then only
** registers what each binding file exports (module functions, job methods,
** the objects' metatables and constructors) and loads kfjob.template.
*/
#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kfjob.h"
#include "lkf_binding.h"

/* Every family's module functions and job methods, one table each. */
static const luaL_Reg *const module_funcs[] = {
    lkf_job_funcs, lkf_json_funcs, lkf_manifest_funcs, lkf_schema_funcs,
    lkf_sweep_funcs, lkf_import_funcs, NULL};
static const luaL_Reg *const job_methods[] = {
    lkf_job_methods, lkf_json_methods, lkf_manifest_methods, lkf_target_methods,
    NULL};

void lkf_setfuncs(lua_State *L, const luaL_Reg *r, int ctxidx) {
  for (; r->name; r++) {
    lua_pushvalue(L, ctxidx);
    lua_pushcclosure(L, r->func, 1);
    lua_setfield(L, -2, r->name);
  }
}

/* kfjob.RestartPolicy.ON_FAILURE == "on_failure": the upper-case name of
** each lowercase spelling. */
static void enum_table(lua_State *L, const char *name, const kf_enum *en) {
  int i;
  size_t k;
  lua_createtable(L, 0, en->n);
  for (i = 0; i < en->n; i++) {
    const char *v = en->spell[i][0];
    char up[64];
    for (k = 0; v[k] && k + 1 < sizeof up; k++)
      up[k] = (char)(v[k] >= 'a' && v[k] <= 'z' ? v[k] - 32 : v[k]);
    up[k] = '\0';
    lua_pushstring(L, v);
    lua_setfield(L, -2, up);
  }
  lua_setfield(L, -2, name);
}

void lkf_preload(lua_State *L, lua_CFunction open);   /* kf_preload.c */

KFJOB_API void kfjob_preload(lua_State *L) { lkf_preload(L, luaopen_kfjob); }

KFJOB_API int luaopen_kfjob(lua_State *L) {
  lctx *X;
  int ctx, i;
  luaL_checkversion(L);
  /* the per-state context first, in an empty state, then its metatable */
  X = (lctx *)lua_newuserdatauv(L, sizeof *X, 0);
  lkf_ctx_init(L, X);
  lua_getfield(L, LUA_REGISTRYINDEX, KF_METER_KEY);   /* set by a sandbox */
  X->meter = (const kf_meter *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (luaL_newmetatable(L, CTX_NAME)) {
    lua_pushcfunction(L, lkf_ctx_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, lkf_ctx_close);
    lua_setfield(L, -2, "__close");
  }
  lua_setmetatable(L, -2);
  ctx = lua_gettop(L);

  lua_newtable(L); /* module */
  for (i = 0; module_funcs[i]; i++) lkf_setfuncs(L, module_funcs[i], ctx);
  lua_newtable(L); /* methods, shared by every kind's metatable */
  for (i = 0; job_methods[i]; i++) lkf_setfuncs(L, job_methods[i], ctx);
  lua_insert(L, -2);
  lkf_open_objects(L, ctx, lua_gettop(L) - 1);
  lua_remove(L, -2);

  enum_table(L, "RestartPolicy", &kf_restart_policy_enum);
  enum_table(L, "CleanPodPolicy", &kf_clean_pod_policy_enum);
  lua_createtable(L, KF_NKINDS, 0);
  for (i = 0; i < KF_NKINDS; i++) {
    lua_pushstring(L, kf_kinds[i].name);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "kinds");
  lua_pushstring(L, KFJOB_VERSION_STRING);
  lua_setfield(L, -2, "_VERSION");

  /* kfjob.template: the embedded Lua layer, loaded once the module is
  ** visible to it */
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "kfjob");
  lua_pop(L, 1);
  kfjob_preload(L);
  lua_getglobal(L, "require");
  if (lua_isfunction(L, -1)) {
    lua_pushliteral(L, "kfjob.template");
    lua_call(L, 1, 1);
    lua_setfield(L, -2, "template");
    lua_getglobal(L, "require");   /* kfjob.to_lua (lua/kfjob/convert.lua) */
    lua_pushliteral(L, "kfjob.convert");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "to_lua");
    lua_setfield(L, -3, "to_lua");
    lua_getfield(L, -1, "to_config");
    lua_setfield(L, -3, "to_config");
    lua_pop(L, 1);
  } else {
    lua_pop(L, 1);
  }
  lua_remove(L, ctx);
  return 1;
}

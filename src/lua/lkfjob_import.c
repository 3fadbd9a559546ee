/*
** lkfjob_import.c - binding for manifests read back (SPEC §14):
** kfjob.from_manifest(doc [, opts]) -> job, info | nil, msg.  `doc` is
** JSON text or a table in Kubernetes' spelling; the core's import room
** does the work.
*/
#include <string.h>

#include "lkfjob.h"
#include "kf_json.h"
#include "kf_import.h"

static const char *const import_keys[] = {"kind", "lossy", NULL};

/* opts.kind and opts.lossy at index `idx` (nil: none). */
static void import_opts(lua_State *L, int idx, const char *who, kf_import_opts *o) {
  o->kind = -1, o->lossy = 0, o->who = who;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lkf_checkopts(L, idx, who, import_keys);
  if (lkf_optfield(L, idx, "kind") != LUA_TNIL) {
    const char *s = lua_tostring(L, -1);
    if (lua_type(L, -1) != LUA_TSTRING || (o->kind = kf_kind_by_name(s)) < 0)
      luaL_error(L, "%s: opts.kind: expected one of %s", who, kf_kind_names());
  }
  lua_pop(L, 1);
  if (lkf_optfield(L, idx, "lossy") != LUA_TNIL) o->lossy = lua_toboolean(L, -1);
  lua_pop(L, 1);
}

/* The document at index 1 as a node; 0 with nil, msg pushed when bad. */
static int doc_node(lua_State *L, lctx *X, const char *who, kf_node **out) {
  kf_err e;
  if (lua_type(L, 1) == LUA_TSTRING) {
    size_t n, i = 0;
    const char *s = lua_tolstring(L, 1, &n);
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++;
    if (i == n || s[i] != '{') {
      luaL_pushfail(L);
      lua_pushfstring(L, "%s: YAML text is not read yet in this build: give JSON "
                      "text or a table", who);
      return 0;
    }
    if (kf_json_parse(s, n, &X->A, out, &e) != KF_OK) {
      if (e.code == KF_ENOMEM) lkf_raise(L, &e);
      luaL_pushfail(L);
      lua_pushfstring(L, "%s: %s", who, e.msg);
      return 0;
    }
    return 1;
  }
  luaL_argexpected(L, lua_istable(L, 1), 1, "YAML or JSON text or a table");
  *out = lkf_checknode(L, X, 1, who, &e);
  return 1;
}

static int l_from_manifest(lua_State *L) {
  static const char who[] = "kfjob.from_manifest";
  lctx *X = lkf_ctx(L, 2);
  kf_import_opts o;
  kf_node *doc, *info;
  kf_job j;
  kf_err e;
  import_opts(L, 2, who, &o);
  if (!doc_node(L, X, who, &doc)) return 2;
  if (kf_import(doc, &o, &X->A, &j, &info, &e) != KF_OK) return lkf_fail(L, &e);
  lkf_pushjob(L, &j);
  lkf_pushnode(L, info);
  return 2;
}

const luaL_Reg lkf_import_funcs[] = {{"from_manifest", l_from_manifest}, {NULL, NULL}};

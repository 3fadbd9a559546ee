/*
** lkfjob_manifest.c - binding for manifests, lint and launcher commands.
** Options become kf_node trees and the core (kf_manifest.c) does the work;
** errors are raised only after the core has cleaned up.
*/
#include <string.h>

#include "lkf_binding.h"
#include "kf_yaml.h"
#include "kf_json.h"
#include "kf_manifest.h"
#include "kf_env.h"


enum { F_TABLE, F_JSON, F_YAML };

/* opts.format and opts.indent; indent is JSON's (0: compact) or YAML's
** (2..9, libyaml's range). */
static int out_format(lua_State *L, int idx, const char *who, int dflt,
                      int *indent) {
  static const char *const names[] = {"table", "json", "yaml", NULL};
  int f = dflt, i;
  if (lkf_optfield(L, idx, "format") != LUA_TNIL) {
    const char *s = (lkf_opt_nul(L, who, "format"), lua_tostring(L, -1));
    for (i = 0; s && lua_type(L, -1) == LUA_TSTRING && names[i]; i++)
      if (strcmp(names[i], s) == 0) break;
    if (!s || lua_type(L, -1) != LUA_TSTRING || !names[i])
      luaL_error(L, "%s: opts.format: expected \"table\", \"json\" or \"yaml\", got %s",
                 who, luaL_tolstring(L, -1, NULL));
    f = i;
  }
  lua_pop(L, 1);
  *indent = f == F_YAML ? 2 : 0;
  if (lkf_optfield(L, idx, "indent") != LUA_TNIL) {
    lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
    int lo = f == F_YAML ? 2 : 0, hi = f == F_YAML ? 9 : 16;
    if (f == F_TABLE)
      luaL_error(L, "%s: opts.indent: only for format \"json\" or \"yaml\"", who);
    if (n < lo || n > hi)
      luaL_error(L, "%s: opts.indent: expected an integer from %d to %d, got %s",
                 who, lo, hi, luaL_tolstring(L, -1, NULL));
    *indent = (int)n;
  }
  lua_pop(L, 1);
  return f;
}

/* Options at index 2, an empty table when absent so that lkf_optfield
** always pushes a value. */
static void opts_arg(lua_State *L) {
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  lua_settop(L, 2);
}

/* Push docs (one, or a stream of several) in the requested format. */
static int push_docs(lua_State *L, lctx *X, const char *who,
                     kf_node *const *docs, size_t n, int many, int format,
                     int indent) {
  kf_err e;
  size_t i;
  if (format == F_TABLE) {
    if (!many) {
      lkf_pushnode(L, docs[0]);
      return 1;
    }
    lua_createtable(L, (int)n, 0);
    for (i = 0; i < n; i++) {
      lkf_pushnode(L, docs[i]);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
  }
  if (format == F_YAML) {
    if (kf_yaml((const kf_node *const *)docs, n, indent, &X->buf, &e) != KF_OK) {
      if (e.code == KF_ENOMEM) return lkf_raise(L, &e);
      return luaL_error(L, "%s: %s", who, e.msg);
    }
  } else {
    kf_node *doc = docs[0];
    if (many) {   /* several resources in JSON: a v1 List, as kubectl reads */
      kf_node *items;
      if ((doc = kf_node_new(&X->A, KF_NOBJ)) == NULL ||
          !kf_obj_str(&X->A, doc, "apiVersion", "v1") ||
          !kf_obj_str(&X->A, doc, "kind", "List") ||
          (items = kf_obj_add(&X->A, doc, "items", KF_NARR)) == NULL)
        return luaL_error(L, "not enough memory");
      for (i = 0; i < n; i++)
        if (!kf_node_push(&X->A, items, NULL, docs[i]))
          return luaL_error(L, "not enough memory");
    }
    if (kf_node_to_json(doc, indent, &X->buf, &e) != KF_OK)
      return lkf_raise(L, &e);
  }
  lua_pushlstring(L, X->buf.p, X->buf.n);
  return 1;
}

/* job:manifest([opts]) */
static int m_manifest(lua_State *L) {
  static const char who[] = "kfjob.manifest";
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X;
  kf_manifest_opts o;
  kf_node *doc;
  kf_err e;
  int indent, format;
  opts_arg(L);  /* before lkf_ctx: it keeps its guard above the args */
  X = lkf_ctx(L, 2);
  lkf_checkopts(L, 2, who, kf_option_names(KF_OPT_MANIFEST));
  format = out_format(L, 2, who, F_TABLE, &indent);
  if (kf_manifest_opts_parse(lkf_checknode(L, X, 2, who, &e), &o, &X->A, who, &e) ||
      kf_manifest(j, &o, &X->A, &doc, who, &e))
    return lkf_raise(L, &e);
  return push_docs(L, X, who, &doc, 1, 0, format, indent);
}

/* Shallow merge: the item's keys replace the shared options' (labels are
** replaced as a whole, not merged). */
static kf_node *merge_opts(kf_arena *A, const kf_node *base, const kf_node *item) {
  kf_node *m = kf_node_new(A, KF_NOBJ);
  size_t i;
  if (m == NULL) return NULL;
  for (i = 0; base && base->t == KF_NOBJ && i < base->u.c.n; i++)
    if (!kf_node_get(item, base->u.c.k[i]) &&
        !kf_node_push(A, m, base->u.c.k[i], base->u.c.v[i]))
      return NULL;
  for (i = 0; item->t == KF_NOBJ && i < item->u.c.n; i++)
    if (strcmp(item->u.c.k[i], "job") != 0 &&
        !kf_node_push(A, m, item->u.c.k[i], item->u.c.v[i]))
      return NULL;
  return m;
}

/* kfjob.manifests(items [, opts]): several resources as one YAML stream
** (default), a JSON v1 List, or a list of tables.  An item is a job (named
** opts.name .. "-" .. index) or {job = job, name = ..., <manifest opts>}
** whose keys replace the shared opts. */
static int l_manifests(lua_State *L) {
  static const char who[] = "kfjob.manifests";
  lctx *X;
  kf_node *shared, **docs;
  kf_err e;
  lua_Integer n, i, k;
  int indent, format;
  luaL_checktype(L, 1, LUA_TTABLE);
  opts_arg(L);  /* before lkf_ctx: it keeps its guard above the args */
  X = lkf_ctx(L, 2);
  lkf_checkopts(L, 2, who, kf_option_names(KF_OPT_MANIFEST));
  format = out_format(L, 2, who, F_YAML, &indent);
  shared = lkf_checknode(L, X, 2, who, &e);
  n = (lua_Integer)lua_rawlen(L, 1);
  docs = (kf_node **)kf_arena_alloc(&X->A, (size_t)n * sizeof *docs + 1);
  if (docs == NULL) return luaL_error(L, "not enough memory");
  for (i = 1; i <= n; i++) {
    char iwho[64], name[128];
    const kf_job *j;
    kf_node *opts;
    kf_manifest_opts o;
    int t = lua_rawgeti(L, 1, i);
    snprintf(iwho, sizeof iwho, "%s: items[%lld]", who, (long long)i);
    if (lkf_jobkind(L, -1) >= 0) {
      const kf_node *base = kf_node_get(shared, "name");
      kf_node *none = kf_node_new(&X->A, KF_NOBJ);
      j = (const kf_job *)lua_touserdata(L, -1);
      if (base == NULL || base->t != KF_NSTR)
        return luaL_error(L, "%s: opts.name: required to name the bare job items[%d]",
                          who, (int)i);
      snprintf(name, sizeof name, "%.100s-%lld", base->u.s.p, (long long)i);
      opts = none ? merge_opts(&X->A, shared, none) : NULL;
      if (opts == NULL || !kf_obj_str(&X->A, opts, "name", name))
        return luaL_error(L, "not enough memory");
    } else if (t == LUA_TTABLE) {
      lua_pushnil(L);
      while (lua_next(L, -2)) {   /* unknown keys, as lkf_checkopts does */
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        const char *s;
        lua_pop(L, 1);
        const char *const *item_keys = kf_option_names(KF_OPT_ITEM);
        for (k = 0; key && item_keys[k]; k++)
          if (strcmp(item_keys[k], key) == 0) break;
        if (key == NULL) return luaL_error(L, "%s: keys must be strings", iwho);
        if (item_keys[k] == NULL) {
          if ((s = kf_suggest(key, item_keys)) != NULL)
            return luaL_error(L, "%s.%s: unknown field (did you mean '%s'?)", iwho, key, s);
          return luaL_error(L, "%s.%s: unknown field", iwho, key);
        }
      }
      lua_getfield(L, -1, "job");
      if (lkf_jobkind(L, -1) < 0)
        return luaL_error(L, "%s.job: kfjob job expected, got %s", iwho,
                          luaL_typename(L, -1));
      j = (const kf_job *)lua_touserdata(L, -1);
      lua_pop(L, 1);
      opts = merge_opts(&X->A, shared, lkf_checknode(L, X, -1, iwho, &e));
      if (opts == NULL) return luaL_error(L, "not enough memory");
    } else {
      return luaL_error(L, "%s: kfjob job or table expected, got %s", iwho,
                        luaL_typename(L, -1));
    }
    if (kf_manifest_opts_parse(opts, &o, &X->A, iwho, &e) ||
        kf_manifest(j, &o, &X->A, &docs[i - 1], iwho, &e))
      return lkf_raise(L, &e);
    /* kubectl apply would let a later resource overwrite an earlier one */
    for (k = 0; k < i - 1; k++) {
      const kf_node *a = docs[k], *b = docs[i - 1];
      const kf_node *ma = kf_node_get(a, "metadata"), *mb = kf_node_get(b, "metadata");
      const kf_node *na = kf_node_get(ma, "namespace"), *nb = kf_node_get(mb, "namespace");
      if (strcmp(kf_node_get(a, "kind")->u.s.p, kf_node_get(b, "kind")->u.s.p) == 0 &&
          strcmp(kf_node_get(ma, "name")->u.s.p, kf_node_get(mb, "name")->u.s.p) == 0 &&
          strcmp(na ? na->u.s.p : "", nb ? nb->u.s.p : "") == 0)
        return luaL_error(L, "%s: name '%s' is already used by items[%d]", iwho,
                          kf_node_get(mb, "name")->u.s.p, (int)k + 1);
    }
    lua_pop(L, 1);
  }
  return push_docs(L, X, who, docs, (size_t)n, 1, format, indent);
}

/* job:lint([opts]) */
static int m_lint(lua_State *L) {
  static const char who[] = "kfjob.lint";
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X;
  kf_lint_opts o;
  kf_node *list;
  kf_err e;
  int t;
  opts_arg(L);  /* before lkf_ctx: it keeps its guard above the args */
  X = lkf_ctx(L, 2);
  lkf_checkopts(L, 2, who, kf_option_names(KF_OPT_LINT));
  memset(&o, 0, sizeof o);
  o.version = 1;
  o.who = who;
  if ((t = lkf_optfield(L, 2, "name")) != LUA_TNIL && t != LUA_TSTRING)
    return luaL_error(L, "%s: opts.name: expected a string, got %s", who, luaL_typename(L, -1));
  o.name = lua_tostring(L, -1);   /* anchored by the opts table */
  lua_pop(L, 1);
  if ((t = lkf_optfield(L, 2, "image")) != LUA_TNIL && t != LUA_TSTRING)
    return luaL_error(L, "%s: opts.image: expected a string, got %s", who, luaL_typename(L, -1));
  o.image = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (lkf_optfield(L, 2, "version") != LUA_TNIL) {
    lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
    if (v != 0 && v != 1)
      return luaL_error(L, "%s: opts.version: unsupported task_type_version %s "
                        "(expected 0 or 1)", who, luaL_tolstring(L, -1, NULL));
    o.version = (int)v;
  }
  lua_pop(L, 1);
  o.target = lkf_opt_target(L, 2, who, lkf_default_target(j));
  if (lkf_optfield(L, 2, "env") != LUA_TNIL) {   /* R16 sees the user's env */
    kf_manifest_opts mo;
    kf_kvs *env = kf_arena_alloc(&X->A, sizeof *env);
    if (env == NULL) return luaL_error(L, "not enough memory");
    if (kf_manifest_opts_parse(lkf_checknode(L, X, 2, who, &e), &mo, &X->A, who, &e) != KF_OK ||
        kf_env_user_vars(&mo.env, &X->A, env, who, &e) != KF_OK)
      return lkf_raise(L, &e);
    o.env = env;
  }
  lua_pop(L, 1);
  if (kf_lint(j, &o, &X->A, &list, &e) != KF_OK) return lkf_raise(L, &e);
  lkf_pushnode(L, list);
  return 1;
}

/* job:launcher_command([args]) */
static int m_launcher_command(lua_State *L) {
  static const char who[] = "kfjob.launcher_command";
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  kf_node *list;
  kf_strs args = {NULL, 0};
  kf_err e;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    if (kf_strs_from_node(lkf_checknode(L, X, 2, who, &e), &args, &X->A, who,
                          "args", &e) != KF_OK)
      return lkf_raise(L, &e);
  }
  if (kf_launcher_command(j, &args, &X->A, &list, who, &e) != KF_OK)
    return lkf_raise(L, &e);
  lkf_pushnode(L, list);
  return 1;
}

/* job:environment(opts): every pod's variables and files on opts.target
** (default operator); SPEC §11. */
static int m_environment(lua_State *L) {
  static const char who[] = "kfjob.environment";
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X;
  kf_manifest_opts o;
  kf_node *out;
  kf_err e;
  opts_arg(L);  /* before lkf_ctx: it keeps its guard above the args */
  X = lkf_ctx(L, 2);
  lkf_checkopts(L, 2, who, kf_option_names(KF_OPT_ENVIRONMENT));
  if (kf_manifest_opts_parse(lkf_checknode(L, X, 2, who, &e), &o, &X->A, who, &e) ||
      kf_environment(j, &o, &X->A, &out, who, &e))
    return lkf_raise(L, &e);
  lkf_pushnode(L, out);
  return 1;
}

const luaL_Reg lkf_manifest_funcs[] = {{"manifests", l_manifests}, {NULL, NULL}};
const luaL_Reg lkf_manifest_methods[] = {{"manifest", m_manifest},
                                         {"lint", m_lint},
                                         {"launcher_command", m_launcher_command},
                                         {"environment", m_environment},
                                         {NULL, NULL}};

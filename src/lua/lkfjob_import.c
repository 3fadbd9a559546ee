/*
** lkfjob_import.c - binding for manifests read back (SPEC §14):
** kfjob.from_manifest(doc [, opts]) -> job, info | nil, msg.  `doc` is
** JSON text or a table in Kubernetes' spelling; the core's import room
** does the work.  kfjob.read_yaml(text) gives the one document of a text
** as read by the same strict reader (a data config for `kfjob convert`).
*/
#include <string.h>

#include "lkf_binding.h"
#include "kf_json.h"
#include "kf_emit.h"
#include "kf_import.h"
#include "kf_yaml_read.h"

static const char *const import_keys[] = {"kind", "lossy", NULL};

/* opts.kind and opts.lossy at index `idx` (nil: none). */
static void import_opts(lua_State *L, int idx, const char *who, kf_import_opts *o) {
  memset(o, 0, sizeof *o);
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

/* YAML (or JSON) text at index 1 -> its documents; 0 with nil, msg
** pushed when the reader refuses it ("line L, column C: ..."). */
static int read_text(lua_State *L, lctx *X, const char *who, kf_yaml_doc **docs,
                     size_t *nd, int yaml11) {
  kf_yaml_limits lim;
  kf_yaml_where w;
  kf_err e;
  size_t n;
  const char *s = lua_tolstring(L, 1, &n);
  kf_status st;
  memset(&lim, 0, sizeof lim);
  /* a stream of many manifests: ten times the reader's default node bound
  ** (about 100 nodes a manifest, 20 000 of them); still bounded, so an
  ** alias bomb stops there */
  lim.max_nodes = 10 * KF_YAML_MAX_NODES;
  lim.max_docs = 16384;
  lim.yaml11 = yaml11;   /* a manifest: as kubectl reads it (sigs.k8s.io/yaml: go-yaml v2) */
  st = kf_yaml_read(&X->A, s, n, &lim, docs, nd, &w, &e);
  if (st == KF_ENOMEM) return lkf_raise(L, &e), 0;
  if (st == KF_OK) return 1;
  luaL_pushfail(L);
  if (w.doc && w.line)
    lua_pushfstring(L, "%s: document %d, line %d%s%s: %s", who, (int)w.doc, (int)w.line,
                    w.path[0] ? ": " : "", w.path, w.what);
  else
    lua_pushfstring(L, "%s: %s", who, w.what[0] ? w.what : e.msg);
  return 0;
}

/* The one document at index 1 as a node; 0 with nil, msg pushed when bad. */
static int doc_node(lua_State *L, lctx *X, const char *who, kf_node **out) {
  kf_err e;
  if (lua_type(L, 1) == LUA_TSTRING) {
    kf_yaml_doc *docs;
    size_t nd;
    if (!read_text(L, X, who, &docs, &nd, 1)) return 0;
    if (nd != 1 || docs[0].root->t == KF_NNIL) {
      luaL_pushfail(L);
      lua_pushfstring(L, nd > 1 ? "%s: %d documents: this reads one (kfjob.from_manifests "
                      "reads a stream)" : "%s: no document", who, (int)nd);
      return 0;
    }
    *out = docs[0].root;
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
  if (kf_import_checked(doc, &o, &X->A, &j, &info, &e) != KF_OK) return lkf_fail(L, &e);
  lkf_pushjob(L, &j);
  lkf_pushnode(L, info);
  return 2;
}

static void push_or_nil(lua_State *L, const kf_node *n) {
  if (n == NULL) lua_pushnil(L);
  else lkf_pushnode(L, n);
}

/* A skipped document: {index=, item= (a List's), api_version=, kind=}. */
static void push_skipped(lua_State *L, const kf_import_doc *d) {
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)d->doc);
  lua_setfield(L, -2, "index");
  if (d->item) {
    lua_pushinteger(L, (lua_Integer)d->item);
    lua_setfield(L, -2, "item");
  }
  push_or_nil(L, kf_node_get(d->root, "apiVersion"));   /* a document */
  lua_setfield(L, -2, "api_version");                  /* may have none */
  push_or_nil(L, kf_node_get(d->root, "kind"));
  lua_setfield(L, -2, "kind");
}

/* "<who>: document D (line L)" and ", item I" for a List's item, pushed. */
static const char *push_where(lua_State *L, const char *who, const kf_import_doc *d) {
  if (d->item)
    return lua_pushfstring(L, "%s: document %d (line %d), item %d", who, (int)d->doc,
                           (int)d->line, (int)d->item);
  return lua_pushfstring(L, "%s: document %d (line %d)", who, (int)d->doc, (int)d->line);
}

/* kfjob.from_manifests(text [, opts]) -> { {job=, info=}..., skipped = {
** {index=, api_version=, kind=}... } } | nil, msg.  A List's items are
** read as documents (info.item, skipped[i].item: the place among them).
** Documents of kinds kfjob does not read (a Service, a
** ClusterTrainingRuntime) are skipped; a bad document of a kind it reads,
** or one of a kind of its groups it does not read (a misspelt kind),
** fails the whole stream, named by number. */
static int l_from_manifests(lua_State *L) {
  static const char who[] = "kfjob.from_manifests";
  lctx *X = lkf_ctx(L, 2);
  kf_import_opts o;
  kf_yaml_doc *docs;
  kf_import_doc *flat;
  size_t nd, nf, i;
  int out, skipped, n = 0, ns = 0;
  kf_err e;
  char why[512];
  luaL_checktype(L, 1, LUA_TSTRING);
  import_opts(L, 2, who, &o);
  if (!read_text(L, X, who, &docs, &nd, 1)) return 2;
  if (kf_import_flatten(docs, nd, &X->A, &flat, &nf, &e) != KF_OK) {
    if (e.code == KF_ENOMEM) return lkf_raise(L, &e);
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", who, e.msg);
    return 2;
  }
  lua_newtable(L);
  out = lua_gettop(L);
  lua_newtable(L);
  skipped = lua_gettop(L);
  for (i = 0; i < nf; i++) {
    kf_node *info;
    kf_job j;
    int cls;
    /* the sandbox's deadline before each document: a long stream read
    ** in one call stops at the time limit, not after its last document */
    if (X->meter != NULL) X->meter->check(L);
    if (flat[i].root->t == KF_NNIL) continue;
    if ((cls = kf_import_classify(flat[i].root, why, sizeof why)) == 0) {
      push_skipped(L, &flat[i]);
      lua_rawseti(L, skipped, ++ns);
      continue;
    }
    o.who = push_where(L, who, &flat[i]);   /* messages name the document */
    if (cls < 0) {
      luaL_pushfail(L);
      lua_pushfstring(L, "%s: %s", o.who, why);
      return 2;
    }
    if (kf_import_checked(flat[i].root, &o, &X->A, &j, &info, &e) != KF_OK) {
      if (e.code == KF_ENOMEM) return lkf_raise(L, &e);
      luaL_pushfail(L);
      lua_pushstring(L, e.msg);
      return 2;
    }
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    lkf_pushjob(L, &j);
    lua_setfield(L, -2, "job");
    lkf_pushnode(L, info);
    if (flat[i].item) {
      lua_pushinteger(L, (lua_Integer)flat[i].item);
      lua_setfield(L, -2, "item");
    }
    lua_setfield(L, -2, "info");
    lua_rawseti(L, out, ++n);
  }
  lua_setfield(L, out, "skipped");
  return 1;
}

/* kfjob.read_yaml(text) -> value | nil, msg: the one document of YAML or
** JSON text, by the reader manifests are read with (its limits, its
** refusals: duplicate keys, tabs, alias bombs, invalid UTF-8); its plain
** scalars as YAML 1.2 resolves them, as data configs' are. */
static int l_read_yaml(lua_State *L) {
  static const char who[] = "kfjob.read_yaml";
  lctx *X = lkf_ctx(L, 1);
  kf_yaml_doc *docs;
  size_t nd;
  luaL_checktype(L, 1, LUA_TSTRING);
  if (!read_text(L, X, who, &docs, &nd, 0)) return 2;   /* YAML 1.2, as data configs */
  if (nd > 1) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %d documents: this reads one", who, (int)nd);
    return 2;
  }
  if (nd == 0) lua_pushnil(L);
  else lkf_pushnode(L, docs[0].root);
  return 1;
}

/* ---- kfjob.to_config: jobs written back (kf_import_config.c) --------- */

static void push_keys(lua_State *L, const kf_obj *o) {
  size_t i;
  lua_createtable(L, (int)o->n, 0);
  for (i = 0; i < o->n; i++) {
    lua_pushstring(L, o->f[i].key);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* tables[key] = the keys of each table row among rows f, nested ones too. */
static void push_tables(lua_State *L, const kf_field *f, size_t n, int tables) {
  size_t i;
  for (i = 0; i < n; i++) {
    const kf_obj *o = (const kf_obj *)f[i].info;
    if (f[i].type != KF_V_OBJ) continue;
    push_keys(L, o);
    lua_setfield(L, tables, f[i].key);
    push_tables(L, o->f, o->n, tables);
  }
}

/* The rows' key order, by kind: { job = {keys, the groups at their row},
** group = {keys}, tables = {[key] = {keys}} } (what to_lua writes by). */
static void push_order(lua_State *L) {
  int kind, r, n;
  size_t i;
  lua_createtable(L, 0, KF_NKINDS);
  for (kind = 0; kind < KF_NKINDS; kind++) {
    const kf_kind_info *k = &kf_kinds[kind];
    lua_createtable(L, 0, 3);
    lua_createtable(L, (int)k->nfields + 4, 0);
    for (i = 0, n = 0; i < k->nfields; i++) {
      if (k->fields[i].type == KF_V_GROUPS)
        for (r = 0; r < k->nroles; r++) {
          lua_pushstring(L, kf_roles[k->roles[r].role].key);
          lua_rawseti(L, -2, ++n);
        }
      else if (k->fields[i].type != KF_V_DEPRECATED) {
        lua_pushstring(L, k->fields[i].key);
        lua_rawseti(L, -2, ++n);
      }
    }
    lua_setfield(L, -2, "job");
    push_keys(L, &kf_group_obj);
    lua_setfield(L, -2, "group");
    lua_newtable(L);
    /* the group's first: a key both have (container) takes the job's rows */
    push_tables(L, kf_group_obj.f, kf_group_obj.n, lua_gettop(L));
    push_tables(L, k->fields, k->nfields, lua_gettop(L));
    lua_setfield(L, -2, "tables");
    lua_setfield(L, -2, k->name);
  }
}

/* The job of jobs[name] (at the top): a job, or a `{ job = <job>, opts =
** ... }` entry's job (a data config has no place for the opts); replaced
** in place; 0 when it is neither. */
static int entry_job(lua_State *L) {
  if (lkf_jobkind(L, -1) >= 0) return 1;
  if (!lua_istable(L, -1)) return 0;
  lua_getfield(L, -1, "job");
  if (lkf_jobkind(L, -1) < 0) return lua_pop(L, 1), 0;
  lua_replace(L, -2);
  return 1;
}

/* kfjob.to_config(jobs [, order]) -> { jobs = { [name] = { kind = K, ... } } }
** [, the rows' key order when `order` is true]: a job (named "job") or a
** table name -> job or { job =, opts = } entry; each entry is the job's
** spec without every key whose absence gives the same job. */
static int l_to_config(lua_State *L) {
  static const char who[] = "kfjob.to_config";
  int order = lua_toboolean(L, 2), out;
  lctx *X = lkf_ctx(L, 2);
  if (lkf_jobkind(L, 1) >= 0) {
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "job");
    lua_replace(L, 1);
  } else if (!lua_istable(L, 1)) {
    lua_pushfstring(L, "%s: expected a job or a table of jobs by name", who);
    return lua_error(L);
  }
  lua_newtable(L);
  out = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    const kf_job *j;
    kf_node *n;
    if (lua_type(L, -2) != LUA_TSTRING || !entry_job(L))
      return luaL_error(L, "%s: jobs[%s]: expected a job by its name", who,
                        luaL_tolstring(L, -2, NULL));
    j = lkf_checkjob(L, -1);
    if ((n = kf_config_minimal(j, &X->A)) == NULL) return luaL_error(L, "not enough memory");
    lua_pushvalue(L, -2);
    lkf_pushnode(L, n);
    lua_pushstring(L, kf_kinds[j->kind].name);
    lua_setfield(L, -2, "kind");
    lua_rawset(L, out);
    lua_pop(L, 1);
    if (X->meter != NULL) X->meter->add(L, kf_arena_used(&X->A) / KF_METER_BYTES);
    kf_arena_reset(&X->A);   /* each job's trials, then the next's */
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, out);
  lua_setfield(L, -2, "jobs");
  if (!order) return 1;
  push_order(L);
  return 2;
}

const luaL_Reg lkf_import_funcs[] = {{"from_manifest", l_from_manifest},
                                     {"from_manifests", l_from_manifests},
                                     {"read_yaml", l_read_yaml},
                                     {"to_config", l_to_config},
                                     {NULL, NULL}};

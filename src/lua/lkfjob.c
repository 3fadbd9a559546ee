/*
** lkfjob.c - job, group and run-policy objects: their metatables, field
** reads, constructors, and the methods spec/with/encode/versions with
** kfjob.decode.  Registered by luaopen_kfjob (lkfjob_open.c).
**
** Memory: every operation's temporary memory lives in the per-state
** context (an arena and a buffer inside a userdata that is an upvalue of
** every function), so a Lua error anywhere leaks nothing: the garbage
** collector owns it.  Job and group objects are single userdata blocks with
** their strings inside; they need no __gc.
*/
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kf_pb.h"
#include "kfjob.h"
#include "lkf_binding.h"

/* ---- objects ---------------------------------------------------------- */

/* the job metatable by a light userdata key: no name to intern per job */
static void set_job_mt(lua_State *L, int kind) {
  lua_pushlightuserdata(L, (void *)&lkf_job_mt[kind]);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setmetatable(L, -2);
}

void lkf_pushjob(lua_State *L, const kf_job *j) {
  kf_lay_plan plan;
  kf_job_pack_plan(j, &plan, lua_newuserdatauv(L, kf_job_measure(j, &plan), 0));
  set_job_mt(L, j->kind);
}

/* A job made from the job at `from` by rows held as numbers (`kept`, from
** kf_job_with_values) is that job's block copied, its pointers moved; `m`:
** the base's pointers when the caller found them already (a sweep), else
** NULL.  Any other job is laid out as lkf_pushjob does. */
void lkf_pushjob_from(lua_State *L, const kf_job *j, int from, int kept,
                      const kf_moves *m) {
  const kf_job *b = (const kf_job *)lua_touserdata(L, from);
  size_t n = (size_t)lua_rawlen(L, from);
  kf_moves own;
  void *p;
  if (m == NULL && kept && b != NULL && kf_job_moves(b, &own)) m = &own;
  if (!kept || b == NULL || m == NULL) {
    lkf_pushjob(L, j);
    return;
  }
  p = lua_newuserdatauv(L, n, 0);
  kf_job_pack_moved(j, m, b, n, p);
  set_job_mt(L, j->kind);
}

static void push_group(lua_State *L, int role, const kf_group *g) {
  lgroup *p = (lgroup *)lua_newuserdatauv(L, sizeof(lgroup) + kf_group_size(g), 0);
  p->role = role;
  kf_group_pack_into(g, GROUP_OF(p));
  luaL_setmetatable(L, lkf_group_mt[role]);
}

static void push_run_policy(lua_State *L, const kf_run_policy *rp) {
  kf_run_policy *p = (kf_run_policy *)lua_newuserdatauv(L, sizeof *p, 0);
  *p = *rp;
  luaL_setmetatable(L, RUNPOLICY_NAME);
}

/* The error for a key no row or node has, with a suggestion from the
** NULL-terminated `cands` when one is close. */
static int no_field(lua_State *L, const char *tname, const char *key,
                    const char **cands) {
  const char *s = kf_suggest(key, cands);
  if (s && strcmp(s, key) != 0) return luaL_error(L, "%s has no field '%s' (did you mean '%s'?)", tname, key, s);
  return luaL_error(L, "%s has no field '%s'", tname, key);
}

/* Strict field read of a spec-shaped node: unknown keys raise, with a
** suggestion from the node's keys, the object's rows and `extra`. */
static int read_field(lua_State *L, const char *tname, const kf_node *spec,
                      const char *key, const kf_obj *o,
                      const char *const *extra) {
  const kf_node *v = kf_node_get(spec, key);
  const char *cands[48];
  size_t i, n = 0;
  if (v != NULL) {
    lkf_pushnode(L, v);
    return 1;
  }
  for (i = 0; i < spec->u.c.n && n < 20; i++) cands[n++] = spec->u.c.k[i];
  for (i = 0; o && i < o->n && n < 40; i++) cands[n++] = o->f[i].key;
  for (i = 0; extra && extra[i] && n < 47; i++) cands[n++] = extra[i];
  cands[n] = NULL;
  return no_field(L, tname, key, cands);
}

/* The row of the n rows at f named `key` (or, with `aliases`, its alias),
** or NULL. */
static const kf_field *row_named(const kf_field *f, size_t n, const char *key,
                                 int aliases) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((f[i].key && strcmp(f[i].key, key) == 0) ||
        (aliases && f[i].alias && strcmp(f[i].alias, key) == 0))
      return &f[i];
  return NULL;
}

/* __index of an object row's table (job.scheduling, .scheduling.gang):
** a row of the object that is unset reads nil, an extended resource its
** value under the rest row (or nil), any other key raises with
** a suggestion from the object's rows.  Upvalues: the kf_obj, its name. */
static int strict_index(lua_State *L) {
  const kf_obj *o = (const kf_obj *)lua_touserdata(L, lua_upvalueindex(1));
  const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
  const char *cands[48];
  size_t i, n = 0;
  if (key == NULL) return luaL_error(L, "%s has no field '%s'", lua_tostring(L, lua_upvalueindex(2)),
                                     luaL_tolstring(L, 2, NULL));
  if (row_named(o->f, o->n, key, 1)) return lua_pushnil(L), 1;
  if (o->n && (o->f[o->n - 1].flags & KF_F_REST) && kf_ext_res_key(key)) {
    /* an extended resource reads as it is given: limits["amd.com/gpu"] */
    if (lua_getfield(L, 1, o->f[o->n - 1].key) != LUA_TTABLE) return lua_pushnil(L), 1;
    lua_getfield(L, -1, key);
    return 1;
  }
  for (i = 0; i < o->n && n < 47; i++) cands[n++] = o->f[i].key;
  cands[n] = NULL;
  return no_field(L, lua_tostring(L, lua_upvalueindex(2)), key, cands);
}

/* The metatable of an object row's tables at `path`, made once per state
** (a registry table keyed by path): reading job.scheduling must not build
** a metatable and a closure every time. */
static const char strict_mts = 0;
static void push_strict_mt(lua_State *L, const kf_obj *o, const char *path) {
  lua_pushlightuserdata(L, (void *)&strict_mts);
  if (lua_rawget(L, LUA_REGISTRYINDEX) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushlightuserdata(L, (void *)&strict_mts);
    lua_pushvalue(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }
  lua_pushstring(L, path);
  if (lua_rawget(L, -2) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushlightuserdata(L, (void *)o);
    lua_pushstring(L, path);
    lua_pushcclosure(L, strict_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, path);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  lua_remove(L, -2);
}

/* The table at the top (an object row's value as spec() gives it) reads
** strictly, and so do the object rows inside it. */
static void make_strict(lua_State *L, const kf_obj *o, const char *path) {
  size_t i;
  char sub[96];
  push_strict_mt(L, o, path);
  lua_setmetatable(L, -2);
  for (i = 0; i < o->n; i++) {
    if (o->f[i].type != KF_V_OBJ || o->f[i].info == NULL) continue;
    lua_pushstring(L, o->f[i].key);
    if (lua_rawget(L, -2) == LUA_TTABLE) {
      snprintf(sub, sizeof sub, "%s.%s", path, o->f[i].key);
      make_strict(L, (const kf_obj *)o->f[i].info, sub);
    }
    lua_pop(L, 1);
  }
}

/* A field's value: an object row's table reads strictly (make_strict). */
static void push_field(lua_State *L, const kf_field *f, const kf_node *v, const char *path) {
  lkf_pushnode(L, v);
  if (f != NULL && f->type == KF_V_OBJ && f->info != NULL && lua_type(L, -1) == LUA_TTABLE)
    make_strict(L, (const kf_obj *)f->info, path);
}

/* A row of `o` by key (not alias), or NULL. */
static const kf_field *row_of(const kf_obj *o, const char *key) {
  return row_named(o->f, o->n, key, 0);
}

static int group_index(lua_State *L) {
  static const char *const extra[] = {"kind", NULL};
  lctx *X = lkf_ctx(L, 2);
  lgroup *g = lkf_testgroup(L, 1);
  const char *key = luaL_checkstring(L, 2);
  const kf_node *spec;
  if (strcmp(key, "kind") == 0) {
    lua_pushstring(L, kf_roles[g->role].name);
    return 1;
  }
  if ((spec = kf_group_to_spec(GROUP_OF(g), &X->A)) == NULL)
    return luaL_error(L, "not enough memory");
  if (row_of(&kf_group_obj, key) != NULL) {  /* unset fields read as nil */
    const kf_node *v = kf_node_get(spec, key);
    char path[96];
    snprintf(path, sizeof path, "%s.%s", lkf_group_mt[g->role], key);
    if (v) push_field(L, row_of(&kf_group_obj, key), v, path); else lua_pushnil(L);
    return 1;
  }
  return read_field(L, lkf_group_mt[g->role], spec, key, &kf_group_obj, extra);
}

static int run_policy_index(lua_State *L) {
  lctx *X = lkf_ctx(L, 2);
  const kf_run_policy *rp = (const kf_run_policy *)luaL_checkudata(L, 1, RUNPOLICY_NAME);
  const char *key = luaL_checkstring(L, 2);
  const kf_node *spec = kf_run_policy_to_spec(rp, &X->A);
  const kf_field *f = row_of(&kf_run_policy_obj, key);
  if (spec == NULL) return luaL_error(L, "not enough memory");
  if (f != NULL && (f->flags & KF_F_OMITZERO)) {  /* unset reads as 0 */
    const kf_node *v = kf_node_get(spec, key);
    lua_pushinteger(L, v ? (lua_Integer)v->u.i : 0);
    return 1;
  }
  return read_field(L, RUNPOLICY_NAME, spec, key, &kf_run_policy_obj, NULL);
}

/* kfjob.RunPolicy(backoff_limit=3, clean_pod_policy=All): its set fields,
** as spec() gives them. */
static int run_policy_tostring(lua_State *L) {
  lctx *X = lkf_ctx(L, 2);
  const kf_run_policy *rp = (const kf_run_policy *)luaL_checkudata(L, 1, RUNPOLICY_NAME);
  const kf_node *spec = kf_run_policy_to_spec(rp, &X->A);
  luaL_Buffer b;
  size_t i;
  if (spec == NULL) return luaL_error(L, "not enough memory");
  luaL_buffinit(L, &b);
  luaL_addstring(&b, RUNPOLICY_NAME "(");
  for (i = 0; i < spec->u.c.n; i++) {
    const kf_node *v = spec->u.c.v[i];
    if (i > 0) luaL_addstring(&b, ", ");
    luaL_addstring(&b, spec->u.c.k[i]);
    luaL_addchar(&b, '=');
    if (v->t == KF_NSTR) luaL_addlstring(&b, v->u.s.p, v->u.s.n);
    else if (v->t == KF_NINT) {
      lua_pushfstring(L, "%d", (int)v->u.i);
      luaL_addvalue(&b);
    }
  }
  luaL_addchar(&b, ')');
  luaL_pushresult(&b);
  return 1;
}

static int immutable(lua_State *L) {
  const char *name = "object";
  if (luaL_getmetafield(L, 1, "__name") == LUA_TSTRING) name = lua_tostring(L, -1);
  return luaL_error(L, "%s is immutable (use :with{...} for a changed copy)", name);
}

static int job_index(lua_State *L) {
  const kf_job *j;
  const kf_kind_info *k;
  const char *key;
  lctx *X;
  const kf_node *spec;
  int i;
  /* methods live in the shared methods table (upvalue 2); looking one up
  ** reads nothing of the job, so it comes before the job's check, and it
  ** is one raw get: every method call passes here */
  lua_settop(L, 2);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL) return 1;
  lua_settop(L, 2);
  j = lkf_checkjob(L, 1);
  k = &kf_kinds[j->kind];
  key = luaL_checkstring(L, 2);
  if (strcmp(key, "kind") == 0) {
    lua_pushstring(L, k->name);
    return 1;
  }
  if (strcmp(key, "task_type") == 0) {
    lua_pushstring(L, kf_task_type(j));
    return 1;
  }
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    if (strcmp(key, kf_roles[role].key) == 0) {
      push_group(L, role, &j->g[role]);
      return 1;
    }
    if (k->roles[i].deprecated_key && strcmp(key, k->roles[i].deprecated_key) == 0) {
      lua_pushinteger(L, j->g[role].replicas);  /* an alias, read resolved */
      return 1;
    }
  }
  if (strcmp(key, "run_policy") == 0 && (k->flags & KF_K_RUNPOLICY)) {
    if (j->has_run_policy) push_run_policy(L, &j->rp); else lua_pushnil(L);
    return 1;
  }
  X = lkf_ctx(L, 2);
  if ((spec = kf_job_to_spec(j, &X->A)) == NULL)
    return luaL_error(L, "not enough memory");
  {   /* a row of the kind: unset reads nil, an object row strictly */
    const kf_field *f = row_named(k->fields, k->nfields, key, 1);
    const kf_node *v = kf_node_get(spec, key);
    if (f != NULL && f->type != KF_V_GROUPS && f->type != KF_V_DEPRECATED) {
      char path[96];
      snprintf(path, sizeof path, "%s.%s", lkf_job_mt[j->kind], key);
      if (v) push_field(L, f, v, path);
      /* a KF_F_GIVEN row not given reads its default (false: unset, nil) */
      else if ((f->flags & KF_F_GIVEN) && f->type == KF_V_INT) lua_pushinteger(L, f->idef);
      else if ((f->flags & KF_F_GIVEN) && f->sdef) lua_pushstring(L, f->sdef);
      else lua_pushnil(L);
      return 1;
    }
  }
  {
    static const char *const extra[] = {"kind", "task_type", "run_policy",
                                        "spec", "with", "encode", "versions",
                                        "custom", "to_json", "task_template", "task_spec",
                                        "manifest", "lint", "launcher_command",
                                        "environment", NULL};
    kf_obj rows;   /* the kind's rows, for the suggestion */
    rows.tag = rows.what = rows.name = NULL, rows.f = k->fields, rows.n = k->nfields;
    return read_field(L, lkf_job_mt[j->kind], spec, key, &rows, extra);
  }
}

static int job_eq(lua_State *L) {
  int ka = lkf_jobkind(L, 1), kb = lkf_jobkind(L, 2);
  lua_pushboolean(L, ka >= 0 && ka == kb &&
                         kf_job_equal((const kf_job *)lua_touserdata(L, 1),
                                      (const kf_job *)lua_touserdata(L, 2)));
  return 1;
}

static int job_tostring(lua_State *L) {
  const lctx *X = (const lctx *)lua_touserdata(L, lua_upvalueindex(1));
  unsigned long long before = lkf_meter_mark(L, X);
  const kf_job *j = lkf_checkjob(L, 1);
  const kf_kind_info *k = &kf_kinds[j->kind];
  luaL_Buffer b;
  int i;
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "kfjob.%s(", k->name);
  luaL_addvalue(&b);
  if (k->flags & KF_K_ELASTIC) {
    if (j->min_nodes == j->max_nodes)
      lua_pushfstring(L, "nnodes=%d, nproc_per_node=", (int)j->max_nodes);
    else
      lua_pushfstring(L, "nnodes=%d:%d, nproc_per_node=", (int)j->min_nodes,
                      (int)j->max_nodes);
    luaL_addvalue(&b);
    if (j->nproc_word != NULL) lua_pushstring(L, j->nproc_word);
    else lua_pushfstring(L, "%d", (int)j->nproc_per_node);
    luaL_addvalue(&b);
  } else {
    for (i = 0; i < k->nroles; i++) {
      int role = k->roles[i].role;
      lua_pushfstring(L, "%s%s=%d", i ? ", " : "", kf_roles[role].key,
                      (int)j->g[role].replicas);
      luaL_addvalue(&b);
    }
  }
  if (k->flags & KF_K_SLOTS) {
    lua_pushfstring(L, ", slots=%d", (int)j->slots);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, ')');
  luaL_pushresult(&b);
  lkf_meter_since(L, X, before);   /* the pieces and the text */
  return 1;
}

static int group_tostring(lua_State *L) {
  lgroup *g = lkf_testgroup(L, 1);
  lua_pushfstring(L, "%s(replicas=%d)", lkf_group_mt[g->role],
                  (int)GROUP_OF(g)->replicas);
  return 1;
}

/* ---- constructors ----------------------------------------------------- */

static int new_job(lua_State *L) {
  int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
  lctx *X = lkf_ctx(L, 1);
  kf_err e;
  kf_job j;
  kf_feed F;
  kf_node *n;
  const char *who = lkf_job_mt[kind];
  if (!lua_istable(L, 1) && lkf_jobkind(L, 1) != kind) {
    const char *got = luaL_typename(L, 1);
    if (luaL_getmetafield(L, 1, "__name") == LUA_TSTRING) got = lua_tostring(L, -1);
    lua_pushfstring(L, "%s: expected a table, got %s", who, got);
    return lua_error(L);
  }
  if (lua_istable(L, 1) && lkf_feedjob(L, X, 1, kind, &j, who, &F)) {
    size_t size = kf_job_size_fed(&F);
    kf_job_pack_fed(&F, lua_newuserdatauv(L, size, 0));
    set_job_mt(L, kind);
    if (X->meter != NULL) X->meter->add(L, size / KF_METER_BYTES);   /* the job block */
    return 1;
  }
  n = lkf_checknode(L, X, 1, who, &e);
  if (kf_job_from_spec(kind, n, &X->A, &j, who, &e) != KF_OK) return lkf_raise(L, &e);
  lkf_pushjob(L, &j);
  if (X->meter != NULL) X->meter->add(L, lua_rawlen(L, -1) / KF_METER_BYTES);
  return 1;
}

static int new_group(lua_State *L) {
  int role = (int)lua_tointeger(L, lua_upvalueindex(2));
  lctx *X = lkf_ctx(L, 1);
  const char *who = lkf_group_mt[role];
  kf_err e;
  kf_group g;
  kf_node *n;
  if (!lua_istable(L, 1) && lua_type(L, 1) != LUA_TUSERDATA)
    return luaL_error(L, "%s: expected a table, got %s", who, luaL_typename(L, 1));
  n = lkf_checknode(L, X, 1, who, &e);
  if (kf_group_from_spec(role, n, &X->A, &g, who, &e) != KF_OK) return lkf_raise(L, &e);
  push_group(L, role, &g);
  return 1;
}

static int new_run_policy(lua_State *L) {
  lctx *X = lkf_ctx(L, 1);
  kf_err e;
  kf_run_policy rp;
  kf_node *n;
  if (!lua_istable(L, 1) && lua_type(L, 1) != LUA_TUSERDATA)
    return luaL_error(L, "%s: expected a table, got %s", RUNPOLICY_NAME,
                      luaL_typename(L, 1));
  n = lkf_checknode(L, X, 1, RUNPOLICY_NAME, &e);
  if (kf_run_policy_from_spec(n, &rp, RUNPOLICY_NAME, "", &e) != KF_OK)
    return lkf_raise(L, &e);
  push_run_policy(L, &rp);
  return 1;
}

/* ---- methods ---------------------------------------------------------- */

static int m_spec(lua_State *L) {
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 1);
  kf_node *n = kf_job_to_spec(j, &X->A);
  if (n == NULL) return luaL_error(L, "not enough memory");
  lkf_pushnode(L, n);
  return 1;
}

static int m_with(lua_State *L) {
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  const char *who = lkf_job_mt[j->kind];
  kf_err e;
  kf_node *base, *over;
  kf_job out;
  int kept;
  luaL_checktype(L, 2, LUA_TTABLE);
  over = lkf_checknode(L, X, 2, who, &e);
  if (kf_job_with_leaves(j, over, &X->A, &out, who, &kept)) {
    lkf_pushjob_from(L, &out, 1, kept, NULL);
    return 1;
  }
  if ((base = kf_job_to_spec(j, &X->A)) == NULL) return luaL_error(L, "not enough memory");
  if (kf_node_merge(&X->A, base, over, who, &e) != KF_OK ||
      kf_job_from_spec(j->kind, base, &X->A, &out, who, &e) != KF_OK)
    return lkf_raise(L, &e);
  lkf_pushjob(L, &out);
  return 1;
}


static int m_encode(lua_State *L) {
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  kf_encopts o;
  kf_err e;
  kf_target t;
  lkf_checkopts(L, 2, "kfjob.encode", kf_option_names(KF_OPT_ENCODE));
  if (kf_need_task_type(j->kind, "kfjob.encode", &e) != KF_OK) return lkf_raise(L, &e);
  lkf_encopts(L, 2, "kfjob.encode", &o, 1);
  o.ctor = lkf_job_mt[j->kind];
  t = lkf_opt_target(L, 2, "kfjob.encode", KF_T_FLYTE);
  o.clustered = t == KF_T_CLUSTERED;
  if (kf_target_emit(j, t, KF_E_ENCODE, "encode", "kfjob.encode", o.ctor,
                     &X->A, &e) != KF_OK)
    return lkf_raise(L, &e);
  /* the userdata is the packed job: its size bounds the strings */
  if (kf_encode_block(j, lua_rawlen(L, 1), &o, &X->A, &X->buf, &e) != KF_OK)
    return lkf_raise(L, &e);
  lua_pushlstring(L, X->buf.p, X->buf.n);
  return 1;
}

static int m_versions(lua_State *L) {
  unsigned v = kf_job_versions(lkf_checkjob(L, 1));
  int n = 0;
  lua_newtable(L);
  if (v & 1u) lua_pushinteger(L, 0), lua_rawseti(L, -2, ++n);
  if (v & 2u) lua_pushinteger(L, 1), lua_rawseti(L, -2, ++n);
  return 1;
}

static int l_decode(lua_State *L) {
  static const char *const keys[] = {"version", "kind", NULL};
  size_t n;
  const char *tt = lkf_check_task_type(L, 1, "kfjob.decode");
  const char *p = lkf_checkstr(L, 2, &n);
  lctx *X = lkf_ctx(L, 3);
  kf_encopts o;
  kf_err e;
  kf_job j;
  int kind = kf_kind_for_task_type(tt);
  lkf_checkopts(L, 3, "kfjob.decode", keys);
  if (lkf_encopts(L, 3, "kfjob.decode", &o, 0)) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  {   /* as from_json and decode_task_template check it */
    int k = lkf_kind_opt(L, 3, "kfjob.decode");
    if (k >= 0 && (kind < 0 || strcmp(kf_kinds[k].task_type, tt) != 0))
      return luaL_error(L, "kfjob.decode: opts.kind: '%s' is not a kind of task type '%s'",
                        kf_kinds[k].name, tt);
    if (k >= 0) kind = k;
  }
  if (kf_decode(tt, kind, o.version, (const uint8_t *)p, n, &X->A, &j,
                "kfjob.decode", &e) != KF_OK)
    return lkf_fail(L, &e);
  lkf_pushjob(L, &j);
  return 1;
}

/* 64-bit FNV-1a: the template layer keeps one per variant name to detect
** collisions in flat memory.  Form "integer" (the default where Lua
** integers have 64 bits, 5.3 on) or "hex" (16 lowercase hex digits, the
** default on 5.1, 5.2 and LuaJIT, whose numbers are doubles). */
static int l_hash64(lua_State *L) {
  static const char *const forms[] = {"integer", "hex", NULL};
  size_t n, i;
  const unsigned char *p = (const unsigned char *)lkf_checkstr(L, 1, &n);
  int form;
  const lctx *X = (const lctx *)lua_touserdata(L, lua_upvalueindex(1));
  uint64_t h = 0xcbf29ce484222325u;
  size_t fl;
  const char *f = luaL_optlstring(L, 2, NULL, &fl);
  if (f && strlen(f) != fl)   /* luaL_checkoption would read "hex\0x" as "hex" */
    return luaL_error(L, "kfjob.hash64: form: string contains a NUL byte");
  form = luaL_checkoption(L, 2, LKF_INT64 ? "integer" : "hex", forms);
  if (X->meter != NULL) {   /* charged up front: the loop is all C */
    X->meter->add(L, n / KF_METER_BYTES);
    X->meter->check(L);
  }
  for (i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
  if (form == 0 && !LKF_INT64)
    return luaL_argerror(L, 2, "\"integer\" needs 64-bit Lua integers (Lua 5.3+); use \"hex\"");
  if (form == 0) {
    lua_pushinteger(L, (lua_Integer)h);
  } else {
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    lua_pushlstring(L, hex, 16);
  }
  return 1;
}

static int l_is_job(lua_State *L) {
  lua_pushboolean(L, lkf_jobkind(L, 1) >= 0);
  return 1;
}

/* ---- what this file registers ----------------------------------------- */

const luaL_Reg lkf_job_funcs[] = {{"decode", l_decode}, {"is_job", l_is_job},
                                  {"hash64", l_hash64}, {NULL, NULL}};
const luaL_Reg lkf_job_methods[] = {
    {"spec", m_spec},         {"with", m_with},     {"encode", m_encode},
    {"versions", m_versions}, {NULL, NULL}};

/* The job, group and run-policy metatables and their constructors, into the
** module table on top; `methods` is the index of the shared methods table. */
void lkf_open_objects(lua_State *L, int ctx, int methods) {
  int i;
  for (i = 0; i < KF_NKINDS; i++) {
    if (luaL_newmetatable(L, lkf_job_mt[i])) {
      lua_pushvalue(L, methods);
      lua_setfield(L, -2, "methods");
      lua_pushinteger(L, i);
      lua_setfield(L, -2, "__kind");
      lua_pushlightuserdata(L, (void *)&lkf_kind_key);
      lua_pushinteger(L, i);
      lua_rawset(L, -3);
      lua_pushvalue(L, ctx);
      lua_pushvalue(L, methods);
      lua_pushcclosure(L, job_index, 2);
      lua_setfield(L, -2, "__index");
      lua_pushcfunction(L, immutable);
      lua_setfield(L, -2, "__newindex");
      lua_pushcfunction(L, job_eq);
      lua_setfield(L, -2, "__eq");
      lua_pushvalue(L, ctx);
      lua_pushcclosure(L, job_tostring, 1);
      lua_setfield(L, -2, "__tostring");
      lua_pushstring(L, lkf_job_mt[i]);  /* getmetatable(job): the name only */
      lua_setfield(L, -2, "__metatable");
    }
    lua_pushlightuserdata(L, (void *)&lkf_job_mt[i]);   /* for lkf_pushjob */
    lua_pushvalue(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
    lua_pushvalue(L, ctx);
    lua_pushinteger(L, i);
    lua_pushcclosure(L, new_job, 2);
    lua_setfield(L, -2, kf_kinds[i].name);
  }
  for (i = 0; i < KF_NROLES; i++) {
    if (luaL_newmetatable(L, lkf_group_mt[i])) {
      lua_pushinteger(L, i);
      lua_setfield(L, -2, "__role");
      lua_pushvalue(L, ctx);
      lua_pushcclosure(L, group_index, 1);
      lua_setfield(L, -2, "__index");
      lua_pushcfunction(L, immutable);
      lua_setfield(L, -2, "__newindex");
      lua_pushcfunction(L, group_tostring);
      lua_setfield(L, -2, "__tostring");
      lua_pushstring(L, lkf_group_mt[i]);
      lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    lua_pushvalue(L, ctx);
    lua_pushinteger(L, i);
    lua_pushcclosure(L, new_group, 2);
    lua_setfield(L, -2, kf_roles[i].name);
  }
  if (luaL_newmetatable(L, RUNPOLICY_NAME)) {
    lua_pushvalue(L, ctx);
    lua_pushcclosure(L, run_policy_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, immutable);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, ctx);
    lua_pushcclosure(L, run_policy_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_pushstring(L, RUNPOLICY_NAME);
    lua_setfield(L, -2, "__metatable");
  }
  lua_pop(L, 1);
  lua_pushvalue(L, ctx);
  lua_pushcclosure(L, new_run_policy, 1);
  lua_setfield(L, -2, "RunPolicy");
}

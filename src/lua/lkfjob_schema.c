/*
** lkfjob_schema.c - the schema as Lua sees it: kfjob.fields(kind) builds
** the field tree from the core's rows (the template layer's source of
** truth for matrix keys), kfjob.suggest is the core's did-you-mean.
*/
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kf_target.h"
#include "lkf_binding.h"

static const char *const type_names[] = {
    [KF_V_STR] = "string", [KF_V_TOKEN] = "string", [KF_V_CHOICE] = "enum",
    [KF_V_QTY] = "quantity", [KF_V_INT] = "integer", [KF_V_BOOL] = "boolean",
    [KF_V_NPROC] = "integer",   /* or a word: the row's values */
    [KF_V_ENUM] = "enum", [KF_V_STRLIST] = "strings", [KF_V_OBJ] = "table",
    [KF_V_NNODES] = "nnodes", [KF_V_SIZE] = "size", [KF_V_TREE] = "tree"};

static void push_obj(lua_State *L, const kf_obj *o, int kind, int role);

/* The row's one-line description (every row has one: schema_spec). */
static void push_desc(lua_State *L, const char *desc) {
  if (desc == NULL) return;
  lua_pushstring(L, desc);
  lua_setfield(L, -2, "description");
}

/* Every accepted spelling of an enum, value by value (lowercase,
** Kubernetes, proto). */
static void push_spellings(lua_State *L, const kf_enum *en) {
  int i, k, n = 0;
  lua_createtable(L, en->n * 3, 0);
  for (i = 0; i < en->n; i++)
    for (k = 0; k < 3; k++) {
      lua_pushstring(L, en->spell[i][k]);
      lua_rawseti(L, -2, ++n);
    }
  lua_setfield(L, -2, "spellings");
}

/* The values each target's resources carry, for the targets that do not
** carry every value: { [target] = { [value] = true } } (R13; kfjob schema
** leaves the others out of the target's enum). */
static void push_values_on(lua_State *L, const kf_field *f, const kf_enum *en) {
  int t, v;
  lua_newtable(L);
  for (t = 0; t < KF_NTARGETS; t++) {
    if (f->values_on[t] == 0) continue;
    lua_newtable(L);
    for (v = 0; v < en->n; v++) {
      if (!kf_field_value_on(f, (kf_target)t, v)) continue;
      lua_pushboolean(L, 1);
      lua_setfield(L, -2, en->spell[v][0]);
    }
    lua_setfield(L, -2, kf_targets[t].name);
  }
  lua_setfield(L, -2, "values_on");
}

/* Where the row goes (kfjob explain): its v1 and v0 plugin message fields
** (under its sub-message) and its manifest key. */
static void push_where(lua_State *L, const kf_field *f) {
  if (f->pb) {
    if (f->pbmsg) lua_pushfstring(L, "%s.%s", f->pbmsg, f->pb);
    else lua_pushstring(L, f->pb);
    lua_setfield(L, -2, "proto");
  }
  if (f->pb0) {
    if (f->pbmsg) lua_pushfstring(L, "%s.%s", f->pbmsg, f->pb0);
    else lua_pushstring(L, f->pb0);
    lua_setfield(L, -2, "proto_v0");
  }
  if (f->manifest) {
    lua_pushstring(L, f->manifest);
    lua_setfield(L, -2, "manifest");
  }
}

/* A group row's place in every manifest (the replica spec, the container
** or its resources) and the targets that have none for it: { [target] =
** reason } (R34). */
static void push_place(lua_State *L, const kf_field *f) {
  int t, any = 0;
  if (kf_places[f->place].name) {
    lua_pushstring(L, kf_places[f->place].name);
    lua_setfield(L, -2, "place");
  }
  if (f->flags & KF_F_PLACED) {   /* only where its place is (R34) */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "placed");
  }
  lua_newtable(L);
  for (t = 0; t < KF_NTARGETS; t++) {
    const char *why = kf_field_not_on(f, (kf_target)t);
    if (why == NULL) continue;
    lua_pushstring(L, why);
    lua_setfield(L, -2, kf_targets[t].name);
    any = 1;
  }
  if (any) lua_setfield(L, -2, "not_on");
  else lua_pop(L, 1);
}

/* Validator c as a table { name =, pattern =, max_length =, what = } at
** field `key` of the table on top (nothing for KF_CHECK_NONE). */
static void push_check_info(lua_State *L, unsigned c, const char *key) {
  const kf_check_info *k = &kf_checks[c];
  if (c == KF_CHECK_NONE) return;
  lua_createtable(L, 0, 4);
  lua_pushstring(L, k->name);
  lua_setfield(L, -2, "name");
  if (k->pattern) {
    lua_pushstring(L, k->pattern);
    lua_setfield(L, -2, "pattern");
  }
  if (k->max_len) {
    lua_pushinteger(L, (lua_Integer)k->max_len);
    lua_setfield(L, -2, "max_length");
  }
  lua_pushstring(L, k->what);
  lua_setfield(L, -2, "what");
  lua_setfield(L, -2, key);
}

/* What a value tree holds, for the generators (schema, meta, explain): a
** string map's validators of its keys and values (key_check, value_check). */
static void push_tree(lua_State *L, const kf_tree *t) {
  lua_pushstring(L, t->shape);
  lua_setfield(L, -2, "tree");
  lua_pushstring(L, t->what);
  lua_setfield(L, -2, "what");
  push_check_info(L, t->key_check, "key_check");
  push_check_info(L, t->value_check, "value_check");
}

/* The validator the row names (kf_field.check), if any: its name as
** `check`, and the validator as `check_info`. */
static void push_check(lua_State *L, const kf_field *f) {
  if (f->check == KF_CHECK_NONE) return;
  lua_pushstring(L, kf_checks[f->check].name);
  lua_setfield(L, -2, "check");
  push_check_info(L, f->check, "check_info");
}

/* A row's words as `values`: a choice's, or an integer row's
** (nproc_per_node's auto, cpu, gpu: R10; "integer or one of"). */
static void push_words(lua_State *L, const kf_choice *ch) {
  int i;
  lua_createtable(L, 3, 0);
  for (i = 0; ch->v[i]; i++) {
    lua_pushstring(L, ch->v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "values");
}

/* One row: { type=, default=, min=, values=, alias=, v0=, fields=, check= } */
static void push_row(lua_State *L, const kf_field *f, int kind, int role) {
  lua_createtable(L, 0, 6);
  lua_pushstring(L, type_names[f->type]);
  lua_setfield(L, -2, "type");
  push_check(L, f);
  switch (f->type) {
    case KF_V_INT: case KF_V_NNODES: case KF_V_NPROC:
      lua_pushinteger(L, f->idef);
      lua_setfield(L, -2, "default");
      lua_pushinteger(L, f->min);
      lua_setfield(L, -2, "min");
      if (f->type == KF_V_NPROC) push_words(L, (const kf_choice *)f->info);
      break;
    case KF_V_BOOL:
      lua_pushboolean(L, f->idef);
      lua_setfield(L, -2, "default");
      break;
    case KF_V_ENUM: {
      const kf_enum *en = (const kf_enum *)f->info;
      int i;
      lua_pushstring(L, en->spell[f->idef][0]);
      lua_setfield(L, -2, "default");
      lua_createtable(L, en->n, 0);
      for (i = 0; i < en->n; i++) {
        lua_pushstring(L, en->spell[i][0]);
        lua_rawseti(L, -2, i + 1);
      }
      lua_setfield(L, -2, "values");
      push_spellings(L, en);
      if (f->values_on) push_values_on(L, f, en);
      break;
    }
    case KF_V_CHOICE:
      push_words(L, (const kf_choice *)f->info);
      /* fall through: the default is a string */
    /* FALLTHROUGH */
    case KF_V_STR: case KF_V_TOKEN:
      if (f->sdef) {
        lua_pushstring(L, f->sdef);
        lua_setfield(L, -2, "default");
      }
      break;
    case KF_V_OBJ:
      push_obj(L, (const kf_obj *)f->info, kind, role);
      lua_setfield(L, -2, "fields");
      lua_pushstring(L, ((const kf_obj *)f->info)->name);
      lua_setfield(L, -2, "table");
      if (f->flags & KF_F_SHORT) {   /* a string stands for the first row */
        lua_pushstring(L, ((const kf_obj *)f->info)->f[0].key);
        lua_setfield(L, -2, "short");
      }
      break;
    case KF_V_TREE: push_tree(L, (const kf_tree *)f->info); break;
    default: break;
  }
  if (f->alias) {
    lua_pushstring(L, f->alias);
    lua_setfield(L, -2, "alias");
  }
  lua_pushboolean(L, f->pb0 != NULL);
  lua_setfield(L, -2, "v0");
  push_desc(L, f->desc);
  push_where(L, f);
  push_place(L, f);
  if (f->type == KF_V_TOKEN) {   /* non-empty, no whitespace */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "token");
  }
  if (f->flags & KF_F_OMITZERO) {   /* 0 / false: unset, written nowhere */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "optional");
  }
}

/* Rows by key; an alias gets the same row under its own name. */
static void push_obj(lua_State *L, const kf_obj *o, int kind, int role) {
  size_t i;
  lua_createtable(L, 0, (int)o->n);
  for (i = 0; i < o->n; i++) {
    const kf_field *f = &o->f[i];
    if (!kf_group_takes(f, kind, role)) continue;
    push_row(L, f, kind, role);
    if (f->alias) {
      lua_pushvalue(L, -1);
      lua_setfield(L, -3, f->alias);
    }
    lua_setfield(L, -2, f->key);
  }
}

/* The places (KF_PLACES) by name: { path = { [target] = text }, group =,
** rule =, reader = }, a target without the place left out of `path`;
** group: a group row's place (its paths under the group's replica spec
** on the kubeflow.org/v1 and MPIJob targets), else a job row's. */
static void push_places(lua_State *L) {
  int p, t;
  lua_createtable(L, 0, KF_NPLACES);
  for (p = 0; p < KF_NPLACES; p++) {
    if (kf_places[p].name == NULL) continue;
    lua_createtable(L, 0, 3);
    lua_createtable(L, 0, KF_NTARGETS);
    for (t = 0; t < KF_NTARGETS; t++) {
      const char *at = kf_place_path(p, (kf_target)t);
      if (at == NULL) continue;
      lua_pushstring(L, at);
      lua_setfield(L, -2, kf_targets[t].name);
    }
    lua_setfield(L, -2, "path");
    lua_pushboolean(L, kf_places[p].group);
    lua_setfield(L, -2, "group");
    if (kf_places[p].rule) {
      lua_pushstring(L, kf_places[p].rule);
      lua_setfield(L, -2, "rule");
    }
    lua_pushstring(L, kf_places[p].reader);
    lua_setfield(L, -2, "reader");
    lua_setfield(L, -2, kf_places[p].name);
  }
}

/* The second result of kfjob.fields: what the rows say of the kind. */
static void push_kind(lua_State *L, const kf_kind_info *k) {
  lua_createtable(L, 0, 4);
  lua_pushstring(L, k->desc);
  lua_setfield(L, -2, "description");
  if (k->task_type) {
    lua_pushstring(L, k->task_type);
    lua_setfield(L, -2, "task_type");
  }
  lua_pushstring(L, k->crd_kind);
  lua_setfield(L, -2, "crd_kind");
  lua_pushstring(L, k->crd_specs);
  lua_setfield(L, -2, "replica_specs");
  push_places(L);
  lua_setfield(L, -2, "places");
}

static int fields(lua_State *L) {
  const char *name = lkf_checkstr(L, 1, NULL);
  int kind = kf_kind_by_name(name), r;
  const kf_kind_info *k;
  size_t i;
  if (kind < 0)
    return luaL_error(L, "kfjob.fields: unknown job kind '%s' (expected %s)", name,
                      kf_kind_names());
  k = &kf_kinds[kind];
  lua_createtable(L, 0, (int)k->nfields + 4);
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (f->type == KF_V_GROUPS) {
      for (r = 0; r < k->nroles; r++) {
        int role = k->roles[r].role;
        lua_createtable(L, 0, 3);
        lua_pushliteral(L, "table");
        lua_setfield(L, -2, "type");
        lua_pushstring(L, kf_roles[role].name);
        lua_setfield(L, -2, "group");
        push_desc(L, kf_roles[role].desc);
        push_obj(L, &kf_group_obj, kind, role);
        lua_setfield(L, -2, "fields");
        lua_setfield(L, -2, kf_roles[role].key);
      }
    } else if (f->type == KF_V_DEPRECATED) {
      for (r = 0; r < k->nroles; r++) {
        if (k->roles[r].deprecated_key == NULL) continue;
        lua_createtable(L, 0, 3);
        lua_pushliteral(L, "integer");
        lua_setfield(L, -2, "type");
        lua_pushinteger(L, f->min);
        lua_setfield(L, -2, "min");
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "deprecated");
        lua_pushfstring(L, "Deprecated: the %s group's replica count (v0 "
                        "plugin message field %s); write %s.replicas",
                        kf_roles[k->roles[r].role].name,
                        k->roles[r].v0_field ? k->roles[r].v0_field
                                             : k->roles[r].v1_field,
                        kf_roles[k->roles[r].role].key);
        lua_setfield(L, -2, "description");
        lua_setfield(L, -2, k->roles[r].deprecated_key);
      }
    } else {
      push_row(L, f, kind, -1);
      lua_setfield(L, -2, f->key);
    }
  }
  push_kind(L, k);
  return 2;
}

/* kfjob.fields(kind): the tables it builds are charged to the sandbox's
** work meter (a loop of calls is all C). */
static int l_fields(lua_State *L) {
  const lctx *X = (const lctx *)lua_touserdata(L, lua_upvalueindex(1));
  unsigned long long before;
  int n;
  if (X->meter == NULL) return fields(L);
  X->meter->check(L);
  before = lkf_meter_mark(L, X);
  n = fields(L);
  lkf_meter_since(L, X, before);
  return n;
}

/* kfjob.suggest(word, candidates): the closest candidate or nil. */
static int l_suggest(lua_State *L) {
  const char *word = lkf_checkstr(L, 1, NULL);
  const char *cands[257], *s;
  lua_Integer i, n;
  luaL_checktype(L, 2, LUA_TTABLE);
  n = (lua_Integer)lua_rawlen(L, 2);
  if (n > 256) n = 256;  /* a suggestion from a longer list helps nobody */
  for (i = 0; i < n; i++) {
    /* strings stay referenced by the table after the pop */
    cands[i] = lua_rawgeti(L, 2, i + 1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1);
    if (cands[i] == NULL)
      return luaL_error(L, "kfjob.suggest: candidates[%d] is not a string",
                        (int)(i + 1));
  }
  cands[n] = NULL;
  s = kf_suggest(word, cands);
  if (s) lua_pushstring(L, s); else lua_pushnil(L);
  return 1;
}

/* kfjob.targets(): { {name=, runs=, resource=, kinds={...}, emits={...}}, ... } in
** the order of SPEC §11's table. */
static int l_targets(lua_State *L) {
  static const char *const m_enc[] = {"encode", "custom", "to_json", NULL};
  static const char *const m_tt[] = {"task_template", NULL};
  static const char *const m_ts[] = {"task_spec", NULL};
  static const char *const m_man[] = {"manifest", NULL};
  static const char *const m_env[] = {"environment", NULL};
  static const struct { unsigned bit; const char *const *names; } emits[] = {
      {KF_E_ENCODE, m_enc}, {KF_E_TEMPLATE, m_tt}, {KF_E_TASKSPEC, m_ts},
      {KF_E_MANIFEST, m_man}, {KF_E_ENVIRONMENT, m_env}};
  int t, k, n;
  size_t i, j;
  lua_createtable(L, KF_NTARGETS, 0);
  for (t = 0; t < KF_NTARGETS; t++) {
    const kf_target_info *ti = &kf_targets[t];
    lua_createtable(L, 0, 4);
    lua_pushstring(L, ti->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, ti->runs);
    lua_setfield(L, -2, "runs");
    lua_pushstring(L, kf_target_resource((kf_target)t));
    lua_setfield(L, -2, "resource");
    lua_newtable(L);
    for (k = 0, n = 0; k < KF_NKINDS; k++)
      if (ti->kinds & (1u << k)) {
        lua_pushstring(L, kf_kinds[k].name);
        lua_rawseti(L, -2, ++n);
      }
    lua_setfield(L, -2, "kinds");
    lua_newtable(L);
    for (i = 0, n = 0; i < sizeof emits / sizeof emits[0]; i++)
      if (ti->emits & emits[i].bit)
        for (j = 0; emits[i].names[j]; j++) {
          lua_pushstring(L, emits[i].names[j]);
          lua_rawseti(L, -2, ++n);
        }
    lua_setfield(L, -2, "emits");
    lua_rawseti(L, -2, t + 1);
  }
  return 1;
}

/* kfjob.options(): the job methods' options, row by row (kf_options.c):
** { {name=, type=, methods={"encode", ...}, description=}, ... } */
static int l_options(lua_State *L) {
  unsigned i, m;
  int n;
  lua_createtable(L, (int)kf_noptions, 0);
  for (i = 0; i < kf_noptions; i++) {
    const kf_option *o = &kf_options[i];
    lua_createtable(L, 0, 4);
    lua_pushstring(L, o->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, o->type);
    lua_setfield(L, -2, "type");
    lua_newtable(L);
    for (m = 0, n = 0; m < KF_OPT_NMETHODS; m++)
      if (o->methods & KF_OPT_BIT(m)) {
        lua_pushstring(L, kf_opt_method_names[m]);
        lua_rawseti(L, -2, ++n);
      }
    lua_setfield(L, -2, "methods");
    push_desc(L, o->desc);
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

/* kfjob.meta() and kfjob.schema(kind, opts): the generators of the
** embedded Lua layer (lua/kfjob/meta.lua, schema.lua), loaded on first use
** through require, called with the arguments given. */
static int call_generator(lua_State *L, const char *module) {
  int n = lua_gettop(L);
  lua_getglobal(L, "require");
  if (!lua_isfunction(L, -1))
    return luaL_error(L, "kfjob: %s needs require", module);
  lua_pushstring(L, module);
  lua_call(L, 1, 1);
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

static int l_meta(lua_State *L) { return call_generator(L, "kfjob.meta"); }
static int l_schema(lua_State *L) { return call_generator(L, "kfjob.schema"); }

const luaL_Reg lkf_schema_funcs[] = {
    {"fields", l_fields}, {"suggest", l_suggest}, {"targets", l_targets},
    {"meta", l_meta}, {"schema", l_schema}, {"options", l_options}, {NULL, NULL}};

/*
** kf_interface.c - the registration parts of a TaskSpec's template, from
** options and back: the typed interface (flyteidl.core.TypedInterface, as
** flytekit's transform_variable_map builds it) and the task metadata
** (flyteidl.core.TaskMetadata, as flytekit's TaskMetadata.to_flyte_idl).
** Lua-free.
*/
#include <stdio.h>
#include <string.h>

#include "kf_job.h"
#include "kf_template.h"
#include "kf_version.h"
#include "flyteidl/core/tasks.pb-c.h"
#include "flyteidl/core/interface.pb-c.h"
#include "flyteidl/core/types.pb-c.h"
#include "google/protobuf/duration.pb-c.h"

#define KF_MAX_TYPE_DEPTH 32
#define KF_MAX_RETRIES 10       /* flyteidl's RetryStrategy: at most 10 */
#define KF_MAX_SECONDS 315576000000LL   /* google.protobuf.Duration's range */

/* ---- interface types --------------------------------------------------- */

typedef struct ltype {
  const char *name;
  Flyteidl__Core__SimpleType simple;  /* NONE: a blob */
  Flyteidl__Core__BlobType__BlobDimensionality dim;
} ltype;

/* flytekit's transformers: int, float, str, bool, datetime, timedelta,
** dict (a Struct), FlyteFile (single blob), FlyteDirectory (multipart). */
static const ltype ltypes[] = {
    {"integer", FLYTEIDL__CORE__SIMPLE_TYPE__INTEGER, 0},
    {"float", FLYTEIDL__CORE__SIMPLE_TYPE__FLOAT, 0},
    {"string", FLYTEIDL__CORE__SIMPLE_TYPE__STRING, 0},
    {"boolean", FLYTEIDL__CORE__SIMPLE_TYPE__BOOLEAN, 0},
    {"datetime", FLYTEIDL__CORE__SIMPLE_TYPE__DATETIME, 0},
    {"duration", FLYTEIDL__CORE__SIMPLE_TYPE__DURATION, 0},
    {"struct", FLYTEIDL__CORE__SIMPLE_TYPE__STRUCT, 0},
    {"file", FLYTEIDL__CORE__SIMPLE_TYPE__NONE,
     FLYTEIDL__CORE__BLOB_TYPE__BLOB_DIMENSIONALITY__SINGLE},
    {"directory", FLYTEIDL__CORE__SIMPLE_TYPE__NONE,
     FLYTEIDL__CORE__BLOB_TYPE__BLOB_DIMENSIONALITY__MULTIPART},
};
#define NLTYPES (sizeof ltypes / sizeof ltypes[0])
static const char *const ltype_names[] = {"integer", "float", "string", "boolean",
                                          "datetime", "duration", "struct", "file",
                                          "directory", NULL};
static const char *const nest_names[] = {"list", "map", NULL};

static kf_status literal_type(kf_arena *A, const kf_node *v, const char *path,
                              int depth, Flyteidl__Core__LiteralType **out,
                              const char *who, kf_err *e) {
  Flyteidl__Core__LiteralType *t = kf_arena_alloc(A, sizeof *t);
  size_t i;
  if (t == NULL) return kf_nomem(e);
  flyteidl__core__literal_type__init(t);
  *out = t;
  if (depth > KF_MAX_TYPE_DEPTH)
    return kf_fail(e, KF_ELIMIT, "%s: opts.%.200s: types nested deeper than %d levels",
                   who, path, KF_MAX_TYPE_DEPTH);
  if (v->t == KF_NSTR) {
    if (kf_opt_bad_text(v))   /* "integer\0x" is no type name */
      return kf_fail(e, KF_EINVAL, "%s: opts.%.200s: %s", who, path, kf_opt_bad_text(v));
    for (i = 0; i < NLTYPES; i++)
      if (strcmp(v->u.s.p, ltypes[i].name) == 0) break;
    if (i == NLTYPES) {
      const char *s = kf_suggest(v->u.s.p, ltype_names);
      if (s)
        return kf_fail(e, KF_EINVAL, "%s: opts.%.200s: unknown type '%.40s' (did you "
                       "mean '%s'?)", who, path, v->u.s.p, s);
      return kf_fail(e, KF_EINVAL, "%s: opts.%.200s: unknown type '%.40s' (expected "
                     "integer, float, string, boolean, datetime, duration, struct, "
                     "file, directory, { list = T } or { map = T })", who, path,
                     v->u.s.p);
    }
    if (ltypes[i].simple != FLYTEIDL__CORE__SIMPLE_TYPE__NONE) {
      t->type_case = FLYTEIDL__CORE__LITERAL_TYPE__TYPE_SIMPLE;
      t->simple = ltypes[i].simple;
    } else {
      Flyteidl__Core__BlobType *b = kf_arena_alloc(A, sizeof *b);
      if (b == NULL) return kf_nomem(e);
      flyteidl__core__blob_type__init(b);
      b->dimensionality = ltypes[i].dim;
      t->type_case = FLYTEIDL__CORE__LITERAL_TYPE__TYPE_BLOB;
      t->blob = b;
    }
    return KF_OK;
  }
  if (v->t == KF_NOBJ && v->u.c.n == 1) {
    char sub[256];
    int list = strcmp(v->u.c.k[0], "list") == 0;
    if (!list && strcmp(v->u.c.k[0], "map") != 0) {
      const char *s = kf_suggest(v->u.c.k[0], nest_names);
      return kf_fail(e, KF_EINVAL, "%s: opts.%.200s.%.40s: unknown key%s%s%s (a type "
                     "table is { list = T } or { map = T })", who, path, v->u.c.k[0],
                     s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
    }
    snprintf(sub, sizeof sub, "%s.%s", path, v->u.c.k[0]);
    if (list) {
      t->type_case = FLYTEIDL__CORE__LITERAL_TYPE__TYPE_COLLECTION_TYPE;
      return literal_type(A, v->u.c.v[0], sub, depth + 1, &t->collection_type, who, e);
    }
    t->type_case = FLYTEIDL__CORE__LITERAL_TYPE__TYPE_MAP_VALUE_TYPE;
    return literal_type(A, v->u.c.v[0], sub, depth + 1, &t->map_value_type, who, e);
  }
  return kf_fail(e, KF_EINVAL, "%s: opts.%.200s: expected a type name or a table "
                 "{ list = T } or { map = T }", who, path);
}

static kf_status variable_map(kf_arena *A, const kf_node *o, const char *side,
                              Flyteidl__Core__VariableMap **out, const char *who,
                              kf_err *e) {
  Flyteidl__Core__VariableMap *vm = kf_arena_alloc(A, sizeof *vm);
  size_t i, n = o && o->t == KF_NOBJ ? o->u.c.n : 0;
  kf_status st;
  if (vm == NULL) return kf_nomem(e);
  flyteidl__core__variable_map__init(vm);
  *out = vm;
  if (o != NULL && !(o->t == KF_NOBJ || (o->t == KF_NARR && o->u.c.n == 0)))
    return kf_fail(e, KF_EINVAL, "%s: opts.interface.%s: expected a table of name = type",
                   who, side);
  if (n == 0) return KF_OK;
  if ((vm->variables = kf_arena_alloc(A, n * sizeof *vm->variables)) == NULL)
    return kf_nomem(e);
  for (i = 0; i < n; i++) {
    Flyteidl__Core__VariableMap__VariablesEntry *en = kf_arena_alloc(A, sizeof *en);
    Flyteidl__Core__Variable *var = kf_arena_alloc(A, sizeof *var);
    const char *k = o->u.c.k[i];
    char path[256];
    if (en == NULL || var == NULL) return kf_nomem(e);
    if (k[0] == '\0' || !kf_utf8_ok(k, strlen(k)))
      return kf_fail(e, KF_EINVAL, "%s: opts.interface.%s: a variable name must be a "
                     "non-empty UTF-8 string", who, side);
    flyteidl__core__variable_map__variables_entry__init(en);
    flyteidl__core__variable__init(var);
    snprintf(path, sizeof path, "interface.%s.%.200s", side, k);
    if ((st = literal_type(A, o->u.c.v[i], path, 1, &var->type, who, e))) return st;
    en->key = (char *)k;
    en->value = var;
    vm->variables[i] = en;
  }
  vm->n_variables = n;
  return KF_OK;
}

kf_status kf_interface_build(kf_arena *A, const kf_node *o,
                             Flyteidl__Core__TypedInterface **out,
                             const char *who, kf_err *e) {
  static const char *const known[] = {"inputs", "outputs", NULL};
  Flyteidl__Core__TypedInterface *ti = kf_arena_alloc(A, sizeof *ti);
  kf_status st;
  if (ti == NULL) return kf_nomem(e);
  flyteidl__core__typed_interface__init(ti);
  if (o != NULL && (st = kf_opt_check_known(o, "interface", known, who, e))) return st;
  if ((st = variable_map(A, o ? kf_node_get(o, "inputs") : NULL, "inputs",
                         &ti->inputs, who, e)) ||
      (st = variable_map(A, o ? kf_node_get(o, "outputs") : NULL, "outputs",
                         &ti->outputs, who, e)))
    return st;
  *out = ti;
  return KF_OK;
}

/* ---- metadata ---------------------------------------------------------- */

/* "1h30m", "90s", "2h", "1h30m15s": Go's units h, m, s, each at most once
** and in that order. */
static int parse_duration(const char *s, int64_t *out) {
  static const char units[] = "hms";
  static const int64_t mult[] = {3600, 60, 1};
  int64_t total = 0;
  int next = 0, any = 0;
  while (*s) {
    int64_t n = 0;
    int digits = 0, u;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
      if (n > KF_MAX_SECONDS) return 0;
      n = n * 10 + (*s - '0');
    }
    if (digits == 0 || *s == '\0') return 0;
    for (u = next; u < 3 && units[u] != *s; u++) {}
    if (u == 3) return 0;
    s++;
    next = u + 1;
    if (n > KF_MAX_SECONDS / mult[u]) return 0;
    total += n * mult[u];
    any = 1;
  }
  if (!any || total > KF_MAX_SECONDS) return 0;
  *out = total;
  return 1;
}

static kf_status meta_string(const kf_node *o, const char *key, const char *path,
                             const char **out, int nonempty, const char *who,
                             kf_err *e) {
  kf_status st = kf_opt_string(o, key, path, out, who, e);
  if (st == KF_OK && nonempty && *out != NULL && (*out)[0] == '\0')
    return kf_fail(e, KF_EINVAL, "%s: opts.%s%s: expected a non-empty string", who,
                   path, key);
  return st;
}

static kf_status meta_bool(const kf_node *o, const char *key, const char *path,
                           int *out, const char *who, kf_err *e) {
  const kf_node *v = kf_node_get(o, key);
  if (v == NULL) return KF_OK;
  if (v->t != KF_NBOOL)
    return kf_fail(e, KF_EINVAL, "%s: opts.%s%s: expected a boolean", who, path, key);
  *out = v->u.b != 0;
  return KF_OK;
}

static kf_status meta_timeout(kf_arena *A, const kf_node *v,
                              Flyteidl__Core__TaskMetadata *m, const char *who,
                              kf_err *e) {
  Google__Protobuf__Duration *d;
  int64_t sec = -1;
  if (v->t == KF_NINT && v->u.i >= 0 && v->u.i <= KF_MAX_SECONDS) sec = v->u.i;
  else if (v->t == KF_NNUM && v->u.d >= 0 && v->u.d <= (double)KF_MAX_SECONDS &&
           v->u.d == (double)(int64_t)v->u.d)
    sec = (int64_t)v->u.d;
  else if (v->t == KF_NSTR && (kf_opt_bad_text(v) || !parse_duration(v->u.s.p, &sec)))
    sec = -1;
  if (sec < 0)
    return kf_fail(e, KF_EINVAL, "%s: opts.metadata.timeout: expected whole seconds "
                   "(0 to %lld) or a duration like \"1h30m\" (units h, m, s)", who,
                   (long long)KF_MAX_SECONDS);
  if ((d = kf_arena_alloc(A, sizeof *d)) == NULL) return kf_nomem(e);
  google__protobuf__duration__init(d);
  d->seconds = sec;
  m->timeout = d;
  return KF_OK;
}

static kf_status meta_cache(kf_arena *A, const kf_node *v,
                            Flyteidl__Core__TaskMetadata *m, const char *who,
                            kf_err *e) {
  static const char *const known[] = {"version", "serializable", "ignore_inputs", NULL};
  const kf_node *ig;
  const char *ver = NULL;
  int ser = 0;
  size_t i;
  kf_status st;
  if ((st = kf_opt_check_known(v, "metadata.cache", known, who, e)) ||
      (st = meta_string(v, "version", "metadata.cache.", &ver, 1, who, e)) ||
      (st = meta_bool(v, "serializable", "metadata.cache.", &ser, who, e)))
    return st;
  if (ver == NULL)  /* flytekit: cache=True needs a cache_version */
    return kf_fail(e, KF_EINVAL, "%s: opts.metadata.cache.version: required when "
                   "caching (the cache key's version)", who);
  m->discoverable = 1;
  m->discovery_version = (char *)ver;
  m->cache_serializable = ser;
  if ((ig = kf_node_get(v, "ignore_inputs")) != NULL && !(ig->t == KF_NOBJ && ig->u.c.n == 0)) {
    if (ig->t != KF_NARR)
      return kf_fail(e, KF_EINVAL, "%s: opts.metadata.cache.ignore_inputs: expected a "
                     "list of input names", who);
    if (ig->u.c.n &&
        (m->cache_ignore_input_vars = kf_arena_alloc(A, ig->u.c.n * sizeof(char *))) == NULL)
      return kf_nomem(e);
    for (i = 0; i < ig->u.c.n; i++) {
      const kf_node *x = ig->u.c.v[i];
      if (x->t != KF_NSTR || kf_opt_bad_text(x))
        return kf_fail(e, KF_EINVAL, "%s: opts.metadata.cache.ignore_inputs[%zu]: "
                       "expected a string", who, i + 1);
      m->cache_ignore_input_vars[i] = (char *)x->u.s.p;
    }
    m->n_cache_ignore_input_vars = ig->u.c.n;
  }
  return KF_OK;
}

static kf_status meta_tags(kf_arena *A, const kf_node *v,
                           Flyteidl__Core__TaskMetadata *m, const char *who,
                           kf_err *e) {
  size_t i, n;
  if (v->t == KF_NARR && v->u.c.n == 0) return KF_OK;
  if (v->t != KF_NOBJ)
    return kf_fail(e, KF_EINVAL, "%s: opts.metadata.tags: expected a table of name = "
                   "value", who);
  n = v->u.c.n;
  if ((m->tags = kf_arena_alloc(A, n * sizeof *m->tags)) == NULL) return kf_nomem(e);
  for (i = 0; i < n; i++) {
    Flyteidl__Core__TaskMetadata__TagsEntry *t = kf_arena_alloc(A, sizeof *t);
    if (t == NULL) return kf_nomem(e);
    if (v->u.c.v[i]->t != KF_NSTR || kf_opt_bad_text(v->u.c.v[i]) ||
        !kf_utf8_ok(v->u.c.k[i], strlen(v->u.c.k[i])))
      return kf_fail(e, KF_EINVAL, "%s: opts.metadata.tags.%.100s: expected a string",
                     who, v->u.c.k[i]);
    flyteidl__core__task_metadata__tags_entry__init(t);
    t->key = (char *)v->u.c.k[i];
    t->value = (char *)v->u.c.v[i]->u.s.p;
    m->tags[i] = t;
  }
  m->n_tags = n;
  return KF_OK;
}

kf_status kf_metadata_build(kf_arena *A, const kf_node *o,
                            Flyteidl__Core__TaskMetadata **out,
                            const char **description, const char *who,
                            kf_err *e) {
  static const char *const known[] = {"retries", "timeout", "interruptible", "cache",
                                      "description", "tags", NULL};
  Flyteidl__Core__TaskMetadata *m = kf_arena_alloc(A, sizeof *m);
  Flyteidl__Core__RuntimeMetadata *rt = kf_arena_alloc(A, sizeof *rt);
  Flyteidl__Core__RetryStrategy *rs = kf_arena_alloc(A, sizeof *rs);
  const kf_node *v;
  kf_status st;
  int b = 0;
  if (m == NULL || rt == NULL || rs == NULL) return kf_nomem(e);
  flyteidl__core__task_metadata__init(m);
  flyteidl__core__runtime_metadata__init(rt);
  flyteidl__core__retry_strategy__init(rs);
  /* flytekit always sends runtime and retries (its RetryStrategy model is
  ** never falsy); runtime names the tool that built the task */
  rt->type = FLYTEIDL__CORE__RUNTIME_METADATA__RUNTIME_TYPE__OTHER;
  rt->version = (char *)KF_VERSION_STRING;
  rt->flavor = (char *)"kfjob";
  m->runtime = rt;
  m->retries = rs;
  *description = NULL;
  *out = m;
  if (o == NULL) return KF_OK;
  if ((st = kf_opt_check_known(o, "metadata", known, who, e))) return st;
  if ((v = kf_node_get(o, "retries")) != NULL) {
    if (v->t != KF_NINT || v->u.i < 0 || v->u.i > KF_MAX_RETRIES)
      return kf_fail(e, KF_EINVAL, "%s: opts.metadata.retries: expected an integer "
                     "0..%d (flyteidl's RetryStrategy allows at most %d)", who,
                     KF_MAX_RETRIES, KF_MAX_RETRIES);
    rs->retries = (uint32_t)v->u.i;
  }
  if ((v = kf_node_get(o, "timeout")) != NULL && (st = meta_timeout(A, v, m, who, e)))
    return st;
  if (kf_node_get(o, "interruptible") != NULL) {
    if ((st = meta_bool(o, "interruptible", "metadata.", &b, who, e))) return st;
    m->interruptible_value_case =
        FLYTEIDL__CORE__TASK_METADATA__INTERRUPTIBLE_VALUE_INTERRUPTIBLE;
    m->interruptible = b;
  }
  if ((v = kf_node_get(o, "cache")) != NULL && (st = meta_cache(A, v, m, who, e)))
    return st;
  if ((v = kf_node_get(o, "tags")) != NULL && (st = meta_tags(A, v, m, who, e)))
    return st;
  return kf_opt_string(o, "description", "metadata.", description, who, e);
}

/* ---- back to option shapes (decode's info) ----------------------------- */

static kf_node *type_node(kf_arena *A, const Flyteidl__Core__LiteralType *t,
                          int depth) {
  kf_node *n;
  size_t i;
  if (t == NULL || depth > KF_MAX_TYPE_DEPTH) return kf_node_str(A, "unknown", 7);
  switch (t->type_case) {
    case FLYTEIDL__CORE__LITERAL_TYPE__TYPE_SIMPLE:
      for (i = 0; i < NLTYPES; i++)
        if (ltypes[i].simple == t->simple && t->simple != FLYTEIDL__CORE__SIMPLE_TYPE__NONE)
          return kf_node_str(A, ltypes[i].name, strlen(ltypes[i].name));
      break;
    case FLYTEIDL__CORE__LITERAL_TYPE__TYPE_BLOB:
      return t->blob && t->blob->dimensionality ==
                            FLYTEIDL__CORE__BLOB_TYPE__BLOB_DIMENSIONALITY__MULTIPART
                 ? kf_node_str(A, "directory", 9)
                 : kf_node_str(A, "file", 4);
    case FLYTEIDL__CORE__LITERAL_TYPE__TYPE_COLLECTION_TYPE:
    case FLYTEIDL__CORE__LITERAL_TYPE__TYPE_MAP_VALUE_TYPE: {
      int list = t->type_case == FLYTEIDL__CORE__LITERAL_TYPE__TYPE_COLLECTION_TYPE;
      kf_node *sub = type_node(A, list ? t->collection_type : t->map_value_type, depth + 1);
      if (sub == NULL || (n = kf_node_new(A, KF_NOBJ)) == NULL ||
          !kf_node_push(A, n, list ? "list" : "map", sub))
        return NULL;
      return n;
    }
    case FLYTEIDL__CORE__LITERAL_TYPE__TYPE__NOT_SET:
    case _FLYTEIDL__CORE__LITERAL_TYPE__TYPE__CASE_IS_INT_SIZE:
      break;
  }
  return kf_node_str(A, "unknown", 7);   /* a type kfjob does not write */
}

static int vars_node(kf_arena *A, kf_node *iface, const char *side,
                     const Flyteidl__Core__VariableMap *vm) {
  kf_node *x;
  size_t i;
  if (vm == NULL || vm->n_variables == 0) return 1;
  if ((x = kf_obj_add(A, iface, side, KF_NOBJ)) == NULL) return 0;
  for (i = 0; i < vm->n_variables; i++) {
    const Flyteidl__Core__VariableMap__VariablesEntry *en = vm->variables[i];
    kf_node *t = type_node(A, en->value ? en->value->type : NULL, 1);
    if (t == NULL || !kf_node_push(A, x, kf_arena_strndup(A, en->key, strlen(en->key)), t))
      return 0;
  }
  return 1;
}

kf_node *kf_interface_node(kf_arena *A, const Flyteidl__Core__TypedInterface *ti) {
  kf_node *n = kf_node_new(A, KF_NOBJ);
  if (n == NULL || ti == NULL) return n;
  if (!vars_node(A, n, "inputs", ti->inputs) || !vars_node(A, n, "outputs", ti->outputs))
    return NULL;
  return n;
}

kf_node *kf_metadata_node(kf_arena *A, const Flyteidl__Core__TaskMetadata *m,
                          const char *description) {
  kf_node *n = kf_node_new(A, KF_NOBJ), *x, *b;
  size_t i;
  int ok = n != NULL;
  if (!ok || m == NULL) return n;
  if (m->retries && m->retries->retries)
    ok = kf_obj_int(A, n, "retries", m->retries->retries);
  if (ok && m->timeout)
    ok = kf_obj_int(A, n, "timeout", m->timeout->seconds);
  if (ok && m->interruptible_value_case ==
                FLYTEIDL__CORE__TASK_METADATA__INTERRUPTIBLE_VALUE_INTERRUPTIBLE) {
    ok = (b = kf_node_new(A, KF_NBOOL)) != NULL && kf_node_push(A, n, "interruptible", b);
    if (ok) b->u.b = m->interruptible != 0;
  }
  if (ok && m->discoverable) {
    ok = (x = kf_obj_add(A, n, "cache", KF_NOBJ)) != NULL &&
         kf_obj_str(A, x, "version", m->discovery_version);
    if (ok && m->cache_serializable) {
      ok = (b = kf_node_new(A, KF_NBOOL)) != NULL && kf_node_push(A, x, "serializable", b);
      if (ok) b->u.b = 1;
    }
    if (ok && m->n_cache_ignore_input_vars) {
      kf_node *l = kf_obj_add(A, x, "ignore_inputs", KF_NARR);
      ok = l != NULL;
      for (i = 0; ok && i < m->n_cache_ignore_input_vars; i++)
        ok = kf_node_push(A, l, NULL, kf_node_str(A, m->cache_ignore_input_vars[i],
                                                  strlen(m->cache_ignore_input_vars[i])));
    }
  }
  if (ok && description && description[0])
    ok = kf_obj_str(A, n, "description", description);
  if (ok && m->n_tags && (ok = (x = kf_obj_add(A, n, "tags", KF_NOBJ)) != NULL))
    for (i = 0; ok && i < m->n_tags; i++)
      ok = kf_obj_str(A, x, m->tags[i]->key, m->tags[i]->value);
  return ok ? n : NULL;
}

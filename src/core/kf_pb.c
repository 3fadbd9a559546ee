/*
** kf_pb.c - job <-> plugin messages, driven by the kind table and the
** protobuf-c descriptors: fields are found by name and written through
** their offsets, so one routine serves every kind and both versions.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"
#include "kf_wire.h"
#include "flyteidl/core/tasks.pb-c.h"
#include "flyteidl/plugins/common.pb-c.h"

/* ---- generic descriptor access ---------------------------------------- */

/* Field by name.  `name` is always a string literal or a kind-table
** string, so (descriptor, name pointer) identifies the answer: a small
** per-thread cache of immutable descriptor data saves the binary search of
** names, which was a fifth of encode's time. */
static const ProtobufCFieldDescriptor *fd(const ProtobufCMessageDescriptor *d,
                                          const char *name) {
  static _Thread_local struct {
    const ProtobufCMessageDescriptor *d;
    const char *name;
    const ProtobufCFieldDescriptor *f;
  } cache[256];
  size_t h = (((uintptr_t)d >> 3) ^ ((uintptr_t)name >> 1) * 31u) & 255u;
  if (cache[h].d != d || cache[h].name != name) {
    cache[h].d = d;
    cache[h].name = name;
    cache[h].f = protobuf_c_message_descriptor_get_field_by_name(d, name);
  }
  return cache[h].f;
}

#define MEMBER(m, f, T) ((T *)(void *)((char *)(m) + (f)->offset))

static ProtobufCMessage *msg_new(kf_arena *A,
                                 const ProtobufCMessageDescriptor *d) {
  ProtobufCMessage *m = (ProtobufCMessage *)kf_arena_alloc(A, d->sizeof_message);
  if (m != NULL) d->message_init(m);
  return m;
}

/* int32 and enum fields share the int storage in protobuf-c. */
static void set_int(ProtobufCMessage *m, const char *name, int32_t v) {
  const ProtobufCFieldDescriptor *f = fd(m->descriptor, name);
  *MEMBER(m, f, int32_t) = v;
}

static void set_str(ProtobufCMessage *m, const char *name, const char *s) {
  const ProtobufCFieldDescriptor *f = fd(m->descriptor, name);
  if (s) *MEMBER(m, f, const char *) = s;
}

/* New sub-message stored in field `name`. */
static ProtobufCMessage *add_msg(kf_arena *A, ProtobufCMessage *m,
                                 const char *name) {
  const ProtobufCFieldDescriptor *f = fd(m->descriptor, name);
  ProtobufCMessage *s = msg_new(A, (const ProtobufCMessageDescriptor *)f->descriptor);
  if (s != NULL) *MEMBER(m, f, ProtobufCMessage *) = s;
  return s;
}

static int32_t get_int(const ProtobufCMessage *m, const char *name) {
  const ProtobufCFieldDescriptor *f = fd(m->descriptor, name);
  return *MEMBER(m, f, const int32_t);
}

static const char *get_str(const ProtobufCMessage *m, const char *name) {
  const ProtobufCFieldDescriptor *f = fd(m->descriptor, name);
  return *MEMBER(m, f, const char *const);
}

static const ProtobufCMessage *get_msg(const ProtobufCMessage *m,
                                       const char *name) {
  const ProtobufCFieldDescriptor *f = fd(m->descriptor, name);
  return f ? *MEMBER(m, f, const ProtobufCMessage *const) : NULL;
}

/* ---- resources -------------------------------------------------------- */

static const int res_enum[KF_NRES] = {
    [KF_CPU] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__CPU,
    [KF_MEM] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__MEMORY,
    [KF_GPU] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__GPU,
    [KF_EPH] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__EPHEMERAL_STORAGE};

static int count_res(const char *const *q) {
  int i, n = 0;
  for (i = 0; i < KF_NRES; i++) n += q[i] != NULL;
  return n;
}

static int fill_entries(kf_arena *A, const char *const *q, size_t *n,
                        Flyteidl__Core__Resources__ResourceEntry ***out) {
  int i, k = 0, cnt = count_res(q);
  Flyteidl__Core__Resources__ResourceEntry **v, *e;
  if (cnt == 0) return 1;
  v = kf_arena_alloc(A, cnt * sizeof *v);
  e = kf_arena_alloc(A, cnt * sizeof *e);
  if (v == NULL || e == NULL) return 0;
  for (i = 0; i < KF_NRES; i++) {
    if (q[i] == NULL) continue;
    flyteidl__core__resources__resource_entry__init(&e[k]);
    e[k].name = res_enum[i];
    e[k].value = (char *)q[i];
    v[k] = &e[k];
    k++;
  }
  *n = (size_t)cnt;
  *out = v;
  return 1;
}

static int set_resources(kf_arena *A, ProtobufCMessage *m, const kf_group *g) {
  Flyteidl__Core__Resources *r =
      (Flyteidl__Core__Resources *)add_msg(A, m, "resources");
  return r != NULL && fill_entries(A, g->requests, &r->n_requests, &r->requests) &&
         fill_entries(A, g->limits, &r->n_limits, &r->limits);
}

/* ---- job -> message --------------------------------------------------- */

/* A v1 replica spec: flat fields 1-4, or the same inside `common`. */
static int replica_to_msg(kf_arena *A, ProtobufCMessage *spec,
                          const kf_group *g, int elastic, int common) {
  ProtobufCMessage *t = spec;
  if (common && (t = add_msg(A, spec, "common")) == NULL) return 0;
  set_int(t, "replicas", g->replicas);
  set_str(t, "image", g->image);
  if ((!elastic || count_res(g->requests) + count_res(g->limits) > 0) &&
      !set_resources(A, t, g))
    return 0;
  set_int(t, "restart_policy", g->restart_policy);
  if (g->ncommand) {
    const ProtobufCFieldDescriptor *f = fd(spec->descriptor, "command");
    *(size_t *)(void *)((char *)spec + f->quantifier_offset) = g->ncommand;
    *MEMBER(spec, f, const char **) = (const char **)g->command;
  }
  return 1;
}

/* Whether a row holds something other than its default. */
static int row_set(const kf_field *f, const char *base) {
  const char *at = base + f->off;
  size_t i;
  switch (f->type) {
    case KF_V_INT: case KF_V_ENUM: return *(const int32_t *)(const void *)at != f->idef;
    case KF_V_BOOL: return *(const int *)(const void *)at != f->idef;
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_QTY: {
      const char *v = *(const char *const *)(const void *)at;
      return v != NULL && (f->sdef == NULL || strcmp(v, f->sdef) != 0);
    }
    case KF_V_STRLIST: return *(const size_t *)(const void *)(base + f->off_n) != 0;
    case KF_V_OBJ: {
      const kf_obj *o = (const kf_obj *)f->info;
      if (f->off_n) return *(const int *)(const void *)(base + f->off_n);
      for (i = 0; i < o->n; i++)
        if (row_set(&o->f[i], at)) return 1;
      return 0;
    }
    default: return 0;
  }
}

/* Names the fields version 0 cannot carry (rows without a v0 proto field
** holding a value), comma separated, into `out`.  A v0 worker command may
** travel in the TaskTemplate config instead. */
static void v0_unfit(const kf_job *j, int for_template, char *out, size_t cap) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  size_t i, f, l;
  int r;
  out[0] = '\0';
  for (i = 0; i < k->nfields; i++) {
    const kf_field *row = &k->fields[i];
    if (row->type == KF_V_GROUPS) {
      for (r = 0; r < k->nroles; r++) {
        int role = k->roles[r].role;
        for (f = 0; f < kf_group_obj.n; f++) {
          const kf_field *g = &kf_group_obj.f[f];
          if (g->pb0 || !row_set(g, (const char *)&j->g[role]) ||
              (for_template && role == KF_WORKER && g->type == KF_V_STRLIST))
            continue;
          l = strlen(out);
          snprintf(out + l, cap - l, "%s%s.%s", l ? ", " : "", kf_roles[role].key,
                   g->key);
        }
      }
    } else if (row->pb && !row->pb0 && row_set(row, (const char *)j)) {
      l = strlen(out);
      snprintf(out + l, cap - l, "%s%s", l ? ", " : "", row->key);
    }
  }
}

/* Writes the job-level rows (run policy, elastic config, slots, ...) into
** the message of `version`. */
static int put_rows(kf_arena *A, ProtobufCMessage *m, const kf_field *f,
                    size_t n, const char *base, int version) {
  size_t i;
  for (i = 0; i < n; i++, f++) {
    const char *name = version ? f->pb : f->pb0;
    const char *at = base + f->off;
    ProtobufCMessage *t = m;
    if (name == NULL) continue;
    if (f->pbmsg != NULL && (t = (ProtobufCMessage *)get_msg(m, f->pbmsg)) == NULL &&
        (t = add_msg(A, m, f->pbmsg)) == NULL)
      return 0;
    switch (f->type) {
      case KF_V_INT: case KF_V_ENUM:
        set_int(t, name, *(const int32_t *)(const void *)at);
        break;
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE:
        set_str(t, name, *(const char *const *)(const void *)at);
        break;
      case KF_V_NNODES: {
        const kf_job *j = (const kf_job *)(const void *)base;
        set_int(t, name, j->min_nodes);
        set_int(t, "max_replicas", j->max_nodes);
        break;
      }
      case KF_V_OBJ: {
        const kf_obj *o = (const kf_obj *)f->info;
        if (f->off_n && !*(const int *)(const void *)(base + f->off_n)) break;
        if ((t = add_msg(A, t, name)) == NULL || !put_rows(A, t, o->f, o->n, at, 1))
          return 0;
        break;
      }
      default: break;
    }
  }
  return 1;
}

kf_status kf_job_to_msg(const kf_job *j, const kf_encopts *o, int for_template,
                        kf_arena *A, ProtobufCMessage **out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int elastic = (k->flags & KF_K_ELASTIC) != 0, i;
  ProtobufCMessage *m;
  if (o->version == 0) {
    char unfit[400];
    v0_unfit(j, for_template, unfit, sizeof unfit);
    if (unfit[0])
      return kf_fail(e, KF_EINVAL,
                     "kfjob.%s: version 0 cannot express %s (use version 1)%s",
                     k->name, unfit,
                     strstr(unfit, "worker.command") && k->flags & KF_K_COMMAND
                         ? "; a v0 worker command travels in the TaskTemplate "
                           "config, see task_template()"
                         : "");
    if ((m = msg_new(A, k->v0)) == NULL) return kf_nomem(e);
    for (i = 0; i < k->nroles; i++)
      if (k->roles[i].v0_field)
        set_int(m, k->roles[i].v0_field, j->g[k->roles[i].role].replicas);
  } else {
    if ((m = msg_new(A, k->v1)) == NULL) return kf_nomem(e);
    for (i = 0; i < k->nroles; i++) {
      ProtobufCMessage *spec = add_msg(A, m, k->roles[i].v1_field);
      kf_group g = j->g[k->roles[i].role];
      if (spec == NULL) return kf_nomem(e);
      if (!replica_to_msg(A, spec, &g, elastic, o->common)) return kf_nomem(e);
    }
  }
  if (!put_rows(A, m, k->fields, k->nfields, (const char *)j, o->version))
    return kf_nomem(e);
  *out = m;
  return KF_OK;
}

unsigned kf_job_versions(const kf_job *j) {
  char unfit[400];
  v0_unfit(j, 1, unfit, sizeof unfit);
  return unfit[0] ? 2u : 3u;
}

/* An upper bound of the packed size, walked over the schema rows so a new
** row is counted without anyone remembering to: every value costs at most
** ROW_MAX (a resource entry, the largest: entry tag and length, enum tag
** and varint, string tag and length) plus its bytes, every message or
** group at most OBJ_MAX of framing.  Packing into a buffer of this size
** spares protobuf-c's whole-message size pass. */
#define FIELD_MAX 12u   /* 2-byte tag, 10-byte varint */
#define LEN_MAX 7u      /* 2-byte tag, 5-byte length */
#define ROW_MAX (2 * (FIELD_MAX + LEN_MAX))
#define OBJ_MAX (3 * LEN_MAX)

static size_t rows_bound(const kf_field *f, size_t n, const char *base) {
  size_t b = OBJ_MAX, i, k;
  for (i = 0; i < n; i++, f++) {
    const char *at = base + f->off;
    b += ROW_MAX;
    switch (f->type) {
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_QTY: {
        const char *s = *(const char *const *)(const void *)at;
        if (s) b += strlen(s);
        break;
      }
      case KF_V_STRLIST: {
        size_t cnt = *(const size_t *)(const void *)(base + f->off_n);
        const char *const *v = *(const char *const *const *)(const void *)at;
        for (k = 0; k < cnt; k++) b += ROW_MAX + strlen(v[k]);
        break;
      }
      case KF_V_OBJ: {
        const kf_obj *o = (const kf_obj *)f->info;
        b += rows_bound(o->f, o->n, at);
        break;
      }
      default: break;
    }
  }
  return b;
}

static size_t job_bound(const kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  size_t n = rows_bound(k->fields, k->nfields, (const char *)j);
  int r;
  for (r = 0; r < k->nroles; r++)
    n += rows_bound(kf_group_obj.f, kf_group_obj.n, (const char *)&j->g[k->roles[r].role]);
  return n;
}

kf_status kf_encode(const kf_job *j, const kf_encopts *o, kf_arena *A,
                    kf_buf *out, kf_err *e) {
  ProtobufCMessage *m;
  kf_status st = kf_job_to_msg(j, o, 0, A, &m, e);
  if (st) return st;
  if (!kf_buf_reserve(out, job_bound(j))) return kf_nomem(e);
#ifdef KF_CHECK_BOUNDS  /* sanitizer and fuzz builds prove the bound */
  if (protobuf_c_message_get_packed_size(m) > job_bound(j)) abort();
#endif
  out->n += protobuf_c_message_pack(m, (uint8_t *)out->p + out->n);
  return KF_OK;
}

/* ---- message -> job --------------------------------------------------- */

typedef struct dctx {
  kf_arena *A;
  kf_err *e;
  const char *who;
} dctx;


/* `path` is "<jname><common>.resources.<list>", written out on error only */
static kf_status dec_entries(dctx *c, const char *jname, const char *common,
                             const char *list, size_t n,
                             Flyteidl__Core__Resources__ResourceEntry **v,
                             const char **q) {
  size_t i;
  int r;
  char path[128];
#define PATH() snprintf(path, sizeof path, "%s%s.resources.%s", jname, common, list)
  for (i = 0; i < n; i++) {
    const char *val = v[i]->value ? v[i]->value : "";
    for (r = 0; r < KF_NRES; r++)
      if (res_enum[r] == (int)v[i]->name) break;
    if (r == KF_NRES) {
      const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(
          &flyteidl__core__resources__resource_name__descriptor, v[i]->name);
      PATH();
      return kf_fail(c->e, KF_EINVAL,
                     "%s: %s[%zu].name: resource %s is not supported "
                     "(expected CPU, MEMORY, GPU or EPHEMERAL_STORAGE)",
                     c->who, path, i + 1, ev ? ev->name : "(unknown number)");
    }
    if (q[r] != NULL && (PATH(), 1))
      return kf_fail(c->e, KF_EINVAL, "%s: %s[%zu].name: duplicate %s entry",
                     c->who, path, i + 1,
                     protobuf_c_enum_descriptor_get_value(
                         &flyteidl__core__resources__resource_name__descriptor,
                         v[i]->name)->name);
    if (!kf_quantity_ok(val, strlen(val)) && (PATH(), 1))
      return kf_fail(c->e, KF_EINVAL, "%s: %s[%zu].value: invalid quantity '%.60s'",
                     c->who, path, i + 1, val);
    q[r] = val;
  }
#undef PATH
  return KF_OK;
}

static kf_status dec_group(dctx *c, const ProtobufCMessage *spec,
                           const char *jname, kf_group *g) {
  const ProtobufCMessage *t = get_msg(spec, "common");
  const Flyteidl__Core__Resources *res;
  const char *img;
  kf_status st;
  int32_t rp;
  const ProtobufCFieldDescriptor *cf;
  if (t == NULL) t = spec;
  g->replicas = get_int(t, "replicas");
  img = get_str(t, "image");
  if (img && img[0]) {
    const char *s;
    for (s = img; *s; s++)
      if (strchr(" \t\n\r\v\f", *s))
        return kf_fail(c->e, KF_EINVAL, "%s: %s%s.image: must not contain whitespace",
                       c->who, jname, t == spec ? "" : ".common");
    g->image = img;
  }
  res = (const Flyteidl__Core__Resources *)get_msg(t, "resources");
  if (res != NULL) {
    const char *common = t == spec ? "" : ".common";
    if ((st = dec_entries(c, jname, common, "requests", res->n_requests,
                          res->requests, g->requests)) ||
        (st = dec_entries(c, jname, common, "limits", res->n_limits, res->limits,
                          g->limits)))
      return st;
  }
  rp = get_int(t, "restart_policy");
  if (rp < 0 || rp > 2)
    return kf_fail(c->e, KF_EINVAL, "%s: %s%s.restartPolicy: unknown value %d",
                   c->who, jname, t == spec ? "" : ".common", (int)rp);
  g->restart_policy = rp;
  cf = fd(spec->descriptor, "command");
  if (cf != NULL) {
    size_t n = *(const size_t *)(const void *)((const char *)spec + cf->quantifier_offset);
    if (n > KF_MAX_ITEMS)
      return kf_fail(c->e, KF_EINVAL, "%s: %s.command: list longer than the limit of 4096 items",
                     c->who, jname);
    g->ncommand = n;
    g->command = n ? (const char **)*MEMBER(spec, cf, char **const) : NULL;
  }
  return KF_OK;
}

/* Reads the job-level rows of the message of `version` (the inverse of
** put_rows), checking enum values and choices; `ppb` is the parent
** message's field for paths. */
static kf_status get_rows(dctx *c, const ProtobufCMessage *m, const kf_field *f,
                          size_t n, char *base, int version, const char *ppb) {
  char path[128];
  size_t i;
  for (i = 0; i < n; i++, f++) {
    const char *name = version ? f->pb : f->pb0;
    char *at = base + f->off;
    const ProtobufCMessage *t = m;
    if (name == NULL || (f->pbmsg != NULL && (t = get_msg(m, f->pbmsg)) == NULL))
      continue;
    switch (f->type) {
      case KF_V_INT: *(int32_t *)(void *)at = get_int(t, name); break;
      case KF_V_ENUM: {
        const kf_enum *en = (const kf_enum *)f->info;
        int32_t v = get_int(t, name);
        if (v < 0 || v >= en->n) {
          kf_row_path(NULL, ppb, f, KF_PATH_V1, path, sizeof path);
          return kf_fail(c->e, KF_EINVAL, "%s: %s: unknown value %d", c->who, path,
                         (int)v);
        }
        *(int *)(void *)at = v;
        break;
      }
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: {
        const char *v = get_str(t, name);
        const kf_choice *ch = (const kf_choice *)f->info;
        int k = 0;
        if (f->type == KF_V_CHOICE)
          for (k = 0; v != NULL && ch->v[k] && strcmp(ch->v[k], v) != 0; k++) {}
        if (f->type == KF_V_CHOICE && (v == NULL || ch->v[k] == NULL)) {
          kf_row_path(NULL, ppb, f, KF_PATH_V1, path, sizeof path);
          return kf_fail(c->e, KF_EINVAL, "%s: %s: unknown %s '%.40s' (expected %s)",
                         c->who, path, ch->what, v ? v : "", ch->choices);
        }
        *(const char **)(void *)at = v;
        break;
      }
      case KF_V_NNODES: {
        kf_job *j = (kf_job *)(void *)base;
        j->min_nodes = get_int(t, name);
        j->max_nodes = get_int(t, "max_replicas");
        break;
      }
      case KF_V_OBJ: {
        const kf_obj *o = (const kf_obj *)f->info;
        const ProtobufCMessage *sub = get_msg(t, name);
        kf_status st;
        if (sub == NULL) break;
        if (f->off_n) *(int *)(void *)(base + f->off_n) = 1;
        if ((st = get_rows(c, sub, o->f, o->n, at, 1, name))) return st;
        break;
      }
      default: break;
    }
  }
  return KF_OK;
}

kf_status kf_job_from_msg(const char *who, int kind,
                          const ProtobufCMessage *m, int version, kf_arena *A,
                          kf_job *j, kf_err *e) {
  const kf_kind_info *k;
  const ProtobufCMessage *ec = get_msg(m, "elastic_config");
  dctx c;
  char jname[64];
  int i;
  kf_status st;
  c.A = A;
  c.e = e;
  c.who = who;
  if (kind == KF_PYTORCH && ec != NULL) kind = KF_ELASTIC;
  k = &kf_kinds[kind];
  kf_job_defaults(j, kind);
  if (ec == NULL) j->min_nodes = j->max_nodes = 0;  /* nothing on the wire */
  if (kind == KF_PYTORCH && version == 1 && get_msg(m, "master_replicas") == NULL)
    j->g[KF_MASTER].replicas = 1;
  for (i = 0; i < k->nroles; i++) {
    const kf_kind_role *kr = &k->roles[i];
    kf_group *g = &j->g[kr->role];
    if (version == 0) {
      if (kr->v0_field) g->replicas = get_int(m, kr->v0_field);
    } else {
      const ProtobufCMessage *spec = get_msg(m, kr->v1_field);
      kf_json_name(kr->v1_field, jname, sizeof jname);
      if (spec != NULL && (st = dec_group(&c, spec, jname, g))) return st;
      if (g->ncommand && !(k->flags & KF_K_COMMAND))
        return kf_fail(e, KF_EINVAL, "%s: %s.command: only MPI groups take a command",
                       c.who, jname);
    }
    /* the backend forces master/launcher to 1; flytekit always sends 1 */
    if ((kf_roles[kr->role].flags & KF_R_FIXED1) && g->replicas == 0)
      g->replicas = 1;
  }
  if ((st = get_rows(&c, m, k->fields, k->nfields, (char *)j, version, NULL)))
    return st;
  if (ec != NULL) {
    const char *wf = version == 0 ? "workers" : "workerReplicas.replicas";
    /* the integer form, except 1 (that would be a python-task) */
    j->nnodes_int = j->min_nodes == j->max_nodes && j->max_nodes != 1;
    if (get_msg(m, "master_replicas") != NULL)
      return kf_fail(e, KF_EINVAL, "%s: masterReplicas: an elastic job has no master",
                     c.who);
    if (j->g[KF_WORKER].replicas != j->max_nodes)
      return kf_fail(e, KF_EINVAL,
                     "%s: %s: must equal elasticConfig.maxReplicas in an elastic "
                     "job (got %d, max %d)",
                     c.who, wf, (int)j->g[KF_WORKER].replicas, (int)j->max_nodes);
  }
  return kf_job_check(j, version ? KF_PATH_V1 : KF_PATH_V0, c.who, e);
}

int kf_kind_for_task_type(const char *task_type) {
  int i;
  for (i = 0; i < KF_NKINDS; i++)
    if (strcmp(kf_kinds[i].task_type, task_type) == 0) return i;
  return -1;
}

const ProtobufCMessageDescriptor *kf_msg_desc(const char *task_type,
                                              int version) {
  int k = kf_kind_for_task_type(task_type);
  if (k < 0) return NULL;
  return version ? kf_kinds[k].v1 : kf_kinds[k].v0;
}

/* ---- string checks on the wire ---------------------------------------- */

/* protobuf-c hands strings back NUL-terminated without their length and
** does not check UTF-8, so scan the wire first: every string field of the
** message (recursively) must be valid UTF-8 without NUL bytes.  The same
** walk bounds the nesting of messages before protobuf-c's unpack recurses
** (as protobuf's CodedInputStream recursion limit, 100 by default, does).
** Malformed framing is left to protobuf-c's own unpack: the walk reaches
** every sub-message unpack would recurse into, since unpack checks the whole
** framing of a message before it parses its members. */
typedef struct wpath {
  int n;
  struct { const ProtobufCFieldDescriptor *f; unsigned idx; } seg[KF_MAX_WIRE_DEPTH];
} wpath;

static kf_status wire_fail(const wpath *w, const char *who, kf_status code,
                           const char *problem, kf_err *e) {
  char path[256] = "", jn[64];
  int i;
  for (i = 0; i < w->n; i++) {
    size_t l = strlen(path);
    if (i == 8 && w->n > 10) {   /* deep paths: the first levels and the last */
      snprintf(path + l, sizeof path - l, ".(...)");
      i = w->n - 3;
      continue;
    }
    kf_json_name(w->seg[i].f->name, jn, sizeof jn);
    snprintf(path + l, sizeof path - l, "%s%s", l ? "." : "", jn);
    l = strlen(path);
    if (w->seg[i].f->label == PROTOBUF_C_LABEL_REPEATED)
      snprintf(path + l, sizeof path - l, "[%u]", w->seg[i].idx);
  }
  return kf_fail(e, code, "%s: %s: %s", who, path, problem);
}

static kf_status wire_strings(const ProtobufCMessageDescriptor *d,
                              const uint8_t *p, const uint8_t *end,
                              const char *who, wpath *w, kf_err *e) {
  unsigned seen[16] = {0};  /* occurrences per field, for [i] in paths */
  while (p < end) {
    uint64_t key, len;
    const ProtobufCFieldDescriptor *f;
    if (!kf_varint_get(&p, end, &key)) return KF_OK;
    switch (key & 7) {
      case 0: if (!kf_varint_get(&p, end, &len)) return KF_OK; continue;
      case 1: if (end - p < 8) return KF_OK; p += 8; continue;
      case 5: if (end - p < 4) return KF_OK; p += 4; continue;
      case 2: break;
      default: return KF_OK;
    }
    if (!kf_varint_get(&p, end, &len) || len > (uint64_t)(end - p)) return KF_OK;
    f = protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3));
    if (f != NULL) {
      kf_status st = KF_OK;
      w->seg[w->n].f = f;
      w->seg[w->n].idx = f->id < 16 ? ++seen[f->id] : 0;
      w->n++;
      if (f->type == PROTOBUF_C_TYPE_STRING) {
        if (len > KF_MAX_STRING)
          st = wire_fail(w, who, KF_EINVAL, "string longer than the limit of 1 MiB", e);
        else if (memchr(p, 0, (size_t)len) != NULL)
          st = wire_fail(w, who, KF_EINVAL, "string contains a NUL byte", e);
        else if (!kf_utf8_ok((const char *)p, (size_t)len))
          st = wire_fail(w, who, KF_EINVAL, "invalid UTF-8", e);
      } else if (f->type == PROTOBUF_C_TYPE_MESSAGE && w->n >= KF_MAX_WIRE_DEPTH) {
        st = wire_fail(w, who, KF_ELIMIT, "messages nested deeper than 100 levels", e);
      } else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
        st = wire_strings((const ProtobufCMessageDescriptor *)f->descriptor, p,
                          p + len, who, w, e);
      }
      w->n--;
      if (st) return st;
    }
    p += len;
  }
  return KF_OK;
}

kf_status kf_wire_check(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                        size_t n, const char *who, kf_err *e) {
  wpath w;
  w.n = 0;
  return wire_strings(d, p, p + n, who, &w, e);
}

kf_status kf_unpack(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                    size_t n, const char *who, kf_arena *A,
                    ProtobufCMessage **out, kf_err *e) {
  ProtobufCAllocator pa;
  kf_status wire = kf_wire_check(d, p, n, who, e);
  *out = NULL;
  if (wire == KF_ELIMIT) return wire;   /* before unpack recurses */
  kf_arena_pballoc(A, &pa);
  *out = protobuf_c_message_unpack(d, &pa, n, p);
  if (*out == NULL && A->failed) return kf_nomem(e);
  if (*out == NULL) return KF_EINVAL;   /* framing errors come first */
  return wire;
}

kf_status kf_decode(const char *task_type, int kind, int version,
                    const uint8_t *p, size_t n, kf_arena *A, kf_job *out,
                    kf_err *e) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(task_type, version);
  ProtobufCMessage *m;
  kf_status st;
  if (d == NULL)
    return kf_fail(e, KF_EINVAL,
                   "kfjob.decode: unknown task type '%.40s' (expected "
                   "tensorflow, pytorch or mpi)", task_type);
  if ((st = kf_unpack(d, p, n, "kfjob.decode", A, &m, e)) != KF_OK && m != NULL)
    return st;
  if (m == NULL && st != KF_EINVAL) return st;
  if (m == NULL)
    return kf_fail(e, KF_EINVAL,
                   "kfjob.decode: malformed %s message (truncated bytes, a bad "
                   "tag or a wrong wire type)",
                   d->name);
  if (kind < 0) kind = kf_kind_for_task_type(task_type);
  return kf_job_from_msg("kfjob.decode", kind, m, version, A, out, e);
}

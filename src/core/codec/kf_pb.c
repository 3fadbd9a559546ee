/*
** kf_pb.c - job <-> plugin messages, driven by the kind table and the
** protobuf-c descriptors: fields are found by name and written through
** their offsets, so one routine serves every kind and both versions.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_pb.h"
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


/* ResourceName numbers of the resource rows (their pb names), looked up
** once in the enum's descriptor. */
static int res_number[KF_NRES];
static pthread_once_t res_once = PTHREAD_ONCE_INIT;

static void res_init(void) {
  size_t i;
  for (i = 0; i < KF_NRES; i++) {   /* the fixed rows: the rest has no pb */
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(
        &flyteidl__core__resources__resource_name__descriptor,
        kf_resources_obj.f[i].pb);
    res_number[i] = v ? v->value : -1;
  }
}

static int count_res(const char *const *q) {
  int i, n = 0;
  for (i = 0; i < KF_NRES; i++) n += q[i] != NULL;
  return n;
}

/* The repeated ResourceEntry field `f` of `res` from quantities q. */
static int fill_entries(kf_arena *A, ProtobufCMessage *res,
                        const ProtobufCFieldDescriptor *f, const char *const *q) {
  int i, k = 0, cnt = count_res(q);
  Flyteidl__Core__Resources__ResourceEntry **v, *e;
  if (cnt == 0) return 1;
  pthread_once(&res_once, res_init);
  v = kf_arena_alloc(A, cnt * sizeof *v);
  e = kf_arena_alloc(A, cnt * sizeof *e);
  if (v == NULL || e == NULL) return 0;
  for (i = 0; i < KF_NRES; i++) {
    if (q[i] == NULL) continue;
    flyteidl__core__resources__resource_entry__init(&e[k]);
    e[k].name = res_number[i];
    e[k].value = (char *)q[i];
    v[k] = &e[k];
    k++;
  }
  *(size_t *)(void *)((char *)res + f->quantifier_offset) = (size_t)cnt;
  *MEMBER(res, f, Flyteidl__Core__Resources__ResourceEntry **) = v;
  return 1;
}

/* ---- job -> message --------------------------------------------------- */

/* Where each group row travels in a kind's v1 replica spec, resolved once
** from the descriptors: the field in the spec itself (flat encoding), in
** its CommonReplicaSpec (NULL when common lacks it: the MPI command), and
** for a resource table the repeated entry field of the sub-message. */
#define KF_MAX_GROUP_ROWS 16
typedef struct gmap {
  const ProtobufCFieldDescriptor *common_fd;
  const ProtobufCFieldDescriptor *flat[KF_MAX_GROUP_ROWS];
  const ProtobufCFieldDescriptor *common[KF_MAX_GROUP_ROWS];
  const ProtobufCFieldDescriptor *list[KF_MAX_GROUP_ROWS];
} gmap;
static gmap gmaps[KF_NKINDS];
/* The JSON names of each kind's replica spec fields ("workerReplicas"),
** for error paths, made once. */
static char role_jname[KF_NKINDS][4][48];
static pthread_once_t gmaps_once = PTHREAD_ONCE_INIT;

static const ProtobufCFieldDescriptor *field_in(const ProtobufCMessageDescriptor *d,
                                                const char *name) {
  return d && name ? protobuf_c_message_descriptor_get_field_by_name(d, name) : NULL;
}

static void gmaps_init(void) {
  int k;
  size_t i;
  if (kf_group_obj.n > KF_MAX_GROUP_ROWS) abort();  /* the table outgrew gmap */
  for (k = 0; k < KF_NKINDS; k++) {
    const ProtobufCMessageDescriptor *rd = kf_kinds[k].v1_replica, *cd;
    gmap *g = &gmaps[k];
    int r;
    for (r = 0; r < kf_kinds[k].nroles && r < 4; r++)
      if (kf_kinds[k].roles[r].v1_field)   /* kinds without a task type: none */
        kf_json_name(kf_kinds[k].roles[r].v1_field, role_jname[k][r], sizeof role_jname[k][r]);
    g->common_fd = field_in(rd, "common");
    cd = g->common_fd ? (const ProtobufCMessageDescriptor *)g->common_fd->descriptor : NULL;
    for (i = 0; i < kf_group_obj.n; i++) {
      const kf_field *f = &kf_group_obj.f[i];
      const char *name = f->pbmsg ? f->pbmsg : f->pb;
      g->flat[i] = field_in(rd, name);
      g->common[i] = field_in(cd, name);
      if (f->pbmsg && g->flat[i])
        g->list[i] = field_in((const ProtobufCMessageDescriptor *)g->flat[i]->descriptor,
                              f->pb);
    }
  }
}

#define AT_FIELD(m, fd, T) ((T *)(void *)((char *)(m) + (fd)->offset))
#define COUNT_OF(m, fd) (*(size_t *)(void *)((char *)(m) + (fd)->quantifier_offset))

/* A v1 replica spec from the group rows: into `common` when asked, except
** fields the common message lacks; an elastic group leaves an empty
** resources message out, as flytekit does. */
static int replica_to_msg(kf_arena *A, int kind, ProtobufCMessage *spec,
                          const kf_group *g, int elastic, int common) {
  const gmap *gm = &gmaps[kind];
  ProtobufCMessage *cm = NULL;
  const kf_field *f = kf_group_obj.f;
  size_t i;
  pthread_once(&gmaps_once, gmaps_init);
  if (common) {
    cm = msg_new(A, (const ProtobufCMessageDescriptor *)gm->common_fd->descriptor);
    if (cm == NULL) return 0;
    *AT_FIELD(spec, gm->common_fd, ProtobufCMessage *) = cm;
  }
  for (i = 0; i < kf_group_obj.n; i++, f++) {
    const char *at = (const char *)g + f->off;
    ProtobufCMessage *m = cm && gm->common[i] ? cm : spec;
    const ProtobufCFieldDescriptor *d = m == cm ? gm->common[i] : gm->flat[i];
    if (d == NULL) continue;  /* not in this kind's proto */
    if (KF_V_ISSTR(f->type)) {
      const char *s = *(const char *const *)(const void *)at;
      if (s) *AT_FIELD(m, d, const char *) = s;
    } else if (f->type == KF_V_INT || f->type == KF_V_ENUM) {
      *AT_FIELD(m, d, int32_t) = *(const int32_t *)(const void *)at;
    } else if (f->type == KF_V_OBJ) {
      const char *const *q = (const char *const *)(const void *)at;
      ProtobufCMessage **res = AT_FIELD(m, d, ProtobufCMessage *);
      if (*res == NULL && (!elastic || count_res(q) > 0) &&
          (*res = msg_new(A, (const ProtobufCMessageDescriptor *)d->descriptor)) == NULL)
        return 0;
      if (*res != NULL && !fill_entries(A, *res, gm->list[i], q)) return 0;
    } else if (f->type == KF_V_STRLIST) {
      size_t n = *(const size_t *)(const void *)((const char *)g + f->off_n);
      if (n == 0) continue;
      COUNT_OF(m, d) = n;
      *AT_FIELD(m, d, const char *const *) = *(const char *const *const *)(const void *)at;
    }
  }
  return 1;
}

/* Whether a row holds something other than its default. */
static int row_set(const kf_field *f, const char *base) {
  const char *at = base + f->off;
  size_t i;
  switch (f->type) {
    case KF_V_INT: case KF_V_ENUM: return *(const int32_t *)(const void *)at != f->idef;
    case KF_V_NPROC:
      return *(const char *const *)(const void *)(base + f->off_n) != NULL ||
             *(const int32_t *)(const void *)at != f->idef;
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
      case KF_V_NPROC:   /* a word never gets here: R10 refuses it first */
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
  kf_status st = kf_need_task_type(j->kind, o->ctor ? o->ctor : k->name, e);
  if (st != KF_OK) return st;
  if (o->clustered) return kf_clustered_msg(j, o, A, out, e);
  if (o->version == 0) {
    char unfit[400];
    v0_unfit(j, for_template, unfit, sizeof unfit);
    if (unfit[0])
      return kf_fail(e, KF_EINVAL,
                     "%s: version 0 cannot express %s (use version 1)%s",
                     o->ctor ? o->ctor : k->name, unfit,
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
      if (!replica_to_msg(A, j->kind, spec, &g, elastic, o->common)) return kf_nomem(e);
    }
  }
  if (!put_rows(A, m, k->fields, k->nfields, (const char *)j, o->version))
    return kf_nomem(e);
  *out = m;
  return KF_OK;
}

unsigned kf_job_versions(const kf_job *j) {
  char unfit[400];
  if (kf_kinds[j->kind].task_type == NULL) return 0;   /* no message at all */
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

/* The fixed part, per kind: every row of a job without strings. */
static size_t fixed_bound[KF_NKINDS];
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;

static void fixed_init(void) {
  static const kf_job none;   /* all NULL, all 0 */
  int k, r;
  for (k = 0; k < KF_NKINDS; k++) {
    const kf_kind_info *ki = &kf_kinds[k];
    size_t n = rows_bound(ki->fields, ki->nfields, (const char *)&none);
    for (r = 0; r < ki->nroles; r++)
      n += rows_bound(kf_group_obj.f, kf_group_obj.n, (const char *)&none.g[0]);
    fixed_bound[k] = n;
  }
}

/* Fixed rows, plus every string's bytes, plus a row's framing per list
** item (rows_bound walks the same rows, per job, in sanitizer builds).
** `block`: the size of the block kf_job_pack_into made of the job, which
** holds every string, or 0 to measure them.  A list item takes at least
** 9 bytes of the block (its pointer and its NUL), so the block also
** bounds the number of items, without counting them. */
static size_t job_bound(const kf_job *j, size_t block) {
  size_t items, n;
  pthread_once(&fixed_once, fixed_init);
  if (block) return fixed_bound[j->kind] + block + (block / 9 + 1) * ROW_MAX;
  n = kf_job_strings(j, &items);
  return fixed_bound[j->kind] + n + items * ROW_MAX;
}

kf_status kf_encode(const kf_job *j, const kf_encopts *o, kf_arena *A,
                    kf_buf *out, kf_err *e) {
  return kf_encode_block(j, 0, o, A, out, e);
}

kf_status kf_encode_block(const kf_job *j, size_t block, const kf_encopts *o,
                          kf_arena *A, kf_buf *out, kf_err *e) {
  ProtobufCMessage *m;
  kf_status st;
  if (o->clustered) {   /* a few varints: packed by protobuf-c */
    size_t n;
    if ((st = kf_clustered_msg(j, o, A, &m, e)) != KF_OK) return st;
    n = protobuf_c_message_get_packed_size(m);
    if (!kf_buf_reserve(out, n)) return kf_nomem(e);
    out->n += protobuf_c_message_pack(m, (uint8_t *)out->p + out->n);
    return KF_OK;
  }
  if (o->version == 1) {   /* straight to bytes (kf_wire_job.c) */
    size_t at = out->n;
    if (!kf_buf_reserve(out, job_bound(j, block))) return kf_nomem(e);
    if (kf_wire_job(j, o->common, out)) {
#ifdef KF_CHECK_BOUNDS  /* sanitizer and fuzz builds: the bytes protobuf-c packs */
      size_t n = out->n - at;
      uint8_t *ref;
      if ((st = kf_job_to_msg(j, o, 0, A, &m, e)) != KF_OK) return st;
      if (protobuf_c_message_get_packed_size(m) != n ||
          (ref = kf_arena_alloc_raw(A, n + 1)) == NULL ||
          protobuf_c_message_pack(m, ref) != n || memcmp(ref, out->p + at, n) != 0)
        abort();
#endif
      (void)at;
      return KF_OK;
    }
  }
  if ((st = kf_job_to_msg(j, o, 0, A, &m, e)) != KF_OK) return st;
  if (!kf_buf_reserve(out, job_bound(j, block))) return kf_nomem(e);
#ifdef KF_CHECK_BOUNDS  /* sanitizer and fuzz builds prove the bound */
  {
    const kf_kind_info *k = &kf_kinds[j->kind];
    size_t walked = rows_bound(k->fields, k->nfields, (const char *)j);
    int r;
    for (r = 0; r < k->nroles; r++)
      walked += rows_bound(kf_group_obj.f, kf_group_obj.n,
                           (const char *)&j->g[k->roles[r].role]);
    if (protobuf_c_message_get_packed_size(m) > walked || walked > job_bound(j, block))
      abort();
  }
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
    pthread_once(&res_once, res_init);
    for (r = 0; r < KF_NRES; r++)
      if (res_number[r] == (int)v[i]->name) break;
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

/* A v1 replica spec -> group, by the group rows (the inverse of
** replica_to_msg); `jname` is the spec's JSON name, for paths. */
static kf_status dec_group(dctx *c, int kind, const ProtobufCMessage *spec,
                           const char *jname, kf_group *g) {
  const gmap *gm = &gmaps[kind];
  const ProtobufCMessage *cm;
  const kf_field *f = kf_group_obj.f;
  char pj[64];
  size_t i;
  kf_status st;
  pthread_once(&gmaps_once, gmaps_init);
  cm = gm->common_fd ? *AT_FIELD(spec, gm->common_fd, const ProtobufCMessage *const) : NULL;
  for (i = 0; i < kf_group_obj.n; i++, f++) {
    char *at = (char *)g + f->off;
    const ProtobufCMessage *m = cm && gm->common[i] ? cm : spec;
    const ProtobufCFieldDescriptor *d = m == cm ? gm->common[i] : gm->flat[i];
    const char *common = m == cm ? ".common" : "";
    if (d == NULL) continue;  /* not in this kind's proto */
    if (KF_V_ISSTR(f->type)) {
      const char *s = *AT_FIELD(m, d, const char *const);
      if (s == NULL || s[0] == '\0') continue;  /* proto3: unset */
      if (f->type == KF_V_TOKEN) {
        char buf[64];
        const char *why = kf_token_problem(s, strlen(s), buf, sizeof buf);
        if (why != NULL) {
          kf_json_name(f->pb, pj, sizeof pj);
          return kf_fail(c->e, KF_EINVAL, "%s: %s%s.%s: %s", c->who, jname, common, pj,
                         why);
        }
      }
      *(const char **)(void *)at = s;
    } else if (f->type == KF_V_INT) {
      *(int32_t *)(void *)at = *AT_FIELD(m, d, const int32_t);
    } else if (f->type == KF_V_ENUM) {
      int32_t v = *AT_FIELD(m, d, const int32_t);
      if (v < 0 || v >= ((const kf_enum *)f->info)->npb) {
        kf_json_name(f->pb, pj, sizeof pj);
        return kf_fail(c->e, KF_EINVAL, "%s: %s%s.%s: unknown value %d", c->who,
                       jname, common, pj, (int)v);
      }
      *(int *)(void *)at = v;
    } else if (f->type == KF_V_OBJ) {
      const ProtobufCMessage *res = *AT_FIELD(m, d, const ProtobufCMessage *const);
      const ProtobufCFieldDescriptor *l = gm->list[i];
      if (res == NULL) continue;
      if ((st = dec_entries(c, jname, common, f->pb, COUNT_OF(res, l),
                            *AT_FIELD(res, l, Flyteidl__Core__Resources__ResourceEntry **const),
                            (const char **)(void *)at)))
        return st;
    } else if (f->type == KF_V_STRLIST) {
      size_t n = COUNT_OF(m, d);
      if (n > KF_MAX_ITEMS) {
        kf_json_name(f->pb, pj, sizeof pj);
        return kf_fail(c->e, KF_EINVAL, "%s: %s%s.%s: list longer than the limit of "
                       "4096 items", c->who, jname, common, pj);
      }
      *(size_t *)(void *)((char *)g + f->off_n) = n;
      *(const char ***)(void *)at = n ? *AT_FIELD(m, d, const char **const) : NULL;
    }
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
      case KF_V_INT: case KF_V_NPROC: *(int32_t *)(void *)at = get_int(t, name); break;
      case KF_V_ENUM: {
        const kf_enum *en = (const kf_enum *)f->info;
        int32_t v = get_int(t, name);
        if (v < 0 || v >= en->npb) {
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
  pthread_once(&gmaps_once, gmaps_init);
  for (i = 0; i < k->nroles; i++) {
    const kf_kind_role *kr = &k->roles[i];
    kf_group *g = &j->g[kr->role];
    if (version == 0) {
      if (kr->v0_field) g->replicas = get_int(m, kr->v0_field);
    } else {
      const ProtobufCMessage *spec = get_msg(m, kr->v1_field);
      const char *jname = role_jname[kind][i];
      if (spec != NULL && (st = dec_group(&c, kind, spec, jname, g))) return st;
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
  for (i = 0; i < KF_NKINDS; i++)   /* never a kind without a task type */
    if (kf_kinds[i].task_type && strcmp(kf_kinds[i].task_type, task_type) == 0)
      return i;
  return -1;
}

kf_status kf_unknown_task_type(const char *who, const char *task_type,
                               kf_err *e) {
  return kf_fail(e, KF_EINVAL, "%s: unknown task type '%.40s' (expected "
                 "tensorflow, pytorch or mpi)", who, task_type);
}

const ProtobufCMessageDescriptor *kf_msg_desc(const char *task_type,
                                              int version) {
  int k = kf_kind_for_task_type(task_type);
  if (k < 0) return NULL;
  return version ? kf_kinds[k].v1 : kf_kinds[k].v0;
}

kf_status kf_decode(const char *task_type, int kind, int version,
                    const uint8_t *p, size_t n, kf_arena *A, kf_job *out,
                    const char *who, kf_err *e) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(task_type, version);
  if (d == NULL) return kf_unknown_task_type(who, task_type, e);
  /* the bytes straight into the job when the reader takes them all; the
  ** same job, so the same checks (kf_wire_read.c) */
  if (kf_wire_read_job(d, kind < 0 ? kf_kind_for_task_type(task_type) : kind, version,
                       p, n, A, out)) {
    kf_status st = kf_job_check(out, version ? KF_PATH_V1 : KF_PATH_V0, who, e);
#ifdef KF_CHECK_BOUNDS  /* sanitizer and fuzz builds: what the message path makes */
    kf_job ref;
    kf_err re;
    kf_status rs = kf_decode_msg(task_type, kind, version, p, n, A, &ref, who, &re);
    if (rs != st || (st == KF_OK && !kf_job_equal(out, &ref)) ||
        (st != KF_OK && strcmp(re.msg, e->msg) != 0))
      abort();
#endif
    return st;
  }
  return kf_decode_msg(task_type, kind, version, p, n, A, out, who, e);
}

kf_status kf_decode_msg(const char *task_type, int kind, int version,
                        const uint8_t *p, size_t n, kf_arena *A, kf_job *out,
                        const char *who, kf_err *e) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(task_type, version);
  ProtobufCMessage *m;
  kf_status st;
  if (d == NULL) return kf_unknown_task_type(who, task_type, e);
  if ((st = kf_unpack(d, p, n, who, A, &m, e)) != KF_OK && m != NULL)
    return st;
  if (m == NULL && st != KF_EINVAL) return st;
  if (m == NULL)
    return kf_fail(e, KF_EINVAL,
                   "%s: malformed %s message (truncated bytes, a bad "
                   "tag or a wrong wire type)",
                   who, d->name);
  if (kind < 0) kind = kf_kind_for_task_type(task_type);
  return kf_job_from_msg(who, kind, m, version, A, out, e);
}

/*
** kf_wire_job.c - a v1 job straight to wire bytes, without building the
** protobuf-c message.  For each kind (and replica encoding) a plan is made
** once from the kind table and the protobuf-c descriptors: every message
** kf_job_to_msg would build, its fields in the descriptor's order (the order
** protobuf_c_message_pack writes), each with its tag bytes and where its
** value lives in the job.  Writing walks the plan; a sub-message's length
** goes in front of it once it is written.  The rules of kf_job_to_msg are
** kept: which messages exist even when empty, which are left out, proto3's
** omission of zero scalars.  A kind whose rows or descriptors the plan does
** not know gets no plan, and kf_encode_block then builds the message as
** before; sanitizer and fuzz builds compare every encode with
** protobuf_c_message_pack of the built message.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"
#include "kf_wire.h"
#include "kf_json.h"
#include "flyteidl/core/tasks.pb-c.h"

typedef enum wkind {
  W_INT,      /* int32 / enum at off, left out when 0 */
  W_STR,      /* const char * at off, left out when NULL or "" */
  W_STRLIST,  /* repeated string: array at off, count at off_n */
  W_RES,      /* repeated ResourceEntry from the quantities at off */
  W_MSG       /* a sub-message (sub) */
} wkind;

typedef enum wwhen {
  P_ALWAYS,   /* built even when empty */
  P_FLAG,     /* when the int at flag is set */
  P_ANY       /* when its body is not empty (an elastic group's resources) */
} wwhen;

#define W_MAX_FIELDS 16
#define W_MAX_PLANS 64
#define W_MAX_STRS 48

typedef struct wplan wplan;
typedef struct wfield {   /* what encoding reads first, the keys last */
  wkind k;
  wwhen when;
  uint8_t tag[5], ntag;
  uint8_t nkey, nskey;
  int16_t enames;            /* W_INT enum: first of its names in enum_q, or -1 */
  uint8_t nenames;
  uint32_t id;
  size_t off, off_n, flag;   /* from the job's start */
  const wplan *sub;
  const ProtobufCFieldDescriptor *fd;
  char key[48];              /* JSON: "camelCase": (nkey 0: no JSON plan) */
  uint8_t skey[48];          /* Struct: the map entry's key field, 0a len camelCase */
} wfield;

struct wplan {
  const ProtobufCMessageDescriptor *d;
  wfield f[W_MAX_FIELDS];
  int n;
  uint8_t bykey[W_MAX_FIELDS];   /* field order by JSON key (Struct order) */
  size_t fixed;                  /* a top plan's st_fixed (0: no Struct plan) */
  const wfield *strs[W_MAX_STRS];  /* a top plan's fields holding strings */
  int nstrs;
};

static size_t st_fixed(const wplan *p, wplan *top);

/* The plans: [kind][common] top messages, and a pool of sub-messages. */
static wplan *tops[KF_NKINDS][2];
static wplan pool[W_MAX_PLANS];
static int npool;
static int res_number[KF_NRES];
/* JSON: quoted enum names (by value, from 0) and each resource entry's
** start: {"name":"CPU","value": (or without the value, then "}"). */
#define W_MAX_ENAMES 96
static char enum_q[W_MAX_ENAMES][40];
static uint8_t enum_n[W_MAX_ENAMES];
static int nenum_q;
static char res_q[KF_NRES][2][64];
static const char *res_name[KF_NRES];
static uint8_t res_n[KF_NRES][2];
static int json_ok;   /* every planned field has its JSON key */
static pthread_once_t plans_once = PTHREAD_ONCE_INIT;

static wplan *plan_new(const ProtobufCMessageDescriptor *d) {
  wplan *p;
  if (d == NULL || npool == W_MAX_PLANS) return NULL;
  p = &pool[npool++];
  memset(p, 0, sizeof *p);
  p->d = d;
  return p;
}

static const ProtobufCFieldDescriptor *field_named(const ProtobufCMessageDescriptor *d,
                                                   const char *name) {
  return d && name ? protobuf_c_message_descriptor_get_field_by_name(d, name) : NULL;
}

/* Adds field `fd` of p (kept in descriptor order); NULL when the field's
** type or label is not what `k` writes, or p is full.  A field added twice
** (two rows sharing a sub-message) returns the first. */
static wfield *plan_add(wplan *p, const ProtobufCFieldDescriptor *fd, wkind k) {
  int i, j;
  uint8_t *o;
  if (fd == NULL) return NULL;
  switch (k) {
    case W_INT:
      if (fd->label != PROTOBUF_C_LABEL_NONE ||
          (fd->type != PROTOBUF_C_TYPE_INT32 && fd->type != PROTOBUF_C_TYPE_ENUM))
        return NULL;
      break;
    case W_STR:
      if (fd->label != PROTOBUF_C_LABEL_NONE || fd->type != PROTOBUF_C_TYPE_STRING) return NULL;
      break;
    case W_STRLIST:
      if (fd->label != PROTOBUF_C_LABEL_REPEATED || fd->type != PROTOBUF_C_TYPE_STRING)
        return NULL;
      break;
    case W_RES:
      if (fd->label != PROTOBUF_C_LABEL_REPEATED || fd->type != PROTOBUF_C_TYPE_MESSAGE ||
          fd->descriptor != &flyteidl__core__resources__resource_entry__descriptor)
        return NULL;
      break;
    case W_MSG:
      if (fd->type != PROTOBUF_C_TYPE_MESSAGE || fd->label == PROTOBUF_C_LABEL_REPEATED)
        return NULL;
      break;
  }
  for (i = 0; i < p->n; i++)
    if (p->f[i].id == fd->id) return p->f[i].k == k ? &p->f[i] : NULL;
  if (p->n == W_MAX_FIELDS) return NULL;
  for (i = 0; i < p->n && p->f[i].id < fd->id; i++) {}
  for (j = p->n; j > i; j--) p->f[j] = p->f[j - 1];
  p->n++;
  memset(&p->f[i], 0, sizeof p->f[i]);
  p->f[i].id = fd->id;
  p->f[i].fd = fd;
  p->f[i].k = k;
  {   /* the JSON key, as kf_msg_to_json camelCases descriptor names */
    const char *c = fd->name;
    size_t n = 0, cap = sizeof p->f[i].key - 2;
    char *o2 = p->f[i].key;
    o2[n++] = '"';
    for (; *c && n < cap; c++) {
      if (*c == '_' && c[1]) {
        c++;
        o2[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
      } else if (*c != '_') {
        o2[n++] = *c;
      }
    }
    if (*c) n = 0;    /* too long: no JSON plan */
    else { o2[n++] = '"'; o2[n++] = ':'; }
    p->f[i].nkey = (uint8_t)n;
    if (n > 0) {   /* n - 3 name bytes: fewer than 128, one length byte */
      p->f[i].skey[0] = 0x0a;
      p->f[i].skey[1] = (uint8_t)(n - 3);
      memcpy(p->f[i].skey + 2, o2 + 1, n - 3);
      p->f[i].nskey = (uint8_t)(n - 1);
    }
  }
  o = kf_varint_put(p->f[i].tag,
                    (uint64_t)fd->id << 3 | (k == W_INT ? 0u : 2u));
  p->f[i].ntag = (uint8_t)(o - p->f[i].tag);
  return &p->f[i];
}

/* A sub-message field of p, its plan made on first use. */
static wfield *plan_msg(wplan *p, const ProtobufCFieldDescriptor *fd, wwhen when) {
  wfield *w = plan_add(p, fd, W_MSG);
  if (w == NULL) return NULL;
  if (w->sub == NULL) {
    w->sub = plan_new((const ProtobufCMessageDescriptor *)fd->descriptor);
    w->when = when;
    if (w->sub == NULL) return NULL;
  } else if (w->when != when) {
    return NULL;
  }
  return w;
}

/* A group's rows into its replica spec (and CommonReplicaSpec), as
** replica_to_msg does.  `base`: the group's offset in the job. */
static int plan_group(wplan *spec, int kind, size_t base, int common) {
  const ProtobufCFieldDescriptor *cfd = field_named(spec->d, "common");
  const ProtobufCMessageDescriptor *cd =
      cfd ? (const ProtobufCMessageDescriptor *)cfd->descriptor : NULL;
  int elastic = (kf_kinds[kind].flags & KF_K_ELASTIC) != 0;
  wplan *cm = NULL;
  size_t i;
  if (common) {
    wfield *w = plan_msg(spec, cfd, P_ALWAYS);
    if (w == NULL) return 0;
    cm = (wplan *)w->sub;
  }
  for (i = 0; i < kf_group_obj.n; i++) {
    const kf_field *f = &kf_group_obj.f[i];
    const char *name = f->pbmsg ? f->pbmsg : f->pb;
    const ProtobufCFieldDescriptor *c = cm ? field_named(cd, name) : NULL;
    wplan *m = c ? cm : spec;
    const ProtobufCFieldDescriptor *d = c ? c : field_named(spec->d, name);
    wfield *w;
    if (name == NULL || d == NULL) continue;   /* not in this kind's proto */
    if (KF_V_ISSTR(f->type)) {
      if ((w = plan_add(m, d, W_STR)) == NULL) return 0;
      w->off = base + f->off;
    } else if (f->type == KF_V_INT || f->type == KF_V_ENUM || f->type == KF_V_NPROC) {
      if ((w = plan_add(m, d, W_INT)) == NULL) return 0;
      w->off = base + f->off;
    } else if (f->type == KF_V_OBJ) {
      wfield *r = plan_msg(m, d, elastic ? P_ANY : P_ALWAYS);
      const ProtobufCFieldDescriptor *list;
      if (r == NULL || !f->pbmsg) return 0;
      list = field_named(r->sub->d, f->pb);
      if ((w = plan_add((wplan *)r->sub, list, W_RES)) == NULL) return 0;
      w->off = base + f->off;
    } else if (f->type == KF_V_STRLIST) {
      if ((w = plan_add(m, d, W_STRLIST)) == NULL) return 0;
      w->off = base + f->off;
      w->off_n = base + f->off_n;
    }
    /* other rows do not travel in the replica spec */
  }
  return 1;
}

/* The job-level rows into p (v1 names), as put_rows does. */
static int plan_rows(wplan *p, const kf_field *f, size_t n, size_t base) {
  size_t i;
  for (i = 0; i < n; i++, f++) {
    wplan *t = p;
    wfield *w;
    if (f->pb == NULL) continue;
    if (f->pbmsg != NULL) {   /* built before the value is looked at */
      wfield *c = plan_msg(p, field_named(p->d, f->pbmsg), P_ALWAYS);
      if (c == NULL) return 0;
      t = (wplan *)c->sub;
    }
    switch (f->type) {
      /* an nproc word never gets here: R10 refuses it for the Flyte targets */
      case KF_V_INT: case KF_V_ENUM: case KF_V_NPROC:
        if ((w = plan_add(t, field_named(t->d, f->pb), W_INT)) == NULL) return 0;
        w->off = base + f->off;
        break;
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE:
        if ((w = plan_add(t, field_named(t->d, f->pb), W_STR)) == NULL) return 0;
        w->off = base + f->off;
        break;
      case KF_V_NNODES:
        if ((w = plan_add(t, field_named(t->d, f->pb), W_INT)) == NULL) return 0;
        w->off = offsetof(kf_job, min_nodes);
        if ((w = plan_add(t, field_named(t->d, "max_replicas"), W_INT)) == NULL) return 0;
        w->off = offsetof(kf_job, max_nodes);
        break;
      case KF_V_OBJ: {
        const kf_obj *o = (const kf_obj *)f->info;
        wfield *c = plan_msg(t, field_named(t->d, f->pb), f->off_n ? P_FLAG : P_ALWAYS);
        if (c == NULL) return 0;
        c->flag = base + f->off_n;
        if (!plan_rows((wplan *)c->sub, o->f, o->n, base + f->off)) return 0;
        break;
      }
      /* no writer for these: a kind with such a row in its v1 message gets
      ** no plan (the message path serves it) */
      case KF_V_SIZE: case KF_V_QTY: case KF_V_BOOL: case KF_V_STRLIST:
      case KF_V_TREE: case KF_V_GROUPS: case KF_V_DEPRECATED:
        return 0;
    }
  }
  return 1;
}

static wplan *plan_kind(int kind, int common) {
  const kf_kind_info *k = &kf_kinds[kind];
  wplan *top = plan_new(k->v1);
  int i;
  if (top == NULL) return NULL;
  for (i = 0; i < k->nroles; i++) {
    wfield *w = plan_msg(top, field_named(k->v1, k->roles[i].v1_field), P_ALWAYS);
    if (w == NULL || w->sub->d != k->v1_replica ||
        !plan_group((wplan *)w->sub, kind,
                    offsetof(kf_job, g) + (size_t)k->roles[i].role * sizeof(kf_group), common))
      return NULL;
  }
  if (!plan_rows(top, k->fields, k->nfields, 0)) return NULL;
  return top;
}

/* The quoted names of an enum's values 0, 1, ... as long as they run on
** (a gap or an unusual name ends them: json_enum then looks it up). */
static void enum_names(wfield *w, const ProtobufCEnumDescriptor *ed) {
  int v;
  w->enames = (int16_t)nenum_q;
  for (v = 0; nenum_q < W_MAX_ENAMES && v < 255; v++) {
    const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(ed, v);
    int n;
    if (ev == NULL || strpbrk(ev->name, "\"\\") != NULL) break;
    n = snprintf(enum_q[nenum_q], sizeof enum_q[0], "\"%s\"", ev->name);
    if (n <= 0 || (size_t)n >= sizeof enum_q[0]) break;
    enum_n[nenum_q++] = (uint8_t)n;
    w->nenames++;
  }
}

/* JSON keys ("name":) compared as the names, bytewise (strcmp). */
static int key_cmp(const wfield *a, const wfield *b) {
  size_t na = a->nkey > 3 ? a->nkey - 3u : 0, nb = b->nkey > 3 ? b->nkey - 3u : 0;
  int c = memcmp(a->key + 1, b->key + 1, na < nb ? na : nb);
  return c ? c : (na > nb) - (na < nb);
}

static void plans_init(void) {
  const ProtobufCMessageDescriptor *rd = &flyteidl__core__resources__resource_entry__descriptor;
  int k, c;
  size_t i;
  /* write_msg writes a ResourceEntry itself: name = 1 (enum), value = 2 */
  if (rd->n_fields != 2 || rd->fields[0].id != 1 || rd->fields[0].type != PROTOBUF_C_TYPE_ENUM ||
      rd->fields[1].id != 2 || rd->fields[1].type != PROTOBUF_C_TYPE_STRING)
    return;
  for (i = 0; i < KF_NRES; i++) {
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(
        &flyteidl__core__resources__resource_name__descriptor, kf_resources_obj.f[i].pb);
    res_number[i] = v ? v->value : -1;
  }
  for (k = 0; k < KF_NKINDS; k++)
    for (c = 0; c < 2; c++) tops[k][c] = plan_kind(k, c);
  json_ok = 1;
  for (k = 0; k < npool; k++) {   /* the Struct order: by key, bytewise */
    wplan *p = &pool[k];
    for (c = 0; c < p->n; c++) {
      int j2 = c;
      while (j2 > 0 && key_cmp(&p->f[p->bykey[j2 - 1]], &p->f[c]) > 0)
        p->bykey[j2] = p->bykey[j2 - 1], j2--;
      p->bykey[j2] = (uint8_t)c;
    }
  }
  for (k = 0; k < KF_NKINDS; k++)   /* (a kind without a plan may leave half a plan) */
    for (c = 0; c < 2; c++)
      if (tops[k][c] != NULL) tops[k][c]->fixed = st_fixed(tops[k][c], tops[k][c]);
  for (k = 0; k < npool; k++)
    for (c = 0; c < pool[k].n; c++) {
      wfield *w = &pool[k].f[c];
      json_ok &= w->nkey > 0;
      w->enames = -1;
      if (w->k == W_INT && w->fd->type == PROTOBUF_C_TYPE_ENUM)
        enum_names(w, (const ProtobufCEnumDescriptor *)w->fd->descriptor);
    }
  for (i = 0; i < KF_NRES; i++) {
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
        &flyteidl__core__resources__resource_name__descriptor, res_number[i]);
    int n;
    if (res_number[i] == 0 || v == NULL) {   /* no name, or a number */
      json_ok = 0;
      continue;
    }
    res_name[i] = v->name;
    n = snprintf(res_q[i][0], sizeof res_q[i][0], "{\"name\":\"%s\",\"value\":", v->name);
    res_n[i][0] = (uint8_t)(n > 0 && (size_t)n < sizeof res_q[i][0] ? n : 0);
    n = snprintf(res_q[i][1], sizeof res_q[i][1], "{\"name\":\"%s\"}", v->name);
    res_n[i][1] = (uint8_t)(n > 0 && (size_t)n < sizeof res_q[i][1] ? n : 0);
    json_ok &= res_n[i][0] && res_n[i][1];
  }
}

/* ---- writing ------------------------------------------------------------ */

#define AT(base, off, T) (*(T const *)(const void *)((const char *)(base) + (off)))

static int msg_when(const wfield *w, const char *job);

/* (inline: most sub-messages are always there) */
static inline int msg_here(const wfield *w, const char *job) {
  return w->when == P_ALWAYS || msg_when(w, job);
}

/* Whether plan p writes nothing for the job. */
static int plan_empty(const wplan *p, const char *job) {
  int i;
  size_t k;
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    switch (w->k) {
      case W_INT: if (AT(job, w->off, int32_t) != 0) return 0; break;
      case W_STR: {
        const char *s = AT(job, w->off, char *);
        if (s != NULL && *s) return 0;
        break;
      }
      case W_STRLIST: if (AT(job, w->off_n, size_t) != 0) return 0; break;
      case W_RES:
        for (k = 0; k < KF_NRES; k++)
          if (((const char *const *)(const void *)(job + w->off))[k] != NULL) return 0;
        break;
      case W_MSG: if (msg_here(w, job)) return 0; break;
    }
  }
  return 1;
}

/* Whether sub-message field w is there: always, by its flag, or (an
** elastic group's resources) when it has something. */
static int msg_when(const wfield *w, const char *job) {
  switch (w->when) {
    case P_ALWAYS: return 1;
    case P_FLAG: return AT(job, w->flag, int) != 0;
    case P_ANY: return !plan_empty(w->sub, job);
  }
  return 1;
}

static uint8_t *put_tag(uint8_t *o, const wfield *w) {
  *o++ = w->tag[0];   /* one or two bytes here: no memcpy call */
  if (w->ntag > 1) {
    int i;
    for (i = 1; i < w->ntag; i++) *o++ = w->tag[i];
  }
  return o;
}

/* The length of the bytes from body to o, put in front of them. */
static uint8_t *put_len_slow(uint8_t *lenat, uint8_t *o) {
  size_t n = (size_t)(o - lenat - 1), extra = kf_varint_size(n) - 1;
  memmove(lenat + 1 + extra, lenat + 1, n);
  kf_varint_put(lenat, n);
  return o + extra;
}

static inline uint8_t *put_len(uint8_t *lenat, uint8_t *o) {
  size_t n = (size_t)(o - lenat - 1);
  if (n < 0x80) {   /* one byte: the room kept for it */
    *lenat = (uint8_t)n;
    return o;
  }
  return put_len_slow(lenat, o);
}

static uint8_t *put_str(uint8_t *o, const wfield *w, const char *s) {
  size_t n = strlen(s);
  o = kf_varint_put(put_tag(o, w), n);
  memcpy(o, s, n);
  return o + n;
}

static uint8_t *write_msg(const wplan *p, const char *job, uint8_t *o) {
  int i;
  size_t k;
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    /* tests, not a switch: a chain of branches, each taken the same way
    ** for the same field every time, predicts better than one jump */
    if (w->k == W_INT) {
      int32_t v = AT(job, w->off, int32_t);
      if (v != 0) o = kf_varint_put(put_tag(o, w), (uint64_t)(int64_t)v);
      continue;
    }
    if (w->k == W_STR) {
      const char *s = AT(job, w->off, char *);
      if (s != NULL && *s) o = put_str(o, w, s);
      continue;
    }
    if (w->k == W_MSG) {
      uint8_t *lenat;
      if (!msg_here(w, job)) continue;
      o = put_tag(o, w);
      lenat = o++;
      o = write_msg(w->sub, job, o);
      o = put_len(lenat, o);
      continue;
    }
    switch (w->k) {
      case W_INT: case W_STR: case W_MSG: break;
      case W_STRLIST: {
        size_t n = AT(job, w->off_n, size_t);
        const char *const *v = (const char *const *)AT(job, w->off, char **);
        for (k = 0; k < n; k++) o = put_str(o, w, v[k]);
        break;
      }
      case W_RES: {
        const char *const *q = (const char *const *)(const void *)(job + w->off);
        for (k = 0; k < KF_NRES; k++) {
          uint8_t *lenat;
          size_t n;
          if (q[k] == NULL) continue;
          o = put_tag(o, w);
          lenat = o++;
          if (res_number[k] != 0) {   /* ResourceEntry: name = 1, value = 2 */
            *o++ = 0x08;
            o = kf_varint_put(o, (uint64_t)(int64_t)res_number[k]);
          }
          if ((n = strlen(q[k])) > 0) {
            *o++ = 0x12;
            o = kf_varint_put(o, n);
            memcpy(o, q[k], n);
            o += n;
          }
          o = put_len(lenat, o);
        }
        break;
      }
    }
  }
  return o;
}

/* ---- JSON --------------------------------------------------------------- */


/* JSON is written at a pointer: each field first makes room for the most
** it can take (a string: kf_json_quote_room), so the writes between need
** no checks.  NULL when the buffer could not grow (out->oom is set). */
static char *room(kf_buf *b, char *o, size_t n) {
  b->n = (size_t)(o - b->p);
  if (n > KF_JSON_QUOTE_MAXLEN || !kf_buf_reserve(b, n)) {
    b->oom = 1;
    return NULL;
  }
  return b->p + b->n;
}

/* v in decimal at o (at most 11 bytes). */
static char *put_int(char *o, int32_t v) {
  char t[12];
  int n = 12;
  uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  do t[--n] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) *o++ = '-';
  memcpy(o, t + n, (size_t)(12 - n));
  return o + 12 - n;
}

/* An enum value json_msg has no quoted name for (enum_names stopped
** before it): its descriptor's name, or the number when it has none. */
static char *json_enum(kf_buf *b, char *o, const ProtobufCFieldDescriptor *fd, int32_t v) {
  const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(
      (const ProtobufCEnumDescriptor *)fd->descriptor, v);
  char t[32];
  const char *s = t;
  size_t n;
  if (ev != NULL) s = ev->name;   /* enum names are identifiers: nothing to escape */
  else kf_format_int(v, t);       /* unknown numbers stay numbers */
  n = strlen(s);
  if ((o = room(b, o, n + 2)) == NULL) return NULL;
  if (ev != NULL) *o++ = '"';
  memcpy(o, s, n);
  o += n;
  if (ev != NULL) *o++ = '"';
  return o;
}

/* The fields of plan p, compact, as kf_msg_to_json writes them, between {
** and }. */
static char *json_msg(const wplan *p, const char *job, kf_buf *b, char *o) {
  int i, first = 1;
  size_t k, n;
#define KEY(extra)                                                          \
  do {                                                                      \
    if ((o = room(b, o, 1 + sizeof w->key + (extra))) == NULL) return NULL; \
    *o = ',';                                                               \
    o += !first;                                                            \
    memcpy(o, w->key, sizeof w->key);   /* whole: a fixed-size copy */      \
    o += w->nkey;                                                           \
    first = 0;                                                              \
  } while (0)
  if ((o = room(b, o, 1)) == NULL) return NULL;
  *o++ = '{';
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    switch (w->k) {
      case W_INT: {
        int32_t v = AT(job, w->off, int32_t);
        if (v == 0) break;
        KEY(sizeof enum_q[0]);
        if (w->enames >= 0 && v > 0 && v < w->nenames) {
          memcpy(o, enum_q[w->enames + v], enum_n[w->enames + v]);
          o += enum_n[w->enames + v];
        } else if (w->fd->type == PROTOBUF_C_TYPE_ENUM) {
          if ((o = json_enum(b, o, w->fd, v)) == NULL) return NULL;
        } else {
          o = put_int(o, v);
        }
        break;
      }
      case W_STR: {
        const char *s = AT(job, w->off, char *);
        if (s == NULL || !*s) break;
        n = strlen(s);
        KEY(kf_json_quote_room(s, n));
        o = kf_json_quote_to(o, s, n);
        break;
      }
      case W_STRLIST: {
        size_t cnt = AT(job, w->off_n, size_t);
        const char *const *v = (const char *const *)AT(job, w->off, char **);
        if (cnt == 0) break;
        KEY(0);
        for (k = 0; k < cnt; k++) {
          n = strlen(v[k]);
          if ((o = room(b, o, kf_json_quote_room(v[k], n) + 2)) == NULL) return NULL;
          *o++ = k ? ',' : '[';
          o = kf_json_quote_to(o, v[k], n);
        }
        *o++ = ']';
        break;
      }
      case W_RES: {   /* json_ok: every resource has a name (number > 0) */
        const char *const *q = (const char *const *)(const void *)(job + w->off);
        int any = 0;
        for (k = 0; k < KF_NRES; k++) {
          if (q[k] == NULL) continue;
          n = strlen(q[k]);
          if (!any) KEY(0);
          if ((o = room(b, o, sizeof res_q[0][0] + kf_json_quote_room(q[k], n) + 3)) == NULL)
            return NULL;
          *o++ = any ? ',' : '[';
          any = 1;
          if (n) {
            memcpy(o, res_q[k][0], res_n[k][0]);
            o = kf_json_quote_to(o + res_n[k][0], q[k], n);
            *o++ = '}';
          } else {
            memcpy(o, res_q[k][1], res_n[k][1]);
            o += res_n[k][1];
          }
        }
        if (any) *o++ = ']';   /* the room of the last entry's '}' and one more */
        break;
      }
      case W_MSG:
        if (!msg_here(w, job)) break;
        KEY(0);
        if ((o = json_msg(w->sub, job, b, o)) == NULL) return NULL;
        break;
    }
  }
#undef KEY
  if ((o = room(b, o, 1)) == NULL) return NULL;
  *o++ = '}';
  return o;
}

int kf_wire_job_json(const kf_job *j, int common, kf_buf *out) {
  const wplan *p;
  char *o;
  pthread_once(&plans_once, plans_init);
  p = tops[j->kind][common ? 1 : 0];
  if (p == NULL || !json_ok) return 0;
  if (!kf_buf_reserve(out, 1)) {   /* out->p + out->n: never on NULL */
    out->oom = 1;
    return 1;
  }
  if ((o = json_msg(p, (const char *)j, out, out->p + out->n)) != NULL)
    out->n = (size_t)(o - out->p);
  return 1;
}

/* ---- the TaskTemplate's custom Struct ----------------------------------- */

/* What flytekit puts in custom (MessageToDict of the message, parsed into a
** google.protobuf.Struct, serialized deterministically): per object the
** present fields by key, each a map entry (key = 1, value = 2) holding a
** Value - numbers as number_value (2, a double), strings and enum names as
** string_value (3), messages as struct_value (5), lists as list_value (6,
** Values in values = 1). */

static uint8_t *st_str(uint8_t *o, uint8_t tag, const char *s, size_t n) {
  *o++ = tag;
  o = kf_varint_put(o, n);
  memcpy(o, s, n);
  return o + n;
}

static uint8_t *st_num(uint8_t *o, double d) {
  uint64_t u;
  int i;
  memcpy(&u, &d, 8);
  *o++ = 0x11;
  for (i = 0; i < 8; i++) *o++ = (uint8_t)(u >> (8 * i));   /* little-endian */
  return o;
}

static uint8_t *st_enum(uint8_t *o, const wfield *w, int32_t v) {
  const ProtobufCEnumValue *ev;
  if (w->enames >= 0 && v > 0 && v < w->nenames)   /* the quoted name, unquoted */
    return st_str(o, 0x1a, enum_q[w->enames + v] + 1, (size_t)enum_n[w->enames + v] - 2);
  ev = protobuf_c_enum_descriptor_get_value(
      (const ProtobufCEnumDescriptor *)w->fd->descriptor, v);
  if (ev == NULL) return st_num(o, (double)v);   /* unknown numbers stay numbers */
  return st_str(o, 0x1a, ev->name, strlen(ev->name));
}

static uint8_t *st_obj(const wplan *p, const char *job, uint8_t *o);

/* One present field's map entry: key, then the Value. */
static uint8_t *st_entry(const wfield *w, const char *job, uint8_t *o) {
  uint8_t *elen, *vlen, *llen;
  size_t k;
  *o++ = 0x0a;
  elen = o++;
  memcpy(o, w->skey, sizeof w->skey);   /* whole: a fixed-size copy */
  o += w->nskey;
  *o++ = 0x12;
  vlen = o++;
  switch (w->k) {
    case W_INT: {
      int32_t v = AT(job, w->off, int32_t);
      o = w->fd->type == PROTOBUF_C_TYPE_ENUM ? st_enum(o, w, v) : st_num(o, (double)v);
      break;
    }
    case W_STR: {
      const char *s = AT(job, w->off, char *);
      o = st_str(o, 0x1a, s, strlen(s));
      break;
    }
    case W_STRLIST: {
      size_t n = AT(job, w->off_n, size_t);
      const char *const *v = (const char *const *)AT(job, w->off, char **);
      *o++ = 0x32;
      llen = o++;
      for (k = 0; k < n; k++) {
        uint8_t *ilen;
        *o++ = 0x0a;
        ilen = o++;
        o = st_str(o, 0x1a, v[k], strlen(v[k]));
        o = put_len(ilen, o);
      }
      o = put_len(llen, o);
      break;
    }
    case W_RES: {   /* json_ok: every resource has a name */
      const char *const *q = (const char *const *)(const void *)(job + w->off);
      *o++ = 0x32;
      llen = o++;
      for (k = 0; k < KF_NRES; k++) {
        uint8_t *ilen, *slen, *e2, *v2;
        if (q[k] == NULL) continue;
        *o++ = 0x0a;                /* a Value of the list */
        ilen = o++;
        *o++ = 0x2a;                /* struct_value */
        slen = o++;
        *o++ = 0x0a;                /* "name": the enum's name */
        e2 = o++;
        o = st_str(o, 0x0a, "name", 4);
        *o++ = 0x12;
        v2 = o++;
        o = st_str(o, 0x1a, res_name[k], strlen(res_name[k]));
        o = put_len(v2, o);
        o = put_len(e2, o);
        if (*q[k]) {                /* "value": the quantity */
          *o++ = 0x0a;
          e2 = o++;
          o = st_str(o, 0x0a, "value", 5);
          *o++ = 0x12;
          v2 = o++;
          o = st_str(o, 0x1a, q[k], strlen(q[k]));
          o = put_len(v2, o);
          o = put_len(e2, o);
        }
        o = put_len(slen, o);
        o = put_len(ilen, o);
      }
      o = put_len(llen, o);
      break;
    }
    case W_MSG:
      *o++ = 0x2a;
      llen = o++;
      o = st_obj(w->sub, job, o);
      o = put_len(llen, o);
      break;
  }
  o = put_len(vlen, o);
  return put_len(elen, o);
}

/* Whether field w is in the dict (what the JSON writer writes). */
static int present(const wfield *w, const char *job) {
  size_t k;
  switch (w->k) {
    case W_INT: return AT(job, w->off, int32_t) != 0;
    case W_STR: {
      const char *s = AT(job, w->off, char *);
      return s != NULL && *s;
    }
    case W_STRLIST: return AT(job, w->off_n, size_t) != 0;
    case W_RES:
      for (k = 0; k < KF_NRES; k++)
        if (((const char *const *)(const void *)(job + w->off))[k] != NULL) return 1;
      return 0;
    case W_MSG: return msg_here(w, job);
  }
  return 0;
}

static uint8_t *st_obj(const wplan *p, const char *job, uint8_t *o) {
  int i;
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[p->bykey[i]];
    if (present(w, job)) o = st_entry(w, job, o);
  }
  return o;
}

/* Room the Struct of plan p can take without its strings: every field as
** if present, lengths at their widest.  The fields holding strings are
** listed in `top` for st_room; 0 when they do not fit its list. */
static size_t st_fixed(const wplan *p, wplan *top) {
  size_t b = 0, sub;
  int i;
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    b += 24 + sizeof w->skey;
    if (w->k == W_STR || w->k == W_STRLIST || w->k == W_RES) {
      if (top->nstrs == W_MAX_STRS) return 0;
      top->strs[top->nstrs++] = w;
    }
    switch (w->k) {
      case W_INT: b += 64; break;
      case W_RES: b += 160 * KF_NRES; break;
      case W_STR: case W_STRLIST: break;
      case W_MSG:
        if ((sub = st_fixed(w->sub, top)) == 0) return 0;
        b += sub;
        break;
    }
  }
  return b;
}

/* Room for the Struct of top plan p: its fixed part and each of its
** strings (a list item's with its framing). */
static size_t st_room(const wplan *p, const char *job) {
  size_t b = p->fixed, k;
  int i;
  for (i = 0; i < p->nstrs; i++) {
    const wfield *w = p->strs[i];
    if (w->k == W_STR) {
      const char *s = AT(job, w->off, char *);
      if (s != NULL) b += strlen(s);
    } else if (w->k == W_STRLIST) {
      size_t n = AT(job, w->off_n, size_t);
      const char *const *v = (const char *const *)AT(job, w->off, char **);
      for (k = 0; k < n; k++) b += 24 + strlen(v[k]);
    } else {   /* W_RES */
      const char *const *q = (const char *const *)(const void *)(job + w->off);
      for (k = 0; k < KF_NRES; k++)
        if (q[k] != NULL) b += strlen(q[k]);
    }
  }
  return b;
}

int kf_wire_job_struct(const kf_job *j, int common, unsigned field, kf_buf *out) {
  const wplan *p;
  uint64_t key = (uint64_t)field << 3 | 2u;
  uint8_t *o, *lenat;
  pthread_once(&plans_once, plans_init);
  p = tops[j->kind][common ? 1 : 0];
  if (p == NULL || !json_ok || p->fixed == 0) return 0;
  if (out == NULL) return 1;   /* only asked whether there is a plan */
  if (!kf_buf_reserve(out, 16 + st_room(p, (const char *)j))) return -1;
  o = kf_varint_put((uint8_t *)out->p + out->n, key);
  lenat = o++;
  o = st_obj(p, (const char *)j, o);
  o = put_len(lenat, o);
  out->n = (size_t)((char *)o - out->p);
  return 1;
}

int kf_wire_job(const kf_job *j, int common, kf_buf *out) {
  const wplan *p;
  pthread_once(&plans_once, plans_init);
  p = tops[j->kind][common ? 1 : 0];
  if (p == NULL) return 0;
  out->n = (size_t)(write_msg(p, (const char *)j, (uint8_t *)out->p + out->n) -
                    (uint8_t *)out->p);
  return 1;
}

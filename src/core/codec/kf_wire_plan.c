/*
** kf_wire_plan.c - the plans kf_wire_job.c writes a v1 job by (see
** kf_wire_plan.h): for each kind and replica encoding, every message
** kf_job_to_msg would build, its fields in the descriptor's order (the
** order protobuf_c_message_pack writes), each with its tag bytes and where
** its value lives in the job, plus the JSON keys and names the other
** writers need.  The rules of kf_job_to_msg are kept: which messages exist
** even when empty, which are left out.  A kind whose rows or descriptors
** the plan does not know gets no plan, and its callers build the message.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_wire_plan.h"
#include "flyteidl/core/tasks.pb-c.h"

static size_t st_fixed(const wplan *p, wplan *top);

/* The plans: [kind][common] top messages, and a pool of sub-messages. */
static wplan *tops[KF_NKINDS][2], *tops0[KF_NKINDS];
static wplan pool[W_MAX_PLANS];
static int npool;
static int nenum_q;
static pthread_once_t plans_once = PTHREAD_ONCE_INIT;
wtables kf_wtables;

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
      uint8_t *sk = p->f[i].skey + sizeof p->f[i].skey - (n - 1);
      sk[0] = 0x0a;
      sk[1] = (uint8_t)(n - 3);
      memcpy(sk + 2, o2 + 1, n - 3);
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
      w->row = f;
    } else if (f->type == KF_V_INT || f->type == KF_V_ENUM || f->type == KF_V_NPROC) {
      if ((w = plan_add(m, d, W_INT)) == NULL) return 0;
      w->off = base + f->off;
      w->row = f;
    } else if (f->type == KF_V_OBJ) {
      wfield *r = plan_msg(m, d, elastic ? P_ANY : P_ALWAYS);
      const ProtobufCFieldDescriptor *list;
      if (r == NULL || !f->pbmsg) return 0;
      list = field_named(r->sub->d, f->pb);
      if ((w = plan_add((wplan *)r->sub, list, W_RES)) == NULL) return 0;
      w->off = base + f->off;
      w->row = f;
    } else if (f->type == KF_V_STRLIST) {
      if ((w = plan_add(m, d, W_STRLIST)) == NULL) return 0;
      w->off = base + f->off;
      w->row = f;
      w->off_n = base + f->off_n;
    }
    /* other rows do not travel in the replica spec */
  }
  return 1;
}

/* The job-level rows into p (the names of `version`; a sub-message's rows
** always v1's), as put_rows does. */
static int plan_rows(wplan *p, const kf_field *f, size_t n, size_t base, int version) {
  size_t i;
  for (i = 0; i < n; i++, f++) {
    const char *name = version ? f->pb : f->pb0;
    wplan *t = p;
    wfield *w;
    if (name == NULL) continue;
    if (f->pbmsg != NULL) {   /* built before the value is looked at */
      wfield *c = plan_msg(p, field_named(p->d, f->pbmsg), P_ALWAYS);
      if (c == NULL) return 0;
      t = (wplan *)c->sub;
    }
    switch (f->type) {
      /* an nproc word never gets here: R10 refuses it for the Flyte targets */
      case KF_V_INT: case KF_V_ENUM: case KF_V_NPROC:
        if ((w = plan_add(t, field_named(t->d, name), W_INT)) == NULL) return 0;
        w->off = base + f->off;
        w->row = f;
        break;
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE:
        if ((w = plan_add(t, field_named(t->d, name), W_STR)) == NULL) return 0;
        w->off = base + f->off;
        w->row = f;
        break;
      case KF_V_NNODES:
        if ((w = plan_add(t, field_named(t->d, name), W_INT)) == NULL) return 0;
        w->off = offsetof(kf_job, min_nodes);
        w->row = f;
        if ((w = plan_add(t, field_named(t->d, "max_replicas"), W_INT)) == NULL) return 0;
        w->off = offsetof(kf_job, max_nodes);
        w->row = f;
        break;
      case KF_V_OBJ: {
        const kf_obj *o = (const kf_obj *)f->info;
        wfield *c = plan_msg(t, field_named(t->d, name), f->off_n ? P_FLAG : P_ALWAYS);
        if (c == NULL) return 0;
        c->flag = base + f->off_n;
        c->row = f;
        if (!plan_rows((wplan *)c->sub, o->f, o->n, base + f->off, 1)) return 0;
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
  if (!plan_rows(top, k->fields, k->nfields, 0, 1)) return NULL;
  return top;
}

/* A kind's v0 message, as kf_job_from_msg reads it: each role's count
** field, then the rows with a v0 name.  Only kf_wire_read.c reads it. */
static wplan *plan_kind0(int kind) {
  const kf_kind_info *k = &kf_kinds[kind];
  wplan *top = plan_new(k->v0);
  int i;
  if (top == NULL) return NULL;
  for (i = 0; i < k->nroles; i++) {
    wfield *w;
    if (k->roles[i].v0_field == NULL) continue;
    w = plan_add(top, field_named(k->v0, k->roles[i].v0_field), W_INT);
    if (w == NULL) return NULL;
    w->off = offsetof(kf_job, g) + (size_t)k->roles[i].role * sizeof(kf_group) +
             offsetof(kf_group, replicas);
  }
  if (!plan_rows(top, k->fields, k->nfields, 0, 0)) return NULL;
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
    n = snprintf(kf_wtables.enum_q[nenum_q], sizeof kf_wtables.enum_q[0], "\"%s\"", ev->name);
    if (n <= 0 || (size_t)n >= sizeof kf_wtables.enum_q[0]) break;
    kf_wtables.enum_n[nenum_q++] = (uint8_t)n;
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
    kf_wtables.res_number[i] = v ? v->value : -1;
  }
  for (k = 0; k < KF_NKINDS; k++)
    for (c = 0; c < 2; c++) tops[k][c] = plan_kind(k, c);
  for (k = 0; k < KF_NKINDS; k++) tops0[k] = plan_kind0(k);
  kf_wtables.json_ok = 1;
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
      kf_wtables.json_ok &= w->nkey > 0;
      w->enames = -1;
      if (w->k == W_INT && w->fd->type == PROTOBUF_C_TYPE_ENUM)
        enum_names(w, (const ProtobufCEnumDescriptor *)w->fd->descriptor);
    }
  for (i = 0; i < KF_NRES; i++) {
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
        &flyteidl__core__resources__resource_name__descriptor, kf_wtables.res_number[i]);
    int n;
    if (kf_wtables.res_number[i] == 0 || v == NULL) {   /* no name, or a number */
      kf_wtables.json_ok = 0;
      continue;
    }
    kf_wtables.res_name[i] = v->name;
    n = snprintf(kf_wtables.res_q[i][0], sizeof kf_wtables.res_q[i][0], "{\"name\":\"%s\",\"value\":", v->name);
    kf_wtables.res_n[i][0] = (uint8_t)(n > 0 && (size_t)n < sizeof kf_wtables.res_q[i][0] ? n : 0);
    n = snprintf(kf_wtables.res_q[i][1], sizeof kf_wtables.res_q[i][1], "{\"name\":\"%s\"}", v->name);
    kf_wtables.res_n[i][1] = (uint8_t)(n > 0 && (size_t)n < sizeof kf_wtables.res_q[i][1] ? n : 0);
    kf_wtables.json_ok &= kf_wtables.res_n[i][0] && kf_wtables.res_n[i][1];
  }
}

const wplan *kf_wplan(int kind, int common) {
  pthread_once(&plans_once, plans_init);
  return tops[kind][common ? 1 : 0];
}

const wplan *kf_wplan_v0(int kind) {
  pthread_once(&plans_once, plans_init);
  return tops0[kind];
}

/* ---- what writing needs of the plans ------------------------------------- */

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

int kf_wplan_when(const wfield *w, const char *job) {
  switch (w->when) {
    case P_ALWAYS: return 1;
    case P_FLAG: return AT(job, w->flag, int) != 0;
    case P_ANY: return !plan_empty(w->sub, job);
  }
  return 1;
}

uint8_t *kf_wplan_put_len_slow(uint8_t *lenat, uint8_t *o) {
  size_t n = (size_t)(o - lenat - 1), extra = kf_varint_size(n) - 1;
  memmove(lenat + 1 + extra, lenat + 1, n);
  kf_varint_put(lenat, n);
  return o + extra;
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

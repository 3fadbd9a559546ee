/*
** kf_wire_read.c - a plugin message's bytes read straight into a kf_job,
** driven by the plans the encoder writes by (kf_wire_plan.h): the inverse
** of kf_wire_job.c, without protobuf-c's unpack into a message and the
** walk of the message after it (decode's cost was mostly those two).
**
** It is a fast path only.  It takes the messages it fully understands -
** every field known to the kind's plan, each with its wire type, each
** scalar and sub-message once, values in range, strings valid - and
** builds exactly the job kf_job_from_msg builds of them.  Anything else,
** including every input that is an error, makes it give up (0) and the
** caller runs the message path, so every error message and every edge case
** (merged sub-messages, repeated scalars, unknown fields) stays that path's.
** The fuzzer of kf_decode runs both paths on each input and compares.
*/
#include <pthread.h>
#include <string.h>

#include "kf_wire_plan.h"

typedef struct rd {
  kf_arena *A;
  char *job;
} rd;

/* Varints of at most 5 bytes: protobuf-c reads tags and lengths no longer
** (a longer one is its error) and a non-negative int32 fits in them, so a
** longer varint goes to the message path whatever it holds. */
static int get_v5(const uint8_t **p, const uint8_t *end, uint32_t *v) {
  const uint8_t *q = *p;
  uint64_t x;
  if (q < end && *q < 0x80) {   /* most tags, lengths and values: one byte */
    *v = *q;
    *p = q + 1;
    return 1;
  }
  if (!kf_varint_get(&q, end, &x) || q - *p > 5 || x > 0xFFFFFFFFu) return 0;
  *p = q;
  *v = (uint32_t)x;
  return 1;
}

static const wfield *field_of(const wplan *p, uint32_t id, int *idx) {
  int i;
  for (i = 0; i < p->n; i++)
    if (p->f[i].id == id) return (*idx = i, &p->f[i]);
  return NULL;
}

/* A string the wire check passes: at most 1 MiB, UTF-8 without NUL bytes
** (the message path names the field of any other). */
static const char *take_str(rd *r, const uint8_t *p, uint32_t n) {
  uint32_t i;
  if (n > KF_MAX_STRING) return NULL;
  for (i = 0; i < n && (unsigned)(p[i] - 1) < 0x7Fu; i++) {}   /* ASCII, no NUL */
  if (i < n && (memchr(p + i, 0, n - i) != NULL || !kf_utf8_ok((const char *)p + i, n - i)))
    return NULL;
  return kf_arena_strndup(r->A, (const char *)p, n);
}

/* Whether row f is one of a group's (dec_group reads those: an empty
** string is unset, an image is a token) rather than the job's. */
static int group_row(const kf_field *f) {
  return f == NULL || (f >= kf_group_obj.f && f < kf_group_obj.f + kf_group_obj.n);
}

/* A string field: a group's as dec_group takes it, a job row's as
** get_rows does (a choice must be one of its values). */
static int put_str(rd *r, const wfield *w, const uint8_t *p, uint32_t n) {
  const char *s, **at = (const char **)(void *)(r->job + w->off);
  char buf[64];
  if (n == 0 && group_row(w->row)) return 1;   /* proto3: unset, the default stays */
  if ((s = take_str(r, p, n)) == NULL) return 0;
  if (group_row(w->row)) {
    if (w->row && w->row->type == KF_V_TOKEN && kf_token_problem(s, n, buf, sizeof buf))
      return 0;
  } else if (w->row->type == KF_V_CHOICE) {
    const kf_choice *ch = (const kf_choice *)w->row->info;
    int k;
    for (k = 0; ch->v[k] && strcmp(ch->v[k], s) != 0; k++) {}
    if (ch->v[k] == NULL) return 0;
  }
  *at = s;
  return 1;
}

/* One more item of a repeated string, in wire order; the array doubles
** from 4 (command lines are short). */
static int put_item(rd *r, const wfield *w, const uint8_t *p, uint32_t n) {
  size_t *cnt = (size_t *)(void *)(r->job + w->off_n);
  const char ***v = (const char ***)(void *)(r->job + w->off);
  const char *s = take_str(r, p, n);
  if (s == NULL || *cnt >= KF_MAX_ITEMS) return 0;
  if (*cnt == 0 || (*cnt >= 4 && (*cnt & (*cnt - 1)) == 0)) {
    size_t cap = *cnt ? *cnt * 2 : 4;
    const char **nv = kf_arena_alloc_raw(r->A, cap * sizeof *nv);
    if (nv == NULL) return 0;
    if (*cnt) memcpy(nv, *v, *cnt * sizeof *nv);
    *v = nv;
  }
  (*v)[(*cnt)++] = s;
  return 1;
}

/* A ResourceEntry (name = 1, value = 2) into the quantities at w->off:
** a supported resource, once in its list, with a valid quantity. */
static int put_entry(rd *r, const wfield *w, const uint8_t *p, const uint8_t *end) {
  const char **q = (const char **)(void *)(r->job + w->off), *val = "";
  uint32_t key, name = 0, n;
  unsigned seen = 0;
  int k;
  while (p < end) {
    if (!get_v5(&p, end, &key)) return 0;
    if (key == 0x08 && !(seen & 1u)) {
      if (!get_v5(&p, end, &name) || name > 0x7FFFFFFFu) return 0;
      seen |= 1u;
    } else if (key == 0x12 && !(seen & 2u)) {
      if (!get_v5(&p, end, &n) || n > (size_t)(end - p) || (val = take_str(r, p, n)) == NULL)
        return 0;
      p += n;
      seen |= 2u;
    } else {
      return 0;
    }
  }
  for (k = 0; k < KF_NRES && kf_wtables.res_number[k] != (int)name; k++) {}
  if (k == KF_NRES || q[k] != NULL || !kf_quantity_ok(val, strlen(val))) return 0;
  q[k] = val;
  return 1;
}

static int read_msg(rd *r, const wplan *p, const wplan *alt, const uint8_t *q,
                    const uint8_t *end, uint32_t *seen_out);

/* What every message kf_job_from_msg reads sets once it is there: its
** int fields (0 when absent: proto3), a job row's string ("" when absent,
** as protobuf-c's default), the flag of an optional object. */
static void enter(rd *r, const wplan *p) {
  int i;
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    if (w->k == W_INT) *(int32_t *)(void *)(r->job + w->off) = 0;
    else if (w->k == W_STR && !group_row(w->row))
      *(const char **)(void *)(r->job + w->off) = "";
  }
}

/* The sub-message of field w: a's field of the same number in the plan
** with CommonReplicaSpec, when it differs (a replica spec's). */
static const wplan *alt_sub(const wplan *a, const wfield *w) {
  int i;
  const wfield *x = a ? field_of(a, w->id, &i) : NULL;
  return x && x->k == W_MSG && x->sub != w->sub ? x->sub : NULL;
}

/* A length-delimited field w of the bytes p .. p + n; `alt`: the
** message's plan with CommonReplicaSpec (NULL: none, or w is alt's). */
static int read_len(rd *r, const wfield *w, const wplan *alt, const uint8_t *p,
                    uint32_t n) {
  switch (w->k) {
    case W_STR: return put_str(r, w, p, n);
    case W_STRLIST: return put_item(r, w, p, n);
    case W_RES: return put_entry(r, w, p, p + n);
    case W_MSG:
      if (w->when == P_FLAG) *(int *)(void *)(r->job + w->flag) = 1;
      return read_msg(r, w->sub, alt_sub(alt, w), p, p + n, NULL);
    case W_INT: break;
  }
  return 0;
}

/* An int field's value: in range for an enum (get_rows' and dec_group's
** error otherwise); negative numbers (ten bytes) never get here. */
static int read_int(rd *r, const wfield *w, uint32_t v) {
  if (v > 0x7FFFFFFFu) return 0;
  if (w->row && w->row->type == KF_V_ENUM &&
      v >= (uint32_t)((const kf_enum *)w->row->info)->npb)
    return 0;
  *(int32_t *)(void *)(r->job + w->off) = (int32_t)v;
  return 1;
}

/* Whether a replica spec both holds CommonReplicaSpec (a field of alt's
** only) and a field common would carry: dec_group reads common's alone. */
static int shadowed(const wplan *p, const wplan *alt, uint32_t seen) {
  int i, dummy, common = 0, flat = 0;
  for (i = 0; i < alt->n; i++)
    common |= (seen >> (16 + i) & 1u) && alt->f[i].k == W_MSG;
  for (i = 0; i < p->n; i++)
    flat |= (seen >> i & 1u) && field_of(alt, p->f[i].id, &dummy) == NULL;
  return common && flat;
}

/* The message of plan p in q .. end.  `alt`: the same message's plan with
** CommonReplicaSpec; a replica spec's fields that p (the flat spec) lacks
** are looked up there.  Every field at most once, but a repeated one;
** bits of the fields seen go to *seen_out (p's from 0, alt's from 16). */
static int read_msg(rd *r, const wplan *p, const wplan *alt, const uint8_t *q,
                    const uint8_t *end, uint32_t *seen_out) {
  uint32_t seen = 0, key, v;
  int i;
  enter(r, p);
  while (q < end) {
    const wfield *w;
    uint32_t bit;
    if (!get_v5(&q, end, &key)) return 0;
    if ((w = field_of(p, key >> 3, &i)) != NULL) {
      bit = 1u << i;
    } else if (alt != NULL && (w = field_of(alt, key >> 3, &i)) != NULL) {
      bit = 1u << (16 + i);
    } else {
      return 0;   /* unknown to the kind: kept by protobuf-c, not ours */
    }
    if ((seen & bit) && w->k != W_STRLIST && w->k != W_RES) return 0;   /* merged */
    seen |= bit;
    if (w->k == W_INT) {
      if ((key & 7) != 0 || !get_v5(&q, end, &v) || !read_int(r, w, v)) return 0;
      continue;
    }
    if ((key & 7) != 2 || !get_v5(&q, end, &v) || v > (size_t)(end - q) ||
        !read_len(r, w, bit < 1u << 16 ? alt : NULL, q, v))
      return 0;
    q += v;
  }
  if (alt != NULL && (seen >> 16) != 0 && shadowed(p, alt, seen)) return 0;
  for (i = 0; i < p->n; i++)   /* a choice left "" is get_rows' error */
    if (!(seen >> i & 1u) && p->f[i].k == W_STR && !group_row(p->f[i].row) &&
        p->f[i].row->type == KF_V_CHOICE)
      return 0;
  if (seen_out) *seen_out = seen;
  return 1;
}

/* ---- the job ------------------------------------------------------------ */

/* Whether the top-level bytes hold field `id` (a message): 1, 0, or -1
** for bytes the reader does not walk. */
static int has_msg(const uint8_t *q, const uint8_t *end, uint32_t id) {
  uint32_t key, v;
  int found = 0;
  while (q < end) {
    if (!get_v5(&q, end, &key)) return -1;
    if ((key >> 3) == id && (key & 7) != 2) return -1;
    found |= (key >> 3) == id;
    if ((key & 7) == 0) {
      if (!get_v5(&q, end, &v)) return -1;
    } else if ((key & 7) == 2 && get_v5(&q, end, &v) && v <= (size_t)(end - q)) {
      q += v;
    } else {
      return -1;
    }
  }
  return found;
}

static uint32_t field_id(const ProtobufCMessageDescriptor *d, const char *name) {
  const ProtobufCFieldDescriptor *f =
      d && name ? protobuf_c_message_descriptor_get_field_by_name(d, name) : NULL;
  return f ? f->id : 0;
}

/* The field numbers the tail of kf_job_from_msg asks about, once. */
static uint32_t ec_id[2], master_id;
static pthread_once_t ids_once = PTHREAD_ONCE_INIT;

static void ids_init(void) {
  ec_id[0] = field_id(kf_kinds[KF_PYTORCH].v0, "elastic_config");
  ec_id[1] = field_id(kf_kinds[KF_PYTORCH].v1, "elastic_config");
  master_id = field_id(kf_kinds[KF_PYTORCH].v1, "master_replicas");
}

/* Whether the top message's bits `seen` hold field `id`. */
static int seen_id(const wplan *p, uint32_t seen, uint32_t id) {
  int i;
  for (i = 0; i < p->n; i++)
    if (p->f[i].id == id) return seen >> i & 1u;
  return 0;
}

/* kf_job_from_msg after the groups and rows: an absent elastic config,
** a PyTorchJob's absent master, counts the backend forces to 1, and the
** elastic rules (their errors are the message path's). */
static int finish(kf_job *j, const wplan *top, uint32_t seen, int version) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  /* (the numbers are the PyTorch messages'; another kind's differ) */
  int pt = top->d == (version ? kf_kinds[KF_PYTORCH].v1 : kf_kinds[KF_PYTORCH].v0);
  int ec = pt && seen_id(top, seen, ec_id[version]);
  int master = pt && version == 1 && seen_id(top, seen, master_id), i;
  if (!ec) j->min_nodes = j->max_nodes = 0;
  if (j->kind == KF_PYTORCH && version == 1 && !master) j->g[KF_MASTER].replicas = 1;
  for (i = 0; i < k->nroles; i++) {
    kf_group *g = &j->g[k->roles[i].role];
    if (version == 1 && g->ncommand && !(k->flags & KF_K_COMMAND)) return 0;
    if ((kf_roles[k->roles[i].role].flags & KF_R_FIXED1) && g->replicas == 0)
      g->replicas = 1;
  }
  if (ec) {
    j->nnodes_int = j->min_nodes == j->max_nodes && j->max_nodes != 1;
    if (master || j->g[KF_WORKER].replicas != j->max_nodes)
      return 0;
  }
  return 1;
}

int kf_wire_read_job(const ProtobufCMessageDescriptor *d, int kind, int version,
                     const uint8_t *p, size_t n, kf_arena *A, kf_job *out) {
  const wplan *top, *alt = NULL;
  kf_arena_pos mark = kf_arena_mark(A);
  uint32_t seen = 0;
  rd r;
  if (kind < 0 || kind >= KF_NKINDS || (version != 0 && version != 1) || n > 0x7FFFFFFFu)
    return 0;
  pthread_once(&ids_once, ids_init);
  if (kind == KF_PYTORCH) {   /* an elastic config makes it Elastic */
    int ec = has_msg(p, p + n, ec_id[version]);
    if (ec < 0) return 0;
    if (ec) kind = KF_ELASTIC;
  }
  top = version ? kf_wplan(kind, 0) : kf_wplan_v0(kind);
  if (version) alt = kf_wplan(kind, 1);
  if (top == NULL || top->d != d) return 0;
  r.A = A;
  r.job = (char *)out;
  kf_job_defaults(out, kind);
  if (read_msg(&r, top, alt, p, p + n, &seen) && finish(out, top, seen, version))
    return 1;
  kf_arena_rewind(A, mark);
  return 0;
}

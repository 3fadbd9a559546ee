/*
** kf_wire.c - deterministic protobuf packing: messages over protobuf-c
** descriptors, and google.protobuf.Struct bytes straight from a kf_node.
** The varint and message-layout helpers are inline in kf_wire.h.
*/
#include <stdlib.h>
#include <string.h>

#include "kf_wire.h"

#define PBC(x) PROTOBUF_C_##x
#define AT(base, off) ((char *)(base) + (off))
#define CAT(base, off) ((const char *)(base) + (off))

/* ---- deterministic packing -------------------------------------------- */

static void sort_maps(ProtobufCMessage *m, int depth) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  unsigned i;
  size_t j;
  if (depth > 4 * KF_MAX_DEPTH) return;   /* only our own, shallow messages */
  for (i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->type != PBC(TYPE_MESSAGE)) continue;
    if (f->label == PBC(LABEL_REPEATED)) {
      size_t n = *(size_t *)AT(m, f->quantifier_offset);
      ProtobufCMessage **arr = *(ProtobufCMessage ***)AT(m, f->offset);
      if (kf_field_is_map(f) && n > 1) qsort(arr, n, sizeof *arr, kf_entry_ptr_cmp);
      for (j = 0; j < n; j++)
        if (arr[j]) sort_maps(arr[j], depth + 1);
    } else if (kf_field_present(f, m)) {
      sort_maps(*(ProtobufCMessage **)AT(m, f->offset), depth + 1);
    }
  }
}

void kf_msg_sort_maps(ProtobufCMessage *m) {
  if (m != NULL) sort_maps(m, 0);
}

/* ---- deterministic serialization -------------------------------------- */

/* Two passes: the size pass records every sub-message's size in visiting
** order (pre-order, slot taken before recursing), the write pass reads them
** back in the same order, so no size is computed twice however deep the
** nesting (a Struct nests a dozen levels). */
typedef struct psz {
  kf_arena *A;
  size_t *v, n, cap, pos;
  int oom;
} psz;

static size_t msg_size(const ProtobufCMessage *m, int entry, psz *S);
static uint8_t *msg_put(const ProtobufCMessage *m, int entry, uint8_t *o, psz *S);

static size_t slot_new(psz *S) {
  if (S->n == S->cap) {
    size_t cap = S->cap ? S->cap * 2 : 64;
    size_t *v = kf_arena_alloc(S->A, cap * sizeof *v);
    if (v == NULL) {
      S->oom = 1;
      return (size_t)-1;
    }
    if (S->n) memcpy(v, S->v, S->n * sizeof *v);
    S->v = v;
    S->cap = cap;
  }
  return S->n++;
}

static int wire_type(ProtobufCType t) {
  switch (t) {
    case PBC(TYPE_FIXED64): case PBC(TYPE_SFIXED64): case PBC(TYPE_DOUBLE): return 1;
    case PBC(TYPE_STRING): case PBC(TYPE_BYTES): case PBC(TYPE_MESSAGE): return 2;
    case PBC(TYPE_FIXED32): case PBC(TYPE_SFIXED32): case PBC(TYPE_FLOAT): return 5;
    default: return 0;
  }
}

/* varint payload of an integer-like value (int32/enum sign-extend) */
static uint64_t vval(ProtobufCType t, const void *p) {
  switch (t) {
    case PBC(TYPE_SINT32): {
      int32_t v = *(const int32_t *)p;
      return (uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
    }
    case PBC(TYPE_SINT64): {
      int64_t v = *(const int64_t *)p;
      return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    }
    case PBC(TYPE_UINT32): return *(const uint32_t *)p;
    case PBC(TYPE_INT64): case PBC(TYPE_UINT64): return *(const uint64_t *)p;
    case PBC(TYPE_BOOL): return *(const protobuf_c_boolean *)p != 0;
    default: return (uint64_t)(int64_t) * (const int32_t *)p;
  }
}

/* Payload size of one value (no tag); `ent`: the value is a map entry. */
static size_t val_size(const ProtobufCFieldDescriptor *f, const void *p, int ent,
                       psz *S) {
  size_t n;
  switch (wire_type(f->type)) {
    case 1: return 8;
    case 5: return 4;
    case 0: return kf_varint_size(vval(f->type, p));
  }
  if (f->type == PBC(TYPE_STRING)) {
    const char *s = *(char *const *)p;
    n = s ? strlen(s) : 0;
  } else if (f->type == PBC(TYPE_BYTES)) {
    n = ((const ProtobufCBinaryData *)p)->len;
  } else {
    const ProtobufCMessage *s = *(ProtobufCMessage *const *)p;
    size_t k = slot_new(S);
    n = s ? msg_size(s, ent, S) : 0;
    if (k != (size_t)-1) S->v[k] = n;
  }
  return kf_varint_size(n) + n;
}

static uint8_t *val_put(const ProtobufCFieldDescriptor *f, const void *p, int ent,
                        uint8_t *o, psz *S) {
  int w = wire_type(f->type), i;
  if (w == 0) return kf_varint_put(o, vval(f->type, p));
  if (w == 1 || w == 5) {   /* little-endian, whatever the host */
    uint64_t v = 0;
    if (w == 1) memcpy(&v, p, 8);
    else { uint32_t u; memcpy(&u, p, 4); v = u; }
    for (i = 0; i < (w == 1 ? 8 : 4); i++) *o++ = (uint8_t)(v >> (8 * i));
    return o;
  }
  if (f->type == PBC(TYPE_MESSAGE)) {
    const ProtobufCMessage *s = *(ProtobufCMessage *const *)p;
    o = kf_varint_put(o, S->v[S->pos++]);
    return s ? msg_put(s, ent, o, S) : o;
  } else {
    const char *s = f->type == PBC(TYPE_STRING) ? *(char *const *)p
                    : (const char *)((const ProtobufCBinaryData *)p)->data;
    size_t n = f->type == PBC(TYPE_STRING) ? (s ? strlen(s) : 0)
               : ((const ProtobufCBinaryData *)p)->len;
    o = kf_varint_put(o, n);
    if (n) memcpy(o, s, n);
    return o + n;
  }
}

static uint64_t tag(const ProtobufCFieldDescriptor *f, int w) {
  return (uint64_t)f->id << 3 | (unsigned)w;
}

/* Size (put == NULL) or bytes of one field; map entries keep both fields.
** The size pass fills S, the write pass consumes it. */
static size_t field_io(const ProtobufCFieldDescriptor *f, const ProtobufCMessage *m,
                       int entry, uint8_t **put, psz *S) {
  const char *p = CAT(m, f->offset);
  size_t i, n, sz, body = 0;
  int ent = kf_field_is_map(f);
  if (f->label != PBC(LABEL_REPEATED)) {
    if (!entry && !kf_field_present(f, m)) return 0;
    if (put) {
      *put = val_put(f, p, 0, kf_varint_put(*put, tag(f, wire_type(f->type))), S);
      return 0;
    }
    return kf_varint_size(tag(f, 0)) + val_size(f, p, 0, S);
  }
  n = *(const size_t *)CAT(m, f->quantifier_offset);
  p = *(char *const *)p;
  sz = kf_field_elem_size(f->type);
  if (n == 0) return 0;
  if ((f->flags & PBC(FIELD_FLAG_PACKED)) && wire_type(f->type) != 2) {
    for (i = 0; i < n; i++) body += val_size(f, p + i * sz, 0, S);
    if (put) {
      *put = kf_varint_put(kf_varint_put(*put, tag(f, 2)), body);
      for (i = 0; i < n; i++) *put = val_put(f, p + i * sz, 0, *put, S);
    }
    return kf_varint_size(tag(f, 2)) + kf_varint_size(body) + body;
  }
  for (i = 0; i < n; i++) {
    if (put)
      *put = val_put(f, p + i * sz, ent, kf_varint_put(*put, tag(f, wire_type(f->type))), S);
    else
      body += kf_varint_size(tag(f, 0)) + val_size(f, p + i * sz, ent, S);
  }
  return body;
}

static size_t msg_size(const ProtobufCMessage *m, int entry, psz *S) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  size_t n = 0;
  unsigned i;
  for (i = 0; i < d->n_fields; i++) n += field_io(&d->fields[i], m, entry, NULL, S);
  for (i = 0; i < m->n_unknown_fields; i++)
    n += kf_varint_size((uint64_t)m->unknown_fields[i].tag << 3) + m->unknown_fields[i].len;
  return n;
}

static uint8_t *msg_put(const ProtobufCMessage *m, int entry, uint8_t *o, psz *S) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  unsigned i;
  for (i = 0; i < d->n_fields; i++) field_io(&d->fields[i], m, entry, &o, S);
  for (i = 0; i < m->n_unknown_fields; i++) {   /* kept, at the end */
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    o = kf_varint_put(o, (uint64_t)u->tag << 3 | (unsigned)u->wire_type);
    if (u->len) memcpy(o, u->data, u->len);
    o += u->len;
  }
  return o;
}

kf_status kf_msg_pack_into(const ProtobufCMessage *m, kf_arena *A, kf_buf *out,
                           kf_err *e) {
  psz S;
  size_t n;
  memset(&S, 0, sizeof S);
  S.A = A;
  n = msg_size(m, 0, &S);
  if (S.oom || !kf_buf_reserve(out, n)) return kf_nomem(e);
  out->n += (size_t)(msg_put(m, 0, (uint8_t *)out->p + out->n, &S) -
                     ((uint8_t *)out->p + out->n));
  return KF_OK;
}

/* ---- Struct bytes straight from the tree -------------------------------- */

/* Struct bytes (kf_struct_pack_field) in two passes: the size pass
** records, in writing order, every nested length and every object's sorted
** key order; the write pass replays them. */
typedef struct sw {
  kf_arena *A;
  size_t *len, nlen, caplen, poslen;
  const size_t **perm;
  size_t nperm, capperm, posperm;
  int oom;
} sw;

static size_t len_slot(sw *w) {
  if (w->nlen == w->caplen) {
    size_t cap = w->caplen ? w->caplen * 2 : 128;
    size_t *v = kf_arena_alloc_raw(w->A, cap * sizeof *v);
    if (v == NULL) return (w->oom = 1, 0);
    if (w->nlen) memcpy(v, w->len, w->nlen * sizeof *v);
    w->len = v, w->caplen = cap;
  }
  return w->nlen++;
}

static void perm_push(sw *w, const size_t *p) {
  if (w->nperm == w->capperm) {
    size_t cap = w->capperm ? w->capperm * 2 : 32;
    const size_t **v = kf_arena_alloc_raw(w->A, cap * sizeof *v);
    if (v == NULL) {
      w->oom = 1;
      return;
    }
    if (w->nperm) memcpy(v, w->perm, w->nperm * sizeof *v);
    w->perm = v, w->capperm = cap;
  }
  w->perm[w->nperm++] = p;
}

static size_t s_struct(sw *w, const kf_node *o, int depth);

static size_t s_value(sw *w, const kf_node *n, int depth) {
  size_t k, b;
  switch (n->t) {
    case KF_NNIL: case KF_NBOOL: return 2;
    case KF_NINT: case KF_NNUM: return 9;
    case KF_NSTR: return 1 + kf_varint_size(n->u.s.n) + n->u.s.n;
    case KF_NOBJ:
      k = len_slot(w);
      b = s_struct(w, n, depth + 1);
      break;
    default: {  /* ListValue: repeated Value values = 1 */
      size_t i;
      k = len_slot(w);
      b = 0;
      for (i = 0; i < n->u.c.n && !w->oom; i++) {
        size_t vk = len_slot(w), vb = s_value(w, n->u.c.v[i], depth + 1);
        if (!w->oom) w->len[vk] = vb;
        b += 1 + kf_varint_size(vb) + vb;
      }
    }
  }
  if (!w->oom) w->len[k] = b;
  return 1 + kf_varint_size(b) + b;
}

static size_t s_struct(sw *w, const kf_node *o, int depth) {
  size_t *perm, i, b = 0, n = o->t == KF_NOBJ ? o->u.c.n : 0;
  if (depth > KF_MAX_DEPTH) return (w->oom = 1, 0);
  if ((perm = kf_arena_alloc_raw(w->A, (n ? n : 1) * sizeof *perm)) == NULL)
    return (w->oom = 1, 0);
  for (i = 0; i < n; i++) {  /* insertion sort: objects are small */
    size_t j = i;
    while (j > 0 && strcmp(o->u.c.k[perm[j - 1]], o->u.c.k[i]) > 0)
      perm[j] = perm[j - 1], j--;
    perm[j] = i;
  }
  perm_push(w, perm);
  for (i = 0; i < n && !w->oom; i++) {
    size_t kl = strlen(o->u.c.k[perm[i]]);
    size_t ek = len_slot(w), vk = len_slot(w);
    size_t vb = s_value(w, o->u.c.v[perm[i]], depth);
    size_t eb = 1 + kf_varint_size(kl) + kl + 1 + kf_varint_size(vb) + vb;
    if (w->oom) break;
    w->len[vk] = vb;
    w->len[ek] = eb;
    b += 1 + kf_varint_size(eb) + eb;
  }
  return b;
}

static uint8_t *w_struct(sw *w, const kf_node *o, uint8_t *p);

static uint8_t *w_value(sw *w, const kf_node *n, uint8_t *p) {
  size_t i;
  switch (n->t) {
    case KF_NNIL: *p++ = 0x08; *p++ = 0; return p;
    case KF_NBOOL: *p++ = 0x20; *p++ = (uint8_t)(n->u.b != 0); return p;
    case KF_NINT: case KF_NNUM: {
      double d = n->t == KF_NINT ? (double)n->u.i : n->u.d;
      uint64_t u;
      memcpy(&u, &d, 8);
      *p++ = 0x11;
      for (i = 0; i < 8; i++) *p++ = (uint8_t)(u >> (8 * i));  /* little-endian */
      return p;
    }
    case KF_NSTR:
      *p++ = 0x1a;
      p = kf_varint_put(p, n->u.s.n);
      memcpy(p, n->u.s.p, n->u.s.n);
      return p + n->u.s.n;
    case KF_NOBJ:
      *p++ = 0x2a;
      p = kf_varint_put(p, w->len[w->poslen++]);
      return w_struct(w, n, p);
    default:
      *p++ = 0x32;
      p = kf_varint_put(p, w->len[w->poslen++]);
      for (i = 0; i < n->u.c.n; i++) {
        *p++ = 0x0a;
        p = kf_varint_put(p, w->len[w->poslen++]);
        p = w_value(w, n->u.c.v[i], p);
      }
      return p;
  }
}

static uint8_t *w_struct(sw *w, const kf_node *o, uint8_t *p) {
  const size_t *perm = w->perm[w->posperm++];
  size_t i, n = o->t == KF_NOBJ ? o->u.c.n : 0;
  for (i = 0; i < n; i++) {
    const char *k = o->u.c.k[perm[i]];
    size_t kl = strlen(k);
    *p++ = 0x0a;                                   /* fields entry */
    p = kf_varint_put(p, w->len[w->poslen++]);
    *p++ = 0x0a;                                   /* key */
    p = kf_varint_put(p, kl);
    memcpy(p, k, kl);
    p += kl;
    *p++ = 0x12;                                   /* value */
    p = kf_varint_put(p, w->len[w->poslen++]);
    p = w_value(w, o->u.c.v[perm[i]], p);
  }
  return p;
}

kf_status kf_struct_pack_field(unsigned field, const kf_node *o, kf_arena *A,
                               kf_buf *out, kf_err *e) {
  uint64_t key = (uint64_t)field << 3 | 2u;
  sw w;
  size_t b;
  uint8_t *p;
  memset(&w, 0, sizeof w);
  w.A = A;
  b = s_struct(&w, o, 0);
  if (w.oom || !kf_buf_reserve(out, kf_varint_size(key) + kf_varint_size(b) + b))
    return kf_nomem(e);
  p = (uint8_t *)out->p + out->n;
  p = kf_varint_put(p, key);
  p = kf_varint_put(p, b);
  p = w_struct(&w, o, p);
  out->n = (size_t)((char *)p - out->p);
  return KF_OK;
}

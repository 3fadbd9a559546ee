/*
** kf_pb_merge.c - plugin bytes made canonical before protobuf-c unpacks
** them: a non-repeated message field given more than once in a message
** becomes one occurrence whose payload is the payloads concatenated, at the
** place of the last one.  Protobuf merges such occurrences ("Last One
** Wins" for scalars, embedded messages merged: protobuf.dev encoding
** guide), and parsing the concatenation of two encodings of a message is
** their merge; protobuf-c 1.4.1's own merge of the occurrences drops the
** earlier one's proto3 scalars (docs/DECISIONS.md).
*/
#include <string.h>
#include "kf_pb.h"
#include "kf_wire.h"

typedef struct seg { const uint8_t *p, *end; } seg;

typedef struct ent {
  const uint8_t *at, *v, *end;        /* key, value, past the value */
  const ProtobufCFieldDescriptor *f;  /* the field, NULL when unknown */
  int msg;                            /* a message field on wire type 2 */
  int mark;                           /* 1: merged into a later one; 2: the merged one */
} ent;

typedef struct mz {
  kf_arena *A;
  uint8_t *o, *oend;
  int oom;
} mz;

/* The entries of a message given in `ns` segments, or -1 when one does not
** frame (left to protobuf-c's unpack, which refuses it). */
static long scan(const ProtobufCMessageDescriptor *d, const seg *s, size_t ns,
                 ent *out) {
  long n = 0;
  size_t i;
  for (i = 0; i < ns; i++) {
    const uint8_t *p = s[i].p, *end = s[i].end;
    while (p < end) {
      uint64_t key;
      const uint8_t *at = p, *v, *body;
      if (!kf_varint_get(&p, end, &key)) return -1;
      v = p;
      if (!kf_wire_skip(&p, end, key, &body)) return -1;
      if (out != NULL) {
        const ProtobufCFieldDescriptor *f = NULL;
        if ((key >> 3) <= 0x1fffffffu)
          f = protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3));
        out[n].at = at;
        out[n].v = v;
        out[n].end = p;
        out[n].f = f;
        out[n].msg = f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE && (key & 7) == 2;
        out[n].mark = 0;
      }
      n++;
    }
  }
  return n;
}

/* Closes the members of f's oneof (f too when `self`): earlier
** occurrences are cleared by a later member. */
static void oneof_close(const ProtobufCMessageDescriptor *d,
                        const ProtobufCFieldDescriptor *f, unsigned char *st, int self) {
  unsigned j;
  for (j = 0; j < d->n_fields; j++)
    if ((self || &d->fields[j] != f) && (d->fields[j].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
        d->fields[j].quantifier_offset == f->quantifier_offset)
      st[j] = 2;
}

/* Marks the occurrences to merge: of a non-repeated message field, those
** after the last occurrence of another member of its oneof, a scalar one
** too (protobuf-c clears a oneof's member when another one is set, as
** protobuf does). */
static int plan(const ProtobufCMessageDescriptor *d, ent *e, long n, kf_arena *A) {
  /* per field: seen (1), closed by a later other member of its oneof (2) */
  unsigned char *st = kf_arena_alloc(A, d->n_fields + 1);
  long i;
  if (st == NULL) return -1;
  for (i = n - 1; i >= 0; i--) {
    const ProtobufCFieldDescriptor *f = e[i].f;
    size_t k;
    if (f == NULL || f->label == PROTOBUF_C_LABEL_REPEATED) continue;
    k = (size_t)(f - d->fields);
    if (st[k] == 2 && (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
      oneof_close(d, f, st, 1);   /* another member: the winner's earlier ones too */
    if (st[k] == 2) continue;
    if (!e[i].msg && f->type == PROTOBUF_C_TYPE_MESSAGE) {   /* a wrong wire type: */
      st[k] = 2;                                             /* unpack refuses it */
      continue;
    }
    if (e[i].msg) e[i].mark = st[k] ? 1 : 2;
    if (st[k]) continue;
    st[k] = 1;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)   /* the oneof's others close */
      oneof_close(d, f, st, 0);
  }
  return 0;
}

static int msg(const ProtobufCMessageDescriptor *d, const seg *s, size_t ns,
               mz *z, int depth);

/* key (copied from `key`..`kend`), then the canonical message of the
** segments with its length: the length's room reserved for `total` bytes
** (canonical bytes are never longer), then closed up. */
static int field(const uint8_t *key, const uint8_t *kend,
                 const ProtobufCMessageDescriptor *d, const seg *s, size_t ns,
                 size_t total, mz *z, int depth) {
  size_t r = kf_varint_size(total), kl = (size_t)(kend - key), len;
  uint8_t *lp, *body;
  if ((size_t)(z->oend - z->o) < kl + r) return -1;
  memcpy(z->o, key, kl);
  lp = z->o + kl;
  body = z->o = lp + r;
  if (msg(d, s, ns, z, depth + 1)) return -1;
  len = (size_t)(z->o - body);
  if (kf_varint_size(len) < r) {
    memmove(lp + kf_varint_size(len), body, len);
    z->o -= r - kf_varint_size(len);
  }
  kf_varint_put(lp, len);
  return 0;
}

/* The segments of every marked occurrence of e[i]'s field, in order. */
static int merged(const ent *e, long i, mz *z, int depth) {
  long j, k = 0;
  size_t total = 0;
  seg *s;
  const uint8_t *kend = e[i].v;
  uint64_t len;
  for (j = 0; j <= i; j++) k += e[j].f == e[i].f && e[j].mark;   /* marked: msg */
  if ((s = kf_arena_alloc(z->A, (size_t)k * sizeof *s)) == NULL) return z->oom = 1, -1;
  for (j = 0, k = 0; j <= i; j++)
    if (e[j].f == e[i].f && e[j].mark) {
      const uint8_t *p = e[j].v;
      kf_varint_get(&p, e[j].end, &len);
      s[k].p = p;
      s[k++].end = e[j].end;
      total += (size_t)(e[j].end - p);
    }
  return field(e[i].at, kend, (const ProtobufCMessageDescriptor *)e[i].f->descriptor,
               s, (size_t)k, total, z, depth);
}

static int msg(const ProtobufCMessageDescriptor *d, const seg *s, size_t ns,
               mz *z, int depth) {
  long n = scan(d, s, ns, NULL), i;
  ent *e;
  if (n < 0 || depth > KF_MAX_WIRE_DEPTH) return -1;
  if (n == 0) return 0;
  if ((e = kf_arena_alloc(z->A, (size_t)n * sizeof *e)) == NULL) return z->oom = 1, -1;
  scan(d, s, ns, e);
  if (plan(d, e, n, z->A)) return z->oom = 1, -1;
  for (i = 0; i < n; i++) {
    if (e[i].mark == 1) continue;
    if (e[i].mark == 2) {
      if (merged(e, i, z, depth)) return -1;
    } else if (e[i].msg) {   /* one message: canonical inside */
      seg one;
      uint64_t len;
      one.p = e[i].v;
      kf_varint_get(&one.p, e[i].end, &len);
      one.end = e[i].end;
      if (field(e[i].at, e[i].v, (const ProtobufCMessageDescriptor *)e[i].f->descriptor,
                &one, 1, (size_t)len, z, depth))
        return -1;
    } else {
      size_t l = (size_t)(e[i].end - e[i].at);
      if ((size_t)(z->oend - z->o) < l) return -1;
      memcpy(z->o, e[i].at, l);
      z->o += l;
    }
  }
  return 0;
}

int kf_pb_merge(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
                kf_arena *A, const uint8_t **out, size_t *outn) {
  mz z;
  seg s;
  uint8_t *buf = kf_arena_alloc_raw(A, n + 1);
  if (buf == NULL) return -1;
  z.A = A;
  z.o = buf;
  z.oend = buf + n;
  z.oom = 0;
  s.p = p;
  s.end = p + n;
  if (msg(d, &s, 1, &z, 0)) return z.oom ? -1 : 0;
  *out = buf;
  *outn = (size_t)(z.o - buf);
  return 1;
}

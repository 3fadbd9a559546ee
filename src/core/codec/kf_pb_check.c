/*
** kf_pb_check.c - plugin bytes checked before protobuf-c unpacks them:
** strings valid UTF-8 (with the field path), nesting within the limit.
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
  int dup;   /* a non-repeated message field given twice in a message */
  /* the field, and its message's bytes up to the field's key: a repeated
  ** field's index is counted there when a path is printed */
  struct { const ProtobufCFieldDescriptor *f; const uint8_t *start, *at; } seg[KF_MAX_WIRE_DEPTH];
} wpath;

/* Which occurrence (1, 2, ...) of field f the key at `at` is, counting the
** length-delimited keys from `p` (the message's start); 0 for numbers from
** 16 on, as the paths have always shown them. */
static unsigned occurrence(const ProtobufCFieldDescriptor *f, const uint8_t *p,
                           const uint8_t *at) {
  unsigned n = 0;
  if (f->id >= 16) return 0;
  while (p <= at) {
    uint64_t key;
    const uint8_t *here = p, *body;
    if (!kf_varint_get(&p, at + 16, &key)) break;
    if ((key >> 3) == f->id && (key & 7) == 2) n++;   /* as the walk counts them */
    if (here == at || !kf_wire_skip(&p, at, key, &body)) break;
  }
  return n;
}

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
      snprintf(path + l, sizeof path - l, "[%u]",
               occurrence(w->seg[i].f, w->seg[i].start, w->seg[i].at));
  }
  return kf_fail(e, code, "%s: %s: %s", who, path, problem);
}

/* The field numbered id: straight from the array when the message's fields
** are numbered 1, 2, ... in order (protobuf-c keeps them sorted by
** number), else protobuf-c's search. */
static const ProtobufCFieldDescriptor *field_of(const ProtobufCMessageDescriptor *d,
                                                uint64_t id) {
  if (id >= 1 && id <= d->n_fields && d->fields[id - 1].id == id) return &d->fields[id - 1];
  return protobuf_c_message_descriptor_get_field(d, (unsigned)id);   /* as before */
}

/* Bytes of p[0..n) that are ASCII without NUL from the start, eight at a
** time while they last. */
static size_t ascii_run(const uint8_t *p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, p + i, 8);
    if ((((x - 0x0101010101010101ull) & ~x) | x) & 0x8080808080808080ull) break;
  }
  while (i < n && (unsigned)(p[i] - 1) < 0x7Fu) i++;
  return i;
}

static kf_status wire_strings(const ProtobufCMessageDescriptor *d,
                              const uint8_t *p, const uint8_t *end,
                              const char *who, wpath *w, kf_err *e) {
  const uint8_t *start = p;
  uint64_t seen = 0;   /* non-repeated message fields met, by index */
  while (p < end) {
    uint64_t key, len;
    const ProtobufCFieldDescriptor *f;
    const uint8_t *at = p, *body;
    /* what does not frame is unpack's to refuse */
    if (!kf_varint_get(&p, end, &key) || !kf_wire_skip(&p, end, key, &body)) return KF_OK;
    if ((key & 7) != 2) continue;
    len = (uint64_t)(p - body);
    p = body;
    f = field_of(d, key >> 3);
    if (f != NULL) {
      kf_status st = KF_OK;
      w->seg[w->n].f = f;
      w->seg[w->n].start = start;
      w->seg[w->n].at = at;
      w->n++;
      if (f->type == PROTOBUF_C_TYPE_MESSAGE && f->label != PROTOBUF_C_LABEL_REPEATED) {
        size_t k = (size_t)(f - d->fields);
        uint64_t bit = k < 64 ? (uint64_t)1 << k : 0;
        if (bit == 0 || (seen & bit)) w->dup = 1;
        seen |= bit;
      }
      if (f->type == PROTOBUF_C_TYPE_STRING) {
        size_t i = 0;
        if (len <= KF_MAX_STRING)   /* ASCII without NUL: valid, in one pass */
          i = ascii_run(p, (size_t)len);
        if (len > KF_MAX_STRING)
          st = wire_fail(w, who, KF_EINVAL, "string longer than the limit of 1 MiB", e);
        else if (i == len)
          ;
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
  w.dup = 0;
  return wire_strings(d, p, p + n, who, &w, e);
}

kf_status kf_unpack(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                    size_t n, const char *who, kf_arena *A,
                    ProtobufCMessage **out, kf_err *e) {
  ProtobufCAllocator pa;
  wpath w;
  kf_status wire;
  w.n = 0;
  w.dup = 0;
  wire = wire_strings(d, p, p + n, who, &w, e);
  *out = NULL;
  if (wire == KF_ELIMIT) return wire;   /* before unpack recurses */
  /* a sub-message given twice: merged as protobuf merges it, which
  ** protobuf-c's unpack does not (drops the first one's proto3 scalars) */
  if (wire == KF_OK && w.dup && kf_pb_merge(d, p, n, A, &p, &n) < 0) return kf_nomem(e);
  kf_arena_pballoc(A, &pa);
  *out = protobuf_c_message_unpack(d, &pa, n, p);
  if (*out == NULL && A->failed) return kf_nomem(e);
  if (*out == NULL) return KF_EINVAL;   /* framing errors come first */
  return wire;
}

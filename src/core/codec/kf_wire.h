/*
** kf_wire.h - the protobuf wire format for kfjob's core.
**
** Varints and the protobuf-c message-layout helpers are inline: the packer
** and the JSON walkers call them for every field.  kf_wire.c holds the
** deterministic packer (messages and Struct bytes straight from a kf_node).
** The string checks on received bytes are kf_wire_check (kf_core.h).
*/
#ifndef KF_WIRE_H
#define KF_WIRE_H

#include <string.h>

#include "kf_job.h"
#include "kf_pb.h"

/* ---- varints ---------------------------------------------------------- */

/* Bytes that the varint of v takes (1 to 10). */
static inline size_t kf_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) { v >>= 7; n++; }
  return n;
}

/* Writes the varint of v at o; returns the byte after it. */
static inline uint8_t *kf_varint_put(uint8_t *o, uint64_t v) {
  while (v >= 0x80) { *o++ = (uint8_t)(v | 0x80); v >>= 7; }
  *o++ = (uint8_t)v;
  return o;
}

/* Reads a varint from *p (not past end) into *v and advances *p.  0 when
** the bytes end first or the varint runs past 64 bits. */
static inline int kf_varint_get(const uint8_t **p, const uint8_t *end,
                                uint64_t *v) {
  int shift = 0;
  *v = 0;
  while (*p < end && shift < 64) {
    uint8_t b = *(*p)++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return 1;
    shift += 7;
  }
  return 0;
}

/* Steps *p over the value of a field whose key was read, not past end;
** *body is where the value's own bytes start (after a length).  0 when
** the value does not frame: cut short, a group, or a wire type protobuf
** does not have.  The one framing of the wire walks (the string check,
** the occurrence count of its paths, the merge's scan). */
static inline int kf_wire_skip(const uint8_t **p, const uint8_t *end,
                               uint64_t key, const uint8_t **body) {
  uint64_t len;
  switch (key & 7) {
    case 0: *body = *p; return kf_varint_get(p, end, &len);
    case 1: len = 8; break;
    case 5: len = 4; break;
    case 2: if (!kf_varint_get(p, end, &len)) return 0; break;
    default: return 0;
  }
  if (len > (uint64_t)(end - *p)) return 0;
  *body = *p;
  *p += len;
  return 1;
}

/* ---- protobuf-c message layout ---------------------------------------- */

/* Size of one element of a repeated field of type t. */
static inline size_t kf_field_elem_size(ProtobufCType t) {
  switch (t) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
    default: return 4;
  }
}

/* map<K,V> compiles to a repeated "...Entry" message with key=1, value=2 */
static inline int kf_map_entry_desc(const ProtobufCMessageDescriptor *d) {
  size_t n;
  if (d->n_fields != 2) return 0;
  n = strlen(d->name);
  return n > 5 && strcmp(d->name + n - 5, "Entry") == 0 &&
         d->fields[0].id == 1 && d->fields[1].id == 2 &&
         strcmp(d->fields[0].name, "key") == 0 &&
         strcmp(d->fields[1].name, "value") == 0;
}

/* Map fields are repeated "*Entry" messages with key = 1, value = 2 (the
** descriptor has no flag for them).  Answers are cached per descriptor:
** immutable data, per thread, so no locking. */
static inline int kf_field_is_map(const ProtobufCFieldDescriptor *f) {
  static _Thread_local struct {
    const ProtobufCMessageDescriptor *d;
    int r;
  } cache[64];
  const ProtobufCMessageDescriptor *d;
  size_t h;
  if (f->label != PROTOBUF_C_LABEL_REPEATED || f->type != PROTOBUF_C_TYPE_MESSAGE)
    return 0;
  d = (const ProtobufCMessageDescriptor *)f->descriptor;
  h = ((uintptr_t)d >> 4) & 63u;
  if (cache[h].d != d) {
    cache[h].d = d;
    cache[h].r = kf_map_entry_desc(d);
  }
  return cache[h].r;
}

/* Is field f of m set?  MessageToDict's field selection (ListFields), and
** what the packer writes. */
static inline int kf_field_present(const ProtobufCFieldDescriptor *f,
                                   const ProtobufCMessage *m) {
  const char *p = (const char *)m + f->offset;
  const char *q = (const char *)m + f->quantifier_offset;
  static const char zero[8];
  if (f->label == PROTOBUF_C_LABEL_REPEATED) return *(const size_t *)q > 0;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) return *(const uint32_t *)q == f->id;
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) return *(void *const *)p != NULL;
  if (f->label == PROTOBUF_C_LABEL_REQUIRED) return 1;
  if (f->type == PROTOBUF_C_TYPE_STRING) {
    const char *str = *(char *const *)p;
    return str != NULL && (f->label == PROTOBUF_C_LABEL_OPTIONAL || *str);
  }
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL) return *(const protobuf_c_boolean *)q;
  if (f->type == PROTOBUF_C_TYPE_BYTES) return ((const ProtobufCBinaryData *)p)->len > 0;
  return memcmp(p, zero, kf_field_elem_size(f->type)) != 0;  /* -0.0 counts as set */
}

/* Map entry order: bytewise for strings, numeric otherwise. */
static inline int kf_entry_key_cmp(const ProtobufCMessage *a, const ProtobufCMessage *b) {
  const ProtobufCFieldDescriptor *k = &a->descriptor->fields[0];
  const char *pa = (const char *)a + k->offset, *pb = (const char *)b + k->offset;
#define KF_CMP_(T) return (*(const T *)pa > *(const T *)pb) - (*(const T *)pa < *(const T *)pb)
  switch (k->type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char *x = *(char *const *)pa, *y = *(char *const *)pb;
      return strcmp(x ? x : "", y ? y : "");
    }
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: KF_CMP_(uint32_t);
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      KF_CMP_(int64_t);
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: KF_CMP_(uint64_t);
    case PROTOBUF_C_TYPE_BOOL: KF_CMP_(protobuf_c_boolean);
    default: KF_CMP_(int32_t);
  }
#undef KF_CMP_
}

/* qsort comparator for an array of map entry pointers. */
static inline int kf_entry_ptr_cmp(const void *a, const void *b) {
  return kf_entry_key_cmp(*(ProtobufCMessage *const *)a,
                          *(ProtobufCMessage *const *)b);
}

/* ---- deterministic packing (kf_wire.c) -------------------------------- */

/* Sort every map field's entries by key, recursively (kf_node_to_msg
** already does this for the messages it builds). */
void kf_msg_sort_maps(ProtobufCMessage *m);

/* Deterministic serialization, byte-identical to the reference runtime's
** SerializeToString(deterministic=True) once maps are sorted: unlike
** protobuf_c_message_pack, map entries always carry their key and value
** (protobuf-c drops "" / 0 there: config {"a": ""}, Struct key "").
** Appends to `out`; sizes of sub-messages are computed once (arena). */
kf_status kf_msg_pack_into(const ProtobufCMessage *m, kf_arena *A, kf_buf *out,
                           kf_err *e);

/* Appends field number `field` holding a google.protobuf.Struct written
** straight from the kf_node object `o`, without building Struct / Value
** messages: what python's deterministic serializer writes (entries sorted
** by key, key and value always present, numbers as doubles).  KF_ENOMEM
** also when `o` nests deeper than KF_MAX_DEPTH. */
kf_status kf_struct_pack_field(unsigned field, const kf_node *o, kf_arena *A,
                               kf_buf *out, kf_err *e);

/* ---- a v1 job straight to bytes (kf_wire_job.c) ----------------------- */

/* Appends the v1 plugin message of `j` (CommonReplicaSpec when `common`),
** the bytes protobuf_c_message_pack writes for kf_job_to_msg's message;
** `out` must have room for them (job_bound).  0 when the kind has no plan:
** then nothing is written. */
int kf_wire_job(const kf_job *j, int common, kf_buf *out);
/* The same message as compact JSON, the text kf_msg_to_json writes (indent
** 0); 0 when there is no plan.  Allocation failure: out->oom. */
int kf_wire_job_json(const kf_job *j, int common, kf_buf *out);
/* Field `field` holding the message as the TaskTemplate's custom Struct
** (what kf_struct_pack_field writes for kf_msg_to_node's tree): 1 written,
** 0 no plan (nothing written), -1 `out` could not grow.  `out` NULL: 1 when
** there is a plan. */
int kf_wire_job_struct(const kf_job *j, int common, unsigned field, kf_buf *out);

/* ---- a job straight from bytes (kf_wire_read.c) ----------------------- */

/* The plugin message `p`, `n` of descriptor `d` (the task type's, of
** `version`) read into `out` by the plans of `kind` (the task type's kind
** or a refinement; PyTorchJob with an elastic config becomes Elastic):
** the job kf_job_from_msg makes of it, before kf_job_check.  1 read; 0
** for bytes it does not fully take (every error among them): then `out`
** is left half-written, the arena as it was, and the caller runs the
** message path (kf_decode_msg), which gives every error. */
int kf_wire_read_job(const ProtobufCMessageDescriptor *d, int kind, int version,
                     const uint8_t *p, size_t n, kf_arena *A, kf_job *out);

#endif

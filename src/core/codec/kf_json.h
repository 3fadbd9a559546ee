/*
** kf_json.h - proto3 JSON for kfjob, driven only by protobuf-c descriptors.
**
** One generic walker serves every message: message -> JSON text, message
** -> kf_node, kf_node -> message, plus google.protobuf.Struct helpers and
** JSON text <-> kf_node (parsing by kf_json_scan.c, jansson for what it
** leaves: errors keep its wording).  Output follows
** google.protobuf.json_format.MessageToDict (then json.dumps) with these
** deliberate choices: map and Struct keys are sorted, integral doubles are
** printed without ".0", non-ASCII UTF-8 is passed through, non-finite
** doubles become the strings "NaN", "Infinity", "-Infinity".
** No Lua here; memory comes from the kf_arena / kf_buf passed in.
*/
#ifndef KF_JSON_H
#define KF_JSON_H

#include "kf_job.h"
#include "kf_wire.h"   /* kf_msg_sort_maps, kf_msg_pack_into */
#include "google/protobuf/struct.pb-c.h"

/* The JSON string literal of n bytes at p (RFC 8259 escaping, as
** json.dumps(ensure_ascii=False)), appended to b (b->oom set when it could
** not grow). */
void kf_json_quote(kf_buf *b, const char *p, size_t n);
/* The same written at o, which has room for kf_json_quote_room(p, n)
** bytes; returns the end. */
char *kf_json_quote_to(char *o, const char *p, size_t n);
/* Room for the literal: six bytes a byte (each escaped as \u00XX) and the
** quotes for a short string, a long one (over 256 bytes) measured. */
size_t kf_json_quoted_len(const char *p, size_t n);   /* exact */
static inline size_t kf_json_quote_room(const char *p, size_t n) {
  return n <= 256 ? 6 * n + 2 : kf_json_quoted_len(p, n);
}
#define KF_JSON_QUOTE_MAXLEN (((size_t)-1) / 8)   /* longer: not enough memory */

/* Message -> JSON text appended to `out`.  indent 0: compact
** {"a":1,"b":[1,2]}; indent n > 0: json.dumps(indent=n) layout.
** KF_ENOMEM if `out` could not grow, KF_ELIMIT if nested deeper than
** KF_MAX_DEPTH JSON levels. */
kf_status kf_msg_to_json(const ProtobufCMessage *m, int indent, kf_buf *out,
                         kf_err *e);

/* Message -> kf_node tree with the same semantics (int32/uint32 KF_NINT,
** 64-bit integers KF_NSTR, doubles KF_NNUM, Value numbers that are
** integral and within +-2^53 KF_NINT).  NULL on allocation failure or
** nesting deeper than KF_MAX_DEPTH. */
kf_node *kf_msg_to_node(const ProtobufCMessage *m, kf_arena *A);

/* JSON text -> kf_node (any top-level value; duplicate keys rejected;
** object key order kept).  KF_EINVAL "line L, column C: <text>",
** KF_ELIMIT when nested deeper than KF_MAX_DEPTH. */
kf_status kf_json_parse(const char *s, size_t n, kf_arena *A, kf_node **out,
                        kf_err *e);

/* kf_node (proto3 JSON shape) -> message of descriptor `d` allocated in
** the arena.  Accepts json and original field names, enum names or
** defined numbers, integral numbers (2.0) and numeric strings for integer
** fields; null means unset.  Map entries come out sorted by key.  Errors:
** "<who>: <path>: <problem>" (who may be NULL). */
kf_status kf_node_to_msg(const kf_node *n, const ProtobufCMessageDescriptor *d,
                         int allow_unknown, kf_arena *A,
                         ProtobufCMessage **out, const char *who, kf_err *e);

/* kf_json_fast.c: the JSON text straight into a message of descriptor d
** when it is in the plain shape to_json writes (see there): 1 and *out
** the message kf_json_parse + kf_node_to_msg would build.  0 for anything
** else, with the arena as it was: that path then reads the text. */
int kf_json_fast_msg(const char *s, size_t n, const ProtobufCMessageDescriptor *d,
                     kf_arena *A, ProtobufCMessage **out);

/* kf_node object <-> google.protobuf.Struct (numbers as doubles; entries
** sorted by key so packing is deterministic). */
kf_status kf_node_to_struct(const kf_node *n, kf_arena *A,
                            Google__Protobuf__Struct **out, kf_err *e);
/* KF_ENOMEM, or KF_ELIMIT past KF_MAX_DEPTH levels (no message set). */
kf_status kf_struct_to_node(const Google__Protobuf__Struct *s, kf_arena *A,
                            kf_node **out);

/* Any kf_node -> JSON text, keys in node order, same formatting. */
kf_status kf_node_to_json(const kf_node *n, int indent, kf_buf *out,
                          kf_err *e);

/* Shortest round-trip decimal of a double, Python repr style except that
** integral values have no ".0" ("2", "0.5", "1e+20", "1e-07"); finite
** values only.  Returns the length. */
int kf_json_number(double d, char out[32]);

#endif

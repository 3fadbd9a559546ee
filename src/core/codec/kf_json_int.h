/*
** kf_json_int.h - what kf_json_write.c and kf_json_read.c share; private
** to them (the public interface is kf_json.h).
*/
#ifndef KF_JSON_INT_H
#define KF_JSON_INT_H

#include <string.h>

#include "kf_json.h"
#include "kf_wire.h"

#define PBC(x) PROTOBUF_C_##x
#define AT(base, off) ((char *)(base) + (off))
#define CAT(base, off) ((const char *)(base) + (off))
#define TRY(x) do { kf_status st_ = (x); if (st_ != KF_OK) return st_; } while (0)

enum { W_NONE, W_STRUCT, W_VALUE, W_LIST, W_DURATION, W_WRAPPER };

/* Well-known types with their own JSON shape (matched by name so any
** compilation of struct.proto works). */
static inline int wkt(const ProtobufCMessageDescriptor *d) {
  if (strncmp(d->name, "google.protobuf.", 16) != 0) return W_NONE;
  if (strcmp(d->name + 16, "Struct") == 0) return W_STRUCT;
  if (strcmp(d->name + 16, "Value") == 0) return W_VALUE;
  if (strcmp(d->name + 16, "ListValue") == 0) return W_LIST;
  if (strcmp(d->name + 16, "Duration") == 0) return W_DURATION;
  /* wrappers.proto's Int32Value, UInt32Value, ...: JSON is their value */
  if (d->n_fields == 1 && strcmp(d->fields[0].name, "value") == 0 &&
      strlen(d->name + 16) > 5 && strcmp(d->name + strlen(d->name) - 5, "Value") == 0)
    return W_WRAPPER;
  return W_NONE;
}

/* A string node viewing p (NULL reads as ""). */
static inline kf_node mk_str(const char *p) {
  kf_node v;
  memset(&v, 0, sizeof v);
  v.t = KF_NSTR;
  v.u.s.p = p ? p : "";
  v.u.s.n = strlen(v.u.s.p);
  return v;
}

/* 1 for the bytes a JSON string cannot simply pass through: '"', '\\',
** controls, non-ASCII (kf_json_scan.c; both one-pass readers use it). */
extern const unsigned char kf_json_special[256];

/* kf_json_scan.c: the fast reader.  BAIL: not handled here (any syntax
** error among others); jansson's reader decides and words the error. */
typedef enum { KF_SCAN_OK, KF_SCAN_BAIL, KF_SCAN_NOMEM } kf_scan_result;
kf_scan_result kf_json_scan(const char *s, size_t n, kf_arena *A, kf_node **out);
/* kf_json_read.c: the jansson reader alone (kf_json_parse falls back to
** it; the fuzzer compares the two). */
kf_status kf_json_parse_jansson(const char *s, size_t n, kf_arena *A,
                                kf_node **out, kf_err *e);

#endif

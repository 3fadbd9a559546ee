/*
** kf_json.c - generic proto3 JSON over protobuf-c descriptors.
**
** Writing: one walker (w_*) turns a message or a kf_node into events for a
** "sink"; one sink writes JSON text into a kf_buf, the other builds a
** kf_node tree in an arena, so both outputs share every rule.
** Reading: jansson parses text into a kf_node; p_* turns a kf_node into a
** message, checking types and ranges and naming the JSON path on error.
*/
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kf_json.h"

#define PBC(x) PROTOBUF_C_##x
#define AT(base, off) ((char *)(base) + (off))
#define CAT(base, off) ((const char *)(base) + (off))
#define TRY(x) do { kf_status st_ = (x); if (st_ != KF_OK) return st_; } while (0)

/* ---- shared helpers --------------------------------------------------- */

enum { W_NONE, W_STRUCT, W_VALUE, W_LIST };

/* Well-known types with their own JSON shape (matched by name so any
** compilation of struct.proto works). */
static int wkt(const ProtobufCMessageDescriptor *d) {
  if (strncmp(d->name, "google.protobuf.", 16) != 0) return W_NONE;
  if (strcmp(d->name + 16, "Struct") == 0) return W_STRUCT;
  if (strcmp(d->name + 16, "Value") == 0) return W_VALUE;
  if (strcmp(d->name + 16, "ListValue") == 0) return W_LIST;
  return W_NONE;
}

static int is_null_enum(const ProtobufCFieldDescriptor *f) {
  return f->type == PBC(TYPE_ENUM) &&
         strcmp(((const ProtobufCEnumDescriptor *)f->descriptor)->name,
                "google.protobuf.NullValue") == 0;
}

static int is_value_msg(const ProtobufCFieldDescriptor *f) {
  return f->type == PBC(TYPE_MESSAGE) && wkt(f->descriptor) == W_VALUE;
}

/* map<K,V> compiles to a repeated "...Entry" message with key=1, value=2 */
static int is_map_desc(const ProtobufCMessageDescriptor *d) {
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
static int is_map(const ProtobufCFieldDescriptor *f) {
  static _Thread_local struct {
    const ProtobufCMessageDescriptor *d;
    int r;
  } cache[64];
  const ProtobufCMessageDescriptor *d;
  size_t h;
  if (f->label != PBC(LABEL_REPEATED) || f->type != PBC(TYPE_MESSAGE))
    return 0;
  d = (const ProtobufCMessageDescriptor *)f->descriptor;
  h = ((uintptr_t)d >> 4) & 63u;
  if (cache[h].d != d) {
    cache[h].d = d;
    cache[h].r = is_map_desc(d);
  }
  return cache[h].r;
}

static size_t elem_size(ProtobufCType t) {
  switch (t) {
    case PBC(TYPE_INT64): case PBC(TYPE_SINT64): case PBC(TYPE_SFIXED64):
    case PBC(TYPE_UINT64): case PBC(TYPE_FIXED64): case PBC(TYPE_DOUBLE):
      return 8;
    case PBC(TYPE_BOOL): return sizeof(protobuf_c_boolean);
    case PBC(TYPE_STRING): return sizeof(char *);
    case PBC(TYPE_BYTES): return sizeof(ProtobufCBinaryData);
    case PBC(TYPE_MESSAGE): return sizeof(ProtobufCMessage *);
    default: return 4;
  }
}

/* protoc's ToJsonName: drop '_' and upper-case the next letter. */

static int json_name_eq(const char *name, const char *key) {
  int up = 0;
  for (; *name; name++) {
    char c;
    if (*name == '_') { up = 1; continue; }
    c = (char)(up && *name >= 'a' && *name <= 'z' ? *name - 32 : *name);
    if (*key++ != c) return 0;
    up = 0;
  }
  return *key == '\0';
}

/* Map entry order: bytewise for strings, numeric otherwise. */
static int key_cmp(const ProtobufCMessage *a, const ProtobufCMessage *b) {
  const ProtobufCFieldDescriptor *k = &a->descriptor->fields[0];
  const char *pa = CAT(a, k->offset), *pb = CAT(b, k->offset);
#define CMP(T) return (*(const T *)pa > *(const T *)pb) - (*(const T *)pa < *(const T *)pb)
  switch (k->type) {
    case PBC(TYPE_STRING): {
      const char *x = *(char *const *)pa, *y = *(char *const *)pb;
      return strcmp(x ? x : "", y ? y : "");
    }
    case PBC(TYPE_UINT32): case PBC(TYPE_FIXED32): CMP(uint32_t);
    case PBC(TYPE_INT64): case PBC(TYPE_SINT64): case PBC(TYPE_SFIXED64):
      CMP(int64_t);
    case PBC(TYPE_UINT64): case PBC(TYPE_FIXED64): CMP(uint64_t);
    case PBC(TYPE_BOOL): CMP(protobuf_c_boolean);
    default: CMP(int32_t);
  }
#undef CMP
}

static int entry_ptr_cmp(const void *a, const void *b) {
  return key_cmp(*(ProtobufCMessage *const *)a, *(ProtobufCMessage *const *)b);
}

int kf_json_number(double d, char out[32]) {
  char t[40], dig[24];
  int p, nd = 0, ex, n = 0, i;
  const char *s;
  if (d == 0) return (int)strlen(strcpy(out, signbit(d) ? "-0" : "0"));
  /* fewest significant digits that read back as the same double */
  for (p = 1; p <= 17; p++) {
    snprintf(t, sizeof t, "%.*e", p - 1, d);
    if (strtod(t, NULL) == d) break;
  }
  s = t;
  if (*s == '-') out[n++] = *s++;
  for (; *s && *s != 'e'; s++)   /* digits only: the point is locale's */
    if (*s >= '0' && *s <= '9') dig[nd++] = *s;
  ex = atoi(s + 1);
  while (nd > 1 && dig[nd - 1] == '0') nd--;
  if (ex >= -4 && ex < 16) {     /* Python repr switches at 1e-4 / 1e16 */
    if (ex < 0) {
      out[n++] = '0'; out[n++] = '.';
      for (i = -1; i > ex; i--) out[n++] = '0';
      for (i = 0; i < nd; i++) out[n++] = dig[i];
    } else {
      for (i = 0; i <= ex || i < nd; i++) {
        if (i == ex + 1) out[n++] = '.';
        out[n++] = i < nd ? dig[i] : '0';
      }
    }
    out[n] = '\0';
    return n;
  }
  out[n++] = dig[0];
  if (nd > 1) {
    out[n++] = '.';
    for (i = 1; i < nd; i++) out[n++] = dig[i];
  }
  return n + snprintf(out + n, 32 - (size_t)n, "e%c%02d", ex < 0 ? '-' : '+',
                      ex < 0 ? -ex : ex);
}

/* float fields: json_format's ToShortestFloat (>= 6 digits that survive
** the float round trip), as a double */
static double short_float(float f) {
  char t[40];
  int p;
  if (!isfinite(f)) return f;
  for (p = 6; p < 10; p++) {
    double d;
    snprintf(t, sizeof t, "%.*g", p, (double)f);
    d = strtod(t, NULL);
    if ((float)d == f) return d;
  }
  return f;
}

static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t b64_enc(const uint8_t *p, size_t n, char *o) {
  size_t i, k = 0;
  for (i = 0; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    o[k++] = B64[v >> 18]; o[k++] = B64[v >> 12 & 63];
    o[k++] = B64[v >> 6 & 63]; o[k++] = B64[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
    o[k++] = B64[v >> 18]; o[k++] = B64[v >> 12 & 63];
    o[k++] = i + 1 < n ? B64[v >> 6 & 63] : '=';
    o[k++] = '=';
  }
  return k;
}

/* ---- sinks ------------------------------------------------------------ */

typedef struct sink sink;
struct sink {
  int (*open)(sink *s, kf_ntype t);
  int (*close)(sink *s, kf_ntype t);
  int (*key)(sink *s, const char *k, size_t n, int camel);
  int (*val)(sink *s, const kf_node *v);
  int (*bytes)(sink *s, const uint8_t *p, size_t n);
  kf_alloc a;     /* temporary memory (sorting map entries) */
  int depth;      /* open containers */
};

static kf_status s_open(sink *s, kf_ntype t) {
  if (s->depth >= KF_MAX_DEPTH) return KF_ELIMIT;
  if (!s->open(s, t)) return KF_ENOMEM;
  s->depth++;
  return KF_OK;
}

static kf_status s_close(sink *s, kf_ntype t) {
  s->depth--;
  return s->close(s, t) ? KF_OK : KF_ENOMEM;
}

static kf_status s_val(sink *s, const kf_node *v) {
  return s->val(s, v) ? KF_OK : KF_ENOMEM;
}

/* JSON text writer. `first`: nothing written yet in the open container;
** `afterkey`: the next value follows "key:" directly. */
typedef struct jw {
  sink s;
  kf_buf *b;
  int indent, first, afterkey;
} jw;

static void jw_sep(jw *w) {
  int i;
  if (w->afterkey) { w->afterkey = 0; return; }
  if (!w->first && w->s.depth > 0) kf_buf_addc(w->b, ',');
  w->first = 0;
  if (w->indent && w->s.depth > 0) {
    kf_buf_addc(w->b, '\n');
    for (i = 0; i < w->indent * w->s.depth; i++) kf_buf_addc(w->b, ' ');
  }
}

/* RFC 8259 escaping as json.dumps(ensure_ascii=False) does it. */
static void jw_str(kf_buf *b, const char *p, size_t n) {
  size_t i, run = 0;
  kf_buf_addc(b, '"');
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    const char *esc = NULL;
    char u[8];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    switch (c) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      default: snprintf(u, sizeof u, "\\u%04x", c); esc = u;
    }
    kf_buf_add(b, p + run, i - run);
    kf_buf_adds(b, esc);
    run = i + 1;
  }
  kf_buf_add(b, p + run, n - run);
  kf_buf_addc(b, '"');
}

static int jw_open(sink *s, kf_ntype t) {
  jw *w = (jw *)s;
  jw_sep(w);
  kf_buf_addc(w->b, t == KF_NOBJ ? '{' : '[');
  w->first = 1;
  return !w->b->oom;
}

static int jw_close(sink *s, kf_ntype t) {
  jw *w = (jw *)s;
  int i;
  if (!w->first && w->indent) {
    kf_buf_addc(w->b, '\n');
    for (i = 0; i < w->indent * s->depth; i++) kf_buf_addc(w->b, ' ');
  }
  kf_buf_addc(w->b, t == KF_NOBJ ? '}' : ']');
  w->first = 0;
  return !w->b->oom;
}

static int jw_key(sink *s, const char *k, size_t n, int camel) {
  jw *w = (jw *)s;
  jw_sep(w);
  if (camel) {  /* descriptor names are identifiers: nothing to escape */
    char t[130];
    size_t i = 1, len = n ? n : strlen(k);
    const char *end = k + (len < 120 ? len : 120), *us;
    t[0] = '"';
    /* copy runs between underscores; the letter after one goes upper */
    while ((us = memchr(k, '_', (size_t)(end - k))) != NULL) {
      memcpy(t + i, k, (size_t)(us - k));
      i += (size_t)(us - k);
      k = us + 1;
      if (k < end) {
        t[i++] = (char)(*k >= 'a' && *k <= 'z' ? *k - 32 : *k);
        k++;
      }
    }
    memcpy(t + i, k, (size_t)(end - k));
    i += (size_t)(end - k);
    t[i++] = '"';
    kf_buf_add(w->b, t, i);
  } else {
    jw_str(w->b, k, n);
  }
  kf_buf_adds(w->b, w->indent ? ": " : ":");
  w->afterkey = 1;
  return !w->b->oom;
}

static int jw_val(sink *s, const kf_node *v) {
  jw *w = (jw *)s;
  char t[32];
  jw_sep(w);
  switch (v->t) {
    case KF_NBOOL: kf_buf_adds(w->b, v->u.b ? "true" : "false"); break;
    case KF_NINT: kf_format_int(v->u.i, t); kf_buf_adds(w->b, t); break;
    case KF_NNUM:
      if (isnan(v->u.d)) jw_str(w->b, "NaN", 3);
      else if (isinf(v->u.d))
        v->u.d > 0 ? jw_str(w->b, "Infinity", 8) : jw_str(w->b, "-Infinity", 9);
      else kf_buf_add(w->b, t, (size_t)kf_json_number(v->u.d, t));
      break;
    case KF_NSTR: jw_str(w->b, v->u.s.p, v->u.s.n); break;
    default: kf_buf_adds(w->b, "null");
  }
  return !w->b->oom;
}

static int jw_bytes(sink *s, const uint8_t *p, size_t n) {
  jw *w = (jw *)s;
  char t[64];
  jw_sep(w);
  kf_buf_addc(w->b, '"');
  for (; n > 48; p += 48, n -= 48) kf_buf_add(w->b, t, b64_enc(p, 48, t));
  kf_buf_add(w->b, t, b64_enc(p, n, t));
  kf_buf_addc(w->b, '"');
  return !w->b->oom;
}

static void jw_init(jw *w, kf_buf *b, int indent) {
  memset(w, 0, sizeof *w);
  w->s.open = jw_open; w->s.close = jw_close; w->s.key = jw_key;
  w->s.val = jw_val; w->s.bytes = jw_bytes;
  w->s.a = b->a;
  w->b = b;
  w->indent = indent > 0 ? indent : 0;
  w->first = 1;
}

/* kf_node builder: containers on a stack, the pending key for objects. */
typedef struct nb {
  sink s;
  kf_arena *A;
  kf_node *stk[KF_MAX_DEPTH];
  const char *key;
  kf_node *root;
} nb;

static int nb_put(nb *b, kf_node *v) {
  if (v == NULL) return 0;
  if (b->s.depth == 0) return (b->root = v, 1);
  return kf_node_push(b->A, b->stk[b->s.depth - 1], b->key, v);
}

static int nb_open(sink *s, kf_ntype t) {
  nb *b = (nb *)s;
  kf_node *n = kf_node_new(b->A, t);
  if (!nb_put(b, n)) return 0;
  b->stk[s->depth] = n;
  return 1;
}

static int nb_close(sink *s, kf_ntype t) { (void)s; (void)t; return 1; }

static int nb_key(sink *s, const char *k, size_t n, int camel) {
  nb *b = (nb *)s;
  char *p;
  if (camel && strchr(k, '_') == NULL) {
    p = (char *)k;  /* descriptor names are static: no copy needed */
  } else if (camel) {
    char t[128];
    n = kf_json_name(k, t, sizeof t);
    p = n < sizeof t ? kf_arena_strndup(b->A, t, n) : NULL;
    if (n >= sizeof t && (p = (char *)kf_arena_alloc(b->A, n + 1)) != NULL)
      kf_json_name(k, p, n + 1);
  } else {
    p = kf_arena_strndup(b->A, k, n);
  }
  b->key = p;
  return p != NULL;
}

static int nb_val(sink *s, const kf_node *v) {
  nb *b = (nb *)s;
  kf_node *n;
  if (v->t == KF_NSTR) return nb_put(b, kf_node_str(b->A, v->u.s.p, v->u.s.n));
  if ((n = kf_node_new(b->A, v->t)) != NULL) n->u = v->u;
  return nb_put(b, n);
}

static int nb_bytes(sink *s, const uint8_t *p, size_t n) {
  nb *b = (nb *)s;
  kf_node *v = kf_node_new(b->A, KF_NSTR);
  char *o = (char *)kf_arena_alloc(b->A, (n + 2) / 3 * 4 + 1);
  if (v == NULL || o == NULL) return 0;
  v->u.s.p = o;
  v->u.s.n = b64_enc(p, n, o);
  return nb_put(b, v);
}

static void nb_init(nb *b, kf_arena *A) {
  memset(b, 0, sizeof *b);
  b->s.open = nb_open; b->s.close = nb_close; b->s.key = nb_key;
  b->s.val = nb_val; b->s.bytes = nb_bytes;
  b->s.a = A->a;
  b->A = A;
}

/* ---- walker: message / node -> sink ----------------------------------- */

static kf_status w_msg(sink *s, const ProtobufCMessage *m);

static kf_node mk_str(const char *p) {
  kf_node v;
  memset(&v, 0, sizeof v);
  v.t = KF_NSTR;
  v.u.s.p = p ? p : "";
  v.u.s.n = strlen(v.u.s.p);
  return v;
}

/* One value of field f stored at p. */
static kf_status w_value(sink *s, const ProtobufCFieldDescriptor *f,
                         const void *p) {
  kf_node v;
  char t[32];
  memset(&v, 0, sizeof v);
  v.t = KF_NINT;
  switch (f->type) {
    case PBC(TYPE_INT32): case PBC(TYPE_SINT32): case PBC(TYPE_SFIXED32):
      v.u.i = *(const int32_t *)p; break;
    case PBC(TYPE_UINT32): case PBC(TYPE_FIXED32):
      v.u.i = *(const uint32_t *)p; break;
    case PBC(TYPE_INT64): case PBC(TYPE_SINT64): case PBC(TYPE_SFIXED64):
      snprintf(t, sizeof t, "%" PRId64, *(const int64_t *)p);  /* proto3 JSON */
      v = mk_str(t); break;
    case PBC(TYPE_UINT64): case PBC(TYPE_FIXED64):
      snprintf(t, sizeof t, "%" PRIu64, *(const uint64_t *)p);
      v = mk_str(t); break;
    case PBC(TYPE_FLOAT):
      v.t = KF_NNUM; v.u.d = short_float(*(const float *)p); break;
    case PBC(TYPE_DOUBLE):
      v.t = KF_NNUM; v.u.d = *(const double *)p; break;
    case PBC(TYPE_BOOL):
      v.t = KF_NBOOL; v.u.b = *(const protobuf_c_boolean *)p != 0; break;
    case PBC(TYPE_ENUM): {
      const ProtobufCEnumValue *ev;
      v.u.i = *(const int32_t *)p;
      if (is_null_enum(f)) v.t = KF_NNIL;
      else if ((ev = protobuf_c_enum_descriptor_get_value(
                    (const ProtobufCEnumDescriptor *)f->descriptor,
                    (int)v.u.i)) != NULL)
        v = mk_str(ev->name);       /* unknown numbers stay numbers */
      break;
    }
    case PBC(TYPE_STRING): v = mk_str(*(char *const *)p); break;
    case PBC(TYPE_BYTES): {
      const ProtobufCBinaryData *bd = (const ProtobufCBinaryData *)p;
      return s->bytes(s, bd->data, bd->len) ? KF_OK : KF_ENOMEM;
    }
    case PBC(TYPE_MESSAGE): {
      const ProtobufCMessage *sub = *(ProtobufCMessage *const *)p;
      int w = wkt((const ProtobufCMessageDescriptor *)f->descriptor);
      kf_ntype ct = w == W_LIST ? KF_NARR : KF_NOBJ;
      if (sub != NULL) return w_msg(s, sub);
      if (w == W_VALUE) { v.t = KF_NNIL; break; }  /* unset Value is null */
      TRY(s_open(s, ct));
      return s_close(s, ct);
    }
  }
  if (v.t == KF_NNUM && !isfinite(v.u.d))
    v = mk_str(isnan(v.u.d) ? "NaN" : v.u.d > 0 ? "Infinity" : "-Infinity");
  return s_val(s, &v);
}

static kf_status w_array(sink *s, const ProtobufCFieldDescriptor *f,
                         const ProtobufCMessage *m) {
  size_t i, n = *(const size_t *)CAT(m, f->quantifier_offset);
  const char *arr = *(char *const *)CAT(m, f->offset);
  size_t sz = elem_size(f->type);
  TRY(s_open(s, KF_NARR));
  for (i = 0; i < n; i++) TRY(w_value(s, f, arr + i * sz));
  return s_close(s, KF_NARR);
}

typedef struct ment { const ProtobufCMessage *m; size_t i; } ment;

static int ment_cmp(const void *a, const void *b) {
  const ment *x = (const ment *)a, *y = (const ment *)b;
  int c = key_cmp(x->m, y->m);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Map as an object with sorted keys; of duplicate keys the last wins, as
** when parsing the wire format. */
static kf_status w_map(sink *s, const ProtobufCFieldDescriptor *f,
                       const ProtobufCMessage *m) {
  size_t i, n = *(const size_t *)CAT(m, f->quantifier_offset);
  ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *)CAT(m, f->offset);
  const ProtobufCMessageDescriptor *ed = (const ProtobufCMessageDescriptor *)f->descriptor;
  const ProtobufCFieldDescriptor *kf = &ed->fields[0], *vf = &ed->fields[1];
  ment *v = NULL;
  kf_status st = KF_OK;
  if (n > 0) {
    if (n > (size_t)-1 / sizeof *v) return KF_ENOMEM;
    v = (ment *)s->a.f(s->a.ud, NULL, 0, n * sizeof *v);
    if (v == NULL) return KF_ENOMEM;
    for (i = 0; i < n; i++) { v[i].m = arr[i]; v[i].i = i; }
    qsort(v, n, sizeof *v, ment_cmp);
  }
  st = s_open(s, KF_NOBJ);
  for (i = 0; i < n && st == KF_OK; i++) {
    const char *kp = CAT(v[i].m, kf->offset);
    char t[32];
    const char *k = t;
    if (i + 1 < n && key_cmp(v[i].m, v[i + 1].m) == 0) continue;
    switch (kf->type) {
      case PBC(TYPE_STRING): k = *(char *const *)kp; if (!k) k = ""; break;
      case PBC(TYPE_BOOL): k = *(const protobuf_c_boolean *)kp ? "true" : "false"; break;
      case PBC(TYPE_UINT32): case PBC(TYPE_FIXED32):
        snprintf(t, sizeof t, "%" PRIu32, *(const uint32_t *)kp); break;
      case PBC(TYPE_INT64): case PBC(TYPE_SINT64): case PBC(TYPE_SFIXED64):
        snprintf(t, sizeof t, "%" PRId64, *(const int64_t *)kp); break;
      case PBC(TYPE_UINT64): case PBC(TYPE_FIXED64):
        snprintf(t, sizeof t, "%" PRIu64, *(const uint64_t *)kp); break;
      default: snprintf(t, sizeof t, "%" PRId32, *(const int32_t *)kp);
    }
    if (!s->key(s, k, strlen(k), 0)) st = KF_ENOMEM;
    else st = w_value(s, vf, CAT(v[i].m, vf->offset));
  }
  if (v) s->a.f(s->a.ud, v, n * sizeof *v, 0);
  TRY(st);
  return s_close(s, KF_NOBJ);
}

/* MessageToDict's field selection: set fields only (ListFields). */
static int present(const ProtobufCFieldDescriptor *f, const ProtobufCMessage *m) {
  const char *p = CAT(m, f->offset);
  static const char zero[8];
  if (f->label == PBC(LABEL_REPEATED))
    return *(const size_t *)CAT(m, f->quantifier_offset) > 0;
  if (f->flags & PBC(FIELD_FLAG_ONEOF))
    return *(const uint32_t *)CAT(m, f->quantifier_offset) == f->id;
  if (f->type == PBC(TYPE_MESSAGE)) return *(void *const *)p != NULL;
  if (f->label == PBC(LABEL_REQUIRED)) return 1;
  if (f->type == PBC(TYPE_STRING)) {
    const char *str = *(char *const *)p;
    return str != NULL && (f->label == PBC(LABEL_OPTIONAL) || *str);
  }
  if (f->label == PBC(LABEL_OPTIONAL))
    return *(const protobuf_c_boolean *)CAT(m, f->quantifier_offset);
  if (f->type == PBC(TYPE_BYTES)) return ((const ProtobufCBinaryData *)p)->len > 0;
  return memcmp(p, zero, elem_size(f->type)) != 0;  /* -0.0 counts as set */
}

static kf_status w_msg(sink *s, const ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  unsigned i;
  switch (wkt(d)) {
    case W_STRUCT: return w_map(s, &d->fields[0], m);
    case W_LIST: return w_array(s, &d->fields[0], m);
    case W_VALUE: {
      uint32_t c = *(const uint32_t *)CAT(m, d->fields[0].quantifier_offset);
      kf_node v;
      memset(&v, 0, sizeof v);
      for (i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->id != c) continue;
        if (f->type == PBC(TYPE_DOUBLE)) {
          double x = *(const double *)CAT(m, f->offset);
          /* integral numbers read back as integers (Lua integers) */
          if (x == floor(x) && fabs(x) <= 9007199254740992.0) {
            v.t = KF_NINT; v.u.i = (int64_t)x;
            return s_val(s, &v);
          }
        }
        return w_value(s, f, CAT(m, f->offset));
      }
      v.t = KF_NNIL;     /* kind not set: null, as json_format does */
      return s_val(s, &v);
    }
  }
  TRY(s_open(s, KF_NOBJ));
  for (i = 0; i < d->n_fields; i++) {   /* descriptors list fields by number */
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (!present(f, m)) continue;
    if (!s->key(s, f->name, 0, 1)) return KF_ENOMEM;
    if (is_map(f)) TRY(w_map(s, f, m));
    else if (f->label == PBC(LABEL_REPEATED)) TRY(w_array(s, f, m));
    else TRY(w_value(s, f, CAT(m, f->offset)));
  }
  return s_close(s, KF_NOBJ);
}

static kf_status w_node(sink *s, const kf_node *n) {
  size_t i;
  kf_node nil;
  if (n == NULL) {
    memset(&nil, 0, sizeof nil);
    return s_val(s, &nil);
  }
  if (n->t != KF_NOBJ && n->t != KF_NARR) return s_val(s, n);
  TRY(s_open(s, n->t));
  for (i = 0; i < n->u.c.n; i++) {
    if (n->t == KF_NOBJ && !s->key(s, n->u.c.k[i], strlen(n->u.c.k[i]), 0))
      return KF_ENOMEM;
    TRY(w_node(s, n->u.c.v[i]));
  }
  return s_close(s, n->t);
}

static kf_status w_finish(kf_status st, kf_buf *out, size_t start, kf_err *e) {
  if (st == KF_OK && out->oom) st = KF_ENOMEM;
  if (st == KF_OK) return KF_OK;
  out->n = start;   /* no half-written document */
  if (st == KF_ELIMIT)
    return kf_fail(e, KF_ELIMIT, "JSON nested deeper than %d levels",
                   KF_MAX_DEPTH);
  return kf_nomem(e);
}

kf_status kf_msg_to_json(const ProtobufCMessage *m, int indent, kf_buf *out,
                         kf_err *e) {
  jw w;
  size_t start = out->n;
  jw_init(&w, out, indent);
  return w_finish(w_msg(&w.s, m), out, start, e);
}

kf_status kf_node_to_json(const kf_node *n, int indent, kf_buf *out,
                          kf_err *e) {
  jw w;
  size_t start = out->n;
  jw_init(&w, out, indent);
  return w_finish(w_node(&w.s, n), out, start, e);
}

kf_node *kf_msg_to_node(const ProtobufCMessage *m, kf_arena *A) {
  nb b;
  nb_init(&b, A);
  return w_msg(&b.s, m) == KF_OK ? b.root : NULL;
}

kf_node *kf_struct_to_node(const Google__Protobuf__Struct *s, kf_arena *A) {
  return kf_msg_to_node(&s->base, A);
}

/* ---- JSON text -> kf_node (jansson) ----------------------------------- */

static kf_node *from_jansson(json_t *j, kf_arena *A, int depth, kf_status *st) {
  kf_node *n;
  switch (json_typeof(j)) {
    case JSON_OBJECT: case JSON_ARRAY: {
      int obj = json_is_object(j);
      size_t i, cnt = obj ? json_object_size(j) : json_array_size(j);
      void *it = obj ? json_object_iter(j) : NULL;   /* insertion order */
      if (depth >= KF_MAX_DEPTH) return (*st = KF_ELIMIT, NULL);
      if ((n = kf_node_new(A, obj ? KF_NOBJ : KF_NARR)) == NULL) break;
      for (i = 0; i < cnt; i++) {
        const char *k = NULL;
        json_t *c = obj ? json_object_iter_value(it) : json_array_get(j, i);
        kf_node *v;
        if (obj) {
          k = json_object_iter_key(it);
          if ((k = kf_arena_strndup(A, k, strlen(k))) == NULL) return NULL;
          it = json_object_iter_next(j, it);
        }
        if ((v = from_jansson(c, A, depth + 1, st)) == NULL ||
            !kf_node_push(A, n, k, v))
          return NULL;
      }
      return n;
    }
    case JSON_STRING:
      return kf_node_str(A, json_string_value(j), json_string_length(j));
    case JSON_INTEGER: return kf_node_int(A, (int64_t)json_integer_value(j));
    case JSON_REAL:
      if ((n = kf_node_new(A, KF_NNUM)) != NULL) n->u.d = json_real_value(j);
      return n;
    case JSON_TRUE: case JSON_FALSE:
      if ((n = kf_node_new(A, KF_NBOOL)) != NULL) n->u.b = json_is_true(j);
      return n;
    default: return kf_node_new(A, KF_NNIL);
  }
  return NULL;
}

kf_status kf_json_parse(const char *s, size_t n, kf_arena *A, kf_node **out,
                        kf_err *e) {
  json_error_t err;
  kf_status st = KF_ENOMEM;
  json_t *j = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
  *out = NULL;
  if (j == NULL) {
    switch (json_error_code(&err)) {
      case json_error_out_of_memory: return kf_nomem(e);
      case json_error_stack_overflow:
        return kf_fail(e, KF_ELIMIT, "JSON nested deeper than %d levels",
                       KF_MAX_DEPTH);
      default:
        return kf_fail(e, KF_EINVAL, "line %d, column %d: %s", err.line,
                       err.column, err.text);
    }
  }
  *out = from_jansson(j, A, 0, &st);
  json_decref(j);                 /* jansson's memory is gone before return */
  if (*out != NULL) return KF_OK;
  if (st == KF_ELIMIT)
    return kf_fail(e, KF_ELIMIT, "JSON nested deeper than %d levels",
                   KF_MAX_DEPTH);
  return kf_nomem(e);
}

/* ---- kf_node -> message ----------------------------------------------- */

typedef struct pc {
  kf_arena *A;
  kf_err *e;
  const char *who;
  int allow_unknown;
  size_t plen;
  char path[KF_ERRMAX];
} pc;

static kf_status pfail(pc *c, kf_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static kf_status pfail(pc *c, kf_status code, const char *fmt, ...) {
  char msg[KF_ERRMAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->who && c->plen) return kf_fail(c->e, code, "%s: %s: %s", c->who, c->path, msg);
  if (c->who) return kf_fail(c->e, code, "%s: %s", c->who, msg);
  if (c->plen) return kf_fail(c->e, code, "%s: %s", c->path, msg);
  return kf_fail(c->e, code, "%s", msg);
}

static kf_status pnomem(pc *c) { return kf_nomem(c->e); }

/* Append to the path by hand: this runs for every field parsed, and
** vsnprintf cost more than the parse itself. */
static size_t path_put(pc *c, const char *s, size_t n) {
  size_t mark = c->plen;
  if (n > sizeof c->path - 1 - c->plen) n = sizeof c->path - 1 - c->plen;  /* truncated */
  memcpy(c->path + c->plen, s, n);
  c->plen += n;
  c->path[c->plen] = '\0';
  return mark;
}

static size_t path_index(pc *c, size_t i) {
  char t[40];
  t[0] = '[';
  kf_format_int((int64_t)i, t + 1);
  strcat(t, "]");
  return path_put(c, t, strlen(t));
}

/* Keys: ".name" (no dot first) when identifier-like, else ["key"]. */
static size_t path_key(pc *c, const char *k) {
  const char *p = k;
  size_t mark = c->plen;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
      break;
  if (*p || !*k) {
    path_put(c, "[\"", 2);
    path_put(c, k, strlen(k));
    path_put(c, "\"]", 2);
    return mark;
  }
  if (c->plen) path_put(c, ".", 1);
  path_put(c, k, (size_t)(p - k));
  return mark;
}

static void path_pop(pc *c, size_t mark) {
  c->plen = mark;
  c->path[mark] = '\0';
}

static const char *tname(const kf_node *n) {
  switch (n ? n->t : KF_NNIL) {
    case KF_NBOOL: return "boolean";
    case KF_NINT: case KF_NNUM: return "number";
    case KF_NSTR: return "string";
    case KF_NARR: return "array";
    case KF_NOBJ: return "object";
    default: return "null";
  }
}

/* A short rendering of a bad scalar for messages: 2.5, "abc", true. */
static const char *show(const kf_node *n, char *t, size_t cap) {
  if (n->t == KF_NINT) snprintf(t, cap, "%" PRId64, n->u.i);
  else if (n->t == KF_NNUM) {
    if (isnan(n->u.d)) snprintf(t, cap, "nan");
    else if (isinf(n->u.d)) snprintf(t, cap, n->u.d > 0 ? "inf" : "-inf");
    else kf_json_number(n->u.d, t);
  } else if (n->t == KF_NSTR)
    snprintf(t, cap, "\"%.*s%s\"", n->u.s.n > 40 ? 40 : (int)n->u.s.n,
             n->u.s.p, n->u.s.n > 40 ? "..." : "");
  else snprintf(t, cap, "%s", tname(n));
  return t;
}

static int utf8_ok(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i], k, cp, j;
    if (c < 0x80) { i++; continue; }
    if (c >= 0xC2 && c <= 0xDF) { k = 1; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { k = 2; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { k = 3; cp = c & 0x07; }
    else return 0;
    if (n - i <= k) return 0;
    for (j = 1; j <= k; j++) {
      if ((s[i + j] & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (s[i + j] & 0x3F);
    }
    /* overlong forms, surrogates, beyond U+10FFFF */
    if ((k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
      return 0;
    i += k + 1;
  }
  return 1;
}

static int b64_val(int ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+' || ch == '-') return 62;   /* standard and URL-safe */
  if (ch == '/' || ch == '_') return 63;
  return -1;
}

static kf_status p_bytes(pc *c, const kf_node *v, ProtobufCBinaryData *out) {
  size_t n = v->u.s.n, i, k = 0;
  uint32_t acc = 0;
  int bits = 0;
  uint8_t *o;
  while (n > 0 && v->u.s.p[n - 1] == '=') n--;
  if (v->u.s.n - n > 2 || n % 4 == 1 || (v->u.s.n != n && v->u.s.n % 4))
    return pfail(c, KF_EINVAL, "invalid base64 string");
  if ((o = (uint8_t *)kf_arena_alloc(c->A, n * 3 / 4 + 1)) == NULL) return pnomem(c);
  for (i = 0; i < n; i++) {
    int d = b64_val((unsigned char)v->u.s.p[i]);
    if (d < 0) return pfail(c, KF_EINVAL, "invalid base64 string");
    acc = acc << 6 | (uint32_t)d;
    if ((bits += 6) >= 8) { bits -= 8; o[k++] = (uint8_t)(acc >> bits); }
  }
  out->data = o;
  out->len = k;
  return KF_OK;
}

/* Is s a JSON number (no leading '+', no hex, no inf/nan)? */
static int json_number_syntax(const char *s, size_t n, int *integral) {
  size_t i = 0;
  *integral = 1;
  if (i < n && s[i] == '-') i++;
  if (i < n && s[i] == '0') i++;
  else if (i < n && s[i] >= '1' && s[i] <= '9')
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  else return 0;
  if (i < n && s[i] == '.') {
    *integral = 0;
    if (++i >= n || s[i] < '0' || s[i] > '9') return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    *integral = 0;
    if (++i < n && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= n || s[i] < '0' || s[i] > '9') return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  }
  return i == n;
}

/* Integer in [lo, hi] (int64 types) or [0, uhi] (unsigned) from a number,
** an integral real (2.0) or a numeric string (proto3 JSON allows "2"). */
static kf_status p_int(pc *c, const kf_node *v, const char *type, int uns,
                       int64_t lo, int64_t hi, uint64_t uhi, int64_t *si,
                       uint64_t *ui) {
  char t[64];
  int neg = 0, integral, over = 0;
  uint64_t mag = 0;
  double d;
  switch (v->t) {
    case KF_NINT:
      neg = v->u.i < 0;
      mag = neg ? (uint64_t)(-(v->u.i + 1)) + 1 : (uint64_t)v->u.i;
      break;
    case KF_NNUM:
      d = v->u.d;
    real:
      if (!isfinite(d) || d != floor(d))
        return pfail(c, KF_EINVAL, "expected an integer, got %s", show(v, t, sizeof t));
      neg = d < 0;
      if (fabs(d) >= 18446744073709551616.0) over = 1;
      else mag = (uint64_t)fabs(d);
      break;
    case KF_NSTR: {
      char buf[48];
      const char *p;
      if (v->u.s.n >= sizeof buf ||
          !json_number_syntax(v->u.s.p, v->u.s.n, &integral))
        return pfail(c, KF_EINVAL, "expected an integer, got %s", show(v, t, sizeof t));
      memcpy(buf, v->u.s.p, v->u.s.n);
      buf[v->u.s.n] = '\0';
      if (!integral) { d = strtod(buf, NULL); goto real; }
      neg = buf[0] == '-';
      for (p = buf + neg; *p; p++) {
        unsigned dg = (unsigned)(*p - '0');
        if (mag > (UINT64_MAX - dg) / 10) over = 1;
        mag = mag * 10 + dg;
      }
      break;
    }
    default:
      return pfail(c, KF_EINVAL, "expected an integer, got %s", tname(v));
  }
  if (neg && mag == 0) neg = 0;
  if (uns ? (neg || over || mag > uhi)
          : (over || (neg ? mag > (uint64_t)(-(lo + 1)) + 1 : mag > (uint64_t)hi)))
    return pfail(c, KF_EINVAL, "integer out of %s range (%s)", type,
                 v->t == KF_NSTR ? (snprintf(t, sizeof t, "%.*s", (int)(v->u.s.n > 40 ? 40 : v->u.s.n), v->u.s.p), t)
                                 : show(v, t, sizeof t));
  if (uns) *ui = mag;
  else *si = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return KF_OK;
}

static kf_status p_enum(pc *c, const kf_node *v, const ProtobufCEnumDescriptor *ed,
                        int32_t *out) {
  const ProtobufCEnumValue *ev = NULL;
  char t[64], list[256];
  size_t i, k = 0;
  if (v->t == KF_NSTR) {
    ev = protobuf_c_enum_descriptor_get_value_by_name(ed, v->u.s.p);
    if (ev != NULL && strlen(ev->name) != v->u.s.n) ev = NULL;  /* NUL inside */
  } else if (v->t == KF_NINT || v->t == KF_NNUM) {
    double d = v->t == KF_NINT ? (double)v->u.i : v->u.d;
    if (!isfinite(d) || d != floor(d))
      return pfail(c, KF_EINVAL, "expected an enum name or number, got %s",
                   show(v, t, sizeof t));
    if (d >= INT32_MIN && d <= INT32_MAX)
      ev = protobuf_c_enum_descriptor_get_value(ed, (int)d);
  } else {
    return pfail(c, KF_EINVAL, "expected an enum name or number, got %s", tname(v));
  }
  if (ev != NULL) { *out = ev->value; return KF_OK; }
  list[0] = '\0';
  for (i = 0; i < ed->n_values; i++) {   /* values are in number order */
    size_t len = strlen(ed->values[i].name);
    if (k + len + 2 > 200) { strcpy(list + k, i ? ", ..." : "..."); break; }
    k += (size_t)sprintf(list + k, "%s%s", i ? ", " : "", ed->values[i].name);
  }
  if (v->t == KF_NSTR)
    return pfail(c, KF_EINVAL, "unknown enum value '%.*s' (expected one of %s)",
                 v->u.s.n > 40 ? 40 : (int)v->u.s.n, v->u.s.p, list);
  return pfail(c, KF_EINVAL, "unknown enum value %s (expected one of %s)",
               show(v, t, sizeof t), list);
}

static kf_status p_msg(pc *c, const kf_node *n, const ProtobufCMessageDescriptor *d,
                       ProtobufCMessage **out, int depth);

/* Count JSON containers (not messages) so the limit matches the parser's. */
static kf_status enter(pc *c, const kf_node *n, int *depth) {
  if (n != NULL && (n->t == KF_NOBJ || n->t == KF_NARR) && ++*depth > KF_MAX_DEPTH)
    return pfail(c, KF_ELIMIT, "nested deeper than %d levels", KF_MAX_DEPTH);
  return KF_OK;
}

/* One value of field f (not null unless f is a Value) into p. */
static kf_status p_value(pc *c, const kf_node *v, const ProtobufCFieldDescriptor *f,
                         void *p, int depth) {
  int64_t si = 0;
  uint64_t ui = 0;
  char t[64];
  switch (f->type) {
    case PBC(TYPE_MESSAGE):
      return p_msg(c, v, (const ProtobufCMessageDescriptor *)f->descriptor,
                   (ProtobufCMessage **)p, depth);
    case PBC(TYPE_ENUM):
      return p_enum(c, v, (const ProtobufCEnumDescriptor *)f->descriptor, (int32_t *)p);
    case PBC(TYPE_STRING):
      if (v->t != KF_NSTR)
        return pfail(c, KF_EINVAL, "expected a string, got %s", tname(v));
      if (v->u.s.n > KF_MAX_STRING)
        return pfail(c, KF_ELIMIT, "string longer than the limit of 1 MiB");
      if (memchr(v->u.s.p, 0, v->u.s.n))
        return pfail(c, KF_EINVAL, "string contains a NUL byte");
      if (!utf8_ok((const unsigned char *)v->u.s.p, v->u.s.n))
        return pfail(c, KF_EINVAL, "invalid UTF-8");
      if ((*(char **)p = kf_arena_strndup(c->A, v->u.s.p, v->u.s.n)) == NULL)
        return pnomem(c);
      return KF_OK;
    case PBC(TYPE_BYTES):
      if (v->t != KF_NSTR)
        return pfail(c, KF_EINVAL, "expected a base64 string, got %s", tname(v));
      return p_bytes(c, v, (ProtobufCBinaryData *)p);
    case PBC(TYPE_BOOL):
      if (v->t != KF_NBOOL)
        return pfail(c, KF_EINVAL, "expected a boolean, got %s", tname(v));
      *(protobuf_c_boolean *)p = v->u.b != 0;
      return KF_OK;
    case PBC(TYPE_FLOAT): case PBC(TYPE_DOUBLE): {
      double d;
      int integral;
      if (v->t == KF_NINT) d = (double)v->u.i;
      else if (v->t == KF_NNUM) d = v->u.d;
      else if (v->t == KF_NSTR && strcmp(v->u.s.p, "NaN") == 0) d = NAN;
      else if (v->t == KF_NSTR && strcmp(v->u.s.p, "Infinity") == 0) d = INFINITY;
      else if (v->t == KF_NSTR && strcmp(v->u.s.p, "-Infinity") == 0) d = -INFINITY;
      else if (v->t == KF_NSTR && v->u.s.n < 64 &&
               json_number_syntax(v->u.s.p, v->u.s.n, &integral))
        d = strtod(v->u.s.p, NULL);
      else if (v->t == KF_NSTR)
        return pfail(c, KF_EINVAL, "expected a number, got %s", show(v, t, sizeof t));
      else
        return pfail(c, KF_EINVAL, "expected a number, got %s", tname(v));
      if (f->type == PBC(TYPE_DOUBLE)) { *(double *)p = d; return KF_OK; }
      if (isfinite(d) && fabs(d) > FLT_MAX)
        return pfail(c, KF_EINVAL, "number out of float range (%s)", show(v, t, sizeof t));
      *(float *)p = (float)d;
      return KF_OK;
    }
    case PBC(TYPE_INT32): case PBC(TYPE_SINT32): case PBC(TYPE_SFIXED32):
      TRY(p_int(c, v, "int32", 0, INT32_MIN, INT32_MAX, 0, &si, &ui));
      *(int32_t *)p = (int32_t)si;
      return KF_OK;
    case PBC(TYPE_UINT32): case PBC(TYPE_FIXED32):
      TRY(p_int(c, v, "uint32", 1, 0, 0, UINT32_MAX, &si, &ui));
      *(uint32_t *)p = (uint32_t)ui;
      return KF_OK;
    case PBC(TYPE_UINT64): case PBC(TYPE_FIXED64):
      TRY(p_int(c, v, "uint64", 1, 0, 0, UINT64_MAX, &si, &ui));
      *(uint64_t *)p = ui;
      return KF_OK;
    default:  /* int64, sint64, sfixed64 */
      TRY(p_int(c, v, "int64", 0, INT64_MIN, INT64_MAX, 0, &si, &ui));
      *(int64_t *)p = si;
      return KF_OK;
  }
}

static void set_presence(const ProtobufCFieldDescriptor *f, void *m) {
  if (f->flags & PBC(FIELD_FLAG_ONEOF))
    *(uint32_t *)AT(m, f->quantifier_offset) = f->id;
  else if (f->label == PBC(LABEL_OPTIONAL) && f->type != PBC(TYPE_MESSAGE) &&
           f->type != PBC(TYPE_STRING))
    *(protobuf_c_boolean *)AT(m, f->quantifier_offset) = 1;
}

static kf_status p_array(pc *c, const kf_node *n, const ProtobufCFieldDescriptor *f,
                         void *m, int depth) {
  size_t i, sz = elem_size(f->type);
  char *arr = NULL;
  if (n == NULL || n->t != KF_NARR)
    return pfail(c, KF_EINVAL, "expected an array, got %s", tname(n));
  if (n->u.c.n > KF_MAX_ITEMS)
    return pfail(c, KF_ELIMIT, "list longer than the limit of %d items", KF_MAX_ITEMS);
  if (n->u.c.n && (arr = (char *)kf_arena_alloc(c->A, n->u.c.n * sz)) == NULL)
    return pnomem(c);
  for (i = 0; i < n->u.c.n; i++) {
    const kf_node *v = n->u.c.v[i];
    size_t mark = path_index(c, i + 1);
    if ((v == NULL || v->t == KF_NNIL) && !is_value_msg(f))
      return pfail(c, KF_EINVAL, "null is not allowed in a repeated field");
    TRY(p_value(c, v, f, arr + i * sz, depth));
    path_pop(c, mark);
  }
  *(size_t *)AT(m, f->quantifier_offset) = n->u.c.n;
  *(char **)AT(m, f->offset) = arr;
  return KF_OK;
}

static kf_status p_map(pc *c, const kf_node *n, const ProtobufCFieldDescriptor *f,
                       void *m, int depth) {
  const ProtobufCMessageDescriptor *ed = (const ProtobufCMessageDescriptor *)f->descriptor;
  const ProtobufCFieldDescriptor *kf = &ed->fields[0], *vf = &ed->fields[1];
  ProtobufCMessage **arr = NULL;
  size_t i;
  if (n == NULL || n->t != KF_NOBJ)
    return pfail(c, KF_EINVAL, "expected an object, got %s", tname(n));
  if (n->u.c.n > KF_MAX_ITEMS)
    return pfail(c, KF_ELIMIT, "list longer than the limit of %d items", KF_MAX_ITEMS);
  if (n->u.c.n &&
      (arr = (ProtobufCMessage **)kf_arena_alloc(c->A, n->u.c.n * sizeof *arr)) == NULL)
    return pnomem(c);
  for (i = 0; i < n->u.c.n; i++) {
    const kf_node *v = n->u.c.v[i];
    const char *k = n->u.c.k[i];
    size_t mark = path_key(c, k);
    ProtobufCMessage *en = (ProtobufCMessage *)kf_arena_alloc(c->A, ed->sizeof_message);
    kf_node kn;
    if (en == NULL) return pnomem(c);
    protobuf_c_message_init(ed, en);
    kn = mk_str(k);
    if (kf->type == PBC(TYPE_BOOL)) {
      if (strcmp(k, "true") && strcmp(k, "false"))
        return pfail(c, KF_EINVAL, "expected a boolean map key, got '%s'", k);
      *(protobuf_c_boolean *)AT(en, kf->offset) = strcmp(k, "true") == 0;
    } else {
      TRY(p_value(c, &kn, kf, AT(en, kf->offset), depth));
    }
    set_presence(kf, en);
    if ((v == NULL || v->t == KF_NNIL) && !is_value_msg(vf))
      return pfail(c, KF_EINVAL, "null is not allowed as a map value");
    TRY(p_value(c, v, vf, AT(en, vf->offset), depth));
    set_presence(vf, en);
    arr[i] = en;
    path_pop(c, mark);
  }
  if (n->u.c.n > 1) qsort(arr, n->u.c.n, sizeof *arr, entry_ptr_cmp);
  *(size_t *)AT(m, f->quantifier_offset) = n->u.c.n;
  *(ProtobufCMessage ***)AT(m, f->offset) = arr;
  return KF_OK;
}

static kf_status unknown_field(pc *c, const ProtobufCMessageDescriptor *d,
                               const char *k) {
  const char **cand = (const char **)kf_arena_alloc(c->A, (d->n_fields + 1) * sizeof *cand);
  const char *sug;
  unsigned i;
  if (cand == NULL) return pnomem(c);
  for (i = 0; i < d->n_fields; i++) {
    size_t len = kf_json_name(d->fields[i].name, NULL, 0);
    char *p = (char *)kf_arena_alloc(c->A, len + 1);
    if (p == NULL) return pnomem(c);
    kf_json_name(d->fields[i].name, p, len + 1);
    cand[i] = p;
  }
  sug = kf_suggest(k, cand);
  if (sug != NULL)
    return pfail(c, KF_EINVAL, "unknown field (did you mean '%s'?)", sug);
  return pfail(c, KF_EINVAL, "unknown field");
}

/* Value: the kind follows the JSON type (numbers are doubles). */
static kf_status p_kind(pc *c, const kf_node *n, const ProtobufCMessageDescriptor *d,
                        ProtobufCMessage *m, int depth) {
  static const char *const kinds[] = {"null_value", "bool_value", "number_value",
                                      "number_value", "string_value", "list_value",
                                      "struct_value"};
  kf_ntype t = n ? n->t : KF_NNIL;
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(d, kinds[t]);
  char s[64];
  if (f == NULL) return pfail(c, KF_EINVAL, "unsupported google.protobuf.Value");
  if ((t == KF_NNUM && !isfinite(n->u.d)))
    return pfail(c, KF_EINVAL, "expected a finite number, got %s", show(n, s, sizeof s));
  if (t != KF_NNIL) TRY(p_value(c, n, f, AT(m, f->offset), depth));
  set_presence(f, m);
  return KF_OK;
}

static kf_status p_msg(pc *c, const kf_node *n, const ProtobufCMessageDescriptor *d,
                       ProtobufCMessage **out, int depth) {
  int w = wkt(d);
  const char **seen;
  ProtobufCMessage *m;
  size_t i;
  if (w != W_VALUE) TRY(enter(c, n, &depth));  /* a Value's kind counts */
  if ((m = (ProtobufCMessage *)kf_arena_alloc(c->A, d->sizeof_message)) == NULL)
    return pnomem(c);
  protobuf_c_message_init(d, m);
  *out = m;
  if (w == W_VALUE) return p_kind(c, n, d, m, depth);
  if (w == W_LIST) return p_array(c, n, &d->fields[0], m, depth);
  if (n == NULL || n->t != KF_NOBJ)
    return pfail(c, KF_EINVAL, "expected an object, got %s", tname(n));
  if (w == W_STRUCT) return p_map(c, n, &d->fields[0], m, depth);
  if ((seen = (const char **)kf_arena_alloc(c->A, (d->n_fields + 1) * sizeof *seen)) == NULL)
    return pnomem(c);
  for (i = 0; i < n->u.c.n; i++) {
    const char *k = n->u.c.k[i];
    const kf_node *v = n->u.c.v[i];
    const ProtobufCFieldDescriptor *f = NULL;
    size_t mark = path_key(c, k);
    unsigned fi;
    for (fi = 0; fi < d->n_fields; fi++)
      if (strcmp(d->fields[fi].name, k) == 0 || json_name_eq(d->fields[fi].name, k)) {
        f = &d->fields[fi];
        break;
      }
    if (f == NULL) {
      if (!c->allow_unknown) return unknown_field(c, d, k);
      path_pop(c, mark);
      continue;
    }
    if (seen[fi]) return pfail(c, KF_EINVAL, "duplicate field (also given as '%s')", seen[fi]);
    seen[fi] = k;
    if ((v == NULL || v->t == KF_NNIL) &&
        (f->label == PBC(LABEL_REPEATED) || !is_value_msg(f))) {
      path_pop(c, mark);      /* null = unset, as json_format.Parse does */
      continue;
    }
    if (f->flags & PBC(FIELD_FLAG_ONEOF)) {
      uint32_t cs = *(const uint32_t *)AT(m, f->quantifier_offset);
      const ProtobufCFieldDescriptor *o;
      if (cs != 0 && (o = protobuf_c_message_descriptor_get_field(d, (unsigned)cs)) != NULL) {
        char t[128];
        kf_json_name(o->name, t, sizeof t);
        return pfail(c, KF_EINVAL, "conflicts with '%s' (only one of them may be set)", t);
      }
    }
    if (f->label == PBC(LABEL_REPEATED)) {
      int d2 = depth;
      TRY(enter(c, v, &d2));
      TRY(is_map(f) ? p_map(c, v, f, m, d2) : p_array(c, v, f, m, d2));
    } else {
      TRY(p_value(c, v, f, AT(m, f->offset), depth));
      set_presence(f, m);
    }
    path_pop(c, mark);
  }
  return KF_OK;
}

kf_status kf_node_to_msg(const kf_node *n, const ProtobufCMessageDescriptor *d,
                         int allow_unknown, kf_arena *A,
                         ProtobufCMessage **out, const char *who, kf_err *e) {
  pc c;
  c.A = A; c.e = e; c.who = who; c.allow_unknown = allow_unknown;
  c.plen = 0; c.path[0] = '\0';
  *out = NULL;
  if ((n == NULL || n->t != KF_NOBJ) && wkt(d) != W_VALUE && wkt(d) != W_LIST)
    return pfail(&c, KF_EINVAL, "expected a JSON object, got %s", tname(n));
  return p_msg(&c, n, d, out, 0);
}

kf_status kf_node_to_struct(const kf_node *n, kf_arena *A,
                            Google__Protobuf__Struct **out, kf_err *e) {
  ProtobufCMessage *m = NULL;
  kf_status st = kf_node_to_msg(n, &google__protobuf__struct__descriptor, 0, A,
                                &m, NULL, e);
  *out = (Google__Protobuf__Struct *)m;
  return st;
}

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
      if (is_map(f) && n > 1) qsort(arr, n, sizeof *arr, entry_ptr_cmp);
      for (j = 0; j < n; j++)
        if (arr[j]) sort_maps(arr[j], depth + 1);
    } else if (present(f, m)) {
      sort_maps(*(ProtobufCMessage **)AT(m, f->offset), depth + 1);
    }
  }
}

void kf_msg_sort_maps(ProtobufCMessage *m) {
  if (m != NULL) sort_maps(m, 0);
}

/* ---- deterministic serialization -------------------------------------- */

static size_t vsz(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) { v >>= 7; n++; }
  return n;
}

static uint8_t *vput(uint8_t *o, uint64_t v) {
  while (v >= 0x80) { *o++ = (uint8_t)(v | 0x80); v >>= 7; }
  *o++ = (uint8_t)v;
  return o;
}

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
    case 0: return vsz(vval(f->type, p));
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
  return vsz(n) + n;
}

static uint8_t *val_put(const ProtobufCFieldDescriptor *f, const void *p, int ent,
                        uint8_t *o, psz *S) {
  int w = wire_type(f->type), i;
  if (w == 0) return vput(o, vval(f->type, p));
  if (w == 1 || w == 5) {   /* little-endian, whatever the host */
    uint64_t v = 0;
    if (w == 1) memcpy(&v, p, 8);
    else { uint32_t u; memcpy(&u, p, 4); v = u; }
    for (i = 0; i < (w == 1 ? 8 : 4); i++) *o++ = (uint8_t)(v >> (8 * i));
    return o;
  }
  if (f->type == PBC(TYPE_MESSAGE)) {
    const ProtobufCMessage *s = *(ProtobufCMessage *const *)p;
    o = vput(o, S->v[S->pos++]);
    return s ? msg_put(s, ent, o, S) : o;
  } else {
    const char *s = f->type == PBC(TYPE_STRING) ? *(char *const *)p
                    : (const char *)((const ProtobufCBinaryData *)p)->data;
    size_t n = f->type == PBC(TYPE_STRING) ? (s ? strlen(s) : 0)
               : ((const ProtobufCBinaryData *)p)->len;
    o = vput(o, n);
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
  int ent = is_map(f);
  if (f->label != PBC(LABEL_REPEATED)) {
    if (!entry && !present(f, m)) return 0;
    if (put) {
      *put = val_put(f, p, 0, vput(*put, tag(f, wire_type(f->type))), S);
      return 0;
    }
    return vsz(tag(f, 0)) + val_size(f, p, 0, S);
  }
  n = *(const size_t *)CAT(m, f->quantifier_offset);
  p = *(char *const *)p;
  sz = elem_size(f->type);
  if (n == 0) return 0;
  if ((f->flags & PBC(FIELD_FLAG_PACKED)) && wire_type(f->type) != 2) {
    for (i = 0; i < n; i++) body += val_size(f, p + i * sz, 0, S);
    if (put) {
      *put = vput(vput(*put, tag(f, 2)), body);
      for (i = 0; i < n; i++) *put = val_put(f, p + i * sz, 0, *put, S);
    }
    return vsz(tag(f, 2)) + vsz(body) + body;
  }
  for (i = 0; i < n; i++) {
    if (put)
      *put = val_put(f, p + i * sz, ent, vput(*put, tag(f, wire_type(f->type))), S);
    else
      body += vsz(tag(f, 0)) + val_size(f, p + i * sz, ent, S);
  }
  return body;
}

static size_t msg_size(const ProtobufCMessage *m, int entry, psz *S) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  size_t n = 0;
  unsigned i;
  for (i = 0; i < d->n_fields; i++) n += field_io(&d->fields[i], m, entry, NULL, S);
  for (i = 0; i < m->n_unknown_fields; i++)
    n += vsz((uint64_t)m->unknown_fields[i].tag << 3) + m->unknown_fields[i].len;
  return n;
}

static uint8_t *msg_put(const ProtobufCMessage *m, int entry, uint8_t *o, psz *S) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  unsigned i;
  for (i = 0; i < d->n_fields; i++) field_io(&d->fields[i], m, entry, &o, S);
  for (i = 0; i < m->n_unknown_fields; i++) {   /* kept, at the end */
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    o = vput(o, (uint64_t)u->tag << 3 | (unsigned)u->wire_type);
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




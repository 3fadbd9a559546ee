/*
** kf_json_write.c - message or kf_node -> proto3 JSON text or kf_node tree.
**
** One walker (w_*) turns a message or a kf_node into events for a "sink";
** one sink writes JSON text into a kf_buf, the other builds a kf_node tree
** in an arena, so both outputs share every rule.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_json_int.h"

static int is_null_enum(const ProtobufCFieldDescriptor *f) {
  return f->type == PBC(TYPE_ENUM) &&
         strcmp(((const ProtobufCEnumDescriptor *)f->descriptor)->name,
                "google.protobuf.NullValue") == 0;
}

int kf_json_number(double d, char out[32]) {
  char t[40], dig[24];
  int p, nd = 0, ex, n = 0, i;
  const char *s;
  locale_t old;
  if (d == 0) return (int)strlen(strcpy(out, signbit(d) ? "-0" : "0"));
  /* fewest significant digits that read back as the same double */
  old = kf_c_numeric_begin();
  for (p = 1; p <= 17; p++) {
    snprintf(t, sizeof t, "%.*e", p - 1, d);
    if (strtod(t, NULL) == d) break;
  }
  kf_c_numeric_end(old);
  s = t;
  if (*s == '-') out[n++] = *s++;
  for (; *s && *s != 'e'; s++)   /* digits only */
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
  locale_t old = kf_c_numeric_begin();
  for (p = 6; p < 10; p++) {
    double d;
    snprintf(t, sizeof t, "%.*g", p, (double)f);
    d = strtod(t, NULL);
    if ((float)d == f) return (kf_c_numeric_end(old), d);
  }
  kf_c_numeric_end(old);
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

/* RFC 8259 escaping as json.dumps(ensure_ascii=False) does it: the bytes
** it escapes (control characters, '"' and '\\') and how many bytes each
** escape adds (\n and its kind 1, \u00XX 5). */
static const unsigned char esc_extra[256] = {
    5, 5, 5, 5, 5, 5, 5, 5, 1, 1, 1, 5, 1, 1, 5, 5,
    5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ['\\'] = 1};

char *kf_json_quote_to(char *o, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t i = 0, run;
  *o++ = '"';
  while (i < n) {
    unsigned char c;
    for (run = i; i < n && !esc_extra[(unsigned char)p[i]]; i++) {}
    memcpy(o, p + run, i - run);   /* the clean run in one copy */
    o += i - run;
    if (i == n) break;
    c = (unsigned char)p[i++];
    *o++ = '\\';
    switch (c) {
      case '"': *o++ = '"'; break;
      case '\\': *o++ = '\\'; break;
      case '\n': *o++ = 'n'; break;
      case '\r': *o++ = 'r'; break;
      case '\t': *o++ = 't'; break;
      case '\b': *o++ = 'b'; break;
      case '\f': *o++ = 'f'; break;
      default:
        memcpy(o, "u00", 3);
        o[3] = hex[c >> 4];
        o[4] = hex[c & 15];
        o += 5;
    }
  }
  *o++ = '"';
  return o;
}

size_t kf_json_quoted_len(const char *p, size_t n) {
  size_t i, len = n + 2;
  for (i = 0; i < n; i++) len += esc_extra[(unsigned char)p[i]];
  return len;
}

void kf_json_quote(kf_buf *b, const char *p, size_t n) {
  if (n > KF_JSON_QUOTE_MAXLEN || !kf_buf_reserve(b, kf_json_quote_room(p, n))) {
    b->oom = 1;
    return;
  }
  b->n = (size_t)(kf_json_quote_to(b->p + b->n, p, n) - b->p);
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
    kf_json_quote(w->b, k, n);
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
      if (isnan(v->u.d)) kf_json_quote(w->b, "NaN", 3);
      else if (isinf(v->u.d))
        v->u.d > 0 ? kf_json_quote(w->b, "Infinity", 8) : kf_json_quote(w->b, "-Infinity", 9);
      else kf_buf_add(w->b, t, (size_t)kf_json_number(v->u.d, t));
      break;
    case KF_NSTR: kf_json_quote(w->b, v->u.s.p, v->u.s.n); break;
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
  size_t sz = kf_field_elem_size(f->type);
  TRY(s_open(s, KF_NARR));
  for (i = 0; i < n; i++) TRY(w_value(s, f, arr + i * sz));
  return s_close(s, KF_NARR);
}

typedef struct ment { const ProtobufCMessage *m; size_t i; } ment;

static int ment_cmp(const void *a, const void *b) {
  const ment *x = (const ment *)a, *y = (const ment *)b;
  int c = kf_entry_key_cmp(x->m, y->m);
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
    if (i + 1 < n && kf_entry_key_cmp(v[i].m, v[i + 1].m) == 0) continue;
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

/* google.protobuf.Duration as json_format writes it: seconds with 0, 3, 6
** or 9 fractional digits, then "s" ("5400s", "1.500s"). */
static kf_status w_duration(sink *s, const ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  int64_t sec = *(const int64_t *)CAT(m, d->fields[0].offset);
  int32_t ns = *(const int32_t *)CAT(m, d->fields[1].offset);
  char t[48];
  uint64_t u = sec < 0 ? 0 - (uint64_t)sec : (uint64_t)sec;  /* INT64_MIN too */
  int n = snprintf(t, sizeof t, "%s%" PRIu64, sec < 0 || (sec == 0 && ns < 0) ? "-" : "", u);
  if (ns < 0) ns = -ns;
  if (ns % 1000000 == 0 && ns) n += snprintf(t + n, sizeof t - (size_t)n, ".%03d", ns / 1000000);
  else if (ns % 1000 == 0 && ns) n += snprintf(t + n, sizeof t - (size_t)n, ".%06d", ns / 1000);
  else if (ns) n += snprintf(t + n, sizeof t - (size_t)n, ".%09d", ns);
  snprintf(t + n, sizeof t - (size_t)n, "s");
  {
    kf_node v = mk_str(t);
    return s_val(s, &v);
  }
}

static kf_status w_msg(sink *s, const ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  unsigned i;
  switch (wkt(d)) {
    case W_DURATION: return w_duration(s, m);
    case W_WRAPPER: return w_value(s, &d->fields[0], CAT(m, d->fields[0].offset));
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
    if (!kf_field_present(f, m)) continue;
    if (!s->key(s, f->name, 0, 1)) return KF_ENOMEM;
    if (kf_field_is_map(f)) TRY(w_map(s, f, m));
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

kf_status kf_struct_to_node(const Google__Protobuf__Struct *s, kf_arena *A,
                            kf_node **out) {
  nb b;
  kf_status st;
  nb_init(&b, A);
  st = w_msg(&b.s, &s->base);
  *out = st == KF_OK ? b.root : NULL;
  return st;
}

/*
** kf_json_read.c - JSON text -> kf_node (kf_json_scan.c, then jansson for
** what it leaves), and kf_node -> message
** (p_*): types and ranges are checked and errors name the JSON path.
*/
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kf_json_int.h"

static int is_value_msg(const ProtobufCFieldDescriptor *f) {
  return f->type == PBC(TYPE_MESSAGE) && wkt(f->descriptor) == W_VALUE;
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

/* key is the field's proto name or its JSON name (strcmp(name, key) == 0
** || json_name_eq(name, key)) in one pass: both spell the name alike up to
** its first '_', so the JSON spelling goes on from the first difference
** only when no '_' came before it. */
static int field_key_eq(const char *name, const char *key) {
  int us = 0;
  while (*name != '\0' && *name == *key) us |= *name == '_', name++, key++;
  if (*name == '\0' && *key == '\0') return 1;
  return !us && json_name_eq(name, key);
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

/* jansson allocates with malloc unless told otherwise, and only globally
** (json_set_alloc_funcs).  kfjob installs its own pair once: while a thread
** is inside kf_json_parse, jansson's allocations come from the caller's
** arena (so the Lua allocator, or the sandbox's counting allocator with its
** memory limit, sees every byte) and its frees are no-ops (the arena frees
** everything at once); everywhere else, and on other threads, they go to
** the functions installed before (malloc/free, or the host's own).
**
** When the arena refuses, jansson is left with a longjmp instead of a NULL:
** jansson 2.14 crashes on some of its own allocation failures (a key
** longer than 15 bytes, then a failing allocation), and it holds nothing
** but memory, which is the arena's. */
static _Thread_local kf_arena *json_cur;
static _Thread_local jmp_buf *json_jmp;
static json_malloc_t json_prev_malloc = malloc;
static json_free_t json_prev_free = free;
static pthread_once_t json_once = PTHREAD_ONCE_INIT;

static void *json_malloc(size_t n) {
  void *p;
  if (json_cur == NULL) return json_prev_malloc(n);
  if ((p = kf_arena_alloc_raw(json_cur, n)) == NULL) longjmp(*json_jmp, 1);
  return p;
}

static void json_free(void *p) {
  if (json_cur == NULL) json_prev_free(p);
}

static void json_install(void) {
#if JANSSON_VERSION_HEX >= 0x020800
  json_malloc_t m = NULL;
  json_free_t f = NULL;
  json_get_alloc_funcs(&m, &f);
  if (m != NULL && f != NULL && m != json_malloc) {
    json_prev_malloc = m;
    json_prev_free = f;
  }
#endif
  json_set_alloc_funcs(json_malloc, json_free);
}

kf_status kf_json_parse_jansson(const char *s, size_t n, kf_arena *A,
                                kf_node **out, kf_err *e) {
  json_error_t err;
  kf_status st = KF_ENOMEM;
  json_t *j;
  jmp_buf jb;
  *out = NULL;
  pthread_once(&json_once, json_install);
  if (setjmp(jb)) {              /* the arena refused jansson an allocation */
    json_cur = NULL;
    return kf_nomem(e);
  }
  json_jmp = &jb;
  json_cur = A;
  j = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
  json_cur = NULL;
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
  /* the tree lives in the arena (its frees are no-ops): no json_decref,
  ** which would hand arena memory to the previous free */
  *out = from_jansson(j, A, 0, &st);
  if (*out != NULL) return KF_OK;
  if (st == KF_ELIMIT)
    return kf_fail(e, KF_ELIMIT, "JSON nested deeper than %d levels",
                   KF_MAX_DEPTH);
  return kf_nomem(e);
}

/* The fast reader first; jansson for what it leaves (errors keep their
** wording). */
kf_status kf_json_parse(const char *s, size_t n, kf_arena *A, kf_node **out,
                        kf_err *e) {
  switch (kf_json_scan(s, n, A, out)) {
    case KF_SCAN_OK: return KF_OK;
    case KF_SCAN_NOMEM: return kf_nomem(e);
    case KF_SCAN_BAIL: break;
  }
  return kf_json_parse_jansson(s, n, A, out, e);
}

/* ---- kf_node -> message ----------------------------------------------- */

/* The path of the value being read is kept as segments (a key, or an
** array index when k is NULL) and rendered only for an error message:
** rendering it for every field cost a tenth of from_json.  Past
** PC_SEGS segments the rendered path is already at its KF_ERRMAX cut
** (each segment adds at least 2 characters), so deeper ones are counted,
** not kept. */
#define PC_SEGS 256
typedef struct pseg {
  const char *k;
  size_t i;
} pseg;

typedef struct pc {
  kf_arena *A;
  kf_err *e;
  const char *who;
  int allow_unknown;
  size_t nseg;
  pseg seg[PC_SEGS];
  size_t plen;
  char path[KF_ERRMAX];
} pc;

static void path_render(pc *c);

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
  path_render(c);
  if (c->who && c->plen) return kf_fail(c->e, code, "%s: %s: %s", c->who, c->path, msg);
  if (c->who) return kf_fail(c->e, code, "%s: %s", c->who, msg);
  if (c->plen) return kf_fail(c->e, code, "%s: %s", c->path, msg);
  return kf_fail(c->e, code, "%s", msg);
}

static kf_status pnomem(pc *c) { return kf_nomem(c->e); }

static void path_put(pc *c, const char *s, size_t n) {
  if (n > sizeof c->path - 1 - c->plen) n = sizeof c->path - 1 - c->plen;  /* truncated */
  memcpy(c->path + c->plen, s, n);
  c->plen += n;
  c->path[c->plen] = '\0';
}

static void put_index(pc *c, size_t i) {
  char t[40];
  t[0] = '[';
  kf_format_int((int64_t)i, t + 1);
  strcat(t, "]");
  path_put(c, t, strlen(t));
}

/* Keys: ".name" (no dot first) when identifier-like, else ["key"]. */
static void put_key(pc *c, const char *k) {
  const char *p = k;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
      break;
  if (*p || !*k) {
    path_put(c, "[\"", 2);
    path_put(c, k, strlen(k));
    path_put(c, "\"]", 2);
    return;
  }
  if (c->plen) path_put(c, ".", 1);
  path_put(c, k, (size_t)(p - k));
}

static void path_render(pc *c) {
  size_t i, n = c->nseg < PC_SEGS ? c->nseg : PC_SEGS;
  c->plen = 0;
  c->path[0] = '\0';
  for (i = 0; i < n; i++) {
    if (c->seg[i].k != NULL) put_key(c, c->seg[i].k);
    else put_index(c, c->seg[i].i);
  }
}

/* Enter a key / an index; path_pop(c, mark) leaves it. */
static size_t path_seg(pc *c, const char *k, size_t i) {
  if (c->nseg < PC_SEGS) {
    c->seg[c->nseg].k = k;
    c->seg[c->nseg].i = i;
  }
  return c->nseg++;
}
static size_t path_key(pc *c, const char *k) { return path_seg(c, k, 0); }
static size_t path_index(pc *c, size_t i) { return path_seg(c, NULL, i); }
static void path_pop(pc *c, size_t mark) { c->nseg = mark; }

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
      if (!integral) { d = kf_strtod(buf, NULL); goto real; }
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
      if (!kf_utf8_ok(v->u.s.p, v->u.s.n))
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
        d = kf_strtod(v->u.s.p, NULL);
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
  size_t i, sz = kf_field_elem_size(f->type);
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
  if (n->u.c.n > 1) qsort(arr, n->u.c.n, sizeof *arr, kf_entry_ptr_cmp);
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

/* google.protobuf.Duration's JSON: "[-]S[.fff]s", at most 9 fractional
** digits, |S| within the type's range (10000 years). */
static kf_status p_duration(pc *c, const kf_node *n, ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  const char *p, *end;
  int64_t sec = 0;
  int32_t ns = 0;
  int neg = 0, digits = 0, k;
  if (n == NULL || n->t != KF_NSTR)
    return pfail(c, KF_EINVAL, "expected a duration string like \"5400s\", got %s", tname(n));
  p = n->u.s.p, end = p + n->u.s.n;
  if (p < end && *p == '-') neg = 1, p++;
  for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
    if (sec > 315576000000LL / 10) goto bad;
    sec = sec * 10 + (*p - '0');
  }
  if (digits == 0) goto bad;
  if (p < end && *p == '.') {
    for (p++, k = 0; p < end && *p >= '0' && *p <= '9'; p++, k++) {
      if (k == 9) goto bad;
      ns = ns * 10 + (*p - '0');
    }
    if (k == 0) goto bad;
    for (; k < 9; k++) ns *= 10;
  }
  if (p + 1 != end || *p != 's' || sec > 315576000000LL) goto bad;
  *(int64_t *)AT(m, d->fields[0].offset) = neg ? -sec : sec;
  *(int32_t *)AT(m, d->fields[1].offset) = neg ? -ns : ns;
  return KF_OK;
bad:
  return pfail(c, KF_EINVAL, "expected a duration string like \"5400s\", got '%.40s'",
               n->u.s.p);
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
  if (w == W_DURATION) return p_duration(c, n, m);
  if (w == W_WRAPPER) return p_value(c, n, &d->fields[0], (char *)m + d->fields[0].offset, depth);
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
    for (fi = 0; fi < d->n_fields; fi++) {
      const char *nm = d->fields[fi].name;
      /* both spellings start with the name's first character unless it is '_' */
      if (nm[0] != k[0] && nm[0] != '_') continue;
      if (field_key_eq(nm, k)) {
        f = &d->fields[fi];
        break;
      }
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
      TRY(kf_field_is_map(f) ? p_map(c, v, f, m, d2) : p_array(c, v, f, m, d2));
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
  c.nseg = 0;
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

/*
** kf_json_fast.c - proto3 JSON text straight into a protobuf-c message, in
** one pass and without the kf_node tree, for the shape kfjob's own to_json
** (and flytekit's MessageToJson) writes: the fast path of
** kfjob.from_json (issue 45, round 4).
**
** Driven by the descriptors alone, as kf_node_to_msg is.  It reads only
** what it can read exactly as kf_json_parse + kf_node_to_msg would, and
** builds the same message: objects whose keys are a field's JSON or proto
** name, met once; strings of printable ASCII without escapes; enum names;
** true / false; integer literals of up to 18 digits within the field's
** range; arrays of those; nesting up to FAST_MAX_DEPTH.  Everything else -
** null, escapes, non-ASCII, reals, numbers as strings, enum numbers, an
** unknown or repeated key, a oneof given twice, maps, bytes, floats,
** well-known types, any syntax error or limit - is not judged here: it
** answers 0 and the caller rewinds the arena and runs the full path, which
** words every error and warning as before.  fuzz_from_json runs both paths
** on every input and checks they agree wherever this one answers.
*/
#include <string.h>

#include "kf_json_int.h"

/* Far below KF_MAX_DEPTH: the limit's error stays the full path's. */
#define FAST_MAX_DEPTH 16
/* Keys longer than any field name of the plugin messages are not ours. */
#define FAST_KEY_MAX 64

typedef struct fast {
  const unsigned char *p, *end;
  kf_arena *A;
} fast;

static int fast_msg(fast *f, const ProtobufCMessageDescriptor *d,
                    ProtobufCMessage **out, int depth);

static void ws_more(fast *f) {
  while (f->p < f->end &&
         (*f->p == ' ' || *f->p == '\n' || *f->p == '\r' || *f->p == '\t'))
    f->p++;
}

/* JSON's whitespace (all of it at or below ' '); to_json writes none, so
** one test is all it costs. */
static inline void ws(fast *f) {
  if (f->p < f->end && *f->p <= ' ') ws_more(f);
}

/* Is the next byte c?  Then step over it. */
static int eat(fast *f, unsigned char c) {
  if (f->p >= f->end || *f->p != c) return 0;
  f->p++;
  return 1;
}

/* The bytes a plain string holds: printable ASCII and DEL, not '"' or
** '\\' (controls are a syntax error, escapes and non-ASCII the full
** path's to decode and check). */
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
static const unsigned char plain[256] = {
    R16(0), R16(0),                                  /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x20-0x2f: '"' */
    R16(1), R16(1),                                  /* 0x30-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,  /* 0x50-0x5f: '\\' */
    R16(1), R16(1),                                  /* 0x60-0x7f */
    R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0)};
#undef R16

/* A plain string at f->p (its opening quote): start and length, the
** quotes stepped over.  0 for anything else or no closing quote. */
static int plain_str(fast *f, const char **s, size_t *n) {
  const unsigned char *b, *q;
  if (!eat(f, '"')) return 0;
  b = q = f->p;
  /* four bytes a step: image names and values are most of the text */
  while (f->end - q >= 4 && (plain[q[0]] & plain[q[1]] & plain[q[2]] & plain[q[3]]))
    q += 4;
  while (q < f->end && plain[*q]) q++;
  if (q >= f->end || *q != '"') return 0;
  *s = (const char *)b;
  *n = (size_t)(q - b);
  f->p = q + 1;
  return 1;
}

/* A plain string copied NUL-terminated into buf of cap bytes. */
static int plain_str_buf(fast *f, char *buf, size_t cap) {
  const char *s;
  size_t n;
  if (!plain_str(f, &s, &n) || n >= cap) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return 1;
}

/* An integer literal of JSON's grammar, up to 18 digits (the scanner's
** exact range), not followed by a fraction or an exponent. */
static int int_lit(fast *f, int64_t *v) {
  const unsigned char *q = f->p, *d;
  int neg = 0;
  int64_t x = 0;
  if (q < f->end && *q == '-') neg = 1, q++;
  if (q >= f->end || *q < '0' || *q > '9') return 0;
  d = q;
  if (*q == '0') q++;
  else
    while (q < f->end && *q >= '0' && *q <= '9') q++;
  if (q - d > 18) return 0;
  if (q < f->end && (*q == '.' || *q == 'e' || *q == 'E')) return 0;
  for (; d < q; d++) x = x * 10 + (*d - '0');
  *v = neg ? -x : x;
  f->p = q;
  return 1;
}

/* An integer field: the ranges p_int checks (a -0 is 0 there too). */
static int int_value(fast *f, ProtobufCType t, void *p) {
  int64_t v;
  if (!int_lit(f, &v)) return 0;
  switch (t) {
    case PBC(TYPE_INT32): case PBC(TYPE_SINT32): case PBC(TYPE_SFIXED32):
      if (v < INT32_MIN || v > INT32_MAX) return 0;
      *(int32_t *)p = (int32_t)v;
      return 1;
    case PBC(TYPE_UINT32): case PBC(TYPE_FIXED32):
      if (v < 0 || v > (int64_t)UINT32_MAX) return 0;
      *(uint32_t *)p = (uint32_t)v;
      return 1;
    case PBC(TYPE_UINT64): case PBC(TYPE_FIXED64):
      if (v < 0) return 0;
      *(uint64_t *)p = (uint64_t)v;
      return 1;
    default:   /* int64, sint64, sfixed64 */
      *(int64_t *)p = v;
      return 1;
  }
}

/* One value of field fd (never null: null is the full path's) into p. */
static int fast_value(fast *f, const ProtobufCFieldDescriptor *fd, void *p,
                      int depth) {
  switch (fd->type) {
    case PBC(TYPE_MESSAGE):
      return fast_msg(f, (const ProtobufCMessageDescriptor *)fd->descriptor,
                      (ProtobufCMessage **)p, depth);
    case PBC(TYPE_ENUM): {   /* by name only; numbers are the full path's */
      char name[FAST_KEY_MAX];
      const ProtobufCEnumValue *ev;
      if (!plain_str_buf(f, name, sizeof name)) return 0;
      ev = protobuf_c_enum_descriptor_get_value_by_name(
          (const ProtobufCEnumDescriptor *)fd->descriptor, name);
      if (ev == NULL) return 0;
      *(int32_t *)p = ev->value;
      return 1;
    }
    case PBC(TYPE_STRING): {
      const char *s;
      size_t n;
      if (!plain_str(f, &s, &n) || n > KF_MAX_STRING) return 0;
      return (*(char **)p = kf_arena_strndup(f->A, s, n)) != NULL;
    }
    case PBC(TYPE_BOOL):
      if (f->end - f->p >= 4 && memcmp(f->p, "true", 4) == 0) {
        f->p += 4;
        *(protobuf_c_boolean *)p = 1;
        return 1;
      }
      if (f->end - f->p >= 5 && memcmp(f->p, "false", 5) == 0) {
        f->p += 5;
        *(protobuf_c_boolean *)p = 0;
        return 1;
      }
      return 0;
    case PBC(TYPE_BYTES): case PBC(TYPE_FLOAT): case PBC(TYPE_DOUBLE):
      return 0;    /* base64 and reals: the full path's */
    default:
      return int_value(f, fd->type, p);
  }
}

/* A repeated (not map) field: '[' values ']'.  The array grows by
** doubling in the arena; the full path's exact array holds the same
** values. */
static int fast_array(fast *f, const ProtobufCFieldDescriptor *fd, void *m,
                      int depth) {
  size_t sz = kf_field_elem_size(fd->type), n = 0, cap = 0;
  char *arr = NULL;
  if (depth + 1 > FAST_MAX_DEPTH || !eat(f, '[')) return 0;
  ws(f);
  if (!eat(f, ']')) {
    for (;;) {
      if (n == cap) {
        char *na;
        cap = cap ? cap * 2 : 8;
        if (cap > KF_MAX_ITEMS || (na = (char *)kf_arena_alloc_raw(f->A, cap * sz)) == NULL)
          return 0;
        if (n) memcpy(na, arr, n * sz);
        arr = na;
      }
      if (!fast_value(f, fd, arr + n * sz, depth + 1)) return 0;
      n++;
      ws(f);
      if (eat(f, ']')) break;
      if (!eat(f, ',')) return 0;
      ws(f);
    }
  }
  *(size_t *)AT(m, fd->quantifier_offset) = n;
  *(char **)AT(m, fd->offset) = arr;
  return 1;
}

/* field_key_eq (kf_json_read.c) on the key's n bytes (a plain key has no
** NUL, so the two agree): the name itself, or its JSON spelling when no
** '_' came before the first difference. */
static int key_is(const char *nm, const char *k, size_t n) {
  size_t i = 0, j;
  int us = 0, up = 0;
  while (nm[i] != '\0' && i < n && nm[i] == k[i]) us |= nm[i] == '_', i++;
  if (nm[i] == '\0' && i == n) return 1;
  if (us) return 0;
  for (j = i; nm[i] != '\0'; i++) {
    char c;
    if (nm[i] == '_') { up = 1; continue; }
    c = (char)(up && nm[i] >= 'a' && nm[i] <= 'z' ? nm[i] - 32 : nm[i]);
    if (j >= n || k[j++] != c) return 0;
    up = 0;
  }
  return j == n;
}

/* The field named by the key (JSON or proto name); NULL for an unknown key
** or one that is not plain.  At most one field matches a key (protoc
** refuses fields whose JSON names collide, and a JSON name has no '_'),
** so the field after the last one (*fi on entry: to_json writes fields in
** order) is tried first, then all in order as p_msg does. */
static const ProtobufCFieldDescriptor *fast_key(fast *f,
                                                const ProtobufCMessageDescriptor *d,
                                                unsigned *fi) {
  const char *k;
  size_t n;
  unsigned i;
  if (!plain_str(f, &k, &n) || n == 0) return NULL;
  if (*fi < d->n_fields && key_is(d->fields[*fi].name, k, n))
    return &d->fields[*fi];
  for (i = 0; i < d->n_fields; i++) {
    const char *nm = d->fields[i].name;
    if (nm[0] != k[0] && nm[0] != '_') continue;
    if (key_is(nm, k, n)) {
      *fi = i;
      return &d->fields[i];
    }
  }
  return NULL;
}

/* One member's value into m, with its presence as p_msg sets it. */
static int fast_member(fast *f, const ProtobufCFieldDescriptor *fd,
                       ProtobufCMessage *m, int depth) {
  if (f->p < f->end && *f->p == 'n') return 0;     /* null: the full path's */
  if (fd->flags & PBC(FIELD_FLAG_ONEOF)) {
    if (*(const uint32_t *)AT(m, fd->quantifier_offset) != 0) return 0;
    *(uint32_t *)AT(m, fd->quantifier_offset) = fd->id;
  }
  if (fd->label == PBC(LABEL_REPEATED))
    return !kf_field_is_map(fd) && fast_array(f, fd, m, depth);
  if (!fast_value(f, fd, AT(m, fd->offset), depth)) return 0;
  if (!(fd->flags & PBC(FIELD_FLAG_ONEOF)) && fd->label == PBC(LABEL_OPTIONAL) &&
      fd->type != PBC(TYPE_MESSAGE) && fd->type != PBC(TYPE_STRING))
    *(protobuf_c_boolean *)AT(m, fd->quantifier_offset) = 1;
  return 1;
}

/* An object at f->p into a new message of d.  Well-known types (their own
** JSON shapes) and messages of more than 64 fields (the seen mask) are the
** full path's. */
static int fast_msg(fast *f, const ProtobufCMessageDescriptor *d,
                    ProtobufCMessage **out, int depth) {
  ProtobufCMessage *m;
  uint64_t seen = 0;
  unsigned fi;
  /* every well-known type's name starts with 'g' (google.protobuf.) */
  if (++depth > FAST_MAX_DEPTH || d->n_fields > 64 ||
      (d->name[0] == 'g' && wkt(d) != W_NONE) || !eat(f, '{'))
    return 0;
  if ((m = (ProtobufCMessage *)kf_arena_alloc(f->A, d->sizeof_message)) == NULL)
    return 0;
  protobuf_c_message_init(d, m);
  *out = m;
  ws(f);
  if (eat(f, '}')) return 1;
  for (fi = 0;; fi++) {
    const ProtobufCFieldDescriptor *fd;
    if ((fd = fast_key(f, d, &fi)) == NULL || (seen >> fi & 1)) return 0;
    seen |= (uint64_t)1 << fi;
    ws(f);
    if (!eat(f, ':')) return 0;
    ws(f);
    if (!fast_member(f, fd, m, depth)) return 0;
    ws(f);
    if (eat(f, '}')) return 1;
    if (!eat(f, ',')) return 0;
    ws(f);
  }
}

int kf_json_fast_msg(const char *s, size_t n, const ProtobufCMessageDescriptor *d,
                     kf_arena *A, ProtobufCMessage **out) {
  fast f;
  kf_arena_pos pos = kf_arena_mark(A);
  f.p = (const unsigned char *)s;
  f.end = f.p + n;
  f.A = A;
  *out = NULL;
  ws(&f);
  if (fast_msg(&f, d, out, 0)) {
    ws(&f);
    if (f.p == f.end) return 1;
  }
  kf_arena_rewind(A, pos);
  *out = NULL;
  return 0;
}

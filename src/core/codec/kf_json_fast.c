/*
** kf_json_fast.c - proto3 JSON text straight into a protobuf-c message, in
** one pass and without the kf_node tree, for the shape kfjob's own to_json
** writes: the fast path of kfjob.from_json (issue 45, round 4).
**
** Driven by the descriptors, as kf_node_to_msg is (their keys spelled once,
** below).  It reads only
** what it can read exactly as kf_json_parse + kf_node_to_msg would, and
** builds the same message: objects whose keys are a field's JSON or proto
** name, met once; strings of printable ASCII without escapes; enum names;
** true / false; integer literals of up to 18 digits within the field's
** range; arrays of those; nesting up to FAST_MAX_DEPTH.  Everything else -
** null, escapes, non-ASCII, reals, numbers as strings, enum numbers, an
** unknown or repeated key, a oneof given twice, maps, bytes, floats,
** well-known types, any syntax error or limit - is not judged here: it
** answers 0 with the arena rewound, and the caller runs the full path,
** which words every error and warning as before.  fuzz_from_json runs both paths
** on every input and checks they agree wherever this one answers.
*/
#include <pthread.h>
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

/* ---- each message's keys, spelled once --------------------------------- */

/* The messages from_json reads (every kind's v0 and v1 message and the
** messages inside them), their fields' JSON names (protoc's ToJsonName, as
** kf_json_read.c's json_name_eq spells it) and lengths: a key is then a
** length test and a compare, not a spelling per field tried.  Made once;
** a message that does not fit (too many fields or messages, a well-known
** type, deeper than the reader goes) has no entry and is the full
** path's. */
#define FAST_DESCS 48
#define FAST_FIELDS 16
typedef struct fkeys {
  const ProtobufCMessageDescriptor *d;
  const char *json[FAST_FIELDS];
  uint8_t jlen[FAST_FIELDS], nlen[FAST_FIELDS];
  int8_t sub[FAST_FIELDS];     /* a message field's entry; -1: none */
  int ok;                      /* every field spelled, every sub-message has one */
} fkeys;
static fkeys keys[FAST_DESCS];
static int nkeys;
static char pool[4096];
static size_t npool;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

/* The JSON name of a field name into the pool (NULL: no room). */
static const char *json_spell(const char *nm, uint8_t *len) {
  char *o = pool + npool, *w = o;
  int up = 0;
  if (strlen(nm) >= FAST_KEY_MAX || npool + FAST_KEY_MAX > sizeof pool) return NULL;
  for (; *nm; nm++) {
    if (*nm == '_') { up = 1; continue; }
    *w++ = (char)(up && *nm >= 'a' && *nm <= 'z' ? *nm - 32 : *nm);
    up = 0;
  }
  *w++ = '\0';
  npool += (size_t)(w - o);
  *len = (uint8_t)(w - o - 1);
  return o;
}

/* d's entry (made first, so a message that holds itself finds it), -1 when
** d cannot have one. */
static int keys_add(const ProtobufCMessageDescriptor *d, int depth) {
  fkeys *K;
  unsigned fi;
  int i;
  for (i = 0; i < nkeys; i++)
    if (keys[i].d == d) return i;
  if (nkeys == FAST_DESCS || depth > FAST_MAX_DEPTH || d->n_fields > FAST_FIELDS ||
      wkt(d) != W_NONE)
    return -1;
  i = nkeys++;
  K = &keys[i];
  K->d = d;
  K->ok = 1;
  for (fi = 0; fi < d->n_fields; fi++) {
    const ProtobufCFieldDescriptor *fd = &d->fields[fi];
    if ((K->json[fi] = json_spell(fd->name, &K->jlen[fi])) == NULL) K->ok = 0;
    K->nlen[fi] = (uint8_t)strlen(fd->name);
    K->sub[fi] = -1;
    if (fd->type == PBC(TYPE_MESSAGE) &&
        (K->sub[fi] = (int8_t)keys_add((const ProtobufCMessageDescriptor *)fd->descriptor,
                                       depth + 1)) < 0)
      K->ok = 0;
  }
  return i;
}

static void keys_init(void) {
  int k;
  for (k = 0; k < KF_NKINDS; k++) {
    if (kf_kinds[k].v0 != NULL) keys_add(kf_kinds[k].v0, 1);
    if (kf_kinds[k].v1 != NULL) keys_add(kf_kinds[k].v1, 1);
  }
}

static int fast_msg(fast *f, const fkeys *K, ProtobufCMessage **out, int depth);

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
** path's to decode and check): those kf_json_special leaves 0. */
#define plain(c) (!kf_json_special[c])

/* A plain string at f->p (its opening quote): start and length, the
** quotes stepped over.  0 for anything else or no closing quote. */
static int plain_str(fast *f, const char **s, size_t *n) {
  const unsigned char *b, *q;
  if (!eat(f, '"')) return 0;
  b = q = f->p;
  /* four bytes a step: image names and values are most of the text */
  while (f->end - q >= 4 && !(kf_json_special[q[0]] | kf_json_special[q[1]] |
                                 kf_json_special[q[2]] | kf_json_special[q[3]]))
    q += 4;
  while (q < f->end && plain(*q)) q++;
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

/* One value of field fd (never null: null is the full path's) into p;
** sub: a message field's entry. */
static int fast_value(fast *f, const ProtobufCFieldDescriptor *fd, int sub, void *p,
                      int depth) {
  switch (fd->type) {
    case PBC(TYPE_MESSAGE):
      return sub >= 0 && fast_msg(f, &keys[sub], (ProtobufCMessage **)p, depth);
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
static int fast_array(fast *f, const ProtobufCFieldDescriptor *fd, int sub, void *m,
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
      if (!fast_value(f, fd, sub, arr + n * sz, depth + 1)) return 0;
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

/* Is the key at q (after its opening quote; room bytes to the end) field
** i's JSON or proto name?  Then step over it.  These names are
** identifiers, so text equal to one up to a quote is a plain key equal to
** it; an escaped spelling does not match and is the full path's. */
static int key_at(fast *f, const fkeys *K, unsigned i, const unsigned char *q,
                  size_t room) {
  const char *nm[2];
  size_t len[2], j;
  int w;
  nm[0] = K->json[i], len[0] = K->jlen[i];
  nm[1] = K->d->fields[i].name, len[1] = K->nlen[i];
  for (w = 0; w < 2; w++) {
    if (room <= len[w] || q[len[w]] != '"') continue;
    for (j = 0; j < len[w] && q[j] == (unsigned char)nm[w][j]; j++) {}
    if (j == len[w]) {
      f->p = q + len[w] + 1;
      return 1;
    }
  }
  return 0;
}

/* The field the key at f->p names (its JSON or proto name, field_key_eq
** in kf_json_read.c); 0 for an unknown key or one that is not plain.  At
** most one field matches a key (protoc refuses fields whose JSON names
** collide, and a JSON name has no '_'), so the field after the last one
** (*fi on entry: to_json writes fields in order) is tried first. */
static int fast_key(fast *f, const fkeys *K, unsigned *fi) {
  const unsigned char *q = f->p + 1;
  size_t room;
  unsigned i, n = K->d->n_fields;
  if (f->p >= f->end || *f->p != '"') return 0;
  room = (size_t)(f->end - q);
  if (*fi < n && key_at(f, K, *fi, q, room)) return 1;
  for (i = 0; i < n; i++)
    if (key_at(f, K, i, q, room)) {
      *fi = i;
      return 1;
    }
  return 0;
}

/* One member's value into m, with its presence as p_msg sets it. */
static int fast_member(fast *f, const fkeys *K, unsigned fi, ProtobufCMessage *m,
                       int depth) {
  const ProtobufCFieldDescriptor *fd = &K->d->fields[fi];
  if (f->p < f->end && *f->p == 'n') return 0;     /* null: the full path's */
  if (fd->flags & PBC(FIELD_FLAG_ONEOF)) {
    if (*(const uint32_t *)AT(m, fd->quantifier_offset) != 0) return 0;
    *(uint32_t *)AT(m, fd->quantifier_offset) = fd->id;
  }
  if (fd->label == PBC(LABEL_REPEATED))
    return !kf_field_is_map(fd) && fast_array(f, fd, K->sub[fi], m, depth);
  if (!fast_value(f, fd, K->sub[fi], AT(m, fd->offset), depth)) return 0;
  if (!(fd->flags & PBC(FIELD_FLAG_ONEOF)) && fd->label == PBC(LABEL_OPTIONAL) &&
      fd->type != PBC(TYPE_MESSAGE) && fd->type != PBC(TYPE_STRING))
    *(protobuf_c_boolean *)AT(m, fd->quantifier_offset) = 1;
  return 1;
}

/* An object at f->p into a new message of K's descriptor. */
static int fast_msg(fast *f, const fkeys *K, ProtobufCMessage **out, int depth) {
  const ProtobufCMessageDescriptor *d = K->d;
  ProtobufCMessage *m;
  uint32_t seen = 0;   /* fields given: a second time is the full path's */
  unsigned fi;
  if (!K->ok || ++depth > FAST_MAX_DEPTH || !eat(f, '{')) return 0;
  if ((m = (ProtobufCMessage *)kf_arena_alloc(f->A, d->sizeof_message)) == NULL)
    return 0;
  protobuf_c_message_init(d, m);
  *out = m;
  ws(f);
  if (eat(f, '}')) return 1;
  for (fi = 0;; fi++) {
    if (!fast_key(f, K, &fi) || (seen >> fi & 1)) return 0;
    seen |= (uint32_t)1 << fi;
    ws(f);
    if (!eat(f, ':')) return 0;
    ws(f);
    if (!fast_member(f, K, fi, m, depth)) return 0;
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
  int i;
  *out = NULL;
  pthread_once(&keys_once, keys_init);
  for (i = 0; i < nkeys && keys[i].d != d; i++) {}
  if (i == nkeys) return 0;       /* not a message from_json reads */
  f.p = (const unsigned char *)s;
  f.end = f.p + n;
  f.A = A;
  ws(&f);
  if (fast_msg(&f, &keys[i], out, 0)) {
    ws(&f);
    if (f.p == f.end) return 1;
  }
  kf_arena_rewind(A, pos);
  *out = NULL;
  return 0;
}

/*
** kf_wire_job.c - a v1 job written straight from it, by walking its kind's
** plan (kf_wire_plan.h), without building the protobuf-c message: its wire
** bytes (encode), its compact proto3 JSON (to_json) and the TaskTemplate's
** custom Struct (MessageToDict of the message as a Struct).  A
** sub-message's length goes in front of it once it is written; proto3's
** zero scalars are left out.  Sanitizer and fuzz builds compare each with
** what the message path makes of the built message.
*/
#include <string.h>

#include "kf_wire_plan.h"
#include "kf_json.h"

/* the tables are filled before kf_wplan returns a plan */
static const wtables *const T = &kf_wtables;

/* ---- wire bytes ---------------------------------------------------------- */

static uint8_t *put_tag(uint8_t *o, const wfield *w) {
  *o++ = w->tag[0];   /* one or two bytes here: no memcpy call */
  if (w->ntag > 1) {
    int i;
    for (i = 1; i < w->ntag; i++) *o++ = w->tag[i];
  }
  return o;
}

static uint8_t *put_str(uint8_t *o, const wfield *w, const char *s) {
  size_t n = strlen(s);
  o = kf_varint_put(put_tag(o, w), n);
  memcpy(o, s, n);
  return o + n;
}

static uint8_t *write_msg(const wplan *p, const char *job, uint8_t *o) {
  int i;
  size_t k;
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    /* tests, not a switch: a chain of branches, each taken the same way
    ** for the same field every time, predicts better than one jump */
    if (w->k == W_INT) {
      int32_t v = AT(job, w->off, int32_t);
      if (v != 0) o = kf_varint_put(put_tag(o, w), (uint64_t)(int64_t)v);
      continue;
    }
    if (w->k == W_STR) {
      const char *s = AT(job, w->off, char *);
      if (s != NULL && *s) o = put_str(o, w, s);
      continue;
    }
    if (w->k == W_MSG) {
      uint8_t *lenat;
      if (!msg_here(w, job)) continue;
      o = put_tag(o, w);
      lenat = o++;
      o = write_msg(w->sub, job, o);
      o = put_len(lenat, o);
      continue;
    }
    switch (w->k) {
      case W_INT: case W_STR: case W_MSG: break;
      case W_STRLIST: {
        size_t n = AT(job, w->off_n, size_t);
        const char *const *v = (const char *const *)AT(job, w->off, char **);
        for (k = 0; k < n; k++) o = put_str(o, w, v[k]);
        break;
      }
      case W_RES: {
        const char *const *q = (const char *const *)(const void *)(job + w->off);
        for (k = 0; k < KF_NRES; k++) {
          uint8_t *lenat;
          size_t n;
          if (q[k] == NULL) continue;
          o = put_tag(o, w);
          lenat = o++;
          if (T->res_number[k] != 0) {   /* ResourceEntry: name = 1, value = 2 */
            *o++ = 0x08;
            o = kf_varint_put(o, (uint64_t)(int64_t)T->res_number[k]);
          }
          if ((n = strlen(q[k])) > 0) {
            *o++ = 0x12;
            o = kf_varint_put(o, n);
            memcpy(o, q[k], n);
            o += n;
          }
          o = put_len(lenat, o);
        }
        break;
      }
    }
  }
  return o;
}

int kf_wire_job(const kf_job *j, int common, kf_buf *out) {
  const wplan *p;
  p = kf_wplan(j->kind, common);
  if (p == NULL) return 0;
  out->n = (size_t)(write_msg(p, (const char *)j, (uint8_t *)out->p + out->n) -
                    (uint8_t *)out->p);
  return 1;
}

/* ---- JSON --------------------------------------------------------------- */

/* JSON is written at a pointer: each field first makes room for the most
** it can take (a string: kf_json_quote_room), so the writes between need
** no checks.  NULL when the buffer could not grow (out->oom is set). */
static char *room(kf_buf *b, char *o, size_t n) {
  b->n = (size_t)(o - b->p);
  if (n <= b->cap - b->n) return o;   /* the common case: no call */
  if (n > KF_JSON_QUOTE_MAXLEN || !kf_buf_reserve(b, n)) {
    b->oom = 1;
    return NULL;
  }
  return b->p + b->n;
}

/* v in decimal at o (at most 11 bytes). */
static char *put_int(char *o, int32_t v) {
  char t[12];
  int n = 12;
  uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  do t[--n] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) *o++ = '-';
  memcpy(o, t + n, (size_t)(12 - n));
  return o + 12 - n;
}

/* An enum value json_msg has no quoted name for (enum_names stopped
** before it): its descriptor's name, or the number when it has none. */
static char *json_enum(kf_buf *b, char *o, const ProtobufCFieldDescriptor *fd, int32_t v) {
  const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(
      (const ProtobufCEnumDescriptor *)fd->descriptor, v);
  char t[32];
  const char *s = t;
  size_t n;
  if (ev != NULL) s = ev->name;   /* enum names are identifiers: nothing to escape */
  else kf_format_int(v, t);       /* unknown numbers stay numbers */
  n = strlen(s);
  if ((o = room(b, o, n + 2)) == NULL) return NULL;
  if (ev != NULL) *o++ = '"';
  memcpy(o, s, n);
  o += n;
  if (ev != NULL) *o++ = '"';
  return o;
}

/* A W_INT's value v (not 0) after its key, whose room held the longest
** enum name. */
static char *json_int(kf_buf *b, char *o, const wfield *w, int32_t v) {
  if (w->enames >= 0 && v > 0 && v < w->nenames) {
    memcpy(o, T->enum_q[w->enames + v], T->enum_n[w->enames + v]);
    return o + T->enum_n[w->enames + v];
  }
  if (w->fd->type == PROTOBUF_C_TYPE_ENUM) return json_enum(b, o, w->fd, v);
  return put_int(o, v);
}

/* cnt (> 0) strings as a JSON array. */
static char *json_strlist(kf_buf *b, char *o, const char *const *v, size_t cnt) {
  size_t k, n;
  for (k = 0; k < cnt; k++) {
    n = strlen(v[k]);
    if ((o = room(b, o, kf_json_quote_room(v[k], n) + 2)) == NULL) return NULL;
    *o++ = k ? ',' : '[';
    o = kf_json_quote_to(o, v[k], n);
  }
  *o++ = ']';   /* the room of the last entry's one more */
  return o;
}

/* The resources set in q (at least one) as a JSON array of {name, value}
** entries (T->json_ok: every resource has a name, number > 0). */
static char *json_res(kf_buf *b, char *o, const char *const *q) {
  size_t k, n;
  int any = 0;
  for (k = 0; k < KF_NRES; k++) {
    if (q[k] == NULL) continue;
    n = strlen(q[k]);
    if ((o = room(b, o, sizeof T->res_q[0][0] + kf_json_quote_room(q[k], n) + 3)) == NULL)
      return NULL;
    *o++ = any ? ',' : '[';
    any = 1;
    if (n) {
      memcpy(o, T->res_q[k][0], T->res_n[k][0]);
      o = kf_json_quote_to(o + T->res_n[k][0], q[k], n);
      *o++ = '}';
    } else {
      memcpy(o, T->res_q[k][1], T->res_n[k][1]);
      o += T->res_n[k][1];
    }
  }
  *o++ = ']';   /* the room of the last entry's '}' and one more */
  return o;
}

/* The fields of plan p, compact, as kf_msg_to_json writes them, between {
** and }. */
static char *json_msg(const wplan *p, const char *job, kf_buf *b, char *o) {
  int i, first = 1;
  size_t k, n;
#define KEY(extra)                                                          \
  do {                                                                      \
    if ((o = room(b, o, 1 + sizeof w->key + (extra))) == NULL) return NULL; \
    *o = ',';                                                               \
    o += !first;                                                            \
    memcpy(o, w->key, sizeof w->key);   /* whole: a fixed-size copy */      \
    o += w->nkey;                                                           \
    first = 0;                                                              \
  } while (0)
  if ((o = room(b, o, 1)) == NULL) return NULL;
  *o++ = '{';
  for (i = 0; i < p->n; i++) {
    const wfield *w = &p->f[i];
    switch (w->k) {
      case W_INT: {
        int32_t v = AT(job, w->off, int32_t);
        if (v == 0) break;
        KEY(sizeof T->enum_q[0]);
        if ((o = json_int(b, o, w, v)) == NULL) return NULL;
        break;
      }
      case W_STR: {
        const char *s = AT(job, w->off, char *);
        if (s == NULL || !*s) break;
        n = strlen(s);
        KEY(kf_json_quote_room(s, n));
        o = kf_json_quote_to(o, s, n);
        break;
      }
      case W_STRLIST: {
        size_t cnt = AT(job, w->off_n, size_t);
        const char *const *v = (const char *const *)AT(job, w->off, char **);
        if (cnt == 0) break;
        KEY(0);
        if ((o = json_strlist(b, o, v, cnt)) == NULL) return NULL;
        break;
      }
      case W_RES: {
        const char *const *q = (const char *const *)(const void *)(job + w->off);
        for (k = 0; k < KF_NRES && q[k] == NULL; k++) continue;
        if (k == KF_NRES) break;
        KEY(0);
        if ((o = json_res(b, o, q)) == NULL) return NULL;
        break;
      }
      case W_MSG:
        if (!msg_here(w, job)) break;
        KEY(0);
        if ((o = json_msg(w->sub, job, b, o)) == NULL) return NULL;
        break;
    }
  }
#undef KEY
  if ((o = room(b, o, 1)) == NULL) return NULL;
  *o++ = '}';
  return o;
}

int kf_wire_job_json(const kf_job *j, int common, kf_buf *out) {
  const wplan *p;
  char *o;
  p = kf_wplan(j->kind, common);
  if (p == NULL || !T->json_ok) return 0;
  if (!kf_buf_reserve(out, 1)) {   /* out->p + out->n: never on NULL */
    out->oom = 1;
    return 1;
  }
  if ((o = json_msg(p, (const char *)j, out, out->p + out->n)) != NULL)
    out->n = (size_t)(o - out->p);
  return 1;
}

/* ---- the TaskTemplate's custom Struct ----------------------------------- */

/* What flytekit puts in custom (MessageToDict of the message, parsed into a
** google.protobuf.Struct, serialized deterministically): per object the
** present fields by key, each a map entry (key = 1, value = 2) holding a
** Value - numbers as number_value (2, a double), strings and enum names as
** string_value (3), messages as struct_value (5), lists as list_value (6,
** Values in values = 1). */

/* The Struct is written backwards, from the end of its room: a value's
** length is known when its tag goes in front of it, so no written bytes
** move (a Struct nests five levels, most over 127 bytes).  `o` is where
** the bytes written so far start; each writer returns the new start. */

static uint8_t *st_len_slow(uint8_t *o, size_t n, uint8_t tag) {
  uint8_t v[10];
  size_t k = (size_t)(kf_varint_put(v, n) - v);
  o -= k;
  memcpy(o, v, k);
  *--o = tag;
  return o;
}

static inline uint8_t *st_len(uint8_t *o, const uint8_t *end, uint8_t tag) {
  size_t n = (size_t)(end - o);
  if (n >= 128) return st_len_slow(o, n, tag);
  o[-1] = (uint8_t)n;
  o[-2] = tag;
  return o - 2;
}

/* n bytes from s to d.  The Struct's strings are short: two overlapping
** moves for 8 to 32 bytes, where the compiler turned a copy whose length
** it knew to be small (an enum name) into `rep movsq`, slow to start. */
static inline void st_copy(uint8_t *d, const char *s, size_t n) {
  if (n >= 16 && n <= 32) {
    memcpy(d, s, 16);
    memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8 && n < 16) {
    memcpy(d, s, 8);
    memcpy(d + n - 8, s + n - 8, 8);
  } else {
    memcpy(d, s, n);
  }
}

static inline uint8_t *st_str(uint8_t *o, uint8_t tag, const char *s, size_t n) {
  uint8_t *end = o;
  o -= n;
  st_copy(o, s, n);
  return st_len(o, end, tag);
}

static uint8_t *st_num(uint8_t *o, double d) {
  uint64_t u;
  int i;
  memcpy(&u, &d, 8);
  o -= 8;
  for (i = 0; i < 8; i++) o[i] = (uint8_t)(u >> (8 * i));   /* little-endian */
  *--o = 0x11;
  return o;
}

static uint8_t *st_enum(uint8_t *o, const wfield *w, int32_t v) {
  const ProtobufCEnumValue *ev;
  if (w->enames >= 0 && v > 0 && v < w->nenames)   /* the quoted name, unquoted */
    return st_str(o, 0x1a, T->enum_q[w->enames + v] + 1, (size_t)T->enum_n[w->enames + v] - 2);
  ev = protobuf_c_enum_descriptor_get_value(
      (const ProtobufCEnumDescriptor *)w->fd->descriptor, v);
  if (ev == NULL) return st_num(o, (double)v);   /* unknown numbers stay numbers */
  return st_str(o, 0x1a, ev->name, strlen(ev->name));
}

/* A map entry {key: string_value} of a Struct (key = 1, value = 2). */
static inline uint8_t *st_named(uint8_t *o, const char *key, size_t nkey, const char *v) {
  uint8_t *e = o, *val = o;
  o = st_str(o, 0x1a, v, strlen(v));
  o = st_len(o, val, 0x12);
  o = st_str(o, 0x0a, key, nkey);
  return st_len(o, e, 0x0a);
}

/* A resource list: a Value per set quantity, a Struct {name, value}
** (the value left out for an empty quantity). */
static uint8_t *st_res(uint8_t *o, const char *const *q) {
  uint8_t *list = o;
  size_t k = KF_NRES;
  while (k-- > 0) {
    uint8_t *item = o;
    if (q[k] == NULL) continue;
    if (*q[k]) o = st_named(o, "value", 5, q[k]);
    o = st_named(o, "name", 4, T->res_name[k]);   /* T->json_ok: every one has one */
    o = st_len(o, item, 0x2a);                     /* struct_value */
    o = st_len(o, item, 0x0a);                     /* a Value of the list */
  }
  return st_len(o, list, 0x32);
}

static uint8_t *st_obj(const wplan *p, const char *job, uint8_t *o);

/* One present field's map entry: key, then the Value. */
static uint8_t *st_entry(const wfield *w, const char *job, uint8_t *o) {
  uint8_t *entry = o, *val = o;
  size_t k;
  switch (w->k) {
    case W_INT: {
      int32_t v = AT(job, w->off, int32_t);
      o = w->fd->type == PROTOBUF_C_TYPE_ENUM ? st_enum(o, w, v) : st_num(o, (double)v);
      break;
    }
    case W_STR: {
      const char *s = AT(job, w->off, char *);
      o = st_str(o, 0x1a, s, strlen(s));
      break;
    }
    case W_STRLIST: {
      size_t n = AT(job, w->off_n, size_t);
      const char *const *v = (const char *const *)AT(job, w->off, char **);
      for (k = n; k-- > 0;) {
        uint8_t *item = o;
        o = st_str(o, 0x1a, v[k], strlen(v[k]));
        o = st_len(o, item, 0x0a);
      }
      o = st_len(o, val, 0x32);
      break;
    }
    case W_RES:
      o = st_res(o, (const char *const *)(const void *)(job + w->off));
      break;
    case W_MSG:
      o = st_obj(w->sub, job, o);
      o = st_len(o, val, 0x2a);
      break;
  }
  o = st_len(o, val, 0x12);
  /* The whole array, the key at its end: a fixed-size copy is a few
  ** vector moves, where a copy of nskey bytes became `rep movsq`, whose
  ** start-up was a tenth of task_template's time.  The bytes below the key
  ** are room not yet written (kf_wire_job_struct reserves an array's
  ** worth below the Struct). */
  memcpy(o - sizeof w->skey, w->skey, sizeof w->skey);
  o -= w->nskey;
  return st_len(o, entry, 0x0a);
}

/* Whether field w is in the dict (what the JSON writer writes). */
static int present(const wfield *w, const char *job) {
  size_t k;
  switch (w->k) {
    case W_INT: return AT(job, w->off, int32_t) != 0;
    case W_STR: {
      const char *s = AT(job, w->off, char *);
      return s != NULL && *s;
    }
    case W_STRLIST: return AT(job, w->off_n, size_t) != 0;
    case W_RES:
      for (k = 0; k < KF_NRES; k++)
        if (((const char *const *)(const void *)(job + w->off))[k] != NULL) return 1;
      return 0;
    case W_MSG: return msg_here(w, job);
  }
  return 0;
}

static uint8_t *st_obj(const wplan *p, const char *job, uint8_t *o) {
  int i;
  for (i = p->n - 1; i >= 0; i--) {   /* backwards: the last key first */
    const wfield *w = &p->f[p->bykey[i]];
    if (present(w, job)) o = st_entry(w, job, o);
  }
  return o;
}

/* Room for the Struct of top plan p: its fixed part and each of its
** strings (a list item's with its framing). */
static size_t st_room(const wplan *p, const char *job) {
  size_t b = p->fixed, k;
  int i;
  for (i = 0; i < p->nstrs; i++) {
    const wfield *w = p->strs[i];
    if (w->k == W_STR) {
      const char *s = AT(job, w->off, char *);
      if (s != NULL) b += strlen(s);
    } else if (w->k == W_STRLIST) {
      size_t n = AT(job, w->off_n, size_t);
      const char *const *v = (const char *const *)AT(job, w->off, char **);
      for (k = 0; k < n; k++) b += 24 + strlen(v[k]);
    } else {   /* W_RES */
      const char *const *q = (const char *const *)(const void *)(job + w->off);
      for (k = 0; k < KF_NRES; k++)
        if (q[k] != NULL) b += strlen(q[k]);
    }
  }
  return b;
}

int kf_wire_job_struct(const kf_job *j, int common, unsigned field, kf_buf *out) {
  const wplan *p;
  uint64_t key = (uint64_t)field << 3 | 2u;
  uint8_t *o, *start, *end;
  size_t room, n;
  p = kf_wplan(j->kind, common);
  if (p == NULL || !T->json_ok || p->fixed == 0) return 0;
  if (out == NULL) return 1;   /* only asked whether there is a plan */
  room = 16 + sizeof p->f[0].skey + st_room(p, (const char *)j);
  if (!kf_buf_reserve(out, room)) return -1;
  end = (uint8_t *)out->p + out->n + room;
  start = st_obj(p, (const char *)j, end);
  n = (size_t)(end - start);
  o = kf_varint_put(kf_varint_put((uint8_t *)out->p + out->n, key), n);
  memmove(o, start, n);   /* the field's tag and length go in front of it */
  out->n = (size_t)((char *)o + n - out->p);
  return 1;
}

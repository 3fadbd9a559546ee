/*
** kf_json_scan.c - the fast JSON text -> kf_node reader behind
** kf_json_parse: strict RFC 8259, straight into arena nodes, no Lua, no
** intermediate tree.
**
** It accepts a subset of what jansson (JSON_REJECT_DUPLICATES |
** JSON_DECODE_ANY | JSON_ALLOW_NUL) accepts and builds the same tree.
** Whatever it does not handle - every syntax error, nesting past
** KF_MAX_DEPTH, integers of 19 digits or more, real overflow, keys with
** NUL, objects past KF_SCAN_MAX_KEYS members (its duplicate check is
** quadratic) - it hands back as KF_SCAN_BAIL, and kf_json_parse re-reads
** the text with jansson, so every error message keeps jansson's wording
** ("line L, column C: ... near '...'").  Allocation failure is reported.
** fuzz_from_json checks the two readers agree.
*/
#include <math.h>
#include <string.h>

#include "kf_json_int.h"

#define KF_SCAN_MAX_KEYS 128

typedef struct scan {
  const unsigned char *p, *end;
  kf_arena *A;
  kf_scan_result r;
  int esc;          /* the last string had escapes (only they make a NUL) */
  /* children of the open containers, stacked; a container copies its own
  ** into exact arrays when it closes */
  kf_node **sv;
  const char **sk;
  size_t sn, scap;
} scan;

static void ws(scan *s) {
  while (s->p < s->end &&
         (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
    s->p++;
}

static kf_node *fail(scan *s, kf_scan_result r) {
  if (s->r == KF_SCAN_OK) s->r = r;
  return NULL;
}

static kf_node *node(scan *s, kf_ntype t) {
  kf_node *n = (kf_node *)kf_arena_alloc_raw(s->A, sizeof *n);
  if (n == NULL) return fail(s, KF_SCAN_NOMEM);
  memset(n, 0, sizeof *n);
  n->t = t;
  return n;
}

/* Length of the valid UTF-8 sequence at p (jansson's rules: no overlong
** forms, no surrogates, at most U+10FFFF), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
  unsigned c = p[0], v, i, n;
  if (c < 0xC2 || c > 0xF4) return 0;
  n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if ((size_t)(end - p) < n) return 0;
  v = c & (0x7Fu >> n);
  for (i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = v << 6 | (p[i] & 0x3F);
  }
  if ((n == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) ||
      (n == 4 && (v < 0x10000 || v > 0x10FFFF)))
    return 0;
  return n;
}

static int hex4(const unsigned char *p, unsigned *out) {
  unsigned v = 0, i;
  for (i = 0; i < 4; i++) {
    unsigned c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= c - '0';
    else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
    else return 0;
  }
  *out = v;
  return 1;
}

/* (kf_json_int.h) */
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
const unsigned char kf_json_special[256] = {
    R16(1), R16(1),                                  /* 0x00-0x1f */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0x20-0x2f: '"' */
    R16(0), R16(0),                                  /* 0x30-0x4f */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,  /* 0x50-0x5f: '\\' */
    R16(0), R16(0),                                  /* 0x60-0x7f */
    R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1)};
#undef R16

/* The string whose opening quote is at s->p: decoded, NUL-terminated,
** in the arena.  NULL with s->r set on failure. */
static char *str(scan *s, size_t *len) {
  const unsigned char *b = ++s->p, *q = b;
  unsigned char *o, *w;
  int esc = 0;
  /* plain ASCII four bytes at a time: most strings are nothing else */
  while (s->end - q >= 4 && !(kf_json_special[q[0]] | kf_json_special[q[1]] |
                                   kf_json_special[q[2]] | kf_json_special[q[3]]))
    q += 4;
  for (;;) {                               /* find the end, check the bytes */
    unsigned c;
    if (q >= s->end) return (char *)fail(s, KF_SCAN_BAIL);
    c = *q;
    if (c == '"') break;
    if (c == '\\') {
      if (q + 1 >= s->end) return (char *)fail(s, KF_SCAN_BAIL);
      esc = 1;
      q += 2;
    } else if (c < 0x20) {
      return (char *)fail(s, KF_SCAN_BAIL);
    } else if (c < 0x80) {
      q++;
    } else {
      size_t n = utf8_len(q, s->end);
      if (n == 0) return (char *)fail(s, KF_SCAN_BAIL);
      q += n;
    }
  }
  s->p = q + 1;
  s->esc = esc;
  if ((o = (unsigned char *)kf_arena_alloc_raw(s->A, (size_t)(q - b) + 1)) == NULL)
    return (char *)fail(s, KF_SCAN_NOMEM);
  if (!esc) {
    memcpy(o, b, (size_t)(q - b));
    o[q - b] = '\0';
    *len = (size_t)(q - b);
    return (char *)o;
  }
  for (w = o; b < q;) {                    /* decode the escapes */
    unsigned u, lo;
    if (*b != '\\') { *w++ = *b++; continue; }
    switch (b[1]) {
      case '"': case '\\': case '/': *w++ = b[1]; b += 2; continue;
      case 'b': *w++ = '\b'; b += 2; continue;
      case 'f': *w++ = '\f'; b += 2; continue;
      case 'n': *w++ = '\n'; b += 2; continue;
      case 'r': *w++ = '\r'; b += 2; continue;
      case 't': *w++ = '\t'; b += 2; continue;
      case 'u': break;
      default: return (char *)fail(s, KF_SCAN_BAIL);
    }
    if (q - b < 6 || !hex4(b + 2, &u)) return (char *)fail(s, KF_SCAN_BAIL);
    b += 6;
    if (u >= 0xDC00 && u <= 0xDFFF) return (char *)fail(s, KF_SCAN_BAIL);
    if (u >= 0xD800 && u <= 0xDBFF) {      /* a high surrogate: needs its low */
      if (q - b < 6 || b[0] != '\\' || b[1] != 'u' || !hex4(b + 2, &lo) ||
          lo < 0xDC00 || lo > 0xDFFF)
        return (char *)fail(s, KF_SCAN_BAIL);
      b += 6;
      u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (u < 0x80) *w++ = (unsigned char)u;
    else if (u < 0x800) {
      *w++ = (unsigned char)(0xC0 | u >> 6);
      *w++ = (unsigned char)(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
      *w++ = (unsigned char)(0xE0 | u >> 12);
      *w++ = (unsigned char)(0x80 | (u >> 6 & 0x3F));
      *w++ = (unsigned char)(0x80 | (u & 0x3F));
    } else {
      *w++ = (unsigned char)(0xF0 | u >> 18);
      *w++ = (unsigned char)(0x80 | (u >> 12 & 0x3F));
      *w++ = (unsigned char)(0x80 | (u >> 6 & 0x3F));
      *w++ = (unsigned char)(0x80 | (u & 0x3F));
    }
  }
  *w = '\0';
  *len = (size_t)(w - o);
  return (char *)o;
}

static int digit(const scan *s, const unsigned char *q) {
  return q < s->end && *q >= '0' && *q <= '9';
}

/* A number: integers of up to 18 digits exactly, reals by kf_strtod (as
** jansson's strtod); the rest is jansson's to judge. */
static kf_node *num(scan *s) {
  const unsigned char *b = s->p, *q = b;
  int real = 0;
  kf_node *n;
  if (*q == '-') q++;
  if (!digit(s, q)) return fail(s, KF_SCAN_BAIL);
  if (*q == '0') q++;
  else while (digit(s, q)) q++;
  if (q < s->end && *q == '.') {
    real = 1;
    if (!digit(s, ++q)) return fail(s, KF_SCAN_BAIL);
    while (digit(s, q)) q++;
  }
  if (q < s->end && (*q == 'e' || *q == 'E')) {
    real = 1;
    q++;
    if (q < s->end && (*q == '+' || *q == '-')) q++;
    if (!digit(s, q)) return fail(s, KF_SCAN_BAIL);
    while (digit(s, q)) q++;
  }
  s->p = q;
  if (!real) {
    const unsigned char *d = b + (*b == '-');
    int64_t v = 0;
    if (q - d > 18) return fail(s, KF_SCAN_BAIL);
    for (; d < q; d++) v = v * 10 + (*d - '0');
    if ((n = node(s, KF_NINT)) != NULL) n->u.i = *b == '-' ? -v : v;
    return n;
  } else {
    char buf[64], *e;
    double d;
    if ((size_t)(q - b) >= sizeof buf) return fail(s, KF_SCAN_BAIL);
    memcpy(buf, b, (size_t)(q - b));
    buf[q - b] = '\0';
    d = kf_strtod(buf, &e);
    if (e != buf + (q - b) || isinf(d)) return fail(s, KF_SCAN_BAIL);
    if ((n = node(s, KF_NNUM)) != NULL) n->u.d = d;
    return n;
  }
}

static int lit(scan *s, const char *w, size_t n) {
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0) return 0;
  s->p += n;
  return 1;
}

static int stack_push(scan *s, const char *k, kf_node *v) {
  if (s->sn == s->scap) {
    size_t cap = s->scap ? s->scap * 2 : 64;
    kf_node **nv = (kf_node **)kf_arena_alloc_raw(s->A, cap * sizeof *nv);
    const char **nk = (const char **)kf_arena_alloc_raw(s->A, cap * sizeof *nk);
    if (nv == NULL || nk == NULL) return (fail(s, KF_SCAN_NOMEM), 0);
    if (s->sn) {
      memcpy(nv, s->sv, s->sn * sizeof *nv);
      memcpy(nk, s->sk, s->sn * sizeof *nk);
    }
    s->sv = nv;
    s->sk = nk;
    s->scap = cap;
  }
  s->sk[s->sn] = k;
  s->sv[s->sn++] = v;
  return 1;
}

static kf_node *value(scan *s, int depth);

/* An array or object at s->p ('[' or '{'). */
static kf_node *container(scan *s, int depth) {
  int obj = *s->p == '{';
  char close = obj ? '}' : ']';
  size_t base = s->sn, cnt, i;
  kf_node *n;
  if (depth >= KF_MAX_DEPTH) return fail(s, KF_SCAN_BAIL);
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == close) {
    s->p++;
    return node(s, obj ? KF_NOBJ : KF_NARR);
  }
  for (;;) {
    const char *k = NULL;
    kf_node *v;
    if (obj) {
      size_t kl;
      if (s->p >= s->end || *s->p != '"') return fail(s, KF_SCAN_BAIL);
      if ((k = str(s, &kl)) == NULL) return NULL;
      if ((s->esc && memchr(k, 0, kl) != NULL) || s->sn - base >= KF_SCAN_MAX_KEYS)
        return fail(s, KF_SCAN_BAIL);
      for (i = base; i < s->sn; i++)
        if (s->sk[i][0] == k[0] && strcmp(s->sk[i], k) == 0)
          return fail(s, KF_SCAN_BAIL);    /* a duplicate */
      ws(s);
      if (s->p >= s->end || *s->p != ':') return fail(s, KF_SCAN_BAIL);
      s->p++;
      ws(s);
    }
    if ((v = value(s, depth + 1)) == NULL || !stack_push(s, k, v)) return NULL;
    ws(s);
    if (s->p >= s->end) return fail(s, KF_SCAN_BAIL);
    if (*s->p == ',') {
      s->p++;
      ws(s);
      continue;
    }
    if (*s->p != close) return fail(s, KF_SCAN_BAIL);
    s->p++;
    break;
  }
  if ((n = node(s, obj ? KF_NOBJ : KF_NARR)) == NULL) return NULL;
  cnt = s->sn - base;
  if ((n->u.c.v = (kf_node **)kf_arena_alloc_raw(s->A, cnt * sizeof *n->u.c.v)) == NULL ||
      (obj && (n->u.c.k = (const char **)kf_arena_alloc_raw(s->A, cnt * sizeof *n->u.c.k)) == NULL))
    return fail(s, KF_SCAN_NOMEM);
  memcpy(n->u.c.v, s->sv + base, cnt * sizeof *n->u.c.v);
  if (obj) memcpy(n->u.c.k, s->sk + base, cnt * sizeof *n->u.c.k);
  n->u.c.n = n->u.c.cap = cnt;
  s->sn = base;
  return n;
}

static kf_node *value(scan *s, int depth) {
  kf_node *n;
  if (s->p >= s->end) return fail(s, KF_SCAN_BAIL);
  switch (*s->p) {
    case '{': case '[': return container(s, depth);
    case '"': {
      size_t len;
      char *p;
      if ((p = str(s, &len)) == NULL || (n = node(s, KF_NSTR)) == NULL) return NULL;
      n->u.s.p = p;
      n->u.s.n = len;
      return n;
    }
    case 't': case 'f':
      if (!lit(s, "true", 4) && !lit(s, "false", 5)) return fail(s, KF_SCAN_BAIL);
      if ((n = node(s, KF_NBOOL)) != NULL) n->u.b = s->p[-1] == 'e' && s->p[-2] == 'u';
      return n;
    case 'n':
      if (!lit(s, "null", 4)) return fail(s, KF_SCAN_BAIL);
      return node(s, KF_NNIL);
    default:
      return num(s);
  }
}

kf_scan_result kf_json_scan(const char *text, size_t n, kf_arena *A, kf_node **out) {
  scan s;
  memset(&s, 0, sizeof s);
  s.p = (const unsigned char *)text;
  s.end = s.p + n;
  s.A = A;
  *out = NULL;
  ws(&s);
  *out = value(&s, 0);
  if (*out == NULL) return s.r == KF_SCAN_OK ? KF_SCAN_NOMEM : s.r;
  ws(&s);
  if (s.p != s.end) return (*out = NULL, KF_SCAN_BAIL);
  return KF_SCAN_OK;
}

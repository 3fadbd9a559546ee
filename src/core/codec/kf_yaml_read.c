/*
** kf_yaml_read.c - YAML/JSON text -> kf_node trees, strictly (see
** kf_yaml_read.h): libyaml's parser gives events, a stack of open
** containers builds the tree, anchors live in a hash table per document.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "kf_json.h"
#include "kf_yaml_read.h"
#include "kf_yaml_scalar.h"

struct kf_yaml_line {
  const kf_node *n;
  size_t line;
};

typedef struct frame {
  kf_node *n;             /* the open mapping or sequence */
  const char *key;        /* mapping: the key read, waiting for its value */
  size_t keyline;
  size_t start;           /* nodes counted when it opened */
  int height;             /* of its tallest child */
  const char *anchor;
  size_t line;
} frame;

typedef struct anchor {
  const char *name;       /* NULL: free slot */
  kf_node *n;
  size_t size;            /* nodes it stands for, aliases expanded */
  int height;
} anchor;

typedef struct rd {
  kf_arena *A;
  yaml_parser_t p;
  kf_yaml_limits lim;
  kf_yaml_where *w;
  kf_err *e;
  frame *st;
  int depth;
  size_t nodes;
  anchor *anc;            /* open addressing, power-of-two size */
  size_t nanc, canc;
  kf_yaml_line *lines;    /* the current document's */
  size_t nlines, clines;
  kf_yaml_doc *docs;
  size_t ndocs, cdocs;
  kf_node *root;
  size_t doc_line;        /* where the current document starts */
  size_t text_lines;      /* lines of the text (libyaml may say one more) */
  int v11;                /* the current document's scalars: YAML 1.1 */
  int bad_escape;         /* libyaml refused a \\u escape (a surrogate) */
} rd;

/* ---- errors ----------------------------------------------------------- */

/* A key a path writes as ".key": letters, digits, '_' and '-'. */
static int plain_key(const char *k) {
  const char *p = k;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
      return 0;
  return p != k;
}

/* The path of the node being read: "a.b[2]", ["key"] for other keys. */
static void path_of_stack(rd *r, char *out, size_t cap) {
  size_t len = 0;
  int i;
  out[0] = '\0';
  for (i = 0; i < r->depth && len + 1 < cap; i++) {
    const frame *f = &r->st[i];
    int m;
    if (f->n->t == KF_NARR)
      m = snprintf(out + len, cap - len, "[%zu]",
                   f->n->u.c.n + (size_t)r->lim.index_base);
    else if (f->key == NULL)
      break;
    else if (plain_key(f->key))
      m = snprintf(out + len, cap - len, "%s%s", len ? "." : "", f->key);
    else                                  /* as kf_yaml_path_line reads it */
      m = snprintf(out + len, cap - len, "[\"%s\"]", f->key);
    if (m < 0) break;
    len += (size_t)m < cap - len ? (size_t)m : cap - len - 1;
  }
}

/* Fills *w (or a scratch one) and e: "document D, line L, column C: PATH:
** what", leaving out what is unknown. */
static kf_status report(rd *r, kf_status code, size_t line, size_t col,
                        int with_path, const char *what) {
  kf_yaml_where tmp, *w = r->w ? r->w : &tmp;
  char pre[96];
  size_t k = 0;
  if (line > r->text_lines) line = r->text_lines;   /* libyaml's line after EOF */
  snprintf(w->what, sizeof w->what, "%s", what);
  w->doc = r->ndocs, w->line = line, w->column = col;
  w->path[0] = '\0';
  if (with_path) path_of_stack(r, w->path, sizeof w->path);
  pre[0] = '\0';
  if (w->doc > 1) k += (size_t)snprintf(pre, sizeof pre, "document %zu, ", w->doc);
  if (line && col)
    k += (size_t)snprintf(pre + k, sizeof pre - k, "line %zu, column %zu, ", line, col);
  else if (line)
    k += (size_t)snprintf(pre + k, sizeof pre - k, "line %zu, ", line);
  if (k >= 2) pre[k - 2] = ':';           /* ", " -> ": " */
  if (w->path[0])
    return kf_fail(r->e, code, "%s%s: %s", pre, w->path, w->what);
  return kf_fail(r->e, code, "%s%s", pre, w->what);
}

static kf_status fail(rd *r, kf_status code, size_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static kf_status fail(rd *r, kf_status code, size_t line, const char *fmt, ...) {
  char what[KF_ERRMAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return report(r, code, line, 0, 1, what);
}

/* Does line `line` (0-based) of the text start its indentation with a tab?
** libyaml then says only "found character that cannot start any token". */
static int tab_indent(const char *text, size_t n, size_t line) {
  const char *p = text, *end = text + n;
  for (; line > 0 && p < end; line--) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL) return 0;
    p = nl + 1;
  }
  while (p < end && *p == ' ') p++;
  return p < end && *p == '\t';
}

#define BAD_ESCAPE "found invalid Unicode character escape code"

/* libyaml's own error, at its mark (or byte offset, for the reader's). */
static kf_status parser_error(rd *r, const char *text, size_t n) {
  yaml_parser_t *p = &r->p;
  size_t line = p->problem_mark.line + 1, col = p->problem_mark.column + 1, i;
  char what[KF_ERRMAX];
  if (p->error == YAML_MEMORY_ERROR) return kf_nomem(r->e);
  r->bad_escape = p->problem && strcmp(p->problem, BAD_ESCAPE) == 0;
  if (p->error == YAML_READER_ERROR) {   /* encoding: a byte offset */
    for (line = 1, i = 0; i < p->problem_offset; i++)
      if (text[i] == '\n') line++;
    col = 0;
  }
  if (p->error == YAML_SCANNER_ERROR && tab_indent(text, n, p->problem_mark.line))
    snprintf(what, sizeof what, "a tab in the indentation (YAML indents with spaces)");
  else if (p->context)
    snprintf(what, sizeof what, "%s (%s)", p->problem ? p->problem : "syntax error",
             p->context);
  else
    snprintf(what, sizeof what, "%s", p->problem ? p->problem : "syntax error");
  return report(r, KF_EINVAL, line, col, 0, what);
}

#define TAG "tag:yaml.org,2002:"

/* What an explicit tag asks for: R_ANY (none, or non-specific on a plain
** scalar), R_STR, ..., R_BAD (a tag kfjob does not take). */
static int tag_kind(const char *tag, int plain) {
  static const char *const names[] = {"str", "int", "float", "bool", "null", NULL};
  int i;
  if (tag == NULL) return plain ? R_ANY : R_STR;
  if (strcmp(tag, "!") == 0) return R_STR;
  if (strncmp(tag, TAG, sizeof TAG - 1) != 0) return R_BAD;
  for (i = 0; names[i]; i++)
    if (strcmp(tag + sizeof TAG - 1, names[i]) == 0) return R_STR + i;
  return R_BAD;
}

/* The node of a scalar event. */
static kf_status scalar_node(rd *r, const yaml_event_t *ev, kf_node **out) {
  const char *s = (const char *)ev->data.scalar.value;
  size_t n = ev->data.scalar.length, line = ev->start_mark.line + 1;
  int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  int want = tag_kind((const char *)ev->data.scalar.tag, plain), got, ok;
  kf_node tmp;
  if (want == R_BAD)
    return fail(r, KF_EINVAL, line, "the tag %.100s is not supported",
                (const char *)ev->data.scalar.tag);
  if (!kf_utf8_ok(s, n))   /* an escape can make a surrogate */
    return fail(r, KF_EINVAL, line, "invalid UTF-8 in a string");
  memset(&tmp, 0, sizeof tmp);
  got = want == R_STR ? (tmp.t = KF_NSTR, R_STR)
        : kfy_resolve(r->A, s, n, r->v11, &tmp, &ok);
  if (got < 0) return kf_nomem(r->e);
  if (want != R_ANY && got != want && !(want == R_FLOAT && got == R_INT))
    return fail(r, KF_EINVAL, line, "'%.40s' is not a valid %s",
                s, (const char *)ev->data.scalar.tag + sizeof TAG - 1);
  if (got == R_INT && !ok)
    return fail(r, KF_EINVAL, line, "integer %.40s is out of range", s);
  if (want == R_FLOAT && got == R_INT) tmp.t = KF_NNUM, tmp.u.d = (double)tmp.u.i;
  if (tmp.t == KF_NSTR) *out = kf_node_str(r->A, s, n);
  else if ((*out = kf_node_new(r->A, tmp.t)) != NULL) (*out)->u = tmp.u;
  return *out ? KF_OK : kf_nomem(r->e);
}

/* ---- tables: lines, anchors, documents -------------------------------- */

/* Grows an arena array to hold one more item (arena memory is not freed:
** doubling keeps the waste under the array's own size). */
static int grow(rd *r, void **v, size_t n, size_t *cap, size_t sz) {
  void *nv;
  size_t c;
  if (n < *cap) return 1;
  c = *cap ? *cap * 2 : 16;
  if ((nv = kf_arena_alloc_raw(r->A, c * sz)) == NULL) return 0;
  if (n) memcpy(nv, *v, n * sz);
  *v = nv;
  *cap = c;
  return 1;
}

static kf_status add_line(rd *r, const kf_node *n, size_t line) {
  if (line > r->text_lines) line = r->text_lines;
  if (!grow(r, (void **)&r->lines, r->nlines, &r->clines, sizeof *r->lines))
    return kf_nomem(r->e);
  r->lines[r->nlines].n = n;
  r->lines[r->nlines++].line = line;
  return KF_OK;
}

static size_t anchor_hash(const char *s) {
  uint64_t h = KF_HASH_SEED;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3u;
  return (size_t)h;
}

static anchor *anchor_slot(anchor *t, size_t cap, const char *name) {
  size_t i = anchor_hash(name) & (cap - 1);
  while (t[i].name != NULL && strcmp(t[i].name, name) != 0) i = (i + 1) & (cap - 1);
  return &t[i];
}

/* Records (or redefines, as YAML allows) an anchor. */
static kf_status anchor_set(rd *r, const char *name, kf_node *n, size_t size,
                            int height) {
  anchor *a;
  if (2 * (r->nanc + 1) > r->canc) {        /* keep the load under a half */
    size_t c = r->canc ? r->canc * 2 : 16, i;
    anchor *t = (anchor *)kf_arena_alloc(r->A, c * sizeof *t);
    if (t == NULL) return kf_nomem(r->e);
    for (i = 0; i < r->canc; i++)
      if (r->anc[i].name) *anchor_slot(t, c, r->anc[i].name) = r->anc[i];
    r->anc = t, r->canc = c;
  }
  a = anchor_slot(r->anc, r->canc, name);
  if (a->name == NULL) {
    if ((a->name = kf_arena_strndup(r->A, name, strlen(name))) == NULL)
      return kf_nomem(r->e);
    r->nanc++;
  }
  a->n = n, a->size = size, a->height = height;
  return KF_OK;
}

static const anchor *anchor_get(const rd *r, const char *name) {
  const anchor *a;
  if (r->canc == 0) return NULL;
  a = anchor_slot(r->anc, r->canc, name);
  return a->name ? a : NULL;
}

/* ---- building --------------------------------------------------------- */

/* Counts `size` more nodes (an alias: all it stands for). */
static kf_status count(rd *r, size_t size, size_t line) {
  r->nodes += size;
  if (r->nodes > r->lim.max_nodes || r->nodes < size)
    return fail(r, KF_ELIMIT, line, "more than %zu nodes (aliases expanded)",
                r->lim.max_nodes);
  return KF_OK;
}

/* A mapping waiting for a key takes a string scalar (alias or not). */
static kf_status take_key(rd *r, frame *f, const kf_node *k, size_t line) {
  static const char *const what[] = {"null", "a boolean", "an integer",
                                     "a number", "", "a list", "a mapping"};
  if (k->t != KF_NSTR)
    return fail(r, KF_EINVAL, line, "a key must be a string, not %s%s", what[k->t],
                k->t < KF_NSTR ? " (quote it)" : "");
  if (memchr(k->u.s.p, 0, k->u.s.n))
    return fail(r, KF_EINVAL, line, "a key contains a NUL character");
  if (strcmp(k->u.s.p, "<<") == 0 && !r->v11)   /* YAML 1.1 merge: not in 1.2 */
    return fail(r, KF_EINVAL, line, "merge keys (<<) are not supported");
  f->key = k->u.s.p;
  f->keyline = line;
  return KF_OK;
}

/* Adds a finished node (size nodes, height levels) where the stack says. */
static kf_status place(rd *r, kf_node *v, size_t line, int height) {
  frame *f;
  if (r->depth == 0) {
    r->root = v;
    return add_line(r, v, line);
  }
  f = &r->st[r->depth - 1];
  if (f->n->t == KF_NOBJ && f->key == NULL) return take_key(r, f, v, line);
  if (height + 1 > f->height) f->height = height + 1;
  if (f->n->t == KF_NOBJ) line = f->keyline;
  if (!kf_node_push(r->A, f->n, f->n->t == KF_NOBJ ? f->key : NULL, v))
    return kf_nomem(r->e);
  f->key = NULL;
  return add_line(r, v, line);
}

static kf_status on_scalar(rd *r, const yaml_event_t *ev) {
  kf_node *v = NULL;
  size_t line = ev->start_mark.line + 1;
  kf_status st;
  if ((st = scalar_node(r, ev, &v)) != KF_OK || (st = count(r, 1, line)) != KF_OK ||
      (st = place(r, v, line, 0)) != KF_OK)
    return st;
  if (ev->data.scalar.anchor)
    return anchor_set(r, (const char *)ev->data.scalar.anchor, v, 1, 0);
  return KF_OK;
}

static kf_status on_alias(rd *r, const yaml_event_t *ev) {
  const char *name = (const char *)ev->data.alias.anchor;
  const anchor *a = anchor_get(r, name);
  size_t line = ev->start_mark.line + 1;
  kf_status st;
  if (a == NULL)
    return fail(r, KF_EINVAL, line, "alias *%.60s names no anchor before it", name);
  if (r->depth + a->height > r->lim.max_depth)
    return fail(r, KF_ELIMIT, line, "nested deeper than %d levels (aliases expanded)",
                r->lim.max_depth);
  if ((st = count(r, a->size, line)) != KF_OK) return st;
  return place(r, a->n, line, a->height);
}

/* A mapping or sequence opens. */
static kf_status on_open(rd *r, const yaml_event_t *ev, int map) {
  const char *tag = (const char *)(map ? ev->data.mapping_start.tag
                                       : ev->data.sequence_start.tag);
  const char *anc = (const char *)(map ? ev->data.mapping_start.anchor
                                       : ev->data.sequence_start.anchor);
  size_t line = ev->start_mark.line + 1;
  frame *f;
  kf_node *n;
  if (r->depth > 0 && r->st[r->depth - 1].n->t == KF_NOBJ &&
      r->st[r->depth - 1].key == NULL)
    return fail(r, KF_EINVAL, line, "a key must be a string, not %s",
                map ? "a mapping" : "a list");
  if (tag && strcmp(tag, "!") != 0 && strcmp(tag, map ? TAG "map" : TAG "seq") != 0)
    return fail(r, KF_EINVAL, line, "the tag %.100s is not supported", tag);
  if (r->depth >= r->lim.max_depth)
    return fail(r, KF_ELIMIT, line, "nested deeper than %d levels", r->lim.max_depth);
  if ((n = kf_node_new(r->A, map ? KF_NOBJ : KF_NARR)) == NULL) return kf_nomem(r->e);
  f = &r->st[r->depth++];
  memset(f, 0, sizeof *f);
  f->n = n, f->start = r->nodes, f->line = line, f->height = 1;
  if (anc && (f->anchor = kf_arena_strndup(r->A, anc, strlen(anc))) == NULL)
    return kf_nomem(r->e);
  return count(r, 1, line);
}

/* The line recorded for a node of the current document (last match: a
** shared node's latest use). */
static size_t line_of(const rd *r, const kf_node *n) {
  size_t i = r->nlines;
  while (i-- > 0)
    if (r->lines[i].n == n) return r->lines[i].line;
  return 0;
}

static int key_cmp(const void *a, const void *b) {
  int c = strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
  if (c) return c;   /* equal keys: in the order given */
  return *(const char *const *const *)a < *(const char *const *const *)b ? -1 : 1;
}

/* The first key given twice in a finished mapping (its later spelling). */
static kf_status check_dups(rd *r, const kf_node *m) {
  const char ***ix;
  size_t i, n = m->u.c.n, worst = n;
  if (n < 2) return KF_OK;
  if ((ix = (const char ***)kf_arena_alloc_raw(r->A, n * sizeof *ix)) == NULL)
    return kf_nomem(r->e);
  for (i = 0; i < n; i++) ix[i] = &m->u.c.k[i];
  qsort(ix, n, sizeof *ix, key_cmp);
  for (i = 1; i < n; i++)
    if (strcmp(*ix[i], *ix[i - 1]) == 0 && (size_t)(ix[i] - m->u.c.k) < worst)
      worst = (size_t)(ix[i] - m->u.c.k);
  if (worst == n) return KF_OK;
  for (i = 0; strcmp(m->u.c.k[i], m->u.c.k[worst]) != 0; i++) {}
  return fail(r, KF_EINVAL, line_of(r, m->u.c.v[worst]),
              "duplicate key '%.100s' (first given on line %zu)", m->u.c.k[worst],
              line_of(r, m->u.c.v[i]));
}

/* Appends the entries a merge key's value brings: a mapping, or a list of
** mappings (go-yaml v2, as kubectl reads YAML 1.1). */
static kf_status merge_from(rd *r, kf_node *out, const kf_node *v, size_t line) {
  size_t i, k;
  for (i = 0; i < (v->t == KF_NARR ? v->u.c.n : 1); i++) {
    const kf_node *src = v->t == KF_NARR ? v->u.c.v[i] : v;
    if (src->t != KF_NOBJ)
      return fail(r, KF_EINVAL, line, "a merge key (<<) takes a mapping or a list of mappings");
    for (k = 0; k < src->u.c.n; k++)
      if (!kf_node_push(r->A, out, src->u.c.k[k], src->u.c.v[k])) return kf_nomem(r->e);
  }
  return KF_OK;
}

/* A YAML 1.1 mapping's merge keys resolved: its own keys, then the merged
** ones it has not (the first given wins), the << entries gone. */
static kf_status merge_keys(rd *r, kf_node *m, size_t line) {
  kf_node *out;
  const char ***ix;
  unsigned char *drop;
  size_t i, n, o;
  kf_status st;
  for (i = 0; i < m->u.c.n && strcmp(m->u.c.k[i], "<<") != 0; i++) {}
  if (i == m->u.c.n) return KF_OK;
  if ((out = kf_node_new(r->A, KF_NOBJ)) == NULL) return kf_nomem(r->e);
  for (i = 0; i < m->u.c.n; i++)
    if (strcmp(m->u.c.k[i], "<<") != 0 && !kf_node_push(r->A, out, m->u.c.k[i], m->u.c.v[i]))
      return kf_nomem(r->e);
  for (i = 0; i < m->u.c.n; i++)
    if (strcmp(m->u.c.k[i], "<<") == 0 && (st = merge_from(r, out, m->u.c.v[i], line)) != KF_OK)
      return st;
  /* the first of each key stays: key_cmp orders equal keys by place */
  n = out->u.c.n;
  if ((ix = (const char ***)kf_arena_alloc_raw(r->A, (n + 1) * sizeof *ix)) == NULL ||
      (drop = (unsigned char *)kf_arena_alloc(r->A, n + 1)) == NULL)
    return kf_nomem(r->e);
  for (i = 0; i < n; i++) ix[i] = &out->u.c.k[i];
  qsort(ix, n, sizeof *ix, key_cmp);
  for (i = 1; i < n; i++)
    if (strcmp(*ix[i], *ix[i - 1]) == 0) drop[ix[i] - out->u.c.k] = 1;
  for (i = 0, o = 0; i < n; i++)
    if (!drop[i]) out->u.c.k[o] = out->u.c.k[i], out->u.c.v[o++] = out->u.c.v[i];
  out->u.c.n = o;
  m->u.c = out->u.c;
  return KF_OK;
}

static kf_status on_close(rd *r) {
  frame f = r->st[r->depth - 1];
  kf_status st;
  if (f.n->t == KF_NOBJ && ((st = check_dups(r, f.n)) != KF_OK ||
                            (r->v11 && (st = merge_keys(r, f.n, f.line)) != KF_OK)))
    return st;
  r->depth--;
  if ((st = place(r, f.n, f.line, f.height)) != KF_OK) return st;
  if (f.anchor) return anchor_set(r, f.anchor, f.n, r->nodes - f.start, f.height);
  return KF_OK;
}

static kf_status doc_start(rd *r, const yaml_event_t *ev) {
  r->ndocs++;
  if (r->ndocs > r->lim.max_docs)
    return fail(r, KF_ELIMIT, ev->start_mark.line + 1, "more than %zu documents",
                r->lim.max_docs);
  r->anc = NULL, r->nanc = r->canc = 0;      /* anchors are per document */
  r->lines = NULL, r->nlines = r->clines = 0;
  r->root = NULL;
  r->doc_line = ev->start_mark.line + 1;
  r->v11 = r->lim.yaml11 || (ev->data.document_start.version_directive &&
                             ev->data.document_start.version_directive->major == 1 &&
                             ev->data.document_start.version_directive->minor == 1);
  if (r->doc_line > r->text_lines) r->doc_line = r->text_lines;
  return KF_OK;
}

static kf_status doc_end(rd *r) {
  kf_yaml_doc *d;
  if (!grow(r, (void **)&r->docs, r->ndocs - 1, &r->cdocs, sizeof *r->docs))
    return kf_nomem(r->e);
  d = &r->docs[r->ndocs - 1];
  memset(d, 0, sizeof *d);
  if (r->root == NULL && (r->root = kf_node_new(r->A, KF_NNIL)) == NULL)
    return kf_nomem(r->e);
  d->root = r->root;
  d->line = r->nlines ? r->lines[0].line : r->doc_line;
  d->lines = r->lines;
  d->nlines = r->nlines;
  d->index_base = r->lim.index_base;
  return KF_OK;
}

static kf_status on_event(rd *r, const yaml_event_t *ev) {
  switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT: return doc_start(r, ev);
    case YAML_DOCUMENT_END_EVENT: return doc_end(r);
    case YAML_SCALAR_EVENT: return on_scalar(r, ev);
    case YAML_ALIAS_EVENT: return on_alias(r, ev);
    case YAML_MAPPING_START_EVENT: return on_open(r, ev, 1);
    case YAML_SEQUENCE_START_EVENT: return on_open(r, ev, 0);
    case YAML_MAPPING_END_EVENT: case YAML_SEQUENCE_END_EVENT: return on_close(r);
    default: return KF_OK;   /* stream start/end */
  }
}

static void set_limits(kf_yaml_limits *l, const kf_yaml_limits *in) {
  memset(l, 0, sizeof *l);
  if (in) *l = *in;
  if (l->max_bytes == 0) l->max_bytes = KF_YAML_MAX_BYTES;
  if (l->max_docs == 0) l->max_docs = KF_YAML_MAX_DOCS;
  if (l->max_nodes == 0) l->max_nodes = KF_YAML_MAX_NODES;
  if (l->max_depth <= 0) l->max_depth = KF_MAX_DEPTH;
  l->index_base = l->index_base ? 1 : 0;
}

static kf_status parse(rd *r, const char *text, size_t n) {
  yaml_event_t ev;
  kf_status st = KF_OK;
  int done = 0;
  if ((r->st = (frame *)kf_arena_alloc(r->A, ((size_t)r->lim.max_depth + 1) *
                                                 sizeof *r->st)) == NULL)
    return kf_nomem(r->e);
  if (!yaml_parser_initialize(&r->p)) return kf_nomem(r->e);
  yaml_parser_set_input_string(&r->p, (const unsigned char *)text, n);
  yaml_parser_set_encoding(&r->p, YAML_UTF8_ENCODING);   /* no UTF-16 */
  while (st == KF_OK && !done) {
    if (!yaml_parser_parse(&r->p, &ev)) {
      st = parser_error(r, text, n);
      break;
    }
    done = ev.type == YAML_STREAM_END_EVENT;
    st = on_event(r, &ev);
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&r->p);
  return st;
}

/* The end of the JSON value (object or array) that starts at t[i], or 0
** when the text ends first: brackets counted outside strings. */
static size_t json_value_end(const char *t, size_t n, size_t i) {
  int depth = 0, str = 0;
  for (; i < n; i++) {
    char ch = t[i];
    if (str) {
      if (ch == '\\') i++;
      else if (ch == '"') str = 0;
    } else if (ch == '"') {
      str = 1;
    } else if (ch == '{' || ch == '[') {
      depth++;
    } else if ((ch == '}' || ch == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return 0;
}

static int json_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

/* The start of the JSON value on a later line after the one that starts
** at t[i], or 0 when none follows. */
static size_t json_next(const char *t, size_t n, size_t i) {
  size_t end = json_value_end(t, n, i);
  int nl = 0;
  if (end == 0) return 0;
  for (i = end; i < n && json_space(t[i]); i++) nl |= t[i] == '\n';
  return nl && i < n && (t[i] == '{' || t[i] == '[') ? i : 0;
}

/* A sequence of JSON values a line each at least (JSON Lines, as `kfjob
** render -f manifest-json` writes several jobs) read as a stream of
** documents: "--- " goes before each value after the first, on its line,
** so lines keep their numbers.  Other text is left as it is. */
static kf_status json_seq(rd *r, const char **text, size_t *n) {
  const char *t = *text;
  size_t i = 0, j, from = 0, k = 0, extra = 0;
  char *out;
  while (i < *n && json_space(t[i])) i++;
  if (i == *n || (t[i] != '{' && t[i] != '[')) return KF_OK;
  for (j = i; (j = json_next(t, *n, j)) != 0;) extra += 4;
  if (extra == 0) return KF_OK;
  if ((out = (char *)kf_arena_alloc_raw(r->A, *n + extra + 1)) == NULL)
    return report(r, KF_ENOMEM, 0, 0, 0, "out of memory");
  for (j = i; (j = json_next(t, *n, j)) != 0; from = j) {
    memcpy(out + k, t + from, j - from), k += j - from;
    memcpy(out + k, "--- ", 4), k += 4;
  }
  memcpy(out + k, t + from, *n - from), k += *n - from;
  out[k] = '\0';
  *text = out, *n = k;
  return KF_OK;
}

/* A NUL byte (text is no YAML then): its offset in the file and line. */
static kf_status nul_byte(rd *r, const char *text, const char *at, size_t bom) {
  char what[80];
  size_t line = 1;
  const char *p;
  for (p = text; p < at; p++) line += *p == '\n';
  r->text_lines = line;
  snprintf(what, sizeof what, "a NUL byte at offset %zu (a YAML or JSON text has none)",
           (size_t)(at - text) + bom);
  if (r->w) r->w->not_text = 1;
  return report(r, KF_EINVAL, line, 0, 0, what);
}

/* Whether the text is JSON (its first value an object or a list): kubectl
** reads it with encoding/json (apimachinery YAMLOrJSONDecoder). */
static int json_text(const char *t, size_t n) {
  size_t i = 0;
  while (i < n && json_space(t[i])) i++;
  return i < n && (t[i] == '{' || t[i] == '[');
}

/* JSON text libyaml refused (a key over its 1 024 characters, a
** noncharacter such as \uffff) read by kfjob's JSON reader instead, each
** value (JSON Lines: a line each at least) a document, as kubectl reads
** JSON (apimachinery's YAMLOrJSONDecoder uses encoding/json): 1 with
** r->docs set, else 0 (the reader's own error stands). */
static int json_docs(rd *r, const char *t, size_t n) {
  size_t i = 0, j, from, k = 0, cnt = 1;
  kf_err ignored;
  while (i < n && json_space(t[i])) i++;
  if (i == n || t[i] != '{') return 0;
  for (j = i; (j = json_next(t, n, j)) != 0;) cnt++;
  if (cnt > r->lim.max_docs ||
      (r->docs = (kf_yaml_doc *)kf_arena_alloc(r->A, cnt * sizeof *r->docs)) == NULL)
    return 0;
  for (from = i; k < cnt; k++, from = j) {
    j = json_next(t, n, from);
    if (kf_json_parse(t + from, (j ? j : n) - from, r->A, &r->docs[k].root, &ignored) != KF_OK)
      return 0;
    r->docs[k].line = 1, r->docs[k].index_base = r->lim.index_base;
  }
  r->ndocs = cnt;
  return 1;
}

kf_status kf_yaml_read(kf_arena *A, const char *text, size_t n,
                       const kf_yaml_limits *lim, kf_yaml_doc **docs,
                       size_t *ndocs, kf_yaml_where *where, kf_err *e) {
  rd r;
  kf_status st;
  const char *p;
  char *joined;
  const char *orig;
  size_t bom = 0, norig;
  memset(&r, 0, sizeof r);
  r.A = A, r.w = where, r.e = e;
  set_limits(&r.lim, lim);
  *docs = NULL;
  *ndocs = 0;
  if (where) memset(where, 0, sizeof *where);
  if (n > r.lim.max_bytes)
    return report(&r, KF_ELIMIT, 0, 0, 0, "text larger than the limit");
  if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3, n -= 3, bom = 3;
  if ((p = memchr(text, 0, n)) != NULL) return nul_byte(&r, text, p, bom);
  orig = text, norig = n;
  if ((st = json_seq(&r, &text, &n)) != KF_OK) return st;
  for (r.text_lines = 1, p = text; n && (p = memchr(p, '\n', n - (size_t)(p - text))) != NULL; p++)
    r.text_lines++;
  st = parse(&r, text, n);
  if (st == KF_EINVAL && r.bad_escape &&
      (joined = kfy_join_surrogates(A, text, n, &n, json_text(text, n))) != NULL) {
    r.ndocs = r.cdocs = r.nodes = 0, r.docs = NULL, r.depth = 0, r.bad_escape = 0;
    if (where) memset(where, 0, sizeof *where);
    st = parse(&r, joined, n);
  }
  if (st == KF_EINVAL && json_docs(&r, orig, norig)) {
    st = KF_OK;
    if (where) memset(where, 0, sizeof *where);
  }
  if (st != KF_OK) return st;
  *docs = r.docs;
  *ndocs = r.ndocs;
  return KF_OK;
}

/* ---- lines for messages ----------------------------------------------- */

size_t kf_yaml_node_line(const kf_yaml_doc *d, const kf_node *n) {
  size_t i;
  for (i = 0; i < d->nlines; i++)
    if (d->lines[i].n == n) return d->lines[i].line;
  return 0;
}

/* One step of a path at p: the child it names in n, or NULL; *len gets
** the step's length. */
static const kf_node *path_step(const kf_yaml_doc *d, const kf_node *n,
                                const char *p, size_t *len) {
  size_t i, k;
  const char *q;
  int dot;
  if (p[0] == '[' && p[1] == '"') {               /* ["key"] */
    if ((q = strstr(p + 2, "\"]")) == NULL || n->t != KF_NOBJ) return NULL;
    k = (size_t)(q - p - 2), *len = k + 4;
    for (i = 0; i < n->u.c.n; i++)
      if (strlen(n->u.c.k[i]) == k && memcmp(n->u.c.k[i], p + 2, k) == 0)
        return n->u.c.v[i];
    return NULL;
  }
  if (p[0] == '[') {                              /* [index] */
    char *end;
    unsigned long long ix = strtoull(p + 1, &end, 10);
    if (*end != ']' || n->t != KF_NARR || end == p + 1) return NULL;
    *len = (size_t)(end - p) + 1;
    if (ix < (unsigned)d->index_base || ix - (unsigned)d->index_base >= n->u.c.n)
      return NULL;
    return n->u.c.v[ix - (unsigned)d->index_base];
  }
  dot = p[0] == '.';
  p += dot;
  k = strcspn(p, ".[");
  *len = k + (size_t)dot;
  if (n->t != KF_NOBJ || k == 0) return NULL;
  for (i = 0; i < n->u.c.n; i++)
    if (strlen(n->u.c.k[i]) == k && memcmp(n->u.c.k[i], p, k) == 0)
      return n->u.c.v[i];
  return NULL;
}

size_t kf_yaml_path_line(const kf_yaml_doc *d, const char *path,
                         size_t *matched) {
  const kf_node *n = d->root, *c;
  size_t at = 0, len = 0, line = d->line, l;
  while (n != NULL && path[at] && (c = path_step(d, n, path + at, &len)) != NULL) {
    n = c;
    at += len;
    if ((l = kf_yaml_node_line(d, n)) != 0) line = l;
  }
  if (matched) *matched = at;
  return line;
}

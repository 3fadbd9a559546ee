/*
** fuzz_yaml_read.c - libFuzzer target for kf_yaml_read (the strict
** YAML/JSON reader of data configs and manifests).  The input is YAML
** text, read with small limits so alias bombs and deep nesting reach them.
** Besides "no crash, no leak, no UB", properties that abort:
**   - an error has status EINVAL or ELIMIT (ENOMEM aside) and a message;
**   - every document read is written by kf_yaml (kf_yaml.c) and that text
**     reads back as the same documents (numbers compared by value: the
**     writer prints 2.0 as 2); the writer's quoting and the reader's
**     core schema agree;
**   - the line of every path tried is within the text;
**   - text both kf_json_parse and this reader accept is the same tree (a
**     .json data config is checked by the one and read by the other).
*/
#include <math.h>

#include "fuzz_common.h"
#include "kf_yaml.h"
#include "kf_yaml_read.h"

/* Equal as data: a number equals a number of the same value. */
static int same(const kf_node *a, const kf_node *b) {
  size_t i;
  int na = a->t == KF_NINT || a->t == KF_NNUM, nb = b->t == KF_NINT || b->t == KF_NNUM;
  if (na && nb) {
    double x = a->t == KF_NINT ? (double)a->u.i : a->u.d;
    double y = b->t == KF_NINT ? (double)b->u.i : b->u.d;
    if (a->t == KF_NINT && b->t == KF_NINT) return a->u.i == b->u.i;
    return x == y || (isnan(x) && isnan(y));
  }
  if (a->t != b->t) return 0;
  switch (a->t) {
    case KF_NBOOL: return !a->u.b == !b->u.b;
    case KF_NSTR:
      return a->u.s.n == b->u.s.n && memcmp(a->u.s.p, b->u.s.p, a->u.s.n) == 0;
    case KF_NARR: case KF_NOBJ:
      if (a->u.c.n != b->u.c.n) return 0;
      for (i = 0; i < a->u.c.n; i++)
        if ((a->t == KF_NOBJ && strcmp(a->u.c.k[i], b->u.c.k[i]) != 0) ||
            !same(a->u.c.v[i], b->u.c.v[i]))
          return 0;
      return 1;
    default: return 1;
  }
}

static void check_lines(const kf_yaml_doc *d, size_t nlines_text) {
  static const char *const paths[] = {"", "a", "a.b", "a[0]", "[0]", "[1].x",
                                      "[\"a b\"]", "kind", "worker.replicas", NULL};
  size_t i, m;
  for (i = 0; paths[i]; i++) {
    size_t l = kf_yaml_path_line(d, paths[i], &m);
    if (l == 0 || l > nlines_text || m > strlen(paths[i]))
      FZ_FAIL("path '%s': line %zu of %zu, matched %zu", paths[i], l, nlines_text, m);
  }
}

static void check_json(const char *text, size_t size, const kf_yaml_doc *docs,
                       size_t ndocs, kf_arena *A) {
  kf_node *j;
  kf_err e;
  if (ndocs == 1 && kf_json_parse(text, size, A, &j, &e) == KF_OK && !same(j, docs[0].root))
    FZ_FAIL("JSON text reads as a different tree as YAML");
}

/* Read as YAML 1.1 (manifests, as kubectl reads them): what kf_yaml
** writes of it reads back the same under 1.1 too (it quotes every string
** a 1.1 reader could take for something else). */
static void check_yaml11(const char *text, size_t size) {
  const kf_yaml_limits lim = {0, 64, 20000, 0, 0, 1};
  kf_yaml_doc *docs, *back;
  size_t ndocs, nback, i;
  kf_arena A;
  kf_buf b;
  kf_err e;
  kf_arena_init(&A, FZ_ALLOC);
  kf_buf_init(&b, FZ_ALLOC);
  if (kf_yaml_read(&A, text, size, &lim, &docs, &ndocs, NULL, &e) == KF_OK && ndocs > 0) {
    const kf_node **roots = (const kf_node **)kf_arena_alloc(&A, ndocs * sizeof *roots);
    if (roots == NULL) FZ_FAIL("arena");
    for (i = 0; i < ndocs; i++) roots[i] = docs[i].root;
    if (kf_yaml(roots, ndocs, 2, &b, &e) == KF_OK) {
      if (kf_yaml_read(&A, b.p, b.n, &lim, &back, &nback, NULL, &e) != KF_OK)
        FZ_FAIL("what kf_yaml wrote does not read back as YAML 1.1: %s", e.msg);
      for (i = 0; i < ndocs && i < nback; i++)
        if (!same(docs[i].root, back[i].root)) FZ_FAIL("document %zu reads back different (1.1)", i + 1);
    }
  }
  kf_buf_free(&b);
  kf_arena_free(&A);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const kf_yaml_limits lim = {0, 64, 20000, 0, 0, 0};
  const char *text = (const char *)data;
  kf_yaml_doc *docs, *back;
  size_t ndocs, nback, i, nlines = 1;
  kf_arena A;
  kf_buf b;
  kf_err e;
  kf_status st;
  kf_arena_init(&A, FZ_ALLOC);
  kf_buf_init(&b, FZ_ALLOC);
  for (i = 0; i < size; i++) nlines += data[i] == '\n' || data[i] == '\r';
  st = kf_yaml_read(&A, text, size, &lim, &docs, &ndocs, NULL, &e);
  fz_note("yaml_read", st, &e);
  if (st != KF_OK) {
    fz_error(st, &e, NULL);
  } else {
    const kf_node **roots = (const kf_node **)kf_arena_alloc(&A, (ndocs + 1) * sizeof *roots);
    if (roots == NULL) FZ_FAIL("arena");
    for (i = 0; i < ndocs; i++) roots[i] = docs[i].root, check_lines(&docs[i], nlines);
    check_json(text, size, docs, ndocs, &A);
    st = kf_yaml(roots, ndocs, 2, &b, &e);
    if (st == KF_OK && ndocs > 0) {   /* an empty stream writes nothing */
      st = kf_yaml_read(&A, b.p, b.n, NULL, &back, &nback, NULL, &e);
      if (st != KF_OK) FZ_FAIL("what kf_yaml wrote does not read back: %s", e.msg);
      if (nback != ndocs) FZ_FAIL("%zu documents read back as %zu", ndocs, nback);
      for (i = 0; i < ndocs; i++)
        if (!same(docs[i].root, back[i].root)) FZ_FAIL("document %zu reads back different", i + 1);
    } else if (st != KF_OK && st != KF_ELIMIT && st != KF_ENOMEM) {
      FZ_FAIL("kf_yaml refused a tree the reader built: %s", e.msg);
    }
  }
  kf_buf_free(&b);
  kf_arena_free(&A);
  check_yaml11(text, size);
  return 0;
}

/*
** kf_tree.c - value trees held by a job (KF_V_TREE rows, such as the pod
** template): copies into the arena and into a job's block, and equality.
** A held tree is canonical (object keys sorted, made by the row's check),
** so equality is structural.
*/
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"

#define ALIGN(n) (((n) + sizeof(void *) - 1) & ~(sizeof(void *) - 1))

kf_node *kf_tree_dup(kf_arena *A, const kf_node *n) {
  kf_node *d = kf_node_new(A, n->t);
  size_t i;
  if (d == NULL) return NULL;
  if (n->t != KF_NARR && n->t != KF_NOBJ) {
    d->u = n->u;  /* strings stay shared: trees are immutable */
    return d;
  }
  for (i = 0; i < n->u.c.n; i++) {
    kf_node *v = kf_tree_dup(A, n->u.c.v[i]);
    if (v == NULL ||
        !kf_node_push(A, d, n->t == KF_NOBJ ? n->u.c.k[i] : NULL, v))
      return NULL;
  }
  return d;
}

/* exact: doubles bit for bit (-0.0 is not 0.0) and strings NUL-terminated,
** which is how the fuzzer and the tests compare the two JSON readers. */
static int tree_eq(const kf_node *a, const kf_node *b, int exact) {
  size_t i;
  if (a == NULL || b == NULL) return a == b;
  if (a->t != b->t) return 0;
  switch (a->t) {
    case KF_NNIL: return 1;
    case KF_NBOOL: return a->u.b == b->u.b;
    case KF_NINT: return a->u.i == b->u.i;
    case KF_NNUM:
      return exact ? memcmp(&a->u.d, &b->u.d, sizeof a->u.d) == 0 : a->u.d == b->u.d;
    case KF_NSTR:
      return a->u.s.n == b->u.s.n && memcmp(a->u.s.p, b->u.s.p, a->u.s.n) == 0 &&
             (!exact || (a->u.s.p[a->u.s.n] == '\0' && b->u.s.p[b->u.s.n] == '\0'));
    default:
      if (a->u.c.n != b->u.c.n) return 0;
      for (i = 0; i < a->u.c.n; i++)
        if ((a->t == KF_NOBJ && strcmp(a->u.c.k[i], b->u.c.k[i]) != 0) ||
            !tree_eq(a->u.c.v[i], b->u.c.v[i], exact))
          return 0;
      return 1;
  }
}

int kf_tree_equal(const kf_node *a, const kf_node *b) { return tree_eq(a, b, 0); }
int kf_tree_same(const kf_node *a, const kf_node *b) { return tree_eq(a, b, 1); }

/* Lays `n` out at mem + *off (mem NULL: measures only); returns the copy. */
static char *lay_str(char *mem, size_t *off, const char *s, size_t len) {
  char *p = mem ? mem + *off : NULL;
  if (p) {
    memcpy(p, s, len);
    p[len] = '\0';
  }
  *off += len + 1;
  return p;
}

const kf_node *kf_tree_lay(const kf_node *n, char *mem, size_t *off) {
  kf_node *d;
  size_t i, cnt;
  *off = ALIGN(*off);
  d = mem ? (kf_node *)(void *)(mem + *off) : NULL;
  *off += sizeof *d;
  if (d) *d = *n, d->tag = NULL;
  if (n->t == KF_NSTR) {
    char *s = lay_str(mem, off, n->u.s.p, n->u.s.n);
    if (d) d->u.s.p = s;
  }
  if (n->t != KF_NARR && n->t != KF_NOBJ) return d;
  cnt = n->u.c.n;
  *off = ALIGN(*off);
  if (d) {
    d->u.c.v = cnt ? (kf_node **)(void *)(mem + *off) : NULL;
    d->u.c.cap = cnt;
  }
  *off += cnt * sizeof(kf_node *);
  if (n->t == KF_NOBJ) {
    if (d) d->u.c.k = cnt ? (const char **)(void *)(mem + *off) : NULL;
    *off += cnt * sizeof(char *);
  }
  for (i = 0; i < cnt; i++) {
    const kf_node *v = kf_tree_lay(n->u.c.v[i], mem, off);
    if (d) d->u.c.v[i] = (kf_node *)v;
    if (n->t == KF_NOBJ) {
      const char *k = n->u.c.k[i];
      char *s = lay_str(mem, off, k, strlen(k));
      if (d) d->u.c.k[i] = s;
    }
  }
  return d;
}

kf_node *kf_node_put_sorted(kf_arena *A, const kf_node *o, const char *k, kf_node *v) {
  kf_node *d = v ? kf_node_new(A, KF_NOBJ) : NULL;
  size_t i;
  int put = 0;
  if (d == NULL) return NULL;
  for (i = 0; o && o->t == KF_NOBJ && i < o->u.c.n; i++) {
    int c = strcmp(o->u.c.k[i], k);
    if (c > 0 && !put && !(put = kf_node_push(A, d, k, v))) return NULL;
    if (c != 0 && !kf_node_push(A, d, o->u.c.k[i], o->u.c.v[i])) return NULL;
  }
  if (!put && !kf_node_push(A, d, k, v)) return NULL;
  return d;
}

/* A key and its value, sorted together (no lookup of each key again: a
** table of many keys is sorted in n log n). */
typedef struct kv {
  const char *k;
  kf_node *v;
} kv;

static int by_key(const void *a, const void *b) {
  return strcmp(((const kv *)a)->k, ((const kv *)b)->k);
}

kf_node *kf_tree_sorted(const kf_node *in, kf_arena *A) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  kv *k = kf_arena_alloc(A, (in->u.c.n + 1) * sizeof *k);
  size_t i;
  if (d == NULL || k == NULL) return NULL;
  for (i = 0; i < in->u.c.n; i++) k[i].k = in->u.c.k[i], k[i].v = in->u.c.v[i];
  qsort(k, in->u.c.n, sizeof *k, by_key);
  for (i = 0; i < in->u.c.n; i++)
    if (!kf_node_push(A, d, k[i].k, k[i].v)) return NULL;
  return d;
}

/*
** kf_uniq.c - the first repeated item of a list, and a set of strings
** (kf_strset), with hash sets (open addressing in the arena) rather than
** by comparing every pair:
** 4096 env entries once took a second per constructor pairwise.
** Kubernetes' validation does the same with sets (k8s.io/apimachinery
** pkg/util/sets, used by validateContainers, ValidateVolumes, ...).
*/
#include <string.h>

#include "kf_core.h"

uint64_t kf_node_hash(const kf_node *n, uint64_t h) {
  const unsigned char *p;
  size_t len, i;
  int64_t iv;
  if (n == NULL) return (h ^ 0xffu) * 0x100000001b3u;
  h = (h ^ (unsigned)n->t) * 0x100000001b3u;
  switch (n->t) {
    case KF_NSTR: p = (const unsigned char *)n->u.s.p, len = n->u.s.n; break;
    case KF_NINT: iv = n->u.i, p = (const unsigned char *)&iv, len = sizeof iv; break;
    case KF_NBOOL: iv = n->u.b != 0, p = (const unsigned char *)&iv, len = sizeof iv; break;
    default: return h;   /* others: equality alone tells them apart */
  }
  for (i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

size_t kf_first_repeat(kf_arena *A, size_t n, kf_uniq_hash hash,
                       kf_uniq_eq eq, const void *ud, size_t *first,
                       int *nomem) {
  size_t cap = 16, mask, i, s, *slot;
  *nomem = 0;
  while (cap < 2 * n) cap *= 2;
  if ((slot = (size_t *)kf_arena_alloc(A, cap * sizeof *slot)) == NULL) {
    *nomem = 1;
    return n;
  }
  mask = cap - 1;   /* slots hold index + 1; 0 is empty */
  for (i = 0; i < n; i++) {
    for (s = (size_t)hash(ud, i) & mask; slot[s]; s = (s + 1) & mask)
      if (eq(ud, slot[s] - 1, i)) {
        *first = slot[s] - 1;
        return i;
      }
    slot[s] = i + 1;
  }
  return n;
}

struct kf_strset_slot {
  const char *k;   /* NULL: empty */
  size_t len;
  long value;
};

static uint64_t str_hash(const char *k, size_t len) {
  uint64_t h = KF_HASH_SEED;
  size_t i;
  for (i = 0; i < len; i++) h = (h ^ (unsigned char)k[i]) * 0x100000001b3u;
  return h;
}

void kf_strset_init(kf_strset *s, kf_arena *A, size_t hint) {
  s->A = A, s->slot = NULL, s->mask = 0, s->n = 0, s->hint = hint;
}

/* The slot of key k: its own, or the empty one where it would go. */
static struct kf_strset_slot *strset_find(const kf_strset *s, const char *k, size_t len) {
  size_t i = (size_t)str_hash(k, len) & s->mask;
  for (; s->slot[i].k; i = (i + 1) & s->mask)
    if (s->slot[i].len == len && memcmp(s->slot[i].k, k, len) == 0) break;
  return &s->slot[i];
}

/* Twice the slots (at first room for the hint), every key moved: kept at
** most half full. */
static int strset_grow(kf_strset *s) {
  size_t cap = s->slot ? 2 * (s->mask + 1) : 8, i;
  struct kf_strset_slot *old = s->slot, *v;
  size_t oldcap = old ? s->mask + 1 : 0;
  while (s->slot == NULL && cap < 2 * s->hint + 2) cap *= 2;
  if ((v = (struct kf_strset_slot *)kf_arena_alloc(s->A, cap * sizeof *v)) == NULL) return -1;
  s->slot = v, s->mask = cap - 1;
  for (i = 0; i < oldcap; i++)
    if (old[i].k) *strset_find(s, old[i].k, old[i].len) = old[i];
  return 0;
}

int kf_strset_put(kf_strset *s, const char *k, size_t len, long value) {
  struct kf_strset_slot *e;
  if ((s->slot == NULL || 2 * (s->n + 1) > s->mask + 1) && strset_grow(s) != 0) return -1;
  e = strset_find(s, k, len);
  if (e->k) return 0;
  e->k = k, e->len = len, e->value = value;
  s->n++;
  return 1;
}

int kf_strset_add(kf_strset *s, const char *k, size_t len) {
  return kf_strset_put(s, k, len, 0);
}

long kf_strset_get(const kf_strset *s, const char *k, size_t len) {
  const struct kf_strset_slot *e;
  if (s->slot == NULL) return -1;
  e = strset_find(s, k, len);
  return e->k ? e->value : -1;
}

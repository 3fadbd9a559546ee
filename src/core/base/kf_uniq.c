/*
** kf_uniq.c - the first repeated item of a list, found with a hash set
** (open addressing in the arena) rather than by comparing every pair:
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

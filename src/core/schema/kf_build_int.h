/*
** kf_build_int.h - what kf_build.c shares with kf_feed.c and kf_with.c:
** the parse context (a path kept as segments) and the per-row value parser.
*/
#ifndef KF_BUILD_INT_H
#define KF_BUILD_INT_H

#include "kf_job.h"

/* A row's member at its offset in the struct holding it. */
#define AT(p, T) ((T *)(void *)(p))

typedef struct ctx {
  kf_arena *A;
  kf_err *e;
  const char *ctor;
  const char *prefix;     /* path of the object being read, or "" */
  size_t n;               /* path segments below it */
  struct { const char *key; size_t idx; } seg[KF_MAX_DEPTH];
} ctx;

/* One key of a kind: a row, a replica group or a deprecated count. */
typedef struct kentry {
  const char *key;
  const kf_field *f;
  int role;
} kentry;

/* inline: the feed makes one per value */
static inline void kf_build_ctx_init(ctx *c, kf_arena *A, kf_err *e,
                                     const char *ctor, const char *prefix) {
  c->A = A;
  c->e = e;
  c->ctor = ctor;
  c->prefix = prefix;
  c->n = 0;
}
/* One row's value into `base` (the struct holding the row). */
kf_status kf_build_value(ctx *c, const kf_field *f, const kf_node *v,
                         char *base, int kind, int role);
/* The keys a kind takes at its top level, expanded once. */
const kentry *kf_build_kind_keys(int kind, size_t *n);
/* After the fields: deprecated counts, required groups, the kind's rules.
** `given[role]`: the group's replicas were given; `dep`: deprecated counts. */
kf_status kf_build_finish(ctx *c, kf_job *j, int *given, const int32_t *dep);

#endif

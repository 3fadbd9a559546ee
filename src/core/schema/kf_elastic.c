/*
** kf_elastic.c - the value trees of an Elastic job's operator-only fields
** (training-operator v1.9 pytorchjob_types.go ElasticPolicy): rdzvConf, a
** list of {key, value} kept in order (PET_RDZV_CONF joins them), and
** metrics, the HorizontalPodAutoscaler's MetricSpecs (autoscaling/v2),
** kept as written for the operator's HPA.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"

/* One object member, for sorting by key. */
typedef struct member { const char *k; kf_node *v; } member;

static int member_cmp(const void *a, const void *b) {
  return strcmp(((const member *)a)->k, ((const member *)b)->k);
}

/* A copy of n whose objects have their keys sorted (NULL: no memory): a
** Lua table gives its keys in hash order, which differs from run to run,
** and the manifest's bytes must not.  The list order is the user's. */
static kf_node *keys_sorted(kf_arena *A, const kf_node *n) {
  kf_node *d;
  member *m;
  size_t i;
  if (n->t != KF_NOBJ && n->t != KF_NARR) return (kf_node *)n;
  if ((d = kf_node_new(A, n->t)) == NULL ||
      (m = (member *)kf_arena_alloc(A, (n->u.c.n + 1) * sizeof *m)) == NULL)
    return NULL;
  for (i = 0; i < n->u.c.n; i++) {
    m[i].k = n->t == KF_NOBJ ? n->u.c.k[i] : NULL;
    if ((m[i].v = keys_sorted(A, n->u.c.v[i])) == NULL) return NULL;
  }
  if (n->t == KF_NOBJ) qsort(m, n->u.c.n, sizeof *m, member_cmp);
  for (i = 0; i < n->u.c.n; i++)
    if (!kf_node_push(A, d, m[i].k, m[i].v)) return NULL;
  return d;
}

/* The list as given, each item's keys sorted (in the arena). */
static kf_status keep_list(const kf_node *in, kf_arena *A, const kf_node **out,
                           kf_err *e) {
  kf_node *l = keys_sorted(A, in);
  if (l == NULL) return kf_nomem(e);
  *out = l->u.c.n ? l : NULL;
  return KF_OK;
}

static kf_status check_rdzv_conf(const kf_node *in, kf_arena *A, const kf_node **out,
                                 const char *who, const char *path, kf_err *e) {
  size_t i, k;
  if (in->t != KF_NARR && !(in->t == KF_NOBJ && in->u.c.n == 0))
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a list of {key =, value =}", who, path);
  for (i = 0; in->t == KF_NARR && i < in->u.c.n; i++) {
    const kf_node *x = in->u.c.v[i];
    if (x->t != KF_NOBJ)
      return kf_fail(e, KF_EINVAL, "%s: %s[%zu]: expected {key =, value =}", who, path, i + 1);
    for (k = 0; k < x->u.c.n; k++) {
      const char *key = x->u.c.k[k];
      if ((strcmp(key, "key") != 0 && strcmp(key, "value") != 0) ||
          x->u.c.v[k]->t != KF_NSTR)
        return kf_fail(e, KF_EINVAL, "%s: %s[%zu].%s: %s", who, path, i + 1, key,
                       x->u.c.v[k]->t != KF_NSTR ? "expected a string"
                                                 : "unknown field (key, value)");
    }
    if (kf_node_get(x, "key") == NULL)
      return kf_fail(e, KF_EINVAL, "%s: %s[%zu].key: required", who, path, i + 1);
  }
  if (in->t != KF_NARR) return *out = NULL, KF_OK;
  return keep_list(in, A, out, e);
}

static kf_status check_metrics(const kf_node *in, kf_arena *A, const kf_node **out,
                               const char *who, const char *path, kf_err *e) {
  size_t i;
  if (in->t != KF_NARR && !(in->t == KF_NOBJ && in->u.c.n == 0))
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a list of autoscaling/v2 MetricSpecs",
                   who, path);
  for (i = 0; in->t == KF_NARR && i < in->u.c.n; i++) {
    const kf_node *x = in->u.c.v[i], *t = kf_node_get(x, "type");
    if (x->t != KF_NOBJ || t == NULL || t->t != KF_NSTR)
      return kf_fail(e, KF_EINVAL, "%s: %s[%zu].type: required: a MetricSpec names its "
                     "type (Resource, Pods, Object, External, ContainerResource)", who,
                     path, i + 1);
  }
  if (in->t != KF_NARR) return *out = NULL, KF_OK;
  return keep_list(in, A, out, e);
}

const kf_tree kf_rdzv_conf_tree = {"a list of {key =, value =}", check_rdzv_conf, "List",
                                   0, 0};
const kf_tree kf_metrics_tree = {"a list of autoscaling/v2 MetricSpecs", check_metrics,
                                 "List", 0, 0};

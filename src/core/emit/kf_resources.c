/*
** kf_resources.c - what one job asks of the cluster: its pods per replica
** group and the GPUs, CPU and memory they request and are limited to,
** summed exactly (kf_qty).  Read from the job's kubeflow.org/v1 manifest,
** so every rule of the translation (task resources, a limit giving the
** request, sidecars and init containers of the pod template) counts as
** the cluster sees it.  No Lua here.
*/
#include <stdio.h>
#include <string.h>

#include "kf_emit.h"

enum { R_CPU, R_MEM, R_GPU, R_N };
static const char *const res_key[R_N] = {"cpu", "memory", "nvidia.com/gpu"};

/* A quantity value of a container's resources: text or a number.  1 with
** *q, 0 when absent, -1 when it is (valid, checked at construction, but)
** beyond kf_qty, its text in *big. */
static int qty_of(const kf_node *v, kf_qty *q, const char **big) {
  char buf[32];
  if (v == NULL) return 0;
  if (v->t == KF_NSTR) {
    if (kf_qty_parse(v->u.s.p, q) == 0) return 1;
    *big = v->u.s.p;
    return -1;
  }
  if (v->t == KF_NINT && v->u.i >= 0) kf_format_int(v->u.i, buf);
  else if (v->t == KF_NNUM && v->u.d >= 0) kf_format_number(v->u.d, buf);
  else return 0;
  return kf_qty_parse(buf, q) == 0;
}

/* The pod's effective amounts (Kubernetes' rule): the containers' sum,
** or the largest init container's when that is larger. */
static int pod_amounts(const kf_node *pod, kf_qty req[R_N], kf_qty lim[R_N],
                       const char **big) {
  const kf_node *cs = kf_node_get(pod, "containers"), *init = kf_node_get(pod, "initContainers");
  kf_qty x;
  size_t i;
  int r, side;
  for (r = 0; r < R_N; r++) kf_qty_zero(&req[r]), kf_qty_zero(&lim[r]);
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++)
    for (side = 0; side < 2; side++) {
      const kf_node *m = kf_node_get(kf_node_get(cs->u.c.v[i], "resources"),
                                     side ? "limits" : "requests");
      for (r = 0; r < R_N; r++) {
        int got = qty_of(kf_node_get(m, res_key[r]), &x, big);
        if (got < 0 || (got && kf_qty_add(side ? &lim[r] : &req[r], &x) != 0)) return -1;
      }
    }
  for (i = 0; init && init->t == KF_NARR && i < init->u.c.n; i++)
    for (side = 0; side < 2; side++) {
      const kf_node *m = kf_node_get(kf_node_get(init->u.c.v[i], "resources"),
                                     side ? "limits" : "requests");
      for (r = 0; r < R_N; r++) {
        kf_qty *t = side ? &lim[r] : &req[r];
        int got = qty_of(kf_node_get(m, res_key[r]), &x, big);
        if (got < 0) return -1;
        if (got && kf_qty_cmp(&x, t) > 0) {
          kf_qty_form keep = kf_qty_is_zero(t) ? x.format : t->format;
          *t = x;
          t->format = keep;
        }
      }
    }
  return 0;
}

kf_status kf_job_resources(const kf_job *j, kf_arena *A, kf_job_res *out,
                           kf_err *e) {
  kf_manifest_opts mo;
  kf_node *root;
  const kf_node *specs;
  kf_status st;
  size_t i;
  int r;
  const char *big = NULL;
  memset(out, 0, sizeof *out);
  for (r = 0; r < R_N; r++) kf_qty_zero(&out->req[r]), kf_qty_zero(&out->lim[r]);
  memset(&mo, 0, sizeof mo);
  mo.name = "r";            /* placeholders: the resource needs a name and */
  mo.image = "image";       /* an image for groups without one */
  st = kf_manifest(j, &mo, A, &root, "kfjob.resources", e);
  /* a field the operator has no place for (a Trainer runtime, the
  ** mpi-operator's, a clustered task's): its pods and their resources
  ** are the same on every target, so the operator's writer counts them */
  if (st == KF_EINVAL) st = kf_manifest_write(j, KF_T_OPERATOR, &mo, A, &root, "kfjob.resources", e);
  if (st != KF_OK) return st;
  specs = kf_node_get(kf_node_get(root, "spec"), kf_kinds[j->kind].crd_specs);
  for (i = 0; specs && i < specs->u.c.n && out->ngroups < KF_NROLES; i++) {
    const kf_node *rs = specs->u.c.v[i], *n = kf_node_get(rs, "replicas");
    const kf_node *pod = kf_node_get(kf_node_get(rs, "template"), "spec");
    kf_qty req[R_N], lim[R_N];
    int64_t reps = n && n->t == KF_NINT ? n->u.i : 0;
    out->groups[out->ngroups].role = specs->u.c.k[i];
    out->groups[out->ngroups++].replicas = reps;
    out->pods += reps;
    if (pod_amounts(pod, req, lim, &big) != 0) goto overflow;
    for (r = 0; r < R_N; r++)
      if (kf_qty_mul(&req[r], (uint32_t)reps) != 0 || kf_qty_mul(&lim[r], (uint32_t)reps) != 0 ||
          kf_qty_add(&out->req[r], &req[r]) != 0 || kf_qty_add(&out->lim[r], &lim[r]) != 0)
        goto overflow;
  }
  return KF_OK;
overflow:
  out->too_large = 1;
  if (big)
    return kf_fail(e, KF_EINVAL, "kfjob.%s: %s.%s: quantity '%.60s' is too large "
                   "to total (kfjob sums quantities below 10^68 exactly)",
                   kf_kinds[j->kind].name, kf_kinds[j->kind].crd_specs,
                   out->groups[out->ngroups - 1].role, big);
  return kf_fail(e, KF_EINVAL, "kfjob.%s: %s.%s: the total is too large to sum "
                 "exactly (kfjob sums quantities below 10^68)", kf_kinds[j->kind].name,
                 kf_kinds[j->kind].crd_specs, out->groups[out->ngroups - 1].role);
}

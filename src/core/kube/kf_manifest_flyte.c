/*
** kf_manifest_flyte.c - what Flyte's backend submits for a task
** (target flyte: Flyte 1.x, flyte@master; flyte2: flyte@main), defects
** included (FACTS §3, §4, §8.1.4).  It is the v1 resource of
** kf_manifest_operator.c with what the backend does differently:
**   - MPI: slotsPerWorker 1, the v1 slots field is never read (R11);
**   - every pod template gets the plugin's default annotation
**     cluster-autoscaler.kubernetes.io/safe-to-evict: "false" (the
**     template's and the execution's annotations win on a clash);
**   - the default container of a task without a pod template (shared
**     memory is an extended resource of the container target) gets
**     terminationMessagePolicy FallbackToLogsOnError;
**   - flyte: a PyTorch worker's first container gets _F_WN (the pod name);
**   - flyte2: every pod gets enableServiceLinks: false, and a PyTorchJob
**     the pods' labels and annotations on its own metadata.
** The deprecated elasticPolicy.nProcPerNode and an accelerator without a
** GPU limit dropped are what the v1 resource does already (R10, R12).
*/
#include <string.h>

#include "kf_manifest.h"

#include "kf_manifest_int.h"

#define SAFE_TO_EVICT "cluster-autoscaler.kubernetes.io/safe-to-evict"

/* A shallow copy of object or list `n` (NULL: an empty one of type t). */
static kf_node *copy(kf_arena *A, const kf_node *n, kf_ntype t) {
  kf_node *d = kf_node_new(A, n ? n->t : t);
  size_t i;
  for (i = 0; d && n && i < n->u.c.n; i++)
    if (!kf_node_push(A, d, n->t == KF_NOBJ ? n->u.c.k[i] : NULL, n->u.c.v[i]))
      return NULL;
  return d;
}

/* The template's metadata with the default annotation, sorted in. */
static kf_node *with_default_annotation(kf_arena *A, const kf_node *meta) {
  const kf_node *an = kf_node_get(meta, "annotations");
  kf_node *m = kf_node_new(A, KF_NOBJ), *a;
  size_t i;
  int put = 0;
  if (m == NULL || (a = kf_node_new(A, KF_NOBJ)) == NULL) return NULL;
  if (kf_node_get(an, SAFE_TO_EVICT)) {
    a = (kf_node *)an;
    put = 1;
  }
  for (i = 0; !put && an && i < an->u.c.n; i++) {
    if (strcmp(an->u.c.k[i], SAFE_TO_EVICT) > 0 && !put) {
      if (!kf_obj_strref(A, a, SAFE_TO_EVICT, "false")) return NULL;
      put = 1;
    }
    if (!kf_node_push(A, a, an->u.c.k[i], an->u.c.v[i])) return NULL;
  }
  if (!put && !kf_obj_strref(A, a, SAFE_TO_EVICT, "false")) return NULL;
  for (i = 0; meta && i < meta->u.c.n; i++)
    if (strcmp(meta->u.c.k[i], "annotations") != 0 &&
        !kf_node_push(A, m, meta->u.c.k[i], meta->u.c.v[i]))
      return NULL;
  if (!kf_node_push(A, m, "annotations", a)) return NULL;
  return m;
}

static kf_status replica(mctx *c, const kf_job *j, kf_target t, int worker,
                         kf_node *rs) {
  kf_arena *A = c->A;
  kf_node *tmpl = kf_node_get(rs, "template"), *nt, *meta, *pod, *cs;
  const char *dname = kf_kinds[j->kind].container;
  size_t i;
  KF_OOM(c, meta = with_default_annotation(A, kf_node_get(tmpl, "metadata")));
  KF_OOM(c, pod = copy(A, kf_node_get(tmpl, "spec"), KF_NOBJ));
  KF_OOM(c, nt = kf_node_new(A, KF_NOBJ));
  KF_OOM(c, kf_node_push(A, nt, "metadata", meta) && kf_node_push(A, nt, "spec", pod));
  for (i = 0; i < rs->u.c.n; i++)
    if (strcmp(rs->u.c.k[i], "template") == 0) rs->u.c.v[i] = nt;
  KF_OOM(c, cs = copy(A, kf_node_get(pod, "containers"), KF_NARR));
  for (i = 0; i < pod->u.c.n; i++)
    if (strcmp(pod->u.c.k[i], "containers") == 0) pod->u.c.v[i] = cs;
  for (i = 0; i < cs->u.c.n; i++) {
    const kf_node *nm = kf_node_get(cs->u.c.v[i], "name");
    int is_default = nm && nm->t == KF_NSTR && strcmp(nm->u.s.p, dname) == 0;
    int fwn = t == KF_T_FLYTE && worker && i == 0 &&
              (j->kind == KF_PYTORCH || j->kind == KF_ELASTIC);
    kf_node *ct;
    if (!(is_default && !j->pod_template) && !fwn) continue;
    KF_OOM(c, ct = copy(A, cs->u.c.v[i], KF_NOBJ));
    cs->u.c.v[i] = ct;
    if (fwn) {   /* pytorch.go: the worker's pod name, for error aggregation */
      kf_node *env, *v, *vf, *fr;
      size_t x, at = ct->u.c.n;
      KF_OOM(c, env = copy(A, kf_node_get(ct, "env"), KF_NARR));
      KF_OOM(c, v = kf_obj_add(A, env, NULL, KF_NOBJ));
      KF_OOM(c, kf_obj_strref(A, v, "name", "_F_WN"));
      KF_OOM(c, vf = kf_obj_add(A, v, "valueFrom", KF_NOBJ));
      KF_OOM(c, fr = kf_obj_add(A, vf, "fieldRef", KF_NOBJ));
      KF_OOM(c, kf_obj_strref(A, fr, "fieldPath", "metadata.name"));
      for (x = 0; x < ct->u.c.n; x++)
        if (strcmp(ct->u.c.k[x], "env") == 0) at = x;
      if (at < ct->u.c.n) {
        ct->u.c.v[at] = env;
      } else {   /* env goes before resources (Go order) */
        kf_node *d;
        KF_OOM(c, d = kf_node_new(A, KF_NOBJ));
        for (x = 0; x < ct->u.c.n; x++) {
          if (strcmp(ct->u.c.k[x], "resources") == 0)
            KF_OOM(c, kf_node_push(A, d, "env", env));
          KF_OOM(c, kf_node_push(A, d, ct->u.c.k[x], ct->u.c.v[x]));
        }
        if (kf_node_get(d, "env") == NULL) KF_OOM(c, kf_node_push(A, d, "env", env));
        cs->u.c.v[i] = ct = d;
      }
    }
    if (is_default && !j->pod_template)   /* shared memory too: still the container target */
      KF_OOM(c, kf_obj_strref(A, ct, "terminationMessagePolicy", "FallbackToLogsOnError"));
  }
  if (t == KF_T_FLYTE2) {
    kf_node *no;
    KF_OOM(c, no = kf_node_new(A, KF_NBOOL));
    no->u.b = 0;
    KF_OOM(c, kf_node_push(A, pod, "enableServiceLinks", no));
  }
  return KF_OK;
}

kf_status kfm_flyte(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                    kf_target t, kf_node **out) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_node *root, *specs, *first_meta = NULL;
  size_t i;
  kf_status st;
  if (kf_python_task(j))   /* flytekit's Elastic with nnodes = 1 */
    return kf_fail(c->e, KF_EINVAL, "%s: nnodes: 1 makes the task a python-task: "
                   "%s runs it as a single pod, not a PyTorchJob (target %s)",
                   c->who, t == KF_T_FLYTE ? "Flyte" : "Flyte 2", kf_targets[t].name);
  if ((st = kfm_operator(c, j, o, 1, &root)) != KF_OK) return st;
  specs = kf_node_get(kf_node_get(root, "spec"), k->crd_specs);
  for (i = 0; specs && i < specs->u.c.n; i++) {
    kf_node *rs = specs->u.c.v[i];
    if (first_meta == NULL)
      first_meta = kf_node_get(kf_node_get(rs, "template"), "metadata");
    if ((st = replica(c, j, t, strcmp(specs->u.c.k[i], "Worker") == 0, rs)) != KF_OK)
      return st;
  }
  if (t == KF_T_FLYTE2 && (j->kind == KF_PYTORCH || j->kind == KF_ELASTIC) && first_meta) {
    /* pytorch.go (11dbc43bed): the pods' metadata on the PyTorchJob */
    kf_node *meta = kf_node_get(root, "metadata");
    const char *keys[2] = {"labels", "annotations"};
    int x;
    for (x = 0; x < 2; x++) {
      kf_node *v = kf_node_get(first_meta, keys[x]);
      size_t y;
      int found = 0;
      if (v == NULL) continue;
      for (y = 0; y < meta->u.c.n; y++)
        if (strcmp(meta->u.c.k[y], keys[x]) == 0) meta->u.c.v[y] = v, found = 1;
      if (!found) KF_OOM(c, kf_node_push(c->A, meta, keys[x], v));
    }
  }
  *out = root;
  return KF_OK;
}

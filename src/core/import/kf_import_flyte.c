/*
** kf_import_flyte.c - a kubeflow.org/v1 resource recognised as Flyte's
** (target flyte or flyte2) only when it has the whole shape Flyte's
** backend gives every replica (kube/kf_manifest_flyte.c writes it;
** flyteplugins pod_helper.go, pytorch.go; FACTS §3.2, §4), and those
** additions taken out.  A user's pod that has only part of it (the
** safe-to-evict annotation many clusters ask for, a terminationMessage-
** Policy, a variable named _F_WN) is read as written: target operator.
*/
#include <string.h>

#include "kf_import_int.h"

#define SAFE_TO_EVICT "cluster-autoscaler.kubernetes.io/safe-to-evict"
#define TMP "terminationMessagePolicy"

static int is_str(const kf_node *n, const char *s) {
  const char *v = kfi_str(n);
  return v && strcmp(v, s) == 0;
}

/* {name: _F_WN, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, alone. */
static int fwn_entry(const kf_node *e) {
  const kf_node *vf = kf_node_get(e, "valueFrom"), *fr = kf_node_get(vf, "fieldRef");
  return e && e->t == KF_NOBJ && e->u.c.n == 2 && is_str(kf_node_get(e, "name"), "_F_WN") &&
         vf && vf->t == KF_NOBJ && vf->u.c.n == 1 && fr && fr->t == KF_NOBJ &&
         fr->u.c.n == 1 && is_str(kf_node_get(fr, "fieldPath"), "metadata.name");
}

/* A list of exactly one item that `is` takes (kfjob's shared memory). */
static int one(const kf_node *l, int (*is)(const kf_node *)) {
  return l && l->t == KF_NARR && l->u.c.n == 1 && is(l->u.c.v[0]);
}

/* A template that gives the job no pod template: a spec of containers
** (one, of the task's keys), restartPolicy, the accelerator's placement,
** with `shm_ok` the shared-memory volume and mount (the container
** target's extended_resources.shared_memory, flytek8s ApplySharedMemory)
** and Flyte 2's enableServiceLinks; Flyte then adds terminationMessage-
** Policy, and not otherwise (kf_manifest_flyte.c; FACTS §4.4 notes).
** Without it a template holding shared memory is a pod template's. */
static int plain(const kf_node *t, int shm_ok) {
  static const char *const pod_keys[] = {"containers", "restartPolicy", "affinity",
                                         "tolerations", "enableServiceLinks", NULL};
  static const char *const ct_keys[] = {"name", "image", "command", "args", "env",
                                        "resources", TMP, NULL};
  const kf_node *ps = kf_node_get(t, "spec"), *cs = kf_node_get(ps, "containers"), *ct;
  size_t i;
  if (ps == NULL || ps->t != KF_NOBJ || cs == NULL || cs->t != KF_NARR || cs->u.c.n != 1)
    return 0;
  for (i = 0; i < ps->u.c.n; i++)
    if (!kf_str_listed(pod_keys, ps->u.c.k[i]) &&
        !(shm_ok && strcmp(ps->u.c.k[i], "volumes") == 0 && one(ps->u.c.v[i], kfi_shm_volume)))
      return 0;
  ct = cs->u.c.v[0];
  for (i = 0; ct->t == KF_NOBJ && i < ct->u.c.n; i++)
    if (!kf_str_listed(ct_keys, ct->u.c.k[i]) &&
        !(shm_ok && strcmp(ct->u.c.k[i], "volumeMounts") == 0 && one(ct->u.c.v[i], kfi_shm_mount)))
      return 0;
  return ct->t == KF_NOBJ;
}

typedef struct shape {
  int tmp_all, tmp_none, plain_all, plain_shm_all, pod_meta, links_off, fwn_ok, fwn_stray;
} shape;

/* One replica's template into s; 0: not Flyte's. */
static int template_shape(const kfi *c, const char *role, const kf_node *t, shape *s) {
  const kf_node *an = kf_node_get(kf_node_get(t, "metadata"), "annotations");
  const kf_node *ps = kf_node_get(t, "spec"), *cs = kf_node_get(ps, "containers");
  const kf_node *esl = kf_node_get(ps, "enableServiceLinks");
  const char *dname = kf_kinds[c->kind].container;
  size_t i, x;
  if (!is_str(kf_node_get(an, SAFE_TO_EVICT), "false") || cs == NULL || cs->t != KF_NARR)
    return 0;
  s->links_off &= esl && esl->t == KF_NBOOL && !esl->u.b;
  s->plain_all &= plain(t, 0);
  s->plain_shm_all &= plain(t, 1);
  /* pod labels, or annotations beyond Flyte's (Kueue's topology): the
  ** job's pod template, which Flyte's backend merges over its own */
  s->pod_meta |= kf_node_get(kf_node_get(t, "metadata"), "labels") != NULL ||
                 (an && an->t == KF_NOBJ && an->u.c.n > 1);
  for (i = 0; i < cs->u.c.n; i++) {
    const kf_node *ct = cs->u.c.v[i], *tmp = kf_node_get(ct, TMP), *env = kf_node_get(ct, "env");
    int dflt = is_str(kf_node_get(ct, "name"), dname);
    int fwn_here = i == 0 && strcmp(role, "Worker") == 0 &&
                   (c->kind == KF_PYTORCH || c->kind == KF_ELASTIC);
    if (dflt && tmp && !is_str(tmp, "FallbackToLogsOnError")) return 0;
    if (dflt) s->tmp_all &= tmp != NULL, s->tmp_none &= tmp == NULL;
    for (x = 0; env && env->t == KF_NARR && x < env->u.c.n; x++) {
      if (!is_str(kf_node_get(env->u.c.v[x], "name"), "_F_WN")) continue;
      if (fwn_here && x + 1 == env->u.c.n && fwn_entry(env->u.c.v[x])) s->fwn_ok = 1;
      else s->fwn_stray = 1;
    }
  }
  return 1;
}

/* Flyte's whole shape: every template has the safe-to-evict "false"
** annotation; the task's containers all have terminationMessagePolicy
** FallbackToLogsOnError and the templates are plain, or none has it and
** the job has a pod template (a template not plain, pod labels, or
** annotations beyond safe-to-evict);
** Flyte 1 appends _F_WN (the pod's name) to a
** PyTorch worker's first container and nowhere else; Flyte 2 sets
** enableServiceLinks: false on every pod and has no _F_WN.  -1: not
** Flyte's. */
static int shape_of(const kfi *c, const kf_node *doc, shape *s) {
  const kf_node *specs = kf_node_get(kf_node_get(doc, "spec"), kf_kinds[c->kind].crd_specs);
  size_t i;
  static const shape all = {1, 1, 1, 1, 0, 1, 0, 0};
  *s = all;
  if (specs == NULL || specs->t != KF_NOBJ || specs->u.c.n == 0) return 0;
  for (i = 0; i < specs->u.c.n; i++)
    if (!template_shape(c, specs->u.c.k[i], kf_node_get(specs->u.c.v[i], "template"), s))
      return 0;
  return 1;
}

int kfi_flyte_pod_job(const kfi *c, const kf_node *doc) {
  shape s;
  return shape_of(c, doc, &s) && !s.tmp_all && s.tmp_none;
}

int kfi_flyte_shape(const kfi *c, const kf_node *doc) {
  const kf_node *specs = kf_node_get(kf_node_get(doc, "spec"), kf_kinds[c->kind].crd_specs);
  shape s;
  int pytorch = c->kind == KF_PYTORCH || c->kind == KF_ELASTIC;
  if (!shape_of(c, doc, &s)) return -1;
  if (s.fwn_stray || !(s.tmp_all ? s.plain_shm_all : s.tmp_none && (!s.plain_all || s.pod_meta)))
    return -1;
  if (s.links_off) return s.fwn_ok ? -1 : KF_T_FLYTE2;
  return s.fwn_ok == (pytorch && kf_node_get(specs, "Worker") != NULL) ? KF_T_FLYTE : -1;
}

/* ---- Flyte's additions taken out (the flyte writers add them back) ---- */

/* A copy of o with `key` replaced by v (left out when v is NULL or an
** empty object or list); NULL with c->e set when memory ran out. */
static kf_node *put(kfi *c, const kf_node *o, const char *key, const kf_node *v) {
  kf_node *d = kf_node_new(c->A, KF_NOBJ);
  size_t i;
  int drop = v == NULL || ((v->t == KF_NOBJ || v->t == KF_NARR) && v->u.c.n == 0);
  for (i = 0; d && o && i < o->u.c.n; i++) {
    const kf_node *x = strcmp(o->u.c.k[i], key) == 0 ? v : o->u.c.v[i];
    if ((x != v || !drop) && !kf_node_push(c->A, d, o->u.c.k[i], (kf_node *)x)) d = NULL;
  }
  if (d == NULL) kf_nomem(c->e);
  return d;
}

/* The task's container without terminationMessagePolicy and the _F_WN
** variable (kfi_flyte_shape placed them); another container as it is. */
static kf_node *plain_container(kfi *c, const kf_node *ct) {
  const kf_node *env = kf_node_get(ct, "env");
  kf_node *e2 = kf_node_new(c->A, KF_NARR), *d;
  size_t i;
  if (!is_str(kf_node_get(ct, "name"), kf_kinds[c->kind].container) &&
      !(env && env->t == KF_NARR && env->u.c.n && fwn_entry(env->u.c.v[env->u.c.n - 1])))
    return (kf_node *)ct;
  for (i = 0; e2 && env && env->t == KF_NARR && i < env->u.c.n; i++)
    if (!(i + 1 == env->u.c.n && fwn_entry(env->u.c.v[i])) &&
        !kf_node_push(c->A, e2, NULL, env->u.c.v[i]))
      e2 = NULL;
  if (e2 == NULL) return kf_nomem(c->e), NULL;
  d = is_str(kf_node_get(ct, "name"), kf_kinds[c->kind].container)
          ? put(c, ct, TMP, NULL) : (kf_node *)ct;
  return d && env ? put(c, d, "env", e2) : d;
}

/* A replica template without what Flyte's backend adds to every pod. */
static kf_node *plain_template(kfi *c, const kf_node *t, int flyte2) {
  const kf_node *meta = kf_node_get(t, "metadata"), *ps = kf_node_get(t, "spec");
  const kf_node *cs = kf_node_get(ps, "containers");
  kf_node *an, *m, *cs2 = kf_node_new(c->A, KF_NARR), *ps2, *t2;
  size_t i;
  for (i = 0; cs2 && i < cs->u.c.n; i++) {
    kf_node *x = plain_container(c, cs->u.c.v[i]);
    if (x == NULL || !kf_node_push(c->A, cs2, NULL, x)) return NULL;
  }
  if (cs2 == NULL ||
      (an = put(c, kf_node_get(meta, "annotations"), SAFE_TO_EVICT, NULL)) == NULL ||
      (m = put(c, meta, "annotations", an)) == NULL ||
      (ps2 = put(c, ps, "containers", cs2)) == NULL ||
      (flyte2 && (ps2 = put(c, ps2, "enableServiceLinks", NULL)) == NULL) ||
      (t2 = put(c, t, "metadata", m)) == NULL)
    return NULL;
  return put(c, t2, "spec", ps2);
}

const kf_node *kfi_plain_spec(kfi *c, const kf_node *spec) {
  const char *key = kf_kinds[c->kind].crd_specs;
  const kf_node *specs = kf_node_get(spec, key);
  kf_node *s2 = kf_node_new(c->A, KF_NOBJ);
  size_t i;
  for (i = 0; s2 && i < specs->u.c.n; i++) {
    const kf_node *rs = specs->u.c.v[i];
    kf_node *t = plain_template(c, kf_node_get(rs, "template"), c->target == KF_T_FLYTE2);
    kf_node *rs2 = t ? put(c, rs, "template", t) : NULL;
    if (rs2 == NULL || !kf_node_push(c->A, s2, specs->u.c.k[i], rs2)) return NULL;
  }
  return s2 ? put(c, spec, key, s2) : NULL;
}

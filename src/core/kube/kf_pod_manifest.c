/*
** kf_pod_manifest.c - a job's pod settings in a kubeflow.org/v1 manifest,
** as Flyte's backend builds each replica's pod (FACTS 3.2-3.4,
** pod_helper.go): the pod template's spec under every replica, its
** primary container renamed to the kind's default container name and
** merged with what kf_manifest.c built for the group (image, command,
** args, env first, resources), sidecars and the rest of the spec as
** given, the shared-memory volume and its /dev/shm mount, and the
** accelerator's node affinity and toleration on pods whose containers
** limit GPUs.  The job's tree is never changed: what gets appended to is
** copied first.  Keys of the pod spec and containers follow the Go
** structs (k8s.io/api/core/v1), as the rest of the manifest does.
*/
#include <stdio.h>
#include <string.h>

#include "kf_pod.h"

const char *const kf_pod_spec_order[] = {
    "volumes", "initContainers", "containers", "ephemeralContainers",
    "restartPolicy", "terminationGracePeriodSeconds", "activeDeadlineSeconds",
    "dnsPolicy", "nodeSelector", "serviceAccountName", "serviceAccount",
    "automountServiceAccountToken", "nodeName", "hostNetwork", "hostPID",
    "hostIPC", "shareProcessNamespace", "securityContext", "imagePullSecrets",
    "hostname", "subdomain", "affinity", "schedulerName", "tolerations",
    "hostAliases", "priorityClassName", "priority", "dnsConfig",
    "readinessGates", "runtimeClassName", "enableServiceLinks",
    "preemptionPolicy", "overhead", "topologySpreadConstraints",
    "setHostnameAsFQDN", "os", "hostUsers", "schedulingGates",
    "resourceClaims", NULL};
const char *const kf_pod_container_order[] = {
    "name", "image", "command", "args", "workingDir", "ports", "envFrom",
    "env", "resources", "resizePolicy", "restartPolicy", "volumeMounts",
    "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe",
    "lifecycle", "terminationMessagePath", "terminationMessagePolicy",
    "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty", NULL};

/* Each key of `o` placed once: pos[k] is the first key that is order[k]
** (-1: none), and the keys no entry of `order` names keep their order
** after them.  0 when there are more keys or entries than it holds. */
#define ORD_MAX 64
static int ordered_fast(kf_arena *A, kf_node *d, const kf_node *o,
                        const char *const *order) {
  int pos[ORD_MAX], listed[ORD_MAX];
  size_t i, n = o->u.c.n;
  int k, norder;
  for (norder = 0; order[norder]; norder++)
    if (norder == ORD_MAX - 1) return 0;
  if (n > ORD_MAX) return 0;
  for (k = 0; k < norder; k++) pos[k] = -1;
  for (i = 0; i < n; i++) {   /* each key against the entries, once */
    const char *key = o->u.c.k[i];
    listed[i] = 0;
    for (k = 0; k < norder; k++)
      if (order[k][0] == key[0] && strcmp(order[k], key) == 0) {
        if (pos[k] < 0) pos[k] = (int)i;
        listed[i] = 1;
        break;
      }
  }
  for (k = 0; k < norder; k++)
    if (pos[k] >= 0 && o->u.c.v[pos[k]] &&
        !kf_node_push(A, d, order[k], o->u.c.v[pos[k]]))
      return -1;
  for (i = 0; i < n; i++)
    if (!listed[i] && !kf_node_push(A, d, o->u.c.k[i], o->u.c.v[i])) return -1;
  return 1;
}

kf_node *kf_pod_ordered(kf_arena *A, const kf_node *o, const char *const *order) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  size_t i;
  int k;
  if (d && o->t == KF_NOBJ) {
    int r = ordered_fast(A, d, o, order);
    if (r != 0) return r > 0 ? d : NULL;
  }
  for (k = 0; d && order[k]; k++) {
    kf_node *v = kf_node_get(o, order[k]);
    if (v && !kf_node_push(A, d, order[k], v)) return NULL;
  }
  for (i = 0; d && i < o->u.c.n; i++)
    if (!kf_str_listed(order, o->u.c.k[i]) &&
        !kf_node_push(A, d, o->u.c.k[i], o->u.c.v[i]))
      return NULL;
  return d;
}

static kf_node *strobj(kf_arena *A, const char *const *kv) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  for (; o && kv[0]; kv += 2)
    if (kv[1] && !kf_obj_strref(A, o, kv[0], kv[1])) return NULL;
  return o;
}

/* ---- metadata --------------------------------------------------------- */

/* Two sorted string maps as one, sorted; `over` wins on a clash. */
static kf_node *merge_map(kf_arena *A, const kf_node *base, const kf_node *over) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  size_t i = 0, k = 0, nb = base ? base->u.c.n : 0, no = over ? over->u.c.n : 0;
  while (d && (i < nb || k < no)) {
    int c = i == nb ? 1 : k == no ? -1 : strcmp(base->u.c.k[i], over->u.c.k[k]);
    const kf_node *src = c < 0 ? base : over;
    size_t at = c < 0 ? i : k;
    if (!kf_node_push(A, d, src->u.c.k[at], src->u.c.v[at])) return NULL;
    if (c <= 0) i++;
    if (c >= 0) k++;
  }
  return d;
}

kf_status kf_pod_meta(kf_arena *A, const kf_node *tmpl, const kf_node *labels,
                      const kf_node *annotations, kf_node **meta, kf_err *e) {
  static const char *const keys[2] = {"labels", "annotations"};
  const kf_node *tm = tmpl ? kf_node_get(tmpl, "metadata") : NULL;
  const kf_node *over[2];
  int i;
  over[0] = labels, over[1] = annotations;
  *meta = NULL;
  for (i = 0; i < 2; i++) {
    const kf_node *b = kf_node_get(tm, keys[i]);
    kf_node *m;
    if ((b == NULL || b->u.c.n == 0) && (over[i] == NULL || over[i]->u.c.n == 0))
      continue;
    if ((*meta == NULL && (*meta = kf_node_new(A, KF_NOBJ)) == NULL) ||
        (m = merge_map(A, b, over[i])) == NULL ||
        !kf_node_push(A, *meta, keys[i], m))
      return kf_nomem(e);
  }
  return KF_OK;
}

/* ---- the pod ---------------------------------------------------------- */

/* The group's container `ct` merged with the template's primary `tp`
** (NULL: none): the template's settings, env after the task's, and the
** shared-memory mount. */
static kf_node *primary(kf_arena *A, const kf_node *tp, const kf_node *ct,
                        int shm) {
  kf_node *m = kf_node_copy_shallow(A, ct, KF_NOBJ);
  size_t i;
  for (i = 0; m && tp && i < tp->u.c.n; i++) {
    const char *k = tp->u.c.k[i];
    kf_node *v = tp->u.c.v[i];
    if (strcmp(k, "name") == 0) continue;
    if (strcmp(k, "env") == 0) {
      kf_node *env = kf_node_copy_shallow(A, kf_node_get(ct, "env"), KF_NARR);
      size_t x;
      for (x = 0; env && x < v->u.c.n; x++)
        if (!kf_node_push(A, env, NULL, v->u.c.v[x])) return NULL;
      v = env;
    }
    if (!kf_node_put(A, m, k, v)) return NULL;
  }
  if (m && shm) {
    static const char *const mount[] = {"name", KF_SHM_VOLUME, "mountPath",
                                        KF_SHM_PATH, NULL};
    kf_node *l = kf_node_copy_shallow(A, kf_node_get(m, "volumeMounts"), KF_NARR);
    if (l == NULL || !kf_node_push(A, l, NULL, strobj(A, mount)) ||
        !kf_node_put(A, m, "volumeMounts", l))
      return NULL;
  }
  return m ? kf_pod_ordered(A, m, kf_pod_container_order) : NULL;
}

static int limits_gpu(const kf_node *containers) {
  size_t i;
  for (i = 0; i < containers->u.c.n; i++) {
    const kf_node *r = kf_node_get(containers->u.c.v[i], "resources");
    if (kf_node_get(kf_node_get(r, "limits"), KF_GPU_RESOURCE) != NULL) return 1;
  }
  return 0;
}

/* Affinity with `reqs` added to every required node-selector term (one
** term made when there is none), as AddNodeSelectorRequirements does. */
static kf_node *node_affinity(kf_arena *A, const kf_node *aff, kf_node **reqs,
                              int nreq) {
  static const char *const path[3] = {
      "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
      "nodeSelectorTerms"};
  kf_node *lvl[3], *terms, *old;
  size_t i;
  int d, r;
  const kf_node *cur = aff;
  kf_node *top = kf_node_copy_shallow(A, aff, KF_NOBJ);
  lvl[0] = top;
  for (d = 1; d < 3 && lvl[d - 1]; d++) {
    cur = kf_node_get(cur, path[d - 1]);
    lvl[d] = kf_node_copy_shallow(A, cur, KF_NOBJ);
    if (lvl[d] == NULL || !kf_node_put(A, lvl[d - 1], path[d - 1], lvl[d]))
      return NULL;
  }
  if (lvl[2] == NULL) return NULL;
  old = kf_node_get(lvl[2], path[2]);
  if ((terms = kf_node_new(A, KF_NARR)) == NULL) return NULL;
  for (i = 0; i < (old && old->t == KF_NARR && old->u.c.n ? old->u.c.n : 1); i++) {
    const kf_node *t0 = old && old->t == KF_NARR && old->u.c.n ? old->u.c.v[i] : NULL;
    kf_node *t = kf_node_copy_shallow(A, t0, KF_NOBJ);
    kf_node *me = t ? kf_node_copy_shallow(A, kf_node_get(t, "matchExpressions"), KF_NARR) : NULL;
    for (r = 0; me && r < nreq; r++)
      if (!kf_node_push(A, me, NULL, reqs[r])) return NULL;
    if (me == NULL || !kf_node_put(A, t, "matchExpressions", me) ||
        !kf_node_push(A, terms, NULL, t))
      return NULL;
  }
  return kf_node_put(A, lvl[2], path[2], terms) ? top : NULL;
}

/* A NodeSelectorRequirement (values NULL: none) or a NoSchedule
** toleration. */
static kf_node *requirement(kf_arena *A, const char *key, const char *op,
                            const char *value) {
  const char *const kv[] = {"key", key, "operator", op, NULL};
  kf_node *o = strobj(A, kv), *v;
  if (o && value) {
    if ((v = kf_obj_add(A, o, "values", KF_NARR)) == NULL ||
        !kf_node_push(A, v, NULL, kf_node_str(A, value, strlen(value))))
      return NULL;
  }
  return o;
}

static kf_node *toleration(kf_arena *A, const char *key, const char *value) {
  const char *const kv[] = {"key", key, "operator", "Equal", "value", value,
                            "effect", "NoSchedule", NULL};
  return strobj(A, kv);
}

static kf_status accelerator(kf_arena *A, const kf_accel *a, kf_node *pod,
                             kf_err *e) {
  kf_node *reqs[2], *tols, *aff;
  int n = 0;
  if ((tols = kf_node_copy_shallow(A, kf_node_get(pod, "tolerations"), KF_NARR)) == NULL ||
      (reqs[n++] = requirement(A, KF_ACCEL_LABEL, "In", a->device)) == NULL ||
      !kf_node_push(A, tols, NULL, toleration(A, KF_ACCEL_LABEL, a->device)))
    return kf_nomem(e);
  if (a->partition_size) {
    if ((reqs[n++] = requirement(A, KF_PARTITION_LABEL, "In", a->partition_size)) == NULL ||
        !kf_node_push(A, tols, NULL, toleration(A, KF_PARTITION_LABEL, a->partition_size)))
      return kf_nomem(e);
  } else if (a->unpartitioned &&
             (reqs[n++] = requirement(A, KF_PARTITION_LABEL, "DoesNotExist", NULL)) == NULL) {
    return kf_nomem(e);
  }
  if ((aff = node_affinity(A, kf_node_get(pod, "affinity"), reqs, n)) == NULL ||
      !kf_node_put(A, pod, "affinity", aff) || !kf_node_put(A, pod, "tolerations", tols))
    return kf_nomem(e);
  return KF_OK;
}

kf_status kf_pod_spec(kf_arena *A, const kf_job *j, const kf_node *ct,
                      const char *service_account, kf_node **out,
                      const char *who, kf_err *e) {
  const kf_node *t = j->pod_template;
  const kf_node *ts = t ? kf_node_get(t, "spec") : NULL;
  const kf_node *tcs = kf_node_get(ts, "containers"), *tp;
  const char *dname = kf_kinds[j->kind].container;
  kf_node *pod, *cs, *m;
  size_t at = (size_t)-1, i;
  if ((pod = kf_node_copy_shallow(A, ts, KF_NOBJ)) == NULL || (cs = kf_node_new(A, KF_NARR)) == NULL)
    return kf_nomem(e);
  tp = kf_pod_primary(t, &at);
  if ((m = primary(A, tp, ct, j->shared_memory != NULL)) == NULL) return kf_nomem(e);
  for (i = 0; tcs && i < tcs->u.c.n; i++) {
    const kf_node *c = tcs->u.c.v[i], *nm = kf_node_get(c, "name");
    if (tp && i == at) {
      if (!kf_node_push(A, cs, NULL, m)) return kf_nomem(e);
      continue;
    }
    /* only the primary is renamed: a sidecar of that name would be a
    ** second container the operator takes for the default one */
    if (nm && nm->t == KF_NSTR && strcmp(nm->u.s.p, dname) == 0)
      return kf_fail(e, KF_EINVAL, "%s: pod_template.spec.containers[%zu].name: "
                     "'%s' is the name the primary container '%s' gets in a %s "
                     "(rename this container)", who, i + 1, dname,
                     kf_pod_primary_name(t), kf_kinds[j->kind].crd_kind);
    if (!kf_node_push(A, cs, NULL, (kf_node *)c)) return kf_nomem(e);
  }
  if (tp == NULL && !kf_node_push(A, cs, NULL, m)) return kf_nomem(e);
  if (!kf_node_put(A, pod, "containers", cs)) return kf_nomem(e);
  if (kf_node_get(pod, "restartPolicy") == NULL &&
      !kf_obj_strref(A, pod, "restartPolicy", "Never"))
    return kf_nomem(e);
  if (service_account &&
      !kf_node_put(A, pod, "serviceAccountName",
                  kf_node_str(A, service_account, strlen(service_account))))
    return kf_nomem(e);
  if (j->shared_memory) {
    static const char *const medium[] = {"medium", "Memory", NULL};
    kf_node *vols = kf_node_copy_shallow(A, kf_node_get(pod, "volumes"), KF_NARR), *v, *ed;
    if (vols == NULL || (v = kf_obj_add(A, vols, NULL, KF_NOBJ)) == NULL ||
        !kf_obj_strref(A, v, "name", KF_SHM_VOLUME) ||
        (ed = strobj(A, medium)) == NULL || !kf_node_push(A, v, "emptyDir", ed) ||
        (j->shared_memory[0] && !kf_obj_strref(A, ed, "sizeLimit", j->shared_memory)) ||
        !kf_node_put(A, pod, "volumes", vols))
      return kf_nomem(e);
  }
  if (j->has_accelerator && limits_gpu(cs)) {
    kf_status st = accelerator(A, &j->accel, pod, e);
    if (st != KF_OK) return st;
  }
  if ((*out = kf_pod_ordered(A, pod, kf_pod_spec_order)) == NULL) return kf_nomem(e);
  return KF_OK;
}

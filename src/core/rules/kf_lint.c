/*
** kf_lint.c - job:lint(): configurations the operator or the backend
** accepts but that will not do what the user meant, as warnings with paths.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_rules.h"
#include "kf_pod.h"

/* One lint call: its arena, its error and the prefix of its messages. */
typedef struct lctx {
  kf_arena *A;
  kf_err *e;
  const char *who;
} lctx;

static kf_status warn(lctx *c, kf_node *list, const char *path,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static kf_status warn(lctx *c, kf_node *list, const char *path,
                      const char *fmt, ...) {
  char msg[400];
  kf_node *w;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  KF_OOM(c, w = kf_obj_add(c->A, list, NULL, KF_NOBJ));
  KF_OOM(c, kf_obj_str(c->A, w, "path", path) && kf_obj_str(c->A, w, "message", msg));
  return KF_OK;
}

#define WARN(...) do { if ((st = warn(c, list, __VA_ARGS__)) != KF_OK) return st; } while (0)

static kf_status lint_group(lctx *c, kf_node *list, const kf_job *j, int role) {
  const kf_group *g = &j->g[role];
  const char *key = kf_roles[role].key;
  const char *gr = g->requests[KF_GPU], *gl = g->limits[KF_GPU];
  char p[96];
  int i, side;
  kf_status st;
  for (side = 0; side < 2; side++)
    for (i = 0; i < KF_NRES; i++) {
      const char *q = side ? g->limits[i] : g->requests[i];
      if (q == NULL || kfm_qty_value(q) != 0) continue;
      snprintf(p, sizeof p, "%s.%s.%s", key, side ? "limits" : "requests",
               kf_resources_obj.f[i].key);
      WARN(p, "0 is dropped by the backend: the same as leaving it unset");
    }
  if (gr && kfm_qty_value(gr) == 0) gr = NULL;
  if (gl && kfm_qty_value(gl) == 0) gl = NULL;
  /* a GPU limit alone is the usual form, not worth a warning: Kubernetes
  ** gives a container's unset requests its limits (kubernetes
  ** pkg/apis/core/v1/defaults.go SetDefaults_Pod) */
  snprintf(p, sizeof p, "%s.requests.gpu", key);
  if (gr && !gl)
    WARN(p, "GPU request without a GPU limit: Kubernetes needs both, the "
         "limit becomes %s too", gr);
  else if (gr && gl && kfm_qty_cmp(gr, gl) != 0)
    WARN(p, "%s differs from limits.gpu %s: Kubernetes refuses the pod "
         "(GPU requests must equal limits)", gr, gl);
  for (i = 0; i < KF_NRES; i++) {
    const char *r = g->requests[i], *l = g->limits[i];
    if (i == KF_GPU || !r || !l || kfm_qty_value(l) == 0 || kfm_qty_cmp(r, l) <= 0)
      continue;
    snprintf(p, sizeof p, "%s.requests.%s", key, kf_resources_obj.f[i].key);
    WARN(p, "%s exceeds limits.%s %s: the backend lowers the request to the "
         "limit", r, kf_resources_obj.f[i].key, l);
  }
  return KF_OK;
}

/* A /dev/shm mount on the template's primary container. */
static int shm_mounted(const kf_job *j) {
  const kf_node *p = kf_pod_primary(j->pod_template, NULL);
  const kf_node *l = kf_node_get(p, "volumeMounts");
  size_t i;
  for (i = 0; l && l->t == KF_NARR && i < l->u.c.n; i++) {
    const kf_node *m = kf_node_get(l->u.c.v[i], "mountPath");
    if (m && m->t == KF_NSTR && kf_pod_is_shm_path(m->u.s.p, m->u.s.n)) return 1;
  }
  return 0;
}

static int tolerates_gpu(const kf_job *j) {
  const kf_node *l = kf_node_get(kf_node_get(j->pod_template, "spec"), "tolerations");
  size_t i;
  for (i = 0; l && l->t == KF_NARR && i < l->u.c.n; i++) {
    const kf_node *k = kf_node_get(l->u.c.v[i], "key");
    const kf_node *op = kf_node_get(l->u.c.v[i], "operator");
    if (k && k->t == KF_NSTR && strcmp(k->u.s.p, KF_GPU_RESOURCE) == 0) return 1;
    if ((k == NULL || k->u.s.n == 0) && op && op->t == KF_NSTR &&
        strcmp(op->u.s.p, "Exists") == 0)
      return 1;
  }
  return 0;
}

static kf_status lint_pod(lctx *c, kf_node *list, const kf_job *j) {
  kf_status st;
  if (j->pod_template && !j->has_accelerator && kfm_gpu_limited(j) && !tolerates_gpu(j))
    WARN("pod_template.spec.tolerations", "GPU pods without a toleration for "
         KF_GPU_RESOURCE ": GPU node pools are commonly tainted "
         KF_GPU_RESOURCE ":NoSchedule, and the pods stay Pending there unless "
         "the cluster adds the toleration itself (the ExtendedResourceToleration "
         "admission plugin, which GKE enables)");
  if ((j->kind == KF_PYTORCH || j->kind == KF_ELASTIC) && !j->shared_memory &&
      !shm_mounted(j))
    WARN("shared_memory", "unset and no /dev/shm mount in pod_template: "
         "PyTorch DataLoader workers share tensors through /dev/shm, which "
         "container runtimes limit to 64Mi (flytekit mounts one by default); "
         "set shared_memory = true or a size");
  if (j->has_accelerator && !kfm_gpu_limited(j))
    WARN("accelerator", "no group limits GPUs: the backend applies the "
         "accelerator's node affinity and toleration only to pods with a GPU "
         "limit, so '%.100s' has no effect", j->accel.device);
  return KF_OK;
}

/* opts.name: a DNS-1035 label whose longest pod name on target t fits 63
** characters. */
static kf_status lint_name(lctx *c, kf_node *list, const kf_job *j, kf_target t,
                           const char *name) {
  char pod[256];
  size_t len;
  kf_status st;
  if (!kf_dns_label(name, strlen(name), 1))
    WARN("opts.name", "'%.100s' is not a DNS-1035 label (%s)", name,
         kfm_dns1035_rule);
  else if (strlen(name) > 63)   /* IsDNS1035Label: DNS1035LabelMaxLength */
    WARN("opts.name", "too long: %zu characters (a DNS-1035 label has at most 63)",
         strlen(name));
  else if ((len = kfm_longest_pod_on(j, t, name, pod, sizeof pod)) > 63)
    WARN("opts.name", "pod name '%s' has %zu characters: more than the 63 "
         "Kubernetes allows", pod, len);
  return KF_OK;
}

/* The lint warning at `path` without a rule yet (NULL: none). */
static kf_node *lint_at(kf_node *list, const char *path) {
  size_t y;
  for (y = 0; y < list->u.c.n; y++) {
    const kf_node *at = kf_node_get(list->u.c.v[y], "path");
    if (at && strcmp(at->u.s.p, path) == 0 && !kf_node_get(list->u.c.v[y], "rule"))
      return list->u.c.v[y];
  }
  return NULL;
}

/* The target's rule rows, as warnings after lint's own.  A row whose
** finding lint gave at the same path in its own words (in_lint: slots
** R11, accelerator R12, the name R14 and R15) adds nothing but its rule
** id and source, on lint's warning. */
static kf_status lint_target(const kf_job *j, const kf_lint_opts *o, kf_arena *A,
                             kf_node *list, kf_err *e) {
  kf_target_ctx tc;
  kf_status st;
  kf_problems ps;
  size_t x, n = 0;
  memset(&tc, 0, sizeof tc);
  tc.name = o->name;
  tc.v0 = o->version == 0;
  tc.env = o->env;
  if ((st = kf_target_problems(j, o->target, &tc, A, &ps, e)) != KF_OK)
    return st;
  for (x = 0; x < ps.n; x++) {
    kf_node *w = ps.v[x].in_lint ? lint_at(list, ps.v[x].path) : NULL;
    if (w == NULL) {
      ps.v[n++] = ps.v[x];
    } else if (!kf_obj_strref(A, w, "rule", ps.v[x].rule) ||
               !kf_obj_strref(A, w, "source", ps.v[x].source)) {
      return kf_nomem(e);
    }
  }
  ps.n = n;
  return kf_problems_push(&ps, KF_SEV_WARN, A, list, e);
}

kf_status kf_lint(const kf_job *j, const kf_lint_opts *o, kf_arena *A,
                  kf_node **out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  lctx c0, *c = &c0;
  kf_node *list;
  kf_status st;
  const char *img;
  char p[96];
  int i;
  c->A = A, c->e = e, c->who = o->who;
  KF_OOM(c, list = kf_node_new(A, KF_NARR));
  for (i = 0; i < k->nroles; i++) {
    const kf_kind_role *kr = &k->roles[i];
    if (kr->deprecated_key && (j->deprecated & (1u << kr->role)))
      WARN(kr->deprecated_key, "deprecated: use %s.replicas",
           kf_roles[kr->role].key);
    if ((st = lint_group(c, list, j, kr->role)) != KF_OK) return st;
  }
  /* the master runs the task image: a worker image of its own splits the
  ** job across two images, rarely what DDP wants (a workers-only job,
  ** master.replicas = 0, has no Master group: R53) */
  img = o->image ? o->image : j->container.image;
  if (j->kind == KF_PYTORCH && j->g[KF_MASTER].replicas > 0 &&
      !j->g[KF_MASTER].image && j->g[KF_WORKER].image &&
      !(img && strcmp(img, j->g[KF_WORKER].image) == 0)) {
    if (img)
      WARN("master.image", "unset: the master runs the task image '%.100s' "
           "while the workers run '%.100s'", img, j->g[KF_WORKER].image);
    else
      WARN("master.image", "unset: the master runs the task image while the "
           "workers run '%.100s'", j->g[KF_WORKER].image);
  }
#ifdef KF_RPZ_TTL
  /* fields given as 0: proto3 cannot tell them from unset, on Flyte's
  ** targets only (the kubectl targets' manifests keep them) */
  if (j->has_run_policy && k->task_type != NULL &&
      (o->target == KF_T_FLYTE || o->target == KF_T_FLYTE2)) {
    static const char *const f[3] = {"ttl_seconds_after_finished",
                                     "active_deadline_seconds", "backoff_limit"};
    static const unsigned bit[3] = {KF_RPZ_TTL, KF_RPZ_DEADLINE, KF_RPZ_BACKOFF};
    for (i = 0; i < 3; i++)
      if (j->rp.zero & bit[i]) {
        snprintf(p, sizeof p, "run_policy.%s", f[i]);
        WARN(p, "0 is dropped by the backend (proto3 cannot send it): the "
             "operator's default applies");
      }
  }
#endif
  /* Flyte's backends only: the other targets write slotsPerWorker = slots */
  if ((k->flags & KF_K_SLOTS) && j->slots > 1 && o->version == 1 &&
      (o->target == KF_T_FLYTE || o->target == KF_T_FLYTE2))
    WARN("slots", "Flyte's task_type_version 1 backend ignores slots "
         "(slotsPerWorker stays 1; only the launcher's -np uses %d); kfjob's "
         "manifest sets slotsPerWorker = %d", (int)j->slots, (int)j->slots);
  if ((st = lint_pod(c, list, j)) != KF_OK) return st;
  if (o->name && (st = lint_name(c, list, j, o->target, o->name)) != KF_OK) return st;
  if ((st = lint_target(j, o, A, list, e)) != KF_OK) return st;
  (void)p;
  *out = list;
  return KF_OK;
}

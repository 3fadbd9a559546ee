/*
** kf_target_rules.c - the rules that differ by target (FACTS §8.5), one
** row each: the kinds it concerns, its severity and source per target, and
** a test that reports each violation with its path.  Construction keeps
** only what holds on every target; these rows carry the rest.
*/
#include <stdio.h>
#include <string.h>

#include "kf_launcher.h"
#include "kf_rules.h"
#include "kf_rules_int.h"


/* A worker count below 1 (R1, R3, R4): one message for every kind and
** target, the path the caller wrote (worker.replicas or num_workers). */
static kf_status test_workers(const kf_job *j, kf_target t,
                              const kf_target_ctx *c, const kf_target_rule *r,
                              kf_problems *out, kf_err *e) {
  char path[96];
  int32_t n = j->g[KF_WORKER].replicas;
  (void)c;
  if (n >= 1) return KF_OK;
  kf_replicas_path(j, KF_WORKER, KF_PATH_SPEC, path, sizeof path);
  if (r->sev[t] == KF_SEV_WARN)   /* R1 on Flyte 1.x */
    return kf_problem_add(out, r, t, path, e, "0: a master-only PyTorchJob "
                          "(Flyte 1.x and the training-operator run it; Flyte 2 "
                          "refuses it)");
  return kf_problem_add(out, r, t, path, e, "must be >= 1 (got %d)", (int)n);
}

/* R8: TensorFlow runs one chief and one evaluator task. */
static kf_status test_tf_one(const kf_job *j, kf_target t,
                             const kf_target_ctx *c, const kf_target_rule *r,
                             kf_problems *out, kf_err *e) {
  static const int roles[2] = {KF_CHIEF, KF_EVALUATOR};
  char path[96];
  kf_status st;
  int i;
  (void)c;
  for (i = 0; i < 2; i++) {
    int32_t n = j->g[roles[i]].replicas;
    if (n <= 1) continue;
    kf_replicas_path(j, roles[i], KF_PATH_SPEC, path, sizeof path);
    if ((st = kf_problem_add(out, r, t, path, e, "%d: TensorFlow runs at most "
                             "one %s task (the others idle or fail)", (int)n,
                             kf_roles[roles[i]].key)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* R9: min > max reaches the operator unchecked. */
static kf_status test_nnodes(const kf_job *j, kf_target t,
                             const kf_target_ctx *c, const kf_target_rule *r,
                             kf_problems *out, kf_err *e) {
  (void)c;
  if (j->min_nodes <= j->max_nodes) return KF_OK;
  return kf_problem_add(out, r, t, "nnodes", e, "min %d > max %d: passed to "
                        "the operator unchecked (elasticPolicy minReplicas > "
                        "maxReplicas)", (int)j->min_nodes, (int)j->max_nodes);
}

/* R10: torchrun's words ("auto", "cpu", "gpu") have no int32 to go to in
** Flyte's payload, and Trainer's numProcPerNode takes only "auto" (unset). */
static kf_status test_nproc(const kf_job *j, kf_target t,
                            const kf_target_ctx *c, const kf_target_rule *r,
                            kf_problems *out, kf_err *e) {
  const char *w = j->nproc_word;
  (void)c;
  if (w == NULL) return KF_OK;
  if (t == KF_T_FLYTE || t == KF_T_FLYTE2)
    return kf_problem_add(out, r, t, "nproc_per_node", e, "'%s' cannot be "
                          "expressed: the plugin's nproc_per_node is an int32 "
                          "(give an integer)", w);
  if (strcmp(w, "auto") == 0) return KF_OK;   /* Trainer: unset */
  return kf_problem_add(out, r, t, "nproc_per_node", e, "'%s' cannot be "
                        "expressed: TrainJob numProcPerNode is an int32 "
                        "(\"auto\" leaves it unset)", w);
}

/* R10, its other half: on Flyte an integer lands in the deprecated
** elasticPolicy.nProcPerNode, which Flyte's backends write (the webhook
** warns); kfjob's own operator manifests use spec.nprocPerNode. */
static kf_status test_nproc_int(const kf_job *j, kf_target t,
                                const kf_target_ctx *c, const kf_target_rule *r,
                                kf_problems *out, kf_err *e) {
  (void)c;
  if (j->nproc_word != NULL) return KF_OK;
  return kf_problem_add(out, r, t, "nproc_per_node", e, "%d goes to the "
                        "deprecated elasticPolicy.nProcPerNode (the webhook "
                        "warns)", (int)j->nproc_per_node);
}

/* R17: Trainer has no rendezvous setting (a static PET_MASTER_ADDR, that
** is c10d).  Elsewhere the backend goes to elasticPolicy.rdzvBackend, whose
** Go type has three constants (c10d, etcd, etcd-v2) that neither the CRD
** nor the webhook enforce: another (static, the reading of a clustered
** task's STATIC) reaches torchrun as PET_RDZV_BACKEND unchecked, and
** strict validators refuse it: a warning. */
static kf_status test_rdzv(const kf_job *j, kf_target t,
                           const kf_target_ctx *c, const kf_target_rule *r,
                           kf_problems *out, kf_err *e) {
  static const char *const operator_v[] = {"c10d", "etcd", "etcd-v2", NULL};
  const char *b = j->rdzv_backend ? j->rdzv_backend : "c10d";
  (void)c;
  if (!KF_T_IS_TRAINER(t)) {
    if (kf_str_listed(operator_v, b)) return KF_OK;
    return kf_problem_add(out, r, t, "rdzv_backend", e, "'%.60s' is not one of the "
                          "training-operator's RDZVBackend constants (c10d, etcd, etcd-v2): it "
                          "reaches torchrun as PET_RDZV_BACKEND unchecked", b);
  }
  if (strcmp(b, "c10d") == 0) return KF_OK;
  return kf_problem_add(out, r, t, "rdzv_backend", e, "'%.60s' cannot be "
                        "expressed: Trainer's torch runtime has no rendezvous "
                        "setting (c10d only)", b);
}

/* R14: the resource name (opts.name of check and manifest) is a DNS-1035
** label; a TrainJob's at most 63 characters (its CEL rule). */
static kf_status test_name(const kf_job *j, kf_target t,
                           const kf_target_ctx *c, const kf_target_rule *r,
                           kf_problems *out, kf_err *e) {
  size_t len;
  (void)j;
  if (c == NULL || c->name == NULL) return KF_OK;
  len = strlen(c->name);
  if (!kf_dns_label(c->name, len, 1))
    return kf_problem_add(out, r, t, "opts.name", e, "'%.100s' is not a DNS-1035 "
                          "label (%s)", c->name, kfm_dns1035_rule);
  if (KF_T_IS_TRAINER(t) && len > 63)
    return kf_problem_add(out, r, t, "opts.name", e, "too long: %zu characters "
                          "(a TrainJob's name has at most 63)", len);
  if (len > 63)   /* IsDNS1035Label: DNS1035LabelMaxLength */
    return kf_problem_add(out, r, t, "opts.name", e, "too long: %zu characters "
                          "(a DNS-1035 label has at most 63)", len);
  return KF_OK;
}

/* R15: the names derived from it, <name>-<type>-<index> and the MPI
** launcher's <name>-launcher, name pods and headless Services: at most 63. */
static kf_status test_pod_names(const kf_job *j, kf_target t,
                                const kf_target_ctx *c, const kf_target_rule *r,
                                kf_problems *out, kf_err *e) {
  char pod[256];
  size_t len;
  if (c == NULL || c->name == NULL || !kf_dns_label(c->name, strlen(c->name), 1))
    return KF_OK;   /* R14's */
  if ((len = kfm_longest_pod_on(j, t, c->name, pod, sizeof pod)) <= 63) return KF_OK;
  return kf_problem_add(out, r, t, "opts.name", e, "too long for this job: pod "
                        "name '%s' has %zu characters (at most 63)", pod, len);
}

/* Quantity.Value(): the quantity rounded up to a whole unit; flyteadmin
** compares those, so 1500m is within a limit of 1200m (both 2). */
static long double ceil_units(long double v) {
  long double t;
  if (!(v < 9.2e18L) || !(v > -9.2e18L)) return v;   /* beyond int64: as is */
  t = (long double)(long long)v;
  return t < v ? t + 1 : t;
}

static long double whole_units(const kf_node *q) {
  char b[32];
  const char *s = q->t == KF_NSTR ? q->u.s.p : b;
  if (q->t == KF_NINT) snprintf(b, sizeof b, "%lld", (long long)q->u.i);
  else if (q->t != KF_NSTR) return -1;
  return ceil_units(kfm_qty_value(s));
}

/* R33: what flyteadmin's validateK8sPod checks of a pod task's containers
** (task_validator.go validateResource): cpu, memory and ephemeral-storage
** requests at most their limits, a `gpu` request equal to its limit.  A
** TaskSpec of a job with a pod template is such a pod task; its
** containers' resources are the template's. */
static kf_status test_pod_resources(const kf_job *j, kf_target t,
                                    const kf_target_ctx *c, const kf_target_rule *r,
                                    kf_problems *out, kf_err *e) {
  static const char *const names[] = {"cpu", "memory", "ephemeral-storage", "gpu"};
  const kf_node *spec = j->pod_template ? kf_node_get(j->pod_template, "spec") : NULL;
  const kf_node *cs = spec ? kf_node_get(spec, "containers") : NULL;
  size_t i, k;
  (void)c;
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++) {
    const kf_node *res = kf_node_get(cs->u.c.v[i], "resources");
    const kf_node *rq = res ? kf_node_get(res, "requests") : NULL;
    const kf_node *lm = res ? kf_node_get(res, "limits") : NULL;
    for (k = 0; rq && lm && k < sizeof names / sizeof *names; k++) {
      const kf_node *a = kf_node_get(rq, names[k]), *b = kf_node_get(lm, names[k]);
      char path[96];
      long double va, vb;
      kf_status st;
      if (a == NULL || b == NULL) continue;
      va = whole_units(a), vb = whole_units(b);
      if (k < 3 ? !(vb < va) : va == vb) continue;
      snprintf(path, sizeof path, "pod_template.spec.containers[%zu].resources.requests.%s",
               i + 1, names[k]);
      st = k < 3 ? kf_problem_add(out, r, t, path, e, "the request is greater than "
                                  "the limit: flyteadmin refuses the task (requested "
                                  "default is greater than the limit)")
                 : kf_problem_add(out, r, t, path, e, "the request differs from the "
                                  "limit: flyteadmin refuses the task (for extended "
                                  "resource 'gpu' the default value must equal the "
                                  "limit value)");
      if (st != KF_OK) return st;
    }
  }
  return KF_OK;
}

/* R33 on the task's own resources: they are the TaskTemplate's container
** resources (validateContainer -> validateTaskResources), or with a pod
** template the primary container's (validateK8sPod -> validateResource).
** A gpu entry of the container must be whole (requestedResourcesToQuantity:
** MilliValue() % 1000); the pod spec's list is not checked for that. */
static kf_status test_task_resources(const kf_job *j, kf_target t,
                                     const kf_target_ctx *c, const kf_target_rule *r,
                                     kf_problems *out, kf_err *e) {
  static const char *const side[2] = {"requests", "limits"};
  const char *const *q[2] = {j->requests, j->limits};
  char path[64];
  kf_status st;
  int i, k;
  (void)c;
  for (i = 0; j->pod_template == NULL && i < 2; i++) {
    const char *g = q[i][KF_GPU];
    if (g == NULL || kf_ext_res_whole(g)) continue;   /* MilliValue() % 1000 */
    snprintf(path, sizeof path, "%s.gpu", side[i]);
    if ((st = kf_problem_add(out, r, t, path, e, "'%.40s' is not a whole number: "
                             "flyteadmin refuses the task (gpu must be a whole "
                             "number)", g)) != KF_OK)
      return st;
  }
  for (k = 0; k < KF_NRES; k++) {
    const char *a = j->requests[k], *b = j->limits[k];
    long double va, vb;
    if (a == NULL || b == NULL) continue;
    va = ceil_units(kfm_qty_value(a)), vb = ceil_units(kfm_qty_value(b));
    if (k == KF_GPU ? va == vb : !(vb < va)) continue;
    snprintf(path, sizeof path, "requests.%s", kf_resources_obj.f[k].key);
    st = k != KF_GPU ? kf_problem_add(out, r, t, path, e, "%.40s is greater than the "
                                      "limit %.40s in whole units: flyteadmin refuses the "
                                      "task (requested default is greater than the limit)",
                                      a, b)
                     : kf_problem_add(out, r, t, path, e, "%.40s differs from the limit "
                                      "%.40s: flyteadmin refuses the task (for extended "
                                      "resource 'gpu' the default value must equal the "
                                      "limit value)", a, b);
    if (st != KF_OK) return st;
  }
  return KF_OK;
}

static int same_strs(const char **a, size_t na, const char **b, size_t nb) {
  size_t i;
  if (na != nb) return 0;
  for (i = 0; i < na; i++)
    if (strcmp(a[i], b[i]) != 0) return 0;
  return 1;
}

/* R35 on Trainer: whether master's and workers' containers (each the
** group's when given, else the job's) differ in `key` (command, args or
** env), each key on its own: check lists every difference. */
static int container_differs(const kf_job *j, const char *key) {
  const kf_container *jc = &j->container, *m, *w, *mc, *wc;
  const kf_group *gm = &j->g[KF_MASTER], *gw = &j->g[KF_WORKER];
  m = gm->has_container ? &gm->container : jc;
  w = gw->has_container ? &gw->container : jc;
  if (strcmp(key, "command") == 0) {
    mc = m->ncommand ? m : jc, wc = w->ncommand ? w : jc;
    return !same_strs(mc->command, mc->ncommand, wc->command, wc->ncommand);
  }
  if (strcmp(key, "args") == 0) {
    mc = m->nargs ? m : jc, wc = w->nargs ? w : jc;
    return !same_strs(mc->args, mc->nargs, wc->args, wc->nargs);
  }
  mc = m->env ? m : jc, wc = w->env ? w : jc;
  return (mc->env == NULL) != (wc->env == NULL) ||
         (mc->env && !kf_tree_equal(mc->env, wc->env));
}

/* R35: what a group runs differently.  Flyte builds every replica's pod
** from the one task container (a replica spec carries replicas, image,
** resources, restart policy and MPI's command); a TrainJob runs master
** and workers as one `node` job with one container. */
static kf_status test_group_container(const kf_job *j, kf_target t,
                                      const kf_target_ctx *c, const kf_target_rule *r,
                                      kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[64];
  int i;
  (void)c;
  if (KF_T_IS_TRAINER(t)) {
    static const char *const keys[] = {"command", "args", "env"};
    /* (Elastic and JAXJob have no master: their one group is the node) */
    if (kf_trainer_role(j) != KF_MASTER || j->g[KF_WORKER].replicas <= 0) return KF_OK;
    for (i = 0; i < 3; i++) {
      kf_status st;
      if (!container_differs(j, keys[i])) continue;
      snprintf(path, sizeof path, "worker.container.%s", keys[i]);
      if ((st = kf_problem_add(out, r, t, path, e, "differs from master's: master and "
                               "workers are one `node` job of a TrainJob, with one "
                               "container (give it in the job's container)")) != KF_OK)
        return st;
    }
    return KF_OK;
  }
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    kf_status st;
    if (!j->g[role].has_container) continue;
    snprintf(path, sizeof path, "%s.container", kf_roles[role].key);
    if ((st = kf_problem_add(out, r, t, path, e, "cannot be expressed: Flyte "
                             "builds every replica's pod from the one task container "
                             "(a replica spec has no command, args or env); give it "
                             "in the job's container%s%s%s", (k->flags & KF_K_COMMAND)
                             ? ", or the group's args as " : "",
                             (k->flags & KF_K_COMMAND) ? kf_roles[role].key : "",
                             (k->flags & KF_K_COMMAND) ? ".command" : "")) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* R36: `valueFrom` in a container's env list (the job's, a group's). */
static kf_status env_from(const kf_container *ct, const char *at, kf_target t,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_node *env = ct->env;
  char path[96];
  size_t i;
  kf_status st;
  for (i = 0; env && env->t == KF_NARR && i < env->u.c.n; i++) {
    if (kf_node_get(env->u.c.v[i], "valueFrom") == NULL) continue;
    snprintf(path, sizeof path, "%s.env[%zu].valueFrom", at, i + 1);
    if ((st = kf_problem_add(out, r, t, path, e, "cannot be expressed: the "
                             "TaskTemplate container's env is name/value pairs; "
                             "give it in the pod template's primary container, "
                             "whose env takes valueFrom")) != KF_OK)
      return st;
  }
  return KF_OK;
}

static kf_status test_env_from(const kf_job *j, kf_target t,
                               const kf_target_ctx *c, const kf_target_rule *r,
                               kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char at[48];
  int i;
  kf_status st;
  (void)c;
  if ((st = env_from(&j->container, "container", t, r, out, e)) != KF_OK) return st;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (!g->has_container) continue;
    snprintf(at, sizeof at, "%s.container", kf_roles[k->roles[i].role].key);
    if ((st = env_from(&g->container, at, t, r, out, e)) != KF_OK) return st;
  }
  return KF_OK;
}

/* R37: where the resource lives is the execution's on Flyte. */
static kf_status test_where(const kf_job *j, kf_target t,
                            const kf_target_ctx *c, const kf_target_rule *r,
                            kf_problems *out, kf_err *e) {
  static const char why[] = "ignored on Flyte: it sets the resource's namespace, "
                            "labels and annotations from the execution";
  kf_status st;
  (void)c;
  if (j->ns && (st = kf_problem_add(out, r, t, "namespace", e, "'%.100s' is %s",
                                    j->ns, why)) != KF_OK)
    return st;
  if (j->labels && (st = kf_problem_add(out, r, t, "labels", e, "%s", why)) != KF_OK)
    return st;
  if (j->annotations)
    return kf_problem_add(out, r, t, "annotations", e, "%s", why);
  return KF_OK;
}

/* R49: a Trainer runtime means nothing to the other targets.  The one
** Trainer ships for the kind (torch-distributed, what the kind means
** there; a TrainJob read back names it to keep its command as written)
** carries nothing the training-operator's PyTorchJob lacks: it runs the
** command as written too.  Flyte 2's clustered task starts it under
** torchrun, so there it stays an error. */
static kf_status test_runtime(const kf_job *j, kf_target t,
                              const kf_target_ctx *c, const kf_target_rule *r,
                              kf_problems *out, kf_err *e) {
  (void)c;
  if (j->runtime == NULL) return KF_OK;
  if (t != KF_T_CLUSTERED && kf_kinds[j->kind].trainer_runtime &&
      strcmp(j->runtime, kf_kinds[j->kind].trainer_runtime) == 0)
    return KF_OK;
  return kf_problem_add(out, r, t, "runtime", e, "'%.100s' is a Kubeflow Trainer "
                        "runtime: only a TrainJob (--target trainer-2.3) runs on one (%s)",
                        j->runtime, t == KF_T_CLUSTERED ? "a clustered task starts the "
                        "command under torchrun" : "it may set an image, command or env the "
                        "job does not show; a job on the kind's runtime, or none, runs here");
}

/* R50: a PyTorchJob's processes per pod: no field in Flyte's plugin
** message; on Trainer an int32, "auto" leaving it unset. */
static kf_status test_pt_nproc(const kf_job *j, kf_target t,
                               const kf_target_ctx *c, const kf_target_rule *r,
                               kf_problems *out, kf_err *e) {
  const char *w = j->nproc_word;
  (void)c;
  if (w == NULL && j->nproc_per_node == 0) return KF_OK;
  if (t == KF_T_FLYTE || t == KF_T_FLYTE2)
    return kf_problem_add(out, r, t, "nproc_per_node", e, "the PyTorch plugin message "
                          "has no processes per pod outside an elastic job (make it "
                          "kfjob.Elastic, or leave it unset)");
  if (w == NULL || strcmp(w, "auto") == 0) return KF_OK;
  return kf_problem_add(out, r, t, "nproc_per_node", e, "'%s' cannot be expressed: "
                        "TrainJob numProcPerNode is an int32 (\"auto\" leaves it unset)", w);
}

/* R51: the main container's name.  The mpi-operator and a v1 MPIJob run
** containers[0] whatever its name; the training-operator's webhooks
** require the kind's, Flyte and Trainer name it themselves. */
static kf_status test_container_name(const kf_job *j, kf_target t,
                                     const kf_target_ctx *c, const kf_target_rule *r,
                                     kf_problems *out, kf_err *e) {
  const char *want = kf_kinds[j->kind].container;
  char path[64];
  int i;
  kf_status st;
  (void)c;
  if (j->has_container && j->container.name && strcmp(j->container.name, want) != 0 &&
      (st = kf_problem_add(out, r, t, "container.name", e, "'%.60s': %s (rename it to "
                           "'%s', or leave it unset)", j->container.name,
                           r->source[t] ? r->source[t] : "not this target's", want)) != KF_OK)
    return st;
  for (i = 0; i < KF_NROLES; i++) {
    const kf_container *g = j->g[i].has_container ? &j->g[i].container : NULL;
    if (g == NULL || g->name == NULL || strcmp(g->name, want) == 0) continue;
    snprintf(path, sizeof path, "%s.container.name", kf_roles[i].key);
    if ((st = kf_problem_add(out, r, t, path, e, "'%.60s': %s (rename it to '%s', or "
                             "leave it unset)", g->name,
                             r->source[t] ? r->source[t] : "not this target's", want)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* R52: the mpi-operator's own fields (rows placed in KF_M_MPI_SPEC), set. */
static kf_status test_mpi_operator_fields(const kf_job *j, kf_target t,
                                          const kf_target_ctx *c, const kf_target_rule *r,
                                          kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  const char *base = (const char *)j;
  size_t i;
  kf_status st;
  (void)c;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    int set;
    /* a KF_F_PLACED row is R34's, by its place */
    if (f->place != KF_M_MPI_SPEC || (f->flags & KF_F_PLACED)) continue;
    set = f->type == KF_V_BOOL ? *(const int *)(const void *)(base + f->off) != 0
          : *(const char *const *)(const void *)(base + f->off) != NULL;
    if (set && (st = kf_problem_add(out, r, t, f->key, e, "an mpi-operator (kubeflow.org/"
                                    "v2beta1) field: only --target mpi-operator writes it "
                                    "(leave it unset)")) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* R53: a PyTorchJob of workers only: Flyte's backend always writes a
** Master (flytekit's PyTorch task has one). */
static kf_status test_no_master(const kf_job *j, kf_target t,
                                const kf_target_ctx *c, const kf_target_rule *r,
                                kf_problems *out, kf_err *e) {
  (void)c;
  if (j->g[KF_MASTER].replicas > 0) return KF_OK;
  return kf_problem_add(out, r, t, "master.replicas", e, "0 cannot be expressed: Flyte "
                        "always runs one Master (give the job a master, or use "
                        "--target operator)");
}

/* R54: an elastic policy's operator-only fields. */
static kf_status test_elastic_extra(const kf_job *j, kf_target t,
                                    const kf_target_ctx *c, const kf_target_rule *r,
                                    kf_problems *out, kf_err *e) {
  static const char why[] = "the operator's elasticPolicy field: only --target operator "
                            "writes it (leave it unset)";
  kf_status st;
  (void)c;
  if (j->rdzv_host && (st = kf_problem_add(out, r, t, "rdzv_host", e, why)) != KF_OK) return st;
  if (j->rdzv_port && (st = kf_problem_add(out, r, t, "rdzv_port", e, why)) != KF_OK) return st;
  if (j->rdzv_id && (st = kf_problem_add(out, r, t, "rdzv_id", e, why)) != KF_OK) return st;
  if (j->standalone && (st = kf_problem_add(out, r, t, "standalone", e, why)) != KF_OK) return st;
  if (j->rdzv_conf && (st = kf_problem_add(out, r, t, "rdzv_conf", e, why)) != KF_OK) return st;
  if (j->metrics) return kf_problem_add(out, r, t, "metrics", e, why);
  return KF_OK;
}

/* R56: an extended resource where the target's Resources cannot carry it,
** each a problem at its first name (`role` NULL: the task's; the path is
** made only for a map that has one: this runs on every job emitted). */
static kf_status ext_problem(const kf_node *m, const char *role, const char *which,
                             kf_target t, const kf_target_rule *r, kf_problems *out,
                             kf_err *e) {
  char at[40], path[300];
  if (m == NULL || m->u.c.n == 0) return KF_OK;
  snprintf(at, sizeof at, "%s%s%s", role ? role : "", role ? "." : "", which);
  kf_key_path(path, sizeof path, at, m->u.c.k[0]);
  return kf_problem_add(out, r, t, path, e, "the plugin's Resources cannot carry it: "
                        "flytekit's Resources has cpu, mem, gpu and ephemeral_storage "
                        "only, flyteidl's ResourceName CPU, GPU, MEMORY, STORAGE and "
                        "EPHEMERAL_STORAGE (use --target operator, mpi-operator or a "
                        "Trainer target)");
}

static kf_status test_ext_resources(const kf_job *j, kf_target t,
                                    const kf_target_ctx *c, const kf_target_rule *r,
                                    kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  kf_status st;
  (void)c;
  if ((st = ext_problem(j->requests_ext, NULL, "requests", t, r, out, e)) != KF_OK ||
      (st = ext_problem(j->limits_ext, NULL, "limits", t, r, out, e)) != KF_OK)
    return st;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    const char *role = kf_roles[k->roles[i].role].key;
    if ((st = ext_problem(g->requests_ext, role, "requests", t, r, out, e)) != KF_OK ||
        (st = ext_problem(g->limits_ext, role, "limits", t, r, out, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

#define FLYTE_PT "flyteplugins pytorch.go BuildResource"

const kf_target_rule kf_target_rules[] = {
  {"R1", K(KF_PYTORCH),
   {[KF_T_FLYTE] = WARN, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = NA, TRAINERS(OK)},
   {[KF_T_FLYTE] = FLYTE_PT " (flyte master, 588a619675)",
    [KF_T_FLYTE2] = FLYTE_PT " (flyte main): number of workers must be greater than 0",
    [KF_T_OPERATOR] = "pytorchjob_webhook.go validatePyTorchReplicaSpecs (Worker may be absent)",
    TRAINERS("TrainJob numNodes = 1 + workers")},
   test_workers, 0, 0},
  {"R3", K(KF_TFJOB),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK},
   {[KF_T_FLYTE] = "flyteplugins tensorflow.go BuildResource: number of workers "
                   "must be greater than 0",
    [KF_T_FLYTE2] = "flyteplugins tensorflow.go BuildResource (flyte main)",
    [KF_T_OPERATOR] = "tfjob_webhook.go validateTFReplicaSpecs (no count rule)"},
   test_workers, 0, 0},
  {"R4", K(KF_MPI) | K(KF_HOROVOD),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = ERR},
   {[KF_T_FLYTE] = "flyteplugins mpi.go BuildResource: number of workers must "
                   "be greater than 0",
    [KF_T_FLYTE2] = "flyteplugins mpi.go BuildResource (flyte main)",
    [KF_T_OPERATOR] = "controller.v1 ValidateV1MpiJobSpec (no worker count rule)",
    [KF_T_MPI_OPERATOR] = "mpi-operator validation.go validateWorkerReplicaSpec"},
   test_workers, 0, 0},
  {"R8", K(KF_TFJOB),
   {[KF_T_FLYTE] = WARN, [KF_T_FLYTE2] = WARN, [KF_T_OPERATOR] = WARN},
   {[KF_T_FLYTE] = "TensorFlow semantics (trainer#1091, trainer#894); no Flyte rule",
    [KF_T_FLYTE2] = "TensorFlow semantics (trainer#1091, trainer#894); no Flyte rule",
    [KF_T_OPERATOR] = "TensorFlow semantics (trainer#1091, trainer#894); "
                      "tfjob_webhook.go validateTFReplicaSpecs accepts it"},
   test_tf_one, 0, 0},
  {"R9", K(KF_ELASTIC),
   {[KF_T_FLYTE] = WARN, [KF_T_FLYTE2] = WARN, [KF_T_OPERATOR] = WARN},
   {[KF_T_FLYTE] = FLYTE_PT " (elasticPolicy passed unchecked)",
    [KF_T_FLYTE2] = FLYTE_PT " (flyte main, elasticPolicy passed unchecked)",
    [KF_T_OPERATOR] = "pytorchjobs CRD (no minimum), no webhook rule"},
   test_nnodes, 0, 0},
  {"R10", K(KF_ELASTIC),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = NA, TRAINERS(ERR)},
   {[KF_T_FLYTE] = "flyteidl plugins/kubeflow/pytorch.proto ElasticConfig."
                   "nproc_per_node int32 (C4)",
    [KF_T_FLYTE2] = "flyteidl2 plugins/kubeflow/pytorch.proto ElasticConfig."
                    "nproc_per_node int32 (C4)",
    [KF_T_OPERATOR] = "pytorchjob_types.go: spec.nprocPerNode (string)",
    TRAINERS("TrainJob trainer.numProcPerNode int32 (trainer#3239)")},
   test_nproc, 0, 0},
  {"R10", K(KF_ELASTIC),
   {[KF_T_FLYTE] = WARN, [KF_T_FLYTE2] = WARN, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = NA},
   {[KF_T_FLYTE] = FLYTE_PT " (ElasticConfig.nproc_per_node -> elasticPolicy."
                   "nProcPerNode, deprecated in pytorchjob_types.go)",
    [KF_T_FLYTE2] = FLYTE_PT " (flyte main; elasticPolicy.nProcPerNode, "
                    "deprecated in pytorchjob_types.go)",
    [KF_T_OPERATOR] = "pytorchjob_types.go: spec.nprocPerNode (string; "
                      "elasticPolicy.nProcPerNode deprecated, kfjob writes none)"},
   test_nproc_int, 0, 0},
  {"R17", K(KF_ELASTIC),
   {[KF_T_FLYTE] = WARN, [KF_T_FLYTE2] = WARN, [KF_T_OPERATOR] = WARN,
    TRAINERS(ERR)},
   {[KF_T_FLYTE] = "pytorch_types.go (PET_RDZV_BACKEND, not validated)",
    [KF_T_FLYTE2] = "pytorch_types.go (PET_RDZV_BACKEND, not validated)",
    [KF_T_OPERATOR] = "pytorch_types.go (PET_RDZV_BACKEND, not validated)",
    TRAINERS("torch plugin: static PET_MASTER_ADDR, no rendezvous setting")},
   test_rdzv, 0, 0},
  /* on the operator kfjob refuses what the webhooks of most kinds refuse,
  ** for every kind, and R15 too (Services would fail later) */
  {"R14", ~0u,
   {[KF_T_FLYTE] = NA, [KF_T_FLYTE2] = NA, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = ERR, TRAINERS(ERR)},
   {[KF_T_OPERATOR] = "training-operator webhooks (tfjob_webhook.go, "
                      "pytorchjob_webhook.go ...): validation.IsDNS1035Label",
    [KF_T_MPI_OPERATOR] = "mpi-operator validation.go validateMPIJobName",
    TRAINERS("trainjob CRD: metadata.name CEL rule (DNS-1035, at most 63)")},
   test_name, 1, 0},
  {"R15", ~0u,
   {[KF_T_FLYTE] = NA, [KF_T_FLYTE2] = NA, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = ERR, TRAINERS(WARN)},
   {[KF_T_OPERATOR] = "not checked by the webhook: pod and Service creation "
                      "fails later (trainer#1745, trainer#1101)",
    [KF_T_MPI_OPERATOR] = "mpi-operator validation.go validateMPIJobName "
                          "(<name>-worker-<N-1>; the launcher's pod name too)",
    TRAINERS("JobSet pod hostnames <name>-node-0-<i> (JobSet's own rules not read)")},
   test_pod_names, 1, 0},
  {"R33", (1u << KF_NKINDS) - 1,
   {[KF_T_FLYTE] = ERR},
   {[KF_T_FLYTE] = "flyteadmin pkg/manager/impl/validation/task_validator.go "
                   "validateK8sPod, validateResource (flyte v1.16.8)"},
   test_pod_resources, 0, 0},
  {"R33", (1u << KF_NKINDS) - 1,
   {[KF_T_FLYTE] = ERR},
   {[KF_T_FLYTE] = "flyteadmin pkg/manager/impl/validation/task_validator.go "
                   "validateTaskResources, requestedResourcesToQuantity, "
                   "validateResource (flyte v1.16.8)"},
   test_task_resources, 0, KF_SETS_TASK_RES},
  {"R35", ALL_KINDS,
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = OK, TRAINERS(ERR)},
   {[KF_T_FLYTE] = "flyteplugins common_operator.go ToReplicaSpecWithOverrides (every "
                   "replica from the task's one container); flyteidl plugins/common.proto "
                   "CommonReplicaSpec",
    [KF_T_FLYTE2] = "flyteplugins common_operator.go ToReplicaSpecWithOverrides (flyte "
                    "main); flyteidl2 plugins/common.proto CommonReplicaSpec",
    TRAINERS("trainer trainjob_types.go Trainer (one command, args and env for the "
             "torch runtime's one node job)")},
   test_group_container, 0, KF_SETS_GCONTAINER},
  {"R36", ALL_KINDS,
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = OK, TRAINERS(OK)},
   {[KF_T_FLYTE] = "flyteidl core/tasks.proto Container.env (repeated KeyValuePair)",
    [KF_T_FLYTE2] = "flyteidl2 core/tasks.proto Container.env (repeated KeyValuePair)"},
   test_env_from, 0, KF_SETS_CONTAINER | KF_SETS_GCONTAINER},
  {"R37", ALL_KINDS,
   {[KF_T_FLYTE] = WARN, [KF_T_FLYTE2] = WARN, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = OK, TRAINERS(OK)},
   {[KF_T_FLYTE] = "flytepropeller pkg/controller/nodes/task/k8s/plugin_manager.go "
                   "addObjectMetadata (namespace, labels, annotations from the execution)",
    [KF_T_FLYTE2] = "executor/pkg/plugin/k8s/plugin_manager.go addObjectMetadata "
                    "(flyte main)"},
   test_where, 0, 0},
  {"R49", K(KF_PYTORCH) | K(KF_ELASTIC),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = NA, [KF_T_CLUSTERED] = ERR, TRAINERS(OK)},
   {[KF_T_FLYTE] = "flyteidl plugins/kubeflow/pytorch.proto (no runtime)",
    [KF_T_FLYTE2] = "flyteidl2 plugins/kubeflow/pytorch.proto (no runtime)",
    [KF_T_OPERATOR] = "pytorchjob_types.go PyTorchJobSpec (no runtime)",
    TRAINERS("trainer trainjob_types.go RuntimeRef.Name")},
   test_runtime, 0, 0},
  {"R50", K(KF_PYTORCH),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = NA, TRAINERS(ERR)},
   {[KF_T_FLYTE] = "flyteidl plugins/kubeflow/pytorch.proto (nproc only in ElasticConfig)",
    [KF_T_FLYTE2] = "flyteidl2 plugins/kubeflow/pytorch.proto (nproc only in ElasticConfig)",
    [KF_T_OPERATOR] = "pytorchjob_types.go spec.nprocPerNode (string)",
    TRAINERS("trainer trainjob_types.go Trainer.NumProcPerNode *int32")},
   test_pt_nproc, 0, 0},
  {"R51", ALL_KINDS & ~(K(KF_MPI) | K(KF_HOROVOD)),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = NA, [KF_T_CLUSTERED] = ERR, TRAINERS(ERR)},
   {[KF_T_FLYTE] = "flyteplugins names the task container by the kind (common_operator.go)",
    [KF_T_FLYTE2] = "flyteplugins names the task container by the kind (flyte main)",
    [KF_T_OPERATOR] = "the training-operator's webhook requires a container of the kind's "
                      "name (tfjob_webhook.go, pytorchjob_webhook.go, ...)",
    [KF_T_CLUSTERED] = "flyte executor clustered/build.go names the task container",
    TRAINERS("the runtime's trainer container is `node` (trainer builder.go)")},
   test_container_name, 0, KF_SETS_CONTAINER | KF_SETS_GCONTAINER},
  {"R51", K(KF_MPI) | K(KF_HOROVOD),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = OK},
   {[KF_T_FLYTE] = "flyteplugins names the task container by the kind (mpi.go)",
    [KF_T_FLYTE2] = "flyteplugins names the task container by the kind (flyte main)",
    [KF_T_OPERATOR] = "mpijob_controller.go newWorker/newLauncher: Containers[0]",
    [KF_T_MPI_OPERATOR] = "mpi_job_controller.go newWorker/newLauncherPodTemplate: "
                          "Containers[0]"},
   test_container_name, 0, KF_SETS_CONTAINER | KF_SETS_GCONTAINER},
  {"R52", K(KF_MPI) | K(KF_HOROVOD),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = OK},
   {[KF_T_FLYTE] = "flyteidl plugins/kubeflow/mpi.proto (no such field)",
    [KF_T_FLYTE2] = "flyteidl2 plugins/kubeflow/mpi.proto (no such field)",
    [KF_T_OPERATOR] = "training-operator mpijob_types.go (kubeflow.org/v1 has no such field)",
    [KF_T_MPI_OPERATOR] = "mpi-operator v2beta1 mpi_job_types.go"},
   test_mpi_operator_fields, 0, 0},
  {"R53", K(KF_PYTORCH),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = NA, TRAINERS(OK)},
   {[KF_T_FLYTE] = FLYTE_PT " (master_replicas: one Master always)",
    [KF_T_FLYTE2] = FLYTE_PT " (flyte main; one Master always)",
    [KF_T_OPERATOR] = "pytorchjob_webhook.go validatePyTorchReplicaSpecs (Master optional); "
                      "envvar.go setPodEnv (no MASTER_ADDR, RANK, WORLD_SIZE without one)",
    TRAINERS("TrainJob numNodes = workers")},
   test_no_master, 0, 0},
  {"R54", K(KF_ELASTIC),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = NA, [KF_T_CLUSTERED] = ERR, TRAINERS(ERR)},
   {[KF_T_FLYTE] = "flyteidl plugins/kubeflow/pytorch.proto ElasticConfig (no such field)",
    [KF_T_FLYTE2] = "flyteidl2 plugins/kubeflow/pytorch.proto ElasticConfig (no such field)",
    [KF_T_OPERATOR] = "pytorchjob_types.go ElasticPolicy",
    TRAINERS("trainer#3235 (ElasticPolicy removed)")},
   test_elastic_extra, 0, 0},
  {"R56", ALL_KINDS,
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = OK,
    [KF_T_MPI_OPERATOR] = OK, [KF_T_CLUSTERED] = ERR, TRAINERS(OK)},
   {[KF_T_FLYTE] = "flytekit core/resources.py Resources (cpu, mem, gpu, ephemeral_storage); "
                   "flyteidl core/tasks.proto Resources.ResourceName",
    [KF_T_FLYTE2] = "flyteidl2 core/tasks.proto Resources.ResourceName (CPU, GPU, MEMORY, "
                    "STORAGE, EPHEMERAL_STORAGE)",
    [KF_T_OPERATOR] = "core/v1 ResourceRequirements (any resource name)",
    [KF_T_MPI_OPERATOR] = "core/v1 ResourceRequirements (any resource name)",
    [KF_T_CLUSTERED] = "flyteidl2 core/tasks.proto Resources.ResourceName (the task's "
                       "resources)",
    TRAINERS("trainer trainjob_types.go Trainer.ResourcesPerNode (core/v1 "
             "ResourceRequirements)")},
   test_ext_resources, 0, KF_SETS_EXT_RES},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

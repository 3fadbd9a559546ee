/*
** kf_target_rules_manifest.c - rules by target about what
** each target's resources can express: kinds, restart policies, images and
** resources that differ by group, run and elastic policy fields a resource
** lacks, pod template fields outside a TrainJob's PodSpecPatch, and the
** defects of what Flyte's backend submits (slots, accelerator).  Rows as in
** kf_target_rules.c.  R22 (per-group pod settings), R25 (managedBy) and R26
** (runtimePatches manager) cannot be violated by a kfjob job: its pod
** settings are job-wide and it sets neither field.
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kf_rules.h"
#include "kf_launcher.h"
#include "kf_pod.h"
#include "kf_rules_int.h"


/* R11: Flyte's v1 payload loses slots (mpi.go never reads it). */
static kf_status r11_slots(const kf_job *j, kf_target t, const kf_target_ctx *c,
                           const kf_target_rule *r, kf_problems *out, kf_err *e) {
  if (j->slots > 1 && !c->v0)   /* the v0 backend reads slots */
    ADD("slots", e, "Flyte's backend submits slotsPerWorker: 1 (it never reads "
        "the v1 slots field) while the launcher's -np is %lld = workers x %d "
        "slots: mpirun oversubscribes the hostfile",
        (long long)j->g[KF_WORKER].replicas * j->slots, (int)j->slots);
  return KF_OK;
}

/* R12 (C5): the accelerator's affinity and toleration need a GPU limit. */
static kf_status r12_accel(const kf_job *j, kf_target t, const kf_target_ctx *c,
                           const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c;
  if (j->has_accelerator && !kfm_gpu_limited(j))
    ADD("accelerator", e, "no group limits GPUs: %s applies the accelerator's "
        "node affinity and toleration only to pods with a GPU limit, so '%.100s' "
        "is dropped", KF_T_IS_TRAINER(t) ? "kfjob's runtime patch" :
        t == KF_T_FLYTE || t == KF_T_FLYTE2 ? "Flyte's backend" : "kfjob (as Flyte)",
        j->accel.device);
  return KF_OK;
}

/* R13: restart policies each target's resource can carry: the restart
** policy row's values_on (kf_schema.c). */
static kf_status r13_restart(const kf_job *j, kf_target t, const kf_target_ctx *c,
                             const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  const kf_field *f = kf_obj_row(&kf_group_obj, "restart_policy");
  int i;
  (void)c;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role, p = j->g[role].restart_policy;
    char path[48];
    if (j->g[role].replicas <= 0 || p == KF_RP_EXIT_CODE) continue;   /* its own row */
    if (kf_field_value_on(f, t, p)) continue;
    snprintf(path, sizeof path, "%s.%s", kf_roles[role].key, f->key);
    if (KF_T_IS_TRAINER(t))
      ADD(path, e, "'%s' cannot be expressed: a TrainJob has no restart policy "
          "(the runtime's JobSet failurePolicy decides); leave it unset or never",
          kf_restart_policy_enum.spell[p][0]);
    else
      ADD(path, e, "'%s' cannot be expressed: the mpi-operator accepts "
          "only Never and OnFailure", kf_restart_policy_enum.spell[p][0]);
  }
  return KF_OK;
}

/* R13, ExitCode: the training-operator's alone (common_types.go; pod.go
** SetRestartPolicy runs the pod with Never and the controller recreates it
** on an exit code >= 128, train_util.go IsRetryableExitCode). */
static kf_status r13_exit_code(const kf_job *j, kf_target t, const kf_target_ctx *c,
                               const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  (void)c;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    char path[48];
    if (j->g[role].restart_policy != KF_RP_EXIT_CODE) continue;
    /* the plugin message carries each of the kind's groups, a group of 0
    ** replicas too (its policy would go out as value 3); a manifest writes
    ** only the groups that run */
    if (j->g[role].replicas <= 0 && t != KF_T_FLYTE && t != KF_T_FLYTE2) continue;
    snprintf(path, sizeof path, "%s.restart_policy", kf_roles[role].key);
    if (t == KF_T_OPERATOR)   /* only MPIJob's row warns there */
      ADD(path, e, "'exit_code': a v1 MPIJob's controller never acts on it (the pod "
          "runs with Never)");
    else
      ADD(path, e, "'exit_code' cannot be expressed: %s", t == KF_T_MPI_OPERATOR
          ? "the mpi-operator accepts only Never and OnFailure"
          : KF_T_IS_TRAINER(t) ? "a TrainJob has no restart policy"
                       : "the plugin's RestartPolicy has no ExitCode");
  }
  return KF_OK;
}

/* R9 on Trainer: no elastic range (ElasticPolicy removed, trainer#3235). */
static kf_status r9_range(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c, (void)t;
  if (j->min_nodes != j->max_nodes)
    ADD("nnodes", e, "the range %d:%d cannot be expressed: a TrainJob has a fixed "
        "numNodes (no elastic policy); give min == max", (int)j->min_nodes,
        (int)j->max_nodes);
  return KF_OK;
}

/* R19 on Trainer: max_restarts has no field. */
static kf_status r19_restarts(const kf_job *j, kf_target t, const kf_target_ctx *c,
                              const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c, (void)t;
  if (j->max_restarts != 0)
    ADD("max_restarts", e, "%d is dropped: a TrainJob has no restart count",
        (int)j->max_restarts);
  return KF_OK;
}

/* R38 on Trainer v2.4: the CEL rules of trainer#3809 on what the TrainJob
** gets (numProcPerNode: an Elastic job's integer, else 1; numNodes: its
** count, or 1 + workers).  Construction keeps both in range today (the
** row names the release's rule where a check lists them). */
static kf_status r38_cel(const kf_job *j, kf_target t, const kf_target_ctx *c,
                         const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c, (void)t;
  if (!(kf_kinds[j->kind].flags & KF_K_ELASTIC)) return KF_OK;  /* 1, 1 + W */
  if (j->nproc_word == NULL && j->nproc_per_node < 1)
    ADD("nproc_per_node", e, "%d: Trainer v2.4's TrainJob takes numProcPerNode >= 1 (CEL)",
        (int)j->nproc_per_node);
  if (j->max_nodes < 0)
    ADD("nnodes", e, "%d: Trainer v2.4's TrainJob takes numNodes >= 0",
        (int)j->max_nodes);
  return KF_OK;
}

/* R20 on Trainer: only activeDeadlineSeconds maps. */
static kf_status r20_run_policy(const kf_job *j, kf_target t, const kf_target_ctx *c,
                                const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c, (void)t;
  if (!j->has_run_policy) return KF_OK;
  if (j->rp.clean_pod_policy != KF_CP_NONE)
    ADD("run_policy.clean_pod_policy", e, "'%s' is dropped: a TrainJob has no "
        "clean-pod policy", kf_clean_pod_policy_enum.spell[j->rp.clean_pod_policy][0]);
  if (j->rp.active_deadline_seconds == 0 && (j->rp.zero & KF_RPZ_DEADLINE))
    ADD("run_policy.active_deadline_seconds", e, "0 is dropped: a TrainJob's "
        "activeDeadlineSeconds is at least 1 (left out: no deadline)");
  /* a value given as 0 (no retries, delete at once) is dropped too */
  if (j->rp.ttl_seconds_after_finished != 0 || (j->rp.zero & KF_RPZ_TTL))
    ADD("run_policy.ttl_seconds_after_finished", e, "dropped: the TTL lives in "
        "the runtime's JobSet, which runtimePatches cannot reach");
  if (j->rp.backoff_limit != 0 || (j->rp.zero & KF_RPZ_BACKOFF))
    ADD("run_policy.backoff_limit", e, "dropped: a TrainJob has no backoff "
        "limit (the runtime's JobSet failurePolicy decides)");
  return KF_OK;
}

/* A group's image: its own, then the call's, then the job's container's. */
static const char *image_of(const kf_job *j, int role, const kf_target_ctx *c) {
  if (j->g[role].image) return j->g[role].image;
  return c && c->image ? c->image : j->container.image;
}

/* R21 on Trainer: master and workers are one `node` replicated job (a
** kind without a master, Elastic and JAXJob, has one group: nothing to
** compare); every difference is a problem of its own. */
static kf_status r21_groups(const kf_job *j, kf_target t, const kf_target_ctx *c,
                            const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const char *a = image_of(j, KF_MASTER, c), *b = image_of(j, KF_WORKER, c);
  kf_group ta, tb;
  const kf_group *ga, *gb;
  int i, side;
  (void)t;
  if (kf_trainer_role(j) != KF_MASTER || j->g[KF_WORKER].replicas <= 0) return KF_OK;
  if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
    ADD("worker.image", e, "differs from master's (%.100s vs %.100s): master and "
        "workers are one `node` job of a TrainJob, with one image",
        b ? b : "the task image", a ? a : "the task image");
  ga = kfm_task_resources(j, &j->g[KF_MASTER], &ta);
  gb = kfm_task_resources(j, &j->g[KF_WORKER], &tb);
  for (side = 0; side < 2; side++)
    for (i = 0; i < KF_NRES; i++) {
      const char *x = side ? ga->limits[i] : ga->requests[i];
      const char *y = side ? gb->limits[i] : gb->requests[i];
      if ((x == NULL) != (y == NULL) || (x && kfm_qty_cmp(x, y) != 0)) {
        char path[64];
        snprintf(path, sizeof path, "worker.%s.%s", side ? "limits" : "requests",
                 kf_resources_obj.f[i].key);
        ADD(path, e, "differs from master's (%s vs %s): a TrainJob has one "
            "resourcesPerNode for master and workers", y ? y : "unset",
            x ? x : "unset");
      }
    }
  for (side = 0; side < 2; side++) {   /* extended resources, as a whole */
    const kf_node *x = side ? ga->limits_ext : ga->requests_ext;
    const kf_node *y = side ? gb->limits_ext : gb->requests_ext;
    if ((x == NULL) != (y == NULL) || (x && !kf_tree_equal(x, y))) {
      char path[64];
      snprintf(path, sizeof path, "worker.%s.extended", side ? "limits" : "requests");
      ADD(path, e, "differs from master's: a TrainJob has one resourcesPerNode for "
          "master and workers");
      return KF_OK;
    }
  }
  return KF_OK;
}

/* R23 on Trainer: the PodSpecPatch lists' maxItems in both releases'
** trainer.kubeflow.org_trainjobs.yaml (shared memory adds one volume). */
static kf_status r23_limits(const kf_job *j, kf_target t, const kf_node *spec,
                            const kf_target_rule *r, kf_problems *out, kf_err *e) {
  static const struct { const char *key; size_t max; } lim[] = {
      {"tolerations", 128}, {"volumes", 128}, {"imagePullSecrets", 64},
      {"schedulingGates", 16}};
  size_t k;
  char path[64];
  for (k = 0; k < sizeof lim / sizeof lim[0]; k++) {
    const kf_node *v = kf_node_get(spec, lim[k].key);
    size_t n = v && v->t == KF_NARR ? v->u.c.n : 0;
    if (strcmp(lim[k].key, "volumes") == 0 && j->shared_memory) n++;
    if (n <= lim[k].max) continue;
    snprintf(path, sizeof path, "pod_template.spec.%s", lim[k].key);
    ADD(path, e, "%zu items: a TrainJob's runtime patch takes at most %zu "
        "(PodSpecPatch %s maxItems%s)", n, lim[k].max, lim[k].key,
        strcmp(lim[k].key, "volumes") == 0 && j->shared_memory
            ? ", the shared-memory volume included" : "");
  }
  return KF_OK;
}

/* R23: pod template fields a target cannot carry. */
static kf_status r23_pod(const kf_job *j, kf_target t, const kf_target_ctx *c,
                         const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_node *spec = kf_node_get(j->pod_template, "spec");
  size_t i;
  char path[160];
  (void)c;
  if (spec == NULL || spec->t != KF_NOBJ) return KF_OK;
  if (t == KF_T_MPI_OPERATOR) {   /* the operator adds these volumes itself */
    const kf_node *vs = kf_node_get(spec, "volumes");
    for (i = 0; vs && vs->t == KF_NARR && i < vs->u.c.n; i++) {
      const kf_node *nm = kf_node_get(vs->u.c.v[i], "name");
      if (nm && nm->t == KF_NSTR &&
          (strcmp(nm->u.s.p, "ssh-auth") == 0 || strcmp(nm->u.s.p, "mpi-job-config") == 0)) {
        snprintf(path, sizeof path, "pod_template.spec.volumes[%zu].name", i + 1);
        ADD(path, e, "'%s' is a volume the mpi-operator adds to every pod (two "
            "volumes of one name are invalid); rename it", nm->u.s.p);
      }
    }
    return KF_OK;
  }
  for (i = 0; i < spec->u.c.n; i++) {
    const char *k = spec->u.c.k[i];
    if (kf_str_listed(kfm_trainer_pod_patch[KF_T_TRAINER_TABLE(t)], k)) continue;
    snprintf(path, sizeof path, "pod_template.spec.%.100s", k);
    ADD(path, e, "cannot be expressed: a TrainJob's runtime patch (PodSpecPatch) "
        "has no such field%s", kf_str_listed(kfm_trainer_pod_patch[1], k)
                                   ? " before Trainer v2.3" : "");
  }
  {
    kf_status st = r23_limits(j, t, spec, r, out, e);
    if (st != KF_OK) return st;
  }
  return kf_trainer_containers_rule(j->pod_template, "pod_template", t, r, out, e);
}

kf_status kf_trainer_containers_rule(const kf_node *tmpl, const char *at,
                                     kf_target t, const kf_target_rule *r,
                                     kf_problems *out, kf_err *e) {
  const kf_node *spec = kf_node_get(tmpl, "spec"), *cs, *tp;
  size_t i, n = (size_t)-1;
  char path[200];
  if (kf_node_get(spec, "initContainers")) {
    snprintf(path, sizeof path, "%s.spec.initContainers", at);
    ADD(path, e, "cannot be expressed: a runtime "
        "patch may only change containers the runtime already has "
        "(torch-distributed has none)");
  }
  cs = kf_node_get(spec, "containers");
  tp = kf_pod_primary(tmpl, &n);
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++) {
    const kf_node *ct = cs->u.c.v[i];
    size_t x;
    if (!tp || i != n) {
      snprintf(path, sizeof path, "%s.spec.containers[%zu]", at, i + 1);
      ADD(path, e, "cannot be expressed: a runtime patch may only change "
          "containers the runtime already has (torch-distributed: node)");
      continue;
    }
    for (x = 0; ct->t == KF_NOBJ && x < ct->u.c.n; x++) {
      const char *k = ct->u.c.k[x];   /* env: the webhook refuses it on node */
      if (strcmp(k, "env") != 0 && kf_str_listed(kfm_trainer_container_patch[KF_T_TRAINER_TABLE(t)], k))
        continue;
      snprintf(path, sizeof path, "%s.spec.containers[%zu].%.60s", at, i + 1, k);
      ADD(path, e, "cannot be expressed: a runtime patch of the node container "
          "has only volumeMounts and securityContext%s", strcmp(k, "env") == 0
          ? " (give it in the job's container.env, which becomes spec.trainer.env)" : "");
    }
  }
  return KF_OK;
}

/* R24: the kinds each target runs. */
static kf_status r24_kind(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c;
  if (kf_targets[t].kinds & (1u << j->kind)) return KF_OK;
  if (KF_T_IS_TRAINER(t) && j->kind == KF_TFJOB)
    ADD("kind", e, "a TFJob cannot be expressed: Trainer v2 has no TensorFlow "
        "runtime and does not generate TF_CONFIG");
  else if (KF_T_IS_TRAINER(t))
    ADD("kind", e, "a %s cannot be expressed: no shipped runtime runs it (the "
        "MPI runtimes are DeepSpeed and MLX with their own images)",
        kf_kinds[j->kind].name);
  else
    ADD("kind", e, "a %s cannot be expressed: %s runs only %s", kf_kinds[j->kind].name,
        kf_targets[t].name, kf_targets[t].runs);
  return KF_OK;
}

/* The rows R34 looks at on each target, made once from the rows: those a
** target refuses (kf_field_not_on), and the placed group rows whose place
** is one for every group there (r34_shared).  R34 runs on every encode
** (Flyte's target), so it walks these few rows, not every row: a row a
** target carries costs its check nothing (issue 40's "no cost"). */
#define R34_CAP 64
typedef struct r34_list {
  unsigned char n, all;      /* all: more than R34_CAP, walk every row */
  unsigned char at[R34_CAP]; /* row indexes, in row order */
} r34_list;
enum { R34_GROUP, R34_SHARED, R34_RUN_POLICY, R34_CONTAINER, R34_NLISTS };
static r34_list r34_obj[KF_NTARGETS][R34_NLISTS], r34_kind[KF_NTARGETS][KF_NKINDS];
static pthread_once_t r34_once = PTHREAD_ONCE_INIT;

/* A group place's path under the replica spec starts with '.' or is empty
** (the replica spec itself, KF_M_REPLICA): one value per group there. */
static int r34_shared_row(const kf_field *f, kf_target t) {
  const char *at = kf_place_path(f->place, t);
  return (f->flags & KF_F_PLACED) && at != NULL && at[0] != '.' && at[0] != '\0';
}

static void r34_add(r34_list *l, size_t i) {
  if (l->n == R34_CAP || i > 255) l->all = 1;
  else l->at[l->n++] = (unsigned char)i;
}

static void r34_refused(r34_list *l, const kf_field *f, size_t n, kf_target t) {
  size_t i;
  for (i = 0; i < n; i++)
    if (kf_field_not_on(&f[i], t) != NULL) r34_add(l, i);
}

static void r34_init(void) {
  int t, k;
  size_t i;
  for (t = 0; t < KF_NTARGETS; t++) {
    r34_list *L = r34_obj[t];
    r34_refused(&L[R34_GROUP], kf_group_obj.f, kf_group_obj.n, (kf_target)t);
    r34_refused(&L[R34_RUN_POLICY], kf_run_policy_obj.f, kf_run_policy_obj.n, (kf_target)t);
    r34_refused(&L[R34_CONTAINER], kf_container_obj.f, kf_container_obj.n, (kf_target)t);
    for (i = 0; i < kf_group_obj.n; i++)
      if (r34_shared_row(&kf_group_obj.f[i], (kf_target)t)) r34_add(&L[R34_SHARED], i);
    for (k = 0; k < KF_NKINDS; k++)
      r34_refused(&r34_kind[t][k], kf_kinds[k].fields, kf_kinds[k].nfields, (kf_target)t);
  }
}

/* The rows of list l: how many, and the x-th (of the n rows at f). */
static size_t r34_n(const r34_list *l, size_t n) { return l->all ? n : l->n; }
static const kf_field *r34_row(const r34_list *l, const kf_field *f, size_t x) {
  return l->all ? &f[x] : &f[l->at[x]];
}

/* R34 of one object of the job (at base, its rows o, the refused ones in
** l): each given value the target has no place for, under prefix. */
static kf_status r34_object(const r34_list *l, const kf_obj *o, const void *base,
                            const char *prefix, kf_target t, const kf_target_rule *r,
                            kf_problems *out, kf_err *e) {
  size_t x;
  char path[64];
  for (x = 0; x < r34_n(l, o->n); x++) {
    const kf_field *f = r34_row(l, o->f, x);
    const char *why = kf_field_not_on(f, t);
    if (why == NULL || !kfm_value_given(f, base)) continue;
    snprintf(path, sizeof path, "%s.%s", prefix, f->key);
    ADD(path, e, "cannot be expressed: %s", why);
  }
  return KF_OK;
}

/* R34 of the job's rows (the run policy's under run_policy, the
** container's under container): a value given where the target has no
** place for it (kf_field_not_on). */
static kf_status r34_job_rows(const kf_job *j, kf_target t, const kf_target_rule *r,
                              kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  const r34_list *kl = &r34_kind[t][j->kind], *L = r34_obj[t];
  kf_status st;
  size_t x;
  for (x = 0; x < r34_n(kl, k->nfields); x++) {
    const kf_field *f = r34_row(kl, k->fields, x);
    const char *why = kf_field_not_on(f, t);
    if (why && kfm_value_given(f, j)) ADD(f->key, e, "cannot be expressed: %s", why);
  }
  if (j->has_run_policy &&
      (st = r34_object(&L[R34_RUN_POLICY], &kf_run_policy_obj, &j->rp, "run_policy", t, r,
                       out, e)) != KF_OK)
    return st;
  if (j->has_container &&
      (st = r34_object(&L[R34_CONTAINER], &kf_container_obj, &j->container, "container", t, r,
                       out, e)) != KF_OK)
    return st;
  return KF_OK;
}

/* R34 of a group row that goes only where its place is (KF_F_PLACED),
** on a target whose place is one for every group (its path not under a
** replica spec: a TrainJob's node job, a JobSet's one replicated job):
** every group present the first one's value. */
static kf_status r34_shared(const kf_job *j, kf_target t, const kf_target_rule *r,
                            kf_problems *out, kf_err *e) {
  const r34_list *l = &r34_obj[t][R34_SHARED];
  int roles[KF_NROLES], n, i;
  size_t x;
  char path[64];
  if (r34_n(l, kf_group_obj.n) == 0) return KF_OK;   /* most targets: no row */
  n = kfm_present_roles(j, roles);
  for (x = 0; x < r34_n(l, kf_group_obj.n); x++) {
    const kf_field *f = r34_row(l, kf_group_obj.f, x);
    const char *at = kf_place_path(f->place, t);
    if (!r34_shared_row(f, t)) continue;
    for (i = 1; i < n; i++) {
      if (kf_row_equal(f, &j->g[roles[0]], &j->g[roles[i]], j->kind)) continue;
      snprintf(path, sizeof path, "%s.%s", kf_roles[roles[i]].key, f->key);
      ADD(path, e, "cannot be expressed: differs from %s's, and %s is one for "
          "every group (give every group the same)", kf_roles[roles[0]].key, at);
    }
  }
  return KF_OK;
}

/* R34: a field a target's resources have no place for, as its row says
** (kf_field_not_on): a group's, then the job's.  A value given is
** refused. */
/* R59 for one table pair (`at`: "worker." or "" for the task's). */
static kf_status r59_pair(const char *const *rq, const char *const *lm, const char *at,
                          kf_target t, const kf_target_rule *r, kf_problems *out,
                          kf_err *e) {
  static const char *const side[2] = {"requests", "limits"};
  char path[64];
  int s;
  for (s = 0; s < 2; s++) {
    const char *g = s ? lm[KF_GPU] : rq[KF_GPU];
    if (g == NULL || kf_ext_res_whole(g)) continue;
    snprintf(path, sizeof path, "%s%s.gpu", at, side[s]);
    ADD(path, e, "'%.40s' is not a whole number: nvidia.com/gpu is an extended resource "
        "and the API server refuses the pods (must be an integer)", g);
  }
  return KF_OK;
}

/* R59: a GPU count that is not whole, which the API server refuses where
** kfjob's manifest goes to it as written (nvidia.com/gpu is an extended
** resource; a request above its limit is lowered to it as Flyte's
** backend does, kfm_group_resources, so that one is a warning). */
static kf_status r59_resources(const kf_job *j, kf_target t, const kf_target_ctx *c,
                               const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char at[32];
  int i;
  kf_status st;
  (void)c;
  if ((st = r59_pair(j->requests, j->limits, "", t, r, out, e)) != KF_OK) return st;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    snprintf(at, sizeof at, "%s.", kf_roles[k->roles[i].role].key);
    if ((st = r59_pair(g->requests, g->limits, at, t, r, out, e)) != KF_OK) return st;
  }
  return KF_OK;
}

static kf_status r34_rows(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const r34_list *l = &r34_obj[t][R34_GROUP];
  int roles[KF_NROLES], n = 0, i;
  size_t x;
  char path[64];
  kf_status st;
  (void)c;
  pthread_once(&r34_once, r34_init);
  /* the groups only when a row is refused (the roles are sorted for it) */
  if (r34_n(l, kf_group_obj.n) > 0) n = kfm_present_roles(j, roles);
  for (x = 0; x < r34_n(l, kf_group_obj.n); x++) {
    const kf_field *f = r34_row(l, kf_group_obj.f, x);
    const char *why = kf_field_not_on(f, t);
    for (i = 0; why && i < n; i++) {
      if (!kfm_row_given(f, &j->g[roles[i]])) continue;
      snprintf(path, sizeof path, "%s.%s", kf_roles[roles[i]].key, f->key);
      ADD(path, e, "cannot be expressed: %s", why);
    }
  }
  if ((st = r34_shared(j, t, r, out, e)) != KF_OK) return st;
  return r34_job_rows(j, t, r, out, e);
}

/* Severities in target order: flyte, flyte2, operator, mpi-operator,
** trainer-2.2, trainer-2.3, trainer-2.4.  The Trainer versions share a rule's severity
** and source (TRAINERS); rows of theirs alone (TRAINER_ROW, kf_rules_int.h)
** are n.a. (0) elsewhere. */
/* R34's upstream source is the field's: its row's not_on_why cites it,
** or its place's rule (KF_PLACES, a KF_F_PLACED row; Flyte's: the plugin
** message). */
#define R34_SOURCE "the field's row (kf_schema.c not_on, not_on_why) or its place's rule (KF_PLACES)"
#define R34_FLYTE "flyteidl plugins/common.proto CommonReplicaSpec; the field's row"

#define R59_SOURCE "kubernetes pkg/apis/core/validation/validation.go " \
  "ValidateResourceQuantityValue (an extended resource, nvidia.com/gpu, an integer)"

/* R62: an MPIJob whose launcher runs kfjob's line, flytekit's OpenMPI
** mpirun (kf_mpirun_flags) around the task's args: the launcher gives no
** command or args of its own and the job's command starts no MPI tool
** (kf_manifest_common.c kfm_role_args).  Intel MPI's and MPICH's mpirun
** (Hydra) take none of its OpenMPI flags; task args that start an MPI tool
** themselves run mpirun under mpirun. */
static kf_status r62_launcher(const kf_job *j, kf_target t, const kf_target_ctx *c,
                              const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_group *l = &j->g[KF_LAUNCHER];
  const kf_container *jc = j->has_container ? &j->container : NULL;
  const char *impl = j->mpi_implementation;
  (void)c;
  if (l->ncommand || (l->has_container && (l->container.ncommand || l->container.nargs)) ||
      (jc && kf_mpi_tool((const char *const *)jc->command, jc->ncommand)))
    return KF_OK;
  if (t == KF_T_MPI_OPERATOR && impl && strcmp(impl, "OpenMPI") != 0)
    ADD("mpi_implementation", e, "%s, and the launcher runs kfjob's mpirun line, flytekit's for "
        "OpenMPI (--allow-run-as-root, -x, -mca): %s's mpirun (Hydra) takes none of those "
        "flags; give the launcher its own line (launcher.command = {\"mpirun\", \"-n\", ...})",
        impl, impl);
  if (jc && kf_mpi_tool((const char *const *)jc->args, jc->nargs))
    ADD("container.args", e, "start %s, and kfjob's launcher line (flytekit's mpirun) goes "
        "before the task's args: mpirun would run %s; give the launcher its own line "
        "(launcher.command) instead", jc->args[0], jc->args[0]);
  return KF_OK;
}

const kf_target_rule kf_target_rules_manifest[] = {
  {"R11", K(KF_MPI) | K(KF_HOROVOD), {WARN, WARN, OK, OK, NA, NA, NA},
   {"flyteplugins mpi.go BuildResource (v1 slots never read)",
    "flyteplugins mpi.go BuildResource (v1 slots never read)", NULL, NULL, NULL, NULL},
   r11_slots, 1, 0},
  {"R12", ALL_KINDS, {WARN, WARN, WARN, WARN, WARN, WARN, WARN},
   {"flytek8s pod_helper.go ApplyGPUNodeSelectors",
    "flytek8s utils.go podRequiresAccelerator",
    "kfjob applies it like Flyte", "kfjob applies it like Flyte",
    TRAINERS("kfjob runtime patch")},
   r12_accel, 1, 0},
  {"R13", ALL_KINDS, {OK, OK, OK, ERR, ERR, ERR, ERR},
   {NULL, NULL, NULL, "mpi-operator validation.go validateReplicaSpec",
    TRAINERS("trainer trainjob_types.go (no restart policy field)")},
   r13_restart, 0, 0},
  {"R13", ALL_KINDS & ~(K(KF_MPI) | K(KF_HOROVOD)), {ERR, ERR, OK, NA, ERR, ERR, ERR, ERR},
   {"flyteidl plugins/common.proto RestartPolicy (Never, OnFailure, Always)",
    "flyteidl2 plugins/common.proto RestartPolicy (Never, OnFailure, Always)",
    "training-operator common_types.go RestartPolicyExitCode, pod.go SetRestartPolicy",
    NULL, TRAINERS("trainer trainjob_types.go (no restart policy field)")},
   r13_exit_code, 0, KF_SETS_EXIT_CODE},
  {"R13", K(KF_MPI) | K(KF_HOROVOD), {ERR, ERR, WARN, ERR, NA, NA},
   {"flyteidl plugins/common.proto RestartPolicy (Never, OnFailure, Always)",
    "flyteidl2 plugins/common.proto RestartPolicy (Never, OnFailure, Always)",
    "training-operator mpijob_controller.go setRestartPolicy (ExitCode runs Never; "
    "the v1 MPI controller never restarts on it)",
    "mpi-operator validation.go validateReplicaSpec (Never, OnFailure)"},
   r13_exit_code, 0, KF_SETS_EXIT_CODE},
  TRAINER_ROW("R9", K(KF_ELASTIC), ERR, "trainer#3235 (ElasticPolicy removed)", r9_range),
  TRAINER_ROW("R19", K(KF_ELASTIC), WARN, "trainer trainjob_types.go (no field)",
              r19_restarts),
  TRAINER_ROW("R20", ALL_KINDS, WARN,
              "trainer trainjob_types.go (only activeDeadlineSeconds)", r20_run_policy),
  {"R38", K(KF_PYTORCH) | K(KF_ELASTIC), {[KF_T_TRAINER_24] = ERR},
   {[KF_T_TRAINER_24] = "trainer trainjob_types.go Trainer.numProcPerNode CEL self >= 1, "
                        "numNodes Minimum 0 (trainer#3809, in v2.4.0)"},
   r38_cel, 0, 0},
  {"R21", K(KF_PYTORCH) | K(KF_XGBOOST), {OK, OK, OK, NA, ERR, ERR, ERR},
   {NULL, NULL, NULL, NULL,
    TRAINERS("trainer torch-distributed and xgboost-distributed runtimes (one node job; ContainerPatch has no image)")},
   r21_groups, 0, 0},
  {"R23", ALL_KINDS, {OK, OK, OK, ERR, ERR, ERR, ERR},
   {NULL, NULL, NULL, "mpi-operator mpi_job_controller.go (adds ssh-auth, mpi-job-config volumes; inferred)",
    TRAINERS("trainer trainingruntime_types.go PodSpecPatch")},
   r23_pod, 0, 0},
  {"R24", ALL_KINDS, {ERR, ERR, OK, ERR, ERR, ERR, ERR, ERR},
   {"flyteplugins kfoperators (tensorflow, pytorch, mpi task types only)",
    "flyteplugins kfoperators (tensorflow, pytorch, mpi task types only)",
    NULL, "mpi-operator v2beta1 (MPIJob only)",
    TRAINERS("trainer manifests/base/runtimes (no TF runtime, no generic MPI runtime; "
             "TensorFlow deprioritized: trainer#2699)"),
    [KF_T_CLUSTERED] = "flyte-sdk ClusteredTaskEnvironment (TorchRun: one replicated job "
                       "of one container)"},
   r24_kind, 0, 0},
  {"R34", ALL_KINDS, {ERR, ERR, ERR, ERR, ERR, ERR, ERR, ERR},
   {R34_FLYTE, R34_FLYTE, R34_SOURCE, R34_SOURCE, TRAINERS(R34_SOURCE),
    [KF_T_CLUSTERED] = R34_SOURCE},
   r34_rows, 0, 0},
  {"R59", ALL_KINDS, {OK, OK, ERR, ERR, TRAINERS(ERR)},
   {NULL, NULL, R59_SOURCE, R59_SOURCE, TRAINERS(R59_SOURCE)},
   r59_resources, 0, 0},
  {"R62", K(KF_MPI), {WARN, WARN, WARN, WARN, NA, NA, NA},
   {"flytekitplugins-kfmpi _get_mpi_launcher_command (the task's args after mpirun's)",
    "flytekitplugins-kfmpi _get_mpi_launcher_command (the task's args after mpirun's)",
    "flytekitplugins-kfmpi _get_mpi_launcher_command (the task's args after mpirun's)",
    "mpi-operator examples/v2beta1/pi/pi-intel.yaml, pi-mpich.yaml (the launcher's own "
    "mpirun line); flytekitplugins-kfmpi _get_mpi_launcher_command (OpenMPI's flags)",
    NULL, NULL, NULL},
   r62_launcher, 0, 0},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

/*
** kf_target_rules_sched.c - the scheduling rules that differ by target
** (SPEC §13, R28-R32 beside FACTS §8.5's R1-R26), one row each: kinds,
** severity and source per target, and a test.  R27 (names, ranges, one
** topology mode) holds on every target and stays at construction
** (kf_sched.c and the rows of kf_schema.c).
*/
#include <stdio.h>
#include <string.h>

#include "kf_rules.h"
#include "kf_sched.h"
#include "kf_rules_int.h"


static const kf_gang *gang_of(const kf_job *j) {
  return j->has_scheduling && j->sched.has_gang ? &j->sched.gang : NULL;
}

/* R28 (errors): a gang larger than the job never starts; on Trainer the
** runtime sizes the gang and the TrainJob has no field for the rest. */
static kf_status r28_gang(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_gang *g = gang_of(j);
  (void)c;
  if (g == NULL) return KF_OK;
  if (KF_T_IS_TRAINER(t)) {
    static const char *const why = "cannot be expressed: the runtime's "
        "podGroupPolicy decides it (a TrainJob and its v2.2/v2.3 runtime "
        "patches have no field for it)";
    if (g->min_available > 0)
      ADD("scheduling.gang.min_available", e, "%s; every pod of the job is "
          "one gang", why);
    if (g->priority_class)
      ADD("scheduling.gang.priority_class", e, "%s; set priorityClassName in "
          "the pod template", why);
    if (g->schedule_timeout_seconds > 0)
      ADD("scheduling.gang.schedule_timeout_seconds", e, "%s", why);
    if (g->has_min_resources)
      ADD("scheduling.gang.min_resources", e, "%s", why);
    return KF_OK;
  }
  if (g->min_available > kf_sched_pod_count(j, t))
    ADD("scheduling.gang.min_available", e, "%d is above the job's %lld pods: "
        "its PodGroup can never start", (int)g->min_available,
        (long long)kf_sched_pod_count(j, t));
  return KF_OK;
}

/* R28 (warning): a smaller gang may start a job that cannot resize. */
static kf_status r28_partial(const kf_job *j, kf_target t, const kf_target_ctx *c,
                             const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_gang *g = gang_of(j);
  (void)c;
  if (g == NULL || g->min_available <= 0 || kf_sched_elastic(j) ||
      g->min_available >= kf_sched_pod_count(j, t))
    return KF_OK;
  ADD("scheduling.gang.min_available", e, "%d is below the job's %lld pods: "
      "the job may start with only part of them, and it is not elastic",
      (int)g->min_available, (long long)kf_sched_pod_count(j, t));
  return KF_OK;
}

/* R29: what the named gang scheduler does not read. */
static kf_status r29_ignored(const kf_job *j, kf_target t, const kf_target_ctx *c,
                             const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_gang *g = gang_of(j);
  (void)c;
  if (g == NULL || g->scheduler == NULL) return KF_OK;
  if (strcmp(g->scheduler, "scheduler-plugins") == 0) {
    if (g->queue)
      ADD("scheduling.gang.queue", e, "ignored by scheduler-plugins (a Volcano "
          "queue)");
    if (g->priority_class && !KF_T_IS_TRAINER(t))
      ADD("scheduling.gang.priority_class", e, "ignored by scheduler-plugins "
          "(Volcano's PodGroup priority)");
  } else if (g->schedule_timeout_seconds > 0 && !KF_T_IS_TRAINER(t)) {
    ADD("scheduling.gang.schedule_timeout_seconds", e, "ignored by Volcano "
        "(scheduler-plugins' PodGroup timeout)");
  }
  return KF_OK;
}

/* R30: Flyte sets no labels, suspend, managedBy or schedulingPolicy from
** the task; Flyte 2 copies a PyTorchJob's pod template labels. */
static kf_status r30_flyte(const kf_job *j, kf_target t, const kf_target_ctx *c,
                           const kf_target_rule *r, kf_problems *out, kf_err *e) {
  static const char *const label_keys[3] = {"queue", "priority_class", "max_exec_time"};
  int labels_ok = t == KF_T_FLYTE2 && (j->kind == KF_PYTORCH || j->kind == KF_ELASTIC);
  const kf_sched *s = &j->sched;
  char path[64];
  int i;
  (void)c;
  if (!j->has_scheduling) return KF_OK;
  for (i = 0; i < 3 && !labels_ok; i++) {
    if (!(i == 0 ? s->queue != NULL : i == 1 ? s->priority_class != NULL
                                              : s->max_exec_time > 0))
      continue;
    snprintf(path, sizeof path, "scheduling.%s", label_keys[i]);
    ADD(path, e, "cannot travel in a TaskTemplate: %s sets no labels on the "
        "%s from the task; set the label %s as an execution label instead",
        t == KF_T_FLYTE ? "Flyte 1.x" : "Flyte 2 (but for a PyTorchJob)",
        kf_kinds[j->kind].crd_kind, kf_sched_obj.f[i].manifest);
  }
  if (s->suspend)
    ADD("scheduling.suspend", e, "cannot travel in a TaskTemplate: Flyte never "
        "sets runPolicy.suspend; suspend the job with Kueue (a queue's "
        "stopPolicy) instead");
  if (s->multikueue)
    ADD("scheduling.multikueue", e, "cannot travel in a TaskTemplate: Flyte "
        "never sets runPolicy.managedBy; run the job on a MultiKueue cluster "
        "from a manifest (target operator)");
  if (s->has_gang)
    ADD("scheduling.gang", e, "cannot travel in a TaskTemplate: Flyte never "
        "sets runPolicy.schedulingPolicy; set it on the operator's "
        "--gang-scheduler-name defaults or emit a manifest (target operator)");
  return KF_OK;
}

static int topo_same(const kf_group *a, const kf_group *b) {
  const kf_topology *x = &a->topology, *y = &b->topology;
  if (a->has_topology != b->has_topology) return 0;
#define SAME(s) ((x->s == NULL) == (y->s == NULL) && (!x->s || strcmp(x->s, y->s) == 0))
  return !a->has_topology ||
         (SAME(required) && SAME(preferred) && SAME(slice_required) && SAME(group) &&
          kf_tree_equal(x->slices, y->slices) &&
          x->unconstrained == y->unconstrained && x->slice_size == y->slice_size);
#undef SAME
}

/* R31: per-group pod settings.  Flyte's ReplicaSpec has none; a TrainJob
** patches its one `node` job, so every group's must be the same (R22), and
** only PodSpecPatch fields, containers as R23 allows them (the node
** container's ContainerPatch fields). */
static kf_status r31_groups(const kf_job *j, kf_target t, const kf_target_ctx *c,
                            const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  const kf_group *first = NULL;
  char path[128];
  kf_status st;
  int i;
  (void)c;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    const kf_group *g = &j->g[role];
    const char *key = kf_roles[role].key;
    if (!KF_T_IS_TRAINER(t)) {
      if (g->pod_template) {
        snprintf(path, sizeof path, "%s.pod_template", key);
        ADD(path, e, "cannot be expressed: the plugin's ReplicaSpec has no pod "
            "template (flytekit#2183); use the job's pod_template");
      }
      if (g->has_topology) {
        snprintf(path, sizeof path, "%s.topology", key);
        ADD(path, e, "cannot be expressed: the plugin's ReplicaSpec has no pod "
            "template; use scheduling.topology");
      }
      continue;
    }
    if (g->replicas <= 0 && !(k->flags & KF_K_ELASTIC)) continue;
    if (first == NULL) {
      first = g;
    } else {   /* each its own problem; topology first, the one emitting raised */
      if (!topo_same(first, g)) {
        snprintf(path, sizeof path, "%s.topology", key);
        ADD(path, e, "differs from the other group's: master and workers are one "
            "`node` job of a TrainJob, patched once");
      }
      if (!kf_tree_equal(first->pod_template, g->pod_template)) {
        snprintf(path, sizeof path, "%s.pod_template", key);
        ADD(path, e, "differs from the other group's: master and workers are one "
            "`node` job of a TrainJob, patched once");
      }
    }
    if (g->pod_template) {
      const kf_node *spec = kf_node_get(g->pod_template, "spec");
      size_t x;
      for (x = 0; spec && spec->t == KF_NOBJ && x < spec->u.c.n; x++) {
        const char *const *keys = kfm_trainer_pod_patch[KF_T_TRAINER_TABLE(t)];
        const char *sk = spec->u.c.k[x];
        int y, found = 0;
        for (y = 0; keys[y] && !found; y++) found = strcmp(keys[y], sk) == 0;
        if (found) continue;   /* the containers below, as R23's */
        snprintf(path, sizeof path, "%s.pod_template.spec.%.60s", key, sk);
        ADD(path, e, "cannot be expressed: a TrainJob's runtime patch "
            "(PodSpecPatch) has no such field");
      }
      snprintf(path, sizeof path, "%s.pod_template", key);
      if ((st = kf_trainer_containers_rule(g->pod_template, path, t, r, out, e)) != KF_OK)
        return st;
    }
  }
  return KF_OK;
}

/* R32: Kueue appends its own runtime patch under its manager name; ours
** must never take it (kueue#14886). */
static kf_status r32_manager(const kf_job *j, kf_target t, const kf_target_ctx *c,
                             const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)j, (void)c;
  if (strcmp(KF_TRAINER_PATCH_MANAGER, KF_KUEUE_MANAGER) != 0) return KF_OK;
  ADD("runtimePatches[1].manager", e, "'%s' is Kueue's own patch manager",
      KF_KUEUE_MANAGER);
  return KF_OK;
}

/* R39 (Kueue v0.19+): a queue on a kubeflow.org/v1 resource, which
** Kueue's default configuration no longer manages. */
static kf_status r39_v1_queue(const kf_job *j, kf_target t, const kf_target_ctx *c,
                              const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const char *kind = kf_kinds[j->kind].crd_kind;
  char lower[32];
  size_t i;
  (void)c;
  if (!j->has_scheduling || j->sched.queue == NULL) return KF_OK;
  for (i = 0; kind[i] && i + 1 < sizeof lower; i++)
    lower[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] - 'A' + 'a' : kind[i]);
  lower[i] = '\0';
  ADD("scheduling.queue", e, "Kueue's default configuration stopped managing "
      "kubeflow.org/v1 jobs in v0.19 (integrations.frameworks leaves out "
      "kubeflow.org/%s): the %s would run unqueued unless the cluster enables "
      "that integration; enable it, or convert to a TrainJob (target trainer-2.4)",
      lower, kind);
  (void)t;
  return KF_OK;
}

/* Targets whose job is one Kueue pod set: Trainer's node job, the clustered
** task's `workers` replicated job (one JobSet pod set). */
static int one_podset(kf_target t) {
  return KF_T_IS_TRAINER(t) || t == KF_T_CLUSTERED;
}

/* The pods of group `role` as one Kueue pod set on target t (0: none). */
static int64_t podset_pods(const kf_job *j, kf_target t, int role) {
  int32_t n = j->g[role].replicas;
  if (one_podset(t)) return kf_sched_pod_count(j, t);
  if (kf_kinds[j->kind].flags & KF_K_ELASTIC) return j->max_nodes;
  return n > 0 ? n : 0;
}

/* R40 (Kueue v0.20, tas_validation.go): a pod set's slice size is at most
** its pod count; a job-level topology annotates every pod set, so it must
** fit the smallest group it reaches. */
static kf_status r40_slice(const kf_job *j, kf_target t, const kf_target_ctx *c,
                           const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int32_t job = j->has_scheduling && j->sched.has_topology ? j->sched.topology.slice_size : 0;
  char path[96];
  int i;
  (void)c;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    const kf_group *g = &j->g[role];
    int own = g->has_topology && (g->topology.slice_size > 0 || g->topology.slices);
    const kf_topology *tp = own ? &g->topology : j->has_scheduling && j->sched.has_topology
                                                     ? &j->sched.topology : NULL;
    /* a slice size, or the widest of the slice constraints */
    const kf_node *first = tp && tp->slices ? kf_node_get(tp->slices->u.c.v[0], "size") : NULL;
    int32_t sz = first ? (int32_t)first->u.i : own ? g->topology.slice_size : job;
    const char *key = first ? "slices[1].size" : "slice_size";
    int64_t n = podset_pods(j, t, role);
    if (sz <= 0 || n <= 0 || sz <= n) continue;
    if (own) snprintf(path, sizeof path, "%s.topology.%s", kf_roles[role].key, key);
    else snprintf(path, sizeof path, "scheduling.topology.%s", key);
    ADD(path, e, "%d is above the %lld pod%s of %s's pod set: Kueue refuses a "
        "slice size greater than the pod set count", (int)sz, (long long)n,
        n == 1 ? "" : "s", KF_T_IS_TRAINER(t) ? "the node job"
        : t == KF_T_CLUSTERED ? "the workers job" : kf_roles[role].key);
    if (one_podset(t) || !own) break;   /* one message for the job's topology */
  }
  return KF_OK;
}

/* A group's podset-group-name on its pod template: its own, else the job's. */
static const char *group_name(const kf_job *j, const kf_group *g) {
  if (g->has_topology && g->topology.group) return g->topology.group;
  return j->has_scheduling && j->sched.has_topology ? j->sched.topology.group : NULL;
}

static int same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* R41's second half (kueue tas_validation.go topologyRequestsValid): the
** pod sets of one group ask for the same required and preferred level;
** named at the second group of the name (i: the first). */
static kf_status r41_levels(const kf_job *j, kf_target t, int i, const char *name,
                            kf_problems *out, const kf_target_rule *r, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_topology a = kf_sched_merged_topology(j, &j->g[k->roles[i].role]), b;
  char path[96];
  int x;
  for (x = i + 1; x < k->nroles; x++) {
    const char *o = group_name(j, &j->g[k->roles[x].role]);
    if (o == NULL || podset_pods(j, t, k->roles[x].role) <= 0 || strcmp(o, name) != 0)
      continue;
    b = kf_sched_merged_topology(j, &j->g[k->roles[x].role]);
    if (same_str(a.required, b.required) && same_str(a.preferred, b.preferred)) return KF_OK;
    snprintf(path, sizeof path, "%s.topology", kf_roles[k->roles[x].role].key);
    ADD(path, e, "%s %s'%s' but %s %s'%s' in pod set group '%s': Kueue takes one "
        "required or preferred level for a group's pod sets",
        kf_roles[k->roles[x].role].key, b.required ? "required " : "preferred ",
        b.required ? b.required : b.preferred ? b.preferred : "",
        kf_roles[k->roles[i].role].key, a.required ? "required " : "preferred ",
        a.required ? a.required : a.preferred ? a.preferred : "", name);
    return KF_OK;
  }
  return KF_OK;
}

/* R41 (kueue tas_validation.go): the pod sets of one podset-group-name are
** exactly two, one of them a single pod (a leader and its workers), asking
** for the same level. */
static kf_status r41_group(const kf_job *j, kf_target t, const kf_target_ctx *c,
                           const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i, x;
  (void)c;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    const char *name = group_name(j, g);
    int sets = 0, single = 0, first = 1;
    if (name == NULL || podset_pods(j, t, k->roles[i].role) <= 0) continue;
    for (x = 0; x < k->nroles; x++) {
      const char *o = group_name(j, &j->g[k->roles[x].role]);
      int64_t n = podset_pods(j, t, k->roles[x].role);
      if (o == NULL || n <= 0 || strcmp(o, name) != 0) continue;
      if (x < i) first = 0;
      sets++, single += n == 1;
    }
    if (one_podset(t)) sets = 1;   /* the node / workers job is one pod set */
    if (!first) continue;
    if (sets == 2 && single >= 1) {
      kf_status st = r41_levels(j, t, i, name, out, r, e);
      if (st != KF_OK) return st;
      continue;
    }
    if (g->has_topology && g->topology.group)
      snprintf(path, sizeof path, "%s.topology.group", kf_roles[k->roles[i].role].key);
    else
      snprintf(path, sizeof path, "scheduling.topology.group");
    ADD(path, e, "'%s' names %d pod set%s%s: Kueue takes a pod set group of exactly "
        "two pod sets, one of them a single pod", name, sets, sets == 1 ? "" : "s",
        sets == 2 ? " of more than one pod each" : "");
    if (one_podset(t)) break;
  }
  return KF_OK;
}

/* R25 for MultiKueue: the JAXJob controller ignores runPolicy.managedBy,
** so MultiKueue would run the job on the manager cluster. */
static kf_status r25_multikueue(const kf_job *j, kf_target t, const kf_target_ctx *c,
                                const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c;
  if (!j->has_scheduling || !j->sched.multikueue) return KF_OK;
  ADD("scheduling.multikueue", e, "a %s's controller ignores "
      "runPolicy.managedBy: MultiKueue would run it on the manager cluster",
      kf_kinds[j->kind].name);
  return KF_OK;
}

#define KUEUE_TAS "kueue pkg/controller/jobframework/tas_validation.go"

/* Severities in target order: flyte, flyte2, operator, mpi-operator,
** trainer-2.2, trainer-2.3, trainer-2.4. */
const kf_target_rule kf_target_rules_sched[] = {
  {"R25", K(KF_JAX), {NA, NA, ERR, NA, NA, NA, NA},
   {NULL, NULL, "training-operator jaxjob_controller.go (managedBy not honoured; "
    "kueue pkg/controller/jobs/kubeflow)", NULL, NULL, NULL},
   r25_multikueue, 0, 0},
  {"R28", ALL_KINDS, {NA, NA, ERR, ERR, ERR, ERR, ERR},
   {NULL, NULL,
    "training-operator common/job.go (PodGroup minMember; default Σ replicas); volcano#2930",
    "mpi-operator podgroup.go calculateMinAvailable (default workers + 1)",
    TRAINERS("trainer runtime/framework/plugins/{volcano,coscheduling} (all pods; no TrainJob field)")},
   r28_gang, 0, 0},
  {"R28", ALL_KINDS, {NA, NA, WARN, WARN, NA, NA, NA},
   {NULL, NULL, "training-operator common_types.go SchedulingPolicy.MinAvailable",
    "mpi-operator v2beta1 types.go SchedulingPolicy (\"make sure the application "
    "supports resizing\")", NULL, NULL},
   r28_partial, 0, 0},
  {"R29", ALL_KINDS, {NA, NA, WARN, WARN, WARN, WARN, WARN},
   {NULL, NULL, "training-operator control/podgroup_control.go (volcano, scheduler-plugins)",
    "mpi-operator podgroup.go (volcano, scheduler-plugins)",
    TRAINERS("trainer runtime/framework/plugins/volcano (queue annotation)")},
   r29_ignored, 0, 0},
  {"R30", KF_FLYTE_KINDS, {ERR, ERR, NA, NA, NA, NA, NA},
   {"flyteplugins kfoperators (no schedulingPolicy, suspend, managedBy); flyte#5677, flytekit#2694",
    "flyte pytorch.go 11dbc43bed (pod template metadata onto a PyTorchJob only), #7833",
    NULL, NULL, NULL, NULL},
   r30_flyte, 0, 0},
  {"R31", ALL_KINDS, {ERR, ERR, OK, OK, ERR, ERR, ERR},
   {"flyteidl kubeflow common.proto ReplicaSpec (no pod template); flytekit#2183, flyte#3308",
    "flyteidl kubeflow common.proto ReplicaSpec (no pod template); flytekit#2183, flyte#3308",
    NULL, NULL,
    TRAINERS("trainer trainjob_types.go RuntimePatch (one node job; R22)")},
   r31_groups, 0, KF_SETS_GPOD | KF_SETS_TOPOLOGY},
  {"R32", K(KF_PYTORCH) | K(KF_ELASTIC) | K(KF_JAX) | K(KF_XGBOOST), {NA, NA, NA, NA, ERR, ERR, ERR},
   {NULL, NULL, NULL, NULL,
    TRAINERS("kueue pkg/controller/jobs/trainjob (manager kueue.x-k8s.io/manager), kueue#14886")},
   r32_manager, 0, 0},
  {"R39", ALL_KINDS, {NA, NA, WARN, NA, NA, NA, NA},
   {NULL, NULL, "kueue charts/kueue/values.yaml integrations.frameworks (v0.19.0: "
    "kubeflow.org/v1 jobs commented out; kueue#12606, kueue#12620)"},
   r39_v1_queue, 0, 0},
  {"R40", ALL_KINDS, {ERR, ERR, ERR, ERR, ERR, ERR, ERR, [KF_T_CLUSTERED] = ERR},
   {"kueue pkg/controller/jobframework/tas_validation.go (podset-slice-size must not be "
    "greater than pod set count; stricter in v0.20.0)",
    "kueue pkg/controller/jobframework/tas_validation.go (podset-slice-size must not be "
    "greater than pod set count; stricter in v0.20.0)",
    "kueue pkg/controller/jobframework/tas_validation.go (podset-slice-size must not be "
    "greater than pod set count; stricter in v0.20.0)",
    "kueue pkg/controller/jobframework/tas_validation.go (podset-slice-size must not be "
    "greater than pod set count; stricter in v0.20.0)",
    TRAINERS("kueue pkg/controller/jobframework/tas_validation.go (the node job is one "
             "pod set; stricter in v0.20.0)"),
    [KF_T_CLUSTERED] = "kueue pkg/controller/jobframework/tas_validation.go (the JobSet's "
    "one replicated job 'workers' is one pod set, flyte clustered/build.go; stricter in v0.20.0)"},
   r40_slice, 0, KF_SETS_TOPOLOGY},
  {"R41", ALL_KINDS, {ERR, ERR, ERR, ERR, ERR, ERR, ERR, [KF_T_CLUSTERED] = ERR},
   {KUEUE_TAS " (podset-group-name: two pod sets, one of 1 replica)",
    KUEUE_TAS " (podset-group-name: two pod sets, one of 1 replica)",
    KUEUE_TAS " (podset-group-name: two pod sets, one of 1 replica)",
    KUEUE_TAS " (podset-group-name: two pod sets, one of 1 replica)",
    TRAINERS(KUEUE_TAS " (the node job is one pod set)"),
    [KF_T_CLUSTERED] = KUEUE_TAS " (the JobSet's one replicated job 'workers' is one pod "
    "set, flyte clustered/build.go)"},
   r41_group, 0, KF_SETS_TOPOLOGY},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

/*
** kf_target_rules_clustered.c - the rules of target flyte2-clustered (a
** Flyte 2 clustered task: flyteidl2 plugins/clustered.proto, flyte-sdk's
** ClusteredTaskEnvironment, the backend's JobSet) and R42, its two fields
** on every other target.  One row each: kinds, severity and source per
** target, and a test (SPEC §18, FACTS §12.1).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_launcher.h"
#include "kf_rules_int.h"

#define CL(s) [KF_T_CLUSTERED] = s
#define PT_EL (K(KF_PYTORCH) | K(KF_ELASTIC))
#define BUILD "flyte executor/pkg/plugin/clustered/build.go (flyte main 6fadb90d65)"
#define SDK "flyte-sdk src/flyte/clustered/_environment.py __post_init__"
/* JobSet's pods: <jobset>-workers-0-<index>-<5 random>; util.go bounds the
** name so that index 99999 fits in 63 (flyte#7683) */
#define POD_SUFFIX "-workers-0-99999-abcde"

static int elastic(const kf_job *j) {
  return (kf_kinds[j->kind].flags & KF_K_ELASTIC) != 0;
}

/* R42: interconnect and restart_on_host_maintenance exist only in a
** ClusteredTaskSpec. */
static kf_status r42_fields(const kf_job *j, kf_target t, const kf_target_ctx *c,
                            const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c;
  if (t == KF_T_CLUSTERED) return KF_OK;
  if (j->interconnect)
    ADD("interconnect", e, "'%s' cannot be expressed: only a Flyte 2 clustered task "
        "(target flyte2-clustered) has an interconnect", j->interconnect);
  if (j->restart_on_host_maintenance)
    ADD("restart_on_host_maintenance", e, "cannot be expressed: only a Flyte 2 "
        "clustered task (target flyte2-clustered) has a failure policy for host "
        "maintenance");
  return KF_OK;
}

/* The pods of the JobSet's one replicated job. */
static int64_t pods_of(const kf_job *j) {
  int64_t n = 0;
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  if (elastic(j)) return j->max_nodes;
  for (i = 0; i < k->nroles; i++)
    if (j->g[k->roles[i].role].replicas > 0) n += j->g[k->roles[i].role].replicas;
  return n;
}

/* R43: replicas 1..100000 and one count; nproc_per_node an integer >= 1. */
static kf_status r43_counts(const kf_job *j, kf_target t, const kf_target_ctx *c,
                            const kf_target_rule *r, kf_problems *out, kf_err *e) {
  int64_t n = pods_of(j);
  (void)c, (void)t;
  if (elastic(j) && !j->nnodes_int && j->min_nodes != j->max_nodes)
    ADD("nnodes", e, "the range \"%d:%d\" cannot be expressed: a clustered task "
        "has a fixed replicas count (give one number)", (int)j->min_nodes,
        (int)j->max_nodes);
  if (n < 1)
    ADD(elastic(j) ? "nnodes" : "worker.replicas", e, "replicas must be >= 1, got %lld",
        (long long)n);
  else if (n > 100000)
    ADD(elastic(j) ? "nnodes" : "worker.replicas", e, "replicas must be <= 100000, "
        "got %lld (master and workers are the JobSet's pods)", (long long)n);
  if (elastic(j) && j->nproc_word)
    ADD("nproc_per_node", e, "'%s' cannot be expressed: ClusteredTaskSpec."
        "nproc_per_node is an int32 >= 1 (give an integer)", j->nproc_word);
  return KF_OK;
}

/* The GPUs a pod gets: the task's limit, else its request (a group's
** resources are R48's). */
static const char *gpu_of(const kf_job *j) {
  return j->limits[KF_GPU] ? j->limits[KF_GPU] : j->requests[KF_GPU];
}

/* R44: the SDK refuses fewer GPUs than processes per node. */
static kf_status r44_gpus(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const char *g = gpu_of(j);
  char *end;
  long n;
  (void)c, (void)t;
  if (g == NULL || !elastic(j) || j->nproc_word) return KF_OK;
  n = strtol(g, &end, 10);
  if (*end != '\0' || n >= j->nproc_per_node) return KF_OK;
  ADD("nproc_per_node", e, "resources.gpu (%ld) must be >= nproc_per_node (%d)", n,
      (int)j->nproc_per_node);
  return KF_OK;
}

/* R45: the JobSet's pod names fit in 63 characters. */
static kf_status r45_name(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  size_t n;
  (void)j, (void)t;
  if (c == NULL || c->name == NULL) return KF_OK;
  if ((n = strlen(c->name) + strlen(POD_SUFFIX)) <= 63) return KF_OK;
  ADD("opts.name", e, "too long: pod name '%.60s%s' would have %zu characters (at "
      "most 63; a name of at most %zu)", c->name, POD_SUFFIX, n,
      63 - strlen(POD_SUFFIX));
  return KF_OK;
}

/* R46: the user's variables the backend overwrites (opts.env, the job's
** container.env). */
static kf_status r46_env(const kf_job *j, kf_target t, const kf_target_ctx *c,
                         const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_node *env = j->has_container ? j->container.env : NULL;
  char path[160];
  size_t i;
  (void)t;
  for (i = 0; c && c->env && i < c->env->n; i++) {
    if (!kf_clustered_backend_var(c->env->v[i].k)) continue;
    snprintf(path, sizeof path, "opts.env.%.100s", c->env->v[i].k);
    ADD(path, e, "is overwritten: the clustered plugin sets it on every pod");
  }
  for (i = 0; env && (env->t == KF_NOBJ || env->t == KF_NARR) && i < env->u.c.n; i++) {
    const char *k = env->t == KF_NOBJ ? env->u.c.k[i] : NULL;
    if (env->t == KF_NARR) {
      const kf_node *nm = kf_node_get(env->u.c.v[i], "name");
      k = nm && nm->t == KF_NSTR ? nm->u.s.p : NULL;
    }
    if (k == NULL || !kf_clustered_backend_var(k)) continue;
    if (env->t == KF_NARR) snprintf(path, sizeof path, "container.env[%zu]", i + 1);
    else snprintf(path, sizeof path, "container.env.%.100s", k);
    ADD(path, e, "%s is overwritten: the clustered plugin sets it on every pod", k);
  }
  return KF_OK;
}

/* R63: the backend runs the task's container as given, once a pod, with
** NNODES, NPROC_PER_NODE, RDZV_BACKEND and the JobSet's variables (no
** RANK or WORLD_SIZE); flyte-sdk's tasks run its `clustered` entrypoint,
** which starts torchrun.  A command that starts neither runs the program
** once a pod, not distributed. */
static kf_status r63_launcher(const kf_job *j, kf_target t, const kf_target_ctx *c,
                              const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_container *ct = j->has_container ? &j->container : NULL;
  const char *const *v;
  size_t n;
  (void)c;
  if (ct == NULL || (ct->ncommand == 0 && ct->nargs == 0)) return KF_OK;   /* the image's */
  v = (const char *const *)(ct->ncommand ? ct->command : ct->args);
  n = ct->ncommand ? ct->ncommand : ct->nargs;
  if (kf_starts_launcher(v, n) || (ct->ncommand == 0 && strcmp(v[0], "clustered") == 0))
    return KF_OK;
  ADD(ct->ncommand ? "container.command" : "container.args", e, "'%.60s' starts no launcher: "
      "a clustered task's pods run the container as written, once a pod, with NNODES and "
      "NPROC_PER_NODE but no RANK or WORLD_SIZE (flyte-sdk's tasks run its `clustered` "
      "entrypoint, which starts torchrun); start torchrun in the command", v[0]);
  return KF_OK;
}

/* R47: only TCP is implemented. */
static kf_status r47_interconnect(const kf_job *j, kf_target t, const kf_target_ctx *c,
                                  const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c, (void)t;
  if (j->interconnect == NULL || strcmp(j->interconnect, "tcp") == 0) return KF_OK;
  ADD("interconnect", e, "'%s' is not yet implemented by the backend: it falls back "
      "to TCP", j->interconnect);
  return KF_OK;
}

/* R48's scheduling part: each field the backend does not carry, at its own
** path (only topology reaches the pods). */
static kf_status r48_scheduling(const kf_job *j, kf_target t, const kf_target_rule *r,
                                kf_problems *out, kf_err *e) {
  const kf_sched *s = &j->sched;
  const char *set[6];
  static const char *const keys[6] = {"queue", "priority_class", "max_exec_time",
                                      "suspend", "multikueue", "gang"};
  char path[48];
  int i;
  if (!j->has_scheduling) return KF_OK;
  set[0] = s->queue, set[1] = s->priority_class, set[2] = s->max_exec_time > 0 ? "" : NULL;
  set[3] = s->suspend ? "" : NULL, set[4] = s->multikueue ? "" : NULL;
  set[5] = s->has_gang ? "" : NULL;
  for (i = 0; i < 6; i++) {
    if (set[i] == NULL) continue;
    snprintf(path, sizeof path, "scheduling.%s", keys[i]);
    ADD(path, e, "cannot travel in a clustered task: the backend sets no "
        "Kueue labels, suspend, managedBy or gang from the task (util.go: gang "
        "admission via Kueue is not yet wired); only topology reaches the pods");
  }
  return KF_OK;
}

/* R48: one replicated job of one container: no per-group settings, and a
** PyTorchJob's master and workers alike. */
static kf_status r48_groups(const kf_job *j, kf_target t, const kf_target_ctx *c,
                            const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i, x;
  (void)c, (void)t;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    const char *key = kf_roles[k->roles[i].role].key;
    if (g->pod_template || g->has_topology || g->has_container || g->image || g->ncommand) {
      snprintf(path, sizeof path, "%s.%s", key, g->pod_template ? "pod_template"
               : g->has_topology ? "topology" : g->has_container ? "container"
               : g->image ? "image" : "command");
      ADD(path, e, "cannot be expressed: a clustered task is one replicated job of "
          "the task's one container (use the job's)");
    }
    for (x = 0; x < KF_NRES; x++)
      if (g->requests[x] || g->limits[x]) {
        snprintf(path, sizeof path, "%s.%s", key, g->limits[x] ? "limits" : "requests");
        ADD(path, e, "cannot be expressed: every pod of a clustered task has the "
            "task's resources (use the job's requests and limits)");
        break;
      }
  }
  return r48_scheduling(j, t, r, out, e);
}

/* R13 on flyte2-clustered: a group's restart policy other than never (the
** backend runs every pod with Never; exit_code has its own R13 row). */
static kf_status r13_restart(const kf_job *j, kf_target t, const kf_target_ctx *c,
                             const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[48];
  int i;
  (void)c, (void)t;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (g->replicas <= 0 || g->restart_policy == KF_RP_NEVER ||
        g->restart_policy == KF_RP_EXIT_CODE)
      continue;
    snprintf(path, sizeof path, "%s.restart_policy", kf_roles[k->roles[i].role].key);
    ADD(path, e, "'%s' cannot be expressed: the backend runs every pod of a clustered "
        "task with restartPolicy Never (restarts are the whole JobSet's: "
        "run_policy.backoff_limit)", kf_restart_policy_enum.spell[g->restart_policy][0]);
  }
  return KF_OK;
}

/* R20 on flyte2-clustered: the run-policy fields a ClusteredTaskSpec has no
** place for (backoff_limit and the TTL map to its failure policy and TTL). */
static kf_status r20_run_policy(const kf_job *j, kf_target t, const kf_target_ctx *c,
                                const kf_target_rule *r, kf_problems *out, kf_err *e) {
  (void)c, (void)t;
  if (!j->has_run_policy) return KF_OK;
  if (j->rp.active_deadline_seconds != 0 || (j->rp.zero & KF_RPZ_DEADLINE))
    ADD("run_policy.active_deadline_seconds", e, "dropped: a clustered task has no "
        "deadline (the backend's JobSet and Job set no activeDeadlineSeconds)");
  if (j->rp.clean_pod_policy != KF_CP_NONE)
    ADD("run_policy.clean_pod_policy", e, "'%s' is dropped: a clustered task has no "
        "clean-pod policy (the JobSet keeps its pods until the TTL deletes it)",
        kf_clean_pod_policy_enum.spell[j->rp.clean_pod_policy][0]);
  return KF_OK;
}

const kf_target_rule kf_target_rules_clustered[] = {
  {"R42", PT_EL,
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = ERR, TRAINERS(ERR)},
   {[KF_T_FLYTE] = "flyteidl plugins/kubeflow/pytorch.proto (no such field)",
    [KF_T_FLYTE2] = "flyteidl2 plugins/kubeflow/pytorch.proto (no such field)",
    [KF_T_OPERATOR] = "training-operator pytorchjob_types.go (no such field)",
    [KF_T_MPI_OPERATOR] = "mpi-operator v2beta1 (no such field)",
    TRAINERS("trainer trainjob_types.go (no such field)")},
   r42_fields, 0, 0},
  {"R43", PT_EL, {CL(ERR)},
   {CL(BUILD " (replicas must be >= 1, <= 100000; nproc_per_node must be >= 1); "
       "flyteidl2 plugins/clustered.proto int32 fields")},
   r43_counts, 0, 0},
  {"R44", K(KF_ELASTIC), {CL(ERR)},
   {CL(SDK " (resources.gpu must be >= nproc_per_node)")}, r44_gpus, 0, 0},
  {"R45", PT_EL, {CL(ERR)},
   {CL("flyte executor/pkg/plugin/clustered/util.go (the JobSet name bounded for "
       "<jobset>-workers-0-99999-abcde, flyte#7683)")},
   r45_name, 0, 0},
  {"R46", PT_EL, {CL(WARN)},
   {CL("flyte executor/pkg/plugin/clustered/runtime_torch.go (NNODES, NPROC_PER_NODE, "
       "MASTER_PORT, RDZV_BACKEND, JOBSET_*, POD_NAMESPACE set over the user's)")},
   r46_env, 0, 0},
  {"R47", PT_EL, {CL(WARN)},
   {CL("flyte executor/pkg/plugin/clustered/interconnect.go (not yet implemented; "
       "falling back to TCP)")},
   r47_interconnect, 0, 0},
  {"R48", PT_EL, {CL(ERR)},
   {CL(BUILD " (one ReplicatedJob 'workers' of the task's pod)")}, r48_groups, 0, 0},
  {"R13", PT_EL, {CL(ERR)}, {CL(BUILD " (pod restartPolicy Never)")}, r13_restart, 0, 0},
  {"R63", PT_EL, {CL(WARN)},
   {CL(BUILD " (the task's container as given); flyte-sdk src/flyte/_bin/clustered.py "
       "(its entrypoint starts torchrun)")},
   r63_launcher, 0, 0},
  {"R20", PT_EL, {CL(WARN)},
   {CL("flyteidl2 plugins/clustered.proto ClusteredTaskSpec (failure_policy and the TTL "
       "only); " BUILD " (no activeDeadlineSeconds)")},
   r20_run_policy, 0, 0},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

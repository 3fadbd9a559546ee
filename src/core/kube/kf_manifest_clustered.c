/*
** kf_manifest_clustered.c - target flyte2-clustered: the JobSet
** jobset.x-k8s.io/v1alpha2 Flyte 2's clustered plugin builds for a
** clustered task (flyte executor/pkg/plugin/clustered build.go,
** runtime_torch.go, failure.go, util.go at 6fadb90d65; FACTS §12.1.4): one
** ReplicatedJob `workers` of replicas 1, an Indexed Job with parallelism =
** completions = the task's replicas and backoffLimit 0, pods restartPolicy
** Never with subdomain the JobSet's name, network.enableDNSHostnames,
** successPolicy.operator All, failurePolicy.maxRestarts only when > 0,
** ttlSecondsAfterFinished when set; the plugin's variables on the task
** container over the user's (NNODES, NPROC_PER_NODE, MASTER_PORT=29500,
** RDZV_BACKEND, JOBSET_MAX_RESTARTS; fieldRefs JOBSET_NAME,
** JOBSET_RESTART_ATTEMPT, POD_NAMESPACE); the annotations
** flyte.org/task-type and flyte.org/primary-container.  The JobSet
** controller's labels and the execution's are the backend's.
*/
#include <stdio.h>
#include <string.h>

#include "kf_manifest_int.h"

#define JOBSET_NAME_LABEL "jobset.sigs.k8s.io/jobset-name"
#define JOBSET_RESTART_LABEL "jobset.sigs.k8s.io/restart-attempt"

static int elastic_of(const kf_job *j) {
  return (kf_kinds[j->kind].flags & KF_K_ELASTIC) != 0;
}

/* The variable `name` in env list `env`, removed (the plugin's wins). */
static void drop_var(kf_node *env, const char *name) {
  size_t i, o = 0;
  for (i = 0; i < env->u.c.n; i++) {
    const kf_node *n = kf_node_get(env->u.c.v[i], "name");
    if (n && n->t == KF_NSTR && strcmp(n->u.s.p, name) == 0) continue;
    env->u.c.v[o++] = env->u.c.v[i];
  }
  env->u.c.n = o;
}

static int add_var(kf_arena *A, kf_node *env, const char *name, const char *value,
                   const char *field) {
  kf_node *v = kf_node_new(A, KF_NOBJ), *from, *ref;
  if (v == NULL || !kf_obj_str(A, v, "name", name)) return 0;
  drop_var(env, name);
  if (field == NULL) return kf_obj_str(A, v, "value", value) && kf_node_push(A, env, NULL, v);
  return (from = kf_obj_add(A, v, "valueFrom", KF_NOBJ)) != NULL &&
         (ref = kf_obj_add(A, from, "fieldRef", KF_NOBJ)) != NULL &&
         kf_obj_str(A, ref, "fieldPath", field) && kf_node_push(A, env, NULL, v);
}

/* runtime_torch.go: what every pod's task container gets. */
static kf_status plugin_env(mctx *c, const kf_job *j, int32_t replicas, kf_node *ct) {
  kf_arena *A = c->A;
  kf_node *env = (kf_node *)kf_node_get(ct, "env");
  char nn[16], np[16], mr[16];
  int c10d = elastic_of(j) && (!j->rdzv_backend || strcmp(j->rdzv_backend, "c10d") == 0);
  if (env == NULL) KF_OOM(c, env = kf_obj_add(A, ct, "env", KF_NARR));
  snprintf(nn, sizeof nn, "%d", (int)replicas);
  snprintf(np, sizeof np, "%d", elastic_of(j) && !j->nproc_word ? (int)j->nproc_per_node : 1);
  snprintf(mr, sizeof mr, "%d", j->has_run_policy ? (int)j->rp.backoff_limit : 0);
  KF_OOM(c, add_var(A, env, "NNODES", nn, NULL) && add_var(A, env, "NPROC_PER_NODE", np, NULL) &&
             add_var(A, env, "MASTER_PORT", "29500", NULL) &&
             add_var(A, env, "RDZV_BACKEND", c10d ? "c10d" : "static", NULL) &&
             add_var(A, env, "JOBSET_MAX_RESTARTS", mr, NULL) &&
             add_var(A, env, "JOBSET_NAME", NULL,
                     "metadata.labels['" JOBSET_NAME_LABEL "']") &&
             add_var(A, env, "JOBSET_RESTART_ATTEMPT", NULL,
                     "metadata.labels['" JOBSET_RESTART_LABEL "']") &&
             add_var(A, env, "POD_NAMESPACE", NULL, "metadata.namespace"));
  return KF_OK;
}

/* The pod template of the one replicated job: the replica spec kfjob
** writes for the group (pod settings, the task container), its pod
** restartPolicy Never and subdomain the JobSet's name. */
static kf_status pod_template(mctx *c, const kf_job *j, const kfm_shared *sh,
                              int32_t replicas, kf_node **out) {
  int role = elastic_of(j) ? KF_WORKER : KF_MASTER;
  kf_node *specs, *tmpl, *pod, *cs;
  kf_status st;
  KF_OOM(c, specs = kf_node_new(c->A, KF_NOBJ));
  if ((st = kfm_replica_spec(c, j, role, sh, specs)) != KF_OK) return st;
  tmpl = (kf_node *)kf_node_get(specs->u.c.v[0], "template");
  pod = tmpl ? (kf_node *)kf_node_get(tmpl, "spec") : NULL;
  cs = pod ? (kf_node *)kf_node_get(pod, "containers") : NULL;
  if (cs == NULL || cs->t != KF_NARR || cs->u.c.n == 0) return kf_nomem(c->e);
  if ((st = plugin_env(c, j, replicas, cs->u.c.v[0])) != KF_OK) return st;
  KF_OOM(c, kf_node_put(c->A, pod, "restartPolicy", kf_node_str(c->A, "Never", 5)));
  KF_OOM(c, kf_node_put(c->A, pod, "subdomain", kf_node_str(c->A, sh->o->name,
                                                          strlen(sh->o->name))));
  *out = tmpl;
  return KF_OK;
}

static int32_t replicas_of(const kf_job *j) {
  int64_t n = 0;
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  if (elastic_of(j)) return j->max_nodes;
  for (i = 0; i < k->nroles; i++)
    if (j->g[k->roles[i].role].replicas > 0) n += j->g[k->roles[i].role].replicas;
  return (int32_t)n;   /* R43: at most 100 000 */
}

kf_status kfm_clustered(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                        kf_node **out) {
  kf_arena *A = c->A;
  int32_t replicas = replicas_of(j);
  kfm_shared sh;
  kf_node *spec, *rjs, *rj, *job, *jspec, *tmpl = NULL, *an, *x, *yes;
  kf_status st;
  if ((st = kfm_prepare(c, j, o, "jobset.x-k8s.io/v1alpha2", "JobSet", &sh)) != KF_OK)
    return st;
  an = (kf_node *)kf_node_get(sh.meta, "annotations");
  if (an == NULL) KF_OOM(c, an = kf_obj_add(A, sh.meta, "annotations", KF_NOBJ));
  KF_OOM(c, kf_node_put(A, an, "flyte.org/task-type", kf_node_str(A, "clustered-task", 14)));
  KF_OOM(c, kf_node_put(A, an, "flyte.org/primary-container",
                     kf_node_str(A, kf_kinds[j->kind].container, strlen(kf_kinds[j->kind].container))));
  KF_OOM(c, spec = kf_obj_add(A, sh.root, "spec", KF_NOBJ));
  KF_OOM(c, rjs = kf_obj_add(A, spec, "replicatedJobs", KF_NARR));
  KF_OOM(c, rj = kf_node_new(A, KF_NOBJ));
  KF_OOM(c, kf_node_push(A, rjs, NULL, rj));
  KF_OOM(c, kf_obj_str(A, rj, "name", "workers") && kf_obj_int(A, rj, "replicas", 1));
  KF_OOM(c, job = kf_obj_add(A, rj, "template", KF_NOBJ));
  KF_OOM(c, jspec = kf_obj_add(A, job, "spec", KF_NOBJ));
  KF_OOM(c, kf_obj_int(A, jspec, "parallelism", replicas) &&
             kf_obj_int(A, jspec, "completions", replicas) &&
             kf_obj_str(A, jspec, "completionMode", "Indexed") &&
             kf_obj_int(A, jspec, "backoffLimit", 0));
  if ((st = pod_template(c, j, &sh, replicas, &tmpl)) != KF_OK) return st;
  KF_OOM(c, kf_node_push(A, jspec, "template", tmpl));
  KF_OOM(c, x = kf_obj_add(A, spec, "network", KF_NOBJ));
  KF_OOM(c, yes = kf_node_new(A, KF_NBOOL));
  yes->u.b = 1;
  KF_OOM(c, kf_node_put(A, x, "enableDNSHostnames", yes));
  KF_OOM(c, x = kf_obj_add(A, spec, "successPolicy", KF_NOBJ));
  KF_OOM(c, kf_obj_str(A, x, "operator", "All"));
  if (j->has_run_policy && j->rp.backoff_limit > 0) {
    KF_OOM(c, x = kf_obj_add(A, spec, "failurePolicy", KF_NOBJ));
    KF_OOM(c, kf_obj_int(A, x, "maxRestarts", j->rp.backoff_limit));
  }
  if (j->has_run_policy &&
      (j->rp.ttl_seconds_after_finished > 0 || (j->rp.zero & KF_RPZ_TTL)))
    KF_OOM(c, kf_obj_int(A, spec, "ttlSecondsAfterFinished", j->rp.ttl_seconds_after_finished));
  *out = sh.root;
  return KF_OK;
}

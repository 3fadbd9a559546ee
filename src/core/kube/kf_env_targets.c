/*
** kf_env_targets.c - the environment on the targets with one generator
** each: the mpi-operator's MPIJob v2beta1, Trainer's torch runtime and
** Flyte 2 clustered tasks (FACTS §8.2.4, §8.2.5).  Builders: kf_env.c.
*/
#include <string.h>

#include "kf_env_int.h"
#include "kf_manifest_int.h"

/* ---- mpi-operator v0.8, MPIJob v2beta1 (FACTS §8.2.4) ----------------- */

/* The ConfigMap's texts (newConfigMap, updateDiscoverHostsInConfigMap):
** with runLauncherAsWorker the launcher first; hostfile lines are
** "<host> slots=<s>" for OpenMPI, "<host>:<s>" for Intel and MPICH;
** discover_hosts.sh lists every worker sorted by name, without slots. */
static kf_status mpi_v2_files(ectx *c, int openmpi, const char **hostfile,
                              const char **discover) {
  const kf_job *j = c->j;
  int32_t s = j->slots, i, n = j->g[KF_WORKER].replicas;
  const char *svc = kfe_fmt(c, ".%s.%s.svc", c->name, c->ns);
  const char **hosts = svc ? kfe_sorted_workers(c, svc) : NULL;
  const char *line = openmpi ? "%s-%s%s slots=%d\n" : "%s-%s%s:%d\n";
  kf_buf b;
  NOMEM(c, hosts);
  kf_buf_init(&b, c->A->a);
  if (j->run_launcher_as_worker) kfe_addf(c, &b, line, c->name, "launcher", svc, (int)s);
  for (i = 0; i < n; i++) {
    const char *w = kfe_fmt(c, "worker-%d", (int)i);
    if (w == NULL) b.oom = 1;
    else kfe_addf(c, &b, line, c->name, w, svc, (int)s);
  }
  NOMEM(c, *hostfile = kfe_text_end(c, &b));
  kf_buf_init(&b, c->A->a);
  kf_buf_adds(&b, "#!/bin/sh\n");
  if (j->run_launcher_as_worker) kfe_addf(c, &b, "echo %s-launcher%s\n", c->name, svc);
  for (i = 0; i < n; i++) kfe_addf(c, &b, "echo %s\n", hosts[i]);
  NOMEM(c, *discover = kfe_text_end(c, &b));
  return KF_OK;
}

/* newLauncherPodTemplate: K_MPI_JOB_ROLE, the implementation's variables
** (mpiImplementation, OpenMPI when unset), then, unless the launcher also
** runs a worker (runLauncherAsWorker), the NVIDIA_* blanking; newWorker:
** K_MPI_JOB_ROLE on every worker. */
kf_status kfe_mpi_v2_env(ectx *c) {
  const kf_job *j = c->j;
  const char *impl = j->mpi_implementation ? j->mpi_implementation : "OpenMPI";
  const int openmpi = strcmp(impl, "OpenMPI") == 0, intel = strcmp(impl, "Intel") == 0;
  int32_t s = j->slots, i, n = j->g[KF_WORKER].replicas;
  const char *hostfile = NULL, *discover = NULL;
  kf_env_pod *p;
  kf_status st;
  if ((st = mpi_v2_files(c, openmpi, &hostfile, &discover)) != KF_OK) return st;
  NOMEM(c, p = kfe_user_pod(c, "launcher-0", KF_LAUNCHER));
  NOMEM(c, OP(c, p, "K_MPI_JOB_ROLE", "launcher"));
  if (openmpi) {
    NOMEM(c, OP(c, p, "OMPI_MCA_orte_keep_fqdn_hostnames", "true"));
    NOMEM(c, OP(c, p, "OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"));
    NOMEM(c, OP(c, p, "OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"));
    NOMEM(c, kfe_var_int(c, p, "OMPI_MCA_orte_set_default_slots", s));
  } else if (intel) {
    NOMEM(c, OP(c, p, "I_MPI_HYDRA_HOST_FILE", "/etc/mpi/hostfile"));
    NOMEM(c, OP(c, p, "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "-o ConnectionAttempts=10"));
    NOMEM(c, kfe_var_int(c, p, "I_MPI_PERHOST", s));
  } else {   /* MPICH: no slot variable */
    NOMEM(c, OP(c, p, "HYDRA_HOST_FILE", "/etc/mpi/hostfile"));
    NOMEM(c, OP(c, p, "HYDRA_LAUNCH_EXTRA_ARGS", "-o ConnectionAttempts=10"));
  }
  if (!j->run_launcher_as_worker) {
    NOMEM(c, OP(c, p, "NVIDIA_VISIBLE_DEVICES", ""));
    NOMEM(c, OP(c, p, "NVIDIA_DRIVER_CAPABILITIES", ""));
  }
  NOMEM(c, kfe_file_add(p, "/etc/mpi/hostfile", hostfile));
  NOMEM(c, kfe_file_add(p, "/etc/mpi/discover_hosts.sh", discover));
  for (i = 0; i < n; i++) {
    NOMEM(c, p = kfe_group_pod(c, KF_WORKER, i));
    NOMEM(c, OP(c, p, "K_MPI_JOB_ROLE", "worker"));
  }
  return KF_OK;
}

/* ---- Trainer v2.2 / v2.3, torch runtime (FACTS §8.2.5, §8.4.4) -------- */

/* Trainer's value for an unset numProcPerNode (nproc_per_node "auto"):
** "auto" when the nodes have a GPU, else the CPU count rounded up (the
** request, else the limit), at least 1 (FACTS §8.2.5). */
static const char *trainer_auto_nproc(ectx *c, const kf_group *g) {
  const char *cpu = g->requests[KF_CPU] ? g->requests[KF_CPU] : g->limits[KF_CPU];
  long double v;
  long long n;
  if ((g->limits[KF_GPU] && kfm_qty_value(g->limits[KF_GPU]) > 0) ||
      (g->requests[KF_GPU] && kfm_qty_value(g->requests[KF_GPU]) > 0))
    return "auto";
  v = cpu ? kfm_qty_value(cpu) : 0;
  n = (long long)v;
  if ((long double)n < v) n++;
  return kfe_fmt(c, "%lld", n < 1 ? 1LL : n);
}

/* The operator's variables of pod p, added after the user's, moved before
** them: the JAX and XGBoost plugins append the TrainJob's env after their
** own (FACTS §11.6.3), so a user's variable of the same name wins, and
** takes the plugin's place (apply.go upsert replaces an entry of the same
** name in place); the plugin's stays, yielded, where the user's was. */
static void plugin_first(kf_env_pod *p, size_t nuser, int user_wins) {
  size_t i, k, nop = p->n - nuser;
  for (i = 0; i < nop; i++) {   /* rotate p->v[nuser..] to the front */
    kf_env_var v = p->v[nuser + i];
    for (k = nuser + i; k > i; k--) p->v[k] = p->v[k - 1];
    if (user_wins && kfe_user_var(p, v.name)) v.origin = KF_ENV_YIELDED;
    p->v[i] = v;
  }
  for (i = 0; i < nop; i++)
    for (k = nop; p->v[i].origin == KF_ENV_YIELDED && k < p->n; k++)
      if (p->v[k].origin == KF_ENV_USER && strcmp(p->v[k].name, p->v[i].name) == 0) {
        kf_env_var v = p->v[i];
        p->v[i] = p->v[k], p->v[k] = v;
      }
}

/* Trainer's jax-distributed and xgboost-distributed runtimes (jax.go,
** xgboost.go EnforceMLPolicy; FACTS §11.6): one `node` pod a node. */
static kf_status plugin_env(ectx *c) {
  const kf_job *j = c->j;
  const int jax = j->kind == KF_JAX, role = kf_trainer_role(j);
  int32_t nodes = (int32_t)kf_trainer_nodes(j), i;   /* kf_env_pods_of bounds it */
  const kf_node *index = kfe_field_ref(c, "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  const char *node0 = kfe_fmt(c, "%s-node-0-0.%s", c->name, c->name);
  long double gpus = 0;
  kf_group tmp;
  const kf_group *g = kfm_task_resources(j, &j->g[role], &tmp);
  NOMEM(c, index && node0);
  if (g->limits[KF_GPU]) gpus = kfm_qty_value(g->limits[KF_GPU]);
  else if (g->requests[KF_GPU]) gpus = kfm_qty_value(g->requests[KF_GPU]);
  for (i = 0; i < nodes; i++) {
    kf_env_pod *p = kfe_user_pod(c, kfe_fmt(c, "node-0-%d", (int)i), role);
    size_t nuser;
    NOMEM(c, p);
    nuser = p->n;
    if (jax) {
      NOMEM(c, kfe_var_int(c, p, "JAX_NUM_PROCESSES", nodes));
      NOMEM(c, kfe_var_add(c, p, "JAX_PROCESS_ID", NULL, index, KF_ENV_OPERATOR, NULL));
      NOMEM(c, OP(c, p, "JAX_COORDINATOR_ADDRESS", kfe_fmt(c, "%s:29500", node0)));
    } else {   /* workers a node: its GPUs, else 1 */
      NOMEM(c, OP(c, p, "DMLC_TRACKER_URI", node0));
      NOMEM(c, OP(c, p, "DMLC_TRACKER_PORT", "29500"));
      NOMEM(c, kfe_var_add(c, p, "DMLC_TASK_ID", NULL, index, KF_ENV_OPERATOR, NULL));
      NOMEM(c, OP(c, p, "DMLC_NUM_WORKER",
                  kfe_fmt(c, "%.0Lf", (long double)nodes * (gpus >= 1 ? gpus : 1))));
    }
    plugin_first(p, nuser, jax);   /* JAX's Validate reserves no names */
  }
  return KF_OK;
}

kf_status kfe_trainer_env(ectx *c) {
  const kf_job *j = c->j;
  int32_t nodes, nproc, i;
  const char *nproc_s = NULL;   /* a word's value, else nproc */
  if (j->runtime_trainer) {   /* no spec.trainer: no plugin injects a thing */
    NOMEM(c, kfe_user_pod(c, "node-0-0", kf_trainer_role(j)));
    return KF_OK;
  }
  if (j->kind == KF_JAX || j->kind == KF_XGBOOST) return plugin_env(c);
  /* the group whose container every node runs (the manifest's) */
  const int role = kf_trainer_role(j);
  if (j->kind == KF_ELASTIC) {
    if (j->min_nodes != j->max_nodes)
      return kf_fail(c->e, KF_EINVAL, "%s: nnodes: an elastic range %d:%d cannot "
                     "map to a TrainJob (fixed numNodes; R9) (target %s)", c->who,
                     (int)j->min_nodes, (int)j->max_nodes, kf_targets[c->t].name);
    nodes = j->max_nodes, nproc = j->nproc_per_node;
    if (j->nproc_word != NULL) {   /* only "auto" gets here (R10) */
      kf_group tmp;
      nproc_s = trainer_auto_nproc(c, kfm_task_resources(j, &j->g[KF_WORKER], &tmp));
      NOMEM(c, nproc_s);
    }
  } else {   /* node 0 plays the master; nproc_per_node as the writer's */
    kf_strs cmd = kfm_job_command(j, role);
    nodes = (int32_t)kf_trainer_nodes(j);
    nproc = j->nproc_per_node > 0 ? j->nproc_per_node : 1;
    if (j->nproc_word || (j->nproc_per_node == 0 && !kf_trainer_wraps(j, cmd.v, cmd.n))) {
      kf_group tmp;   /* unset: the runtime's auto */
      nproc_s = trainer_auto_nproc(c, kfm_task_resources(j, &j->g[role], &tmp));
      NOMEM(c, nproc_s);
    }
  }
  for (i = 0; i < nodes; i++) {
    kf_env_pod *p = kfe_user_pod(c, kfe_fmt(c, "node-0-%d", (int)i), role);
    NOMEM(c, p);
    NOMEM(c, kfe_var_int(c, p, "PET_NNODES", nodes));
    NOMEM(c, nproc_s ? OP(c, p, "PET_NPROC_PER_NODE", nproc_s)
                     : kfe_var_int(c, p, "PET_NPROC_PER_NODE", nproc));
    NOMEM(c, kfe_var_add(c, p, "PET_NODE_RANK", NULL,
                         kfe_field_ref(c, "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
                         KF_ENV_OPERATOR, NULL));
    NOMEM(c, OP(c, p, "PET_MASTER_ADDR", kfe_fmt(c, "%s-node-0-0.%s", c->name, c->name)));
    NOMEM(c, OP(c, p, "PET_MASTER_PORT", "29500"));
  }
  return KF_OK;
}

/* Flyte 2 clustered tasks (flyte clustered/runtime_torch.go): every pod
** workers-0-<i> of the JobSet gets the plugin's variables, which replace
** the user's of the same name. */
kf_status kfe_clustered_env(ectx *c) {
  const kf_job *j = c->j;
  const int elastic = j->kind == KF_ELASTIC, role = elastic ? KF_WORKER : KF_MASTER;
  int32_t nodes = elastic ? j->max_nodes : 1 + (j->g[KF_WORKER].replicas > 0
                                                    ? j->g[KF_WORKER].replicas : 0);
  int c10d = elastic && (!j->rdzv_backend || strcmp(j->rdzv_backend, "c10d") == 0);
  static const char *const names[] = {"NNODES", "NPROC_PER_NODE", "MASTER_PORT",
                                      "RDZV_BACKEND", "JOBSET_MAX_RESTARTS", "JOBSET_NAME",
                                      "JOBSET_RESTART_ATTEMPT", "POD_NAMESPACE"};
  const kf_node *jname = kfe_field_ref(c, "metadata.labels['jobset.sigs.k8s.io/jobset-name']");
  const kf_node *attempt = kfe_field_ref(c, "metadata.labels['jobset.sigs.k8s.io/restart-attempt']");
  const kf_node *ns = kfe_field_ref(c, "metadata.namespace");
  int32_t i;
  size_t x, k, o;
  NOMEM(c, jname && attempt && ns);
  if (elastic && j->min_nodes != j->max_nodes)
    return kf_fail(c->e, KF_EINVAL, "%s: nnodes: the range %d:%d cannot be expressed "
                   "(a fixed replicas count; R43) (target %s)", c->who, (int)j->min_nodes,
                   (int)j->max_nodes, kf_targets[c->t].name);
  for (i = 0; i < nodes; i++) {
    kf_env_pod *p = kfe_user_pod(c, kfe_fmt(c, "workers-0-%d", (int)i), role);
    NOMEM(c, p);
    for (x = 0, o = 0; x < p->n; x++) {   /* the plugin's win */
      for (k = 0; k < sizeof names / sizeof *names; k++)
        if (strcmp(p->v[x].name, names[k]) == 0) break;
      if (k == sizeof names / sizeof *names && strncmp(p->v[x].name, "JOBSET_", 7) != 0)
        p->v[o++] = p->v[x];
    }
    p->n = o;
    NOMEM(c, kfe_var_int(c, p, "NNODES", nodes));
    NOMEM(c, kfe_var_int(c, p, "NPROC_PER_NODE", elastic && !j->nproc_word ? j->nproc_per_node : 1));
    NOMEM(c, OP(c, p, "MASTER_PORT", "29500"));
    NOMEM(c, OP(c, p, "RDZV_BACKEND", c10d ? "c10d" : "static"));
    NOMEM(c, kfe_var_int(c, p, "JOBSET_MAX_RESTARTS", j->has_run_policy ? j->rp.backoff_limit : 0));
    NOMEM(c, kfe_var_add(c, p, "JOBSET_NAME", NULL, jname, KF_ENV_OPERATOR, NULL));
    NOMEM(c, kfe_var_add(c, p, "JOBSET_RESTART_ATTEMPT", NULL, attempt, KF_ENV_OPERATOR, NULL));
    NOMEM(c, kfe_var_add(c, p, "POD_NAMESPACE", NULL, ns, KF_ENV_OPERATOR, NULL));
  }
  return KF_OK;
}

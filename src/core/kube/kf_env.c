/*
** kf_env.c - the environment each pod gets (FACTS §8.2), per target and
** kind.  The training-operator's kinds are a table of generators
** (operator_kinds[], one function per kind; a kind without one is an
** error naming the gap), the mpi-operator, Trainer and Flyte 2 clustered
** tasks have one each (kf_env_targets.c), and Flyte's own additions wrap
** the operator's; the builders they share are in kf_env_build.c.  Values
** are written as the controllers compute them; nothing is read from a
** manifest.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_env_int.h"
#include "kf_manifest_int.h"
#include "kf_pod.h"

/* ---- training-operator v1.9 (FACTS §8.2.1-§8.2.3) --------------------- */

typedef kf_status (*env_gen)(ectx *c);

/* elasticPolicy.rdzvConf as PET_RDZV_CONF: key=value, comma-joined in
** order (elastic.go); NULL when out of memory. */
static const char *rdzv_conf(ectx *c, const kf_node *l) {
  kf_buf b;
  size_t i;
  kf_buf_init(&b, c->A->a);
  for (i = 0; i < l->u.c.n; i++) {
    const kf_node *k = kf_node_get(l->u.c.v[i], "key"), *v = kf_node_get(l->u.c.v[i], "value");
    if (i) kfe_addf(c, &b, ",");
    kfe_addf(c, &b, "%s=%s", k ? k->u.s.p : "", v ? v->u.s.p : "");
  }
  return kfe_text_end(c, &b);
}

/* PyTorchJob and its elastic form (envvar.go setPodEnv). */
static kf_status pytorch_env(ectx *c) {
  const kf_job *j = c->j;
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), i, k;
  int elastic = j->kind == KF_ELASTIC;
  int master = !elastic && j->g[KF_MASTER].replicas > 0;
  /* the Master's port (MASTER_PORT), an elastic job's Worker's (its
  ** rendezvous endpoint): each group's own template may give it */
  int32_t port = kfe_group_port_of(c, elastic ? KF_WORKER : KF_MASTER, "pytorchjob-port", 23456);
  int64_t total = kfe_total_replicas(j, roles, n);
  /* spec.nprocPerNode: "auto" by defaulting unless elasticPolicy carries
  ** nProcPerNode, where Flyte puts an elastic job's integer; a word and
  ** the operator target's integer go to spec.nprocPerNode (R10) */
  const int deprecated = elastic && j->nproc_word == NULL && c->t != KF_T_OPERATOR;
  const char *spec_nproc = j->nproc_word ? j->nproc_word
                           : deprecated ? NULL
                           : j->nproc_per_node > 0 ? kfe_fmt(c, "%d", (int)j->nproc_per_node)
                                                   : "auto";
  /* elasticPolicy.maxRestarts set (elastic.go): Flyte's backend always
  ** sets it, the operator target's manifest when given */
  const int max_restarts = c->t != KF_T_OPERATOR || j->max_restarts != 0 ||
                           (j->given_default & KF_EG_MAX_RESTARTS);
  /* getNprocPerNodeInt: Atoi, 1 when a word */
  const int nproc_int = !elastic && j->nproc_word == NULL && j->nproc_per_node > 0
                            ? j->nproc_per_node : 1;
  if (!deprecated) NOMEM(c, spec_nproc);
  for (k = 0; k < n; k++) {
    int role = roles[k];
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = kfe_group_pod(c, role, i);
      int32_t rank = role == KF_MASTER ? i : i + 1;
      NOMEM(c, p);
      NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
      if (master) {
        NOMEM(c, kfe_var_int(c, p, "MASTER_PORT", port));
        NOMEM(c, kfe_var_int(c, p, "PET_MASTER_PORT", port));
        NOMEM(c, OP(c, p, "MASTER_ADDR", kfe_fmt(c, "%s-master-0", c->name)));
        NOMEM(c, OP(c, p, "PET_MASTER_ADDR", kfe_fmt(c, "%s-master-0", c->name)));
        NOMEM(c, kfe_var_int(c, p, "WORLD_SIZE", (long long)total * nproc_int));
        NOMEM(c, kfe_var_int(c, p, "RANK", rank));
        NOMEM(c, kfe_var_int(c, p, "PET_NODE_RANK", rank));
      }
      if (spec_nproc) NOMEM(c, OP(c, p, "PET_NPROC_PER_NODE", spec_nproc));
      if (!elastic) {
        NOMEM(c, kfe_var_int(c, p, "PET_NNODES", (long long)total));
        continue;
      }
      NOMEM(c, OP(c, p, "PET_RDZV_ENDPOINT",
                  j->rdzv_host ? kfe_fmt(c, "%s:%d", j->rdzv_host, (int)(j->rdzv_port ? j->rdzv_port : port))
                               : kfe_fmt(c, "%s-worker-0:%d", c->name,
                                     (int)(j->rdzv_port ? j->rdzv_port : port))));
      NOMEM(c, OP(c, p, "PET_RDZV_BACKEND",
                  j->rdzv_backend && *j->rdzv_backend ? j->rdzv_backend : "c10d"));
      NOMEM(c, OP(c, p, "PET_NNODES", kfe_fmt(c, "%d:%d", (int)j->min_nodes, (int)j->max_nodes)));
      if (max_restarts) NOMEM(c, kfe_var_int(c, p, "PET_MAX_RESTARTS", j->max_restarts));
      if (deprecated) NOMEM(c, kfe_var_int(c, p, "PET_NPROC_PER_NODE", j->nproc_per_node));
      if (j->rdzv_id) NOMEM(c, OP(c, p, "PET_RDZV_ID", j->rdzv_id));
      if (j->rdzv_conf) NOMEM(c, OP(c, p, "PET_RDZV_CONF", rdzv_conf(c, j->rdzv_conf)));
      if (j->standalone) NOMEM(c, OP(c, p, "PET_STANDALONE", ""));
    }
  }
  return KF_OK;
}

/* TFJob: TF_CONFIG on the tensorflow container, when distributed
** (tensorflow.go genTFConfigJSONStr; Go map keys sorted). */
static kf_status tf_env(ectx *c) {
  const kf_job *j = c->j;
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), i, k, x;
  kf_buf cluster;
  kf_alloc sys = c->A->a;
  const char *cl;
  kf_buf_init(&cluster, sys);
  for (k = 0; k < n; k++) {   /* present roles are sorted by type name */
    int role = roles[k];
    int32_t port = kfe_group_port_of(c, role, "tfjob-port", 2222);   /* that group's */
    kf_buf_adds(&cluster, k ? ",\"" : "{\"");
    kf_buf_adds(&cluster, kf_roles[role].key);
    kf_buf_adds(&cluster, "\":[");
    for (x = 0; x < j->g[role].replicas; x++) {
      char b[300];
      snprintf(b, sizeof b, "%s\"%s-%s-%d.%s.svc:%d\"", x ? "," : "", c->name,
               kf_roles[role].key, x, c->ns, (int)port);
      kf_buf_adds(&cluster, b);
    }
    kf_buf_addc(&cluster, ']');
  }
  kf_buf_addc(&cluster, '}');
  cl = cluster.oom ? NULL : kf_arena_strndup(c->A, cluster.p, cluster.n);
  kf_buf_free(&cluster);
  NOMEM(c, cl);
  /* every pod holds the whole cluster: quadratic in the pods */
  if ((double)strlen(cl) * (double)kfe_total_replicas(j, roles, n) > KF_MAX_ENV_BYTES)
    return kf_fail(c->e, KF_ELIMIT, "%s: the TF_CONFIG of %lld pods would take more "
                   "than the limit of %u MiB", c->who,
                   (long long)kfe_total_replicas(j, roles, n), KF_MAX_ENV_BYTES >> 20);
  for (k = 0; k < n; k++) {
    int role = roles[k];
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = kfe_group_pod(c, role, i);
      const char *v;
      NOMEM(c, p);
      if (kfe_total_replicas(j, roles, n) == 1) continue;   /* not distributed */
      kf_buf_init(&cluster, sys);
      kfe_addf(c, &cluster, "{\"cluster\":");
      kf_buf_adds(&cluster, cl);
      kfe_addf(c, &cluster, ",\"task\":{\"type\":\"%s\",\"index\":%d},\"environment\":\"cloud\"}",
           kf_roles[role].key, i);
      NOMEM(c, v = kfe_text_end(c, &cluster));
      NOMEM(c, OP(c, p, "TF_CONFIG", v));
    }
  }
  return KF_OK;
}

/* Whether the launcher container limits a GPU (mpijob.go isGPULauncher):
** its resources come from the group and the task only (the pod template's
** primary container may not set resources). */
static int launcher_gpu(const kf_job *j) {
  kf_group tmp;
  const kf_group *g = kfm_task_resources(j, &j->g[KF_LAUNCHER], &tmp);
  return (g->limits[KF_GPU] && kfm_qty_value(g->limits[KF_GPU]) != 0) ||
         (g->requests[KF_GPU] && kfm_qty_value(g->requests[KF_GPU]) != 0);
}

/* MPIJob and HorovodJob kubeflow.org/v1 (mpijob_controller.go); on Flyte
** slotsPerWorker is always 1 (mpi.go never reads v1 slots). */
static kf_status mpi_v1_env(ectx *c) {
  const kf_job *j = c->j;
  int gpu = launcher_gpu(j);
  int32_t s = c->t == KF_T_OPERATOR ? j->slots : 1, i, n = j->g[KF_WORKER].replicas;
  const char **hosts = kfe_sorted_workers(c, "");
  const char *hostfile, *discover, *kubexec;
  kf_env_pod *p;
  kf_buf b;
  NOMEM(c, hosts);
  NOMEM(c, kubexec = kfe_fmt(c, "#!/bin/sh\nset -x\nPOD_NAME=$1\nshift\n/opt/kube/kubectl "
                         "exec ${POD_NAME} -- /bin/sh -c \"$*\""));
  kf_buf_init(&b, c->A->a);
  if (gpu) kfe_addf(c, &b, "%s-launcher slots=%d\n", c->name, (int)s);
  for (i = 0; i < n; i++)
    kfe_addf(c, &b, "%s-worker-%d slots=%d\n", c->name, (int)i, (int)s);
  NOMEM(c, hostfile = kfe_text_end(c, &b));
  kf_buf_init(&b, c->A->a);
  kf_buf_adds(&b, "#!/bin/sh");
  if (gpu) kfe_addf(c, &b, "\necho %s-launcher:%d", c->name, (int)s);
  for (i = 0; i < n; i++) kfe_addf(c, &b, "\necho %s:%d", hosts[i], (int)s);
  NOMEM(c, discover = kfe_text_end(c, &b));

  NOMEM(c, p = kfe_user_pod(c, "launcher-0", KF_LAUNCHER));
  NOMEM(c, OP(c, p, "OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"));
  NOMEM(c, OP(c, p, "OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"));
  if (!gpu) {
    NOMEM(c, OP(c, p, "NVIDIA_VISIBLE_DEVICES", ""));
    NOMEM(c, OP(c, p, "NVIDIA_DRIVER_CAPABILITIES", ""));
  }
  /* hasIntelMPIBootstrapValues: the user's own value is kept */
  NOMEM(c, kfe_var_add(c, p, "I_MPI_HYDRA_BOOTSTRAP", "rsh", NULL,
                   kfe_user_var(p, "I_MPI_HYDRA_BOOTSTRAP") ? KF_ENV_YIELDED : KF_ENV_OPERATOR, NULL));
  NOMEM(c, kfe_var_add(c, p, "I_MPI_HYDRA_BOOTSTRAP_EXEC", "/etc/mpi/kubexec.sh", NULL,
                   kfe_user_var(p, "I_MPI_HYDRA_BOOTSTRAP_EXEC") ? KF_ENV_YIELDED : KF_ENV_OPERATOR,
                   NULL));
  NOMEM(c, kfe_file_add(p, "/etc/mpi/kubexec.sh", kubexec));
  NOMEM(c, kfe_file_add(p, "/etc/mpi/hostfile", hostfile));
  NOMEM(c, kfe_file_add(p, "/etc/mpi/discover_hosts.sh", discover));
  for (i = 0; i < n; i++) {   /* workers: no env, only kubexec.sh */
    NOMEM(c, p = kfe_group_pod(c, KF_WORKER, i));
    NOMEM(c, kfe_file_add(p, "/etc/mpi/kubexec.sh", kubexec));
  }
  return KF_OK;
}

/* JAXJob (jax/envvar.go setPodEnv): every worker knows the coordinator,
** worker 0. */
static kf_status jax_env(ectx *c) {
  const kf_job *j = c->j;
  int32_t port = kfe_group_port_of(c, KF_WORKER, kf_kinds[KF_JAX].port_name,
                                   kf_kinds[KF_JAX].port), i;
  int32_t n = j->g[KF_WORKER].replicas;
  for (i = 0; i < n; i++) {
    kf_env_pod *p = kfe_group_pod(c, KF_WORKER, i);
    NOMEM(c, p);
    NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
    NOMEM(c, kfe_var_int(c, p, "COORDINATOR_PORT", port));
    NOMEM(c, OP(c, p, "COORDINATOR_ADDRESS", kfe_fmt(c, "%s-worker-0", c->name)));
    NOMEM(c, kfe_var_int(c, p, "NUM_PROCESSES", n));
    NOMEM(c, kfe_var_int(c, p, "PROCESS_ID", i));
  }
  return KF_OK;
}

/* XGBoostJob (xgboost/xgboost.go SetPodEnv): ranks count the master
** first; MASTER_PORT is the Master's xgboostjob-port, WORKER_PORT the
** Workers' (getPortFromXGBoostJob of each, v1.9.0). */
static kf_status xgboost_env(ectx *c) {
  const kf_job *j = c->j;
  const char *pname = kf_kinds[KF_XGBOOST].port_name;
  int32_t port = kfe_group_port_of(c, KF_MASTER, pname, kf_kinds[KF_XGBOOST].port), i;
  int32_t wport = kfe_group_port_of(c, KF_WORKER, pname, kf_kinds[KF_XGBOOST].port);
  int32_t masters = j->g[KF_MASTER].replicas, workers = j->g[KF_WORKER].replicas;
  int64_t total = (int64_t)masters + workers;
  const char *addrs = NULL;
  int k;
  if (total > 1) {   /* every pod holds every worker's address */
    kf_buf b;
    kf_buf_init(&b, c->A->a);
    for (i = 0; i < workers; i++)
      kfe_addf(c, &b, "%s%s-worker-%d", i ? "," : "", c->name, (int)i);
    addrs = b.oom ? NULL : kf_arena_strndup(c->A, b.p ? b.p : "", b.n);
    kf_buf_free(&b);
    NOMEM(c, addrs);
    if ((double)strlen(addrs) * (double)total > KF_MAX_ENV_BYTES)
      return kf_fail(c->e, KF_ELIMIT, "%s: the WORKER_ADDRS of %lld pods would take "
                     "more than the limit of %u MiB", c->who, (long long)total,
                     KF_MAX_ENV_BYTES >> 20);
  }
  for (k = 0; k < 2; k++) {
    int role = k == 0 ? KF_MASTER : KF_WORKER;
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = kfe_group_pod(c, role, i);
      NOMEM(c, p);
      NOMEM(c, kfe_var_int(c, p, "MASTER_PORT", port));
      NOMEM(c, OP(c, p, "MASTER_ADDR", kfe_fmt(c, "%s-master-0", c->name)));
      NOMEM(c, kfe_var_int(c, p, "WORLD_SIZE", total));
      NOMEM(c, kfe_var_int(c, p, "RANK", role == KF_MASTER ? i : (int64_t)i + masters));
      NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
      if (addrs) {
        NOMEM(c, kfe_var_int(c, p, "WORKER_PORT", wport));
        NOMEM(c, OP(c, p, "WORKER_ADDRS", addrs));
      }
    }
  }
  return KF_OK;
}

/* PaddleJob (training-operator v1.9 paddlepaddle/envvar.go setPodEnv).
** With a master the job runs in PS mode: master 0 is the rendezvous pod,
** masters are servers and workers trainers; without one it is collective
** and worker 0 is the rendezvous pod.  That pod reads its own IP through
** the downward API (POD_IP_DUMMY); the others name its headless service
** (replicaName).  The port is the "master" port of the "paddle" container
** in the rendezvous group's template (getPortFromPaddleJob), 36543 when it
** has none (the defaulter's). */
static kf_status paddle_env(ectx *c) {
  const kf_job *j = c->j;
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), k;
  int ps = j->g[KF_MASTER].replicas > 0, rdzv = ps ? KF_MASTER : KF_WORKER;
  int32_t port = kfe_group_port_of(c, rdzv, kf_kinds[KF_PADDLE].port_name,
                               kf_kinds[KF_PADDLE].port), i;
  int64_t total = kfe_total_replicas(j, roles, n);   /* getTotalReplicas */
  const kf_node *pod_ip = kfe_field_ref(c, "status.podIP");
  const char *remote = kfe_fmt(c, "%s-%s-0:%d", c->name, kf_roles[rdzv].key, (int)port);
  const char *local = kfe_fmt(c, "$(POD_IP_DUMMY):%d", (int)port);
  NOMEM(c, pod_ip && remote && local);
  for (k = 0; k < n; k++) {   /* Master before Worker */
    int role = roles[k];
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = kfe_group_pod(c, role, i);
      NOMEM(c, p);
      NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
      NOMEM(c, OP(c, p, "PADDLE_JOB_ID", c->name));
      NOMEM(c, kfe_var_int(c, p, "PADDLE_NNODES", total));
      if (role == rdzv && i == 0)
        NOMEM(c, kfe_var_add(c, p, "POD_IP_DUMMY", NULL, pod_ip, KF_ENV_OPERATOR, NULL));
      NOMEM(c, OP(c, p, "PADDLE_MASTER", role == rdzv && i == 0 ? local : remote));
      if (ps)   /* one server or one trainer per pod */
        NOMEM(c, OP(c, p, role == KF_MASTER ? "PADDLE_SERVER_NUM" : "PADDLE_TRAINER_NUM", "1"));
    }
  }
  return KF_OK;
}

/* By kind; NULL: kfjob does not list this kind's environment. */
static const env_gen operator_kinds[KF_NKINDS] = {
  [KF_TFJOB] = tf_env,
  [KF_PYTORCH] = pytorch_env,
  [KF_ELASTIC] = pytorch_env,
  [KF_MPI] = mpi_v1_env,
  [KF_HOROVOD] = mpi_v1_env,
  [KF_JAX] = jax_env,
  [KF_XGBOOST] = xgboost_env,
  [KF_PADDLE] = paddle_env,
};

/* ---- Flyte's additions (FACTS §8.2.7) --------------------------------- */

/* Inserts a Flyte variable after the user's (before the operator's). */
static int flyte_add(ectx *c, kf_env_pod *p, const char *name, const kf_node *from) {
  size_t at = 0, i;
  if (!kfe_var_add(c, p, name, NULL, from, KF_ENV_FLYTE, NULL)) return 0;
  while (at < p->n - 1 && p->v[at].origin <= KF_ENV_FLYTE) at++;
  if (at < p->n - 1) {
    kf_env_var v = p->v[p->n - 1];
    for (i = p->n - 1; i > at; i--) p->v[i] = p->v[i - 1];
    p->v[at] = v;
  }
  return 1;
}

/* Flyte 2: _F_PN on every container; Flyte 1.x: _F_WN on the PyTorch
** worker's first container.  The execution's FLYTE_INTERNAL_*,
** FLYTE_ATTEMPT_NUMBER and config-dependent ones (_F_DES) are runtime
** values and are not listed. */
static kf_status flyte_env(ectx *c) {
  const kf_node *name_ref = kfe_field_ref(c, "metadata.name");
  size_t i;
  NOMEM(c, name_ref);
  for (i = 0; i < c->out->n; i++) {
    kf_env_pod *p = &c->out->p[i];
    if (c->t == KF_T_FLYTE2) NOMEM(c, flyte_add(c, p, "_F_PN", name_ref));
    else if ((c->j->kind == KF_PYTORCH || c->j->kind == KF_ELASTIC) &&
             strncmp(p->key, "worker-", 7) == 0)
      NOMEM(c, flyte_add(c, p, "_F_WN", name_ref));
  }
  return KF_OK;
}

/* ---- entry points ----------------------------------------------------- */

kf_status kf_env_pods_of(const kf_job *j, kf_target t, const char *name,
                         const char *ns, const kf_kvs *env, kf_arena *A,
                         kf_env_pods *out, const char *who, kf_err *e) {
  ectx c;
  kf_status st;
  long long pods;
  int r;
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);
  c.A = A, c.e = e, c.who = who, c.j = j, c.t = t, c.out = out;
  c.name = name, c.ns = ns ? ns : "default", c.env = env;
  c.tp = kf_pod_primary(j->pod_template, &c.tp_at);
  if (strlen(name) > 63 || (ns && strlen(ns) > 63))   /* kf_environment checks them */
    return kf_fail(e, KF_EINVAL, "%s: opts.name: longer than a DNS label (63)", who);
  for (r = 0, pods = 0; r < KF_NROLES; r++)
    if (kf_kind_role_of(&kf_kinds[j->kind], r) && j->g[r].replicas > 0) pods += j->g[r].replicas;
  if (j->kind == KF_ELASTIC && j->max_nodes > pods) pods = j->max_nodes;
  if (pods > KF_MAX_ENV_PODS)
    return kf_fail(e, KF_ELIMIT, "%s: %lld pods are more than the limit of %d "
                   "whose environment kfjob lists", who, pods, KF_MAX_ENV_PODS);
  switch (t) {
    case KF_T_FLYTE: case KF_T_FLYTE2:
      if (kf_python_task(j))
        return kf_fail(e, KF_EINVAL, "%s: nnodes: an Elastic job with nnodes = 1 "
                       "runs on Flyte as a plain python-task pod: no PyTorchJob, "
                       "no injected environment (target %s)", who, kf_targets[t].name);
      /* fall through */
    case KF_T_OPERATOR:
      if (operator_kinds[j->kind] == NULL)
        return kf_fail(e, KF_EINVAL, "%s: kfjob does not list the environment "
                       "the operator gives a %s", who,
                       kf_kinds[j->kind].name);
      if ((st = operator_kinds[j->kind](&c)) != KF_OK) return st;
      return t == KF_T_OPERATOR ? KF_OK : flyte_env(&c);
    case KF_T_MPI_OPERATOR:
      return kfe_mpi_v2_env(&c);
    case KF_T_TRAINER_22: case KF_T_TRAINER_23: case KF_T_TRAINER_24:
      return kfe_trainer_env(&c);
    case KF_T_CLUSTERED:
      return kfe_clustered_env(&c);
    case KF_NTARGETS:
      break;
  }
  return kf_fail(e, KF_EINVAL, "%s: no such target", who);
}

/* What the API server accepts as an env var name (IsEnvVarName). */
static int kv_cmp(const void *a, const void *b) {
  return strcmp(((const kf_kv *)a)->k, ((const kf_kv *)b)->k);
}

kf_status kf_env_user_vars(const kf_kvs *in, kf_arena *A, kf_kvs *out,
                           const char *who, kf_err *e) {
  kf_kv *v = (kf_kv *)kf_arena_alloc(A, in->n * sizeof *v + 1);
  size_t i;
  if (v == NULL) return kf_nomem(e);
  if (in->n) memcpy(v, in->v, in->n * sizeof *v);
  qsort(v, in->n, sizeof *v, kv_cmp);
  for (i = 0; i < in->n; i++) {
    char at[128];
    kfe_env_path(at, sizeof at, v[i].k);
    if (!kfm_env_name(v[i].k))
      return kf_fail(e, KF_EINVAL, "%s: %s: invalid environment variable name "
                     "(letters, digits, '_', '-' or '.', not starting with a "
                     "digit)", who, at);
    if (i && strcmp(v[i].k, v[i - 1].k) == 0)
      return kf_fail(e, KF_EINVAL, "%s: %s: given twice", who, at);
  }
  out->v = v, out->n = in->n;
  return KF_OK;
}

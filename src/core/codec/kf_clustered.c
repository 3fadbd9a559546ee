/*
** kf_clustered.c - a PyTorchJob or Elastic job as the ClusteredTaskSpec of
** a Flyte 2 clustered task (flyteidl2/plugins/clustered.proto), as
** flyte-sdk's ClusteredTaskEnvironment writes it with TorchRun
** (src/flyte/clustered/_environment.py to_custom_dict): replicas, nproc per
** node, runtime.torchrun always set, interconnect, failure_policy only when
** one of its fields is set, ttl_seconds_after_finished only when set.
**
** Mapping: an Elastic job's fixed nnodes -> replicas, nproc_per_node,
** rdzv_backend (c10d -> C10D, else STATIC) and max_restarts ->
** runtime.torchrun; a PyTorchJob -> replicas = master + workers,
** nproc_per_node 1; run_policy.backoff_limit -> failure_policy.max_restarts,
** run_policy.ttl_seconds_after_finished -> the TTL (a given 0 too: a
** UInt32Value is set or not).  What cannot be said
** (an elastic range, nproc words, other settings) is the target's rules'.
*/
#include <stdint.h>
#include <string.h>

#include "kf_pb.h"
#include "flyteidl2/plugins/clustered.pb-c.h"

const ProtobufCMessageDescriptor *const kf_clustered_desc =
    &flyteidl2__plugins__clustered_task_spec__descriptor;

#define NEW(A, T, init) new_msg(A, sizeof(T), (void (*)(void *))(init))

static void *new_msg(kf_arena *A, size_t n, void (*init)(void *)) {
  void *m = kf_arena_alloc(A, n);
  if (m != NULL) init(m);
  return m;
}

static int interconnect_of(const char *s) {
  if (s == NULL || strcmp(s, "tcp") == 0) return FLYTEIDL2__PLUGINS__INTERCONNECT__TCP;
  if (strcmp(s, "efa") == 0) return FLYTEIDL2__PLUGINS__INTERCONNECT__EFA;
  if (strcmp(s, "infiniband") == 0) return FLYTEIDL2__PLUGINS__INTERCONNECT__INFINIBAND;
  return FLYTEIDL2__PLUGINS__INTERCONNECT__ROCE;
}

/* The job's pods: an Elastic job's node count, else master + workers. */
static int32_t replicas_of(const kf_job *j) {
  int64_t n = 0;
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  if (k->flags & KF_K_ELASTIC) return j->max_nodes;
  for (i = 0; i < k->nroles; i++) {
    int32_t r = j->g[k->roles[i].role].replicas;
    if (r > 0) n += r;
  }
  return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

kf_status kf_clustered_msg(const kf_job *j, const kf_encopts *o, kf_arena *A,
                           ProtobufCMessage **out, kf_err *e) {
  Flyteidl2__Plugins__ClusteredTaskSpec *m;
  Flyteidl2__Plugins__Runtime *rt;
  Flyteidl2__Plugins__TorchRuntime *tr;
  int elastic = (kf_kinds[j->kind].flags & KF_K_ELASTIC) != 0;
  const char *who = o->ctor ? o->ctor : kf_kinds[j->kind].name;
  if (o->version != KF_CLUSTERED_VERSION)
    return kf_fail(e, KF_EINVAL, "%s: opts.version: a clustered task is %s version %d "
                   "only (target flyte2-clustered)", who, KF_CLUSTERED_TASK_TYPE,
                   KF_CLUSTERED_VERSION);
  if (o->common)
    return kf_fail(e, KF_EINVAL, "%s: opts.replica_encoding: a ClusteredTaskSpec has "
                   "no replica specs (target flyte2-clustered)", who);
  if ((m = NEW(A, *m, flyteidl2__plugins__clustered_task_spec__init)) == NULL ||
      (rt = NEW(A, *rt, flyteidl2__plugins__runtime__init)) == NULL ||
      (tr = NEW(A, *tr, flyteidl2__plugins__torch_runtime__init)) == NULL)
    return kf_nomem(e);
  m->replicas = replicas_of(j);
  m->nproc_per_node = elastic && j->nproc_word == NULL ? j->nproc_per_node : 1;
  if (elastic) {
    tr->rdzv_backend = !j->rdzv_backend || strcmp(j->rdzv_backend, "c10d") == 0
                           ? FLYTEIDL2__PLUGINS__RDZV_BACKEND__C10D
                           : FLYTEIDL2__PLUGINS__RDZV_BACKEND__STATIC;
    tr->max_restarts = j->max_restarts;
  }
  rt->kind_case = FLYTEIDL2__PLUGINS__RUNTIME__KIND_TORCHRUN;
  rt->torchrun = tr;
  m->runtime = rt;
  m->interconnect = (Flyteidl2__Plugins__Interconnect)interconnect_of(j->interconnect);
  if ((j->has_run_policy && j->rp.backoff_limit != 0) || j->restart_on_host_maintenance) {
    Flyteidl2__Plugins__ClusterFailurePolicy *fp =
        NEW(A, *fp, flyteidl2__plugins__cluster_failure_policy__init);
    if (fp == NULL) return kf_nomem(e);
    fp->max_restarts = j->has_run_policy ? j->rp.backoff_limit : 0;
    fp->restart_on_host_maintenance = j->restart_on_host_maintenance != 0;
    m->failure_policy = fp;
  }
  if (j->has_run_policy &&
      (j->rp.ttl_seconds_after_finished > 0 || (j->rp.zero & KF_RPZ_TTL))) {
    Google__Protobuf__UInt32Value *ttl = NEW(A, *ttl, google__protobuf__uint32_value__init);
    if (ttl == NULL) return kf_nomem(e);
    ttl->value = (uint32_t)j->rp.ttl_seconds_after_finished;
    m->ttl_seconds_after_finished = ttl;
  }
  *out = &m->base;
  return KF_OK;
}

/* ---- reading back ------------------------------------------------------ */

static const char *const interconnect_names[] = {"tcp", "efa", "infiniband", "roce"};

/* The job's spec table for a ClusteredTaskSpec: an Elastic job's nnodes,
** nproc_per_node, rdzv_backend (C10D: unset, the default; STATIC: static) and
** max_restarts, or a PyTorchJob's master and workers; the failure policy and
** the TTL as the run policy, interconnect and restart_on_host_maintenance. */
static kf_node *spec_node(const Flyteidl2__Plugins__ClusteredTaskSpec *m, int kind,
                          kf_arena *A) {
  kf_node *s = kf_node_new(A, KF_NOBJ), *rp = NULL, *g;
  const Flyteidl2__Plugins__TorchRuntime *tr =
      m->runtime && m->runtime->kind_case == FLYTEIDL2__PLUGINS__RUNTIME__KIND_TORCHRUN
          ? m->runtime->torchrun : NULL;
  const Flyteidl2__Plugins__ClusterFailurePolicy *fp = m->failure_policy;
  int ok = s != NULL;
  if (ok && kind == KF_ELASTIC) {
    ok = kf_obj_int(A, s, "nnodes", m->replicas) &&
         kf_obj_int(A, s, "nproc_per_node", m->nproc_per_node) &&
         /* C10D is the default, as proto3 cannot tell it given */
         ((tr && tr->rdzv_backend == FLYTEIDL2__PLUGINS__RDZV_BACKEND__C10D) ||
          kf_obj_str(A, s, "rdzv_backend", "static")) &&
         (!tr || !tr->max_restarts || kf_obj_int(A, s, "max_restarts", tr->max_restarts)) &&
         kf_obj_add(A, s, "worker", KF_NOBJ) != NULL;
  } else if (ok) {
    ok = (g = kf_obj_add(A, s, "master", KF_NOBJ)) != NULL && kf_obj_int(A, g, "replicas", 1) &&
         (g = kf_obj_add(A, s, "worker", KF_NOBJ)) != NULL &&
         kf_obj_int(A, g, "replicas", (int64_t)m->replicas - 1);
  }
  if (ok && ((fp && fp->max_restarts) || m->ttl_seconds_after_finished)) {
    ok = (rp = kf_obj_add(A, s, "run_policy", KF_NOBJ)) != NULL &&
         (!fp || !fp->max_restarts || kf_obj_int(A, rp, "backoff_limit", fp->max_restarts)) &&
         (!m->ttl_seconds_after_finished ||
          kf_obj_int(A, rp, "ttl_seconds_after_finished", m->ttl_seconds_after_finished->value));
  }
  if (ok && fp && fp->restart_on_host_maintenance) {
    kf_node *b = kf_node_new(A, KF_NBOOL);
    ok = b != NULL && (b->u.b = 1) && kf_node_push(A, s, "restart_on_host_maintenance", b);
  }
  if (ok && m->interconnect != FLYTEIDL2__PLUGINS__INTERCONNECT__TCP &&
      (unsigned)m->interconnect < 4)
    ok = kf_obj_str(A, s, "interconnect", interconnect_names[m->interconnect]);
  return ok ? s : NULL;
}

kf_status kf_clustered_job(const ProtobufCMessage *msg, int kind, kf_arena *A,
                           kf_job *out, const char *who, kf_err *e) {
  const Flyteidl2__Plugins__ClusteredTaskSpec *m =
      (const Flyteidl2__Plugins__ClusteredTaskSpec *)msg;
  const Flyteidl2__Plugins__TorchRuntime *tr;
  kf_node *s;
  if (kind != KF_ELASTIC && kind != KF_PYTORCH)
    return kf_fail(e, KF_EINVAL, "%s: a clustered task reads as Elastic or PyTorchJob, "
                   "not %s", who, kf_kinds[kind].name);
  /* build.go's checks, before the constructor's own */
  if (m->replicas < 1 || m->replicas > 100000)
    return kf_fail(e, KF_EINVAL, "%s: replicas: must be 1 to 100000, got %d", who,
                   (int)m->replicas);
  if (m->nproc_per_node < 1)
    return kf_fail(e, KF_EINVAL, "%s: nprocPerNode: nproc_per_node must be >= 1, got %d",
                   who, (int)m->nproc_per_node);
  if (kind == KF_PYTORCH && m->nproc_per_node != 1)
    return kf_fail(e, KF_EINVAL, "%s: nprocPerNode: %d processes a pod read as a "
                   "PyTorchJob (one a pod); read it as Elastic", who, (int)m->nproc_per_node);
  if (m->runtime == NULL || m->runtime->kind_case != FLYTEIDL2__PLUGINS__RUNTIME__KIND_TORCHRUN)
    return kf_fail(e, KF_EINVAL, "%s: runtime: no torchrun (kfjob reads TorchRun "
                   "clustered tasks)", who);
  tr = m->runtime->torchrun;
  if (kind == KF_PYTORCH && tr && tr->rdzv_backend != FLYTEIDL2__PLUGINS__RDZV_BACKEND__STATIC)
    return kf_fail(e, KF_EINVAL, "%s: runtime.torchrun.rdzvBackend: C10D read as a "
                   "PyTorchJob (whose clustered task has static rendezvous); read it as "
                   "Elastic", who);
  if (kind == KF_PYTORCH && tr && tr->max_restarts != 0)
    return kf_fail(e, KF_EINVAL, "%s: runtime.torchrun.maxRestarts: %d in-pod restarts "
                   "read as a PyTorchJob (which has none); read it as Elastic", who,
                   (int)tr->max_restarts);
  if (m->failure_policy && m->failure_policy->max_restarts < 0)
    return kf_fail(e, KF_EINVAL, "%s: failurePolicy.maxRestarts: "
                   "failure_policy.max_restarts must be >= 0, got %d", who,
                   (int)m->failure_policy->max_restarts);
  if (m->ttl_seconds_after_finished && m->ttl_seconds_after_finished->value > INT32_MAX)
    return kf_fail(e, KF_EINVAL, "%s: ttlSecondsAfterFinished: above 2147483647", who);
  if ((unsigned)m->interconnect >= 4)
    return kf_fail(e, KF_EINVAL, "%s: interconnect: unknown value %d", who,
                   (int)m->interconnect);
  if ((s = spec_node(m, kind, A)) == NULL) return kf_nomem(e);
  return kf_job_from_spec(kind, s, A, out, who, e);
}

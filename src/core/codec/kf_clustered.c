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
#include <string.h>

#include "kf_pb.h"
#include "flyteidl2/plugins/clustered.pb-c.h"

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
    tr->rdzv_backend = j->rdzv_backend && strcmp(j->rdzv_backend, "c10d") == 0
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

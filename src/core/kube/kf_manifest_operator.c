/*
** kf_manifest_operator.c - job -> kubeflow.org/v1 custom resource for the
** training-operator (SPEC §4): replica specs as Flyte's backend builds them,
** run and elastic policies.  The pieces every target's writer shares are
** in kf_manifest_common.c; kf_emit.c dispatches on the target.
*/
#include <stdio.h>
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"

#include "kf_manifest_int.h"

/* The elasticPolicy's keys in the order kfjob writes them; a key of a row
** newly placed in the elastic policy (KF_M_ELASTIC) follows, in row order. */
static const char *const elastic_order[] = {
    "minReplicas", "maxReplicas", "rdzvBackend", "nProcPerNode", "maxRestarts",
    "rdzvHost", "rdzvPort", "rdzvId", "rdzvConf", "standalone", "metrics", NULL};

/* A v1 MPIJob's worker with no command runs `sleep 365d` whatever its args
** (training-operator mpijob_controller.go newWorker), and one with a command
** runs it.  The job's (or the call's) command is the launcher's, as on the
** mpi-operator, so a worker without a command of its own is written bare
** when there is one, or when the launcher runs a command of its own; and
** when the launcher runs args of its own and there is no task line (kfjob's
** launcher line would run nowhere), as a hand-written one reads. */
static int v1_bare_worker(const kf_job *j, const kfm_shared *sh) {
  const kf_group *l = &j->g[KF_LAUNCHER];
  const kf_container *lc = l->has_container ? &l->container : NULL;
  if (!(kf_kinds[j->kind].flags & KF_K_COMMAND)) return 0;
  if (sh->o->command.n || (j->has_container && j->container.ncommand) || (lc && lc->ncommand))
    return 1;
  if (sh->o->args.n || sh->task_args) return 0;
  return l->ncommand || (lc && lc->nargs);
}

/* training-operator v1.9: kubeflow.org/v1.  Flyte's backend builds the
** same resource but for `slots` (`flyte_slots`: slotsPerWorker 1, FACTS
** 3.8) and an elastic job's integer nproc_per_node (the deprecated
** elasticPolicy.nProcPerNode); kf_manifest_flyte.c adds the rest of what it
** submits. */
kf_status kfm_operator(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                       int flyte_slots, kf_node **out) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_arena *A = c->A;
  kfm_shared sh;
  kf_node *spec, *specs, *rp;
  int roles[KF_NROLES], n, i;
  kf_status st;
  if ((st = kfm_prepare(c, j, o, "kubeflow.org/v1", k->crd_kind, &sh)) != KF_OK)
    return st;
  if (!flyte_slots && v1_bare_worker(j, &sh)) sh.bare_role = KF_WORKER;
  /* (Flyte's backend gives every replica the task container's command) */
  sh.launcher_command = !flyte_slots && (k->flags & KF_K_COMMAND);
  KF_OOM(c, spec = kf_obj_add(A, sh.root, "spec", KF_NOBJ));
  KF_OOM(c, rp = kfm_run_policy(A, j, !flyte_slots));
  if (k->flags & KF_K_SLOTS)
    KF_OOM(c, kf_obj_int(A, spec, "slotsPerWorker", flyte_slots ? 1 : j->slots));
  else
    KF_OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  if (j->kind == KF_PYTORCH && (j->nproc_word || j->nproc_per_node > 0)) {
    char n[16];   /* a string in the CRD (pytorchjob_types.go NprocPerNode) */
    snprintf(n, sizeof n, "%d", (int)j->nproc_per_node);
    KF_OOM(c, kf_obj_str(A, spec, "nprocPerNode", j->nproc_word ? j->nproc_word : n));
  }
  if (k->flags & KF_K_ELASTIC) {
    kf_node *ep;
    KF_OOM(c, ep = kf_node_new(A, KF_NOBJ));
    KF_OOM(c, kf_obj_int(A, ep, "minReplicas", j->min_nodes) &&
               kf_obj_int(A, ep, "maxReplicas", j->max_nodes));
    /* Flyte's backends put an integer in the deprecated elasticPolicy
    ** field (lint warns, R10); the operator's own is spec.nprocPerNode,
    ** which also takes a word (pytorchjob_types.go) */
    if (j->nproc_word == NULL && flyte_slots)
      KF_OOM(c, kf_obj_int(A, ep, "nProcPerNode", j->nproc_per_node));
    /* the rows placed in the elastic policy (rdzvBackend, maxRestarts: on
    ** this target only when given, the operator defaulting neither; the
    ** operator's own rendezvous rows, which R54 keeps off Flyte), then the
    ** keys in their order */
    if ((st = kfm_job_rows(c, j, KF_M_ELASTIC, ep)) != KF_OK) return st;
    KF_OOM(c, ep = kf_pod_ordered(A, ep, elastic_order));
    KF_OOM(c, kf_node_push(A, spec, "elasticPolicy", ep));
    if (j->nproc_word != NULL)
      KF_OOM(c, kf_obj_strref(A, spec, "nprocPerNode", j->nproc_word));
    else if (!flyte_slots) {
      char n[16];
      snprintf(n, sizeof n, "%d", (int)j->nproc_per_node);
      KF_OOM(c, kf_obj_str(A, spec, "nprocPerNode", n));
    }
  }
  KF_OOM(c, specs = kf_obj_add(A, spec, k->crd_specs, KF_NOBJ));
  n = kfm_present_roles(j, roles);   /* elastic kinds have no master role */
  for (i = 0; i < n; i++)
    if ((st = kfm_replica_spec(c, j, roles[i], &sh, specs)) != KF_OK) return st;
  if (k->flags & KF_K_SLOTS) KF_OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  *out = sh.root;
  return KF_OK;
}

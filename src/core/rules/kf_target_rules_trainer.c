/*
** kf_target_rules_trainer.c - rules by target about how Trainer runs a
** PyTorch job's command (kfjob's torchrun wrapper, the runtime's process
** count) and a TrainJob without spec.trainer: R57, R58, R60.  Rows as in
** kf_target_rules.c; their table comes right after its rows.
*/
#include <string.h>

#include "kf_launcher.h"
#include "kf_rules.h"
#include "kf_rules_int.h"

/* The container a TrainJob's nodes run: the Trainer role's own when it
** gives a command, else the job's; NULL: neither. */
static const kf_container *trainer_container(const kf_job *j) {
  const kf_group *g = &j->g[kf_trainer_role(j)];
  if (g->has_container && g->container.ncommand) return &g->container;
  return j->has_container ? &j->container : NULL;
}

/* R57: a PyTorchJob whose command starts torchrun with nproc_per_node
** unset or "auto" and no GPU: the operator's torchrun runs "auto", one
** process per CPU of the node, where Trainer (numProcPerNode unset) runs
** the CPU request rounded up, at least 1. */
static kf_status test_pt_nproc_cpu(const kf_job *j, kf_target t,
                                   const kf_target_ctx *c, const kf_target_rule *r,
                                   kf_problems *out, kf_err *e) {
  const kf_group *g = &j->g[kf_trainer_role(j)];
  const kf_container *ct = trainer_container(j);
  (void)c;
  if (j->runtime || ct == NULL || !kf_starts_launcher((const char *const *)ct->command, ct->ncommand) ||
      (j->nproc_word ? strcmp(j->nproc_word, "auto") != 0 : j->nproc_per_node != 0) ||
      g->requests[KF_GPU] || g->limits[KF_GPU] || j->requests[KF_GPU] || j->limits[KF_GPU])
    return KF_OK;
  return kf_problem_add(out, r, t, "nproc_per_node", e, "unset (auto) without a GPU: "
                        "Trainer runs max(1, CPU request) processes a node, where the "
                        "operator's auto runs one per CPU of the node (set nproc_per_node "
                        "to the count the job needs)");
}

/* R60: several processes a node and a command that starts no launcher:
** Trainer runs kfjob's torchrun wrapper, numProcPerNode copies of the
** command a node, where the training-operator (and Flyte's backend) runs
** it once a pod and only sets PET_NPROC_PER_NODE. */
static kf_status test_nproc_no_launcher(const kf_job *j, kf_target t,
                                        const kf_target_ctx *c, const kf_target_rule *r,
                                        kf_problems *out, kf_err *e) {
  const kf_container *ct = trainer_container(j);
  (void)c;
  if (j->nproc_word != NULL || j->nproc_per_node <= 1 || j->runtime_trainer || ct == NULL ||
      ct->ncommand == 0 || !kf_trainer_wraps(j, (const char *const *)ct->command, ct->ncommand))
    return KF_OK;
  /* ("processes a node": convert --to prints the warnings that say it) */
  return kf_problem_add(out, r, t, "nproc_per_node", e, "%d with a command that starts no "
                        "launcher: Trainer runs %d processes a node (kfjob's torchrun "
                        "wrapper starts the command that many times), where the "
                        "training-operator runs it once a pod and only sets "
                        "PET_NPROC_PER_NODE (start torchrun in the command, or set "
                        "nproc_per_node = 1 if the command starts its own processes)",
                        (int)j->nproc_per_node, (int)j->nproc_per_node);
}

/* R58: a TrainJob without spec.trainer runs the runtime's node job with no
** node env; every other target's pods get the operator's or Flyte's. */
static kf_status test_runtime_trainer(const kf_job *j, kf_target t,
                                      const kf_target_ctx *c, const kf_target_rule *r,
                                      kf_problems *out, kf_err *e) {
  (void)c;
  if (j->runtime_trainer)
    ADD("runtime_trainer", e, "true is a TrainJob without spec.trainer (the runtime's "
        "image, command and node count, no node env): only Trainer targets run it; set "
        "runtime_trainer = false and give the job its image and command to run it here");
  return KF_OK;
}

const kf_target_rule kf_target_rules_trainer[] = {
  {"R57", K(KF_PYTORCH),
   {[KF_T_MPI_OPERATOR] = NA, TRAINERS(WARN)},
   {TRAINERS("trainer torch.go EnforceMLPolicy (numProcPerNode unset: auto only with a "
             "GPU, else max(1, CPU)); training-operator envvar.go setPodEnv "
             "(PET_NPROC_PER_NODE auto)")},
   test_pt_nproc_cpu, 0, 0},
  {"R58", K(KF_PYTORCH) | K(KF_ELASTIC) | K(KF_JAX) | K(KF_XGBOOST),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = ERR, [KF_T_CLUSTERED] = ERR, TRAINERS(OK)},
   {[KF_T_FLYTE] = "flyteplugins pytorch.go BuildResource (the operator's node env)",
    [KF_T_FLYTE2] = "flyteplugins pytorch.go BuildResource (the operator's node env)",
    [KF_T_OPERATOR] = "training-operator (its node env on every pod: envvar.go setPodEnv)",
    [KF_T_MPI_OPERATOR] = "mpi-operator v2beta1 (no such job)",
    [KF_T_CLUSTERED] = "flyte clustered runtime_torch.go (the plugin's node env)",
    TRAINERS("trainer trainjob_types.go TrainJobSpec.Trainer (+optional); torch.go, jax.go, "
             "xgboost.go EnforceMLPolicy (node env only when it is set)")},
   test_runtime_trainer, 0, 0},
  {"R60", K(KF_PYTORCH) | K(KF_ELASTIC),
   {[KF_T_MPI_OPERATOR] = NA, TRAINERS(WARN)},
   {TRAINERS("trainer torch.go EnforceMLPolicy (numProcPerNode -> PET_NPROC_PER_NODE, "
             "read by torchrun); training-operator envvar.go setPodEnv (the command runs "
             "as written)")},
   test_nproc_no_launcher, 0, 0},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

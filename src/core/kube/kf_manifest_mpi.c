/*
** kf_manifest_mpi.c - MPIJob / HorovodJob -> MPIJob kubeflow.org/v2beta1
** for the mpi-operator v0.8 (FACTS §8.3).  The replica specs are the v1
** ones (kf_manifest_operator.c) with three differences: slotsPerWorker is
** the job's slots (the hostfile then matches the launcher's -np), restart
** policies are always written (unset means Never, kfjob's meaning; the
** operator's own default for the launcher is OnFailure), and a worker
** without a command of its own gets no command or args, so the operator
** starts sshd there instead of the task's mpirun.
*/
#include "kf_manifest.h"
#include "kf_manifest_int.h"

kf_status kfm_mpi_operator(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                           kf_node **out) {
  kf_arena *A = c->A;
  kfm_shared sh;
  kf_node *spec, *specs, *rp;
  int roles[KF_NROLES], n, i;
  kf_status st;
  if ((st = kfm_prepare(c, j, o, "kubeflow.org/v2beta1", "MPIJob", &sh)) != KF_OK)
    return st;
  sh.bare_worker = 1;
  OOM(c, spec = kf_obj_add(A, sh.root, "spec", KF_NOBJ));
  OOM(c, kf_obj_int(A, spec, "slotsPerWorker", j->slots));
  if (j->has_run_policy) {   /* as Flyte: cleanPodPolicy whenever given */
    OOM(c, rp = kfm_run_policy(A, j, 1));
    OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  }
  /* flytekit's mpirun flags are OpenMPI's; horovodrun uses OpenMPI too */
  OOM(c, kf_obj_str(A, spec, "mpiImplementation", "OpenMPI"));
  OOM(c, specs = kf_obj_add(A, spec, "mpiReplicaSpecs", KF_NOBJ));
  n = kfm_present_roles(j, roles);
  for (i = 0; i < n; i++)
    if ((st = kfm_replica_spec(c, j, roles[i], &sh, specs)) != KF_OK) return st;
  *out = sh.root;
  return KF_OK;
}

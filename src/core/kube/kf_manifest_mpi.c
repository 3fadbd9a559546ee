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
#include <string.h>

#include "kf_manifest.h"
#include "kf_manifest_int.h"

/* The job's rows of the mpi-operator's own fields (place KF_M_MPI_SPEC) under
** their keys where set; mpiImplementation always (OpenMPI unless set:
** flytekit's mpirun flags are OpenMPI's). */
static kf_status mpi_fields(mctx *c, const kf_job *j, kf_node *spec) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  const char *base = (const char *)j;
  size_t i;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (f->place != KF_M_MPI_SPEC) continue;
    if (f->type == KF_V_BOOL) {
      kf_node *b;
      if (!*(const int *)(const void *)(base + f->off)) continue;
      KF_OOM(c, b = kf_obj_add(c->A, spec, f->manifest, KF_NBOOL));
      b->u.b = 1;
    } else {
      const char *v = *(const char *const *)(const void *)(base + f->off);
      if (v == NULL && strcmp(f->manifest, "mpiImplementation") == 0) v = "OpenMPI";
      if (v) KF_OOM(c, kf_obj_str(c->A, spec, f->manifest, v));
    }
  }
  return KF_OK;
}

kf_status kfm_mpi_operator(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                           kf_node **out) {
  kf_arena *A = c->A;
  kfm_shared sh;
  kf_node *spec, *specs, *rp;
  int roles[KF_NROLES], n, i;
  kf_status st;
  if ((st = kfm_prepare(c, j, o, "kubeflow.org/v2beta1", "MPIJob", &sh)) != KF_OK)
    return st;
  sh.bare_role = kf_target_bare_role(KF_T_MPI_OPERATOR);
  sh.launcher_command = 1;
  KF_OOM(c, spec = kf_obj_add(A, sh.root, "spec", KF_NOBJ));
  KF_OOM(c, kf_obj_int(A, spec, "slotsPerWorker", j->slots));
  if (j->has_run_policy) {   /* as Flyte: cleanPodPolicy whenever given */
    KF_OOM(c, rp = kfm_run_policy(A, j, 1));
    KF_OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  }
  if ((st = mpi_fields(c, j, spec)) != KF_OK) return st;
  KF_OOM(c, specs = kf_obj_add(A, spec, "mpiReplicaSpecs", KF_NOBJ));
  n = kfm_present_roles(j, roles);
  for (i = 0; i < n; i++)
    if ((st = kfm_replica_spec(c, j, roles[i], &sh, specs)) != KF_OK) return st;
  *out = sh.root;
  return KF_OK;
}

/*
** kf_kinds.c - the job kinds, their replica groups and enum spellings as
** data, plus small lexical helpers (quantities, numbers, suggestions).
** Adding a kind means adding a row here, not writing functions.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"
#include "flyteidl/plugins/tensorflow.pb-c.h"
#include "flyteidl/plugins/pytorch.pb-c.h"
#include "flyteidl/plugins/mpi.pb-c.h"
#include "flyteidl/plugins/kubeflow/tensorflow.pb-c.h"
#include "flyteidl/plugins/kubeflow/pytorch.pb-c.h"
#include "flyteidl/plugins/kubeflow/mpi.pb-c.h"

const kf_role_info kf_roles[KF_NROLES] = {
  /* name         key          default flags */
  {"Worker",    "worker",    0, KF_R_REQUIRED},
  {"PS",        "ps",        0, 0},
  {"Chief",     "chief",     0, KF_R_MAX1},
  {"Evaluator", "evaluator", 0, KF_R_MAX1},
  {"Master",    "master",    1, KF_R_FIXED1},
  {"Launcher",  "launcher",  1, KF_R_FIXED1},
};

#define TF0 &flyteidl__plugins__distributed_tensorflow_training_task__descriptor
#define PT0 &flyteidl__plugins__distributed_py_torch_training_task__descriptor
#define MPI0 &flyteidl__plugins__distributed_mpitraining_task__descriptor
#define TF1 &flyteidl__plugins__kubeflow__distributed_tensorflow_training_task__descriptor
#define PT1 &flyteidl__plugins__kubeflow__distributed_py_torch_training_task__descriptor
#define MPI1 &flyteidl__plugins__kubeflow__distributed_mpitraining_task__descriptor
#define TF1R &flyteidl__plugins__kubeflow__distributed_tensorflow_training_replica_spec__descriptor
#define PT1R &flyteidl__plugins__kubeflow__distributed_py_torch_training_replica_spec__descriptor
#define MPI1R &flyteidl__plugins__kubeflow__distributed_mpitraining_replica_spec__descriptor

/* Role order inside a kind is the order of the constructor's fields and of
** spec() output. */
const kf_kind_info kf_kinds[KF_NKINDS] = {
  {"TFJob", "tensorflow", "tensorflow", "TFJob", "tfReplicaSpecs",
   KF_K_RUNPOLICY, 4,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_PS, "ps_replicas", "ps_replicas", "num_ps_replicas"},
    {KF_CHIEF, "chief_replicas", "chief_replicas", "num_chief_replicas"},
    {KF_EVALUATOR, "evaluator_replicas", "evaluator_replicas",
     "num_evaluator_replicas"}},
   TF0, TF1, TF1R},
  {"PyTorchJob", "pytorch", "pytorch", "PyTorchJob", "pytorchReplicaSpecs",
   KF_K_RUNPOLICY, 2,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_MASTER, "master_replicas", NULL, NULL}},
   PT0, PT1, PT1R},
  {"Elastic", "pytorch", "pytorch", "PyTorchJob", "pytorchReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_ELASTIC, 1,
   {{KF_WORKER, "worker_replicas", "workers", NULL}},
   PT0, PT1, PT1R},
  {"MPIJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R},
  {"HorovodJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND | KF_K_HOROVOD, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R},
};

const char *const kf_res_keys[KF_NRES] = {"cpu", "mem", "gpu",
                                          "ephemeral_storage"};
const char *const kf_rp_names[3] = {"never", "on_failure", "always"};
const char *const kf_cp_names[3] = {"none", "running", "all"};

const kf_kind_role *kf_kind_role_of(const kf_kind_info *k, int role) {
  int i;
  for (i = 0; i < k->nroles; i++)
    if (k->roles[i].role == role) return &k->roles[i];
  return NULL;
}

int kf_kind_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NKINDS; i++)
    if (strcmp(kf_kinds[i].name, name) == 0) return i;
  return -1;
}

int kf_role_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NROLES; i++)
    if (strcmp(kf_roles[i].name, name) == 0) return i;
  return -1;
}

/* Every accepted spelling, by enum value: lowercase, Kubernetes, proto. */
static const char *const rp_spellings[3][3] = {
  {"never", "Never", "RESTART_POLICY_NEVER"},
  {"on_failure", "OnFailure", "RESTART_POLICY_ON_FAILURE"},
  {"always", "Always", "RESTART_POLICY_ALWAYS"},
};
static const char *const cp_spellings[3][3] = {
  {"none", "None", "CLEANPOD_POLICY_NONE"},
  {"running", "Running", "CLEANPOD_POLICY_RUNNING"},
  {"all", "All", "CLEANPOD_POLICY_ALL"},
};

static int parse_spelling(const char *const t[3][3], const char *s) {
  int v, k;
  for (v = 0; v < 3; v++)
    for (k = 0; k < 3; k++)
      if (strcmp(t[v][k], s) == 0) return v;
  return -1;
}

int kf_parse_restart_policy(const char *s) {
  return parse_spelling(rp_spellings, s);
}
int kf_parse_clean_pod_policy(const char *s) {
  return parse_spelling(cp_spellings, s);
}

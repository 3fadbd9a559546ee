/*
** kf_schema.c - the job kinds, their replica groups and every field, as
** data (see kf_schema.h for what a row holds).  Adding a field means adding
** a row here; adding a kind means a kind row, its field list and its
** protos.  The rules that relate several fields are the named functions at
** the end, listed in each kind's row.
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kf_core.h"
#include "kf_pod.h"
#include "kf_sched.h"
#include "kf_target.h"   /* target bits of a group row's not_on */
#include "flyteidl/plugins/tensorflow.pb-c.h"
#include "flyteidl/plugins/pytorch.pb-c.h"
#include "flyteidl/plugins/mpi.pb-c.h"
#include "flyteidl/plugins/kubeflow/tensorflow.pb-c.h"
#include "flyteidl/plugins/kubeflow/pytorch.pb-c.h"
#include "flyteidl/plugins/kubeflow/mpi.pb-c.h"

const kf_role_info kf_roles[KF_NROLES] = {
  /* name         key          default flags */
  {"Worker",    "worker",    0, 0},
  {"PS",        "ps",        0, 0},
  {"Chief",     "chief",     0, 0},
  {"Evaluator", "evaluator", 0, 0},
  {"Master",    "master",    1, KF_R_FIXED1},
  {"Launcher",  "launcher",  1, KF_R_FIXED1},
};

/* ---- enums: every accepted spelling, by value ------------------------- */

static const char *const rp_spell[3][3] = {
  {"never", "Never", "RESTART_POLICY_NEVER"},
  {"on_failure", "OnFailure", "RESTART_POLICY_ON_FAILURE"},
  {"always", "Always", "RESTART_POLICY_ALWAYS"},
};
static const char *const cp_spell[3][3] = {
  {"none", "None", "CLEANPOD_POLICY_NONE"},
  {"running", "Running", "CLEANPOD_POLICY_RUNNING"},
  {"all", "All", "CLEANPOD_POLICY_ALL"},
};
static const char *const rp_k8s[3] = {"Never", "OnFailure", "Always"};
static const char *const cp_k8s[3] = {"None", "Running", "All"};

const kf_enum kf_restart_policy_enum = {
    "restart policy", "never, on_failure or always", rp_spell, 3, rp_k8s};
const kf_enum kf_clean_pod_policy_enum = {
    "clean pod policy", "none, running or all", cp_spell, 3, cp_k8s};

/* torchrun's --nproc-per-node words (R10: only the operator's
** spec.nprocPerNode and Trainer's "auto" can carry them) */
static const char *const nproc_v[] = {"auto", "cpu", "gpu", NULL};
static const kf_choice nproc_choice = {"nproc_per_node",
                                       "an integer >= 1, auto, cpu or gpu", nproc_v};
static const char *const rdzv_v[] = {"c10d", "etcd", "etcd-v2", NULL};
static const kf_choice rdzv_choice = {"rendezvous backend",
                                      "c10d, etcd or etcd-v2", rdzv_v};

/* ---- rows ------------------------------------------------------------- */

#define RES(i) ((i) * sizeof(const char *))

/* Proto names are the ResourceName enum's; manifest keys Kubernetes'. */
static const kf_field resource_rows[KF_NRES] = {
  [KF_CPU] = {.key = "cpu", .type = KF_V_QTY, .off = RES(KF_CPU), .pb = "CPU",
   .manifest = "cpu"},
  [KF_MEM] = {.key = "mem", .alias = "memory", .type = KF_V_QTY, .off = RES(KF_MEM),
   .pb = "MEMORY", .manifest = "memory"},
  [KF_GPU] = {.key = "gpu", .type = KF_V_QTY, .off = RES(KF_GPU), .pb = "GPU",
   .manifest = "nvidia.com/gpu"},
  [KF_EPH] = {.key = "ephemeral_storage", .type = KF_V_QTY, .off = RES(KF_EPH),
   .pb = "EPHEMERAL_STORAGE", .manifest = "ephemeral-storage"},
};
const kf_obj kf_resources_obj = {NULL, "a table of resources", resource_rows,
                                 sizeof resource_rows / sizeof *resource_rows};

/* Kueue topology-aware scheduling (SPEC §13): each key becomes a
** kueue.x-k8s.io/podset-* annotation on the pod template. */
#define TOPO(f) offsetof(kf_topology, f)
static const kf_field topology_rows[] = {
  {.key = "required", .type = KF_V_TOKEN, .off = TOPO(required),
   .manifest = KF_TAS_REQUIRED},
  {.key = "preferred", .type = KF_V_TOKEN, .off = TOPO(preferred),
   .manifest = KF_TAS_PREFERRED},
  {.key = "unconstrained", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,
   .off = TOPO(unconstrained), .manifest = KF_TAS_UNCONSTRAINED},
  {.key = "slice_required", .type = KF_V_TOKEN, .off = TOPO(slice_required),
   .manifest = KF_TAS_SLICE_REQUIRED},
  {.key = "slice_size", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = TOPO(slice_size), .off_n = TOPO(zero), .zbit = 1u, .min = 1,
   .manifest = KF_TAS_SLICE_SIZE},
};
const kf_obj kf_topology_obj = {NULL, "a table of named fields", topology_rows,
                                sizeof topology_rows / sizeof *topology_rows};

#define G(f) offsetof(kf_group, f)
static const kf_field group_rows[] = {
  {.key = "replicas", .type = KF_V_INT, .flags = KF_F_REPLICAS,
   .off = G(replicas), .min = 0, .pb = "replicas", .pb0 = "replicas",
   .manifest = "replicas", .place = KF_M_REPLICA,
   .denied = "not settable here (an elastic job takes nnodes)"},
  {.key = "image", .type = KF_V_TOKEN, .off = G(image),
   .pb = "image", .manifest = "image", .place = KF_M_CONTAINER},
  {.key = "requests", .type = KF_V_OBJ, .off = G(requests),
   .info = &kf_resources_obj, .pbmsg = "resources", .pb = "requests",
   .manifest = "requests", .place = KF_M_RESOURCES},
  {.key = "limits", .type = KF_V_OBJ, .off = G(limits),
   .info = &kf_resources_obj, .pbmsg = "resources", .pb = "limits",
   .manifest = "limits", .place = KF_M_RESOURCES},
  {.key = "restart_policy", .type = KF_V_ENUM, .off = G(restart_policy),
   .idef = KF_RP_NEVER, .info = &kf_restart_policy_enum,
   .pb = "restart_policy", .manifest = "restartPolicy",
   .place = KF_M_REPLICA},
  {.key = "command", .type = KF_V_STRLIST, .flags = KF_F_COMMAND,
   .off = G(command), .off_n = G(ncommand), .pb = "command",
   .manifest = "args", .place = KF_M_CONTAINER,
   .denied = "only MPI and Horovod groups take a command"},
  {.key = "pod_template", .type = KF_V_TREE, .off = G(pod_template),
   .info = &kf_pod_template_tree},
  {.key = "topology", .type = KF_V_OBJ, .off = G(topology),
   .off_n = G(has_topology), .info = &kf_topology_obj},
};
const kf_obj kf_group_obj = {NULL, "a table of named fields", group_rows,
                             sizeof group_rows / sizeof *group_rows};

#define RP(f) offsetof(kf_run_policy, f)
static const kf_field run_policy_rows[] = {
  {.key = "clean_pod_policy", .type = KF_V_ENUM, .off = RP(clean_pod_policy),
   .idef = KF_CP_NONE, .info = &kf_clean_pod_policy_enum,
   .pb = "clean_pod_policy", .manifest = "cleanPodPolicy"},
  {.key = "ttl_seconds_after_finished", .type = KF_V_INT,
   .flags = KF_F_OMITZERO, .off = RP(ttl_seconds_after_finished),
   .off_n = RP(zero), .zbit = KF_RPZ_TTL, .pb = "ttl_seconds_after_finished",
   .manifest = "ttlSecondsAfterFinished"},
  {.key = "active_deadline_seconds", .type = KF_V_INT,
   .flags = KF_F_OMITZERO, .off = RP(active_deadline_seconds),
   .off_n = RP(zero), .zbit = KF_RPZ_DEADLINE, .pb = "active_deadline_seconds",
   .manifest = "activeDeadlineSeconds"},
  {.key = "backoff_limit", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = RP(backoff_limit), .off_n = RP(zero), .zbit = KF_RPZ_BACKOFF,
   .pb = "backoff_limit", .manifest = "backoffLimit"},
};
const kf_obj kf_run_policy_obj = {"RunPolicy", "a kfjob.RunPolicy or a table",
                                  run_policy_rows,
                                  sizeof run_policy_rows / sizeof *run_policy_rows};

/* Job-level rows shared by several kinds. */
#define J(f) offsetof(kf_job, f)
#define GROUPS {.key = "(groups)", .type = KF_V_GROUPS}
#define DEPRECATED {.key = "(deprecated)", .type = KF_V_DEPRECATED, .min = 0}
#define RUN_POLICY                                                         \
  {.key = "run_policy", .type = KF_V_OBJ, .off = J(rp),                    \
   .off_n = J(has_run_policy), .info = &kf_run_policy_obj,                 \
   .pb = "run_policy", .manifest = "runPolicy"}
#define SLOTS                                                              \
  {.key = "slots", .type = KF_V_INT, .off = J(slots), .min = 1, .idef = 1, \
   .pb = "slots", .pb0 = "slots", .manifest = "slotsPerWorker"}

/* Pod settings (SPEC 2.4): every kind; kf_pod.c checks the template and
** relates them (kf_rule_pod); none travels in the plugin message. */
#define ACC(f) offsetof(kf_accel, f)
static const kf_field accel_rows[] = {
  {.key = "device", .type = KF_V_TOKEN, .off = ACC(device)},
  {.key = "partition_size", .type = KF_V_TOKEN, .off = ACC(partition_size)},
  {.key = "unpartitioned", .type = KF_V_BOOL, .off = ACC(unpartitioned)},
};
static const kf_obj accel_obj = {NULL, "a device name or a table",
                                 accel_rows, sizeof accel_rows / sizeof *accel_rows};
#define POD                                                                \
  {.key = "pod_template", .type = KF_V_TREE, .off = J(pod_template),       \
   .info = &kf_pod_template_tree},                                         \
  {.key = "shared_memory", .type = KF_V_SIZE, .off = J(shared_memory)},    \
  {.key = "accelerator", .type = KF_V_OBJ, .flags = KF_F_SHORT,            \
   .off = J(accel), .off_n = J(has_accelerator), .info = &accel_obj},      \
  {.key = "requests", .type = KF_V_OBJ, .off = J(requests),                \
   .info = &kf_resources_obj, .manifest = "requests"},                     \
  {.key = "limits", .type = KF_V_OBJ, .off = J(limits),                    \
   .info = &kf_resources_obj, .manifest = "limits"}

/* Scheduling (SPEC §13): Kueue labels, suspend, MultiKueue, topology and
** the gang; every kind, none in the plugin message.  kf_sched.c checks
** what relates the values (kf_rule_sched), kf_manifest_sched.c puts them
** where each target reads them. */
static const char *const gang_scheduler_v[] = {"volcano", "scheduler-plugins", NULL};
static const kf_choice gang_scheduler_choice = {
    "gang scheduler", "volcano or scheduler-plugins", gang_scheduler_v};
#define GANG(f) offsetof(kf_gang, f)
static const kf_field gang_rows[] = {
  {.key = "min_available", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = GANG(min_available), .off_n = GANG(zero), .zbit = 1u, .min = 1,
   .manifest = "minAvailable"},
  {.key = "queue", .type = KF_V_TOKEN, .off = GANG(queue), .manifest = "queue"},
  {.key = "priority_class", .type = KF_V_TOKEN, .off = GANG(priority_class),
   .manifest = "priorityClass"},
  {.key = "schedule_timeout_seconds", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = GANG(schedule_timeout_seconds), .off_n = GANG(zero), .zbit = 2u,
   .min = 1, .manifest = "scheduleTimeoutSeconds"},
  {.key = "min_resources", .type = KF_V_OBJ, .off = GANG(min_resources),
   .off_n = GANG(has_min_resources), .info = &kf_resources_obj,
   .manifest = "minResources"},
  {.key = "scheduler", .type = KF_V_CHOICE, .off = GANG(scheduler),
   .info = &gang_scheduler_choice},
};
static const kf_obj gang_obj = {NULL, "a table of named fields", gang_rows,
                                sizeof gang_rows / sizeof *gang_rows};
#define SC(f) offsetof(kf_sched, f)
static const kf_field sched_rows[] = {
  {.key = "queue", .type = KF_V_TOKEN, .off = SC(queue),
   .manifest = KF_KUEUE_QUEUE},
  {.key = "priority_class", .type = KF_V_TOKEN, .off = SC(priority_class),
   .manifest = KF_KUEUE_PRIORITY},
  {.key = "max_exec_time", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = SC(max_exec_time), .off_n = SC(zero), .zbit = 1u, .min = 1,
   .manifest = KF_KUEUE_MAX_EXEC},
  {.key = "suspend", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,
   .off = SC(suspend), .manifest = "suspend"},
  {.key = "multikueue", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,
   .off = SC(multikueue), .manifest = "managedBy"},
  {.key = "topology", .type = KF_V_OBJ, .off = SC(topology),
   .off_n = SC(has_topology), .info = &kf_topology_obj},
  {.key = "gang", .type = KF_V_OBJ, .off = SC(gang), .off_n = SC(has_gang),
   .info = &gang_obj, .manifest = "schedulingPolicy"},
};
const kf_obj kf_sched_obj = {NULL, "a table of named fields", sched_rows,
                             sizeof sched_rows / sizeof *sched_rows};
#define SCHED                                                              \
  {.key = "scheduling", .type = KF_V_OBJ, .off = J(sched),                 \
   .off_n = J(has_scheduling), .info = &kf_sched_obj}

static const kf_field tf_rows[] = {GROUPS, RUN_POLICY, DEPRECATED, POD, SCHED};
static const kf_field pytorch_rows[] = {GROUPS, RUN_POLICY, DEPRECATED, POD,
                                       SCHED};
static const kf_field elastic_rows[] = {
  {.key = "nnodes", .type = KF_V_NNODES, .off = J(min_nodes), .min = 1,
   .idef = 1, .pbmsg = "elastic_config", .pb = "min_replicas",
   .pb0 = "min_replicas"},
  {.key = "nproc_per_node", .type = KF_V_NPROC, .off = J(nproc_per_node),
   .off_n = J(nproc_word), .min = 1, .idef = 1, .info = &nproc_choice,
   .pbmsg = "elastic_config",
   .pb = "nproc_per_node", .pb0 = "nproc_per_node", .manifest = "nProcPerNode"},
  {.key = "max_restarts", .type = KF_V_INT, .off = J(max_restarts), .min = 0,
   .pbmsg = "elastic_config", .pb = "max_restarts",
   .pb0 = "max_restarts",
   .manifest = "maxRestarts"},
  {.key = "rdzv_backend", .type = KF_V_CHOICE, .off = J(rdzv_backend),
   .sdef = "c10d", .info = &rdzv_choice, .pbmsg = "elastic_config",
   .pb = "rdzv_backend", .pb0 = "rdzv_backend", .manifest = "rdzvBackend"},
  GROUPS, RUN_POLICY, POD, SCHED};
static const kf_field mpi_rows[] = {GROUPS, RUN_POLICY, SLOTS, DEPRECATED, POD,
                                   SCHED};
/* Horovod's own fields travel as horovodrun arguments, not in the proto. */
static const kf_field horovod_rows[] = {
  GROUPS, RUN_POLICY, SLOTS,
  {.key = "verbose", .type = KF_V_BOOL, .off = J(verbose)},
  {.key = "log_level", .type = KF_V_TOKEN, .off = J(log_level),
   .sdef = "INFO"},
  {.key = "discovery_script_path", .type = KF_V_TOKEN,
   .off = J(discovery_script_path), .sdef = "/etc/mpi/discover_hosts.sh"},
  {.key = "elastic_timeout", .type = KF_V_INT, .off = J(elastic_timeout),
   .min = 1, .idef = 1200},
  DEPRECATED, POD, SCHED};
/* SPEC §12: no Flyte task type, so no proto fields of their own. */
static const kf_field operator_rows[] = {GROUPS, RUN_POLICY, POD, SCHED};

#define ROWS(r) r, sizeof r / sizeof *r

/* ---- kinds ------------------------------------------------------------ */

static kf_status rule_replicas(const kf_job *j, int style, const char *who,
                               kf_err *e);
static kf_status rule_bounds(const kf_job *j, int style, const char *who,
                             kf_err *e);
static const kf_rule replicated[] = {rule_replicas, rule_bounds, kf_rule_pod,
                                     kf_rule_sched, NULL};
static const kf_rule elastic[] = {rule_bounds, kf_rule_pod, kf_rule_sched, NULL};
static kf_status rule_some_replicas(const kf_job *j, int style,
                                    const char *who, kf_err *e);
static const kf_rule some_replicas[] = {rule_replicas, rule_some_replicas,
                                        rule_bounds, kf_rule_pod, kf_rule_sched,
                                        NULL};

/* Replica bounds of the operator-only kinds (training-operator v1.9
** webhooks, SPEC §11 Decisions): a JAX Worker is required (it is the only
** group); an XGBoost Master is exactly 1 and its Workers may be absent; a
** Paddle Master defaults to 1 and is optional (0 leaves it out), neither
** group bounded above (the webhook has no count rule). */
static const kf_replica_bounds jax_bounds[KF_NROLES] = {
    [KF_WORKER] = {0, KF_R_REQUIRED}};
static const kf_replica_bounds xgb_bounds[KF_NROLES] = {
    [KF_WORKER] = {0, 0}, [KF_MASTER] = {1, KF_R_FIXED1}};
static const kf_replica_bounds paddle_bounds[KF_NROLES] = {
    [KF_WORKER] = {0, 0}, [KF_MASTER] = {1, 0}};

#define TF0 &flyteidl__plugins__distributed_tensorflow_training_task__descriptor
#define PT0 &flyteidl__plugins__distributed_py_torch_training_task__descriptor
#define MPI0 &flyteidl__plugins__distributed_mpitraining_task__descriptor
#define TF1 &flyteidl__plugins__kubeflow__distributed_tensorflow_training_task__descriptor
#define PT1 &flyteidl__plugins__kubeflow__distributed_py_torch_training_task__descriptor
#define MPI1 &flyteidl__plugins__kubeflow__distributed_mpitraining_task__descriptor
#define TF1R &flyteidl__plugins__kubeflow__distributed_tensorflow_training_replica_spec__descriptor
#define PT1R &flyteidl__plugins__kubeflow__distributed_py_torch_training_replica_spec__descriptor
#define MPI1R &flyteidl__plugins__kubeflow__distributed_mpitraining_replica_spec__descriptor

/* Role order inside a kind is the order of the constructor's groups and of
** spec() output. */
const kf_kind_info kf_kinds[KF_NKINDS] = {
  [KF_TFJOB] = {"TFJob", "tensorflow", "tensorflow", "TFJob", "tfReplicaSpecs",
   KF_K_RUNPOLICY, 4,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_PS, "ps_replicas", "ps_replicas", "num_ps_replicas"},
    {KF_CHIEF, "chief_replicas", "chief_replicas", "num_chief_replicas"},
    {KF_EVALUATOR, "evaluator_replicas", "evaluator_replicas",
     "num_evaluator_replicas"}},
   TF0, TF1, TF1R, ROWS(tf_rows), replicated, NULL, "tfjob-port", 2222},
  [KF_PYTORCH] = {"PyTorchJob", "pytorch", "pytorch", "PyTorchJob",
   "pytorchReplicaSpecs", KF_K_RUNPOLICY, 2,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_MASTER, "master_replicas", NULL, NULL}},
   PT0, PT1, PT1R, ROWS(pytorch_rows), replicated, NULL, "pytorchjob-port",
   23456},
  [KF_ELASTIC] = {"Elastic", "pytorch", "pytorch", "PyTorchJob",
   "pytorchReplicaSpecs", KF_K_RUNPOLICY | KF_K_ELASTIC, 1,
   {{KF_WORKER, "worker_replicas", "workers", NULL}},
   PT0, PT1, PT1R, ROWS(elastic_rows), elastic, NULL, "pytorchjob-port",
   23456},
  [KF_MPI] = {"MPIJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R, ROWS(mpi_rows), replicated, NULL, NULL, 0},
  [KF_HOROVOD] = {"HorovodJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND | KF_K_HOROVOD, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R, ROWS(horovod_rows), replicated, NULL, NULL, 0},
  [KF_JAX] = {"JAXJob", NULL, "jax", "JAXJob", "jaxReplicaSpecs",
   KF_K_RUNPOLICY, 1, {{KF_WORKER, NULL, NULL, NULL}},
   NULL, NULL, NULL, ROWS(operator_rows), replicated, jax_bounds,
   "jaxjob-port", 6666},
  [KF_XGBOOST] = {"XGBoostJob", NULL, "xgboost", "XGBoostJob", "xgbReplicaSpecs",
   KF_K_RUNPOLICY, 2,
   {{KF_WORKER, NULL, NULL, NULL}, {KF_MASTER, NULL, NULL, NULL}},
   NULL, NULL, NULL, ROWS(operator_rows), replicated, xgb_bounds,
   "xgboostjob-port", 9999},
  [KF_PADDLE] = {"PaddleJob", NULL, "paddle", "PaddleJob", "paddleReplicaSpecs",
   KF_K_RUNPOLICY, 2,
   {{KF_WORKER, NULL, NULL, NULL}, {KF_MASTER, NULL, NULL, NULL}},
   NULL, NULL, NULL, ROWS(operator_rows), some_replicas, paddle_bounds,
   "master", 36543},
};

/* ---- lookups ---------------------------------------------------------- */

const kf_kind_role *kf_kind_role_of(const kf_kind_info *k, int role) {
  int i;
  for (i = 0; i < k->nroles; i++)
    if (k->roles[i].role == role) return &k->roles[i];
  return NULL;
}

kf_replica_bounds kf_kind_role_bounds(const kf_kind_info *k, int role) {
  kf_replica_bounds b;
  if (k->bounds) return k->bounds[role];
  b.default_replicas = kf_roles[role].default_replicas;
  b.flags = kf_roles[role].flags;
  return b;
}

int kf_kind_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NKINDS; i++)
    if (strcmp(kf_kinds[i].name, name) == 0) return i;
  return -1;
}

/* "TFJob, PyTorchJob, ... or PaddleJob" and the same of the kinds with a
** Flyte task type, built once from the kind rows. */
static char names_buf[KF_NKINDS * 24], flyte_names_buf[KF_NKINDS * 24];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_of(char *buf, size_t cap, int flyte_only) {
  size_t l = 0;
  int i, n = 0, last = -1;
  for (i = 0; i < KF_NKINDS; i++)
    if (!flyte_only || kf_kinds[i].task_type) last = i;
  for (i = 0; i < KF_NKINDS; i++) {
    if (flyte_only && !kf_kinds[i].task_type) continue;
    l += (size_t)snprintf(buf + l, cap - l, "%s%s",
                          n++ == 0 ? "" : i == last ? " or " : ", ",
                          kf_kinds[i].name);
  }
}

static void kind_names_init(void) {
  names_of(names_buf, sizeof names_buf, 0);
  names_of(flyte_names_buf, sizeof flyte_names_buf, 1);
}

const char *kf_kind_names(void) {
  pthread_once(&names_once, kind_names_init);
  return names_buf;
}

const char *kf_flyte_kind_names(void) {
  pthread_once(&names_once, kind_names_init);
  return flyte_names_buf;
}

kf_status kf_need_task_type(int kind, const char *who, kf_err *e) {
  if (kf_kinds[kind].task_type != NULL) return KF_OK;
  return kf_fail(e, KF_EINVAL,
                 "%s: %s has no Flyte task type, so no plugin message, "
                 "TaskTemplate or TaskSpec (kinds with one: %s); the "
                 "training-operator runs it from manifest()",
                 who, kf_kinds[kind].name, kf_flyte_kind_names());
}

int kf_role_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NROLES; i++)
    if (strcmp(kf_roles[i].name, name) == 0) return i;
  return -1;
}

int kf_enum_parse(const kf_enum *en, const char *s) {
  int v, k;
  for (v = 0; v < en->n; v++)
    for (k = 0; k < 3; k++)
      if (strcmp(en->spell[v][k], s) == 0) return v;
  return -1;
}

int kf_parse_restart_policy(const char *s) {
  return kf_enum_parse(&kf_restart_policy_enum, s);
}
int kf_parse_clean_pod_policy(const char *s) {
  return kf_enum_parse(&kf_clean_pod_policy_enum, s);
}

int kf_group_takes_slow(const kf_field *f, int kind, int role) {
  if (f->flags & KF_F_REPLICAS)
    return kind < 0 || !(kf_kinds[kind].flags & KF_K_ELASTIC);
  if (f->flags & KF_F_COMMAND)
    return kind >= 0 ? (kf_kinds[kind].flags & KF_K_COMMAND) != 0
                     : role == KF_WORKER || role == KF_LAUNCHER;
  return 1;
}

int kf_python_task(const kf_job *j) {
  return j->kind == KF_ELASTIC && j->nnodes_int && j->max_nodes == 1;
}

const char *kf_task_type(const kf_job *j) {
  return kf_python_task(j) ? "python-task" : kf_kinds[j->kind].task_type;
}

void kf_job_defaults(kf_job *j, int kind) {
  const kf_kind_info *k = &kf_kinds[kind];
  size_t i;
  int r;
  memset(j, 0, sizeof *j);
  j->kind = kind;
  for (r = 0; r < KF_NROLES; r++) j->g[r].replicas = kf_roles[r].default_replicas;
  for (r = 0; r < k->nroles; r++)
    j->g[k->roles[r].role].replicas =
        kf_kind_role_bounds(k, k->roles[r].role).default_replicas;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    char *at = (char *)j + f->off;
    switch (f->type) {
      case KF_V_INT: case KF_V_ENUM: case KF_V_NPROC:
        *(int32_t *)(void *)at = f->idef;
        break;
      case KF_V_BOOL: *(int *)(void *)at = f->idef; break;
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE:
        *(const char **)(void *)at = f->sdef;
        break;
      case KF_V_NNODES:
        j->min_nodes = j->max_nodes = f->idef;
        j->nnodes_int = 1;
        break;
      default: break;
    }
  }
}

/* ---- rules ------------------------------------------------------------ */

/* Path of a group's replica count in the given style. */
void kf_replicas_path(const kf_job *job, int role, int s, char *out,
                          size_t cap) {
  const kf_kind_role *kr = kf_kind_role_of(&kf_kinds[job->kind], role);
  char j[64];
  if (s == KF_PATH_SPEC && (job->deprecated >> role & 1u)) {
    snprintf(out, cap, "%s", kr->deprecated_key);  /* what the caller wrote */
  } else if (s == KF_PATH_SPEC) {
    snprintf(out, cap, "%s.replicas", kf_roles[role].key);
  } else if (s == KF_PATH_V1) {
    kf_json_name(kr->v1_field, j, sizeof j);
    snprintf(out, cap, "%s.replicas", j);
  } else {
    kf_json_name(kr->v0_field ? kr->v0_field : kr->v1_field, j, sizeof j);
    snprintf(out, cap, "%s", j);
  }
}

/* Each role's replica bounds that hold on every target (KF_R_*). */
static kf_status rule_replicas(const kf_job *j, int s, const char *who,
                               kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    int32_t n = j->g[role].replicas;
    unsigned f = kf_kind_role_bounds(k, role).flags;
    const char *rule = NULL;
    if (n < 0) rule = "must be >= 0";
    else if ((f & KF_R_FIXED1) && n != 1) rule = "must be 1";
    else if ((f & KF_R_REQUIRED) && n < 1) rule = "must be >= 1";
    if (rule) {
      kf_replicas_path(j, role, s, path, sizeof path);
      return kf_fail(e, KF_EINVAL, "%s: %s: %s (got %d)", who, path, rule,
                     (int)n);
    }
  }
  return KF_OK;
}

/* At least one pod, where no group is required on its own (a PaddleJob
** with neither Master nor Workers would be an empty resource). */
static kf_status rule_some_replicas(const kf_job *j, int s, const char *who,
                                    kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i;
  for (i = 0; i < k->nroles; i++)
    if (j->g[k->roles[i].role].replicas > 0) return KF_OK;
  kf_replicas_path(j, k->roles[0].role, s, path, sizeof path);
  return kf_fail(e, KF_EINVAL, "%s: %s: must be >= 1 when %s.replicas is 0 "
                 "(a %s needs at least one pod)", who, path,
                 kf_roles[k->roles[k->nroles - 1].role].key, k->name);
}

/* Where a row is, in the given style: its spec key, or its proto path in
** JSON names. */
void kf_row_path(const char *parent_key, const char *parent_pb,
                 const kf_field *f, int s, char *out, size_t cap) {
  char a[64], b[64];
  if (s == KF_PATH_SPEC) {
    snprintf(out, cap, "%s%s%s", parent_key ? parent_key : "",
             parent_key ? "." : "", f->key);
    return;
  }
  if (parent_pb == NULL) parent_pb = f->pbmsg;
  kf_json_name(f->pb, b, sizeof b);
  if (parent_pb) kf_json_name(parent_pb, a, sizeof a);
  snprintf(out, cap, "%s%s%s", parent_pb ? a : "", parent_pb ? "." : "", b);
}

static kf_status bounds_of(const char *base, const kf_field *f, size_t n,
                           const char *pkey, const char *ppb, int s,
                           const char *who, kf_err *e) {
  char path[128];
  size_t i;
  for (i = 0; i < n; i++, f++) {
    const char *at = base + f->off;
    if (f->pb == NULL) continue;  /* checked where it is parsed */
    if ((f->type == KF_V_INT ||
         (f->type == KF_V_NPROC && !*(const char *const *)(const void *)(base + f->off_n))) &&
        *(const int32_t *)(const void *)at < f->min) {
      kf_row_path(pkey, ppb, f, s, path, sizeof path);
      return kf_fail(e, KF_EINVAL, "%s: %s: must be >= %d (got %d)", who, path,
                     (int)f->min, (int)*(const int32_t *)(const void *)at);
    }
    if (f->type == KF_V_NNODES) {
      const kf_job *j = (const kf_job *)(const void *)base;
      /* min > max is a target's matter (R9, kf_target_rules.c) */
      if (j->min_nodes < 1) {
        kf_row_path(pkey, ppb, f, s, path, sizeof path);
        return kf_fail(e, KF_EINVAL, "%s: %s: needs 1 <= min <= max (got %d:%d)",
                       who, path, (int)j->min_nodes, (int)j->max_nodes);
      }
    }
    if (f->type == KF_V_OBJ && f->off_n &&
        *(const int *)(const void *)(base + f->off_n)) {
      const kf_obj *o = (const kf_obj *)f->info;
      kf_status st = bounds_of(at, o->f, o->n, f->key, f->pb, s, who, e);
      if (st) return st;
    }
  }
  return KF_OK;
}

/* Every row's lower bound, for values that did not come through the
** parser (decoded messages). */
static kf_status rule_bounds(const kf_job *j, int s, const char *who,
                             kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  return bounds_of((const char *)j, k->fields, k->nfields, NULL, NULL, s, who,
                   e);
}

/*
** kf_schema.c - the job kinds, their replica groups and every field, as
** data (see kf_schema.h for what a row holds).  Adding a field means adding
** a row here; adding a kind means a kind row, its field list and its
** protos.  The rules that relate several fields are named functions
** (kf_kinds.c and the checks' files), listed in each kind's row; the
** lookups over these rows are kf_kinds.c's.
*/

#include "kf_job.h"
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
  {"Worker",    "worker",    0, 0,
   "The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer"},
  {"PS",        "ps",        0, 0,
   "TensorFlow parameter servers: the PS replica spec in the plugin message, tfReplicaSpecs.PS in the manifest"},
  {"Chief",     "chief",     0, 0,
   "The TensorFlow chief (checkpoints, summaries): the Chief replica spec in the plugin message, tfReplicaSpecs.Chief in the manifest"},
  {"Evaluator", "evaluator", 0, 0,
   "TensorFlow evaluators: the Evaluator replica spec in the plugin message, tfReplicaSpecs.Evaluator in the manifest"},
  {"Master",    "master",    1, KF_R_FIXED1,
   "The rank-0 pod (PyTorch, XGBoost, Paddle; exactly 1 where required): the master replica spec in the PyTorch v1 plugin message, spec.<kind>ReplicaSpecs.Master in operator manifests; on Trainer one of the node job's pods"},
  {"Launcher",  "launcher",  1, KF_R_FIXED1,
   "The MPI launcher pod that runs mpirun/horovodrun (exactly 1): the launcher replica spec in the plugin message, mpiReplicaSpecs.Launcher in the manifest"},
};

/* ---- enums: every accepted spelling, by value ------------------------- */

static const char *const rp_spell[4][3] = {
  {"never", "Never", "RESTART_POLICY_NEVER"},
  {"on_failure", "OnFailure", "RESTART_POLICY_ON_FAILURE"},
  {"always", "Always", "RESTART_POLICY_ALWAYS"},
  {"exit_code", "ExitCode", "RESTART_POLICY_EXIT_CODE"},   /* not in the proto */
};
static const char *const cp_spell[3][3] = {
  {"none", "None", "CLEANPOD_POLICY_NONE"},
  {"running", "Running", "CLEANPOD_POLICY_RUNNING"},
  {"all", "All", "CLEANPOD_POLICY_ALL"},
};
static const char *const rp_k8s[4] = {"Never", "OnFailure", "Always", "ExitCode"};
static const char *const cp_k8s[3] = {"None", "Running", "All"};

const kf_enum kf_restart_policy_enum = {
    "restart policy", "never, on_failure, always or exit_code", rp_spell, 4, rp_k8s, 3};
const kf_enum kf_clean_pod_policy_enum = {
    "clean pod policy", "none, running or all", cp_spell, 3, cp_k8s, 3};

/* torchrun's --nproc-per-node words (R10: only the operator's
** spec.nprocPerNode and Trainer's "auto" can carry them) */
static const char *const nproc_v[] = {"auto", "cpu", "gpu", NULL};
static const kf_choice nproc_choice = {"nproc_per_node",
                                       "an integer >= 1, auto, cpu or gpu", nproc_v};
/* static: torchrun's fixed membership, flyte-sdk TorchRun's default and a
** ClusteredTaskSpec's STATIC (flyteidl2 plugins/clustered.proto) */
static const char *const rdzv_v[] = {"c10d", "etcd", "etcd-v2", "static", NULL};
static const kf_choice rdzv_choice = {"rendezvous backend",
                                      "c10d, etcd, etcd-v2 or static", rdzv_v};

/* ---- rows ------------------------------------------------------------- */

#define RES(i) ((i) * sizeof(const char *))

/* Proto names are the ResourceName enum's; manifest keys Kubernetes'. */
static const kf_field resource_rows[KF_NRES + 1] = {
  [KF_CPU] = {.key = "cpu", .type = KF_V_QTY, .off = RES(KF_CPU), .pb = "CPU",
   .manifest = "cpu",
   .desc = "CPU cores, a quantity (4, \"500m\"): ResourceName CPU in the plugin message and TaskTemplate, cpu in the container resources of every manifest (Trainer: resourcesPerNode)"},
  [KF_MEM] = {.key = "mem", .alias = "memory", .type = KF_V_QTY, .off = RES(KF_MEM),
   .pb = "MEMORY", .manifest = "memory",
   .desc = "Memory, a quantity (\"32Gi\"): ResourceName MEMORY in the plugin message and TaskTemplate, memory in the container resources of every manifest (Trainer: resourcesPerNode)"},
  [KF_GPU] = {.key = "gpu", .type = KF_V_QTY, .off = RES(KF_GPU), .pb = "GPU",
   .manifest = "nvidia.com/gpu",
   .desc = "NVIDIA GPUs, a quantity (2): ResourceName GPU in the plugin message and TaskTemplate, nvidia.com/gpu in the container resources of every manifest (Trainer: resourcesPerNode)"},
  [KF_EPH] = {.key = "ephemeral_storage", .type = KF_V_QTY, .off = RES(KF_EPH),
   .pb = "EPHEMERAL_STORAGE", .manifest = "ephemeral-storage",
   .desc = "Local scratch disk, a quantity (\"100Gi\"): ResourceName EPHEMERAL_STORAGE in the plugin message and TaskTemplate, ephemeral-storage in the container resources of every manifest"},
  /* the other Kubernetes resources, also given as keys of the table itself
  ** (KF_F_REST): stored after the array (kf_job.h, checked below) */
  [KF_NRES] = {.key = "extended", .type = KF_V_TREE, .flags = KF_F_REST,
   .off = RES(KF_NRES), .info = &kf_ext_res_tree,
   .desc = "Other Kubernetes resources, name = quantity (\"amd.com/gpu\", \"vpc.amazonaws.com/efa\", \"hugepages-2Mi\"), also given as keys of requests/limits themselves: the container resources of operator, mpi-operator and Trainer manifests (an extended resource's request equals its limit); Flyte's Resources has no such name (an error on flyte, flyte2, flyte2-clustered)"},
};
const kf_obj kf_resources_obj = {NULL, "a table of resources", resource_rows,
                                 sizeof resource_rows / sizeof *resource_rows, "Resources"};
const kf_obj kf_min_resources_obj = {NULL, "a table of resources", resource_rows, KF_NRES,
                                     "MinResources"};
/* the rest row's offset from an array is its tree's in the structs */
_Static_assert(offsetof(kf_group, requests_ext) == offsetof(kf_group, requests) + RES(KF_NRES) &&
               offsetof(kf_group, limits_ext) == offsetof(kf_group, limits) + RES(KF_NRES) &&
               offsetof(kf_job, requests_ext) == offsetof(kf_job, requests) + RES(KF_NRES) &&
               offsetof(kf_job, limits_ext) == offsetof(kf_job, limits) + RES(KF_NRES),
               "extended resources follow their arrays");

/* Kueue topology-aware scheduling (SPEC §13): each key becomes a
** kueue.x-k8s.io/podset-* annotation on the pod template. */
#define TOPO(f) offsetof(kf_topology, f)
static const kf_field topology_rows[] = {
  {.key = "required", .type = KF_V_TOKEN, .off = TOPO(required),
   .check = KF_CHECK_LABEL_KEY, .manifest = KF_TAS_REQUIRED,
   .desc = "Kueue topology level (a node label key) all these pods must share: annotation kueue.x-k8s.io/podset-required-topology on the pod template (Trainer: in the runtime patch)"},
  {.key = "preferred", .type = KF_V_TOKEN, .off = TOPO(preferred),
   .check = KF_CHECK_LABEL_KEY, .manifest = KF_TAS_PREFERRED,
   .desc = "Kueue topology level these pods should share when they fit: annotation kueue.x-k8s.io/podset-preferred-topology on the pod template (Trainer: in the runtime patch)"},
  {.key = "unconstrained", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,
   .off = TOPO(unconstrained), .manifest = KF_TAS_UNCONSTRAINED,
   .desc = "true: Kueue may place these pods in any topology domain: annotation kueue.x-k8s.io/podset-unconstrained-topology on the pod template"},
  {.key = "slice_required", .type = KF_V_TOKEN, .off = TOPO(slice_required),
   .check = KF_CHECK_LABEL_KEY, .manifest = KF_TAS_SLICE_REQUIRED,
   .desc = "Kueue topology level each slice of slice_size pods must share: annotation kueue.x-k8s.io/podset-slice-required-topology on the pod template"},
  {.key = "slice_size", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = TOPO(slice_size), .off_n = TOPO(zero), .zbit = 1u, .min = 1,
   .manifest = KF_TAS_SLICE_SIZE,
   .desc = "Pods per slice, an integer >= 1 (with slice_required): annotation kueue.x-k8s.io/podset-slice-size on the pod template"},
  {.key = "slices", .type = KF_V_TREE, .off = TOPO(slices), .info = &kf_slices_tree,
   .manifest = KF_TAS_SLICES,
   .desc = "Kueue multi-layer slice constraints, 1 to 3 levels { level = LABEL, size = N } from the widest, each size dividing the one above, the first at most the pod set's pods; without slice_required, slice_size and group: annotation kueue.x-k8s.io/podset-slice-required-topology-constraints (JSON) on the pod template"},
  {.key = "group", .type = KF_V_TOKEN, .off = TOPO(group),
   .manifest = KF_TAS_GROUP,
   .desc = "Kueue pod set group (not a number; with required or preferred, without slices): two pod sets of one name, one of them a single pod, are placed together: annotation kueue.x-k8s.io/podset-group-name on the pod template"},
};
const kf_obj kf_topology_obj = {NULL, "a table of named fields", topology_rows,
                                sizeof topology_rows / sizeof *topology_rows, "Topology"};

/* What the pods run (the whole job): a job's container, or what one group
** runs differently (the same rows but the image, which is the group's).
** The job's rows but the name are also the TaskTemplate container's
** (place KF_M_TASK_CONTAINER: core.Container's fields of their keys); a
** group's container is not in the TaskTemplate (P: KF_M_NONE). */
#define CT(f) offsetof(kf_container, f)
#define CONTAINER_ROWS(P)                                                     \
  {.key = "command", .type = KF_V_STRLIST, .off = CT(command), .off_n = CT(ncommand), \
   .place = P,                                                                \
   .desc = "The main container's command (a list of strings): the TaskTemplate container's command, each pod's main container command in manifests (a call's opts.command wins)"}, \
  {.key = "args", .type = KF_V_STRLIST, .off = CT(args), .off_n = CT(nargs),  \
   .place = P,                                                                \
   .desc = "The main container's args (a list of strings): the TaskTemplate container's args (MPI and Horovod: wrapped in the launcher line), each pod's main container args in manifests (a call's opts.args wins)"}, \
  {.key = "name", .type = KF_V_TOKEN, .off = CT(name),                        \
   .desc = "The main container's name (mpi-operator and a v1 MPIJob run containers[0] whatever its name; the training-operator's webhooks require the kind's name, R51): the kind's (pytorch, mpi, ...) when unset"}, \
  {.key = "env", .type = KF_V_TREE, .off = CT(env), .info = &kf_env_tree,    \
   .place = P,                                                                \
   .desc = "The main container's environment: a list of Kubernetes EnvVars ({name =, value =} or {name =, valueFrom =}) kept in order, or a table of name = value emitted sorted; TaskTemplate container env (name/value only on Flyte), each pod's main container env in manifests"}
static const kf_field container_rows[] = {
  {.key = "image", .type = KF_V_TOKEN, .off = CT(image), .place = KF_M_TASK_CONTAINER,
   .desc = "The task image: the TaskTemplate container's image and the image of every group without its own, in every manifest (a call's opts.image wins)"},
  CONTAINER_ROWS(KF_M_TASK_CONTAINER)
  KF_CANARY_TASK_CONTAINER_ROWS
};
static const kf_field group_container_rows[] = {CONTAINER_ROWS(KF_M_NONE)};
const kf_obj kf_container_obj = {NULL, "a table of named fields", container_rows,
                                 sizeof container_rows / sizeof *container_rows, "Container"};
const kf_obj kf_group_container_obj = {NULL, "a table of named fields", group_container_rows,
                                       sizeof group_container_rows / sizeof *group_container_rows,
                                       "GroupContainer"};

#define G(f) offsetof(kf_group, f)
static const kf_field group_rows[] = {
  {.key = "replicas", .type = KF_V_INT, .flags = KF_F_REPLICAS,
   .off = G(replicas), .min = 0, .pb = "replicas", .pb0 = "replicas",
   .manifest = "replicas", .place = KF_M_REPLICA,
   .denied = "not settable here (an elastic job takes nnodes)",
   .desc = "Pods in this group: the replica spec's replicas in the v1 plugin message (the v0 count field in v0), spec.<kind>ReplicaSpecs.<Group>.replicas in operator manifests (Trainer: numNodes); an elastic job takes nnodes"},
  {.key = "image", .type = KF_V_TOKEN, .off = G(image),
   .pb = "image", .manifest = "image", .place = KF_M_CONTAINER,
   .desc = "Container image of this group's pods (wins over the task's image): the replica spec's image in the v1 plugin message (v0 cannot carry it), the container image in every manifest"},
  {.key = "requests", .type = KF_V_OBJ, .off = G(requests),
   .info = &kf_resources_obj, .pbmsg = "resources", .pb = "requests",
   .manifest = "requests", .place = KF_M_RESOURCES,
   .desc = "Resources this group's containers request: the replica spec's resources.requests in the v1 plugin message, the container's resources.requests in every manifest (Trainer: resourcesPerNode)"},
  {.key = "limits", .type = KF_V_OBJ, .off = G(limits),
   .info = &kf_resources_obj, .pbmsg = "resources", .pb = "limits",
   .manifest = "limits", .place = KF_M_RESOURCES,
   .desc = "Resource limits of this group's containers: the replica spec's resources.limits in the v1 plugin message, the container's resources.limits in every manifest (Trainer: resourcesPerNode)"},
  {.key = "restart_policy", .type = KF_V_ENUM, .off = G(restart_policy),
   .idef = KF_RP_NEVER, .info = &kf_restart_policy_enum,
   .pb = "restart_policy", .manifest = "restartPolicy", .place = KF_M_REPLICA,
   .values_on = kf_restart_policy_on,
   .desc = "When this group's failed pods restart (never, on_failure, always, exit_code): the replica spec's restart_policy in the v1 plugin message, the replica spec's restartPolicy in operator manifests; exit_code (ExitCode: restart on an exit code >= 128) on the operator only; the mpi-operator takes never and on_failure, Trainer only never (R13)"},
  {.key = "command", .type = KF_V_STRLIST, .flags = KF_F_COMMAND,
   .off = G(command), .off_n = G(ncommand), .pb = "command",
   .manifest = "args", .place = KF_M_CONTAINER, .denied = "only MPI and Horovod groups take a command",
   .desc = "MPI and Horovod Worker/Launcher only: the group's command, the replica spec's command in the v1 plugin message and the container args in manifests (the launcher's mpirun/horovodrun line)"},
  {.key = "pod_template", .type = KF_V_TREE, .off = G(pod_template),
   .info = &kf_pod_template_tree,
   .desc = "A PodTemplateSpec merged over the job's pod_template for this group's pods only (kubectl's merge); not in the plugin message; Trainer only when every group has the same, Flyte refuses it (R31)"},
  {.key = "topology", .type = KF_V_OBJ, .off = G(topology),
   .off_n = G(has_topology), .info = &kf_topology_obj,
   .desc = "Kueue topology placement of this group's pods (replaces the job's, annotation by annotation): podset annotations on this group's pod template; not on Flyte (R31)"},
  {.key = "container", .type = KF_V_OBJ, .off = G(container),
   .off_n = G(has_container), .info = &kf_group_container_obj,
   .desc = "What this group's pods run differently (command, args, env; a TFJob's PS, an MPI launcher): the group's main container in manifests, each key replacing the job's container's; not on Flyte (one task container), on Trainer only when every group has the same"},
  KF_CANARY_GROUP_ROWS
};
const kf_obj kf_group_obj = {NULL, "a table of named fields", group_rows,
                             sizeof group_rows / sizeof *group_rows, "Group"};

#define RP(f) offsetof(kf_run_policy, f)
static const kf_field run_policy_rows[] = {
  {.key = "clean_pod_policy", .type = KF_V_ENUM, .off = RP(clean_pod_policy),
   .idef = KF_CP_NONE, .info = &kf_clean_pod_policy_enum,
   .pb = "clean_pod_policy", .manifest = "cleanPodPolicy",
   .place = KF_M_RUN_POLICY,
   .desc = "Which pods are deleted when the job ends (none, running, all): run_policy.clean_pod_policy in the v1 plugin message, spec.runPolicy.cleanPodPolicy in operator manifests; dropped with a warning on Trainer (R20)"},
  {.key = "ttl_seconds_after_finished", .type = KF_V_INT,
   .flags = KF_F_OMITZERO, .off = RP(ttl_seconds_after_finished),
   .off_n = RP(zero), .zbit = KF_RPZ_TTL, .pb = "ttl_seconds_after_finished",
   .manifest = "ttlSecondsAfterFinished",
   .place = KF_M_RUN_POLICY,
   .desc = "Seconds after the job ends before it is deleted: run_policy.ttl_seconds_after_finished in the v1 plugin message, spec.runPolicy.ttlSecondsAfterFinished in operator manifests; dropped on Trainer (R20)"},
  {.key = "active_deadline_seconds", .type = KF_V_INT,
   .flags = KF_F_OMITZERO, .off = RP(active_deadline_seconds),
   .off_n = RP(zero), .zbit = KF_RPZ_DEADLINE, .pb = "active_deadline_seconds",
   .manifest = "activeDeadlineSeconds",
   .place = KF_M_RUN_POLICY,
   .desc = "Seconds the job may run before it is failed: run_policy.active_deadline_seconds in the v1 plugin message, spec.runPolicy.activeDeadlineSeconds in operator manifests, activeDeadlineSeconds on Trainer"},
  {.key = "backoff_limit", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = RP(backoff_limit), .off_n = RP(zero), .zbit = KF_RPZ_BACKOFF,
   .pb = "backoff_limit", .manifest = "backoffLimit",
   .place = KF_M_RUN_POLICY,
   .desc = "Retries before the job is marked failed: run_policy.backoff_limit in the v1 plugin message, spec.runPolicy.backoffLimit in operator manifests; dropped with a warning on Trainer (R20)"},
  KF_CANARY_RUN_POLICY_ROWS
};
const kf_obj kf_run_policy_obj = {"RunPolicy", "a kfjob.RunPolicy or a table",
                                  run_policy_rows,
                                  sizeof run_policy_rows / sizeof *run_policy_rows, "RunPolicy"};

/* Job-level rows shared by several kinds. */
#define J(f) offsetof(kf_job, f)
#define GROUPS {.key = "(groups)", .type = KF_V_GROUPS, .desc = "The kind's replica groups (worker, master, ...): each a table of group fields"}
#define DEPRECATED {.key = "(deprecated)", .type = KF_V_DEPRECATED, .min = 0, .desc = "The v0 plugin message's replica counts (num_workers, ...): deprecated spellings of <group>.replicas"}
#define RUN_POLICY                                                         \
  {.key = "run_policy", .type = KF_V_OBJ, .off = J(rp),                    \
   .off_n = J(has_run_policy), .info = &kf_run_policy_obj,                 \
   .pb = "run_policy", .manifest = "runPolicy", \
   .desc = "Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests"}
#define SLOTS                                                              \
  {.key = "slots", .type = KF_V_INT, .off = J(slots), .min = 1, .idef = 1, \
   .pb = "slots", .pb0 = "slots", .manifest = "slotsPerWorker", \
   .desc = "MPI processes per worker, an integer >= 1: slots in the plugin message, slotsPerWorker in manifests (Flyte 1.x writes 1, R11) and the launcher's -np = workers x slots"}

/* Pod settings (SPEC 2.4): every kind; kf_pod.c checks the template and
** relates them (kf_rule_pod); none travels in the plugin message. */
#define ACC(f) offsetof(kf_accel, f)
static const kf_field accel_rows[] = {
  {.key = "device", .type = KF_V_TOKEN, .off = ACC(device),
   .desc = "Accelerator device (\"nvidia-tesla-a100\"): TaskTemplate extended_resources.gpu_accelerator.device; in manifests a k8s.amazonaws.com/accelerator node affinity and toleration on GPU pods"},
  {.key = "partition_size", .type = KF_V_TOKEN, .off = ACC(partition_size),
   .desc = "GPU partition (MIG) size (\"1g.5gb\"): TaskTemplate gpu_accelerator.partition_size; in manifests a k8s.amazonaws.com/gpu-partition-size node affinity and toleration"},
  {.key = "unpartitioned", .type = KF_V_BOOL, .off = ACC(unpartitioned),
   .desc = "true: a whole, unpartitioned GPU: TaskTemplate gpu_accelerator.unpartitioned; in manifests k8s.amazonaws.com/gpu-partition-size DoesNotExist node affinity"},
};
static const kf_obj accel_obj = {NULL, "a device name or a table",
                                 accel_rows, sizeof accel_rows / sizeof *accel_rows, "Accelerator"};
#define POD                                                                \
  {.key = "pod_template", .type = KF_V_TREE, .off = J(pod_template),       \
   .info = &kf_pod_template_tree, \
   .desc = "A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)"},                                         \
  {.key = "shared_memory", .type = KF_V_SIZE, .off = J(shared_memory), \
   .desc = "true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest"},    \
  {.key = "accelerator", .type = KF_V_OBJ, .flags = KF_F_SHORT,            \
   .off = J(accel), .off_n = J(has_accelerator), .info = &accel_obj, \
   .desc = "GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests"},      \
  {.key = "requests", .type = KF_V_OBJ, .off = J(requests),                \
   .info = &kf_resources_obj, .manifest = "requests", \
   .desc = "Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's"},                     \
  {.key = "limits", .type = KF_V_OBJ, .off = J(limits),                    \
   .info = &kf_resources_obj, .manifest = "limits", \
   .desc = "Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's"}

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
   .manifest = "minAvailable",
   .desc = "Pods that must be schedulable together before any starts, an integer >= 1: spec.runPolicy.schedulingPolicy.minAvailable (operator, mpi-operator); Trainer and Flyte refuse it (R28, R30)"},
  {.key = "queue", .type = KF_V_TOKEN, .off = GANG(queue), .manifest = "queue",
   .desc = "Volcano queue of the gang's PodGroup: schedulingPolicy.queue (operator, mpi-operator); Trainer: annotation scheduling.volcano.sh/queue-name; Flyte refuses it (R30)"},
  {.key = "priority_class", .type = KF_V_TOKEN, .off = GANG(priority_class),
   .manifest = "priorityClass",
   .desc = "PriorityClass of the gang's PodGroup: schedulingPolicy.priorityClass (operator, mpi-operator); Trainer and Flyte refuse it (R28, R30)"},
  {.key = "schedule_timeout_seconds", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = GANG(schedule_timeout_seconds), .off_n = GANG(zero), .zbit = 2u,
   .min = 1, .manifest = "scheduleTimeoutSeconds",
   .desc = "Seconds the gang may wait to be scheduled, an integer >= 1: schedulingPolicy.scheduleTimeoutSeconds (operator, mpi-operator); Trainer and Flyte refuse it"},
  {.key = "min_resources", .type = KF_V_OBJ, .off = GANG(min_resources),
   .off_n = GANG(has_min_resources), .info = &kf_min_resources_obj,
   .manifest = "minResources",
   .desc = "Resources the gang needs before it starts: schedulingPolicy.minResources with Kubernetes resource names (operator, mpi-operator); Trainer and Flyte refuse it"},
  {.key = "scheduler", .type = KF_V_CHOICE, .off = GANG(scheduler),
   .info = &gang_scheduler_choice,
   .desc = "The gang scheduler the cluster runs (volcano, scheduler-plugins): written nowhere, it only steers lint about what that scheduler reads"},
};
static const kf_obj gang_obj = {NULL, "a table of named fields", gang_rows,
                                sizeof gang_rows / sizeof *gang_rows, "Gang"};
#define SC(f) offsetof(kf_sched, f)
static const kf_field sched_rows[] = {
  {.key = "queue", .type = KF_V_TOKEN, .off = SC(queue),
   .manifest = KF_KUEUE_QUEUE, .check = KF_CHECK_KUEUE_NAME,
   .desc = "Kueue LocalQueue the job waits in: label kueue.x-k8s.io/queue-name on the resource (flyte2: on the PyTorchJob pod template); Flyte 1.x refuses it (R30)"},
  {.key = "priority_class", .type = KF_V_TOKEN, .off = SC(priority_class),
   .manifest = KF_KUEUE_PRIORITY, .check = KF_CHECK_KUEUE_NAME,
   .desc = "Kueue WorkloadPriorityClass: label kueue.x-k8s.io/priority-class on the resource (flyte2: on the PyTorchJob pod template); Flyte 1.x refuses it (R30)"},
  {.key = "max_exec_time", .type = KF_V_INT, .flags = KF_F_OMITZERO,
   .off = SC(max_exec_time), .off_n = SC(zero), .zbit = 1u, .min = 1,
   .manifest = KF_KUEUE_MAX_EXEC,
   .desc = "Seconds Kueue lets the job run, an integer >= 1: label kueue.x-k8s.io/max-exec-time-seconds on the resource (flyte2: pod template); Flyte 1.x refuses it (R30)"},
  {.key = "suspend", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,
   .off = SC(suspend), .manifest = "suspend",
   .desc = "true: create the job suspended (Kueue admits it): spec.runPolicy.suspend (operator, mpi-operator), spec.suspend (Trainer); Flyte refuses it (R30)"},
  {.key = "multikueue", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,
   .off = SC(multikueue), .manifest = "managedBy",
   .desc = "true: let MultiKueue dispatch the job to a worker cluster: spec.runPolicy.managedBy (Trainer: spec.managedBy) = kueue.x-k8s.io/multikueue; Flyte refuses it (R30)"},
  {.key = "topology", .type = KF_V_OBJ, .off = SC(topology),
   .off_n = SC(has_topology), .info = &kf_topology_obj,
   .desc = "Kueue topology-aware placement of every group's pods: podset annotations on each pod template (Trainer: the runtime patch)"},
  {.key = "gang", .type = KF_V_OBJ, .off = SC(gang), .off_n = SC(has_gang),
   .info = &gang_obj, .manifest = "schedulingPolicy",
   .desc = "Gang scheduling (Volcano or scheduler-plugins PodGroup): spec.runPolicy.schedulingPolicy (operator, mpi-operator); Trainer takes only its queue (R28); Flyte refuses it (R30)"},
};
const kf_obj kf_sched_obj = {NULL, "a table of named fields", sched_rows,
                             sizeof sched_rows / sizeof *sched_rows, "Scheduling"};
#define SCHED                                                              \
  {.key = "scheduling", .type = KF_V_OBJ, .off = J(sched),                 \
   .off_n = J(has_scheduling), .info = &kf_sched_obj, \
   .desc = "Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)"}

/* The whole job: what its pods run and where the resource lives (none in
** the plugin message; kf_whole.c checks the trees). */
#define WHOLE                                                              \
  {.key = "container", .type = KF_V_OBJ, .off = J(container),              \
   .off_n = J(has_container), .info = &kf_container_obj,                   \
   .desc = "What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field"}, \
  {.key = "namespace", .type = KF_V_TOKEN, .off = J(ns),                   \
   .check = KF_CHECK_DNS_LABEL,                                            \
   .desc = "The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns)"}, \
  {.key = "labels", .type = KF_V_TREE, .off = J(labels), .info = &kf_labels_tree, \
   .desc = "The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte)"}, \
  {.key = "annotations", .type = KF_V_TREE, .off = J(annotations),         \
   .info = &kf_annotations_tree,                                           \
   .desc = "The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte)"} \
  KF_CANARY_METADATA_ROWS

/* The mpi-operator v2beta1's own fields (mpi_job_types.go); unset is the
** operator's default (SetDefaults_MPIJob: /root/.ssh, OpenMPI, AtStartup,
** false); R52 refuses them on the other targets. */
static const char *const mpi_impl_v[] = {"OpenMPI", "Intel", "MPICH", NULL};
static const kf_choice mpi_impl_choice = {"MPI implementation", "OpenMPI, Intel or MPICH",
                                          mpi_impl_v};
static const char *const launcher_policy_v[] = {"AtStartup", "WaitForWorkersReady", NULL};
static const kf_choice launcher_policy_choice = {
    "launcher creation policy", "AtStartup or WaitForWorkersReady", launcher_policy_v};
#define MPI_OPERATOR                                                       \
  {.key = "ssh_auth_mount_path", .type = KF_V_TOKEN, .off = J(ssh_auth_mount_path), \
   .manifest = "sshAuthMountPath", \
   .place = KF_M_MPI_SPEC,                                                 \
   .desc = "Where the SSH keys are mounted in the launcher and workers (mpi-operator only, R52): spec.sshAuthMountPath, /root/.ssh by default"}, \
  {.key = "mpi_implementation", .type = KF_V_CHOICE, .off = J(mpi_implementation), \
   .info = &mpi_impl_choice, .manifest = "mpiImplementation", \
   .place = KF_M_MPI_SPEC,                                                 \
   .desc = "OpenMPI, Intel or MPICH: spec.mpiImplementation (mpi-operator only, R52; the operator sets its hostfile variables; kfjob's generated mpirun flags are OpenMPI's)"}, \
  {.key = "run_launcher_as_worker", .type = KF_V_BOOL, .flags = KF_F_OMITZERO, \
   .off = J(run_launcher_as_worker), .manifest = "runLauncherAsWorker", \
   .place = KF_M_MPI_SPEC,                                                 \
   .desc = "true: the launcher pod also runs a worker's processes (mpi-operator only, R52): spec.runLauncherAsWorker"}, \
  {.key = "launcher_creation_policy", .type = KF_V_CHOICE, \
   .off = J(launcher_creation_policy),                                     \
   .info = &launcher_policy_choice, .manifest = "launcherCreationPolicy", \
   .place = KF_M_MPI_SPEC,                                                 \
   .desc = "AtStartup or WaitForWorkersReady: when the launcher starts (mpi-operator only, R52): spec.launcherCreationPolicy"} \
  KF_CANARY_MPI_SPEC_ROWS

/* Kubeflow Trainer's runtime (spec.runtimeRef.name of a TrainJob). */
#define RUNTIME                                                            \
  {.key = "runtime", .type = KF_V_TOKEN, .off = J(runtime),               \
   .desc = "The ClusterTrainingRuntime a TrainJob runs on (spec.runtimeRef.name; Trainer targets only, R49): torch-distributed when unset"}, \
  RUNTIME_NODES
/* A TrainJob without trainer.numNodes: the runtime's mlPolicy.numNodes
** (every plugin replaces it only when numNodes is set). */
#define RUNTIME_NODES                                                      \
  {.key = "runtime_nodes", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,     \
   .off = J(runtime_nodes),                                                \
   .desc = "true: a TrainJob leaves spec.trainer.numNodes out, so the node count is the runtime's mlPolicy.numNodes (1 in every runtime Trainer ships); the job's own count must then be 1, which the other targets run"}, \
  {.key = "runtime_trainer", .type = KF_V_BOOL, .flags = KF_F_OMITZERO,   \
   .off = J(runtime_trainer),                                              \
   .desc = "true: a TrainJob without spec.trainer, which runs the runtime's node job as it is (its image, command and node count) and gets no node env from Trainer's plugins (PET_*, JAX_*, DMLC_*: they inject it only when spec.trainer is set); the job then sets nothing spec.trainer would carry and has 1 node; Trainer targets only (R58)"}, \
  {.key = "runtime_patch_manager", .type = KF_V_TOKEN, .off = J(runtime_patch_manager), \
   .check = KF_CHECK_DOMAIN_PATH,                                           \
   .desc = "Who owns the TrainJob's runtime patch of the node job, a domain-prefixed path (spec.runtimePatches[0].manager; Trainer targets only, nothing on the others): kfjob/manifest when unset; another manager's patch reads back with its name"}

/* Flyte 2 clustered tasks (flyteidl2 plugins/clustered.proto
** ClusteredTaskSpec.interconnect, ClusterFailurePolicy.
** restart_on_host_maintenance): target flyte2-clustered only (R42). */
static const char *const interconnect_v[] = {"tcp", "efa", "infiniband", "roce", NULL};
static const kf_choice interconnect_choice = {"interconnect", "tcp, efa, infiniband or roce",
                                              interconnect_v};
#define CLUSTERED                                                          \
  {.key = "interconnect", .type = KF_V_CHOICE, .off = J(interconnect),     \
   .info = &interconnect_choice,                                           \
   .desc = "Network fabric of a Flyte 2 clustered task (tcp, efa, infiniband, roce): ClusteredTaskSpec.interconnect; flyte2-clustered only (R42), where the backend falls back to TCP for the others (a warning)"}, \
  {.key = "restart_on_host_maintenance", .type = KF_V_BOOL, .flags = KF_F_OMITZERO, \
   .off = J(restart_on_host_maintenance),                                  \
   .desc = "true: a Flyte 2 clustered task restarts for free when a host's maintenance evicts a pod: ClusteredTaskSpec.failure_policy.restart_on_host_maintenance; flyte2-clustered only (R42)"}

static const kf_field tf_rows[] = {GROUPS, RUN_POLICY, DEPRECATED, POD, SCHED, WHOLE};
/* a PyTorchJob's spec.nprocPerNode: unset is kfjob's one process a pod */
static const kf_field pytorch_rows[] = {
  GROUPS, RUN_POLICY,
  {.key = "nproc_per_node", .type = KF_V_NPROC, .off = J(nproc_per_node),
   .off_n = J(nproc_word), .min = 1, .idef = 0, .info = &nproc_choice,
   .manifest = "nprocPerNode",
   .desc = "Processes per pod for a launcher the command starts (torchrun), an integer >= 1 or auto/cpu/gpu: spec.nprocPerNode on the operator (PET_NPROC_PER_NODE), numProcPerNode on Trainer (auto: unset); unset: one process a pod; not on Flyte (R50)"},
  DEPRECATED, POD, SCHED, WHOLE, RUNTIME, CLUSTERED};
static const kf_field elastic_rows[] = {
  {.key = "nnodes", .type = KF_V_NNODES, .off = J(min_nodes), .min = 1,
   .idef = 1, .pbmsg = "elastic_config", .pb = "min_replicas",
   .pb0 = "min_replicas",
   .desc = "Worker nodes, N or a \"min:max\" range such as \"2:4\" (torchrun --nnodes): elastic_config min/max_replicas in the plugin message, elasticPolicy.minReplicas/maxReplicas and the worker count in operator manifests, numNodes on Trainer (fixed only, R9), a clustered task's replicas (fixed only, R43)"},
  {.key = "nproc_per_node", .type = KF_V_NPROC, .off = J(nproc_per_node),
   .off_n = J(nproc_word), .min = 1, .idef = 1, .info = &nproc_choice,
   .pbmsg = "elastic_config",
   .pb = "nproc_per_node", .pb0 = "nproc_per_node", .manifest = "nProcPerNode",
   .desc = "Processes per node, an integer >= 1 or auto/cpu/gpu (words: operator and Trainer only, R10): elastic_config.nproc_per_node, elasticPolicy.nProcPerNode, numProcPerNode on Trainer"},
  {.key = "max_restarts", .type = KF_V_INT, .flags = KF_F_GIVEN, .off = J(max_restarts),
   .off_n = J(given_default), .zbit = KF_EG_MAX_RESTARTS, .min = 0,
   .pbmsg = "elastic_config", .pb = "max_restarts",
   .pb0 = "max_restarts",
   .manifest = "maxRestarts", .place = KF_M_ELASTIC,
   .desc = "Times torchrun restarts the worker group on failure: elastic_config.max_restarts, elasticPolicy.maxRestarts in manifests (operator: only when given, 0 too); dropped with a warning on Trainer (R19)"},
  {.key = "rdzv_backend", .type = KF_V_CHOICE, .flags = KF_F_GIVEN, .off = J(rdzv_backend),
   .off_n = J(given_default), .zbit = KF_EG_RDZV_BACKEND, .sdef = "c10d", .info = &rdzv_choice, .pbmsg = "elastic_config",
   .pb = "rdzv_backend", .pb0 = "rdzv_backend", .manifest = "rdzvBackend",
   .place = KF_M_ELASTIC,
   .desc = "torchrun rendezvous backend (c10d, etcd, etcd-v2, static): elastic_config.rdzv_backend, elasticPolicy.rdzvBackend in manifests (operator: only when given, c10d too); Trainer takes only c10d (R17)"},
  {.key = "rdzv_host", .type = KF_V_TOKEN, .off = J(rdzv_host), .manifest = "rdzvHost",
   .place = KF_M_ELASTIC,
   .desc = "Rendezvous host (operator only, R54): elasticPolicy.rdzvHost, PET_RDZV_ENDPOINT's host (default <name>-worker-0)"},
  {.key = "rdzv_port", .type = KF_V_INT, .flags = KF_F_OMITZERO, .off = J(rdzv_port),
   .min = 1, .manifest = "rdzvPort", .place = KF_M_ELASTIC,
   .desc = "Rendezvous port, an integer >= 1 (operator only, R54): elasticPolicy.rdzvPort, PET_RDZV_ENDPOINT's port (default the pytorchjob-port)"},
  {.key = "rdzv_id", .type = KF_V_TOKEN, .off = J(rdzv_id), .manifest = "rdzvId",
   .place = KF_M_ELASTIC,
   .desc = "Rendezvous id (operator only, R54): elasticPolicy.rdzvId, PET_RDZV_ID"},
  {.key = "standalone", .type = KF_V_BOOL, .flags = KF_F_OMITZERO | KF_F_GIVEN,
   .off = J(standalone), .off_n = J(given_default), .zbit = KF_EG_STANDALONE,
   .manifest = "standalone", .place = KF_M_ELASTIC,
   .desc = "true: torchrun --standalone, a local rendezvous (operator only, R54): elasticPolicy.standalone (false only when given), PET_STANDALONE"},
  {.key = "rdzv_conf", .type = KF_V_TREE, .off = J(rdzv_conf), .info = &kf_rdzv_conf_tree,
   .manifest = "rdzvConf", .place = KF_M_ELASTIC,
   .desc = "Rendezvous settings, a list of {key =, value =} in order (operator only, R54): elasticPolicy.rdzvConf, PET_RDZV_CONF"},
  {.key = "metrics", .type = KF_V_TREE, .off = J(metrics), .info = &kf_metrics_tree,
   .manifest = "metrics", .place = KF_M_ELASTIC,
   .desc = "The operator's HorizontalPodAutoscaler metrics, autoscaling/v2 MetricSpecs (operator only, R54): elasticPolicy.metrics"},
  KF_CANARY_ELASTIC_ROWS
  GROUPS, RUN_POLICY, POD, SCHED, WHOLE, RUNTIME, CLUSTERED};
static const kf_field mpi_rows[] = {GROUPS, RUN_POLICY, SLOTS, DEPRECATED, POD,
                                   SCHED, WHOLE, MPI_OPERATOR};
/* Horovod's own fields travel as horovodrun arguments, not in the proto. */
static const kf_field horovod_rows[] = {
  GROUPS, RUN_POLICY, SLOTS,
  {.key = "verbose", .type = KF_V_BOOL, .off = J(verbose),
   .desc = "true: horovodrun --verbose on the launcher's command line (not in the plugin message)"},
  {.key = "log_level", .type = KF_V_TOKEN, .off = J(log_level),
   .sdef = "INFO",
   .desc = "Horovod log level (HOROVOD_LOG_LEVEL, e.g. INFO, DEBUG): horovodrun --log-level on the launcher's command line (not in the plugin message)"},
  {.key = "discovery_script_path", .type = KF_V_TOKEN,
   .off = J(discovery_script_path), .sdef = "/etc/mpi/discover_hosts.sh",
   .desc = "Script horovodrun runs to find the worker hosts: --host-discovery-script on the launcher's command line (not in the plugin message)"},
  {.key = "elastic_timeout", .type = KF_V_INT, .off = J(elastic_timeout),
   .min = 1, .idef = 1200,
   .desc = "Seconds horovodrun waits for the workers (an integer >= 1): --elastic-timeout on the launcher's command line (not in the plugin message)"},
  DEPRECATED, POD, SCHED, WHOLE, MPI_OPERATOR};
/* SPEC §12: no Flyte task type, so no proto fields of their own. */
static const kf_field operator_rows[] = {GROUPS, RUN_POLICY, POD, SCHED, WHOLE};
/* JAX and XGBoost: also a TrainJob on the runtime Trainer ships for them */
static const kf_field trainer_kind_rows[] = {GROUPS, RUN_POLICY, POD, SCHED, WHOLE, RUNTIME_NODES};

#define ROWS(r) r, sizeof r / sizeof *r

/* ---- kinds ------------------------------------------------------------ */

static const kf_rule replicated[] = {kf_rule_replicas, kf_rule_bounds, kf_rule_pod,
                                     kf_rule_sched, kf_rule_whole, kf_rule_trainer,
                                     NULL};
static const kf_rule elastic[] = {kf_rule_bounds, kf_rule_pod, kf_rule_sched, kf_rule_whole,
                                  kf_rule_trainer, NULL};
static const kf_rule some_replicas[] = {kf_rule_replicas, kf_rule_some_replicas,
                                        kf_rule_bounds, kf_rule_pod, kf_rule_sched,
                                        kf_rule_whole, NULL};

/* Replica bounds of the operator-only kinds (training-operator v1.9
** webhooks, SPEC §11 Decisions): a JAX Worker is required (it is the only
** group); an XGBoost Master is exactly 1 and its Workers may be absent; a
** Paddle Master defaults to 1 and is optional (0 leaves it out), neither
** group bounded above (the webhook has no count rule). */
static const kf_replica_bounds jax_bounds[KF_NROLES] = {
    [KF_WORKER] = {0, KF_R_REQUIRED}};
static const kf_replica_bounds xgb_bounds[KF_NROLES] = {
    [KF_WORKER] = {0, 0}, [KF_MASTER] = {1, KF_R_FIXED1}};
static const kf_replica_bounds pytorch_bounds[KF_NROLES] = {
    [KF_WORKER] = {0, 0}, [KF_MASTER] = {1, KF_R_OPT1}};
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
/* kf_kind_info.operator_restart: the training-operator's defaulters give
** every replica spec of a PyTorchJob and a PaddleJob without a restart
** policy OnFailure (v1.9.3 pytorch_types.go, paddlepaddle_types.go), the
** mpi-operator the Launcher's (v0.8.0 v2beta1/default.go). */
#define NO_RESTART {KF_RP_NEVER, 0, 0}
#define V1_ON_FAILURE {KF_RP_ON_FAILURE, ~0u, 0}
#define MPI_LAUNCHER_ON_FAILURE {KF_RP_ON_FAILURE, 0, 1u << KF_LAUNCHER}

const kf_kind_info kf_kinds[KF_NKINDS] = {
  [KF_TFJOB] = {"TFJob", "tensorflow", "tensorflow", "TFJob", "tfReplicaSpecs",
   KF_K_RUNPOLICY, 4,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_PS, "ps_replicas", "ps_replicas", "num_ps_replicas"},
    {KF_CHIEF, "chief_replicas", "chief_replicas", "num_chief_replicas"},
    {KF_EVALUATOR, "evaluator_replicas", "evaluator_replicas",
     "num_evaluator_replicas"}},
   TF0, TF1, TF1R, ROWS(tf_rows), replicated, NULL, "tfjob-port", 2222,
   "A TensorFlow distributed job (Worker, PS, Chief, Evaluator): Flyte task type tensorflow, kubeflow.org/v1 TFJob", NULL, NO_RESTART},
  [KF_PYTORCH] = {"PyTorchJob", "pytorch", "pytorch", "PyTorchJob",
   "pytorchReplicaSpecs", KF_K_RUNPOLICY, 2,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_MASTER, "master_replicas", NULL, NULL}},
   PT0, PT1, PT1R, ROWS(pytorch_rows), replicated, pytorch_bounds, "pytorchjob-port",
   23456,
   "A PyTorch distributed job (Master and Workers): Flyte task type pytorch, kubeflow.org/v1 PyTorchJob or a Trainer TrainJob",
   KF_TRAINER_RUNTIME, V1_ON_FAILURE},
  [KF_ELASTIC] = {"Elastic", "pytorch", "pytorch", "PyTorchJob",
   "pytorchReplicaSpecs", KF_K_RUNPOLICY | KF_K_ELASTIC, 1,
   {{KF_WORKER, "worker_replicas", "workers", NULL}},
   PT0, PT1, PT1R, ROWS(elastic_rows), elastic, NULL, "pytorchjob-port",
   23456,
   "A torch-elastic (torchrun) PyTorch job: Flyte task type pytorch with an elastic_config, a PyTorchJob with elasticPolicy or a Trainer TrainJob",
   KF_TRAINER_RUNTIME, V1_ON_FAILURE},
  [KF_MPI] = {"MPIJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R, ROWS(mpi_rows), replicated, NULL, NULL, 0,
   "An MPI job (Launcher and Workers, mpirun): Flyte task type mpi, kubeflow.org/v1 MPIJob or mpi-operator v2beta1 MPIJob", NULL,
   MPI_LAUNCHER_ON_FAILURE},
  [KF_HOROVOD] = {"HorovodJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND | KF_K_HOROVOD, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R, ROWS(horovod_rows), replicated, NULL, NULL, 0,
   "A Horovod job (horovodrun on the launcher): Flyte task type mpi, kubeflow.org/v1 MPIJob or mpi-operator v2beta1 MPIJob", NULL,
   MPI_LAUNCHER_ON_FAILURE},
  [KF_JAX] = {"JAXJob", NULL, "jax", "JAXJob", "jaxReplicaSpecs",
   KF_K_RUNPOLICY, 1, {{KF_WORKER, NULL, NULL, NULL}},
   NULL, NULL, NULL, ROWS(trainer_kind_rows), replicated, jax_bounds,
   "jaxjob-port", 6666,
   "A JAX distributed job (Workers): no Flyte task type; training-operator kubeflow.org/v1 JAXJob or a Trainer TrainJob (jax-distributed)",
   "jax-distributed", NO_RESTART},
  [KF_XGBOOST] = {"XGBoostJob", NULL, "xgboost", "XGBoostJob", "xgbReplicaSpecs",
   KF_K_RUNPOLICY, 2,
   {{KF_WORKER, NULL, NULL, NULL}, {KF_MASTER, NULL, NULL, NULL}},
   NULL, NULL, NULL, ROWS(trainer_kind_rows), replicated, xgb_bounds,
   "xgboostjob-port", 9999,
   "An XGBoost job (Master and Workers): no Flyte task type; training-operator kubeflow.org/v1 XGBoostJob or a Trainer TrainJob (xgboost-distributed)",
   "xgboost-distributed", NO_RESTART},
  [KF_PADDLE] = {"PaddleJob", NULL, "paddle", "PaddleJob", "paddleReplicaSpecs",
   KF_K_RUNPOLICY, 2,
   {{KF_WORKER, NULL, NULL, NULL}, {KF_MASTER, NULL, NULL, NULL}},
   NULL, NULL, NULL, ROWS(operator_rows), some_replicas, paddle_bounds,
   "master", 36543,
   "A PaddlePaddle job (Master and Workers): no Flyte task type; training-operator kubeflow.org/v1 PaddleJob", NULL, V1_ON_FAILURE},
};

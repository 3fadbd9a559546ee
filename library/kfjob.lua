---@meta kfjob
-- kfjob's definitions for lua-language-server (LuaCATS), generated
-- from kfjob's schema rows by `kfjob meta`: do not edit by hand.

--- A Kubernetes quantity ("500m", "32Gi") or a non-negative number.
---@alias kfjob.Quantity string|number
--- Worker nodes: an integer, or "MIN:MAX".
---@alias kfjob.Nnodes integer|string
--- A Kubernetes PodTemplateSpec (metadata, spec) plus primary_container_name.
---@alias kfjob.PodTemplate table<string, any>
--- A Kubernetes EnvVar: a value, or a valueFrom (EnvVarSource).
---@class kfjob.EnvVar
---@field name string
---@field value? string
---@field valueFrom? table<string, any>

--- A job kind.
---@alias kfjob.Kind
---| "TFJob"
---| "PyTorchJob"
---| "Elastic"
---| "MPIJob"
---| "HorovodJob"
---| "JAXJob"
---| "XGBoostJob"
---| "PaddleJob"

--- A system a job is emitted for.
---@alias kfjob.Target
---| "flyte"
---| "flyte2"
---| "operator"
---| "mpi-operator"
---| "trainer-2.2"
---| "trainer-2.3"
---| "trainer-2.4"
---| "flyte2-clustered"

--- The keys of a Accelerator table.
---@class (exact) kfjob.AcceleratorOpts
---@field device? string Accelerator device ("nvidia-tesla-a100"): TaskTemplate extended_resources.gpu_accelerator.device; in manifests a k8s.amazonaws.com/accelerator node affinity and toleration on GPU pods.
---@field partition_size? string GPU partition (MIG) size ("1g.5gb"): TaskTemplate gpu_accelerator.partition_size; in manifests a k8s.amazonaws.com/gpu-partition-size node affinity and toleration.
---@field unpartitioned? boolean true: a whole, unpartitioned GPU: TaskTemplate gpu_accelerator.unpartitioned; in manifests k8s.amazonaws.com/gpu-partition-size DoesNotExist node affinity. Default: false.

--- The keys of a GroupContainer table.
---@class (exact) kfjob.GroupContainerOpts
---@field args? string[] The main container's args (a list of strings): the TaskTemplate container's args (MPI and Horovod: wrapped in the launcher line), each pod's main container args in manifests (a call's opts.args wins)
---@field command? string[] The main container's command (a list of strings): the TaskTemplate container's command, each pod's main container command in manifests (a call's opts.command wins)
---@field env? kfjob.EnvVar[]|table<string, string> The main container's environment: a list of Kubernetes EnvVars ({name =, value =} or {name =, valueFrom =}) kept in order, or a table of name = value emitted sorted; TaskTemplate container env (name/value only on Flyte), each pod's main container env in manifests.
---@field name? string The main container's name (mpi-operator and a v1 MPIJob run containers[0] whatever its name; the training-operator's webhooks require the kind's name, R51): the kind's (pytorch, mpi, ...) when unset.

--- The keys of a Resources table.
---@class (exact) kfjob.ResourcesOpts
---@field cpu? kfjob.Quantity CPU cores, a quantity (4, "500m"): ResourceName CPU in the plugin message and TaskTemplate, cpu in the container resources of every manifest (Trainer: resourcesPerNode)
---@field ephemeral_storage? kfjob.Quantity Local scratch disk, a quantity ("100Gi"): ResourceName EPHEMERAL_STORAGE in the plugin message and TaskTemplate, ephemeral-storage in the container resources of every manifest.
---@field extended? table<string, kfjob.Quantity> Other Kubernetes resources, name = quantity ("amd.com/gpu", "vpc.amazonaws.com/efa", "hugepages-2Mi"), also given as keys of requests/limits themselves: the container resources of operator, mpi-operator and Trainer manifests (an extended resource's request equals its limit); Flyte's Resources has no such name (an error on flyte, flyte2, flyte2-clustered)
---@field gpu? kfjob.Quantity NVIDIA GPUs, a quantity (2): ResourceName GPU in the plugin message and TaskTemplate, nvidia.com/gpu in the container resources of every manifest (Trainer: resourcesPerNode)
---@field mem? kfjob.Quantity Memory, a quantity ("32Gi"): ResourceName MEMORY in the plugin message and TaskTemplate, memory in the container resources of every manifest (Trainer: resourcesPerNode)
---@field memory? kfjob.Quantity Memory, a quantity ("32Gi"): ResourceName MEMORY in the plugin message and TaskTemplate, memory in the container resources of every manifest (Trainer: resourcesPerNode)

--- Accepted spellings of restart_policy.
---@alias kfjob.RestartPolicyValue
---| "never"
---| "Never"
---| "RESTART_POLICY_NEVER"
---| "on_failure"
---| "OnFailure"
---| "RESTART_POLICY_ON_FAILURE"
---| "always"
---| "Always"
---| "RESTART_POLICY_ALWAYS"
---| "exit_code"
---| "ExitCode"
---| "RESTART_POLICY_EXIT_CODE"
---| 0
---| 1
---| 2
---| 3

--- The keys of a Topology table.
---@class (exact) kfjob.TopologyOpts
---@field group? string Kueue pod set group (not a number; with required or preferred, without slices): two pod sets of one name, one of them a single pod, are placed together: annotation kueue.x-k8s.io/podset-group-name on the pod template.
---@field preferred? string Kueue topology level these pods should share when they fit: annotation kueue.x-k8s.io/podset-preferred-topology on the pod template (Trainer: in the runtime patch) Format: label_key.
---@field required? string Kueue topology level (a node label key) all these pods must share: annotation kueue.x-k8s.io/podset-required-topology on the pod template (Trainer: in the runtime patch) Format: label_key.
---@field slice_required? string Kueue topology level each slice of slice_size pods must share: annotation kueue.x-k8s.io/podset-slice-required-topology on the pod template. Format: label_key.
---@field slice_size? integer Pods per slice, an integer >= 1 (with slice_required): annotation kueue.x-k8s.io/podset-slice-size on the pod template. Minimum: 1.
---@field slices? { level: string, size: integer }[] Kueue multi-layer slice constraints, 1 to 3 levels { level = LABEL, size = N } from the widest, each size dividing the one above, the first at most the pod set's pods; without slice_required, slice_size and group: annotation kueue.x-k8s.io/podset-slice-required-topology-constraints (JSON) on the pod template.
---@field unconstrained? boolean true: Kueue may place these pods in any topology domain: annotation kueue.x-k8s.io/podset-unconstrained-topology on the pod template.

--- A replica group's table.
---@class (exact) kfjob.GroupOpts
---@field container? kfjob.GroupContainerOpts What this group's pods run differently (command, args, env; a TFJob's PS, an MPI launcher): the group's main container in manifests, each key replacing the job's container's; not on Flyte (one task container), on Trainer only when every group has the same.
---@field image? string Container image of this group's pods (wins over the task's image): the replica spec's image in the v1 plugin message (v0 cannot carry it), the container image in every manifest.
---@field limits? kfjob.ResourcesOpts Resource limits of this group's containers: the replica spec's resources.limits in the v1 plugin message, the container's resources.limits in every manifest (Trainer: resourcesPerNode)
---@field pod_template? kfjob.PodTemplate A PodTemplateSpec merged over the job's pod_template for this group's pods only (kubectl's merge); not in the plugin message; Trainer only when every group has the same, Flyte refuses it (R31)
---@field replicas? integer Pods in this group: the replica spec's replicas in the v1 plugin message (the v0 count field in v0), spec.<kind>ReplicaSpecs.<Group>.replicas in operator manifests (Trainer: numNodes); an elastic job takes nnodes. Default: 0. Minimum: 0.
---@field requests? kfjob.ResourcesOpts Resources this group's containers request: the replica spec's resources.requests in the v1 plugin message, the container's resources.requests in every manifest (Trainer: resourcesPerNode)
---@field restart_policy? kfjob.RestartPolicyValue When this group's failed pods restart (never, on_failure, always, exit_code): the replica spec's restart_policy in the v1 plugin message, the replica spec's restartPolicy in operator manifests; exit_code (ExitCode: restart on an exit code >= 128) on the operator only; the mpi-operator takes never and on_failure, Trainer only never (R13) Default: never. Values by target (R13): flyte, flyte2: never, on_failure, always; mpi-operator: never, on_failure; trainer-2.2, trainer-2.3, trainer-2.4: never; elsewhere every value.
---@field topology? kfjob.TopologyOpts Kueue topology placement of this group's pods (replaces the job's, annotation by annotation): podset annotations on this group's pod template; not on Flyte (R31)

--- The keys of a Container table.
---@class (exact) kfjob.ContainerOpts
---@field args? string[] The main container's args (a list of strings): the TaskTemplate container's args (MPI and Horovod: wrapped in the launcher line), each pod's main container args in manifests (a call's opts.args wins)
---@field command? string[] The main container's command (a list of strings): the TaskTemplate container's command, each pod's main container command in manifests (a call's opts.command wins)
---@field env? kfjob.EnvVar[]|table<string, string> The main container's environment: a list of Kubernetes EnvVars ({name =, value =} or {name =, valueFrom =}) kept in order, or a table of name = value emitted sorted; TaskTemplate container env (name/value only on Flyte), each pod's main container env in manifests.
---@field image? string The task image: the TaskTemplate container's image and the image of every group without its own, in every manifest (a call's opts.image wins)
---@field name? string The main container's name (mpi-operator and a v1 MPIJob run containers[0] whatever its name; the training-operator's webhooks require the kind's name, R51): the kind's (pytorch, mpi, ...) when unset.

--- Accepted spellings of clean_pod_policy.
---@alias kfjob.CleanPodPolicyValue
---| "none"
---| "None"
---| "CLEANPOD_POLICY_NONE"
---| "running"
---| "Running"
---| "CLEANPOD_POLICY_RUNNING"
---| "all"
---| "All"
---| "CLEANPOD_POLICY_ALL"
---| 0
---| 1
---| 2

--- The keys of a RunPolicy table.
---@class (exact) kfjob.RunPolicyOpts
---@field active_deadline_seconds? integer Seconds the job may run before it is failed: run_policy.active_deadline_seconds in the v1 plugin message, spec.runPolicy.activeDeadlineSeconds in operator manifests, activeDeadlineSeconds on Trainer. Minimum: 0.
---@field backoff_limit? integer Retries before the job is marked failed: run_policy.backoff_limit in the v1 plugin message, spec.runPolicy.backoffLimit in operator manifests; dropped with a warning on Trainer (R20) Minimum: 0.
---@field clean_pod_policy? kfjob.CleanPodPolicyValue Which pods are deleted when the job ends (none, running, all): run_policy.clean_pod_policy in the v1 plugin message, spec.runPolicy.cleanPodPolicy in operator manifests; dropped with a warning on Trainer (R20) Default: none.
---@field ttl_seconds_after_finished? integer Seconds after the job ends before it is deleted: run_policy.ttl_seconds_after_finished in the v1 plugin message, spec.runPolicy.ttlSecondsAfterFinished in operator manifests; dropped on Trainer (R20) Minimum: 0.

--- The keys of a MinResources table.
---@class (exact) kfjob.MinResourcesOpts
---@field cpu? kfjob.Quantity CPU cores, a quantity (4, "500m"): ResourceName CPU in the plugin message and TaskTemplate, cpu in the container resources of every manifest (Trainer: resourcesPerNode)
---@field ephemeral_storage? kfjob.Quantity Local scratch disk, a quantity ("100Gi"): ResourceName EPHEMERAL_STORAGE in the plugin message and TaskTemplate, ephemeral-storage in the container resources of every manifest.
---@field gpu? kfjob.Quantity NVIDIA GPUs, a quantity (2): ResourceName GPU in the plugin message and TaskTemplate, nvidia.com/gpu in the container resources of every manifest (Trainer: resourcesPerNode)
---@field mem? kfjob.Quantity Memory, a quantity ("32Gi"): ResourceName MEMORY in the plugin message and TaskTemplate, memory in the container resources of every manifest (Trainer: resourcesPerNode)
---@field memory? kfjob.Quantity Memory, a quantity ("32Gi"): ResourceName MEMORY in the plugin message and TaskTemplate, memory in the container resources of every manifest (Trainer: resourcesPerNode)

--- Accepted spellings of scheduler.
---@alias kfjob.SchedulerValue
---| "volcano"
---| "scheduler-plugins"

--- The keys of a Gang table.
---@class (exact) kfjob.GangOpts
---@field min_available? integer Pods that must be schedulable together before any starts, an integer >= 1: spec.runPolicy.schedulingPolicy.minAvailable (operator, mpi-operator); Trainer and Flyte refuse it (R28, R30) Minimum: 1.
---@field min_resources? kfjob.MinResourcesOpts Resources the gang needs before it starts: schedulingPolicy.minResources with Kubernetes resource names (operator, mpi-operator); Trainer and Flyte refuse it.
---@field priority_class? string PriorityClass of the gang's PodGroup: schedulingPolicy.priorityClass (operator, mpi-operator); Trainer and Flyte refuse it (R28, R30)
---@field queue? string Volcano queue of the gang's PodGroup: schedulingPolicy.queue (operator, mpi-operator); Trainer: annotation scheduling.volcano.sh/queue-name; Flyte refuses it (R30)
---@field schedule_timeout_seconds? integer Seconds the gang may wait to be scheduled, an integer >= 1: schedulingPolicy.scheduleTimeoutSeconds (operator, mpi-operator); Trainer and Flyte refuse it. Minimum: 1.
---@field scheduler? kfjob.SchedulerValue The gang scheduler the cluster runs (volcano, scheduler-plugins): written nowhere, it only steers lint about what that scheduler reads.

--- The keys of a Scheduling table.
---@class (exact) kfjob.SchedulingOpts
---@field gang? kfjob.GangOpts Gang scheduling (Volcano or scheduler-plugins PodGroup): spec.runPolicy.schedulingPolicy (operator, mpi-operator); Trainer takes only its queue (R28); Flyte refuses it (R30)
---@field max_exec_time? integer Seconds Kueue lets the job run, an integer >= 1: label kueue.x-k8s.io/max-exec-time-seconds on the resource (flyte2: pod template); Flyte 1.x refuses it (R30) Minimum: 1.
---@field multikueue? boolean true: let MultiKueue dispatch the job to a worker cluster: spec.runPolicy.managedBy (Trainer: spec.managedBy) = kueue.x-k8s.io/multikueue; Flyte refuses it (R30)
---@field priority_class? string Kueue WorkloadPriorityClass: label kueue.x-k8s.io/priority-class on the resource (flyte2: on the PyTorchJob pod template); Flyte 1.x refuses it (R30) Format: dns1123_subdomain.
---@field queue? string Kueue LocalQueue the job waits in: label kueue.x-k8s.io/queue-name on the resource (flyte2: on the PyTorchJob pod template); Flyte 1.x refuses it (R30) Format: dns1123_subdomain.
---@field suspend? boolean true: create the job suspended (Kueue admits it): spec.runPolicy.suspend (operator, mpi-operator), spec.suspend (Trainer); Flyte refuses it (R30)
---@field topology? kfjob.TopologyOpts Kueue topology-aware placement of every group's pods: podset annotations on each pod template (Trainer: the runtime patch)

--- kfjob.TFJob{...}: A TensorFlow distributed job (Worker, PS, Chief, Evaluator): Flyte task type tensorflow, kubeflow.org/v1 TFJob.
---@class (exact) kfjob.TFJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field chief? kfjob.GroupOpts The TensorFlow chief (checkpoints, summaries): the Chief replica spec in the plugin message, tfReplicaSpecs.Chief in the manifest.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field evaluator? kfjob.GroupOpts TensorFlow evaluators: the Evaluator replica spec in the plugin message, tfReplicaSpecs.Evaluator in the manifest.
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field num_chief_replicas? integer Deprecated: the Chief group's replica count (v0 plugin message field chief_replicas); write chief.replicas. Minimum: 0.
---@field num_evaluator_replicas? integer Deprecated: the Evaluator group's replica count (v0 plugin message field evaluator_replicas); write evaluator.replicas. Minimum: 0.
---@field num_ps_replicas? integer Deprecated: the PS group's replica count (v0 plugin message field ps_replicas); write ps.replicas. Minimum: 0.
---@field num_workers? integer Deprecated: the Worker group's replica count (v0 plugin message field workers); write worker.replicas. Minimum: 0.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field ps? kfjob.GroupOpts TensorFlow parameter servers: the PS replica spec in the plugin message, tfReplicaSpecs.PS in the manifest.
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field worker? kfjob.GroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- Accepted spellings of interconnect.
---@alias kfjob.InterconnectValue
---| "tcp"
---| "efa"
---| "infiniband"
---| "roce"

--- Accepted spellings of nproc_per_node.
---@alias kfjob.NprocPerNodeValue
---| "auto"
---| "cpu"
---| "gpu"

--- kfjob.PyTorchJob{...}: A PyTorch distributed job (Master and Workers): Flyte task type pytorch, kubeflow.org/v1 PyTorchJob or a Trainer TrainJob.
---@class (exact) kfjob.PyTorchJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field interconnect? kfjob.InterconnectValue Network fabric of a Flyte 2 clustered task (tcp, efa, infiniband, roce): ClusteredTaskSpec.interconnect; flyte2-clustered only (R42), where the backend falls back to TCP for the others (a warning)
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field master? kfjob.GroupOpts The rank-0 pod (PyTorch, XGBoost, Paddle; exactly 1 where required): the master replica spec in the PyTorch v1 plugin message, spec.<kind>ReplicaSpecs.Master in operator manifests; on Trainer one of the node job's pods.
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field nproc_per_node? integer|kfjob.NprocPerNodeValue Processes per pod for a launcher the command starts (torchrun), an integer >= 1 or auto/cpu/gpu: spec.nprocPerNode on the operator (PET_NPROC_PER_NODE), numProcPerNode on Trainer (auto: unset); unset: one process a pod; not on Flyte (R50) Default: 0. Minimum: 1.
---@field num_workers? integer Deprecated: the Worker group's replica count (v0 plugin message field workers); write worker.replicas. Minimum: 0.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field restart_on_host_maintenance? boolean true: a Flyte 2 clustered task restarts for free when a host's maintenance evicts a pod: ClusteredTaskSpec.failure_policy.restart_on_host_maintenance; flyte2-clustered only (R42)
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field runtime? string The ClusterTrainingRuntime a TrainJob runs on (spec.runtimeRef.name; Trainer targets only, R49): torch-distributed when unset.
---@field runtime_nodes? boolean true: a TrainJob leaves spec.trainer.numNodes out, so the node count is the runtime's mlPolicy.numNodes (1 in every runtime Trainer ships); the job's own count must then be 1, which the other targets run.
---@field runtime_patch_manager? string Who owns the TrainJob's runtime patch of the node job, a domain-prefixed path (spec.runtimePatches[0].manager; Trainer targets only, nothing on the others): kfjob/manifest when unset; another manager's patch reads back with its name. Format: domain_prefixed_path.
---@field runtime_trainer? boolean true: a TrainJob without spec.trainer, which runs the runtime's node job as it is (its image, command and node count) and gets no node env from Trainer's plugins (PET_*, JAX_*, DMLC_*: they inject it only when spec.trainer is set); the job then sets nothing spec.trainer would carry and has 1 node; Trainer targets only (R58)
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field worker? kfjob.GroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- Accepted spellings of rdzv_backend.
---@alias kfjob.RdzvBackendValue
---| "c10d"
---| "etcd"
---| "etcd-v2"
---| "static"

--- A replica group's table.
---@class (exact) kfjob.ElasticGroupOpts
---@field container? kfjob.GroupContainerOpts What this group's pods run differently (command, args, env; a TFJob's PS, an MPI launcher): the group's main container in manifests, each key replacing the job's container's; not on Flyte (one task container), on Trainer only when every group has the same.
---@field image? string Container image of this group's pods (wins over the task's image): the replica spec's image in the v1 plugin message (v0 cannot carry it), the container image in every manifest.
---@field limits? kfjob.ResourcesOpts Resource limits of this group's containers: the replica spec's resources.limits in the v1 plugin message, the container's resources.limits in every manifest (Trainer: resourcesPerNode)
---@field pod_template? kfjob.PodTemplate A PodTemplateSpec merged over the job's pod_template for this group's pods only (kubectl's merge); not in the plugin message; Trainer only when every group has the same, Flyte refuses it (R31)
---@field requests? kfjob.ResourcesOpts Resources this group's containers request: the replica spec's resources.requests in the v1 plugin message, the container's resources.requests in every manifest (Trainer: resourcesPerNode)
---@field restart_policy? kfjob.RestartPolicyValue When this group's failed pods restart (never, on_failure, always, exit_code): the replica spec's restart_policy in the v1 plugin message, the replica spec's restartPolicy in operator manifests; exit_code (ExitCode: restart on an exit code >= 128) on the operator only; the mpi-operator takes never and on_failure, Trainer only never (R13) Default: never. Values by target (R13): flyte, flyte2: never, on_failure, always; mpi-operator: never, on_failure; trainer-2.2, trainer-2.3, trainer-2.4: never; elsewhere every value.
---@field topology? kfjob.TopologyOpts Kueue topology placement of this group's pods (replaces the job's, annotation by annotation): podset annotations on this group's pod template; not on Flyte (R31)

--- kfjob.Elastic{...}: A torch-elastic (torchrun) PyTorch job: Flyte task type pytorch with an elastic_config, a PyTorchJob with elasticPolicy or a Trainer TrainJob.
---@class (exact) kfjob.ElasticOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field interconnect? kfjob.InterconnectValue Network fabric of a Flyte 2 clustered task (tcp, efa, infiniband, roce): ClusteredTaskSpec.interconnect; flyte2-clustered only (R42), where the backend falls back to TCP for the others (a warning)
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field max_restarts? integer Times torchrun restarts the worker group on failure: elastic_config.max_restarts, elasticPolicy.maxRestarts in manifests (operator: only when given, 0 too); dropped with a warning on Trainer (R19) Default: 0. Minimum: 0.
---@field metrics? table[] The operator's HorizontalPodAutoscaler metrics, autoscaling/v2 MetricSpecs (operator only, R54): elasticPolicy.metrics.
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field nnodes? kfjob.Nnodes Worker nodes, N or a "min:max" range such as "2:4" (torchrun --nnodes): elastic_config min/max_replicas in the plugin message, elasticPolicy.minReplicas/maxReplicas and the worker count in operator manifests, numNodes on Trainer (fixed only, R9), a clustered task's replicas (fixed only, R43) Default: 1. Minimum: 1.
---@field nproc_per_node? integer|kfjob.NprocPerNodeValue Processes per node, an integer >= 1 or auto/cpu/gpu (words: operator and Trainer only, R10): elastic_config.nproc_per_node, elasticPolicy.nProcPerNode, numProcPerNode on Trainer. Default: 1. Minimum: 1.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field rdzv_backend? kfjob.RdzvBackendValue torchrun rendezvous backend (c10d, etcd, etcd-v2, static): elastic_config.rdzv_backend, elasticPolicy.rdzvBackend in manifests (operator: only when given, c10d too); Trainer takes only c10d (R17) Default: c10d.
---@field rdzv_conf? table[] Rendezvous settings, a list of {key =, value =} in order (operator only, R54): elasticPolicy.rdzvConf, PET_RDZV_CONF.
---@field rdzv_host? string Rendezvous host (operator only, R54): elasticPolicy.rdzvHost, PET_RDZV_ENDPOINT's host (default <name>-worker-0)
---@field rdzv_id? string Rendezvous id (operator only, R54): elasticPolicy.rdzvId, PET_RDZV_ID.
---@field rdzv_port? integer Rendezvous port, an integer >= 1 (operator only, R54): elasticPolicy.rdzvPort, PET_RDZV_ENDPOINT's port (default the pytorchjob-port) Minimum: 1.
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field restart_on_host_maintenance? boolean true: a Flyte 2 clustered task restarts for free when a host's maintenance evicts a pod: ClusteredTaskSpec.failure_policy.restart_on_host_maintenance; flyte2-clustered only (R42)
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field runtime? string The ClusterTrainingRuntime a TrainJob runs on (spec.runtimeRef.name; Trainer targets only, R49): torch-distributed when unset.
---@field runtime_nodes? boolean true: a TrainJob leaves spec.trainer.numNodes out, so the node count is the runtime's mlPolicy.numNodes (1 in every runtime Trainer ships); the job's own count must then be 1, which the other targets run.
---@field runtime_patch_manager? string Who owns the TrainJob's runtime patch of the node job, a domain-prefixed path (spec.runtimePatches[0].manager; Trainer targets only, nothing on the others): kfjob/manifest when unset; another manager's patch reads back with its name. Format: domain_prefixed_path.
---@field runtime_trainer? boolean true: a TrainJob without spec.trainer, which runs the runtime's node job as it is (its image, command and node count) and gets no node env from Trainer's plugins (PET_*, JAX_*, DMLC_*: they inject it only when spec.trainer is set); the job then sets nothing spec.trainer would carry and has 1 node; Trainer targets only (R58)
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field standalone? boolean true: torchrun --standalone, a local rendezvous (operator only, R54): elasticPolicy.standalone (false only when given), PET_STANDALONE.
---@field worker? kfjob.ElasticGroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- A replica group's table.
---@class (exact) kfjob.MPIJobGroupOpts
---@field command? string[] MPI and Horovod Worker/Launcher only: the group's command, the replica spec's command in the v1 plugin message and the container args in manifests (the launcher's mpirun/horovodrun line)
---@field container? kfjob.GroupContainerOpts What this group's pods run differently (command, args, env; a TFJob's PS, an MPI launcher): the group's main container in manifests, each key replacing the job's container's; not on Flyte (one task container), on Trainer only when every group has the same.
---@field image? string Container image of this group's pods (wins over the task's image): the replica spec's image in the v1 plugin message (v0 cannot carry it), the container image in every manifest.
---@field limits? kfjob.ResourcesOpts Resource limits of this group's containers: the replica spec's resources.limits in the v1 plugin message, the container's resources.limits in every manifest (Trainer: resourcesPerNode)
---@field pod_template? kfjob.PodTemplate A PodTemplateSpec merged over the job's pod_template for this group's pods only (kubectl's merge); not in the plugin message; Trainer only when every group has the same, Flyte refuses it (R31)
---@field replicas? integer Pods in this group: the replica spec's replicas in the v1 plugin message (the v0 count field in v0), spec.<kind>ReplicaSpecs.<Group>.replicas in operator manifests (Trainer: numNodes); an elastic job takes nnodes. Default: 0. Minimum: 0.
---@field requests? kfjob.ResourcesOpts Resources this group's containers request: the replica spec's resources.requests in the v1 plugin message, the container's resources.requests in every manifest (Trainer: resourcesPerNode)
---@field restart_policy? kfjob.RestartPolicyValue When this group's failed pods restart (never, on_failure, always, exit_code): the replica spec's restart_policy in the v1 plugin message, the replica spec's restartPolicy in operator manifests; exit_code (ExitCode: restart on an exit code >= 128) on the operator only; the mpi-operator takes never and on_failure, Trainer only never (R13) Default: never. Values by target (R13): flyte, flyte2: never, on_failure, always; mpi-operator: never, on_failure; trainer-2.2, trainer-2.3, trainer-2.4: never; elsewhere every value.
---@field topology? kfjob.TopologyOpts Kueue topology placement of this group's pods (replaces the job's, annotation by annotation): podset annotations on this group's pod template; not on Flyte (R31)

--- Accepted spellings of launcher_creation_policy.
---@alias kfjob.LauncherCreationPolicyValue
---| "AtStartup"
---| "WaitForWorkersReady"

--- Accepted spellings of mpi_implementation.
---@alias kfjob.MpiImplementationValue
---| "OpenMPI"
---| "Intel"
---| "MPICH"

--- kfjob.MPIJob{...}: An MPI job (Launcher and Workers, mpirun): Flyte task type mpi, kubeflow.org/v1 MPIJob or mpi-operator v2beta1 MPIJob.
---@class (exact) kfjob.MPIJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field launcher? kfjob.MPIJobGroupOpts The MPI launcher pod that runs mpirun/horovodrun (exactly 1): the launcher replica spec in the plugin message, mpiReplicaSpecs.Launcher in the manifest.
---@field launcher_creation_policy? kfjob.LauncherCreationPolicyValue AtStartup or WaitForWorkersReady: when the launcher starts (mpi-operator only, R52): spec.launcherCreationPolicy.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field mpi_implementation? kfjob.MpiImplementationValue OpenMPI, Intel or MPICH: spec.mpiImplementation (mpi-operator only, R52; the operator sets its hostfile variables; kfjob's generated mpirun flags are OpenMPI's)
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field num_launcher_replicas? integer Deprecated: the Launcher group's replica count (v0 plugin message field num_launcher_replicas); write launcher.replicas. Minimum: 0.
---@field num_workers? integer Deprecated: the Worker group's replica count (v0 plugin message field num_workers); write worker.replicas. Minimum: 0.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field run_launcher_as_worker? boolean true: the launcher pod also runs a worker's processes (mpi-operator only, R52): spec.runLauncherAsWorker.
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field slots? integer MPI processes per worker, an integer >= 1: slots in the plugin message, slotsPerWorker in manifests (Flyte 1.x writes 1, R11) and the launcher's -np = workers x slots. Default: 1. Minimum: 1.
---@field ssh_auth_mount_path? string Where the SSH keys are mounted in the launcher and workers (mpi-operator only, R52): spec.sshAuthMountPath, /root/.ssh by default.
---@field worker? kfjob.MPIJobGroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- kfjob.HorovodJob{...}: A Horovod job (horovodrun on the launcher): Flyte task type mpi, kubeflow.org/v1 MPIJob or mpi-operator v2beta1 MPIJob.
---@class (exact) kfjob.HorovodJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field discovery_script_path? string Script horovodrun runs to find the worker hosts: --host-discovery-script on the launcher's command line (not in the plugin message) Default: /etc/mpi/discover_hosts.sh.
---@field elastic_timeout? integer Seconds horovodrun waits for the workers (an integer >= 1): --elastic-timeout on the launcher's command line (not in the plugin message) Default: 1200. Minimum: 1.
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field launcher? kfjob.MPIJobGroupOpts The MPI launcher pod that runs mpirun/horovodrun (exactly 1): the launcher replica spec in the plugin message, mpiReplicaSpecs.Launcher in the manifest.
---@field launcher_creation_policy? kfjob.LauncherCreationPolicyValue AtStartup or WaitForWorkersReady: when the launcher starts (mpi-operator only, R52): spec.launcherCreationPolicy.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field log_level? string Horovod log level (HOROVOD_LOG_LEVEL, e.g. INFO, DEBUG): horovodrun --log-level on the launcher's command line (not in the plugin message) Default: INFO.
---@field mpi_implementation? kfjob.MpiImplementationValue OpenMPI, Intel or MPICH: spec.mpiImplementation (mpi-operator only, R52; the operator sets its hostfile variables; kfjob's generated mpirun flags are OpenMPI's)
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field num_launcher_replicas? integer Deprecated: the Launcher group's replica count (v0 plugin message field num_launcher_replicas); write launcher.replicas. Minimum: 0.
---@field num_workers? integer Deprecated: the Worker group's replica count (v0 plugin message field num_workers); write worker.replicas. Minimum: 0.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field run_launcher_as_worker? boolean true: the launcher pod also runs a worker's processes (mpi-operator only, R52): spec.runLauncherAsWorker.
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field slots? integer MPI processes per worker, an integer >= 1: slots in the plugin message, slotsPerWorker in manifests (Flyte 1.x writes 1, R11) and the launcher's -np = workers x slots. Default: 1. Minimum: 1.
---@field ssh_auth_mount_path? string Where the SSH keys are mounted in the launcher and workers (mpi-operator only, R52): spec.sshAuthMountPath, /root/.ssh by default.
---@field verbose? boolean true: horovodrun --verbose on the launcher's command line (not in the plugin message) Default: false.
---@field worker? kfjob.MPIJobGroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- kfjob.JAXJob{...}: A JAX distributed job (Workers): no Flyte task type; training-operator kubeflow.org/v1 JAXJob or a Trainer TrainJob (jax-distributed).
---@class (exact) kfjob.JAXJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field runtime_nodes? boolean true: a TrainJob leaves spec.trainer.numNodes out, so the node count is the runtime's mlPolicy.numNodes (1 in every runtime Trainer ships); the job's own count must then be 1, which the other targets run.
---@field runtime_patch_manager? string Who owns the TrainJob's runtime patch of the node job, a domain-prefixed path (spec.runtimePatches[0].manager; Trainer targets only, nothing on the others): kfjob/manifest when unset; another manager's patch reads back with its name. Format: domain_prefixed_path.
---@field runtime_trainer? boolean true: a TrainJob without spec.trainer, which runs the runtime's node job as it is (its image, command and node count) and gets no node env from Trainer's plugins (PET_*, JAX_*, DMLC_*: they inject it only when spec.trainer is set); the job then sets nothing spec.trainer would carry and has 1 node; Trainer targets only (R58)
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field worker? kfjob.GroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- kfjob.XGBoostJob{...}: An XGBoost job (Master and Workers): no Flyte task type; training-operator kubeflow.org/v1 XGBoostJob or a Trainer TrainJob (xgboost-distributed).
---@class (exact) kfjob.XGBoostJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field master? kfjob.GroupOpts The rank-0 pod (PyTorch, XGBoost, Paddle; exactly 1 where required): the master replica spec in the PyTorch v1 plugin message, spec.<kind>ReplicaSpecs.Master in operator manifests; on Trainer one of the node job's pods.
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field runtime_nodes? boolean true: a TrainJob leaves spec.trainer.numNodes out, so the node count is the runtime's mlPolicy.numNodes (1 in every runtime Trainer ships); the job's own count must then be 1, which the other targets run.
---@field runtime_patch_manager? string Who owns the TrainJob's runtime patch of the node job, a domain-prefixed path (spec.runtimePatches[0].manager; Trainer targets only, nothing on the others): kfjob/manifest when unset; another manager's patch reads back with its name. Format: domain_prefixed_path.
---@field runtime_trainer? boolean true: a TrainJob without spec.trainer, which runs the runtime's node job as it is (its image, command and node count) and gets no node env from Trainer's plugins (PET_*, JAX_*, DMLC_*: they inject it only when spec.trainer is set); the job then sets nothing spec.trainer would carry and has 1 node; Trainer targets only (R58)
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field worker? kfjob.GroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- kfjob.PaddleJob{...}: A PaddlePaddle job (Master and Workers): no Flyte task type; training-operator kubeflow.org/v1 PaddleJob.
---@class (exact) kfjob.PaddleJobOpts
---@field accelerator? string|kfjob.AcceleratorOpts GPU model (a device name, or {device, partition_size | unpartitioned}): TaskTemplate extended_resources.gpu_accelerator, node affinity and toleration on GPU pods in manifests.
---@field annotations? table<string, string> The resource's annotations (key = value): metadata.annotations in manifests, merged under a call's opts.annotations; not copied to the pods (pod_template.metadata.annotations is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: annotation_key.
---@field container? kfjob.ContainerOpts What the pods run: image, command, args and env of the main container (TaskTemplate container, every manifest's main containers, each pod's environment); a call's options win, field by field.
---@field labels? table<string, string> The resource's labels (key = value, Kubernetes label rules): metadata.labels in manifests, merged under a call's opts.labels; Kueue's queue-name, priority-class and max-exec-time-seconds are scheduling's (an error here); not copied to the pods (pod_template.metadata.labels is theirs; flyte/flyte2: on every pod, as Flyte's backend puts them); not in the TaskTemplate (lint warns on Flyte) Keys: label_key. Values: label_value.
---@field limits? kfjob.ResourcesOpts Task resource limits every group without its own takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.limits and each manifest container's.
---@field master? kfjob.GroupOpts The rank-0 pod (PyTorch, XGBoost, Paddle; exactly 1 where required): the master replica spec in the PyTorch v1 plugin message, spec.<kind>ReplicaSpecs.Master in operator manifests; on Trainer one of the node job's pods.
---@field namespace? string The resource's namespace, a DNS-1123 label: metadata.namespace in manifests; not in the TaskTemplate (Flyte sets it from the execution; lint warns) Format: dns1123_label.
---@field pod_template? kfjob.PodTemplate A Kubernetes PodTemplateSpec for every pod (plus primary_container_name): TaskTemplate k8s_pod, the replica pod templates of every manifest (Trainer: the runtime patch's fields)
---@field requests? kfjob.ResourcesOpts Task resources every group without its own requests takes: the TaskTemplate container's (or k8s_pod's primary container's) resources.requests and each manifest container's.
---@field run_policy? kfjob.RunPolicyOpts Job-wide lifecycle (clean-up, TTL, deadline, retries): run_policy in the v1 plugin message (v0 cannot carry it), spec.runPolicy in operator manifests.
---@field scheduling? kfjob.SchedulingOpts Where the job waits and how its pods start and land: Kueue queue and priority, suspend, MultiKueue, topology, gang; each target places it where its controller reads it (none in the plugin message)
---@field shared_memory? boolean|kfjob.Quantity true or a size: a /dev/shm memory volume (flyte-shared-memory) on the primary container: TaskTemplate extended_resources.shared_memory, a volume and mount in every manifest.
---@field worker? kfjob.GroupOpts The workers that run the training (every kind): the replica spec of Worker (v0: the workers count) in the plugin message, spec.<kind>ReplicaSpecs.Worker in operator manifests, the node job on Trainer.

--- A standalone Worker group's table: the keys of a Worker in any kind.
---@class (exact) kfjob.WorkerOpts
---@field command? string[] MPI and Horovod Worker/Launcher only: the group's command, the replica spec's command in the v1 plugin message and the container args in manifests (the launcher's mpirun/horovodrun line)
---@field container? kfjob.GroupContainerOpts What this group's pods run differently (command, args, env; a TFJob's PS, an MPI launcher): the group's main container in manifests, each key replacing the job's container's; not on Flyte (one task container), on Trainer only when every group has the same.
---@field image? string Container image of this group's pods (wins over the task's image): the replica spec's image in the v1 plugin message (v0 cannot carry it), the container image in every manifest.
---@field limits? kfjob.ResourcesOpts Resource limits of this group's containers: the replica spec's resources.limits in the v1 plugin message, the container's resources.limits in every manifest (Trainer: resourcesPerNode)
---@field pod_template? kfjob.PodTemplate A PodTemplateSpec merged over the job's pod_template for this group's pods only (kubectl's merge); not in the plugin message; Trainer only when every group has the same, Flyte refuses it (R31)
---@field replicas? integer Pods in this group: the replica spec's replicas in the v1 plugin message (the v0 count field in v0), spec.<kind>ReplicaSpecs.<Group>.replicas in operator manifests (Trainer: numNodes); an elastic job takes nnodes. Default: 0. Minimum: 0.
---@field requests? kfjob.ResourcesOpts Resources this group's containers request: the replica spec's resources.requests in the v1 plugin message, the container's resources.requests in every manifest (Trainer: resourcesPerNode)
---@field restart_policy? kfjob.RestartPolicyValue When this group's failed pods restart (never, on_failure, always, exit_code): the replica spec's restart_policy in the v1 plugin message, the replica spec's restartPolicy in operator manifests; exit_code (ExitCode: restart on an exit code >= 128) on the operator only; the mpi-operator takes never and on_failure, Trainer only never (R13) Default: never. Values by target (R13): flyte, flyte2: never, on_failure, always; mpi-operator: never, on_failure; trainer-2.2, trainer-2.3, trainer-2.4: never; elsewhere every value.
---@field topology? kfjob.TopologyOpts Kueue topology placement of this group's pods (replaces the job's, annotation by annotation): podset annotations on this group's pod template; not on Flyte (R31)

--- Options of a job method.
---@class (exact) kfjob.CheckOpts
---@field target? kfjob.Target the system to check for
---@field name? string the resource name, for the name rules
---@field env? table<string, string> the task environment, for the environment rules

--- Options of a job method.
---@class (exact) kfjob.EncodeOpts
---@field version? 0|1 task_type_version (default 1)
---@field replica_encoding? "flat"|"common" how v1 replica specs are written
---@field target? kfjob.Target the system the job is for (default flyte)

--- Options of a job method.
---@class (exact) kfjob.EnvironmentOpts
---@field name? string resource name (required)
---@field namespace? string resource namespace
---@field env? table<string, string> task environment
---@field target? kfjob.Target the system (default operator)

--- Options of a job method.
---@class (exact) kfjob.LintOpts
---@field name? string resource name (required, DNS-1035)
---@field namespace? string resource namespace
---@field image? string container image (a group's own image wins)
---@field command? string[] container command
---@field args? string[] container args
---@field env? table<string, string> environment, emitted sorted
---@field labels? table<string, string> labels on the resource and its pods (Kueue's are scheduling's: an error)
---@field annotations? table<string, string> annotations on the resource and its pods
---@field copy_to_pods? boolean opts.labels and opts.annotations on every pod template too (default true, as Flyte; false is refused there)
---@field service_account? string pods' service account
---@field target? kfjob.Target the system the manifest is for (default operator)
---@field version? 0|1 task_type_version (default 1)

--- Options of a job method.
---@class (exact) kfjob.ManifestOpts
---@field name? string resource name (required, DNS-1035)
---@field namespace? string resource namespace
---@field image? string container image (a group's own image wins)
---@field command? string[] container command
---@field args? string[] container args
---@field env? table<string, string> environment, emitted sorted
---@field labels? table<string, string> labels on the resource and its pods (Kueue's are scheduling's: an error)
---@field annotations? table<string, string> annotations on the resource and its pods
---@field copy_to_pods? boolean opts.labels and opts.annotations on every pod template too (default true, as Flyte; false is refused there)
---@field service_account? string pods' service account
---@field target? kfjob.Target the system the manifest is for (default operator)
---@field format? "table"|"json"|"yaml" the result's form (default table)
---@field indent? integer JSON indent, 0-16

--- Options of a job method.
---@class (exact) kfjob.TaskSpecOpts
---@field version? 0|1 task_type_version (default 1)
---@field replica_encoding? "flat"|"common" how v1 replica specs are written
---@field format? "pb"|"json" bytes (default) or JSON
---@field indent? integer JSON indent
---@field id? table {project=, domain=, name=, version=}
---@field container? table {image=, command=, args=, env=}
---@field config? table<string, string> TaskTemplate config
---@field wrap_launcher? boolean MPI/Horovod args wrapped in the launcher command (default true)
---@field target? kfjob.Target the system the job is for (default flyte)
---@field interface? table the task's inputs and outputs
---@field metadata? table TaskMetadata: retries, timeout, ...

--- Options of a job method.
---@class (exact) kfjob.TaskTemplateOpts
---@field version? 0|1 task_type_version (default 1)
---@field replica_encoding? "flat"|"common" how v1 replica specs are written
---@field format? "pb"|"json" bytes (default) or JSON
---@field indent? integer JSON indent
---@field id? table {project=, domain=, name=, version=}
---@field container? table {image=, command=, args=, env=}
---@field config? table<string, string> TaskTemplate config
---@field wrap_launcher? boolean MPI/Horovod args wrapped in the launcher command (default true)
---@field target? kfjob.Target the system the job is for (default flyte)

--- Options of a job method.
---@class (exact) kfjob.ToJsonOpts
---@field version? 0|1 task_type_version (default 1)
---@field replica_encoding? "flat"|"common" how v1 replica specs are written
---@field indent? integer pretty-print with this indent
---@field target? kfjob.Target the system the job is for (default flyte)

---@class kfjob.Job
---@field kind kfjob.Kind the job's kind
---@field task_type string? the Flyte task type (nil: none)
---@field spec fun(self: kfjob.Job): table the constructor-shaped table
---@field with fun(self: kfjob.Job, overrides: table): kfjob.Job a revalidated copy with overrides merged (dotted keys at the top level)
---@field encode fun(self: kfjob.Job, opts?: kfjob.EncodeOpts): string plugin message wire bytes
---@field custom fun(self: kfjob.Job, opts?: kfjob.EncodeOpts): table the proto3 JSON as a table
---@field to_json fun(self: kfjob.Job, opts?: kfjob.ToJsonOpts): string the proto3 JSON as text
---@field task_template fun(self: kfjob.Job, opts?: kfjob.TaskTemplateOpts): string a flyteidl.core.TaskTemplate
---@field task_spec fun(self: kfjob.Job, opts?: kfjob.TaskSpecOpts): string a registrable flyteidl.admin.TaskSpec
---@field versions fun(self: kfjob.Job): integer[] the task_type_versions that can express the job
---@field manifest fun(self: kfjob.Job, opts: kfjob.ManifestOpts): table|string the Kubernetes resource for a target
---@field lint fun(self: kfjob.Job, opts?: kfjob.LintOpts): {path: string, message: string, rule?: string, source?: string}[] warnings
---@field launcher_command fun(self: kfjob.Job, args?: string[]): string[] MPI/Horovod launcher command line
---@field environment fun(self: kfjob.Job, opts: kfjob.EnvironmentOpts): table every pod's injected environment
---@field check fun(self: kfjob.Job, opts?: kfjob.CheckOpts): true|nil, {path: string, message: string, rule: string, source: string}[]? the target's errors
---@field [string] any every constructor field reads back resolved

---@class kfjob
---@field kinds kfjob.Kind[] the kind names
---@field _VERSION string the library's version
---@field RestartPolicy table<string, string> RestartPolicy.ON_FAILURE == "on_failure", ...
---@field CleanPodPolicy table<string, string> CleanPodPolicy.ALL == "all", ...
---@field template kfjob.template the templating layer
local kfjob = {}

--- A TensorFlow distributed job (Worker, PS, Chief, Evaluator): Flyte task type tensorflow, kubeflow.org/v1 TFJob.
---@param t? kfjob.TFJobOpts
---@return kfjob.Job
function kfjob.TFJob(t) end

--- A PyTorch distributed job (Master and Workers): Flyte task type pytorch, kubeflow.org/v1 PyTorchJob or a Trainer TrainJob.
---@param t? kfjob.PyTorchJobOpts
---@return kfjob.Job
function kfjob.PyTorchJob(t) end

--- A torch-elastic (torchrun) PyTorch job: Flyte task type pytorch with an elastic_config, a PyTorchJob with elasticPolicy or a Trainer TrainJob.
---@param t? kfjob.ElasticOpts
---@return kfjob.Job
function kfjob.Elastic(t) end

--- An MPI job (Launcher and Workers, mpirun): Flyte task type mpi, kubeflow.org/v1 MPIJob or mpi-operator v2beta1 MPIJob.
---@param t? kfjob.MPIJobOpts
---@return kfjob.Job
function kfjob.MPIJob(t) end

--- A Horovod job (horovodrun on the launcher): Flyte task type mpi, kubeflow.org/v1 MPIJob or mpi-operator v2beta1 MPIJob.
---@param t? kfjob.HorovodJobOpts
---@return kfjob.Job
function kfjob.HorovodJob(t) end

--- A JAX distributed job (Workers): no Flyte task type; training-operator kubeflow.org/v1 JAXJob or a Trainer TrainJob (jax-distributed).
---@param t? kfjob.JAXJobOpts
---@return kfjob.Job
function kfjob.JAXJob(t) end

--- An XGBoost job (Master and Workers): no Flyte task type; training-operator kubeflow.org/v1 XGBoostJob or a Trainer TrainJob (xgboost-distributed).
---@param t? kfjob.XGBoostJobOpts
---@return kfjob.Job
function kfjob.XGBoostJob(t) end

--- A PaddlePaddle job (Master and Workers): no Flyte task type; training-operator kubeflow.org/v1 PaddleJob.
---@param t? kfjob.PaddleJobOpts
---@return kfjob.Job
function kfjob.PaddleJob(t) end

--- A standalone Chief group.
---@param t? kfjob.GroupOpts
---@return table
function kfjob.Chief(t) end

--- A standalone Evaluator group.
---@param t? kfjob.GroupOpts
---@return table
function kfjob.Evaluator(t) end

--- A standalone Launcher group.
---@param t? kfjob.MPIJobGroupOpts
---@return table
function kfjob.Launcher(t) end

--- A standalone Master group.
---@param t? kfjob.GroupOpts
---@return table
function kfjob.Master(t) end

--- A standalone PS group.
---@param t? kfjob.GroupOpts
---@return table
function kfjob.PS(t) end

--- A standalone Worker group.
---@param t? kfjob.WorkerOpts
---@return table
function kfjob.Worker(t) end

--- A standalone run policy.
---@param t? kfjob.RunPolicyOpts
---@return table
function kfjob.RunPolicy(t) end

---@param ... any
---@return any
function kfjob._nameset(...) end

---@param ... any
---@return any
function kfjob._sweep(...) end

--- plugin message bytes to a job
---@param task_type string
---@param data string
---@param opts? {version?: integer, kind?: string}
---@return kfjob.Job|nil, string?
function kfjob.decode(task_type, data, opts) end

--- TaskSpec bytes or JSON to a job and its info
---@param data string
---@param opts? {kind?: string}
---@return kfjob.Job|nil, table|string
function kfjob.decode_task_spec(data, opts) end

--- TaskTemplate bytes or JSON to a job and its info
---@param data string
---@param opts? {kind?: string}
---@return kfjob.Job|nil, table|string
function kfjob.decode_task_template(data, opts) end

--- the kind's field tree from the schema rows
---@param kind kfjob.Kind
---@return table<string, table>
function kfjob.fields(kind) end

--- proto3 JSON to a job
---@param task_type string
---@param json string|table
---@param opts? {version?: integer, allow_unknown?: boolean, kind?: string}
---@return kfjob.Job|nil, string?
function kfjob.from_json(task_type, json, opts) end

--- a training-operator, mpi-operator or Trainer manifest (YAML, JSON or a table) to a job and its info
---@param doc string|table
---@param opts? {kind?: kfjob.Kind, lossy?: boolean}
---@return kfjob.Job|nil, table|string
function kfjob.from_manifest(doc, opts) end

--- every document of a stream kfjob reads, and the ones it skipped
---@param text string
---@param opts? {kind?: kfjob.Kind, lossy?: boolean}
---@return {job: kfjob.Job, info: table}[]|nil, table|string
function kfjob.from_manifests(text, opts) end

--- 64-bit FNV-1a of a string
---@param s string
---@param form? "integer"|"hex"
---@return integer|string
function kfjob.hash64(s, form) end

--- whether v is a kfjob job
---@param v any
---@return boolean
function kfjob.is_job(v) end

--- several resources as one stream or list
---@param items (kfjob.Job|table)[]
---@param opts? kfjob.ManifestOpts
---@return string|table
function kfjob.manifests(items, opts) end

--- this LuaCATS definition file ("options": the Markdown table of the methods' options)
---@param what? "options"
---@return string
function kfjob.meta(what) end

--- the options of the job methods, row by row
---@return {name: string, type: string, methods: string[], description: string}[]
function kfjob.options() end

--- the one document of YAML or JSON text, by the strict reader manifests are read with
---@param text string
---@return any, string?
function kfjob.read_yaml(text) end

--- the JSON Schema of a data config
---@param kind? kfjob.Kind
---@param opts? {target?: kfjob.Target}
---@return string
function kfjob.schema(kind, opts) end

--- the closest candidate (did-you-mean)
---@param word string
---@param candidates string[]
---@return string|nil
function kfjob.suggest(word, candidates) end

--- the systems a job can be emitted for
---@return {name: string, runs: string, kinds: string[], emits: string[]}[]
function kfjob.targets() end

--- the same jobs as a data config table (each with its kind); with order, the schema rows' key order by kind
---@param jobs kfjob.Job|table<string, kfjob.Job>
---@param order? boolean
---@return {jobs: table<string, table>}, table?
function kfjob.to_config(jobs, order) end

--- a config script that builds the same jobs
---@param jobs kfjob.Job|table<string, kfjob.Job>
---@return string
function kfjob.to_lua(jobs) end

---@class kfjob.template
---@field MAX_NAME integer longest name a variant may have
kfjob.template = {}

--- the number of combinations or variants
---@param m table|function
---@return integer
function kfjob.template.count(m) end

--- the DNS-1035 form of a name
---@param s string
---@param max? integer
---@return string
function kfjob.template.dns_name(s, max) end

--- a deep copy with render applied to every string value
---@param tree table
---@param vars table
---@return table
function kfjob.template.expand(tree, vars) end

--- lazy cartesian product of the axes
---@param m {exclude?: table[], include?: table[], [string]: any[]}
---@return fun(): table?
function kfjob.template.matrix(m) end

--- deep merge, b wins
---@param a table
---@param b table
---@return table
function kfjob.template.merge(a, b) end

--- ${name} placeholders filled from vars
---@param str string
---@param vars table
---@return string
function kfjob.template.render(str, vars) end

--- one job per combination
---@param base kfjob.Job|table|fun(params: table): kfjob.Job
---@param matrix table|fun(): table?
---@param opts? {name?: string|fun(params: table, job: kfjob.Job): string, kind?: kfjob.Kind, unique?: boolean, max_name?: integer, vars?: table}
---@return fun(): string?, kfjob.Job?, table?
function kfjob.template.variants(base, matrix, opts) end

return kfjob

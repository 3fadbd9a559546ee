/*
** kf_sched.h - scheduling and placement of a job (SPEC §13): the Kueue
** and Volcano names each target reads, the rows' object (kf_schema.c) and
** the construction rule relating the values (kf_sched.c).  Where each
** target puts them is kf_manifest_sched.c; the rules that differ by
** target are rows of kf_target_rules_sched.c.
*/
#ifndef KF_SCHED_H
#define KF_SCHED_H

#include "kf_job.h"

/* kubernetes-sigs/kueue pkg/controller/constants/constants.go */
#define KF_KUEUE_QUEUE "kueue.x-k8s.io/queue-name"
#define KF_KUEUE_PRIORITY "kueue.x-k8s.io/priority-class"
#define KF_KUEUE_MAX_EXEC "kueue.x-k8s.io/max-exec-time-seconds"
#define KF_KUEUE_MULTIKUEUE "kueue.x-k8s.io/multikueue"
#define KF_KUEUE_MANAGER "kueue.x-k8s.io/manager"
/* kueue apis/kueue/v1beta1 topology annotations (TAS) */
#define KF_TAS_REQUIRED "kueue.x-k8s.io/podset-required-topology"
#define KF_TAS_PREFERRED "kueue.x-k8s.io/podset-preferred-topology"
#define KF_TAS_UNCONSTRAINED "kueue.x-k8s.io/podset-unconstrained-topology"
#define KF_TAS_SLICE_REQUIRED "kueue.x-k8s.io/podset-slice-required-topology"
#define KF_TAS_SLICE_SIZE "kueue.x-k8s.io/podset-slice-size"
#define KF_TAS_GROUP "kueue.x-k8s.io/podset-group-name"
#define KF_TAS_SLICES "kueue.x-k8s.io/podset-slice-required-topology-constraints"
/* trainer pkg/runtime/framework/plugins/volcano: the TrainJob's queue */
#define KF_VOLCANO_QUEUE "scheduling.volcano.sh/queue-name"

extern const kf_obj kf_sched_obj, kf_topology_obj;

/* topology.slices (kf_slices.c): the row's tree, the annotation's JSON
** text of a checked list (0: no room in `cap`), and that text read back
** (NULL: not of that shape; the list is then checked as a row's). */
extern const kf_tree kf_slices_tree;
int kf_sched_slices_json(const kf_node *slices, char *buf, size_t cap);
const kf_node *kf_sched_slices_parse(kf_arena *A, const char *s);
#define KF_SLICES_JSON_MAX 1200

/* Queue and priority class names, topology modes: the checks that hold on
** every target (R27); listed in every kind's rules. */
kf_status kf_rule_sched(const kf_job *j, int style, const char *who, kf_err *e);

/* The topology a group's pod set gets (g NULL: the job's alone): the job's
** with the group's keys over it, where the group's mode (required,
** preferred or unconstrained) replaces the job's as a whole. */
kf_topology kf_sched_merged_topology(const kf_job *j, const kf_group *g);

/* A scheduling that sets nothing (scheduling = {}, suspend = false,
** multikueue = false, topology = {}) is no scheduling: the manifests are
** the same, so the job is (SPEC §13; == compares the resolved job). */
void kf_sched_normalize(kf_job *j);

/* Whether the job or any of its groups sets a topology; whether a group
** of the job's kind has its own pod template or topology. */
int kf_sched_has_group_settings(const kf_job *j);

/* The pods a target starts for the job (R28's pod count, SPEC §13):
** Σ replicas on operator and the Flyte targets (an elastic job its
** maximum nnodes), workers + 1 on mpi-operator, numNodes on Trainer. */
int64_t kf_sched_pod_count(const kf_job *j, int target);
/* An elastic job: a "min:max" range with min < max. */
int kf_sched_elastic(const kf_job *j);
/* The gang size the target will use: min_available when set, else the
** target's default (the pod count); *set says which. */
int64_t kf_sched_gang_size(const kf_job *j, int target, int *set);

/* A Kueue label's value as scheduling holds it, i: 0 the queue, 1 the
** priority class (a non-empty DNS-1123 subdomain, R27), 2 max-exec-time (a
** decimal integer 1..2^31-1 without sign or leading zero, as kfjob writes
** it; *secs its value); else it stays a label.  The decoders of TaskTemplates
** and manifests both read Kueue's labels by it. */
int kf_sched_label_value(int i, const char *s, int32_t *secs);

/* TaskTemplate (flyte, flyte2): the job with its topology as annotations
** of its pod template (*out: j itself without one); on flyte2 a
** PyTorchJob's (an Elastic job's) Kueue labels as its pod template's
** labels (kf_sched_labels_in, *out: j itself without any); and the inverse
** of both after decoding (a job that has no scheduling yet). */
kf_status kf_sched_template_in(const kf_job *j, kf_arena *A, const kf_job **out,
                               kf_err *e);
kf_status kf_sched_labels_in(const kf_job *j, kf_arena *A, const kf_job **out,
                             kf_err *e);
kf_status kf_sched_template_out(kf_job *j, kf_arena *A, kf_err *e);
/* Only the topology annotations of the job's pod template, back into
** scheduling.topology (a manifest read back, SPEC §14). */
kf_status kf_sched_topology_out(kf_job *j, kf_arena *A, kf_err *e);

#endif

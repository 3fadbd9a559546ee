/*
** kf_manifest.h - the kube room: every target's custom resource (Kubeflow
** training-operator, Flyte 1.x/2, mpi-operator, Trainer v2) built from a
** resolved kf_job the way each system's controller reads it, as kf_node
** trees in the caller's arena.  The target's rules are checked above this
** room (kf_emit.h); the helpers at the end are what rules/ reads too.
*/
#ifndef KF_MANIFEST_H
#define KF_MANIFEST_H

#include "kf_job.h"
#include "kf_target.h"
#include "kf_qty.h"
#include "kf_launcher.h"
#include "kf_options.h"

/* kf_manifest_opts (the call's options) is kf_options.h's: its rows name
** the slots. */

/* Options node (string-keyed object) -> opts by the option rows' slots
** (kf_options.c): types and shapes only, keys without a slot are skipped
** (the binding rejects unknown ones first).
** Strings point into the node.  Errors "<who>: opts.<path>: <problem>". */
kf_status kf_manifest_opts_parse(const kf_node *n, kf_manifest_opts *o,
                                 kf_arena *A, const char *who, kf_err *e);

/* A list of strings (an empty table counts) -> strs pointing into the
** node.  Errors "<who>: <path>[i]: <problem>". */
kf_status kf_strs_from_node(const kf_node *n, kf_strs *out, kf_arena *A,
                            const char *who, const char *path, kf_err *e);

/* kf_manifest's writer alone, for a job the target's rules accepted. */
kf_status kf_manifest_write(const kf_job *j, kf_target t,
                            const kf_manifest_opts *o, kf_arena *A,
                            kf_node **out, const char *who, kf_err *e);

/* ---- what the writers know that the rules and the top ask too ---- */
/* The job's own container and metadata under the call's options, field by
** field: the task image (opts.image, else container.image; a group's own
** image wins over both), the namespace (opts.namespace, else the job's). */
const char *kfm_task_image(const kf_job *j, const kf_manifest_opts *o);
const char *kfm_namespace(const kf_job *j, const kf_manifest_opts *o);
/* The env row group `role`'s pods take when the call gives no opts.env:
** the group's container.env, else the job's (NULL: none); *group (may be
** NULL) says whether it is the group's. */
const kf_node *kfm_row_env(const kf_job *j, int role, int *group);
/* An env row as a container's env list: a list's EnvVars in their order,
** a name = value table sorted by name; NULL: no memory. */
kf_node *kfm_env_list(kf_arena *A, const kf_node *env);
/* Whether group row `f` holds a value other than its default (R34). */
int kfm_row_given(const kf_field *f, const kf_group *g);
/* The same of a row of any struct (the job, its run policy) at `base`. */
int kfm_value_given(const kf_field *f, const void *base);
long double kfm_qty_value(const char *s);
int kfm_qty_cmp(const char *a, const char *b);
const kf_group *kfm_task_resources(const kf_job *j, const kf_group *g,
                                   kf_group *tmp);
const kf_group *kfm_pod_group(const kf_job *j, int role,
                              const kf_manifest_opts *o, kf_group *tmp);
int kfm_present_roles(const kf_job *j, int out[KF_NROLES]);
/* A container env name Kubernetes takes (letters, digits, '_', '-', '.',
** not starting with a digit). */
int kfm_env_name(const char *s);
/* Whether some pod gets a GPU limit (lint and R12: an accelerator needs one). */
int kfm_gpu_limited(const kf_job *j);
size_t kfm_longest_pod(const kf_job *j, const char *name, char *buf,
                       size_t cap);
/* The same on target t (Trainer: <name>-node-0-<numNodes-1>). */
size_t kfm_longest_pod_on(const kf_job *j, kf_target t, const char *name, char *buf,
                          size_t cap);
extern const char kfm_dns1035_rule[];   /* the rule, said in messages */

/* A TrainJob runtime patch's PodSpecPatch and ContainerPatch property
** names, [0] Trainer v2.2, [1] v2.3, NULL-ended (generated from
** schema/targets.json by scripts/targetschema.py). */
extern const char *const *const kfm_trainer_pod_patch[2];
extern const char *const *const kfm_trainer_container_patch[2];

#endif

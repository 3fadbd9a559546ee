/*
** kf_manifest.h - Kubeflow custom resources (kubeflow.org/v1 TFJob,
** PyTorchJob, MPIJob), lint warnings and MPI/Horovod launcher commands,
** built from a resolved kf_job the way Flyte's backend translates a task.
** Results are kf_node trees in the caller's arena; YAML
** text comes from libyaml's emitter.  No Lua here.
*/
#ifndef KF_MANIFEST_H
#define KF_MANIFEST_H

#include "kf_core.h"
#include "kf_target.h"
#include "kf_qty.h"
#include "kf_launcher.h"

/* Inputs a task gives beyond the job: metadata and the task container. */
typedef struct kf_manifest_opts {
  const char *name;             /* required: DNS-1035 label */
  const char *ns;               /* namespace, NULL: none */
  const char *image;            /* task image; a group's image wins */
  const char *service_account;
  kf_strs command, args;        /* task container; n == 0: none */
  kf_kvs env, labels, annotations;
  int target_set;               /* 0: the default target, operator */
  kf_target target;
} kf_manifest_opts;

/* Options node (string-keyed object) -> opts: types and shapes only, keys
** the caller does not know are skipped (the binding rejects them first).
** Strings point into the node.  Errors "<who>: opts.<path>: <problem>". */
kf_status kf_manifest_opts_parse(const kf_node *n, kf_manifest_opts *o,
                                 kf_arena *A, const char *who, kf_err *e);

/* A list of strings (an empty table counts) -> strs pointing into the
** node.  Errors "<who>: <path>[i]: <problem>". */
kf_status kf_strs_from_node(const kf_node *n, kf_strs *out, kf_arena *A,
                            const char *who, const char *path, kf_err *e);

/* The custom resource for o's target (default operator) as a node, keys
** in Kubernetes order.  Checks every input the API server or the operator
** would refuse (names, labels, env names, images, GPU requests that differ
** from limits), so the result passes ../shared/tools/validate-manifest
** --target <target>. */
kf_status kf_manifest(const kf_job *j, const kf_manifest_opts *o, kf_arena *A,
                      kf_node **out, const char *who, kf_err *e);

/* kf_manifest's writer alone, for a job the target's rules accepted. */
kf_status kf_manifest_write(const kf_job *j, kf_target t,
                            const kf_manifest_opts *o, kf_arena *A,
                            kf_node **out, const char *who, kf_err *e);

typedef struct kf_lint_opts {
  const char *name;             /* NULL: skip the name rules */
  const char *image;            /* the task image, NULL: unknown */
  int version;                  /* task_type_version the job is sent as */
  const char *who;              /* prefixes errors ("kfjob.lint") */
  kf_target target;             /* its warnings are added (0: flyte) */
  const kf_kvs *env;            /* the user's variables, sorted (R16);
                                   NULL: none */
} kf_lint_opts;

/* Warnings as an array of {path=, message=} objects, in the order of the
** job's fields (groups in kind order, run_policy, slots), then opts, then
** the target's rules (FACTS §8.5) as {path=, message=, rule=, source=}. */
kf_status kf_lint(const kf_job *j, const kf_lint_opts *o, kf_arena *A,
                  kf_node **out, kf_err *e);

/* Nodes -> a YAML stream, one document each (block style, keys in node
** order, strings that a YAML 1.1 or 1.2 reader would take for a number,
** boolean, null or timestamp double-quoted).  `indent` 2..9. */
kf_status kf_yaml(const kf_node *const *docs, size_t n, int indent,
                  kf_buf *out, kf_err *e);

/* What a job asks of the cluster (kf_resources.c): pods per replica group
** (in the manifest's order) and, over all its pods, the effective
** requests and limits of CPU, memory and GPUs (nvidia.com/gpu), exact.
** A limit sums only the containers that set one. */
typedef struct kf_job_res {
  struct { const char *role; int64_t replicas; } groups[KF_NROLES];
  int ngroups;
  int64_t pods;
  kf_qty req[3], lim[3];        /* cpu, memory, gpu */
  int too_large;                /* failed: a quantity or sum beyond kf_qty */
} kf_job_res;

/* Fails with too_large set when a quantity cannot be summed exactly (a
** valid quantity such as "1e999999" beyond kf_qty's ~1e68): an error, not
** a wrong total. */
kf_status kf_job_resources(const kf_job *j, kf_arena *A, kf_job_res *out,
                           kf_err *e);

#endif

/*
** kf_emit.h - a job's manifest, its pods' environment and what it asks of
** the cluster, for a target: the target's rules (rules/) first, then its
** writer (kube/).  The top of the core, with kf_render.h.
*/
#ifndef KF_EMIT_H
#define KF_EMIT_H

#include "kf_manifest.h"
#include "kf_env.h"
#include "kf_rules.h"
#include "kf_import.h"

/* The custom resource for o's target (default operator) as a node, keys
** in Kubernetes order.  Checks every input the API server or the operator
** would refuse (names, labels, env names, images, GPU requests that differ
** from limits), so the result passes ../shared/tools/validate-manifest
** --target <target>. */
kf_status kf_manifest(const kf_job *j, const kf_manifest_opts *o, kf_arena *A,
                      kf_node **out, const char *who, kf_err *e);

/* job:environment(opts): opts.name (required, a DNS-1035 label),
** opts.namespace, opts.env, opts.target (unset: operator) from `o`, the
** job's namespace and container env where the call gives none; the
** target's rules (kf_target_require, R16 included) first.  The result:
** { [pod] = { env = { {name=, value=} | {name=, valueFrom=} ... },
**   files = { [path] = content } } }, pods in the order of their groups. */
kf_status kf_environment(const kf_job *j, const kf_manifest_opts *o,
                         kf_arena *A, kf_node **out, const char *who,
                         kf_err *e);

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

/* kfjob.from_manifest's reading (kf_import_check.c): kf_import, then the
** job held to its own target's rules (info.target; name info.name), each
** problem named by its manifest path (kf_import_where): the warnings are
** info.warnings ({path=, message=, rule=, source=}, as job:lint's rule
** entries); an error the target runs without (kf_import_droppable: a
** restart policy) is the read's ("<who>: <path>: <problem> (rule R on
** T)"), or with o->lossy left out and listed in info.unmapped; the
** target's other errors are job:check's. */
kf_status kf_import_checked(const kf_node *doc, const kf_import_opts *o, kf_arena *A,
                            kf_job *out, kf_node **info, kf_err *e);

#endif

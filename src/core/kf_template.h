/*
** kf_template.h - TaskTemplate envelope and the JSON entry points that
** turn external JSON into jobs.  Lua-free.
*/
#ifndef KF_TEMPLATE_H
#define KF_TEMPLATE_H

#include "kf_core.h"
#include "flyteidl/core/tasks.pb-c.h"

/* Job -> TaskTemplate.  `opts` is the caller's options as a node (id,
** container, config; version/format keys are the caller's business) or
** NULL.  Map entries come out sorted so packing is deterministic.  `who`
** prefixes errors ("kfjob.task_template"). */
kf_status kf_task_template(const kf_job *j, const kf_encopts *o,
                           const kf_node *opts, kf_arena *A,
                           Flyteidl__Core__TaskTemplate **out,
                           const char *who, kf_err *e);

/* The same template's deterministic bytes appended to `out`, the custom
** Struct written straight from the JSON tree (the fast path). */
kf_status kf_task_template_bytes(const kf_job *j, const kf_encopts *o,
                                 const kf_node *opts, kf_arena *A, kf_buf *out,
                                 const char *who, kf_err *e);

/* TaskTemplate bytes, or its proto3 JSON (text starting with '{') -> job
** and an info node {type, version, id?, container?, config?}.  `kind`
** refines the task type (HorovodJob for "mpi") or is -1.  `who` prefixes
** errors ("kfjob.decode_task_template"). */
kf_status kf_decode_task_template(const char *p, size_t n, int kind,
                                  kf_arena *A, kf_job *j, kf_node **info,
                                  const char *who, kf_err *e);

/* A config entry appended to the template (sorted later). */
kf_status kf_template_add_config(kf_arena *A, Flyteidl__Core__TaskTemplate *t,
                                 const char *k, const char *v, kf_err *e);
/* Pod settings (kf_pod_tt.c): task resources, extended resources and the
** k8s_pod target as flytekit writes them, after the container and config
** are built; and read back into the job (the primary container becomes
** t->container, so info reads it as a container target's). */
kf_status kf_pod_to_template(const kf_job *j, kf_arena *A,
                             Flyteidl__Core__TaskTemplate *t, const char *who,
                             kf_err *e);
kf_status kf_pod_from_template(Flyteidl__Core__TaskTemplate *t, kf_arena *A,
                               kf_job *j, const char *who, kf_err *e);

/* Proto3 JSON (parsed into a node) of a plugin message -> job.  `who`
** prefixes errors ("kfjob.from_json"). */
kf_status kf_from_json(const char *task_type, int kind, int version,
                       const kf_node *root, int allow_unknown, kf_arena *A,
                       kf_job *j, const char *who, kf_err *e);

#endif

/*
** kf_template.h - TaskTemplate envelope and the JSON entry points that
** turn external JSON into jobs.  Lua-free.
*/
#ifndef KF_TEMPLATE_H
#define KF_TEMPLATE_H

#include "kf_job.h"
#include "kf_pb.h"
#include "flyteidl/core/tasks.pb-c.h"
#include "flyteidl/admin/task.pb-c.h"

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

/* The template with the spec flag (task_spec: takes interface, metadata,
** checks registration fields, *description gets metadata.description);
** with `custom` non-NULL the custom stays a node for kf_template_pack. */
kf_status kf_template_build(const kf_job *j, const kf_encopts *o,
                            const kf_node *opts, int spec, kf_arena *A,
                            Flyteidl__Core__TaskTemplate **out, kf_node **custom,
                            const char **description, const char *who, kf_err *e);
/* Deterministic bytes of a template whose custom is the node `custom`. */
kf_status kf_template_pack(const Flyteidl__Core__TaskTemplate *t,
                           const kf_node *custom, kf_arena *A, kf_buf *out,
                           kf_err *e);
/* A decoded template -> job and info (kf_decode_task_template's tail). */
kf_status kf_template_to_job(Flyteidl__Core__TaskTemplate *t, int opt_kind,
                             kf_arena *A, kf_job *j, kf_node **info,
                             const char *who, kf_err *e);
/* Bytes, or proto3 JSON (text starting with '{', unknown fields skipped)
** -> a message of `d`; malformed bytes name the message. */
kf_status kf_envelope_read(const char *p, size_t n,
                           const ProtobufCMessageDescriptor *d, kf_arena *A,
                           ProtobufCMessage **out, const char *who, kf_err *e);

/* Option helpers shared by the envelope builders: the string's defect or
** NULL; an optional string at opts.<path><key>; unknown keys of a table
** at opts.<path> with did-you-mean. */
const char *kf_opt_bad_text(const kf_node *v);
kf_status kf_opt_string(const kf_node *o, const char *key, const char *path,
                        const char **out, const char *who, kf_err *e);
kf_status kf_opt_check_known(const kf_node *o, const char *path,
                             const char *const *known, const char *who,
                             kf_err *e);

/* kf_interface.c: opts.interface -> TypedInterface (o NULL: empty maps),
** opts.metadata -> TaskMetadata (runtime and retries always set) and the
** description; and back to the option shapes for decode's info. */
kf_status kf_interface_build(kf_arena *A, const kf_node *o,
                             Flyteidl__Core__TypedInterface **out,
                             const char *who, kf_err *e);
kf_status kf_metadata_build(kf_arena *A, const kf_node *o,
                            Flyteidl__Core__TaskMetadata **out,
                            const char **description, const char *who,
                            kf_err *e);
kf_node *kf_interface_node(kf_arena *A, const Flyteidl__Core__TypedInterface *ti);
kf_node *kf_metadata_node(kf_arena *A, const Flyteidl__Core__TaskMetadata *m,
                          const char *description);

/* kf_taskspec.c: flyteidl.admin.TaskSpec (SPEC 3.4).  Options as
** kf_task_template's plus interface and metadata; id and an image are
** required.  Bytes deterministic; JSON via kf_task_spec + kf_msg_to_json. */
kf_status kf_task_spec(const kf_job *j, const kf_encopts *o, const kf_node *opts,
                       kf_arena *A, Flyteidl__Admin__TaskSpec **out,
                       const char *who, kf_err *e);
kf_status kf_task_spec_bytes(const kf_job *j, const kf_encopts *o,
                             const kf_node *opts, kf_arena *A, kf_buf *out,
                             const char *who, kf_err *e);
/* TaskSpec bytes or JSON -> job and info (decode_task_template's plus id,
** container, interface, metadata). */
kf_status kf_decode_task_spec(const char *p, size_t n, int kind, kf_arena *A,
                              kf_job *j, kf_node **info, const char *who,
                              kf_err *e);

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
/* The same from the text, when kf_json_fast_msg reads it (the plain shape
** to_json writes): *done = 1 and the status of kf_from_json on the parsed
** text.  *done = 0 (and the arena as it was): parse the text and call
** kf_from_json, which words every error and warning. */
kf_status kf_from_json_text(const char *task_type, int kind, int version,
                            const char *s, size_t n, kf_arena *A, kf_job *j,
                            int *done, const char *who, kf_err *e);

#endif

/*
** kf_pb.h - a job <-> its flyteidl plugin messages (protobuf-c), and the
** wire checks that guard protobuf-c's unpack.
*/
#ifndef KF_PB_H
#define KF_PB_H

#include "kf_job.h"

/* ---- protobuf (plugin messages) --------------------------------------- */

typedef struct kf_encopts {
  int version;        /* 0 or 1 */
  int common;         /* v1: use CommonReplicaSpec */
  const char *ctor;   /* the job's constructor name ("kfjob.TFJob"): prefixes
                         the "version 0 cannot express" error; NULL: the
                         kind's name */
  int clustered;      /* the Flyte 2 clustered task's ClusteredTaskSpec
                         (target flyte2-clustered), not the plugin message */
} kf_encopts;

/* Build the plugin message flytekit would build; NULL + error when the
** version cannot express the job. `for_template` lets v0 MPI carry the
** worker command in the TaskTemplate config instead. */
kf_status kf_job_to_msg(const kf_job *j, const kf_encopts *o, int for_template,
                        kf_arena *A, ProtobufCMessage **out, kf_err *e);
/* Plugin message -> job (validated).  `kind` is the kind the task type
** names (kf_kind_for_task_type) or a refinement (HorovodJob for "mpi");
** PyTorchJob with an elastic config becomes Elastic.  `who` prefixes
** errors ("kfjob.decode"). */
int kf_kind_for_task_type(const char *task_type);   /* -1 if unknown */
kf_status kf_job_from_msg(const char *who, int kind,
                          const ProtobufCMessage *m, int version, kf_arena *A,
                          kf_job *out, kf_err *e);
const ProtobufCMessageDescriptor *kf_msg_desc(const char *task_type,
                                              int version);
/* "<who>: unknown task type '...' (expected ...)": one message for every
** reader of a task type. */
kf_status kf_unknown_task_type(const char *who, const char *task_type,
                               kf_err *e);
/* Bitmask of versions (bit 0 = v0, bit 1 = v1) that can express the job. */
unsigned kf_job_versions(const kf_job *j);

/* Every string field in the wire bytes of `d` (recursively) is UTF-8
** without NUL bytes, and messages nest at most KF_MAX_WIRE_DEPTH levels
** (KF_ELIMIT); protobuf-c checks neither.  Errors name the path. */
kf_status kf_wire_check(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                        size_t n, const char *who, kf_err *e);
/* protobuf-c's unpack of `d` from `p`, `n` into `A`, guarded: the nesting
** depth is checked before unpack recurses, then the strings; a sub-message
** given twice is merged first (kf_pb_merge).  KF_EINVAL
** with *out = NULL and no message set means malformed framing (the caller
** names the message); other errors are set in `e`. */
kf_status kf_unpack(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                    size_t n, const char *who, kf_arena *A,
                    ProtobufCMessage **out, kf_err *e);
/* The bytes of `d` with every non-repeated message field given more than
** once in a message (recursively) given once, its payload the payloads
** concatenated (protobuf's merge of the occurrences), at the place of the
** last one that counts (kf_pb_merge.c).  1: *out, *outn hold them (in A);
** 0: bytes that do not frame, left as they are; -1: out of memory. */
int kf_pb_merge(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
                kf_arena *A, const uint8_t **out, size_t *outn);
/* encode: into a buffer; decode: bytes -> job, `who` prefixing errors
** ("kfjob.decode"): read straight into the job by kf_wire_read_job when it
** takes the bytes, else (every error among them) by kf_decode_msg. */
kf_status kf_encode(const kf_job *j, const kf_encopts *o, kf_arena *A,
                    kf_buf *out, kf_err *e);
/* kf_encode of a job kf_job_pack_into packed into `block` bytes (which
** bound its strings, so they need not be measured again). */
kf_status kf_encode_block(const kf_job *j, size_t block, const kf_encopts *o,
                          kf_arena *A, kf_buf *out, kf_err *e);
kf_status kf_decode(const char *task_type, int kind, int version,
                    const uint8_t *p, size_t n, kf_arena *A, kf_job *out,
                    const char *who, kf_err *e);
/* kf_decode by protobuf-c's unpack and kf_job_from_msg alone, the path
** kf_decode runs when its reader gives up (the decode fuzzer compares the
** two). */
kf_status kf_decode_msg(const char *task_type, int kind, int version,
                        const uint8_t *p, size_t n, kf_arena *A, kf_job *out,
                        const char *who, kf_err *e);

/* ---- Flyte 2 clustered tasks (kf_clustered.c) ------------------------- */

/* The task type and version of a clustered task. */
#define KF_CLUSTERED_TASK_TYPE "clustered-task"
#define KF_CLUSTERED_VERSION 1

/* The flyteidl2.plugins.ClusteredTaskSpec flyte-sdk's
** ClusteredTaskEnvironment writes for a PyTorchJob or Elastic job (its
** target rules passed): replicas, nproc_per_node, runtime.torchrun (always
** set), interconnect, failure_policy (only when a field is set), the TTL
** (only when set). */
kf_status kf_clustered_msg(const kf_job *j, const kf_encopts *o, kf_arena *A,
                           ProtobufCMessage **out, kf_err *e);
/* A ClusteredTaskSpec read back into a job of `kind` (KF_ELASTIC or
** KF_PYTORCH), the backend's checks first, then the constructors' path;
** `who` prefixes errors. */
kf_status kf_clustered_job(const ProtobufCMessage *m, int kind, kf_arena *A,
                           kf_job *out, const char *who, kf_err *e);
/* The ClusteredTaskSpec's descriptor. */
extern const ProtobufCMessageDescriptor *const kf_clustered_desc;

#endif

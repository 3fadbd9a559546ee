/*
** kf_schema.h - what kfjob knows about the job kinds, as data.
**
** One row per field of every kind, group, resource table and policy: its
** spec key and alias, value type, owning-struct offset, default, bounds,
** the proto fields it maps to (v1, and v0 or "v0 cannot carry it") and its
** manifest key.  The generic loops of kf_build.c (parse, spec(), ==, copy,
** field reads) and kf_pb.c (encode bound, v0 fitness, decode) walk these
** rows; rules that relate several fields are named functions listed in the
** kind's row.  docs/ARCHITECTURE.md has the checklists for adding a field
** or a kind.
*/
#ifndef KF_SCHEMA_H
#define KF_SCHEMA_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

#include "kf_core.h"

/* The kinds after KF_HOROVOD have no Flyte task type: the training
** operator runs them from manifests only (SPEC §12). */
enum kf_kind { KF_TFJOB, KF_PYTORCH, KF_ELASTIC, KF_MPI, KF_HOROVOD,
               KF_JAX, KF_XGBOOST, KF_PADDLE, KF_NKINDS };
enum kf_role { KF_WORKER, KF_PS, KF_CHIEF, KF_EVALUATOR, KF_MASTER,
               KF_LAUNCHER, KF_NROLES };
enum kf_res { KF_CPU, KF_MEM, KF_GPU, KF_EPH, KF_NRES };
/* KF_RP_EXIT_CODE: the training-operator's ExitCode (common_types.go):
** no value of the plugin's enum, so R13 keeps it off Flyte */
enum { KF_RP_NEVER, KF_RP_ON_FAILURE, KF_RP_ALWAYS, KF_RP_EXIT_CODE };
enum { KF_CP_NONE, KF_CP_RUNNING, KF_CP_ALL };

/* ---- value types and field rows --------------------------------------- */

typedef enum kf_vtype {
  /* the types held as one const char * come first (KF_V_ISSTR) */
  KF_V_STR,       /* UTF-8 string without NUL */
  KF_V_TOKEN,     /* non-empty string without whitespace */
  KF_V_CHOICE,    /* a string from a fixed list (info: kf_choice) */
  KF_V_SIZE,      /* true (held as "") or a quantity; false leaves it unset */
  KF_V_QTY,       /* Kubernetes quantity, or a non-negative number */
  KF_V_INT,       /* int32 >= min; integral floats accepted */
  KF_V_NPROC,     /* an INT, or a word of a kf_choice (info) held as that
                     static string at off_n (NULL: the integer) */
  KF_V_BOOL,
  KF_V_ENUM,      /* a spelling of a kf_enum, or its number */
  KF_V_STRLIST,   /* non-empty list of strings (count at off_n) */
  KF_V_OBJ,       /* nested table (info: kf_obj) */
  KF_V_NNODES,    /* integer or "MIN:MAX" (min_nodes, max_nodes, nnodes_int) */
  KF_V_TREE,      /* a checked value tree (const kf_node *; info: kf_tree) */
  /* markers in a kind's field list */
  KF_V_GROUPS,    /* the kind's replica groups, in role order */
  KF_V_DEPRECATED /* the kind's deprecated num_* counts */
} kf_vtype;
#define KF_V_ISSTR(t) ((t) <= KF_V_QTY)

/* Row flags. */
#define KF_F_REPLICAS  1u   /* group replicas: not in an elastic job */
#define KF_F_COMMAND   2u   /* group command: MPI kinds and Worker/Launcher */
#define KF_F_OMITZERO  4u   /* spec() leaves 0 out unless given as 0 (a
                               ** BOOL: false always) */
#define KF_F_SHORT    16u   /* KF_V_OBJ: a string stands for its first row */
#define KF_F_REST     64u   /* KF_V_TREE in an object: also takes the keys
                               ** no row has that kf_ext_res_key accepts */
#define KF_F_PLACED   32u   /* the value goes only where its place is: a
                               ** target whose place path is NULL refuses it
                               ** with the place's rule, Flyte's two targets
                               ** (the plugin message) one without a proto
                               ** field (R34, kf_field_not_on) */
#define KF_F_GIVEN    64u   /* the default (idef, sdef, false) is a value,
                               ** and whether it was given is kept (zbit):
                               ** spec() and a manifest that goes straight
                               ** to the operator leave it out unless given;
                               ** == tells it given from unset (Law 2/3: an
                               ** elasticPolicy reads back as written) */

/* Where a group row's value goes in a manifest (kf_field.place): every
** place a field can be written or read is one row of KF_PLACES, and the
** enum, the names kfjob.fields gives (`place`), the per-target paths
** `kfjob explain` shows and the readers come from it.  Columns:
**   id      KF_M_<id>
**   name    kfjob.fields' `place` (NULL: none)
**   group   1: a group row's place, its paths under the group's replica
**           spec on the next two columns; 0: a job row's, paths whole
**   v1      path on the kubeflow.org/v1 targets (flyte, flyte2, operator;
**           a group's: spec.<replicaSpecs>.<Group><v1>)
**   mpi     path on the mpi-operator's MPIJob v2beta1
**   trainer path in a TrainJob (the three Trainer targets), NULL: none
**   jobset  path in a Flyte 2 clustered task's JobSet, NULL: none
**   flyte   path in Flyte's TaskTemplate (flyte, flyte2) of a place only
**           the TaskTemplate has, NULL: the v1 column's
**   msg     the fixed protobuf message at `flyte` (NULL: none): a row of
**           the place is written there as the message's field of the
**           row's key; a KF_F_PLACED row without one is refused there
**           with `rule`
**   rule    why a target with NULL has no such place (upstream source)
**   reader  what reads the place back (import/)
** One routine per place writes every row of it (kfm_group_rows,
** kfm_job_rows, kf_manifest_common.c). */
#define KF_PLACES(X)                                                          \
  X(NONE, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,                           \
    "written by a routine of its own (pod template, topology) or nowhere",    \
    NULL)                                                                     \
  X(REPLICA, "replica_spec", 1, "", "", NULL, NULL, NULL, NULL,                  \
    "a TrainJob has no replica spec (replicas: spec.trainer.numNodes, no "    \
    "restart policy, trainjob_types.go); a JobSet's one replicated job "     \
    "counts the pods in parallelism and completions",                        \
    "kf_import_spec.c: each replica row under its key")                      \
  X(CONTAINER, "container", 1, ".template.spec.containers[0]",                   \
    ".template.spec.containers[0]", "spec.trainer",                          \
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0]",      \
    NULL, NULL, NULL,                                                         \
    "kf_import_util.c: each container row under its key")                    \
  X(RESOURCES, "resources", 1, ".template.spec.containers[0].resources",         \
    ".template.spec.containers[0].resources", "spec.trainer.resourcesPerNode",\
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0]"       \
    ".resources", NULL, NULL, NULL,                                           \
    "kf_import_pod.c: requests and limits, resource by resource")          \
  X(POD, "pod_spec", 1, ".template.spec", ".template.spec",                  \
    "spec.runtimePatches[0].trainingRuntimeSpec.template.spec."             \
    "replicatedJobs[0].template.spec.template.spec",                        \
    "spec.replicatedJobs[0].template.spec.template.spec", NULL, NULL, NULL,  \
    "kf_import_pod.c: spec_key, each pod spec row under its key (Trainer: "  \
    "the runtime patch's, the node job's for every group)")                  \
  X(METADATA, "metadata", 0, "metadata", "metadata", "metadata", "metadata",   \
    NULL, NULL, NULL, "kf_import.c: metadata, each metadata row under its key")          \
  X(RUN_POLICY, "run_policy", 0, "spec.runPolicy", "spec.runPolicy", NULL,   \
    NULL, NULL, NULL,                                                         \
    "a TrainJob has no run policy (trainjob_types.go: activeDeadlineSeconds " \
    "is the spec's own, the rest dropped, R20); a JobSet's failurePolicy "   \
    "takes backoff_limit as maxRestarts",                                     \
    "kf_import_spec.c: kfi_run_policy, each run policy row under its key")   \
  X(MPI_SPEC, "mpi_job_spec", 0, NULL, "spec", NULL, NULL, NULL, NULL,     \
    "the mpi-operator's own MPIJob v2beta1 fields (mpi_job_types.go); the "  \
    "training-operator's v1 MPIJob, Flyte's plugin message, a TrainJob and " \
    "a JobSet have none (R52)",                                              \
    "kf_import.c: v1_spec, each mpi-operator row under its key")             \
  X(ELASTIC, "elastic_policy", 0, "spec.elasticPolicy", NULL, NULL, NULL,    \
    NULL, NULL,                                                               \
    "the training-operator's PyTorchJob alone has an elasticPolicy "         \
    "(pytorchjob_types.go); an MPIJob, a TrainJob (trainjob_types.go: "      \
    "numNodes, numProcPerNode) and a JobSet have none",                      \
    "kf_import_spec.c: kfi_elastic, each Elastic row under its key")          \
  X(TASK_CONTAINER, "task_container", 0, NULL, NULL, NULL, NULL, "container", \
    &flyteidl__core__container__descriptor,                                   \
    "the TaskTemplate's container is flyteidl core.Container (tasks.proto), " \
    "a fixed message (image, command, args, env, ...): a field that is none " \
    "of its fields has no place in it, and a manifest has no task container " \
    "(its pods' main containers are the container place's)",                 \
    "kf_template_decode.c: read_container, the job's container from the "    \
    "TaskTemplate's")

enum kf_mplace {
#define KF_PLACE_ENUM(id, name, group, v1, mpi, trainer, jobset, flyte, msg, rule, \
                      reader) KF_M_##id,
  KF_PLACES(KF_PLACE_ENUM)
#undef KF_PLACE_ENUM
  KF_NPLACES
};

/* A place's row (KF_PLACES), by KF_M_* (kf_places[]; paths by target:
** kf_place_path in kf_target.h). */
typedef struct kf_place_info {
  const char *name;
  int group;
  const char *v1, *mpi, *trainer, *jobset, *flyte;
  const ProtobufCMessageDescriptor *msg;
  const char *rule, *reader;
} kf_place_info;
extern const kf_place_info kf_places[KF_NPLACES];

typedef struct kf_enum {
  const char *what;            /* "restart policy" */
  const char *choices;         /* "never, on_failure or always" */
  const char *const (*spell)[3];  /* by value: lowercase, Kubernetes, proto */
  int n;
  const char *const *manifest; /* Kubernetes spelling by value */
  int npb;                     /* values the proto's enum has (0 .. npb-1);
                                  the others are the manifests' alone */
} kf_enum;

typedef struct kf_choice {
  const char *what;            /* "rendezvous backend" */
  const char *choices;         /* "c10d, etcd or etcd-v2" */
  const char *const *v;        /* NULL-terminated */
} kf_choice;

typedef struct kf_obj kf_obj;

struct kf_node;
struct kf_arena;
/* KF_V_TREE: checks a value and returns its canonical copy in the arena
** (NULL: leave the field unset); `path` is where the value is, for
** messages ("<who>: <path>...: <problem>"). */
typedef struct kf_tree {
  const char *what;            /* "a pod template" */
  kf_status (*check)(const struct kf_node *in, struct kf_arena *A,
                     const struct kf_node **out, const char *who,
                     const char *path, kf_err *e);
  const char *shape;           /* what the generators say of it: "PodTemplate",
                                  "Env" (EnvVars or name = value), "StringMap" */
  unsigned char key_check;     /* "StringMap": the validator (KF_CHECK_*) of its
                                  keys and of its values (0: none) */
  unsigned char value_check;
} kf_tree;

/* What a string row's value must be beyond its type: the validator the
** row names (kf_field.check), run by the rule that owns the row's checks
** (kf_row_check) and named in kfjob.fields (`check`). */
enum kf_check {
  KF_CHECK_NONE,
  KF_CHECK_DNS_LABEL,      /* a DNS-1123 label, at most 63 (a namespace) */
  KF_CHECK_KUEUE_NAME,     /* a DNS-1123 subdomain, as Kueue's webhook
                              takes queue and priority class names */
  KF_CHECK_LABEL_KEY,      /* a label key (IsQualifiedName) */
  KF_CHECK_LABEL_VALUE,    /* a label value (IsValidLabelValue), may be empty */
  KF_CHECK_ANNOTATION_KEY, /* an annotation key (IsQualifiedName of the key
                              lowered: ValidateAnnotations) */
  KF_CHECK_DOMAIN_PATH     /* a domain-prefixed path (IsDomainPrefixedPath:
                              a TrainJob runtime patch's manager) */
};
/* A validator as the generators give it: its name in kfjob.fields, the
** Kubernetes regular expression the value matches (anchored, as JSON
** Schema's `pattern`; NULL: Kubernetes checks no one expression), its
** largest length (0: none that one number says) and what it is, in words. */
typedef struct kf_check_info {
  const char *name;       /* "dns1123_label" */
  const char *pattern;    /* "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" */
  unsigned max_len;       /* 63 */
  const char *what;       /* "a DNS-1123 label (...)" */
} kf_check_info;
extern const kf_check_info kf_checks[];   /* by enum kf_check */
/* Whether s passes validator c (KF_CHECK_NONE: always). */
int kf_check_ok(unsigned c, const char *s);
/* KF_OK when v (NULL: none) passes validator `check`, else the error
** "<who>: <path>: '<v>' is not ..." (kf_row_check's, by the row's check). */
kf_status kf_check_value(unsigned check, const char *v, const char *path,
                         const char *who, kf_err *e);

typedef struct kf_field {
  const char *key;        /* spec key */
  const char *alias;      /* another accepted key ("memory"), or NULL */
  kf_vtype type;
  unsigned flags;         /* KF_F_* */
  size_t off;             /* value in the owning struct */
  size_t off_n;           /* KF_V_STRLIST: count; KF_V_OBJ: presence flag
                             (0: always present); KF_V_NPROC: the word */
  int32_t min;            /* KF_V_INT: smallest value */
  int32_t idef;           /* default of INT, BOOL, ENUM */
  const char *sdef;       /* default of strings */
  const void *info;       /* kf_enum, kf_choice, kf_obj or kf_tree */
  const char *pbmsg;      /* sub-message of the job message holding it */
  const char *pb;         /* v1 proto field (in pbmsg when set) */
  const char *pb0;        /* v0 proto field; NULL: v0 cannot carry it */
  const char *manifest;   /* manifest key, or NULL */
  unsigned char place;    /* KF_M_*, where every manifest writer puts
                             the value under `manifest` (a group row's
                             place, or a job row's: the elastic policy) */
  unsigned not_on;        /* group rows: bit per target (KF_T_BIT) whose
                             resources have no place for the value: a given
                             value is refused there (R34); Flyte's two
                             targets follow from pb NULL on a placed row */
  const char *not_on_why; /* R34's reason, with its upstream source */
  const unsigned *values_on; /* KF_V_ENUM group rows: NULL, or by target
                             (kf_target, KF_NTARGETS entries) the values
                             its resources carry, bit (1u << value); 0: every
                             value (R13; kfjob schema's per-target enums) */
  unsigned zbit;          /* KF_F_OMITZERO, KF_F_GIVEN: bit in the word at
                             off_n (kf_run_policy.zero, kf_job.given_default)
                             set when the row was given as its default (0,
                             false, sdef); 0: not kept */
  const char *denied;     /* message when a context does not take it */
  unsigned char check;    /* KF_CHECK_*: the validator its value passes */
  const char *desc;       /* one line: what the field means and what it
                             becomes on each target (kfjob.fields, meta,
                             schema, explain) */
} kf_field;

struct kf_obj {
  const char *tag;        /* constructor name ("RunPolicy") or NULL */
  const char *what;       /* "a kfjob.RunPolicy or a table" */
  const kf_field *f;
  size_t n;
  const char *name;       /* the table's name in generated definitions
                             ("Resources": kfjob.ResourcesOpts) */
};

/* ---- roles and kinds -------------------------------------------------- */

/* Replica counts checked at construction: only "exactly 1" holds on every
** target (SPEC 11); worker minimums and chief/evaluator maximums differ by
** target and are rows of kf_target_rules.c. */
#define KF_R_FIXED1   1u   /* replicas must be exactly 1 (master, launcher) */
/* at least 1: only for kinds one target runs, whose webhook requires the
** group (a JAXJob's Worker) */
#define KF_R_REQUIRED 4u
/* 0 or 1: a PyTorchJob's Master, which the training-operator's webhook
** lets a job leave out (pytorchjob_webhook.go validatePyTorchReplicaSpecs) */
#define KF_R_OPT1     8u

typedef struct kf_role_info {
  const char *name;       /* "Worker": group constructor and CRD replica type */
  const char *key;        /* "worker": job field */
  int default_replicas;
  unsigned flags;         /* KF_R_* */
  const char *desc;       /* one line: the group (kfjob.fields, meta, ...) */
} kf_role_info;

#define KF_K_RUNPOLICY 1u
#define KF_K_SLOTS     2u
#define KF_K_ELASTIC   4u
#define KF_K_HOROVOD   8u
#define KF_K_COMMAND   16u  /* groups may carry a command (MPI) */

/* The restart policy an operator's defaulter gives a replica spec of the
** kind that has none, where it is not kfjob's default (never): `policy`
** (KF_RP_*) and the roles (bit per kf_role) it gives it to on the
** training-operator (`v1`: v1.9.3 pytorch_types.go, paddlepaddle_types.go)
** and on the mpi-operator (`mpi`: v0.8.0 v2beta1/default.go, the
** Launcher's).  Reading a manifest back (kf_import_spec.c) fills it in. */
typedef struct kf_operator_restart {
  int policy;
  unsigned v1, mpi;
} kf_operator_restart;

/* A role's replica bounds: its default count and KF_R_* rules. */
typedef struct kf_replica_bounds {
  int default_replicas;
  unsigned flags;
} kf_replica_bounds;

typedef struct kf_kind_role {
  int role;
  const char *v1_field;       /* "worker_replicas", NULL: no message */
  const char *v0_field;       /* "workers", NULL: not in v0 */
  const char *deprecated_key; /* "num_workers", NULL: none */
} kf_kind_role;

struct kf_job;
/* A rule relating several fields, run after parsing and after decoding;
** `style` is a kf_pathstyle. */
typedef kf_status (*kf_rule)(const struct kf_job *j, int style,
                             const char *who, kf_err *e);
/* The rules of kf_kinds.c the kind rows list: each role's replica bounds
** that hold on every target (KF_R_*), at least one pod where no group is
** required (a PaddleJob), every row's lower bound (decoded values). */
kf_status kf_rule_replicas(const struct kf_job *j, int style, const char *who,
                           kf_err *e);
kf_status kf_rule_some_replicas(const struct kf_job *j, int style,
                                const char *who, kf_err *e);
kf_status kf_rule_bounds(const struct kf_job *j, int style, const char *who,
                         kf_err *e);

typedef struct kf_kind_info {
  const char *name;           /* "TFJob" */
  const char *task_type;      /* "tensorflow"; NULL: no Flyte task type, so
                                 no plugin message (v0, v1, v1_replica and
                                 the roles' proto fields are NULL) */
  const char *container;      /* default container name */
  const char *crd_kind;       /* "TFJob" */
  const char *crd_specs;      /* "tfReplicaSpecs" */
  unsigned flags;             /* KF_K_* */
  int nroles;
  kf_kind_role roles[4];
  const ProtobufCMessageDescriptor *v0, *v1, *v1_replica;
  const kf_field *fields;     /* job-level fields, in spec() order */
  size_t nfields;
  const kf_rule *rules;       /* NULL-terminated */
  /* this kind's replica bounds by role, every role of the kind listed,
  ** where they differ from the kf_roles rows' (an XGBoost Worker may be
  ** absent, a Paddle Master is optional); NULL: the kf_roles rows' */
  const kf_replica_bounds *bounds;
  const char *port_name;      /* the operator's default container port, */
  int port;                   /* added by its defaulter (NULL, 0: none) */
  const char *desc;           /* one line: the kind (meta, schema, explain) */
  const char *trainer_runtime;  /* the ClusterTrainingRuntime Trainer runs it
                                 ** on (NULL: Trainer does not run it) */
  kf_operator_restart operator_restart; /* {0}: the operators give never */
} kf_kind_info;

extern const kf_kind_info kf_kinds[KF_NKINDS];
extern const kf_role_info kf_roles[KF_NROLES];
extern const kf_obj kf_group_obj, kf_resources_obj, kf_run_policy_obj;
/* the fixed resource rows alone (a gang's min_resources) */
extern const kf_obj kf_min_resources_obj;
extern const kf_obj kf_container_obj, kf_group_container_obj;
extern const kf_enum kf_restart_policy_enum, kf_clean_pod_policy_enum;

const kf_kind_role *kf_kind_role_of(const kf_kind_info *k, int role);
/* A kind's bounds of one of its roles: the kind's own, else the role's. */
kf_replica_bounds kf_kind_role_bounds(const kf_kind_info *k, int role);
/* "TFJob, PyTorchJob, Elastic, MPIJob or HorovodJob": the kinds with a
** Flyte task type. */
const char *kf_flyte_kind_names(void);
/* KF_OK when the job's kind has a Flyte task type; else "<who>: <Kind> has
** no Flyte task type (...)": encode, custom, to_json, task_template and
** task_spec need one. */
kf_status kf_need_task_type(int kind, const char *who, kf_err *e);
int kf_kind_by_name(const char *name);       /* -1 if unknown */
const char *kf_kind_names(void);   /* "TFJob, PyTorchJob, ... or PaddleJob" */
int kf_role_by_name(const char *name);       /* -1 if unknown */
/* An enum spelling's value; -1 if unknown. */
int kf_enum_parse(const kf_enum *en, const char *s);
int kf_parse_restart_policy(const char *s);
int kf_parse_clean_pod_policy(const char *s);
/* Whether a group of `kind` (or a standalone group of `role` when kind is
** -1) takes the row. */
int kf_group_takes_slow(const kf_field *f, int kind, int role);
static inline int kf_group_takes(const kf_field *f, int kind, int role) {
  return !(f->flags & (KF_F_REPLICAS | KF_F_COMMAND)) ||
         kf_group_takes_slow(f, kind, role);
}
/* A row's path for messages: its spec key under `parent_key` (style
** KF_PATH_SPEC), or its proto path in JSON names under `parent_pb`. */
void kf_row_path(const char *parent_key, const char *parent_pb,
                 const kf_field *f, int style, char *out, size_t cap);
/* The row of `o` (or of the n rows at f) with spec key `key`, or NULL. */
const kf_field *kf_obj_row(const kf_obj *o, const char *key);
const kf_field *kf_row_find(const kf_field *f, size_t n, const char *key);
/* The rest row (KF_F_REST) that key `seg` leads to: the object's of a
** group or job row named `seg` ("limits": its "extended"; *own = 0), or
** the rest row named `seg` itself (*own = 1); NULL: none.  For code that
** holds a path's keys and no kind (a merge of overrides). */
const kf_field *kf_rest_row(const char *seg, int *own);
/* KF_OK when string `v` (NULL: unset) passes the validator row `f` names;
** else "<who>: <path>: '<v>' is not a ...". */
kf_status kf_row_check(const kf_field *f, const char *v, const char *path,
                       const char *who, kf_err *e);

#endif

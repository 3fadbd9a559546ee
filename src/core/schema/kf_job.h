/*
** kf_job.h - the resolved job (kf_job) and what the schema room does with
** it: build it from a value tree or one key at a time, check, compare,
** copy, turn back into a spec.  Plain C data, as the whole core.
*/
#ifndef KF_JOB_H
#define KF_JOB_H

#include "kf_core.h"
#include "kf_schema.h"
#include "kf_canary.h"   /* empty unless KFJOB_CANARY_FIELDS */

/* ---- job model -------------------------------------------------------- */

/* Kueue topology-aware scheduling of a pod set (SPEC §13): one of
** required, preferred, unconstrained; slice_* optional. */
typedef struct kf_topology {
  const char *required, *preferred, *slice_required;   /* NULL: unset */
  int unconstrained;
  int32_t slice_size;                /* 0: unset */
  const char *group;                 /* podset-group-name; NULL: unset */
  const kf_node *slices;             /* multi-layer slice constraints: a
                                        checked list of {level, size};
                                        NULL: unset (kf_slices.c) */
  unsigned zero;                     /* KF_F_OMITZERO bits (never set: min 1) */
} kf_topology;

/* What a task's pods run (the whole job): the image (job only), command,
** args and env of the main container; none travels in the plugin message. */
typedef struct kf_container {
  const char *image;                 /* NULL: unset */
  const char *name;                  /* the main container's name; NULL:
                                        the kind's ("pytorch", "mpi") */
  size_t ncommand, nargs;
  const char **command, **args;
  const kf_node *env;                /* checked: a list of EnvVars (kept in
                                        order) or a name -> value table
                                        (emitted sorted); NULL: unset */
  KF_CANARY_CONTAINER_MEMBERS
} kf_container;

typedef struct kf_group {
  int32_t replicas;
  const char *image;                 /* NULL: unset */
  /* quantity strings, NULL: unset; each array followed by its extended
  ** resources (the resource rows' last, at RES(KF_NRES) from the array) */
  const char *requests[KF_NRES];
  const kf_node *requests_ext;       /* checked, sorted; NULL: none */
  const char *limits[KF_NRES];
  const kf_node *limits_ext;
  int restart_policy;                /* KF_RP_* */
  size_t ncommand;
  const char **command;
  /* SPEC §13: merged over the job's pod template for this group's pods */
  const kf_node *pod_template;       /* checked, canonical; NULL: unset */
  int has_topology;
  kf_topology topology;
  int has_container;                 /* what this group runs differently */
  kf_container container;            /* (its image is the image row) */
  KF_CANARY_GROUP_MEMBERS
} kf_group;

/* Run-policy fields given explicitly as 0: proto3 cannot send them, so
** lint warns.  Kept through spec(), with() and to_lua; kf_job_equal tells
** a field given as 0 from one unset (0 is no retries, unset the
** operator's default). */
#define KF_RPZ_TTL      1u
#define KF_RPZ_DEADLINE 2u
#define KF_RPZ_BACKOFF  4u

/* Elastic rows given as their defaults (KF_F_GIVEN, kf_job.given_default):
** the training-operator writes no default of its own for them
** (pytorch_defaults.go), so an operator manifest carries them only when
** given. */
#define KF_EG_MAX_RESTARTS 1u
#define KF_EG_RDZV_BACKEND 2u
#define KF_EG_STANDALONE   4u

typedef struct kf_run_policy {
  int clean_pod_policy;              /* KF_CP_* */
  int32_t ttl_seconds_after_finished;
  int32_t active_deadline_seconds;
  int32_t backoff_limit;
  unsigned zero;                     /* KF_RPZ_* */
  KF_CANARY_RUN_POLICY_MEMBERS
} kf_run_policy;

/* Gang scheduling (runPolicy.schedulingPolicy; SPEC §13). */
typedef struct kf_gang {
  int32_t min_available;             /* 0: unset (the target's default) */
  const char *queue, *priority_class;
  int32_t schedule_timeout_seconds;  /* 0: unset */
  int has_min_resources;
  const char *min_resources[KF_NRES];
  const char *scheduler;             /* "volcano", "scheduler-plugins", NULL */
  unsigned zero;                     /* KF_F_OMITZERO bits (never set: min 1) */
} kf_gang;

/* Where the job waits and how its pods start (Kueue, gang; SPEC §13). */
typedef struct kf_sched {
  const char *queue, *priority_class;   /* NULL: unset */
  int32_t max_exec_time;                /* seconds; 0: unset */
  int suspend, multikueue;
  int has_topology;
  kf_topology topology;
  int has_gang;
  kf_gang gang;
  unsigned zero;                        /* KF_F_OMITZERO bits */
} kf_sched;

/* A GPU accelerator (flyteidl.core.GPUAccelerator). */
typedef struct kf_accel {
  const char *device;
  const char *partition_size;        /* NULL: none */
  int unpartitioned;
} kf_accel;

typedef struct kf_job {
  int kind;                          /* enum kf_kind */
  kf_group g[KF_NROLES];             /* only the kind's roles are used */
  int has_run_policy;
  kf_run_policy rp;
  int32_t slots;                     /* MPI, Horovod */
  /* Elastic */
  int nnodes_int;                    /* nnodes was given as an integer */
  int32_t min_nodes, max_nodes, nproc_per_node, max_restarts;
  const char *nproc_word;            /* "auto", "cpu", "gpu" (static; R10);
                                        NULL: nproc_per_node */
  const char *rdzv_backend;
  unsigned given_default;            /* KF_EG_*: KF_F_GIVEN rows given as
                                        their defaults (kf_schema.h) */
  /* the operator's elasticPolicy beyond Flyte's (0 / NULL: unset) */
  int32_t rdzv_port;
  const char *rdzv_host, *rdzv_id;
  int standalone;
  const kf_node *rdzv_conf, *metrics;
  /* Trainer: the ClusterTrainingRuntime (PyTorchJob, Elastic); NULL: the
  ** kind's shipped one (torch-distributed) */
  const char *runtime;
  /* Trainer: numNodes left out, the runtime's mlPolicy.numNodes (the job's
  ** own count must be 1, what the shipped runtimes say) */
  int runtime_nodes;
  /* Trainer: no spec.trainer at all, the runtime's node job as it is (its
  ** image, command, count; the plugins then inject no node env) */
  int runtime_trainer;
  const char *runtime_patch_manager;  /* spec.runtimePatches[0].manager */
  /* mpi-operator v2beta1 (MPIJob, Horovod; defaults from its
  ** SetDefaults_MPIJob) */
  const char *ssh_auth_mount_path, *mpi_implementation, *launcher_creation_policy;
  int run_launcher_as_worker;
  /* Flyte 2 clustered tasks (PyTorchJob, Elastic; flyte2-clustered only) */
  const char *interconnect;          /* "tcp", "efa", "infiniband", "roce"; NULL: unset */
  int restart_on_host_maintenance;
  /* Horovod */
  int verbose;
  const char *log_level, *discovery_script_path;
  int32_t elastic_timeout;
  KF_CANARY_JOB_MEMBERS
  unsigned deprecated;               /* bit per role: set via num_* */
  /* pod settings (every kind; kf_pod.c) */
  const kf_node *pod_template;       /* checked, canonical; NULL: unset */
  const char *shared_memory;         /* "": true; else a size; NULL: unset */
  int has_accelerator;
  kf_accel accel;
  const char *requests[KF_NRES];     /* task resources (as a group's) */
  const kf_node *requests_ext;
  const char *limits[KF_NRES];
  const kf_node *limits_ext;
  int has_scheduling;                /* SPEC §13 (kf_sched.c) */
  kf_sched sched;
  /* the whole job: what the pods run and where the resource lives */
  int has_container;
  kf_container container;
  const char *ns;                    /* namespace; NULL: unset */
  const kf_node *labels, *annotations;   /* checked string maps; NULL: unset */
  /* targets whose error rows this job passed when emitted (bit per
  ** kf_target; kf_target_emit's cache: a job never changes once built,
  ** and a job made from another starts from 0) */
  unsigned emit_ok;
} kf_job;

/* Where a path in an error message comes from. */
typedef enum kf_pathstyle { KF_PATH_SPEC, KF_PATH_V0, KF_PATH_V1 } kf_pathstyle;

/* ---- building, checking, comparing jobs ------------------------------- */

/* Constructor-shaped node -> job.  `ctor` prefixes error messages
** ("kfjob.TFJob").  Strings in the job point into the arena. */
kf_status kf_job_from_spec(int kind, const kf_node *spec, kf_arena *A,
                           kf_job *out, const char *ctor, kf_err *e);
/* A single replica group (kfjob.Worker{...}).  `role` decides what is
** accepted; the result goes to *out. */
kf_status kf_group_from_spec(int role, const kf_node *spec, kf_arena *A,
                             kf_group *out, const char *ctor, kf_err *e);
kf_status kf_run_policy_from_spec(const kf_node *spec, kf_run_policy *out,
                                  const char *ctor, const char *path,
                                  kf_err *e);
/* The backend/operator rules, shared by constructors and decoders. */
kf_status kf_job_check(const kf_job *j, kf_pathstyle style, const char *who,
                       kf_err *e);
/* Where a group's replica count is, in a kf_pathstyle: "worker.replicas",
** the deprecated key the caller used ("num_workers"), or the proto path. */
void kf_replicas_path(const kf_job *j, int role, int style, char *out,
                      size_t cap);
/* Job -> constructor-shaped node (spec()). */
kf_node *kf_job_to_spec(const kf_job *j, kf_arena *A);
kf_node *kf_group_to_spec(const kf_group *g, kf_arena *A);
kf_node *kf_run_policy_to_spec(const kf_run_policy *rp, kf_arena *A);
int kf_job_equal(const kf_job *a, const kf_job *b);
/* Whether row `f` holds the same value in the structs at a and b (a
** group's, the job's) of a job of `kind`. */
int kf_row_equal(const kf_field *f, const void *a, const void *b, int kind);
/* Whether row f (an INT, BOOL or CHOICE) of the struct at `base` holds
** its default (idef, sdef; a NULL string too). */
int kf_row_default(const kf_field *f, const void *base);
/* Whether KF_F_GIVEN row f of the struct at `base` holds its default
** without having been given (spec() and the operator's manifest leave it
** out); 0 for any other row. */
int kf_row_unset(const kf_field *f, const void *base);
/* Only the integer 1 turns an elastic job into a plain python-task. */
int kf_python_task(const kf_job *j);
/* The task type flytekit gives the job ("python-task" or the kind's). */
const char *kf_task_type(const kf_job *j);
/* The kind's defaults (the single place they are written). */
void kf_job_defaults(kf_job *j, int kind);
/* with() when every override is a dotted path to a plain leaf field
** ("worker.replicas" = 16): patches a copy of the job and re-runs the
** rules.  Returns 1 with *out set, or 0 when the general path (spec(),
** merge, rebuild) must decide, including every error, so messages do not
** depend on which path ran.  Strings in *out may point into `in`;
** *strings_kept (may be NULL) says every one does (no string row set). */
int kf_job_with_leaves(const kf_job *in, const kf_node *over, kf_arena *A,
                       kf_job *out, const char *who, int *strings_kept);
/* The same in two steps, for a caller that sets the same leaves many
** times (a sweep): a dotted key resolved once to its row (0: not a plain
** leaf: the general path decides), then values for resolved leaves. */
#define KF_MAX_LEAVES 64
typedef struct kf_leaf {
  const kf_field *f;     /* the row */
  const kf_field *obj;   /* the job-level object row it is in, or NULL */
  size_t off;            /* where the row's struct is in a kf_job */
} kf_leaf;
int kf_leaf_resolve(int kind, const char *key, kf_leaf *l);
int kf_job_with_values(const kf_job *in, const kf_leaf *l,
                       const kf_node *const *v, size_t n, kf_arena *A,
                       kf_job *out, const char *who, int *strings_kept);
/* Construction fed one key and value at a time, for a caller that walks
** its own tables (the Lua binding, which then makes no value tree).  Each
** value is checked by its row as kf_job_from_spec does; any problem or
** uncommon shape (an unknown key, a bad value, an alias given twice, a
** deprecated count, a list) makes a call answer 0, and the caller then
** runs kf_job_from_spec on the same input: it reports the error, so
** messages do not depend on which path ran. */
typedef struct kf_frame {
  const kf_obj *o;      /* the rows of this object; NULL: the job's keys */
  char *base;           /* the struct they are in */
  int role;             /* the replica group's role, or -1 */
  uint32_t seen;        /* rows given by key or alias (aliases only) */
  const kf_field *f;    /* set by kf_feed_key: the row a key names */
  const void *ix;       /* the names' index of `o` (kf_feed.c) */
} kf_frame;
typedef struct kf_feed {
  kf_job *j;
  kf_arena *A;
  const char *ctor;
  const void *ent;      /* the kind's keys; NULL: the feed takes nothing */
  size_t nent;
  const void *ix;       /* their names' index */
  int given[KF_NROLES]; /* replicas given, by role */
  int nstr;             /* the group strings it set, at str[] (offsets in
                           the job); -1: a list or a short form was fed
                           (the job is laid out by its rows) */
  uint16_t str[64];
} kf_feed;
enum { KF_FEED_NO, KF_FEED_LEAF, KF_FEED_OBJ, KF_FEED_LIST };
void kf_feed_begin(kf_feed *F, int kind, kf_job *j, kf_arena *A,
                   const char *ctor, kf_frame *root);
/* The row `key` names in `fr` (sub->f): KF_FEED_LEAF (a scalar for
** kf_feed_value), KF_FEED_LIST (a list of strings: a value tree of it),
** KF_FEED_OBJ (*sub is the object's frame; a string may still go to
** kf_feed_value for a row with a short form) or KF_FEED_NO. */
int kf_feed_key(const kf_feed *F, kf_frame *fr, const char *key, size_t len,
                kf_frame *sub);
/* A value for row `f` of `fr`: 1 if valid.  The node itself is not kept
** (a scalar may live on the caller's stack); its strings are, until the
** job is packed. */
int kf_feed_value(kf_feed *F, const kf_frame *fr, const kf_field *f,
                  const kf_node *v);
/* The checks after the fields (required groups, the kind's rules). */
int kf_feed_end(kf_feed *F);
/* Deep-merge `over` (plain tables merge, dotted keys "worker.replicas"
** walk into nested tables, anything else replaces) into `base`. */
kf_status kf_node_merge(kf_arena *A, kf_node *base, const kf_node *over,
                        const char *who, kf_err *e);

/* The whole job (kf_whole.c): the value trees its rows hold, and the rule
** relating them to the job (listed in every kind's rules). */
extern const kf_tree kf_env_tree, kf_labels_tree, kf_annotations_tree;
/* Extended resources (kf_extres.c): a table of Kubernetes resource name =
** quantity beside the fixed resource rows ("amd.com/gpu", "hugepages-2Mi"). */
extern const kf_tree kf_ext_res_tree;
/* Whether a key of a resources table is an extended resource's name
** (a '/' or hugepages-), which the rest row takes (KF_F_REST). */
int kf_ext_res_key(const char *k);
/* ValidateResourceQuantityValue: quantity `s` is a whole number, as an
** extended resource's must be (nvidia.com/gpu too): MilliValue() % 1000,
** as Kubernetes and flyteadmin test it (kf_qty_whole_milli). */
int kf_ext_res_whole(const char *s);
/* The rules relating requests and limits of extended resources
** (validateResourceRequirements), on every group and the task. */
kf_status kf_rule_ext_res(const kf_job *j, const char *who, kf_err *e);
/* An Elastic job's rdzv_conf and metrics (kf_elastic.c). */
extern const kf_tree kf_rdzv_conf_tree, kf_metrics_tree;
kf_status kf_rule_whole(const kf_job *j, int style, const char *who, kf_err *e);
/* The Trainer rows: runtime_patch_manager's validator, runtime_nodes'
** node count of 1 (kf_kinds.c). */
kf_status kf_rule_trainer(const kf_job *j, int style, const char *who, kf_err *e);

/* Copy a job (or group) and all its strings into one block of `size`
** bytes (from kf_job_size) so a userdata can own it without a __gc. */
size_t kf_job_size(const kf_job *j);
/* The same for the job a feed made (F->j after kf_feed_end): its group
** strings are the ones the feed set (a group's other rows are unset), so
** the layout walks the keys the table gave, not every row of every group;
** F->nstr < 0 lays it out as kf_job_size / kf_job_pack_into do. */
size_t kf_job_size_fed(const kf_feed *F);
void kf_job_pack_fed(const kf_feed *F, void *mem);
/* kf_job_size and kf_job_pack_into in one walk of the rows: the measure
** keeps where each string is and its length, and the pack copies them
** (the same layout); a job with a string list or a value tree is packed by
** kf_job_pack_into. */
typedef struct kf_lay_plan {
  size_t size;
  int n;                  /* -1: kf_job_pack_into */
  uint16_t off[256];
  uint32_t len[256];
} kf_lay_plan;
size_t kf_job_measure(const kf_job *j, kf_lay_plan *p);
void kf_job_pack_plan(const kf_job *j, const kf_lay_plan *p, void *mem);
/* Bytes of every string the job holds (with their NULs, and the pointer
** arrays of string lists), and in *items the count of list items: what an
** encoding bound needs beyond the fixed cost of the kind's rows. */
size_t kf_job_strings(const kf_job *j, size_t *items);
void kf_job_pack_into(const kf_job *j, void *mem);
/* A job made from the job packed in `from` (`size` bytes, by
** kf_job_pack_into) by rows held as numbers holds only that job's strings:
** kf_job_moves finds the pointers of that job once (0: it holds a value
** tree, or more than fit), and kf_job_pack_moved copies the block to `mem`
** (`size` bytes) with j's values, those pointers moved: the same job as
** kf_job_pack_into makes, without measuring. */
typedef struct kf_moves {
  uint16_t n, nlist;
  uint16_t str[120];           /* offsets in kf_job of set strings */
  uint16_t list[8], cnt[8];    /* of set string lists and their counts */
} kf_moves;
int kf_job_moves(const kf_job *j, kf_moves *m);
void kf_job_pack_moved(const kf_job *j, const kf_moves *m, const void *from,
                       size_t size, void *mem);
size_t kf_group_size(const kf_group *g);
void kf_group_pack_into(const kf_group *g, void *mem);

#endif

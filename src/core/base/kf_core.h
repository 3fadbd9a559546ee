/*
** kf_core.h - the Lua-free core of kfjob.
**
** Everything here works on plain C data: an allocator, an arena for the
** temporary memory of one operation, a neutral value tree (kf_node), the
** resolved job (kf_job) and the job-kind tables.  Functions return a
** kf_status and fill a kf_err; none of them knows about lua_State, so the
** same code serves the Lua binding, the host API, the fuzzers and C tests.
*/
#ifndef KF_CORE_H
#define KF_CORE_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

/* ---- status and errors ------------------------------------------------ */

typedef enum kf_status {
  KF_OK = 0,
  KF_EINVAL,   /* bad input: message in kf_err */
  KF_ENOMEM,   /* allocation failed */
  KF_ELIMIT    /* a documented limit was exceeded */
} kf_status;

#define KF_ERRMAX 512
typedef struct kf_err {
  kf_status code;
  char msg[KF_ERRMAX];
} kf_err;

kf_status kf_fail(kf_err *e, kf_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
kf_status kf_nomem(kf_err *e);

#include "kf_schema.h"

/* Limits (documented in the README). */
#define KF_MAX_DEPTH 64            /* nesting of tables / JSON */
#define KF_MAX_STRING (1u << 20)   /* one string value, bytes */
#define KF_MAX_ITEMS 4096          /* entries of one array (command) */
/* Messages nested in protobuf bytes (the top-level message is level 1):
** protobuf's own default recursion limit.  Checked on the wire before
** protobuf-c's unpack, which recurses without a limit. */
#define KF_MAX_WIRE_DEPTH 100

/* ---- allocator and arena ---------------------------------------------- */

/* Same contract as lua_Alloc so the binding can pass lua_getallocf. */
typedef void *(*kf_allocf)(void *ud, void *ptr, size_t osize, size_t nsize);
typedef struct kf_alloc {
  kf_allocf f;
  void *ud;
} kf_alloc;

typedef struct kf_chunk kf_chunk;
/* Bump allocator: one operation's temporary memory, freed (or reset) at
** once.  Keeps its first chunk across resets so steady-state calls do not
** allocate. */
typedef struct kf_arena {
  kf_alloc a;
  kf_chunk *head;
  size_t total;     /* bytes held in chunks, for accounting */
  int failed;       /* an allocation failed since the last reset: lets
                       callers tell protobuf-c's NULL (bad bytes or no
                       memory) apart */
} kf_arena;

void kf_arena_init(kf_arena *A, kf_alloc a);
void *kf_arena_alloc(kf_arena *A, size_t n);   /* NULL on failure, zeroed */
void *kf_arena_alloc_raw(kf_arena *A, size_t n);  /* not zeroed */
char *kf_arena_strndup(kf_arena *A, const char *s, size_t n);
void kf_arena_reset(kf_arena *A);              /* keep one chunk */
void kf_arena_trim(kf_arena *A, size_t keep);  /* free chunks > keep bytes */
size_t kf_arena_used(const kf_arena *A);       /* bytes handed out since reset */

/* A work meter, set by the host sandbox in the Lua registry under
** KF_METER_KEY (a light userdata): the binding adds the work of its own C
** functions - the bytes it allocated, wrote or hashed, one unit per
** KF_METER_BYTES - to the instruction count, and checks the budget at the
** start of each call (and, where Lua has to-be-closed slots, at its end).  `L` is the calling lua_State. */
typedef struct kf_meter {
  void (*add)(void *L, unsigned long long units);   /* never raises */
  void (*check)(void *L);      /* raises (a Lua error) past the budget */
} kf_meter;
#define KF_METER_KEY "kfjob.meter"
#define KF_METER_BYTES 1
void kf_arena_free(kf_arena *A);               /* release everything */
/* protobuf-c allocator that takes from the arena (free is a no-op). */
void kf_arena_pballoc(kf_arena *A, ProtobufCAllocator *pa);

/* Growable byte buffer over the allocator. */
typedef struct kf_buf {
  kf_alloc a;
  char *p;
  size_t n, cap;
  int oom;          /* sticky: set once an append failed */
} kf_buf;

void kf_buf_init(kf_buf *b, kf_alloc a);
void kf_buf_free(kf_buf *b);
void kf_buf_trim(kf_buf *b, size_t keep);      /* free it if cap > keep */
int kf_buf_add(kf_buf *b, const char *s, size_t n);  /* 0 on failure */
int kf_buf_addc_slow(kf_buf *b, char c);
/* inline: JSON writers append one character at a time */
static inline int kf_buf_addc(kf_buf *b, char c) {
  if (b->n < b->cap) {
    b->p[b->n++] = c;
    return 1;
  }
  return kf_buf_addc_slow(b, c);
}
int kf_buf_adds(kf_buf *b, const char *s);
int kf_buf_reserve(kf_buf *b, size_t extra);          /* room for extra bytes */

/* ---- neutral value tree ----------------------------------------------- */

typedef enum kf_ntype {
  KF_NNIL, KF_NBOOL, KF_NINT, KF_NNUM, KF_NSTR, KF_NARR, KF_NOBJ
} kf_ntype;

typedef struct kf_node kf_node;
struct kf_node {
  kf_ntype t;
  const char *tag;       /* constructor name of an object ("Worker", ...) */
  union {
    int b;
    int64_t i;
    double d;
    struct { const char *p; size_t n; } s;
    struct { kf_node **v; const char **k; size_t n, cap; } c; /* k: OBJ only */
  } u;
};

kf_node *kf_node_new(kf_arena *A, kf_ntype t);
kf_node *kf_node_str(kf_arena *A, const char *s, size_t n);
kf_node *kf_node_int(kf_arena *A, int64_t i);
/* Append to an ARR (key NULL) or OBJ; returns 0 on allocation failure. */
int kf_node_push(kf_arena *A, kf_node *c, const char *key, kf_node *v);
kf_node *kf_node_copy_shallow(kf_arena *A, const kf_node *n, kf_ntype t);
kf_node *kf_node_get(const kf_node *obj, const char *key);
/* Replaces key `k` of object `o`, or adds it; 0 when v is NULL or on
** allocation failure. */
int kf_node_put(kf_arena *A, kf_node *o, const char *k, kf_node *v);
/* Objects built by the core (manifests) use these shorthands. */
kf_node *kf_obj_add(kf_arena *A, kf_node *obj, const char *key, kf_ntype t);
int kf_obj_str(kf_arena *A, kf_node *obj, const char *key, const char *s);
/* Without copying: `s` must outlive the tree (static, or the job's own). */
int kf_obj_strref(kf_arena *A, kf_node *obj, const char *key, const char *s);
int kf_obj_int(kf_arena *A, kf_node *obj, const char *key, int64_t i);
/* Trees a job holds (kf_tree.c): deep copy into the arena, equality of
** canonical trees (kf_tree_same: doubles bit for bit, strings ending in a
** NUL), and layout into a block (mem NULL: measure only). */
kf_node *kf_tree_dup(kf_arena *A, const kf_node *n);
int kf_tree_equal(const kf_node *a, const kf_node *b);
int kf_tree_same(const kf_node *a, const kf_node *b);
const kf_node *kf_tree_lay(const kf_node *n, char *mem, size_t *off);

/* kf_uniq.c: the first item i < n equal to an earlier one (*first), or n
** when all differ; by hash set.  *nomem is set when the set cannot be
** made (then n).  kf_node_hash folds a scalar node (NULL too) into h. */
typedef uint64_t (*kf_uniq_hash)(const void *ud, size_t i);
typedef int (*kf_uniq_eq)(const void *ud, size_t a, size_t b);
size_t kf_first_repeat(kf_arena *A, size_t n, kf_uniq_hash hash,
                       kf_uniq_eq eq, const void *ud, size_t *first,
                       int *nomem);
uint64_t kf_node_hash(const kf_node *n, uint64_t h);
#define KF_HASH_SEED 0xcbf29ce484222325u

/* ---- strings lists and maps ---------------------------------------- */

typedef struct kf_strs {      /* a list of strings */
  const char *const *v;
  size_t n;
} kf_strs;

typedef struct kf_kv {        /* one entry of a string map */
  const char *k, *v;
} kf_kv;

typedef struct kf_kvs {       /* a string map, any order (sorted on output) */
  const kf_kv *v;
  size_t n;
} kf_kvs;

/* ---- job model -------------------------------------------------------- */

/* Kueue topology-aware scheduling of a pod set (SPEC §13): one of
** required, preferred, unconstrained; slice_* optional. */
typedef struct kf_topology {
  const char *required, *preferred, *slice_required;   /* NULL: unset */
  int unconstrained;
  int32_t slice_size;                /* 0: unset */
  unsigned zero;                     /* KF_F_OMITZERO bits (never set: min 1) */
} kf_topology;

typedef struct kf_group {
  int32_t replicas;
  const char *image;                 /* NULL: unset */
  const char *requests[KF_NRES];     /* quantity strings, NULL: unset */
  const char *limits[KF_NRES];
  int restart_policy;                /* KF_RP_* */
  size_t ncommand;
  const char **command;
  /* SPEC §13: merged over the job's pod template for this group's pods */
  const kf_node *pod_template;       /* checked, canonical; NULL: unset */
  int has_topology;
  kf_topology topology;
} kf_group;

/* Run-policy fields given explicitly as 0: proto3 cannot send them, so
** lint warns.  Kept through spec(), ignored by kf_job_equal. */
#define KF_RPZ_TTL      1u
#define KF_RPZ_DEADLINE 2u
#define KF_RPZ_BACKOFF  4u

typedef struct kf_run_policy {
  int clean_pod_policy;              /* KF_CP_* */
  int32_t ttl_seconds_after_finished;
  int32_t active_deadline_seconds;
  int32_t backoff_limit;
  unsigned zero;                     /* KF_RPZ_* */
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
  /* Horovod */
  int verbose;
  const char *log_level, *discovery_script_path;
  int32_t elastic_timeout;
  unsigned deprecated;               /* bit per role: set via num_* */
  /* pod settings (every kind; kf_pod.c) */
  const kf_node *pod_template;       /* checked, canonical; NULL: unset */
  const char *shared_memory;         /* "": true; else a size; NULL: unset */
  int has_accelerator;
  kf_accel accel;
  const char *requests[KF_NRES];     /* task resources */
  const char *limits[KF_NRES];
  int has_scheduling;                /* SPEC §13 (kf_sched.c) */
  kf_sched sched;
  /* targets whose error rows this job passed when emitted (bit per
  ** kf_target; kf_target_emit's cache: a job never changes once built,
  ** and a job made from another starts from 0) */
  unsigned emit_ok;
} kf_job;

/* Where a path in an error message comes from. */
typedef enum kf_pathstyle { KF_PATH_SPEC, KF_PATH_V0, KF_PATH_V1 } kf_pathstyle;

/* ---- lexical helpers (kf_text.c) ------------------------------------- */

/* Closest of `cands` (NULL-terminated) to `s`, or NULL if none is close. */
const char *kf_suggest(const char *s, const char *const *cands);

/* lowerCamelCase JSON name of a proto field name; returns its length and
** writes at most cap - 1 characters plus a NUL. */
size_t kf_json_name(const char *name, char *out, size_t cap);
/* Well-formed UTF-8 (no overlongs, surrogates); returns 1 if valid. */
int kf_utf8_ok(const char *s, size_t n);
/* Why `s` (n bytes) cannot name a job - empty, NUL, invalid UTF-8, a C0,
** DEL or C1 control character - or NULL.  Such names would collide ("a\0b"
** read as "a") or break the JSON/YAML streams and file names. */
const char *kf_name_problem(const char *s, size_t n);
/* Why `s` (n bytes of valid UTF-8) cannot be a token (an image, a path, a
** name the cluster reads) - ASCII whitespace ("must not contain
** whitespace"), a C0/DEL/C1 control, Unicode whitespace (NBSP, U+2028, ...)
** or an invisible format character (zero-width, bidi, BOM), the last
** three named by code point - or NULL.  The message may be written to
** buf (cap >= 64). */
const char *kf_token_problem(const char *s, size_t n, char *buf, size_t cap);
/* `s` for an error message: printable ASCII as is, other bytes as \xNN. */
void kf_name_show(const char *s, size_t n, char *out, size_t cap);
/* Kubernetes quantity grammar; returns 1 if valid. */
int kf_quantity_ok(const char *s, size_t n);
/* Decimal form of an integer. */
void kf_format_int(int64_t v, char out[32]);
/* Shortest decimal form of a non-negative number ("8", "0.5"). */
void kf_format_number(double d, char out[32]);
/* Formatting and parsing numbers in the "C" LC_NUMERIC locale, whatever
** the process locale: kf_c_numeric_begin() switches the calling thread to
** it and returns what kf_c_numeric_end() restores; kf_strtod is strtod
** between the two. */
locale_t kf_c_numeric_begin(void);
void kf_c_numeric_end(locale_t old);
double kf_strtod(const char *s, char **end);

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

/* Copy a job (or group) and all its strings into one block of `size`
** bytes (from kf_job_size) so a userdata can own it without a __gc. */
size_t kf_job_size(const kf_job *j);
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

/* ---- protobuf (plugin messages) --------------------------------------- */

typedef struct kf_encopts {
  int version;        /* 0 or 1 */
  int common;         /* v1: use CommonReplicaSpec */
  const char *ctor;   /* the job's constructor name ("kfjob.TFJob"): prefixes
                         the "version 0 cannot express" error; NULL: the
                         kind's name */
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
** depth is checked before unpack recurses, then the strings.  KF_EINVAL
** with *out = NULL and no message set means malformed framing (the caller
** names the message); other errors are set in `e`. */
kf_status kf_unpack(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                    size_t n, const char *who, kf_arena *A,
                    ProtobufCMessage **out, kf_err *e);
/* encode: into a buffer; decode: bytes -> job, `who` prefixing errors
** ("kfjob.decode"). */
kf_status kf_encode(const kf_job *j, const kf_encopts *o, kf_arena *A,
                    kf_buf *out, kf_err *e);
/* kf_encode of a job kf_job_pack_into packed into `block` bytes (which
** bound its strings, so they need not be measured again). */
kf_status kf_encode_block(const kf_job *j, size_t block, const kf_encopts *o,
                          kf_arena *A, kf_buf *out, kf_err *e);
kf_status kf_decode(const char *task_type, int kind, int version,
                    const uint8_t *p, size_t n, kf_arena *A, kf_job *out,
                    const char *who, kf_err *e);

#endif

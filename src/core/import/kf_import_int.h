/*
** kf_import_int.h - what the files of the import room share: the context
** of one read, paths, strict key matching, and what one replica's pod gave.
*/
#ifndef KF_IMPORT_INT_H
#define KF_IMPORT_INT_H

#include "kf_import.h"

typedef struct kfi {
  kf_arena *A;
  kf_err *e;
  const char *who;
  int lossy;
  int keep_launcher;         /* kf_import_opts' */
  const kf_node *kept_nproc; /* a kept launcher's processes a node */
  int kind;                  /* enum kf_kind */
  kf_target target;
  kf_node *spec;             /* the job in constructor shape */
  kf_node *info, *ct;        /* the report and its container */
  kf_node *unmapped, *ignored;
  const char **seen;         /* the paths of unmapped, hashed (open
                                addressing; NULL: none yet) */
  size_t nseen, capseen;
  const kf_node *labels, *annotations;   /* the resource's */
  int pod_copies;            /* Flyte's shape: every pod template repeats
                                the resource's labels and annotations, the
                                backend's copy (pod_helper.go), taken out of
                                the templates; elsewhere a template's stay */
  int any_name;              /* the system runs containers[0] whatever its
                                name (mpi-operator, a v1 MPIJob) */
  int shm_mixed, accel_mixed;  /* the groups' pods show kfjob's shared
                                memory or accelerator unlike each other (the
                                writer gives every pod the job's): each pod's
                                stays its template's, as written */
  int pod_gpu;               /* the pod's GPU limit is outside its spec (a
                                TrainJob's spec.trainer.resourcesPerNode) */
} kfi;

#define KFI_PATH 256

/* prefix.key, or prefix["key"] when the key is not an identifier. */
void kfi_path(char *out, const char *prefix, const char *key);
void kfi_index(char *out, const char *prefix, size_t i);
const char *kfi_str(const kf_node *n);      /* NULL: not a string */
/* Whether annotation key k is one of Kueue's topology annotations (a
** row of kf_topology_obj). */
int kfi_tas_key(const char *k);
/* The first row of info.unmapped (lossy) below `prefix` (a path it
** starts, then '.' or '['); NULL: none. */
const kf_node *kfi_unmapped_under(const kfi *c, const char *prefix);
/* kfjob's shared memory as kf_pod_manifest.c writes it (kf_import_pod.c):
** the volume {name: flyte-shared-memory, emptyDir: {medium: Memory[,
** sizeLimit]}} and the mount {name: flyte-shared-memory, mountPath:
** /dev/shm}. */
int kfi_shm_volume(const kf_node *v);
int kfi_shm_mount(const kf_node *m);
/* `problem` (a constructor's, checked with 1-based list paths) for a
** manifest path: "(the same as item [N])" counted from 0. */
void kfi_problem0(char *out, size_t cap, const char *problem);
/* A label (label 1) or annotation of a resource or pod template as the API
** server takes it (the validators KF_CHECK_LABEL_KEY, _LABEL_VALUE,
** _ANNOTATION_KEY: ValidateLabels, ValidateAnnotations); errors at path. */
kf_status kfi_meta_entry(kfi *c, const char *path, int label, const char *k,
                         const char *v);
kf_status kfi_fail(kfi *c, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A path kfjob cannot hold: an error, or (lossy) a row of info.unmapped. */
kf_status kfi_unmapped(kfi *c, const char *path, const kf_node *v,
                       const char *reason);
/* Keys of `obj` (at `path`) outside `known` are unknown fields (with a
** did-you-mean), those in `held_not` are fields kfjob cannot hold, those
** in `server` are server-set (info.ignored).  Any list may be NULL. */
kf_status kfi_keys(kfi *c, const char *path, const kf_node *obj,
                   const char *const *known, const char *const *held_not,
                   const char *const *server);
kf_status kfi_want(kfi *c, const char *path, const kf_node *v, kf_ntype t);
int kfi_equal(const kf_node *a, const kf_node *b);   /* any key order */

/* kfjob's accelerator in a pod (kf_import_accel.c): device NULL: none. */
typedef struct kfi_accel {
  const char *device, *partition;
  int unpartitioned;
  size_t nreq, ntol;   /* requirements ending each term, tolerations ending the list */
} kfi_accel;
/* Does pod spec `spec` have kfjob's whole accelerator shape (a GPU limit,
** in it or, `gpu`, elsewhere; every required term and the tolerations
** ending alike)?  *a filled. */
int kfi_accel_shape(const kf_node *spec, int gpu, kfi_accel *a);
int kfi_accel_gpu(const kf_node *spec);   /* a container limits a GPU */
int kfi_accel_same(const kfi_accel *a, const kfi_accel *b);
/* The pod spec's key k (affinity, tolerations) without the accelerator's
** part; *keep NULL when nothing is left. */
kf_status kfi_accel_take(kfi *c, const char *k, const kf_node *v, const kfi_accel *a,
                         kf_node **keep);
kf_node *kfi_accel_node(kfi *c, const kfi_accel *a);   /* the job's accelerator */

/* What one replica's pod gave (kf_import_pod.c). */
#define KFI_GROUP_ROWS 16   /* >= kf_group_obj.n (kfi_container_row checks) */
typedef struct kfi_pod {
  const kf_node *command, *args, *env;   /* the primary's */
  const kf_node *name;            /* its name where any is taken and it is
                                     not the kind's (containers[0]) */
  size_t index;                   /* the primary's place in containers */
  /* the primary's values of group rows placed in the container
  ** (KF_M_CONTAINER: image, ...), by row; args are the task's (above) */
  const kf_node *own[KFI_GROUP_ROWS];
  kf_node *requests, *limits;     /* spec-shaped, NULL: none */
  kf_node *tmpl;                  /* the rest as a pod template, NULL: none */
  const kf_node *shm;             /* a string size, or true; NULL: none */
  kf_node *accel;                 /* {device=, partition_size=, ...} */
  int shm_whole;                  /* the pod's shared memory is kfjob's
                                     (its volume and /dev/shm mount) */
  kfi_accel ash;                  /* kfjob's accelerator shape in it */
} kfi_pod;
/* `tmpl` is a replica's template at `path`; `primary` the name of the
** container kfjob's writer gave the task ("pytorch", or Trainer's "node"). */
/* The group row placed in the container under manifest key k, other than
** args (the task's, and an MPI group's command), or -1. */
int kfi_container_row(const char *k);
/* The group row placed in the pod spec (KF_M_POD) under manifest key k,
** or -1 (kf_import_pod.c). */
int kfi_pod_row(const char *k);
/* An env list read, as the job holds it: a table of name = value when
** every entry is a {name, value} pair and the names are sorted and unique
** (written back in the same order), else the list itself (its order,
** valueFrom).  *map says which; NULL only when memory ran out. */
kf_node *kfi_env_form(kfi *c, const kf_node *env, int *map);
/* A container's env at `path` checked as the job's container.env is (the
** CRD's EnvVar schema, then validateEnv), errors named by manifest path. */
kf_status kfi_env_check(kfi *c, const char *path, const kf_node *env);
/* A container's command or args at `path`: a list of strings. */
kf_status kfi_strings(kfi *c, const char *path, const kf_node *l);
/* Before the groups are read: do their pods agree on kfjob's shared
** memory and accelerator (c->shm_mixed, c->accel_mixed)? */
void kfi_pod_shapes(kfi *c, const kf_node *specs, const char *primary);
kf_status kfi_pod_read(kfi *c, const char *path, const kf_node *tmpl,
                       const char *primary, kfi_pod *out);
/* Kubernetes resources {cpu, memory, nvidia.com/gpu, ...} -> a spec table. */
kf_status kfi_resources(kfi *c, const char *path, const kf_node *res,
                        kfi_pod *out);

/* One side of Kubernetes resources ({cpu, memory, nvidia.com/gpu, ...})
** -> a spec resource table; *out NULL when empty. */
kf_status kfi_res_side(kfi *c, const char *path, const kf_node *m, kf_node **out);

/* Scheduling (kf_import_sched.c): the resource's Kueue labels (and a
** TrainJob's Volcano queue annotation), taken out of info; suspend and
** managedBy of `holder` (spec.runPolicy, or a TrainJob's spec); a
** runPolicy's schedulingPolicy as scheduling.gang. */
kf_status kfi_sched_meta(kfi *c);
kf_status kfi_sched_flags(kfi *c, const char *path, const kf_node *holder);
kf_status kfi_sched_policy(kfi *c, const char *path, const kf_node *sp);
/* Groups with templates of their own: Kueue's topology annotations every
** group shows alike are the job's scheduling.topology, the others the
** groups' topology (kf_manifest_sched.c writes the job's, then the
** group's); left in the templates when they fit neither. */
kf_status kfi_sched_group_topology(kfi *c);

/* Flyte's whole shape of a kubeflow.org/v1 resource (kf_import_flyte.c):
** KF_T_FLYTE, KF_T_FLYTE2, or -1 (not Flyte's: read as written); the
** spec without Flyte's additions (NULL: out of memory). */
int kfi_flyte_shape(const kfi *c, const kf_node *doc);
/* A Flyte manifest (kfi_flyte_shape) of a job with a pod template: the
** task container has no terminationMessagePolicy (the k8s_pod path). */
int kfi_flyte_pod_job(const kfi *c, const kf_node *doc);
const kf_node *kfi_plain_spec(kfi *c, const kf_node *spec);

/* The replica specs of one resource as read (kf_import_spec.c). */
typedef struct kfi_groups {
  int n;
  int role[KF_NROLES];
  kf_node *g[KF_NROLES];          /* each group in constructor shape */
  kfi_pod pod[KF_NROLES];
  char path[KF_NROLES][KFI_PATH]; /* of each container */
} kfi_groups;

/* MPI kinds (kf_import_mpi.c): *args the launcher line's tail, the
** task's args (NULL: none); a group's other args become its own command. */
kf_status kfi_mpi_args(kfi *c, kfi_groups *G, const kf_node **args);

/* The writers' shapes, read (kf_import_spec.c). */
kf_status kfi_replicas(kfi *c, const char *path, const kf_node *specs);
kf_status kfi_run_policy(kfi *c, const char *path, const kf_node *rp);
kf_status kfi_elastic(kfi *c, const kf_node *spec);
/* spec.nprocPerNode (a string) as nproc_per_node. */
kf_status kfi_nproc(kfi *c, const char *path, const kf_node *v);
kf_status kfi_trainer(kfi *c, const kf_node *spec);
/* Flyte 2 clustered tasks (kf_import_jobset.c): the JobSet as the v1
** PyTorchJob it stands for (c->kind: Elastic or PyTorchJob), then the
** group's resources moved to the task's after the v1 reader. */
kf_status kfi_jobset_doc(kfi *c, const kf_node *doc, kf_node **out);
kf_status kfi_jobset_finish(kfi *c);

#endif

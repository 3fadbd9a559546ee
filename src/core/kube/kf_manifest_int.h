/*
** kf_manifest_int.h - what the manifest writers of kube/ share: the
** context of one call and the helpers they use.  Private to src/core/kube
** (what other rooms ask of the writers is in kf_manifest.h).
*/
#ifndef KF_MANIFEST_INT_H
#define KF_MANIFEST_INT_H

#include "kf_manifest.h"
#include "kf_pod.h"
#include "kf_launcher.h"

typedef struct mctx {
  kf_arena *A;
  kf_err *e;
  const char *who;
  int flyte;   /* target flyte or flyte2: a label of the resource is on
               ** every pod too (the backend's pod_helper.go) */
} mctx;

/* "<who>: <path>: <problem>" */
kf_status kfm_failf(mctx *c, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* prefix.key, or prefix["key"] when the key is not an identifier */
void kfm_key_path(char *out, size_t cap, const char *prefix, const char *k);
kf_status kfm_opt_map(mctx *c, const char *path, const kf_node *v, kf_kvs *out);
kf_status kfm_sorted(mctx *c, const char *path, const kf_kvs *in, kf_kv **out);
/* The job's labels or annotations (a checked table, NULL: none) under the
** call's `opt`, which wins by key: *n sorted entries in *out. */
kf_status kfm_merged_map(mctx *c, const char *path, const kf_node *job,
                         const kf_kvs *opt, kf_kv **out, size_t *n);
kf_node *kfm_str_list(kf_arena *A, const char *const *v, size_t n);
kf_node *kfm_str_map(kf_arena *A, const kf_kv *kv, size_t n);
/* Every option and pod setting the API server or the operator would refuse. */
kf_status kfm_check_opts(mctx *c, const kf_job *j, const kf_manifest_opts *o);
kf_status kfm_check_pod(mctx *c, const kf_job *j);
/* A group's requests and limits as Kubernetes gets them (NULL: none). */
extern const int kfm_res_sorted[KF_NRES];
kf_status kfm_group_resources(mctx *c, const kf_group *g, const char *key,
                              const char *req[KF_NRES], const char *lim[KF_NRES]);

/* ---- shared by the writers (kf_manifest_common.c, kfm_operator:
** kf_manifest_operator.c) ---- */
typedef struct kfm_shared {   /* parts every replica spec uses */
  const kf_manifest_opts *o;
  kf_node *root, *meta;       /* the resource and its metadata */
  kf_node *pod_meta;          /* template.metadata, NULL: none */
  kf_node *env;               /* opts.env as a container env, NULL: none
                              ** (then a group's or the job's container.env) */
  kf_node *args;              /* the task container's args (opts.args, else
                              ** the job's container.args; MPI: wrapped in
                              ** the launcher line), NULL: none */
  kf_node *task_args;         /* MPI: the same not wrapped (a group whose
                              ** command starts a launcher itself) */
  int bare_role;              /* the role whose pods, without a command of
                              ** their own, get no command or args
                              ** (kf_target_bare_role; -1: none) */
  int launcher_command;       /* MPI kinds on operator and mpi-operator: the
                              ** job's and the call's command are the
                              ** launcher's; a worker runs its own only */
} kfm_shared;
kf_status kfm_prepare(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                      const char *api_version, const char *kind,
                      kfm_shared *sh);
/* Every group row placed at `place` (KF_M_*) into `into` under its
** manifest key (resources: into[res_key]); the one writer of a group's
** fields, every target's containers and replica specs go through it. */
kf_status kfm_group_rows(mctx *c, const kf_group *g, int place,
                         const char *path, kf_node *into, const char *res_key);
/* Every job row of the job's kind placed at `place` (a job place: the
** elastic policy) into `into` under its manifest key, in row order. */
kf_status kfm_job_rows(mctx *c, const kf_job *j, int place, kf_node *into);
/* Whether group g has a value in a row placed at `place` (KF_M_*). */
int kfm_place_given(const kf_group *g, int place);
kf_status kfm_container(mctx *c, const kf_job *j, int role,
                        const kfm_shared *sh, kf_node *containers);
/* What group `role`'s main container runs, field by field: the call's
** option, else the group's container, else the job's.  Command and args
** n == 0 / NULL: none; env NULL: none.  *from names where the command or
** args come from ("opts", "container", "worker.container"; cap >= 40). */
kf_strs kfm_role_command(const kf_job *j, int role, const kf_manifest_opts *o,
                         char *from, size_t cap);
/* The name of group `role`'s main container: the group's container's,
** the job's, else the kind's. */
const char *kfm_container_name(const kf_job *j, int role);
/* The job's command of group `role` without a call's options. */
kf_strs kfm_job_command(const kf_job *j, int role);
kf_status kfm_role_args(mctx *c, const kf_job *j, int role, const kfm_shared *sh,
                        kf_node **out, char *from, size_t cap);
kf_status kfm_role_env(mctx *c, const kf_job *j, int role, const kfm_shared *sh,
                       kf_node **out);
/* `g`'s resources as parent[key] = {limits, requests}; errors name `path`. */
kf_status kfm_resources(mctx *c, const kf_group *g, const char *path,
                        kf_node *parent, const char *key);
kf_status kfm_replica_spec(mctx *c, const kf_job *j, int role,
                           const kfm_shared *sh, kf_node *specs);
kf_node *kfm_run_policy(kf_arena *A, const kf_job *j, int direct);
kf_status kfm_operator(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                       int flyte_slots, kf_node **out);

/* The other targets' builders (kf_manifest_{flyte,mpi,trainer}.c); the
** target's rule rows have accepted the job. */
kf_status kfm_flyte(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                    kf_target t, kf_node **out);
kf_status kfm_mpi_operator(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                           kf_node **out);
kf_status kfm_trainer(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                      kf_target t, kf_node **out);
kf_status kfm_clustered(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                        kf_node **out);

/* Scheduling (kf_manifest_sched.c, SPEC §13): the job a target's builder
** gets (its pod template with what travels there: topology, a Trainer
** job's group template, flyte2's Kueue labels), then the rest written
** into the built resource `root`. */
kf_status kfm_sched_job(mctx *c, const kf_job *j, kf_target t, const kf_job **out);
kf_status kfm_sched_apply(mctx *c, const kf_job *j, kf_target t, kf_node *root);


/* ---- pod settings in manifests (kf_pod_manifest.c) ---- */
/* A replica pod's metadata: the template's labels and annotations with
** `labels` / `annotations` (sorted string maps, NULL: none) over them;
** *meta NULL when there are none. */
kf_status kf_pod_meta(kf_arena *A, const kf_node *tmpl, const kf_node *labels,
                      const kf_node *annotations, kf_node **meta, kf_err *e);
/* A copy of object `o` with its entries in `order` (NULL-ended) first,
** the others after them in their own order; NULL: no memory.  A
** container's keys in the Go struct's order (k8s.io/api/core/v1 Container),
** as Go writes them. */
kf_node *kf_pod_ordered(kf_arena *A, const kf_node *o, const char *const *order);
extern const char *const kf_pod_container_order[];
extern const char *const kf_pod_spec_order[];   /* the Go struct's (PodSpec) */
/* A replica's pod spec: the template's spec with `ct` (the group's default
** container) merged into its primary container, shared memory and the
** accelerator applied.  Errors "<who>: pod_template...: <problem>". */
kf_status kf_pod_spec(kf_arena *A, const kf_job *j, const kf_node *ct,
                      const char *service_account, kf_node **out,
                      const char *who, kf_err *e);

#endif

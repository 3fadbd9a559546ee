/*
** kf_env_int.h - private to kf_env*.c: the state of one environment
** listing and the builders every target's generator shares.
*/
#ifndef KF_ENV_INT_H
#define KF_ENV_INT_H

#include "kf_env.h"

typedef struct ectx {
  kf_arena *A;
  kf_err *e;
  const char *who;
  const kf_job *j;
  kf_target t;
  const char *name, *ns;       /* job (resource) name, namespace */
  const kf_kvs *env;           /* the user's opts.env, sorted */
  const kf_node *row_env[KF_NROLES];  /* else each group's container.env as
                                      ** a list (kfm_env_list), made once */
  const char *row_at[KF_NROLES];      /* its path: "container.env" */
  const kf_node *tp;           /* the pod template's primary container */
  size_t tp_at;
  kf_env_pods *out;
} ectx;

#define NOMEM(c, x) do { if (!(x)) return kf_nomem((c)->e); } while (0)

/* The operator's variable (a value it formats). */
#define OP(c, p, name, val) kfe_var_add(c, p, name, val, NULL, KF_ENV_OPERATOR, NULL)

char *kfe_fmt(ectx *c, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends a formatted line to a text (its oom flag notes a failure). */
void kfe_addf(ectx *c, kf_buf *b, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A text built line by line in a buffer, copied into the arena. */
const char *kfe_text_end(ectx *c, kf_buf *b);
int kfe_var_add(ectx *c, kf_env_pod *p, const char *name, const char *value,
                const kf_node *from, int origin, const char *path);
int kfe_var_int(ectx *c, kf_env_pod *p, const char *name, long long v);
/* fieldRef valueFrom of `path` */
const kf_node *kfe_field_ref(ectx *c, const char *path);
/* A pod of group `role` with the user's variables (kf_env.c says whose). */
kf_env_pod *kfe_user_pod(ectx *c, const char *key, int role);
/* A pod of group `role`, index i: "worker-3". */
kf_env_pod *kfe_group_pod(ectx *c, int role, int i);
int kfe_file_add(kf_env_pod *p, const char *path, const char *content);
/* Worker pod names sorted as the controller lists them (by name). */
const char **kfe_sorted_workers(ectx *c, const char *suffix);
const kf_env_var *kfe_user_var(const kf_env_pod *p, const char *name);
/* opts.env.NAME, or opts.env["NAME"] when NAME is not an identifier */
void kfe_env_path(char *out, size_t cap, const char *name);
/* The port called `pname` of group `role`'s primary container (its own
** template's over the job's), else `dflt`: the operators read each
** group's own container. */
int32_t kfe_group_port_of(ectx *c, int role, const char *pname, int32_t dflt);
int64_t kfe_total_replicas(const kf_job *j, const int *roles, int n);

/* The generators of kf_env_targets.c (the builders: kf_env_build.c). */
kf_status kfe_mpi_v2_env(ectx *c);
kf_status kfe_trainer_env(ectx *c);
kf_status kfe_clustered_env(ectx *c);

#endif

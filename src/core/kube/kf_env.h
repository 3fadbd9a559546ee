/*
** kf_env.h - the environment each pod of a job gets on a target (SPEC
** §11, FACTS §8.2): the user's variables, then what Flyte adds (not its
** runtime-only ones), then what the target's operator appends, with the
** files the operator mounts (MPI hostfile, discovery script).  Lua-free.
*/
#ifndef KF_ENV_H
#define KF_ENV_H

#include "kf_job.h"
#include "kf_manifest.h"
#include "kf_target.h"

/* Limits of one environment (docs/LIMITS.md): pods listed, and the bytes
** of TF_CONFIG, which every TFJob pod holds whole (quadratic in pods). */
#define KF_MAX_ENV_PODS 100000
#define KF_MAX_ENV_BYTES (64u << 20)

/* Who put a variable in the pod's list. */
enum { KF_ENV_USER, KF_ENV_FLYTE, KF_ENV_OPERATOR,
       KF_ENV_YIELDED   /* the operator's, left out because the user set
                           it (MPI v1 I_MPI_HYDRA_*): not listed */ };

typedef struct kf_env_var {
  const char *name;
  const char *value;            /* NULL when `from` is set */
  const kf_node *from;          /* valueFrom, NULL: a plain value */
  int origin;                   /* KF_ENV_* */
  const char *path;             /* user variables: where they came from
                                   ("opts.env.X", "pod_template...") */
} kf_env_var;

typedef struct kf_env_file {
  const char *path, *content;
} kf_env_file;

typedef struct kf_env_pod {
  const char *key;              /* "worker-3", "launcher-0", "node-0-1" */
  kf_env_var *v;
  size_t n, cap;
  kf_env_file f[3];
  size_t nf;
} kf_env_pod;

typedef struct kf_env_pods {
  kf_env_pod *p;
  size_t n, cap;
} kf_env_pods;

/* Every pod's variables in order (user, Flyte, operator; yielded ones
** included) and files, for `t`.  `name` and `ns` as the resources get
** them (ns NULL: "default"); `env` the user's variables (sorted by name,
** no duplicates; NULL or empty: each group's container.env, else the
** job's, as the manifests write them).  No option or rule checks: kf_environment
** does those.  Errors for what FACTS §8.2 does not cover. */
kf_status kf_env_pods_of(const kf_job *j, kf_target t, const char *name,
                         const char *ns, const kf_kvs *env, kf_arena *A,
                         kf_env_pods *out, const char *who, kf_err *e);

/* opts.env as kf_target_ctx.env wants it: sorted by name (as manifests
** write it), names checked ("<who>: opts.env.X: invalid environment
** variable name", "given twice").  lint{target=, env=} passes the same. */
kf_status kf_env_user_vars(const kf_kvs *in, kf_arena *A, kf_kvs *out,
                           const char *who, kf_err *e);

/* kf_environment's writer alone, for a job the target's rules accepted:
** `env` the user's variables as kf_env_user_vars gives them. */
kf_status kf_environment_write(const kf_job *j, kf_target t,
                               const kf_manifest_opts *o, const kf_kvs *env,
                               kf_arena *A, kf_node **out, const char *who,
                               kf_err *e);


#endif

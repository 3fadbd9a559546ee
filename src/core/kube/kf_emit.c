/*
** kf_emit.c - a job's manifest and its pods' environment for a target:
** the target's rule rows first (rules/), then the target's writer.  The top
** of src/core/kube: the writers and rules sit below it.
*/
#include <string.h>

#include "kf_manifest.h"
#include "kf_env.h"
#include "kf_manifest_int.h"

/* The writer of target `t` for a job its rules accepted: the scheduling
** keys merged into the groups first, then where the target reads them. */
kf_status kf_manifest_write(const kf_job *j, kf_target t,
                            const kf_manifest_opts *o, kf_arena *A,
                            kf_node **out, const char *who, kf_err *e) {
  const kf_job *bj;   /* the job the target's writer gets: group templates merged */
  mctx c0, *c = &c0;
  kf_status st;
  c->A = A, c->e = e, c->who = who;
  if ((st = kfm_sched_job(c, j, t, &bj)) != KF_OK) return st;
  switch (t) {
    case KF_T_OPERATOR: st = kfm_operator(c, bj, o, 0, out); break;
    case KF_T_FLYTE: case KF_T_FLYTE2: st = kfm_flyte(c, bj, o, t, out); break;
    case KF_T_MPI_OPERATOR: st = kfm_mpi_operator(c, bj, o, out); break;
    case KF_T_TRAINER_22: case KF_T_TRAINER_23: st = kfm_trainer(c, bj, o, t, out); break;
    case KF_NTARGETS: return kf_fail(e, KF_EINVAL, "%s: unknown target", who);
  }
  /* the scheduling keys where the target reads them (labels, runPolicy) */
  return st != KF_OK ? st : kfm_sched_apply(c, j, t, *out);
}

kf_status kf_manifest(const kf_job *j, const kf_manifest_opts *o, kf_arena *A,
                      kf_node **out, const char *who, kf_err *e) {
  kf_target t = o->target_set ? o->target : KF_T_OPERATOR;
  kf_target_ctx tc;
  kf_status st = kf_target_allows(t, KF_E_MANIFEST, j->kind, "manifest", who, e);
  if (st != KF_OK) return st;
  memset(&tc, 0, sizeof tc);
  tc.name = o->name, tc.image = o->image;
  if (o->env.n > 0) {   /* R16: the user's variables against the target's */
    kf_kvs *env = kf_arena_alloc(A, sizeof *env);
    if (env == NULL) return kf_nomem(e);
    if ((st = kf_env_user_vars(&o->env, A, env, who, e)) != KF_OK) return st;
    tc.env = env;
  }
  if ((st = kf_target_require(j, t, &tc, A, NULL, e)) != KF_OK) return st;
  return kf_manifest_write(j, t, o, A, out, who, e);
}

static kf_node *pods_node(kf_arena *A, const kf_env_pods *ps) {
  kf_node *root = kf_node_new(A, KF_NOBJ);
  size_t i, k;
  for (i = 0; root && i < ps->n; i++) {
    const kf_env_pod *p = &ps->p[i];
    kf_node *pod = kf_obj_add(A, root, p->key, KF_NOBJ);
    kf_node *env = pod ? kf_obj_add(A, pod, "env", KF_NARR) : NULL;
    kf_node *files = env ? kf_obj_add(A, pod, "files", KF_NOBJ) : NULL;
    if (files == NULL) return NULL;
    for (k = 0; k < p->n; k++) {
      const kf_env_var *v = &p->v[k];
      kf_node *item;
      if (v->origin == KF_ENV_YIELDED) continue;
      if ((item = kf_obj_add(A, env, NULL, KF_NOBJ)) == NULL ||
          !kf_obj_strref(A, item, "name", v->name))
        return NULL;
      if (v->from ? !kf_node_push(A, item, "valueFrom", (kf_node *)v->from)
                  : !kf_obj_strref(A, item, "value", v->value))
        return NULL;
    }
    for (k = 0; k < p->nf; k++)
      if (!kf_obj_strref(A, files, p->f[k].path, p->f[k].content)) return NULL;
  }
  return root;
}

/* Every pod's environment on target `t` as a node, for a job its rules
** accepted; `env` the user's variables, sorted. */
kf_status kf_environment_write(const kf_job *j, kf_target t,
                               const kf_manifest_opts *o, const kf_kvs *env,
                               kf_arena *A, kf_node **out, const char *who,
                               kf_err *e) {
  kf_env_pods ps;
  kf_status st = kf_env_pods_of(j, t, o->name, o->ns, env, A, &ps, who, e);
  if (st != KF_OK) return st;
  if ((*out = pods_node(A, &ps)) == NULL) return kf_nomem(e);
  return KF_OK;
}

kf_status kf_environment(const kf_job *j, const kf_manifest_opts *o,
                         kf_arena *A, kf_node **out, const char *who,
                         kf_err *e) {
  kf_target t = o->target_set ? o->target : KF_T_OPERATOR;
  kf_target_ctx ctx;
  kf_kvs env;
  char pod[256];
  size_t len;
  kf_status st;
  if ((st = kf_target_allows(t, KF_E_ENVIRONMENT, j->kind, "environment", who, e)) != KF_OK)
    return st;
  if (o->name == NULL)
    return kf_fail(e, KF_EINVAL, "%s: opts.name: required (the resource name, "
                   "a DNS-1035 label)", who);
  if (!kfm_dns_label(o->name, strlen(o->name), 1))
    return kf_fail(e, KF_EINVAL, "%s: opts.name: '%.100s' is not a DNS-1035 "
                   "label (%s)", who, o->name, kfm_dns1035_rule);
  if (strlen(o->name) > 63)
    return kf_fail(e, KF_EINVAL, "%s: opts.name: '%.100s' is not a DNS-1035 "
                   "label (at most 63 characters)", who, o->name);
  /* R15 stays an error on the operator, as in its manifests */
  if (t == KF_T_OPERATOR && (len = kfm_longest_pod(j, o->name, pod, sizeof pod)) > 63)
    return kf_fail(e, KF_EINVAL, "%s: opts.name: too long for this job: pod "
                   "name '%s' has %zu characters (at most 63)", who, pod, len);
  if (o->ns && (strlen(o->ns) > 63 || !kfm_dns_label(o->ns, strlen(o->ns), 0)))
    return kf_fail(e, KF_EINVAL, "%s: opts.namespace: '%.100s' is not a "
                   "DNS-1123 label (at most 63 lowercase letters, digits and "
                   "'-', starting and ending with a letter or digit)", who, o->ns);
  if ((st = kf_env_user_vars(&o->env, A, &env, who, e)) != KF_OK) return st;
  memset(&ctx, 0, sizeof ctx);
  ctx.name = o->name;
  ctx.env = &env;
  if ((st = kf_target_require(j, t, &ctx, A, NULL, e)) != KF_OK) return st;
  return kf_environment_write(j, t, o, &env, A, out, who, e);
}

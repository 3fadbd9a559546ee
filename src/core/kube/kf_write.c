/*
** kf_write.c - a job's manifest and its pods' environment for a target
** whose rules it passed (kf_emit.c checks them): the target's writer.
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
  c->flyte = t == KF_T_FLYTE || t == KF_T_FLYTE2;
  if ((st = kfm_sched_job(c, j, t, &bj)) != KF_OK) return st;
  switch (t) {
    case KF_T_OPERATOR: st = kfm_operator(c, bj, o, 0, out); break;
    case KF_T_FLYTE: case KF_T_FLYTE2: st = kfm_flyte(c, bj, o, t, out); break;
    case KF_T_MPI_OPERATOR: st = kfm_mpi_operator(c, bj, o, out); break;
    case KF_T_TRAINER_22: case KF_T_TRAINER_23: case KF_T_TRAINER_24: st = kfm_trainer(c, bj, o, t, out); break;
    case KF_T_CLUSTERED: st = kfm_clustered(c, bj, o, out); break;
    case KF_NTARGETS: return kf_fail(e, KF_EINVAL, "%s: unknown target", who);
  }
  /* the scheduling keys where the target reads them (labels, runPolicy) */
  return st != KF_OK ? st : kfm_sched_apply(c, j, t, *out);
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
  kf_status st = kf_env_pods_of(j, t, o->name, kfm_namespace(j, o), env, A, &ps, who, e);
  if (st != KF_OK) return st;
  if ((*out = pods_node(A, &ps)) == NULL) return kf_nomem(e);
  return KF_OK;
}

/*
** kf_manifest_operator.c - job -> kubeflow.org/v1 custom resource for the
** training-operator (SPEC §4): replica specs as Flyte's backend builds them,
** run and elastic policies, and the pieces the other targets' builders
** reuse (kf_manifest_int.h).
*/
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"

#include "kf_env.h"
#include "kf_manifest_int.h"

/* ---- the resource ----------------------------------------------------- */

/* The group with the task's resources where it has none of its own (FACTS
** 3.4): a group with resources takes cpu and memory only from them, GPU
** and ephemeral storage from them when given, else from the task. */
const kf_group *kfm_task_resources(const kf_job *j, const kf_group *g,
                                      kf_group *tmp) {
  int r, own = 0, any = 0;
  for (r = 0; r < KF_NRES; r++) {
    own |= g->requests[r] || g->limits[r];
    any |= j->requests[r] || j->limits[r];
  }
  if (!any) return g;
  *tmp = *g;
  for (r = 0; r < KF_NRES; r++)
    if (!own || ((r == KF_GPU || r == KF_EPH) && !g->requests[r] && !g->limits[r]))
      tmp->requests[r] = j->requests[r], tmp->limits[r] = j->limits[r];
  return tmp;
}

kf_status kfm_container(mctx *c, const kf_job *j, int role,
                        const kfm_shared *sh, kf_node *containers) {
  kf_group tmp;
  const kf_group *g = kfm_task_resources(j, &j->g[role], &tmp);
  const kf_manifest_opts *o = sh->o;
  kf_node *ct;
  OOM(c, ct = kf_obj_add(c->A, containers, NULL, KF_NOBJ));
  OOM(c, kf_obj_str(c->A, ct, "name", kf_kinds[j->kind].container));
  OOM(c, kf_obj_str(c->A, ct, "image", g->image ? g->image : o->image));
  if (o->command.n && !(sh->bare_worker && role == KF_WORKER && !g->ncommand))
    OOM(c, kf_node_push(c->A, ct, "command", kfm_str_list(c->A, o->command.v, o->command.n)));
  if (g->ncommand)   /* MPI: the group command replaces the args */
    OOM(c, kf_node_push(c->A, ct, "args", kfm_str_list(c->A, g->command, g->ncommand)));
  else if (sh->args && sh->args->u.c.n && !(sh->bare_worker && role == KF_WORKER))
    OOM(c, kf_node_push(c->A, ct, "args", sh->args));
  if (sh->env) OOM(c, kf_node_push(c->A, ct, "env", sh->env));
  return kfm_resources(c, g, kf_roles[role].key, ct, "resources");
}

kf_status kfm_resources(mctx *c, const kf_group *g, const char *path,
                        kf_node *parent, const char *key) {
  const char *req[KF_NRES], *lim[KF_NRES];
  kf_node *res, *m[2] = {NULL, NULL};
  int i, side;
  kf_status st;
  if ((st = kfm_group_resources(c, g, path, req, lim)) != KF_OK) return st;
  OOM(c, res = kf_obj_add(c->A, parent, key, KF_NOBJ));
  for (side = 0; side < 2; side++) {     /* Go order: limits, requests */
    const char **q = side ? req : lim;
    for (i = 0; i < KF_NRES; i++) {
      int r = kfm_res_sorted[i];
      if (q[r] == NULL) continue;
      if (m[side] == NULL)
        OOM(c, m[side] = kf_obj_add(c->A, res, side ? "requests" : "limits", KF_NOBJ));
      OOM(c, kf_obj_str(c->A, m[side], kf_resources_obj.f[r].manifest, q[r]));
    }
  }
  return KF_OK;
}

kf_status kfm_replica_spec(mctx *c, const kf_job *j, int role,
                          const kfm_shared *sh, kf_node *specs) {
  const char *const *rp = kf_restart_policy_enum.manifest;
  kf_node *rs, *tmpl, *pod, *containers;
  kf_status st;
  OOM(c, rs = kf_obj_add(c->A, specs, kf_roles[role].name, KF_NOBJ));
  OOM(c, kf_obj_int(c->A, rs, "replicas", j->g[role].replicas));
  OOM(c, tmpl = kf_obj_add(c->A, rs, "template", KF_NOBJ));
  if (sh->pod_meta) OOM(c, kf_node_push(c->A, tmpl, "metadata", sh->pod_meta));
  if (j->pod_template || j->shared_memory || j->has_accelerator) {
    /* the group's container, merged into the template's pod */
    OOM(c, containers = kf_node_new(c->A, KF_NARR));
    if ((st = kfm_container(c, j, role, sh, containers)) != KF_OK ||
        (st = kf_pod_spec(c->A, j, containers->u.c.v[0], sh->o->service_account,
                          &pod, c->who, c->e)) != KF_OK)
      return st;
    OOM(c, kf_node_push(c->A, tmpl, "spec", pod));
    OOM(c, kf_obj_str(c->A, rs, "restartPolicy", rp[j->g[role].restart_policy]));
    return KF_OK;
  }
  OOM(c, pod = kf_obj_add(c->A, tmpl, "spec", KF_NOBJ));
  OOM(c, containers = kf_obj_add(c->A, pod, "containers", KF_NARR));
  if ((st = kfm_container(c, j, role, sh, containers)) != KF_OK) return st;
  /* the pod's own policy, as Flyte builds every pod */
  OOM(c, kf_obj_str(c->A, pod, "restartPolicy", "Never"));
  if (sh->o->service_account)
    OOM(c, kf_obj_str(c->A, pod, "serviceAccountName", sh->o->service_account));
  OOM(c, kf_obj_str(c->A, rs, "restartPolicy", rp[j->g[role].restart_policy]));
  return KF_OK;
}

/* A GPU limit on some pod: a present group's (or the task's it takes),
** a lone GPU request counting as the limit it becomes, or a template
** container's. */
int kfm_gpu_limited(const kf_job *j) {
  const kf_node *spec = kf_node_get(j->pod_template, "spec");
  const kf_node *cs = kf_node_get(spec, "containers");
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), i;
  size_t x;
  for (i = 0; i < n; i++) {
    kf_group tmp;
    const kf_group *g = kfm_task_resources(j, &j->g[roles[i]], &tmp);
    if ((g->limits[KF_GPU] && kfm_qty_value(g->limits[KF_GPU]) != 0) ||
        (g->requests[KF_GPU] && kfm_qty_value(g->requests[KF_GPU]) != 0))
      return 1;
  }
  for (x = 0; cs && cs->t == KF_NARR && x < cs->u.c.n; x++) {
    const kf_node *l = kf_node_get(kf_node_get(cs->u.c.v[x], "resources"), "limits");
    if (kf_node_get(l, KF_GPU_RESOURCE)) return 1;
  }
  return 0;
}

/* A template toleration that lets pods onto nodes tainted nvidia.com/gpu:
** that key, or operator Exists without a key (tolerates every taint). */
/* The run policy by its rows' manifest keys: enums in Kubernetes'
** spelling, zeros left out as ParseRunPolicy does; no policy gives {}.
** A kind Flyte never carries (no task type) keeps a 0 the job was given
** (backoffLimit 0: no retries), as kubectl would apply it. */
kf_node *kfm_run_policy(kf_arena *A, const kf_job *j) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  const char *rp = (const char *)&j->rp;
  int keep0 = kf_kinds[j->kind].task_type == NULL;
  size_t i;
  if (o == NULL || !j->has_run_policy) return o;
  for (i = 0; i < kf_run_policy_obj.n; i++) {
    const kf_field *f = &kf_run_policy_obj.f[i];
    int32_t v = *(const int32_t *)(const void *)(rp + f->off);
    if (f->type == KF_V_ENUM) {
      if (!kf_obj_str(A, o, f->manifest, ((const kf_enum *)f->info)->manifest[v]))
        return NULL;
    } else if ((v != 0 || (keep0 && (j->rp.zero & f->zbit))) &&
               !kf_obj_int(A, o, f->manifest, v)) {
      return NULL;
    }
  }
  return o;
}

/* Checks the options and builds what every target's resource shares:
** the root with apiVersion, kind and metadata, the pod metadata, the env
** list and the task args (the launcher command for MPI kinds). */
kf_status kfm_prepare(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                      const char *api_version, const char *kind,
                      kfm_shared *sh) {
  kf_arena *A = c->A;
  kf_kv *labels, *annotations, *env;
  kf_node *meta;
  int i;
  kf_status st;
  memset(sh, 0, sizeof *sh);
  sh->o = o;
  if ((st = kfm_check_opts(c, j, o)) != KF_OK ||
      (st = kfm_sorted(c, "opts.labels", &o->labels, &labels)) != KF_OK ||
      (st = kfm_sorted(c, "opts.annotations", &o->annotations, &annotations)) != KF_OK ||
      (st = kfm_sorted(c, "opts.env", &o->env, &env)) != KF_OK ||
      (st = kfm_check_pod(c, j)) != KF_OK)
    return st;

  OOM(c, sh->root = kf_node_new(A, KF_NOBJ));
  OOM(c, kf_obj_str(A, sh->root, "apiVersion", api_version));
  OOM(c, kf_obj_str(A, sh->root, "kind", kind));
  OOM(c, meta = sh->meta = kf_obj_add(A, sh->root, "metadata", KF_NOBJ));
  OOM(c, kf_obj_str(A, meta, "name", o->name));
  if (o->ns) OOM(c, kf_obj_str(A, meta, "namespace", o->ns));

  /* Flyte puts the execution's labels and annotations on the resource and
  ** on every pod template; so do we. */
  if (o->labels.n || o->annotations.n) {
    kf_node *l = NULL, *an = NULL;
    OOM(c, sh->pod_meta = kf_node_new(A, KF_NOBJ));
    if (o->labels.n) {
      l = kfm_str_map(A, labels, o->labels.n);
      OOM(c, kf_node_push(A, meta, "labels", l) &&
                 kf_node_push(A, sh->pod_meta, "labels", l));
    }
    if (o->annotations.n) {
      an = kfm_str_map(A, annotations, o->annotations.n);
      OOM(c, kf_node_push(A, meta, "annotations", an) &&
                 kf_node_push(A, sh->pod_meta, "annotations", an));
    }
    if (j->pod_template &&  /* the template's under the execution's */
        (st = kf_pod_meta(A, j->pod_template, l, an, &sh->pod_meta, c->e)) != KF_OK)
      return st;
  } else if (j->pod_template &&
             (st = kf_pod_meta(A, j->pod_template, NULL, NULL, &sh->pod_meta, c->e)) != KF_OK) {
    return st;
  }
  if (o->env.n) {
    OOM(c, sh->env = kf_node_new(A, KF_NARR));
    for (i = 0; i < (int)o->env.n; i++) {
      kf_node *v;
      OOM(c, v = kf_obj_add(A, sh->env, NULL, KF_NOBJ));
      OOM(c, kf_obj_str(A, v, "name", env[i].k) && kf_obj_str(A, v, "value", env[i].v));
    }
  }
  /* MPI: the task's args are the launcher command around opts.args, as
  ** flytekit sends them; groups without a command of their own keep them */
  if (kf_kinds[j->kind].flags & KF_K_COMMAND) {
    if ((st = kfm_launcher_command(c, j, &o->args, &sh->args)) != KF_OK) return st;
  } else if (o->args.n) {
    OOM(c, sh->args = kfm_str_list(A, o->args.v, o->args.n));
  }
  return KF_OK;
}

/* training-operator v1.9: kubeflow.org/v1.  Flyte's backend builds the
** same resource but for `slots` (`flyte_slots`: slotsPerWorker 1, FACTS
** 3.8); kf_manifest_flyte.c adds the rest of what it submits. */
kf_status kfm_operator(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                       int flyte_slots, kf_node **out) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_arena *A = c->A;
  kfm_shared sh;
  kf_node *spec, *specs, *rp;
  int roles[KF_NROLES], n, i;
  kf_status st;
  if ((st = kfm_prepare(c, j, o, "kubeflow.org/v1", k->crd_kind, &sh)) != KF_OK)
    return st;
  OOM(c, spec = kf_obj_add(A, sh.root, "spec", KF_NOBJ));
  OOM(c, rp = kfm_run_policy(A, j));
  if (k->flags & KF_K_SLOTS)
    OOM(c, kf_obj_int(A, spec, "slotsPerWorker", flyte_slots ? 1 : j->slots));
  else
    OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  if (k->flags & KF_K_ELASTIC) {
    kf_node *ep;
    OOM(c, ep = kf_obj_add(A, spec, "elasticPolicy", KF_NOBJ));
    OOM(c, kf_obj_int(A, ep, "minReplicas", j->min_nodes) &&
               kf_obj_int(A, ep, "maxReplicas", j->max_nodes) &&
               kf_obj_str(A, ep, "rdzvBackend", j->rdzv_backend));
    /* an integer stays in the deprecated elasticPolicy field (today's
    ** output; lint warns, R10); a word only spec.nprocPerNode can carry */
    if (j->nproc_word == NULL)
      OOM(c, kf_obj_int(A, ep, "nProcPerNode", j->nproc_per_node));
    OOM(c, kf_obj_int(A, ep, "maxRestarts", j->max_restarts));
    if (j->nproc_word != NULL)
      OOM(c, kf_obj_strref(A, spec, "nprocPerNode", j->nproc_word));
  }
  OOM(c, specs = kf_obj_add(A, spec, k->crd_specs, KF_NOBJ));
  n = kfm_present_roles(j, roles);   /* elastic kinds have no master role */
  for (i = 0; i < n; i++)
    if ((st = kfm_replica_spec(c, j, roles[i], &sh, specs)) != KF_OK) return st;
  if (k->flags & KF_K_SLOTS) OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  *out = sh.root;
  return KF_OK;
}

kf_status kf_manifest(const kf_job *j, const kf_manifest_opts *o, kf_arena *A,
                      kf_node **out, const char *who, kf_err *e) {
  kf_target t = o->target_set ? o->target : KF_T_OPERATOR;
  kf_target_ctx tc;
  const kf_job *bj;   /* the job the target's builder gets (SPEC §13) */
  mctx c0, *c = &c0;
  kf_status st = kf_target_allows(t, KF_E_MANIFEST, j->kind, "manifest", who, e);
  if (st != KF_OK) return st;
  c->A = A, c->e = e, c->who = who;
  memset(&tc, 0, sizeof tc);
  tc.name = o->name, tc.image = o->image;
  if (o->env.n > 0) {   /* R16: the user's variables against the target's */
    kf_kvs *env = kf_arena_alloc(A, sizeof *env);
    if (env == NULL) return kf_nomem(e);
    if ((st = kf_env_user_vars(&o->env, A, env, who, e)) != KF_OK) return st;
    tc.env = env;
  }
  if ((st = kf_target_require(j, t, &tc, A, NULL, e)) != KF_OK ||
      (st = kfm_sched_job(c, j, t, &bj)) != KF_OK)
    return st;
  switch (t) {
    case KF_T_OPERATOR: st = kfm_operator(c, bj, o, 0, out); break;
    case KF_T_FLYTE: case KF_T_FLYTE2: st = kfm_flyte(c, bj, o, t, out); break;
    case KF_T_MPI_OPERATOR: st = kfm_mpi_operator(c, bj, o, out); break;
    case KF_T_TRAINER_22: case KF_T_TRAINER_23: st = kfm_trainer(c, bj, o, t, out); break;
    case KF_NTARGETS: return kf_fail(e, KF_EINVAL, "%s: unknown target", who);
  }
  return st != KF_OK ? st : kfm_sched_apply(c, j, t, *out);   /* SPEC §13 */
}

/*
** kf_manifest_common.c - the pieces every target's manifest writer shares
** (kf_manifest_int.h): the resource's root and metadata, each role's
** container and resources, replica specs and the run policy.  Below every
** writer (kf_manifest_{operator,flyte,mpi,trainer}.c); calls none of them.
*/
#include <stddef.h>
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"

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

/* The group as its pods get it: the task's resources (above) and the
** task's image (opts.image) where it has none of its own. */
const kf_group *kfm_pod_group(const kf_job *j, int role,
                              const kf_manifest_opts *o, kf_group *tmp) {
  const kf_group *g = kfm_task_resources(j, &j->g[role], tmp);
  if (g->image != NULL) return g;
  if (g != tmp) *tmp = *g;
  tmp->image = o->image;
  return tmp;
}

/* ---- the group's rows ------------------------------------------------- */

/* Whether row `f` of the struct at `base` holds a value other than its
** default: a string, tree or list given, a number or enum changed, an
** object present (or, without a presence flag, any of its rows given). */
static int row_given(const kf_field *f, const char *base) {
  const void *p = base + f->off;
  size_t i;
  switch (f->type) {
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_SIZE:
    case KF_V_QTY: case KF_V_TREE:
      return *(const void *const *)p != NULL;
    case KF_V_INT: case KF_V_NPROC: case KF_V_NNODES:
      return *(const int32_t *)p != f->idef;
    case KF_V_BOOL: case KF_V_ENUM:
      return *(const int *)p != f->idef;
    case KF_V_STRLIST:
      return *(const size_t *)(const void *)(base + f->off_n) != 0;
    case KF_V_OBJ: {
      const kf_obj *o = f->info;
      if (f->off_n) return *(const int *)(const void *)(base + f->off_n) != 0;
      for (i = 0; i < o->n; i++)
        if (row_given(&o->f[i], (const char *)p)) return 1;
      return 0;
    }
    case KF_V_GROUPS: case KF_V_DEPRECATED: break;
  }
  return 0;
}

int kfm_row_given(const kf_field *f, const kf_group *g) {
  return row_given(f, (const char *)g);
}

/* One group row's value as into[f->manifest]: a number as is, an enum in
** Kubernetes' spelling, a string or list when given. */
static kf_status put_row(mctx *c, const kf_field *f, const kf_group *g,
                         kf_node *into) {
  const char *base = (const char *)g;
  const void *p = base + f->off;
  switch (f->type) {
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_SIZE: case KF_V_QTY:
      if (*(const char *const *)p) OOM(c, kf_obj_str(c->A, into, f->manifest,
                                                     *(const char *const *)p));
      return KF_OK;
    case KF_V_INT:
      OOM(c, kf_obj_int(c->A, into, f->manifest, *(const int32_t *)p));
      return KF_OK;
    case KF_V_ENUM:
      OOM(c, kf_obj_str(c->A, into, f->manifest,
                        ((const kf_enum *)f->info)->manifest[*(const int *)p]));
      return KF_OK;
    case KF_V_BOOL: {
      kf_node *b;
      OOM(c, b = kf_node_new(c->A, KF_NBOOL));
      b->u.b = *(const int *)p != 0;
      OOM(c, kf_node_push(c->A, into, f->manifest, b));
      return KF_OK;
    }
    case KF_V_STRLIST: {
      size_t n = *(const size_t *)(const void *)(base + f->off_n);
      if (n) OOM(c, kf_node_push(c->A, into, f->manifest,
                                 kfm_str_list(c->A, *(const char *const *const *)p, n)));
      return KF_OK;
    }
    case KF_V_NPROC: case KF_V_OBJ: case KF_V_NNODES: case KF_V_TREE:
    case KF_V_GROUPS: case KF_V_DEPRECATED: break;
  }
  /* a row placed where no writer knows its type: a schema mistake */
  return kf_fail(c->e, KF_EINVAL, "%s: %s: no manifest writer for this row's "
                 "type", c->who, f->key);
}

/* Every group row placed at `place` (KF_M_*) into `into`, in row order;
** KF_M_RESOURCES: both resource rows as into[res_key], errors naming
** `path`. */
kf_status kfm_group_rows(mctx *c, const kf_group *g, int place,
                         const char *path, kf_node *into, const char *res_key) {
  size_t i;
  kf_status st;
  if (place == KF_M_RESOURCES) return kfm_resources(c, g, path, into, res_key);
  for (i = 0; i < kf_group_obj.n; i++) {
    const kf_field *f = &kf_group_obj.f[i];
    if (f->place == place && (st = put_row(c, f, g, into)) != KF_OK) return st;
  }
  return KF_OK;
}

/* ---- containers and replica specs ------------------------------------- */

/* The group's container: its rows (image, the group command as args,
** requests and limits as resources) over the task's (opts.image, the
** job's resources), the task's command, args and env; keys in the Go
** struct's order. */
kf_status kfm_container(mctx *c, const kf_job *j, int role,
                        const kfm_shared *sh, kf_node *containers) {
  kf_group tmp;
  const kf_manifest_opts *o = sh->o;
  const kf_group *g = kfm_pod_group(j, role, o, &tmp);
  const int bare = sh->bare_worker && role == KF_WORKER;
  kf_node *ct;
  kf_status st;
  OOM(c, ct = kf_node_new(c->A, KF_NOBJ));
  OOM(c, kf_obj_str(c->A, ct, "name", kf_kinds[j->kind].container));
  if ((st = kfm_group_rows(c, g, KF_M_CONTAINER, kf_roles[role].key, ct, NULL)) != KF_OK ||
      (st = kfm_group_rows(c, g, KF_M_RESOURCES, kf_roles[role].key, ct,
                           "resources")) != KF_OK)
    return st;
  if (o->command.n && !(bare && !g->ncommand))
    OOM(c, kf_node_push(c->A, ct, "command", kfm_str_list(c->A, o->command.v, o->command.n)));
  /* MPI: a group command (a row) replaces the task's args */
  if (!g->ncommand && sh->args && sh->args->u.c.n && !bare)
    OOM(c, kf_node_push(c->A, ct, "args", sh->args));
  if (sh->env) OOM(c, kf_node_push(c->A, ct, "env", sh->env));
  OOM(c, ct = kf_pod_ordered(c->A, ct, kf_pod_container_order));
  OOM(c, kf_node_push(c->A, containers, NULL, ct));
  return KF_OK;
}

/* A ResourceRequirements' keys in the Go struct's order. */
static const char *const resources_order[] = {"limits", "requests", NULL};

/* `g`'s resource rows as parent[key] = {limits, requests}, each side only
** when some quantity is set; errors name `path`. */
kf_status kfm_resources(mctx *c, const kf_group *g, const char *path,
                        kf_node *parent, const char *key) {
  const char *req[KF_NRES], *lim[KF_NRES];
  kf_node *res;
  size_t f;
  int i;
  kf_status st;
  if ((st = kfm_group_resources(c, g, path, req, lim)) != KF_OK) return st;
  OOM(c, res = kf_node_new(c->A, KF_NOBJ));
  for (f = 0; f < kf_group_obj.n; f++) {
    const kf_field *row = &kf_group_obj.f[f];
    const char **q = row->off == offsetof(kf_group, limits) ? lim : req;
    kf_node *m = NULL;
    if (row->place != KF_M_RESOURCES) continue;
    for (i = 0; i < KF_NRES; i++) {
      int r = kfm_res_sorted[i];
      if (q[r] == NULL) continue;
      if (m == NULL) OOM(c, m = kf_obj_add(c->A, res, row->manifest, KF_NOBJ));
      OOM(c, kf_obj_str(c->A, m, kf_resources_obj.f[r].manifest, q[r]));
    }
  }
  OOM(c, res = kf_pod_ordered(c->A, res, resources_order));
  OOM(c, kf_node_push(c->A, parent, key, res));
  return KF_OK;
}

/* A ReplicaSpec's keys in the Go struct's order (kubeflow common). */
static const char *const replica_order[] = {"replicas", "template",
                                            "restartPolicy", NULL};

/* The role's replica spec as specs[Role]: its replica rows (replicas,
** restartPolicy) and the pod template with the group's container. */
kf_status kfm_replica_spec(mctx *c, const kf_job *j, int role,
                          const kfm_shared *sh, kf_node *specs) {
  kf_node *rs, *tmpl, *pod, *containers;
  kf_status st;
  OOM(c, rs = kf_node_new(c->A, KF_NOBJ));
  if ((st = kfm_group_rows(c, &j->g[role], KF_M_REPLICA, kf_roles[role].key,
                           rs, NULL)) != KF_OK)
    return st;
  OOM(c, tmpl = kf_obj_add(c->A, rs, "template", KF_NOBJ));
  if (sh->pod_meta) OOM(c, kf_node_push(c->A, tmpl, "metadata", sh->pod_meta));
  OOM(c, containers = kf_node_new(c->A, KF_NARR));
  if ((st = kfm_container(c, j, role, sh, containers)) != KF_OK) return st;
  if (j->pod_template || j->shared_memory || j->has_accelerator) {
    /* the group's container, merged into the template's pod */
    if ((st = kf_pod_spec(c->A, j, containers->u.c.v[0], sh->o->service_account,
                          &pod, c->who, c->e)) != KF_OK)
      return st;
    OOM(c, kf_node_push(c->A, tmpl, "spec", pod));
  } else {
    OOM(c, pod = kf_obj_add(c->A, tmpl, "spec", KF_NOBJ));
    OOM(c, kf_node_push(c->A, pod, "containers", containers));
    /* the pod's own policy, as Flyte builds every pod */
    OOM(c, kf_obj_str(c->A, pod, "restartPolicy", "Never"));
    if (sh->o->service_account)
      OOM(c, kf_obj_str(c->A, pod, "serviceAccountName", sh->o->service_account));
  }
  OOM(c, rs = kf_pod_ordered(c->A, rs, replica_order));
  OOM(c, kf_node_push(c->A, specs, kf_roles[role].name, rs));
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
** spelling; no policy gives {}.  Flyte's targets leave zeros out, as
** Flyte's ParseRunPolicy does (proto3 cannot send them); a manifest that
** goes straight to the API server (`direct`: operator, mpi-operator) keeps
** a 0 the job was given (backoffLimit 0: no retries, not the default 6), as
** does a kind Flyte never carries (no task type). */
kf_node *kfm_run_policy(kf_arena *A, const kf_job *j, int direct) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  const char *rp = (const char *)&j->rp;
  int keep0 = direct || kf_kinds[j->kind].task_type == NULL;
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
  kf_node *meta, *l = NULL, *an = NULL;
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
  ** on every pod template; so do we, unless opts.copy_to_pods is false. */
  if (o->labels.n) OOM(c, (l = kfm_str_map(A, labels, o->labels.n)) != NULL &&
                         kf_node_push(A, meta, "labels", l));
  if (o->annotations.n) OOM(c, (an = kfm_str_map(A, annotations, o->annotations.n)) != NULL &&
                              kf_node_push(A, meta, "annotations", an));
  if (o->no_pod_copy) l = an = NULL;   /* the resource's alone */
  if (l || an) {
    OOM(c, sh->pod_meta = kf_node_new(A, KF_NOBJ));
    if (l) OOM(c, kf_node_push(A, sh->pod_meta, "labels", l));
    if (an) OOM(c, kf_node_push(A, sh->pod_meta, "annotations", an));
  }
  if (j->pod_template &&  /* the template's under the execution's */
      (st = kf_pod_meta(A, j->pod_template, l, an, &sh->pod_meta, c->e)) != KF_OK)
    return st;
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
    if ((st = kf_launcher_command(j, &o->args, c->A, &sh->args, c->who, c->e)) != KF_OK) return st;
  } else if (o->args.n) {
    OOM(c, sh->args = kfm_str_list(A, o->args.v, o->args.n));
  }
  return KF_OK;
}

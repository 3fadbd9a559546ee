/*
** kf_manifest_common.c - the pieces every target's manifest writer shares
** (kf_manifest_int.h): the resource's root and metadata, each role's
** container and resources, replica specs and the run policy.  Below every
** writer (kf_manifest_{operator,flyte,mpi,trainer}.c); calls none of them.
*/
#include <stddef.h>
#include <stdio.h>
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
  any |= j->requests_ext || j->limits_ext;
  if (!any) return g;
  *tmp = *g;
  for (r = 0; r < KF_NRES; r++)
    if (!own || ((r == KF_GPU || r == KF_EPH) && !g->requests[r] && !g->limits[r]))
      tmp->requests[r] = j->requests[r], tmp->limits[r] = j->limits[r];
  /* extended resources: the group's when it gives any, as GPUs */
  if (!g->requests_ext && !g->limits_ext)
    tmp->requests_ext = j->requests_ext, tmp->limits_ext = j->limits_ext;
  return tmp;
}

/* The group as its pods get it: the task's resources (above) and the
** task's image (opts.image, else the job's container.image) where it has
** none of its own. */
const kf_group *kfm_pod_group(const kf_job *j, int role,
                              const kf_manifest_opts *o, kf_group *tmp) {
  const kf_group *g = kfm_task_resources(j, &j->g[role], tmp);
  if (g->image != NULL) return g;
  if (g != tmp) *tmp = *g;
  tmp->image = kfm_task_image(j, o);
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

int kfm_value_given(const kf_field *f, const void *base) {
  return row_given(f, (const char *)base);
}

/* One row's value of the struct at `base` (a group, or the job) as
** into[f->manifest]: a number as is (KF_F_OMITZERO: 0 left out), an enum
** in Kubernetes' spelling, a string, list or tree when given, a boolean
** (KF_F_OMITZERO: false left out).  A KF_F_GIVEN row: on Flyte's targets
** as above (the backend writes the plugin message's value, the default
** too); on the others, where the manifest goes to the operator as
** written, only when given (a default given is written, 0 and false too). */
static kf_status put_row(mctx *c, const kf_field *f, const char *base,
                         kf_node *into) {
  const void *p = base + f->off;
  int keep = 0;
  if ((f->flags & KF_F_GIVEN) && !c->flyte) {
    if (kf_row_unset(f, base)) return KF_OK;
    keep = 1;
  }
  switch (f->type) {
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_SIZE: case KF_V_QTY:
      if (*(const char *const *)p) KF_OOM(c, kf_obj_str(c->A, into, f->manifest,
                                                     *(const char *const *)p));
      return KF_OK;
    case KF_V_INT:
      if ((f->flags & KF_F_OMITZERO) && !keep && *(const int32_t *)p == 0) return KF_OK;
      KF_OOM(c, kf_obj_int(c->A, into, f->manifest, *(const int32_t *)p));
      return KF_OK;
    case KF_V_TREE:
      if (*(kf_node *const *)p)
        KF_OOM(c, kf_node_push(c->A, into, f->manifest, *(kf_node *const *)p));
      return KF_OK;
    case KF_V_ENUM:
      KF_OOM(c, kf_obj_str(c->A, into, f->manifest,
                        ((const kf_enum *)f->info)->manifest[*(const int *)p]));
      return KF_OK;
    case KF_V_BOOL: {
      kf_node *b;
      if ((f->flags & KF_F_OMITZERO) && !keep && *(const int *)p == 0) return KF_OK;
      KF_OOM(c, b = kf_node_new(c->A, KF_NBOOL));
      b->u.b = *(const int *)p != 0;
      KF_OOM(c, kf_node_push(c->A, into, f->manifest, b));
      return KF_OK;
    }
    case KF_V_STRLIST: {
      size_t n = *(const size_t *)(const void *)(base + f->off_n);
      if (n) KF_OOM(c, kf_node_push(c->A, into, f->manifest,
                                 kfm_str_list(c->A, *(const char *const *const *)p, n)));
      return KF_OK;
    }
    case KF_V_NPROC: case KF_V_OBJ: case KF_V_NNODES:
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
    if (f->place == place && (st = put_row(c, f, (const char *)g, into)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* Every job row of the job's kind placed at `place` (KF_M_*, a job place:
** the elastic policy) into `into` under its manifest key, in row order. */
kf_status kfm_job_rows(mctx *c, const kf_job *j, int place, kf_node *into) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  size_t i;
  kf_status st;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (f->place == place && (st = put_row(c, f, (const char *)j, into)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* Whether the group has a value in a row placed at `place` (KF_M_*). */
int kfm_place_given(const kf_group *g, int place) {
  size_t i;
  for (i = 0; i < kf_group_obj.n; i++)
    if (kf_group_obj.f[i].place == place && row_given(&kf_group_obj.f[i], (const char *)g))
      return 1;
  return 0;
}

/* ---- containers and replica specs ------------------------------------- */

/* The group's container when it has one of its own (NULL: none). */
static const kf_container *group_ct(const kf_job *j, int role) {
  return j->g[role].has_container ? &j->g[role].container : NULL;
}

static void from_group(char *from, size_t cap, int role) {
  snprintf(from, cap, "%.20s.container", kf_roles[role].key);
}

const char *kfm_container_name(const kf_job *j, int role) {
  const kf_container *gc = group_ct(j, role);
  if (gc && gc->name) return gc->name;
  if (j->has_container && j->container.name) return j->container.name;
  return kf_kinds[j->kind].container;
}

kf_strs kfm_role_command(const kf_job *j, int role, const kf_manifest_opts *o,
                         char *from, size_t cap) {
  const kf_container *gc = group_ct(j, role);
  kf_strs s = {NULL, 0};
  snprintf(from, cap, "opts");
  if (o->command.n) return o->command;
  if (gc && gc->ncommand) {
    from_group(from, cap, role);
    s.v = gc->command, s.n = gc->ncommand;
  } else if (j->has_container && j->container.ncommand) {
    snprintf(from, cap, "container");
    s.v = j->container.command, s.n = j->container.ncommand;
  }
  return s;
}

kf_strs kfm_job_command(const kf_job *j, int role) {
  kf_manifest_opts none;
  char from[48];
  memset(&none, 0, sizeof none);
  return kfm_role_command(j, role, &none, from, sizeof from);
}

/* The task's args (sh->args: opts.args or the job's, MPI's wrapped) unless
** the call gives none and the group has args of its own, written as given
** (as an MPI group's command is). */
kf_status kfm_role_args(mctx *c, const kf_job *j, int role, const kfm_shared *sh,
                        kf_node **out, char *from, size_t cap) {
  const kf_container *gc = group_ct(j, role);
  snprintf(from, cap, "%s", sh->o->args.n ? "opts" : "container");
  *out = sh->args;
  /* an MPI group with a command of its own runs it as written, without
  ** the task's args; one whose command starts mpirun, mpiexec or
  ** horovodrun (hand-written, mpi-operator examples/v2beta1) gets no
  ** launcher line of kfjob's, the task's args as they are */
  if (kf_kinds[j->kind].flags & KF_K_COMMAND) {
    kf_strs cmd = kfm_role_command(j, role, sh->o, from, cap);
    if (!sh->o->args.n && gc && gc->ncommand && !gc->nargs &&
        !(role == KF_LAUNCHER && sh->task_args)) {   /* a launcher: the task's, wrapped */
      *out = NULL;
      return KF_OK;
    }
    snprintf(from, cap, "%s", sh->o->args.n ? "opts" : "container");
    if (kf_mpi_tool(cmd.v, cmd.n) && !(gc && gc->nargs)) {
      *out = sh->task_args;
      return KF_OK;
    }
  }
  if (sh->o->args.n || !gc || !gc->nargs) return KF_OK;
  from_group(from, cap, role);
  KF_OOM(c, *out = kfm_str_list(c->A, gc->args, gc->nargs));
  return KF_OK;
}

kf_status kfm_role_env(mctx *c, const kf_job *j, int role, const kfm_shared *sh,
                       kf_node **out) {
  const kf_node *env = kfm_row_env(j, role, NULL);
  *out = sh->env;
  if (sh->env || env == NULL) return KF_OK;
  KF_OOM(c, *out = kfm_env_list(c->A, env));
  if ((*out)->u.c.n == 0) *out = NULL;
  return KF_OK;
}

/* The group's container: its rows (image, the group command as args,
** requests and limits as resources) over the task's (the task image, the
** job's resources); command, args and env each the call's, else the
** group's container's, else the job's; keys in the Go struct's order. */
kf_status kfm_container(mctx *c, const kf_job *j, int role,
                        const kfm_shared *sh, kf_node *containers) {
  kf_group tmp;
  const kf_manifest_opts *o = sh->o;
  const kf_group *g = kfm_pod_group(j, role, o, &tmp);
  const kf_container *gc = group_ct(j, role);
  /* mpi-operator: a worker that runs nothing of its own runs sshd */
  const int bare = role == sh->bare_role && !g->ncommand &&
                   !(gc && (gc->ncommand || gc->nargs));
  char from[48];
  kf_strs cmd = kfm_role_command(j, role, o, from, sizeof from);
  kf_node *ct, *args, *env;
  kf_status st;
  if (sh->launcher_command && role != KF_LAUNCHER && !(gc && gc->ncommand))
    cmd.n = 0;   /* the job's command is the launcher's: a worker runs its own */
  KF_OOM(c, ct = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, kf_obj_str(c->A, ct, "name", kfm_container_name(j, role)));
  if ((st = kfm_group_rows(c, g, KF_M_CONTAINER, kf_roles[role].key, ct, NULL)) != KF_OK ||
      (st = kfm_group_rows(c, g, KF_M_RESOURCES, kf_roles[role].key, ct,
                           "resources")) != KF_OK ||
      (st = kfm_role_args(c, j, role, sh, &args, from, sizeof from)) != KF_OK ||
      (st = kfm_role_env(c, j, role, sh, &env)) != KF_OK)
    return st;
  if (cmd.n && !bare)
    KF_OOM(c, kf_node_push(c->A, ct, "command", kfm_str_list(c->A, cmd.v, cmd.n)));
  /* MPI: a group command (a row) replaces the task's args */
  if (!g->ncommand && args && args->u.c.n && !bare)
    KF_OOM(c, kf_node_push(c->A, ct, "args", args));
  if (env) KF_OOM(c, kf_node_push(c->A, ct, "env", env));
  KF_OOM(c, ct = kf_pod_ordered(c->A, ct, kf_pod_container_order));
  KF_OOM(c, kf_node_push(c->A, containers, NULL, ct));
  return KF_OK;
}

/* A ResourceRequirements' keys in the Go struct's order. */
static const char *const resources_order[] = {"limits", "requests", NULL};

/* Go writes a ResourceList (a map) in key order: the fixed resources are,
** the extended ones go between them (amd.com/gpu before cpu). */
static void sort_keys(kf_node *m) {
  size_t i, k;
  for (i = 1; i < m->u.c.n; i++)
    for (k = i; k > 0 && strcmp(m->u.c.k[k - 1], m->u.c.k[k]) > 0; k--) {
      const char *tk = m->u.c.k[k];
      kf_node *tv = m->u.c.v[k];
      m->u.c.k[k] = m->u.c.k[k - 1], m->u.c.v[k] = m->u.c.v[k - 1];
      m->u.c.k[k - 1] = tk, m->u.c.v[k - 1] = tv;
    }
}

/* `g`'s extended resources of one side into *m (res[key], made when
** needed), as given; a request missing beside its limit is the limit
** (core/v1 defaults.go SetDefaults_Pod, as the fixed rows write it). */
static kf_status ext_side(mctx *c, const kf_group *g, int limits, kf_node *res,
                          const char *key, kf_node **m) {
  const kf_node *own = limits ? g->limits_ext : g->requests_ext;
  const kf_node *more = limits ? NULL : g->limits_ext;
  size_t i;
  if (own == NULL && more == NULL) return KF_OK;
  if (*m == NULL) KF_OOM(c, *m = kf_obj_add(c->A, res, key, KF_NOBJ));
  for (i = 0; own && i < own->u.c.n; i++)
    KF_OOM(c, kf_obj_str(c->A, *m, own->u.c.k[i], own->u.c.v[i]->u.s.p));
  for (i = 0; more && i < more->u.c.n; i++)
    if (own == NULL || kf_node_get(own, more->u.c.k[i]) == NULL)
      KF_OOM(c, kf_obj_str(c->A, *m, more->u.c.k[i], more->u.c.v[i]->u.s.p));
  sort_keys(*m);
  return KF_OK;
}

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
  KF_OOM(c, res = kf_node_new(c->A, KF_NOBJ));
  for (f = 0; f < kf_group_obj.n; f++) {
    const kf_field *row = &kf_group_obj.f[f];
    const char **q = row->off == offsetof(kf_group, limits) ? lim : req;
    kf_node *m = NULL;
    if (row->place != KF_M_RESOURCES) continue;
    for (i = 0; i < KF_NRES; i++) {
      int r = kfm_res_sorted[i];
      if (q[r] == NULL) continue;
      if (m == NULL) KF_OOM(c, m = kf_obj_add(c->A, res, row->manifest, KF_NOBJ));
      KF_OOM(c, kf_obj_str(c->A, m, kf_resources_obj.f[r].manifest, q[r]));
    }
    if ((st = ext_side(c, g, row->off == offsetof(kf_group, limits), res, row->manifest,
                       &m)) != KF_OK)
      return st;
  }
  KF_OOM(c, res = kf_pod_ordered(c->A, res, resources_order));
  KF_OOM(c, kf_node_push(c->A, parent, key, res));
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
  KF_OOM(c, rs = kf_node_new(c->A, KF_NOBJ));
  if ((st = kfm_group_rows(c, &j->g[role], KF_M_REPLICA, kf_roles[role].key,
                           rs, NULL)) != KF_OK)
    return st;
  KF_OOM(c, tmpl = kf_obj_add(c->A, rs, "template", KF_NOBJ));
  if (sh->pod_meta) KF_OOM(c, kf_node_push(c->A, tmpl, "metadata", sh->pod_meta));
  KF_OOM(c, containers = kf_node_new(c->A, KF_NARR));
  if ((st = kfm_container(c, j, role, sh, containers)) != KF_OK) return st;
  if (j->pod_template || j->shared_memory || j->has_accelerator) {
    /* the group's container, merged into the template's pod */
    if ((st = kf_pod_spec(c->A, j, containers->u.c.v[0], sh->o->service_account,
                          &pod, c->who, c->e)) != KF_OK)
      return st;
    KF_OOM(c, kf_node_push(c->A, tmpl, "spec", pod));
  } else {
    KF_OOM(c, pod = kf_obj_add(c->A, tmpl, "spec", KF_NOBJ));
    KF_OOM(c, kf_node_push(c->A, pod, "containers", containers));
    /* the pod's own policy, as Flyte builds every pod */
    KF_OOM(c, kf_obj_str(c->A, pod, "restartPolicy", "Never"));
    if (sh->o->service_account)
      KF_OOM(c, kf_obj_str(c->A, pod, "serviceAccountName", sh->o->service_account));
  }
  if ((st = kfm_group_rows(c, &j->g[role], KF_M_POD, kf_roles[role].key, pod,
                           NULL)) != KF_OK)
    return st;
  KF_OOM(c, rs = kf_pod_ordered(c->A, rs, replica_order));
  KF_OOM(c, kf_node_push(c->A, specs, kf_roles[role].name, rs));
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
    if (f->place != KF_M_RUN_POLICY) continue;
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

/* The resource's labels and annotations: the job's under the call's (the
** call wins by key).  The pods get the call's, as Flyte's backend puts the
** execution's on every pod (flyteplugins pod_helper.go), unless
** opts.copy_to_pods is false; the job's are the resource's own metadata
** (a label a pod needs is the pod template's), but on Flyte's targets,
** where the backend puts a label of the resource on every pod, they go
** there too.  The pod template's are under both. */
static kf_status prepare_meta(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                              kfm_shared *sh) {
  kf_arena *A = c->A;
  kf_kv *labels, *annotations, *pl, *pa;
  size_t nl, na, npl = 0, npa = 0, i, total = 0;
  kf_node *l = NULL, *an = NULL;
  kf_status st;
  if ((st = kfm_merged_map(c, "opts.labels", j->labels, &o->labels, &labels, &nl)) != KF_OK ||
      (st = kfm_merged_map(c, "opts.annotations", j->annotations, &o->annotations,
                           &annotations, &na)) != KF_OK)
    return st;
  for (i = 0; i < na && o->annotations.n && j->annotations; i++)
    total += strlen(annotations[i].k) + strlen(annotations[i].v);
  if (total > 256 * 1024)   /* each under the limit, not both together */
    return kfm_failf(c, "opts.annotations", "with the job's annotations, larger "
                     "than the 256 KiB Kubernetes allows");
  if (nl) KF_OOM(c, (l = kfm_str_map(A, labels, nl)) != NULL &&
                 kf_node_push(A, sh->meta, "labels", l));
  if (na) KF_OOM(c, (an = kfm_str_map(A, annotations, na)) != NULL &&
                 kf_node_push(A, sh->meta, "annotations", an));
  if (!c->flyte) {   /* the pods: the call's alone */
    l = an = NULL;
    if ((st = kfm_sorted(c, "opts.labels", &o->labels, &pl)) != KF_OK ||
        (st = kfm_sorted(c, "opts.annotations", &o->annotations, &pa)) != KF_OK)
      return st;
    npl = o->labels.n, npa = o->annotations.n;
    if (npl) KF_OOM(c, (l = kfm_str_map(A, pl, npl)) != NULL);
    if (npa) KF_OOM(c, (an = kfm_str_map(A, pa, npa)) != NULL);
  }
  if (o->no_pod_copy) l = an = NULL;   /* the resource's alone */
  if (l || an) {
    KF_OOM(c, sh->pod_meta = kf_node_new(A, KF_NOBJ));
    if (l) KF_OOM(c, kf_node_push(A, sh->pod_meta, "labels", l));
    if (an) KF_OOM(c, kf_node_push(A, sh->pod_meta, "annotations", an));
  }
  if (j->pod_template &&  /* the template's under the execution's */
      (st = kf_pod_meta(A, j->pod_template, l, an, &sh->pod_meta, c->e)) != KF_OK)
    return st;
  return KF_OK;
}

/* Checks the options and builds what every target's resource shares:
** the root with apiVersion, kind and metadata, the pod metadata, opts.env
** and the task args (the launcher command for MPI kinds): each the call's,
** else the job's. */
kf_status kfm_prepare(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                      const char *api_version, const char *kind,
                      kfm_shared *sh) {
  kf_arena *A = c->A;
  kf_kv *env;
  kf_strs args = o->args;
  const char *ns = kfm_namespace(j, o);
  int i;
  kf_status st;
  memset(sh, 0, sizeof *sh);
  sh->o = o, sh->bare_role = -1;
  if ((st = kfm_check_opts(c, j, o)) != KF_OK ||
      (st = kfm_sorted(c, "opts.env", &o->env, &env)) != KF_OK ||
      (st = kfm_check_pod(c, j)) != KF_OK)
    return st;

  KF_OOM(c, sh->root = kf_node_new(A, KF_NOBJ));
  KF_OOM(c, kf_obj_str(A, sh->root, "apiVersion", api_version));
  KF_OOM(c, kf_obj_str(A, sh->root, "kind", kind));
  KF_OOM(c, sh->meta = kf_obj_add(A, sh->root, "metadata", KF_NOBJ));
  KF_OOM(c, kf_obj_str(A, sh->meta, "name", o->name));
  if (ns) KF_OOM(c, kf_obj_str(A, sh->meta, "namespace", ns));
  if ((st = prepare_meta(c, j, o, sh)) != KF_OK ||
      (st = kfm_job_rows(c, j, KF_M_METADATA, sh->meta)) != KF_OK)
    return st;
  if (o->env.n) {
    KF_OOM(c, sh->env = kf_node_new(A, KF_NARR));
    for (i = 0; i < (int)o->env.n; i++) {
      kf_node *v;
      KF_OOM(c, v = kf_obj_add(A, sh->env, NULL, KF_NOBJ));
      KF_OOM(c, kf_obj_str(A, v, "name", env[i].k) && kf_obj_str(A, v, "value", env[i].v));
    }
  }
  if (!args.n && j->has_container)   /* the job's, when the call gives none */
    args.v = j->container.args, args.n = j->container.nargs;
  /* MPI: the task's args are the launcher command around them, as
  ** flytekit sends them; groups without a command of their own keep them */
  if (kf_kinds[j->kind].flags & KF_K_COMMAND) {
    if ((st = kf_launcher_command(j, &args, c->A, &sh->args, c->who, c->e)) != KF_OK) return st;
    if (args.n) KF_OOM(c, sh->task_args = kfm_str_list(A, args.v, args.n));
  } else if (args.n) {
    KF_OOM(c, sh->args = kfm_str_list(A, args.v, args.n));
  }
  return KF_OK;
}

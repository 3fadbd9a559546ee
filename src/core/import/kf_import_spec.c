/*
** kf_import_spec.c - the spec of each target's resource read back: run
** policy and replica specs (kubeflow.org/v1, and v2beta1 for the
** mpi-operator; the inverse of kube/kf_manifest_{operator,mpi,common}.c),
** the launcher command's tail as the task's args (kf_import_mpi.c), and
** the TrainJob on
** torch-distributed (kube/kf_manifest_trainer.c).  Keys come from the
** schema's rows (`manifest`) where a row has one.
*/
#include <stdio.h>
#include <string.h>

#include "kf_pod.h"
#include "kf_import_int.h"
#include "kf_sched.h"

/* ---- run policy ------------------------------------------------------- */

kf_status kfi_run_policy(kfi *c, const char *path, const kf_node *rp) {
  const char *known[12];
  char p[KFI_PATH];
  kf_node *o;
  size_t i, n = 0;
  kf_status st;
  for (i = 0; i < kf_run_policy_obj.n; i++)   /* the rows placed in it */
    if (kf_run_policy_obj.f[i].place == KF_M_RUN_POLICY)
      known[n++] = kf_run_policy_obj.f[i].manifest;
  known[n++] = "schedulingPolicy", known[n++] = "suspend", known[n++] = "managedBy";
  known[n] = NULL;
  if ((st = kfi_want(c, path, rp, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, rp, known, NULL, NULL)) != KF_OK ||
      (st = kfi_sched_flags(c, path, rp)) != KF_OK)
    return st;
  kfi_path(p, path, "schedulingPolicy");
  if (kf_node_get(rp, "schedulingPolicy") &&
      (st = kfi_sched_policy(c, p, kf_node_get(rp, "schedulingPolicy"))) != KF_OK)
    return st;
  KF_OOM(c, o = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < kf_run_policy_obj.n; i++) {
    const kf_field *f = &kf_run_policy_obj.f[i];
    const kf_node *v = f->place == KF_M_RUN_POLICY ? kf_node_get(rp, f->manifest) : NULL;
    if (v) KF_OOM(c, kf_node_push(c->A, o, f->key, (kf_node *)v));
  }
  if (o->u.c.n) KF_OOM(c, kf_node_push(c->A, c->spec, "run_policy", o));
  return KF_OK;
}

/* ---- replica specs ---------------------------------------------------- */

/* The value of group row f from the replica spec at `path`, into group g:
** an elastic job's replicas are its nnodes'; the CRD also takes the
** restart policy ExitCode (training-operator common_types.go). */
static kf_status replica_value(kfi *c, const char *path, const kf_field *f,
                               const kf_node *v, kf_node *g) {
  char p[KFI_PATH];
  const char *rp = kfi_str(v);
  if (strcmp(f->manifest, "replicas") == 0 && (kf_kinds[c->kind].flags & KF_K_ELASTIC))
    return KF_OK;
  kfi_path(p, path, f->manifest);
  if (strcmp(f->manifest, "restartPolicy") == 0 && rp && strcmp(rp, "Never") &&
      strcmp(rp, "OnFailure") && strcmp(rp, "Always") &&
      (strcmp(rp, "ExitCode") || c->target != KF_T_OPERATOR))
    return kfi_unmapped(c, p, v, c->target == KF_T_OPERATOR
                        ? "restart policies are Never, OnFailure, Always and ExitCode"
                        : c->target == KF_T_MPI_OPERATOR   /* v0.8 validation.go */
                        ? "the mpi-operator accepts only Never and OnFailure (rule R13 on mpi-operator)"
                        : "restart policies are Never, OnFailure and Always here");
  KF_OOM(c, kf_node_push(c->A, g, f->key, (kf_node *)v));
  return KF_OK;
}

/* The restart policy the manifest's operator gives a replica spec without
** one, where it is not kfjob's default (never): the kind row's
** operator_restart. */
static const char *operator_restart(const kfi *c, int role) {
  const kf_operator_restart *r = &kf_kinds[c->kind].operator_restart;
  unsigned roles = c->target == KF_T_MPI_OPERATOR ? r->mpi
                   : c->target == KF_T_OPERATOR ? r->v1 : 0;
  return roles >> role & 1u ? kf_restart_policy_enum.spell[r->policy][0] : NULL;
}

/* A replica spec without replicas: the operator's default, 1
** (training-operator setDefaultReplicas; mpi-operator v2beta1 default.go
** for the Launcher); mpi-operator's Worker defaults to 0, which its
** validation refuses (validateWorkerReplicaSpec).  An elastic job's come
** from elastic_workers. */
static kf_status default_replicas(kfi *c, const char *path, int role, kf_node *g) {
  char p[KFI_PATH];
  if (kf_kinds[c->kind].flags & KF_K_ELASTIC) return KF_OK;
  kfi_path(p, path, "replicas");
  if (c->target == KF_T_MPI_OPERATOR && role == KF_WORKER)
    return kfi_fail(c, p, "missing: mpi-operator defaults it to 0, which its validation "
                    "refuses (a Worker needs replicas >= 1)");
  KF_OOM(c, kf_obj_int(c->A, g, "replicas", 1));
  return KF_OK;
}

/* Every container of a replica's pod template has an image: the
** training-operator's webhooks require one (validate*ReplicaSpecs:
** Required(...containers[i].image)), and Kubernetes' pod validation for
** the mpi-operator's pods.  `main` the primary's path (its index). */
static kf_status image_given(kfi *c, const kf_node *tmpl, const char *main) {
  const kf_node *cs = kf_node_get(kf_node_get(tmpl, "spec"), "containers"), *im;
  char p[KFI_PATH], q[KFI_PATH];
  const char *b = strrchr(main, '[');
  size_t i;
  if (cs == NULL || cs->t != KF_NARR || b == NULL) return KF_OK;
  for (i = 0; i < cs->u.c.n; i++) {
    if (cs->u.c.v[i]->t != KF_NOBJ) continue;
    im = kf_node_get(cs->u.c.v[i], "image");
    if (im && !(im->t == KF_NSTR && im->u.s.n == 0)) continue;
    snprintf(q, sizeof q, "%.*s[%u]", (int)(b - main), main, (unsigned)i);
    kfi_path(p, q, "image");
    return kfi_fail(c, p, "required: every container needs an image (the training-operator's "
                    "webhooks and Kubernetes' pod validation refuse one without)");
  }
  return KF_OK;
}

/* A replica spec: "template" and the group rows placed there (replicas,
** restartPolicy, ...: KF_M_REPLICA), each under its row's key. */
static kf_status replica(kfi *c, const char *path, const kf_node *rs, int role,
                         kfi_groups *G) {
  const char *known[KFI_GROUP_ROWS + 2];
  char p[KFI_PATH];
  const kf_node *v;
  kf_node *g;
  int at = G->n++, n = 0;
  size_t r;
  kf_status st;
  for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++)
    if (kf_group_obj.f[r].place == KF_M_REPLICA && kf_group_obj.f[r].manifest)
      known[n++] = kf_group_obj.f[r].manifest;
  known[n++] = "template", known[n] = NULL;
  if ((st = kfi_want(c, path, rs, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, rs, known, NULL, NULL)) != KF_OK)
    return st;
  KF_OOM(c, g = G->g[at] = kf_node_new(c->A, KF_NOBJ));
  G->role[at] = role;
  for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++) {
    const kf_field *f = &kf_group_obj.f[r];
    if (f->place != KF_M_REPLICA || !f->manifest || (v = kf_node_get(rs, f->manifest)) == NULL)
      continue;
    if ((st = replica_value(c, path, f, v, g)) != KF_OK) return st;
  }
  if (kf_node_get(rs, "replicas") == NULL && (st = default_replicas(c, path, role, g)) != KF_OK)
    return st;
  /* training-operator pytorchjob_webhook.go validatePyTorchReplicaSpecs:
  ** Forbidden([Master].replicas, "must be 1") */
  if (role == KF_MASTER && c->kind == KF_PYTORCH && (v = kf_node_get(rs, "replicas")) &&
      v->t == KF_NINT && v->u.i == 0) {
    kfi_path(p, path, "replicas");
    return kfi_fail(c, p, "must be 1: the training-operator's webhook refuses any other "
                    "Master (leave the Master out for a job of workers only)");
  }
  /* the same webhook: Forbidden([Worker].replicas, "must be at least 1")
  ** (nil passes); it also checks an elastic PyTorchJob's */
  if (role == KF_WORKER && (c->kind == KF_PYTORCH || c->kind == KF_ELASTIC) &&
      (v = kf_node_get(rs, "replicas")) && v->t == KF_NINT && v->u.i < 1) {
    kfi_path(p, path, "replicas");
    return kfi_fail(c, p, "must be at least 1: the training-operator's webhook refuses a "
                    "Worker with %lld (leave the Worker out for a job of the Master only)",
                    (long long)v->u.i);
  }
  /* none, or one lossy left out: the operator's default applies */
  if (kf_node_get(g, "restart_policy") == NULL && operator_restart(c, role))
    KF_OOM(c, kf_obj_strref(c->A, g, "restart_policy", operator_restart(c, role)));
  kfi_path(p, path, "template");
  if ((v = kf_node_get(rs, "template")) == NULL) return kfi_fail(c, p, "required");
  if ((st = kfi_pod_read(c, p, v, kf_kinds[c->kind].container, &G->pod[at])) != KF_OK)
    return st;
  snprintf(G->path[at], KFI_PATH, "%.200s.spec.containers[%u]", p, (unsigned)G->pod[at].index);
  return image_given(c, v, G->path[at]);
}

/* The value of group i's container at `off` (kfi_pod's command, args or
** env). */
static const kf_node *pod_value(const kfi_groups *G, int i, size_t off) {
  return *(const kf_node *const *)(const void *)((const char *)&G->pod[i] + off);
}

/* Whether every group's container has the same value at `off` (NULL in
** each, or equal); *out the first; *at the first group that differs. */
static int agreed(const kfi_groups *G, size_t off, const kf_node **out, int *at) {
  int i;
  *out = NULL, *at = -1;
  for (i = 0; i < G->n; i++) {
    const kf_node *v = pod_value(G, i, off);
    if (i == 0) { *out = v; continue; }
    if ((v == NULL) != (*out == NULL) || (v && !kfi_equal(*out, v))) return *at = i, 0;
  }
  return 1;
}

/* Flyte's manifests carry one task container (flyteplugins' replica
** specs share the task's): a group that differs cannot be held. */
static kf_status one_container(kfi *c, const kfi_groups *G, int i, size_t off, const char *what,
                               const kf_node *first) {
  const kf_node *v = pod_value(G, i, off);
  char p[KFI_PATH];
  kfi_path(p, G->path[i], what);
  return kfi_unmapped(c, p, v, v && first ?
                      "the task's container differs from the first group's: "
                      "a Flyte task gives every group the same one" : v ?
                      "the first group's container has none: a Flyte task gives "
                      "every group the same one" :
                      "absent, while the first group's container has one: a Flyte "
                      "task gives every group the same one");
}

/* v as the job holds it under `key` (env: kfi_env_form), into `into`;
** the task's (info.container) gets it too when `info` (env: as a table). */
static kf_status put_value(kfi *c, const char *key, const kf_node *v, kf_node *into, int info) {
  int map = 1;
  kf_node *x = (kf_node *)v;
  if (strcmp(key, "env") == 0) KF_OOM(c, x = kfi_env_form(c, v, &map));
  KF_OOM(c, kf_node_push(c->A, into, key, x));
  if (info && map) KF_OOM(c, kf_node_push(c->A, c->ct, key, x));
  return KF_OK;
}

/* Each group's value at `off` in its own container (gct[i], made on
** first use). */
static kf_status each_own(kfi *c, const kfi_groups *G, size_t off, const char *key,
                          kf_node **gct) {
  int i;
  kf_status st;
  for (i = 0; i < G->n; i++) {
    const kf_node *x = pod_value(G, i, off);
    if (x == NULL) continue;
    if (gct[i] == NULL) KF_OOM(c, gct[i] = kf_node_new(c->A, KF_NOBJ));
    if ((st = put_value(c, key, x, gct[i], 0)) != KF_OK) return st;
  }
  return KF_OK;
}

/* One field of the groups' containers (`off`, manifest key `key`): the
** job's container's when every group agrees (and info's), else each
** group's own container's, as the writers take a group's over the job's. */
static kf_status place(kfi *c, const kfi_groups *G, size_t off, const char *key, kf_node *ct,
                       kf_node **gct) {
  const kf_node *v;
  int at;
  kf_status st;
  if (!agreed(G, off, &v, &at)) {
    if (c->target != KF_T_FLYTE && c->target != KF_T_FLYTE2) return each_own(c, G, off, key, gct);
    if ((st = one_container(c, G, at, off, key, v)) != KF_OK) return st;
  }
  return v ? put_value(c, key, v, ct, 1) : KF_OK;
}

/* The groups' commands.  An MPI or Horovod job's command is its
** launcher's on operator and mpi-operator (a worker runs only its own:
** the v1 operator runs `sleep 365d` in a worker without one, the
** mpi-operator sshd in one without command and args), so each group's
** stays its own there and no target gives the launcher's to the workers;
** Flyte gives every replica the task's (flyteplugins mpi.go). */
static kf_status commands(kfi *c, const kfi_groups *G, kf_node *ct, kf_node **gct) {
  const size_t off = offsetof(kfi_pod, command);
  if ((kf_kinds[c->kind].flags & KF_K_COMMAND) && c->target != KF_T_FLYTE &&
      c->target != KF_T_FLYTE2)
    return each_own(c, G, off, "command", gct);
  return place(c, G, off, "command", ct, gct);
}

/* MPI kinds: the launcher line's tail is the task's args (the job's
** container's and info's); kfi_mpi_args gives the groups their own. */
static kf_status launcher_args(kfi *c, kfi_groups *G, kf_node *ct) {
  const kf_node *task;
  kf_status st = kfi_mpi_args(c, G, &task);
  return st != KF_OK || task == NULL ? st : put_value(c, "args", task, ct, 1);
}

/* Each group keeps its image and the other group rows placed in its
** container (Law 1 emits with no image option); command, args and env go
** to the job's container, or each group's where they differ (place), and
** info.container has what every group shares. */
static kf_status container(kfi *c, kfi_groups *G) {
  kf_node *ct, *gct[KF_NROLES];
  int i;
  size_t r;
  kf_status st;
  memset(gct, 0, sizeof gct);
  KF_OOM(c, ct = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < G->n; i++)
    for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++)
      if (G->pod[i].own[r])
        KF_OOM(c, kf_node_push(c->A, G->g[i], kf_group_obj.f[r].key, (kf_node *)G->pod[i].own[r]));
  if ((st = commands(c, G, ct, gct)) != KF_OK ||
      (st = (kf_kinds[c->kind].flags & KF_K_COMMAND) ? launcher_args(c, G, ct)
            : place(c, G, offsetof(kfi_pod, args), "args", ct, gct)) != KF_OK ||
      (st = place(c, G, offsetof(kfi_pod, env), "env", ct, gct)) != KF_OK ||
      (st = place(c, G, offsetof(kfi_pod, name), "name", ct, gct)) != KF_OK)
    return st;
  for (i = 0; i < G->n; i++)
    if (gct[i]) KF_OOM(c, kf_node_push(c->A, G->g[i], "container", gct[i]));
  if (ct->u.c.n) KF_OOM(c, kf_node_push(c->A, c->spec, "container", ct));
  return KF_OK;
}

/* A containers list of one name-only primary: what every template shows
** with nothing of its own. */
static int bare_primary(const kf_node *cs) {
  return cs && cs->t == KF_NARR && cs->u.c.n == 1 && cs->u.c.v[0]->t == KF_NOBJ &&
         cs->u.c.v[0]->u.c.n == 1;
}

/* Whether every group's template has key k of its spec (or, spec NULL,
** the template's own key k) equal to the first group's. */
static int shared_key(const kfi_groups *G, const char *part, const char *k) {
  const kf_node *v0 = kf_node_get(part ? kf_node_get(G->pod[0].tmpl, part) : G->pod[0].tmpl, k);
  int i;
  for (i = 1; v0 && i < G->n; i++) {
    const kf_node *t = G->pod[i].tmpl, *v = kf_node_get(part ? kf_node_get(t, part) : t, k);
    if (v == NULL || !kfi_equal(v0, v)) return 0;
  }
  return v0 != NULL;
}

/* The pod spec keys whose names refer to each other (a container's
** volumeMounts name the pod's volumes): a template's own check finds each
** mount's volume in it, so they are the job's together or not at all. */
static const char *const together[] = {"volumes", "containers", "initContainers", NULL};

/* Whether every group's spec has key k equal, or none has it. */
static int same_or_none(const kfi_groups *G, const char *k) {
  int i;
  if (shared_key(G, "spec", k)) return 1;
  for (i = 0; i < G->n; i++)
    if (kf_node_get(kf_node_get(G->pod[i].tmpl, "spec"), k) != NULL) return 0;
  return 1;
}

/* Whether spec key k may be the job's (see `together`). */
static int hoistable(const kfi_groups *G, const char *k) {
  size_t i;
  for (i = 0; together[i]; i++)
    if (strcmp(k, together[i]) == 0) break;
  if (together[i] == NULL) return shared_key(G, "spec", k);
  for (i = 0; together[i]; i++)
    if (!same_or_none(G, together[i])) return 0;
  return shared_key(G, "spec", k);
}

/* What every group's template shares (the metadata, keys of the spec) is
** the job's template, each group keeps the rest: the writer merges a
** group's over the job's, so both give the same pods.  *out NULL:
** nothing shared (or a group without a template). */
static kf_status hoisted(kfi *c, const kfi_groups *G, kf_node **out) {
  const kf_node *s0;
  kf_node *job, *spec;
  size_t k;
  int i;
  *out = NULL;
  for (i = 0; i < G->n; i++)
    if (G->pod[i].tmpl == NULL) return KF_OK;
  if (G->n < 2 || (s0 = kf_node_get(G->pod[0].tmpl, "spec")) == NULL) return KF_OK;
  KF_OOM(c, job = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, spec = kf_node_new(c->A, KF_NOBJ));
  if (shared_key(G, NULL, "metadata"))
    KF_OOM(c, kf_node_push(c->A, job, "metadata", kf_node_get(G->pod[0].tmpl, "metadata")));
  for (k = 0; k < s0->u.c.n; k++)
    if (hoistable(G, s0->u.c.k[k]))
      KF_OOM(c, kf_node_push(c->A, spec, s0->u.c.k[k], s0->u.c.v[k]));
  KF_OOM(c, kf_node_push(c->A, job, "spec", spec));
  if (kf_node_get(job, "metadata") || spec->u.c.n > 1 ||
      (spec->u.c.n == 1 && !bare_primary(kf_node_get(spec, "containers"))))
    *out = job;
  return KF_OK;
}

/* A group's template without the keys the job's holds (NULL: none left). */
static kf_node *unshared(kfi *c, const kf_node *t, const kf_node *job) {
  const kf_node *js = kf_node_get(job, "spec"), *s = kf_node_get(t, "spec");
  kf_node *d = kf_node_new(c->A, KF_NOBJ), *ds = kf_node_new(c->A, KF_NOBJ);
  size_t k;
  if (d == NULL || ds == NULL) return NULL;
  if (kf_node_get(t, "metadata") && !kf_node_get(job, "metadata") &&
      !kf_node_push(c->A, d, "metadata", kf_node_get(t, "metadata")))
    return NULL;
  for (k = 0; s && k < s->u.c.n; k++)
    if (!kf_node_get(js, s->u.c.k[k]) && !kf_node_push(c->A, ds, s->u.c.k[k], s->u.c.v[k]))
      return NULL;
  if (ds->u.c.n && !kf_node_push(c->A, d, "spec", ds)) return NULL;
  return d;
}

/* Pod settings: the template every group shares is the job's, else the
** keys they share and each group the rest (a serviceAccountName too:
** SPEC §14 carries no service account back); shared memory and
** accelerator from the groups that show them. */
static kf_status pod_settings(kfi *c, kfi_groups *G) {
  kf_node *job = NULL;
  int i, same = 1;
  kf_status st;
  for (i = 0; i < G->n; i++) {
    kfi_pod *p = &G->pod[i];
    if (i && !((p->tmpl == NULL && G->pod[0].tmpl == NULL) ||
               (p->tmpl && G->pod[0].tmpl && kfi_equal(p->tmpl, G->pod[0].tmpl))))
      same = 0;
    if (p->requests) KF_OOM(c, kf_node_push(c->A, G->g[i], "requests", p->requests));
    if (p->limits) KF_OOM(c, kf_node_push(c->A, G->g[i], "limits", p->limits));
    if (p->shm && !kf_node_get(c->spec, "shared_memory"))
      KF_OOM(c, kf_node_push(c->A, c->spec, "shared_memory", (kf_node *)p->shm));
    if (p->accel && !kf_node_get(c->spec, "accelerator"))
      KF_OOM(c, kf_node_push(c->A, c->spec, "accelerator", p->accel));
  }
  if (!same && (st = hoisted(c, G, &job)) != KF_OK) return st;
  if (!same && job) {
    KF_OOM(c, kf_node_push(c->A, c->spec, "pod_template", job));
    for (i = 0; i < G->n; i++) {
      kf_node *rest;
      KF_OOM(c, rest = unshared(c, G->pod[i].tmpl, job));
      if (rest->u.c.n) KF_OOM(c, kf_node_push(c->A, G->g[i], "pod_template", rest));
    }
    return KF_OK;
  }
  for (i = 0; i < G->n; i++) {
    if (G->pod[i].tmpl == NULL) continue;
    if (same) {
      KF_OOM(c, kf_node_push(c->A, c->spec, "pod_template", G->pod[i].tmpl));
      break;
    }
    KF_OOM(c, kf_node_push(c->A, G->g[i], "pod_template", G->pod[i].tmpl));
  }
  return KF_OK;
}

/* A group the manifest leaves out has no replicas (the writer leaves out
** the groups with none); a kind whose group is always there cannot hold
** that. */
static kf_status absent(kfi *c, const char *path, int role) {
  kf_replica_bounds b = kf_kind_role_bounds(&kf_kinds[c->kind], role);
  kf_node *g;
  if (b.default_replicas == 0 || (kf_kinds[c->kind].flags & KF_K_ELASTIC)) return KF_OK;
  if ((b.flags & KF_R_FIXED1) && c->kind == KF_XGBOOST)   /* xgboostjob_webhook.go */
    return kfi_fail(c, path, "required: the training-operator's webhook refuses an "
                    "XGBoostJob without a Master (add one with replicas: 1)");
  if (b.flags & KF_R_FIXED1)
    return kfi_unmapped(c, path, NULL, "required: kfjob's job of this kind always "
                        "has exactly one");
  KF_OOM(c, g = kf_obj_add(c->A, c->spec, kf_roles[role].key, KF_NOBJ));
  KF_OOM(c, kf_obj_int(c->A, g, "replicas", 0));
  return KF_OK;
}

#define SAFE_TO_EVICT "cluster-autoscaler.kubernetes.io/safe-to-evict"

/* The first replica whose template lacks a label or annotation of the
** resource (*key: "labels" or "annotations"), or NULL when every one
** repeats them, as Flyte's backend puts them on every pod (flyteplugins
** pod_helper.go); Kueue's labels kfjob writes on the resource alone, and
** the templates' safe-to-evict annotation the reader took out already. */
static const char *uncopied(const kfi *c, const kf_node *specs, const char **key) {
  static const char *const keys[2] = {"labels", "annotations"};
  static const char *const kueue[] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC, NULL};
  const kf_node *res[2];
  size_t i, r;
  int k;
  res[0] = c->labels, res[1] = c->annotations;
  for (r = 0; specs && specs->t == KF_NOBJ && r < specs->u.c.n; r++) {
    const kf_node *m = kf_node_get(kf_node_get(specs->u.c.v[r], "template"), "metadata");
    for (k = 0; k < 2; k++)
      for (i = 0; res[k] && res[k]->t == KF_NOBJ && i < res[k]->u.c.n; i++) {
        const char *mine = kfi_str(res[k]->u.c.v[i]);
        const char *s = kfi_str(kf_node_get(kf_node_get(m, keys[k]), res[k]->u.c.k[i]));
        if (s == NULL && k == 0 && kf_str_listed(kueue, res[k]->u.c.k[i])) continue;
        if (k == 1 && strcmp(res[k]->u.c.k[i], SAFE_TO_EVICT) == 0) continue;
        if (mine == NULL || s == NULL || strcmp(mine, s) != 0) {
          *key = keys[k];
          return specs->u.c.k[r];
        }
      }
  }
  return NULL;
}

/* On Flyte's targets the templates' copies of the resource's labels and
** annotations are the backend's (taken out of the templates); a template
** without them is not what the backend submits.  Elsewhere the resource's
** are the job's and the templates' stay theirs. */
static kf_status pod_copies(kfi *c, const char *sp, const kf_node *specs) {
  const char *key = NULL, *role;
  char p[KFI_PATH], q[KFI_PATH];
  if (c->target != KF_T_FLYTE && c->target != KF_T_FLYTE2) return KF_OK;
  if ((role = uncopied(c, specs, &key)) == NULL) {
    c->pod_copies = 1;
    return KF_OK;
  }
  kfi_path(p, sp, role);
  kfi_path(q, p, "template");
  kfi_path(p, q, "metadata");
  kfi_path(q, p, key);
  return kfi_unmapped(c, q, kf_node_get(kf_node_get(kf_node_get(kf_node_get(
                              specs, role), "template"), "metadata"), key),
                      "lacks some of the resource's: Flyte's backend puts the resource's "
                      "labels and annotations on every pod (flyteplugins pod_helper.go)");
}

/* An elastic PyTorchJob with a Master: the training-operator's webhook
** takes it (only a Worker is required with an elasticPolicy), but kfjob's
** Elastic job is its workers alone, which rendezvous among themselves
** (elastic.go: PET_RDZV_ENDPOINT <job>-worker-0, PET_NNODES min:max).
** Leaving the Master out would run one pod fewer, so even --lossy refuses. */
static kf_status elastic_master(kfi *c, const char *sp, const kf_node *specs) {
  char p[KFI_PATH];
  if (c->kind != KF_ELASTIC || kf_node_get(specs, "Master") == NULL) return KF_OK;
  kfi_path(p, sp, "Master");
  return kfi_fail(c, p, "kfjob's Elastic job cannot hold a Master: its nodes are the Worker "
                  "replicas, which rendezvous among themselves; make the Master one more "
                  "Worker (Worker replicas, minReplicas and maxReplicas + 1), or drop "
                  "spec.elasticPolicy to read it as a PyTorchJob");
}

/* A TFJob's Master: the training-operator still runs one (tfjob_types.go
** TFJobReplicaTypeMaster, "similar to chief, kept for backwards
** compatibility"), under TF_CONFIG task type "master" (tensorflow.go
** genClusterSpec lowercases the replica type); read as kfjob's Chief it
** would run as "chief".  Listed with that reason (lossy: left out whole). */
static kf_status tf_master(kfi *c, const char *sp, const kf_node *specs) {
  const kf_node *m = kf_node_get(specs, "Master");
  char p[KFI_PATH];
  if (c->kind != KF_TFJOB || m == NULL) return KF_OK;
  kfi_path(p, sp, "Master");
  return kfi_unmapped(c, p, m, "a TFJob's Master is not a group kfjob's TFJob holds: the "
                      "training-operator runs it as the chief under TF_CONFIG task type "
                      "'master'; rename it Chief if the program takes a 'chief' task");
}

/* With lossy every replica spec may have been left out: a job of no
** group runs nothing, so that stays an error, said at the first one left
** out with its reason. */
static kf_status none_left(kfi *c, const char *sp, const kf_node *specs, const kfi_groups *G) {
  const kf_node *row;
  if (G->n > 0 || specs->u.c.n == 0) return KF_OK;
  if ((row = kfi_unmapped_under(c, sp)) != NULL)
    return kfi_fail(c, kfi_str(kf_node_get(row, "path")), "%s (not left out under --lossy: no "
                    "other replica spec, the job would run no pod)",
                    kfi_str(kf_node_get(row, "reason")));
  return kfi_fail(c, sp, "no replica spec is one kfjob's %s holds: the job would run no pod",
                  kf_kinds[c->kind].name);
}

kf_status kfi_replicas(kfi *c, const char *path, const kf_node *spec) {
  const kf_kind_info *k = &kf_kinds[c->kind];
  const kf_node *specs = kf_node_get(spec, k->crd_specs);
  const char *known[6];
  char sp[KFI_PATH], p[KFI_PATH];
  kfi_groups G;
  int i;
  kf_status st;
  memset(&G, 0, sizeof G);
  kfi_path(sp, path, k->crd_specs);
  for (i = 0; i < k->nroles; i++) known[i] = kf_roles[k->roles[i].role].name;
  known[i] = c->kind == KF_TFJOB ? "Master" : NULL;   /* tf_master's */
  known[i + 1] = NULL;
  if ((st = kfi_want(c, sp, specs, KF_NOBJ)) != KF_OK || (st = elastic_master(c, sp, specs)) != KF_OK ||
      (st = tf_master(c, sp, specs)) != KF_OK || (st = kfi_keys(c, sp, specs, known, NULL, NULL)) != KF_OK)
    return st;
  if ((st = pod_copies(c, sp, specs)) != KF_OK) return st;
  kfi_pod_shapes(c, specs, kf_kinds[c->kind].container);
  for (i = 0; i < k->nroles; i++) {
    const kf_node *rs = kf_node_get(specs, known[i]);
    kfi_path(p, sp, known[i]);
    if (rs && (st = replica(c, p, rs, k->roles[i].role, &G)) != KF_OK) return st;
    if (!rs && (st = absent(c, p, k->roles[i].role)) != KF_OK) return st;
  }
  if ((st = none_left(c, sp, specs, &G)) != KF_OK || (st = container(c, &G)) != KF_OK ||
      (st = pod_settings(c, &G)) != KF_OK)
    return st;
  for (i = 0; i < G.n; i++)
    KF_OOM(c, kf_node_push(c->A, c->spec, kf_roles[G.role[i]].key, G.g[i]));
  return KF_OK;
}

/* ---- Elastic ---------------------------------------------------------- */

/* The Worker count of an elastic PyTorchJob: without min and max the
** operator takes both from it (pytorch_defaults.go setElasticPolicy), so
** it is nnodes; else kfjob's writer starts the upper bound's workers. */
static kf_status elastic_workers(kfi *c, const kf_node *spec, const kf_node *bound) {
  static const char path[] = "spec.pytorchReplicaSpecs.Worker.replicas";
  const kf_node *w = kf_node_get(kf_node_get(kf_node_get(spec, kf_kinds[KF_ELASTIC].crd_specs),
                                             "Worker"), "replicas");
  kf_status st;
  if (w && (st = kfi_want(c, path, w, KF_NINT)) != KF_OK) return st;
  if (w == NULL)   /* the operator's default (pytorch_defaults.go setDefaultReplicas) */
    KF_OOM(c, w = kf_node_int(c->A, 1));
  if (bound == NULL) {
    KF_OOM(c, kf_node_put(c->A, c->spec, "nnodes", (kf_node *)w));
    return KF_OK;
  }
  if (bound->t == KF_NINT && bound->u.i != w->u.i)
    return kfi_unmapped(c, path, w, "differs from elasticPolicy's maxReplicas (or "
                        "minReplicas): kfjob's Elastic job starts its nnodes' upper bound "
                        "of workers");
  return KF_OK;
}

/* Whether Elastic row `f` is read from elasticPolicy: the rows placed
** there (KF_M_ELASTIC) and the deprecated nProcPerNode (its own routine's
** on writing: Flyte's). */
static int in_elastic_policy(const kf_field *f) {
  return f->manifest && (f->place == KF_M_ELASTIC || f->type == KF_V_NPROC);
}

/* Whether v is the default of KF_F_GIVEN row f in a manifest of Flyte's
** shape: its backend writes the plugin message's value, the default too
** (rdzvBackend c10d, maxRestarts 0), so it says nothing of the config. */
static int flyte_default(const kfi *c, const kf_field *f, const kf_node *v) {
  if (!(f->flags & KF_F_GIVEN) || f->pb == NULL ||
      (c->target != KF_T_FLYTE && c->target != KF_T_FLYTE2))
    return 0;
  if (f->type == KF_V_INT) return v->t == KF_NINT && v->u.i == f->idef;
  return f->sdef && v->t == KF_NSTR && strcmp(v->u.s.p, f->sdef) == 0;
}

/* elasticPolicy by the keys of its rows (in_elastic_policy); min and max
** replicas are nnodes (an integer when they agree), spec.nprocPerNode a
** word. */
kf_status kfi_elastic(kfi *c, const kf_node *spec) {
  const kf_kind_info *k = &kf_kinds[KF_ELASTIC];
  const kf_node *ep = kf_node_get(spec, "elasticPolicy"), *v, *mn, *mx;
  const char *known[48];   /* 2 + the kind's fields (Elastic has under 40) + NULL */
  size_t i, n = 0;
  kf_status st;
  known[n++] = "minReplicas", known[n++] = "maxReplicas";
  for (i = 0; i < k->nfields && n + 1 < sizeof known / sizeof *known; i++)
    if (in_elastic_policy(&k->fields[i])) known[n++] = k->fields[i].manifest;
  known[n] = NULL;
  static const char *const held_not[] = {NULL};
  if (ep == NULL)   /* asked for by opts.kind: the manifest is a plain PyTorchJob */
    return kfi_fail(c, "spec.elasticPolicy", "missing: an Elastic job is a PyTorchJob with an "
                    "elasticPolicy (read this one as PyTorchJob)");
  if ((st = kfi_want(c, "spec.elasticPolicy", ep, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, "spec.elasticPolicy", ep, known, held_not, NULL)) != KF_OK)
    return st;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (in_elastic_policy(f) && (v = kf_node_get(ep, f->manifest)) &&
        !flyte_default(c, f, v))
      KF_OOM(c, kf_node_push(c->A, c->spec, f->key, (kf_node *)v));
  }
  if ((v = kf_node_get(spec, "nprocPerNode")) != NULL && kf_node_get(ep, "nProcPerNode"))
    /* training-operator pytorchjob_webhook.go validateSpec */
    return kfi_fail(c, "spec.elasticPolicy.nProcPerNode", "must not be used with "
                    "spec.nprocPerNode: the training-operator's webhook refuses both "
                    "(keep spec.nprocPerNode)");
  if (v != NULL) {
    if ((st = kfi_nproc(c, "spec.nprocPerNode", v)) != KF_OK) return st;
  } else if (kf_node_get(ep, "nProcPerNode") == NULL)   /* pytorch_defaults.go */
    KF_OOM(c, kf_obj_strref(c->A, c->spec, "nproc_per_node", "auto"));
  mn = kf_node_get(ep, "minReplicas"), mx = kf_node_get(ep, "maxReplicas");
  if ((mn && (st = kfi_want(c, "spec.elasticPolicy.minReplicas", mn, KF_NINT)) != KF_OK) ||
      (mx && (st = kfi_want(c, "spec.elasticPolicy.maxReplicas", mx, KF_NINT)) != KF_OK))
    return st;
  if (mn && mx && mn->t == KF_NINT && mx->t == KF_NINT && mn->u.i != mx->u.i) {
    char s[48];
    snprintf(s, sizeof s, "%lld:%lld", (long long)mn->u.i, (long long)mx->u.i);
    KF_OOM(c, kf_obj_str(c->A, c->spec, "nnodes", s));
  } else if (mn || mx) {
    KF_OOM(c, kf_node_push(c->A, c->spec, "nnodes", (kf_node *)(mx ? mx : mn)));
  }
  return elastic_workers(c, spec, mx ? mx : mn);
}

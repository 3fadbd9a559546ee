/*
** kf_target.c - the target table (SPEC §11) and target names.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kf_target.h"
#include "flyteidl/core/tasks.pb-c.h"   /* the task container's message */

#define FLYTE_EMITS (KF_E_ENCODE | KF_E_TEMPLATE | KF_E_TASKSPEC | KF_E_MANIFEST | KF_E_ENVIRONMENT)
#define KUBE_EMITS (KF_E_MANIFEST | KF_E_ENVIRONMENT)
/* the kinds with a runtime Trainer ships (kf_kinds' trainer_runtime) */
#define TRAINER_KINDS (KF_KIND_BIT(KF_PYTORCH) | KF_KIND_BIT(KF_ELASTIC) | KF_KIND_BIT(KF_JAX) | \
                       KF_KIND_BIT(KF_XGBOOST))

const kf_target_info kf_targets[KF_NTARGETS] = {
  [KF_T_FLYTE] = {"flyte", "Flyte 1.x backend + training-operator",
                  KF_FLYTE_KINDS, FLYTE_EMITS},
  [KF_T_FLYTE2] = {"flyte2", "Flyte 2 backend (flyteidl2) + training-operator",
                   KF_FLYTE_KINDS, FLYTE_EMITS},
  /* every kind the training-operator v1.9 serves */
  [KF_T_OPERATOR] = {"operator", "training-operator v1.9 (kubeflow.org/v1)",
                     (1u << KF_NKINDS) - 1, KUBE_EMITS},
  [KF_T_MPI_OPERATOR] = {"mpi-operator", "mpi-operator v0.8 (MPIJob kubeflow.org/v2beta1)",
                         KF_KIND_BIT(KF_MPI) | KF_KIND_BIT(KF_HOROVOD), KUBE_EMITS},
  [KF_T_TRAINER_22] = {"trainer-2.2", "Kubeflow Trainer v2.2 (TrainJob trainer.kubeflow.org/v1alpha1)",
                       TRAINER_KINDS, KUBE_EMITS},
  [KF_T_TRAINER_23] = {"trainer-2.3", "Kubeflow Trainer v2.3 (TrainJob trainer.kubeflow.org/v1alpha1)",
                       TRAINER_KINDS, KUBE_EMITS},
  [KF_T_CLUSTERED] = {"flyte2-clustered", "Flyte 2 clustered tasks (clustered-task, a JobSet jobset.x-k8s.io/v1alpha2)",
                      KF_KIND_BIT(KF_PYTORCH) | KF_KIND_BIT(KF_ELASTIC), KF_E_ENCODE | KF_E_TEMPLATE | KF_E_TASKSPEC |
                      KF_E_MANIFEST | KF_E_ENVIRONMENT},
  [KF_T_TRAINER_24] = {"trainer-2.4", "Kubeflow Trainer v2.4 (TrainJob trainer.kubeflow.org/v1alpha1)",
                       TRAINER_KINDS, KUBE_EMITS},
};

const char *const kf_target_names[KF_NTARGETS + 1] = {
  "flyte", "flyte2", "operator", "mpi-operator", "trainer-2.2", "trainer-2.3",
  "trainer-2.4", "flyte2-clustered", NULL};

kf_status kf_target_parse(const char *s, kf_target *out, const char *who,
                          const char *path, kf_err *e) {
  const char *near;
  int t;
  for (t = 0; t < KF_NTARGETS; t++)
    if (strcmp(s, kf_targets[t].name) == 0) {
      *out = (kf_target)t;
      return KF_OK;
    }
  near = kf_suggest(s, kf_target_names);
  if (near != NULL)
    return kf_fail(e, KF_EINVAL, "%s: %s: unknown target '%s' (did you mean '%s'?)",
                   who, path, s, near);
  return kf_fail(e, KF_EINVAL,
                 "%s: %s: unknown target '%s' (expected flyte, flyte2, operator, "
                 "mpi-operator, trainer-2.2, trainer-2.3, trainer-2.4 or flyte2-clustered)", who, path, s);
}

kf_status kf_target_allows(kf_target t, unsigned emit, int kind,
                           const char *method, const char *who, kf_err *e) {
  const kf_target_info *ti = &kf_targets[t];
  if (!(ti->emits & emit))
    return kf_fail(e, KF_EINVAL, "%s: target '%s' has no %s (it runs %s)", who,
                   ti->name, method, ti->runs);
  if (!(ti->kinds & (1u << kind)))
    return kf_fail(e, KF_EINVAL, "%s: target '%s' does not run a %s (it runs %s)",
                   who, ti->name, kf_kinds[kind].name, ti->runs);
  return KF_OK;
}

/* ---- rules by target -------------------------------------------------- */

kf_status kf_problem_add(kf_problems *out, const kf_target_rule *r,
                         kf_target t, const char *path, kf_err *e,
                         const char *fmt, ...) {
  char msg[KF_ERRMAX];
  va_list ap;
  kf_problem *p;
  if (r->sev[t] != KF_SEV_WARN && r->sev[t] != KF_SEV_ERROR) return KF_OK;
  if (out->n == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : 8;
    kf_problem *v = kf_arena_alloc_raw(out->A, cap * sizeof *v);
    if (v == NULL) return kf_nomem(e);
    if (out->n) memcpy(v, out->v, out->n * sizeof *v);
    out->v = v, out->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p = &out->v[out->n];
  p->path = kf_arena_strndup(out->A, path, strlen(path));
  p->message = kf_arena_strndup(out->A, msg, strlen(msg));
  if (p->path == NULL || p->message == NULL) return kf_nomem(e);
  p->rule = r->id;
  p->source = r->source[t] ? r->source[t] : "";
  p->sev = (kf_sev)r->sev[t];
  p->in_lint = r->in_lint;
  p->ref = NULL;
  out->n++;
  return KF_OK;
}

kf_status kf_problems_push(const kf_problems *ps, kf_sev sev, kf_arena *A,
                           kf_node *list, kf_err *e) {
  size_t i;
  for (i = 0; i < ps->n; i++) {
    const kf_problem *p = &ps->v[i];
    kf_node *o;
    if (p->sev != sev) continue;
    if ((o = kf_obj_add(A, list, NULL, KF_NOBJ)) == NULL ||
        !kf_obj_strref(A, o, "path", p->path) ||
        !kf_obj_strref(A, o, "message", p->message) ||
        !kf_obj_strref(A, o, "rule", p->rule) ||
        !kf_obj_strref(A, o, "source", p->source))
      return kf_nomem(e);
  }
  return KF_OK;
}

/* The places' rows, from KF_PLACES (kf_schema.h). */
const kf_place_info kf_places[KF_NPLACES] = {
#define KF_PLACE_ROW(id, name, group, v1, mpi, trainer, jobset, flyte, msg, \
                     rule, reader)                                         \
  {name, group, v1, mpi, trainer, jobset, flyte, msg, rule, reader},
    KF_PLACES(KF_PLACE_ROW)
#undef KF_PLACE_ROW
};

/* A place's path on target `t` (text, for explain): a group place's under
** the group's replica spec on the kubeflow.org/v1 and MPIJob targets, in
** the resource on the others, a job place's in the resource; NULL: the
** target has none (kf_places[p].rule says why). */
enum { COL_V1, COL_MPI, COL_TRAINER, COL_JOBSET };
/* The places table's column target t reads: its resource's family. */
static int place_column(kf_target t) {
  if (t == KF_T_MPI_OPERATOR) return COL_MPI;
  if (KF_T_IS_TRAINER(t)) return COL_TRAINER;
  if (t == KF_T_CLUSTERED) return COL_JOBSET;
  return COL_V1;
}

const char *kf_place_path(int p, kf_target t) {
  const kf_place_info *pl = &kf_places[p];
  const char *const by_column[] = {[COL_V1] = pl->v1, [COL_MPI] = pl->mpi,
                                   [COL_TRAINER] = pl->trainer, [COL_JOBSET] = pl->jobset};
  if (pl->name == NULL) return NULL;
  if (pl->flyte && (t == KF_T_FLYTE || t == KF_T_FLYTE2)) return pl->flyte;
  return by_column[place_column(t)];
}

const char *kf_target_resource(kf_target t) {
  static const char *const names[] = {[COL_V1] = "kubeflow.org/v1", [COL_MPI] = "MPIJob",
                                      [COL_TRAINER] = "TrainJob", [COL_JOBSET] = "JobSet"};
  return names[place_column(t)];
}

int kf_target_bare_role(kf_target t) {
  return t == KF_T_MPI_OPERATOR ? KF_WORKER : -1;
}

int kf_clustered_backend_var(const char *name) {
  static const char *const names[] = {"NNODES", "NPROC_PER_NODE", "MASTER_PORT",
                                      "RDZV_BACKEND", "POD_NAMESPACE", NULL};
  int i;
  if (strncmp(name, "JOBSET_", 7) == 0) return 1;
  for (i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

/* The targets in the row's not_on (with its reason), and on Flyte's two
** targets every group row placed without a proto field, since Flyte's backend
** builds each replica spec from the plugin message (flyteidl
** plugins/common.proto CommonReplicaSpec). */
const char *kf_field_not_on(const kf_field *f, kf_target t) {
  const int flyte = t == KF_T_FLYTE || t == KF_T_FLYTE2;
  if (f->not_on & KF_T_BIT(t)) return f->not_on_why;
  if (kf_places[f->place].group && f->pb == NULL && flyte)
    return "Flyte's backend builds each replica spec from the plugin message "
           "(flyteidl CommonReplicaSpec), which has no field for it";
  if (!(f->flags & KF_F_PLACED)) return NULL;
  /* a row that goes only where its place is (KF_F_PLACED) */
  if (kf_place_path(f->place, t) == NULL) return kf_places[f->place].rule;
  /* a place of a fixed message (the TaskTemplate's container): its fields */
  if (kf_places[f->place].msg)
    return flyte && protobuf_c_message_descriptor_get_field_by_name(
                        kf_places[f->place].msg, f->key) == NULL
               ? kf_places[f->place].rule : NULL;
  if (f->pb == NULL && flyte)
    return "Flyte's backend builds the resource from the plugin message "
           "(flyteidl plugins), which has no field for it";
  return NULL;
}

/* The restart policies each target's replica specs carry (R13): exit_code
** (the training-operator's ExitCode) is the operator's alone (the
** plugin's RestartPolicy has Never, OnFailure, Always); the mpi-operator
** takes Never and OnFailure (validation.go validateReplicaSpec); a
** TrainJob has no restart policy (trainjob_types.go), so only never. */
#define RP(v) (1u << (v))
#define RP_PLUGIN (RP(KF_RP_NEVER) | RP(KF_RP_ON_FAILURE) | RP(KF_RP_ALWAYS))
const unsigned kf_restart_policy_on[KF_NTARGETS] = {
  [KF_T_FLYTE] = RP_PLUGIN, [KF_T_FLYTE2] = RP_PLUGIN,
  [KF_T_MPI_OPERATOR] = RP(KF_RP_NEVER) | RP(KF_RP_ON_FAILURE),
  [KF_T_TRAINER_22] = RP(KF_RP_NEVER), [KF_T_TRAINER_23] = RP(KF_RP_NEVER),
  [KF_T_TRAINER_24] = RP(KF_RP_NEVER)};
#undef RP_PLUGIN
#undef RP

const kf_field *kf_row_find(const kf_field *f, size_t n, const char *key) {
  size_t i;
  for (i = 0; i < n; i++)
    if (f[i].key && strcmp(f[i].key, key) == 0) return &f[i];
  return NULL;
}

const kf_field *kf_obj_row(const kf_obj *o, const char *key) {
  return kf_row_find(o->f, o->n, key);
}

/* The rest row of the object row `f` opens (its last), or NULL. */
static const kf_field *rest_of(const kf_field *f) {
  const kf_obj *o = f != NULL && f->type == KF_V_OBJ ? (const kf_obj *)f->info : NULL;
  return o && o->n && (o->f[o->n - 1].flags & KF_F_REST) ? &o->f[o->n - 1] : NULL;
}

const kf_field *kf_rest_row(const char *seg, int *own) {
  const kf_field *r = rest_of(kf_obj_row(&kf_group_obj, seg));
  int k;
  for (k = 0; r == NULL && k < KF_NKINDS; k++)
    r = rest_of(kf_row_find(kf_kinds[k].fields, kf_kinds[k].nfields, seg));
  *own = 0;
  if (r != NULL) return r;
  /* every rest row is in an object the rows above open: find it by name */
  for (k = 0; k < KF_NKINDS; k++) {
    size_t i;
    for (i = 0; i < kf_kinds[k].nfields; i++)
      if ((r = rest_of(&kf_kinds[k].fields[i])) != NULL && strcmp(r->key, seg) == 0) {
        *own = 1;
        return r;
      }
  }
  return NULL;
}

int kf_field_value_on(const kf_field *f, kf_target t, int v) {
  return f->values_on == NULL || f->values_on[t] == 0 || ((f->values_on[t] >> v) & 1u);
}

/* ---- one pod: a job run as a Flyte 2 clustered task -------------------- */

static int same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_list(const char **a, size_t na, const char **b, size_t nb) {
  size_t i;
  if (na != nb) return 0;
  for (i = 0; i < na; i++)
    if (!same_str(a[i], b[i])) return 0;
  return 1;
}

static int same_resources(const kf_group *a, const kf_group *b) {
  int x;
  for (x = 0; x < KF_NRES; x++)
    if (!same_str(a->requests[x], b->requests[x]) || !same_str(a->limits[x], b->limits[x]))
      return 0;
  return 1;
}

static int has_resources(const char *const *req, const char *const *lim) {
  int x;
  for (x = 0; x < KF_NRES; x++)
    if (req[x] || lim[x]) return 1;
  return 0;
}

/* The image, command and resources every running group has alike (and
** the job has not) become the job's, taken off the groups. */
static void one_pod(kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_group *g[KF_NROLES];
  int i, n = 0, img = 1, cmd = 1, res = 1;
  for (i = 0; i < k->nroles; i++)   /* the groups that run (an Elastic job's worker) */
    if (j->g[k->roles[i].role].replicas > 0 || (k->flags & KF_K_ELASTIC))
      g[n++] = &j->g[k->roles[i].role];
  if (n == 0) return;
  for (i = 1; i < n; i++) {
    img &= same_str(g[i]->image, g[0]->image);
    cmd &= same_list(g[i]->command, g[i]->ncommand, g[0]->command, g[0]->ncommand);
    res &= same_resources(g[i], g[0]);
  }
  img &= g[0]->image != NULL && (!j->has_container || !j->container.image ||
                                 strcmp(j->container.image, g[0]->image) == 0);
  cmd &= g[0]->ncommand > 0 && (!j->has_container || j->container.ncommand == 0);
  res &= has_resources(g[0]->requests, g[0]->limits) &&
         !has_resources(j->requests, j->limits);
  if (img) j->container.image = g[0]->image, j->has_container = 1;
  if (cmd) {
    j->container.command = g[0]->command, j->container.ncommand = g[0]->ncommand;
    j->has_container = 1;
  }
  if (res) memcpy(j->requests, g[0]->requests, sizeof j->requests),
           memcpy(j->limits, g[0]->limits, sizeof j->limits);
  for (i = 0; i < n; i++) {
    if (img) g[i]->image = NULL;
    if (cmd) g[i]->command = NULL, g[i]->ncommand = 0;
    if (res) memset(g[i]->requests, 0, sizeof g[i]->requests),
             memset(g[i]->limits, 0, sizeof g[i]->limits);
  }
  if (img || cmd || res) j->emit_ok = 0;
}

const kf_job *kf_job_for_target(const kf_job *j, kf_target t, kf_job *copy) {
  if (t != KF_T_CLUSTERED) return j;
  *copy = *j;
  one_pod(copy);
  return copy;
}

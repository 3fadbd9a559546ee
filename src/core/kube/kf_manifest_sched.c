/*
** kf_manifest_sched.c - a job's scheduling written where each target reads
** it (SPEC §13; kueue pkg/controller/constants, training-operator
** common_types.go RunPolicy/SchedulingPolicy, mpi-operator v2beta1
** types.go, trainer trainjob_types.go and its volcano plugin):
**   - Kueue's labels on the resource (operator, mpi-operator, Trainer) or,
**     on flyte2, on the pod template Flyte 2 copies onto a PyTorchJob;
**   - suspend, managedBy and schedulingPolicy in spec.runPolicy (v1 and
**     v2beta1) or spec.suspend / spec.managedBy and the Volcano queue
**     annotation (TrainJob);
**   - Kueue's topology annotations and a group's pod template merged over
**     the job's as kubectl merges a pod spec: maps by key, containers,
**     volumes, env and volumeMounts by name, the rest replaced.
** Two calls from kf_manifest(): kfm_sched_job before the target's builder
** (what travels in the job's pod template), kfm_sched_apply after it.
** What a target cannot carry was refused by the rows of
** kf_target_rules_sched.c before.
*/
#include <stdio.h>
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"
#include "kf_sched.h"

#include "kf_manifest_int.h"

/* ---- merging trees ---------------------------------------------------- */

static int by_name(const char *k) {
  return strcmp(k, "containers") == 0 || strcmp(k, "volumes") == 0 ||
         strcmp(k, "env") == 0 || strcmp(k, "volumeMounts") == 0;
}

static const char *name_of(const kf_node *o) {
  const kf_node *n = o && o->t == KF_NOBJ ? kf_node_get(o, "name") : NULL;
  return n && n->t == KF_NSTR ? n->u.s.p : NULL;
}

static kf_node *merge(kf_arena *A, const kf_node *base, const kf_node *over);

/* Items of `over` replace (merged into) those of `base` with their name,
** the others appended. */
static kf_node *merge_named(kf_arena *A, const kf_node *base, const kf_node *over) {
  kf_node *d = kf_node_copy_shallow(A, base, KF_NARR);
  size_t i, x;
  for (i = 0; d && i < over->u.c.n; i++) {
    const char *nm = name_of(over->u.c.v[i]);
    for (x = 0; nm && x < d->u.c.n; x++) {
      const char *bn = name_of(d->u.c.v[x]);
      if (bn && strcmp(bn, nm) == 0) break;
    }
    if (nm && x < d->u.c.n) {
      if ((d->u.c.v[x] = merge(A, d->u.c.v[x], over->u.c.v[i])) == NULL) return NULL;
    } else if (!kf_node_push(A, d, NULL, over->u.c.v[i])) {
      return NULL;
    }
  }
  return d;
}

/* `over` merged over `base` (neither changed): objects key by key, the
** named lists by name, anything else replaced by `over`'s. */
static kf_node *merge(kf_arena *A, const kf_node *base, const kf_node *over) {
  kf_node *d;
  size_t i;
  if (base == NULL || base->t != KF_NOBJ || over->t != KF_NOBJ)
    return (kf_node *)over;
  if ((d = kf_node_copy_shallow(A, base, KF_NOBJ)) == NULL) return NULL;
  for (i = 0; i < over->u.c.n; i++) {
    const char *k = over->u.c.k[i];
    const kf_node *b = kf_node_get(d, k), *v = over->u.c.v[i];
    kf_node *m;
    if (strcmp(k, "primary_container_name") == 0) continue;
    if (b && b->t == KF_NARR && v->t == KF_NARR && by_name(k))
      m = merge_named(A, b, v);
    else
      m = merge(A, b, v);
    if (m == NULL || !kf_node_put(A, d, k, m)) return NULL;
  }
  return d;
}

/* A template whose spec and containers follow the Go structs again after
** a merge appended keys (so a key reads in one place whether it came
** from the job's template or a group's). */
static const char *const template_order[] = {"metadata", "spec", NULL};

static kf_node *go_ordered(kf_arena *A, kf_node *t) {
  kf_node *spec = kf_node_get(t, "spec"), *cs, *d;
  size_t i;
  if (spec == NULL || spec->t != KF_NOBJ) return t;
  if ((spec = kf_pod_ordered(A, spec, kf_pod_spec_order)) == NULL) return NULL;
  cs = kf_node_get(spec, "containers");
  if (cs && cs->t == KF_NARR) {
    if ((d = kf_node_copy_shallow(A, cs, KF_NARR)) == NULL) return NULL;
    for (i = 0; i < d->u.c.n; i++)
      if (d->u.c.v[i]->t == KF_NOBJ &&
          (d->u.c.v[i] = kf_pod_ordered(A, d->u.c.v[i], kf_pod_container_order)) == NULL)
        return NULL;
    if (!kf_node_put(A, spec, "containers", d)) return NULL;
  }
  if ((t = kf_node_copy_shallow(A, t, KF_NOBJ)) == NULL || !kf_node_put(A, t, "spec", spec))
    return NULL;
  return kf_pod_ordered(A, t, template_order);
}

/* A group's template with its primary container named `name`. */
static kf_node *renamed(kf_arena *A, const kf_node *g, const char *name) {
  size_t at = 0;
  const kf_node *p = kf_pod_primary(g, &at);
  kf_node *t, *spec, *cs, *ct;
  if (p == NULL) return (kf_node *)g;
  if ((t = kf_node_copy_shallow(A, g, KF_NOBJ)) == NULL ||
      (spec = kf_node_copy_shallow(A, kf_node_get(g, "spec"), KF_NOBJ)) == NULL ||
      (cs = kf_node_copy_shallow(A, kf_node_get(spec, "containers"), KF_NARR)) == NULL ||
      (ct = kf_node_copy_shallow(A, p, KF_NOBJ)) == NULL ||
      !kf_node_put(A, ct, "name", kf_node_str(A, name, strlen(name))))
    return NULL;
  cs->u.c.v[at] = ct;
  if (!kf_node_put(A, spec, "containers", cs) || !kf_node_put(A, t, "spec", spec))
    return NULL;
  return t;
}

/* ---- what the values become ------------------------------------------- */

/* The string a label or annotation gets for row `f` of `base` (NULL:
** unset); `buf` holds numbers. */
static const char *row_string(const kf_field *f, const char *base, char buf[KF_SLICES_JSON_MAX]) {
  const char *at = base + f->off;
  if (KF_V_ISSTR(f->type)) return *(const char *const *)(const void *)at;
  if (f->type == KF_V_TREE)   /* topology.slices: its annotation's JSON */
    return kf_sched_slices_json(*(const kf_node *const *)(const void *)at, buf,
                                KF_SLICES_JSON_MAX) ? buf : NULL;
  if (f->type == KF_V_BOOL) return *(const int *)(const void *)at ? "true" : NULL;
  if (f->type == KF_V_INT && *(const int32_t *)(const void *)at > 0) {
    kf_format_int(*(const int32_t *)(const void *)at, buf);
    return buf;
  }
  return NULL;
}

/* The rows of `o` at `base` with a manifest key as entries of the string
** map `*map` (first = 0: only rows below index `upto`). */
static int put_rows(kf_arena *A, kf_node **map, const kf_obj *o, const char *base,
                    size_t upto) {
  char buf[KF_SLICES_JSON_MAX];
  size_t i;
  for (i = 0; i < o->n && i < upto; i++) {
    const char *s = row_string(&o->f[i], base, buf);
    if (s && (*map = kf_node_put_sorted(A, *map, o->f[i].manifest,
                                             kf_node_str(A, s, strlen(s)))) == NULL) return 0;
  }
  return 1;
}

/* Kueue's labels: queue, priority class, max exec time (the first three
** scheduling rows). */
static int kueue_labels(kf_arena *A, const kf_job *j, kf_node **map) {
  return !j->has_scheduling || put_rows(A, map, &kf_sched_obj, (const char *)&j->sched, 3);
}

/* A copy of parent's metadata (an empty one when it has none), put into
** parent in its place. */
static kf_node *meta_of(kf_arena *A, kf_node *parent) {
  kf_node *m = kf_node_copy_shallow(A, kf_node_get(parent, "metadata"), KF_NOBJ);
  size_t i;
  if (m == NULL || !kf_node_put(A, parent, "metadata", m)) return NULL;
  for (i = parent->u.c.n - 1; i > 0 && parent->u.c.v[i] == m; i--) {
    /* a new one goes first, where Kubernetes writes it */
    const char *k = parent->u.c.k[i - 1];
    kf_node *v = parent->u.c.v[i - 1];
    parent->u.c.k[i - 1] = parent->u.c.k[i], parent->u.c.v[i - 1] = m;
    parent->u.c.k[i] = k, parent->u.c.v[i] = v;
  }
  return m;
}

/* A pod template (a "template" object of a manifest or a job's pod
** template) with the job's topology and then the group's as annotations. */
/* Whether any row of o is set in the struct at base. */
static int has_rows(const kf_obj *o, const char *base) {
  char buf[KF_SLICES_JSON_MAX];
  size_t i;
  for (i = 0; i < o->n; i++)
    if (row_string(&o->f[i], base, buf)) return 1;
  return 0;
}

static int topology_into(kf_arena *A, kf_node *tmpl, const kf_job *j,
                         const kf_group *g) {
  kf_node *m, *an;
  kf_topology t = kf_sched_merged_topology(j, g);   /* the group's mode wins whole */
  if (!has_rows(&kf_topology_obj, (const char *)&t)) return 1;   /* topology = {} too */
  if ((m = meta_of(A, tmpl)) == NULL) return 0;
  an = kf_node_get(m, "annotations");
  if (!put_rows(A, &an, &kf_topology_obj, (const char *)&t, (size_t)-1)) return 0;
  return kf_node_put(A, m, "annotations", an);
}

/* ---- before the builder: what travels in the job's pod template ------- */

/* The first group of the job with its own template or topology (on
** Trainer R31 made them all the same). */
static const kf_group *first_group(const kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (g->pod_template || g->has_topology) return g;
  }
  return NULL;
}

kf_status kfm_sched_job(mctx *c, const kf_job *j, kf_target t, const kf_job **out) {
  int trainer = KF_T_IS_TRAINER(t);
  int flyte2_labels = t == KF_T_FLYTE2 && j->has_scheduling &&
                      (j->kind == KF_PYTORCH || j->kind == KF_ELASTIC);
  const kf_group *g = trainer ? first_group(j) : NULL;
  kf_job *eff;
  kf_node *tm;
  *out = j;
  if (t == KF_T_OPERATOR || t == KF_T_MPI_OPERATOR) return KF_OK;
  if (!(j->has_scheduling && j->sched.has_topology) && !g && !flyte2_labels)
    return KF_OK;
  KF_OOM(c, eff = kf_arena_alloc(c->A, sizeof *eff));
  *eff = *j;
  KF_OOM(c, tm = kf_node_copy_shallow(c->A, j->pod_template, KF_NOBJ));
  if (g && g->pod_template) {
    const kf_node *gt = g->pod_template;
    if (j->pod_template) KF_OOM(c, gt = renamed(c->A, gt, kf_pod_primary_name(j->pod_template)));
    KF_OOM(c, tm = merge(c->A, tm, gt));
    if (!j->pod_template && kf_node_get(g->pod_template, "primary_container_name"))
      KF_OOM(c, kf_node_put(c->A, tm, "primary_container_name",
                        kf_node_get(g->pod_template, "primary_container_name")));
  }
  KF_OOM(c, topology_into(c->A, tm, j, g));
  if (flyte2_labels) {   /* Flyte 2 copies them onto the PyTorchJob (#7833) */
    kf_node *m, *l;
    KF_OOM(c, m = meta_of(c->A, tm));
    l = kf_node_get(m, "labels");
    KF_OOM(c, kueue_labels(c->A, j, &l));
    if (l) KF_OOM(c, kf_node_put(c->A, m, "labels", l));
  }
  eff->pod_template = tm;
  *out = eff;
  return KF_OK;
}

/* ---- after the builder ------------------------------------------------ */

/* spec.runPolicy.schedulingPolicy in the Go struct's order
** (common_types.go SchedulingPolicy; mpi-operator v2beta1 the same). */
static kf_status scheduling_policy(mctx *c, const kf_gang *g, kf_node *rp) {
  kf_node *sp, *mr;
  int i;
  KF_OOM(c, sp = kf_node_new(c->A, KF_NOBJ));
  if (g->min_available > 0) KF_OOM(c, kf_obj_int(c->A, sp, "minAvailable", g->min_available));
  if (g->queue) KF_OOM(c, kf_obj_str(c->A, sp, "queue", g->queue));
  if (g->has_min_resources) {
    KF_OOM(c, mr = kf_obj_add(c->A, sp, "minResources", KF_NOBJ));
    for (i = 0; i < KF_NRES; i++) {
      int r = kfm_res_sorted[i];
      if (g->min_resources[r])
        KF_OOM(c, kf_obj_str(c->A, mr, kf_resources_obj.f[r].manifest, g->min_resources[r]));
    }
  }
  if (g->priority_class) KF_OOM(c, kf_obj_str(c->A, sp, "priorityClass", g->priority_class));
  if (g->schedule_timeout_seconds > 0)
    KF_OOM(c, kf_obj_int(c->A, sp, "scheduleTimeoutSeconds", g->schedule_timeout_seconds));
  KF_OOM(c, kf_node_put(c->A, rp, "schedulingPolicy", sp));
  return KF_OK;
}

/* spec.runPolicy (made when the builder wrote none): suspend, managedBy,
** schedulingPolicy. */
static kf_status run_policy(mctx *c, const kf_job *j, kf_node *spec) {
  const kf_sched *s = &j->sched;
  kf_node *rp;
  kf_node *yes;
  if (!s->suspend && !s->multikueue && !s->has_gang) return KF_OK;
  KF_OOM(c, rp = kf_node_copy_shallow(c->A, kf_node_get(spec, "runPolicy"), KF_NOBJ));
  if (s->suspend) {
    KF_OOM(c, yes = kf_node_new(c->A, KF_NBOOL));
    yes->u.b = 1;
    KF_OOM(c, kf_node_put(c->A, rp, "suspend", yes));
  }
  if (s->multikueue)
    KF_OOM(c, kf_node_put(c->A, rp, "managedBy", kf_node_str(c->A, KF_KUEUE_MULTIKUEUE,
                                                          strlen(KF_KUEUE_MULTIKUEUE))));
  if (s->has_gang) {
    kf_status st = scheduling_policy(c, &s->gang, rp);
    if (st != KF_OK) return st;
  }
  KF_OOM(c, kf_node_put(c->A, spec, "runPolicy", rp));
  return KF_OK;
}

/* Each replica's template: the group's template merged over it (its
** primary container as the group's main container), then topology. */
static kf_status replicas(mctx *c, const kf_job *j, kf_node *specs) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  for (i = 0; specs && i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    kf_node *rs = kf_node_get(specs, kf_roles[k->roles[i].role].name), *tm;
    if (rs == NULL) continue;
    KF_OOM(c, rs = kf_node_copy_shallow(c->A, rs, KF_NOBJ));
    KF_OOM(c, tm = kf_node_copy_shallow(c->A, kf_node_get(rs, "template"), KF_NOBJ));
    if (g->pod_template) {
      const kf_node *gt;
      KF_OOM(c, gt = renamed(c->A, g->pod_template,
                          kfm_container_name(j, k->roles[i].role)));
      KF_OOM(c, tm = merge(c->A, tm, gt));
      KF_OOM(c, tm = go_ordered(c->A, tm));
    }
    KF_OOM(c, topology_into(c->A, tm, j, g));
    KF_OOM(c, kf_node_put(c->A, rs, "template", tm));
    KF_OOM(c, kf_node_put(c->A, specs, kf_roles[k->roles[i].role].name, rs));
  }
  return KF_OK;
}

/* meta.labels = l, in the Go struct's place when new (k8s.io/apimachinery
** ObjectMeta: Labels before Annotations). */
static int put_labels(kf_arena *A, kf_node *meta, kf_node *l) {
  size_t i;
  if (!kf_node_put(A, meta, "labels", l)) return 0;
  i = meta->u.c.n - 1;
  if (i > 0 && meta->u.c.v[i] == l && strcmp(meta->u.c.k[i - 1], "annotations") == 0) {
    const char *k = meta->u.c.k[i - 1];
    kf_node *v = meta->u.c.v[i - 1];
    meta->u.c.k[i - 1] = meta->u.c.k[i], meta->u.c.v[i - 1] = l;
    meta->u.c.k[i] = k, meta->u.c.v[i] = v;
  }
  return 1;
}

kf_status kfm_sched_apply(mctx *c, const kf_job *j, kf_target t, kf_node *root) {
  kf_node *spec = kf_node_get(root, "spec"), *meta, *l;
  kf_status st;
  int trainer = KF_T_IS_TRAINER(t);
  if (t == KF_T_FLYTE || t == KF_T_FLYTE2 || t == KF_T_CLUSTERED)
    return KF_OK;  /* kfm_sched_job; clustered: R48 */
  if (!trainer && (kf_sched_has_group_settings(j) ||
                   (j->has_scheduling && j->sched.has_topology))) {
    kf_node *specs = kf_node_get(spec, kf_kinds[j->kind].crd_specs);
    if (specs) {
      KF_OOM(c, specs = kf_node_copy_shallow(c->A, specs, KF_NOBJ));
      KF_OOM(c, kf_node_put(c->A, spec, kf_kinds[j->kind].crd_specs, specs));
    }
    if ((st = replicas(c, j, specs)) != KF_OK) return st;
  }
  if (!j->has_scheduling) return KF_OK;
  KF_OOM(c, meta = meta_of(c->A, root));
  l = kf_node_get(meta, "labels");
  KF_OOM(c, kueue_labels(c->A, j, &l));
  if (l) KF_OOM(c, put_labels(c->A, meta, l));
  if (!trainer) return run_policy(c, j, spec);
  if (j->sched.has_gang && j->sched.gang.queue) {   /* volcano plugin */
    kf_node *an = kf_node_get(meta, "annotations");
    const char *q = j->sched.gang.queue;
    KF_OOM(c, an = kf_node_put_sorted(c->A, an, KF_VOLCANO_QUEUE,
                                      kf_node_str(c->A, q, strlen(q))));
    KF_OOM(c, kf_node_put(c->A, meta, "annotations", an));
  }
  if (j->sched.suspend) {
    kf_node *yes;
    KF_OOM(c, yes = kf_node_new(c->A, KF_NBOOL));
    yes->u.b = 1;
    KF_OOM(c, kf_node_put(c->A, spec, "suspend", yes));
  }
  if (j->sched.multikueue)
    KF_OOM(c, kf_node_put(c->A, spec, "managedBy", kf_node_str(c->A, KF_KUEUE_MULTIKUEUE,
                                                            strlen(KF_KUEUE_MULTIKUEUE))));
  return KF_OK;
}

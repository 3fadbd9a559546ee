/*
** kf_sched.c - what holds for a job's scheduling on every target (SPEC
** §13, R27): Kueue's queue and priority class names are DNS-1123
** subdomains (kueue jobframework/validation.go ValidateQueueName), a
** topology asks for one mode; and the pod counts the gang rules and the
** CLI read.  Ranges (max_exec_time, min_available >= 1), the empty Volcano
** queue and the scheduler's name are the rows' own checks (kf_schema.c).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_launcher.h"
#include "kf_sched.h"
#include "kf_target.h"

/* podset-group-name (kueue tas_validation.go): not a number, with
** required or preferred, without slice annotations. */
static kf_status group_rule(const kf_topology *t, const char *path,
                            const char *who, kf_err *e) {
  const char *g = t->group, *p;
  if (g == NULL) return KF_OK;
  for (p = g; *p >= '0' && *p <= '9'; p++) {}
  if (*p == '\0')
    return kf_fail(e, KF_EINVAL, "%s: %s.group: '%.80s' is a number (Kueue "
                   "refuses a numeric podset-group-name)", who, path, g);
  if (t->required == NULL && t->preferred == NULL)
    return kf_fail(e, KF_EINVAL, "%s: %s.group: needs required or preferred (Kueue "
                   "places a pod set group by its topology level)", who, path);
  if (t->slice_required != NULL || t->slice_size > 0 || t->slices)
    return kf_fail(e, KF_EINVAL, "%s: %s.group: cannot be combined with %s (Kueue "
                   "refuses slice annotations on a pod set group)", who, path,
                   t->slice_required ? "slice_required" : t->slices ? "slices" : "slice_size");
  return KF_OK;
}

/* The levels are node label names (kueue tas_validation.go
** ValidateLabelName: IsQualifiedName). */
static kf_status levels_rule(const kf_topology *t, const char *path,
                             const char *who, kf_err *e) {
  static const char *const keys[3] = {"required", "preferred", "slice_required"};
  const char *v[3];
  char p[96];
  kf_status st;
  int i;
  v[0] = t->required, v[1] = t->preferred, v[2] = t->slice_required;
  for (i = 0; i < 3; i++) {
    if (v[i] == NULL) continue;
    snprintf(p, sizeof p, "%s.%s", path, keys[i]);
    if ((st = kf_row_check(kf_obj_row(&kf_topology_obj, keys[i]), v[i], p, who, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* One of required, preferred, unconstrained (Kueue reads one). */
static kf_status topology_rule(const kf_topology *t, const char *path,
                               const char *who, kf_err *e) {
  const char *a = t->required ? "required" : NULL, *b = NULL;
  kf_status st;
  if ((st = levels_rule(t, path, who, e)) != KF_OK) return st;
  if (t->preferred) (a ? (b = "preferred") : (a = "preferred"));
  if (t->unconstrained && !b) (a ? (b = "unconstrained") : (a = "unconstrained"));
  if (b != NULL)
    return kf_fail(e, KF_EINVAL, "%s: %s: %s and %s cannot be combined (a pod "
                   "set has one topology mode: required, preferred or "
                   "unconstrained)", who, path, a, b);
  if (t->slices && (t->slice_required || t->slice_size > 0))
    return kf_fail(e, KF_EINVAL, "%s: %s.slices: cannot be combined with %s (Kueue "
                   "refuses the slice annotations beside slice constraints)", who, path,
                   t->slice_required ? "slice_required" : "slice_size");
  return KF_OK;
}

kf_topology kf_sched_merged_topology(const kf_job *j, const kf_group *g) {
  kf_topology m;
  const kf_topology *t = g ? &g->topology : NULL;
  memset(&m, 0, sizeof m);
  if (j->has_scheduling && j->sched.has_topology) m = j->sched.topology;
  if (g == NULL || !g->has_topology) return m;
  if (t->required || t->preferred || t->unconstrained) {   /* one mode: the group's */
    m.required = t->required, m.preferred = t->preferred;
    m.unconstrained = t->unconstrained;
  }
  if (t->slice_required) m.slice_required = t->slice_required;
  if (t->slice_size > 0) m.slice_size = t->slice_size;
  if (t->group) m.group = t->group;
  if (t->slices) m.slices = t->slices;
  return m;
}

/* podset-slice-required-topology and podset-slice-size need each other
** (kueue tas_validation.go: "must be set when" / "may not be set when ...
** is not specified"), in what a pod set gets: the job's and the group's. */
static kf_status slice_pair(const kf_topology *m, const char *path, const char *who,
                            kf_err *e) {
  if ((m->slice_required != NULL) == (m->slice_size > 0)) return KF_OK;
  if (m->slice_required)
    return kf_fail(e, KF_EINVAL, "%s: %s.slice_required: needs slice_size (Kueue "
                   "refuses podset-slice-required-topology without podset-slice-size)",
                   who, path);
  return kf_fail(e, KF_EINVAL, "%s: %s.slice_size: needs slice_required (Kueue refuses "
                 "podset-slice-size without podset-slice-required-topology)", who, path);
}

/* slice_pair on each pod set of the job (a group that exists, or one with a
** topology of its own), named where the pair is incomplete: the group's
** topology when it sets a slice key, else the job's. */
static kf_status slice_pairs(const kf_job *j, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[64];
  kf_status st;
  int i, sets = 0, any = j->has_scheduling && j->sched.has_topology;
  for (i = 0; i < k->nroles && !any; i++) any = j->g[k->roles[i].role].has_topology;
  if (!any) return KF_OK;   /* no topology at all: nothing to pair (most jobs) */
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    kf_topology m = kf_sched_merged_topology(j, g);
    int own = g->has_topology && (g->topology.slice_required || g->topology.slice_size > 0);
    if (!own && !g->has_topology && g->replicas <= 0 && !(k->flags & KF_K_ELASTIC)) continue;
    sets++;
    if (own) snprintf(path, sizeof path, "%s.topology", kf_roles[k->roles[i].role].key);
    else snprintf(path, sizeof path, "scheduling.topology");
    if ((st = slice_pair(&m, path, who, e)) != KF_OK) return st;
  }
  if (sets == 0 && j->has_scheduling && j->sched.has_topology)
    return slice_pair(&j->sched.topology, "scheduling.topology", who, e);
  return KF_OK;
}

kf_status kf_rule_sched(const kf_job *j, int style, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[64];
  kf_status st;
  int i;
  (void)style;   /* scheduling never travels in a plugin message */
  if (j->has_scheduling) {
    /* the rows' check: Kueue's names */
    if ((st = kf_row_check(kf_obj_row(&kf_sched_obj, "queue"), j->sched.queue,
                           "scheduling.queue", who, e)) != KF_OK ||
        (st = kf_row_check(kf_obj_row(&kf_sched_obj, "priority_class"),
                           j->sched.priority_class, "scheduling.priority_class",
                           who, e)) != KF_OK)
      return st;
    if (j->sched.has_topology &&
        ((st = topology_rule(&j->sched.topology, "scheduling.topology", who, e)) != KF_OK ||
         (st = group_rule(&j->sched.topology, "scheduling.topology", who, e)) != KF_OK))
      return st;
  }
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (!g->has_topology) continue;
    snprintf(path, sizeof path, "%s.topology", kf_roles[k->roles[i].role].key);
    if ((st = topology_rule(&g->topology, path, who, e)) != KF_OK) return st;
    if (g->topology.group != NULL) {
      kf_topology m = kf_sched_merged_topology(j, g);
      if ((st = group_rule(&m, path, who, e)) != KF_OK) return st;
    }
  }
  return slice_pairs(j, who, e);
}


void kf_sched_normalize(kf_job *j) {
  kf_sched *s = &j->sched;
  const kf_topology *t = &s->topology;
  if (!j->has_scheduling) return;
  if (s->has_topology && !t->required && !t->preferred && !t->unconstrained &&
      !t->slice_required && t->slice_size <= 0 && !t->group && !t->slices)
    s->has_topology = 0;
  if (!s->queue && !s->priority_class && s->max_exec_time <= 0 && !s->suspend &&
      !s->multikueue && !s->has_topology && !s->has_gang)
    j->has_scheduling = 0;
}

int kf_sched_has_group_settings(const kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (g->pod_template || g->has_topology) return 1;
  }
  return 0;
}

int kf_sched_elastic(const kf_job *j) {
  return j->kind == KF_ELASTIC && !j->nnodes_int && j->min_nodes < j->max_nodes;
}

int64_t kf_sched_pod_count(const kf_job *j, int target) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int64_t n = 0;
  int i;
  if (k->flags & KF_K_ELASTIC) return j->max_nodes;
  if (target == KF_T_MPI_OPERATOR)
    return (int64_t)(j->g[KF_WORKER].replicas > 0 ? j->g[KF_WORKER].replicas : 0) + 1;
  if (KF_T_IS_TRAINER(target)) return kf_trainer_nodes(j);
  for (i = 0; i < k->nroles; i++) {
    int32_t r = j->g[k->roles[i].role].replicas;
    if (r > 0) n += r;
  }
  return n;
}

int64_t kf_sched_gang_size(const kf_job *j, int target, int *set) {
  *set = j->has_scheduling && j->sched.has_gang && j->sched.gang.min_available > 0;
  return *set ? j->sched.gang.min_available : kf_sched_pod_count(j, target);
}

/* ---- topology in a TaskTemplate's pod template (flyte, flyte2) -------- */

static const char *const tas_keys[7] = {KF_TAS_REQUIRED, KF_TAS_PREFERRED,
                                        KF_TAS_UNCONSTRAINED, KF_TAS_SLICE_REQUIRED,
                                        KF_TAS_SLICE_SIZE, KF_TAS_GROUP, KF_TAS_SLICES};

/* *out: a copy of j whose pod template's metadata.<map> is m. */
static kf_status with_meta_map(const kf_job *j, kf_arena *A, const char *map,
                               kf_node *m, const kf_job **out, kf_err *e) {
  kf_node *meta = (kf_node *)kf_node_get(j->pod_template, "metadata"), *tm;
  kf_job *eff;
  if ((meta = kf_node_put_sorted(A, meta, map, m)) == NULL ||
      (tm = kf_node_put_sorted(A, j->pod_template, "metadata", meta)) == NULL ||
      (eff = kf_arena_alloc(A, sizeof *eff)) == NULL)
    return kf_nomem(e);
  *eff = *j;
  eff->pod_template = tm;
  *out = eff;
  return KF_OK;
}

/* Metadata map `map` of j's pod template with the keys[i] set to v[i]
** (those not NULL), into a copy of the job. */
static kf_status put_meta(const kf_job *j, kf_arena *A, const char *map,
                          const char *const *keys, const char *const *v, int n,
                          const kf_job **out, kf_err *e) {
  kf_node *m = (kf_node *)kf_node_get(kf_node_get(j->pod_template, "metadata"), map);
  int i;
  for (i = 0; i < n; i++)
    if (v[i] && (m = kf_node_put_sorted(A, m, keys[i], kf_node_str(A, v[i], strlen(v[i])))) == NULL)
      return kf_nomem(e);
  return with_meta_map(j, A, map, m, out, e);
}

kf_status kf_sched_template_in(const kf_job *j, kf_arena *A, const kf_job **out,
                               kf_err *e) {
  const kf_topology *t = &j->sched.topology;
  const char *v[7];
  char n[32], sl[KF_SLICES_JSON_MAX];
  *out = j;
  if (!j->has_scheduling || !j->sched.has_topology) return KF_OK;
  kf_format_int(t->slice_size, n);
  v[0] = t->required, v[1] = t->preferred, v[2] = t->unconstrained ? "true" : NULL;
  v[3] = t->slice_required, v[4] = t->slice_size > 0 ? n : NULL, v[5] = t->group;
  v[6] = t->slices && kf_sched_slices_json(t->slices, sl, sizeof sl) ? sl : NULL;
  return put_meta(j, A, "annotations", tas_keys, v, 7, out, e);
}

static const char *const kueue_keys[3] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY,
                                          KF_KUEUE_MAX_EXEC};

/* Flyte 2 copies a PyTorchJob's pod template metadata onto the CR (flyte
** pytorch.go 11dbc43bed, #7833); an Elastic job is a PyTorchJob there. */
static int flyte2_copies_labels(const kf_job *j) {
  return j->kind == KF_PYTORCH || j->kind == KF_ELASTIC;
}

kf_status kf_sched_labels_in(const kf_job *j, kf_arena *A, const kf_job **out,
                             kf_err *e) {
  const kf_sched *s = &j->sched;
  const char *v[3];
  char n[32];
  *out = j;
  if (!j->has_scheduling || !flyte2_copies_labels(j) ||
      !(s->queue || s->priority_class || s->max_exec_time > 0))
    return KF_OK;
  kf_format_int(s->max_exec_time, n);
  v[0] = s->queue, v[1] = s->priority_class, v[2] = s->max_exec_time > 0 ? n : NULL;
  return put_meta(j, A, "labels", kueue_keys, v, 3, out, e);
}

/* A copy of object `o` without key k (NULL when nothing is left). */
static kf_node *without(kf_arena *A, const kf_node *o, const char *k, int *oom) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  size_t i;
  for (i = 0; d && i < o->u.c.n; i++)
    if (strcmp(o->u.c.k[i], k) != 0 && !kf_node_push(A, d, o->u.c.k[i], o->u.c.v[i]))
      d = NULL;
  if (d == NULL) *oom = 1;
  return d && d->u.c.n ? d : NULL;
}

/* j's pod template without keys[0..n) of its metadata.<map> (and
** without what is left empty). */
static kf_status strip_meta(kf_job *j, kf_arena *A, const char *map,
                            const char *const *keys, int n, kf_err *e) {
  const kf_node *meta = kf_node_get(j->pod_template, "metadata");
  kf_node *rest = (kf_node *)kf_node_get(meta, map), *m, *tm;
  int i, oom = 0;
  for (i = 0; i < n && rest; i++) rest = without(A, rest, keys[i], &oom);
  m = rest ? kf_node_put_sorted(A, meta, map, rest) : without(A, meta, map, &oom);
  tm = m ? kf_node_put_sorted(A, j->pod_template, "metadata", m)
         : without(A, j->pod_template, "metadata", &oom);
  if (oom || (rest && m == NULL)) return kf_nomem(e);
  j->pod_template = tm;
  return KF_OK;
}

/* Kueue's topology annotations of a decoded pod template back into
** scheduling.topology (what kf_sched_template_in wrote); values it would
** not write stay in the template. */
static kf_status topology_out(kf_job *j, kf_arena *A, kf_err *e) {
  const kf_node *an = kf_node_get(kf_node_get(j->pod_template, "metadata"), "annotations");
  kf_topology t;
  kf_status st;
  int i, any = 0;
  if (an == NULL || an->t != KF_NOBJ) return KF_OK;
  memset(&t, 0, sizeof t);
  for (i = 0; i < 7; i++) {
    const kf_node *v = kf_node_get(an, tas_keys[i]);
    const char *s = v && v->t == KF_NSTR ? v->u.s.p : NULL;
    char *end;
    long n;
    if (s == NULL) continue;
    if (i == 2 && strcmp(s, "true") != 0) return KF_OK;
    if (i == 6) {   /* the slice constraints' JSON, checked as the row's */
      const kf_node *l = kf_sched_slices_parse(A, s), *c;
      kf_err e2;
      if (l == NULL || kf_slices_tree.check(l, A, &c, "", "", &e2) != KF_OK) return KF_OK;
      t.slices = c, any = 1;
      continue;
    }
    n = i == 4 ? strtol(s, &end, 10) : 0;
    if (i == 4 && (*end || n < 1 || n > INT32_MAX || s[0] == '0' || s[0] == '+')) return KF_OK;
    if (i < 2 || i == 3 || i == 5) {
      if (s[0] == '\0' || strpbrk(s, " \t\r\n")) return KF_OK;
      if (i != 5 && !kf_qualified_name(s)) return KF_OK;   /* a level: a label name */
      *(i == 0 ? &t.required : i == 1 ? &t.preferred : i == 3 ? &t.slice_required
                                                              : &t.group) = s;
    }
    if (i == 2) t.unconstrained = 1;
    if (i == 4) t.slice_size = (int32_t)n;
    any = 1;
  }
  if (!any) return KF_OK;
  {   /* what R27 refuses is not what kfjob writes: it stays the template's */
    kf_err e2;
    if (topology_rule(&t, "", "", &e2) != KF_OK || group_rule(&t, "", "", &e2) != KF_OK ||
        slice_pair(&t, "", "", &e2) != KF_OK)
      return KF_OK;
  }
  if ((st = strip_meta(j, A, "annotations", tas_keys, 7, e)) != KF_OK) return st;
  j->has_scheduling = j->sched.has_topology = 1;
  j->sched.topology = t;
  return KF_OK;
}

int kf_sched_label_value(int i, const char *s, int32_t *secs) {
  int64_t n = 0;
  if (s == NULL) return 0;
  if (i < 2) return s[0] != '\0' && kf_dns1123_subdomain_problem(s) == NULL;
  if (s[0] < '1' || s[0] > '9') return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return 0;
    if ((n = n * 10 + (*s - '0')) > INT32_MAX) return 0;
  }
  *secs = (int32_t)n;
  return 1;
}

/* The Kueue labels of a decoded PyTorchJob's pod template back into
** scheduling (what kf_sched_labels_in wrote), all or none. */
static kf_status labels_out(kf_job *j, kf_arena *A, kf_err *e) {
  const kf_node *lb = kf_node_get(kf_node_get(j->pod_template, "metadata"), "labels");
  const char *v[3] = {NULL, NULL, NULL};
  int32_t secs = 0;
  kf_status st;
  int i;
  if (lb == NULL || lb->t != KF_NOBJ || !flyte2_copies_labels(j)) return KF_OK;
  for (i = 0; i < 3; i++) {
    const kf_node *n = kf_node_get(lb, kueue_keys[i]);
    if (n == NULL) continue;
    if (n->t != KF_NSTR || !kf_sched_label_value(i, n->u.s.p, &secs)) return KF_OK;
    v[i] = n->u.s.p;
  }
  if (!v[0] && !v[1] && !v[2]) return KF_OK;
  if ((st = strip_meta(j, A, "labels", kueue_keys, 3, e)) != KF_OK) return st;
  j->has_scheduling = 1;
  j->sched.queue = v[0], j->sched.priority_class = v[1], j->sched.max_exec_time = secs;
  return KF_OK;
}

kf_status kf_sched_topology_out(kf_job *j, kf_arena *A, kf_err *e) {
  if (j->has_scheduling && j->sched.has_topology) return KF_OK;
  return topology_out(j, A, e);
}

kf_status kf_sched_template_out(kf_job *j, kf_arena *A, kf_err *e) {
  kf_status st;
  if (j->has_scheduling) return KF_OK;
  if ((st = topology_out(j, A, e)) != KF_OK) return st;
  return labels_out(j, A, e);
}

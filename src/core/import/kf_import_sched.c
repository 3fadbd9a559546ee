/*
** kf_import_sched.c - scheduling read back (SPEC §13), the inverse of
** kube/kf_manifest_sched.c: Kueue's labels on the resource (kueue
** pkg/controller/constants), suspend, managedBy and schedulingPolicy in
** spec.runPolicy (training-operator common_types.go RunPolicy and
** SchedulingPolicy; mpi-operator v2beta1 the same) or spec.suspend and
** spec.managedBy with the Volcano queue annotation (trainer
** trainjob_types.go, its volcano plugin).  Kueue's topology annotations
** are read from the job's pod template after the job is built
** (kf_sched_topology_out).
*/
#include <string.h>

#include "kf_sched.h"
#include "kf_import_int.h"

/* The job's scheduling node, made on first use. */
static kf_node *sched(kfi *c) {
  kf_node *s = (kf_node *)kf_node_get(c->spec, "scheduling");
  if (s == NULL) s = kf_obj_add(c->A, c->spec, "scheduling", KF_NOBJ);
  return s;
}

/* info[key] = v, or the key removed when v is NULL. */
static void info_set(kfi *c, const char *key, kf_node *v) {
  kf_node *o = c->info;
  size_t i, x;
  for (i = 0; i < o->u.c.n && strcmp(o->u.c.k[i], key) != 0; i++) {}
  if (i == o->u.c.n) return;
  if (v) {
    o->u.c.v[i] = v;
    return;
  }
  for (x = i + 1; x < o->u.c.n; x++) o->u.c.k[x - 1] = o->u.c.k[x], o->u.c.v[x - 1] = o->u.c.v[x];
  o->u.c.n--;
}

/* A copy of map `m` without the keys `drop[0..n)` that are set in `taken`. */
static kf_node *without(kfi *c, const kf_node *m, const char *const *drop,
                        const int *taken, int n) {
  kf_node *d = kf_node_new(c->A, KF_NOBJ);
  size_t i;
  int x;
  for (i = 0; d && i < m->u.c.n; i++) {
    for (x = 0; x < n && !(taken[x] && strcmp(m->u.c.k[i], drop[x]) == 0); x++) {}
    if (x == n && !kf_node_push(c->A, d, m->u.c.k[i], m->u.c.v[i])) return NULL;
  }
  return d;
}

/* Kueue's labels of the resource -> scheduling; the others stay labels. */
static kf_status labels(kfi *c) {
  static const char *const keys[3] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC};
  static const char *const rows[3] = {"queue", "priority_class", "max_exec_time"};
  int taken[3] = {0, 0, 0}, i, any = 0;
  kf_node *s, *rest;
  if (c->labels == NULL || c->labels->t != KF_NOBJ) return KF_OK;
  for (i = 0; i < 3; i++) {
    const char *v = kfi_str(kf_node_get(c->labels, keys[i]));
    int32_t secs = 0;
    if (v == NULL) continue;
    if (!kf_sched_label_value(i, v, &secs)) {   /* a job's labels cannot hold it */
      char p[KFI_PATH];
      kf_key_path(p, sizeof p, "metadata.labels", keys[i]);
      return kfi_fail(c, p, "'%.100s': this label is scheduling.%s, %s", v, rows[i],
                      i < 2 ? "a DNS-1123 subdomain of at most 63 characters (Kueue's "
                              "webhook refuses others)"
                            : "a decimal integer >= 1 without sign or leading zero");
    }
    KF_OOM(c, s = sched(c));
    KF_OOM(c, i < 2 ? kf_obj_strref(c->A, s, rows[i], v) : kf_obj_int(c->A, s, rows[i], secs));
    taken[i] = any = 1;
  }
  if (!any) return KF_OK;
  KF_OOM(c, rest = without(c, c->labels, keys, taken, 3));
  info_set(c, "labels", rest->u.c.n ? rest : NULL);
  return KF_OK;
}

/* The TrainJob's Volcano queue annotation -> scheduling.gang.queue. */
static kf_status volcano(kfi *c) {
  static const char *const keys[1] = {KF_VOLCANO_QUEUE};
  const char *v = c->annotations ? kfi_str(kf_node_get(c->annotations, keys[0])) : NULL;
  int taken[1] = {1};
  kf_node *s, *g, *rest;
  if (v == NULL) return KF_OK;
  KF_OOM(c, s = sched(c));
  KF_OOM(c, g = kf_obj_add(c->A, s, "gang", KF_NOBJ));
  KF_OOM(c, kf_obj_strref(c->A, g, "queue", v));
  KF_OOM(c, rest = without(c, c->annotations, keys, taken, 1));
  info_set(c, "annotations", rest->u.c.n ? rest : NULL);
  return KF_OK;
}

/* Flyte 2's backend copies each pod template's metadata onto the resource
** (kube/kf_manifest_flyte.c): a topology annotation there is that copy,
** read from the templates (kfi_sched_group_topology), not the job's. */
static kf_status flyte2_tas(kfi *c) {
  const kf_node *an = kf_node_get(c->info, "annotations");
  kf_node *rest;
  size_t i;
  if (c->target != KF_T_FLYTE2 || an == NULL || an->t != KF_NOBJ) return KF_OK;
  KF_OOM(c, rest = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < an->u.c.n; i++)
    if (!kfi_tas_key(an->u.c.k[i])) KF_OOM(c, kf_node_push(c->A, rest, an->u.c.k[i], an->u.c.v[i]));
  if (rest->u.c.n != an->u.c.n) info_set(c, "annotations", rest->u.c.n ? rest : NULL);
  return KF_OK;
}

kf_status kfi_sched_meta(kfi *c) {
  kf_status st = labels(c);
  if (st == KF_OK && KF_T_IS_TRAINER(c->target)) st = volcano(c);
  return st == KF_OK ? flyte2_tas(c) : st;
}

/* The controllers' own managedBy values: the same as none. */
static int default_manager(const char *s) {
  return strcmp(s, "kubeflow.org/training-operator") == 0 ||
         strcmp(s, "kubeflow.org/mpi-operator") == 0 ||
         strcmp(s, "trainer.kubeflow.org/trainjob-controller") == 0;
}

kf_status kfi_sched_flags(kfi *c, const char *path, const kf_node *holder) {
  char p[KFI_PATH];
  const kf_node *v;
  kf_node *s, *yes;
  kf_status st;
  if ((v = kf_node_get(holder, "suspend")) != NULL) {
    kfi_path(p, path, "suspend");
    if ((st = kfi_want(c, p, v, KF_NBOOL)) != KF_OK) return st;
    if (v->u.b) {
      KF_OOM(c, (s = sched(c)) && (yes = kf_obj_add(c->A, s, "suspend", KF_NBOOL)));
      yes->u.b = 1;
    }
  }
  if ((v = kf_node_get(holder, "managedBy")) == NULL) return KF_OK;
  kfi_path(p, path, "managedBy");
  if ((st = kfi_want(c, p, v, KF_NSTR)) != KF_OK) return st;
  if (strcmp(v->u.s.p, KF_KUEUE_MULTIKUEUE) == 0) {
    KF_OOM(c, (s = sched(c)) && (yes = kf_obj_add(c->A, s, "multikueue", KF_NBOOL)));
    yes->u.b = 1;
  } else if (!default_manager(v->u.s.p)) {
    return kfi_unmapped(c, p, v, "kfjob sets managedBy only for MultiKueue ("
                        KF_KUEUE_MULTIKUEUE ")");
  }
  return KF_OK;
}

kf_status kfi_sched_policy(kfi *c, const char *path, const kf_node *sp) {
  static const char *const known[] = {"minAvailable", "queue", "minResources",
                                      "priorityClass", "scheduleTimeoutSeconds", NULL};
  static const char *const rows[] = {"min_available", "queue", "min_resources",
                                     "priority_class", "schedule_timeout_seconds"};
  char p[KFI_PATH];
  kf_node *s, *g, *mr;
  size_t i;
  kf_status st;
  if ((st = kfi_want(c, path, sp, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, sp, known, NULL, NULL)) != KF_OK)
    return st;
  KF_OOM(c, (s = sched(c)) && (g = kf_obj_add(c->A, s, "gang", KF_NOBJ)));
  for (i = 0; known[i]; i++) {
    const kf_node *v = kf_node_get(sp, known[i]);
    if (v == NULL) continue;
    if (i != 2) {
      KF_OOM(c, kf_node_push(c->A, g, rows[i], (kf_node *)v));
      continue;
    }
    kfi_path(p, path, known[i]);
    if ((st = kfi_res_side(c, p, v, &mr)) != KF_OK) return st;
    if (mr) KF_OOM(c, kf_node_push(c->A, g, rows[i], mr));
  }
  return KF_OK;
}

/* ---- topology of groups with their own templates ----------------------- */

/* A copy of object o without key k (NULL: nothing left). */
static kf_node *drop_key(kfi *c, const kf_node *o, const char *k, int *oom) {
  kf_node *d = kf_node_new(c->A, KF_NOBJ);
  size_t i;
  for (i = 0; d && o && i < o->u.c.n; i++)
    if (strcmp(o->u.c.k[i], k) != 0 && !kf_node_push(c->A, d, o->u.c.k[i], o->u.c.v[i]))
      d = NULL;
  if (d == NULL) *oom = 1;
  return d && d->u.c.n ? d : NULL;
}

/* An annotation as the row's value, or NULL when kfjob would not write it. */
static kf_node *tas_value(kfi *c, const kf_field *f, const char *s) {
  int32_t n = 0;
  kf_node *b;
  if (f->type == KF_V_BOOL) {
    if (strcmp(s, "true") != 0 || (b = kf_node_new(c->A, KF_NBOOL)) == NULL) return NULL;
    b->u.b = 1;
    return b;
  }
  if (f->type == KF_V_INT) return kf_sched_label_value(2, s, &n) ? kf_node_int(c->A, n) : NULL;
  if (f->type == KF_V_TREE)   /* topology.slices' JSON; the constructor checks it */
    return (kf_node *)kf_sched_slices_parse(c->A, s);
  if (!kf_check_ok(f->check, s)) return NULL;   /* a level: a label name */
  return s[0] && !strpbrk(s, " \t\r\n") ? kf_node_str(c->A, s, strlen(s)) : NULL;
}

/* At most one mode (required, preferred, unconstrained), as R27 asks. */
static int one_mode(const kf_node *t) {
  return (kf_node_get(t, "required") != NULL) + (kf_node_get(t, "preferred") != NULL) +
         (kf_node_get(t, "unconstrained") != NULL) <= 1;
}

/* What one pod set's annotations held (the job's keys and the group's) is
** what kfjob writes for it: one mode, and slice_required with slice_size
** (R27); else they stay the templates'. */
static int podset_ok(const kf_node *job, const kf_node *g) {
  static const char *const modes[3] = {"required", "preferred", "unconstrained"};
  int i, n = 0, sr, ss;
  for (i = 0; i < 3; i++)
    n += kf_node_get(job, modes[i]) != NULL || kf_node_get(g, modes[i]) != NULL;
  sr = kf_node_get(job, "slice_required") != NULL || kf_node_get(g, "slice_required") != NULL;
  ss = kf_node_get(job, "slice_size") != NULL || kf_node_get(g, "slice_size") != NULL;
  return n <= 1 && sr == ss;
}

/* Group i's template without Kueue's topology annotations (and without
** what is left empty); the group loses its template when nothing is left. */
static kf_status strip_tas(kfi *c, kf_node *g) {
  const kf_node *t = kf_node_get(g, "pod_template"), *m = kf_node_get(t, "metadata");
  kf_node *an = (kf_node *)kf_node_get(m, "annotations"), *m2, *t2;
  size_t i;
  int oom = 0;
  for (i = 0; i < kf_topology_obj.n && an; i++)
    an = drop_key(c, an, kf_topology_obj.f[i].manifest, &oom);
  m2 = an ? (kf_node *)m : drop_key(c, m, "annotations", &oom);
  if (an && m2 && (m2 = drop_key(c, m2, "annotations", &oom)) != NULL)
    KF_OOM(c, kf_node_push(c->A, m2, "annotations", an));
  else if (an && !oom && (m2 = kf_node_new(c->A, KF_NOBJ)) != NULL)
    KF_OOM(c, kf_node_push(c->A, m2, "annotations", an));
  t2 = drop_key(c, t, "metadata", &oom);
  if (m2 && !oom) {
    if (t2 == NULL) KF_OOM(c, t2 = kf_node_new(c->A, KF_NOBJ));
    KF_OOM(c, kf_node_push(c->A, t2, "metadata", m2));
  }
  if (oom) return kf_nomem(c->e);
  for (i = 0; i < g->u.c.n; i++)
    if (strcmp(g->u.c.k[i], "pod_template") == 0) break;
  if (t2) g->u.c.v[i] = t2;
  else for (i++; i < g->u.c.n; i++) g->u.c.k[i - 1] = g->u.c.k[i], g->u.c.v[i - 1] = g->u.c.v[i];
  if (!t2) g->u.c.n--;
  return KF_OK;
}

/* Each row's annotation: the job's when every group shows the same, else
** the groups' own; 0 when one is not a value kfjob writes. */
static int split_tas(kfi *c, const kf_node *const *an, int n, kf_node *job, kf_node **gt) {
  size_t r;
  int i;
  for (r = 0; r < kf_topology_obj.n; r++) {
    const kf_field *f = &kf_topology_obj.f[r];
    const char *s0 = kfi_str(kf_node_get(an[0], f->manifest));
    int same = s0 != NULL;
    for (i = 1; i < n && same; i++) {
      const char *s = kfi_str(kf_node_get(an[i], f->manifest));
      same = s && strcmp(s, s0) == 0;
    }
    for (i = 0; i < (same ? 1 : n); i++) {
      const char *s = kfi_str(kf_node_get(an[i], f->manifest));
      kf_node *v = s ? tas_value(c, f, s) : NULL;
      if (s && (v == NULL || !kf_node_push(c->A, same ? job : gt[i], f->key, v))) return 0;
    }
  }
  return 1;
}

kf_status kfi_sched_group_topology(kfi *c) {
  const kf_kind_info *k = &kf_kinds[c->kind];
  kf_node *grp[KF_NROLES], *gt[KF_NROLES], *job, *s;
  const kf_node *an[KF_NROLES];
  int i, n = 0, any = 0;
  if (kf_node_get(c->spec, "pod_template")) return KF_OK;   /* kf_sched_topology_out */
  for (i = 0; i < k->nroles; i++) {
    kf_node *g = (kf_node *)kf_node_get(c->spec, kf_roles[k->roles[i].role].key);
    const kf_node *r = kf_node_get(g, "replicas");
    if (g == NULL || (r && r->t == KF_NINT && r->u.i == 0)) continue;
    an[n] = kf_node_get(kf_node_get(kf_node_get(g, "pod_template"), "metadata"), "annotations");
    KF_OOM(c, gt[n] = kf_node_new(c->A, KF_NOBJ));
    grp[n++] = g;
  }
  KF_OOM(c, job = kf_node_new(c->A, KF_NOBJ));
  if (n == 0 || !split_tas(c, an, n, job, gt) || !one_mode(job)) return KF_OK;
  for (i = 0; i < n; i++) {
    if (!one_mode(gt[i]) || !podset_ok(job, gt[i])) return KF_OK;
    any |= gt[i]->u.c.n > 0;
  }
  if (job->u.c.n == 0 && !any) return KF_OK;
  for (i = 0; i < n; i++) {
    kf_status st = an[i] ? strip_tas(c, grp[i]) : KF_OK;
    if (st != KF_OK) return st;
    if (gt[i]->u.c.n) KF_OOM(c, kf_node_push(c->A, grp[i], "topology", gt[i]));
  }
  if (job->u.c.n) KF_OOM(c, (s = sched(c)) && kf_node_push(c->A, s, "topology", job));
  return KF_OK;
}

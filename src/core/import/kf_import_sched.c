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

/* A label value scheduling holds: a Kueue name (R27), or for max exec time
** a decimal integer > 0 as kfjob writes it; else it stays a label. */
static int label_value(int i, const char *s, int64_t *secs) {
  int64_t n = 0;
  if (s == NULL) return 0;
  if (i < 2) return s[0] != '\0' && kf_dns1123_subdomain_problem(s) == NULL;
  if (s[0] < '1' || s[0] > '9') return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || n > 214748364) return 0;
    n = n * 10 + (*s - '0');
  }
  *secs = n;
  return n <= 0x7fffffff;
}

/* Kueue's labels of the resource -> scheduling; the others stay labels. */
static kf_status labels(kfi *c) {
  static const char *const keys[3] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC};
  static const char *const rows[3] = {"queue", "priority_class", "max_exec_time"};
  int taken[3] = {0, 0, 0}, i, any = 0;
  kf_node *s, *rest;
  if (c->labels == NULL || c->labels->t != KF_NOBJ || c->pod_kueue) return KF_OK;
  for (i = 0; i < 3; i++) {
    const char *v = kfi_str(kf_node_get(c->labels, keys[i]));
    int64_t secs = 0;
    if (!label_value(i, v, &secs)) continue;
    KFI_OOM(c, s = sched(c));
    KFI_OOM(c, i < 2 ? kf_obj_strref(c->A, s, rows[i], v) : kf_obj_int(c->A, s, rows[i], secs));
    taken[i] = any = 1;
  }
  if (!any) return KF_OK;
  KFI_OOM(c, rest = without(c, c->labels, keys, taken, 3));
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
  KFI_OOM(c, s = sched(c));
  KFI_OOM(c, g = kf_obj_add(c->A, s, "gang", KF_NOBJ));
  KFI_OOM(c, kf_obj_strref(c->A, g, "queue", v));
  KFI_OOM(c, rest = without(c, c->annotations, keys, taken, 1));
  info_set(c, "annotations", rest->u.c.n ? rest : NULL);
  return KF_OK;
}

kf_status kfi_sched_meta(kfi *c) {
  kf_status st = labels(c);
  if (st == KF_OK && c->target == KF_T_TRAINER_23) st = volcano(c);
  return st;
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
      KFI_OOM(c, (s = sched(c)) && (yes = kf_obj_add(c->A, s, "suspend", KF_NBOOL)));
      yes->u.b = 1;
    }
  }
  if ((v = kf_node_get(holder, "managedBy")) == NULL) return KF_OK;
  kfi_path(p, path, "managedBy");
  if ((st = kfi_want(c, p, v, KF_NSTR)) != KF_OK) return st;
  if (strcmp(v->u.s.p, KF_KUEUE_MULTIKUEUE) == 0) {
    KFI_OOM(c, (s = sched(c)) && (yes = kf_obj_add(c->A, s, "multikueue", KF_NBOOL)));
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
  KFI_OOM(c, (s = sched(c)) && (g = kf_obj_add(c->A, s, "gang", KF_NOBJ)));
  for (i = 0; known[i]; i++) {
    const kf_node *v = kf_node_get(sp, known[i]);
    if (v == NULL) continue;
    if (i != 2) {
      KFI_OOM(c, kf_node_push(c->A, g, rows[i], (kf_node *)v));
      continue;
    }
    kfi_path(p, path, known[i]);
    if ((st = kfi_res_side(c, p, v, &mr)) != KF_OK) return st;
    if (mr) KFI_OOM(c, kf_node_push(c->A, g, rows[i], mr));
  }
  return KF_OK;
}

/*
** kf_import_accel.c - the accelerator read back only from kfjob's whole
** shape (kube/kf_pod_manifest.c accelerator(), as flytek8s'
** AddNodeSelectorRequirements and its tolerations): in a pod with a GPU
** limit, every required node-selector term ending with the same
** requirements (the accelerator label In [device], then the partition
** label In [size] or DoesNotExist) and the tolerations ending with the
** NoSchedule tolerations of the device (and the size).  Anything else (two
** terms asking for different devices, a device list, an Exists toleration)
** is the user's affinity and tolerations, kept as written.
*/
#include <string.h>

#include "kf_pod.h"
#include "kf_import_int.h"

static const char *const aff_path[3] = {
    "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"};

static int str_is(const kf_node *n, const char *s) {
  const char *v = kfi_str(n);
  return v && strcmp(v, s) == 0;
}

/* A NodeSelectorRequirement {key, operator[, values: [one]]}; its value. */
static const char *req(const kf_node *r, const char *key, const char *op) {
  const kf_node *vs = kf_node_get(r, "values");
  int none = strcmp(op, "DoesNotExist") == 0;
  if (r == NULL || r->t != KF_NOBJ || r->u.c.n != (none ? 2u : 3u) ||
      !str_is(kf_node_get(r, "key"), key) || !str_is(kf_node_get(r, "operator"), op))
    return NULL;
  if (none) return "";
  return vs && vs->t == KF_NARR && vs->u.c.n == 1 ? kfi_str(vs->u.c.v[0]) : NULL;
}

static int toleration(const kf_node *t, const char *key, const char *value) {
  return t && t->t == KF_NOBJ && t->u.c.n == 4 && str_is(kf_node_get(t, "key"), key) &&
         str_is(kf_node_get(t, "operator"), "Equal") && str_is(kf_node_get(t, "value"), value) &&
         str_is(kf_node_get(t, "effect"), "NoSchedule");
}

int kfi_accel_gpu(const kf_node *spec) {
  const kf_node *cs = kf_node_get(spec, "containers");
  size_t i;
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++)
    if (kf_node_get(kf_node_get(kf_node_get(cs->u.c.v[i], "resources"), "limits"),
                    KF_GPU_RESOURCE))
      return 1;
  return 0;
}

static const kf_node *terms_of(const kf_node *spec) {
  const kf_node *n = kf_node_get(spec, "affinity");
  int d;
  for (d = 0; d < 3; d++) n = kf_node_get(n, aff_path[d]);
  return n && n->t == KF_NARR && n->u.c.n ? n : NULL;
}

/* The suffix of term 0's matchExpressions: the device's requirement and
** the partition's; 0 when it is not kfjob's. */
static int suffix(const kf_node *me, kfi_accel *a) {
  size_t n = me && me->t == KF_NARR ? me->u.c.n : 0;
  const char *v;
  if (n == 0) return 0;
  if ((a->device = req(me->u.c.v[n - 1], KF_ACCEL_LABEL, "In")) != NULL) return a->nreq = 1;
  if (n < 2 || (a->device = req(me->u.c.v[n - 2], KF_ACCEL_LABEL, "In")) == NULL) return 0;
  if ((v = req(me->u.c.v[n - 1], KF_PARTITION_LABEL, "In")) != NULL) a->partition = v;
  else if (req(me->u.c.v[n - 1], KF_PARTITION_LABEL, "DoesNotExist")) a->unpartitioned = 1;
  else return 0;
  return a->nreq = 2;
}

int kfi_accel_shape(const kf_node *spec, int gpu, kfi_accel *a) {
  const kf_node *terms = terms_of(spec), *me0, *ts = kf_node_get(spec, "tolerations");
  size_t i, x, nt;
  memset(a, 0, sizeof *a);
  if (!(gpu || kfi_accel_gpu(spec)) || terms == NULL || terms->u.c.v[0]->t != KF_NOBJ) return 0;
  me0 = kf_node_get(terms->u.c.v[0], "matchExpressions");
  if (!suffix(me0, a)) return memset(a, 0, sizeof *a), 0;
  for (i = 0; i < terms->u.c.n; i++) {
    const kf_node *t = terms->u.c.v[i], *me = kf_node_get(t, "matchExpressions");
    if (t->t != KF_NOBJ || me == NULL || me->t != KF_NARR || me->u.c.n < a->nreq) break;
    for (x = 0; x < a->nreq; x++)
      if (!kfi_equal(me->u.c.v[me->u.c.n - a->nreq + x], me0->u.c.v[me0->u.c.n - a->nreq + x]))
        break;
    /* a term left empty is one the writer makes only when there is none */
    if (x < a->nreq || (terms->u.c.n > 1 && me->u.c.n == a->nreq && t->u.c.n == 1)) break;
  }
  nt = a->partition ? 2 : 1;
  if (i < terms->u.c.n || ts == NULL || ts->t != KF_NARR || ts->u.c.n < nt ||
      !toleration(ts->u.c.v[ts->u.c.n - nt], KF_ACCEL_LABEL, a->device) ||
      (a->partition && !toleration(ts->u.c.v[ts->u.c.n - 1], KF_PARTITION_LABEL, a->partition)))
    return memset(a, 0, sizeof *a), 0;
  a->ntol = nt;
  return 1;
}

int kfi_accel_same(const kfi_accel *a, const kfi_accel *b) {
  return a->nreq == b->nreq && strcmp(a->device, b->device) == 0 &&
         a->unpartitioned == b->unpartitioned &&
         (a->partition == NULL ? b->partition == NULL
                               : b->partition && strcmp(a->partition, b->partition) == 0);
}

/* A shallow copy of object o without key (NULL: no memory). */
static kf_node *without(kf_arena *A, const kf_node *o, const char *key) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  size_t i;
  for (i = 0; d && o && i < o->u.c.n; i++)
    if (strcmp(o->u.c.k[i], key) != 0 && !kf_node_push(A, d, o->u.c.k[i], o->u.c.v[i]))
      return NULL;
  return d;
}

/* A list without its last n items (NULL: none left, or no memory: *oom). */
static kf_node *drop_last(kf_arena *A, const kf_node *l, size_t n, int *oom) {
  kf_node *d = kf_node_new(A, KF_NARR);
  size_t i;
  for (i = 0; d && i + n < l->u.c.n; i++)
    if (!kf_node_push(A, d, NULL, l->u.c.v[i])) d = NULL;
  *oom = d == NULL;
  return d && d->u.c.n ? d : NULL;
}

/* The affinity without the accelerator's requirements (kfi_accel_shape
** held); *keep NULL when nothing is left. */
static kf_status affinity(kfi *c, const kf_node *aff, const kfi_accel *a, kf_node **keep) {
  const kf_node *lvl[3], *terms;
  kf_node *nt, *cur;
  size_t i;
  int d, oom;
  lvl[0] = aff;
  for (d = 1; d < 3; d++) lvl[d] = kf_node_get(lvl[d - 1], aff_path[d - 1]);
  terms = kf_node_get(lvl[2], aff_path[2]);
  KF_OOM(c, nt = kf_node_new(c->A, KF_NARR));
  for (i = 0; i < terms->u.c.n; i++) {
    const kf_node *t = terms->u.c.v[i];
    kf_node *me = drop_last(c->A, kf_node_get(t, "matchExpressions"), a->nreq, &oom), *t2;
    KF_OOM(c, !oom && (t2 = without(c->A, t, "matchExpressions")));
    if (me) KF_OOM(c, kf_node_push(c->A, t2, "matchExpressions", me));
    if (t2->u.c.n) KF_OOM(c, kf_node_push(c->A, nt, NULL, t2));
  }
  cur = nt->u.c.n ? nt : NULL;
  for (d = 2; d >= 0; d--) {   /* the path again, without what became empty */
    kf_node *o;
    KF_OOM(c, o = without(c->A, lvl[d], aff_path[d]));
    if (cur) KF_OOM(c, kf_node_push(c->A, o, aff_path[d], cur));
    cur = o->u.c.n ? o : NULL;
  }
  *keep = cur;
  return KF_OK;
}

kf_status kfi_accel_take(kfi *c, const char *k, const kf_node *v, const kfi_accel *a,
                         kf_node **keep) {
  int oom;
  *keep = (kf_node *)v;
  if (a->device == NULL) return KF_OK;
  if (strcmp(k, "affinity") == 0) return affinity(c, v, a, keep);
  if (strcmp(k, "tolerations") == 0) {
    *keep = drop_last(c->A, v, a->ntol, &oom);
    return oom ? kf_nomem(c->e) : KF_OK;
  }
  return KF_OK;
}

kf_node *kfi_accel_node(kfi *c, const kfi_accel *a) {
  kf_node *o = kf_node_new(c->A, KF_NOBJ), *t;
  if (o == NULL || !kf_obj_strref(c->A, o, "device", a->device)) return NULL;
  if (a->partition && !kf_obj_strref(c->A, o, "partition_size", a->partition)) return NULL;
  if (a->unpartitioned) {
    if ((t = kf_node_new(c->A, KF_NBOOL)) == NULL) return NULL;
    t->u.b = 1;
    if (!kf_node_push(c->A, o, "unpartitioned", t)) return NULL;
  }
  return o;
}

/*
** kf_import_pod.c - one replica's pod template read back (the inverse of
** kube/kf_pod_manifest.c, which builds it as Flyte's backend does,
** pod_helper.go): the task's container (image, command, args, env,
** resources) out of the primary, the shared-memory volume and mount, the
** accelerator's node affinity and tolerations, the service account, and
** what is left as the job's pod template, its primary named "primary".
*/
#include <stdio.h>
#include <string.h>

#include "kf_pod.h"
#include "kf_qty.h"
#include "kf_sched.h"
#include "kf_import_int.h"

static int named(const kf_node *o, const char *name) {
  const char *s = kfi_str(kf_node_get(o, "name"));
  return s && strcmp(s, name) == 0;
}

/* ---- resources -------------------------------------------------------- */

kf_status kfi_res_side(kfi *c, const char *path, const kf_node *m, kf_node **out) {
  char p[KFI_PATH];
  const char *known[KF_NRES + 1];
  int r;
  kf_status st;
  kf_node *fixed, *ext;
  size_t i;
  for (r = 0; r < KF_NRES; r++) known[r] = kf_resources_obj.f[r].manifest;
  known[KF_NRES] = NULL;
  if ((st = kfi_want(c, path, m, KF_NOBJ)) != KF_OK) return st;
  /* another resource (amd.com/gpu, hugepages-2Mi) keeps its name: the
  ** constructor takes it as an extended resource and checks it */
  KF_OOM(c, fixed = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, ext = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < m->u.c.n; i++) {
    const char *k = m->u.c.k[i];
    if (m->u.c.v[i]->t == KF_NNUM) {   /* integral ones are integers (int_floats) */
      kfi_path(p, path, k);
      return kfi_fail(c, p, "must be an integer or a string, got the number %g: the CRD's "
                      "resources are int-or-string, so the API server refuses it (write "
                      "\"%gm\" or \"%g\")", m->u.c.v[i]->u.d, m->u.c.v[i]->u.d * 1000,
                      m->u.c.v[i]->u.d);
    }
    for (r = 0; r < KF_NRES && strcmp(known[r], k) != 0; r++) {}
    KF_OOM(c, kf_node_push(c->A, r == KF_NRES && kf_ext_res_key(k) ? ext : fixed, k,
                           m->u.c.v[i]));
  }
  if ((st = kfi_keys(c, path, fixed, known, NULL, NULL)) != KF_OK) return st;
  KF_OOM(c, *out = kf_node_new(c->A, KF_NOBJ));
  for (r = 0; r < KF_NRES; r++) {    /* in the rows' order */
    const kf_node *v = kf_node_get(m, known[r]);
    if (v == NULL) continue;
    kfi_path(p, path, known[r]);
    if (v->t != KF_NSTR && v->t != KF_NINT)
      return kfi_fail(c, p, "expected a quantity");
    if (v->t == KF_NSTR && kf_quantity_negative(v->u.s.p, v->u.s.n))   /* pod validation */
      return kfi_fail(c, p, "'%.60s' is negative: Kubernetes refuses negative requests "
                      "and limits (must be greater than or equal to 0)", v->u.s.p);
    if (v->t == KF_NSTR && !kf_quantity_ok(v->u.s.p, v->u.s.n))   /* apimachinery ParseQuantity */
      return kfi_fail(c, p, "invalid quantity '%.60s' (expected e.g. \"500m\", \"4Gi\", \"2\")",
                      v->u.s.p);
    KF_OOM(c, kf_node_push(c->A, *out, kf_resources_obj.f[r].key, (kf_node *)v));
  }
  for (i = 0; i < ext->u.c.n; i++)
    KF_OOM(c, kf_node_push(c->A, *out, ext->u.c.k[i], ext->u.c.v[i]));
  if ((*out)->u.c.n == 0) *out = NULL;
  return KF_OK;
}

/* A request equal to its limit is what the writer derives from the limit
** alone (kfm_group_resources: a missing request equals the limit): the
** smallest job that gives the manifest leaves it out. */
static kf_status drop_implied(kfi *c, kfi_pod *out) {
  kf_node *r = out->requests, *keep;
  size_t i;
  if (r == NULL || out->limits == NULL) return KF_OK;
  KF_OOM(c, keep = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < r->u.c.n; i++) {
    const kf_node *l = kf_node_get(out->limits, r->u.c.k[i]);
    if (l && kfi_equal(l, r->u.c.v[i])) continue;
    KF_OOM(c, kf_node_push(c->A, keep, r->u.c.k[i], r->u.c.v[i]));
  }
  out->requests = keep->u.c.n ? keep : NULL;
  return KF_OK;
}

static int zero_qty(const kf_node *v) {
  kf_qty q;
  if (v->t == KF_NINT) return v->u.i == 0;
  if (v->t == KF_NNUM) return v->u.d == 0;
  return v->t == KF_NSTR && kf_qty_parse(v->u.s.p, &q) == 0 && kf_qty_is_zero(&q);
}

/* A quantity node (a string, or a YAML integer) parsed, its text in b
** (cap 32); 0: none such. */
static int qty_of(const kf_node *v, kf_qty *q, char *b) {
  if (v->t == KF_NINT) snprintf(b, 32, "%lld", (long long)v->u.i);
  else if (v->t == KF_NSTR) snprintf(b, 32, "%s", v->u.s.p);
  else return 0;
  return kf_qty_parse(v->t == KF_NSTR ? v->u.s.p : b, q) == 0;
}

/* A request above its limit: the API server refuses the pod
** (validation.go validateResourceRequirements, "must be less than or equal
** to ... limit"), so the manifest runs nothing as written; kfjob's writer
** would lower the request (as Flyte's backend does) and change it.  Keys
** are kfjob's (kfi_res_side), paths the manifest's. */
static kf_status over_limits(kfi *c, const char *path, const kfi_pod *out) {
  const kf_node *r = out->requests;
  char p[KFI_PATH], q[KFI_PATH];
  size_t i;
  int k;
  for (i = 0; r && out->limits && i < r->u.c.n; i++) {
    const kf_node *l = kf_node_get(out->limits, r->u.c.k[i]);
    kf_qty a, b;
    char sa[32], sb[32];
    if (l == NULL || !qty_of(r->u.c.v[i], &a, sa) || !qty_of(l, &b, sb) ||
        kf_qty_is_zero(&b) || kf_qty_cmp(&a, &b) <= 0)
      continue;
    for (k = 0; k < KF_NRES && strcmp(kf_resources_obj.f[k].key, r->u.c.k[i]) != 0; k++) {}
    kfi_path(q, path, "requests");
    kfi_path(p, q, k < KF_NRES ? kf_resources_obj.f[k].manifest : r->u.c.k[i]);
    return kfi_fail(c, p, "%s is above its limit %s: the API server refuses the pod "
                    "(must be less than or equal to the limit, "
                    "validateResourceRequirements)", sa, sb);
  }
  return KF_OK;
}

/* An explicit request of 0 with a limit: Kubernetes keeps it (only a
** missing request takes the limit, core/v1 defaults.go), kfjob's job
** drops a zero quantity, as Flyte does (flytek8s ToK8sResourceList), and
** its writer then gives the request the limit: listed, and left out. */
static kf_status zero_requests(kfi *c, const char *path, kfi_pod *out) {
  kf_node *r = out->requests, *keep;
  char p[KFI_PATH], q[KFI_PATH];
  size_t i;
  int k;
  kf_status st;
  if (r == NULL || out->limits == NULL) return KF_OK;
  KF_OOM(c, keep = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < r->u.c.n; i++) {
    const kf_node *l = kf_node_get(out->limits, r->u.c.k[i]);
    if (l == NULL || !zero_qty(r->u.c.v[i]) || zero_qty(l)) {
      KF_OOM(c, kf_node_push(c->A, keep, r->u.c.k[i], r->u.c.v[i]));
      continue;
    }
    for (k = 0; k < KF_NRES && strcmp(kf_resources_obj.f[k].key, r->u.c.k[i]) != 0; k++) {}
    kfi_path(q, path, "requests");
    kfi_path(p, q, k < KF_NRES ? kf_resources_obj.f[k].manifest : r->u.c.k[i]);
    if ((st = kfi_unmapped(c, p, r->u.c.v[i], "an explicit request of 0 under a limit "
                           "(Kubernetes keeps it; kfjob's job drops a zero quantity, as "
                           "Flyte does, and its request becomes the limit)")) != KF_OK)
      return st;
  }
  out->requests = keep->u.c.n ? keep : NULL;
  return KF_OK;
}

kf_status kfi_resources(kfi *c, const char *path, const kf_node *res, kfi_pod *out) {
  static const char *const known[] = {"limits", "requests", NULL};
  static const char *const held_not[] = {"claims", NULL};
  char p[KFI_PATH];
  const kf_node *v;
  kf_status st;
  if ((st = kfi_want(c, path, res, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, res, known, held_not, NULL)) != KF_OK)
    return st;
  kfi_path(p, path, "limits");
  if ((v = kf_node_get(res, "limits")) && (st = kfi_res_side(c, p, v, &out->limits)) != KF_OK)
    return st;
  kfi_path(p, path, "requests");
  if ((v = kf_node_get(res, "requests")) && (st = kfi_res_side(c, p, v, &out->requests)) != KF_OK)
    return st;
  if ((st = over_limits(c, path, out)) != KF_OK || (st = zero_requests(c, path, out)) != KF_OK)
    return st;
  return drop_implied(c, out);
}

/* ---- kfjob's shared memory: only its whole shape ---------------------- */

static int str_is(const kf_node *n, const char *s) {
  const char *v = kfi_str(n);
  return v && strcmp(v, s) == 0;
}

int kfi_shm_volume(const kf_node *v) {
  const kf_node *ed = kf_node_get(v, "emptyDir");
  size_t i;
  if (v == NULL || v->t != KF_NOBJ || v->u.c.n != 2 || !named(v, KF_SHM_VOLUME) ||
      ed == NULL || ed->t != KF_NOBJ || !str_is(kf_node_get(ed, "medium"), "Memory"))
    return 0;
  for (i = 0; i < ed->u.c.n; i++)
    if (strcmp(ed->u.c.k[i], "medium") != 0 && strcmp(ed->u.c.k[i], "sizeLimit") != 0)
      return 0;
  return 1;
}

int kfi_shm_mount(const kf_node *m) {
  return m && m->t == KF_NOBJ && m->u.c.n == 2 && named(m, KF_SHM_VOLUME) &&
         str_is(kf_node_get(m, "mountPath"), KF_SHM_PATH);
}

/* Is the pod spec's shared memory kfjob's: one volume of that name in its
** shape, mounted so by the primary (the container of the kind's name, else
** the first) and by no other container?  Else it is the user's, as written. */
static int shm_whole(const kf_node *spec, const char *pname) {
  const kf_node *vs = kf_node_get(spec, "volumes"), *cs = kf_node_get(spec, "containers");
  size_t i, x, vols = 0, at = 0, mounts = 0, mine = 0;
  for (i = 0; vs && vs->t == KF_NARR && i < vs->u.c.n; i++)
    if (named(vs->u.c.v[i], KF_SHM_VOLUME)) vols += kfi_shm_volume(vs->u.c.v[i]) ? 1 : 2;
  if (vols != 1 || cs == NULL || cs->t != KF_NARR || cs->u.c.n == 0) return 0;
  for (i = 0; i < cs->u.c.n; i++)
    if (named(cs->u.c.v[i], pname)) { at = i; break; }
  for (i = 0; i < cs->u.c.n; i++) {
    const kf_node *ms = kf_node_get(cs->u.c.v[i], "volumeMounts");
    for (x = 0; ms && ms->t == KF_NARR && x < ms->u.c.n; x++)
      if (named(ms->u.c.v[x], KF_SHM_VOLUME)) {
        mounts++;
        mine += i == at && kfi_shm_mount(ms->u.c.v[x]);
      }
  }
  return mounts == 1 && mine == 1;
}

/* kfjob's shared memory size in pod spec s (true: no sizeLimit), or NULL. */
static const kf_node *shm_size(const kf_node *s, const char *pname) {
  static const kf_node yes = {KF_NBOOL, NULL, {0}};
  const kf_node *vs = kf_node_get(s, "volumes");
  size_t i;
  if (!shm_whole(s, pname)) return NULL;
  for (i = 0; i < vs->u.c.n; i++)
    if (kfi_shm_volume(vs->u.c.v[i])) {
      const kf_node *z = kf_node_get(kf_node_get(vs->u.c.v[i], "emptyDir"), "sizeLimit");
      return z ? z : &yes;
    }
  return NULL;
}

void kfi_pod_shapes(kfi *c, const kf_node *specs, const char *pname) {
  const kf_node *shm0 = NULL;
  kfi_accel a0, a;
  size_t i;
  int first = 1, sfirst = 1;
  memset(&a0, 0, sizeof a0);
  c->shm_mixed = c->accel_mixed = 0;
  for (i = 0; specs && specs->t == KF_NOBJ && i < specs->u.c.n; i++) {
    const kf_node *s = kf_node_get(kf_node_get(specs->u.c.v[i], "template"), "spec");
    const kf_node *z = shm_size(s, pname);
    int has = kfi_accel_shape(s, 0, &a);
    if (sfirst) shm0 = z, sfirst = 0;
    else if ((z == NULL) != (shm0 == NULL) || (z && !kfi_equal(z, shm0))) c->shm_mixed = 1;
    if (first && (has || kfi_accel_gpu(s))) a0 = a, first = 0;
    else if ((has || kfi_accel_gpu(s)) && (has != (a0.device != NULL) ||
                                            (has && !kfi_accel_same(&a, &a0))))
      c->accel_mixed = 1;
  }
}

/* ---- the primary container -------------------------------------------- */

/* Every env entry is the task's, valueFrom too, in its order (the job's
** container.env; the writers emit it before a Flyte pod template's own). */
static kf_status env_all(kfi *c, const char *path, const kf_node *env, kfi_pod *out) {
  kf_status st;
  if ((st = kfi_want(c, path, env, KF_NARR)) != KF_OK ||
      (st = kfi_env_check(c, path, env)) != KF_OK)
    return st;
  if (env->u.c.n) out->env = env;
  return KF_OK;
}

static kf_status primary(kfi *c, const char *path, const kf_node *ct, kfi_pod *out,
                         kf_node **rest) {
  char p[KFI_PATH];
  size_t i;
  kf_status st;
  KF_OOM(c, *rest = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, kf_obj_strref(c->A, *rest, "name", KF_PRIMARY_DEFAULT));
  for (i = 0; i < ct->u.c.n; i++) {
    const char *k = ct->u.c.k[i];
    const kf_node *v = ct->u.c.v[i];
    int row = kfi_container_row(k);
    st = KF_OK;
    kfi_path(p, path, k);
    if (strcmp(k, "name") == 0) continue;
    if (v->t == KF_NNIL && (strcmp(k, "command") == 0 || strcmp(k, "args") == 0 ||
                            strcmp(k, "env") == 0))
      continue;   /* null: as absent (the API server drops it) */
    if (row >= 0) out->own[row] = v;   /* image, ...: the group's */
    else if (strcmp(k, "command") == 0 || strcmp(k, "args") == 0) {
      if ((st = kfi_strings(c, p, v)) != KF_OK) return st;
      if (v->u.c.n == 0) continue;   /* []: as absent (omitempty: the API server drops it) */
      *(k[0] == 'c' ? &out->command : &out->args) = v;
    }
    else if (strcmp(k, "env") == 0) st = env_all(c, p, v, out);
    else if (strcmp(k, "resources") == 0) st = kfi_resources(c, p, v, out);
    else if (strcmp(k, "volumeMounts") == 0 && v->t == KF_NARR) {
      kf_node *l;
      size_t x;
      KF_OOM(c, l = kf_node_new(c->A, KF_NARR));
      for (x = 0; x < v->u.c.n; x++)
        if (!(out->shm_whole && kfi_shm_mount(v->u.c.v[x])))
          KF_OOM(c, kf_node_push(c->A, l, NULL, v->u.c.v[x]));
      if (l->u.c.n) KF_OOM(c, kf_node_push(c->A, *rest, k, l));
      continue;
    } else KF_OOM(c, kf_node_push(c->A, *rest, k, (kf_node *)v));
    if ((strcmp(k, "env") == 0 || strcmp(k, "resources") == 0) && st != KF_OK) return st;
  }
  return KF_OK;
}

/* The primary's place: the first container of the kind's name; with
** lossy, the first container (its name listed: the writer renames it). */
static kf_status primary_at(kfi *c, const char *path, const kf_node *cs, const char *pname,
                            size_t *at, kfi_pod *out) {
  char p[KFI_PATH], n[KFI_PATH], why[160];
  if (c->any_name && cs->u.c.n > 0 && cs->u.c.v[0]->t == KF_NOBJ) {
    /* mpi-operator newWorker/newLauncherPodTemplate: Containers[0] */
    const kf_node *nm = kf_node_get(cs->u.c.v[0], "name");
    *at = 0;
    if (nm && !named(cs->u.c.v[0], pname)) out->name = nm;
    return KF_OK;
  }
  for (*at = 0; *at < cs->u.c.n; (*at)++)
    if (named(cs->u.c.v[*at], pname)) return KF_OK;
  *at = 0;
  if (!c->lossy || cs->u.c.n == 0 || cs->u.c.v[0]->t != KF_NOBJ)
    return kfi_fail(c, path, "no container named '%s': the %s requires one (rename the "
                    "main container to '%s')", pname,
                    strcmp(pname, KF_TRAINER_NODE) == 0 ? "TrainJob's runtime" : "training-operator's webhook",
                    pname);
  kfi_index(p, path, 0);
  kfi_path(n, p, "name");
  snprintf(why, sizeof why, "the %s needs a container named '%s': rename the main "
           "container to '%s'", strcmp(pname, KF_TRAINER_NODE) == 0 ? "TrainJob's runtime"
           : "training-operator's webhook", pname, pname);
  return kfi_unmapped(c, n, kf_node_get(cs->u.c.v[0], "name"), why);
}

/* A name of list `l` (at `path`) that an earlier item of `l`, or (with
** `other`, named `oname`) an item of `other`, has: refused at it, before
** the main container is picked by its name (the CRD's list-map key;
** validateInitContainers: init containers and containers share one set
** of names; the pod template's own check no longer sees the main
** container's name once it is the job's).  Pairwise: a pod has few
** containers (past 64 the pod template's check finds it). */
static kf_status clash(kfi *c, const char *path, const kf_node *l, const kf_node *other,
                       const char *oname) {
  const kf_node *m = other ? other : l;
  char p[KFI_PATH], n[KFI_PATH];
  size_t i, k;
  if (!l || !m || l->t != KF_NARR || m->t != KF_NARR || l->u.c.n > 64 || m->u.c.n > 64)
    return KF_OK;
  for (i = 0; i < l->u.c.n; i++) {
    const char *a = kfi_str(kf_node_get(l->u.c.v[i], "name"));
    for (k = 0; a && k < (other ? m->u.c.n : i); k++) {
      const char *b = kfi_str(kf_node_get(m->u.c.v[k], "name"));
      if (b == NULL || strcmp(a, b) != 0) continue;
      kfi_index(p, path, i);
      kfi_path(n, p, "name");
      if (other == NULL) return kfi_fail(c, n, "duplicate (the same as item [%zu])", k);
      return kfi_fail(c, n, "Duplicate value: \"%.80s\" (the name of %s[%zu]: a pod's init "
                      "containers and containers share one set of names)", a, oname, k);
    }
  }
  return KF_OK;
}

static kf_status containers(kfi *c, const char *path, const kf_node *cs,
                            const char *pname, kfi_pod *out, kf_node *spec) {
  char p[KFI_PATH];
  kf_node *list, *rest = NULL;
  size_t i, at;
  kf_status st;
  if ((st = kfi_want(c, path, cs, KF_NARR)) != KF_OK || (st = clash(c, path, cs, NULL, NULL)) != KF_OK ||
      (st = primary_at(c, path, cs, pname, &at, out)) != KF_OK)
    return st;
  KF_OOM(c, list = kf_node_new(c->A, KF_NARR));
  for (i = 0; i < cs->u.c.n; i++) {
    const kf_node *ct = cs->u.c.v[i];
    kfi_index(p, path, i);
    if ((st = kfi_want(c, p, ct, KF_NOBJ)) != KF_OK) return st;
    if (i == at) {
      out->index = i;
      if ((st = primary(c, p, ct, out, &rest)) != KF_OK) return st;
      KF_OOM(c, kf_node_push(c->A, list, NULL, rest));
    } else {
      KF_OOM(c, kf_node_push(c->A, list, NULL, (kf_node *)ct));
    }
  }
  return kf_node_push(c->A, spec, "containers", list) ? KF_OK : kf_nomem(c->e);
}

/* ---- shared memory, accelerator --------------------------------------- */

static kf_status volumes(kfi *c, const kf_node *vs, kfi_pod *out, kf_node *spec) {
  kf_node *l;
  size_t i;
  if (vs->t != KF_NARR) return kf_node_push(c->A, spec, "volumes", (kf_node *)vs) ? KF_OK : kf_nomem(c->e);
  KF_OOM(c, l = kf_node_new(c->A, KF_NARR));
  for (i = 0; i < vs->u.c.n; i++) {
    const kf_node *v = vs->u.c.v[i], *ed = kf_node_get(v, "emptyDir");
    if (out->shm_whole && kfi_shm_volume(v)) {
      const kf_node *size = kf_node_get(ed, "sizeLimit");
      kf_node *t;
      KF_OOM(c, t = kf_node_new(c->A, KF_NBOOL));
      t->u.b = 1;
      out->shm = size ? size : t;
      continue;
    }
    KF_OOM(c, kf_node_push(c->A, l, NULL, (kf_node *)v));
  }
  if (l->u.c.n) KF_OOM(c, kf_node_push(c->A, spec, "volumes", l));
  return KF_OK;
}

/* ---- the pod ---------------------------------------------------------- */

/* A template's label or annotation the API server takes (kfi_meta_entry). */
static kf_status meta_entry(kfi *c, const char *path, int label, const char *k, const char *v) {
  char p[KFI_PATH];
  kfi_path(p, path, k);
  return kfi_meta_entry(c, p, label, k, v);
}

static const char *const kueue[] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC, NULL};

/* A template's Kueue label (queue-name, priority-class,
** max-exec-time-seconds): Kueue reads the resource's (jobframework
** QueueName), so the pods' copy of the resource's (scheduling's) is
** harmless and kept as written (Law 3); another value would be a second
** queue kfjob's scheduling cannot hold: refused (opts.lossy lists it).
** *keep: whether the template keeps it. */
static kf_status pod_kueue(kfi *c, const char *path, const char *k, const kf_node *v,
                           const char *mine, int *keep) {
  char p[KFI_PATH];
  *keep = mine && kfi_str(v) && strcmp(mine, kfi_str(v)) == 0;
  if (*keep) return KF_OK;
  kfi_path(p, path, k);
  return kfi_unmapped(c, p, v, "a Kueue label on a pod template: Kueue reads the "
                      "resource's metadata.labels (kfjob's scheduling), not the pods'; "
                      "a pod template may only repeat the resource's");
}

/* A template's labels and annotations: all of them, but on Flyte's
** targets those the resource has too (its backend puts the resource's on
** every pod; kfi_replicas checked that every template has them). */
static kf_status meta_rest(kfi *c, const char *path, const kf_node *m, kf_node *out) {
  static const char *const known[] = {"labels", "annotations", NULL};
  const kf_node *res[2];
  int k;
  size_t i;
  kf_status st;
  res[0] = c->labels, res[1] = c->annotations;
  if ((st = kfi_want(c, path, m, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, m, known, NULL, NULL)) != KF_OK)
    return st;
  for (k = 0; k < 2; k++) {
    const kf_node *v = kf_node_get(m, known[k]);
    kf_node *l;
    char p[KFI_PATH];
    if (v == NULL || v->t != KF_NOBJ) continue;
    kfi_path(p, path, known[k]);
    KF_OOM(c, l = kf_node_new(c->A, KF_NOBJ));
    for (i = 0; i < v->u.c.n; i++) {
      const char *mine = kfi_str(kf_node_get(res[k], v->u.c.k[i]));
      const char *s = kfi_str(v->u.c.v[i]);
      /* the pod's copy of a label of the resource (Kueue's too: they are
      ** scheduling, whichever the target); a pod's topology annotation is
      ** Kueue's, whatever the resource holds (Flyte 2 copies it there) */
      if (c->pod_copies && mine && s && strcmp(mine, s) == 0 && !(k == 1 && kfi_tas_key(v->u.c.k[i])))
        continue;
      if (k == 0 && kf_str_listed(kueue, v->u.c.k[i])) {
        int keep;
        if ((st = pod_kueue(c, p, v->u.c.k[i], v->u.c.v[i], mine, &keep)) != KF_OK) return st;
        if (!keep) continue;
      }
      if ((st = meta_entry(c, p, k == 0, v->u.c.k[i], s)) != KF_OK) return st;
      KF_OOM(c, kf_node_push(c->A, l, v->u.c.k[i], v->u.c.v[i]));
    }
    if (l->u.c.n) KF_OOM(c, kf_node_push(c->A, out, known[k], l));
  }
  return KF_OK;
}

int kfi_pod_row(const char *k) {
  size_t i;
  for (i = 0; i < kf_group_obj.n && i < KFI_GROUP_ROWS; i++) {
    const kf_field *f = &kf_group_obj.f[i];
    if (f->place == KF_M_POD && f->manifest && strcmp(f->manifest, k) == 0) return (int)i;
  }
  return -1;
}

static kf_status spec_key(kfi *c, const char *path, const char *k, const kf_node *v,
                          const char *pname, kfi_pod *out, kf_node *spec) {
  kf_node *keep;
  kf_status st;
  int row = kfi_pod_row(k);
  if (row >= 0) {   /* a group row placed in the pod spec: the group's */
    out->own[row] = v;
    return KF_OK;
  }
  if (strcmp(k, "containers") == 0) return containers(c, path, v, pname, out, spec);
  if (strcmp(k, "volumes") == 0) return volumes(c, v, out, spec);
  if (strcmp(k, "restartPolicy") == 0 && kfi_str(v) && strcmp(kfi_str(v), "Never") == 0)
    return KF_OK;   /* the writer's when the template has none */
  if ((st = kfi_accel_take(c, k, v, &out->ash, &keep)) != KF_OK) return st;
  if (keep) KF_OOM(c, kf_node_push(c->A, spec, k, keep));
  return KF_OK;
}

/* Only a name-only primary and nothing else: no template at all. */
static int bare(const kf_node *t) {
  const kf_node *s = kf_node_get(t, "spec"), *cs = kf_node_get(s, "containers");
  return kf_node_get(t, "metadata") == NULL && s &&
         (s->u.c.n == 0 || (s->u.c.n == 1 && cs && cs->u.c.n == 1 &&
                            cs->u.c.v[0]->u.c.n == 1));
}

kf_status kfi_pod_read(kfi *c, const char *path, const kf_node *tmpl,
                       const char *pname, kfi_pod *out) {
  static const char *const known[] = {"metadata", "spec", NULL};
  char p[KFI_PATH], sp[KFI_PATH];
  const kf_node *m, *s;
  kf_node *meta, *spec;
  size_t i;
  kf_status st;
  memset(out, 0, sizeof *out);
  KF_OOM(c, out->tmpl = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, meta = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, spec = kf_node_new(c->A, KF_NOBJ));
  if ((st = kfi_want(c, path, tmpl, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, tmpl, known, NULL, NULL)) != KF_OK)
    return st;
  kfi_path(p, path, "metadata");
  if ((m = kf_node_get(tmpl, "metadata")) && (st = meta_rest(c, p, m, meta)) != KF_OK)
    return st;
  kfi_path(sp, path, "spec");
  /* a Trainer runtime patch's pod template may patch only metadata
  ** (PodTemplatePatch.spec is optional; kfjob writes none for a pod of
  ** job-level scheduling annotations alone) */
  if ((s = kf_node_get(tmpl, "spec")) == NULL && strcmp(pname, KF_TRAINER_NODE) == 0)
    KF_OOM(c, s = kf_node_new(c->A, KF_NOBJ));
  if (s == NULL) return kfi_fail(c, sp, "required");
  if ((st = kfi_want(c, sp, s, KF_NOBJ)) != KF_OK) return st;
  if (kf_node_get(s, "containers") == NULL && strcmp(pname, KF_TRAINER_NODE) != 0) {
    kfi_path(p, sp, "containers");
    return kfi_fail(c, p, "required");
  }
  kfi_path(p, sp, "initContainers");
  if ((st = clash(c, p, kf_node_get(s, "initContainers"), kf_node_get(s, "containers"),
                  "containers")) != KF_OK)
    return st;
  out->shm_whole = !c->shm_mixed && shm_whole(s, pname);
  if (!c->accel_mixed) kfi_accel_shape(s, c->pod_gpu, &out->ash);
  for (i = 0; i < s->u.c.n; i++) {
    kfi_path(p, sp, s->u.c.k[i]);
    if ((st = spec_key(c, p, s->u.c.k[i], s->u.c.v[i], pname, out, spec)) != KF_OK)
      return st;
  }
  if (meta->u.c.n) KF_OOM(c, kf_node_push(c->A, out->tmpl, "metadata", meta));
  KF_OOM(c, kf_node_push(c->A, out->tmpl, "spec", spec));
  if (bare(out->tmpl)) out->tmpl = NULL;
  if (out->ash.device) KF_OOM(c, out->accel = kfi_accel_node(c, &out->ash));
  return KF_OK;
}

/*
** kf_import.c - a manifest read back into a job (SPEC §14): which target
** and kind it is (apiVersion, kind and shape), its metadata, the report,
** and the strict key matching every reader of the room uses.  The job is
** built by the constructors' own path (kf_job_from_spec) from a
** constructor-shaped node, so every rule of construction holds for it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "kf_sched.h"
#include "kf_import_int.h"

/* ---- what the manifest is --------------------------------------------- */

/* Whether a container's list `key` starts with horovodrun. */
static int starts_horovodrun(const kf_node *c, const char *key) {
  const kf_node *a = kf_node_get(c, key);
  const char *s = a && a->t == KF_NARR && a->u.c.n ? kfi_str(a->u.c.v[0]) : NULL;
  return s && strcmp(s, "horovodrun") == 0;
}

/* horovodrun as the launcher's command (mpi-operator's elastic example)
** or first argument (flytekit's line): flytekit's HorovodJob. */
static int horovod_launcher(const kf_node *spec, const char *specs) {
  const kf_node *l = kf_node_get(kf_node_get(spec, specs), "Launcher");
  const kf_node *cs = kf_node_get(kf_node_get(kf_node_get(l, "template"), "spec"),
                                  "containers");
  size_t i;
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++)
    if (starts_horovodrun(cs->u.c.v[i], "command") || starts_horovodrun(cs->u.c.v[i], "args"))
      return 1;
  return 0;
}

/* A TrainJob's kind by the runtime it names: JAX and XGBoost on theirs
** (kf_kinds' trainer_runtime), a PyTorchJob on any other. */
static int trainer_kind(const kf_node *spec) {
  const char *n = kfi_str(kf_node_get(kf_node_get(spec, "runtimeRef"), "name"));
  int k;
  for (k = 0; n && k < KF_NKINDS; k++)
    if (k != KF_PYTORCH && k != KF_ELASTIC && kf_kinds[k].trainer_runtime &&
        strcmp(kf_kinds[k].trainer_runtime, n) == 0)
      return k;
  return KF_PYTORCH;
}

static kf_status detect(kfi *c, const kf_node *doc, int want) {
  const char *api = kfi_str(kf_node_get(doc, "apiVersion"));
  const char *kind = kfi_str(kf_node_get(doc, "kind"));
  const kf_node *spec = kf_node_get(doc, "spec");
  int k;
  if (api == NULL || kind == NULL)
    return kfi_fail(c, api ? "kind" : "apiVersion", "required: a string (supported: %s)",
                    kf_import_supported());
  c->kind = -1;
  if (strcmp(api, "kubeflow.org/v1") == 0) {
    c->target = KF_T_OPERATOR;
    for (k = 0; k < KF_NKINDS; k++)
      if (strcmp(kf_kinds[k].crd_kind, kind) == 0) { c->kind = k; break; }
    if (c->kind == KF_PYTORCH && kf_node_get(spec, "elasticPolicy")) c->kind = KF_ELASTIC;
  } else if (strcmp(api, "kubeflow.org/v2beta1") == 0 && strcmp(kind, "MPIJob") == 0) {
    c->target = KF_T_MPI_OPERATOR, c->kind = KF_MPI;
  } else if (strcmp(api, KF_TRAINER_API) == 0 &&
             strcmp(kind, KF_TRAINER_KIND) == 0) {
    c->target = KF_T_TRAINER_23, c->kind = trainer_kind(spec);
  } else if (strcmp(api, "jobset.x-k8s.io/v1alpha2") == 0 && strcmp(kind, "JobSet") == 0) {
    /* a Flyte 2 clustered task: Elastic unless opts.kind says PyTorchJob */
    c->target = KF_T_CLUSTERED, c->kind = want == KF_PYTORCH ? KF_PYTORCH : KF_ELASTIC;
  }
  if (c->kind < 0) {   /* a near-miss: its did-you-mean (kf_import_docs.c) */
    char why[KF_ERRMAX / 2];
    if (kf_import_classify(doc, why, sizeof why) < 0) return kfi_fail(c, "", "%s", why);
    return kfi_fail(c, "", "apiVersion %.80s, kind %.80s: not a kind kfjob reads "
                    "(supported: %s)", api, kind, kf_import_supported());
  }
  if (c->kind == KF_MPI && horovod_launcher(spec, "mpiReplicaSpecs")) c->kind = KF_HOROVOD;
  if (c->target == KF_T_OPERATOR && (k = kfi_flyte_shape(c, doc)) >= 0)
    c->target = (kf_target)k;
  /* mpi-operator and a v1 MPIJob run containers[0] whatever its name */
  c->any_name = c->target == KF_T_MPI_OPERATOR ||
                (c->target == KF_T_OPERATOR && (c->kind == KF_MPI || c->kind == KF_HOROVOD));
  if (want >= 0) {
    int fam = c->kind == KF_ELASTIC ? KF_PYTORCH : c->kind == KF_HOROVOD ? KF_MPI : c->kind;
    int wfam = want == KF_ELASTIC ? KF_PYTORCH : want == KF_HOROVOD ? KF_MPI : want;
    if (want >= KF_NKINDS || fam != wfam)
      return kfi_fail(c, "opts.kind", "a %s cannot be read as %s", kind,
                      want < KF_NKINDS ? kf_kinds[want].name : "that kind");
    c->kind = want;
  }
  return KF_OK;
}

/* Whether the tree holds a string over KF_MAX_STRING (no paths: they are
** made only for the one that is reported). */
static int has_long(const kf_node *n) {
  size_t i;
  if (n->t == KF_NSTR) return n->u.s.n > KF_MAX_STRING;
  if (n->t != KF_NOBJ && n->t != KF_NARR) return 0;
  for (i = 0; i < n->u.c.n; i++)
    if (has_long(n->u.c.v[i])) return 1;
  return 0;
}

/* A string longer than the limit of one value (KF_MAX_STRING,
** docs/LIMITS.md), named by its path; the reader bounded the depth. */
static kf_status long_string(kfi *c, const char *path, const kf_node *n) {
  char p[KFI_PATH];
  size_t i;
  kf_status st;
  if (!has_long(n)) return KF_OK;
  if (n->t == KF_NSTR && n->u.s.n > KF_MAX_STRING)
    return kfi_fail(c, path, "a string of %zu bytes, over the limit of %u",
                    n->u.s.n, KF_MAX_STRING);
  if (n->t != KF_NOBJ && n->t != KF_NARR) return KF_OK;
  for (i = 0; i < n->u.c.n; i++) {
    if (n->t == KF_NOBJ) kfi_path(p, path, n->u.c.k[i]);
    else kfi_index(p, path, i);
    if ((st = long_string(c, p, n->u.c.v[i])) != KF_OK) return st;
  }
  return KF_OK;
}

/* ---- metadata ---------------------------------------------------------- */

/* Labels (`label`) or annotations: strings under keys, each as the API
** server takes it (apimachinery ValidateLabels, ValidateAnnotations) and
** the job's rows check it. */
static kf_status string_map(kfi *c, const char *path, const kf_node *m, int label) {
  char p[KFI_PATH];
  size_t i;
  kf_status st;
  if ((st = kfi_want(c, path, m, KF_NOBJ)) != KF_OK) return st;
  for (i = 0; i < m->u.c.n; i++) {
    const char *v = kfi_str(m->u.c.v[i]);
    kfi_path(p, path, m->u.c.k[i]);
    if ((st = kfi_want(c, p, m->u.c.v[i], KF_NSTR)) != KF_OK) return st;
    if ((st = kfi_meta_entry(c, p, label, m->u.c.k[i], v)) != KF_OK) return st;
  }
  return KF_OK;
}

/* metadata.name, or (none) generateName read as the name's prefix
** without its last '-' ("pi-" names the job "pi"): kfjob emits a name,
** and the API server appends 5 characters to the prefix (apimachinery
** names.go SimpleNameGenerator); info.generate_name keeps the prefix. */
static kf_status meta_name(kfi *c, const kf_node *m) {
  const kf_node *v = kf_node_get(m, "name"), *g = kf_node_get(m, "generateName");
  kf_status st;
  if (g && (st = kfi_want(c, "metadata.generateName", g, KF_NSTR)) != KF_OK) return st;
  if (v == NULL && g) {
    size_t n = g->u.s.n;
    while (n && g->u.s.p[n - 1] == '-') n--;
    if (n == 0) return kfi_fail(c, "metadata.generateName", "'%.100s': no name before "
                                "the generated suffix (set metadata.name)", g->u.s.p);
    KF_OOM(c, kf_node_push(c->A, c->info, "generate_name", (kf_node *)g));
    KF_OOM(c, v = kf_node_str(c->A, g->u.s.p, n));
  } else if (g) {   /* the API server ignores it when a name is set */
    KF_OOM(c, kf_node_push(c->A, c->ignored, NULL,
                            kf_node_str(c->A, "metadata.generateName", 21)));
  }
  if (v == NULL) return kfi_fail(c, "metadata.name", "required (or generateName)");
  if ((st = kfi_want(c, "metadata.name", v, KF_NSTR)) != KF_OK) return st;
  KF_OOM(c, kf_node_push(c->A, c->info, "name", (kf_node *)v));
  return KF_OK;
}

/* The kind's job rows placed in the resource's metadata (KF_M_METADATA),
** each under its key; `known` gets their keys after the first n. */
static size_t meta_rows(const kfi *c, const char **known, size_t n, size_t cap) {
  const kf_kind_info *k = &kf_kinds[c->kind];
  size_t i;
  for (i = 0; i < k->nfields && n + 1 < cap; i++)
    if (k->fields[i].place == KF_M_METADATA && k->fields[i].manifest)
      known[n++] = k->fields[i].manifest;
  known[n] = NULL;
  return n;
}

static kf_status meta_placed(kfi *c, const kf_node *m) {
  const kf_kind_info *k = &kf_kinds[c->kind];
  const kf_node *v;
  size_t i;
  for (i = 0; i < k->nfields; i++)
    if (k->fields[i].place == KF_M_METADATA && k->fields[i].manifest &&
        (v = kf_node_get(m, k->fields[i].manifest)) != NULL)
      KF_OOM(c, kf_node_push(c->A, c->spec, k->fields[i].key, (kf_node *)v));
  return KF_OK;
}

static kf_status metadata(kfi *c, const kf_node *m) {
  const char *known[16] = {"name", "namespace", "labels", "annotations", "generateName"};
  static const char *const held_not[] = {"finalizers", "ownerReferences", NULL};
  static const char *const server[] = {"uid", "resourceVersion", "creationTimestamp",
                                       "managedFields", "generation", "selfLink",
                                       "deletionTimestamp", "deletionGracePeriodSeconds",
                                       NULL};
  const kf_node *v;
  kf_status st;
  meta_rows(c, known, 5, sizeof known / sizeof *known);
  if (m == NULL) return kfi_fail(c, "metadata", "required");
  if ((st = kfi_want(c, "metadata", m, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, "metadata", m, known, held_not, server)) != KF_OK)
    return st;
  if ((st = meta_name(c, m)) != KF_OK) return st;
  if ((v = kf_node_get(m, "namespace")) != NULL) {
    if ((st = kfi_want(c, "metadata.namespace", v, KF_NSTR)) != KF_OK) return st;
    if (strlen(v->u.s.p) != v->u.s.n || !kf_check_ok(KF_CHECK_DNS_LABEL, v->u.s.p))
      return kfi_fail(c, "metadata.namespace", "'%.100s' is not a DNS-1123 label (at most "
                      "63 lowercase letters, digits and '-', starting and ending with a "
                      "letter or digit)", v->u.s.p);
    KF_OOM(c, kf_node_push(c->A, c->info, "namespace", (kf_node *)v));
  }
  if ((v = c->labels = kf_node_get(m, "labels")) != NULL) {
    if ((st = string_map(c, "metadata.labels", v, 1)) != KF_OK) return st;
    KF_OOM(c, kf_node_push(c->A, c->info, "labels", (kf_node *)v));
  }
  if ((v = c->annotations = kf_node_get(m, "annotations")) != NULL) {
    if ((st = string_map(c, "metadata.annotations", v, 0)) != KF_OK) return st;
    KF_OOM(c, kf_node_push(c->A, c->info, "annotations", (kf_node *)v));
  }
  return meta_placed(c, m);
}

/* ---- the spec of kubeflow.org/v1 and v2beta1 ---------------------------- */

/* mpi-operator v0.8's defaults (SetDefaults_MPIJob, FACTS §8.3.1): a
** field at its default says nothing kfjob's MPIJob does not. */
static const kf_node *v2_defaults(kfi *c, const kf_node *spec) {
  static const char *const dflt[][2] = {{"sshAuthMountPath", "/root/.ssh"},
                                        {"launcherCreationPolicy", "AtStartup"},
                                        {"mpiImplementation", "OpenMPI"}};
  kf_node *d = kf_node_new(c->A, KF_NOBJ);
  size_t i;
  int k, drop;
  for (i = 0; d && i < spec->u.c.n; i++) {
    const char *key = spec->u.c.k[i];
    const kf_node *v = spec->u.c.v[i];
    drop = strcmp(key, "runLauncherAsWorker") == 0 && v->t == KF_NBOOL && !v->u.b;
    for (k = 0; k < 3; k++)
      drop |= strcmp(key, dflt[k][0]) == 0 && kfi_str(v) && strcmp(kfi_str(v), dflt[k][1]) == 0;
    if (!drop && !kf_node_push(c->A, d, key, (kf_node *)v)) return NULL;
  }
  return d;
}

/* The run policy; a v1 MPIJob's spec.cleanPodPolicy is its
** cleanPodPolicy when runPolicy has none (training-operator v1.9.3
** mpijob_controller.go keeps the two in step, runPolicy's first). */
static kf_status v1_mpi_clean(kfi *c, const kf_node *spec, const kf_node **rp) {
  const kf_node *old = kf_node_get(spec, "cleanPodPolicy");
  kf_node *d;
  *rp = kf_node_get(spec, "runPolicy");
  if (old == NULL || (*rp && (*rp)->t != KF_NOBJ) || kf_node_get(*rp, "cleanPodPolicy")) return KF_OK;
  KF_OOM(c, d = kf_node_copy_shallow(c->A, *rp, KF_NOBJ));
  KF_OOM(c, kf_node_put(c->A, d, "cleanPodPolicy", (kf_node *)old));
  *rp = d;
  return KF_OK;
}

/* A job row of the mpi-operator's own spec fields (place KF_M_MPI_SPEC). */
static int mpi_operator_row(const kf_field *f) {
  return f->place == KF_M_MPI_SPEC && f->manifest != NULL;
}

/* A TFJob's spec fields written as their defaults (tfjob_types.go:
** successPolicy "" is SuccessPolicyDefault, enableDynamicWorker false the
** zero value): they mean what leaving them out means, so they are listed
** in info.ignored and read as absent.  NULL: no memory. */
static const kf_node *tf_defaults(kfi *c, const kf_node *spec) {
  const kf_node *sp = kf_node_get(spec, "successPolicy"), *dw = kf_node_get(spec, "enableDynamicWorker");
  int s0 = sp && sp->t == KF_NSTR && sp->u.s.n == 0, d0 = dw && dw->t == KF_NBOOL && !dw->u.b;
  kf_node *copy;
  size_t i;
  if (c->kind != KF_TFJOB || (!s0 && !d0)) return spec;
  if ((copy = kf_node_new(c->A, KF_NOBJ)) == NULL) return NULL;
  for (i = 0; i < spec->u.c.n; i++) {
    const char *k = spec->u.c.k[i];
    if ((s0 && strcmp(k, "successPolicy") == 0) || (d0 && strcmp(k, "enableDynamicWorker") == 0)) {
      char p[KFI_PATH];
      kfi_path(p, "spec", k);
      if (!kf_node_push(c->A, c->ignored, NULL, kf_node_str(c->A, p, strlen(p)))) return NULL;
    } else if (!kf_node_push(c->A, copy, k, spec->u.c.v[i])) {
      return NULL;
    }
  }
  return copy;
}

static kf_status v1_spec(kfi *c, const kf_node *spec) {
  static const char *const v1_held_not[] = {"successPolicy", "mainContainer",
                                            "enableDynamicWorker", NULL};
  static const char *const v2_held_not[] = {NULL};
  const kf_kind_info *k = &kf_kinds[c->kind];
  const char *known[16];
  const kf_node *v;
  int n = 0;
  kf_status st;
  known[n++] = k->crd_specs, known[n++] = "runPolicy";
  if (k->flags & KF_K_SLOTS) known[n++] = "slotsPerWorker";
  if (k->flags & KF_K_ELASTIC) known[n++] = "elasticPolicy", known[n++] = "nprocPerNode";
  if (c->kind == KF_PYTORCH) known[n++] = "nprocPerNode";
  if (c->target == KF_T_MPI_OPERATOR) {
    size_t i;
    for (i = 0; i < k->nfields && n + 2 < (int)(sizeof known / sizeof *known); i++)
      if (mpi_operator_row(&k->fields[i])) known[n++] = k->fields[i].manifest;
  } else if (k->flags & KF_K_SLOTS) {
    known[n++] = "cleanPodPolicy";   /* v1 MPIJob's old place */
  }
  known[n] = NULL;
  if ((c->target == KF_T_MPI_OPERATOR && (spec = v2_defaults(c, spec)) == NULL) ||
      (spec = tf_defaults(c, spec)) == NULL)
    return kf_nomem(c->e);
  if ((st = kfi_keys(c, "spec", spec, known,
                     c->target == KF_T_MPI_OPERATOR ? v2_held_not : v1_held_not,
                     NULL)) != KF_OK)
    return st;
  if (c->target == KF_T_MPI_OPERATOR) {   /* the job's fields of the same names */
    size_t i;
    for (i = 0; i < k->nfields; i++)
      if (mpi_operator_row(&k->fields[i]) && (v = kf_node_get(spec, k->fields[i].manifest)))
        KF_OOM(c, kf_node_push(c->A, c->spec, k->fields[i].key, (kf_node *)v));
  }
  if (c->kind == KF_PYTORCH && (v = kf_node_get(spec, "nprocPerNode")) != NULL &&
      (st = kfi_nproc(c, "spec.nprocPerNode", v)) != KF_OK)
    return st;
  if ((v = kf_node_get(spec, "slotsPerWorker")) != NULL)
    KF_OOM(c, kf_node_push(c->A, c->spec, "slots", (kf_node *)v));
  if ((k->flags & KF_K_ELASTIC) && (st = kfi_elastic(c, spec)) != KF_OK) return st;
  if ((st = v1_mpi_clean(c, spec, &v)) != KF_OK ||
      (v && (st = kfi_run_policy(c, "spec.runPolicy", v)) != KF_OK))
    return st;
  if ((v = kf_node_get(spec, k->crd_specs)) == NULL) {
    char p[KFI_PATH];
    kfi_path(p, "spec", k->crd_specs);
    return kfi_fail(c, p, "required");
  }
  return kfi_replicas(c, "spec", spec);
}

/* ---- the entry -------------------------------------------------------- */

/* Where the resource lives is the job's: its namespace, and the labels
** and annotations info keeps once scheduling took Kueue's (and a
** TrainJob's Volcano queue). */
static kf_status whole_meta(kfi *c) {
  static const char *const keys[] = {"namespace", "labels", "annotations", NULL};
  const kf_node *v;
  int i;
  for (i = 0; keys[i]; i++)
    if ((v = kf_node_get(c->info, keys[i])) != NULL)
      KF_OOM(c, kf_node_push(c->A, c->spec, keys[i], (kf_node *)v));
  return KF_OK;
}

static kf_status start(kfi *c, const kf_import_opts *o, kf_arena *A, kf_err *e) {
  memset(c, 0, sizeof *c);
  c->A = A, c->e = e, c->who = o && o->who ? o->who : "kfjob.from_manifest";
  c->lossy = o && o->lossy;
  c->keep_launcher = o && o->keep_launcher;
  KF_OOM(c, c->spec = kf_node_new(A, KF_NOBJ));
  KF_OOM(c, c->info = kf_node_new(A, KF_NOBJ));
  KF_OOM(c, c->ct = kf_node_new(A, KF_NOBJ));
  KF_OOM(c, c->unmapped = kf_node_new(A, KF_NARR));
  KF_OOM(c, c->ignored = kf_node_new(A, KF_NARR));
  return KF_OK;
}

static kf_status finish_info(kfi *c, const kf_node *doc) {
  kf_node *i = c->info;
  /* the manifest's kind beside its apiVersion; the job's is job.kind */
  KF_OOM(c, kf_node_push(c->A, i, "kind", kf_node_get(doc, "kind")));
  KF_OOM(c, kf_node_push(c->A, i, "api_version", kf_node_get(doc, "apiVersion")));
  KF_OOM(c, kf_obj_strref(c->A, i, "target", kf_target_names[c->target]));
  KF_OOM(c, kf_node_push(c->A, i, "container", c->ct));
  KF_OOM(c, kf_node_push(c->A, i, "unmapped", c->unmapped));
  KF_OOM(c, kf_node_push(c->A, i, "ignored", c->ignored));
  return KF_OK;
}

/* A row the constructor refused ("run_policy.clean_pod_policy: unknown
** ...", "worker.pod_template.spec.containers[2].name: ..."): named where it
** is in the manifest (kf_import_where: 0-based list items), else the
** message stays. */
static kf_status manifest_path(kfi *c, const kf_node *doc, const char *ctor) {
  char msg[KF_ERRMAX], problem[KF_ERRMAX], *at, *end;
  const char *where;
  size_t n = strlen(ctor);
  snprintf(msg, sizeof msg, "%s", c->e->msg);
  if (strncmp(msg, ctor, n) != 0 || strncmp(msg + n, ": ", 2) != 0) return c->e->code;
  at = msg + n + 2;
  if ((end = strstr(at, ": ")) == NULL) return c->e->code;
  *end = '\0';
  if ((where = kf_import_where(doc, c->kind, at, NULL, c->A)) == NULL) return kf_nomem(c->e);
  if (strcmp(where, at) == 0) return c->e->code;
  kfi_problem0(problem, sizeof problem, end + 2);
  return kfi_fail(c, "", "%s: %s", where, problem);
}

/* The tree with each integral float an integer (NULL: no memory), shared
** where nothing changes: `replicas: 3.0` is 3 to the API server (kubectl
** sends YAML's 3.0 as JSON's 3, sigs.k8s.io/yaml; Go's encoding/json
** writes float64 3 as 3), so every integer field reads it as 3. */
static const kf_node *int_floats(kf_arena *A, const kf_node *n) {
  kf_node *copy = NULL;
  size_t i;
  if (n == NULL) return n;
  if (n->t == KF_NNUM) {
    kf_node *x;
    if (!(n->u.d == floor(n->u.d) && fabs(n->u.d) <= 9007199254740992.0)) return n;
    if ((x = kf_node_new(A, KF_NINT)) != NULL) x->u.i = (int64_t)n->u.d;
    return x;
  }
  if (n->t != KF_NOBJ && n->t != KF_NARR) return n;
  for (i = 0; i < n->u.c.n; i++) {
    const kf_node *v = int_floats(A, n->u.c.v[i]);
    if (v == NULL) return NULL;
    if (v == n->u.c.v[i]) continue;
    if (copy == NULL && (copy = kf_node_copy_shallow(A, n, n->t)) == NULL) return NULL;
    copy->u.c.v[i] = (kf_node *)v;
  }
  return copy ? copy : n;
}

/* Where no_nulls is: an object's key or a list's index, under `up`; the
** path is spelled only for what is listed. */
typedef struct nn_step {
  const struct nn_step *up;
  const char *key;
  size_t idx;
} nn_step;

/* The manifest path of step s (kfi_path's spelling, list indices from 0). */
static void step_path(const nn_step *s, char *out) {
  char up[KFI_PATH];
  if (s == NULL) {
    out[0] = '\0';
    return;
  }
  step_path(s->up, up);
  if (s->key) {
    kfi_path(out, up, s->key);
  } else {
    char ix[24];
    snprintf(ix, sizeof ix, "[%zu]", s->idx);
    snprintf(out, KFI_PATH, "%.200s%s", up, ix);
  }
}

/* `creationTimestamp: null` in any metadata (a template's too) is what
** kubectl <= 1.33 prints for a zero ObjectMeta time (apimachinery meta/v1
** time.go MarshalJSON): a server-set field, never written, listed in
** info.ignored as the others (SPEC §14).  0: no memory. */
static int null_stamp(kfi *c, const nn_step *at, const char *k) {
  nn_step s;
  char p[KFI_PATH];
  if (at == NULL || at->key == NULL || strcmp(at->key, "metadata") != 0 ||
      strcmp(k, "creationTimestamp") != 0)
    return 1;
  s.up = at, s.key = k, s.idx = 0;
  step_path(&s, p);
  return kf_node_push(c->A, c->ignored, NULL, kf_node_str(c->A, p, strlen(p)));
}

/* The tree without the object members whose value is null (NULL: no
** memory), shared where nothing changes: the API server prunes a null
** field that is not nullable before defaulting (apiextensions-apiserver
** structural schemas; no kubeflow CRD field is nullable), so `nodeSelector:
** ~` or `runPolicy: null`, as Helm's toYaml writes them, mean unset. */
static const kf_node *no_nulls(kfi *c, const kf_node *n, const nn_step *at) {
  kf_node *copy = NULL;
  size_t i, o = 0;
  if (n == NULL || (n->t != KF_NOBJ && n->t != KF_NARR)) return n;
  for (i = 0; i < n->u.c.n; i++) {
    const kf_node *v = n->u.c.v[i], *w;
    nn_step s;
    s.up = at, s.key = n->t == KF_NOBJ ? n->u.c.k[i] : NULL, s.idx = i;
    if (v->t == KF_NNIL && n->t == KF_NOBJ) {
      if (!null_stamp(c, at, n->u.c.k[i])) return NULL;
      w = NULL;
    } else if ((w = no_nulls(c, v, &s)) == NULL) {
      return NULL;
    }
    if (w != v && copy == NULL) {
      if ((copy = kf_node_copy_shallow(c->A, n, n->t)) == NULL) return NULL;
      o = i;
    }
    if (copy == NULL || w == NULL) continue;
    if (n->t == KF_NOBJ) copy->u.c.k[o] = n->u.c.k[i];
    copy->u.c.v[o++] = (kf_node *)w;
  }
  if (copy) copy->u.c.n = o;
  return copy ? copy : n;
}

kf_status kf_import(const kf_node *doc, const kf_import_opts *o, kf_arena *A,
                    kf_job *out, kf_node **info, kf_err *e) {
  static const char *const top[] = {"apiVersion", "kind", "metadata", "spec", NULL};
  static const char *const server[] = {"status", NULL};
  char ctor[96];
  const kf_node *spec;
  kfi c;
  kf_status st;
  int clustered = 0;
  const kf_node *orig;
  if ((st = start(&c, o, A, e)) != KF_OK) return st;
  if ((doc = no_nulls(&c, doc, NULL)) == NULL || (doc = int_floats(A, doc)) == NULL)
    return kf_nomem(e);
  orig = doc;
  if (doc == NULL || doc->t != KF_NOBJ)
    return kfi_fail(&c, "", "expected a manifest (an object with apiVersion and kind)");
  if ((st = long_string(&c, "", doc)) != KF_OK ||
      (st = detect(&c, doc, o ? o->kind : -1)) != KF_OK)
    return st;
  if (c.target == KF_T_CLUSTERED) {   /* read as the v1 PyTorchJob it stands for */
    if ((st = kfi_keys(&c, "", doc, top, NULL, server)) != KF_OK ||
        (st = kfi_jobset_doc(&c, doc, (kf_node **)&doc)) != KF_OK)
      return st;
    c.target = KF_T_OPERATOR, clustered = 1;
  }
  if ((st = kfi_keys(&c, "", doc, top, NULL, server)) != KF_OK ||
      (st = metadata(&c, kf_node_get(doc, "metadata"))) != KF_OK)
    return st;
  if ((spec = kf_node_get(doc, "spec")) == NULL) return kfi_fail(&c, "spec", "required");
  if ((st = kfi_want(&c, "spec", spec, KF_NOBJ)) != KF_OK) return st;
  if ((c.target == KF_T_FLYTE || c.target == KF_T_FLYTE2) &&
      (spec = kfi_plain_spec(&c, spec)) == NULL)
    return kf_nomem(e);
  st = KF_T_IS_TRAINER(c.target) ? kfi_trainer(&c, spec) : v1_spec(&c, spec);
  if (st != KF_OK || (st = kfi_sched_meta(&c)) != KF_OK || (st = whole_meta(&c)) != KF_OK ||
      (!KF_T_IS_TRAINER(c.target) && (st = kfi_sched_group_topology(&c)) != KF_OK) ||
      (clustered && (st = kfi_jobset_finish(&c)) != KF_OK))
    return st;
  /* a Flyte pod template job with shared memory whose template held only
  ** what the job has fields for (the primary's env): still one, written
  ** without terminationMessagePolicy again (shared memory alone is the
  ** container target's, which has it) */
  if ((c.target == KF_T_FLYTE || c.target == KF_T_FLYTE2) && kfi_flyte_pod_job(&c, doc) &&
      kf_node_get(c.spec, "pod_template") == NULL && kf_node_get(c.spec, "shared_memory"))
    KF_OOM(&c, kf_obj_add(A, c.spec, "pod_template", KF_NOBJ));
  if (clustered) c.target = KF_T_CLUSTERED, doc = orig;   /* info: the JobSet's */
  snprintf(ctor, sizeof ctor, "%s (as kfjob.%s)", c.who, kf_kinds[c.kind].name);
  if ((st = kf_job_from_spec(c.kind, c.spec, A, out, ctor, e)) != KF_OK)
    return st == KF_EINVAL ? manifest_path(&c, doc, ctor) : st;
  if ((st = kf_sched_topology_out(out, A, e)) != KF_OK) return st;
  if ((st = finish_info(&c, doc)) != KF_OK) return st;
  *info = c.info;
  return KF_OK;
}

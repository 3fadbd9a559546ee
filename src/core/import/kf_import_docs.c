/*
** kf_import_docs.c - what a stream's documents are to import, before any
** is read: a List's items in its place (kubectl's resource.Builder
** flattens `kind: List`, as `kubectl get -o yaml` writes it, and typed
** lists such as PyTorchJobList), and each document a job kfjob reads, a
** document of another kind (copied through, skipped), or a refusal: a
** kind of a group whose kinds kfjob knows (kubeflow.org,
** trainer.kubeflow.org, Flyte's) that it does not read, or a near-miss of
** a job kind anywhere ("PytorchJob": the API server matches kinds exactly,
** so such a document would never reach the operator).
*/
#include <stdio.h>
#include <string.h>

#include "kf_import_int.h"

static const char supported[] =
    "kubeflow.org/v1 TFJob, PyTorchJob, MPIJob, JAXJob, XGBoostJob or PaddleJob; "
    "kubeflow.org/v2beta1 MPIJob; trainer.kubeflow.org/v1alpha1 TrainJob; "
    "jobset.x-k8s.io/v1alpha2 JobSet (a Flyte 2 clustered task)";
const char *kf_import_supported(void) { return supported; }

int kf_import_reads(const kf_node *doc) {
  const char *api = kfi_str(kf_node_get(doc, "apiVersion"));
  const char *kind = kfi_str(kf_node_get(doc, "kind"));
  int k;
  if (api == NULL || kind == NULL) return 0;
  if (strcmp(api, "kubeflow.org/v1") == 0) {
    for (k = 0; k < KF_NKINDS; k++)
      if (strcmp(kf_kinds[k].crd_kind, kind) == 0) return 1;
    return 0;
  }
  return (strcmp(api, "kubeflow.org/v2beta1") == 0 && strcmp(kind, "MPIJob") == 0) ||
         (strcmp(api, KF_TRAINER_API) == 0 && strcmp(kind, KF_TRAINER_KIND) == 0) ||
         (strcmp(api, "jobset.x-k8s.io/v1alpha2") == 0 && strcmp(kind, "JobSet") == 0);
}

/* The kinds kfjob reads as jobs, by name alone. */
static const char *const job_kinds[] = {"TFJob", "PyTorchJob", "MPIJob", "JAXJob",
                                        "XGBoostJob", "PaddleJob", "TrainJob", "JobSet",
                                        NULL};

/* Groups whose kinds kfjob knows; the kinds of each it does not read
** (copied through): Kubeflow's notebooks, profiles, Katib, Pipelines,
** Trainer's runtimes, Flyte's workflow CRD. */
static const struct {
  const char *group;
  const char *const *others;
} groups[] = {
    {"kubeflow.org", (const char *const[]){"Notebook", "Profile", "PodDefault", "Experiment",
                                           "Suggestion", "Trial", "ScheduledWorkflow",
                                           "Viewer", "Tensorboard", "PVCViewer", NULL}},
    {"trainer.kubeflow.org",
     (const char *const[]){"TrainingRuntime", "ClusterTrainingRuntime", NULL}},
    {"flyte.lyft.com", (const char *const[]){"FlyteWorkflow", NULL}},
    {"flyte.org", (const char *const[]){NULL}},
};

/* The job kind `kind` is one typo from (case ignored), or NULL. */
static const char *near_job_kind(const char *kind) {
  size_t i;
  for (i = 0; job_kinds[i]; i++)
    if (kf_edit_distance(kind, job_kinds[i], 1) <= 1 && strlen(kind) >= 5) return job_kinds[i];
  return NULL;
}

/* The group of an apiVersion ("" for the core group's "v1"), in g. */
static void group_of(const char *api, char *g, size_t cap) {
  const char *slash = strchr(api, '/');
  size_t n = slash ? (size_t)(slash - api) : 0;
  if (n >= cap) n = cap - 1;
  memcpy(g, api, n);
  g[n] = '\0';
}

/* The apiVersion kfjob reads `kind` (a job kind) in. */
static const char *api_of(const char *kind) {
  if (strcmp(kind, KF_TRAINER_KIND) == 0) return KF_TRAINER_API;
  if (strcmp(kind, "JobSet") == 0) return "jobset.x-k8s.io/v1alpha2";
  if (strcmp(kind, "MPIJob") == 0) return "kubeflow.org/v1 or kubeflow.org/v2beta1";
  return "kubeflow.org/v1";
}

int kf_import_classify(const kf_node *doc, char *why, size_t cap) {
  const char *api = kfi_str(kf_node_get(doc, "apiVersion"));
  const char *kind = kfi_str(kf_node_get(doc, "kind")), *near;
  char g[128];
  size_t i;
  why[0] = '\0';
  if (kf_import_reads(doc)) return 1;
  if (kind == NULL) {
    if (api == NULL) return 0;
    group_of(api, g, sizeof g);
    for (i = 0; i < sizeof groups / sizeof groups[0]; i++)
      if (strcmp(g, groups[i].group) == 0) {
        snprintf(why, cap, "apiVersion %.80s without a kind", api);
        return -1;
      }
    return 0;
  }
  near = near_job_kind(kind);
  if (api == NULL) {
    if (near == NULL) return 0;
    snprintf(why, cap, "kind %.80s without an apiVersion (kfjob reads %s as %s)", kind, near,
             api_of(near));
    return -1;
  }
  group_of(api, g, sizeof g);
  for (i = 0; i < sizeof groups / sizeof groups[0]; i++) {
    if (strcmp(g, groups[i].group) != 0) continue;
    if (kf_str_listed(groups[i].others, kind)) return 0;   /* known, not a job */
    break;
  }
  if (i == sizeof groups / sizeof groups[0] && near == NULL) return 0;   /* another group's */
  if (near && strcmp(near, kind) == 0)
    snprintf(why, cap, "apiVersion %.80s, kind %.80s: not an apiVersion kfjob reads it in (it reads "
             "%s as %s)", api, kind, kind, api_of(kind));
  else if (near)
    snprintf(why, cap, "apiVersion %.80s, kind %.80s: not a kind kfjob reads (did you mean "
             "'%s'?)", api, kind, near);
  else
    snprintf(why, cap, "apiVersion %.80s, kind %.80s: not a kind kfjob reads of %s (it "
             "reads %s)", api, kind, g, kf_import_supported());
  return -1;
}

/* Is the document a list kubectl flattens: kind List, or a typed list
** (PyTorchJobList), with its items? */
static int is_list(const kf_node *doc) {
  const char *kind = kfi_str(kf_node_get(doc, "kind"));
  const kf_node *items = kf_node_get(doc, "items");
  size_t n = kind ? strlen(kind) : 0;
  return kind && kfi_str(kf_node_get(doc, "apiVersion")) && items && items->t == KF_NARR &&
         n >= 4 && strcmp(kind + n - 4, "List") == 0;
}

/* An item of a typed list without its own apiVersion and kind (the API
** server's lists leave them out): the list's apiVersion and its kind
** without "List", as kubectl's decoder gives it. */
static kf_node *typed_item(const kf_node *list, kf_node *item, kf_arena *A) {
  const char *kind = kfi_str(kf_node_get(list, "kind"));
  size_t n = strlen(kind), i;
  kf_node *o;
  if (item->t != KF_NOBJ || n == 4 || kf_node_get(item, "kind") ||
      kf_node_get(item, "apiVersion"))
    return item;
  if ((o = kf_node_new(A, KF_NOBJ)) == NULL ||
      !kf_node_push(A, o, "apiVersion", kf_node_get(list, "apiVersion")) ||
      !kf_node_push(A, o, "kind", kf_node_str(A, kind, n - 4)))
    return NULL;
  for (i = 0; i < item->u.c.n; i++)
    if (!kf_node_push(A, o, item->u.c.k[i], item->u.c.v[i])) return NULL;
  return o;
}

kf_status kf_import_flatten(const kf_yaml_doc *docs, size_t nd, kf_arena *A,
                            kf_import_doc **out, size_t *n, kf_err *e) {
  size_t i, j, k = 0, total = 0;
  kf_import_doc *v;
  for (i = 0; i < nd; i++)
    total += is_list(docs[i].root) ? kf_node_get(docs[i].root, "items")->u.c.n : 1;
  if ((v = (kf_import_doc *)kf_arena_alloc(A, (total + 1) * sizeof *v)) == NULL)
    return kf_nomem(e);
  for (i = 0; i < nd; i++) {
    const kf_node *items = kf_node_get(docs[i].root, "items");
    if (!is_list(docs[i].root)) {
      v[k].root = docs[i].root, v[k].doc = i + 1, v[k].item = 0, v[k].line = docs[i].line;
      v[k++].src = &docs[i];
      continue;
    }
    for (j = 0; j < items->u.c.n; j++) {
      kf_node *it = items->u.c.v[j];
      if (it->t != KF_NOBJ)
        return kf_fail(e, KF_EINVAL, "document %zu, items[%zu]: expected an object (a List's "
                       "items are objects)", i + 1, j);
      if (is_list(it))
        return kf_fail(e, KF_EINVAL, "document %zu, items[%zu]: a List inside a List", i + 1,
                       j);
      if ((it = typed_item(docs[i].root, it, A)) == NULL) return kf_nomem(e);
      v[k].root = it, v[k].doc = i + 1, v[k].item = j + 1;
      v[k].line = kf_yaml_node_line(&docs[i], items->u.c.v[j]);
      if (v[k].line == 0) v[k].line = docs[i].line;
      v[k++].src = &docs[i];
    }
  }
  *out = v;
  *n = k;
  return KF_OK;
}

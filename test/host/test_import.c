/*
** test_import.c - kfjob_host_import_manifests() (SPEC §14 through the host API): a
** manifest read into a job with its report, rendered for a target; the
** unmapped list; bad input; no leak (run under valgrind by CTest).  The
** manifests are written by hand in the training-operator's
** kubeflow.org/v1 PyTorchJob shape (pytorchjob_types.go).
*/
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char PT[] =
    "apiVersion: kubeflow.org/v1\n"
    "kind: PyTorchJob\n"
    "metadata:\n"
    "  name: bert\n"
    "  namespace: ml\n"
    "  uid: 1234\n"
    "spec:\n"
    "  %s"
    "runPolicy:\n"
    "    backoffLimit: 2\n"
    "  pytorchReplicaSpecs:\n"
    "    Master:\n"
    "      replicas: 1\n"
    "      restartPolicy: Never\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: ghcr.io/acme/bert:1\n"
    "            command: [python, train.py]\n"
    "    Worker:\n"
    "      replicas: 3\n"
    "      restartPolicy: Never\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: ghcr.io/acme/bert:1\n"
    "            command: [python, train.py]\n";

typedef struct seen {
  int n;
  char kind[32], target[32], name[32], api[64], data[4096];
  char unmapped[128], value[32], ignored[64];
  char r20[160];          /* R20's warning: "path|source" */
  size_t nunmapped, document, item;
  int copy_to_pods;
} seen;

static int on_job(void *ud, const kfjob_job *j, const kfjob_import_info *in) {
  seen *s = (seen *)ud;
  s->n++;
  snprintf(s->kind, sizeof s->kind, "%s", in->kind);
  snprintf(s->target, sizeof s->target, "%s", in->target);
  snprintf(s->name, sizeof s->name, "%s", j->name);
  snprintf(s->api, sizeof s->api, "%s", in->api_version);
  snprintf(s->data, sizeof s->data, "%.*s", (int)j->size, j->data ? j->data : "");
  s->nunmapped = in->nunmapped;
  s->document = in->document;
  s->item = in->item;
  s->copy_to_pods = in->copy_to_pods;
  if (in->nunmapped) {
    snprintf(s->unmapped, sizeof s->unmapped, "%s", in->unmapped[0].path);
    snprintf(s->value, sizeof s->value, "%s", in->unmapped[0].value);
  }
  if (in->nignored) snprintf(s->ignored, sizeof s->ignored, "%s", in->ignored[0]);
  for (size_t i = 0; i < j->nwarnings; i++)
    if (strcmp(j->warnings[i].rule, "R20") == 0)
      snprintf(s->r20, sizeof s->r20, "%s|%.60s", j->warnings[i].path, j->warnings[i].source);
  return 0;
}

static int stop(void *ud, const kfjob_job *j, const kfjob_import_info *in) {
  (void)ud, (void)j, (void)in;
  return 1;
}

static char *manifest(const char *extra) {
  static char buf[2048];
  snprintf(buf, sizeof buf, PT, extra);
  return buf;
}

/* Read for its own target (operator), then migrated to Trainer v2.3. */
static void reads_and_migrates(kfjob_host *h) {
  kfjob_run_options ro;
  seen s;
  const char *m = manifest("");
  harness_run_options(&ro);
  ro.format = KFJOB_FORMAT_MANIFEST;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, on_job, &s), KFJOB_OK);
  CHECK(s.n == 1 && s.document == 1 && s.nunmapped == 0);
  CHECK_STR(s.kind, "PyTorchJob");
  CHECK_STR(s.target, "operator");
  CHECK_STR(s.api, "kubeflow.org/v1");
  CHECK_STR(s.name, "bert");
  CHECK_STR(s.ignored, "metadata.uid");
  CHECK(s.copy_to_pods == 1);   /* no labels: nothing to tell */
  CHECK_HAS(s.data, "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: bert\n"
                    "  namespace: ml\n");
  CHECK_HAS(s.data, "backoffLimit: 2");
  ro.target = "trainer-2.3";
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, on_job, &s), KFJOB_OK);
  CHECK_HAS(s.data, "kind: TrainJob\n");
  CHECK_HAS(s.data, "    name: torch-distributed\n");   /* runtimeRef */
  CHECK_HAS(s.data, "    numNodes: 4\n");                /* master + 3 workers */
  CHECK_HAS(s.data, "    image: ghcr.io/acme/bert:1\n");
  CHECK_STR(s.r20, "");   /* warnings only with lint */
  ro.lint = 1;            /* the target's warnings, with their rule */
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, on_job, &s), KFJOB_OK);
  CHECK_HAS(s.r20, "spec.runPolicy.backoffLimit|");
  CHECK(strlen(s.r20) > strlen("spec.runPolicy.backoffLimit|"));   /* a source */
  ro.lint = 0;
  ro.name = "renamed";
  ro.format = KFJOB_FORMAT_NONE;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, on_job, &s), KFJOB_OK);
  CHECK_STR(s.name, "renamed");
  CHECK_STR(s.data, "");
}

/* A field kfjob cannot hold: an error naming it, or the list with lossy. */
static void unmapped(kfjob_host *h) {
  kfjob_import_options io;
  seen s;
  const char *m = manifest("successPolicy: AllWorkers\n  ");   /* no field of kfjob's */
  memset(&io, 0, sizeof io);
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), &io, NULL, on_job, &s), KFJOB_EDATA);
  CHECK_HAS(kfjob_host_message(h), "kfjob.from_manifest: spec.successPolicy: ");
  CHECK(s.n == 0);
  io.lossy = 1;
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), &io, NULL, on_job, &s), KFJOB_OK);
  CHECK(s.n == 1 && s.nunmapped == 1);
  CHECK_STR(s.unmapped, "spec.successPolicy");
  CHECK_STR(s.value, "\"AllWorkers\"");
}

static void bad_input(kfjob_host *h) {
  kfjob_import_options io;
  kfjob_run_options ro;
  seen s;
  const char *m = manifest(""), *tf =
      "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: t}\nspec:\n"
      "  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      restartPolicy: Never\n"
      "      template: {spec: {containers: [{name: tensorflow, image: tf}]}}\n";
  char two[4096];
  memset(&io, 0, sizeof io);
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, NULL, 0, NULL, NULL, on_job, &s), KFJOB_EARG);
  CHECK_ST(h, kfjob_host_import_manifests(NULL, m, strlen(m), NULL, NULL, on_job, &s), KFJOB_EARG);
  io.kind = "Elastc";
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), &io, NULL, on_job, &s), KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(h), "unknown kind 'Elastc'");
  /* Elastic asked of a PyTorchJob without elasticPolicy: an error naming
  ** the path (it dereferenced the absent policy and crashed the host) */
  {
    const char *wo =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: w}\nspec:\n"
        "  pytorchReplicaSpecs:\n    Worker:\n      replicas: 2\n"
        "      template: {spec: {containers: [{name: pytorch, image: i}]}}\n";
    io.kind = "Elastic";
    CHECK_ST(h, kfjob_host_import_manifests(h, wo, strlen(wo), &io, NULL, on_job, &s), KFJOB_EDATA);
    CHECK_HAS(kfjob_host_message(h), "spec.elasticPolicy: missing");
    io.stream = 1;
    CHECK_ST(h, kfjob_host_import_manifests(h, wo, strlen(wo), &io, NULL, on_job, &s), KFJOB_EDATA);
    io.stream = 0;
  }
  io.kind = NULL;
  snprintf(two, sizeof two, "%s---\n%s", m, tf);
  CHECK_ST(h, kfjob_host_import_manifests(h, two, strlen(two), &io, NULL, on_job, &s), KFJOB_EDATA);
  CHECK_HAS(kfjob_host_message(h), "2 documents: this reads one (kfjob.from_manifests");
  CHECK_ST(h, kfjob_host_import_manifests(h, "a: [\n", 5, NULL, NULL, on_job, &s), KFJOB_EDATA);
  CHECK_ST(h, kfjob_host_import_manifests(h, "kind: Pod\n", 10, NULL, NULL, on_job, &s), KFJOB_EDATA);
  CHECK_HAS(kfjob_host_message(h), "supported: kubeflow.org/v1 TFJob");
  CHECK(s.n == 0);
  /* a stream: the PyTorchJob is read, the TFJob refused by Trainer (R24) */
  io.stream = 1;
  harness_run_options(&ro);
  ro.format = KFJOB_FORMAT_MANIFEST;
  ro.target = "trainer-2.3";
  CHECK_ST(h, kfjob_host_import_manifests(h, two, strlen(two), &io, &ro, on_job, &s), KFJOB_EJOB);
  CHECK_HAS(kfjob_host_message(h), "kfjob.TFJob: kind: a TFJob cannot be expressed");
  CHECK_HAS(kfjob_host_message(h), "rule R24");
  CHECK(s.n == 1);
  /* keep_going: the refused TFJob reaches the callback with its error */
  ro.keep_going = 1;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, two, strlen(two), &io, &ro, on_job, &s), KFJOB_EJOB);
  CHECK(s.n == 2 && s.document == 2);
  CHECK_STR(s.kind, "TFJob");
  CHECK_STR(s.data, "");
  CHECK_HAS(kfjob_host_message(h), "rule R24");
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, NULL, stop, NULL), KFJOB_ESTOPPED);
}

static void memory_limit(void) {
  kfjob_host_options ho;
  kfjob_host *h;
  const char *m = manifest("");
  kfjob_host_options_init(&ho);
  ho.memory_limit = 4096;
  CHECK(kfjob_host_new(&ho, &h) == KFJOB_OK);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, NULL, NULL, NULL), KFJOB_EMEMORY);
  CHECK_HAS(kfjob_host_message(h), "memory limit exceeded");
  kfjob_host_free(h);
}

/* Labels only the resource carries stay there when emitted again: they
** are the job's, the resource's own metadata (the report's copy_to_pods
** stays 1, the re-emit needs no option). */
static void labels_stay_on_resource(kfjob_host *h) {
  kfjob_run_options ro;
  seen s;
  char m[2048];
  const char *m0 = manifest(""), *at = strstr(m0, "  uid: 1234\n");
  const char *data;
  int n = 0;
  snprintf(m, sizeof m, "%.*s  labels: {team: ml}\n%s", (int)(at - m0), m0, at);
  harness_run_options(&ro);
  ro.format = KFJOB_FORMAT_MANIFEST;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, on_job, &s), KFJOB_OK);
  CHECK(s.n == 1 && s.copy_to_pods == 1);
  for (data = s.data; (data = strstr(data, "team: ml")) != NULL; data++) n++;
  CHECK(n == 1);
}

/* kfjob_run_options::time_limit_ms is honoured (checked before each
** document): a long stream stops with KFJOB_ELIMIT, not after its last. */
static void time_limit(kfjob_host *h) {
  kfjob_import_options io;
  kfjob_run_options ro;
  const char *m = manifest("");
  size_t k = strlen(m), i, n = 4000;
  char *text = (char *)malloc(n * (k + 4) + 1), *p = text;
  seen s;
  for (i = 0; i < n; i++) {
    memcpy(p, "---\n", 4);
    memcpy(p + 4, m, k);
    p += k + 4;
  }
  *p = '\0';
  memset(&io, 0, sizeof io);
  io.stream = 1;
  kfjob_run_options_init(&ro);
  ro.format = KFJOB_FORMAT_NONE;
  ro.time_limit_ms = 1;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), &io, &ro, on_job, &s),
           KFJOB_ELIMIT);
  CHECK_HAS(kfjob_host_message(h), "time limit exceeded (1 ms)");
  CHECK(s.n < (int)n);
  ro.time_limit_ms = KFJOB_NO_TIME_LIMIT;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), &io, &ro, on_job, &s),
           KFJOB_OK);
  CHECK(s.n == (int)n);
  free(text);
}

/* A v1 List's items are documents (kubectl's reading); a misspelt kind
** fails the stream naming the document. */
static void lists_and_kinds(kfjob_host *h) {
  kfjob_import_options io;
  seen s;
  const char *list =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- apiVersion: kubeflow.org/v1\n  kind: TFJob\n  metadata: {name: t}\n  spec:\n"
      "    tfReplicaSpecs:\n      Worker:\n        replicas: 1\n"
      "        template: {spec: {containers: [{name: tensorflow, image: tf}]}}\n";
  const char *typo = "apiVersion: kubeflow.org/v1\nkind: TfJob\nmetadata: {name: t}\n";
  memset(&io, 0, sizeof io);
  io.stream = 1;
  memset(&s, 0, sizeof s);
  CHECK_ST(h, kfjob_host_import_manifests(h, list, strlen(list), &io, NULL, on_job, &s), KFJOB_OK);
  CHECK(s.n == 1 && s.document == 1 && s.item == 1);
  CHECK_STR(s.kind, "TFJob");
  CHECK_ST(h, kfjob_host_import_manifests(h, typo, strlen(typo), &io, NULL, on_job, &s),
           KFJOB_EDATA);
  CHECK_HAS(kfjob_host_message(h), "kind TfJob: not a kind kfjob reads (did you mean 'TFJob'?)");
}

/* kfjob_host_not_input(): the class of a failure, whatever its words: a
** NUL byte (a manifest's, a data config's) or a kind or apiVersion kfjob
** refuses is 1; malformed YAML, another group's kind read alone, a data
** config's unknown key, the memory limit and a success are 0. */
static void not_input_class(kfjob_host *h) {
  static const char nul[] = "apiVersion: kubeflow.org/v1\nkind: TFJob\0\n";
  static const char dnul[] = "kind: TFJob\nworker: {replicas: 1}\0\n";
  const char *typo = "apiVersion: kubeflow.org/v1\nkind: TfJob\nmetadata: {name: t}\n";
  const char *v2 = "apiVersion: kubeflow.org/v2\nkind: TFJob\nmetadata: {name: t}\n";
  const char *nokind = "apiVersion: kubeflow.org/v1\nmetadata: {name: t}\n";
  const char *bad = "kind: TFJob\nworker: {replicas: 1}\nwrker: {}\n", *m = manifest("");
  kfjob_import_options io;
  kfjob_host_options ho;
  kfjob_host *small;
  memset(&io, 0, sizeof io);
  io.stream = 1;
  CHECK(kfjob_host_not_input(NULL) == 0);
  CHECK_ST(h, kfjob_host_import_manifests(h, nul, sizeof nul - 1, &io, NULL, NULL, NULL),
           KFJOB_EDATA);
  CHECK(kfjob_host_not_input(h) == 1);
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), &io, NULL, NULL, NULL), KFJOB_OK);
  CHECK(kfjob_host_not_input(h) == 0);   /* a success clears it */
  CHECK_ST(h, kfjob_host_import_manifests(h, typo, strlen(typo), &io, NULL, NULL, NULL),
           KFJOB_EDATA);
  CHECK(kfjob_host_not_input(h) == 1);
  CHECK_ST(h, kfjob_host_import_manifests(h, v2, strlen(v2), &io, NULL, NULL, NULL), KFJOB_EDATA);
  CHECK(kfjob_host_not_input(h) == 1);
  CHECK_ST(h, kfjob_host_import_manifests(h, nokind, strlen(nokind), &io, NULL, NULL, NULL),
           KFJOB_EDATA);
  CHECK(kfjob_host_not_input(h) == 1);
  CHECK_ST(h, kfjob_host_import_manifests(h, typo, strlen(typo), NULL, NULL, NULL, NULL),
           KFJOB_EDATA);   /* one manifest, not a stream: the same class */
  CHECK(kfjob_host_not_input(h) == 1);
  CHECK_ST(h, kfjob_host_import_manifests(h, "a: [\n", 5, &io, NULL, NULL, NULL), KFJOB_EDATA);
  CHECK(kfjob_host_not_input(h) == 0);
  CHECK_ST(h, kfjob_host_import_manifests(h, "kind: Pod\n", 10, NULL, NULL, NULL, NULL),
           KFJOB_EDATA);
  CHECK(kfjob_host_not_input(h) == 0);
  CHECK_ST(h, kfjob_host_run_string(h, dnul, sizeof dnul - 1, "d.yaml", NULL, NULL, NULL),
           KFJOB_ESCRIPT);
  CHECK_HAS(kfjob_host_message(h), "a NUL byte at offset");
  CHECK(kfjob_host_not_input(h) == 1);
  CHECK_ST(h, kfjob_host_run_string(h, bad, strlen(bad), "d.yaml", NULL, NULL, NULL),
           KFJOB_ESCRIPT);
  CHECK(kfjob_host_not_input(h) == 0);
  kfjob_host_options_init(&ho);
  ho.memory_limit = 4096;
  CHECK(kfjob_host_new(&ho, &small) == KFJOB_OK);
  CHECK_ST(small, kfjob_host_import_manifests(small, typo, strlen(typo), &io, NULL, NULL, NULL),
           KFJOB_EMEMORY);
  CHECK(kfjob_host_not_input(small) == 0);
  kfjob_host_free(small);
}

/* What the callbacks of one import see: each one's index, and the
** problems of a refused job. */
typedef struct calls {
  size_t n, index[8], nproblems[8];
  char path[64];   /* the first problem's */
} calls;

static int on_call(void *ud, const kfjob_job *j, const kfjob_import_info *in) {
  calls *c = (calls *)ud;
  (void)in;
  if (c->n < 8) c->index[c->n] = j->index, c->nproblems[c->n] = j->nproblems;
  if (j->nproblems) snprintf(c->path, sizeof c->path, "%s", j->problems[0].path);
  c->n++;
  return 0;
}

/* kfjob.h's promises: kfjob_job::index counts the callbacks (a skipped
** comment-only document and a List's items leave no gap or repeat); a job
** the default target refuses (keep_going, no target) carries its
** problems; max_jobs bounds an import's callbacks (KFJOB_ELIMIT); indent
** outside 0..16 is KFJOB_EARG; an empty stream is "no job in the stream". */
static void callbacks_and_options(kfjob_host *h) {
  char text[4096];
  const char *m = manifest("");
  const char *list = "apiVersion: v1\nkind: List\nitems:\n"
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n";
  kfjob_import_options io;
  kfjob_run_options ro;
  calls c;
  memset(&io, 0, sizeof io);
  io.stream = 1, io.other = 1;
  snprintf(text, sizeof text, "%s---\n# only a comment\n---\n%s", m, list);
  memset(&c, 0, sizeof c);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), &io, NULL, on_call, &c), KFJOB_OK);
  CHECK(c.n == 3 && c.index[0] == 0 && c.index[1] == 1 && c.index[2] == 2);
  harness_run_options(&ro);
  ro.max_jobs = 2;
  memset(&c, 0, sizeof c);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), &io, &ro, on_call, &c),
           KFJOB_ELIMIT);
  CHECK(c.n == 2);
  CHECK_HAS(kfjob_host_message(h), "more than 2 jobs in one import");
  /* a worker-only PyTorchJob Flyte refuses (R53: it always runs a Master) */
  harness_run_options(&ro);
  ro.format = KFJOB_FORMAT_JSON;
  ro.keep_going = 1;
  snprintf(text, sizeof text, "%s", m);
  memset(&c, 0, sizeof c);
  if (strstr(text, "    Master:") != NULL) {
    char *at = strstr(text, "    Master:"), *end = strstr(at, "    Worker:");
    if (end) memmove(at, end, strlen(end) + 1);
  }
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), &io, &ro, on_call, &c), KFJOB_EJOB);
  CHECK(c.n == 1 && c.nproblems[0] >= 1);
  CHECK_HAS(kfjob_host_message(h), "rule R53");
  harness_run_options(&ro);
  ro.indent = 17;
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, NULL, NULL), KFJOB_EARG);
  ro.indent = -1;
  CHECK_ST(h, kfjob_host_import_manifests(h, m, strlen(m), NULL, &ro, NULL, NULL), KFJOB_EARG);
  CHECK_ST(h, kfjob_host_import_manifests(h, "# nothing\n", 10, &io, NULL, NULL, NULL), KFJOB_EDATA);
  CHECK_HAS(kfjob_host_message(h), "no job in the stream");
  /* the manifest's name, too long for its pods' (R15): metadata.name, the
  ** caller giving none */
  snprintf(text, sizeof text, "%s", m);
  {
    char *at = strstr(text, "name: bert");
    const char *longer = "name: a-very-long-job-name-that-its-pods-cannot-carry-in-full-x";
    if (at) {
      memmove(at + strlen(longer), at + 10, strlen(at + 10) + 1);
      memcpy(at, longer, strlen(longer));
    }
  }
  harness_run_options(&ro);
  ro.format = KFJOB_FORMAT_MANIFEST;
  ro.keep_going = 1;
  memset(&c, 0, sizeof c);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), NULL, &ro, on_call, &c), KFJOB_EJOB);
  CHECK(c.n == 1 && c.nproblems[0] >= 1);
  CHECK_STR(c.path, "metadata.name");
}

int main(void) {
  kfjob_host *h;
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  reads_and_migrates(h);
  labels_stay_on_resource(h);
  unmapped(h);
  bad_input(h);
  time_limit(h);
  lists_and_kinds(h);
  not_input_class(h);
  callbacks_and_options(h);
  kfjob_host_free(h);
  memory_limit();
  return harness_report();
}

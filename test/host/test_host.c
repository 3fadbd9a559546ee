/*
** test_host.c - C tests of the sandboxed host API (include/kfjob.h), run by
** ctest directly and under valgrind.  Each test creates and frees its own
** handle; a failed CHECK prints file:line and the handle's message.
**
**   test_host [NAME...]   run only the tests whose names are given
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* ---- a callback that keeps copies of every job ------------------------ */

#define MAXJOBS 64
typedef struct got_job {
  char name[128], kind[32], task_type[32];
  char resource_name[128];  /* "" when NULL */
  int version;
  kfjob_format format;
  char *data;             /* copy, NUL-terminated */
  size_t size, index, total, nwarnings;
  char warning[256];      /* first warning "path: message" */
  char warning_rule[64];  /* first warning "rule source" */
  char error[512];
} got_job;

typedef struct collect {
  got_job jobs[MAXJOBS];
  size_t n;
  int stop_after;         /* > 0: return 1 after that many jobs */
  kfjob_host *h;          /* for re-entry tests */
  kfjob_status reentry;
} collect;

static void copy_str(char *dst, size_t cap, const char *s) {
  snprintf(dst, cap, "%s", s ? s : "");
}

static int on_job(void *ud, const kfjob_job *j) {
  collect *c = (collect *)ud;
  got_job *g;
  if (c->h) c->reentry = kfjob_host_run_string(c->h, "return 1", 8, NULL, NULL, NULL, NULL);
  if (c->n < MAXJOBS) {
    g = &c->jobs[c->n];
    memset(g, 0, sizeof *g);
    copy_str(g->name, sizeof g->name, j->name);
    copy_str(g->resource_name, sizeof g->resource_name, j->resource_name);
    copy_str(g->kind, sizeof g->kind, j->kind);
    copy_str(g->task_type, sizeof g->task_type, j->task_type);
    g->version = j->version;
    g->format = j->format;
    g->size = j->size;
    g->index = j->index;
    g->total = j->total;
    g->nwarnings = j->nwarnings;
    if (j->nwarnings)
      snprintf(g->warning, sizeof g->warning, "%s: %s", j->warnings[0].path,
               j->warnings[0].message);
    if (j->nwarnings)
      snprintf(g->warning_rule, sizeof g->warning_rule, "%s|%.40s", j->warnings[0].rule,
               j->warnings[0].source);
    copy_str(g->error, sizeof g->error, j->error);
    if (j->data) {
      g->data = (char *)malloc(j->size + 1);
      memcpy(g->data, j->data, j->size + 1);  /* the NUL after the data too */
    }
  }
  c->n++;
  return c->stop_after > 0 && (int)c->n >= c->stop_after;
}

static void collect_free(collect *c) {
  size_t i;
  for (i = 0; i < c->n && i < MAXJOBS; i++) free(c->jobs[i].data);
  memset(c, 0, sizeof *c);
}

/* ---- fixtures --------------------------------------------------------- */

#define PYTORCH                                                             \
  "local kfjob = require 'kfjob'\n"                                         \
  "local function job(n) return kfjob.PyTorchJob{\n"                        \
  "  worker = { replicas = n, image = 'img:1', requests = { cpu = 2 } },\n" \
  "  master = { image = 'img:1' } } end\n"

static const char *const SINGLE = PYTORCH "return job(2)\n";
static const char *const SHM = PYTORCH "return job(2):with{ shared_memory = true }\n";
/* one resources table for master and workers, as a TrainJob needs (R21) */
static const char *const SAME = PYTORCH
    "return job(2):with{ ['master.requests.cpu'] = 2 }\n";

static kfjob_host *new_host(size_t mem, unsigned long long instr) {
  kfjob_host_options o;
  kfjob_host *h = NULL;
  kfjob_host_options_init(&o);
  if (mem) o.memory_limit = mem;
  if (instr) o.instruction_limit = instr;
  if (kfjob_host_new(&o, &h) != KFJOB_OK) {
    fprintf(stderr, "kfjob_host_new failed\n");
    exit(2);
  }
  return h;
}

/* o NULL: the defaults but for the time limit (HARNESS_TIME_LIMIT_MS). */
static kfjob_status run_src(kfjob_host *h, const char *src,
                            const kfjob_run_options *o, collect *c) {
  kfjob_run_options d;
  if (o == NULL) {
    harness_run_options(&d);
    o = &d;
  }
  return kfjob_host_run_string(h, src, strlen(src), "cfg.lua", o, on_job, c);
}

/* A test's handle (memory limit mem, 0 for the default), its run options
** reset (o may be NULL; the time limit HARNESS_TIME_LIMIT_MS) and an empty
** collect. */
static kfjob_host *start(size_t mem, kfjob_run_options *o, collect *c) {
  memset(c, 0, sizeof *c);
  if (o) harness_run_options(o);
  return new_host(mem, 0);
}

/* Frees the jobs still collected, then the handle. */
static void finish(kfjob_host *h, collect *c) {
  collect_free(c);
  kfjob_host_free(h);
}

/* Runs src, which must give one job: that job's data, NULL when it did not. */
static const char *run_one(kfjob_host *h, const char *src, const kfjob_run_options *o,
                           collect *c) {
  CHECK_ST(h, run_src(h, src, o, c), KFJOB_OK);
  CHECK(c->n == 1);
  return c->n == 1 ? c->jobs[0].data : NULL;
}

/* The bytes of job g (task type tt, NULL for a TaskTemplate) decode back,
** into d, to the JSON json. */
static void check_decodes_to(kfjob_host *h, const char *tt, const got_job *g, collect *d,
                             const char *json) {
  CHECK_ST(h, kfjob_host_decode(h, tt, 1, g->data, g->size, NULL, on_job, d), KFJOB_OK);
  CHECK(d->n == 1 && d->jobs[0].data && strcmp(d->jobs[0].data, json) == 0);
}

/* Runs that must end with status st and a message containing msg (none
** checked when msg is NULL); a {NULL} row ends the table. */
typedef struct failing {
  const char *src;
  kfjob_status st;
  const char *msg;
} failing;

static void check_failing(kfjob_host *h, const failing *f, const kfjob_run_options *o,
                          collect *c) {
  for (; f->src; f++) {
    CHECK_ST(h, run_src(h, f->src, o, c), f->st);
    if (f->msg) CHECK_HAS(kfjob_host_message(h), f->msg);
    collect_free(c);
  }
}

/* ---- tests ------------------------------------------------------------ */

static void test_version(void) {
  char buf[32];
  CHECK(kfjob_version_number() == KFJOB_VERSION_NUMBER);
  CHECK(strcmp(kfjob_version_string(), KFJOB_VERSION_STRING) == 0);
  snprintf(buf, sizeof buf, "%d.%d.%d", KFJOB_VERSION_MAJOR,
           KFJOB_VERSION_MINOR, KFJOB_VERSION_PATCH);
  CHECK(strcmp(buf, KFJOB_VERSION_STRING) == 0);
  CHECK(KFJOB_VERSION_NUMBER == KFJOB_VERSION_MAJOR * 10000 +
                                    KFJOB_VERSION_MINOR * 100 + KFJOB_VERSION_PATCH);
}

static void test_names(void) {
  kfjob_format f;
  int i;
  for (i = 0; i <= (int)KFJOB_FORMAT_ENVIRONMENT; i++) {
    const char *n = kfjob_format_name((kfjob_format)i);
    CHECK(n != NULL);
    CHECK(kfjob_format_parse(n, &f) && (int)f == i);
  }
  CHECK(!kfjob_format_parse("xml", &f));
  CHECK(!kfjob_format_parse(NULL, &f));
  CHECK(kfjob_format_name((kfjob_format)99) == NULL);
  CHECK(strcmp(kfjob_status_string(KFJOB_ELIMIT), "instruction budget exceeded") == 0);
  CHECK(strcmp(kfjob_status_string((kfjob_status)99), "unknown status") == 0);
}

/* Every format of one job; pb and template decode back to the same JSON. */
static void test_formats(void) {
  kfjob_run_options o;
  collect c, d;
  char json[4096] = "";
  const char *data;
  int i;
  kfjob_host *h = start(0, &o, &c);
  memset(&d, 0, sizeof d);
  o.name = "bert";
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
  CHECK(c.n == 1);
  CHECK(strcmp(c.jobs[0].name, "bert") == 0);
  CHECK(strcmp(c.jobs[0].kind, "PyTorchJob") == 0);
  CHECK(strcmp(c.jobs[0].task_type, "pytorch") == 0);
  CHECK(c.jobs[0].version == 1 && c.jobs[0].format == KFJOB_FORMAT_JSON);
  CHECK(c.jobs[0].total == 1 && c.jobs[0].index == 0);
  CHECK(c.jobs[0].data && c.jobs[0].data[0] == '{');
  CHECK(c.jobs[0].data && strlen(c.jobs[0].data) == c.jobs[0].size);
  CHECK_HAS(c.jobs[0].data, "\"workerReplicas\":{\"replicas\":2");
  if (c.jobs[0].data) snprintf(json, sizeof json, "%s", c.jobs[0].data);
  collect_free(&c);

  for (i = 0; i <= (int)KFJOB_FORMAT_ENVIRONMENT; i++) {
    o.format = (kfjob_format)i;
    o.image = "img:task";
    /* TaskSpecs need registration options: tested below */
    if (o.format == KFJOB_FORMAT_TASKSPEC || o.format == KFJOB_FORMAT_TASKSPEC_JSON) continue;
    CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
    CHECK(c.n == 1);
    if (c.n != 1) {
      collect_free(&c);
      continue;
    }
    CHECK(c.jobs[0].format == o.format);
    switch (o.format) {
      case KFJOB_FORMAT_PB:
        CHECK(c.jobs[0].size > 0);
        check_decodes_to(h, "pytorch", &c.jobs[0], &d, json);
        CHECK(d.n == 1 && strcmp(d.jobs[0].name, "job") == 0);
        break;
      case KFJOB_FORMAT_JSON:
        CHECK(strcmp(c.jobs[0].data, json) == 0);
        break;
      case KFJOB_FORMAT_YAML:
        CHECK_HAS(c.jobs[0].data, "workerReplicas:\n  replicas: 2\n");
        CHECK(strlen(c.jobs[0].data) == c.jobs[0].size);
        break;
      case KFJOB_FORMAT_TEMPLATE:
        CHECK(c.jobs[0].size > 0);
        check_decodes_to(h, NULL, &c.jobs[0], &d, json);
        break;
      case KFJOB_FORMAT_TEMPLATE_JSON:
        CHECK_HAS(c.jobs[0].data, "\"type\":\"pytorch\"");
        check_decodes_to(h, NULL, &c.jobs[0], &d, json);
        break;
      case KFJOB_FORMAT_MANIFEST:
        CHECK_HAS(c.jobs[0].data, "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n");
        CHECK_HAS(c.jobs[0].data, "name: bert\n");
        break;
      case KFJOB_FORMAT_MANIFEST_JSON:
        CHECK_HAS(c.jobs[0].data, "\"apiVersion\":\"kubeflow.org/v1\"");
        break;
      case KFJOB_FORMAT_NONE:
        CHECK(c.jobs[0].data == NULL && c.jobs[0].size == 0);
        break;
      case KFJOB_FORMAT_ENVIRONMENT:   /* FACTS §8.2.1: Master 1 + Worker 2 */
        CHECK_HAS(c.jobs[0].data, "{\"master-0\":{\"env\":[{\"name\":\"PYTHONUNBUFFERED\","
                                  "\"value\":\"1\"},{\"name\":\"MASTER_PORT\",\"value\":\"23456\"}");
        CHECK_HAS(c.jobs[0].data, "{\"name\":\"MASTER_ADDR\",\"value\":\"bert-master-0\"}");
        CHECK_HAS(c.jobs[0].data, "\"worker-1\":{\"env\":[");
        CHECK_HAS(c.jobs[0].data, "{\"name\":\"RANK\",\"value\":\"2\"}");
        break;
      case KFJOB_FORMAT_TASKSPEC:
      case KFJOB_FORMAT_TASKSPEC_JSON:
        break;   /* below, with registration options */
    }
    collect_free(&c);
    collect_free(&d);
  }

  /* the environment on a target; a misspelt target is an argument error */
  harness_run_options(&o);
  o.name = "bert";
  o.format = KFJOB_FORMAT_ENVIRONMENT;
  o.target = "trainer-2.3";
  data = run_one(h, SAME, &o, &c);
  CHECK_HAS(data, "\"node-0-2\":{\"env\":[{\"name\":\"PET_NNODES\",\"value\":\"3\"}");
  CHECK_HAS(data, "{\"name\":\"PET_MASTER_ADDR\",\"value\":\"bert-node-0-0.bert\"}");
  collect_free(&c);
  /* resource_name: a {job =, opts = {name =}} entry's opts.name, the name
  ** the pods' values use (the job keeps the run's name); NULL for the
  ** Flyte formats */
  {
    static const char *const jobopts = PYTORCH
        "return { job = job(1), opts = { name = 'tfo', target = 'operator' } }\n";
    o.target = NULL;
    data = run_one(h, jobopts, &o, &c);
    CHECK_HAS(data, "{\"name\":\"MASTER_ADDR\",\"value\":\"tfo-master-0\"}");
    CHECK(c.n == 1 && strcmp(c.jobs[0].name, "bert") == 0 &&
          strcmp(c.jobs[0].resource_name, "tfo") == 0);
    collect_free(&c);
    run_one(h, SINGLE, &o, &c);
    CHECK(c.n == 1 && strcmp(c.jobs[0].resource_name, "bert") == 0);
    collect_free(&c);
    o.format = KFJOB_FORMAT_MANIFEST;
    run_one(h, jobopts, &o, &c);
    CHECK(c.n == 1 && strcmp(c.jobs[0].resource_name, "tfo") == 0);
    collect_free(&c);
    o.format = KFJOB_FORMAT_JSON;
    run_one(h, SINGLE, &o, &c);
    CHECK(c.n == 1 && c.jobs[0].resource_name[0] == '\0');
    collect_free(&c);
    o.format = KFJOB_FORMAT_ENVIRONMENT;
  }
  o.target = "trainer-23";
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(h), "unknown target 'trainer-23' (did you mean 'trainer-2.3'?)");
  collect_free(&c);
  /* TaskSpecs: the run's registration options, a job's own opts over them,
  ** and the files decode back */
  {
    static const char *const args[] = {"python", "train.py"};
    harness_run_options(&o);
    o.format = KFJOB_FORMAT_TASKSPEC_JSON;
    CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EJOB);
    CHECK_HAS(kfjob_host_message(h), "missing registration fields: opts.id.project, "
              "opts.id.domain, opts.id.version (flyteadmin");
    collect_free(&c);
    o.project = "ml";
    o.domain = "development";
    o.task_version = "v7";
    o.image = "img:1";
    o.args = args;
    o.nargs = 2;
    o.retries = 3;
    o.timeout = "90";
    data = run_one(h, SINGLE, &o, &c);
    CHECK_HAS(data, "\"id\":{\"resourceType\":\"TASK\",\"project\":\"ml\","
              "\"domain\":\"development\",\"name\":\"job\",\"version\":\"v7\"}");
    CHECK_HAS(data, "\"timeout\":\"90s\",\"retries\":{\"retries\":3}");
    CHECK_HAS(data, "\"args\":[\"python\",\"train.py\"]");
    collect_free(&c);
    data = run_one(h, PYTORCH "return { a = { job = kfjob.PyTorchJob{ worker = { replicas = 2 } },"
                   " opts = { id = { version = 'v8' }, metadata = { timeout = '1h' } } } }",
                   &o, &c);
    CHECK_HAS(data, "\"name\":\"a\",\"version\":\"v8\"");
    CHECK_HAS(data, "\"timeout\":\"3600s\"");
    collect_free(&c);
    o.format = KFJOB_FORMAT_TASKSPEC;
    CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
    CHECK(c.n == 1);
    if (c.n == 1) {
      CHECK_ST(h, kfjob_host_decode(h, NULL, 1, c.jobs[0].data, c.jobs[0].size, NULL,
                                    on_job, &d), KFJOB_OK);
      CHECK(d.n == 1 && strcmp(d.jobs[0].name, "job") == 0);
    }
    collect_free(&c);
    collect_free(&d);
    CHECK(kfjob_format_parse("taskspec-json", &o.format) &&
          o.format == KFJOB_FORMAT_TASKSPEC_JSON);
    CHECK(strcmp(kfjob_format_name(KFJOB_FORMAT_TASKSPEC), "taskspec") == 0);
  }

  /* pretty JSON, version 0, common replica encoding */
  harness_run_options(&o);
  o.indent = 2;
  CHECK_ST(h, run_src(h, PYTORCH "return kfjob.PyTorchJob{ worker = { replicas = 3 } }",
                      &o, &c), KFJOB_OK);
  CHECK_HAS(c.jobs[0].data, "{\n  \"workerReplicas\": {\n    \"replicas\": 3");
  collect_free(&c);
  o.indent = 0;
  o.version = 0;
  CHECK_ST(h, run_src(h, PYTORCH "return kfjob.PyTorchJob{ worker = { replicas = 3 } }",
                      &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].version == 0);
  CHECK(c.n == 1 && strcmp(c.jobs[0].data, "{\"workers\":3}") == 0);
  collect_free(&c);
  o.version = 1;
  o.replica_encoding = "common";
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
  CHECK_HAS(c.jobs[0].data, "\"common\":");
  finish(h, &c);
}

/* Lint warnings arrive with the job. */
static void test_lint(void) {
  kfjob_run_options o;
  collect c;
  kfjob_host *h = start(0, &o, &c);
  o.lint = 1;
  o.format = KFJOB_FORMAT_NONE;
  o.name = "a-very-long-job-name-that-will-not-fit-into-sixty-three-characters";
  CHECK_ST(h, run_src(h, SHM, &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].nwarnings >= 1);
  CHECK_HAS(c.jobs[0].warning, "63");
  collect_free(&c);
  o.name = "ok";
  CHECK_ST(h, run_src(h, SHM, &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].nwarnings == 0);
  collect_free(&c);
  /* a PyTorchJob without shared memory is worth a warning */
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].nwarnings == 1);
  CHECK_HAS(c.jobs[0].warning, "shared_memory: unset");
  CHECK(strcmp(c.jobs[0].warning_rule, "|") == 0);   /* lint's own: no rule */
  finish(h, &c);
}

/* run_options.target (SPEC §11): the target's rules, its methods, its
** warnings in lint, and kfjob_target_check's did-you-mean. */
static void test_target(void) {
  static const char *const SOLO = PYTORCH "return job(0):with{ shared_memory = true }\n";
  kfjob_run_options o;
  char why[128];
  collect c;
  kfjob_host *h = start(0, NULL, &c);
  CHECK(kfjob_target_check("mpi-operator", why, sizeof why) == 1);
  CHECK(kfjob_target_check("trainer2.3", why, sizeof why) == 0);
  CHECK_HAS(why, "unknown target 'trainer2.3' (did you mean 'trainer-2.3'?)");
  CHECK(kfjob_target_check(NULL, NULL, 0) == 0);
  harness_run_options(&o);
  o.target = "flyt";
  CHECK_ST(h, run_src(h, SOLO, &o, &c), KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(h), "target: unknown target 'flyt' (did you mean 'flyte'?)");
  /* a master-only PyTorchJob: a warning on flyte (the default), an error on flyte2 */
  harness_run_options(&o);
  o.lint = 1;
  CHECK_ST(h, run_src(h, SOLO, &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].nwarnings == 1);
  CHECK_HAS(c.jobs[0].warning, "worker.replicas: 0: a master-only PyTorchJob");
  CHECK_HAS(c.jobs[0].warning_rule, "R1|flyteplugins");
  collect_free(&c);
  o.target = "flyte2";
  CHECK_ST(h, run_src(h, SOLO, &o, &c), KFJOB_EJOB);
  CHECK_HAS(kfjob_host_message(h), "kfjob.PyTorchJob: worker.replicas: must be >= 1 (got 0) (target flyte2)");
  collect_free(&c);
  /* operator has no payload: JSON is refused, "none" builds the manifest */
  o.target = "operator";
  CHECK_ST(h, run_src(h, SOLO, &o, &c), KFJOB_EJOB);
  CHECK_HAS(kfjob_host_message(h), "kfjob.to_json: target 'operator' has no to_json");
  collect_free(&c);
  o.format = KFJOB_FORMAT_NONE;
  o.name = "solo";
  CHECK_ST(h, run_src(h, SOLO, &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].nwarnings == 0 && c.jobs[0].data == NULL);
  collect_free(&c);
  o.format = KFJOB_FORMAT_MANIFEST_JSON;
  CHECK_ST(h, run_src(h, SOLO, &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && c.jobs[0].data != NULL);
  CHECK_HAS(c.jobs[0].data, "\"pytorchReplicaSpecs\":{\"Master\"");
  finish(h, &c);
}

/* Pod settings reach the manifest and the TaskTemplate through the host. */
static void test_pod(void) {
  static const char *const src =
      "local kfjob = require 'kfjob'\n"
      "return kfjob.PyTorchJob{ worker = { replicas = 2, limits = { gpu = 1 } },\n"
      "  shared_memory = '2Gi', accelerator = 'nvidia-l4',\n"
      "  pod_template = { metadata = { labels = { team = 'nlp' } },\n"
      "    spec = { containers = { { name = 'primary' }, { name = 'side', image = 'b:1' } } } } }\n";
  kfjob_run_options o;
  collect c;
  const char *data;
  kfjob_host *h = start(0, &o, &c);
  o.format = KFJOB_FORMAT_MANIFEST;
  o.image = "img:1";
  data = run_one(h, src, &o, &c);
  CHECK_HAS(data, "- name: flyte-shared-memory\n");
  CHECK_HAS(data, "sizeLimit: 2Gi\n");
  CHECK_HAS(data, "team: nlp\n");
  CHECK_HAS(data, "name: side\n");
  CHECK_HAS(data, "value: nvidia-l4\n");
  collect_free(&c);
  o.format = KFJOB_FORMAT_TEMPLATE_JSON;
  data = run_one(h, src, &o, &c);
  CHECK_HAS(data, "\"k8sPod\"");
  CHECK_HAS(data, "\"extendedResources\"");
  finish(h, &c);
}

/* What a config may return: a job, a list, {name = job}, an iterator. */
static void test_shapes(void) {
  kfjob_run_options o;
  collect c;
  kfjob_host *h = start(0, &o, &c);
  o.format = KFJOB_FORMAT_NONE;

  CHECK_ST(h, run_src(h, PYTORCH "return { job(1), job(2), job(3) }", &o, &c), KFJOB_OK);
  CHECK(c.n == 3);
  CHECK(strcmp(c.jobs[0].name, "job-1") == 0 && strcmp(c.jobs[2].name, "job-3") == 0);
  CHECK(c.jobs[1].index == 1 && c.jobs[1].total == 3);
  collect_free(&c);

  o.name = "exp";
  CHECK_ST(h, run_src(h, PYTORCH "return { job(1), job(2) }", &o, &c), KFJOB_OK);
  CHECK(c.n == 2 && strcmp(c.jobs[1].name, "exp-2") == 0);
  collect_free(&c);

  CHECK_ST(h, run_src(h, PYTORCH "return { zeta = job(1), alpha = job(2), mid = job(3) }",
                      &o, &c), KFJOB_OK);
  CHECK(c.n == 3);
  CHECK(strcmp(c.jobs[0].name, "alpha") == 0 && strcmp(c.jobs[1].name, "mid") == 0 &&
        strcmp(c.jobs[2].name, "zeta") == 0);
  CHECK(c.jobs[0].total == 3);
  collect_free(&c);

  /* select one job of a named set */
  o.select = "mid";
  CHECK_ST(h, run_src(h, PYTORCH "return { zeta = job(1), alpha = job(2), mid = job(3) }",
                      &o, &c), KFJOB_OK);
  CHECK(c.n == 1 && strcmp(c.jobs[0].name, "mid") == 0);
  collect_free(&c);
  o.select = "nope";
  CHECK_ST(h, run_src(h, PYTORCH "return { zeta = job(1) }", &o, &c), KFJOB_EJOB);
  CHECK_HAS(kfjob_host_message(h), "cfg.lua: no job named 'nope'");
  collect_free(&c);
  /* it does not apply to names kfjob makes */
  o.select = "exp";
  CHECK_ST(h, run_src(h, PYTORCH "return { job(1), job(2) }", &o, &c), KFJOB_OK);
  CHECK(c.n == 2 && strcmp(c.jobs[0].name, "exp-1") == 0);
  collect_free(&c);
  o.select = NULL;

  /* kfjob.template.variants: an iterator of name, job */
  CHECK_ST(h, run_src(h,
      "local template = require 'kfjob.template'\n"
      "return template.variants({ worker = { replicas = 1, image = 'i:${tag}' } },\n"
      "  { ['worker.replicas'] = {2, 4}, tag = {'a', 'b'} },\n"
      "  { kind = 'PyTorchJob', name = 'bert-${tag}-w${worker.replicas}' })\n",
      &o, &c), KFJOB_OK);
  CHECK(c.n == 4);
  CHECK(c.n == 4 && c.jobs[0].total == 4);     /* a sweep knows its size */
  CHECK(c.n == 4 && strncmp(c.jobs[0].name, "bert-", 5) == 0);
  collect_free(&c);

  /* a hand-written stateless iterator of jobs (no names) */
  CHECK_ST(h, run_src(h, PYTORCH
      "local jobs = { job(1), job(2) }\n"
      "return function(_, i) i = (i or 0) + 1; if jobs[i] then return i, jobs[i] end end\n",
      &o, &c), KFJOB_ESCRIPT);
  CHECK_HAS(kfjob_host_message(h), "iterator gave a number as job name");
  collect_free(&c);
  CHECK_ST(h, run_src(h, PYTORCH
      "local jobs = { job(1), job(2) }\n"
      "local i = 0\n"
      "return function() i = i + 1; return jobs[i] end\n", &o, &c), KFJOB_OK);
  CHECK(c.n == 2 && strcmp(c.jobs[1].name, "exp-2") == 0);
  CHECK(c.n == 2 && c.jobs[1].total == 0);     /* other iterators do not */
  collect_free(&c);

  /* generic-for triple: f, s, ctrl */
  CHECK_ST(h, run_src(h, PYTORCH
      "local t = { a = job(1), b = job(2) }\n"
      "return next, t, nil\n", &o, &c), KFJOB_OK);
  CHECK(c.n == 2);
  collect_free(&c);

  CHECK_ST(h, run_src(h, "return {}", &o, &c), KFJOB_OK);
  CHECK(c.n == 0);

  /* a NULL callback validates only */
  CHECK_ST(h, kfjob_host_run_string(h, SINGLE, strlen(SINGLE), NULL, &o, NULL, NULL),
           KFJOB_OK);
  finish(h, &c);
}

static void test_params(void) {
  kfjob_host *h = new_host(0, 0);
  kfjob_run_options o;
  collect c;
  const char *params[] = {"replicas=4", "tag=1.5.0-rc1", "flag=true", "ratio=0.5",
                          "eq=a=b", "empty="};
  memset(&c, 0, sizeof c);
  harness_run_options(&o);
  o.params = params;
  o.nparams = 6;
  CHECK_ST(h, run_src(h, PYTORCH
      "local p = ...\n"
      "assert(p == params)\n"
      "assert(math.type(params.replicas) == 'integer', 'replicas')\n"
      "assert(params.tag == '1.5.0-rc1', 'tag')\n"
      "assert(params.flag == true, 'flag')\n"
      "assert(params.ratio == 0.5, 'ratio')\n"
      "assert(params.eq == 'a=b', 'eq')\n"
      "assert(params.empty == '', 'empty')\n"
      "return job(params.replicas)\n", &o, &c), KFJOB_OK);
  CHECK_HAS(c.jobs[0].data, "\"replicas\":4");
  collect_free(&c);
  o.nparams = 0;
  CHECK_ST(h, run_src(h, "assert(next(params) == nil) return {}", &o, &c), KFJOB_OK);
  finish(h, &c);
}

/* Configs that fail (as scripts, or their jobs), and what the message says. */
static const failing bad_configs[] = {
    {"local x = \nreturn (", KFJOB_ESCRIPT, "cfg.lua:2:"},
    /* raised inside a kfjob function: the line of the script that called it */
    {"local kfjob = require 'kfjob'\n\n"
     "return kfjob.PyTorchJob{ worker = { replicas = -1 } }",
     KFJOB_ESCRIPT, "cfg.lua:3: kfjob.PyTorchJob"},
    {"error({})", KFJOB_ESCRIPT, "cfg.lua:1: (error object is a table value)"},
    {"error(setmetatable({}, {__tostring = function() while true do end end}))",
     KFJOB_ESCRIPT, NULL},
    {"error()", KFJOB_ESCRIPT, "nil error"},
    {"local x = 1", KFJOB_ESCRIPT, "cfg.lua: the config returned nothing"},
    {"return 42", KFJOB_ESCRIPT, "the config returned a number"},
    {PYTORCH "return { job(1), {} }", KFJOB_ESCRIPT,
     "item 2 of the returned list is a table, not a kfjob job"},
    {PYTORCH "return { a = job(1), b = 'x' }", KFJOB_ESCRIPT,
     "'b' in the returned table is a string"},
    {PYTORCH "return { job(1), b = job(2) }", KFJOB_ESCRIPT, "mixes a list and named jobs"},
    /* job names: repeated by an iterator, empty, not a name */
    {PYTORCH "local n = 0\n"
     "return function() n = n + 1; if n <= 2 then return 'same', job(n) end end\n",
     KFJOB_EJOB, "job 'same': the name is used by another job"},
    {PYTORCH "return { [''] = job(1) }", KFJOB_EJOB, "job '': job names must not be empty"},
    /* "a\0b" would be read as "a": refused, shown escaped (issue 18) */
    {PYTORCH "return { a = job(1), ['a\\0b'] = job(2) }", KFJOB_EJOB,
     "job 'a\\x00b': job names must not contain NUL bytes"},
    {PYTORCH "return { ['a\\xc2\\x85'] = job(1) }", KFJOB_EJOB,
     "job names must not contain control characters"},
    {PYTORCH "return { ['a\\xff'] = job(1) }", KFJOB_EJOB, "job names must be valid UTF-8"},
    {NULL, KFJOB_OK, NULL}};

static void test_script_errors(void) {
  collect c;
  kfjob_host *h = start(0, NULL, &c);

  CHECK_ST(h, run_src(h, "local a = 1\n\nerror('boom')", NULL, &c), KFJOB_ESCRIPT);
  CHECK(strcmp(kfjob_host_message(h), "cfg.lua:3: boom") == 0);
  check_failing(h, bad_configs, NULL, &c);
  /* an error raised while iterating, in a function of the script */
  CHECK_ST(h, run_src(h, PYTORCH
      "local n = 0\n"
      "return function() n = n + 1; if n == 2 then error('second') end\n"
      "  return 'j' .. n, job(1) end\n", NULL, &c), KFJOB_ESCRIPT);
  CHECK_HAS(kfjob_host_message(h), "cfg.lua:6: second");
  CHECK(c.n == 1);
  collect_free(&c);
  /* "#!" first line: line numbers stay right */
  CHECK_ST(h, run_src(h, "#!/usr/bin/env kfjob\n\nerror('three')", NULL, &c), KFJOB_ESCRIPT);
  CHECK(strcmp(kfjob_host_message(h), "cfg.lua:3: three") == 0);
  /* the handle stays usable */
  CHECK_ST(h, run_src(h, SINGLE, NULL, &c), KFJOB_OK);
  CHECK(kfjob_host_message(h)[0] == '\0');
  finish(h, &c);
}

static void test_job_errors(void) {
  kfjob_run_options o;
  kfjob_usage u;
  collect c;
  kfjob_host *h = start(0, &o, &c);
  o.version = 0;   /* the image of SINGLE does not fit version 0 */
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EJOB);
  CHECK_HAS(kfjob_host_message(h), "cfg.lua:2: job 'job': ");   /* where job() made it */
  CHECK_HAS(kfjob_host_message(h), "version 0 cannot express");
  CHECK(c.n == 0);

  o.keep_going = 1;
  CHECK_ST(h, run_src(h, PYTORCH
      "return { ok = kfjob.PyTorchJob{ worker = { replicas = 2 } }, bad = job(2),\n"
      "         ok2 = kfjob.TFJob{ worker = { replicas = 1 } } }", &o, &c), KFJOB_EJOB);
  CHECK(c.n == 3);
  CHECK(c.n == 3 && strcmp(c.jobs[0].name, "bad") == 0 && c.jobs[0].data == NULL);
  CHECK_HAS(c.jobs[0].error, "version 0 cannot express");
  CHECK(c.n == 3 && c.jobs[1].error[0] == '\0' && c.jobs[1].data != NULL);
  CHECK_HAS(kfjob_host_message(h), "1 of 3 jobs could not be rendered");
  kfjob_host_usage(h, &u);
  CHECK(u.jobs == 3 && u.failed == 1);
  collect_free(&c);

  /* the manifest checks the name too (other bad names: bad_configs) */
  harness_run_options(&o);
  o.format = KFJOB_FORMAT_MANIFEST;
  o.image = "img";
  CHECK_ST(h, run_src(h, PYTORCH "return { Bad_Name = job(1) }", &o, &c), KFJOB_EJOB);
  /* R14, a target rule: the error names the constructor and the target */
  CHECK_HAS(kfjob_host_message(h), "job 'Bad_Name': kfjob.PyTorchJob: opts.name: "
            "'Bad_Name' is not a DNS-1035 label");
  CHECK_HAS(kfjob_host_message(h), "(target operator)");
  finish(h, &c);
}

static void test_memory_limit(void) {
  kfjob_usage u;
  collect c;
  kfjob_host *h = start((size_t)8 << 20, NULL, &c);
  CHECK_ST(h, run_src(h, "local t = {}\nfor i = 1, 1e8 do t[i] = i end", NULL, &c),
           KFJOB_EMEMORY);
  CHECK_HAS(kfjob_host_message(h), "cfg.lua: memory limit exceeded (8388608 bytes)");
  kfjob_host_usage(h, &u);
  CHECK(u.memory_peak <= ((size_t)8 << 20));
  CHECK(u.memory_peak > ((size_t)4 << 20));
  CHECK_ST(h, run_src(h, "local s = ('x'):rep(1 << 30)", NULL, &c), KFJOB_EMEMORY);
  CHECK_ST(h, run_src(h, "local t = {}\nwhile true do t[#t + 1] = ('x'):rep(1000) .. #t end",
                      NULL, &c), KFJOB_EMEMORY);
  /* caught by the script: it goes on, then fails again */
  CHECK_ST(h, run_src(h, "local ok, e = pcall(string.rep, 'x', 1 << 30)\n"
                         "assert(not ok and e == 'not enough memory')\n"
                         "local t = {} for i = 1, 1e8 do t[i] = {} end", NULL, &c),
           KFJOB_EMEMORY);
  /* still usable */
  CHECK_ST(h, run_src(h, SINGLE, NULL, &c), KFJOB_OK);
  CHECK(c.n == 1);
  collect_free(&c);
  /* a TaskSpec's per-job opts copied under the limit: a memory error at any
  ** size, never a crash, and the host goes on */
  {
    kfjob_run_options o;
    int n, hit = 0;
    harness_run_options(&o);
    o.format = KFJOB_FORMAT_TASKSPEC;
    o.project = o.domain = o.task_version = "x";
    o.image = "img:1";
    for (n = 1000; n <= 64000; n *= 4) {
      char src[512];
      kfjob_status st;
      snprintf(src, sizeof src, PYTORCH "local tags = {}\n"
               "for i = 1, %d do tags['k' .. i] = ('v'):rep(40) .. i end\n"
               "return { job = job(2), opts = { metadata = { tags = tags } } }", n);
      st = run_src(h, src, &o, &c);
      CHECK(st == KFJOB_OK || st == KFJOB_EMEMORY);
      if (st == KFJOB_EMEMORY) {
        hit = 1;
        CHECK_HAS(kfjob_host_message(h), "memory limit exceeded");
      }
      collect_free(&c);
    }
    CHECK(hit);
    CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
    collect_free(&c);
  }
  kfjob_host_free(h);

  /* what the JSON library allocates counts too (jansson routed to the run's
  ** allocator while kfjob parses): 9 MB of JSON made 700 MB outside it */
  h = new_host((size_t)8 << 20, 0);
  CHECK_ST(h, run_src(h, "local kfjob = require 'kfjob'\n"
                         "local s = '[' .. ('1,'):rep(1500000) .. '1]'\n"
                         "kfjob.from_json('tensorflow', s)", NULL, &c), KFJOB_EMEMORY);
  CHECK_HAS(kfjob_host_message(h), "cfg.lua: memory limit exceeded (8388608 bytes)");
  kfjob_host_usage(h, &u);
  CHECK(u.memory_peak <= ((size_t)8 << 20));
  /* and is returned: the same run parses small JSON after a failure */
  CHECK_ST(h, run_src(h, PYTORCH "for i = 1, 3 do\n"
                         "  local big = '[' .. ('1,'):rep(400000) .. '1]'\n"
                         "  assert(not pcall(kfjob.from_json, 'pytorch', big))\n"
                         "  assert(kfjob.from_json('pytorch', job(2):to_json()))\n"
                         "end\nreturn job(2)\n", NULL, &c), KFJOB_OK);
  collect_free(&c);
  kfjob_host_free(h);

  /* too small for the libraries themselves */
  h = new_host(4096, 0);
  CHECK(run_src(h, SINGLE, NULL, &c) == KFJOB_EMEMORY);
  CHECK(c.n == 0);
  finish(h, &c);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* KFJOB_TEST_BUDGET in the environment lowers it (the valgrind run). */
static unsigned long long budget = 2000000;

static void test_instruction_budget(void) {
  static const char *const loops[] = {
      "while true do end",
      "local function f() return f() end f()",   /* a tail-call loop */
      "while true do pcall(function() while true do end end) end",
      "for i = 1, 10 do pcall(function() while true do end end) end\nwhile true do end",
      "local co = coroutine.wrap(function() while true do end end) co()",
      "local co = coroutine.wrap(function() while true do coroutine.yield() end end)\n"
      "while true do co() end",
      "xpcall(function() error('x') end, function() while true do end end)\n"
      "while true do end",
      /* C functions whose work the script controls */
      "table.insert(setmetatable({}, {__len = function() return math.maxinteger // 2 end}), 1, 'x')",
      "table.remove(setmetatable({}, {__len = function() return math.maxinteger // 2 end}), 1)",
      "table.move({}, 1, math.maxinteger - 1, 2)",
      "local t = setmetatable({}, {__close = function() while true do end end})\n"
      "do local x <close> = t end",
      /* kfjob's own C functions: the bytes they process are charged (as
      ** redis charges its Lua scripts' commands), checked at each call */
      "local kfjob = require 'kfjob'\nlocal s = ('x'):rep(1 << 22)\n"
      "while true do kfjob.hash64(s) end",
      "local kfjob = require 'kfjob'\nlocal j = kfjob.TFJob{worker={replicas=1}}\n"
      "local env = {} for i = 1, 20000 do env['E' .. i] = 'v' end\n"
      "while true do j:task_template{container = {image = 'i', env = env}} end",
      "local kfjob = require 'kfjob'\nlocal j = kfjob.TFJob{worker={replicas=1}}\n"
      "local s = j:to_json()\nwhile true do kfjob.from_json('tensorflow', s) end",
      NULL};
  kfjob_host *h = new_host(0, budget);
  kfjob_usage u;
  collect c;
  int i;
  char want[128];
  memset(&c, 0, sizeof c);
  snprintf(want, sizeof want, "instruction budget exceeded (%llu instructions)", budget);
  for (i = 0; loops[i]; i++) {
    CHECK_ST(h, run_src(h, loops[i], NULL, &c), KFJOB_ELIMIT);
    CHECK_HAS(kfjob_host_message(h), want);
    kfjob_host_usage(h, &u);
    CHECK(u.instructions >= budget);
  }
  /* backtracking patterns run in C where the hook cannot see them: refused
  ** up front by their worst-case cost */
  {
    static const char *const patterns[] = {
        "string.find(('a'):rep(20000), '.-.-.-.-b')",
        "string.match(('a'):rep(20000), '(.*)(.*)(.*)b')",
        "for _ in string.gmatch(('a'):rep(20000), '.-.-.-b') do end",
        "string.gsub(('a'):rep(20000), '.-.-.-b', '')",
        "string.find(('('):rep(20000), '%b()')",
        /* optional items backtrack too: 2^40 ways */
        "string.find(('a'):rep(40), ('a?'):rep(40) .. ('a'):rep(40))",
        NULL};
    for (i = 0; patterns[i]; i++) {
      CHECK_ST(h, run_src(h, patterns[i], NULL, &c), KFJOB_ESCRIPT);
      CHECK_HAS(kfjob_host_message(h), "pattern too costly for the kfjob sandbox");
    }
    /* ordinary patterns on ordinary strings still work */
    CHECK_ST(h, run_src(h, "assert(('  bert-large  '):match('^%s*(.-)%s*$') == 'bert-large')\n"
                           "assert(select(2, ('a,b,c'):gsub(',', ';')) == 2)\n"
                           "return require('kfjob').TFJob{worker={replicas=1}}",
                        NULL, &c), KFJOB_OK);
  }
  /* __len at the integer limits: the shift is charged (and refused) without
  ** signed overflow in the wrappers (issue 18; UBSan in the ASan stage) */
  {
    static const char *const huge[] = {
        "table.insert(setmetatable({}, {__len = function() return math.maxinteger end}), 1)",
        "table.insert(setmetatable({}, {__len = function() return math.maxinteger end}), 1, 1)",
        "table.remove(setmetatable({}, {__len = function() return math.maxinteger end}))",
        "table.remove(setmetatable({}, {__len = function() return math.mininteger end}), "
        "math.maxinteger)",
        "table.move({}, math.mininteger, math.maxinteger, 1)",
        NULL};
    for (i = 0; huge[i]; i++) {
      kfjob_status st = run_src(h, huge[i], NULL, &c);
      CHECK(st == KFJOB_ELIMIT || st == KFJOB_ESCRIPT);
      collect_free(&c);
    }
  }
  CHECK_ST(h, run_src(h, "while true do end", NULL, &c), KFJOB_ELIMIT);
  CHECK(strncmp(kfjob_host_message(h), "cfg.lua:1: ", 11) == 0);
  CHECK(strcmp(kfjob_host_message(h) + 11, want) == 0);
  /* cheap calls stay cheap */
  CHECK_ST(h, run_src(h, "assert(string.rep('', 1e18) == '')\n"
                         "assert(string.rep('', 1e18, '') == '')\n"
                         "assert(('key=value'):match('^(%w+)=(%w+)$') == 'key')\n"
                         "return {}", NULL, &c), KFJOB_OK);
  /* the handle stays usable */
  CHECK_ST(h, run_src(h, SINGLE, NULL, &c), KFJOB_OK);
  kfjob_host_usage(h, &u);
  CHECK(u.instructions < budget);
  finish(h, &c);
}

/* The wall-clock limit, the last resort for work the budget does not
** model (redis's lua-time-limit): comparisons of long strings run in C. */
static void test_time_limit(void) {
  kfjob_run_options o;
  collect c;
  double t0;
  kfjob_host *h = start((size_t)256 << 20, &o, &c);
  kfjob_run_options_init(&o);
  CHECK(o.time_limit_ms == 0);   /* the default, KFJOB_DEFAULT_TIME_LIMIT_MS */
  o.time_limit_ms = 300;
  t0 = now();
  CHECK_ST(h, run_src(h, "local s = ('a'):rep(1 << 20)\n"
                         "while true do local x = s < s .. 'b' end", &o, &c), KFJOB_ELIMIT);
  CHECK(strcmp(kfjob_host_message(h), "cfg.lua:2: time limit exceeded (300 ms)") == 0);
  CHECK(now() - t0 >= 0.3);   /* it stops, never early; how soon depends on the load */
  /* caught by the script: it still stops */
  CHECK_ST(h, run_src(h, "while true do pcall(function() while true do end end) end",
                      &o, &c), KFJOB_ELIMIT);
  CHECK_HAS(kfjob_host_message(h), "time limit exceeded (300 ms)");
  /* a run within the limit is not affected (nothing of the stopped run is
  ** left on the handle): a limit far above what the run needs, even under
  ** valgrind on a loaded machine (300 ms was crossed there) */
  o.time_limit_ms = HARNESS_TIME_LIMIT_MS;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
  CHECK(c.n == 1);
  finish(h, &c);
}

/* A config whose time goes to kfjob's own C calls (each constructor checks
** a pod template of 5 x 4096 env entries) with no instruction budget: the
** deadline is checked when each call ends, so it stops one call past the
** limit.  A limit near 2^64 ms saturates instead of wrapping around to a
** deadline in the past (it once stopped every run at once, "-1 ms"). */
static const char busy_c[] =
    "local kfjob = require 'kfjob'\n"
    "local env = {}\n"
    "for i = 1, 4096 do env[i] = {name = 'V' .. i, value = 'x'} end\n"
    "local cs = {{name = 'primary', env = env}}\n"
    "for i = 1, 4 do cs[i + 1] = {name = 's' .. i, image = 'i', env = env} end\n"
    "local t = {worker = {replicas = 1}, pod_template = {spec = {containers = cs}}}\n"
    "local n = 0\n"
    "while true do kfjob.TFJob(t); n = n + 1; if n == LIMIT then break end end\n"
    "return {kfjob.TFJob{worker = {replicas = 1}}}\n";

static kfjob_status run_busy(kfjob_host *h, const char *limit,
                             const kfjob_run_options *o, collect *c) {
  char src[sizeof busy_c + 32], *at;
  size_t k;
  strcpy(src, busy_c);
  at = strstr(src, "LIMIT");
  k = strlen(limit);
  memmove(at + k, at + 5, strlen(at + 5) + 1);
  memcpy(at, limit, k);
  return run_src(h, src, o, c);
}

static void test_time_limit_calls(void) {
  kfjob_run_options o;
  collect c;
  double t0;
  kfjob_host *h;
  memset(&c, 0, sizeof c);
  h = new_host((size_t)512 << 20, 0);
  kfjob_run_options_init(&o);
  {  /* no budget: only the clock stops it */
    kfjob_host_options ho;
    kfjob_host_free(h);
    kfjob_host_options_init(&ho);
    ho.memory_limit = (size_t)512 << 20;
    ho.instruction_limit = 0;
    CHECK(kfjob_host_new(&ho, &h) == KFJOB_OK);
  }
  o.time_limit_ms = 200;
  t0 = now();
  CHECK_ST(h, run_busy(h, "-1", &o, &c), KFJOB_ELIMIT);
  CHECK_HAS(kfjob_host_message(h), "time limit exceeded (200 ms)");
  CHECK(now() - t0 >= 0.2);
  /* the last call ends past the limit: the run does not succeed */
  o.time_limit_ms = 1;
  CHECK_ST(h, run_busy(h, "1", &o, &c), KFJOB_ELIMIT);
  CHECK_HAS(kfjob_host_message(h), "time limit exceeded (1 ms)");
  /* "none" and limits too large for the clock: the run ends normally */
  o.time_limit_ms = KFJOB_NO_TIME_LIMIT;
  CHECK_ST(h, run_busy(h, "2", &o, &c), KFJOB_OK);
  o.time_limit_ms = KFJOB_NO_TIME_LIMIT - 1;
  CHECK_ST(h, run_busy(h, "2", &o, &c), KFJOB_OK);
  o.time_limit_ms = (unsigned long)1 << 50;
  CHECK_ST(h, run_busy(h, "2", &o, &c), KFJOB_OK);
  CHECK(c.n == 3);
  finish(h, &c);
}

/* The default limit (options left at 0): a busy config with no instruction
** budget stops after KFJOB_DEFAULT_TIME_LIMIT_MS with a clear error.  It
** takes that long, so it runs only when named (ctest host_time_default). */
static void test_time_default(void) {
  kfjob_host_options ho;
  kfjob_run_options o;
  kfjob_host *h = NULL;
  collect c;
  double t0, lim = KFJOB_DEFAULT_TIME_LIMIT_MS / 1000.0;
  memset(&c, 0, sizeof c);
  kfjob_host_options_init(&ho);
  ho.instruction_limit = 0;
  CHECK(kfjob_host_new(&ho, &h) == KFJOB_OK);
  kfjob_run_options_init(&o);
  t0 = now();
  CHECK_ST(h, run_src(h, "local kfjob = require 'kfjob'\n"
                         "while true do kfjob.TFJob{worker = {replicas = 1}} end",
                      &o, &c), KFJOB_ELIMIT);
  CHECK(strcmp(kfjob_host_message(h), "cfg.lua:2: time limit exceeded (60000 ms)") == 0);
  CHECK(now() - t0 >= lim);
  finish(h, &c);
}

static void test_forbidden(void) {
  static const char *const absent[] = {
      "os.execute('true')", "io.popen('ls')", "io.open('/etc/passwd')",
      "io.write('x')", "os.exit(1)", "os.remove('x')", "os.rename('a', 'b')",
      "os.getenv('HOME')", "os.tmpname()", "dofile('/etc/passwd')",
      "loadfile('/etc/passwd')", "string.dump(print)", "debug.getinfo(1)",
      "package.loadlib('x', 'y')",
      NULL};
  static const char *const refused[][2] = {
      {"require 'lfs'", "module 'lfs' not found"},
      {"require 'socket.core'", "module 'socket.core' not found"},
      {"require 'io'", "module 'io' not found"},
      {"require 'debug'", "module 'debug' not found"},
      {"require 'package'", "module 'package' not found"},
      {"require 'kfjob.nope'", "module 'kfjob.nope' not found"},
      {"load('return 1', 'x', 'b')", "binary chunks are not allowed"},
      {"assert(load('\\27LuaT\\0\\25\\147\\r\\n\\26\\n'))",
       "attempt to load a binary chunk (mode is 't')"},
      {"setmetatable({}, {__gc = function() end})", "__gc metamethods are not allowed"},
      {NULL, NULL}};
  collect c;
  int i;
  kfjob_host *h = start(0, NULL, &c);
  for (i = 0; absent[i]; i++) {
    CHECK_ST(h, run_src(h, absent[i], NULL, &c), KFJOB_ESCRIPT);
    CHECK_HAS(kfjob_host_message(h), "nil value");
  }
  for (i = 0; refused[i][0]; i++) {
    CHECK_ST(h, run_src(h, refused[i][0], NULL, &c), KFJOB_ESCRIPT);
    CHECK_HAS(kfjob_host_message(h), refused[i][1]);
  }
  /* what is allowed */
  CHECK_ST(h, run_src(h,
      "assert(type(os.time()) == 'number' and type(os.clock()) == 'number')\n"
      "assert(type(os.date('%Y')) == 'string')\n"
      "assert(require('string') == string and require('kfjob.template'))\n"
      "assert(load('return 1 + 1')() == 2)\n"
      "assert(load(function() return nil end))\n"
      "assert(select('#', load('return 1', 'x', 'bt')) == 1)\n"
      "local env = {}\nload('x = 1', 'c', 't', env)()\nassert(env.x == 1)\n"
      "assert(setmetatable({}, {__index = {a = 1}}).a == 1)\n"
      "assert(string.format('%5.1f', 1.25) == '  1.2' or true)\n"
      "assert(utf8.char(233) == '\\xc3\\xa9' and math.pi and coroutine.wrap)\n"
      "assert(table.concat({1, 2}, ',') == '1,2')\n"
      "local t = {1, 2, 3}; table.insert(t, 1, 0); assert(t[1] == 0 and #t == 4)\n"
      "assert(table.remove(t, 1) == 0 and #t == 3)\n"
      "assert(table.move({1, 2, 3}, 1, 3, 2)[3] == 2)\n"
      "assert(('a,b'):gsub(',', ';') == 'a;b')\n"
      "local n = 0; for w in ('a b c'):gmatch('%a') do n = n + 1 end; assert(n == 3)\n"
      "assert(('x'):rep(3, '-') == 'x-x-x')\n"
      "return {}", NULL, &c), KFJOB_OK);
  finish(h, &c);
}

static char logged[1024];
static void on_log(void *ud, const char *msg, size_t len) {
  size_t n = strlen(logged);
  (void)ud;
  CHECK(strlen(msg) == len);
  snprintf(logged + n, sizeof logged - n, "[%s]", msg);
}

static void test_log(void) {
  kfjob_host_options ho;
  kfjob_host *h;
  collect c;
  memset(&c, 0, sizeof c);
  kfjob_host_options_init(&ho);
  ho.log = on_log;
  CHECK(kfjob_host_new(&ho, &h) == KFJOB_OK);
  logged[0] = '\0';
  CHECK_ST(h, run_src(h, "print('a', 1, nil)\nwarn('w', 'x')\nwarn('@off')\nprint()\nreturn {}",
                      NULL, &c), KFJOB_OK);
  CHECK(strcmp(logged, "[a\t1\tnil][warning: wx][]") == 0);
  kfjob_host_free(h);
  /* no log: print is silent */
  h = new_host(0, 0);
  CHECK_ST(h, run_src(h, "print('quiet') return {}", NULL, &c), KFJOB_OK);
  finish(h, &c);
}

static void test_callback(void) {
  collect c;
  kfjob_usage u;
  kfjob_host *h = start(0, NULL, &c);
  c.stop_after = 1;
  CHECK_ST(h, run_src(h, PYTORCH "return { job(1), job(2), job(3) }", NULL, &c),
           KFJOB_ESTOPPED);
  CHECK(c.n == 1);
  kfjob_host_usage(h, &u);
  CHECK(u.jobs == 1);
  collect_free(&c);
  /* calling the handle from its own callback is refused, not a crash */
  c.h = h;
  CHECK_ST(h, run_src(h, SINGLE, NULL, &c), KFJOB_OK);
  CHECK(c.reentry == KFJOB_EARG);
  finish(h, &c);
}

static void test_args(void) {
  kfjob_run_options o;
  const char *bad[] = {"novalue"};
  const char *bad2[] = {"=x"};
  kfjob_usage u;
  collect c;
  kfjob_host *h = start(0, NULL, &c);
  CHECK(kfjob_host_new(NULL, NULL) == KFJOB_EARG);
  CHECK(kfjob_host_run_string(NULL, "x", 1, NULL, NULL, NULL, NULL) == KFJOB_EARG);
  CHECK(kfjob_host_run_file(NULL, "x", NULL, NULL, NULL) == KFJOB_EARG);
  CHECK(kfjob_host_decode(NULL, NULL, 1, "", 0, NULL, NULL, NULL) == KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(NULL), "NULL");
  CHECK_ST(h, kfjob_host_run_string(h, NULL, 0, NULL, NULL, NULL, NULL), KFJOB_EARG);
  CHECK_ST(h, kfjob_host_run_file(h, NULL, NULL, NULL, NULL), KFJOB_EARG);
  kfjob_run_options_init(&o);
  o.format = (kfjob_format)42;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(h), "unknown format");
  kfjob_run_options_init(&o);
  o.version = 2;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  kfjob_run_options_init(&o);
  o.replica_encoding = "packed";
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  kfjob_run_options_init(&o);
  o.params = bad;
  o.nparams = 1;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(h), "'novalue' is not key=value");
  o.params = bad2;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  o.params = NULL;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  kfjob_run_options_init(&o);
  o.name = "";
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_EARG);
  CHECK_ST(h, kfjob_host_decode(h, "pytorch", 7, "", 0, NULL, NULL, NULL), KFJOB_EARG);
  CHECK_ST(h, kfjob_host_decode(h, "pytorch", 1, NULL, 3, NULL, NULL, NULL), KFJOB_EARG);
  CHECK_ST(h, kfjob_host_run_file(h, "/nonexistent/cfg.lua", NULL, NULL, NULL), KFJOB_EIO);
  CHECK_HAS(kfjob_host_message(h), "cannot open /nonexistent/cfg.lua: ");
  kfjob_host_usage(NULL, &u);
  CHECK(u.jobs == 0 && u.memory_peak == 0);
  kfjob_host_usage(h, NULL);
  kfjob_host_free(NULL);
  kfjob_host_options_init(NULL);
  kfjob_run_options_init(NULL);
  finish(h, &c);
}

static void test_decode(void) {
  kfjob_run_options o;
  collect c;
  static const char junk[] = "\xff\xff\xff\xff garbage";
  kfjob_host *h = start(0, &o, &c);
  CHECK_ST(h, kfjob_host_decode(h, "pytorch", 1, junk, sizeof junk - 1, &o, on_job, &c),
           KFJOB_EDATA);
  CHECK(kfjob_host_message(h)[0] != '\0');
  CHECK_ST(h, kfjob_host_decode(h, NULL, 1, junk, sizeof junk - 1, &o, on_job, &c),
           KFJOB_EDATA);
  CHECK_ST(h, kfjob_host_decode(h, "nope", 1, "", 0, &o, on_job, &c), KFJOB_EDATA);
  CHECK(c.n == 0);
  /* proto3 JSON with a task type, rendered as YAML */
  o.format = KFJOB_FORMAT_YAML;
  o.name = "fromjson";
  CHECK_ST(h, kfjob_host_decode(h, "pytorch", 1, "{\"workerReplicas\": {\"replicas\": 3}}",
                                35, &o, on_job, &c), KFJOB_OK);
  CHECK(c.n == 1 && strcmp(c.jobs[0].name, "fromjson") == 0);
  CHECK_HAS(c.jobs[0].data, "replicas: 3");
  collect_free(&c);
  /* a kind name refines the task type (v0: workers 2, slots 1) */
  o.format = KFJOB_FORMAT_JSON;
  CHECK_ST(h, kfjob_host_decode(h, "HorovodJob", 0, "\x08\x02\x18\x01", 4, &o, on_job, &c),
           KFJOB_OK);
  CHECK(c.n == 1 && strcmp(c.jobs[0].kind, "HorovodJob") == 0);
  CHECK(c.n == 1 && c.jobs[0].version == 0);
  collect_free(&c);
  /* TaskTemplate JSON: the id's name names the job */
  {
    static const char tt[] =
        "{\"id\": {\"resourceType\": \"TASK\", \"project\": \"p\", \"domain\": \"d\",\n"
        "        \"name\": \"wf.train\", \"version\": \"v1\"},\n"
        " \"type\": \"pytorch\", \"taskTypeVersion\": 1,\n"
        " \"custom\": {\"workerReplicas\": {\"replicas\": 2}}}";
    o.name = NULL;
    CHECK_ST(h, kfjob_host_decode(h, NULL, 1, tt, sizeof tt - 1, &o, on_job, &c),
             KFJOB_OK);
    CHECK(c.n == 1 && strcmp(c.jobs[0].name, "wf.train") == 0);
    CHECK_HAS(c.jobs[0].data, "\"workerReplicas\":{\"replicas\":2");
    collect_free(&c);
  }
  finish(h, &c);
}

/* A TaskTemplate made by the script itself, decoded by the host. */
static int keep_template(void *ud, const kfjob_job *j) {
  collect *c = (collect *)ud;
  return on_job(c, j);
}

static void test_template_name(void) {
  kfjob_run_options o;
  collect c, d;
  kfjob_host *h = start(0, &o, &c);
  memset(&d, 0, sizeof d);
  o.format = KFJOB_FORMAT_TEMPLATE;
  CHECK_ST(h, run_src(h, SINGLE, &o, &c), KFJOB_OK);
  CHECK(c.n == 1);
  harness_run_options(&o);
  o.name = "fallback";
  CHECK_ST(h, kfjob_host_decode(h, NULL, 0, c.jobs[0].data, c.jobs[0].size, &o,
                                keep_template, &d), KFJOB_OK);
  CHECK(d.n == 1 && strcmp(d.jobs[0].name, "fallback") == 0 && d.jobs[0].version == 1);
  collect_free(&d);
  finish(h, &c);
}

static void test_file(void) {
  char path[] = "/tmp/kfjob_test_XXXXXX";
  collect c;
  FILE *f;
  int fd;
  kfjob_host *h = start(0, NULL, &c);
  fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  f = fdopen(fd, "w");
  fputs("\xEF\xBB\xBF" "local kfjob = require 'kfjob'\n"
        "return { a = kfjob.TFJob{ worker = { replicas = 1 } },\n"
        "         b = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 } }\n", f);
  fclose(f);
  CHECK_ST(h, kfjob_host_run_file(h, path, NULL, on_job, &c), KFJOB_OK);
  CHECK(c.n == 2 && strcmp(c.jobs[0].task_type, "tensorflow") == 0 &&
        strcmp(c.jobs[1].task_type, "mpi") == 0);
  collect_free(&c);
  f = fopen(path, "w");
  fputs("local x = 1\nerror('in file')\n", f);
  fclose(f);
  CHECK_ST(h, kfjob_host_run_file(h, path, NULL, on_job, &c), KFJOB_ESCRIPT);
  CHECK_HAS(kfjob_host_message(h), path);
  CHECK_HAS(kfjob_host_message(h), ":2: in file");
  kfjob_host_free(h);

  /* a script larger than the memory limit is refused before it is read
  ** (a regular file by its size) or once the limit is read (/dev/zero
  ** would otherwise be read without end) */
  h = new_host((size_t)1 << 20, 0);
  f = fopen(path, "w");
  fputs("return nil --", f);
  for (fd = 0; fd < (1 << 20); fd += 16) fputs("0123456789abcdef", f);
  fclose(f);
  CHECK_ST(h, kfjob_host_run_file(h, path, NULL, on_job, &c), KFJOB_EMEMORY);
  CHECK_HAS(kfjob_host_message(h), ": memory limit exceeded (1048576 bytes): "
                                   "the script is larger than the limit");
  CHECK_ST(h, kfjob_host_run_file(h, "/dev/zero", NULL, on_job, &c), KFJOB_EMEMORY);
  CHECK_HAS(kfjob_host_message(h), "/dev/zero: memory limit exceeded (1048576 bytes): "
                                   "the script is larger than the limit");
  CHECK(c.n == 0);
  remove(path);
  finish(h, &c);
}

/* Memory stays flat over many variants of an iterator. */
static void test_many(void) {
  kfjob_run_options o;
  kfjob_usage u;
  collect c;
  kfjob_host *h = start((size_t)16 << 20, &o, &c);
  o.format = KFJOB_FORMAT_PB;
  CHECK_ST(h, run_src(h,
      "local template = require 'kfjob.template'\n"
      "return template.variants({ worker = { replicas = 1 } },\n"
      "  { ['worker.replicas'] = {1, 2, 3, 4, 5, 6, 7, 8}, a = {1, 2, 3, 4, 5},\n"
      "    b = {1, 2, 3, 4, 5} },\n"
      "  { kind = 'PyTorchJob', name = 'v-${a}-${b}-w${worker.replicas}' })\n",
      &o, &c), KFJOB_OK);
  kfjob_host_usage(h, &u);
  CHECK(u.jobs == 200);
  CHECK(u.memory_peak < ((size_t)8 << 20));
  finish(h, &c);
}

typedef struct test {
  const char *name;
  void (*fn)(void);
} test;

/* max_jobs: a runaway iterator stops at the limit with a clear error. */
static void test_max_jobs(void) {
  static const char *const endless =
      "local kfjob = require 'kfjob'\n"
      "local job = kfjob.TFJob{worker = {replicas = 1}}\n"
      "local i = 0\n"
      "return function() i = i + 1; return 'job-' .. i, job end\n";
  kfjob_host *h = new_host(0, 0);
  kfjob_run_options o;
  collect c;
  memset(&c, 0, sizeof c);
  harness_run_options(&o);
  o.format = KFJOB_FORMAT_NONE;
  o.max_jobs = 10;
  CHECK_ST(h, run_src(h, endless, &o, &c), KFJOB_ESCRIPT);
  CHECK_HAS(kfjob_host_message(h), "more than 10 jobs in one render");
  CHECK(c.n == 10);
  finish(h, &c);
}

int main(int argc, char **argv) {
  static const test tests[] = {
      {"max_jobs", test_max_jobs},
      {"version", test_version},   {"names", test_names},
      {"formats", test_formats},   {"lint", test_lint},
      {"target", test_target},
      {"pod", test_pod},
      {"shapes", test_shapes},     {"params", test_params},
      {"script_errors", test_script_errors},
      {"job_errors", test_job_errors},
      {"memory_limit", test_memory_limit},
      {"instruction_budget", test_instruction_budget},
      {"time_limit", test_time_limit},
      {"time_limit_calls", test_time_limit_calls},
      {"forbidden", test_forbidden},
      {"log", test_log},           {"callback", test_callback},
      {"args", test_args},         {"decode", test_decode},
      {"template_name", test_template_name},
      {"file", test_file},         {"many", test_many},
      {NULL, NULL}};
  /* slow: only when named */
  static const test named_only[] = {{"time_default", test_time_default},
                                    {NULL, NULL}};
  const test *t;
  int i;
  for (t = named_only; argc > 1 && t->name; t++)
    for (i = 1; i < argc; i++)
      if (strcmp(argv[i], t->name) == 0) {
        t->fn();
        printf("%s - %s\n", failures == 0 ? "ok" : "FAILED", t->name);
      }
  if (getenv("KFJOB_TEST_BUDGET")) budget = strtoull(getenv("KFJOB_TEST_BUDGET"), NULL, 10);
  for (t = tests; t->name; t++) {
    int f0 = failures;
    if (argc > 1) {
      for (i = 1; i < argc; i++)
        if (strcmp(argv[i], t->name) == 0) break;
      if (i == argc) continue;
    }
    t->fn();
    printf("%s - %s\n", failures == f0 ? "ok" : "FAILED", t->name);
  }
  return harness_report();
}

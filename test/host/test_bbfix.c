/*
** test_bbfix.c - host API behaviour a black-box tester of the C API checked
** against kfjob.h and docs/HOST.md: the job callback's time counted by the
** time limit on every path, usage after an import, the messages of
** streams, generators and decode.
*/
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int njobs;
static int slow_cb(void *ud, const kfjob_job *j) {
  (void)ud, (void)j;
  njobs++;
  sleep_ms(60);
  return 0;
}

/* HOST.md: time_limit_ms is "real time since the run started, the job
** callback included" - whatever shape the config returns. */
static void callback_time(void) {
  static const struct {
    const char *chunk, *src;
  } cases[] = {
      {"list.lua", "local k = require 'kfjob' local t = {}\n"
                   "for i = 1, 10 do t[i] = k.TFJob{worker = {replicas = i}} end\n"
                   "return t\n"},
      {"named.lua", "local k = require 'kfjob' local t = {}\n"
                    "for i = 1, 10 do t['n' .. i] = k.TFJob{worker = {replicas = i}} end\n"
                    "return t\n"},
      {"data.yaml", "- {kind: TFJob, worker: {replicas: 1}}\n"
                    "- {kind: TFJob, worker: {replicas: 2}}\n"
                    "- {kind: TFJob, worker: {replicas: 3}}\n"
                    "- {kind: TFJob, worker: {replicas: 4}}\n"
                    "- {kind: TFJob, worker: {replicas: 5}}\n"
                    "- {kind: TFJob, worker: {replicas: 6}}\n"},
  };
  size_t i;
  kfjob_host *h;
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kfjob_run_options o;
    kfjob_run_options_init(&o);
    o.format = KFJOB_FORMAT_NONE;
    o.time_limit_ms = 100;
    njobs = 0;
    CHECK_ST(h, kfjob_host_run_string(h, cases[i].src, strlen(cases[i].src),
                                      cases[i].chunk, &o, slow_cb, NULL),
             KFJOB_ELIMIT);
    CHECK_HAS(kfjob_host_message(h), "time limit exceeded (100 ms)");
    /* one callback of 60 ms past the limit at most: the third at the latest
    ** (none at all on a machine slow enough to spend the 100 ms before it) */
    CHECK(njobs <= 3);
  }
  kfjob_host_free(h);
}

/* HOST.md: the budget charges "kfjob's own functions, one instruction per
** byte they allocate, write or hash": a loop of 1000 calls of each that
** runs a few VM instructions per call is charged far more than those. */
static void own_functions_charged(void) {
  static const struct {
    const char *what, *loop;
    unsigned long long min;   /* per call, bytes at least */
  } cases[] = {
      {"constructor", "local j = k.TFJob{worker = {replicas = 2, image = 'i'}}", 64},
      {"tostring", "local s = tostring(j0)", 30},
      {"fields", "local f = k.fields('TFJob')", 1000},
      {"load reader", "local n = 0\n"
                      "load(function() n = n + 1 if n < 3 then return '--' .. x end end)",
       2000},
  };
  size_t i;
  kfjob_host *h;
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[1024];
    kfjob_run_options o;
    kfjob_usage u;
    harness_run_options(&o);
    o.format = KFJOB_FORMAT_NONE;
    snprintf(src, sizeof src,
             "local k = require 'kfjob'\n"
             "local j0 = k.TFJob{worker = {replicas = 2}}\n"
             "local x = ('x'):rep(1000)\n"
             "for i = 1, 1000 do\n%s\nend\n"
             "return j0\n", cases[i].loop);
    CHECK_ST(h, kfjob_host_run_string(h, src, strlen(src), "loop.lua", &o, NULL, NULL),
             KFJOB_OK);
    kfjob_host_usage(h, &u);
    if (u.instructions < 1000 * cases[i].min) {
      failures++;
      fprintf(stderr, "%s: %llu instructions for 1000 calls\n", cases[i].what,
              (unsigned long long)u.instructions);
    }
  }
  kfjob_host_free(h);
}

static int count_import(void *ud, const kfjob_job *j, const kfjob_import_info *in) {
  (void)j, (void)in;
  ++*(int *)ud;
  return 0;
}

/* kfjob.h: with `stream` "other kinds are skipped"; a stream of other
** kinds only has no job: the message says so, naming the first. */
static void stream_of_other_kinds(void) {
  char text[2048];
  size_t n = 0;
  int i, calls = 0;
  kfjob_host *h;
  kfjob_import_options io;
  kfjob_run_options o;
  memset(&io, 0, sizeof io);
  io.stream = 1;
  harness_run_options(&o);
  for (i = 0; i < 10; i++)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i);
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, n, &io, &o, count_import, &calls),
           KFJOB_EDATA);
  CHECK(calls == 0);
  CHECK_HAS(kfjob_host_message(h), "kfjob.from_manifests: no job in the stream: none of "
                                   "its 10 documents is of a kind kfjob reads");
  CHECK_HAS(kfjob_host_message(h), "document 1 (line 2): apiVersion v1, kind ConfigMap");
  kfjob_host_free(h);
}

/* kfjob_host_usage: "Usage of the last run", jobs "passed to the
** callback" - after an import too (it kept the previous run's). */
static void usage_after_import(void) {
  static const char tf[] =
      "---\napiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: j%d}\nspec:\n"
      "  tfReplicaSpecs:\n    Worker:\n      replicas: 2\n"
      "      template: {spec: {containers: [{name: tensorflow, image: x}]}}\n";
  char text[4096];
  size_t n = 0;
  int i, calls = 0;
  kfjob_host *h;
  kfjob_import_options io;
  kfjob_run_options o;
  kfjob_usage u;
  memset(&io, 0, sizeof io);
  io.stream = 1;
  harness_run_options(&o);
  o.format = KFJOB_FORMAT_MANIFEST;
  for (i = 0; i < 5; i++) n += (size_t)snprintf(text + n, sizeof text - n, tf, i);
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  static const char one[] = "return require('kfjob').TFJob{worker = {replicas = 1, image = 'i'}}";
  CHECK_ST(h, kfjob_host_run_string(h, one, strlen(one), "one.lua", &o, NULL, NULL), KFJOB_OK);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, n, &io, &o, count_import, &calls),
           KFJOB_OK);
  kfjob_host_usage(h, &u);
  CHECK(calls == 5);
  CHECK(u.jobs == 5);
  CHECK(u.failed == 0);
  CHECK(u.instructions == 0);   /* no Lua ran */
  CHECK(u.memory_peak > 0);
  kfjob_host_free(h);
}

/* "v.lua:N: <what>" for a line N of the config. */
static void config_line(const char *msg, const char *what) {
  const char *p = msg;
  CHECK(strncmp(p, "v.lua:", 6) == 0);
  for (p += 6; *p >= '0' && *p <= '9'; p++) {}
  CHECK(p > msg + 6 && strncmp(p, ": ", 2) == 0 && strcmp(p + 2, what) == 0);
}

/* HOST.md: "FILE:LINE: time limit exceeded (N ms)", the config's line,
** also when the time runs out inside kfjob.template.variants (it named
** kfjob/template/variants.lua) or in a callback. */
static void time_limit_line(void) {
  static const char src[] =
      "local k = require 'kfjob'\n"
      "local t = require 'kfjob.template'\n"
      "local r, s = {}, {}\n"
      "for i = 1, 1000 do r[i] = i s[i] = 'i' .. i end\n"
      "return t.variants(k.TFJob{worker = {replicas = 2, image = 'i'}},\n"
      "  {['worker.replicas'] = r, ['worker.image'] = s},\n"
      "  {name = 'v-${worker.replicas}-${worker.image}'})\n";
  kfjob_host *h;
  kfjob_run_options o;
  kfjob_run_options_init(&o);
  o.format = KFJOB_FORMAT_MANIFEST;
  o.time_limit_ms = 200;   /* the sweep is 1 000 000 variants: far longer */
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  CHECK_ST(h, kfjob_host_run_string(h, src, strlen(src), "v.lua", &o, NULL, NULL),
           KFJOB_ELIMIT);
  /* the config's line (the variants call, unless a loaded machine spends
  ** the time before it), never kfjob's own module */
  config_line(kfjob_host_message(h), "time limit exceeded (200 ms)");
  o.time_limit_ms = 300;
  CHECK_ST(h, kfjob_host_run_string(h, src, strlen(src), "v.lua", &o, slow_cb, NULL),
           KFJOB_ELIMIT);
  config_line(kfjob_host_message(h), "time limit exceeded (300 ms)");
  kfjob_host_free(h);
}

/* kfjob.h (run_file): a name ending .json "(any case)" is a data config
** that must be JSON: .Json refuses YAML as .json and .JSON do. */
static void json_any_case(void) {
  static const char yaml[] = "kind: TFJob\nworker: {replicas: 2, image: i}\n";
  static const char *const names[] = {"x.json", "x.JSON", "x.Json", "dir/x.jSoN"};
  size_t i;
  kfjob_host *h;
  kfjob_run_options o;
  harness_run_options(&o);
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    CHECK_ST(h, kfjob_host_run_string(h, yaml, strlen(yaml), names[i], &o, NULL, NULL),
             KFJOB_ESCRIPT);
    CHECK_HAS(kfjob_host_message(h), ":1: ");
  }
  CHECK_ST(h, kfjob_host_run_string(h, yaml, strlen(yaml), "x.Yaml", &o, NULL, NULL),
           KFJOB_OK);
  kfjob_host_free(h);
}

/* kfjob_generate: "on KFJOB_EARG the message (also malloc'd)", for an
** unknown generator too; args[2] as kfjob.h spells it. */
static char hexbuf[8192];
static int to_hex(void *ud, const kfjob_job *j) {
  size_t i;
  (void)ud;
  for (i = 0; i < j->size && 2 * i + 2 < sizeof hexbuf; i++)
    snprintf(hexbuf + 2 * i, 3, "%02x", (unsigned char)j->data[i]);
  return 0;
}

static void generate_args(void) {
  const char *none[3] = {NULL, NULL, NULL};
  char *out = NULL;
  CHECK(kfjob_generate("bogus", none, &out) == KFJOB_EARG);
  CHECK_STR(out, "kfjob_generate: unknown generator 'bogus' (expected meta, schema, "
                 "explain or convert)");
  free(out);
  out = NULL;
  /* a TaskTemplate as hex digits, its job named as args[2] says */
  {
    static const char src[] = "return require('kfjob').TFJob{worker = {replicas = 2}}";
    const char *flyte[3] = {hexbuf, "lua", "\1flyte\t0\t\tmyjob"};
    kfjob_host *h;
    kfjob_run_options o;
    harness_run_options(&o);
    o.format = KFJOB_FORMAT_TEMPLATE;
    CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
    CHECK_ST(h, kfjob_host_run_string(h, src, strlen(src), "t.lua", &o, to_hex, NULL),
             KFJOB_OK);
    kfjob_host_free(h);
    CHECK(kfjob_generate("convert", flyte, &out) == KFJOB_OK);
    CHECK_HAS(out, "myjob = kfjob.TFJob");
  }
  free(out);
}

static int other_copy;
static int on_other(void *ud, const kfjob_job *j, const kfjob_import_info *in) {
  (void)ud, (void)j;
  if (in->other) other_copy = in->copy_to_pods;
  return 0;
}

/* kfjob_import_info::copy_to_pods "Always non-zero (kept for the ABI)":
** for a document of another kind passed through as well. */
static void other_copy_to_pods(void) {
  static const char text[] =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
      "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: j}\nspec:\n"
      "  tfReplicaSpecs:\n    Worker:\n      replicas: 2\n"
      "      template: {spec: {containers: [{name: tensorflow, image: x}]}}\n";
  kfjob_host *h;
  kfjob_import_options io;
  kfjob_run_options o;
  memset(&io, 0, sizeof io);
  io.stream = 1, io.other = 1;
  harness_run_options(&o);
  o.format = KFJOB_FORMAT_MANIFEST;
  other_copy = -1;
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  CHECK_ST(h, kfjob_host_import_manifests(h, text, strlen(text), &io, &o, on_other, NULL),
           KFJOB_OK);
  CHECK(other_copy == 1);
  kfjob_host_free(h);
}

/* kfjob.h KFJOB_ESCRIPT: nil is an error; no jobs (an empty list) is not. */
static void no_jobs(void) {
  static const char *const ok[] = {"return {}", "return function() end"};
  size_t i;
  kfjob_host *h;
  kfjob_run_options o;
  harness_run_options(&o);
  njobs = 0;
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  for (i = 0; i < 2; i++)
    CHECK_ST(h, kfjob_host_run_string(h, ok[i], strlen(ok[i]), "e.lua", &o, slow_cb, NULL),
             KFJOB_OK);
  CHECK(njobs == 0);
  CHECK_ST(h, kfjob_host_run_string(h, "return nil", 10, "e.lua", &o, slow_cb, NULL),
           KFJOB_ESCRIPT);
  CHECK_HAS(kfjob_host_message(h), "e.lua: the config returned nothing");
  kfjob_host_free(h);
}

/* kfjob_host_decode: `version` is plugin bytes' task_type_version; a
** TaskTemplate (task_type NULL) carries its own, so -1 is no error. */
static void decode_template_version(void) {
  static const char src[] = "return require('kfjob').TFJob{worker = {replicas = 2}}";
  kfjob_host *h;
  kfjob_run_options o;
  size_t n;
  char *bytes;
  harness_run_options(&o);
  o.format = KFJOB_FORMAT_TEMPLATE;
  CHECK(kfjob_host_new(NULL, &h) == KFJOB_OK);
  CHECK_ST(h, kfjob_host_run_string(h, src, strlen(src), "t.lua", &o, to_hex, NULL), KFJOB_OK);
  n = strlen(hexbuf) / 2;
  bytes = malloc(n);
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(hexbuf + 2 * i, "%2x", &v);
    bytes[i] = (char)v;
  }
  harness_run_options(&o);
  njobs = 0;
  CHECK_ST(h, kfjob_host_decode(h, NULL, -1, bytes, n, &o, slow_cb, NULL), KFJOB_OK);
  CHECK(njobs == 1);
  CHECK_ST(h, kfjob_host_decode(h, "tensorflow", -1, bytes, n, &o, NULL, NULL), KFJOB_EARG);
  CHECK_HAS(kfjob_host_message(h), "unsupported task_type_version");
  free(bytes);
  kfjob_host_free(h);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(void);
  } tests[] = {{"callback_time", callback_time},
                 {"own_functions_charged", own_functions_charged},
                 {"stream_of_other_kinds", stream_of_other_kinds},
                 {"usage_after_import", usage_after_import},
                 {"time_limit_line", time_limit_line},
                 {"json_any_case", json_any_case},
                 {"generate_args", generate_args},
                 {"other_copy_to_pods", other_copy_to_pods},
                 {"no_jobs", no_jobs},
                 {"decode_template_version", decode_template_version},
                 {NULL, NULL}};
  int i, k;
  for (i = 0; tests[i].name; i++) {
    int f0 = failures;
    for (k = 1; k < argc && strcmp(argv[k], tests[i].name) != 0; k++) {
    }
    if (argc > 1 && k == argc) continue;
    tests[i].fn();
    printf("%s - %s\n", failures == f0 ? "ok" : "FAILED", tests[i].name);
  }
  return harness_report();
}

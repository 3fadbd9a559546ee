/*
** test_resources.c - C tests of what issue 15 added to the host API:
** kfjob_job::resources (with their sums worked out by hand), a failed
** variant of template.variants under keep_going (counted, FILE:LINE, the
** run goes on), the total of a sweep, kfjob_quantity_add and
** kfjob_suggest; and the resources path under every memory limit from
** too small to enough (each run ends OK or KFJOB_EMEMORY, valgrind- and
** ASan-clean), the allocation-failure scenario of that path.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct seen {
  char name[8][64], error[8][512], line[8][256];
  size_t n, total[8];
} seen;

/* Each job as one line: "pods groups gpu cpu-req cpu-lim mem-req mem-lim". */
static int on_job(void *ud, const kfjob_job *j) {
  seen *s = (seen *)ud;
  const kfjob_resources *r = j->resources;
  size_t i, k;
  if (s->n >= 8) return 0;
  snprintf(s->name[s->n], sizeof s->name[0], "%s", j->name);
  snprintf(s->error[s->n], sizeof s->error[0], "%s", j->error ? j->error : "");
  s->total[s->n] = j->total;
  s->line[s->n][0] = '\0';
  if (r) {
    k = (size_t)snprintf(s->line[s->n], sizeof s->line[0], "%lld", r->pods);
    for (i = 0; i < r->ngroups && k < sizeof s->line[0]; i++)
      k += (size_t)snprintf(s->line[s->n] + k, sizeof s->line[0] - k, " %s=%lld",
                            r->groups[i].role, r->groups[i].replicas);
    if (k < sizeof s->line[0])
      snprintf(s->line[s->n] + k, sizeof s->line[0] - k, " | %s %s %s %s %s", r->gpu,
               r->cpu_request, r->cpu_limit, r->memory_request, r->memory_limit);
  }
  s->n++;
  return 0;
}

static const char RES[] =
    "local kfjob = require 'kfjob'\n"
    "return {\n"
    "  a = kfjob.TFJob{\n"
    "    worker = { replicas = 3, requests = { cpu = '500m', mem = '1G' },\n"
    "               limits = { cpu = '1.5', mem = '1Gi' } },\n"
    "    ps = { replicas = 2, requests = { cpu = 0.25, mem = '512Mi' } } },\n"
    "  b = kfjob.PyTorchJob{\n"
    "    master = { requests = { cpu = 2, mem = '4Gi' } },\n"
    "    worker = { replicas = 2, requests = { gpu = 1 },\n"
    "               limits = { cpu = 4, mem = '8Gi', gpu = 1 } },\n"
    "    requests = { ephemeral_storage = '1Gi' },\n"
    "    pod_template = { spec = { containers = {\n"
    "      { name = 'primary' },\n"
    "      { name = 'side', image = 'side:1',\n"
    "        resources = { requests = { cpu = '100m', memory = '64Mi' } } } },\n"
    "      initContainers = { { name = 'init', image = 'init:1',\n"
    "        resources = { requests = { cpu = 16, memory = '1Gi' } } } } } } },\n"
    "}\n";

static void test_resources(void) {
  kfjob_host *h;
  kfjob_run_options ro;
  seen s;
  memset(&s, 0, sizeof s);
  if (kfjob_host_new(NULL, &h) != KFJOB_OK) exit(2);
  harness_run_options(&ro);
  ro.format = KFJOB_FORMAT_NONE;
  ro.resources = 1;
  CHECK(kfjob_host_run_string(h, RES, strlen(RES), "cfg.lua", &ro, on_job, &s) == KFJOB_OK);
  CHECK(s.n == 2);
  /* a: PS 2 x (250m, 512Mi); Worker 3 x (req 500m/1G, lim 1.5/1Gi):
  ** cpu req 500m + 1500m = 2; lim 4500m; mem req 1Gi + 3G =
  ** 1073741824 + 3000000000 = 4073741824 (not whole Ki); lim 3Gi */
  CHECK_STR(s.line[0], "5 PS=2 Worker=3 | 0 2 4500m 4073741824 3Gi");
  /* b: the task's ephemeral storage only (a group with resources keeps
  ** its cpu and memory); each pod has the sidecar (100m, 64Mi) and an
  ** init container (16, 1Gi) that, larger than the containers' sum for
  ** cpu, sets the pod's cpu request:
  **   Master: containers 2 + 100m = 2100m < 16 -> 16; mem 4Gi + 64Mi =
  **     4160Mi > 1Gi -> 4160Mi
  **   Worker x 2: containers cpu 4 + 100m = 4100m < 16 -> 16 each;
  **     mem 8Gi + 64Mi = 8256Mi each
  **   cpu req 16 + 32 = 48; mem req 4160Mi + 16512Mi = 20672Mi
  **   limits: only the primary containers set them (workers): cpu 2 x 4 =
  **     8, mem 2 x 8Gi = 16Gi; GPU 2 x 1 = 2 */
  CHECK_STR(s.line[1], "3 Master=1 Worker=2 | 2 48 8 20672Mi 16Gi");
  kfjob_host_free(h);
}

/* Every memory limit from too small to enough: OK or EMEMORY, nothing
** else; the resources of the last run are complete. */
static void test_resources_memory(void) {
  size_t lim, ok = 0, oom = 0;
  for (lim = (size_t)64 << 10; lim <= (size_t)1 << 20; lim += 8 << 10) {
    kfjob_host_options ho;
    kfjob_host *h;
    kfjob_run_options ro;
    kfjob_status st;
    seen s;
    memset(&s, 0, sizeof s);
    kfjob_host_options_init(&ho);
    ho.memory_limit = lim;
    if (kfjob_host_new(&ho, &h) != KFJOB_OK) exit(2);
    harness_run_options(&ro);
    ro.format = KFJOB_FORMAT_NONE;
    ro.resources = 1;
    st = kfjob_host_run_string(h, RES, strlen(RES), "cfg.lua", &ro, on_job, &s);
    CHECK(st == KFJOB_OK || st == KFJOB_EMEMORY);
    if (st == KFJOB_OK) {
      ok++;
      CHECK_STR(s.line[1], "3 Master=1 Worker=2 | 2 48 8 20672Mi 16Gi");
    } else {
      oom++;
    }
    kfjob_host_free(h);
  }
  CHECK(ok > 0);
  CHECK(oom > 0);
}

static void test_variants(void) {
  static const char SWEEP[] =
      "local template = require 'kfjob.template'\n"
      "return template.variants({ worker = { replicas = '${r}' } },\n"
      "  { r = { 1, 'x', 2 } }, { kind = 'TFJob', name = 'j-${r}' })\n";
  kfjob_host *h;
  kfjob_run_options ro;
  kfjob_status st;
  seen s;
  memset(&s, 0, sizeof s);
  if (kfjob_host_new(NULL, &h) != KFJOB_OK) exit(2);
  harness_run_options(&ro);
  ro.keep_going = 1;
  st = kfjob_host_run_string(h, SWEEP, strlen(SWEEP), "cfg.lua", &ro, on_job, &s);
  CHECK(st == KFJOB_EJOB);
  CHECK(s.n == 3);
  CHECK_STR(s.name[1], "j-x");
  CHECK_STR(s.error[1], "cfg.lua:2: kfjob.template.variants: variant 2 {r=\"x\"}: kfjob.TFJob: "
                        "worker.replicas: expected an integer, got string");
  CHECK_STR(s.name[2], "j-2");
  CHECK_STR(s.error[2], "");
  CHECK(s.total[0] == 3 && s.total[2] == 3);
  CHECK(strstr(kfjob_host_message(h), "1 of 3 jobs could not be rendered") != NULL);
  /* without keep_going the run ends there, with the line */
  memset(&s, 0, sizeof s);
  ro.keep_going = 0;
  st = kfjob_host_run_string(h, SWEEP, strlen(SWEEP), "cfg.lua", &ro, on_job, &s);
  CHECK(st == KFJOB_ESCRIPT);
  CHECK(s.n == 1);
  CHECK_STR(kfjob_host_message(h), "cfg.lua:2: kfjob.template.variants: variant 2 {r=\"x\"}: "
                                   "kfjob.TFJob: worker.replicas: expected an integer, got string");
  kfjob_host_free(h);
}

static void test_helpers(void) {
  static const char *const cands[] = {"render", "check", "decode", "diff", NULL};
  char out[96];
  CHECK(kfjob_quantity_add("8", "500m", out, sizeof out) == KFJOB_OK);
  CHECK_STR(out, "8500m");
  CHECK(kfjob_quantity_add("32Gi", "16Gi", out, sizeof out) == KFJOB_OK);
  CHECK_STR(out, "48Gi");
  CHECK(kfjob_quantity_add("0.1", "0.2", out, sizeof out) == KFJOB_OK);
  CHECK_STR(out, "300m");
  CHECK(kfjob_quantity_add("1", "2 cores", out, sizeof out) == KFJOB_EARG);
  CHECK(kfjob_quantity_add("1", "1", out, 1) == KFJOB_EARG);
  CHECK(kfjob_quantity_add(NULL, "1", out, sizeof out) == KFJOB_EARG);
  CHECK_STR(kfjob_suggest("rendr", cands), "render");
  CHECK(kfjob_suggest("frobnicate", cands) == NULL);
  CHECK(kfjob_suggest(NULL, cands) == NULL);
}

int main(void) {
  test_resources();
  test_resources_memory();
  test_variants();
  test_helpers();
  return harness_report();
}

/*
** test_host_kinds.c - the host API with the kinds only the training
** operator runs (SPEC §12): JAXJob, XGBoostJob and PaddleJob render as
** manifests, every Flyte format refuses them, "none" (kfjob check)
** validates their manifest, kfjob_job.task_type is "", and
** kfjob_host_decode never yields them.  Run by ctest (host_api_kinds).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct seen {
  int n;
  char kind[3][32], task_type[3][32], error[3][512];
  char *data[3];
} seen;

static int on_job(void *ud, const kfjob_job *j) {
  seen *s = (seen *)ud;
  if (s->n < 3) {
    snprintf(s->kind[s->n], sizeof s->kind[0], "%s", j->kind);
    snprintf(s->task_type[s->n], sizeof s->task_type[0], "%s", j->task_type);
    snprintf(s->error[s->n], sizeof s->error[0], "%s", j->error ? j->error : "");
    s->data[s->n] = j->data ? strdup(j->data) : NULL;
  }
  s->n++;
  return 0;
}

static void seen_free(seen *s) {
  int i;
  for (i = 0; i < 3 && i < s->n; i++) free(s->data[i]);
  memset(s, 0, sizeof *s);
}

/* one job per kind, in kind order (a list keeps it) */
static const char SRC[] =
    "local kfjob = require 'kfjob'\n"
    "return { kfjob.JAXJob{ worker = { replicas = 2 } },\n"
    "         kfjob.XGBoostJob{ worker = { replicas = 2 }, run_policy = { backoff_limit = 0 } },\n"
    "         kfjob.PaddleJob{ master = { replicas = 0 }, worker = { replicas = 2 } } }\n";
static const char *const KINDS[3] = {"JAXJob", "XGBoostJob", "PaddleJob"};
static const char *const SPECS[3] = {"jaxReplicaSpecs:", "xgbReplicaSpecs:",
                                     "paddleReplicaSpecs:"};
static const char *const CONTAINERS[3] = {"- name: jax\n", "- name: xgboost\n",
                                          "- name: paddle\n"};

static kfjob_status run(kfjob_host *h, kfjob_format f, int keep_going, seen *s) {
  kfjob_run_options o;
  harness_run_options(&o);
  o.format = f;
  o.image = "img:1";
  o.name = "op";
  o.keep_going = keep_going;
  return kfjob_host_run_string(h, SRC, strlen(SRC), "kinds.lua", &o, on_job, s);
}

int main(void) {
  static const kfjob_format flyte[] = {KFJOB_FORMAT_PB, KFJOB_FORMAT_JSON,
                                       KFJOB_FORMAT_YAML, KFJOB_FORMAT_TEMPLATE,
                                       KFJOB_FORMAT_TEMPLATE_JSON};
  kfjob_host *h = NULL;
  seen s;
  size_t f;
  int i;
  memset(&s, 0, sizeof s);
  if (kfjob_host_new(NULL, &h) != KFJOB_OK) return 2;

  CHECK(run(h, KFJOB_FORMAT_MANIFEST, 0, &s) == KFJOB_OK);
  CHECK(s.n == 3);
  for (i = 0; i < 3 && i < s.n; i++) {
    CHECK(strcmp(s.kind[i], KINDS[i]) == 0);
    CHECK(strcmp(s.task_type[i], "") == 0);
    CHECK(s.data[i] && strstr(s.data[i], SPECS[i]) && strstr(s.data[i], CONTAINERS[i]));
  }
  CHECK(s.data[1] && strstr(s.data[1], "backoffLimit: 0\n"));
  seen_free(&s);

  for (f = 0; f < sizeof flyte / sizeof flyte[0]; f++) {
    CHECK(run(h, flyte[f], 1, &s) == KFJOB_EJOB);
    CHECK(s.n == 3);
    for (i = 0; i < 3 && i < s.n; i++)
      CHECK(strstr(s.error[i], " has no Flyte task type") && strstr(s.error[i], KINDS[i]));
    seen_free(&s);
  }

  CHECK(run(h, KFJOB_FORMAT_NONE, 1, &s) == KFJOB_OK);   /* the manifest, checked */
  CHECK(s.n == 3 && !s.error[0][0] && !s.error[1][0] && !s.error[2][0]);
  seen_free(&s);

  for (i = 0; i < 3; i++) {
    CHECK(kfjob_host_decode(h, KINDS[i], 1, "", 0, NULL, on_job, &s) == KFJOB_EDATA);
    CHECK(strstr(kfjob_host_message(h), " has no Flyte task type") != NULL);
    CHECK(s.n == 0);
  }

  kfjob_host_free(h);
  return harness_report();
}

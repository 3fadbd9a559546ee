/*
** test_target_rules.c - C tests for the manifest rule rows
** (src/core/rules/kf_target_rules_manifest.c): for jobs built from constructor
** specs, every problem kf_target_problems reports per target, as
** "<rule> <W|E> <path>", compared with lists written from FACTS §8.5 (the
** cells of R9, R11, R12, R13, R19, R20, R21, R23, R24).  Only rows of
** the manifest table are compared, so rows other tables add later do not
** disturb these expectations.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_json.h"
#include "kf_schema.h"
#include "kf_rules.h"

static int npass, nfail;

static void *talloc(void *ud, void *p, size_t o, size_t n) {
  (void)ud, (void)o;
  if (n == 0) { free(p); return NULL; }
  return realloc(p, n);
}
static const kf_alloc AL = {talloc, NULL};

/* Whether rule id is one of the manifest table's. */
static int manifest_rule(const char *id) {
  const kf_target_rule *r;
  for (r = kf_target_rules_manifest; r->id; r++)
    if (strcmp(r->id, id) == 0) return 1;
  return 0;
}

/* problems of `spec` (a JSON constructor spec of `kind`) on `target`, as
** "R13 E worker.restart_policy;..." (manifest rows only). */
static void expect(int kind, const char *spec, kf_target t, const char *want,
                   int line) {
  kf_arena A;
  kf_err e;
  kf_node *n;
  kf_job j;
  kf_problems ps;
  kf_target_ctx c;
  char got[1024] = "";
  size_t i;
  kf_arena_init(&A, AL);
  memset(&c, 0, sizeof c);
  c.name = "job", c.image = "img:1";
  if (kf_json_parse(spec, strlen(spec), &A, &n, &e) != KF_OK ||
      kf_job_from_spec(kind, n, &A, &j, "test", &e) != KF_OK) {
    nfail++;
    printf("FAIL line %d: building %s: %s\n", line, spec, e.msg);
    kf_arena_free(&A);
    return;
  }
  if (kf_target_problems(&j, t, &c, &A, &ps, &e) != KF_OK) {
    nfail++;
    printf("FAIL line %d: %s\n", line, e.msg);
    kf_arena_free(&A);
    return;
  }
  for (i = 0; i < ps.n; i++) {
    if (!manifest_rule(ps.v[i].rule)) continue;
    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s %c %s",
             *got ? ";" : "", ps.v[i].rule, ps.v[i].sev == KF_SEV_ERROR ? 'E' : 'W',
             ps.v[i].path);
    if (!*ps.v[i].message || (ps.v[i].sev == KF_SEV_ERROR && !*ps.v[i].source)) {
      nfail++;
      printf("FAIL line %d: %s without message or source\n", line, ps.v[i].rule);
    }
  }
  if (strcmp(got, want) == 0) {
    npass++;
  } else {
    nfail++;
    printf("FAIL line %d (target %s): %s\n  expected: %s\n  got:      %s\n", line,
           kf_targets[t].name, spec, want, got);
  }
  kf_arena_free(&A);
}
#define EXPECT(k, s, t, w) expect(k, s, t, w, __LINE__)

/* One spec on the six targets flyte, flyte2, operator, mpi-operator,
** trainer-2.2, trainer-2.3; trainer-2.4 shares trainer-2.3's rows (its CEL
** row R38 never fires on a constructed job), so it is expected to say the
** same; flyte2-clustered has rows of its own (spec/clustered_spec.lua). */
static void expect6(int kind, const char *spec, const char *const want[6], int line) {
  int t;
  for (t = 0; t < KF_NTARGETS; t++) {
    if (t == KF_T_CLUSTERED) continue;
    expect(kind, spec, (kf_target)t, want[t == KF_T_TRAINER_24 ? KF_T_TRAINER_23 : t], line);
  }
}
#define EXPECT6(k, s, ...) do { static const char *const w_[6] = __VA_ARGS__; \
                                expect6(k, s, w_, __LINE__); } while (0)

int main(void) {
  /* R11: slots > 1 -- warning for Flyte (v1 slots never read), ok elsewhere;
  ** R24: an MPIJob does not map to a TrainJob */
  EXPECT6(KF_MPI, "{\"worker\": {\"replicas\": 2}, \"slots\": 4}",
          {"R11 W slots", "R11 W slots", "", "", "R24 E kind", "R24 E kind"});
  EXPECT6(KF_MPI, "{\"worker\": {\"replicas\": 2}, \"slots\": 1}",
          {"", "", "", "", "R24 E kind", "R24 E kind"});
  /* R12: accelerator without a GPU limit: a warning everywhere */
  EXPECT6(KF_TFJOB, "{\"worker\": {\"replicas\": 1}, \"accelerator\": \"nvidia-tesla-t4\"}",
          {"R12 W accelerator", "R12 W accelerator", "R12 W accelerator",
           "R12 W accelerator;R24 E kind", "R12 W accelerator;R24 E kind",
           "R12 W accelerator;R24 E kind"});
  EXPECT6(KF_TFJOB, "{\"worker\": {\"replicas\": 1, \"limits\": {\"gpu\": 1}}, "
          "\"accelerator\": \"nvidia-tesla-t4\"}",
          {"", "", "", "R24 E kind", "R24 E kind", "R24 E kind"});
  /* R13: always -- error on the mpi-operator and Trainer; on_failure --
  ** error on Trainer only */
  EXPECT6(KF_HOROVOD, "{\"worker\": {\"replicas\": 1, \"restart_policy\": \"always\"}}",
          {"", "", "", "R13 E worker.restart_policy", "R13 E worker.restart_policy;R24 E kind",
           "R13 E worker.restart_policy;R24 E kind"});
  EXPECT6(KF_PYTORCH, "{\"master\": {\"restart_policy\": \"on_failure\"}, \"worker\": {\"replicas\": 2}}",
          {"", "", "", "R24 E kind", "R13 E master.restart_policy", "R13 E master.restart_policy"});
  /* R9, R19, R20 (R17 is a job-field row) on Trainer (Elastic) */
  EXPECT6(KF_ELASTIC, "{\"nnodes\": \"2:4\", \"rdzv_backend\": \"etcd\", \"max_restarts\": 3, "
          "\"run_policy\": {\"clean_pod_policy\": \"all\", \"ttl_seconds_after_finished\": 60, "
          "\"backoff_limit\": 2, \"active_deadline_seconds\": 10}}",
          {"", "", "", "R24 E kind",
           "R9 E nnodes;R19 W max_restarts;R20 W run_policy.clean_pod_policy;"
           "R20 W run_policy.ttl_seconds_after_finished;R20 W run_policy.backoff_limit",
           "R9 E nnodes;R19 W max_restarts;R20 W run_policy.clean_pod_policy;"
           "R20 W run_policy.ttl_seconds_after_finished;R20 W run_policy.backoff_limit"});
  EXPECT6(KF_ELASTIC, "{\"nnodes\": 3, \"rdzv_backend\": \"c10d\", \"run_policy\": "
          "{\"active_deadline_seconds\": 10}}",
          {"", "", "", "R24 E kind", "", ""});
  /* R21: images or resources that differ between master and workers */
  EXPECT6(KF_PYTORCH, "{\"master\": {\"image\": \"a:1\"}, \"worker\": {\"replicas\": 1}}",
          {"", "", "", "R24 E kind", "R21 E worker.image", "R21 E worker.image"});
  EXPECT(KF_PYTORCH, "{\"master\": {\"image\": \"img:1\"}, \"worker\": {\"replicas\": 1}}",
         KF_T_TRAINER_23, "");   /* the task image is img:1 */
  EXPECT(KF_PYTORCH, "{\"master\": {\"limits\": {\"gpu\": 1}}, \"worker\": {\"replicas\": 1, "
         "\"limits\": {\"gpu\": 2}}}", KF_T_TRAINER_22, "R21 E worker.limits.gpu");
  EXPECT(KF_PYTORCH, "{\"master\": {\"limits\": {\"gpu\": 1}}, \"worker\": {\"replicas\": 1, "
         "\"limits\": {\"gpu\": \"1\"}}}", KF_T_TRAINER_22, "");
  /* R23: pod template fields outside PodSpecPatch; v2.3 adds
  ** terminationGracePeriodSeconds; the mpi-operator's own volume names */
  EXPECT6(KF_PYTORCH, "{\"worker\": {\"replicas\": 1}, \"pod_template\": {\"spec\": "
          "{\"terminationGracePeriodSeconds\": 30, \"hostNetwork\": true}}}",
          {"", "", "", "R24 E kind",
           "R23 E pod_template.spec.hostNetwork;R23 E pod_template.spec.terminationGracePeriodSeconds",
           "R23 E pod_template.spec.hostNetwork"});
  EXPECT6(KF_MPI, "{\"worker\": {\"replicas\": 1}, \"pod_template\": {\"spec\": "
          "{\"volumes\": [{\"name\": \"mpi-job-config\", \"emptyDir\": {}}]}}}",
          {"", "", "", "R23 E pod_template.spec.volumes[1].name", "R24 E kind", "R24 E kind"});
  /* R24: a TFJob has no TrainJob and no v2beta1 MPIJob */
  EXPECT6(KF_TFJOB, "{\"worker\": {\"replicas\": 2}}",
          {"", "", "", "R24 E kind", "R24 E kind", "R24 E kind"});
  printf("%d passed, %d failed\n", npass, nfail);
  return nfail != 0;
}

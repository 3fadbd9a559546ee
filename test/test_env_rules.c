/*
** test_env_rules.c - R16 (a user variable named like one the target sets,
** FACTS §8.5 and §8.2.8) through the rule walk itself, kf_target_problems,
** as check and lint{target=, env=} see it: the severity per target, the
** path and the message naming whose value wins.  Expected texts are
** written here by hand.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_env.h"
#include "kf_rules.h"

static int failed;

static void *talloc(void *ud, void *p, size_t os, size_t ns) {
  (void)ud, (void)os;
  if (ns == 0) {
    free(p);
    return NULL;
  }
  return realloc(p, ns);
}

/* The R16 problems of `j` on `t` with user variables `names` (sorted). */
static size_t r16(const kf_job *j, kf_target t, const char *const *names,
                  size_t n, kf_arena *A, kf_problems *ps, const kf_problem **out) {
  kf_kv kv[8];
  kf_kvs env;
  kf_target_ctx c;
  kf_err e;
  size_t i, k = 0;
  for (i = 0; i < n; i++) kv[i].k = names[i], kv[i].v = "x";
  env.v = kv, env.n = n;
  memset(&c, 0, sizeof c);
  c.name = "j", c.env = &env;
  if (kf_target_problems(j, t, &c, A, ps, &e) != KF_OK) {
    printf("not ok - kf_target_problems: %s\n", e.msg);
    failed++;
    return 0;
  }
  for (i = 0; i < ps->n; i++)
    if (strcmp(ps->v[i].rule, "R16") == 0) out[k++] = &ps->v[i];
  return k;
}

static void expect(const char *what, int ok) {
  printf("%s - %s\n", ok ? "ok" : "not ok", what);
  if (!ok) failed++;
}

int main(void) {
  static const kf_alloc AL = {talloc, NULL};
  kf_arena A;
  kf_job pt, mpi, el;
  kf_problems ps;
  const kf_problem *p[8];
  static const char *const ws[] = {"WORLD_SIZE"};
  static const char *const none[] = {"MY_VAR"};
  static const char *const pet[] = {"PET_MASTER_PORT", "PET_NNODES"};
  static const char *const fwn[] = {"_F_WN"};
  static const char *const hydra[] = {"I_MPI_HYDRA_BOOTSTRAP"};
  static const char *const role[] = {"K_MPI_JOB_ROLE"};
  kf_target t;
  size_t n;
  kf_arena_init(&A, AL);
  kf_job_defaults(&pt, KF_PYTORCH);
  pt.g[KF_WORKER].replicas = 2;
  kf_job_defaults(&mpi, KF_MPI);
  mpi.g[KF_WORKER].replicas = 2;
  kf_job_defaults(&el, KF_ELASTIC);
  el.g[KF_WORKER].replicas = 2, el.min_nodes = el.max_nodes = 2;

  for (t = KF_T_FLYTE; t <= KF_T_OPERATOR; t++) {
    char what[80];
    n = r16(&pt, t, ws, 1, &A, &ps, p);
    snprintf(what, sizeof what, "WORLD_SIZE on a PyTorchJob warns on %s", kf_targets[t].name);
    expect(what, n == 1 && p[0]->sev == KF_SEV_WARN &&
                     strcmp(p[0]->path, "opts.env.WORLD_SIZE") == 0 &&
                     strcmp(p[0]->message, "WORLD_SIZE is also set by the operator on "
                            "every pod: the operator's value wins (its entry comes "
                            "after yours)") == 0);
    n = r16(&pt, t, none, 1, &A, &ps, p);
    expect("an unrelated variable is no problem", n == 0);
    kf_arena_reset(&A);
  }
  /* an elastic job has no Master: WORLD_SIZE is nobody's */
  expect("WORLD_SIZE on an elastic job is no problem", r16(&el, KF_T_OPERATOR, ws, 1, &A, &ps, p) == 0);
  n = r16(&pt, KF_T_FLYTE, fwn, 1, &A, &ps, p);
  expect("_F_WN: Flyte's wins on the workers (flyte)",
         n == 1 && strcmp(p[0]->message, "_F_WN is also set by Flyte on worker-0 and other "
                          "pods: Flyte's value wins there (its entry comes after yours)") == 0);
  expect("_F_WN is nobody's on flyte2", r16(&pt, KF_T_FLYTE2, fwn, 1, &A, &ps, p) == 0);
  n = r16(&mpi, KF_T_OPERATOR, hydra, 1, &A, &ps, p);
  expect("I_MPI_HYDRA_BOOTSTRAP: the user's value wins (MPI v1)",
         n == 1 && p[0]->sev == KF_SEV_WARN &&
             strcmp(p[0]->message, "I_MPI_HYDRA_BOOTSTRAP is also what the operator sets on "
                    "launcher-0: your value wins (the operator adds its own only when the "
                    "container has none)") == 0);
  n = r16(&mpi, KF_T_MPI_OPERATOR, role, 1, &A, &ps, p);
  expect("K_MPI_JOB_ROLE warns on mpi-operator",
         n == 1 && p[0]->sev == KF_SEV_WARN &&
             strcmp(p[0]->message, "K_MPI_JOB_ROLE is also set by the operator on every "
                    "pod: the operator's value wins (its entry comes after yours)") == 0);
  expect("I_MPI_HYDRA_BOOTSTRAP is nobody's on mpi-operator (OpenMPI)",
         r16(&mpi, KF_T_MPI_OPERATOR, hydra, 1, &A, &ps, p) == 0);
  for (t = KF_T_TRAINER_22; t <= KF_T_TRAINER_23; t++) {
    n = r16(&pt, t, pet, 2, &A, &ps, p);
    expect("PET_* names are errors on Trainer, one per name",
           n == 2 && p[0]->sev == KF_SEV_ERROR && p[1]->sev == KF_SEV_ERROR &&
               strcmp(p[0]->path, "opts.env.PET_MASTER_PORT") == 0 &&
               strcmp(p[1]->message, "PET_NNODES is reserved by Trainer's torch runtime: "
                      "the TrainJob webhook rejects it (must not have reserved envs)") == 0);
    expect("WORLD_SIZE is nobody's on Trainer", r16(&pt, t, ws, 1, &A, &ps, p) == 0);
  }
  expect("no rule on a kind the target does not run", r16(&mpi, KF_T_TRAINER_23, pet, 2, &A, &ps, p) == 0);
  kf_arena_free(&A);
  printf("%s\n", failed ? "FAILED" : "all ok");
  return failed != 0;
}

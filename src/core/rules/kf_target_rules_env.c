/*
** kf_target_rules_env.c - rules by target (FACTS §8.5) about
** the environment: user variables named like the ones a target injects
** (R16).  Rows as in kf_target_rules.c.
**
** The test computes the pods' environment (kf_env.c) and reports every
** user variable (opts.env, the pod template's primary env) that the
** target also sets, so the rule follows exactly what each target injects
** for each kind, and a new kind's generator brings its names along.
*/
#include <string.h>

#include "kf_env.h"
#include "kf_rules_int.h"


/* Pods where `name` is also set by the target (origin KF_ENV_FLYTE,
** _OPERATOR or _YIELDED); *first the first such pod, *yield whether the
** operator left it to the user. */
static size_t injected_on(const kf_env_pods *ps, const char *name,
                          const char **first, int *origin) {
  size_t i, k, n = 0;
  for (i = 0; i < ps->n; i++)
    for (k = 0; k < ps->p[i].n; k++) {
      const kf_env_var *v = &ps->p[i].v[k];
      if (v->origin == KF_ENV_USER || strcmp(v->name, name) != 0) continue;
      if (n++ == 0) *first = ps->p[i].key, *origin = v->origin;
      break;
    }
  return n;
}

static kf_status r16_test(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out,
                          kf_err *e) {
  kf_env_pods ps;
  kf_err ignored;
  size_t i, k, n;
  /* the kinds a target does not run are kf_target_allows' error */
  if (!(kf_targets[t].kinds & (1u << j->kind))) return KF_OK;
  /* what the target does not cover (an unread kind) is environment's
  ** own error; the rule has nothing to compare then */
  if (kf_env_pods_of(j, t, c && c->name ? c->name : "job", NULL,
                     c ? c->env : NULL, out->A, &ps, "R16", &ignored) != KF_OK)
    return ignored.code == KF_ENOMEM ? kf_nomem(e) : KF_OK;
  if (ps.n == 0) return KF_OK;
  /* the user's variables are the same on every pod: read the first */
  for (i = 0; i < ps.p[0].n; i++) {
    const kf_env_var *u = &ps.p[0].v[i];
    const char *first = NULL, *who;
    int origin = 0;
    kf_status st;
    if (u->origin != KF_ENV_USER) continue;
    for (k = 0; k < i; k++)   /* once per name */
      if (ps.p[0].v[k].origin == KF_ENV_USER && strcmp(ps.p[0].v[k].name, u->name) == 0) break;
    if (k < i || (n = injected_on(&ps, u->name, &first, &origin)) == 0) continue;
    who = origin == KF_ENV_FLYTE ? "Flyte" : "the operator";
    if (t == KF_T_TRAINER_22 || t == KF_T_TRAINER_23)
      st = kf_problem_add(out, r, t, u->path, e, "%s is reserved by Trainer's "
                          "torch runtime: the TrainJob webhook rejects it (must "
                          "not have reserved envs)", u->name);
    else if (origin == KF_ENV_YIELDED)
      st = kf_problem_add(out, r, t, u->path, e, "%s is also what the operator "
                          "sets on %s%s: your value wins (the operator adds its "
                          "own only when the container has none)", u->name,
                          n == ps.n ? "every pod, e.g. " : "", first);
    else if (n == ps.n)
      st = kf_problem_add(out, r, t, u->path, e, "%s is also set by %s on "
                          "every pod: %s value wins (its entry comes after "
                          "yours)", u->name, who,
                          origin == KF_ENV_FLYTE ? "Flyte's" : "the operator's");
    else
      st = kf_problem_add(out, r, t, u->path, e, "%s is also set by %s on %s%s: "
                          "%s value wins there (its entry comes after yours)",
                          u->name, who, first, n > 1 ? " and other pods" : "",
                          origin == KF_ENV_FLYTE ? "Flyte's" : "the operator's");
    if (st != KF_OK) return st;
  }
  return KF_OK;
}

const kf_target_rule kf_target_rules_env[] = {
  {"R16", ALL_KINDS,
   {[KF_T_FLYTE] = KF_SEV_WARN, [KF_T_FLYTE2] = KF_SEV_WARN,
    [KF_T_OPERATOR] = KF_SEV_WARN, [KF_T_MPI_OPERATOR] = KF_SEV_WARN,
    [KF_T_TRAINER_22] = KF_SEV_ERROR, [KF_T_TRAINER_23] = KF_SEV_ERROR},
   {[KF_T_FLYTE] = "training-operator envvar.go setPodEnv, tensorflow.go, "
                   "mpijob.go; flytek8s k8s_resource_adds.go (FACTS §8.2.8)",
    [KF_T_FLYTE2] = "training-operator envvar.go setPodEnv, tensorflow.go, "
                    "mpijob.go; flytek8s k8s_resource_adds.go (FACTS §8.2.8)",
    [KF_T_OPERATOR] = "training-operator envvar.go setPodEnv, tensorflow.go, "
                      "mpijob.go hasIntelMPIBootstrapValues (FACTS §8.2.8)",
    [KF_T_MPI_OPERATOR] = "mpi-operator mpi_job_controller.go "
                          "newLauncherPodTemplate, newWorker (FACTS §8.2.8)",
    [KF_T_TRAINER_22] = "trainer torch.go Validate, TorchRunReservedEnvNames "
                        "(FACTS §8.2.5)",
    [KF_T_TRAINER_23] = "trainer torch.go Validate, TorchRunReservedEnvNames "
                        "(FACTS §8.2.5)"},
   r16_test, 0},
  {NULL, 0, {0}, {NULL}, NULL, 0}
};

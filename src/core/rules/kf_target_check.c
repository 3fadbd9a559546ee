/*
** kf_target_check.c - a job against its target's rule rows (the tables of
** kf_target_rules*.c): every problem (check, lint), the errors that stop an
** output, and the check before a payload is emitted.  Above the rows; the
** target table and the problem list are schema/kf_target.c.
*/
#include <stdio.h>
#include <string.h>

#include "kf_rules.h"

/* Walks the rows whose severity for `t` is at least `min`. */
static kf_status walk(const kf_job *j, kf_target t, const kf_target_ctx *c,
                      kf_arena *A, kf_problems *out, kf_sev min, kf_err *e) {
  static const kf_target_rule *const tables[] = {
      kf_target_rules, kf_target_rules_manifest, kf_target_rules_env,
      kf_target_rules_sched, kf_target_rules_clustered};
  const kf_target_rule *r;
  size_t i;
  kf_status st;
  out->A = A, out->v = NULL, out->n = out->cap = 0;
  for (i = 0; i < sizeof tables / sizeof tables[0]; i++)
    for (r = tables[i]; r->id != NULL; r++) {
      if (!(r->kinds & (1u << j->kind))) continue;
      if (r->sev[t] < min || r->sev[t] == KF_SEV_OK) continue;
      if ((st = r->test(j, t, c, r, out, e)) != KF_OK) return st;
    }
  return KF_OK;
}

kf_status kf_target_problems(const kf_job *j, kf_target t,
                             const kf_target_ctx *c, kf_arena *A,
                             kf_problems *out, kf_err *e) {
  return walk(j, t, c, A, out, KF_SEV_WARN, e);
}

kf_status kf_target_require(const kf_job *j, kf_target t,
                            const kf_target_ctx *c, kf_arena *A,
                            const char *who, kf_err *e) {
  kf_problems ps;
  char ctor[48];
  size_t i;
  /* errors only: a warning row's test may be costly (R16 computes the
  ** environment) and cannot stop the call */
  kf_status st = walk(j, t, c, A, &ps, KF_SEV_ERROR, e);
  if (st != KF_OK) return st;
  if (who == NULL) {   /* emitting: errors name the job's constructor */
    snprintf(ctor, sizeof ctor, "kfjob.%s", kf_kinds[j->kind].name);
    who = ctor;
  }
  for (i = 0; i < ps.n; i++)
    if (ps.v[i].sev == KF_SEV_ERROR)
      return kf_fail(e, KF_EINVAL, "%s: %s: %s (target %s)", who, ps.v[i].path,
                     ps.v[i].message, kf_targets[t].name);
  return KF_OK;
}

kf_status kf_target_emit(const kf_job *j, kf_target t, unsigned emit,
                         const char *method, const char *who,
                         const char *ctor, kf_arena *A, kf_err *e) {
  kf_target_ctx c;   /* emitting a payload: no resource name, no env */
  kf_status st = kf_target_allows(t, emit, j->kind, method, who, e);
  if (st != KF_OK || (j->emit_ok & (1u << t))) return st;
  memset(&c, 0, sizeof c);
  /* the rows read only the job and the target: passed once, passed */
  if ((st = kf_target_require(j, t, &c, A, ctor, e)) == KF_OK)
    ((kf_job *)(void *)j)->emit_ok |= 1u << t;
  return st;
}

/*
** kf_target_check.c - a job against its target's rule rows (the tables of
** kf_target_rules*.c): every problem (check, lint), the errors that stop an
** output, and the check before a payload is emitted.  Above the rows; the
** target table and the problem list are schema/kf_target.c.
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kf_rules.h"

/* The rows of every table, and for each target, kind and lowest severity
** (warnings and errors, or errors alone) the indexes of the rows to test,
** made once: a walk tests the rows that apply, not every row. */
static const kf_target_rule *const tables[] = {
    kf_target_rules, kf_target_rules_trainer, kf_target_rules_manifest, kf_target_rules_env,
    kf_target_rules_sched, kf_target_rules_clustered};
#define MAX_ROWS 255
static const kf_target_rule *rows[MAX_ROWS];
static unsigned char row_ix[KF_NTARGETS][KF_NKINDS][2][MAX_ROWS];
static int nrow_ix[KF_NTARGETS][KF_NKINDS][2];   /* -1: too many rows */
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

static void rows_index(void) {
  size_t i, n = 0;
  const kf_target_rule *r;
  int t, k, m, full = 0;
  for (i = 0; i < sizeof tables / sizeof tables[0]; i++)
    for (r = tables[i]; r->id != NULL; r++) {
      if (n == MAX_ROWS) full = 1;   /* the index cannot hold them: no index */
      else rows[n++] = r;
    }
  for (t = 0; t < KF_NTARGETS; t++)
    for (k = 0; k < KF_NKINDS; k++)
      for (m = 0; m < 2; m++) {
        kf_sev min = m ? KF_SEV_ERROR : KF_SEV_WARN;
        int c = 0;
        for (i = 0; i < n; i++)
          if ((rows[i]->kinds & (1u << k)) && rows[i]->sev[t] >= min &&
              rows[i]->sev[t] != KF_SEV_OK)
            row_ix[t][k][m][c++] = (unsigned char)i;
        nrow_ix[t][k][m] = full ? -1 : c;
      }
}

/* What the job sets of what the rows' `needs` name (KF_SETS_*): read once
** per walk, it spares most jobs the tests of what they never set (an
** encode runs Flyte's error rows on every new job). */
static unsigned job_sets(const kf_job *j) {
  unsigned s = 0;
  int i;
  if (j->has_container || j->container.env != NULL) s |= KF_SETS_CONTAINER;
  if (j->has_scheduling && j->sched.has_topology) s |= KF_SETS_TOPOLOGY;
  for (i = 0; i < KF_NRES; i++)
    if (j->requests[i] != NULL || j->limits[i] != NULL) s |= KF_SETS_TASK_RES;
  if (j->requests_ext != NULL || j->limits_ext != NULL) s |= KF_SETS_EXT_RES;
  for (i = 0; i < KF_NROLES; i++) {   /* every group: a rule may read any */
    const kf_group *g = &j->g[i];
    if (g->has_container) s |= KF_SETS_GCONTAINER;
    if (g->has_topology) s |= KF_SETS_TOPOLOGY;
    if (g->pod_template != NULL) s |= KF_SETS_GPOD;
    if (g->restart_policy == KF_RP_EXIT_CODE) s |= KF_SETS_EXIT_CODE;
    if (g->requests_ext != NULL || g->limits_ext != NULL) s |= KF_SETS_EXT_RES;
  }
  return s;
}

/* Whether row r's test may find something in a job that sets `sets`. */
#define MAY_FIND(r, sets) ((r)->needs == 0 || ((r)->needs & (sets)) != 0)

/* Walks the rows whose severity for `t` is at least `min`. */
static kf_status walk(const kf_job *j, kf_target t, const kf_target_ctx *c,
                      kf_arena *A, kf_problems *out, kf_sev min, kf_err *e) {
  const kf_target_rule *r;
  size_t i;
  int m = min == KF_SEV_ERROR, n, x;
  unsigned sets = job_sets(j);
  kf_status st;
  kf_job one;
  j = kf_job_for_target(j, t, &one);   /* flyte2-clustered: as it runs */
  out->A = A, out->v = NULL, out->n = out->cap = 0;
  pthread_once(&rows_once, rows_index);
  n = min == KF_SEV_WARN || min == KF_SEV_ERROR ? nrow_ix[t][j->kind][m] : -1;
  for (x = 0; x < n; x++) {   /* the index: the rows that apply, in order */
    r = rows[row_ix[t][j->kind][m][x]];
    if (MAY_FIND(r, sets) && (st = r->test(j, t, c, r, out, e)) != KF_OK) return st;
  }
  for (i = 0; n < 0 && i < sizeof tables / sizeof tables[0]; i++)
    for (r = tables[i]; r->id != NULL; r++) {
      if (!(r->kinds & (1u << j->kind)) || !MAY_FIND(r, sets)) continue;
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
  return kf_target_emit_named(j, t, emit, method, who, ctor, NULL, A, e);
}

kf_status kf_target_emit_named(const kf_job *j, kf_target t, unsigned emit,
                               const char *method, const char *who, const char *ctor,
                               const char *name, kf_arena *A, kf_err *e) {
  kf_target_ctx c;   /* emitting a payload: no env; a name only when given */
  kf_status st = kf_target_allows(t, emit, j->kind, method, who, e);
  if (st != KF_OK || (name == NULL && (j->emit_ok & (1u << t)))) return st;
  memset(&c, 0, sizeof c);
  c.name = name;
  /* the rows read only the job and the target: passed once, passed */
  if ((st = kf_target_require(j, t, &c, A, ctor, e)) == KF_OK && name == NULL)
    ((kf_job *)(void *)j)->emit_ok |= 1u << t;
  return st;
}

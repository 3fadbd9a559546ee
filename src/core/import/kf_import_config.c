/*
** kf_import_config.c - a job written back as a config (kfjob.to_config,
** to_lua; SPEC §14): the job's spec without every key whose absence gives
** the same job, as the constructor builds it.  A key is tried by taking it
** out of the spec in place, building the job again (kf_job_from_spec) and
** comparing (kf_job_equal); it is put back when the job differs.  The
** keys equal to the kind's defaults (kf_job_defaults) are taken out first,
** all at once, so that only the others need a build each.
*/
#include <string.h>

#include "kf_import.h"

/* Does the spec s build the job j (scratch in A)? */
static int same(const kf_job *j, const kf_node *s, kf_arena *A) {
  kf_job out;
  kf_err e;
  return kf_job_from_spec(j->kind, s, A, &out, kf_kinds[j->kind].name, &e) == KF_OK &&
         kf_job_equal(&out, j);
}

/* Take key i out of object o / put it back where it was. */
static void take(kf_node *o, size_t i, const char **k, kf_node **v) {
  *k = o->u.c.k[i], *v = o->u.c.v[i];
  memmove(o->u.c.k + i, o->u.c.k + i + 1, (o->u.c.n - i - 1) * sizeof *o->u.c.k);
  memmove(o->u.c.v + i, o->u.c.v + i + 1, (o->u.c.n - i - 1) * sizeof *o->u.c.v);
  o->u.c.n--;
}

static void put_back(kf_node *o, size_t i, const char *k, kf_node *v) {
  memmove(o->u.c.k + i + 1, o->u.c.k + i, (o->u.c.n - i) * sizeof *o->u.c.k);
  memmove(o->u.c.v + i + 1, o->u.c.v + i, (o->u.c.n - i) * sizeof *o->u.c.v);
  o->u.c.k[i] = k, o->u.c.v[i] = v;
  o->u.c.n++;
}

static size_t index_of(const kf_node *o, const char *key) {
  size_t i;
  for (i = 0; i < o->u.c.n; i++)
    if (strcmp(o->u.c.k[i], key) == 0) break;
  return i;
}

/* Try each key of o (a table of spec s, itself under key `in` of s, or s
** itself when in is NULL); keeps out those whose absence builds j.  With
** in set, o left empty leaves s too (a group with nothing set is none). */
static void try_keys(const kf_job *j, kf_node *s, kf_node *o, const char *in, kf_arena *A) {
  size_t i = 0, at = in ? index_of(s, in) : 0;
  while (i < o->u.c.n) {
    const char *k, *gk = NULL;
    kf_node *v, *gv = NULL;
    take(o, i, &k, &v);
    if (in && o->u.c.n == 0) take(s, at, &gk, &gv);
    if (same(j, s, A)) {
      if (gk) return;   /* the whole table went */
      continue;
    }
    if (gk) put_back(s, at, gk, gv);
    put_back(o, i, k, v);
    i++;
  }
}

/* A copy of the spec whose job-level tables are copies too (what
** drop_defaults takes keys out of); NULL when out of memory. */
static kf_node *copy_tables(kf_arena *A, const kf_node *s) {
  kf_node *c = kf_node_copy_shallow(A, s, KF_NOBJ);
  size_t i;
  for (i = 0; c && i < c->u.c.n; i++)
    if (c->u.c.v[i]->t == KF_NOBJ &&
        (c->u.c.v[i] = kf_node_copy_shallow(A, c->u.c.v[i], KF_NOBJ)) == NULL)
      return NULL;
  return c;
}

/* The keys of o equal to the defaults' d, taken out (the job's tables
** compared key by key, at depth 0; one left empty goes too).  Returns how
** many went. */
static size_t drop_defaults(kf_node *o, const kf_node *d, int depth) {
  size_t i = 0, n = 0;
  while (i < o->u.c.n) {
    const kf_node *dv = kf_node_get(d, o->u.c.k[i]);
    kf_node *v = o->u.c.v[i];
    const char *k;
    if (depth == 0 && dv && v->t == KF_NOBJ && dv->t == KF_NOBJ) {
      n += drop_defaults(v, dv, 1);
      if (v->u.c.n) { i++; continue; }
    } else if (!dv || !kf_tree_equal(v, dv)) {
      i++;
      continue;
    }
    take(o, i, &k, &v);
    n++;
  }
  return n;
}

/* Is key k of the job a table whose keys are tried one by one (a group,
** or a job-level table of rows: run_policy, requests, scheduling, ...)? */
static int keyed_table(const kf_kind_info *k, const char *key) {
  size_t i;
  int r;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (f->type == KF_V_OBJ && strcmp(f->key, key) == 0) return 1;
    if (f->type == KF_V_GROUPS)
      for (r = 0; r < k->nroles; r++)
        if (strcmp(kf_roles[k->roles[r].role].key, key) == 0) return 1;
  }
  return 0;
}

kf_node *kf_config_minimal(const kf_job *j, kf_arena *A) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_node *s = kf_job_to_spec(j, A), *d;
  kf_job dj;
  size_t i;
  if (s == NULL) return NULL;
  kf_job_defaults(&dj, j->kind);
  if ((d = kf_job_to_spec(&dj, A)) == NULL) return NULL;
  {   /* the defaults out at once, when that still builds j */
    kf_node *c = copy_tables(A, s);
    if (c == NULL) return NULL;
    if (drop_defaults(c, d, 0) && same(j, c, A)) s = c;
  }
  for (i = 0; i < s->u.c.n;) {   /* each table's keys, then the table */
    const char *key = s->u.c.k[i];
    size_t n = s->u.c.n;
    if (s->u.c.v[i]->t == KF_NOBJ && keyed_table(k, key))
      try_keys(j, s, s->u.c.v[i], key, A);
    if (s->u.c.n == n) i++;
  }
  try_keys(j, s, s, NULL, A);
  return s;
}

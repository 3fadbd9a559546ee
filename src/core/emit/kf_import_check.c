/*
** kf_import_check.c - a manifest read (kf_import) and held to its own
** target's rules, as kfjob.from_manifest(s) gives it: each problem named
** where it is in the manifest (kf_import_where), the warnings in
** info.warnings, and a refusal of what the target cannot express and
** runs without (kf_import_droppable: a restart policy, as the
** mpi-operator's validation refuses Always) the read's error; with lossy
** that is left out and listed in info.unmapped, as the CLI's convert does
** (src/host/import.c uses the same pieces).  The target's other refusals
** are job:check's: the job holds them (a Flyte 1 manifest with a Kueue
** label reads, R30 refuses it there).
*/
#include <stdio.h>
#include <string.h>

#include "kf_emit.h"
#include "kf_import.h"
#include "kf_json.h"

/* Each droppable error of ps left out of j and listed in info.unmapped;
** *changed says whether j changed. */
static kf_status drop_all(const kf_node *doc, kf_job *j, kf_target t, const kf_problems *ps,
                          kf_node *info, kf_arena *A, int *changed, kf_err *e) {
  kf_node *un = (kf_node *)kf_node_get(info, "unmapped"), *row, *v;
  size_t i;
  int oom = 0;
  *changed = 0;
  for (i = 0; i < ps->n && un != NULL; i++) {
    const kf_problem *p = &ps->v[i];
    const char *json, *at;
    char why[KF_ERRMAX];
    if (p->sev != KF_SEV_ERROR || !kf_import_droppable(p, t)) continue;
    if ((json = kf_import_drop(j, p, A, &oom)) == NULL) {
      if (oom) return kf_nomem(e);
      continue;
    }
    if (kf_json_parse(json, strlen(json), A, &v, e) != KF_OK) return e->code;
    snprintf(why, sizeof why, "%s (rule %.8s on %s)", p->message, p->rule, kf_targets[t].name);
    if ((at = kf_import_where(doc, j->kind, p->path, p->ref, A)) == NULL ||
        (row = kf_obj_add(A, un, NULL, KF_NOBJ)) == NULL || !kf_obj_strref(A, row, "path", at) ||
        !kf_node_push(A, row, "value", v) || !kf_obj_str(A, row, "reason", why))
      return kf_nomem(e);
    j->emit_ok = 0, *changed = 1;
  }
  return KF_OK;
}

/* The first droppable error of ps as the read's: "<who>: <manifest
** path>: <problem> (rule R on T) (opts.lossy lists it instead)". */
static kf_status first_error(const kf_node *doc, const kf_job *j, kf_target t,
                             const kf_problems *ps, const kf_import_opts *o, kf_arena *A,
                             kf_err *e) {
  size_t i;
  for (i = 0; i < ps->n; i++) {
    const kf_problem *p = &ps->v[i];
    const char *at;
    if (p->sev != KF_SEV_ERROR || !kf_import_droppable(p, t)) continue;
    if ((at = kf_import_where(doc, j->kind, p->path, p->ref, A)) == NULL) return kf_nomem(e);
    return kf_fail(e, KF_EINVAL, "%s: %s: %s (rule %s on %s)%s", o->who, at, p->message,
                   p->rule, kf_targets[t].name, o->lossy ? "" : " (opts.lossy lists it instead)");
  }
  return KF_OK;
}

/* info.warnings: the target's warnings, as job:lint's rule entries. */
static kf_status warnings(const kf_node *doc, const kf_job *j, kf_problems *ps, kf_node *info,
                          kf_arena *A, kf_err *e) {
  kf_node *list = kf_obj_add(A, info, "warnings", KF_NARR);
  size_t i;
  if (list == NULL) return kf_nomem(e);
  for (i = 0; i < ps->n; i++)
    if (ps->v[i].sev == KF_SEV_WARN &&
        (ps->v[i].path = kf_import_where(doc, j->kind, ps->v[i].path, ps->v[i].ref, A)) == NULL)
      return kf_nomem(e);
  return kf_problems_push(ps, KF_SEV_WARN, A, list, e);
}

kf_status kf_import_checked(const kf_node *doc, const kf_import_opts *o, kf_arena *A,
                            kf_job *out, kf_node **info, kf_err *e) {
  const kf_node *tn;
  kf_target_ctx c;
  kf_problems ps;
  kf_target t;
  kf_status st;
  int changed = 0;
  if ((st = kf_import(doc, o, A, out, info, e)) != KF_OK) return st;
  if ((tn = kf_node_get(*info, "target")) == NULL || tn->t != KF_NSTR ||
      kf_target_parse(tn->u.s.p, &t, o->who, "target", e) != KF_OK)
    return KF_OK;   /* no target of its own: nothing to hold it to */
  memset(&c, 0, sizeof c);
  tn = kf_node_get(*info, "name");
  c.name = tn && tn->t == KF_NSTR ? tn->u.s.p : NULL;
  if ((st = kf_target_problems(out, t, &c, A, &ps, e)) != KF_OK) return st;
  if (o->lossy && (st = drop_all(doc, out, t, &ps, *info, A, &changed, e)) != KF_OK) return st;
  if (changed && (st = kf_target_problems(out, t, &c, A, &ps, e)) != KF_OK) return st;
  if ((st = first_error(doc, out, t, &ps, o, A, e)) != KF_OK) return st;
  return warnings(doc, out, &ps, *info, A, e);
}

/*
** kf_with.c - with() of leaf fields: a dotted key resolved to its row
** once, then each variant's values written over a copy of the job and the
** kind's rules run again (the general with() path is spec() + merge +
** kf_job_from_spec, in the binding).
*/
#include <string.h>

#include "kf_job.h"
#include "kf_build_int.h"
#include "kf_sched.h"

/* The row a dotted key names, and the struct holding it; NULL unless it
** is a plain leaf (no alias, no list, no nnodes, a field the context
** takes).  `obj_row` gets the object row a run_policy leaf lives in. */
static const kf_field *leaf_row(const kf_kind_info *k, int kind, kf_job *j,
                                const char *key, char **base,
                                const kf_field **obj_row) {
  const kf_obj *o = NULL;
  const char *dot = strchr(key, '.'), *seg = key;
  size_t i, len = dot ? (size_t)(dot - key) : strlen(key);
  int role = -1, r;
  *obj_row = NULL;
  *base = (char *)j;
  for (r = 0; r < k->nroles && o == NULL; r++) {
    const char *rk = kf_roles[k->roles[r].role].key;
    if (strlen(rk) == len && strncmp(rk, key, len) == 0) {
      role = k->roles[r].role;
      o = &kf_group_obj;
      *base = (char *)&j->g[role];
    }
  }
  for (i = 0; o == NULL && i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (f->type == KF_V_GROUPS || f->type == KF_V_DEPRECATED ||
        strlen(f->key) != len || strncmp(f->key, key, len) != 0)
      continue;
    if (f->type != KF_V_OBJ) return dot ? NULL : f;
    o = (const kf_obj *)f->info;
    *obj_row = f;
    *base = (char *)j + f->off;
  }
  while (o != NULL && dot != NULL) {
    const kf_field *f = NULL;
    seg = dot + 1;
    dot = strchr(seg, '.');
    len = dot ? (size_t)(dot - seg) : strlen(seg);
    for (i = 0; i < o->n && f == NULL; i++)
      if (strlen(o->f[i].key) == len && strncmp(o->f[i].key, seg, len) == 0)
        f = &o->f[i];
    if (f == NULL || !kf_group_takes(f, kind, role)) return NULL;
    if (f->type != KF_V_OBJ) return dot ? NULL : f;
    /* an inner object's presence flag (scheduling.gang, worker.topology)
    ** is the general path's to set */
    if (f->off_n) return NULL;
    o = (const kf_obj *)f->info;
    *base += f->off;
  }
  return NULL;
}

int kf_leaf_resolve(int kind, const char *key, kf_leaf *l) {
  static kf_job shape;   /* only for the offsets of rows in a job */
  const kf_field *f, *obj;
  char *base;
  f = leaf_row(&kf_kinds[kind], kind, &shape, key, &base, &obj);
  if (f == NULL || f->alias != NULL || f->type == KF_V_NNODES ||
      f->type == KF_V_STRLIST || f->type == KF_V_OBJ)
    return 0;
  l->f = f;
  l->obj = obj;
  l->off = (size_t)(base - (char *)&shape);
  return 1;
}

int kf_job_with_values(const kf_job *in, const kf_leaf *l,
                       const kf_node *const *v, size_t n, kf_arena *A,
                       kf_job *out, const char *who, int *strings_kept) {
  kf_err e;
  ctx c;
  size_t i;
  if (n == 0) return 0;
  if (strings_kept) *strings_kept = 1;
  *out = *in;
  out->deprecated = 0;  /* spec() reads back resolved counts */
  out->emit_ok = 0;     /* a new job: its rows are checked when emitted */
  kf_build_ctx_init(&c, A, &e, who, "");
  for (i = 0; i < n; i++) {
    const kf_field *f = l[i].f;
    char *base = (char *)out + l[i].off;
    if (v[i]->t == KF_NOBJ || v[i]->t == KF_NARR || v[i]->t == KF_NNIL) return 0;
    if (l[i].obj != NULL && l[i].obj->off_n) *AT((char *)out + l[i].obj->off_n, int) = 1;
    if (f->zbit) *AT(base + f->off_n, unsigned) &= ~f->zbit;
    if (kf_build_value(&c, f, v[i], base, in->kind, -1) != KF_OK) return 0;
    /* rows held as numbers (an NPROC word is a static string) */
    if (strings_kept && f->type != KF_V_INT && f->type != KF_V_NPROC &&
        f->type != KF_V_BOOL && f->type != KF_V_ENUM)
      *strings_kept = 0;
  }
  kf_sched_normalize(out);
  return kf_job_check(out, KF_PATH_SPEC, who, &e) == KF_OK;
}

int kf_job_with_leaves(const kf_job *in, const kf_node *over, kf_arena *A,
                       kf_job *out, const char *who, int *strings_kept) {
  kf_leaf l[KF_MAX_LEAVES];
  size_t i;
  if (over->t != KF_NOBJ || over->tag != NULL || over->u.c.n == 0 ||
      over->u.c.n > KF_MAX_LEAVES)
    return 0;
  for (i = 0; i < over->u.c.n; i++)
    if (!kf_leaf_resolve(in->kind, over->u.c.k[i], &l[i])) return 0;
  return kf_job_with_values(in, l, (const kf_node *const *)over->u.c.v, over->u.c.n, A,
                            out, who, strings_kept);
}

/*
** kf_feed.c - construction fed one key and value at a time (see kf_core.h):
** the rows decide as in kf_build.c, whose value parser it calls; anything
** it does not take for certain answers 0 and the general path decides.
*/
#include <pthread.h>
#include <string.h>

#include "kf_core.h"
#include "kf_build_int.h"

/* `key` (len bytes, maybe with a NUL inside) is the row name `k`; the
** first character decides most calls. */
static int same(const char *k, const char *key, size_t len) {
  size_t i;
  for (i = 0; i < len; i++)
    if (k[i] != key[i] || k[i] == '\0') return 0;
  return k[len] == '\0';
}

static void sub_frame(kf_frame *sub, const kf_obj *o, char *base, int role,
                      const kf_field *f) {
  sub->o = o;
  sub->base = base;
  sub->role = role;
  sub->seen = 0;
  sub->f = f;
}

/* The first row a key names is the only one: the general path would
** reject a key two rows share (one of them not taken here) or take an
** alias a row's key also spells.  Checked once over every object; a
** schema with such a name only makes every feed take the general path. */
static int names_unique;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static int obj_unique(const kf_obj *o, int depth) {
  size_t i, j;
  const char *nm[64];   /* rows: at most 32 (the `seen` bits) */
  size_t n = 0;
  if (depth > 8 || o->n > 32) return 0;
  for (i = 0; i < o->n; i++) {
    nm[n++] = o->f[i].key;
    if (o->f[i].alias) nm[n++] = o->f[i].alias;
    if (o->f[i].type == KF_V_OBJ && !obj_unique((const kf_obj *)o->f[i].info, depth + 1))
      return 0;
  }
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      if (strcmp(nm[i], nm[j]) == 0) return 0;
  return 1;
}

static void names_check(void) {
  int k, ok = obj_unique(&kf_group_obj, 0);
  size_t i, j, n;
  for (k = 0; ok && k < KF_NKINDS; k++) {
    const kentry *ent = kf_build_kind_keys(k, &n);
    for (i = 0; ok && i < n; i++) {
      if (ent[i].f->type == KF_V_OBJ)
        ok = obj_unique((const kf_obj *)ent[i].f->info, 0);
      for (j = i + 1; ok && j < n; j++) ok = strcmp(ent[i].key, ent[j].key) != 0;
    }
  }
  names_unique = ok;
}

void kf_feed_begin(kf_feed *F, int kind, kf_job *j, kf_arena *A,
                   const char *ctor, kf_frame *root) {
  int r;
  kf_job_defaults(j, kind);
  pthread_once(&names_once, names_check);
  F->ent = names_unique ? kf_build_kind_keys(kind, &F->nent) : NULL;
  F->j = j;
  F->A = A;
  F->ctor = ctor;
  for (r = 0; r < KF_NROLES; r++) F->given[r] = 0;
  root->o = NULL;
  root->base = (char *)j;
  root->role = -1;
  root->seen = 0;
  root->f = NULL;
}

int kf_feed_key(const kf_feed *F, kf_frame *fr, const char *key, size_t len,
                kf_frame *sub) {
  const kf_field *f = NULL;
  size_t i, n;
  if (F->ent == NULL) return KF_FEED_NO;
  if (fr->o == NULL) {   /* the job: its rows, groups, deprecated counts */
    const kentry *ent = (const kentry *)F->ent, *hit = NULL;
    for (i = 0, n = F->nent; i < n && hit == NULL; i++)
      if (same(ent[i].key, key, len)) hit = &ent[i];
    if (hit == NULL) return KF_FEED_NO;
    f = hit->f;
    if (f->type == KF_V_GROUPS) {
      sub_frame(sub, &kf_group_obj, (char *)&F->j->g[hit->role], hit->role, f);
      return KF_FEED_OBJ;
    }
  } else {               /* an object's rows (names unique: see below) */
    const kf_obj *o = fr->o;
    for (i = 0; i < o->n; i++) {
      const kf_field *r = &o->f[i];
      if (!same(r->key, key, len) && (r->alias == NULL || !same(r->alias, key, len)))
        continue;
      if (!kf_group_takes(r, F->j->kind, fr->role)) return KF_FEED_NO;
      if (r->alias != NULL) {   /* both spellings given: the general path */
        if (fr->seen & (1u << i)) return KF_FEED_NO;
        fr->seen |= 1u << i;
      }
      f = r;
      break;
    }
    if (f == NULL) return KF_FEED_NO;
  }
  switch (f->type) {
    case KF_V_TREE: case KF_V_GROUPS: case KF_V_DEPRECATED:
      return KF_FEED_NO;
    case KF_V_OBJ:
      /* as kf_build_value does for an object: present once given */
      if (f->off_n) *(int *)(void *)(fr->base + f->off_n) = 1;
      sub_frame(sub, (const kf_obj *)f->info, fr->base + f->off, fr->role, f);
      return KF_FEED_OBJ;
    case KF_V_STRLIST:
      sub->f = f;
      return KF_FEED_LIST;
    case KF_V_INT: case KF_V_NPROC: case KF_V_STR: case KF_V_TOKEN:
    case KF_V_BOOL: case KF_V_ENUM: case KF_V_CHOICE: case KF_V_QTY:
    case KF_V_SIZE: case KF_V_NNODES:
      sub->f = f;
      return KF_FEED_LEAF;
  }
  return KF_FEED_NO;
}

int kf_feed_value(kf_feed *F, const kf_frame *fr, const kf_field *f,
                  const kf_node *v) {
  ctx c;
  kf_err e;
  if (f->type == KF_V_GROUPS || f->type == KF_V_DEPRECATED ||
      f->type == KF_V_TREE)
    return 0;
  kf_build_ctx_init(&c, F->A, &e, F->ctor, "");
  if (kf_build_value(&c, f, v, fr->base, F->j->kind, fr->role) != KF_OK)
    return 0;
  if (fr->o == &kf_group_obj && (f->flags & KF_F_REPLICAS))
    F->given[fr->role] = 1;
  return 1;
}

int kf_feed_end(kf_feed *F) {
  ctx c;
  kf_err e;
  int32_t dep[KF_NROLES] = {0};
  kf_build_ctx_init(&c, F->A, &e, F->ctor, "");
  return kf_build_finish(&c, F->j, F->given, dep) == KF_OK;
}

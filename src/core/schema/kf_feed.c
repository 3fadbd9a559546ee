/*
** kf_feed.c - construction fed one key and value at a time (see kf_core.h):
** the rows decide as in kf_build.c, whose value parser it calls; anything
** it does not take for certain answers 0 and the general path decides.
*/
#include <pthread.h>
#include <string.h>

#include "kf_job.h"
#include "kf_build_int.h"

/* Each object's and each kind's names (keys and aliases) in a small
** open-addressed table, made once with the uniqueness check: a key costs
** a hash and one compare, not a scan of the rows (a group has over 30). */
#define IX_SLOTS 128u   /* a power of 2, at least twice the names */
#define IX_OBJS 24
typedef struct ix {
  const kf_obj *o;                /* NULL: a kind's keys */
  unsigned char slot[IX_SLOTS];   /* row (or kentry) index + 1; 0: free */
  unsigned char len[IX_SLOTS];    /* the name's length */
  unsigned char sub[IX_SLOTS];    /* an object row's own index + 1 (in
                                     obj_ix), found once: 0: none */
  const char *name[IX_SLOTS];     /* the name (a key or an alias) */
} ix;

static ix obj_ix[IX_OBJS], kind_ix[KF_NKINDS];
static size_t nobj_ix;

static unsigned ix_hash(const char *k, size_t len) {
  return ((unsigned)len * 7u + (unsigned char)k[0] * 31u +
          (unsigned char)k[len >> 1] * 5u + (unsigned char)k[len - 1]) &
         (IX_SLOTS - 1);
}

/* 0 when the name is there already (two rows share it) or the table is
** too small for the names: the feed is then off */
static int ix_put(ix *t, const char *name, size_t row) {
  size_t len = strlen(name);
  unsigned h, n;
  if (len == 0 || len > 255 || row >= 255) return 0;
  for (h = ix_hash(name, len), n = 0; t->slot[h] != 0; h = (h + 1) & (IX_SLOTS - 1))
    if ((t->len[h] == len && memcmp(t->name[h], name, len) == 0) || ++n >= IX_SLOTS / 2)
      return 0;
  t->slot[h] = (unsigned char)(row + 1);
  t->len[h] = (unsigned char)len;
  t->name[h] = name;
  return 1;
}

static const ix *ix_of(const kf_obj *o) {
  size_t i;
  for (i = 0; i < nobj_ix; i++)
    if (obj_ix[i].o == o) return &obj_ix[i];
  return NULL;
}

static void sub_frame(kf_frame *sub, const kf_obj *o, char *base, int role,
                      const kf_field *f, unsigned six) {
  sub->o = o;
  sub->base = base;
  sub->role = role;
  sub->seen = 0;
  sub->f = f;
  sub->ix = six ? &obj_ix[six - 1] : ix_of(o);
}

/* Each slot naming an object's row (or a kind's group) gets that object's
** index, so a key need not search the indexes for it. */
static void ix_link(ix *t, const kf_obj *o, const kentry *ent) {
  unsigned h;
  for (h = 0; h < IX_SLOTS; h++) {
    const kf_field *f;
    const ix *s;
    if (t->slot[h] == 0) continue;
    f = o ? &o->f[t->slot[h] - 1] : ent[t->slot[h] - 1].f;
    s = f->type == KF_V_GROUPS ? ix_of(&kf_group_obj)
        : f->type == KF_V_OBJ  ? ix_of((const kf_obj *)f->info) : NULL;
    t->sub[h] = s ? (unsigned char)(s - obj_ix + 1) : 0;
  }
}

/* The first row a key names is the only one: the general path would
** reject a key two rows share (one of them not taken here) or take an
** alias a row's key also spells.  Checked once over every object, as the
** indexes are made; a schema with such a name, or more objects or names
** than the indexes hold, only makes every feed take the general path. */
static int names_unique;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static int obj_unique(const kf_obj *o, int depth) {
  size_t i;
  ix *t;
  if (depth > 8 || o->n > 32) return 0;   /* rows: at most 32 (the `seen` bits) */
  if (ix_of(o) != NULL) return 1;   /* shared: indexed already */
  if (nobj_ix == IX_OBJS) return 0;
  t = &obj_ix[nobj_ix++];
  t->o = o;
  for (i = 0; i < o->n; i++) {
    if (!ix_put(t, o->f[i].key, i) || (o->f[i].alias && !ix_put(t, o->f[i].alias, i)))
      return 0;
    if (o->f[i].type == KF_V_OBJ && !obj_unique((const kf_obj *)o->f[i].info, depth + 1))
      return 0;
  }
  return 1;
}

static void names_check(void) {
  int k, ok = obj_unique(&kf_group_obj, 0);
  size_t i, n;
  for (k = 0; ok && k < KF_NKINDS; k++) {
    const kentry *ent = kf_build_kind_keys(k, &n);
    for (i = 0; ok && i < n; i++) {
      if (ent[i].f->type == KF_V_OBJ)
        ok = obj_unique((const kf_obj *)ent[i].f->info, 0);
      ok = ok && ix_put(&kind_ix[k], ent[i].key, i);
    }
    if (ok) ix_link(&kind_ix[k], NULL, ent);
  }
  for (i = 0; ok && i < nobj_ix; i++) ix_link(&obj_ix[i], obj_ix[i].o, NULL);
  names_unique = ok;
}

void kf_feed_begin(kf_feed *F, int kind, kf_job *j, kf_arena *A,
                   const char *ctor, kf_frame *root) {
  int r;
  kf_job_defaults(j, kind);
  pthread_once(&names_once, names_check);
  F->ent = names_unique ? kf_build_kind_keys(kind, &F->nent) : NULL;
  F->ix = &kind_ix[kind];
  F->j = j;
  F->A = A;
  F->ctor = ctor;
  for (r = 0; r < KF_NROLES; r++) F->given[r] = 0;
  F->nstr = 0;
  root->o = NULL;
  root->base = (char *)j;
  root->role = -1;
  root->seen = 0;
  root->f = NULL;
  root->ix = F->ix;
}

int kf_feed_key(const kf_feed *F, kf_frame *fr, const char *key, size_t len,
                kf_frame *sub) {
  const kf_field *f = NULL;
  const ix *t = (const ix *)fr->ix;
  unsigned h, s;
  if (F->ent == NULL || len == 0 || t == NULL) return KF_FEED_NO;
  h = ix_hash(key, len);
  if (fr->o == NULL) {   /* the job: its rows, groups, deprecated counts */
    const kentry *ent = (const kentry *)F->ent, *hit = NULL;
    for (; (s = t->slot[h]) != 0; h = (h + 1) & (IX_SLOTS - 1))
      if (t->len[h] == len && memcmp(t->name[h], key, len) == 0) {
        hit = &ent[s - 1];
        break;
      }
    if (hit == NULL) return KF_FEED_NO;
    f = hit->f;
    if (f->type == KF_V_GROUPS) {
      sub_frame(sub, &kf_group_obj, (char *)&F->j->g[hit->role], hit->role, f, t->sub[h]);
      return KF_FEED_OBJ;
    }
  } else {               /* an object's rows (names unique: see above) */
    const kf_obj *o = fr->o;
    for (; (s = t->slot[h]) != 0; h = (h + 1) & (IX_SLOTS - 1)) {
      const kf_field *r = &o->f[s - 1];
      unsigned i = s - 1;
      if (t->len[h] != len || memcmp(t->name[h], key, len) != 0) continue;
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
      sub_frame(sub, (const kf_obj *)f->info, fr->base + f->off, fr->role, f, t->sub[h]);
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
  if (fr->role >= 0 && F->nstr >= 0) {   /* a group's string: where it is */
    if (KF_V_ISSTR(f->type) && F->nstr < (int)(sizeof F->str / sizeof F->str[0]))
      F->str[F->nstr++] = (uint16_t)(fr->base + f->off - (char *)F->j);
    else if (f->type != KF_V_INT && f->type != KF_V_BOOL && f->type != KF_V_ENUM)
      F->nstr = -1;   /* a list, a short form, a word: laid out by the rows */
  }
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

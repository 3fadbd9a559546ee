/*
** kf_job.c - what a built job does, by walking the schema rows: its
** constructor-shaped tree (spec()), equality, copying into one block that
** a userdata can own, and with()'s merge of overrides into a spec tree.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"

#define AT(p, T) ((T *)(void *)(p))

/* ---- job -> spec ------------------------------------------------------ */

static int emit_rows(kf_arena *A, kf_node *o, const kf_obj *ob,
                     const char *base, int kind, int role);

/* nnodes as given: the integer, or "MIN:MAX" (apart: emit_value stays
** free of buffers) */
static int emit_nnodes(kf_arena *A, kf_node *o, const kf_field *f,
                       const kf_job *j) {
  char b[32];
  if (j->nnodes_int && j->min_nodes == j->max_nodes)
    return kf_obj_int(A, o, f->key, j->min_nodes);
  if (j->min_nodes == j->max_nodes)
    snprintf(b, sizeof b, "%d", (int)j->min_nodes);
  else
    snprintf(b, sizeof b, "%d:%d", (int)j->min_nodes, (int)j->max_nodes);
  return kf_obj_str(A, o, f->key, b);
}

static int emit_value(kf_arena *A, kf_node *o, const kf_field *f,
                      const char *base, int kind, int role);

/* An object row at `at`: with a presence flag as given, else left out
** when empty (made at its first value). */
static int emit_obj(kf_arena *A, kf_node *o, const kf_field *f, const char *at,
                    const char *base, int kind, int role) {
  const kf_obj *sub = (const kf_obj *)f->info;
  kf_node *s = NULL;
  size_t i;
  if (f->off_n) {  /* present or not, as given */
    if (!*AT(base + f->off_n, const int)) return 1;
    return (s = kf_obj_add(A, o, f->key, KF_NOBJ)) != NULL &&
           emit_rows(A, s, sub, at, kind, role);
  }
  /* left out when empty: made at its first value */
  for (i = 0; i < sub->n; i++) {
    const kf_field *r = &sub->f[i];
    const char *v = KF_V_ISSTR(r->type) && r->type != KF_V_SIZE ? *AT(at + r->off, const char *const) : NULL;
    if (KF_V_ISSTR(r->type) && *AT(at + r->off, const char *const) == NULL) continue;
    if (r->type == KF_V_TREE && *AT(at + r->off, const kf_node *const) == NULL) continue;
    if (s == NULL && (s = kf_obj_add(A, o, f->key, KF_NOBJ)) == NULL) return 0;
    if (v ? !kf_obj_strref(A, s, r->key, v) : !emit_value(A, s, r, at, kind, role))
      return 0;
  }
  return 1;
}

/* Every group of the job's kind, by its key, in the kind's order. */
static int emit_groups(kf_arena *A, kf_node *o, const char *base, int kind) {
  const kf_kind_info *k = &kf_kinds[kind];
  const kf_job *j = (const kf_job *)(const void *)base;
  int i;
  for (i = 0; i < k->nroles; i++) {
    int r = k->roles[i].role;
    kf_node *g = kf_node_new(A, KF_NOBJ);
    if (g == NULL || !emit_rows(A, g, &kf_group_obj, (const char *)&j->g[r],
                                kind, r) ||
        !kf_node_push(A, o, kf_roles[r].key, g))
      return 0;
  }
  return 1;
}

/* The bits at off_n of a row that keeps them (0 for the others). */
static unsigned zbits(const kf_field *f, const char *base) {
  return f->zbit ? *AT(base + f->off_n, const unsigned) & f->zbit : 0;
}

int kf_row_default(const kf_field *f, const void *base) {
  const char *at = (const char *)base + f->off, *s;
  switch (f->type) {
    case KF_V_INT: return *AT(at, const int32_t) == f->idef;
    case KF_V_BOOL: return *AT(at, const int) == f->idef;
    case KF_V_CHOICE:
      s = *AT(at, const char *const);
      return s == NULL || (f->sdef && strcmp(s, f->sdef) == 0);
    default: return 0;   /* (no other type keeps a zero bit) */
  }
}

int kf_row_unset(const kf_field *f, const void *base) {
  return (f->flags & KF_F_GIVEN) && !zbits(f, (const char *)base) && kf_row_default(f, base);
}

static int emit_value(kf_arena *A, kf_node *o, const kf_field *f,
                      const char *base, int kind, int role) {
  const char *at = base + f->off;
  if ((f->flags & KF_F_GIVEN) && kf_row_unset(f, base)) return 1;
  if (KF_V_ISSTR(f->type)) {  /* the common case first: unset is left out */
    const char *s = *AT(at, const char *const);
    if (s != NULL && f->type == KF_V_SIZE && s[0] == '\0') {  /* true */
      kf_node *b = kf_obj_add(A, o, f->key, KF_NBOOL);
      if (b != NULL) b->u.b = 1;
      return b != NULL;
    }
    return s == NULL || kf_obj_strref(A, o, f->key, s);
  }
  switch (f->type) {
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_SIZE: case KF_V_QTY:
      return 1;  /* written above */
    case KF_V_NPROC:
      if (*AT(base + f->off_n, const char *const) != NULL)
        return kf_obj_strref(A, o, f->key, *AT(base + f->off_n, const char *const));
      if (*AT(at, const int32_t) == 0) return 1;   /* unset (a PyTorchJob's) */
      return kf_obj_int(A, o, f->key, *AT(at, const int32_t));
    case KF_V_INT:
      if ((f->flags & KF_F_OMITZERO) && *AT(at, const int32_t) == 0 && !zbits(f, base))
        return 1;
      return kf_obj_int(A, o, f->key, *AT(at, const int32_t));
    case KF_V_BOOL: {
      kf_node *b;
      if ((f->flags & KF_F_OMITZERO) && !*AT(at, const int) && !zbits(f, base)) return 1;
      b = kf_obj_add(A, o, f->key, KF_NBOOL);
      if (b != NULL) b->u.b = *AT(at, const int);
      return b != NULL;
    }
    case KF_V_ENUM:
      return kf_obj_strref(A, o, f->key,
                           ((const kf_enum *)f->info)->spell[*AT(at, const int)][0]);
    case KF_V_STRLIST: {
      size_t i, n = *AT(base + f->off_n, const size_t);
      const char *const *v = *AT(at, const char *const *const);
      kf_node *l;
      if (n == 0) return 1;
      if ((l = kf_obj_add(A, o, f->key, KF_NARR)) == NULL) return 0;
      for (i = 0; i < n; i++)
        if (!kf_node_push(A, l, NULL, kf_node_str(A, v[i], strlen(v[i])))) return 0;
      return 1;
    }
    case KF_V_OBJ:
      return emit_obj(A, o, f, at, base, kind, role);
    case KF_V_NNODES:
      return emit_nnodes(A, o, f, (const kf_job *)(const void *)base);
    case KF_V_TREE: {  /* a copy: merges may change what spec() returns */
      const kf_node *t = *AT(at, const kf_node *const);
      return t == NULL || kf_node_push(A, o, f->key, kf_tree_dup(A, t));
    }
    case KF_V_GROUPS:
      return emit_groups(A, o, base, kind);
    case KF_V_DEPRECATED: return 1;  /* read back resolved, never written */
  }
  return 1;
}

static int emit_rows(kf_arena *A, kf_node *o, const kf_obj *ob,
                     const char *base, int kind, int role) {
  const kf_field *f = ob->f;
  size_t i;
  for (i = 0; i < ob->n; i++, f++) {
    if (!kf_group_takes(f, kind, role)) continue;
    if (KF_V_ISSTR(f->type) && f->type != KF_V_SIZE && !(f->flags & KF_F_GIVEN)) {
      /* inline: most rows */
      const char *s = *AT(base + f->off, const char *const);
      if (s != NULL && !kf_obj_strref(A, o, f->key, s)) return 0;
    } else if (!emit_value(A, o, f, base, kind, role)) {
      return 0;
    }
  }
  return 1;
}

kf_node *kf_group_to_spec(const kf_group *g, kf_arena *A) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  size_t i;
  /* a standalone group shows every field it holds */
  for (i = 0; o != NULL && i < kf_group_obj.n; i++)
    if (!emit_value(A, o, &kf_group_obj.f[i], (const char *)g, -1, KF_WORKER))
      return NULL;
  return o;
}

kf_node *kf_run_policy_to_spec(const kf_run_policy *rp, kf_arena *A) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  if (o == NULL || !emit_rows(A, o, &kf_run_policy_obj, (const char *)rp, -1, -1))
    return NULL;
  return o;
}

kf_node *kf_job_to_spec(const kf_job *j, kf_arena *A) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_node *o = kf_node_new(A, KF_NOBJ);
  size_t i;
  for (i = 0; o != NULL && i < k->nfields; i++)
    if (!emit_value(A, o, &k->fields[i], (const char *)j, j->kind, -1))
      return NULL;
  return o;
}

/* ---- equality --------------------------------------------------------- */

static int str_eq(const char *a, const char *b) {
  if (a == NULL || b == NULL) return a == b;
  return strcmp(a, b) == 0;
}

static int rows_eq(const kf_field *f, size_t n, const char *a, const char *b,
                   int kind);

static int value_eq(const kf_field *f, const char *a, const char *b, int kind) {
  const char *x = a + f->off, *y = b + f->off;
  size_t i;
  switch (f->type) {
    case KF_V_INT:   /* a row given as its default is not the row unset (zbit) */
      return *AT(x, const int32_t) == *AT(y, const int32_t) && zbits(f, a) == zbits(f, b);
    case KF_V_NPROC:   /* words are the choice's static strings */
      return *AT(x, const int32_t) == *AT(y, const int32_t) &&
             *AT(a + f->off_n, const char *const) == *AT(b + f->off_n, const char *const);
    case KF_V_BOOL: case KF_V_ENUM:
      return *AT(x, const int) == *AT(y, const int) && zbits(f, a) == zbits(f, b);
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_QTY:
    case KF_V_SIZE:
      return str_eq(*AT(x, const char *const), *AT(y, const char *const)) &&
             zbits(f, a) == zbits(f, b);
    case KF_V_TREE:
      return kf_tree_equal(*AT(x, const kf_node *const), *AT(y, const kf_node *const));
    case KF_V_STRLIST: {
      size_t n = *AT(a + f->off_n, const size_t);
      const char *const *u = *AT(x, const char *const *const);
      const char *const *v = *AT(y, const char *const *const);
      if (n != *AT(b + f->off_n, const size_t)) return 0;
      for (i = 0; i < n; i++)
        if (!str_eq(u[i], v[i])) return 0;
      return 1;
    }
    case KF_V_OBJ: {
      const kf_obj *o = (const kf_obj *)f->info;
      if (f->off_n) {
        int pa = *AT(a + f->off_n, const int), pb = *AT(b + f->off_n, const int);
        if (pa != pb) return 0;
        if (!pa) return 1;
      }
      return rows_eq(o->f, o->n, x, y, kind);
    }
    case KF_V_NNODES: {
      const kf_job *p = (const kf_job *)(const void *)a;
      const kf_job *q = (const kf_job *)(const void *)b;
      return p->min_nodes == q->min_nodes && p->max_nodes == q->max_nodes &&
             kf_python_task(p) == kf_python_task(q);
    }
    case KF_V_GROUPS: {
      const kf_kind_info *k = &kf_kinds[kind];
      const kf_job *p = (const kf_job *)(const void *)a;
      const kf_job *q = (const kf_job *)(const void *)b;
      int r;
      for (r = 0; r < k->nroles; r++) {
        int role = k->roles[r].role;
        if (!rows_eq(kf_group_obj.f, kf_group_obj.n, (const char *)&p->g[role],
                     (const char *)&q->g[role], kind))
          return 0;
      }
      return 1;
    }
    case KF_V_DEPRECATED: return 1;  /* not a value: the counts are the groups' */
  }
  return 1;
}

/* Explicit zeros equal unset ones (the zero bits are not rows): the
** configuration is the same. */
static int rows_eq(const kf_field *f, size_t n, const char *a, const char *b,
                   int kind) {
  size_t i;
  for (i = 0; i < n; i++)
    if (!value_eq(&f[i], a, b, kind)) return 0;
  return 1;
}

int kf_row_equal(const kf_field *f, const void *a, const void *b, int kind) {
  return value_eq(f, (const char *)a, (const char *)b, kind);
}

int kf_job_equal(const kf_job *a, const kf_job *b) {
  const kf_kind_info *k;
  if (a->kind != b->kind) return 0;
  k = &kf_kinds[a->kind];
  return rows_eq(k->fields, k->nfields, (const char *)a, (const char *)b,
                 a->kind);
}

/* ---- copying into one block ------------------------------------------- */

#define ALIGN(n) (((n) + sizeof(void *) - 1) & ~(sizeof(void *) - 1))

/* Where the strings of an object live, flattened once from its rows (and
** the rows of the objects inside it): copying a job walks these offsets
** instead of the row tree, which a userdata copy does on every call. */
typedef struct slots {
  uint16_t str[64];         /* offsets of const char * members */
  uint16_t list[8], cnt[8]; /* string arrays and their counts */
  uint16_t tree[12];        /* held value trees (KF_V_TREE) */
  int nstr, nlist, ntree;
} slots;

static void flatten(const kf_field *f, size_t n, size_t base, slots *S) {
  size_t i;
  for (i = 0; i < n; i++, f++) {
    if ((KF_V_ISSTR(f->type) && S->nstr == (int)(sizeof S->str / sizeof S->str[0])) ||
        (f->type == KF_V_STRLIST && S->nlist == (int)(sizeof S->list / sizeof S->list[0])) ||
        (f->type == KF_V_TREE && S->ntree == (int)(sizeof S->tree / sizeof S->tree[0]))) {
      /* a schema that outgrew the table: fail loudly at first use */
      fputs("kfjob: kf_job.c slots: too many string rows in one object\n", stderr);
      abort();
    }
    if (KF_V_ISSTR(f->type)) {
      S->str[S->nstr++] = (uint16_t)(base + f->off);
    } else if (f->type == KF_V_STRLIST) {
      S->list[S->nlist] = (uint16_t)(base + f->off);
      S->cnt[S->nlist++] = (uint16_t)(base + f->off_n);
    } else if (f->type == KF_V_TREE) {
      S->tree[S->ntree++] = (uint16_t)(base + f->off);
    } else if (f->type == KF_V_OBJ) {
      const kf_obj *o = (const kf_obj *)f->info;
      flatten(o->f, o->n, base + f->off, S);
    }
  }
}

static slots group_slots, kind_slots[KF_NKINDS];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void slots_init(void) {
  int k;
  flatten(kf_group_obj.f, kf_group_obj.n, 0, &group_slots);
  for (k = 0; k < KF_NKINDS; k++)
    flatten(kf_kinds[k].fields, kf_kinds[k].nfields, 0, &kind_slots[k]);
}

/* Lays out the strings of `src` (per `S`) at offset *off of a block: with
** `dst` NULL only measures, else copies them to mem + *off and repoints
** `dst`.  String arrays first (aligned, as the block's start is), then
** strings; one walk does both so the layout cannot disagree. */
static void lay(const slots *S, char *mem, char *dst, const char *src,
                size_t *off) {
  int i;
  size_t k;
  for (i = 0; i < S->nlist; i++) {
    size_t cnt = *AT(src + S->cnt[i], const size_t);
    const char *const *v = *AT(src + S->list[i], const char *const *const);
    const char **arr;
    if (cnt == 0) continue;
    *off = ALIGN(*off);
    arr = dst ? AT(mem + *off, const char *) : NULL;
    if (dst) *AT(dst + S->list[i], const char **) = arr;
    *off += cnt * sizeof(char *);
    for (k = 0; k < cnt; k++) {
      size_t len = strlen(v[k]) + 1;
      if (dst) {
        memcpy(mem + *off, v[k], len);
        arr[k] = mem + *off;
      }
      *off += len;
    }
  }
  for (i = 0; i < S->ntree; i++) {
    const kf_node *t = *AT(src + S->tree[i], const kf_node *const);
    const kf_node *c;
    if (t == NULL) continue;
    c = kf_tree_lay(t, mem, off);
    if (dst) *AT(dst + S->tree[i], const kf_node *) = c;
  }
  for (i = 0; i < S->nstr; i++) {
    const char *s = *AT(src + S->str[i], const char *const);
    size_t len;
    if (s == NULL) continue;
    len = strlen(s) + 1;
    if (dst) {
      memcpy(mem + *off, s, len);
      *AT(dst + S->str[i], const char *) = mem + *off;
    }
    *off += len;
  }
}

size_t kf_group_size(const kf_group *g) {
  size_t off = ALIGN(sizeof *g);
  pthread_once(&slots_once, slots_init);
  lay(&group_slots, NULL, NULL, (const char *)g, &off);
  return off;
}

void kf_group_pack_into(const kf_group *g, void *mem) {
  size_t off = ALIGN(sizeof *g);
  pthread_once(&slots_once, slots_init);
  *(kf_group *)mem = *g;
  lay(&group_slots, (char *)mem, (char *)mem, (const char *)g, &off);
}

/* Only the kind's groups and rows hold strings: the rest keep defaults. */
static void lay_job(const kf_job *j, char *mem, size_t *off) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_job *d = (kf_job *)(void *)mem;
  int r;
  pthread_once(&slots_once, slots_init);
  for (r = 0; r < k->nroles; r++) {
    int role = k->roles[r].role;
    lay(&group_slots, mem, mem ? (char *)&d->g[role] : NULL,
        (const char *)&j->g[role], off);
  }
  if (kind_slots[j->kind].nstr || kind_slots[j->kind].nlist ||
      kind_slots[j->kind].ntree)
    lay(&kind_slots[j->kind], mem, mem, (const char *)j, off);
}

size_t kf_job_strings(const kf_job *j, size_t *items) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  size_t off = 0;
  int r, i;
  pthread_once(&slots_once, slots_init);
  *items = 0;
  for (r = 0; r < k->nroles; r++) {
    const kf_group *g = &j->g[k->roles[r].role];
    for (i = 0; i < group_slots.nlist; i++)
      *items += *AT((const char *)g + group_slots.cnt[i], const size_t);
  }
  for (i = 0; i < kind_slots[j->kind].nlist; i++)   /* the job's own (container.args) */
    *items += *AT((const char *)j + kind_slots[j->kind].cnt[i], const size_t);
  lay_job(j, NULL, &off);
  return off;
}

size_t kf_job_size(const kf_job *j) {
  size_t off = ALIGN(sizeof *j);
  lay_job(j, NULL, &off);
  return off;
}

void kf_job_pack_into(const kf_job *j, void *mem) {
  size_t off = ALIGN(sizeof *j);
  *(kf_job *)mem = *j;
  lay_job(j, (char *)mem, &off);
}

/* The strings of slots S of the struct at `src` (at `base` in the job)
** into the plan; 0 when it holds a list or a tree, or the plan is full. */
static int plan_slots(const slots *S, const char *src, size_t base, kf_lay_plan *p) {
  int i;
  for (i = 0; i < S->nlist; i++)
    if (*AT(src + S->cnt[i], const size_t) != 0) return 0;
  for (i = 0; i < S->ntree; i++)
    if (*AT(src + S->tree[i], const kf_node *const) != NULL) return 0;
  for (i = 0; i < S->nstr; i++) {
    const char *s = *AT(src + S->str[i], const char *const);
    size_t len;
    if (s == NULL) continue;
    if (p->n == (int)(sizeof p->off / sizeof p->off[0])) return 0;
    len = strlen(s) + 1;
    p->off[p->n] = (uint16_t)(base + S->str[i]);
    p->len[p->n++] = (uint32_t)len;
    p->size += len;
  }
  return 1;
}

size_t kf_job_measure(const kf_job *j, kf_lay_plan *p) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int r, ok = 1;
  pthread_once(&slots_once, slots_init);
  p->n = 0;
  p->size = ALIGN(sizeof *j);
  for (r = 0; ok && r < k->nroles; r++) {   /* in lay_job's order */
    const kf_group *g = &j->g[k->roles[r].role];
    ok = plan_slots(&group_slots, (const char *)g, (size_t)((const char *)g - (const char *)j), p);
  }
  if (!ok || !plan_slots(&kind_slots[j->kind], (const char *)j, 0, p)) {
    p->n = -1;
    p->size = kf_job_size(j);
  }
  return p->size;
}

void kf_job_pack_plan(const kf_job *j, const kf_lay_plan *p, void *mem) {
  char *d = (char *)mem;
  size_t off = ALIGN(sizeof *j);
  int i;
  if (p->n < 0) {
    kf_job_pack_into(j, mem);
    return;
  }
  *(kf_job *)mem = *j;
  for (i = 0; i < p->n; i++) {
    memcpy(d + off, *AT((const char *)j + p->off[i], const char *const), p->len[i]);
    *AT(d + p->off[i], const char *) = d + off;
    off += p->len[i];
  }
}

/* The fed job's own rows as lay_job lays them, then the group strings the
** feed set, in the order it set them (with mem NULL: measured). */
static size_t lay_fed(const kf_feed *F, char *mem) {
  const kf_job *j = F->j;
  size_t off = ALIGN(sizeof *j);
  int i;
  pthread_once(&slots_once, slots_init);
  if (kind_slots[j->kind].nstr || kind_slots[j->kind].nlist || kind_slots[j->kind].ntree)
    lay(&kind_slots[j->kind], mem, mem, (const char *)j, &off);
  for (i = 0; i < F->nstr; i++) {
    const char *s = *AT((const char *)j + F->str[i], const char *const);
    size_t len;
    if (s == NULL) continue;   /* (shared_memory = false: unset) */
    len = strlen(s) + 1;
    if (mem) {
      memcpy(mem + off, s, len);
      *AT(mem + F->str[i], const char *) = mem + off;
    }
    off += len;
  }
  return off;
}

size_t kf_job_size_fed(const kf_feed *F) {
  return F->nstr < 0 ? kf_job_size(F->j) : lay_fed(F, NULL);
}

void kf_job_pack_fed(const kf_feed *F, void *mem) {
  if (F->nstr < 0) {
    kf_job_pack_into(F->j, mem);
    return;
  }
  *(kf_job *)mem = *F->j;
  lay_fed(F, (char *)mem);
}

/* A job made from another by rows held as numbers (job:with, a sweep's
** variant) holds only that job's strings: it is copied as that job's
** block, with no strlen and one memcpy, and the pointers the base holds,
** found once by offset in kf_job (a sweep keeps them for every variant),
** are moved by the distance between the blocks.  A value tree cannot be
** moved (its nodes point at nodes): such a job is laid out instead. */
static int moves_of(const slots *S, const char *src, size_t base, kf_moves *m) {
  int i;
  for (i = 0; i < S->ntree; i++)
    if (*AT(src + S->tree[i], const kf_node *const) != NULL) return 0;
  for (i = 0; i < S->nlist; i++) {
    if (*AT(src + S->cnt[i], const size_t) == 0) continue;
    if (m->nlist == sizeof m->list / sizeof m->list[0]) return 0;
    m->list[m->nlist] = (uint16_t)(base + S->list[i]);
    m->cnt[m->nlist++] = (uint16_t)(base + S->cnt[i]);
  }
  for (i = 0; i < S->nstr; i++) {
    if (*AT(src + S->str[i], const char *const) == NULL) continue;
    if (m->n == sizeof m->str / sizeof m->str[0]) return 0;
    m->str[m->n++] = (uint16_t)(base + S->str[i]);
  }
  return 1;
}

int kf_job_moves(const kf_job *j, kf_moves *m) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int r;
  pthread_once(&slots_once, slots_init);
  m->n = m->nlist = 0;
  for (r = 0; r < k->nroles; r++) {
    const kf_group *g = &j->g[k->roles[r].role];
    if (!moves_of(&group_slots, (const char *)g, (size_t)((const char *)g - (const char *)j), m))
      return 0;
  }
  return moves_of(&kind_slots[j->kind], (const char *)j, 0, m);
}

void kf_job_pack_moved(const kf_job *j, const kf_moves *m, const void *from,
                       size_t size, void *mem) {
  char *d = (char *)mem;
  uintptr_t lo = (uintptr_t)from;
  size_t i, k;
  memcpy(mem, from, size);
  *(kf_job *)mem = *j;
  for (i = 0; i < m->n; i++) {
    const char **p = AT(d + m->str[i], const char *);
    *p = d + ((uintptr_t)*p - lo);
  }
  for (i = 0; i < m->nlist; i++) {
    const char ***pa = AT(d + m->list[i], const char **);
    size_t cnt = *AT(d + m->cnt[i], const size_t);
    const char **arr = AT(d + ((uintptr_t)*pa - lo), const char *);
    *pa = arr;
    for (k = 0; k < cnt; k++) arr[k] = d + ((uintptr_t)arr[k] - lo);
  }
}

/* ---- overrides (with) ------------------------------------------------- */

static kf_node *obj_slot(kf_arena *A, kf_node *obj, const char *key,
                         kf_node ***slot) {
  size_t i;
  for (i = 0; i < obj->u.c.n; i++)
    if (strcmp(obj->u.c.k[i], key) == 0) {
      *slot = &obj->u.c.v[i];
      return obj->u.c.v[i];
    }
  if (!kf_node_push(A, obj, key, kf_node_new(A, KF_NNIL))) return NULL;
  *slot = &obj->u.c.v[obj->u.c.n - 1];
  return **slot;
}

static kf_status merge_obj(kf_arena *A, kf_node *base, const kf_node *over,
                           int top, const char *who, kf_err *e);

/* Set `v` at `key` of `base`, deep-merging plain tables; lists and objects
** made by constructors replace what was there. */
static kf_status merge_into(kf_arena *A, kf_node *base, const char *key,
                            const kf_node *v, const char *who, kf_err *e) {
  kf_node **slot, *cur = obj_slot(A, base, key, &slot);
  size_t i;
  if (cur == NULL) return kf_nomem(e);
  if ((v->t == KF_NOBJ || v->t == KF_NARR) && v->tag == NULL && v->u.c.n == 0 &&
      cur->t == KF_NOBJ)
    return KF_OK;  /* with{worker = {}} changes nothing */
  if (v->t == KF_NOBJ && v->tag == NULL && v->u.c.n > 0 &&
      (cur->t == KF_NOBJ || cur->t == KF_NNIL)) {
    /* copy first: the old object may be shared with the caller's tree */
    kf_node *copy = kf_node_new(A, KF_NOBJ);
    if (copy == NULL) return kf_nomem(e);
    for (i = 0; cur->t == KF_NOBJ && i < cur->u.c.n; i++)
      if (!kf_node_push(A, copy, cur->u.c.k[i], cur->u.c.v[i])) return kf_nomem(e);
    *slot = copy;
    return merge_obj(A, copy, v, 0, who, e);
  }
  *slot = (kf_node *)v;
  return KF_OK;
}

/* ---- one field set twice in one with{} -------------------------------- */

/* The fields overrides set, as dotted paths: nested plain tables and
** dotted keys spell the same path, so {worker = {replicas = 2},
** ["worker.replicas"] = 3} sets worker.replicas twice, and which one won
** would depend on pairs() order.  Like a duplicate key in JSON
** (JSON_REJECT_DUPLICATES) or YAML, that is an error. */
typedef struct pathset {
  kf_arena *A;
  const char **v;
  size_t n, cap;
} pathset;

/* A key under a rest row has two spellings, limits["amd.com/gpu"] and
** limits.extended["amd.com/gpu"]: one path for both, so a with{} that
** gives both is "set twice" too.  Drops the rest row's key after the
** object's (kf_rest_row); the name after it is one key, dots and all. */
static void one_spelling(char *p) {
  char *seg = p, *dot;
  if (strchr(p, '/') == NULL && strstr(p, "hugepages-") == NULL)
    return;   /* no name kf_ext_res_key takes: the row search is the dearer */
  while ((dot = strchr(seg, '.')) != NULL) {
    const kf_field *r;
    char c = *dot;
    int own;
    size_t n;
    *dot = '\0';
    r = kf_rest_row(seg, &own);
    *dot = c;
    if (r != NULL) {
      n = strlen(r->key);
      if (!own && strncmp(dot + 1, r->key, n) == 0 && dot[1 + n] == '.')
        memmove(dot + 1, dot + 2 + n, strlen(dot + 2 + n) + 1);
      return;
    }
    seg = dot + 1;
  }
}

static int paths_of(pathset *ps, const char *prefix, const kf_node *o) {
  size_t i;
  for (i = 0; i < o->u.c.n; i++) {
    const kf_node *v = o->u.c.v[i];
    size_t pl = prefix ? strlen(prefix) : 0, kl = strlen(o->u.c.k[i]);
    char *p = (char *)kf_arena_alloc_raw(ps->A, pl + kl + 2);
    if (p == NULL) return 0;
    if (prefix) memcpy(p, prefix, pl), p[pl++] = '.';
    memcpy(p + pl, o->u.c.k[i], kl + 1);
    if ((v->t == KF_NOBJ || v->t == KF_NARR) && v->tag == NULL && v->u.c.n == 0)
      continue;                       /* {} sets nothing */
    if (v->t == KF_NOBJ && v->tag == NULL) {
      if (!paths_of(ps, p, v)) return 0;
      continue;
    }
    if (ps->n == ps->cap) {
      const char **nv = (const char **)kf_arena_alloc_raw(
          ps->A, (ps->cap = ps->cap ? ps->cap * 2 : 16) * sizeof *nv);
      if (nv == NULL) return 0;
      if (ps->n) memcpy((void *)nv, (const void *)ps->v, ps->n * sizeof *nv);
      ps->v = nv;
    }
    one_spelling(p);
    ps->v[ps->n++] = p;
  }
  return 1;
}

/* strcmp with '.' below every other byte: a path sorts right before the
** paths inside it. */
static int cmp_path(const void *a, const void *b) {
  const unsigned char *x = *(const unsigned char *const *)a,
                      *y = *(const unsigned char *const *)b;
  for (; *x && *x == *y; x++, y++) {}
  return (*x == '.' ? 1 : *x ? *x + 1 : 0) - (*y == '.' ? 1 : *y ? *y + 1 : 0);
}

static kf_status check_twice(kf_arena *A, const kf_node *over, const char *who,
                             kf_err *e) {
  pathset ps = {A, NULL, 0, 0};
  size_t i;
  if (over->t != KF_NOBJ) return KF_OK;
  if (!paths_of(&ps, NULL, over)) return kf_nomem(e);
  if (ps.n > 1) qsort((void *)ps.v, ps.n, sizeof *ps.v, cmp_path);
  for (i = 1; i < ps.n; i++) {
    size_t l = strlen(ps.v[i - 1]);
    if (strncmp(ps.v[i - 1], ps.v[i], l) == 0 && (ps.v[i][l] == '.' || ps.v[i][l] == '\0'))
      return kf_fail(e, KF_EINVAL,
                     "%s: %.200s: set twice in one with{} (a dotted key and a nested "
                     "table name the same field)", who, ps.v[i - 1]);
  }
  return KF_OK;
}

kf_status kf_node_merge(kf_arena *A, kf_node *base, const kf_node *over,
                        const char *who, kf_err *e) {
  kf_status st = check_twice(A, over, who, e);
  return st != KF_OK ? st : merge_obj(A, base, over, 1, who, e);
}

/* Whether the rest of a dotted key after segment `seg` is one key: a name
** a rest row takes, under its object or itself (kf_rest_row), whose dots
** are the name's ("worker.limits.amd.com/gpu"). */
static int resource_rest(const char *seg, const char *rest) {
  int own;
  const kf_field *r;
  size_t n;
  if (!kf_ext_res_key(rest)) return 0;   /* first: the row search is the dearer */
  if ((r = kf_rest_row(seg, &own)) == NULL) return 0;
  n = strlen(r->key);
  return own || strncmp(rest, r->key, n) != 0 || rest[n] != '.';
}

/* Dotted keys are paths at the top level only (top): inside a nested
** table a key is a key, as Kubernetes label, selector and resource keys
** (kubernetes.io/arch, nvidia.com/gpu) nearly all hold dots. */
static kf_status merge_obj(kf_arena *A, kf_node *base, const kf_node *over,
                           int top, const char *who, kf_err *e) {
  size_t i;
  if (over->t != KF_NOBJ) {
    if (over->t == KF_NARR && over->u.c.n == 0) return KF_OK;
    return kf_fail(e, KF_EINVAL, "%s: overrides: expected a table of fields", who);
  }
  for (i = 0; i < over->u.c.n; i++) {
    const char *key = over->u.c.k[i], *dot;
    size_t kl = strlen(key);
    kf_node *at = base;
    kf_status st;
    if (top && strchr(key, '.') &&
        (key[0] == '.' || key[kl - 1] == '.' || strstr(key, "..") != NULL))
      return kf_fail(e, KF_EINVAL, "%s: '%s': empty field name in a dotted key",
                     who, key);
    /* dotted keys walk (and create) nested tables */
    while (top && (dot = strchr(key, '.')) != NULL) {
      char *head = kf_arena_strndup(A, key, (size_t)(dot - key));
      kf_node **slot, *next;
      if (head == NULL || (next = obj_slot(A, at, head, &slot)) == NULL)
        return kf_nomem(e);
      if (next->t == KF_NNIL || (next->t == KF_NARR && next->u.c.n == 0)) {
        if ((next = kf_node_new(A, KF_NOBJ)) == NULL) return kf_nomem(e);
        *slot = next;
      } else if (next->t != KF_NOBJ) {
        return kf_fail(e, KF_EINVAL, "%s: %.*s: not a table, cannot set '%s'",
                       who, (int)(dot - over->u.c.k[i]), over->u.c.k[i],
                       over->u.c.k[i]);
      }
      at = next;
      key = dot + 1;
      if (resource_rest(head, key)) break;
    }
    if ((st = merge_into(A, at, key, over->u.c.v[i], who, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

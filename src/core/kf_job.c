/*
** kf_job.c - what a built job does, by walking the schema rows: its
** constructor-shaped tree (spec()), equality, copying into one block that
** a userdata can own, and with()'s merge of overrides into a spec tree.
*/
#include <stdio.h>
#include <string.h>

#include "kf_core.h"

#define AT(p, T) ((T *)(void *)(p))

/* ---- job -> spec ------------------------------------------------------ */

static int rows_empty(const kf_obj *o, const char *base) {
  size_t i;
  for (i = 0; i < o->n; i++)
    if (*AT(base + o->f[i].off, const char *const) != NULL) return 0;
  return 1;
}

static int emit_rows(kf_arena *A, kf_node *o, const kf_obj *ob,
                     const char *base, int kind, int role);

static int emit_value(kf_arena *A, kf_node *o, const kf_field *f,
                      const char *base, int kind, int role) {
  const char *at = base + f->off;
  switch (f->type) {
    case KF_V_INT:
      if ((f->flags & KF_F_OMITZERO) && *AT(at, const int32_t) == 0 &&
          !(*AT(base + f->off_n, const unsigned) & f->zbit))
        return 1;
      return kf_obj_int(A, o, f->key, *AT(at, const int32_t));
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_QTY: {
      const char *s = *AT(at, const char *const);
      return s == NULL || kf_obj_strref(A, o, f->key, s);
    }
    case KF_V_BOOL: {
      kf_node *b = kf_obj_add(A, o, f->key, KF_NBOOL);
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
    case KF_V_OBJ: {
      const kf_obj *sub = (const kf_obj *)f->info;
      kf_node *s;
      if (f->off_n ? !*AT(base + f->off_n, const int) : rows_empty(sub, at))
        return 1;
      return (s = kf_obj_add(A, o, f->key, KF_NOBJ)) != NULL &&
             emit_rows(A, s, sub, at, kind, role);
    }
    case KF_V_NNODES: {
      const kf_job *j = (const kf_job *)(const void *)base;
      char b[32];
      if (j->nnodes_int && j->min_nodes == j->max_nodes)
        return kf_obj_int(A, o, f->key, j->min_nodes);
      if (j->min_nodes == j->max_nodes)
        snprintf(b, sizeof b, "%d", (int)j->min_nodes);
      else
        snprintf(b, sizeof b, "%d:%d", (int)j->min_nodes, (int)j->max_nodes);
      return kf_obj_str(A, o, f->key, b);
    }
    case KF_V_GROUPS: {
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
    default: return 1;  /* deprecated counts are read back resolved */
  }
}

static int emit_rows(kf_arena *A, kf_node *o, const kf_obj *ob,
                     const char *base, int kind, int role) {
  size_t i;
  for (i = 0; i < ob->n; i++)
    if (kf_group_takes(&ob->f[i], kind, role) &&
        !emit_value(A, o, &ob->f[i], base, kind, role))
      return 0;
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
    case KF_V_INT: return *AT(x, const int32_t) == *AT(y, const int32_t);
    case KF_V_BOOL: case KF_V_ENUM: return *AT(x, const int) == *AT(y, const int);
    case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_QTY:
      return str_eq(*AT(x, const char *const), *AT(y, const char *const));
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
    default: return 1;
  }
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

int kf_job_equal(const kf_job *a, const kf_job *b) {
  const kf_kind_info *k;
  if (a->kind != b->kind) return 0;
  k = &kf_kinds[a->kind];
  return rows_eq(k->fields, k->nfields, (const char *)a, (const char *)b,
                 a->kind);
}

/* ---- copying into one block ------------------------------------------- */

#define ALIGN(n) (((n) + sizeof(void *) - 1) & ~(sizeof(void *) - 1))

static const char *copy_str(char **cur, const char *s) {
  size_t n;
  char *d;
  if (s == NULL) return NULL;
  n = strlen(s) + 1;
  d = *cur;
  memcpy(d, s, n);
  *cur += n;
  return d;
}

/* The strings (and string arrays) the rows of one object hold, copied from
** `src` to `*cur` and repointed in `dst`; with dst NULL only measured.
** Pass 0 places the pointer arrays (aligned), pass 1 the strings. */
static size_t copy_rows(const kf_field *f, size_t n, char *dst, const char *src,
                        char **cur, int pass) {
  size_t i, k, size = 0;
  for (i = 0; i < n; i++, f++) {
    const char *at = src + f->off;
    switch (f->type) {
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE: case KF_V_QTY: {
        const char *s = *AT(at, const char *const);
        if (pass == 0 || s == NULL) break;
        size += strlen(s) + 1;
        if (dst) *AT(dst + f->off, const char *) = copy_str(cur, s);
        break;
      }
      case KF_V_STRLIST: {
        size_t cnt = *AT(src + f->off_n, const size_t);
        const char *const *v = *AT(at, const char *const *const);
        if (pass == 0) {
          size += ALIGN(cnt * sizeof(char *));
          if (dst) {
            *AT(dst + f->off, const char **) = cnt ? (const char **)(void *)*cur : NULL;
            *cur += ALIGN(cnt * sizeof(char *));
          }
        } else {
          for (k = 0; k < cnt; k++) {
            size += strlen(v[k]) + 1;
            if (dst) (*AT(dst + f->off, const char **))[k] = copy_str(cur, v[k]);
          }
        }
        break;
      }
      case KF_V_OBJ: {
        const kf_obj *o = (const kf_obj *)f->info;
        size += copy_rows(o->f, o->n, dst ? dst + f->off : NULL, at, cur, pass);
        break;
      }
      default: break;
    }
  }
  return size;
}

static size_t group_copy(kf_group *dst, const kf_group *g, char **cur) {
  const kf_field *f = kf_group_obj.f;
  size_t n = kf_group_obj.n;
  if (dst) *dst = *g;
  return copy_rows(f, n, (char *)dst, (const char *)g, cur, 0) +
         copy_rows(f, n, (char *)dst, (const char *)g, cur, 1);
}

size_t kf_group_size(const kf_group *g) {
  return ALIGN(sizeof *g) + group_copy(NULL, g, NULL);
}

void kf_group_pack_into(const kf_group *g, void *mem) {
  char *cur = (char *)mem + ALIGN(sizeof *g);
  group_copy((kf_group *)mem, g, &cur);
}

size_t kf_job_size(const kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  size_t n = ALIGN(sizeof *j);
  int r;
  /* pointer arrays come first per group, so keep each group aligned */
  for (r = 0; r < KF_NROLES; r++) n += ALIGN(group_copy(NULL, &j->g[r], NULL));
  return n + copy_rows(k->fields, k->nfields, NULL, (const char *)j, NULL, 1);
}

void kf_job_pack_into(const kf_job *j, void *mem) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_job *d = (kf_job *)mem;
  char *cur = (char *)mem + ALIGN(sizeof *j);
  int r;
  *d = *j;
  for (r = 0; r < KF_NROLES; r++) {
    char *start = cur;
    cur = start + ALIGN(group_copy(&d->g[r], &j->g[r], &cur));
  }
  copy_rows(k->fields, k->nfields, (char *)d, (const char *)j, &cur, 1);
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
    return kf_node_merge(A, copy, v, who, e);
  }
  *slot = (kf_node *)v;
  return KF_OK;
}

kf_status kf_node_merge(kf_arena *A, kf_node *base, const kf_node *over,
                        const char *who, kf_err *e) {
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
    if (strchr(key, '.') &&
        (key[0] == '.' || key[kl - 1] == '.' || strstr(key, "..") != NULL))
      return kf_fail(e, KF_EINVAL, "%s: '%s': empty field name in a dotted key",
                     who, key);
    /* dotted keys walk (and create) nested tables */
    while ((dot = strchr(key, '.')) != NULL) {
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
    }
    if ((st = merge_into(A, at, key, over->u.c.v[i], who, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/*
** kf_pod.c - the pod template field: a Kubernetes PodTemplateSpec table
** checked against the CRD's schema (generated tables, kf_pod.h) and kept as
** a canonical tree (object keys sorted, integral numbers as integers,
** empty tables as the schema's object or list), plus the rule relating the
** pod settings.  Messages read "<who>: pod_template.<path>: <problem>",
** list items 1-based as everywhere in kfjob.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_pod.h"

typedef struct pctx {
  kf_arena *A;
  kf_err *e;
  const char *who, *prefix;
  size_t n;
  struct { const char *key; size_t idx; } seg[KF_MAX_DEPTH];
} pctx;

static void push(pctx *c, const char *key, size_t idx) {
  if (c->n < KF_MAX_DEPTH) c->seg[c->n].key = key, c->seg[c->n].idx = idx;
  c->n++;
}

static kf_status fail(pctx *c, const char *fmt, const char *a, const char *b) {
  char path[320], problem[300];
  size_t i, l;
  snprintf(path, sizeof path, "%s", c->prefix);
  for (i = 0; i < c->n && i < KF_MAX_DEPTH; i++) {
    l = strlen(path);
    if (c->seg[i].key == NULL)
      snprintf(path + l, sizeof path - l, "[%zu]", c->seg[i].idx);
    else
      snprintf(path + l, sizeof path - l, "%s%s", l ? "." : "",
               c->seg[i].key[0] ? c->seg[i].key : "''");
  }
  snprintf(problem, sizeof problem, fmt, a, b);
  return kf_fail(c->e, KF_EINVAL, "%s: %s: %s", c->who, path, problem);
}

static const char *tname(const kf_node *n) {
  static const char *const names[] = {"nil", "a boolean", "a number",
                                      "a number", "a string", "a list",
                                      "a table with named fields"};
  if (n->t == KF_NNUM && n->u.d == floor(n->u.d)) return "a number";
  return names[n->t];
}

static int is_empty(const kf_node *n) {
  return (n->t == KF_NOBJ || n->t == KF_NARR) && n->u.c.n == 0 && n->tag == NULL;
}

/* "a, b or c" of a NULL-terminated run. */
static void join(const char *const *v, char *out, size_t cap) {
  size_t l = 0;
  int i;
  out[0] = '\0';
  for (i = 0; v[i] && l < cap; i++)
    l += (size_t)snprintf(out + l, cap - l, "%s'%s'",
                          i == 0 ? "" : v[i + 1] ? ", " : " or ", v[i]);
}

static int in_run(const char *const *v, const char *s) {
  for (; *v; v++)
    if (strcmp(*v, s) == 0) return 1;
  return 0;
}

/* A key and its position, sorted together (ties: by position, as a
** stable sort leaves them). */
typedef struct keyix {
  const char *k;
  size_t i;
} keyix;

static int by_keyix(const void *a, const void *b) {
  const keyix *x = (const keyix *)a, *y = (const keyix *)b;
  int r = strcmp(x->k, y->k);
  return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* Keys of an object, sorted: insertion sort for the small objects pods
** are made of, qsort for a large one (a manifest's thousands of labels
** are sorted in n log n, not n^2). */
static size_t *sorted_keys(pctx *c, const kf_node *o) {
  size_t n = o->u.c.n, i, j;
  size_t *ix = (size_t *)kf_arena_alloc(c->A, (n ? n : 1) * sizeof *ix);
  if (ix == NULL) return NULL;
  if (n > 32) {
    keyix *t = (keyix *)kf_arena_alloc(c->A, n * sizeof *t);
    if (t == NULL) return NULL;
    for (i = 0; i < n; i++) t[i].k = o->u.c.k[i], t[i].i = i;
    qsort(t, n, sizeof *t, by_keyix);
    for (i = 0; i < n; i++) ix[i] = t[i].i;
    return ix;
  }
  for (i = 0; i < n; i++) {
    size_t v = i;
    for (j = i; j > 0 && strcmp(o->u.c.k[ix[j - 1]], o->u.c.k[v]) > 0; j--)
      ix[j] = ix[j - 1];
    ix[j] = v;
  }
  return ix;
}

static kf_status walk(pctx *c, unsigned si, const kf_node *in, kf_node **out);

static kf_status check_str(pctx *c, const kf_pschema *s, const kf_node *in) {
  char q[80], list[200];
  if (in->u.s.n > KF_MAX_STRING)
    return fail(c, "string longer than the limit of 1 MiB", "", "");
  if (strlen(in->u.s.p) != in->u.s.n)
    return fail(c, "string contains a NUL byte", "", "");
  if (!kf_utf8_ok(in->u.s.p, in->u.s.n)) return fail(c, "invalid UTF-8", "", "");
  snprintf(q, sizeof q, "'%.60s'", in->u.s.p);
  if ((s->flags & KF_PSF_QTY) && kf_quantity_negative(in->u.s.p, in->u.s.n))
    return fail(c, "%s is negative: Kubernetes refuses a negative quantity here "
                "(pod validation: must be greater than or equal to 0)", q, "");
  if ((s->flags & KF_PSF_QTY) && !kf_quantity_ok(in->u.s.p, in->u.s.n))
    return fail(c, "invalid quantity %s (expected e.g. \"500m\", \"4Gi\", \"2\")",
                q, "");
  /* "" is each enum's unset (core validation checks only a non-empty
  ** effect; operator and imagePullPolicy are defaulted) */
  if (s->enm && in->u.s.n > 0 && !in_run(&kf_pschema_strs[s->enm], in->u.s.p)) {
    join(&kf_pschema_strs[s->enm], list, sizeof list);
    return fail(c, "unknown value %s (expected %s)", q, list);
  }
  return KF_OK;
}

static kf_status check_int(pctx *c, const kf_pschema *s, const kf_node *in,
                           int64_t *v) {
  char b[40];
  if (in->t == KF_NNUM) {
    if (!(in->u.d == floor(in->u.d)) || fabs(in->u.d) > 9.2e18) {
      kf_format_number(fabs(in->u.d), b);
      if (isnan(in->u.d)) strcpy(b, "nan");
      return fail(c, "expected an integer, got %s%s", in->u.d < 0 ? "-" : "", b);
    }
    *v = (int64_t)in->u.d;
  } else {
    *v = in->u.i;
  }
  if ((s->flags & KF_PSF_INT32) && (*v > INT32_MAX || *v < INT32_MIN)) {
    snprintf(b, sizeof b, "%lld", (long long)*v);
    return fail(c, "integer out of int32 range (%s)", b, "");
  }
  /* the pod spec travels as a google.protobuf.Struct: numbers are doubles */
  if (*v > (INT64_C(1) << 53) || *v < -(INT64_C(1) << 53)) {
    snprintf(b, sizeof b, "%lld", (long long)*v);
    return fail(c, "integer out of range (%s): the TaskTemplate carries the pod "
                "spec as a google.protobuf.Struct, exact to 2^53 only", b, "");
  }
  return KF_OK;
}

/* Items of a list-map must differ in their keys (containers by name...),
** found by hash set (kf_first_repeat), not pairwise. */
typedef struct lmap { const kf_node *arr; const char *const *keys; } lmap;

static uint64_t lmap_hash(const void *ud, size_t i) {
  const lmap *m = (const lmap *)ud;
  uint64_t h = KF_HASH_SEED;
  size_t k;
  for (k = 0; m->keys[k]; k++)
    h = kf_node_hash(kf_node_get(m->arr->u.c.v[i], m->keys[k]), h);
  return h;
}

static int lmap_eq(const void *ud, size_t i, size_t j) {
  const lmap *m = (const lmap *)ud;
  size_t k;
  for (k = 0; m->keys[k]; k++) {
    const kf_node *a = kf_node_get(m->arr->u.c.v[i], m->keys[k]);
    const kf_node *b = kf_node_get(m->arr->u.c.v[j], m->keys[k]);
    if (a && b ? !kf_tree_equal(a, b) : a != b) return 0;
  }
  return 1;
}

static kf_status check_unique(pctx *c, const kf_pschema *s, const kf_node *arr) {
  lmap m;
  size_t i, j = 0;
  int nomem;
  char other[32];
  m.arr = arr, m.keys = &kf_pschema_strs[s->keys];
  i = kf_first_repeat(c->A, arr->u.c.n, lmap_hash, lmap_eq, &m, &j, &nomem);
  if (nomem) return kf_nomem(c->e);
  if (i == arr->u.c.n) return KF_OK;
  snprintf(other, sizeof other, "[%zu]", j + 1);
  push(c, NULL, i + 1);
  push(c, m.keys[0], 0);
  return fail(c, "duplicate (the same as item %s)", other, "");
}

static kf_status walk_obj(pctx *c, const kf_pschema *s, const kf_node *in,
                          kf_node *o) {
  const char *const *names = &kf_pschema_names[s->names];
  const char *bad = NULL;
  size_t i, *ix, n0 = c->n;
  kf_status st;
  for (i = 0; i < in->u.c.n; i++) {
    const char *k = in->u.c.k[i];
    if (!in_run(names, k) && (bad == NULL || strcmp(k, bad) < 0)) bad = k;
  }
  if (bad != NULL) {
    const char *sg = kf_suggest(bad, names);
    push(c, bad, 0);
    return sg ? fail(c, "unknown field (did you mean '%s'?)", sg, "")
              : fail(c, "unknown field", "", "");
  }
  if (s->req)
    for (i = 0; kf_pschema_strs[s->req + i]; i++)
      if (kf_node_get(in, kf_pschema_strs[s->req + i]) == NULL) {
        push(c, kf_pschema_strs[s->req + i], 0);
        return fail(c, "required", "", "");
      }
  if ((ix = sorted_keys(c, in)) == NULL) return kf_nomem(c->e);
  for (i = 0; i < in->u.c.n; i++) {
    const char *k = in->u.c.k[ix[i]];
    size_t p = 0;
    kf_node *v;
    while (strcmp(names[p], k) != 0) p++;
    push(c, k, 0);
    st = walk(c, kf_pschema_kids[s->names + p], in->u.c.v[ix[i]], &v);
    c->n = n0;
    if (st) return st;
    if (!kf_node_push(c->A, o, k, v)) return kf_nomem(c->e);
  }
  return KF_OK;
}

static kf_status walk(pctx *c, unsigned si, const kf_node *in, kf_node **out) {
  const kf_pschema *s = &kf_pschema_nodes[si];
  size_t i, n0 = c->n, *ix;
  int64_t iv;
  kf_status st;
  kf_node *o;
  switch (s->type) {
    case KF_PS_OBJ: case KF_PS_MAP:
      if (in->t != KF_NOBJ && !is_empty(in))
        return fail(c, "expected a table with named fields, got %s", tname(in), "");
      if (in->t == KF_NOBJ && in->tag != NULL)
        return fail(c, "expected a table with named fields, got %s", in->tag, "");
      if ((*out = o = kf_node_new(c->A, KF_NOBJ)) == NULL) return kf_nomem(c->e);
      if (in->t != KF_NOBJ) return KF_OK;
      if (s->type == KF_PS_OBJ) return walk_obj(c, s, in, o);
      if ((ix = sorted_keys(c, in)) == NULL) return kf_nomem(c->e);
      for (i = 0; i < in->u.c.n; i++) {
        kf_node *v;
        const char *k = in->u.c.k[ix[i]];
        /* map keys travel as Struct keys (UTF-8) and manifest keys */
        if (!kf_utf8_ok(k, strlen(k)))
          return fail(c, "a key is not valid UTF-8", "", "");
        push(c, k, 0);
        st = walk(c, s->item, in->u.c.v[ix[i]], &v);
        c->n = n0;
        if (st) return st;
        if (!kf_node_push(c->A, o, in->u.c.k[ix[i]], v)) return kf_nomem(c->e);
      }
      return KF_OK;
    case KF_PS_ARR:
      if (in->t != KF_NARR && !is_empty(in))
        return fail(c, "expected a list, got %s", tname(in), "");
      if ((*out = o = kf_node_new(c->A, KF_NARR)) == NULL) return kf_nomem(c->e);
      for (i = 0; in->t == KF_NARR && i < in->u.c.n; i++) {
        kf_node *v;
        push(c, NULL, i + 1);
        st = walk(c, s->item, in->u.c.v[i], &v);
        c->n = n0;
        if (st) return st;
        if (!kf_node_push(c->A, o, NULL, v)) return kf_nomem(c->e);
      }
      return s->keys ? check_unique(c, s, o) : KF_OK;
    case KF_PS_STR:
      if (in->t != KF_NSTR) return fail(c, "expected a string, got %s", tname(in), "");
      if ((st = check_str(c, s, in)) != KF_OK) return st;
      break;
    case KF_PS_BOOL:
      if (in->t != KF_NBOOL) return fail(c, "expected a boolean, got %s", tname(in), "");
      break;
    case KF_PS_INT:
      if (in->t != KF_NINT && in->t != KF_NNUM)
        return fail(c, "expected an integer, got %s", tname(in), "");
      if ((st = check_int(c, s, in, &iv)) != KF_OK) return st;
      return (*out = kf_node_int(c->A, iv)) ? KF_OK : kf_nomem(c->e);
    default:  /* KF_PS_INTSTR */
      if (in->t == KF_NSTR) {
        if ((st = check_str(c, s, in)) != KF_OK) return st;
        break;
      }
      if (in->t != KF_NINT && in->t != KF_NNUM)
        return fail(c, "expected an integer or a string, got %s", tname(in), "");
      if ((st = check_int(c, s, in, &iv)) != KF_OK) return st;
      return (*out = kf_node_int(c->A, iv)) ? KF_OK : kf_nomem(c->e);
  }
  if ((*out = kf_node_new(c->A, in->t)) == NULL) return kf_nomem(c->e);
  (*out)->u = in->u;
  return KF_OK;
}

/* ---- the pod template ------------------------------------------------- */

const kf_node *kf_pod_primary(const kf_node *t, size_t *index) {
  const kf_node *spec = t ? kf_node_get(t, "spec") : NULL;
  const kf_node *cs = spec ? kf_node_get(spec, "containers") : NULL;
  const char *name = kf_pod_primary_name(t);
  size_t i;
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++) {
    const kf_node *nm = kf_node_get(cs->u.c.v[i], "name");
    if (nm && nm->t == KF_NSTR && strcmp(nm->u.s.p, name) == 0) {
      if (index) *index = i;
      return cs->u.c.v[i];
    }
  }
  return NULL;
}

static void drop_at(kf_node *o, size_t i) {
  memmove(&o->u.c.k[i], &o->u.c.k[i + 1], (o->u.c.n - i - 1) * sizeof(char *));
  memmove(&o->u.c.v[i], &o->u.c.v[i + 1], (o->u.c.n - i - 1) * sizeof(kf_node *));
  o->u.c.n--;
}

static void drop_empty(kf_node *o, const char *key) {
  size_t i;
  for (i = 0; o && i < o->u.c.n; i++)
    if (strcmp(o->u.c.k[i], key) == 0 && o->u.c.v[i]->u.c.n == 0) {
      drop_at(o, i);
      return;
    }
}

/* What a TaskTemplate cannot carry goes at construction, so that
** decode_task_template(job:task_template()) == job: empty metadata, labels,
** annotations and spec, and a name-only primary container listed last (the
** same place the placeholder primary takes when the template has none). */
static void normalise(kf_node *t) {
  kf_node *meta = kf_node_get(t, "metadata"), *spec = kf_node_get(t, "spec");
  kf_node *cs = spec ? kf_node_get(spec, "containers") : NULL;
  size_t at;
  const kf_node *p = kf_pod_primary(t, &at);
  if (p && p->u.c.n == 1 && at + 1 == cs->u.c.n) cs->u.c.n--;
  drop_empty(spec, "containers");
  drop_empty(meta, "labels");
  drop_empty(meta, "annotations");
  drop_empty(t, "metadata");
  drop_empty(t, "spec");
}

static kf_status check_template(const kf_node *in, kf_arena *A,
                                const kf_node **out, const char *who,
                                const char *path, kf_err *e) {
  static const char *const root[] = {"metadata", "primary_container_name",
                                     "spec", NULL};
  static const char *const owned[] = {"image", "command", "args", "resources",
                                      NULL};
  pctx c;
  kf_node *t, *v;
  const kf_node *pcn = NULL, *prim;
  size_t i, at = 0;
  kf_status st;
  c.A = A, c.e = e, c.who = who, c.prefix = path, c.n = 0;
  if (in->t != KF_NOBJ && !is_empty(in))
    return fail(&c, "expected a table with named fields, got %s", tname(in), "");
  if (in->t == KF_NOBJ && in->tag != NULL)
    return fail(&c, "expected a table with named fields, got %s", in->tag, "");
  if ((t = kf_node_new(A, KF_NOBJ)) == NULL) return kf_nomem(e);
  if (in->t == KF_NOBJ) {
    /* everything but primary_container_name is the CRD's PodTemplateSpec */
    kf_node *rest = kf_node_new(A, KF_NOBJ);
    const char *bad = NULL;
    if (rest == NULL) return kf_nomem(e);
    for (i = 0; i < in->u.c.n; i++) {
      const char *k = in->u.c.k[i];
      if (strcmp(k, "primary_container_name") == 0) pcn = in->u.c.v[i];
      else if (!in_run(root, k) && (bad == NULL || strcmp(k, bad) < 0)) bad = k;
      else if (!kf_node_push(A, rest, k, in->u.c.v[i])) return kf_nomem(e);
    }
    if (bad != NULL) {
      const char *sg = kf_suggest(bad, root);
      push(&c, bad, 0);
      return sg ? fail(&c, "unknown field (did you mean '%s'?)", sg, "")
                : fail(&c, "unknown field", "", "");
    }
    if ((st = walk(&c, kf_pschema_root, rest, &t)) != KF_OK) return st;
  }
  if (pcn != NULL) {
    push(&c, "primary_container_name", 0);
    if (pcn->t != KF_NSTR)
      return fail(&c, "expected a string, got %s", tname(pcn), "");
    if (strlen(pcn->u.s.p) != pcn->u.s.n || !kf_check_ok(KF_CHECK_DNS_LABEL, pcn->u.s.p)) {
      char q[80];
      snprintf(q, sizeof q, "'%.60s'", pcn->u.s.p);
      return fail(&c, "invalid container name %s (expected a DNS-1123 label: "
                  "lowercase letters, digits and '-', at most 63)", q, "");
    }
    c.n = 0;
  }
  /* the default name is not kept: a TaskTemplate's config cannot tell it
  ** from an unset one */
  if (pcn != NULL && strcmp(pcn->u.s.p, KF_PRIMARY_DEFAULT) != 0) {
    /* keys stay sorted: it goes between metadata and spec */
    if ((v = kf_node_str(A, pcn->u.s.p, pcn->u.s.n)) == NULL) return kf_nomem(e);
    if (!kf_node_push(A, t, "primary_container_name", v)) return kf_nomem(e);
    for (i = t->u.c.n - 1; i > 0 && strcmp(t->u.c.k[i - 1], "primary_container_name") > 0; i--) {
      const char *k = t->u.c.k[i];
      kf_node *x = t->u.c.v[i];
      t->u.c.k[i] = t->u.c.k[i - 1], t->u.c.v[i] = t->u.c.v[i - 1];
      t->u.c.k[i - 1] = k, t->u.c.v[i - 1] = x;
    }
  }
  normalise(t);
  /* the primary container takes its image, command, args and resources
  ** from the replica groups and the task */
  if ((prim = kf_pod_primary(t, &at)) != NULL)
    for (i = 0; owned[i]; i++)
      if (kf_node_get(prim, owned[i]) != NULL) {
        c.n = 0;
        push(&c, "spec", 0), push(&c, "containers", 0), push(&c, NULL, at + 1);
        push(&c, owned[i], 0);
        return fail(&c, "not allowed on the primary container '%s' (the replica "
                    "groups and the task set it)", kf_pod_primary_name(t), "");
      }
  if ((st = kf_pod_api_check(t, A, who, path, e)) != KF_OK) return st;
  *out = t;
  return KF_OK;
}

const kf_tree kf_pod_template_tree = {"a pod template", check_template, "PodTemplate",
                                      0, 0};

/* The schema node of property `name` of object node si (0: none). */
static unsigned kid(unsigned si, const char *name) {
  const kf_pschema *s = &kf_pschema_nodes[si];
  size_t p;
  if (s->type != KF_PS_OBJ) return 0;
  for (p = 0; kf_pschema_names[s->names + p]; p++)
    if (strcmp(kf_pschema_names[s->names + p], name) == 0) return kf_pschema_kids[s->names + p];
  return 0;
}

kf_status kf_pod_check_env(const kf_node *in, kf_arena *A, const kf_node **out,
                           const char *who, const char *path, kf_err *e) {
  /* a container's env in the CRD's PodTemplateSpec */
  unsigned si = kid(kid(kf_pschema_root, "spec"), "containers");
  pctx c;
  kf_node *t;
  kf_status st;
  c.A = A, c.e = e, c.who = who, c.prefix = path, c.n = 0;
  si = si ? kid(kf_pschema_nodes[si].item, "env") : 0;
  if (si == 0) return kf_fail(e, KF_EINVAL, "%s: %s: no EnvVar schema", who, path);
  if ((st = walk(&c, si, in, &t)) != KF_OK) return st;
  *out = t;
  return KF_OK;
}

/* ---- the rule --------------------------------------------------------- */

/* Whether a mount path is /dev/shm once cleaned as Go's path.Clean cleans
** it ("/dev/shm/", "//dev/shm", "/dev/shm/.", "/dev/../dev/shm"): read
** from the end, each ".." skips the name before it; at the root ".." stays
** at the root, so what is left over there does not matter. */
int kf_pod_is_shm_path(const char *p, size_t n) {
  static const char *const want[] = {"shm", "dev"};
  size_t skip = 0, k = 0, end = n;
  if (n == 0 || p[0] != '/') return 0;      /* relative: another path */
  while (end > 0) {
    const char *seg;
    size_t start = end, len;
    while (start > 0 && p[start - 1] != '/') start--;
    seg = p + start, len = end - start;
    end = start > 0 ? start - 1 : 0;
    if (len == 0 || (len == 1 && seg[0] == '.')) continue;    /* "//", "/./" */
    if (len == 2 && seg[0] == '.' && seg[1] == '.') skip++;
    else if (skip > 0) skip--;
    else if (k < 2 && len == strlen(want[k]) && memcmp(seg, want[k], len) == 0) k++;
    else return 0;
  }
  return k == 2;
}

/* shared_memory against one template (`at`: where it is): a mount of the
** primary container at /dev/shm, or a volume of the name kfjob adds. */
static kf_status shm_conflict(const kf_node *t, const char *at, const char *who,
                              kf_err *e) {
  const kf_node *prim, *l;
  size_t pi = 0, i;
  if ((prim = kf_pod_primary(t, &pi)) != NULL &&
      (l = kf_node_get(prim, "volumeMounts")) != NULL && l->t == KF_NARR)
    for (i = 0; i < l->u.c.n; i++) {
      const kf_node *p = kf_node_get(l->u.c.v[i], "mountPath");
      if (p && p->t == KF_NSTR && kf_pod_is_shm_path(p->u.s.p, p->u.s.n))
        return kf_fail(e, KF_EINVAL, "%s: shared_memory: conflicts with "
                       "%s.spec.containers[%zu].volumeMounts[%zu] "
                       "(a mount at %.100s%s)", who, at, pi + 1, i + 1, p->u.s.p,
                       strcmp(p->u.s.p, KF_SHM_PATH) ? ", which is " KF_SHM_PATH : "");
    }
  l = kf_node_get(t, "spec");
  l = l ? kf_node_get(l, "volumes") : NULL;
  for (i = 0; l && l->t == KF_NARR && i < l->u.c.n; i++) {
    const kf_node *n = kf_node_get(l->u.c.v[i], "name");
    if (n && n->t == KF_NSTR && strcmp(n->u.s.p, KF_SHM_VOLUME) == 0)
      return kf_fail(e, KF_EINVAL, "%s: shared_memory: conflicts with "
                     "%s.spec.volumes[%zu] (a volume named " KF_SHM_VOLUME ")", who, at,
                     i + 1);
  }
  return KF_OK;
}

kf_status kf_rule_pod(const kf_job *j, int style, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char at[64];
  int i;
  (void)style;
  if (j->has_accelerator) {
    if (j->accel.device == NULL)
      return kf_fail(e, KF_EINVAL, "%s: accelerator.device: required", who);
    if (kf_pod_api_accel("device", j->accel.device, who, e) != KF_OK ||
        kf_pod_api_accel("partition_size", j->accel.partition_size, who, e) != KF_OK)
      return e->code;
    if (j->accel.partition_size && j->accel.unpartitioned)
      return kf_fail(e, KF_EINVAL, "%s: accelerator: partition_size and "
                     "unpartitioned = true cannot be combined", who);
  }
  if (j->shared_memory == NULL) return KF_OK;
  if (j->pod_template && shm_conflict(j->pod_template, "pod_template", who, e) != KF_OK)
    return e->code;
  /* a group's template is merged over the job's: its mounts land too */
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    snprintf(at, sizeof at, "%s.pod_template", kf_roles[k->roles[i].role].key);
    if (g->pod_template && shm_conflict(g->pod_template, at, who, e) != KF_OK)
      return e->code;
  }
  return KF_OK;
}

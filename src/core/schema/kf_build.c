/*
** kf_build.c - constructor-shaped value tree -> validated job,
** by walking the schema rows of kf_schema.c (spec(), equality and copies
** are in kf_job.c).
**
** All messages read "<ctor>: <path>: <problem>".  Objects are checked for
** unknown keys before their fields, fields in schema order, so the first
** error reported does not depend on table iteration order.
*/
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_build_int.h"
#include "kf_sched.h"

/* The path is a stack of segments, written out only when an error needs
** it: formatting on every field costs more than the whole conversion. */
static size_t push(ctx *c, const char *key) {
  if (c->n < KF_MAX_DEPTH) c->seg[c->n].key = key, c->seg[c->n].idx = 0;
  return c->n++;
}
static size_t push_index(ctx *c, size_t i) {
  if (c->n < KF_MAX_DEPTH) c->seg[c->n].key = NULL, c->seg[c->n].idx = i;
  return c->n++;
}
static void pop(ctx *c, size_t n) { c->n = n; }

/* The path as segments appended (kf_put: cut as snprintf cuts). */
static void format_path(const ctx *c, char *out, size_t cap) {
  size_t i, l = kf_put(out, 0, cap, c->prefix, (size_t)-1);
  for (i = 0; i < c->n && i < KF_MAX_DEPTH; i++) {
    if (c->seg[i].key == NULL) {   /* "[%zu]" */
      char d[24];
      size_t k = sizeof d, x = c->seg[i].idx;
      d[--k] = ']';
      do d[--k] = (char)('0' + x % 10); while ((x /= 10) != 0);
      d[--k] = '[';
      l = kf_put(out, l, cap, d + k, sizeof d - k);
    } else if (strchr(c->seg[i].key, '.') != NULL) {   /* ["a.b"]: a key, not a path */
      l = kf_put(out, l, cap, "[\"", 2);
      l = kf_put(out, l, cap, c->seg[i].key, (size_t)-1);
      l = kf_put(out, l, cap, "\"]", 2);
    } else {
      if (l) l = kf_put(out, l, cap, ".", 1);
      l = kf_put(out, l, cap, c->seg[i].key[0] ? c->seg[i].key : "''", (size_t)-1);
    }
  }
}

static kf_status fail(ctx *c, const char *fmt, const char *a, const char *b) {
  char problem[300], path[256];
  snprintf(problem, sizeof problem, fmt, a, b);
  format_path(c, path, sizeof path);
  if (path[0])
    return kf_fail(c->e, KF_EINVAL, "%s: %s: %s", c->ctor, path, problem);
  return kf_fail(c->e, KF_EINVAL, "%s: %s", c->ctor, problem);
}

static const char *type_name(const kf_node *n) {
  static const char *const names[] = {"nil", "boolean", "number", "number",
                                      "string", "a list",
                                      "a table with named fields"};
  if (n->tag != NULL) return n->tag;
  return names[n->t];
}

/* Match an object's keys against `known` (NULL-terminated, at most
** KF_MAX_KNOWN): slots[i] gets the value of known[i] or NULL.  Unknown keys
** are rejected, smallest first, with a suggestion.  One pass, and the
** first character filters most comparisons. */
#define KF_MAX_KNOWN 40
static kf_status match_keys(ctx *c, const kf_node *obj,
                            const char *const *known, const kf_node **slots) {
  const char *bad = NULL;
  size_t i, j;
  for (j = 0; known[j] != NULL; j++) slots[j] = NULL;
  for (i = 0; obj->t == KF_NOBJ && i < obj->u.c.n; i++) {
    const char *k = obj->u.c.k[i];
    for (j = 0; known[j] != NULL; j++)
      if (known[j][0] == k[0] && (k[0] == '\0' || (known[j][1] == k[1] &&
          (k[1] == '\0' || known[j][2] == k[2]))) && strcmp(known[j], k) == 0)
        break;
    if (known[j] != NULL) slots[j] = obj->u.c.v[i];
    else if (bad == NULL || strcmp(k, bad) < 0) bad = k;
  }
  if (bad != NULL) {
    const char *sg = kf_suggest(bad, known);
    size_t n = push(c, bad);
    kf_status st = sg ? fail(c, "unknown field (did you mean '%s'?)", sg, "")
                      : fail(c, "unknown field", "", "");
    pop(c, n);
    return st;
  }
  return KF_OK;
}

/* Tags are constructor names, "<namespace>.<Name>" with the namespace of
** the caller's constructor `ctor` ("kfjob.Worker" beside "kfjob.TFJob"). */
static int tag_is(const char *ntag, const char *ctor, const char *name) {
  const char *dot = ctor ? strrchr(ctor, '.') : NULL;
  size_t ns = dot ? (size_t)(dot - ctor) + 1 : 0;
  return (ns == 0 || strncmp(ntag, ctor, ns) == 0) && strcmp(ntag + ns, name) == 0;
}

static kf_status want_object(ctx *c, const kf_node *n, const char *tag,
                             const char *what) {
  if (n->t == KF_NOBJ && (n->tag == NULL || tag == NULL || tag_is(n->tag, c->ctor, tag)))
    return KF_OK;
  if (n->t == KF_NARR && n->u.c.n == 0) return KF_OK; /* {} from Lua */
  {
    char w[80];  /* `what` may name the tag: "a kfjob.%s or a table" */
    snprintf(w, sizeof w, what, tag ? tag : "");
    return fail(c, "expected %s, got %s", w, type_name(n));
  }
}

/* Integer (or integral float) within [lo, INT32_MAX]. */
static kf_status get_int(ctx *c, const kf_node *n, int64_t lo, int32_t *out) {
  char buf[40];
  int64_t v;
  if (n->t == KF_NINT) {
    v = n->u.i;
  } else if (n->t == KF_NNUM) {
    double d = n->u.d;
    if (!(d == floor(d)) || fabs(d) > 9.2e18) {
      kf_format_number(d, buf);
      if (isnan(d)) strcpy(buf, "nan");
      else if (isinf(d)) strcpy(buf, d > 0 ? "inf" : "-inf");
      return fail(c, "expected an integer, got %s", buf, "");
    }
    v = (int64_t)d;
  } else {
    return fail(c, "expected an integer, got %s", type_name(n), "");
  }
  if (v > INT32_MAX || v < INT32_MIN) {
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return fail(c, "integer out of int32 range (%s)", buf, "");
  }
  if (v < lo) {
    char lob[24];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    snprintf(lob, sizeof lob, "%lld", (long long)lo);
    return fail(c, "must be >= %s (got %s)", lob, buf);
  }
  *out = (int32_t)v;
  return KF_OK;
}

static kf_status get_str(ctx *c, const kf_node *n, int token,
                         const char **out) {
  if (n->t != KF_NSTR)
    return fail(c, "expected a string, got %s", type_name(n), "");
  if (n->u.s.n > KF_MAX_STRING)
    return fail(c, "string longer than the limit of 1 MiB", "", "");
  if (strlen(n->u.s.p) != n->u.s.n)
    return fail(c, "string contains a NUL byte", "", "");
  if (!kf_utf8_ok(n->u.s.p, n->u.s.n)) return fail(c, "invalid UTF-8", "", "");
  if (token) {
    char buf[64];
    const char *why;
    if (n->u.s.n == 0) return fail(c, "must not be empty", "", "");
    if ((why = kf_token_problem(n->u.s.p, n->u.s.n, buf, sizeof buf)) != NULL)
      return fail(c, "%s", why, "");
  }
  *out = n->u.s.p;
  return KF_OK;
}

/* The closest spelling of an enum value (as its lowercase name), also for
** a word in another case ("ON_FAILURE"); NULL when none is close. */
static const char *enum_suggest(const kf_enum *en, const char *s) {
  const char *cands[3 * 8 + 1], *sg;
  char low[64];
  int v, k, n = 0;
  size_t i;
  for (k = 0; k < 3; k++)          /* lowercase first: it wins a tie */
    for (v = 0; v < en->n && n < 3 * 8; v++) cands[n++] = en->spell[v][k];
  cands[n] = NULL;
  if ((sg = kf_suggest(s, cands)) == NULL) {
    for (i = 0; s[i] && i + 1 < sizeof low; i++)
      low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    low[i] = '\0';
    cands[en->n] = NULL;           /* the lowercase names only */
    if (s[i] != '\0' || (sg = kf_suggest(low, cands)) == NULL) return NULL;
  }
  for (v = 0; v < en->n; v++)
    for (k = 0; k < 3; k++)
      if (en->spell[v][k] == sg) return en->spell[v][0];
  return sg;
}

/* "unknown <what> '<value>' (expected <choices>)", then " (did you mean
** '<sg>'?)" when a spelling is close. */
static kf_status fail_value(ctx *c, const char *what, const char *value,
                            const char *choices, const char *sg) {
  char fmt[64], val[300];
  snprintf(fmt, sizeof fmt, "unknown %s %%s", what);
  if (sg) snprintf(val, sizeof val, "'%.60s' (expected %s) (did you mean '%s'?)",
                   value, choices, sg);
  else snprintf(val, sizeof val, "'%.60s' (expected %s)", value, choices);
  return fail(c, fmt, val, "");
}

/* The message of a bad enum value, built only when one is reported. */
#define ENUM_FAIL(c, en, val) \
  (snprintf(what, sizeof what, "unknown %s %%s (expected %%s)", (en)->what), \
   fail((c), what, (val), (en)->choices))

static kf_status get_enum(ctx *c, const kf_node *n, const kf_enum *en,
                          int *out) {
  char what[64];
  int v = -1;
  if (n->t == KF_NNUM && !(n->u.d == floor(n->u.d))) {
    char buf[32];
    kf_format_number(n->u.d, buf);
    return ENUM_FAIL(c, en, buf);
  }
  if (n->t == KF_NINT || (n->t == KF_NNUM && n->u.d == floor(n->u.d))) {
    /* a float beyond int64 would overflow the cast: out of range anyway */
    int64_t i = n->t == KF_NINT ? n->u.i : fabs(n->u.d) < 9e18 ? (int64_t)n->u.d : -1;
    if (i >= 0 && i < en->n) v = (int)i;
    if (v < 0) {
      char buf[24];
      snprintf(buf, sizeof buf, "%lld", (long long)i);
      return ENUM_FAIL(c, en, buf);
    }
  } else if (n->t == KF_NSTR) {
    if (strlen(n->u.s.p) != n->u.s.n)   /* else matched up to the NUL */
      return fail(c, "string contains a NUL byte", "", "");
    v = kf_enum_parse(en, n->u.s.p);
    if (v < 0) {
      return fail_value(c, en->what, n->u.s.p, en->choices,
                        enum_suggest(en, n->u.s.p));
    }
  } else {
    return fail(c, "expected a string, got %s", type_name(n), "");
  }
  *out = v;
  return KF_OK;
}

static kf_status get_quantity(ctx *c, const kf_node *n, const char **out) {
  char buf[32];
  if (n->t == KF_NSTR && n->u.s.n > KF_MAX_STRING)
    return fail(c, "string longer than the limit of 1 MiB", "", "");
  if (n->t == KF_NSTR) {
    if (!kf_quantity_ok(n->u.s.p, n->u.s.n)) {
      char q[80];
      snprintf(q, sizeof q, "'%.60s'", n->u.s.p);
      if (kf_quantity_negative(n->u.s.p, n->u.s.n))
        return fail(c, "%s is negative: Kubernetes refuses negative requests and "
                    "limits (pod validation: must be greater than or equal to 0)", q, "");
      return fail(c, "invalid quantity %s (expected e.g. \"500m\", \"4Gi\", \"2\")",
                  q, "");
    }
    *out = n->u.s.p;
    return KF_OK;
  }
  if (n->t == KF_NINT) {
    if (n->u.i < 0) return fail(c, "must not be negative", "", "");
    if ((*out = kf_small_int(n->u.i)) != NULL) return KF_OK;
    kf_format_int(n->u.i, buf);
  } else if (n->t == KF_NNUM) {
    if (isnan(n->u.d) || isinf(n->u.d))
      return fail(c, "expected a finite number", "", "");
    if (n->u.d < 0) return fail(c, "must not be negative", "", "");
    kf_format_number(n->u.d + 0.0, buf);  /* -0.0 + 0.0 is +0.0 */
  } else {
    return fail(c, "expected a quantity string or a number, got %s",
                type_name(n), "");
  }
  if ((*out = kf_arena_strndup(c->A, buf, strlen(buf))) == NULL)
    return kf_nomem(c->e);
  return KF_OK;
}

static kf_status get_strlist(ctx *c, const kf_node *n, const char ***out,
                             size_t *nout) {
  size_t i;
  const char **v;
  if (n->t != KF_NARR || n->u.c.n == 0) {
    if (n->t == KF_NOBJ && n->u.c.n == 0)
      return fail(c, "expected a non-empty list of strings, got an empty table",
                  "", "");
    return fail(c, "expected a non-empty list of strings, got %s",
                type_name(n), "");
  }
  if (n->u.c.n > KF_MAX_ITEMS)
    return fail(c, "list longer than the limit of 4096 items", "", "");
  v = (const char **)kf_arena_alloc(c->A, n->u.c.n * sizeof(char *));
  if (v == NULL) return kf_nomem(c->e);
  for (i = 0; i < n->u.c.n; i++) {
    size_t p = push_index(c, i + 1);
    kf_status st = get_str(c, n->u.c.v[i], 0, &v[i]);
    pop(c, p);
    if (st) return st;
  }
  *out = v;
  *nout = n->u.c.n;
  return KF_OK;
}

static kf_status parse_nnodes(ctx *c, const kf_node *n, kf_job *j) {
  if (n->t == KF_NINT || n->t == KF_NNUM) {
    kf_status st = get_int(c, n, 1, &j->min_nodes);
    if (st) return st;
    j->max_nodes = j->min_nodes;
    j->nnodes_int = 1;
    return KF_OK;
  }
  if (n->t == KF_NSTR) {
    const char *s = n->u.s.p, *bs = s;
    char *end;
    long a, b;
    char q[80];
    if (strlen(s) != n->u.s.n)   /* else "2:4\0" reads as "2:4" */
      return fail(c, "string contains a NUL byte", "", "");
    snprintf(q, sizeof q, "'%.60s'", s);
    a = (s[0] >= '0' && s[0] <= '9') ? strtol(s, &end, 10) : -1;
    if (a >= 0 && *end == '\0') {
      b = a;
    } else if (a >= 0 && *end == ':' && end[1] >= '0' && end[1] <= '9') {
      bs = end + 1;
      b = strtol(bs, &end, 10);
      if (*end != '\0') b = -1;
    } else {
      b = -1;
    }
    if (a < 0 || b < 0)
      return fail(c, "expected an integer or \"MIN:MAX\", got %s", q, "");
    if (a > INT32_MAX || b > INT32_MAX) {   /* the digits as written (strtol clamps) */
      const char *d = a > INT32_MAX ? s : bs;
      size_t nd = strspn(d, "0123456789");
      char big[48];
      snprintf(big, sizeof big, "%.*s%s", (int)(nd > 40 ? 40 : nd), d, nd > 40 ? "..." : "");
      return fail(c, "integer out of int32 range (%s)", big, "");
    }
    /* no worker at all is R2's; min > max a target's matter (R9,
    ** kf_target_rules.c) */
    if (a < 1 || b < 1)
      return fail(c, "needs 1 <= min <= max (got %s)", q, "");
    j->min_nodes = (int32_t)a;
    j->max_nodes = (int32_t)b;
    j->nnodes_int = 0;  /* only the integer 1 makes a python-task */
    return KF_OK;
  }
  return fail(c, "expected an integer or \"MIN:MAX\", got %s", type_name(n),
              "");
}

/* ---- parsing by the schema -------------------------------------------- */

static kf_status parse_rows(ctx *c, const kf_obj *o, const kf_node *n,
                            char *base, int kind, int role, uint32_t *given);
static kf_status parse_rest(ctx *c, const kf_obj *o, const kf_node *n,
                            char *base, int kind, int role, uint32_t *given);

/* Row f's value v into the struct at base (kf_build_value, without the
** zero bit). */
static kf_status build_value(ctx *c, const kf_field *f, const kf_node *v,
                             char *base, int kind, int role) {
  char *at = base + f->off;
  kf_status st;
  switch (f->type) {
    case KF_V_INT: return get_int(c, v, f->min, AT(at, int32_t));
    case KF_V_NPROC: {   /* an integer, or one of the choice's words */
      const kf_choice *ch = (const kf_choice *)f->info;
      char q[80];
      int i;
      *AT(base + f->off_n, const char *) = NULL;
      if (v->t != KF_NSTR) return get_int(c, v, f->min, AT(at, int32_t));
      if (strlen(v->u.s.p) != v->u.s.n)   /* else "auto\0x" matches "auto" */
        return fail(c, "string contains a NUL byte", "", "");
      for (i = 0; ch->v[i]; i++)
        if (strcmp(ch->v[i], v->u.s.p) == 0) {
          *AT(base + f->off_n, const char *) = ch->v[i];   /* static */
          *AT(at, int32_t) = 0;
          return KF_OK;
        }
      snprintf(q, sizeof q, "'%.60s'", v->u.s.p);
      return fail(c, "expected %s, got %s", ch->choices, q);
    }
    case KF_V_STR: return get_str(c, v, 0, AT(at, const char *));
    case KF_V_TOKEN: return get_str(c, v, 1, AT(at, const char *));
    case KF_V_BOOL:
      if (v->t != KF_NBOOL)
        return fail(c, "expected a boolean, got %s", type_name(v), "");
      *AT(at, int) = v->u.b;
      return KF_OK;
    case KF_V_ENUM:
      return get_enum(c, v, (const kf_enum *)f->info, AT(at, int));
    case KF_V_CHOICE: {
      const kf_choice *ch = (const kf_choice *)f->info;
      const char *s;
      int i;
      if ((st = get_str(c, v, 0, &s)) != KF_OK) return st;
      for (i = 0; ch->v[i]; i++)
        if (strcmp(ch->v[i], s) == 0) {
          *AT(at, const char *) = s;
          return KF_OK;
        }
      return fail_value(c, ch->what, s, ch->choices, kf_suggest(s, ch->v));
    }
    case KF_V_QTY: return get_quantity(c, v, AT(at, const char *));
    case KF_V_SIZE:  /* true: "", false: unset, else a quantity */
      if (v->t == KF_NBOOL) {
        *AT(at, const char *) = v->u.b ? "" : NULL;
        return KF_OK;
      }
      if (v->t != KF_NSTR && v->t != KF_NINT && v->t != KF_NNUM)
        return fail(c, "expected true or a quantity, got %s", type_name(v), "");
      return get_quantity(c, v, AT(at, const char *));
    case KF_V_TREE: {
      char path[256];
      format_path(c, path, sizeof path);
      return ((const kf_tree *)f->info)->check(v, c->A, AT(at, const kf_node *),
                                               c->ctor, path, c->e);
    }
    case KF_V_STRLIST:
      return get_strlist(c, v, AT(at, const char **), AT(base + f->off_n, size_t));
    case KF_V_OBJ: {
      const kf_obj *o = (const kf_obj *)f->info;
      if (f->off_n) *AT(base + f->off_n, int) = 1;
      if ((f->flags & KF_F_SHORT) && v->t == KF_NSTR)  /* its first row */
        return kf_build_value(c, &o->f[0], v, at, kind, role);
      if ((st = want_object(c, v, o->tag, o->what)) != KF_OK || v->t != KF_NOBJ)
        return st;
      return parse_rest(c, o, v, at, kind, role, NULL);
    }
    case KF_V_NNODES: return parse_nnodes(c, v, (kf_job *)(void *)base);
    case KF_V_GROUPS: case KF_V_DEPRECATED:
      return KF_OK;  /* markers: the job parser expands them */
  }
  return KF_OK;
}

kf_status kf_build_value(ctx *c, const kf_field *f, const kf_node *v,
                         char *base, int kind, int role) {
  kf_status st = build_value(c, f, v, base, kind, role);
  if (st == KF_OK && f->zbit && kf_row_default(f, base))
    *AT(base + f->off_n, unsigned) |= f->zbit;  /* given as the default */
  return st;
}

/* An object with a rest row (KF_F_REST, o's last): the keys no row has
** that kf_ext_res_key takes go to that row as one table (the errors name
** them under the object), the rest is parsed as rows.  0: none such. */
static int split_rest(const kf_obj *o, const kf_node *n, kf_arena *A,
                      kf_node **rows, kf_node **rest) {
  size_t i;
  *rest = NULL;
  if (o->n == 0 || !(o->f[o->n - 1].flags & KF_F_REST) || n->t != KF_NOBJ) return 0;
  for (i = 0; i < n->u.c.n; i++) {
    const char *k = n->u.c.k[i];
    int row = kf_obj_row(o, k) != NULL;
    kf_node **to = !row && kf_ext_res_key(k) ? rest : rows;
    if (*rest == NULL && to == rest) {   /* the first: copy the rows so far */
      size_t m;
      if ((*rest = kf_node_new(A, KF_NOBJ)) == NULL || (*rows = kf_node_new(A, KF_NOBJ)) == NULL)
        return -1;
      for (m = 0; m < i; m++)
        if (!kf_node_push(A, *rows, n->u.c.k[m], n->u.c.v[m])) return -1;
    }
    if (*rest != NULL && !kf_node_push(A, *to, k, n->u.c.v[i])) return -1;
  }
  return *rest != NULL;
}

/* The rest row's table given by its key as well (a spec() merged with an
** override of the flat form, as with() makes it): one table, the flat keys
** winning; NULL when out of memory.  The key is dropped from `rows`. */
static kf_node *merge_rest(kf_arena *A, kf_node *rows, const char *key,
                           const kf_node *named, kf_node *rest) {
  kf_node *m = kf_node_new(A, KF_NOBJ), *left = kf_node_new(A, KF_NOBJ);
  size_t i;
  if (m == NULL || left == NULL) return NULL;
  for (i = 0; i < named->u.c.n; i++)
    if (kf_node_get(rest, named->u.c.k[i]) == NULL &&
        !kf_node_push(A, m, named->u.c.k[i], named->u.c.v[i]))
      return NULL;
  for (i = 0; i < rest->u.c.n; i++)
    if (!kf_node_push(A, m, rest->u.c.k[i], rest->u.c.v[i])) return NULL;
  for (i = 0; i < rows->u.c.n; i++)
    if (strcmp(rows->u.c.k[i], key) != 0 &&
        !kf_node_push(A, left, rows->u.c.k[i], rows->u.c.v[i]))
      return NULL;
  *rows = *left;
  return m;
}

static kf_status parse_rest(ctx *c, const kf_obj *o, const kf_node *n,
                            char *base, int kind, int role, uint32_t *given) {
  const kf_field *f = &o->f[o->n - 1];
  kf_node *rows = NULL, *rest;
  const kf_node *named;
  kf_status st;
  int got = split_rest(o, n, c->A, &rows, &rest);
  if (got < 0) return kf_nomem(c->e);
  if (got == 0) return parse_rows(c, o, n, base, kind, role, given);
  if ((named = kf_node_get(rows, f->key)) != NULL) {
    if ((named->t != KF_NOBJ && !(named->t == KF_NARR && named->u.c.n == 0)) ||
        named->tag != NULL) {   /* not a table: the row's own error */
      size_t p = push(c, f->key);
      st = kf_build_value(c, f, named, base, kind, role);
      pop(c, p);
      return st != KF_OK ? st : fail(c, "%s: expected a table", f->key, "");
    }
    if ((rest = merge_rest(c->A, rows, f->key, named, rest)) == NULL) return kf_nomem(c->e);
  }
  if ((st = parse_rows(c, o, rows, base, kind, role, given)) != KF_OK) return st;
  if ((st = kf_build_value(c, f, rest, base, kind, role)) != KF_OK) return st;
  if (given) *given |= 1u << (o->n - 1);
  return KF_OK;
}

/* An object's fields: unknown keys first (with a suggestion), then each row
** in schema order.  `given` gets a bit per row index that was present. */
static kf_status parse_rows(ctx *c, const kf_obj *o, const kf_node *n,
                            char *base, int kind, int role, uint32_t *given) {
  const char *known[KF_MAX_KNOWN];
  const kf_field *row[KF_MAX_KNOWN], *deny[4];
  const kf_node *slot[KF_MAX_KNOWN];
  size_t k = 0, nd = 0, i, j;
  kf_status st;
  for (i = 0; i < o->n; i++) {
    const kf_field *f = &o->f[i];
    if (!kf_group_takes(f, kind, role)) {
      if (f->denied && nd < 4) deny[nd++] = f;
      continue;
    }
    row[k] = f, known[k++] = f->key;
    if (f->alias) row[k] = f, known[k++] = f->alias;
  }
  known[k] = NULL;
  /* a field another context would take gets a precise message */
  for (i = 0; nd && i < n->u.c.n; i++)
    for (j = 0; j < nd; j++)
      if (strcmp(n->u.c.k[i], deny[j]->key) == 0) {
        size_t p = push(c, deny[j]->key);
        st = fail(c, "%s", deny[j]->denied, "");
        pop(c, p);
        return st;
      }
  if ((st = match_keys(c, n, known, slot)) != KF_OK) return st;
  for (i = 0; i + 1 < k; i++)
    if (row[i] == row[i + 1] && slot[i] && slot[i + 1])
      return fail(c, "both '%s' and '%s' given (they are aliases)", known[i],
                  known[i + 1]);
  for (i = 0; i < k; i++) {  /* schema order: a stable first error */
    size_t p;
    if (slot[i] == NULL) continue;
    p = push(c, known[i]);
    st = kf_build_value(c, row[i], slot[i], base, kind, role);
    pop(c, p);
    if (st) return st;
    if (given) *given |= 1u << (row[i] - o->f);
  }
  return KF_OK;
}

/* Index bit of the group's replicas row. */
static uint32_t replicas_bit(void) {
  size_t i;
  for (i = 0; i < kf_group_obj.n; i++)
    if (kf_group_obj.f[i].flags & KF_F_REPLICAS) return 1u << i;
  return 0;
}

kf_status kf_run_policy_from_spec(const kf_node *n, kf_run_policy *rp,
                                  const char *ctor, const char *path,
                                  kf_err *e) {
  ctx c;
  kf_status st;
  const kf_obj *o = &kf_run_policy_obj;
  kf_build_ctx_init(&c, NULL, e, ctor, path);
  memset(rp, 0, sizeof *rp);
  if ((st = want_object(&c, n, o->tag, o->what)) || n->t != KF_NOBJ) return st;
  return parse_rows(&c, o, n, (char *)rp, -1, -1, NULL);
}

kf_status kf_group_from_spec(int role, const kf_node *n, kf_arena *A,
                             kf_group *g, const char *ctor, kf_err *e) {
  ctx c;
  kf_status st;
  char b[24];
  const char *rule = NULL;
  kf_build_ctx_init(&c, A, e, ctor, "");
  memset(g, 0, sizeof *g);
  g->replicas = kf_roles[role].default_replicas;
  if ((st = want_object(&c, n, kf_roles[role].name, "a table of named fields")) ||
      n->t != KF_NOBJ)
    return st;
  if ((st = parse_rows(&c, &kf_group_obj, n, (char *)g, -1, role, NULL)) != KF_OK)
    return st;
  if ((kf_roles[role].flags & KF_R_FIXED1) && g->replicas != 1)
    rule = "must be 1 (got %s)";
  if (rule) {
    size_t p = push(&c, "replicas");
    snprintf(b, sizeof b, "%d", (int)g->replicas);
    st = fail(&c, rule, b, "");
    pop(&c, p);
  }
  return st;
}

static size_t kind_entries_build(const kf_kind_info *k, kentry *out,
                                 const char **keys) {
  size_t n = 0, i;
  int r;
  /* a kind that outgrew the key tables fails loudly at first use */
#define ENTRY(K, F, R) \
  do { if (n + 1 >= KF_MAX_KNOWN) abort(); \
       out[n].key = (K), out[n].f = (F), out[n++].role = (R); } while (0)
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (f->type == KF_V_GROUPS) {
      for (r = 0; r < k->nroles; r++)
        ENTRY(kf_roles[k->roles[r].role].key, f, k->roles[r].role);
    } else if (f->type == KF_V_DEPRECATED) {
      for (r = 0; r < k->nroles; r++)
        if (k->roles[r].deprecated_key)
          ENTRY(k->roles[r].deprecated_key, f, k->roles[r].role);
    } else {
      ENTRY(f->key, f, -1);
    }
  }
#undef ENTRY
  for (i = 0; i < n; i++) keys[i] = out[i].key;
  keys[n] = NULL;
  return n;
}

/* Each kind's keys, expanded once: every constructor call matches them. */
static struct {
  kentry ent[KF_MAX_KNOWN];
  const char *known[KF_MAX_KNOWN];
  size_t n;
} kind_keys[KF_NKINDS];
static pthread_once_t kind_keys_once = PTHREAD_ONCE_INIT;

static void kind_keys_init(void) {
  int k;
  for (k = 0; k < KF_NKINDS; k++)
    kind_keys[k].n = kind_entries_build(&kf_kinds[k], kind_keys[k].ent,
                                        kind_keys[k].known);
}

const kentry *kf_build_kind_keys(int kind, size_t *n) {
  pthread_once(&kind_keys_once, kind_keys_init);
  *n = kind_keys[kind].n;
  return kind_keys[kind].ent;
}

kf_status kf_job_from_spec(int kind, const kf_node *n, kf_arena *A,
                           kf_job *j, const char *ctor, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[kind];
  const char *const *known;
  const kentry *ent;
  const kf_node *slot[KF_MAX_KNOWN];
  int given[KF_NROLES] = {0};
  int32_t dep[KF_NROLES] = {0};
  uint32_t rbit = replicas_bit();
  ctx c;
  kf_status st;
  size_t i, nent;
  kf_build_ctx_init(&c, A, e, ctor, "");
  kf_job_defaults(j, kind);
  if ((n->t != KF_NOBJ && !(n->t == KF_NARR && n->u.c.n == 0)) ||
      (n->t == KF_NOBJ && n->tag != NULL &&
       !tag_is(n->tag, ctor, k->name)))
    return fail(&c, "expected a table of named fields, got %s", type_name(n), "");
  ent = kf_build_kind_keys(kind, &nent);
  known = kind_keys[kind].known;
  if ((st = match_keys(&c, n, known, slot)) != KF_OK) return st;
  for (i = 0; i < nent; i++) {
    const kentry *en = &ent[i];
    const kf_node *v = slot[i];
    size_t p;
    if (v == NULL) continue;
    p = push(&c, en->key);
    if (en->f->type == KF_V_GROUPS) {
      uint32_t bits = 0;
      st = want_object(&c, v, kf_roles[en->role].name, "a kfjob.%s or a table");
      if (st == KF_OK && v->t == KF_NOBJ)
        st = parse_rows(&c, &kf_group_obj, v, (char *)&j->g[en->role], kind,
                        en->role, &bits);
      if (bits & rbit) given[en->role] = 1;
    } else if (en->f->type == KF_V_DEPRECATED) {
      st = get_int(&c, v, en->f->min, &dep[en->role]);
    } else {
      st = kf_build_value(&c, en->f, v, (char *)j, kind, -1);
    }
    pop(&c, p);
    if (st) return st;
  }
  return kf_build_finish(&c, j, given, dep);
}

kf_status kf_build_finish(ctx *c, kf_job *j, int *given, const int32_t *dep) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_status st;
  int r;
  /* deprecated counts: alone they set replicas; both non-zero is an error */
  for (r = 0; r < k->nroles; r++) {
    const kf_kind_role *kr = &k->roles[r];
    int role = kr->role;
    if (dep[role] == 0) continue;
    if (given[role] && j->g[role].replicas != 0) {
      char other[64];
      snprintf(other, sizeof other, "%s.replicas", kf_roles[role].key);
      size_t p = push(c, kr->deprecated_key);
      st = fail(c, "cannot be combined with %s (%s is deprecated)", other,
                kr->deprecated_key);
      pop(c, p);
      return st;
    }
    j->g[role].replicas = dep[role];
    j->deprecated |= 1u << role;
    given[role] = 1;
  }
  /* a required group must be given where the job takes replica counts:
  ** kinds whose only target's webhook requires it (JAXJob); whether the
  ** Flyte kinds take an absent worker group (0 workers) is a rule by
  ** target (R1, R3, R4 in kf_target_rules.c) */
  for (r = 0; r < k->nroles; r++) {
    int role = k->roles[r].role;
    if ((kf_kind_role_bounds(k, role).flags & KF_R_REQUIRED) && !given[role] &&
        !(k->flags & KF_K_ELASTIC)) {
      size_t p = push(c, kf_roles[role].key);
      push(c, "replicas");
      st = fail(c, "required (at least 1 %s)", kf_roles[role].key, "");
      pop(c, p);
      return st;
    }
  }
  if (k->flags & KF_K_ELASTIC) j->g[KF_WORKER].replicas = j->max_nodes;
  kf_sched_normalize(j);
  return kf_job_check(j, KF_PATH_SPEC, c->ctor, c->e);
}

kf_status kf_job_check(const kf_job *j, kf_pathstyle s, const char *who,
                       kf_err *e) {
  const kf_rule *r;
  kf_status st;
  for (r = kf_kinds[j->kind].rules; *r != NULL; r++)
    if ((st = (*r)(j, (int)s, who, e)) != KF_OK) return st;
  return KF_OK;
}

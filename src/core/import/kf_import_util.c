/*
** kf_import_util.c - what every reader of the import room uses, below
** them all: manifest paths, errors, the unmapped and ignored lists, and
** strict key matching with the constructors' did-you-mean (kf_suggest).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_sched.h"
#include "kf_import_int.h"

static int ident(const char *k) {
  size_t i;
  if (!((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z'))) return 0;
  for (i = 1; k[i]; i++)
    if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
          (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
      return 0;
  return 1;
}

/* At most max bytes of s (to its NUL) at out + n, as "%.<max>s" writes
** them; the new length.  Paths are made for every value read, and
** snprintf cost ten times this. */
static size_t put(char *out, size_t n, const char *s, size_t max) {
  size_t k = strnlen(s, max);
  if (k > KFI_PATH - 1 - n) k = KFI_PATH - 1 - n;
  memmove(out + n, s, k);
  return n + k;
}

void kfi_path(char *out, const char *prefix, const char *key) {
  size_t n;
  int id = ident(key);
  if (prefix[0] == '\0' && id) {
    n = put(out, 0, key, 200);
  } else if (id) {
    n = put(out, 0, prefix, 150);
    n = put(out, n, ".", 1);
    n = put(out, n, key, 100);
  } else {
    n = put(out, 0, prefix, 150);
    n = put(out, n, "[\"", 2);
    n = put(out, n, key, 90);
    n = put(out, n, "\"]", 2);
  }
  out[n] = '\0';
}

void kfi_index(char *out, const char *prefix, size_t i) {
  char d[24];
  size_t k = sizeof d, n;
  do d[--k] = (char)('0' + i % 10); while ((i /= 10) != 0);
  n = put(out, 0, prefix, 200);
  n = put(out, n, "[", 1);
  memcpy(out + n, d + k, sizeof d - k);   /* 200 + 1 + 20 + 1 < KFI_PATH */
  n += sizeof d - k;
  out[n++] = ']';
  out[n] = '\0';
}

const char *kfi_str(const kf_node *n) {
  return n && n->t == KF_NSTR ? n->u.s.p : NULL;
}

/* A constructor's problem under a manifest path: the item a duplicate
** is "the same as" counted from 0, as the path's indices are. */
void kfi_problem0(char *out, size_t cap, const char *problem) {
  static const char same[] = "(the same as item [";
  const char *at = strstr(problem, same), *num;
  char *end;
  long x;
  if (at == NULL) {
    snprintf(out, cap, "%s", problem);
    return;
  }
  num = at + sizeof same - 1;
  x = strtol(num, &end, 10);
  if (end == num || *end != ']' || x < 1) {
    snprintf(out, cap, "%s", problem);
    return;
  }
  snprintf(out, cap, "%.*s%ld%s", (int)(num - problem), problem, x - 1, end);
}

kf_status kfi_fail(kfi *c, const char *path, const char *fmt, ...) {
  char msg[KF_ERRMAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (path[0] == '\0') return kf_fail(c->e, KF_EINVAL, "%s: %s", c->who, msg);
  return kf_fail(c->e, KF_EINVAL, "%s: %s: %s", c->who, path, msg);
}

kf_status kfi_meta_entry(kfi *c, const char *path, int label, const char *k,
                         const char *v) {
  if (!kf_check_ok(label ? KF_CHECK_LABEL_KEY : KF_CHECK_ANNOTATION_KEY, k))
    return kfi_fail(c, path, "invalid %s key (an optional DNS subdomain prefix and '/', "
                    "then at most 63 letters, digits, '-', '_' or '.', starting and "
                    "ending with a letter or digit)", label ? "label" : "annotation");
  if (label && v && !kf_check_ok(KF_CHECK_LABEL_VALUE, v))
    return kfi_fail(c, path, "invalid label value '%.100s' (empty, or at most 63 "
                    "letters, digits, '-', '_' or '.', starting and ending with a letter "
                    "or digit)", v);
  return KF_OK;
}

static size_t path_hash(const char *s) {
  size_t h = (size_t)14695981039346656037ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
  return h;
}

/* The slot of `path` in c->seen: its own, or the empty one it goes to. */
static size_t seen_slot(const kfi *c, const char *path) {
  size_t i = path_hash(path) & (c->capseen - 1);
  while (c->seen[i] && strcmp(c->seen[i], path) != 0) i = (i + 1) & (c->capseen - 1);
  return i;
}

/* Has `path` a row already?  Else it is added to the set (`p`: the row's
** own copy of the path).  A set, not a walk of the rows: a manifest of
** many unknown keys is read in linear time.  -1: out of memory. */
static int seen_path(kfi *c, const char *p) {
  size_t i;
  if (2 * (c->nseen + 1) > c->capseen) {   /* at most half full */
    size_t cap = c->capseen ? 2 * c->capseen : 64, k;
    const char **old = c->seen, **v = (const char **)kf_arena_alloc(c->A, cap * sizeof *v);
    if (v == NULL) return -1;
    c->seen = v, c->capseen = cap;
    for (k = 0; old && k < cap / 2; k++)
      if (old[k]) c->seen[seen_slot(c, old[k])] = old[k];
  }
  i = seen_slot(c, p);
  if (c->seen[i]) return 1;
  c->seen[i] = p;
  c->nseen++;
  return 0;
}

kf_status kfi_unmapped(kfi *c, const char *path, const kf_node *v,
                       const char *reason) {
  kf_node *row;
  const char *p;
  int seen;
  if (!c->lossy)
    return kfi_fail(c, path, "%s (opts.lossy lists it instead)", reason);
  KF_OOM(c, p = kf_arena_strndup(c->A, path, strlen(path)));
  KF_OOM(c, (seen = seen_path(c, p)) >= 0);
  if (seen) return KF_OK;   /* a path is listed once, with its first reason */
  KF_OOM(c, row = kf_obj_add(c->A, c->unmapped, NULL, KF_NOBJ));
  KF_OOM(c, kf_obj_strref(c->A, row, "path", p));
  if (v) KF_OOM(c, kf_node_push(c->A, row, "value", (kf_node *)v));
  KF_OOM(c, kf_obj_str(c->A, row, "reason", reason));
  return KF_OK;
}

/* kfi_path(prefix, key) without its bounds (an arena string; NULL: no
** memory): each long unknown key gets its own row, with its whole path. */
static const char *path_whole(kfi *c, const char *prefix, const char *key) {
  size_t a = strlen(prefix), b = strlen(key);
  char *out = (char *)kf_arena_alloc_raw(c->A, a + b + 5);
  if (out == NULL) return NULL;
  if (ident(key)) sprintf(out, "%s%s%s", prefix, a ? "." : "", key);
  else sprintf(out, "%s[\"%s\"]", prefix, key);
  return out;
}

kf_status kfi_keys(kfi *c, const char *path, const kf_node *obj,
                   const char *const *known, const char *const *held_not,
                   const char *const *server) {
  char p[KFI_PATH], why[160];
  size_t i;
  kf_status st;
  for (i = 0; i < obj->u.c.n; i++) {
    const char *k = obj->u.c.k[i], *sg;
    const char *fp = p;
    if (kf_str_listed(known, k)) continue;
    kfi_path(p, path, k);
    if (strlen(k) > 80 && (fp = path_whole(c, path, k)) == NULL) return kf_nomem(c->e);
    if (kf_str_listed(server, k)) {
      KF_OOM(c, kf_node_push(c->A, c->ignored, NULL, kf_node_str(c->A, p, strlen(p))));
      continue;
    }
    if (kf_str_listed(held_not, k)) {
      st = kfi_unmapped(c, fp, obj->u.c.v[i], "kfjob cannot hold this field");
    } else {
      sg = known ? kf_suggest(k, known) : NULL;
      snprintf(why, sizeof why, "unknown field%s%s%s", sg ? " (did you mean '" : "",
               sg ? sg : "", sg ? "'?)" : "");
      st = kfi_unmapped(c, fp, obj->u.c.v[i], why);
    }
    if (st != KF_OK) return st;
  }
  return KF_OK;
}

kf_status kfi_want(kfi *c, const char *path, const kf_node *v, kf_ntype t) {
  static const char *const what[] = {"null", "a boolean", "an integer", "a number",
                                     "a string", "a list", "an object"};
  if (v == NULL) return kfi_fail(c, path, "missing (expected %s)", what[t]);
  if (v->t == t || (t == KF_NNUM && v->t == KF_NINT)) return KF_OK;
  return kfi_fail(c, path, "expected %s, got %s", what[t], what[v->t]);
}


/* Equality of two value trees whatever the order of their objects' keys
** (a table from Lua has none). */
int kfi_equal(const kf_node *a, const kf_node *b) {
  size_t i;
  if (a == NULL || b == NULL) return a == b;
  if (a->t != b->t) {
    if ((a->t == KF_NINT || a->t == KF_NNUM) && (b->t == KF_NINT || b->t == KF_NNUM))
      return (a->t == KF_NINT ? (double)a->u.i : a->u.d) ==
             (b->t == KF_NINT ? (double)b->u.i : b->u.d);
    return 0;
  }
  switch (a->t) {
    case KF_NNIL: return 1;
    case KF_NBOOL: return !a->u.b == !b->u.b;
    case KF_NINT: return a->u.i == b->u.i;
    case KF_NNUM: return a->u.d == b->u.d;
    case KF_NSTR: return a->u.s.n == b->u.s.n && memcmp(a->u.s.p, b->u.s.p, a->u.s.n) == 0;
    case KF_NARR:
      if (a->u.c.n != b->u.c.n) return 0;
      for (i = 0; i < a->u.c.n; i++)
        if (!kfi_equal(a->u.c.v[i], b->u.c.v[i])) return 0;
      return 1;
    default:
      if (a->u.c.n != b->u.c.n) return 0;
      for (i = 0; i < a->u.c.n; i++)
        if (!kfi_equal(a->u.c.v[i], kf_node_get(b, a->u.c.k[i]))) return 0;
      return 1;
  }
}

int kfi_container_row(const char *k) {
  size_t i;
  for (i = 0; i < kf_group_obj.n && i < KFI_GROUP_ROWS; i++) {
    const kf_field *f = &kf_group_obj.f[i];
    if (f->place == KF_M_CONTAINER && f->manifest && strcmp(f->manifest, "args") != 0 &&
        strcmp(f->manifest, k) == 0)
      return (int)i;
  }
  return -1;
}

kf_node *kfi_env_form(kfi *c, const kf_node *env, int *map) {
  kf_node *m;
  const char *prev = NULL;
  size_t i;
  *map = 0;
  for (i = 0; i < env->u.c.n; i++) {
    const kf_node *x = env->u.c.v[i];
    const char *n = kfi_str(kf_node_get(x, "name"));
    if (x->t != KF_NOBJ || x->u.c.n != 2 || n == NULL || !kfi_str(kf_node_get(x, "value")) ||
        (prev && strcmp(prev, n) >= 0))
      return (kf_node *)env;
    prev = n;
  }
  if ((m = kf_node_new(c->A, KF_NOBJ)) == NULL) return NULL;
  for (i = 0; i < env->u.c.n; i++)
    if (!kf_node_push(c->A, m, kfi_str(kf_node_get(env->u.c.v[i], "name")),
                      kf_node_get(env->u.c.v[i], "value")))
      return NULL;
  *map = 1;
  return m;
}

kf_status kfi_env_check(kfi *c, const char *path, const kf_node *env) {
  static const char at[] = ": x.env[";
  const kf_node *out;
  char p[KFI_PATH], problem[KF_ERRMAX], *end, *rest;
  long i;
  kf_err e;
  if (kf_env_tree.check(env, c->A, &out, "", "x.env", &e) == KF_OK) return KF_OK;
  if (e.code == KF_ENOMEM) return kf_nomem(c->e);
  /* ": x.env[N]<rest>: <problem>", N 1-based as a Lua list's */
  if (strncmp(e.msg, at, sizeof at - 1) != 0) return kfi_fail(c, path, "%s", e.msg + 2);
  i = strtol(e.msg + sizeof at - 1, &end, 10);
  if (*end != ']' || i < 1 || (rest = strstr(end, ": ")) == NULL)
    return kfi_fail(c, path, "%s", e.msg + 2);
  *rest = '\0';
  kfi_index(p, path, (size_t)(i - 1));
  kfi_problem0(problem, sizeof problem, rest + 2);
  return kfi_fail(c, "", "%s%s: %s", p, end + 1, problem);
}

kf_status kfi_strings(kfi *c, const char *path, const kf_node *l) {
  char p[KFI_PATH];
  size_t i;
  kf_status st;
  if ((st = kfi_want(c, path, l, KF_NARR)) != KF_OK) return st;
  for (i = 0; i < l->u.c.n; i++) {
    kfi_index(p, path, i);
    if ((st = kfi_want(c, p, l->u.c.v[i], KF_NSTR)) != KF_OK) return st;
  }
  return KF_OK;
}

/* spec.nprocPerNode, a string in the CRD (pytorchjob_types.go): digits
** are nproc_per_node's integer, a word itself; "auto", the operator's
** default (pytorch_defaults.go), leaves it unset. */
kf_status kfi_nproc(kfi *c, const char *path, const kf_node *v) {
  const char *s = kfi_str(v);
  char *end;
  long n;
  kf_node *x;
  if (s == NULL) return kfi_fail(c, path, "expected a string (an integer, auto, cpu or gpu)");
  if (strcmp(s, "auto") == 0 && c->kind == KF_PYTORCH) return KF_OK;
  if (!(*s >= '0' && *s <= '9') && strcmp(s, "auto") != 0 && strcmp(s, "cpu") != 0 &&
      strcmp(s, "gpu") != 0)
    return kfi_fail(c, path, "'%.40s': expected an integer >= 1, auto, cpu or gpu", s);
  n = strtol(s, &end, 10);
  if (*s >= '0' && *s <= '9' && *end == '\0') {
    if (n < 1 || n > INT32_MAX) return kfi_fail(c, path, "'%.40s': expected an integer >= 1", s);
    KF_OOM(c, x = kf_node_new(c->A, KF_NINT));
    x->u.i = n;
    v = x;
  }
  KF_OOM(c, kf_node_put(c->A, c->spec, "nproc_per_node", (kf_node *)v));
  return KF_OK;
}

int kfi_tas_key(const char *k) {
  size_t i;
  for (i = 0; i < kf_topology_obj.n; i++)
    if (kf_topology_obj.f[i].manifest && strcmp(kf_topology_obj.f[i].manifest, k) == 0) return 1;
  return 0;
}

const kf_node *kfi_unmapped_under(const kfi *c, const char *prefix) {
  size_t i, n = strlen(prefix);
  for (i = 0; c->unmapped && i < c->unmapped->u.c.n; i++) {
    const char *at = kfi_str(kf_node_get(c->unmapped->u.c.v[i], "path"));
    if (at && strncmp(at, prefix, n) == 0 && (at[n] == '.' || at[n] == '[')) return c->unmapped->u.c.v[i];
  }
  return NULL;
}

/*
** diff.c - `kfjob diff`: compare two renders job by job and print each
** path whose value differs; exit 0 when they are the same, 1 when not.
** Two TaskSpecs (bytes or JSON, read whole by the host) are compared
** whole, and the parts that differ are named first.  Lists Kubernetes
** merges by key are compared element by element by that key, and
** quantities by value, so the paths printed are the changes that mean
** something (the notation: `kfjob diff --help`).
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

/* One comparison: the path of the value at hand and whether the
** differences are printed (a first pass only counts them). */
typedef struct dctx {
  char path[4096];
  int print;
} dctx;

static void put_value(json_t *v) {
  char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  if (s == NULL) cli_die_oom();
  if (strlen(s) > 200) printf("%.197s...", s);
  else fputs(s, stdout);
  free(s);
}

/* "    PATH: A -> B", an absent side (NULL) as "(absent)".  Returns 1. */
static size_t report(dctx *c, size_t plen, json_t *a, json_t *b) {
  if (!c->print) return 1;
  printf("    %s: ", plen ? c->path : "(document)");
  if (a) put_value(a);
  else fputs("(absent)", stdout);
  fputs(" -> ", stdout);
  if (b) put_value(b);
  else fputs("(absent)", stdout);
  putchar('\n');
  return 1;
}

static int key_is_plain(const char *k) {
  if (*k == '\0') return 0;
  for (; *k; k++)
    if (!(isalnum((unsigned char)*k) || *k == '_' || *k == '-')) return 0;
  return 1;
}

/* path + ".k" (or ["k"]) or "[label]"; returns the new length. */
static size_t path_add(dctx *c, size_t plen, const char *k, const char *label) {
  if (label) snprintf(c->path + plen, sizeof c->path - plen, "[%s]", label);
  else if (key_is_plain(k)) snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "", k);
  else snprintf(c->path + plen, sizeof c->path - plen, "[\"%s\"]", k);
  return strlen(c->path);
}

static int numbers_equal(json_t *a, json_t *b) {
  return json_is_number(a) && json_is_number(b) &&
         json_number_value(a) == json_number_value(b);
}

/* ---- quantities: "1Gi" is 1073741824, "500m" is 0.5, "2" is 2 -------- */

static int in_list(const char *s, const char *const *l) {
  for (; s && *l; l++)
    if (strcmp(s, *l) == 0) return 1;
  return 0;
}

/* A ResourceList's values (core/v1 ResourceRequirements, PodSpec.overhead,
** the operators' SchedulingPolicy.minResources) are quantities; so is
** EmptyDirVolumeSource.sizeLimit, and a Flyte resource entry's value
** (flyteidl core/tasks.proto Resources.ResourceEntry). */
static const char *const qty_maps[] = {"limits", "requests", "overhead", "minResources", NULL};
static const char *const qty_keys[] = {"sizeLimit", NULL};

static int child_is_qty(const char *key, const char *list, const char *k) {
  return in_list(key, qty_maps) || in_list(k, qty_keys) ||
         (in_list(list, qty_maps) && strcmp(k, "value") == 0);
}

/* A quantity as text, or NULL (a negative number, a non-quantity). */
static const char *qty_text(json_t *v, char *buf, size_t cap) {
  if (json_is_string(v)) return json_string_value(v);
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
    return buf;
  }
  if (json_is_real(v) && json_real_value(v) >= 0) {
    snprintf(buf, cap, "%.17g", json_real_value(v));
    return buf;
  }
  return NULL;
}

/* a == b as quantities: a + b and a + a are then the same text, both in
** the first non-zero one's format (kfjob_quantity_add's canonical form,
** resource.Quantity's). */
static int quantities_equal(json_t *a, json_t *b) {
  char ba[64], bb[64], ab[96], aa[96];
  const char *x = qty_text(a, ba, sizeof ba), *y = qty_text(b, bb, sizeof bb);
  return x && y && kfjob_quantity_add(x, y, ab, sizeof ab) == KFJOB_OK &&
         kfjob_quantity_add(x, x, aa, sizeof aa) == KFJOB_OK && strcmp(ab, aa) == 0;
}

/* ---- lists Kubernetes merges by key ---------------------------------- */

/* By the key a list sits under: the element's key (patchMergeKey in
** k8s.io/api core/v1 types.go, x-kubernetes-list-map-keys in the CRDs of
** schema/crds), a second key of a pair with its default (ContainerPort's
** protocol, "TCP"), and whether the order means something: init
** containers run in order, an env entry's $(VAR) sees only the entries
** before it, a JobSet's InOrder startup follows replicatedJobs. */
static const struct mkey {
  const char *list, *key, *key2, *dflt2;
  int ordered;
} mkeys[] = {
    {"containers", "name", NULL, NULL, 0}, {"initContainers", "name", NULL, NULL, 1},
    {"ephemeralContainers", "name", NULL, NULL, 0}, {"env", "name", NULL, NULL, 1},
    {"volumes", "name", NULL, NULL, 0}, {"volumeMounts", "mountPath", NULL, NULL, 0},
    {"volumeMounts", "name", NULL, NULL, 0},   /* a TrainJob's runtimePatches */
    {"volumeDevices", "devicePath", NULL, NULL, 0},
    {"ports", "containerPort", "protocol", "TCP", 0},
    {"imagePullSecrets", "name", NULL, NULL, 0}, {"hostAliases", "ip", NULL, NULL, 0},
    {"resourceClaims", "name", NULL, NULL, 0}, {"schedulingGates", "name", NULL, NULL, 0},
    {"claims", "name", NULL, NULL, 0},
    {"topologySpreadConstraints", "topologyKey", "whenUnsatisfiable", NULL, 0},
    {"replicatedJobs", "name", NULL, NULL, 1}, {"dependsOn", "name", NULL, NULL, 0},
    {"runtimePatches", "manager", NULL, NULL, 0}, {"targets", "jobName", NULL, NULL, 0},
    {"limits", "name", NULL, NULL, 0}, {"requests", "name", NULL, NULL, 0},  /* Flyte's */
};
#define NMKEYS (sizeof mkeys / sizeof *mkeys)

/* "k=v" of one key of an element, appended to out; 0 when the value is
** not a string or an integer.  Values other than [A-Za-z0-9._/:-]+ are
** quoted as JSON. */
static int label_add(char *out, size_t cap, const char *k, json_t *v) {
  size_t n = strlen(out);
  const char *s = json_string_value(v), *q;
  int plain = s && *s;
  if (json_is_integer(v)) {
    snprintf(out + n, cap - n, "%s%s=%lld", n ? "," : "", k, (long long)json_integer_value(v));
    return 1;
  }
  if (s == NULL) return 0;
  for (q = s; *q && plain; q++)
    plain = isalnum((unsigned char)*q) || strchr("._/:-", *q) != NULL;
  if (plain) {
    snprintf(out + n, cap - n, "%s%s=%s", n ? "," : "", k, s);
  } else {
    char *j = json_dumps(v, JSON_ENCODE_ANY);
    if (j == NULL) cli_die_oom();
    snprintf(out + n, cap - n, "%s%s=%s", n ? "," : "", k, j);
    free(j);
  }
  return 1;
}

/* An element's label ("name=pytorch", "containerPort=53,protocol=UDP"),
** malloc'd, or NULL when the element has no usable key. */
static char *label_of(json_t *e, const struct mkey *m) {
  char buf[600] = "";
  json_t *k2 = m->key2 ? json_object_get(e, m->key2) : NULL;
  if (!json_is_object(e) || !label_add(buf, sizeof buf, m->key, json_object_get(e, m->key)))
    return NULL;
  if (k2 && !(m->dflt2 && json_is_string(k2) && strcmp(json_string_value(k2), m->dflt2) == 0) &&
      !label_add(buf, sizeof buf, m->key2, k2))
    return NULL;
  return cli_xstrdup(buf);
}

/* The labels of an array's elements (l, in order; by, sorted). */
typedef struct lab {
  char *s;
  size_t i;
} lab;
typedef struct lablist {
  lab *by;
  char **l;
  size_t n;
} lablist;

static int cmp_lab(const void *a, const void *b) {
  return strcmp(((const lab *)a)->s, ((const lab *)b)->s);
}

static void labs_free(lablist *L) {
  size_t i;
  for (i = 0; L->l && i < L->n; i++) free(L->l[i]);
  free(L->l);
  free(L->by);
}

/* 1, or 0 when an element has no label or two share one (the list is
** then compared by index). */
static int labs_make(lablist *L, json_t *arr, const struct mkey *m) {
  size_t i, n = json_array_size(arr);
  L->n = 0;
  L->l = (char **)cli_xmalloc((n ? n : 1) * sizeof *L->l);
  L->by = (lab *)cli_xmalloc((n ? n : 1) * sizeof *L->by);
  for (i = 0; i < n; i++, L->n++) {
    if ((L->l[i] = label_of(json_array_get(arr, i), m)) == NULL) break;
    L->by[i].s = L->l[i], L->by[i].i = i;
  }
  if (L->n == n) {
    qsort(L->by, n, sizeof *L->by, cmp_lab);
    for (i = 1; i < n; i++)
      if (strcmp(L->by[i - 1].s, L->by[i].s) == 0) break;
    if (i >= n || n < 2) return 1;
  }
  labs_free(L);
  return 0;
}

/* The position of the element labelled s, or L->n. */
static size_t labs_find(const lablist *L, const char *s) {
  lab key, *f;
  key.s = (char *)s;
  f = (lab *)bsearch(&key, L->by, L->n, sizeof *L->by, cmp_lab);
  return f ? f->i : L->n;
}

/* The labels both lists have, in x's order (a JSON array). */
static json_t *common_order(const lablist *x, const lablist *y) {
  json_t *v = json_array();
  size_t i;
  for (i = 0; i < x->n; i++)
    if (labs_find(y, x->l[i]) < y->n) json_array_append_new(v, json_string(x->l[i]));
  return v;
}

/* "PATH (order): [...] -> [...]" when the shared elements of an ordered
** list come in another order. */
static size_t diff_order(dctx *c, const lablist *la, const lablist *lb, size_t plen) {
  json_t *x = common_order(la, lb), *y = common_order(lb, la);
  size_t n = 0;
  if (!json_equal(x, y)) {
    snprintf(c->path + plen, sizeof c->path - plen, " (order)");
    n = report(c, strlen(c->path), x, y);
    c->path[plen] = '\0';
  }
  json_decref(x);
  json_decref(y);
  return n;
}

static size_t diff_values(dctx *c, json_t *a, json_t *b, size_t plen, const char *key,
                          const char *list, int qty);

/* Two lists merged by key m compared element by element, by label;
** (size_t)-1 when either cannot be. */
static size_t diff_keyed(dctx *c, json_t *a, json_t *b, size_t plen, const char *key,
                         const struct mkey *m) {
  lablist la, lb;
  size_t i, j, n = 0;
  if (!labs_make(&la, a, m)) return (size_t)-1;
  if (!labs_make(&lb, b, m)) {
    labs_free(&la);
    return (size_t)-1;
  }
  for (i = 0; i < la.n; i++) {
    size_t len = path_add(c, plen, NULL, la.l[i]);
    j = labs_find(&lb, la.l[i]);
    if (j == lb.n) n += report(c, len, json_array_get(a, i), NULL);
    else n += diff_values(c, json_array_get(a, i), json_array_get(b, j), len, NULL, key, 0);
  }
  for (j = 0; j < lb.n; j++)
    if (labs_find(&la, lb.l[j]) == la.n)
      n += report(c, path_add(c, plen, NULL, lb.l[j]), NULL, json_array_get(b, j));
  c->path[plen] = '\0';
  if (m->ordered) n += diff_order(c, &la, &lb, plen);
  labs_free(&la);
  labs_free(&lb);
  return n;
}

/* Print (c->print) the paths where a and b differ; returns how many.  key:
** the key a and b sit under (NULL in a list), list: the key of the list
** they are elements of, qty: they are quantities. */
static size_t diff_values(dctx *c, json_t *a, json_t *b, size_t plen, const char *key,
                          const char *list, int qty) {
  size_t n = 0, i, na, nb;
  const char *k;
  json_t *x;
  if (json_is_object(a) && json_is_object(b)) {
    json_object_foreach(a, k, x) {
      json_t *y = json_object_get(b, k);
      size_t len = path_add(c, plen, k, NULL);
      if (y == NULL) n += report(c, len, x, NULL);
      else n += diff_values(c, x, y, len, k, NULL, child_is_qty(key, list, k));
    }
    json_object_foreach(b, k, x)
      if (json_object_get(a, k) == NULL) n += report(c, path_add(c, plen, k, NULL), NULL, x);
    c->path[plen] = '\0';
    return n;
  }
  if (json_is_array(a) && json_is_array(b)) {
    for (i = 0; i < NMKEYS; i++)
      if (key && strcmp(mkeys[i].list, key) == 0 &&
          (n = diff_keyed(c, a, b, plen, key, &mkeys[i])) != (size_t)-1)
        return n;
    n = 0;
    na = json_array_size(a), nb = json_array_size(b);
    for (i = 0; i < na || i < nb; i++) {
      char idx[32];
      size_t len;
      snprintf(idx, sizeof idx, "%zu", i);
      len = path_add(c, plen, NULL, idx);
      if (i >= nb) n += report(c, len, json_array_get(a, i), NULL);
      else if (i >= na) n += report(c, len, NULL, json_array_get(b, i));
      else n += diff_values(c, json_array_get(a, i), json_array_get(b, i), len, NULL, key, 0);
    }
    c->path[plen] = '\0';
    return n;
  }
  if (json_equal(a, b) || numbers_equal(a, b) || (qty && quantities_equal(a, b))) return 0;
  return report(c, plen, a, b);
}

/* ---- TaskSpecs: which part of the registrable task differs ----------- */

/* The parts, in the order they are named; a template key not listed
** here is "other" (the last). */
static const char *const ts_part_names[] = {"interface", "metadata", "container",
                                            "pod", "config", "job", "id", "other"};
static const struct { const char *key; int part; } ts_keys[] = {
    {"interface", 0}, {"metadata", 1}, {"container", 2}, {"k8sPod", 3},
    {"config", 4}, {"type", 5}, {"taskTypeVersion", 5}, {"custom", 5}, {"id", 6}};
#define TS_NPARTS (sizeof ts_part_names / sizeof *ts_part_names)

static int is_taskspec(json_t *v) {
  return json_is_object(json_object_get(v, "template")) &&
         json_object_get(v, "custom") == NULL && json_object_get(v, "name") == NULL;
}

static int ts_part_of(const char *key) {
  size_t i;
  for (i = 0; i < sizeof ts_keys / sizeof *ts_keys; i++)
    if (strcmp(ts_keys[i].key, key) == 0) return ts_keys[i].part;
  return (int)TS_NPARTS - 1;
}

/* Marks part `part` when key k of a and of b differ in meaning (absent
** on one side included). */
static void ts_mark(dctx *c, json_t *a, json_t *b, int by_key, int part, int *differs) {
  const char *k;
  json_t *x;
  json_t *sides[2] = {a, b};
  int s;
  for (s = 0; s < 2; s++)
    json_object_foreach(sides[s], k, x) {
      json_t *ak = json_object_get(a, k), *bk = json_object_get(b, k);
      if (!by_key && strcmp(k, "template") == 0) continue;
      c->path[0] = '\0';
      if (ak == NULL || bk == NULL || diff_values(c, ak, bk, 0, k, NULL, 0))
        differs[by_key ? ts_part_of(k) : part] = 1;
    }
}

/* "    TaskSpec parts that differ: metadata, container". */
static void ts_print_parts(dctx *c, json_t *a, json_t *b) {
  int differs[TS_NPARTS] = {0};
  size_t i, n = 0;
  c->print = 0;
  ts_mark(c, json_object_get(a, "template"), json_object_get(b, "template"), 1, 0, differs);
  ts_mark(c, a, b, 0, (int)TS_NPARTS - 1, differs);   /* description, ... */
  fputs("    TaskSpec parts that differ:", stdout);
  for (i = 0; i < TS_NPARTS; i++)
    if (differs[i]) printf("%s %s", n++ ? "," : "", ts_part_names[i]);
  putchar('\n');
}

static doc *docs_find(docs *d, const char *name, size_t *from) {
  size_t i;
  for (i = 0; i < d->n; i++)
    if (d->v[i].name && strcmp(d->v[i].name, name) == 0) {
      if (from) *from = i;
      return &d->v[i];
    }
  return NULL;
}

int cli_cmd_diff(const opts *o) {
  kfjob_host *h = cli_make_host(o);
  docs a, b;
  size_t i, changed = 0, only_a = 0, only_b = 0;
  int code;
  dctx c;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  code = cli_load_side(h, o, o->pos[0], &a);
  if (code == 0) code = cli_load_side(h, o, o->pos[1], &b);
  if (code != 0) {
    cli_docs_free(&a);
    cli_docs_free(&b);
    kfjob_host_free(h);
    return code == EXIT_INVALID ? EXIT_USAGE : code;  /* 1 means "different" */
  }
  /* two single documents without names of their own: compare them */
  if (a.n == 1 && b.n == 1 && (a.v[0].anon || b.v[0].anon)) {
    free(b.v[0].name);
    b.v[0].name = cli_xstrdup(a.v[0].name);
  }
  for (i = 0; i < a.n; i++) {
    size_t k;
    doc *other = docs_find(&b, a.v[i].name, &k);
    if (docs_find(&a, a.v[i].name, NULL) != &a.v[i]) continue;  /* repeated */
    if (other == NULL) {
      printf("- %s: only in %s\n", a.v[i].name, o->pos[0]);
      only_a++;
      continue;
    }
    /* a first pass counts: spellings of one value, or lists in another
    ** order where it means nothing, are not a change */
    c.path[0] = '\0';
    c.print = 0;
    if (!json_equal(a.v[i].v, other->v) && diff_values(&c, a.v[i].v, other->v, 0, NULL, NULL, 0)) {
      printf("~ %s:\n", a.v[i].name);
      if (is_taskspec(a.v[i].v) && is_taskspec(other->v)) ts_print_parts(&c, a.v[i].v, other->v);
      c.path[0] = '\0';
      c.print = 1;
      diff_values(&c, a.v[i].v, other->v, 0, NULL, NULL, 0);
      changed++;
    }
  }
  for (i = 0; i < b.n; i++) {
    if (docs_find(&b, b.v[i].name, NULL) != &b.v[i]) continue;
    if (docs_find(&a, b.v[i].name, NULL) == NULL) {
      printf("+ %s: only in %s\n", b.v[i].name, o->pos[1]);
      only_b++;
    }
  }
  if (changed || only_a || only_b)
    printf("%zu changed, %zu only in %s, %zu only in %s\n", changed, only_a,
           o->pos[0], only_b, o->pos[1]);
  cli_docs_free(&a);
  cli_docs_free(&b);
  kfjob_host_free(h);
  if (fflush(stdout) != 0) return cli_errorf(EXIT_USAGE, "cannot write to stdout");
  return (changed || only_a || only_b) ? EXIT_INVALID : 0;
}

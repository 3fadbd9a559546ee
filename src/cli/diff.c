/*
** diff.c - `kfjob diff`: compare two renders job by job and print each
** path whose value differs; exit 0 when they are the same, 1 when not.
** Two TaskSpecs (bytes or JSON, read whole by the host) are compared
** whole, and the parts that differ are named first.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static void put_value(json_t *v) {
  char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  if (s == NULL) cli_die_oom();
  if (strlen(s) > 200) printf("%.197s...", s);
  else fputs(s, stdout);
  free(s);
}

static int key_is_plain(const char *k) {
  if (*k == '\0') return 0;
  for (; *k; k++)
    if (!(isalnum((unsigned char)*k) || *k == '_' || *k == '-')) return 0;
  return 1;
}

static int numbers_equal(json_t *a, json_t *b) {
  return json_is_number(a) && json_is_number(b) &&
         json_number_value(a) == json_number_value(b);
}

/* Print the paths where a and b differ; returns how many. */
static size_t diff_values(json_t *a, json_t *b, char *path, size_t plen, size_t cap) {
  size_t n = 0;
  if (json_is_object(a) && json_is_object(b)) {
    const char *k;
    json_t *x;
    json_object_foreach(a, k, x) {
      json_t *y = json_object_get(b, k);
      snprintf(path + plen, cap - plen, key_is_plain(k) ? "%s%s" : "%s[\"%s\"]",
               key_is_plain(k) && plen ? "." : "", k);
      if (y == NULL) {
        printf("    %s: ", path);
        put_value(x);
        puts(" -> (absent)");
        n++;
      } else {
        n += diff_values(x, y, path, strlen(path), cap);
      }
    }
    json_object_foreach(b, k, x) {
      if (json_object_get(a, k)) continue;
      snprintf(path + plen, cap - plen, key_is_plain(k) ? "%s%s" : "%s[\"%s\"]",
               key_is_plain(k) && plen ? "." : "", k);
      printf("    %s: (absent) -> ", path);
      put_value(x);
      putchar('\n');
      n++;
    }
    path[plen] = '\0';
    return n;
  }
  if (json_is_array(a) && json_is_array(b)) {
    size_t i, na = json_array_size(a), nb = json_array_size(b);
    for (i = 0; i < na || i < nb; i++) {
      snprintf(path + plen, cap - plen, "[%zu]", i);
      if (i >= nb) {
        printf("    %s: ", path);
        put_value(json_array_get(a, i));
        puts(" -> (absent)");
        n++;
      } else if (i >= na) {
        printf("    %s: (absent) -> ", path);
        put_value(json_array_get(b, i));
        putchar('\n');
        n++;
      } else {
        n += diff_values(json_array_get(a, i), json_array_get(b, i), path, strlen(path), cap);
      }
    }
    path[plen] = '\0';
    return n;
  }
  if (json_equal(a, b) || numbers_equal(a, b)) return 0;
  printf("    %s: ", plen ? path : "(document)");
  put_value(a);
  fputs(" -> ", stdout);
  put_value(b);
  putchar('\n');
  return 1;
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

/* Marks part `part` when key k of a and of b differ (absent on one side
** included). */
static void ts_mark(json_t *a, json_t *b, int by_key, int part, int *differs) {
  const char *k;
  json_t *x;
  json_t *sides[2] = {a, b};
  int s;
  for (s = 0; s < 2; s++)
    json_object_foreach(sides[s], k, x) {
      if (!by_key && strcmp(k, "template") == 0) continue;
      if (!json_equal(json_object_get(a, k), json_object_get(b, k)))
        differs[by_key ? ts_part_of(k) : part] = 1;
    }
}

/* "    TaskSpec parts that differ: metadata, container". */
static void ts_print_parts(json_t *a, json_t *b) {
  int differs[TS_NPARTS] = {0};
  size_t i, n = 0;
  ts_mark(json_object_get(a, "template"), json_object_get(b, "template"), 1, 0, differs);
  ts_mark(a, b, 0, (int)TS_NPARTS - 1, differs);   /* description, ... */
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
  char path[4096];
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
    path[0] = '\0';
    if (!json_equal(a.v[i].v, other->v)) {
      size_t n;
      printf("~ %s:\n", a.v[i].name);
      if (is_taskspec(a.v[i].v) && is_taskspec(other->v)) ts_print_parts(a.v[i].v, other->v);
      n = diff_values(a.v[i].v, other->v, path, 0, sizeof path);
      if (n == 0) puts("    (numbers written differently)");
      else changed++;
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

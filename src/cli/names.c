/*
** names.c - distinct names for the jobs of one convert: two documents of
** one name (in two namespaces, of two kinds, or twice) are two objects to
** Kubernetes, so neither may take the other's file under -o DIR or key in
** a config.  A name is kept where it is unique; the ones that collide
** take, in turn, their namespace ("ml.bert"), their kind in lower case
** ("ml.pytorchjob.bert") and their document's number ("...bert.2"; a
** List's item: ".2.1") until none does.  Deterministic: the same input
** gives the same names.
*/
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct cand {
  char *key;
  size_t i;
} cand;

static int by_key(const void *a, const void *b) {
  const cand *x = (const cand *)a, *y = (const cand *)b;
  int r = strcmp(x->key, y->key);
  return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* The name of v at `level` (0: its own), malloc'd. */
static char *at_level(const cli_named *v, int level) {
  char *kind, *s, *p;
  if (level == 0 || (level == 1 && v->ns == NULL)) return cli_xstrdup(v->name);
  if (level == 1) return cli_xprintf("%s.%s", v->ns, v->name);
  kind = cli_xstrdup(v->kind && v->kind[0] ? v->kind : "document");
  for (p = kind; *p; p++)
    if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
  s = cli_xprintf("%s%s%s.%s", v->ns ? v->ns : "", v->ns ? "." : "", kind, v->name);
  free(kind);
  if (level == 3) {
    char *t = v->item ? cli_xprintf("%s.%zu.%zu", s, v->doc, v->item)
                      : cli_xprintf("%s.%zu", s, v->doc);
    free(s);
    s = t;
  }
  return s;
}

/* One round: the keys at each entry's level, sorted; every entry of a key
** two share goes a level up.  Returns 1 when some did (another round),
** 0 when all are distinct, -1 when entries at the last level collide. */
static int round_of(const cli_named *v, size_t n, int *level, cand *c) {
  size_t i, j;
  int more = 0;
  for (i = 0; i < n; i++) c[i].key = at_level(&v[i], level[i]), c[i].i = i;
  qsort(c, n, sizeof *c, by_key);
  for (i = 0; i < n; i = j) {
    for (j = i + 1; j < n && strcmp(c[i].key, c[j].key) == 0; j++) {}
    if (j - i > 1) {
      size_t k;
      int up = 0;
      for (k = i; k < j; k++)
        if (level[c[k].i] < 3) level[c[k].i]++, up = 1;
      if (up) more = 1;
      else if (more == 0) more = -1;
    }
  }
  for (i = 0; i < n; i++) free(c[i].key);
  return more;
}

char **cli_unique_names(const cli_named *v, size_t n) {
  int *level = (int *)cli_xmalloc((n ? n : 1) * sizeof *level), r;
  cand *c = (cand *)cli_xmalloc((n ? n : 1) * sizeof *c);
  char **out = NULL;
  size_t i;
  for (i = 0; i < n; i++) level[i] = 0;
  while ((r = round_of(v, n, level, c)) > 0) {}
  if (r == 0) {
    out = (char **)cli_xmalloc((n ? n : 1) * sizeof *out);
    for (i = 0; i < n; i++) out[i] = at_level(&v[i], level[i]);
  }
  free(c);
  free(level);
  return out;
}

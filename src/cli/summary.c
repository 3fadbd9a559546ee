/*
** summary.c - the resource table of `kfjob check` and `render --summary`:
** one row per job (pods per group, GPUs, CPU and memory requested and
** limited, from kfjob_job::resources) and a totals row, summed exactly
** with kfjob_quantity_add; as text or as one JSON document.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { Q_GPU, Q_CPU_REQ, Q_CPU_LIM, Q_MEM_REQ, Q_MEM_LIM, Q_N };
static const char *const q_head[Q_N] = {"GPU", "CPU REQ", "CPU LIM", "MEM REQ", "MEM LIM"};
static const char *const q_json[Q_N] = {"gpu", "cpuRequest", "cpuLimit",
                                        "memoryRequest", "memoryLimit"};

typedef struct row {
  char *name, *kind, *pods, *q[Q_N];
  json_t *groups;                 /* {"Worker": 8, ...} */
  json_t *warnings;               /* [{"path", "message"}] */
  long long npods;
  char *error;                    /* invalid job */
  int known;                      /* resources known */
} row;

struct summary {
  row *v;
  size_t n, cap;
  long long pods;
  char total[Q_N][96];
  size_t unknown, invalid, overflow;
};

summary *cli_summary_new(void) {
  summary *s = (summary *)cli_xmalloc(sizeof *s);
  int k;
  memset(s, 0, sizeof *s);
  for (k = 0; k < Q_N; k++) strcpy(s->total[k], "0");
  return s;
}

void cli_summary_add(summary *s, const kfjob_job *j) {
  const kfjob_resources *r = j->resources;
  row *w;
  size_t i;
  if (s->n == s->cap) s->v = (row *)cli_xrealloc(s->v, (s->cap = s->cap ? s->cap * 2 : 16) * sizeof *s->v);
  w = &s->v[s->n++];
  memset(w, 0, sizeof *w);
  w->name = cli_xstrdup(j->name);
  w->kind = cli_xstrdup(j->kind ? j->kind : "?");
  w->warnings = json_array();
  for (i = 0; i < j->nwarnings; i++) {
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(j->warnings[i].path));
    json_object_set_new(o, "message", json_string(j->warnings[i].message));
    json_array_append_new(w->warnings, o);
  }
  if (j->error) {
    w->error = cli_xstrdup(j->error);
    s->invalid++;
    return;
  }
  if (r == NULL) {
    s->unknown++;
    return;
  }
  w->known = 1;
  w->npods = r->pods;
  w->groups = json_object();
  {
    size_t len = 1;
    char *p;
    for (i = 0; i < r->ngroups; i++) len += strlen(r->groups[i].role) + 24;
    p = w->pods = (char *)cli_xmalloc(len + 24);
    p += sprintf(p, "%lld", r->pods);
    for (i = 0; i < r->ngroups; i++) {
      p += sprintf(p, "%s%s %lld", i ? ", " : " (", r->groups[i].role, r->groups[i].replicas);
      json_object_set_new(w->groups, r->groups[i].role, json_integer(r->groups[i].replicas));
    }
    if (r->ngroups) strcpy(p, ")");
  }
  {
    const char *q[Q_N];
    int k;
    q[Q_GPU] = r->gpu, q[Q_CPU_REQ] = r->cpu_request, q[Q_CPU_LIM] = r->cpu_limit;
    q[Q_MEM_REQ] = r->memory_request, q[Q_MEM_LIM] = r->memory_limit;
    for (k = 0; k < Q_N; k++) {
      char sum[96];
      w->q[k] = cli_xstrdup(q[k]);
      if (kfjob_quantity_add(s->total[k], q[k], sum, sizeof sum) == KFJOB_OK)
        strcpy(s->total[k], sum);
      else
        s->overflow++;
    }
  }
  s->pods += r->pods;
}

static const char *cell(const row *w, int col) {
  if (w->error) return col == 0 ? "invalid" : "-";
  if (!w->known) return "?";
  return col == 0 ? w->pods : w->q[col - 1];
}

void cli_summary_print(const summary *s, FILE *f) {
  /* columns: NAME KIND PODS then the quantities */
  size_t wn = 4, wk = 4, wc[1 + Q_N], i;
  int k;
  char totname[48], totpods[32];
  snprintf(totname, sizeof totname, "TOTAL (%zu job%s)", s->n, s->n == 1 ? "" : "s");
  snprintf(totpods, sizeof totpods, "%lld", s->pods);
  wc[0] = 4;
  for (k = 0; k < Q_N; k++) wc[1 + k] = strlen(q_head[k]);
  if (strlen(totname) > wn) wn = strlen(totname);
  if (strlen(totpods) > wc[0]) wc[0] = strlen(totpods);
  for (k = 0; k < Q_N; k++)
    if (strlen(s->total[k]) > wc[1 + k]) wc[1 + k] = strlen(s->total[k]);
  for (i = 0; i < s->n; i++) {
    const row *w = &s->v[i];
    if (strlen(w->name) > wn) wn = strlen(w->name);
    if (strlen(w->kind) > wk) wk = strlen(w->kind);
    for (k = 0; k <= Q_N; k++)
      if (strlen(cell(w, k)) > wc[k]) wc[k] = strlen(cell(w, k));
  }
  fprintf(f, "%-*s  %-*s  %-*s", (int)wn, "NAME", (int)wk, "KIND", (int)wc[0], "PODS");
  for (k = 0; k < Q_N; k++) fprintf(f, "  %*s", (int)wc[1 + k], q_head[k]);
  fputc('\n', f);
  for (i = 0; i < s->n; i++) {
    const row *w = &s->v[i];
    fprintf(f, "%-*s  %-*s  %-*s", (int)wn, w->name, (int)wk, w->kind, (int)wc[0], cell(w, 0));
    for (k = 0; k < Q_N; k++) fprintf(f, "  %*s", (int)wc[1 + k], cell(w, 1 + k));
    fputc('\n', f);
  }
  fprintf(f, "%-*s  %-*s  %-*s", (int)wn, totname, (int)wk, "", (int)wc[0], totpods);
  for (k = 0; k < Q_N; k++) fprintf(f, "  %*s", (int)wc[1 + k], s->total[k]);
  fputc('\n', f);
  if (s->invalid)
    fprintf(f, "(the total leaves out %zu invalid job%s)\n", s->invalid,
            s->invalid == 1 ? "" : "s");
  if (s->unknown)
    fprintf(f, "(the total leaves out %zu job%s whose manifest cannot be made: "
            "render -f manifest says why)\n", s->unknown, s->unknown == 1 ? "" : "s");
  if (s->overflow) fprintf(f, "(some sums were too large to add)\n");
}

json_t *cli_summary_json(const summary *s) {
  json_t *doc = json_object(), *jobs = json_array(), *tot = json_object();
  size_t i;
  int k;
  for (i = 0; i < s->n; i++) {
    const row *w = &s->v[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(w->name));
    json_object_set_new(o, "kind", json_string(w->kind));
    json_object_set_new(o, "valid", json_boolean(w->error == NULL));
    if (w->error) json_object_set_new(o, "error", json_string(w->error));
    json_object_set(o, "warnings", w->warnings);
    if (w->known) {
      json_object_set_new(o, "pods", json_integer(w->npods));
      json_object_set(o, "groups", w->groups);
      for (k = 0; k < Q_N; k++) json_object_set_new(o, q_json[k], json_string(w->q[k]));
    }
    json_array_append_new(jobs, o);
  }
  json_object_set_new(tot, "jobs", json_integer((json_int_t)s->n));
  json_object_set_new(tot, "pods", json_integer(s->pods));
  for (k = 0; k < Q_N; k++) json_object_set_new(tot, q_json[k], json_string(s->total[k]));
  json_object_set_new(doc, "jobs", jobs);
  json_object_set_new(doc, "total", tot);
  return doc;
}

void cli_summary_free(summary *s) {
  size_t i;
  int k;
  if (s == NULL) return;
  for (i = 0; i < s->n; i++) {
    row *w = &s->v[i];
    free(w->name), free(w->kind), free(w->pods), free(w->error);
    for (k = 0; k < Q_N; k++) free(w->q[k]);
    json_decref(w->groups);
    json_decref(w->warnings);
  }
  free(s->v);
  free(s);
}

/*
** summary.c - the resource table of `kfjob check` and `render --summary`:
** one row per job (pods per group and, for a job with scheduling, its
** gang; GPUs, CPU and memory requested and limited, from
** kfjob_job::resources) and a totals row, summed exactly
** with kfjob_quantity_add.  Memory stays bounded however long the sweep:
** the text table keeps its first SUMMARY_ROWS rows (to align the columns)
** and counts the rest; the JSON document is written as the jobs come.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SUMMARY_ROWS 10000

enum { Q_GPU, Q_CPU_REQ, Q_CPU_LIM, Q_MEM_REQ, Q_MEM_LIM, Q_N };
static const char *const q_head[Q_N] = {"GPU", "CPU REQ", "CPU LIM", "MEM REQ", "MEM LIM"};
static const char *const q_json[Q_N] = {"gpu", "cpuRequest", "cpuLimit",
                                        "memoryRequest", "memoryLimit"};

typedef struct row {
  char *name, *kind, *pods, *q[Q_N];
  int invalid, known;            /* a failed job; resources known */
  int gang;                      /* the pods cell ends with its gang */
} row;

struct summary {
  FILE *out;
  int json;                      /* write the JSON document as jobs come */
  row *v;
  size_t n, cap, hidden, jobs;
  long long pods;
  char total[Q_N][96];
  size_t unknown, invalid, overflow;
};

summary *cli_summary_new(int json, FILE *out) {
  summary *s = (summary *)cli_xmalloc(sizeof *s);
  int k;
  memset(s, 0, sizeof *s);
  s->json = json;
  s->out = out;
  for (k = 0; k < Q_N; k++) strcpy(s->total[k], "0");
  return s;
}

static void row_free(row *w) {
  int k;
  free(w->name), free(w->kind), free(w->pods);
  for (k = 0; k < Q_N; k++) free(w->q[k]);
}

/* "5 (PS 2, Worker 3)" */
static char *pods_text(const kfjob_resources *r) {
  size_t len = 72, i;
  char *p, *t;
  for (i = 0; i < r->ngroups; i++) len += strlen(r->groups[i].role) + 26;
  t = p = (char *)cli_xmalloc(len);
  p += sprintf(p, "%lld", r->pods);
  for (i = 0; i < r->ngroups; i++)
    p += sprintf(p, "%s%s %lld", i ? ", " : " (", r->groups[i].role, r->groups[i].replicas);
  if (r->ngroups) p += sprintf(p, ")");
  /* every job shows the gang its target will use (min_available, or the
  ** target's default) */
  sprintf(p, ", gang %lld%s", r->gang, r->gang_set ? "" : " (default)");
  return t;
}

static void write_json_row(summary *s, const kfjob_job *j) {
  const kfjob_resources *r = j->resources;
  json_t *o = json_object(), *w = json_array();
  size_t i;
  json_object_set_new(o, "name", json_string(j->name));
  json_object_set_new(o, "kind", json_string(j->kind ? j->kind : "?"));
  json_object_set_new(o, "valid", json_boolean(j->error == NULL));
  if (j->error) json_object_set_new(o, "error", json_string(j->error));
  if (j->nproblems) {   /* every error of the target's rules */
    json_t *ps = json_array();
    for (i = 0; i < j->nproblems; i++) {
      json_t *x = json_object();
      json_object_set_new(x, "path", json_string(j->problems[i].path));
      json_object_set_new(x, "message", json_string(j->problems[i].message));
      json_object_set_new(x, "rule", json_string(j->problems[i].rule));
      json_object_set_new(x, "source", json_string(j->problems[i].source));
      json_object_set_new(x, "target", json_string(j->problems[i].target));
      json_array_append_new(ps, x);
    }
    json_object_set_new(o, "problems", ps);
  }
  for (i = 0; i < j->nwarnings; i++) {
    json_t *x = json_object();
    json_object_set_new(x, "path", json_string(j->warnings[i].path));
    json_object_set_new(x, "message", json_string(j->warnings[i].message));
    json_array_append_new(w, x);
  }
  json_object_set_new(o, "warnings", w);
  if (!j->error && r) {
    json_t *g = json_object();
    for (i = 0; i < r->ngroups; i++)
      json_object_set_new(g, r->groups[i].role, json_integer(r->groups[i].replicas));
    json_object_set_new(o, "pods", json_integer(r->pods));
    json_object_set_new(o, "groups", g);
    json_object_set_new(o, "gpu", json_string(r->gpu));
    json_object_set_new(o, "cpuRequest", json_string(r->cpu_request));
    json_object_set_new(o, "cpuLimit", json_string(r->cpu_limit));
    json_object_set_new(o, "memoryRequest", json_string(r->memory_request));
    json_object_set_new(o, "memoryLimit", json_string(r->memory_limit));
    json_object_set_new(o, "gang", json_integer(r->gang));
    json_object_set_new(o, "gangSet", json_boolean(r->gang_set));
  }
  fputs(s->jobs == 1 ? "{\"jobs\":[" : ",", s->out);
  json_dumpf(o, s->out, JSON_COMPACT);
  json_decref(o);
}

void cli_summary_add(summary *s, const kfjob_job *j) {
  const kfjob_resources *r = j->resources;
  row w;
  int k;
  s->jobs++;
  if (j->error) s->invalid++;
  else if (r == NULL) s->unknown++;
  if (!j->error && r) {
    const char *q[Q_N];
    q[Q_GPU] = r->gpu, q[Q_CPU_REQ] = r->cpu_request, q[Q_CPU_LIM] = r->cpu_limit;
    q[Q_MEM_REQ] = r->memory_request, q[Q_MEM_LIM] = r->memory_limit;
    for (k = 0; k < Q_N; k++) {
      char sum[96];
      if (kfjob_quantity_add(s->total[k], q[k], sum, sizeof sum) == KFJOB_OK)
        strcpy(s->total[k], sum);
      else
        s->overflow++;
    }
    s->pods += r->pods;
  }
  if (s->json) {
    write_json_row(s, j);
    return;
  }
  if (s->n == SUMMARY_ROWS) {
    s->hidden++;
    return;
  }
  memset(&w, 0, sizeof w);
  w.name = cli_xstrdup(j->name);
  w.kind = cli_xstrdup(j->kind ? j->kind : "?");
  w.invalid = j->error != NULL;
  if (!j->error && r) {
    w.known = 1;
    w.pods = pods_text(r);
    w.gang = 1;
    w.q[Q_GPU] = cli_xstrdup(r->gpu);
    w.q[Q_CPU_REQ] = cli_xstrdup(r->cpu_request);
    w.q[Q_CPU_LIM] = cli_xstrdup(r->cpu_limit);
    w.q[Q_MEM_REQ] = cli_xstrdup(r->memory_request);
    w.q[Q_MEM_LIM] = cli_xstrdup(r->memory_limit);
  }
  if (s->n == s->cap)
    s->v = (row *)cli_xrealloc(s->v, (s->cap = s->cap ? s->cap * 2 : 16) * sizeof *s->v);
  s->v[s->n++] = w;
}

static const char *cell(const row *w, int col) {
  if (w->invalid) return col == 0 ? "invalid" : "-";
  if (!w->known) return "?";
  return col == 0 ? w->pods : w->q[col - 1];
}

static void put_row(FILE *f, const size_t *wc, const char *name, const char *kind,
                    const char *const *cells) {
  int k;
  fprintf(f, "%-*s  %-*s  %-*s", (int)wc[0], name, (int)wc[1], kind, (int)wc[2], cells[0]);
  for (k = 0; k < Q_N; k++) fprintf(f, "  %*s", (int)wc[3 + k], cells[1 + k]);
  fputc('\n', f);
}

/* The table: header, the rows kept, how many more, totals, notes. */
static void finish_text(const summary *s, FILE *f) {
  size_t wc[3 + Q_N], i;
  int k;
  char totname[48], totpods[32];
  const char *cells[1 + Q_N], *pods_head = "PODS";
  snprintf(totname, sizeof totname, "TOTAL (%zu job%s)", s->jobs, s->jobs == 1 ? "" : "s");
  snprintf(totpods, sizeof totpods, "%lld", s->pods);
  wc[0] = strlen(totname) > 4 ? strlen(totname) : 4;
  wc[1] = 4;
  for (i = 0; i < s->n; i++)
    if (s->v[i].gang) pods_head = "PODS, GANG";   /* only with a gang shown */
  wc[2] = strlen(totpods) > strlen(pods_head) ? strlen(totpods) : strlen(pods_head);
  for (k = 0; k < Q_N; k++)
    wc[3 + k] = strlen(s->total[k]) > strlen(q_head[k]) ? strlen(s->total[k]) : strlen(q_head[k]);
  for (i = 0; i < s->n; i++) {
    const row *w = &s->v[i];
    if (strlen(w->name) > wc[0]) wc[0] = strlen(w->name);
    if (strlen(w->kind) > wc[1]) wc[1] = strlen(w->kind);
    for (k = 0; k <= Q_N; k++)
      if (strlen(cell(w, k)) > wc[2 + k]) wc[2 + k] = strlen(cell(w, k));
  }
  cells[0] = pods_head;
  for (k = 0; k < Q_N; k++) cells[1 + k] = q_head[k];
  put_row(f, wc, "NAME", "KIND", cells);
  for (i = 0; i < s->n; i++) {
    for (k = 0; k <= Q_N; k++) cells[k] = cell(&s->v[i], k);
    put_row(f, wc, s->v[i].name, s->v[i].kind, cells);
  }
  if (s->hidden)
    fprintf(f, "... %zu more job%s (check -f json lists every one)\n", s->hidden,
            s->hidden == 1 ? "" : "s");
  cells[0] = totpods;
  for (k = 0; k < Q_N; k++) cells[1 + k] = s->total[k];
  put_row(f, wc, totname, "", cells);
  if (s->invalid)
    fprintf(f, "(the total leaves out %zu invalid job%s)\n", s->invalid,
            s->invalid == 1 ? "" : "s");
  if (s->unknown)
    fprintf(f, "(the total leaves out %zu job%s whose manifest cannot be made: "
            "render -f manifest says why)\n", s->unknown, s->unknown == 1 ? "" : "s");
  if (s->overflow) fprintf(f, "(some sums were too large to add)\n");
}

/* Ends the table, or the JSON document with "total" and the members of
** `extra` (taken); text without a job prints nothing. */
void cli_summary_finish(summary *s, json_t *extra) {
  if (s->json) {
    json_t *tot = json_object();
    const char *key;
    json_t *v;
    int k;
    json_object_set_new(tot, "jobs", json_integer((json_int_t)s->jobs));
    json_object_set_new(tot, "pods", json_integer(s->pods));
    for (k = 0; k < Q_N; k++) json_object_set_new(tot, q_json[k], json_string(s->total[k]));
    fputs(s->jobs ? "],\"total\":" : "{\"jobs\":[],\"total\":", s->out);
    json_dumpf(tot, s->out, JSON_COMPACT);
    json_decref(tot);
    json_object_foreach(extra, key, v) {
      json_t *name = json_string(key);
      fputc(',', s->out);
      json_dumpf(name, s->out, JSON_ENCODE_ANY);
      json_decref(name);
      fputc(':', s->out);
      json_dumpf(v, s->out, JSON_ENCODE_ANY | JSON_COMPACT);
    }
    fputs("}\n", s->out);
  } else if (s->jobs) {
    finish_text(s, s->out);
  }
  json_decref(extra);
}

void cli_summary_free(summary *s) {
  size_t i;
  if (s == NULL) return;
  for (i = 0; i < s->n; i++) row_free(&s->v[i]);
  free(s->v);
  free(s);
}

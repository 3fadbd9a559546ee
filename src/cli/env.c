/*
** env.c - `kfjob env`: the environment each pod of each job gets on a
** target (job:environment through the host's "environment" format),
** printed as NAME=value lines per pod (-f env) or as the environment
** table in JSON (-f json), optionally for one pod.  -f env starts each
** job with a "# NAME: gang N" line (NAME the resource name the values
** use: an entry's opts.name, else the job's): the pods its target gang-schedules
** (scheduling.gang.min_available, or "(default)": the target's own).
**
** -f env keeps the output a valid env file: everything that is not a plain
** value is a comment - the pod headers, variables whose value Kubernetes
** fills in at run time (valueFrom, shown as its JSON), values with line
** breaks (as a JSON string), names an env file cannot carry, and the
** files the operator mounts, one "#   " line per line of content.  A line
** break is anything some line-oriented reader splits on (VT, FF, NEL,
** U+2028 too): inside comments it is written as an escape.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_run.h"

typedef struct env_ctx {
  const opts *o;
  size_t found;              /* pods printed */
  char *pods;                /* the pods seen, for the --pod error */
  size_t pods_len;
} env_ctx;

static void note_pod(env_ctx *c, const char *pod) {
  size_t n = strlen(pod);
  if (c->pods_len > 400) return;   /* enough to show */
  c->pods = (char *)cli_xrealloc(c->pods, c->pods_len + n + 3);
  if (c->pods_len) memcpy(c->pods + c->pods_len, ", ", 2), c->pods_len += 2;
  memcpy(c->pods + c->pods_len, pod, n + 1);
  c->pods_len += n;
}

/* Length of the line break at p, 0 if none: what some line-oriented
** reader splits on - LF, CR, VT, FF, FS/GS/RS (Python's str.splitlines),
** NEL, LINE and PARAGRAPH SEPARATOR (Unicode-aware readers). */
static size_t line_break(const unsigned char *p) {
  if (*p == '\n' || *p == '\r' || *p == '\v' || *p == '\f' ||
      (*p >= 0x1c && *p <= 0x1e))
    return 1;
  if (p[0] == 0xc2 && p[1] == 0x85) return 2;
  if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) return 3;
  return 0;
}

static int has_break(const char *s) {
  for (; *s; s++)
    if (line_break((const unsigned char *)s)) return 1;
  return 0;
}

/* A name env-file readers take as one: Kubernetes' IsEnvVarName
** (k8s.io/apimachinery pkg/util/validation), [-._a-zA-Z][-._a-zA-Z0-9]*. */
static int env_name_ok(const char *s) {
  size_t i;
  if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (i = 0; s[i]; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
          (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ||
          s[i] == '.'))
      return 0;
  return 1;
}

/* Text inside a comment line: its line breaks as \uXXXX escapes. */
static void put_comment_text(const char *s, size_t n) {
  size_t i, k;
  for (i = 0; i < n; i += k) {
    k = line_break((const unsigned char *)s + i);
    if (k == 0) k = 1, putchar(s[i]);
    else if (k == 1) printf("\\u%04x", (unsigned char)s[i]);
    else printf("\\u%04x", k == 2 ? 0x85u : 0x2028u + ((unsigned char)s[i + 2] - 0xa8u));
  }
}

/* A JSON string, ASCII only (so no raw line break of any kind). */
static void put_json(json_t *v) {
  char *q = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII |
                       JSON_PRESERVE_ORDER);
  if (q == NULL) cli_die_oom();
  fputs(q, stdout);
  free(q);
}

static void print_file(const char *path, const char *s) {
  size_t k;
  int open = 0;   /* a "#   " line is started */
  printf("# file ");
  put_comment_text(path, strlen(path));
  printf(":\n");
  for (; *s; s += k) {
    if (!open) printf("#   "), open = 1;
    k = line_break((const unsigned char *)s);
    if (k == 0) k = 1, putchar(*s);
    else if (*s == '\n') putchar('\n'), open = 0;
    else put_comment_text(s, k);
  }
  if (open) putchar('\n');
}

/* One variable: NAME=value when both are plain, else a comment (a name
** an env file cannot carry, a value with a line break, valueFrom). */
static void print_var(json_t *it) {
  json_t *nm = json_object_get(it, "name"), *from = json_object_get(it, "valueFrom");
  json_t *val = json_object_get(it, "value");
  const char *name = json_string_value(nm), *s = json_string_value(val);
  if (!env_name_ok(name)) {
    printf("# a variable whose name is not an environment variable name: ");
    put_json(nm ? nm : json_null());
    putchar('\n');
  } else if (from) {
    printf("# %s from valueFrom ", name);
    put_json(from);
    putchar('\n');
  } else if (s == NULL || has_break(s)) {
    printf("# %s has a multi-line value: ", name);
    put_json(val ? val : json_null());
    putchar('\n');
  } else {
    printf("%s=%s\n", name, s);
  }
}

static void print_pod(const char *job, const char *pod, json_t *v) {
  json_t *env = json_object_get(v, "env"), *files = json_object_get(v, "files"), *it;
  const char *path;
  size_t i;
  printf("# ");
  put_comment_text(job, strlen(job));
  putchar(' ');
  put_comment_text(pod, strlen(pod));
  putchar('\n');
  json_array_foreach(env, i, it) print_var(it);
  json_object_foreach(files, path, it) print_file(path, json_string_value(it));
}

/* The gang the target will use, set or the target's default (Σ replicas
** on the training-operator, pkg/controller.v1/common/job.go; workers + 1
** on the mpi-operator, calculateMinAvailable; every pod on Trainer): a
** comment, so the output stays an env file. */
static void print_gang(const char *job, const kfjob_resources *r) {
  if (r == NULL) return;
  printf("# ");
  put_comment_text(job, strlen(job));
  printf(": gang %lld%s\n", r->gang, r->gang_set ? "" : " (default)");
}

static int on_env(void *ud, const kfjob_job *j) {
  env_ctx *c = (env_ctx *)ud;
  json_error_t err;
  json_t *doc, *v;
  const char *pod;
  /* the headers name the job as its pods' values do: opts.name wins */
  const char *name = j->resource_name ? j->resource_name : j->name;
  if (j->error) return 0;   /* not with keep_going: the run stops */
  doc = json_loadb(j->data, j->size, 0, &err);
  if (doc == NULL) {
    fprintf(stderr, "kfjob: %s: unreadable environment (%s)\n", j->name, err.text);
    return 1;
  }
  if (c->o->pod) {   /* only that pod, in the same shape */
    json_t *one = json_object_get(doc, c->o->pod);
    json_object_foreach(doc, pod, v) note_pod(c, pod);
    if (one == NULL) {
      json_decref(doc);
      return 0;
    }
    json_incref(one);
    json_decref(doc);
    doc = json_object();
    if (doc == NULL || json_object_set_new(doc, c->o->pod, one) != 0) cli_die_oom();
  }
  if (c->o->env_json) {
    char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (s == NULL) cli_die_oom();
    puts(s);
    free(s);
    c->found += json_object_size(doc);
  } else {
    if (json_object_size(doc)) print_gang(name, j->resources);
    json_object_foreach(doc, pod, v) {
      print_pod(name, pod, v);
      c->found++;
    }
  }
  json_decref(doc);
  return 0;
}

int cli_cmd_env(const opts *o) {
  env_ctx c;
  cli_run r;
  kfjob_status st;
  int code;
  memset(&c, 0, sizeof c);
  c.o = o;
  cli_run_init(&r, o);
  r.ro.format = KFJOB_FORMAT_ENVIRONMENT;
  r.ro.version = -1;
  r.ro.target = o->target;   /* NULL: operator */
  r.ro.resources = 1;        /* for the gang line */
  r.h = cli_make_host(o);
  st = kfjob_host_run_file(r.h, o->pos[0], &r.ro, on_env, &c);
  code = cli_report(r.h, st, o->pos[0]);
  if (code == 0 && o->pod && c.found == 0)
    code = cli_errorf(EXIT_USAGE, "no pod '%s' in %s (pods: %s)", o->pod, o->pos[0],
                      c.pods ? c.pods : "none");
  if (fflush(stdout) != 0 && code == 0) code = cli_errorf(EXIT_USAGE, "cannot write to stdout");
  free(c.pods);
  cli_run_free(&r);
  return code;
}

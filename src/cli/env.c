/*
** env.c - `kfjob env`: the environment each pod of each job gets on a
** target (job:environment through the host's "environment" format),
** printed as NAME=value lines per pod (-f env) or as the environment
** table in JSON (-f json), optionally for one pod.
**
** -f env keeps the output a valid env file: everything that is not a plain
** value is a comment - the pod headers, variables whose value Kubernetes
** fills in at run time (valueFrom, shown as its JSON), values with line
** breaks (as a JSON string), and the files the
** operator mounts, one "#   " line per line of content.
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

static void print_file(const char *path, const char *s) {
  const char *nl;
  printf("# file %s:\n", path);
  for (; *s; s = nl + 1) {
    nl = strchr(s, '\n');
    if (nl == NULL) {
      printf("#   %s\n", s);
      break;
    }
    printf("#   %.*s\n", (int)(nl - s), s);
  }
}

static void print_pod(const char *job, const char *pod, json_t *v) {
  json_t *env = json_object_get(v, "env"), *files = json_object_get(v, "files"), *it;
  const char *path;
  size_t i;
  printf("# %s %s\n", job, pod);
  json_array_foreach(env, i, it) {
    const char *name = json_string_value(json_object_get(it, "name"));
    json_t *from = json_object_get(it, "valueFrom");
    if (from) {
      char *s = json_dumps(from, JSON_COMPACT | JSON_PRESERVE_ORDER);
      if (s == NULL) cli_die_oom();
      printf("# %s from valueFrom %s\n", name, s);
      free(s);
    } else {
      json_t *val = json_object_get(it, "value");
      const char *s = json_string_value(val);
      if (strchr(s, '\n') || strchr(s, '\r')) {   /* would break the line */
        char *q = json_dumps(val, JSON_ENCODE_ANY);
        if (q == NULL) cli_die_oom();
        printf("# %s has a multi-line value: %s\n", name, q);
        free(q);
      } else {
        printf("%s=%s\n", name, s);
      }
    }
  }
  json_object_foreach(files, path, it) print_file(path, json_string_value(it));
}

static int on_env(void *ud, const kfjob_job *j) {
  env_ctx *c = (env_ctx *)ud;
  json_error_t err;
  json_t *doc, *v;
  const char *pod;
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
    json_object_foreach(doc, pod, v) {
      print_pod(j->name, pod, v);
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

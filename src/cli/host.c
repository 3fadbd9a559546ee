/*
** host.c - the host API as every command uses it: a host with the
** limits of the options, the exit status and message of a failed call,
** and the run options common to the commands that run config scripts.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void on_log(void *ud, const char *msg, size_t len) {
  (void)ud;
  fwrite(msg, 1, len, stderr);
  fputc('\n', stderr);
}

kfjob_host *cli_make_host(const opts *o) {
  kfjob_host_options ho;
  kfjob_host *h;
  kfjob_host_options_init(&ho);
  ho.memory_limit = o->memory_limit;
  ho.instruction_limit = o->instruction_limit;
  ho.log = on_log;
  if (kfjob_host_new(&ho, &h) != KFJOB_OK) cli_die_oom();
  return h;
}

/* Exit status of a failed host call, after printing its message. */
int cli_report(kfjob_host *h, kfjob_status st, const char *what) {
  const char *msg = kfjob_host_message(h);
  switch (st) {
    case KFJOB_OK: return 0;
    case KFJOB_ESCRIPT: case KFJOB_EJOB:
      fprintf(stderr, "%s%s\n", msg, cli_registration_hint(msg));
      return EXIT_INVALID;
    case KFJOB_EMEMORY:
      fprintf(stderr, "%s (raise it with --memory-limit)\n", msg);
      return EXIT_INVALID;
    case KFJOB_ELIMIT:
      fprintf(stderr, "%s (raise it with %s)\n", msg,
              strstr(msg, "time limit exceeded") ? "--time-limit" : "--instruction-limit");
      return EXIT_INVALID;
    case KFJOB_EDATA:
      fprintf(stderr, "%s: %s\n", what, msg);
      return EXIT_INVALID;
    case KFJOB_ESTOPPED:
      return EXIT_USAGE;   /* the callback printed why */
    default:
      fprintf(stderr, "kfjob: %s\n", msg);
      return EXIT_USAGE;
  }
}

/* Default job name: the config's file name without extension. */
char *cli_default_name(const char *config) {
  char *s = cli_stem_of(config), *p;
  for (p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '.')) *p = '-';
  if (s[0] == '\0' || s[0] == '.' || s[0] == '-') {
    free(s);
    return cli_xstrdup("job");
  }
  return s;
}

void cli_run_options(const opts *o, kfjob_run_options *ro, const char *name) {
  kfjob_run_options_init(ro);
  ro->format = o->format;
  ro->version = o->version;
  ro->replica_encoding = o->replica_encoding;
  ro->params = o->params;
  ro->nparams = o->nparams;
  ro->string_params = o->string_params;
  ro->nstring_params = o->nstring_params;
  ro->name = o->name ? o->name : name;
  ro->select = o->name;
  ro->namespace_ = o->ns;
  ro->image = o->image;
  ro->target = o->target;
  ro->time_limit_ms = o->time_limit_ms;
  ro->project = o->project;
  ro->domain = o->domain;
  ro->task_version = o->task_version;
  ro->args = o->args;
  ro->nargs = o->nargs;
  ro->retries = o->retries;
  ro->timeout = o->timeout;
}

/* How messages name a config: "stdin" for "-". */
const char *cli_config_label(const char *path) {
  return strcmp(path, "-") == 0 ? "stdin" : path;
}

/* Run a config file, "-" being stdin: read up to one byte more than the
** memory limit (the run then fails on the limit, as for a file), then run
** the text named "stdin". */
kfjob_status cli_run_config(kfjob_host *h, const opts *o, const char *path,
                            const kfjob_run_options *ro, kfjob_job_fn cb,
                            void *ud) {
  size_t n = 0, cap = 0, max = o->memory_limit ? o->memory_limit + 1 : (size_t)-1;
  char *p = NULL;
  kfjob_status st;
  if (strcmp(path, "-") != 0) return kfjob_host_run_file(h, path, ro, cb, ud);
  for (;;) {
    size_t r, want;
    if (cap - n < 4096) p = (char *)cli_xrealloc(p, cap = cap ? cap * 2 : 8192);
    want = cap - n < max - n ? cap - n : max - n;
    if (want == 0 || (r = fread(p + n, 1, want, stdin)) == 0) break;
    n += r;
  }
  if (ferror(stdin)) {
    free(p);
    cli_errorf(EXIT_USAGE, "cannot read stdin");
    exit(EXIT_USAGE);
  }
  if (n == max) {                        /* as kfjob_host_run_file says it */
    free(p);
    fprintf(stderr, "stdin: memory limit exceeded (%zu bytes): the script is larger "
            "than the limit (raise it with --memory-limit)\n", o->memory_limit);
    exit(EXIT_INVALID);
  }
  st = kfjob_host_run_string(h, p, n, "stdin", ro, cb, ud);
  free(p);
  return st;
}

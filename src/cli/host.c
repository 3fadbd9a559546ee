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

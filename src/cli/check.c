/*
** check.c - `kfjob check`: validate and lint every job of a config script,
** print each problem and end with a summary line.  A job its target refuses
** gets a line per error of the target's rules, with the rule and its
** upstream source, as job:check{target=} lists them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_run.h"

typedef struct check_ctx {
  const char *config;
  int json;                  /* -f json: one document, nothing else */
  progress prog;
  size_t found, invalid, warnings;
  summary *sum;
} check_ctx;

/* "CONFIG[:LINE] - Kind name is invalid: " and the job's error, or a line
** like it per problem of the target (the error is the first's). */
static void print_invalid(check_ctx *c, const kfjob_job *j) {
  long line;
  const char *msg = cli_split_position(c->config, j->error, &line);
  const char *hint = c->invalid == 1 ? cli_registration_hint(j->error) : "";
  char *at = line ? cli_xprintf("%s:%ld", c->config, line) : cli_xstrdup(c->config);
  size_t i;
  if (j->nproblems == 0)
    printf("%s - %s %s is invalid: %s%s\n", at, j->kind, j->name, msg, hint);
  for (i = 0; i < j->nproblems; i++) {
    const kfjob_problem *p = &j->problems[i];
    printf("%s - %s %s is invalid: kfjob.%s: %s: %s (target %s; rule %s: %s)\n", at,
           j->kind, j->name, j->kind, p->path, p->message, p->target, p->rule,
           p->source[0] ? p->source : "kfjob");
  }
  free(at);
}

static int on_check(void *ud, const kfjob_job *j) {
  check_ctx *c = (check_ctx *)ud;
  size_t i;
  c->found++;
  cli_progress_update(&c->prog, j);
  if (c->prog.shown && c->prog.tty) fputs("\r\033[K", stderr);
  cli_summary_add(c->sum, j);
  if (c->json) {
    c->invalid += j->error != NULL;
    c->warnings += j->nwarnings;
    return 0;
  }
  if (j->error) {
    c->invalid++;
    print_invalid(c, j);
  }
  for (i = 0; i < j->nwarnings; i++) {
    c->warnings++;
    printf("%s - %s %s: warning: %s%s%s\n", c->config, j->kind, j->name,
           j->warnings[i].path, j->warnings[i].path[0] ? ": " : "",
           j->warnings[i].message);
  }
  return 0;
}

int cli_cmd_check(const opts *o) {
  check_ctx c;
  cli_run r;
  kfjob_status st;
  int code = 0, failed;
  memset(&c, 0, sizeof c);
  c.config = cli_config_label(o->pos[0]);
  c.json = o->summary_json;
  if (o->format_set && !cli_is_taskspec_format(o->format))
    return cli_errorf(EXIT_USAGE, "check takes -f taskspec or -f taskspec-json only "
                      "(the TaskSpec's registration fields are checked too)");
  c.sum = cli_summary_new(c.json, stdout);
  cli_run_init(&r, o);
  /* -f taskspec: build the TaskSpecs too, so missing registration fields
  ** are reported per job */
  r.ro.format = o->format == KFJOB_FORMAT_TASKSPEC || o->format == KFJOB_FORMAT_TASKSPEC_JSON
                    ? o->format : KFJOB_FORMAT_NONE;
  r.ro.lint = 1;
  r.ro.keep_going = 1;
  r.ro.resources = 1;
  cli_progress_init(&c.prog, o->progress);
  r.h = cli_make_host(o);
  st = cli_run_config(r.h, o, o->pos[0], &r.ro, on_check, &c);
  cli_progress_end(&c.prog);
  if ((st != KFJOB_OK && st != KFJOB_EJOB) || (st == KFJOB_EJOB && c.invalid == 0)) {
    fflush(stdout);
    code = cli_report(r.h, st, c.config);    /* also: no job named --name */
  }
  failed = code != 0 && st != KFJOB_EJOB;   /* not: no job named --name */
  if (c.json) {
    json_t *extra = json_object();
    json_object_set_new(extra, "found", json_integer((json_int_t)c.found));
    json_object_set_new(extra, "valid", json_integer((json_int_t)(c.found - c.invalid)));
    json_object_set_new(extra, "invalid", json_integer((json_int_t)c.invalid));
    json_object_set_new(extra, "warnings", json_integer((json_int_t)c.warnings));
    json_object_set_new(extra, "configFailed", json_boolean(failed));
    cli_summary_finish(c.sum, extra);
  } else {
    cli_summary_finish(c.sum, NULL);
    if (failed && c.found == 0)
      printf("Summary: the config failed before it gave any job\n");
    else
      printf("Summary: %s%zu job%s found, %zu valid, %zu invalid, %zu warning%s\n",
             failed ? "the config failed after " : "",
             c.found, c.found == 1 ? "" : "s", c.found - c.invalid, c.invalid,
             c.warnings, c.warnings == 1 ? "" : "s");
  }
  if (code == 0 && (c.invalid || (o->strict && c.warnings))) code = EXIT_INVALID;
  cli_summary_free(c.sum);
  cli_run_free(&r);
  return code;
}

/*
** cli_run.h - what a command that runs its config once holds for that run:
** the run options cli_run_options gives, the default job name they point
** to (so it lives as long as they do), and the host.
*/
#ifndef KFJOB_CLI_RUN_H
#define KFJOB_CLI_RUN_H

#include <stdlib.h>

#include "cli.h"

typedef struct cli_run {
  kfjob_run_options ro;
  char *name;       /* default job name: the config's file name (ro.name) */
  kfjob_host *h;    /* NULL until the command makes it (cli_make_host) */
} cli_run;

/* The run options of `o` for its config o->pos[0]. */
static inline void cli_run_init(cli_run *r, const opts *o) {
  r->name = cli_default_name(o->pos[0]);
  cli_run_options(o, &r->ro, r->name);
  r->h = NULL;
}

static inline void cli_run_free(cli_run *r) {
  free(r->name);
  kfjob_host_free(r->h);
}

#endif

/*
** meta.c - `kfjob meta`: prints the LuaCATS definition file for
** lua-language-server (library/kfjob.lua), generated from the schema rows
** (kfjob_generate).  Also the printing and the small argument reader that
** `kfjob schema` and `kfjob explain` share.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Prints a generator's text on stdout (or its refusal on stderr, exit 1:
** "kfjob: explain: ...", the Lua function's "kfjob.explain: ..." under the
** one prefix every CLI error has). */
int cli_print_generated(kfjob_status st, char *text) {
  int code = 0;
  if (st == KFJOB_EMEMORY) {
    code = cli_errorf(EXIT_INVALID, "out of memory");
  } else if (st != KFJOB_OK) {
    const char *msg = text ? text : "failed";
    if (strncmp(msg, "kfjob.", 6) == 0) msg += 6;
    code = cli_errorf(EXIT_INVALID, "%s", msg);
  } else if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
    code = cli_errorf(EXIT_USAGE, "cannot write to stdout");
  }
  free(text);
  return code;
}

/* argv[2..]: at most one positional, `--target T` (or --target=T) and, when
** `flag` is not NULL, that flag.  Returns -1, or an exit status (usage). */
int cli_generator_args(int argc, char **argv, const char *usage,
                       const char *flag, const char **pos, const char **target,
                       int *flag_set) {
  int i;
  char why[256];
  for (i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      printf("usage: %s\n", usage);
      return 0;
    } else if (strcmp(a, "--target") == 0 && i + 1 < argc && target) {
      *target = argv[++i];
    } else if (strncmp(a, "--target=", 9) == 0 && target) {
      *target = a + 9;
    } else if (flag && strcmp(a, flag) == 0) {
      *flag_set = 1;
    } else if (a[0] != '-' && pos && *pos == NULL) {
      *pos = a;
    } else {
      return cli_errorf(EXIT_USAGE, "%s: unexpected argument '%s'\nusage: %s",
                        argv[1], a, usage);
    }
  }
  /* an unknown target is a usage error, as for the other commands */
  if (target && *target && !kfjob_target_check(*target, why, sizeof why))
    return cli_errorf(EXIT_USAGE, "--target: %s", why);
  return -1;
}

int cli_cmd_meta(int argc, char **argv) {
  const char *args[3] = {NULL, NULL, NULL};
  char *text = NULL;
  kfjob_status st;
  int options = 0;
  int code = cli_generator_args(argc, argv, "kfjob meta [--options]   (the LuaCATS "
                                "definition file library/kfjob.lua, on stdout; "
                                "--options: the Markdown table of docs/OPTIONS.md)",
                                "--options", NULL, NULL, &options);
  if (code >= 0) return code;
  if (options) args[0] = "options";
  st = kfjob_generate("meta", args, &text);   /* before text is read */
  return cli_print_generated(st, text);
}

/*
** explain.c - `kfjob explain KIND[.path] [--target T] [--recursive]`, as
** `kubectl explain`: a field's type, default, range or values, aliases,
** deprecation, description, where it goes in each output and the rules
** that touch it, from the schema and rule rows (lua/kfjob/explain.lua).
*/
#include <stddef.h>

#include "cli.h"

int cli_cmd_explain(int argc, char **argv) {
  static const char usage[] =
      "kfjob explain KIND[.path] [--target T] [--recursive]";
  const char *path = NULL, *target = NULL;
  char *text = NULL;
  kfjob_status st;
  int recursive = 0;
  int code = cli_generator_args(argc, argv, usage, "--recursive", &path,
                                &target, &recursive);
  const char *args[3];
  if (code >= 0) return code;
  if (path == NULL)
    return cli_errorf(EXIT_USAGE, "explain: which field? usage: %s", usage);
  args[0] = path;
  args[1] = target;
  args[2] = recursive ? "1" : NULL;
  st = kfjob_generate("explain", args, &text);   /* before text is read */
  return cli_print_generated(st, text);
}

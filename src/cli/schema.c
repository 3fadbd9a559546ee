/*
** schema.c - `kfjob schema [KIND] [--target T]`: the JSON Schema (draft
** 2020-12) of a data config, generated from the schema rows
** (kfjob_generate, lua/kfjob/schema.lua).
*/
#include <stddef.h>

#include "cli.h"

int cli_cmd_schema(int argc, char **argv) {
  const char *kind = NULL, *target = NULL;
  char *text = NULL;
  kfjob_status st;
  int code = cli_generator_args(argc, argv, "kfjob schema [KIND] [--target T]",
                                NULL, &kind, &target, NULL);
  const char *args[3];
  if (code >= 0) return code;
  args[0] = kind;
  args[1] = target;
  args[2] = NULL;
  st = kfjob_generate("schema", args, &text);   /* before text is read */
  return cli_print_generated(st, text);
}

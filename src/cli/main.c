/*
** main.c - the `kfjob` command-line tool built only on the
** public host API of include/kfjob.h: every config script runs in the
** sandbox, under its memory and instruction limits.
**
**   kfjob render CONFIG.lua [-f FORMAT] [-V 0|1] [-o DIR] [--set k=v]...
**   kfjob check  CONFIG.lua          validate + lint, summary line
**   kfjob decode [--type T -V N] FILE
**   kfjob diff   A B                 semantic diff; exit 0 same, 1 different
**   kfjob meta | schema [KIND] | explain KIND[.path]   from the schema rows
**   kfjob --version | --help
**
** Exit codes: 0 ok, 1 invalid config or jobs (also: limits exceeded, bad
** input data, differences found by diff), 2 usage or I/O error.
**
** Besides the host API it uses jansson and libyaml directly, to wrap jobs
** for stdout and to read renders back for diff.  This file only
** dispatches; cli.h says which file does what.
*/
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv) {
  opts o;
  int code;
  if (argc > 1 && strcmp(argv[1], "meta") == 0) return cli_cmd_meta(argc, argv);
  if (argc > 1 && strcmp(argv[1], "schema") == 0) return cli_cmd_schema(argc, argv);
  if (argc > 1 && strcmp(argv[1], "explain") == 0) return cli_cmd_explain(argc, argv);
  if (argc > 1 && strcmp(argv[1], "convert") == 0) return cli_cmd_convert(argc, argv);
  code = cli_parse_args(argc, argv, &o);
  if (code >= 0) {
    free((void *)o.params);
    free((void *)o.string_params);
    free((void *)o.args);
    return code;
  }
  switch (o.cmd) {
    case C_RENDER: code = cli_cmd_render(&o); break;
    case C_CHECK: code = cli_cmd_check(&o); break;
    case C_DECODE: code = cli_cmd_decode(&o); break;
    case C_ENV: code = cli_cmd_env(&o); break;
    default: code = cli_cmd_diff(&o); break;
  }
  free((void *)o.params);
  free((void *)o.string_params);
  free((void *)o.args);
  return code;
}

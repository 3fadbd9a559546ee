/*
** decode.c - `kfjob decode`: print the job a TaskTemplate (bytes or JSON)
** or, with --type, plugin bytes or custom JSON hold, in a text format;
** a TaskSpec (bytes or JSON) also whole again with -f taskspec-json.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_cmd_decode(const opts *o) {
  kfjob_host *h = cli_make_host(o);
  render_ctx stream;
  char *data, *dir;
  size_t n;
  entries es;
  int code;
  opts o2 = *o;
  if (cli_read_file(o->pos[0], &data, &n) != 0) {
    kfjob_host_free(h);
    return cli_errorf(EXIT_USAGE, "cannot read %s: %s", o->pos[0], strerror(errno));
  }
  memset(&stream, 0, sizeof stream);
  stream.o = &o2;
  stream.config = o->pos[0];
  if (!cli_is_text_format(o2.format)) {
    free(data);
    kfjob_host_free(h);
    return cli_errorf(EXIT_USAGE, "decode prints text: -f json, yaml, manifest, "
                      "template-json, manifest-json or taskspec-json");
  }
  dir = strcmp(o->pos[0], "-") == 0 ? NULL : cli_dir_of(o->pos[0]);
  memset(&es, 0, sizeof es);
  if (dir) cli_entries_load(&es, dir);
  code = cli_decode_bytes(h, &o2, o->pos[0], data, n,
                          dir ? cli_entries_find(&es, cli_base_of(o->pos[0])) : NULL,
                          NULL, &stream);
  if (code == 0) code = stream.status;   /* -f taskspec-json of no TaskSpec */
  cli_entries_free(&es);
  free(dir);
  free(data);
  kfjob_host_free(h);
  if (fflush(stdout) != 0 && code == 0) code = cli_errorf(EXIT_USAGE, "cannot write to stdout");
  return code;
}

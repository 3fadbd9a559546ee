/*
** convert_gen.c - `kfjob convert -f lua|config|config-yaml`: the held
** jobs written as a config by the generator (lua/kfjob/convert.lua), from
** the manifests made again for the input's own target, a data config's
** own text or a Flyte file's bytes.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_int.h"

/* The generator's config of held jobs [i, i + k) into c->v[i]: `joined`
** the manifests of those (or the data config, or a Flyte file's hex
** digits), `extra` what the generator's third argument says
** (lua/kfjob/convert.lua).  With --lossy, what a data config cannot say
** is listed (the strict run's refusal) and left out. */
static int gen_config(conv *c, size_t i, const char *joined, const char *extra) {
  const char *args[3];
  const char *ext = strcmp(c->a->config, "lua") == 0 ? ".lua"
                    : strcmp(c->a->config, "config-yaml") == 0 ? ".yaml" : ".json";
  char *text = NULL, *strict = NULL, *p;
  int code;
  kfjob_status st;
  args[0] = joined, args[1] = c->a->config, args[2] = extra;
  st = kfjob_generate("convert", args, &text);
  if (st == KFJOB_EARG && c->a->lossy && extra && extra[0] == '\1' &&
      (strict = cli_xstrdup(extra)) != NULL && (p = strchr(strict, '\t')) != NULL) {
    fprintf(stderr, "kfjob: %s: %s (left out: --lossy)\n", cli_config_label(c->a->file), text);
    free(text);
    p[1] = '1';   /* "\1<what>\t1...": lossy */
    args[2] = strict;
    st = kfjob_generate("convert", args, &text);
  }
  if (st != KFJOB_OK)
    code = cli_errorf(EXIT_INVALID, "%s: %s", cli_config_label(c->a->file),
                      text ? text : "out of memory");
  else
    code = convert_replace_held(&c->v[i], text, ext);
  free(text);
  free(strict);
  return code;
}

/* The generator's extra for manifests or a Flyte file: "\1<what>\t0" and
** for a Flyte file a tab and its job's name, then with --kind a tab and
** the kind to read as (malloc'd). */
static char *gen_extra(const char *what, const char *name, const char *kind) {
  return cli_xprintf("\1%s\t0\t%s\t%s", what, kind ? kind : "", name ? name : "");
}

/* A tab and `name` added to the end of *s (length *len, room *cap, grown
** by doubling): a stream's names in linear time (a new string per name
** was quadratic in the number of jobs). */
static void add_name(char **s, size_t *len, size_t *cap, const char *name) {
  size_t n = strlen(name);
  if (*len + n + 2 > *cap) {
    while (*len + n + 2 > *cap) *cap = *cap ? 2 * *cap : 64;
    *s = (char *)cli_xrealloc(*s, *cap);
  }
  (*s)[(*len)++] = '\t';
  memcpy(*s + *len, name, n + 1);
  *len += n;
}

/* -f lua / config / config-yaml of a TaskTemplate or TaskSpec: the
** generator decodes the file itself (as hex digits: the bytes may hold
** NULs), so its job and the options no job field holds stay together. */
static int flyte_config(conv *c, const char *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  char *hex = (char *)cli_xmalloc(2 * n + 1), *extra;
  size_t i;
  int code;
  for (i = 0; i < n; i++) {
    hex[2 * i] = digits[(unsigned char)data[i] >> 4];
    hex[2 * i + 1] = digits[(unsigned char)data[i] & 15];
  }
  hex[2 * n] = '\0';
  extra = gen_extra("flyte", c->v[0].job.name, c->a->kind);
  code = gen_config(c, 0, hex, extra);
  free(extra);
  free(hex);
  return code;
}

/* -f lua / -f config of a data config: its text again, with its default
** name and the names of the jobs to write (all, or one under -o). */
static int data_config(conv *c, const char *data) {
  size_t i, j, k;
  int code = 0;
  for (i = 0; i < c->n && code == 0; i += k) {
    char *extra = cli_xstrdup(c->a->name ? c->a->name : c->name);
    size_t len = strlen(extra), cap = len + 1;
    k = c->a->outdir ? 1 : c->n;
    for (j = i; j < i + k; j++) add_name(&extra, &len, &cap, c->v[j].job.name);
    code = gen_config(c, i, data, extra);
    free(extra);
  }
  return code;
}

/* -f lua / config / config-yaml: each job held (its manifest for the
** target) made again as an operator manifest (with what its report
** carries, as convert writes it), and the generator writes the config of
** those (one config of every job to stdout, one file per job under -o).
** A data config is its own text, a Flyte file its own bytes; a script's
** jobs do not leave it. */
int convert_to_config(kfjob_host *h, conv *c, const char *data, size_t n) {
  conv c2;
  cargs a2 = *c->a;
  char *extra;
  size_t i, k;
  int code = 0;
  if (c->in == IN_DATA) return data_config(c, data);
  if (c->in == IN_FLYTE) return flyte_config(c, data, n);
  memset(&c2, 0, sizeof c2);
  /* the input's own target (Law 1 reads it back); JSON: cheaper to write
  ** than YAML, and read by the same strict reader */
  a2.to = NULL, a2.format = KFJOB_FORMAT_MANIFEST_JSON;
  c2.a = &a2, c2.quiet = 1, c2.in = c->in;
  {   /* the first pass's own JSON when it made the same jobs */
    int kept = c->reuse && c->others == 0;
    kfjob_status st = kept ? KFJOB_OK : convert_run(h, &c2, data, n);
    if (kept) c2.v = c->v, c2.n = c->n;
    if (st != KFJOB_OK) {
      convert_free(&c2);
      return convert_report(h, st, c->a);
    }
  }
  if (convert_time_left(c->a) == 1)   /* the generator has no limit of its own: not past it */
    return cli_errorf(EXIT_INVALID, "%s: time limit exceeded (%lu ms) (raise it with "
                      "--time-limit)", cli_config_label(c->a->file),
                      c->a->time_limit_ms ? c->a->time_limit_ms : KFJOB_DEFAULT_TIME_LIMIT_MS);
  extra = gen_extra("manifests", NULL, c->a->kind);
  if (!c->a->outdir) {   /* one config of every job: their keys, distinct */
    size_t len = strlen(extra), cap = len + 1;
    for (i = 0; i < c->n; i++)
      add_name(&extra, &len, &cap, c->v[i].stem ? c->v[i].stem : c->v[i].job.name);
  }
  for (i = 0; i < c2.n && code == 0; i += k) {
    char *joined;
    size_t j, len = 0, room = 1;
    k = c->a->outdir ? 1 : c2.n;
    for (j = i; j < i + k; j++) room += c2.v[j].job.size + 1;
    joined = (char *)cli_xmalloc(room);   /* one allocation: linear in the stream */
    for (j = i; j < i + k; j++) {   /* JSON Lines: each document on lines of its own */
      size_t sz = c2.v[j].job.size;
      memcpy(joined + len, c2.v[j].job.data, sz + 1);
      len += sz;
      if (sz && joined[len - 1] != '\n') joined[len++] = '\n', joined[len] = '\0';
    }
    code = gen_config(c, i, joined, extra);
    free(joined);
  }
  free(extra);
  if (c2.v != c->v) convert_free(&c2);
  return code;
}

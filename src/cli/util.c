/*
** util.c - small helpers of the kfjob tool: allocation that exits on
** failure (exit status 2), formatted strings and errors, reading a whole
** file and taking paths apart.
*/
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_die_oom(void) {
  fputs("kfjob: out of memory\n", stderr);
  exit(EXIT_USAGE);
}

void *cli_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) cli_die_oom();
  return p;
}

void *cli_xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (p == NULL) cli_die_oom();
  return p;
}

char *cli_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return (char *)memcpy(cli_xmalloc(n), s, n);
}

char *cli_xprintf(const char *fmt, ...) {
  va_list ap;
  int n;
  char *p;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  p = (char *)cli_xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

int cli_errorf(int code, const char *fmt, ...) {
  va_list ap;
  fputs("kfjob: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return code;
}

/* Read a whole file ("-": stdin).  Returns 0, or -1 with errno set. */
int cli_read_file(const char *path, char **data, size_t *len) {
  return cli_read_file_max(path, 0, data, len);
}

int cli_read_file_max(const char *path, size_t max, char **data, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  size_t n = 0, cap = 0;
  char *p = NULL;
  if (f == NULL) return -1;
  for (;;) {
    size_t r;
    if (cap - n < 4096) p = (char *)cli_xrealloc(p, cap = cap ? cap * 2 : 8192);
    r = fread(p + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
    if (max && n > max) {   /* stop at the cap: /dev/zero never ends */
      if (f != stdin) fclose(f);
      free(p);
      errno = EFBIG;
      return -1;
    }
  }
  if (ferror(f)) {
    int e = errno;
    if (f != stdin) fclose(f);
    free(p);
    errno = e ? e : EIO;
    return -1;
  }
  if (f != stdin) fclose(f);
  p[n] = '\0';
  *data = p;
  *len = n;
  return 0;
}

const char *cli_base_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

char *cli_dir_of(const char *path) {
  const char *s = strrchr(path, '/');
  if (s == NULL) return cli_xstrdup(".");
  if (s == path) return cli_xstrdup("/");
  return cli_xprintf("%.*s", (int)(s - path), path);
}

/* File name without directory and without its extensions. */
char *cli_stem_of(const char *path) {
  const char *b = cli_base_of(path), *dot = strchr(b, '.');
  if (dot == NULL || dot == b) return cli_xstrdup(b);
  return cli_xprintf("%.*s", (int)(dot - b), b);
}

const char *cli_registration_hint(const char *msg) {
  if (msg == NULL || strstr(msg, "missing registration fields") == NULL) return "";
  return "\n  (set them with --project, --domain, --version and --image, or per job "
         "with {job = <job>, opts = {id =, container =}})";
}

/* An error that starts with "CONFIG:LINE: ": the rest, and *line set;
** else the error itself and *line = 0. */
const char *cli_split_position(const char *config, const char *err, long *line) {
  size_t n = strlen(config);
  const char *p = err + n;
  *line = 0;
  if (strncmp(err, config, n) != 0 || *p != ':' || !isdigit((unsigned char)p[1]))
    return err;
  *line = strtol(p + 1, (char **)&p, 10);
  if (p[0] != ':' || p[1] != ' ') {
    *line = 0;
    return err;
  }
  return p + 2;
}

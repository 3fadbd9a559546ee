/*
** outputs.c - writing jobs: the stream form of each format on stdout,
** files written atomically, and the list of files a render wrote into a
** directory (DIR/.kfjob-outputs), which lets the next render remove stale
** files and lets diff and decode know what each file holds.
*/
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cli.h"

/* JSON string literal of s (escaped) appended to f. */
static void put_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* A job name that can be a file name: no '/', no leading '.'. */
int cli_safe_file_name(const char *s) {
  size_t i, n = strlen(s);
  if (n == 0 || n > 200 || s[0] == '.' || s[0] == '-') return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!(isalnum(c) || c == '-' || c == '_' || c == '.')) return 0;
  }
  return 1;
}

int cli_is_text_format(kfjob_format f) {
  return f != KFJOB_FORMAT_PB && f != KFJOB_FORMAT_TEMPLATE;
}

const char *cli_ext_of(kfjob_format f) {
  switch (f) {
    case KFJOB_FORMAT_PB: return ".pb";
    case KFJOB_FORMAT_JSON: return ".json";
    case KFJOB_FORMAT_YAML: return ".yaml";
    case KFJOB_FORMAT_TEMPLATE: return ".template.pb";
    case KFJOB_FORMAT_TEMPLATE_JSON: return ".template.json";
    case KFJOB_FORMAT_MANIFEST: return ".manifest.yaml";
    case KFJOB_FORMAT_MANIFEST_JSON: return ".manifest.json";
    default: return "";
  }
}

void cli_entries_add(entries *es, const char *file, const char *format,
                     const char *type, int version, const char *kind,
                     const char *name) {
  entry *e;
  if (es->n == es->cap) es->v = (entry *)cli_xrealloc(es->v, (es->cap = es->cap ? es->cap * 2 : 16) * sizeof *e);
  e = &es->v[es->n++];
  e->file = cli_xstrdup(file);
  e->format = cli_xstrdup(format);
  e->type = cli_xstrdup(type);
  e->kind = cli_xstrdup(kind);
  e->name = cli_xstrdup(name);
  e->version = version;
}

void cli_entries_free(entries *es) {
  size_t i;
  for (i = 0; i < es->n; i++) {
    free(es->v[i].file);
    free(es->v[i].format);
    free(es->v[i].type);
    free(es->v[i].kind);
    free(es->v[i].name);
  }
  free(es->v);
  memset(es, 0, sizeof *es);
}

const entry *cli_entries_find(const entries *es, const char *file) {
  size_t i;
  for (i = 0; i < es->n; i++)
    if (strcmp(es->v[i].file, file) == 0) return &es->v[i];
  return NULL;
}

/* Read DIR/.kfjob-outputs; a missing file is an empty list. */
void cli_entries_load(entries *es, const char *dir) {
  char *path = cli_xprintf("%s/%s", dir, OUTPUTS_FILE), *data, *line, *next;
  size_t len;
  memset(es, 0, sizeof *es);
  if (cli_read_file(path, &data, &len) != 0) {
    free(path);
    return;
  }
  for (line = data; line && *line; line = next) {
    char *f[6];
    int n = 0;
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    f[n++] = line;
    while (n < 6 && (line = strchr(line, '\t')) != NULL) {
      *line++ = '\0';
      f[n++] = line;
    }
    /* only plain file names: a tampered list cannot point elsewhere */
    if (n == 6 && cli_safe_file_name(f[0]))
      cli_entries_add(es, f[0], f[1], f[2], atoi(f[3]), f[4], f[5]);
  }
  free(data);
  free(path);
}

int cli_entries_save(const entries *es, const char *dir) {
  char *path = cli_xprintf("%s/%s", dir, OUTPUTS_FILE);
  char *tmp = cli_xprintf("%s/.%s.tmp", dir, OUTPUTS_FILE + 1);
  FILE *f = fopen(tmp, "w");
  size_t i;
  int ok;
  if (f == NULL) {
    free(path);
    free(tmp);
    return -1;
  }
  fputs("# Files of this directory written by `kfjob render`; the next render\n"
        "# into it removes those it does not write again.\n"
        "# file\tformat\ttask_type\tversion\tkind\tname\n", f);
  for (i = 0; i < es->n; i++)
    fprintf(f, "%s\t%s\t%s\t%d\t%s\t%s\n", es->v[i].file, es->v[i].format,
            es->v[i].type, es->v[i].version, es->v[i].kind, es->v[i].name);
  ok = fclose(f) == 0 && rename(tmp, path) == 0;
  if (!ok) remove(tmp);
  free(path);
  free(tmp);
  return ok ? 0 : -1;
}

/* Write the custom YAML of a job under "custom:", indented. */
static void put_indented(FILE *f, const char *yaml, size_t n) {
  const char *p = yaml, *end = yaml + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (len) fputs("  ", f);
    fwrite(p, 1, len, f);
    fputc('\n', f);
    p += len + 1;
  }
}

/* One job to stdout in the stream form of its format. */
void cli_write_stream(render_ctx *c, FILE *f, const kfjob_job *j) {
  switch (j->format) {
    case KFJOB_FORMAT_JSON:
      fputs("{\"name\":", f);
      put_json_string(f, j->name);
      fputs(",\"kind\":", f);
      put_json_string(f, j->kind);
      fputs(",\"type\":", f);
      put_json_string(f, j->task_type);
      fprintf(f, ",\"taskTypeVersion\":%d,\"custom\":", j->version);
      fwrite(j->data, 1, j->size, f);
      fputs("}\n", f);
      break;
    case KFJOB_FORMAT_YAML:
      if (c->ndocs) fputs("---\n", f);
      fputs("name: ", f);
      put_json_string(f, j->name);
      fprintf(f, "\nkind: %s\ntype: %s\ntaskTypeVersion: %d\n", j->kind,
              j->task_type, j->version);
      if (j->size >= 2 && j->data[0] == '{') {
        fputs("custom: ", f);
        fwrite(j->data, 1, j->size, f);
      } else {
        fputs("custom:\n", f);
        put_indented(f, j->data, j->size);
      }
      break;
    case KFJOB_FORMAT_MANIFEST:
      if (c->ndocs) fputs("---\n", f);
      fwrite(j->data, 1, j->size, f);
      if (j->size && j->data[j->size - 1] != '\n') fputc('\n', f);
      break;
    default:   /* the JSON formats: one line each */
      fwrite(j->data, 1, j->size, f);
      fputc('\n', f);
      break;
  }
  c->ndocs++;
}

/* Write data to DIR/file through a temporary file and a rename. */
int cli_write_atomic(const char *dir, const char *file, const char *data,
                     size_t n, int newline) {
  char *path = cli_xprintf("%s/%s", dir, file);
  char *tmp = cli_xprintf("%s/.%s.tmp", dir, file);
  FILE *f = fopen(tmp, "wb");
  int ok = f != NULL;
  if (ok) {
    ok = fwrite(data, 1, n, f) == n;
    if (ok && newline && (n == 0 || data[n - 1] != '\n')) ok = fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) remove(tmp);
  }
  free(path);
  free(tmp);
  return ok ? 0 : -1;
}

int cli_mkdir_p(const char *dir) {
  char *p = cli_xstrdup(dir), *s;
  struct stat st;
  int r = 0;
  for (s = p + 1; r == 0; s++) {
    if (*s == '/' || *s == '\0') {
      char c = *s;
      *s = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST) r = -1;
      *s = c;
      if (c == '\0') break;
    }
  }
  free(p);
  if (r == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
    errno = ENOTDIR;
    r = -1;
  }
  return r;
}

/*
** kfjob_cli.c - the `kfjob` command-line tool (SPEC §7), built only on the
** public host API of include/kfjob.h: every config script runs in the
** sandbox, under its memory and instruction limits.
**
**   kfjob render CONFIG.lua [-f FORMAT] [-V 0|1] [-o DIR] [--set k=v]...
**   kfjob check  CONFIG.lua          validate + lint, summary line
**   kfjob decode [--type T -V N] FILE
**   kfjob diff   A B                 semantic diff; exit 0 same, 1 different
**   kfjob --version | --help
**
** Exit codes: 0 ok, 1 invalid config or jobs (also: limits exceeded, bad
** input data, differences found by diff), 2 usage or I/O error.
**
** Besides the host API it uses jansson and libyaml directly, to wrap jobs
** for stdout and to read renders back for diff.
*/
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <yaml.h>

#include "kfjob.h"

#define EXIT_INVALID 1
#define EXIT_USAGE 2
#define OUTPUTS_FILE ".kfjob-outputs"

static const char *const usage_text =
"usage: kfjob <command> [options]\n"
"\n"
"commands:\n"
"  render CONFIG.lua   run a config script and write every job it returns\n"
"  check  CONFIG.lua   validate and lint every job; ends with a summary line\n"
"  decode FILE         read a TaskTemplate (bytes or JSON) or, with --type,\n"
"                      plugin bytes or custom JSON, and print the job\n"
"  diff   A B          compare two renders (files, -o directories or config\n"
"                      scripts) job by job\n"
"\n"
"render options:\n"
"  -f, --format FMT    json (default), yaml, pb, template, manifest,\n"
"                      template-json, manifest-json\n"
"  -V, --version N     task_type_version 0 or 1 (default 1)\n"
"  -o, --output DIR    one file per job in DIR (<name>.json, .yaml, .pb,\n"
"                      .template.pb, .manifest.yaml); files a previous render\n"
"                      wrote there and this one did not are removed (the list\n"
"                      is kept in DIR/" OUTPUTS_FILE ")\n"
"      --set KEY=VALUE the script sees params.KEY (numbers and true/false\n"
"                      converted); repeatable\n"
"      --name NAME     name of a job returned alone (default: the config's\n"
"                      file name) or prefix for a list's jobs; from a named\n"
"                      set, render only the job called NAME\n"
"      --dry-run       render everything, write nothing, list what would be\n"
"                      written and removed\n"
"      --replica-encoding flat|common\n"
"      --namespace NS, --image IMAGE   for manifests\n"
"      --keep-going    render the other jobs when one fails\n"
"      --progress, --no-progress   progress bar on stderr (default: when\n"
"                      stderr is a terminal and the render takes a while)\n"
"      --memory-limit SIZE          script memory (default 64M; 0: none)\n"
"      --instruction-limit N        script instructions (default 500M)\n"
"\n"
"check options: -V, --set, --name, --image, --strict (warnings fail),\n"
"  the limits\n"
"decode options: --type T (tensorflow, pytorch, mpi or a kind such as\n"
"  HorovodJob), -V N (version of the bytes, default 1), -f FMT, --name\n"
"diff options: --type T and -V N for plugin bytes, -f FMT and --set for\n"
"  config scripts\n"
"\n"
"stdout: json and template-json/manifest-json write one JSON document per\n"
"line (json as {\"name\", \"kind\", \"type\", \"taskTypeVersion\", \"custom\"});\n"
"yaml and manifest write a multi-document YAML stream; pb and template\n"
"write the bytes of a single job.\n"
"\n"
"exit status: 0 ok, 1 invalid config or jobs (diff: differences), 2 usage\n"
"or I/O error\n";

/* ======================================================================
** Small helpers
** ====================================================================== */

static void die_oom(void) {
  fputs("kfjob: out of memory\n", stderr);
  exit(EXIT_USAGE);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) die_oom();
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (p == NULL) die_oom();
  return p;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return (char *)memcpy(xmalloc(n), s, n);
}

static char *xprintf(const char *fmt, ...) {
  va_list ap;
  int n;
  char *p;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  p = (char *)xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

static int errorf(int code, const char *fmt, ...) {
  va_list ap;
  fputs("kfjob: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return code;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read a whole file ("-": stdin).  Returns 0, or -1 with errno set. */
static int read_file(const char *path, char **data, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  size_t n = 0, cap = 0;
  char *p = NULL;
  if (f == NULL) return -1;
  for (;;) {
    size_t r;
    if (cap - n < 4096) p = (char *)xrealloc(p, cap = cap ? cap * 2 : 8192);
    r = fread(p + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
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

static const char *base_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static char *dir_of(const char *path) {
  const char *s = strrchr(path, '/');
  if (s == NULL) return xstrdup(".");
  if (s == path) return xstrdup("/");
  return xprintf("%.*s", (int)(s - path), path);
}

/* File name without directory and without its extensions. */
static char *stem_of(const char *path) {
  const char *b = base_of(path), *dot = strchr(b, '.');
  if (dot == NULL || dot == b) return xstrdup(b);
  return xprintf("%.*s", (int)(dot - b), b);
}

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
static int safe_file_name(const char *s) {
  size_t i, n = strlen(s);
  if (n == 0 || n > 200 || s[0] == '.' || s[0] == '-') return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!(isalnum(c) || c == '-' || c == '_' || c == '.')) return 0;
  }
  return 1;
}

static int is_text_format(kfjob_format f) {
  return f != KFJOB_FORMAT_PB && f != KFJOB_FORMAT_TEMPLATE;
}

static const char *ext_of(kfjob_format f) {
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

/* ======================================================================
** Options
** ====================================================================== */

enum { C_RENDER = 1, C_CHECK = 2, C_DECODE = 4, C_DIFF = 8, C_ALL = 15 };

typedef struct opts {
  int cmd;
  const char *cmdname;
  const char *pos[3];
  int npos;
  kfjob_format format;
  int format_set;
  int version;
  const char *outdir;
  const char **params;
  size_t nparams;
  const char *name, *ns, *image, *replica_encoding, *type;
  int dry_run, progress, keep_going, strict;
  size_t memory_limit;
  unsigned long long instruction_limit;
} opts;

typedef struct optdef {
  const char *lng;
  char shrt;
  int arg;
  int cmds;
} optdef;

static const optdef optdefs[] = {
    {"format", 'f', 1, C_RENDER | C_DECODE | C_DIFF},
    {"version", 'V', 1, C_ALL},
    {"output", 'o', 1, C_RENDER},
    {"set", 0, 1, C_RENDER | C_CHECK | C_DIFF},
    {"name", 0, 1, C_ALL},
    {"dry-run", 0, 0, C_RENDER},
    {"replica-encoding", 0, 1, C_RENDER | C_DIFF},
    {"namespace", 0, 1, C_RENDER | C_DIFF},
    {"image", 0, 1, C_RENDER | C_CHECK | C_DIFF},
    {"keep-going", 0, 0, C_RENDER},
    {"progress", 0, 0, C_RENDER | C_CHECK},
    {"no-progress", 0, 0, C_RENDER | C_CHECK},
    {"memory-limit", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_DECODE},
    {"instruction-limit", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_DECODE},
    {"type", 't', 1, C_DECODE | C_DIFF},
    {"strict", 0, 0, C_CHECK},
    {NULL, 0, 0, 0}};

static int usage_error(const char *fmt, const char *a) {
  fputs("kfjob: ", stderr);
  fprintf(stderr, fmt, a);
  fputs("\nTry 'kfjob --help'.\n", stderr);
  return EXIT_USAGE;
}

/* "64M", "1G", "65536" -> bytes (binary units); -1 if malformed. */
static int parse_size(const char *s, unsigned long long *out, int binary) {
  char *end;
  unsigned long long v, mul = 1, unit = binary ? 1024 : 1000;
  if (!isdigit((unsigned char)s[0])) return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno) return -1;
  switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': mul = unit; end++; break;
    case 'M': mul = unit * unit; end++; break;
    case 'G': mul = unit * unit * unit; end++; break;
    default: return -1;
  }
  if (binary && (*end == 'i' || *end == 'B')) end++;
  if (*end == 'B') end++;
  if (*end != '\0' || (mul > 1 && v > ~0ULL / mul)) return -1;
  *out = v * mul;
  return 0;
}

static int set_option(opts *o, const optdef *d, const char *val) {
  unsigned long long n;
  if (!(d->cmds & o->cmd))
    return usage_error("option '--%s' does not apply to this command", d->lng);
  switch (d->lng[0] == 'n' && d->lng[1] == 'o' ? '!' : d->lng[0]) {
    case 'f':
      if (!kfjob_format_parse(val, &o->format) || o->format == KFJOB_FORMAT_NONE)
        return usage_error("unknown format '%s' (json, yaml, pb, template, "
                           "manifest, template-json, manifest-json)", val);
      o->format_set = 1;
      break;
    case 'V':
    case 'v':
      if (strcmp(val, "0") && strcmp(val, "1"))
        return usage_error("-V expects 0 or 1, got '%s'", val);
      o->version = val[0] - '0';
      break;
    case 'o': o->outdir = val; break;
    case 's':
      if (d->lng[1] == 'e') {
        if (strchr(val, '=') == NULL || val[0] == '=')
          return usage_error("--set expects KEY=VALUE, got '%s'", val);
        o->params = (const char **)xrealloc((void *)o->params,
                                            (o->nparams + 1) * sizeof *o->params);
        o->params[o->nparams++] = val;
      } else {
        o->strict = 1;
      }
      break;
    case 'n':
      if (strcmp(d->lng, "name") == 0) {
        if (val[0] == '\0') return usage_error("--name must not be empty%s", "");
        o->name = val;
      } else {
        o->ns = val;
      }
      break;
    case 'd': o->dry_run = 1; break;
    case 'r':
      if (strcmp(val, "flat") && strcmp(val, "common"))
        return usage_error("--replica-encoding expects flat or common, got '%s'", val);
      o->replica_encoding = val;
      break;
    case 'i':
      if (strcmp(d->lng, "image") == 0) {
        o->image = val;
      } else {
        if (parse_size(val, &n, 0) != 0)
          return usage_error("--instruction-limit expects a count such as 2000M, "
                             "got '%s'", val);
        o->instruction_limit = n;
      }
      break;
    case 'k': o->keep_going = 1; break;
    case 'p': o->progress = 1; break;
    case '!': o->progress = 0; break;
    case 'm':
      if (parse_size(val, &n, 1) != 0 || n > (unsigned long long)(size_t)-1)
        return usage_error("--memory-limit expects a size such as 256M, got '%s'", val);
      o->memory_limit = (size_t)n;
      break;
    case 't': o->type = val; break;
  }
  return 0;
}

/* Parse argv into o; returns -1 when done, else an exit status. */
static int parse_args(int argc, char **argv, opts *o) {
  static const char *const cmds[] = {"render", "check", "decode", "diff", NULL};
  int i, k, only_pos = 0, want;
  memset(o, 0, sizeof *o);
  o->format = KFJOB_FORMAT_JSON;
  o->version = -1;
  o->progress = -1;
  o->memory_limit = KFJOB_DEFAULT_MEMORY_LIMIT;
  o->instruction_limit = KFJOB_DEFAULT_INSTRUCTION_LIMIT;
  if (argc < 2) {
    fputs(usage_text, stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("kfjob %s\n", kfjob_version_string());
    return 0;
  }
  for (k = 0; cmds[k]; k++)
    if (strcmp(argv[1], cmds[k]) == 0) break;
  if (cmds[k] == NULL) return usage_error("unknown command '%s'", argv[1]);
  o->cmd = 1 << k;
  o->cmdname = cmds[k];
  for (i = 2; i < argc; i++) {
    const char *a = argv[i], *val = NULL;
    const optdef *d;
    if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
      if (o->npos == 3) return usage_error("too many arguments (at '%s')", a);
      o->pos[o->npos++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_pos = 1;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (a[1] == '-') {
      const char *eq = strchr(a + 2, '=');
      size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
      for (d = optdefs; d->lng; d++)
        if (strlen(d->lng) == n && strncmp(d->lng, a + 2, n) == 0) break;
      if (d->lng == NULL) return usage_error("unknown option '%s'", a);
      if (eq) {
        if (!d->arg) return usage_error("option '--%s' takes no value", d->lng);
        val = eq + 1;
      }
    } else {
      for (d = optdefs; d->lng; d++)
        if (d->shrt && d->shrt == a[1]) break;
      if (d->lng == NULL) return usage_error("unknown option '%s'", a);
      if (a[2]) {
        if (!d->arg) return usage_error("unknown option '%s'", a);
        val = a + 2;
      }
    }
    if (d->arg && val == NULL) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a value", a);
      val = argv[++i];
    }
    if ((k = set_option(o, d, val)) != 0) return k;
  }
  want = o->cmd == C_DIFF ? 2 : 1;
  if (o->npos != want)
    return usage_error(want == 2 ? "%s needs two arguments" : "%s needs one argument",
                       o->cmdname);
  return -1;
}

/* ======================================================================
** Progress bar (stderr)
** ====================================================================== */

typedef struct progress {
  int on;         /* 1: show, 0: never */
  int tty;        /* stderr is a terminal: redraw in place */
  int forced;     /* --progress: from the first job */
  double start, last;
  int shown;
  size_t done, total, drawn;  /* jobs seen, known total, jobs last drawn */
  char name[48];              /* the last job */
} progress;

static void progress_init(progress *p, int setting) {
  memset(p, 0, sizeof *p);
  p->tty = isatty(STDERR_FILENO);
  p->on = setting == 1 || (setting == -1 && p->tty);
  p->forced = setting == 1;
  p->start = p->last = now();
}

static void progress_draw(progress *p) {
  p->shown = 1;
  p->drawn = p->done;
  fputs(p->tty ? "\r\033[K" : "", stderr);
  if (p->total) {
    int i, w = 30, fill = (int)(w * p->done / p->total);
    fputc('[', stderr);
    for (i = 0; i < w; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %zu/%zu %s", p->done, p->total, p->name);
  } else {
    fprintf(stderr, "[%c] %zu jobs %s", "|/-\\"[p->done % 4], p->done, p->name);
  }
  if (!p->tty) fputc('\n', stderr);
  fflush(stderr);
}

static void progress_update(progress *p, const kfjob_job *j) {
  double t = now();
  if (!p->on) return;
  p->done = j->index + 1;
  p->total = j->total;
  snprintf(p->name, sizeof p->name, "%s", j->name);
  if (!p->forced && t - p->start < 0.3) return;     /* only long renders */
  if (p->shown && t - p->last < 0.1 && p->done != p->total) return;
  p->last = t;
  progress_draw(p);
}

/* The final count (when it was not drawn), then clear a terminal line. */
static void progress_end(progress *p) {
  if (p->shown && p->drawn != p->done) progress_draw(p);
  if (p->shown && p->tty) fputs("\r\033[K", stderr);
  fflush(stderr);
}

/* ======================================================================
** The list of files a render wrote into a directory (DIR/.kfjob-outputs)
** ====================================================================== */

typedef struct entry {
  char *file, *format, *type, *kind, *name;
  int version;
} entry;

typedef struct entries {
  entry *v;
  size_t n, cap;
} entries;

static void entries_add(entries *es, const char *file, const char *format,
                        const char *type, int version, const char *kind,
                        const char *name) {
  entry *e;
  if (es->n == es->cap) es->v = (entry *)xrealloc(es->v, (es->cap = es->cap ? es->cap * 2 : 16) * sizeof *e);
  e = &es->v[es->n++];
  e->file = xstrdup(file);
  e->format = xstrdup(format);
  e->type = xstrdup(type);
  e->kind = xstrdup(kind);
  e->name = xstrdup(name);
  e->version = version;
}

static void entries_free(entries *es) {
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

static const entry *entries_find(const entries *es, const char *file) {
  size_t i;
  for (i = 0; i < es->n; i++)
    if (strcmp(es->v[i].file, file) == 0) return &es->v[i];
  return NULL;
}

/* Read DIR/.kfjob-outputs; a missing file is an empty list. */
static void entries_load(entries *es, const char *dir) {
  char *path = xprintf("%s/%s", dir, OUTPUTS_FILE), *data, *line, *next;
  size_t len;
  memset(es, 0, sizeof *es);
  if (read_file(path, &data, &len) != 0) {
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
    if (n == 6 && safe_file_name(f[0]))
      entries_add(es, f[0], f[1], f[2], atoi(f[3]), f[4], f[5]);
  }
  free(data);
  free(path);
}

static int entries_save(const entries *es, const char *dir) {
  char *path = xprintf("%s/%s", dir, OUTPUTS_FILE);
  char *tmp = xprintf("%s/.%s.tmp", dir, OUTPUTS_FILE + 1);
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

/* ======================================================================
** render
** ====================================================================== */

typedef struct render_ctx {
  const opts *o;
  const char *config;
  progress prog;
  int status;                /* exit status decided in the callback */
  size_t njobs, nfailed;
  entries old, written;      /* -o: previous list, this render's files */
  /* stdout */
  size_t ndocs;
  char *binary;              /* pb/template to stdout: the single job */
  size_t binary_len;
  int binary_count;
} render_ctx;

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
static void write_stream(render_ctx *c, FILE *f, const kfjob_job *j) {
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
static int write_atomic(const char *dir, const char *file, const char *data,
                        size_t n, int newline) {
  char *path = xprintf("%s/%s", dir, file);
  char *tmp = xprintf("%s/.%s.tmp", dir, file);
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

static int on_render(void *ud, const kfjob_job *j) {
  render_ctx *c = (render_ctx *)ud;
  const opts *o = c->o;
  c->njobs++;
  progress_update(&c->prog, j);
  if (j->error) {                          /* --keep-going */
    c->nfailed++;
    if (c->prog.shown && c->prog.tty) fputs("\r\033[K", stderr);
    fprintf(stderr, "%s: job '%s': %s\n", c->config, j->name, j->error);
    return 0;
  }
  if (o->outdir) {
    char *file;
    if (!safe_file_name(j->name)) {
      fprintf(stderr, "%s: job '%s': the name cannot be used as a file name "
              "(letters, digits, '-', '_' and '.', not first)\n", c->config, j->name);
      c->status = EXIT_INVALID;
      return 1;
    }
    file = xprintf("%s%s", j->name, ext_of(j->format));
    if (entries_find(&c->written, file)) {
      fprintf(stderr, "%s: job '%s': a second job writes %s\n", c->config, j->name, file);
      free(file);
      c->status = EXIT_INVALID;
      return 1;
    }
    if (o->dry_run) {
      printf("would write %s/%s (%zu bytes)\n", o->outdir, file, j->size);
    } else if (write_atomic(o->outdir, file, j->data, j->size, is_text_format(j->format)) != 0) {
      fprintf(stderr, "kfjob: cannot write %s/%s: %s\n", o->outdir, file, strerror(errno));
      free(file);
      c->status = EXIT_USAGE;
      return 1;
    }
    entries_add(&c->written, file, kfjob_format_name(j->format), j->task_type,
                j->version, j->kind, j->name);
    free(file);
    return 0;
  }
  if (o->dry_run) {
    printf("%s\t%s\t%s\tv%d\t%zu bytes\n", j->name, j->kind, j->task_type,
           j->version, j->size);
    return 0;
  }
  if (!is_text_format(j->format)) {
    if (c->binary_count++) {
      fprintf(stderr, "kfjob: -f %s writes a single job to stdout and %s has "
              "more; use -o DIR or --name\n", kfjob_format_name(j->format), c->config);
      c->status = EXIT_USAGE;
      return 1;
    }
    c->binary = (char *)memcpy(xmalloc(j->size), j->data, j->size);
    c->binary_len = j->size;
    return 0;
  }
  write_stream(c, stdout, j);
  if (ferror(stdout)) {
    c->status = EXIT_USAGE;
    return 1;
  }
  return 0;
}

static void on_log(void *ud, const char *msg, size_t len) {
  (void)ud;
  fwrite(msg, 1, len, stderr);
  fputc('\n', stderr);
}

static kfjob_host *make_host(const opts *o) {
  kfjob_host_options ho;
  kfjob_host *h;
  kfjob_host_options_init(&ho);
  ho.memory_limit = o->memory_limit;
  ho.instruction_limit = o->instruction_limit;
  ho.log = on_log;
  if (kfjob_host_new(&ho, &h) != KFJOB_OK) die_oom();
  return h;
}

/* Exit status of a failed host call, after printing its message. */
static int report(kfjob_host *h, kfjob_status st, const char *what) {
  const char *msg = kfjob_host_message(h);
  switch (st) {
    case KFJOB_OK: return 0;
    case KFJOB_ESCRIPT: case KFJOB_EJOB:
      fprintf(stderr, "%s\n", msg);
      return EXIT_INVALID;
    case KFJOB_EMEMORY:
      fprintf(stderr, "%s (raise it with --memory-limit)\n", msg);
      return EXIT_INVALID;
    case KFJOB_ELIMIT:
      fprintf(stderr, "%s (raise it with --instruction-limit)\n", msg);
      return EXIT_INVALID;
    case KFJOB_EDATA:
      fprintf(stderr, "%s: %s\n", what, msg);
      return EXIT_INVALID;
    case KFJOB_ESTOPPED:
      return EXIT_USAGE;   /* the callback printed why */
    default:
      fprintf(stderr, "kfjob: %s\n", msg);
      return EXIT_USAGE;
  }
}

/* Default job name: the config's file name without extension. */
static char *default_name(const char *config) {
  char *s = stem_of(config), *p;
  for (p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '.')) *p = '-';
  if (s[0] == '\0' || s[0] == '.' || s[0] == '-') {
    free(s);
    return xstrdup("job");
  }
  return s;
}

static void run_options(const opts *o, kfjob_run_options *ro, const char *name) {
  kfjob_run_options_init(ro);
  ro->format = o->format;
  ro->version = o->version;
  ro->replica_encoding = o->replica_encoding;
  ro->params = o->params;
  ro->nparams = o->nparams;
  ro->name = o->name ? o->name : name;
  ro->select = o->name;
  ro->namespace_ = o->ns;
  ro->image = o->image;
}

static int mkdir_p(const char *dir) {
  char *p = xstrdup(dir), *s;
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

static int cmd_render(const opts *o) {
  render_ctx c;
  kfjob_run_options ro;
  kfjob_host *h;
  kfjob_status st;
  char *name = default_name(o->pos[0]);
  int code;
  memset(&c, 0, sizeof c);
  c.o = o;
  c.config = o->pos[0];
  if (!o->outdir && !o->dry_run && !is_text_format(o->format) &&
      isatty(STDOUT_FILENO)) {
    free(name);
    return errorf(EXIT_USAGE, "-f %s writes binary data: use -o DIR or redirect "
                  "stdout", kfjob_format_name(o->format));
  }
  if (o->outdir) {
    if (!o->dry_run && mkdir_p(o->outdir) != 0) {
      free(name);
      return errorf(EXIT_USAGE, "cannot create %s: %s", o->outdir, strerror(errno));
    }
    entries_load(&c.old, o->outdir);
  }
  run_options(o, &ro, name);
  ro.keep_going = o->keep_going;
  if (o->outdir && (o->format == KFJOB_FORMAT_JSON ||
                    o->format == KFJOB_FORMAT_TEMPLATE_JSON ||
                    o->format == KFJOB_FORMAT_MANIFEST_JSON))
    ro.indent = 2;
  progress_init(&c.prog, o->progress);
  h = make_host(o);
  st = kfjob_host_run_file(h, o->pos[0], &ro, on_render, &c);
  progress_end(&c.prog);
  code = c.status ? c.status : report(h, st, o->pos[0]);
  if (c.status && st != KFJOB_ESTOPPED) report(h, st, o->pos[0]);
  if (code == 0 && c.binary) {
    if (fwrite(c.binary, 1, c.binary_len, stdout) != c.binary_len)
      code = errorf(EXIT_USAGE, "cannot write to stdout");
  }
  if (o->outdir) {
    size_t i, removed = 0;
    /* stale files go only after a complete render; the list then holds
    ** exactly what this render wrote, else everything either one wrote */
    for (i = 0; i < c.old.n; i++) {
      const entry *e = &c.old.v[i];
      char *path;
      struct stat sb;
      if (entries_find(&c.written, e->file)) continue;
      if (code != 0) {
        entries_add(&c.written, e->file, e->format, e->type, e->version, e->kind, e->name);
        continue;
      }
      path = xprintf("%s/%s", o->outdir, e->file);
      if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (o->dry_run) {
          printf("would remove %s\n", path);
        } else if (remove(path) == 0) {
          removed++;
        } else {
          fprintf(stderr, "kfjob: cannot remove %s: %s\n", path, strerror(errno));
          code = EXIT_USAGE;
        }
      }
      free(path);
    }
    if (!o->dry_run) {
      if (entries_save(&c.written, o->outdir) != 0)
        code = errorf(EXIT_USAGE, "cannot write %s/%s: %s", o->outdir,
                      OUTPUTS_FILE, strerror(errno));
      else if (code == 0 && removed)
        fprintf(stderr, "kfjob: %zu job%s written to %s, %zu stale file%s removed\n",
                c.written.n, c.written.n == 1 ? "" : "s", o->outdir, removed,
                removed == 1 ? "" : "s");
      else if (code == 0)
        fprintf(stderr, "kfjob: %zu job%s written to %s\n", c.written.n,
                c.written.n == 1 ? "" : "s", o->outdir);
    }
  }
  if (fflush(stdout) != 0 && code == 0) code = errorf(EXIT_USAGE, "cannot write to stdout");
  entries_free(&c.old);
  entries_free(&c.written);
  free(c.binary);
  free(name);
  kfjob_host_free(h);
  return code;
}

/* ======================================================================
** check
** ====================================================================== */

typedef struct check_ctx {
  const char *config;
  progress prog;
  size_t found, invalid, warnings;
} check_ctx;

static int on_check(void *ud, const kfjob_job *j) {
  check_ctx *c = (check_ctx *)ud;
  size_t i;
  c->found++;
  progress_update(&c->prog, j);
  if (c->prog.shown && c->prog.tty) fputs("\r\033[K", stderr);
  if (j->error) {
    c->invalid++;
    printf("%s - %s %s is invalid: %s\n", c->config, j->kind, j->name, j->error);
  }
  for (i = 0; i < j->nwarnings; i++) {
    c->warnings++;
    printf("%s - %s %s: warning: %s%s%s\n", c->config, j->kind, j->name,
           j->warnings[i].path, j->warnings[i].path[0] ? ": " : "",
           j->warnings[i].message);
  }
  return 0;
}

static int cmd_check(const opts *o) {
  check_ctx c;
  kfjob_run_options ro;
  kfjob_host *h;
  kfjob_status st;
  char *name = default_name(o->pos[0]);
  int code = 0;
  memset(&c, 0, sizeof c);
  c.config = o->pos[0];
  run_options(o, &ro, name);
  ro.format = KFJOB_FORMAT_NONE;
  ro.lint = 1;
  ro.keep_going = 1;
  progress_init(&c.prog, o->progress);
  h = make_host(o);
  st = kfjob_host_run_file(h, o->pos[0], &ro, on_check, &c);
  progress_end(&c.prog);
  if (st != KFJOB_OK && st != KFJOB_EJOB) {
    fflush(stdout);
    code = report(h, st, o->pos[0]);
  } else if (st == KFJOB_EJOB && c.invalid == 0) {
    fflush(stdout);
    code = report(h, st, o->pos[0]);    /* e.g. no job named --name */
  }
  printf("Summary: %zu job%s found, %zu valid, %zu invalid, %zu warning%s\n",
         c.found, c.found == 1 ? "" : "s", c.found - c.invalid, c.invalid,
         c.warnings, c.warnings == 1 ? "" : "s");
  if (code == 0 && (c.invalid || (o->strict && c.warnings))) code = EXIT_INVALID;
  free(name);
  kfjob_host_free(h);
  return code;
}

/* ======================================================================
** Reading renders back: documents
** ====================================================================== */

typedef struct doc {
  char *name;
  json_t *v;
  int anon;                  /* named after its file, not by its content */
} doc;

typedef struct docs {
  doc *v;
  size_t n, cap;
} docs;

static void docs_add(docs *d, const char *name, json_t *v) {
  if (d->n == d->cap) d->v = (doc *)xrealloc(d->v, (d->cap = d->cap ? d->cap * 2 : 16) * sizeof *d->v);
  d->v[d->n].name = xstrdup(name);
  d->v[d->n].v = v;
  d->v[d->n].anon = 0;
  d->n++;
}

static void docs_free(docs *d) {
  size_t i;
  for (i = 0; i < d->n; i++) {
    free(d->v[i].name);
    json_decref(d->v[i].v);
  }
  free(d->v);
  memset(d, 0, sizeof *d);
}

/* A job as the document `render -f json` prints for it. */
static json_t *envelope(const kfjob_job *j, json_t *custom) {
  json_t *e = json_object();
  json_object_set_new(e, "name", json_string(j->name));
  json_object_set_new(e, "kind", json_string(j->kind));
  json_object_set_new(e, "type", json_string(j->task_type));
  json_object_set_new(e, "taskTypeVersion", json_integer(j->version));
  json_object_set_new(e, "custom", custom);
  return e;
}

/* The name a document carries: an envelope's, a manifest's. */
static const char *doc_name(json_t *v) {
  json_t *n = json_object_get(v, "name"), *m;
  if (json_is_string(n) && json_object_get(v, "custom")) return json_string_value(n);
  m = json_object_get(json_object_get(v, "metadata"), "name");
  if (json_is_string(m)) return json_string_value(m);
  return NULL;
}

/* ---- YAML -> json_t ------------------------------------------------------ */

static json_t *yaml_scalar(const yaml_event_t *ev) {
  const char *s = (const char *)ev->data.scalar.value;
  size_t n = ev->data.scalar.length;
  const char *tag = (const char *)ev->data.scalar.tag;
  char *end;
  if (tag && strcmp(tag, YAML_STR_TAG) == 0) return json_stringn(s, n);
  if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return json_stringn(s, n);
  if (n == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
      strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0)
    return json_null();
  if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
    return json_true();
  if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
    return json_false();
  if (isdigit((unsigned char)s[0]) || ((s[0] == '-' || s[0] == '+') && n > 1)) {
    long long i;
    double d;
    errno = 0;
    i = strtoll(s, &end, 10);
    if (*end == '\0' && errno == 0) return json_integer(i);
    d = strtod(s, &end);
    if (*end == '\0' && strpbrk(s, "xXnN") == NULL) return json_real(d);
  }
  return json_stringn(s, n);
}

/* Parse one node whose first event is in ev (consumed). */
static json_t *yaml_node(yaml_parser_t *p, yaml_event_t *ev, const char **err,
                         int depth) {
  json_t *v = NULL;
  if (depth > 100) {
    *err = "nested too deeply";
    yaml_event_delete(ev);
    return NULL;
  }
  switch (ev->type) {
    case YAML_SCALAR_EVENT:
      v = yaml_scalar(ev);
      yaml_event_delete(ev);
      return v;
    case YAML_ALIAS_EVENT:
      *err = "aliases are not supported";
      yaml_event_delete(ev);
      return NULL;
    case YAML_SEQUENCE_START_EVENT:
      yaml_event_delete(ev);
      v = json_array();
      for (;;) {
        yaml_event_t e;
        json_t *x;
        if (!yaml_parser_parse(p, &e)) {
          *err = p->problem ? p->problem : "syntax error";
          json_decref(v);
          return NULL;
        }
        if (e.type == YAML_SEQUENCE_END_EVENT) {
          yaml_event_delete(&e);
          return v;
        }
        if ((x = yaml_node(p, &e, err, depth + 1)) == NULL) {
          json_decref(v);
          return NULL;
        }
        json_array_append_new(v, x);
      }
    case YAML_MAPPING_START_EVENT:
      yaml_event_delete(ev);
      v = json_object();
      for (;;) {
        yaml_event_t e;
        json_t *x;
        char *key;
        if (!yaml_parser_parse(p, &e)) {
          *err = p->problem ? p->problem : "syntax error";
          json_decref(v);
          return NULL;
        }
        if (e.type == YAML_MAPPING_END_EVENT) {
          yaml_event_delete(&e);
          return v;
        }
        if (e.type != YAML_SCALAR_EVENT) {
          *err = "mapping keys must be scalars";
          yaml_event_delete(&e);
          json_decref(v);
          return NULL;
        }
        key = xprintf("%.*s", (int)e.data.scalar.length, (const char *)e.data.scalar.value);
        yaml_event_delete(&e);
        if (!yaml_parser_parse(p, &e)) {
          *err = p->problem ? p->problem : "syntax error";
          free(key);
          json_decref(v);
          return NULL;
        }
        if ((x = yaml_node(p, &e, err, depth + 1)) == NULL) {
          free(key);
          json_decref(v);
          return NULL;
        }
        json_object_set_new(v, key, x);
        free(key);
      }
    default:
      *err = "unexpected YAML event";
      yaml_event_delete(ev);
      return NULL;
  }
}

/* Every document of a YAML stream; 0 or -1 with *err. */
static int parse_yaml(const char *data, size_t n, json_t *out, const char **err) {
  yaml_parser_t p;
  yaml_event_t ev;
  int rc = 0, done = 0;
  if (!yaml_parser_initialize(&p)) die_oom();
  yaml_parser_set_input_string(&p, (const unsigned char *)data, n);
  while (!done && rc == 0) {
    if (!yaml_parser_parse(&p, &ev)) {
      *err = p.problem ? p.problem : "syntax error";
      rc = -1;
      break;
    }
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = 1;
        yaml_event_delete(&ev);
        break;
      case YAML_DOCUMENT_START_EVENT: {
        yaml_event_t e;
        json_t *v;
        yaml_event_delete(&ev);
        if (!yaml_parser_parse(&p, &e)) {
          *err = p.problem ? p.problem : "syntax error";
          rc = -1;
          break;
        }
        if (e.type == YAML_DOCUMENT_END_EVENT) {   /* empty document */
          yaml_event_delete(&e);
          break;
        }
        if ((v = yaml_node(&p, &e, err, 0)) == NULL) {
          rc = -1;
          break;
        }
        json_array_append_new(out, v);
        break;
      }
      default:
        yaml_event_delete(&ev);
        break;
    }
  }
  yaml_parser_delete(&p);
  return rc;
}

/* JSON: one value or JSON lines.  0, or -1 (not JSON). */
static int parse_json_stream(const char *data, size_t n, json_t *out) {
  size_t off = 0;
  while (off < n) {
    json_error_t e;
    json_t *v;
    while (off < n && isspace((unsigned char)data[off])) off++;
    if (off == n) break;
    v = json_loadb(data + off, n - off, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &e);
    if (v == NULL) return -1;
    json_array_append_new(out, v);
    off += e.position;
  }
  return 0;
}

static int looks_binary(const char *data, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)data[i];
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) return 1;
  }
  return 0;
}

typedef struct decode_ctx {
  docs *out;
  render_ctx *stream;        /* decode command: print instead */
  const char *fallback;      /* name when the input carries none */
} decode_ctx;

static int on_decoded(void *ud, const kfjob_job *j) {
  decode_ctx *d = (decode_ctx *)ud;
  json_error_t e;
  json_t *custom;
  if (d->stream) {
    write_stream(d->stream, stdout, j);
    return 0;
  }
  custom = json_loadb(j->data, j->size, JSON_DECODE_ANY, &e);
  if (custom == NULL) return 1;
  docs_add(d->out, j->name, envelope(j, custom));
  return 0;
}

/* Decode one binary (or TaskTemplate JSON) file into documents via the
** host.  type: --type, else from the directory's output list, else a
** TaskTemplate.  Returns an exit status. */
static int decode_bytes(kfjob_host *h, const opts *o, const char *path,
                        const char *data, size_t n, const entry *e,
                        docs *out, render_ctx *stream) {
  kfjob_run_options ro;
  decode_ctx d;
  kfjob_status st;
  const char *type = o->type;
  int version = o->version < 0 ? 1 : o->version;
  char *stem = stem_of(path);
  kfjob_run_options_init(&ro);
  ro.format = stream ? o->format : KFJOB_FORMAT_JSON;
  ro.namespace_ = o->ns;
  ro.image = o->image;
  ro.name = o->name ? o->name : e ? e->name : stem;
  if (type == NULL && e && (strcmp(e->format, "pb") == 0 || strcmp(e->format, "json") == 0)) {
    type = strcmp(e->kind, "HorovodJob") == 0 ? e->kind : e->type;
    version = e->version;
  }
  d.out = out;
  d.stream = stream;
  d.fallback = ro.name;
  st = kfjob_host_decode(h, type, version, data, n, &ro, on_decoded, &d);
  free(stem);
  if (st == KFJOB_OK) return 0;
  if (st == KFJOB_ESTOPPED) return errorf(EXIT_INVALID, "%s: cannot read the decoded JSON", path);
  return report(h, st, path);
}

/* Documents of one file.  Returns an exit status. */
static int load_file(kfjob_host *h, const opts *o, const char *path,
                     const entry *e, docs *out) {
  char *data, *stem;
  size_t n, i;
  json_t *arr;
  const char *err = NULL;
  int code = 0;
  if (read_file(path, &data, &n) != 0)
    return errorf(EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
  if (o->type || looks_binary(data, n) ||
      (e && (strcmp(e->format, "pb") == 0 || strcmp(e->format, "template") == 0 ||
             strcmp(e->format, "template-json") == 0))) {
    code = decode_bytes(h, o, path, data, n, e, out, NULL);
    free(data);
    return code;
  }
  arr = json_array();
  if (parse_json_stream(data, n, arr) != 0) {
    json_array_clear(arr);
    if (parse_yaml(data, n, arr, &err) != 0) {
      code = errorf(EXIT_INVALID, "%s: neither JSON nor YAML (%s)", path, err);
      json_decref(arr);
      free(data);
      return code;
    }
  }
  stem = e ? xstrdup(e->name) : stem_of(path);
  for (i = 0; i < json_array_size(arr); i++) {
    json_t *v = json_array_get(arr, i);
    const char *name = doc_name(v);
    char *made = NULL;
    json_incref(v);
    if (e && e->format && (strcmp(e->format, "json") == 0 || strcmp(e->format, "yaml") == 0)) {
      /* a file of `render -o`: the list knows what the stream form holds */
      json_t *env = json_object();
      json_object_set_new(env, "name", json_string(e->name));
      json_object_set_new(env, "kind", json_string(e->kind));
      json_object_set_new(env, "type", json_string(e->type));
      json_object_set_new(env, "taskTypeVersion", json_integer(e->version));
      json_object_set_new(env, "custom", v);
      v = env;
      name = e->name;
    }
    if (name == NULL)
      name = made = json_array_size(arr) == 1 ? xstrdup(stem) : xprintf("%s#%zu", stem, i + 1);
    docs_add(out, name, v);
    out->v[out->n - 1].anon = made != NULL;
    free(made);
  }
  free(stem);
  json_decref(arr);
  free(data);
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Documents of a directory: the files its output list names, else every
** visible regular file. */
static int load_dir(kfjob_host *h, const opts *o, const char *dir, docs *out) {
  entries es;
  size_t i;
  int code = 0;
  entries_load(&es, dir);
  if (es.n) {
    for (i = 0; i < es.n && code == 0; i++) {
      char *path = xprintf("%s/%s", dir, es.v[i].file);
      code = load_file(h, o, path, &es.v[i], out);
      free(path);
    }
  } else {
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0;
    if (d == NULL) return errorf(EXIT_USAGE, "cannot read %s: %s", dir, strerror(errno));
    while ((de = readdir(d)) != NULL) {
      char *path;
      struct stat sb;
      if (de->d_name[0] == '.') continue;
      path = xprintf("%s/%s", dir, de->d_name);
      if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        names = (char **)xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = path;
      } else {
        free(path);
      }
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    for (i = 0; i < n; i++) {
      if (code == 0) code = load_file(h, o, names[i], NULL, out);
      free(names[i]);
    }
    free(names);
  }
  entries_free(&es);
  return code;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Documents of a config script: its jobs rendered as for stdout. */
typedef struct script_ctx {
  docs *out;
  kfjob_format format;
} script_ctx;

static int on_script_job(void *ud, const kfjob_job *j) {
  script_ctx *c = (script_ctx *)ud;
  json_t *arr;
  const char *err = NULL;
  size_t i;
  if (j->format == KFJOB_FORMAT_JSON) {
    json_error_t e;
    json_t *custom = json_loadb(j->data, j->size, JSON_DECODE_ANY, &e);
    if (custom == NULL) return 1;
    docs_add(c->out, j->name, envelope(j, custom));
    return 0;
  }
  arr = json_array();
  if ((j->format == KFJOB_FORMAT_MANIFEST ? parse_yaml(j->data, j->size, arr, &err)
                                          : parse_json_stream(j->data, j->size, arr)) != 0) {
    json_decref(arr);
    return 1;
  }
  for (i = 0; i < json_array_size(arr); i++)
    docs_add(c->out, j->name, json_incref(json_array_get(arr, i)));
  json_decref(arr);
  return 0;
}

static int load_side(kfjob_host *h, const opts *o, const char *path, docs *out) {
  struct stat sb;
  if (strcmp(path, "-") != 0 && stat(path, &sb) != 0)
    return errorf(EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
  if (strcmp(path, "-") != 0 && S_ISDIR(sb.st_mode)) return load_dir(h, o, path, out);
  if (ends_with(path, ".lua")) {
    kfjob_run_options ro;
    script_ctx c;
    kfjob_status st;
    char *name = default_name(path);
    run_options(o, &ro, name);
    ro.select = NULL;
    if (ro.format == KFJOB_FORMAT_YAML || ro.format == KFJOB_FORMAT_PB ||
        ro.format == KFJOB_FORMAT_TEMPLATE)
      ro.format = KFJOB_FORMAT_JSON;     /* the same content, comparable */
    c.out = out;
    c.format = ro.format;
    st = kfjob_host_run_file(h, path, &ro, on_script_job, &c);
    free(name);
    if (st == KFJOB_ESTOPPED) return errorf(EXIT_USAGE, "%s: unreadable render", path);
    return report(h, st, path);
  }
  {
    char *dir = strcmp(path, "-") == 0 ? NULL : dir_of(path);
    entries es;
    int code;
    memset(&es, 0, sizeof es);
    if (dir) entries_load(&es, dir);
    code = load_file(h, o, path, dir ? entries_find(&es, base_of(path)) : NULL, out);
    entries_free(&es);
    free(dir);
    return code;
  }
}

/* ======================================================================
** decode
** ====================================================================== */

static int cmd_decode(const opts *o) {
  kfjob_host *h = make_host(o);
  render_ctx stream;
  char *data, *dir;
  size_t n;
  entries es;
  int code;
  opts o2 = *o;
  if (read_file(o->pos[0], &data, &n) != 0) {
    kfjob_host_free(h);
    return errorf(EXIT_USAGE, "cannot read %s: %s", o->pos[0], strerror(errno));
  }
  memset(&stream, 0, sizeof stream);
  stream.o = &o2;
  stream.config = o->pos[0];
  if (!is_text_format(o2.format)) {
    free(data);
    kfjob_host_free(h);
    return errorf(EXIT_USAGE, "decode prints text: -f json, yaml, manifest, "
                  "template-json or manifest-json");
  }
  dir = strcmp(o->pos[0], "-") == 0 ? NULL : dir_of(o->pos[0]);
  memset(&es, 0, sizeof es);
  if (dir) entries_load(&es, dir);
  code = decode_bytes(h, &o2, o->pos[0], data, n,
                      dir ? entries_find(&es, base_of(o->pos[0])) : NULL, NULL, &stream);
  entries_free(&es);
  free(dir);
  free(data);
  kfjob_host_free(h);
  if (fflush(stdout) != 0 && code == 0) code = errorf(EXIT_USAGE, "cannot write to stdout");
  return code;
}

/* ======================================================================
** diff
** ====================================================================== */

static void put_value(json_t *v) {
  char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  if (s == NULL) die_oom();
  if (strlen(s) > 200) printf("%.197s...", s);
  else fputs(s, stdout);
  free(s);
}

static int key_is_plain(const char *k) {
  if (*k == '\0') return 0;
  for (; *k; k++)
    if (!(isalnum((unsigned char)*k) || *k == '_' || *k == '-')) return 0;
  return 1;
}

static int numbers_equal(json_t *a, json_t *b) {
  return json_is_number(a) && json_is_number(b) &&
         json_number_value(a) == json_number_value(b);
}

/* Print the paths where a and b differ; returns how many. */
static size_t diff_values(json_t *a, json_t *b, char *path, size_t plen, size_t cap) {
  size_t n = 0;
  if (json_is_object(a) && json_is_object(b)) {
    const char *k;
    json_t *x;
    json_object_foreach(a, k, x) {
      json_t *y = json_object_get(b, k);
      snprintf(path + plen, cap - plen, key_is_plain(k) ? "%s%s" : "%s[\"%s\"]",
               key_is_plain(k) && plen ? "." : "", k);
      if (y == NULL) {
        printf("    %s: ", path);
        put_value(x);
        puts(" -> (absent)");
        n++;
      } else {
        n += diff_values(x, y, path, strlen(path), cap);
      }
    }
    json_object_foreach(b, k, x) {
      if (json_object_get(a, k)) continue;
      snprintf(path + plen, cap - plen, key_is_plain(k) ? "%s%s" : "%s[\"%s\"]",
               key_is_plain(k) && plen ? "." : "", k);
      printf("    %s: (absent) -> ", path);
      put_value(x);
      putchar('\n');
      n++;
    }
    path[plen] = '\0';
    return n;
  }
  if (json_is_array(a) && json_is_array(b)) {
    size_t i, na = json_array_size(a), nb = json_array_size(b);
    for (i = 0; i < na || i < nb; i++) {
      snprintf(path + plen, cap - plen, "[%zu]", i);
      if (i >= nb) {
        printf("    %s: ", path);
        put_value(json_array_get(a, i));
        puts(" -> (absent)");
        n++;
      } else if (i >= na) {
        printf("    %s: (absent) -> ", path);
        put_value(json_array_get(b, i));
        putchar('\n');
        n++;
      } else {
        n += diff_values(json_array_get(a, i), json_array_get(b, i), path, strlen(path), cap);
      }
    }
    path[plen] = '\0';
    return n;
  }
  if (json_equal(a, b) || numbers_equal(a, b)) return 0;
  printf("    %s: ", plen ? path : "(document)");
  put_value(a);
  fputs(" -> ", stdout);
  put_value(b);
  putchar('\n');
  return 1;
}

static doc *docs_find(docs *d, const char *name, size_t *from) {
  size_t i;
  for (i = 0; i < d->n; i++)
    if (d->v[i].name && strcmp(d->v[i].name, name) == 0) {
      if (from) *from = i;
      return &d->v[i];
    }
  return NULL;
}

static int cmd_diff(const opts *o) {
  kfjob_host *h = make_host(o);
  docs a, b;
  size_t i, changed = 0, only_a = 0, only_b = 0;
  int code;
  char path[4096];
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  code = load_side(h, o, o->pos[0], &a);
  if (code == 0) code = load_side(h, o, o->pos[1], &b);
  if (code != 0) {
    docs_free(&a);
    docs_free(&b);
    kfjob_host_free(h);
    return code == EXIT_INVALID ? EXIT_USAGE : code;  /* 1 means "different" */
  }
  /* two single documents without names of their own: compare them */
  if (a.n == 1 && b.n == 1 && (a.v[0].anon || b.v[0].anon)) {
    free(b.v[0].name);
    b.v[0].name = xstrdup(a.v[0].name);
  }
  for (i = 0; i < a.n; i++) {
    size_t k;
    doc *other = docs_find(&b, a.v[i].name, &k);
    if (docs_find(&a, a.v[i].name, NULL) != &a.v[i]) continue;  /* repeated */
    if (other == NULL) {
      printf("- %s: only in %s\n", a.v[i].name, o->pos[0]);
      only_a++;
      continue;
    }
    path[0] = '\0';
    if (!json_equal(a.v[i].v, other->v)) {
      size_t n;
      printf("~ %s:\n", a.v[i].name);
      n = diff_values(a.v[i].v, other->v, path, 0, sizeof path);
      if (n == 0) puts("    (numbers written differently)");
      else changed++;
    }
  }
  for (i = 0; i < b.n; i++) {
    if (docs_find(&b, b.v[i].name, NULL) != &b.v[i]) continue;
    if (docs_find(&a, b.v[i].name, NULL) == NULL) {
      printf("+ %s: only in %s\n", b.v[i].name, o->pos[1]);
      only_b++;
    }
  }
  if (changed || only_a || only_b)
    printf("%zu changed, %zu only in %s, %zu only in %s\n", changed, only_a,
           o->pos[0], only_b, o->pos[1]);
  docs_free(&a);
  docs_free(&b);
  kfjob_host_free(h);
  if (fflush(stdout) != 0) return errorf(EXIT_USAGE, "cannot write to stdout");
  return (changed || only_a || only_b) ? EXIT_INVALID : 0;
}

/* ======================================================================
** main
** ====================================================================== */

int main(int argc, char **argv) {
  opts o;
  int code = parse_args(argc, argv, &o);
  if (code >= 0) {
    free((void *)o.params);
    return code;
  }
  switch (o.cmd) {
    case C_RENDER: code = cmd_render(&o); break;
    case C_CHECK: code = cmd_check(&o); break;
    case C_DECODE: code = cmd_decode(&o); break;
    default: code = cmd_diff(&o); break;
  }
  free((void *)o.params);
  return code;
}

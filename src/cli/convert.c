/*
** convert.c - `kfjob convert FILE|- [--to TARGET] [-f FORMAT] [--name N]
** [--kind K] [-o DIR] [--lossy]`: manifests (one or a stream) read back
** through kfjob_host_import_manifests(), or a TaskTemplate/TaskSpec/plugin file
** through kfjob_host_decode() as `decode` reads it, and written for a
** target (default: the input's own, which prints a manifest back).
** Configs convert too: a data config (.yaml, .yml, .json by its name, or
** stdin without apiVersion) or a .lua config script is rendered as
** `kfjob render` does; -f lua/config/config-yaml of a data config writes
** its jobs as a config again (a script's jobs stay in its sandbox).  -f
** lua of a TaskTemplate or TaskSpec writes a { job =, opts = } entry with
** the registration values no job field holds (id, interface, metadata).
**
** Every output is held until all jobs converted, so a failure writes
** nothing (-o DIR files go through a temporary name and a rename).  Each
** path kfjob could not read is one stderr line; any makes the exit 1
** unless --lossy.  Exit 2: usage or I/O errors.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char convert_usage[] =
    "usage: kfjob convert FILE|- [--to TARGET] [-f FORMAT] [--name N] [--kind K]\n"
    "                     [-o DIR] [--lossy] [--time-limit DURATION]\n"
    "                     [--memory-limit SIZE]\n"
    "\n"
    "Read Kubernetes manifests (kubeflow.org/v1, kubeflow.org/v2beta1 MPIJob,\n"
    "trainer.kubeflow.org/v1alpha1 TrainJob, a Flyte 2 clustered task's JobSet;\n"
    "streams too), a TaskTemplate (clustered-task too),\n"
    "TaskSpec or plugin file (as decode reads it), or a config (.yaml, .yml,\n"
    ".json data config; .lua script, not for -f lua or config) and write each\n"
    "job for a target.\n"
    "\n"
    "options:\n"
    "  --to TARGET     flyte, flyte2, operator, mpi-operator, trainer-2.2,\n"
    "                  trainer-2.3, trainer-2.4, flyte2-clustered (default:\n"
    "                  the input's own target)\n"
    "  -f FORMAT       manifest (default), manifest-json, yaml, json, template,\n"
    "                  template-json, taskspec, taskspec-json, pb; lua (a config\n"
    "                  script), config (a data config, JSON) or config-yaml (a\n"
    "                  data config, YAML)\n"
    "  --name N        the job's name (one job), else the input's; of a\n"
    "                  config: as render's --name\n"
    "  --image IMAGE   a config's task image (groups without their own)\n"
    "  --kind K        read as this kind (Elastic for a TrainJob, HorovodJob)\n"
    "  -o DIR          one file per job in DIR\n"
    "  --lossy         list what kfjob cannot hold instead of failing\n"
    "  --time-limit DURATION\n"
    "                  wall-clock limit, e.g. 30s, 500ms, 2m (default 60s, as\n"
    "                  render's; 0: none)\n"
    "  --memory-limit SIZE\n"
    "                  memory for reading, e.g. 256M (default 64M, or 48 bytes a\n"
    "                  byte of input when more; 0: none)\n"
    "\n"
    "exit status: 0 ok, 1 input kfjob cannot read or a target refuses, or a\n"
    "field that does not carry over (without --lossy), 2 usage or I/O error.\n";

static const char *const convert_formats[] = {
    "manifest", "manifest-json", "yaml", "json", "template", "template-json",
    "taskspec", "taskspec-json", "pb", "lua", "config", "config-yaml", NULL};

/* The command line of convert. */
typedef struct cargs {
  const char *file, *to, *name, *kind, *outdir, *image;
  kfjob_format format;
  const char *config;   /* -f lua, config or config-yaml: the generator's mode,
                           else NULL */
  int lossy;
  unsigned long time_limit_ms;   /* --time-limit (0: the default) */
  size_t memory_limit;  /* --memory-limit (0: none); unset: by the input's size */
  int memory_set;
  unsigned long long start_ms;   /* when the command started (monotonic) */
  int format_set;       /* -f given; else a JSON manifest writes JSON back */
} cargs;

/* One job converted, held until every job is. */
typedef struct held {
  char *file;        /* its file name under -o DIR */
  size_t doc;        /* its document in the input (1-based; a config's job:
                        its place among the jobs) */
  size_t item;       /* its place in a List's items (1-based; 0: none) */
  char *ns;          /* a manifest's metadata.namespace, or NULL */
  char *stem;        /* its name among the others (names.c), or NULL */
  kfjob_job job;     /* data, name and kind copied */
} held;

/* What the input is. */
enum { IN_MANIFEST, IN_FLYTE, IN_DATA, IN_SCRIPT };

typedef struct conv {
  const cargs *a;
  int in;               /* IN_* */
  char *name;           /* a config's default job name (render's) */
  held *v;
  size_t n, cap;
  size_t unmapped;
  size_t refused;       /* documents the target refused, each reported */
  size_t others;        /* documents of other kinds held, copied through */
  int quiet;            /* the second pass of -f lua/config: no report */
  size_t seen;          /* jobs a config gave (held or refused) */
  int check_only;       /* the first pass of -f lua/config of manifests: the
                           target's checks, no manifest kept (the second
                           pass makes what the config is written from) */
} conv;

static int usage_err(const char *fmt, const char *x, const char *hint) {
  fputs("kfjob: convert: ", stderr);
  fprintf(stderr, fmt, x);
  if (hint) fprintf(stderr, " (did you mean '%s'?)", hint);
  fputs("\nTry 'kfjob convert --help'.\n", stderr);
  return EXIT_USAGE;
}

static int parse_format(const char *v, cargs *a) {
  a->config = NULL;
  if (kfjob_format_parse(v, &a->format) && strcmp(v, "none") != 0 &&
      strcmp(v, "environment") != 0)
    return -1;
  if (strcmp(v, "lua") == 0 || strcmp(v, "config") == 0 || strcmp(v, "config-yaml") == 0) {
    a->format = KFJOB_FORMAT_MANIFEST;   /* the first pass checks the target */
    a->config = v;
    return -1;
  }
  return usage_err("unknown format '%s'", v, kfjob_suggest(v, convert_formats));
}

/* A flag's value, or a usage error. */
static int value_of(int argc, char **argv, int *i, const char **out) {
  if (*i + 1 >= argc) return usage_err("option '%s' needs a value", argv[*i], NULL);
  *out = argv[++*i];
  return -1;
}

/* --memory-limit: render's (0: none). */
static int memory_limit(const char *v, cargs *a) {
  unsigned long long n;
  if (cli_parse_size(v, &n, 1) != 0 || n > (unsigned long long)(size_t)-1)
    return usage_err("--memory-limit expects a size such as 256M, got '%s'", v, NULL);
  a->memory_limit = (size_t)n, a->memory_set = 1;
  return -1;
}

/* --time-limit: render's (0: none; the run options' 0 is the default). */
static int time_limit(const char *v, cargs *a) {
  unsigned long long n;
  if (cli_parse_duration(v, &n) != 0 || n > (unsigned long)-1)
    return usage_err("--time-limit expects a duration such as 30s, 500ms or 2m, got '%s'",
                     v, NULL);
  a->time_limit_ms = n ? (unsigned long)n : KFJOB_NO_TIME_LIMIT;
  return -1;
}

static unsigned long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

/* The time left of the command's limit, for each of its host calls (one
** limit for the whole command, as render's for its run); at least 1 ms,
** so a call past it stops at once. */
static unsigned long time_left(const cargs *a) {
  unsigned long ms = a->time_limit_ms ? a->time_limit_ms : KFJOB_DEFAULT_TIME_LIMIT_MS;
  unsigned long long spent = now_ms() - a->start_ms;
  if (ms == KFJOB_NO_TIME_LIMIT) return ms;
  return spent >= ms ? 1 : (unsigned long)(ms - spent);
}

/* A host call's failure (cli_report); past the time limit, the command's
** limit is named (each call was given what was left of it). */
static int report(kfjob_host *h, kfjob_status st, const cargs *a) {
  unsigned long ms = a->time_limit_ms ? a->time_limit_ms : KFJOB_DEFAULT_TIME_LIMIT_MS;
  if (st == KFJOB_ELIMIT && strstr(kfjob_host_message(h), "time limit exceeded"))
    return cli_errorf(EXIT_INVALID, "%s: time limit exceeded (%lu ms) (raise it with "
                      "--time-limit)", cli_config_label(a->file), ms);
  return cli_report(h, st, cli_config_label(a->file));
}

static int parse_one(int argc, char **argv, int *i, cargs *a) {
  const char *s = argv[*i], *v = NULL;
  char why[256];
  int code;
  if (strcmp(s, "--lossy") == 0) return a->lossy = 1, -1;
  if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
    fputs(convert_usage, stdout);
    return 0;
  }
  if (s[0] == '-' && s[1] != '\0') {
    if ((code = value_of(argc, argv, i, &v)) >= 0) return code;
    if (strcmp(s, "--to") == 0 || strcmp(s, "--target") == 0) {
      if (!kfjob_target_check(v, why, sizeof why)) return usage_err("--to: %s", why, NULL);
      a->to = v;
    } else if (strcmp(s, "-f") == 0 || strcmp(s, "--format") == 0) {
      a->format_set = 1;
      return parse_format(v, a);
    } else if (strcmp(s, "--name") == 0) a->name = v;
    else if (strcmp(s, "--kind") == 0) a->kind = v;
    else if (strcmp(s, "--image") == 0) a->image = v;
    else if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) a->outdir = v;
    else if (strcmp(s, "--time-limit") == 0) return time_limit(v, a);
    else if (strcmp(s, "--memory-limit") == 0) return memory_limit(v, a);
    else return usage_err("unknown option '%s'", s, NULL);
    return -1;
  }
  if (a->file) return usage_err("one input file, got '%s' too", s, NULL);
  a->file = s;
  return -1;
}

static int parse_convert(int argc, char **argv, cargs *a) {
  int i, code;
  memset(a, 0, sizeof *a);
  a->format = KFJOB_FORMAT_MANIFEST;
  a->start_ms = now_ms();
  for (i = 2; i < argc; i++)
    if ((code = parse_one(argc, argv, &i, a)) >= 0) return code;
  if (a->file == NULL) return usage_err("%s", "missing FILE (or - for stdin)", NULL);
  if (a->name && a->name[0] == '\0') return usage_err("%s", "--name must not be empty", NULL);
  return -1;
}

/* "FILE: document D" (", item I" for a List's item), malloc'd. */
static char *doc_at(const conv *c, const kfjob_import_info *info) {
  if (info->item)
    return cli_xprintf("%s: document %zu, item %zu", cli_config_label(c->a->file),
                       info->document, info->item);
  return cli_xprintf("%s: document %zu", cli_config_label(c->a->file), info->document);
}

/* Keep a copy of the job (data, name, kind; a manifest's namespace and
** place from `info`, NULL for a config's job) until every job converted. */
static int hold(conv *c, const kfjob_job *j, const kfjob_import_info *info) {
  held *h;
  char *data;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 8;
    c->v = (held *)cli_xrealloc(c->v, c->cap * sizeof *c->v);
  }
  h = &c->v[c->n++];
  h->job = *j;
  data = (char *)cli_xmalloc(j->size + 1);
  memcpy(data, j->data ? j->data : "", j->size);
  data[j->size] = '\0';
  h->job.data = data;
  h->job.name = cli_xstrdup(j->name);
  h->job.kind = cli_xstrdup(j->kind);
  h->job.task_type = cli_xstrdup(j->task_type);
  h->job.warnings = NULL, h->job.nwarnings = 0, h->job.resources = NULL;
  h->file = cli_xprintf("%s%s", j->name, cli_ext_of(j->format));
  h->doc = info ? info->document : j->index + 1;
  h->item = info ? info->item : 0;
  h->ns = info && info->namespace_ ? cli_xstrdup(info->namespace_) : NULL;
  h->stem = NULL;
  return 0;
}

/* A held job's data becomes `text` (a config), its file NAME<ext>. */
static int replace_held(held *h, const char *text, const char *ext) {
  free((void *)h->job.data);
  free(h->file);
  h->job.data = cli_xstrdup(text);
  h->job.size = strlen(text);
  h->job.format = KFJOB_FORMAT_MANIFEST;   /* text, as is */
  h->file = cli_xprintf("%s%s", h->stem ? h->stem : h->job.name, ext);
  return 0;
}

/* Two documents of one name (two namespaces, two kinds) are two objects:
** each held one gets a name no other has (cli_unique_names), its file
** NAME<ext> under -o DIR and its key in a config; each changed one is
** said on stderr.  Exit 2 when no names can be told apart. */
static int unique_stems(conv *c) {
  cli_named *v = (cli_named *)cli_xmalloc((c->n ? c->n : 1) * sizeof *v);
  char **names;
  size_t i;
  for (i = 0; i < c->n; i++) {
    v[i].name = c->v[i].job.name, v[i].ns = c->v[i].ns, v[i].kind = c->v[i].job.kind;
    v[i].doc = c->v[i].doc, v[i].item = c->v[i].item;
  }
  names = cli_unique_names(v, c->n);
  free(v);
  if (names == NULL)
    return cli_errorf(EXIT_USAGE, "%s: documents whose names, namespaces, kinds and places "
                      "cannot be told apart", cli_config_label(c->a->file));
  for (i = 0; i < c->n; i++) {
    held *h = &c->v[i];
    const char *ext = h->file + strlen(h->job.name);
    h->stem = names[i];
    if (strcmp(h->stem, h->job.name) == 0) continue;
    {
      char *file = cli_xprintf("%s%s", h->stem, ext);
      free(h->file);
      h->file = file;
    }
    if (!c->quiet && (c->a->outdir || (c->a->config && strcmp(c->a->config, "lua") == 0)))
      fprintf(stderr, "kfjob: %s: document %zu: '%s'%s%s written as '%s' (another document "
              "has its name)\n", cli_config_label(c->a->file), h->doc, h->job.name,
              h->ns ? " of namespace " : "", h->ns ? h->ns : "", h->stem);
  }
  free(names);
  return 0;
}

/* `msg` in the command line's words (malloc'd): the options the Lua API
** names are this command's flags (opts.image: --image); of a manifest,
** what its own fields gave is named by them (opts.name: metadata.name,
** unless --name gave it). */
static char *user_words(const conv *c, const char *msg) {
  static const char *const flags[][2] = {{"opts.image", "--image"}, {"opts.name", "--name"},
                                         {"opts.namespace", "--namespace"},
                                         {"opts.kind", "--kind"}, {"opts.lossy", "--lossy"},
                                         {"kfjob render --image", "--image"}};
  static const char *const fields[][2] = {{"opts.name", "metadata.name"},
                                          {"opts.namespace", "metadata.namespace"},
                                          {"opts.labels", "metadata.labels"},
                                          {"opts.annotations", "metadata.annotations"}};
  char *s = cli_xstrdup(msg), *p;
  size_t k, i;
  for (i = 0; i < 2; i++) {
    const char *const (*w)[2] = i ? flags : fields;
    size_t nw = i ? sizeof flags / sizeof flags[0] : sizeof fields / sizeof fields[0];
    if (i == 0 && c->in != IN_MANIFEST) continue;
    for (k = 0; k < nw; k++) {
      if (i == 0 && k == 0 && c->a->name) continue;   /* --name's */
      while ((p = strstr(s, w[k][0])) != NULL) {
        char *t = cli_xprintf("%.*s%s%s", (int)(p - s), s, w[k][1], p + strlen(w[k][0]));
        free(s);
        s = t;
      }
    }
  }
  return s;
}

/* "kfjob: AT: " and the job's error, or a line like it per error of the
** target's rules (the error is the first's), each with its rule. */
static void refusal(const conv *c, const char *at, const kfjob_job *j, const char *msg) {
  size_t i;
  char *s;
  if (j->nproblems == 0) {
    s = user_words(c, msg);
    fprintf(stderr, "kfjob: %s: %s\n", at, s);
    free(s);
  }
  for (i = 0; i < j->nproblems; i++) {
    const kfjob_problem *p = &j->problems[i];
    char *path = user_words(c, p->path), *m = user_words(c, p->message);
    fprintf(stderr, "kfjob: %s: kfjob.%s: %s: %s (target %s; rule %s: %s)\n", at, j->kind,
            path, m, p->target, p->rule, p->source[0] ? p->source : "kfjob");
    free(path);
    free(m);
  }
}

/* A document of another kind (a ConfigMap, a Service): copied through to
** the output in its place, and listed; a config holds jobs only. */
static int on_other(conv *c, const kfjob_job *j, const kfjob_import_info *info) {
  int copy = !c->a->config && (c->a->format == KFJOB_FORMAT_MANIFEST ||
                                c->a->format == KFJOB_FORMAT_MANIFEST_JSON);
  char *base, *at;
  size_t k;
  if (c->quiet) return 0;
  at = doc_at(c, info);
  fprintf(stderr, "kfjob: %s (%s %s): not a job kfjob reads: %s\n", at,
          j->kind[0] ? j->kind : "no kind",
          info->name[0] ? info->name : "unnamed",
          copy ? "copied through unchanged"
               : c->a->config ? "left out of the config" : "left out (-f writes jobs only)");
  free(at);
  if (!copy) return 0;
  base = cli_xprintf("%s-%s", j->kind[0] ? j->kind : "document",
                     info->name[0] ? info->name : "unnamed");
  for (k = 0; base[k]; k++)
    if (base[k] >= 'A' && base[k] <= 'Z') base[k] = (char)(base[k] - 'A' + 'a');
  {
    kfjob_job copy = *j;
    copy.name = base;
    hold(c, &copy, info);
  }
  free(base);
  c->others++;
  return 0;
}

/* What the target's rules drop on the way (a TrainJob's TTL and backoff
** limit, R19, R20): their warnings, one stderr line each, --lossy or not. */
static void dropped(const conv *c, const char *at, const kfjob_job *j) {
  size_t i;
  if (c->quiet || c->a->to == NULL) return;
  for (i = 0; i < j->nwarnings; i++)
    if (strstr(j->warnings[i].message, "dropped") != NULL)
      fprintf(stderr, "kfjob: %s: %s: %s (target %s)\n", at, j->warnings[i].path,
              j->warnings[i].message, c->a->to);
}

/* A manifest read as Flyte's (its whole shape) written for another
** target: what Flyte's backend added to its pods is not the job's and is
** not written; one stderr line says so, naming the fields. */
static void flyte_left(const conv *c, const char *at, const kfjob_import_info *info) {
  const char *to = c->a->to;
  if (c->quiet || to == NULL || info->target == NULL ||
      strncmp(info->target, "flyte", 5) != 0 || strncmp(to, "flyte", 5) == 0)
    return;
  fprintf(stderr, "kfjob: %s: read as Flyte's (target %s): what its backend adds to every "
          "pod (template.metadata.annotations[cluster-autoscaler.kubernetes.io/safe-to-evict], "
          "the task container's terminationMessagePolicy%s) is left out on target %s\n",
          at, info->target, strcmp(info->target, "flyte2") == 0
              ? ", template.spec.enableServiceLinks" : ", a PyTorch worker's _F_WN variable",
          to);
}

static int on_import(void *ud, const kfjob_job *j, const kfjob_import_info *info) {
  conv *c = (conv *)ud;
  size_t i;
  if (info->other) return on_other(c, j, info);
  char *at = doc_at(c, info);
  if (!j->error) {
    dropped(c, at, j);
    flyte_left(c, at, info);
    if (info->generate_name && !c->quiet && c->a->name == NULL)
      fprintf(stderr, "kfjob: %s: metadata.generateName '%s' written as metadata.name '%s' "
              "(the API server would add 5 random characters to each new job; --name gives "
              "another)\n", at, info->generate_name, j->name);
  }
  for (i = 0; i < info->nunmapped && !c->quiet; i++, c->unmapped++)
    fprintf(stderr, "kfjob: %s: %s: %s (value %s)%s\n", at, info->unmapped[i].path,
            info->unmapped[i].reason ? info->unmapped[i].reason : "not read",
            info->unmapped[i].value, c->a->lossy ? " (left out: --lossy)" : "");
  if (j->error && !c->quiet) {   /* each refusal, named by file and document */
    refusal(c, at, j, j->error);
    c->refused++;
  }
  free(at);
  return j->error ? 0 : hold(c, j, info);
}

/* A job of a config or a Flyte file: held, or (keep_going) its refusal
** reported as a manifest's is. */
static int on_decode(void *ud, const kfjob_job *j) {
  conv *c = (conv *)ud;
  long line;
  const char *label = cli_config_label(c->a->file), *msg;
  char *at;
  c->seen++;
  if (j->error == NULL) return hold(c, j, NULL);
  if (c->quiet) return 0;
  msg = cli_split_position(label, j->error, &line);
  at = line ? cli_xprintf("%s:%ld: job '%s'", label, line, j->name)
            : cli_xprintf("%s: job '%s'", label, j->name);
  refusal(c, at, j, msg);
  free(at);
  c->refused++;
  return 0;
}

/* Is the text a Kubernetes manifest (else a Flyte file, as decode reads)? */
static int is_manifest(const char *data, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (data[i] == '\0') return 0;
  return strstr(data, "apiVersion") != NULL && strstr(data, "kind") != NULL;
}

/* Does the file name end with ext (ASCII, any case)? */
static int has_ext(const char *file, const char *ext) {
  size_t n = strlen(file), k = strlen(ext), i;
  if (n <= k) return 0;
  for (i = 0; i < k; i++)
    if ((char)(file[n - k + i] | (file[n - k + i] >= 'A' && file[n - k + i] <= 'Z' ? 0x20 : 0))
        != ext[i])
      return 0;
  return 1;
}

/* Is `key` at d[i], quoted or not, followed by ':' (spaces before it
** allowed)? */
static int key_at(const char *d, size_t n, size_t i, const char *key) {
  size_t k = strlen(key);
  char q = i < n && (d[i] == '"' || d[i] == '\'') ? d[i] : 0;
  i += q != 0;
  if (n - i <= k || memcmp(d + i, key, k) != 0) return 0;
  i += k;
  if (q && (i >= n || d[i++] != q)) return 0;
  while (i < n && d[i] == ' ') i++;
  return i < n && d[i] == ':';
}

/* Does a line start with `key:` (a top-level key of a YAML mapping; the
** key may be quoted)?  A text that opens a flow mapping: is `key` one of
** its keys (after '{' or ',')? */
static int top_key(const char *d, size_t n, const char *key) {
  size_t i = 0, j;
  while (i < n && strchr(" \t\r\n", d[i])) i++;
  if (i < n && d[i] == '{')
    for (j = i; j < n; j++) {
      size_t x = j + 1;
      if (d[j] != '{' && d[j] != ',') continue;
      while (x < n && strchr(" \t\r\n", d[x])) x++;
      if (key_at(d, n, x, key)) return 1;
    }
  i = 0;
  while (i < n) {
    if (key_at(d, n, i, key)) return 1;
    while (i < n && d[i] != '\n') i++;
    i++;
  }
  return 0;
}

/* Is the text before the first NUL (at `at`) YAML or JSON text, not a
** Flyte file's bytes: printable, with a manifest's or config's key? */
static int text_before_nul(const char *d, size_t at) {
  size_t i;
  for (i = 0; i < at; i++)
    if ((unsigned char)d[i] < 0x20 && !strchr("\t\r\n", d[i])) return 0;
  return top_key(d, at, "apiVersion") || top_key(d, at, "kind") || top_key(d, at, "jobs");
}

/* JSON input: a manifest (an object with apiVersion), a data config (a
** list, or an object with kind or jobs), a Flyte file, or -1 (not JSON). */
static int json_input(const char *d, size_t n) {
  json_t *root;
  int in = -1;
  if (n >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0) d += 3, n -= 3;   /* a UTF-8 BOM */
  root = json_loadb(d, n, JSON_DISABLE_EOF_CHECK, NULL);   /* JSON Lines: the first */
  if (root == NULL) return -1;
  if (json_is_object(root) && json_object_get(root, "apiVersion")) in = IN_MANIFEST;
  else if (json_is_array(root) || json_object_get(root, "kind") || json_object_get(root, "jobs"))
    in = IN_DATA;
  else in = IN_FLYTE;
  json_decref(root);
  return in;
}

/* What the input is: a document with apiVersion is a manifest; a file
** named .yaml, .yml or .json without one is a data config (as render
** reads it), stdin one when it shows a job's shape; .lua a config script;
** anything else a Flyte file, as decode reads it. */
static int input_of(const char *file, const char *d, size_t n) {
  int data = has_ext(file, ".yaml") || has_ext(file, ".yml") || has_ext(file, ".json");
  size_t i = 0;
  int in;
  const char *nul = (const char *)memchr(d, '\0', n);
  if (has_ext(file, ".lua")) return IN_SCRIPT;
  if (n >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0) d += 3, n -= 3;   /* a UTF-8 BOM */
  if (nul) {   /* text with a NUL: its reader names it (a .yaml file's too) */
    if (!data && !text_before_nul(d, (size_t)(nul - d))) return IN_FLYTE;
    n = (size_t)(nul - d);
  }
  while (i < n && strchr(" \t\r\n", d[i])) i++;
  if (i < n && (d[i] == '{' || d[i] == '[') && (in = json_input(d, n)) >= 0)
    return in == IN_DATA && !data && strcmp(file, "-") != 0 ? IN_FLYTE : in;
  if (top_key(d, n, "apiVersion")) return IN_MANIFEST;
  if (data || (strcmp(file, "-") == 0 &&
               (top_key(d, n, "kind") || top_key(d, n, "jobs") || (n > 1 && d[0] == '-' && d[1] == ' '))))
    return IN_DATA;
  return is_manifest(d, n) ? IN_MANIFEST : IN_FLYTE;
}

/* A config rendered as `kfjob render` renders it (-f lua/config: checked
** only, for --to); a data config on stdin is named stdin.yaml or
** stdin.json, which tells the host what it is. */
static kfjob_status run_config(kfjob_host *h, conv *c, const char *data, size_t n) {
  const cargs *a = c->a;
  const char *chunk = a->file;
  kfjob_run_options ro;
  kfjob_run_options_init(&ro);
  ro.format = a->config ? KFJOB_FORMAT_NONE : a->format;
  /* -f lua/config without --to: a config has no target; checked as the
  ** operator runs it (it takes a group's own container, which Flyte's
  ** one task container cannot) */
  ro.target = a->to ? a->to : a->config ? "operator" : NULL;
  ro.name = a->name ? a->name : c->name;
  ro.select = a->name;
  ro.image = a->image;
  ro.keep_going = 1;   /* every refusal reported, then none written */
  ro.time_limit_ms = time_left(a);
  if (a->config && ro.image == NULL) ro.image = "image";   /* the check's: not written */
  if (strcmp(a->file, "-") == 0)
    chunk = json_input(data, n) == IN_DATA ? "stdin.json" : "stdin.yaml";
  return kfjob_host_run_string(h, data, n, chunk, &ro, on_decode, c);
}

static void free_held(held *h);
static void free_conv(conv *c);

/* Moves c's held jobs that `acc` lacks (by name) into acc. */
static void take_new(conv *acc, conv *c) {
  size_t i, k;
  for (i = 0; i < c->n; i++) {
    for (k = 0; k < acc->n && strcmp(acc->v[k].job.name, c->v[i].job.name) != 0; k++) {}
    if (k < acc->n) {   /* held already (another target's) */
      free_held(&c->v[i]);
      continue;
    }
    if (acc->n == acc->cap) {
      acc->cap = acc->cap ? 2 * acc->cap : 8;
      acc->v = (held *)cli_xrealloc(acc->v, acc->cap * sizeof *acc->v);
    }
    acc->v[acc->n++] = c->v[i];
  }
  free(c->v);
  c->v = NULL, c->n = c->cap = 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const held *)a)->job.name, ((const held *)b)->job.name);
}

/* -f lua/config of a data config without --to: no target was asked for,
** so a job is held when some target runs it (a data config of an MPIJob
** with mpi-operator's fields, a TrainJob's runtime), each target tried
** quietly; a job none runs gets the operator's refusal. */
static kfjob_status run_untargeted(kfjob_host *h, conv *c, const char *data, size_t n) {
  static const char *const targets[] = {"operator", "flyte", "mpi-operator", "trainer-2.4",
                                        "trainer-2.3", "trainer-2.2", "flyte2",
                                        "flyte2-clustered", NULL};
  cargs a2 = *c->a;
  const cargs *keep = c->a;
  conv acc;
  int quiet = c->quiet;
  size_t i;
  kfjob_status st = KFJOB_EJOB;
  memset(&acc, 0, sizeof acc);
  c->a = &a2;
  c->quiet = 1;
  for (i = 0; st == KFJOB_EJOB && targets[i]; i++) {
    a2.to = targets[i];
    c->seen = 0;
    st = run_config(h, c, data, n);
    take_new(&acc, c);
    if (st == KFJOB_EJOB && acc.n == c->seen) st = KFJOB_OK;   /* each job: some target's */
  }
  c->quiet = quiet;
  if (st == KFJOB_EJOB) {   /* a job no target runs: the operator's refusals */
    free_conv(&acc);
    memset(&acc, 0, sizeof acc);
    a2.to = "operator";
    st = run_config(h, c, data, n);
    take_new(&acc, c);
  }
  if (acc.n > 1) qsort(acc.v, acc.n, sizeof *acc.v, by_name);
  c->v = acc.v, c->n = acc.n, c->cap = acc.cap;
  c->a = keep;
  return st;
}

static kfjob_status run_convert(kfjob_host *h, conv *c, const char *data, size_t n) {
  const cargs *a = c->a;
  kfjob_run_options ro;
  if (c->in == IN_DATA && a->config && !a->to) return run_untargeted(h, c, data, n);
  if (c->in == IN_DATA || c->in == IN_SCRIPT) return run_config(h, c, data, n);
  kfjob_run_options_init(&ro);
  ro.format = c->check_only && c->in == IN_MANIFEST ? KFJOB_FORMAT_NONE : a->format;
  ro.target = a->to;
  ro.name = a->name;
  ro.keep_going = 1;   /* every document's report, then the first refusal */
  ro.time_limit_ms = time_left(a);
  if (c->in == IN_MANIFEST) {
    kfjob_import_options io;
    memset(&io, 0, sizeof io);
    io.kind = a->kind, io.lossy = 1, io.stream = 1, io.other = !c->quiet;
    ro.image = a->image;   /* the image of groups without one (a TrainJob's runtime's) */
    ro.lint = a->to != NULL && !c->quiet;   /* the fields a target rule drops */
    return kfjob_host_import_manifests(h, data, n, &io, &ro, on_import, c);
  }
  /* without --to: the file's own target (flyte, or a clustered task's) */
  /* -f lua/config: read and checked only (the job's name is the id's, no
  ** manifest name; a version 0 MPI worker command only a template holds) */
  if (a->config) ro.format = a->to ? KFJOB_FORMAT_NONE : KFJOB_FORMAT_TEMPLATE;
  {   /* the image is the job's (the TaskTemplate container's) */
    char *stem = a->name ? NULL : cli_stem_of(a->file);   /* as decode names it */
    kfjob_status st;
    if (stem) ro.name = stem;
    st = kfjob_host_decode(h, NULL, 1, data, n, &ro, on_decode, c);
    free(stem);
    return st;
  }
}

static void free_held(held *h) {
  free((void *)h->job.data);
  free((void *)h->job.name);
  free((void *)h->job.kind);
  free((void *)h->job.task_type);
  free(h->file);
  free(h->ns);
  free(h->stem);
}

static void free_conv(conv *c) {
  size_t i;
  for (i = 0; i < c->n; i++) free_held(&c->v[i]);
  free(c->v);
}

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
    code = replace_held(&c->v[i], text, ext);
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
static int to_config(kfjob_host *h, conv *c, const char *data, size_t n) {
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
  {
    kfjob_status st = run_convert(h, &c2, data, n);
    if (st != KFJOB_OK) {
      free_conv(&c2);
      return report(h, st, c->a);
    }
  }
  if (time_left(c->a) == 1)   /* the generator has no limit of its own: not past it */
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
  free_conv(&c2);
  return code;
}

/* -o DIR: one file a job, all or none (cli_write_all: each under a
** temporary name, renamed when every one was written); a name that cannot
** be a file is refused before anything is written. */
static int write_dir(conv *c) {
  cli_file *f;
  size_t i, failed = 0;
  int dirfd, code = 0;
  for (i = 0; i < c->n; i++)
    if (!cli_safe_file_name(c->v[i].file))
      return cli_errorf(EXIT_USAGE, "%s: document %zu: '%s' cannot be a file name in %s "
                        "(nothing written)", cli_config_label(c->a->file), c->v[i].doc,
                        c->v[i].file, c->a->outdir);
  if (mkdir(c->a->outdir, 0777) != 0 && errno != EEXIST)
    return cli_errorf(EXIT_USAGE, "cannot create %s: %s", c->a->outdir, strerror(errno));
  if ((dirfd = open(c->a->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return cli_errorf(EXIT_USAGE, "cannot open %s: %s", c->a->outdir, strerror(errno));
  f = (cli_file *)cli_xmalloc((c->n ? c->n : 1) * sizeof *f);
  for (i = 0; i < c->n; i++) {   /* (a config's job: its own file) */
    f[i].name = c->v[i].file;
    f[i].data = c->v[i].job.data;
    f[i].size = c->v[i].job.size;
    f[i].newline = cli_is_text_format(c->v[i].job.format);
  }
  if (cli_write_all(dirfd, f, c->n, &failed) != 0)
    code = cli_errorf(EXIT_USAGE, "cannot write %s/%s: %s (nothing written)", c->a->outdir,
                      c->v[failed].file, strerror(errno));
  free(f);
  close(dirfd);
  return code;
}

/* Write what was held: one file each under -o DIR, else stdout. */
static int write_out(conv *c) {
  render_ctx rc;
  opts o;
  size_t i;
  if (c->a->outdir == NULL) {
    int binary = !cli_is_text_format(c->a->format);
    if (binary && c->n > 1)
      return cli_errorf(EXIT_USAGE, "-f writes binary data for %zu jobs: use -o DIR", c->n);
    memset(&rc, 0, sizeof rc);
    memset(&o, 0, sizeof o);
    rc.o = &o;
    for (i = 0; i < (c->a->config ? 1 : c->n); i++) {   /* a config holds every job */
      if (binary) fwrite(c->v[i].job.data, 1, c->v[i].job.size, stdout);
      else cli_write_stream(&rc, stdout, &c->v[i].job);
    }
    return fflush(stdout) == 0 ? 0 : cli_errorf(EXIT_USAGE, "cannot write to stdout");
  }
  return write_dir(c);
}

/* Is the failure that the file is not what convert reads at all (a NUL
** byte: no text; a document's kind or apiVersion: a misspelt kind, another
** version of a job kind), exit 2 as a misspelt --to is? */
static int not_input(const char *msg) {
  return msg && (strstr(msg, "a NUL byte at offset") ||
                 strstr(msg, "not a kind kfjob reads (did you mean") ||
                 strstr(msg, "not a kind kfjob reads of ") ||
                 strstr(msg, "not an apiVersion kfjob reads it in") ||
                 strstr(msg, "without an apiVersion (kfjob reads") ||
                 strstr(msg, " without a kind"));
}

int cli_cmd_convert(int argc, char **argv) {
  cargs a;
  conv c;
  kfjob_host *h;
  char *data;
  size_t n;
  int code = parse_convert(argc, argv, &a);
  kfjob_status st;
  if (code >= 0) return code;
  if (cli_read_file_max(a.file, CLI_MAX_INPUT, &data, &n) != 0)
    return errno == EFBIG
               ? cli_errorf(EXIT_USAGE, "%s: input larger than the limit of 16 MiB (a "
                            "manifest stream's, as a data config's)", cli_config_label(a.file))
               : cli_errorf(EXIT_USAGE, "cannot read %s: %s", a.file, strerror(errno));
  {   /* a stream's documents are read at once and their jobs held until
      ** all are converted, 20 to 35 bytes a byte of text (16 000 small
      ** documents, 3.7 MB, need about 100 MB; the input is at most 16 MiB):
      ** the limit is the default or 48 bytes a byte of input, whichever is
      ** larger, unless --memory-limit says */
    kfjob_host_options ho;
    kfjob_host_options_init(&ho);
    if (ho.memory_limit && n > ho.memory_limit / 48) ho.memory_limit = 48 * n;
    if (a.memory_set) ho.memory_limit = a.memory_limit;
    if (kfjob_host_new(&ho, &h) != KFJOB_OK) cli_die_oom();
  }
  memset(&c, 0, sizeof c);
  c.a = &a;
  c.in = input_of(a.file, data, n);
  c.check_only = a.config != NULL;
  if (c.in == IN_MANIFEST && !a.format_set && !a.to && json_input(data, n) == IN_MANIFEST)
    a.format = KFJOB_FORMAT_MANIFEST_JSON;   /* its own target: the input's form back */
  c.name = cli_default_name(a.file);
  if (c.in == IN_SCRIPT && a.config) {
    code = usage_err("-f %s: a Lua config's jobs stay in its sandbox (render it with -f "
                     "manifest and convert that; -f lua, config and config-yaml read "
                     "manifests, Flyte files and data configs)", a.config, NULL);
    free(c.name);
    kfjob_host_free(h);
    free(data);
    return code;
  }
  st = run_convert(h, &c, data, n);
  if (st == KFJOB_EJOB && c.refused) code = EXIT_INVALID;   /* each one printed above */
  else if (st == KFJOB_EDATA) {   /* the input's own problem, in its words */
    char *s = user_words(&c, kfjob_host_message(h));
    fprintf(stderr, "%s: %s\n", cli_config_label(a.file), s);
    code = not_input(s) ? EXIT_USAGE : EXIT_INVALID;
    free(s);
  } else if (st != KFJOB_OK) {
    code = report(h, st, &a);
    if (code == EXIT_INVALID && not_input(kfjob_host_message(h))) code = EXIT_USAGE;
  } else if (c.unmapped && !a.lossy)
    code = cli_errorf(EXIT_INVALID, "%s: %zu field(s) do not carry over (--lossy leaves "
                      "them out)", cli_config_label(a.file), c.unmapped);
  else if (c.n == c.others)
    code = cli_errorf(EXIT_INVALID, "%s: no job kfjob reads", cli_config_label(a.file));
  else if (a.name && c.in != IN_DATA && c.in != IN_SCRIPT && c.n - c.others > 1)
    code = cli_errorf(EXIT_USAGE, "%s: --name names one job, and there are %zu (each "
                      "keeps its own name without --name)", cli_config_label(a.file),
                      c.n - c.others);
  else {
    code = unique_stems(&c);
    if (code == 0 && a.config) code = to_config(h, &c, data, n);
    if (code == 0) code = write_out(&c);
  }
  free_conv(&c);
  free(c.name);
  kfjob_host_free(h);
  free(data);
  return code;
}

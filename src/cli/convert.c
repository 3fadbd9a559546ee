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
** unless --lossy.  Exit 2: usage or I/O errors, and input that is not
** what convert reads (kfjob_host_not_input).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert_int.h"

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
    "                  memory for reading, e.g. 256M (default 64M, or 96 bytes a\n"
    "                  byte of input when more; 0: none)\n"
    "\n"
    "exit status: 0 ok, 1 input kfjob cannot read or a target refuses, or a\n"
    "field that does not carry over (without --lossy), 2 usage or I/O error,\n"
    "or input that is not what convert reads (a kind or apiVersion kfjob\n"
    "does not read, text with a NUL byte).\n";

static const char *const convert_formats[] = {
    "manifest", "manifest-json", "yaml", "json", "template", "template-json",
    "taskspec", "taskspec-json", "pb", "lua", "config", "config-yaml", NULL};

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
  a->start_ms = convert_now_ms();
  for (i = 2; i < argc; i++)
    if ((code = parse_one(argc, argv, &i, a)) >= 0) return code;
  if (a->file == NULL) return usage_err("%s", "missing FILE (or - for stdin)", NULL);
  if (a->name && a->name[0] == '\0') return usage_err("%s", "--name must not be empty", NULL);
  /* a manifest's metadata.name (as render -f manifest's): the operators
  ** refuse one that is not a DNS-1035 label (R14) */
  if (a->name && !a->config && (a->format == KFJOB_FORMAT_MANIFEST ||
                                a->format == KFJOB_FORMAT_MANIFEST_JSON) &&
      !cli_dns_label(a->name, 1))
    return usage_err("--name: '%s' is not a DNS-1035 label (at most 63 lowercase letters, "
                     "digits and '-', starting with a letter and ending with a letter or "
                     "digit): it names the Kubernetes resource", a->name, NULL);
  return -1;
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
      ** documents, 3.7 MB, need about 100 MB; the input is at most 16 MiB),
      ** about 65 for one manifest of a long env (many small nodes; the
      ** largest object etcd stores is 1.5 MiB, --max-request-bytes): the
      ** limit is the default or 96 bytes a byte of input, whichever is
      ** larger, unless --memory-limit says */
    kfjob_host_options ho;
    kfjob_host_options_init(&ho);
    if (ho.memory_limit && n > ho.memory_limit / 96) ho.memory_limit = 96 * n;
    if (a.memory_set) ho.memory_limit = a.memory_limit;
    if (kfjob_host_new(&ho, &h) != KFJOB_OK) cli_die_oom();
  }
  memset(&c, 0, sizeof c);
  c.a = &a;
  c.in = convert_input_of(a.file, data, n);
  c.check_only = a.config != NULL;
  c.reuse = c.check_only && c.in == IN_MANIFEST && a.to == NULL;
  if (c.in == IN_MANIFEST && !a.format_set && !a.to && convert_json_input(data, n) == IN_MANIFEST)
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
  st = convert_run(h, &c, data, n);
  if (st == KFJOB_EJOB && c.refused) code = EXIT_INVALID;   /* each one printed above */
  else if (st == KFJOB_EDATA) {   /* the input's own problem, in its words */
    char *s = convert_user_words(&c, kfjob_host_message(h));
    fprintf(stderr, "%s: %s\n", cli_config_label(a.file), s);
    /* the file is not what convert reads at all (a NUL byte: no text; a
    ** document's kind or apiVersion: a misspelt kind, another version of a
    ** job kind): exit 2, as a misspelt --to is */
    code = kfjob_host_not_input(h) ? EXIT_USAGE : EXIT_INVALID;
    free(s);
  } else if (st != KFJOB_OK) {
    code = convert_report(h, st, &a);
    if (code == EXIT_INVALID && kfjob_host_not_input(h)) code = EXIT_USAGE;   /* as above */
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
    code = convert_unique_stems(&c);
    if (code == 0 && a.config) code = convert_to_config(h, &c, data, n);
    if (code == 0) code = write_out(&c);
  }
  convert_free(&c);
  free(c.name);
  kfjob_host_free(h);
  free(data);
  return code;
}

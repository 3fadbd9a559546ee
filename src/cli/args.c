/*
** args.c - the command line of the kfjob tool: the usage text, which
** option applies to which command, and argv -> opts with the checks of
** every value, so that the commands start from well-formed options.
*/
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const usage_text =
"usage: kfjob <command> [options]\n"
"\n"
"commands:\n"
"  render CONFIG.lua   run a config script and write every job it returns\n"
"                      (CONFIG.lua may be - for stdin, with every command)\n"
"                      or a data config: CONFIG.yaml, .yml or .json\n"
"  check  CONFIG.lua   validate and lint every job; ends with a summary line\n"
"  decode FILE         read a TaskTemplate or TaskSpec (bytes or JSON) or,\n"
"                      with --type,\n"
"                      plugin bytes or custom JSON, and print the job\n"
"  diff   A B          compare two renders (files, -o directories or config\n"
"                      scripts) job by job\n"
"  env    CONFIG.lua   the environment variables (and MPI files) each pod of\n"
"                      each job gets on a target\n"
"  convert FILE        read manifests (or a TaskTemplate/TaskSpec) back and\n"
"                      write them for a target (--to T, -f FMT, --lossy)\n"
"  meta                the LuaCATS definitions for lua-language-server\n"
"  schema [KIND]       the JSON Schema of a data config (--target T)\n"
"  explain KIND[.path] a field's type, default, values, outputs and rules\n"
"                      (--target T, --recursive)\n"
"\n"
"render options:\n"
"  -f, --format FMT    json (default), yaml, pb, template, manifest,\n"
"                      template-json, manifest-json, taskspec, taskspec-json\n"
"  -T, --type-version N  task_type_version 0 or 1 (default 1)\n"
"  -o, --output DIR    one file per job in DIR (<name>.json, .yaml, .pb,\n"
"                      .template.pb, .manifest.yaml); files a previous render\n"
"                      wrote there and this one did not are removed (the list\n"
"                      is kept in DIR/" OUTPUTS_FILE ")\n"
"      --set KEY=VALUE the script sees params.KEY (true/false and numbers\n"
"                      written in their plain form converted: 8, 0.5, not\n"
"                      1.10, 010 or 1e3); repeatable\n"
"      --set-string KEY=VALUE  params.KEY is the string VALUE; repeatable\n"
"      --name NAME     name of a job returned alone (default: the config's\n"
"                      file name) or prefix for a list's jobs; from a named\n"
"                      set, render only the job called NAME\n"
"      --dry-run       render everything, write nothing, list what would be\n"
"                      written and removed\n"
"      --replica-encoding flat|common\n"
"      --namespace NS, --image IMAGE   for manifests (the image also for\n"
"                      TaskSpecs)\n"
"      --target T      the system the jobs are for: flyte (default for\n"
"                      payloads), flyte2, operator (default for manifests),\n"
"                      mpi-operator, trainer-2.2, trainer-2.3, trainer-2.4,\n"
"                      flyte2-clustered; its rules apply (docs/TARGETS.md)\n"
"      --keep-going    render the other jobs when one fails\n"
"      --summary       the resource table of check, on stderr\n"
"      --progress, --no-progress   progress bar on stderr (default: when\n"
"                      stderr is a terminal and the render takes a while)\n"
"      --memory-limit SIZE          script memory (default 64M; 0: none)\n"
"      --instruction-limit N        script instructions (default 500M)\n"
"      --time-limit DURATION        wall-clock limit of the run, e.g. 30s,\n"
"                                   500ms, 2m (default 60s; 0: none)\n"
"\n"
"a config can return {job = <job>, opts = {...}}: opts are the options of\n"
"the format rendered (-f manifest: job:manifest's namespace, command, env,\n"
"labels ...; -f json: version, replica_encoding; -f taskspec: id =,\n"
"container =, interface =, metadata =), over the flags; another key is an\n"
"error naming it and the format\n"
"\n"
"-f taskspec: files flytectl register files reads (-o DIR: NN_<name>_1.pb,\n"
"numbered in render order as pyflyte package names them), with these flags:\n"
"      --project P, --domain D, --version V   the task id (name: the job's)\n"
"      --args ARG      one container arg per flag (MPI/Horovod: wrapped in\n"
"                      mpirun/horovodrun)\n"
"      --retries N, --timeout 1h30m|SECONDS   task metadata\n""\n"
"check options: -T, --set, --set-string, --name, --image, --strict (warnings fail),\n"
"  --target T (default flyte; operator, mpi-operator and trainer-* check the\n"
"  manifest, which needs an image), the limits; -f taskspec also checks the\n"
"  registration flags above; -f text|json: the resource table and summary\n"
"decode options: --type T (tensorflow, pytorch, mpi or a kind such as\n"
"  HorovodJob), -T N (version of the bytes, default 1), -f FMT (the text\n"
"  formats; taskspec-json writes a TaskSpec back whole), --name\n"
"diff options: --type T and -T N for plugin bytes, -f FMT and --set for\n"
"  config scripts\n"
"env options: --name N (resource name in the values; default: the config's\n"
"  file name), --namespace NS, --target T (default operator), --pod POD\n"
"  (e.g. worker-0), -f env (NAME=value lines, default) or json, --set,\n"
"  --set-string, the limits\n"
"\n"
"kfjob --version prints the program's version.\n"
"\n"
"stdout: json and template-json/manifest-json write one JSON document per\n"
"line (json as {\"name\", \"kind\", \"type\", \"taskTypeVersion\", \"custom\"},\n"
"template-json the same with \"template\" in place of \"custom\");\n"
"yaml and manifest write a multi-document YAML stream; pb and template\n"
"write the bytes of a single job.\n"
"\n"
"'kfjob COMMAND --help' lists the options of one command.\n"
"\n"
"exit status: 0 ok, 1 invalid config or jobs (diff: differences), 2 usage\n"
"or I/O error\n";

/* One row per option: the flag table that parsing, per-command help and
** the did-you-mean of unknown options all read.  `help` may be NULL (the
** option is then listed by name only); `meta` names its value. */
typedef struct optdef {
  const char *lng;
  char shrt;
  int arg;
  int cmds;
  const char *meta, *help;
} optdef;

static const optdef optdefs[] = {
    {"format", 'f', 1, C_ALL, "FMT",
     "json (default), yaml, pb, template, manifest,\n"
     "template-json, manifest-json, taskspec,\n"
     "taskspec-json; check: the summary as text\n"
     "(default) or json, or taskspec(-json) to check\n"
     "the registration fields; env: env or json"},
    {"type-version", 'T', 1, C_ALL, "N", "task_type_version 0 or 1 (default 1)"},
    {"version", 0, 1, C_RENDER | C_CHECK | C_DIFF, "V",
     "TaskSpec registration version (the task id's)"},
    {"project", 0, 1, C_RENDER | C_CHECK | C_DIFF, "P", "TaskSpec project"},
    {"domain", 0, 1, C_RENDER | C_CHECK | C_DIFF, "D", "TaskSpec domain"},
    {"args", 0, 1, C_RENDER | C_CHECK | C_DIFF, "ARG",
     "one TaskSpec container arg per flag (MPI/\n"
     "Horovod: wrapped in mpirun/horovodrun)"},
    {"retries", 0, 1, C_RENDER | C_CHECK | C_DIFF, "N", "TaskSpec retries"},
    {"timeout", 0, 1, C_RENDER | C_CHECK | C_DIFF, "1h30m|SECONDS", "TaskSpec timeout"},
    {"output", 'o', 1, C_RENDER, "DIR",
     "one file per job in DIR; files a previous\n"
     "render wrote there and this one did not are\n"
     "removed (the list is in DIR/" OUTPUTS_FILE ")"},
    {"set", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_ENV, "KEY=VALUE",
     "the script sees params.KEY (true/false and\n"
     "plain numbers converted); repeatable"},
    {"set-string", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_ENV, "KEY=VALUE",
     "params.KEY is the string VALUE; repeatable"},
    {"name", 0, 1, C_ALL, "NAME",
     "name of a job returned alone (default: the\n"
     "config's file name) or prefix of a list's\n"
     "jobs; from a named set, only the job NAME"},
    {"dry-run", 0, 0, C_RENDER, NULL,
     "render everything, write nothing, list what\n"
     "would be written and removed"},
    {"replica-encoding", 0, 1, C_RENDER | C_DIFF, "flat|common", NULL},
    {"namespace", 0, 1, C_RENDER | C_DIFF | C_ENV, "NS", "for manifests and env"},
    {"image", 0, 1, C_RENDER | C_CHECK | C_DIFF, "IMAGE",
     "task image for manifests and TaskSpecs\n"
     "(groups without their own)"},
    {"keep-going", 0, 0, C_RENDER, NULL,
     "render the other jobs (and variants) when\n"
     "one fails"},
    {"summary", 0, 0, C_RENDER, NULL,
     "after the render, the resource table of\n"
     "check on stderr"},
    {"progress", 0, 0, C_RENDER | C_CHECK, NULL, "progress bar on stderr"},
    {"no-progress", 0, 0, C_RENDER | C_CHECK, NULL,
     "none (default: when stderr is a terminal and\n"
     "it takes a while)"},
    {"memory-limit", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_DECODE | C_ENV, "SIZE",
     "script memory (default 64M; 0: none)"},
    {"instruction-limit", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_DECODE | C_ENV, "N",
     "script instructions (default 500M)"},
    {"time-limit", 0, 1, C_RENDER | C_CHECK | C_DIFF | C_DECODE | C_ENV, "DURATION",
     "wall-clock limit of the run: 30s, 500ms, 2m\n"
     "(default 60s; 0: none)"},
    {"type", 't', 1, C_DECODE | C_DIFF, "T",
     "plugin bytes or custom JSON of this task type\n"
     "(tensorflow, pytorch, mpi) or kind (HorovodJob)"},
    {"strict", 0, 0, C_CHECK, NULL, "warnings fail (exit 1)"},
    {"target", 0, 1, C_RENDER | C_CHECK | C_ENV, "T",
     "flyte, flyte2, operator, mpi-operator,\n"
     "trainer-2.2, trainer-2.3, trainer-2.4 or flyte2-clustered:\n"
     "the system the jobs are for, whose rules apply\n"
     "(docs/TARGETS.md)"},
    {"pod", 0, 1, C_ENV, "POD", "only this pod (e.g. worker-0)"},
    {NULL, 0, 0, 0, NULL, NULL}};

static const char *const cmd_names[] = {"render", "check", "decode", "diff", "env", NULL};
static const char *const cmd_usage[] = {
    "render CONFIG.lua|- [options]\n"
    "Run a config script (- reads it from stdin) and write every job it\n"
    "returns to stdout or, with -o DIR, one file per job.",
    "check CONFIG.lua|- [options]\n"
    "Validate and lint every job, print a table of what each job asks of\n"
    "the cluster (pods, GPUs, CPU and memory, with totals) and a summary\n"
    "line.",
    "decode FILE|- [options]\n"
    "Read a TaskTemplate or TaskSpec (bytes or JSON) or, with --type,\n"
    "plugin bytes or custom JSON, and print the job.",
    "diff A B [options]\n"
    "Compare two renders (files, -o directories or config scripts) job by\n"
    "job; two TaskSpecs (bytes or JSON) whole, naming the parts that\n"
    "differ; exit 0 same, 1 different, 2 when a side cannot be read (a key\n"
    "given twice included).\n"
    "Paths: an element of a list Kubernetes merges by key (containers, env,\n"
    "volumes, volumeMounts, ports, ...: patchMergeKey) is named by its key,\n"
    "spec.template.spec.containers[name=pytorch].env[name=X].value,\n"
    "volumeMounts[mountPath=/dev/shm], ports[containerPort=53,protocol=UDP]\n"
    "(a value with characters other than A-Z a-z 0-9 . _ / : - is quoted as\n"
    "JSON); other lists by index, args[0]; \"env (order)\" when the order of\n"
    "a list whose order matters changed (initContainers, env,\n"
    "replicatedJobs).  Quantities compare by value: 1Gi = 1073741824,\n"
    "500m = 0.5, \"2\" = 2.",
    "env CONFIG.lua|- [options]\n"
    "Print the environment variables (and files) each pod of each job gets\n"
    "on the target (default operator)."};

/* decode prints text: the formats its -f takes. */
static const char decode_formats[] =
    "json (default), yaml, manifest, template-json,\n"
    "manifest-json, or taskspec-json for a TaskSpec\n"
    "(written back whole)";

/* The help of one command, from the flag table. */
static void command_help(int k) {
  const optdef *d;
  printf("usage: kfjob %s\n\noptions:\n", cmd_usage[k]);
  for (d = optdefs; d->lng; d++) {
    char head[64];
    const char *h, *help = d->help;
    int n;
    if (!(d->cmds & (1 << k))) continue;
    if ((1 << k) == C_DECODE && d->shrt == 'f') help = decode_formats;
    n = snprintf(head, sizeof head, "  %c%c%s--%s%s%s", d->shrt ? '-' : ' ',
                 d->shrt ? d->shrt : ' ', d->shrt ? ", " : "  ", d->lng,
                 d->meta ? " " : "", d->meta ? d->meta : "");
    fputs(head, stdout);
    for (h = help; h && *h;) {
      size_t len = strcspn(h, "\n");
      printf("%*s%.*s\n", n < 28 ? 28 - n : 1, "", (int)len, h);
      n = 0;
      h += len + (h[len] == '\n');
    }
    if (help == NULL) fputc('\n', stdout);
  }
  printf("  -h, --help                this help\n");
}

static int usage_error(const char *fmt, const char *a) {
  fputs("kfjob: ", stderr);
  fprintf(stderr, fmt, a);
  fputs("\nTry 'kfjob --help'.\n", stderr);
  return EXIT_USAGE;
}

/* "unknown option '--sett' (did you mean '--set'?)": the candidates are
** the long options of the command, from the flag table. */
static int unknown_option(const char *a, int cmd) {
  const char *cands[sizeof optdefs / sizeof *optdefs + 1], *sg;
  const optdef *d;
  char word[64];
  size_t n = 0;
  snprintf(word, sizeof word, "%.*s", (int)strcspn(a + 2, "="), a + 2);
  for (d = optdefs; d->lng; d++)
    if (d->cmds & cmd) cands[n++] = d->lng;
  cands[n++] = "help";
  cands[n] = NULL;
  sg = a[1] == '-' && word[0] ? kfjob_suggest(word, cands) : NULL;
  fprintf(stderr, "kfjob: unknown option '%s'", a);
  if (sg) fprintf(stderr, " (did you mean '--%s'?)", sg);
  fputs("\nTry 'kfjob --help'.\n", stderr);
  return EXIT_USAGE;
}

/* "64M", "1G", "65536" -> bytes (binary units); -1 if malformed. */
int cli_parse_size(const char *s, unsigned long long *out, int binary) {
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

/* "500ms", "30s", "2m", "1h" -> milliseconds (a bare number: seconds). */
int cli_parse_duration(const char *s, unsigned long long *out) {
  char *end;
  unsigned long long v, mul = 1000;
  if (!isdigit((unsigned char)s[0])) return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno) return -1;
  if (strcmp(end, "ms") == 0) mul = 1;
  else if (strcmp(end, "s") == 0 || *end == '\0') mul = 1000;
  else if (strcmp(end, "m") == 0) mul = 60000;
  else if (strcmp(end, "h") == 0) mul = 3600000;
  else return -1;
  if (v > ~0ULL / mul) return -1;
  *out = v * mul;
  return 0;
}

/* The TaskSpec registration flags and -T; 1 when d is not one of them. */
static int set_registration(opts *o, const optdef *d, const char *val) {
  const char **slot = NULL;
  if (strcmp(d->lng, "type-version") == 0) {
    if (strcmp(val, "0") && strcmp(val, "1"))
      return usage_error("-T/--type-version expects 0 or 1, got '%s'", val);
    o->version = val[0] - '0';
    return 0;
  }
  if (strcmp(d->lng, "args") == 0) {
    o->args = (const char **)cli_xrealloc((void *)o->args, (o->nargs + 1) * sizeof *o->args);
    o->args[o->nargs++] = val;
    return 0;
  }
  if (strcmp(d->lng, "retries") == 0) {
    if (!(isdigit((unsigned char)val[0]) && (val[1] == '\0' || strcmp(val, "10") == 0)))
      return usage_error("--retries expects 0 to 10, got '%s'", val);
    o->retries = atoi(val);
    return 0;
  }
  if (strcmp(d->lng, "version") == 0) slot = &o->task_version;
  else if (strcmp(d->lng, "project") == 0) slot = &o->project;
  else if (strcmp(d->lng, "domain") == 0) slot = &o->domain;
  else if (strcmp(d->lng, "timeout") == 0) slot = &o->timeout;
  if (slot == NULL) return 1;
  if (val[0] == '\0') return usage_error("--%s must not be empty", d->lng);
  *slot = val;
  return 0;
}

/* -f: env's env or json, check's text or json (the summary), else an
** output format. */
static int set_format(opts *o, const char *val) {
  if (o->cmd == C_ENV) {
    if (strcmp(val, "env") && strcmp(val, "json"))
      return usage_error("env -f expects env or json, got '%s'", val);
    o->env_json = val[0] == 'j';
    return 0;
  }
  if (o->cmd == C_CHECK && (!strcmp(val, "text") || !strcmp(val, "json"))) {
    o->summary_json = val[0] == 'j';   /* the summary's form */
    return 0;
  }
  if (o->cmd == C_CHECK && strcmp(val, "taskspec") && strcmp(val, "taskspec-json"))
    return usage_error("check -f expects text, json, taskspec or taskspec-json, "
                       "got '%s'", val);
  if (!kfjob_format_parse(val, &o->format) || o->format == KFJOB_FORMAT_NONE ||
      o->format == KFJOB_FORMAT_ENVIRONMENT) {
    static const char *const fmts[] = {"json", "yaml", "pb", "template", "manifest",
                                       "template-json", "manifest-json", "taskspec",
                                       "taskspec-json", NULL};
    const char *sg = kfjob_suggest(val, fmts);
    fprintf(stderr, "kfjob: unknown format '%s' (json, yaml, pb, template, "
            "manifest, template-json, manifest-json, taskspec, taskspec-json)", val);
    if (sg) fprintf(stderr, " (did you mean '%s'?)", sg);
    fputs("\nTry 'kfjob --help'.\n", stderr);
    return EXIT_USAGE;
  }
  o->format_set = 1;
  return 0;
}

/* --set KEY=VALUE, --set-string KEY=VALUE: one more parameter. */
static int add_param(opts *o, const optdef *d, const char *val) {
  int str = strcmp(d->lng, "set-string") == 0;
  const char ***v = str ? &o->string_params : &o->params;
  size_t *n = str ? &o->nstring_params : &o->nparams;
  if (strchr(val, '=') == NULL || val[0] == '=')
    return usage_error(str ? "--set-string expects KEY=VALUE, got '%s'"
                           : "--set expects KEY=VALUE, got '%s'", val);
  *v = (const char **)cli_xrealloc((void *)*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = val;
  return 0;
}

static int set_option(opts *o, const optdef *d, const char *val) {
  unsigned long long n;
  int r;
  if (!(d->cmds & o->cmd))
    return usage_error("option '--%s' does not apply to this command", d->lng);
  if ((r = set_registration(o, d, val)) != 1) return r;
  switch (d->lng[0] == 'n' && d->lng[1] == 'o' ? '!' : d->lng[0]) {
    case 'f': return set_format(o, val);
    case 'o': o->outdir = val; break;
    case 's':
      if (d->lng[1] == 'e') {
        return add_param(o, d, val);
      } else if (d->lng[1] == 'u') {
        o->summary = 1;
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
        if (cli_parse_size(val, &n, 0) != 0)
          return usage_error("--instruction-limit expects a count such as 2000M, "
                             "got '%s'", val);
        o->instruction_limit = n;
      }
      break;
    case 'k': o->keep_going = 1; break;
    case 'p':
      if (strcmp(d->lng, "pod") == 0) o->pod = val;
      else o->progress = 1;
      break;
    case '!': o->progress = 0; break;
    case 'm':
      if (cli_parse_size(val, &n, 1) != 0 || n > (unsigned long long)(size_t)-1)
        return usage_error("--memory-limit expects a size such as 256M, got '%s'", val);
      o->memory_limit = (size_t)n;
      break;
    case 't':
      if (strcmp(d->lng, "target") == 0) {
        char why[256];
        if (!kfjob_target_check(val, why, sizeof why))
          return usage_error("--target: %s", why);
        o->target = val;
      } else if (strcmp(d->lng, "time-limit") == 0) {
        if (cli_parse_duration(val, &n) != 0 || n > (unsigned long)-1)
          return usage_error("--time-limit expects a duration such as 30s, 500ms or "
                             "2m, got '%s'", val);
        /* 0: none, as for --memory-limit (the options' 0 is the default) */
        o->time_limit_ms = n ? (unsigned long)n : KFJOB_NO_TIME_LIMIT;
      } else {
        o->type = val;
      }
      break;
  }
  return 0;
}

/* ---- flag values the job would refuse, named as the flag ------------ */

/* --timeout: whole seconds, or a duration such as 1h30m (h, m, s each at
** most once, in that order), 0 to 315576000000 s (google.protobuf
** Duration's range): what a TaskSpec's metadata.timeout takes. */
static int timeout_ok(const char *s) {
  static const char units[] = "hms";
  static const unsigned long long mult[] = {3600, 60, 1}, max = 315576000000ULL;
  unsigned long long total = 0;
  int next = 0, bare = 1;
  while (*s) {
    unsigned long long n = 0;
    int digits = 0, u;
    for (; isdigit((unsigned char)*s); s++, digits++) {
      if (n > max) return 0;
      n = n * 10 + (unsigned)(*s - '0');
    }
    if (digits == 0) return 0;
    if (*s == '\0') return bare && digits < 13 && n <= max;   /* plain seconds */
    for (u = next; u < 3 && units[u] != *s; u++) {}
    if (u == 3 || n > max / mult[u]) return 0;
    total += n * mult[u];
    s++, next = u + 1, bare = 0;
  }
  return !bare && total <= max;
}

/* A DNS-1123 label (1035: starting with a letter), at most 63 characters:
** k8s.io/apimachinery validation IsDNS1123Label / IsDNS1035Label. */
int cli_dns_label(const char *s, int dns1035) {
  size_t i, n = strlen(s);
  if (n == 0 || n > 63 || s[n - 1] == '-' || s[0] == '-') return 0;
  if (dns1035 && !islower((unsigned char)s[0])) return 0;
  for (i = 0; i < n; i++)
    if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
      return 0;
  return 1;
}

/* Whether the job's name becomes a Kubernetes resource's metadata.name
** (a manifest rendered, env's values, check on a manifest target): then
** the operators refuse a name that is not a DNS-1035 label (R14); a
** Flyte task's name is not one (check warns). */
static int name_is_resource(const opts *o) {
  const char *t = o->target;
  if (o->cmd == C_ENV) return 1;
  if (o->cmd == C_CHECK)
    return t && (strcmp(t, "operator") == 0 || strcmp(t, "mpi-operator") == 0 ||
                 strncmp(t, "trainer-", 8) == 0);
  return (o->cmd == C_RENDER || o->cmd == C_DIFF) &&
         (o->format == KFJOB_FORMAT_MANIFEST || o->format == KFJOB_FORMAT_MANIFEST_JSON);
}

/* The values of --timeout, --namespace and --name the job would refuse:
** a usage error naming the flag (exit 2), not a job's opts.* error. */
static int check_flag_values(const opts *o) {
  if (o->timeout && !timeout_ok(o->timeout))
    return usage_error("--timeout expects whole seconds (0 to 315576000000) or a "
                       "duration such as 1h30m (units h, m, s), got '%s'", o->timeout);
  if (o->ns && !cli_dns_label(o->ns, 0))
    return usage_error("--namespace: '%s' is not a DNS-1123 label (at most 63 "
                       "lowercase letters, digits and '-', starting and ending with "
                       "a letter or digit)", o->ns);
  if (o->name && name_is_resource(o) && !cli_dns_label(o->name, 1))
    return usage_error("--name: '%s' is not a DNS-1035 label (at most 63 lowercase "
                       "letters, digits and '-', starting with a letter and ending "
                       "with a letter or digit): it names the Kubernetes resource", o->name);
  return -1;
}

/* Parse argv into o; returns -1 when done, else an exit status. */
/* The option `a` names ("--long", "--long=VALUE", "-s", "-sVALUE"): *d,
** and *val when the value is in `a`; 0 or the exit status of an error. */
static int find_option(const char *a, const opts *o, const optdef **d, const char **val) {
  if (a[1] == '-') {
    const char *eq = strchr(a + 2, '=');
    size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    for (*d = optdefs; (*d)->lng; (*d)++)
      if (strlen((*d)->lng) == n && strncmp((*d)->lng, a + 2, n) == 0) break;
    if ((*d)->lng == NULL) return unknown_option(a, o->cmd);
    if (eq) {
      if (!(*d)->arg) return usage_error("option '--%s' takes no value", (*d)->lng);
      *val = eq + 1;
    }
  } else {
    for (*d = optdefs; (*d)->lng; (*d)++)
      if ((*d)->shrt && (*d)->shrt == a[1]) break;
    if ((*d)->lng == NULL) return unknown_option(a, o->cmd);
    if (a[2]) {
      if (!(*d)->arg) return usage_error("unknown option '%s'", a);
      *val = a + 2;
    }
  }
  return 0;
}

int cli_parse_args(int argc, char **argv, opts *o) {
  const char *const *cmds = cmd_names;
  int i, k, only_pos = 0, want;
  memset(o, 0, sizeof *o);
  o->format = KFJOB_FORMAT_JSON;
  o->version = -1;
  o->retries = -1;
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
  if (cmds[k] == NULL) {
    const char *sg = kfjob_suggest(argv[1], cmds);
    fprintf(stderr, "kfjob: unknown command '%s'", argv[1]);
    if (sg) fprintf(stderr, " (did you mean '%s'?)", sg);
    fputs("\nTry 'kfjob --help'.\n", stderr);
    return EXIT_USAGE;
  }
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
      command_help(k);
      return 0;
    }
    if ((k = find_option(a, o, &d, &val)) != 0) return k;
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
  return check_flag_values(o);
}

/*
** convert_read.c - `kfjob convert`'s input: what it is (manifests, a
** Flyte file, a data config, a script), read through the host, each job
** held (with its document's place and namespace) until all converted,
** and each refusal, unmapped field and dropped value said on stderr.
** Also the command's time limit and a host call's report, which the
** generator part (convert_gen.c) uses too.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert_int.h"

unsigned long long convert_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

/* The time left of the command's limit, for each of its host calls (one
** limit for the whole command, as render's for its run); at least 1 ms,
** so a call past it stops at once. */
unsigned long convert_time_left(const cargs *a) {
  unsigned long ms = a->time_limit_ms ? a->time_limit_ms : KFJOB_DEFAULT_TIME_LIMIT_MS;
  unsigned long long spent = convert_now_ms() - a->start_ms;
  if (ms == KFJOB_NO_TIME_LIMIT) return ms;
  return spent >= ms ? 1 : (unsigned long)(ms - spent);
}

/* A host call's failure (cli_report); past the time limit, the command's
** limit is named (each call was given what was left of it). */
int convert_report(kfjob_host *h, kfjob_status st, const cargs *a) {
  unsigned long ms = a->time_limit_ms ? a->time_limit_ms : KFJOB_DEFAULT_TIME_LIMIT_MS;
  if (st == KFJOB_ELIMIT && strstr(kfjob_host_message(h), "time limit exceeded"))
    return cli_errorf(EXIT_INVALID, "%s: time limit exceeded (%lu ms) (raise it with "
                      "--time-limit)", cli_config_label(a->file), ms);
  return cli_report(h, st, cli_config_label(a->file));
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
int convert_replace_held(held *h, const char *text, const char *ext) {
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
int convert_unique_stems(conv *c) {
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
char *convert_user_words(const conv *c, const char *msg) {
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
    s = convert_user_words(c, msg);
    fprintf(stderr, "kfjob: %s: %s\n", at, s);
    free(s);
  }
  for (i = 0; i < j->nproblems; i++) {
    const kfjob_problem *p = &j->problems[i];
    char *path = convert_user_words(c, p->path), *m = convert_user_words(c, p->message);
    fprintf(stderr, "kfjob: %s: kfjob.%s: %s: %s (target %s; rule %s: %s)\n", at, j->kind,
            path, m, p->target, p->rule, p->source[0] ? p->source : "kfjob");
    free(path);
    free(m);
  }
}

/* A line "---" (a document start), alone or with a comment: 1; anything
** else after "---": -1 (a copy would misplace it); no "---": 0. */
static int marker(const char *p, const char *end) {
  if (end - p < 3 || memcmp(p, "---", 3) != 0) return 0;
  for (p += 3; p < end && (*p == ' ' || *p == '\t' || *p == '\r'); p++) continue;
  return p == end || *p == '#' ? 1 : -1;
}

/* The YAML text of the document whose content starts at `line`: the
** lines between the "---" markers around it, trailing blank lines left
** out (malloc'd); NULL when the text has what a copy would misplace: a
** directive ("%"), a document end ("..."), a byte order mark, or content
** on a marker line. */
static char *doc_text(const char *d, size_t n, size_t line) {
  const char *p = d, *end = d + n, *from = d, *to = end, *last = NULL;
  size_t ln = 1;
  if (n >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0) return NULL;
  for (; p < end; ln++) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    int m;
    if (e == NULL) e = end;
    if (*p == '%' || (e - p >= 3 && memcmp(p, "...", 3) == 0)) return NULL;
    if ((m = marker(p, e)) < 0) return NULL;
    if (m && ln < line) from = e < end ? e + 1 : end;
    if (m && ln > line && to == end) to = p;
    p = e < end ? e + 1 : end;
  }
  for (p = from; p < to; p++)   /* the end of the last line that is not blank */
    if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') last = p;
  if (last == NULL) return NULL;
  while (last < to && *last != '\n') last++;
  return cli_xprintf("%.*s\n", (int)(last - from), from);
}

/* The last held document's text becomes the document as written (a
** document of another kind, copied through unchanged), when the text can
** be cut there. */
static void as_written(conv *c, const kfjob_import_info *info) {
  held *h = &c->v[c->n - 1];
  char *text;
  if (c->text == NULL || info->line == 0 || info->item ||
      (text = doc_text(c->text, c->ntext, info->line)) == NULL)
    return;
  free((void *)h->job.data);
  h->job.data = text;
  h->job.size = strlen(text);
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
  if (c->a->format == KFJOB_FORMAT_MANIFEST) as_written(c, info);   /* unchanged */
  free(base);
  c->others++;
  return 0;
}

/* The rules whose warnings convert prints, one stderr line each, --lossy
** or not: with --to, what the target drops on the way (the accelerator's
** affinity R12, a TrainJob's restart count, TTL and backoff limit R19/R20)
** or runs differently (a node's processes R57, R60; a clustered task's
** command that starts no launcher R63); on the input's own
** target too, env references that never expand (R55), the other system's
** host names (R61) and an ExitCode the v1 MPIJob controller never acts on
** (R13, a warning on that target only). */
static const char *const said_on_migration[] = {"R12", "R19", "R20", "R57", "R60", "R63", NULL};
static const char *const said_always[] = {"R13", "R55", "R61", NULL};

static int rule_in(const char *rule, const char *const *list) {
  for (; *list != NULL; list++)
    if (strcmp(rule, *list) == 0) return 1;
  return 0;
}

static void dropped(const conv *c, const char *at, const kfjob_job *j,
                    const kfjob_import_info *info) {
  const char *to = c->a->to ? c->a->to : info->target;
  size_t i;
  if (c->quiet || to == NULL) return;
  for (i = 0; i < j->nwarnings; i++)
    if ((c->a->to && rule_in(j->warnings[i].rule, said_on_migration)) ||
        rule_in(j->warnings[i].rule, said_always))
      fprintf(stderr, "kfjob: %s: %s: %s (target %s; rule %s: %s)\n", at, j->warnings[i].path,
              j->warnings[i].message, to, j->warnings[i].rule,
              *j->warnings[i].source ? j->warnings[i].source : "kfjob");
}

/* A manifest read as Flyte's (its whole shape) written for another
** target: what Flyte's backend added to its pods is not the job's and is
** not written; one stderr line says so, naming the fields. */
static void flyte_left(const conv *c, const char *at, const kfjob_import_info *info) {
  const char *to = c->a->to;
  /* (a clustered task's JobSet is not one: its reader drops what that
  ** backend adds, the variables kf_clustered_backend_var names) */
  if (c->quiet || to == NULL || info->target == NULL ||
      (strcmp(info->target, "flyte") != 0 && strcmp(info->target, "flyte2") != 0) ||
      strncmp(to, "flyte", 5) == 0)
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
    dropped(c, at, j, info);
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
int convert_json_input(const char *d, size_t n) {
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
int convert_input_of(const char *file, const char *d, size_t n) {
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
  if (i < n && (d[i] == '{' || d[i] == '[') && (in = convert_json_input(d, n)) >= 0)
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
  ro.time_limit_ms = convert_time_left(a);
  if (a->config && ro.image == NULL) ro.image = "image";   /* the check's: not written */
  if (strcmp(a->file, "-") == 0)
    chunk = convert_json_input(data, n) == IN_DATA ? "stdin.json" : "stdin.yaml";
  return kfjob_host_run_string(h, data, n, chunk, &ro, on_decode, c);
}

static void free_held(held *h);

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
    convert_free(&acc);
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

/* Does the text hold "$(" (a variable reference, R55) or "ExitCode" (a
** restart policy R13 may warn about)? */
static int has_ref(const char *data, size_t n) {
  size_t i;
  for (i = 0; i + 1 < n; i++)
    if ((data[i] == '$' && data[i + 1] == '(') ||
        (data[i] == 'E' && n - i >= 8 && memcmp(data + i, "ExitCode", 8) == 0))
      return 1;
  return 0;
}

kfjob_status convert_run(kfjob_host *h, conv *c, const char *data, size_t n) {
  const cargs *a = c->a;
  kfjob_run_options ro;
  if (c->in == IN_DATA && a->config && !a->to) return run_untargeted(h, c, data, n);
  if (c->in == IN_DATA || c->in == IN_SCRIPT) return run_config(h, c, data, n);
  kfjob_run_options_init(&ro);
  ro.format = !(c->check_only && c->in == IN_MANIFEST) ? a->format
              : c->reuse ? KFJOB_FORMAT_MANIFEST_JSON : KFJOB_FORMAT_NONE;
  ro.target = a->to;
  ro.name = a->name;
  ro.keep_going = 1;   /* every document's report, then the first refusal */
  ro.time_limit_ms = convert_time_left(a);
  if (c->in == IN_MANIFEST) {
    kfjob_import_options io;
    memset(&io, 0, sizeof io);
    io.kind = a->kind, io.lossy = 1, io.stream = 1, io.other = !c->quiet;
    ro.image = a->image;   /* the image of groups without one (a TrainJob's runtime's) */
    /* the fields a target rule drops; on the input's own target only
    ** references that never expand (R55) and ExitCode (R13), so only
    ** where there is one */
    ro.lint = !c->quiet && (a->to != NULL || has_ref(data, n));
    c->text = data, c->ntext = n;
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

void convert_free(conv *c) {
  size_t i;
  for (i = 0; i < c->n; i++) free_held(&c->v[i]);
  free(c->v);
}


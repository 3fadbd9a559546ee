/*
** readback.c - reading renders back for diff: files (JSON, JSON lines,
** YAML streams, or bytes the host decodes), -o directories (through
** their output list) and config scripts all become named JSON documents,
** so that two renders compare job by job.  The byte decoding also serves
** `kfjob decode`, which prints instead.  libyaml is used directly here,
** to turn YAML into jansson values.
*/
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <jansson.h>
#include <yaml.h>

#include "cli.h"

static void docs_add(docs *d, const char *name, json_t *v) {
  if (d->n == d->cap) d->v = (doc *)cli_xrealloc(d->v, (d->cap = d->cap ? d->cap * 2 : 16) * sizeof *d->v);
  d->v[d->n].name = cli_xstrdup(name);
  d->v[d->n].v = v;
  d->v[d->n].anon = 0;
  d->n++;
}

void cli_docs_free(docs *d) {
  size_t i;
  for (i = 0; i < d->n; i++) {
    free(d->v[i].name);
    json_decref(d->v[i].v);
  }
  free(d->v);
  memset(d, 0, sizeof *d);
}

/* The document `render -f json` prints for a job of that name, kind,
** task type and version, holding `custom` (its reference taken). */
static json_t *envelope_of(const char *name, const char *kind, const char *type,
                           json_int_t version, json_t *custom) {
  json_t *e = json_object();
  json_object_set_new(e, "name", json_string(name));
  json_object_set_new(e, "kind", json_string(kind));
  json_object_set_new(e, "type", json_string(type));
  json_object_set_new(e, "taskTypeVersion", json_integer(version));
  json_object_set_new(e, "custom", custom);
  return e;
}

/* A job as the document `render -f json` prints for it. */
static json_t *envelope(const kfjob_job *j, json_t *custom) {
  return envelope_of(j->name, j->kind, j->task_type, j->version, custom);
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

/* A YAML reading: the parser, the path of the node being read (for
** messages, as the core's reader writes it: spec.x[0].name) and what
** went wrong: err, a syntax problem, or dup, a key given twice. */
typedef struct yrd {
  yaml_parser_t *p;
  const char *err;
  char dup[640];
  char path[256];
  size_t plen;
} yrd;

static json_t *yaml_node(yrd *r, yaml_event_t *ev, int depth);

static int yaml_next(yrd *r, yaml_event_t *e) {
  if (yaml_parser_parse(r->p, e)) return 1;
  r->err = r->p->problem ? r->p->problem : "syntax error";
  return 0;
}

/* path += "[i]" or ".key" (a top-level key without the dot); the old
** length to restore. */
static size_t path_push(yrd *r, const char *key, size_t i) {
  size_t old = r->plen;
  int k = key ? snprintf(r->path + old, sizeof r->path - old, "%s%s", old ? "." : "", key)
              : snprintf(r->path + old, sizeof r->path - old, "[%zu]", i);
  r->plen = k < 0 ? old : old + (size_t)k >= sizeof r->path ? sizeof r->path - 1 : old + (size_t)k;
  return old;
}

static void path_pop(yrd *r, size_t old) {
  r->plen = old;
  r->path[old] = '\0';
}

/* A sequence's items up to its end event, the start consumed. */
static json_t *yaml_seq(yrd *r, int depth) {
  json_t *v = json_array();
  for (;;) {
    yaml_event_t e;
    json_t *x;
    size_t old;
    if (!yaml_next(r, &e)) {
      json_decref(v);
      return NULL;
    }
    if (e.type == YAML_SEQUENCE_END_EVENT) {
      yaml_event_delete(&e);
      return v;
    }
    old = path_push(r, NULL, json_array_size(v));
    x = yaml_node(r, &e, depth + 1);
    path_pop(r, old);
    if (x == NULL) {
      json_decref(v);
      return NULL;
    }
    json_array_append_new(v, x);
  }
}

/* A key given twice: refused, as the core's reader refuses it (a later
** value would silently win).  lines: each key's line so far. */
static int yaml_dup(yrd *r, json_t *lines, const char *key, size_t line) {
  json_t *first = json_object_get(lines, key);
  if (first == NULL) {
    json_object_set_new(lines, key, json_integer((json_int_t)line));
    return 0;
  }
  snprintf(r->dup, sizeof r->dup, "line %zu: %s%sduplicate key '%.100s' (first given on line %lld)",
           line, r->path, r->plen ? ": " : "", key, (long long)json_integer_value(first));
  r->err = r->dup;
  return 1;
}

/* A mapping's scalar keys and values up to its end event, the start
** consumed. */
static json_t *yaml_map(yrd *r, int depth) {
  json_t *v = json_object(), *lines = json_object();
  for (;;) {
    yaml_event_t e;
    json_t *x = NULL;
    char *key;
    size_t old, line;
    if (!yaml_next(r, &e)) break;
    if (e.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&e);
      json_decref(lines);
      return v;
    }
    if (e.type != YAML_SCALAR_EVENT) {
      r->err = "mapping keys must be scalars";
      yaml_event_delete(&e);
      break;
    }
    key = cli_xprintf("%.*s", (int)e.data.scalar.length, (const char *)e.data.scalar.value);
    line = e.start_mark.line + 1;
    yaml_event_delete(&e);
    if (yaml_dup(r, lines, key, line) || !yaml_next(r, &e)) {
      free(key);
      break;
    }
    old = path_push(r, key, 0);
    x = yaml_node(r, &e, depth + 1);
    path_pop(r, old);
    if (x) json_object_set_new(v, key, x);
    free(key);
    if (x == NULL) break;
  }
  json_decref(lines);
  json_decref(v);
  return NULL;
}

/* Parse one node whose first event is in ev (consumed). */
static json_t *yaml_node(yrd *r, yaml_event_t *ev, int depth) {
  json_t *v = NULL;
  if (depth > 100) {
    r->err = "nested too deeply";
    yaml_event_delete(ev);
    return NULL;
  }
  switch (ev->type) {
    case YAML_SCALAR_EVENT:
      v = yaml_scalar(ev);
      yaml_event_delete(ev);
      return v;
    case YAML_ALIAS_EVENT:
      r->err = "aliases are not supported";
      yaml_event_delete(ev);
      return NULL;
    case YAML_SEQUENCE_START_EVENT:
      yaml_event_delete(ev);
      return yaml_seq(r, depth);
    case YAML_MAPPING_START_EVENT:
      yaml_event_delete(ev);
      return yaml_map(r, depth);
    default:
      r->err = "unexpected YAML event";
      yaml_event_delete(ev);
      return NULL;
  }
}

/* Every document of a YAML stream: 0, -1 (msg: the syntax problem) or -2
** (msg: "document N, line L: PATH: duplicate key ..."). */
static int parse_yaml(const char *data, size_t n, json_t *out, char *msg, size_t cap) {
  yaml_parser_t p;
  yaml_event_t ev;
  yrd r;
  int rc = 0, done = 0;
  size_t ndoc = 0;
  if (!yaml_parser_initialize(&p)) cli_die_oom();
  yaml_parser_set_input_string(&p, (const unsigned char *)data, n);
  memset(&r, 0, sizeof r);
  r.p = &p;
  while (!done && rc == 0) {
    if (!yaml_next(&r, &ev)) {
      rc = -1;
      break;
    }
    if (ev.type == YAML_STREAM_END_EVENT) done = 1;
    if (ev.type == YAML_DOCUMENT_START_EVENT) {
      yaml_event_t e;
      json_t *v;
      ndoc++;
      if (!yaml_next(&r, &e)) rc = -1;
      else if (e.type == YAML_DOCUMENT_END_EVENT) yaml_event_delete(&e);   /* empty */
      else if ((v = yaml_node(&r, &e, 0)) == NULL) rc = r.err == r.dup ? -2 : -1;
      else json_array_append_new(out, v);
    }
    yaml_event_delete(&ev);
  }
  if (rc == -2) snprintf(msg, cap, "document %zu, %s", ndoc, r.dup);
  else if (rc == -1) snprintf(msg, cap, "%s", r.err);
  yaml_parser_delete(&p);
  return rc;
}

/* jansson's "line L, column C: duplicate object key near 'K'" for the
** value read from data + off, its line and column made the file's
** ("document N, " first when ndoc is not 0). */
static void json_dup_message(const char *data, size_t off, const json_error_t *e,
                             size_t ndoc, char *msg, size_t cap) {
  size_t line = 0, col = 0, i;
  for (i = 0; i < off; i++) {
    if (data[i] == '\n') line++, col = 0;
    else col++;
  }
  line += (size_t)(e->line > 0 ? e->line : 1);
  col = (size_t)(e->column > 0 ? e->column : 0) + (e->line <= 1 ? col : 0);
  if (ndoc) snprintf(msg, cap, "document %zu, line %zu, column %zu: %s", ndoc, line, col, e->text);
  else snprintf(msg, cap, "line %zu, column %zu: %s", line, col, e->text);
}

/* JSON: one value or JSON lines.  0, -1 (not JSON) or -2: a key given
** twice, refused as the host's reader refuses it (msg says where). */
static int parse_json_stream(const char *data, size_t n, json_t *out, char *msg, size_t cap) {
  size_t off = 0, ndoc = 0;
  while (off < n) {
    json_error_t e;
    json_t *v;
    while (off < n && isspace((unsigned char)data[off])) off++;
    if (off == n) break;
    ndoc++;
    v = json_loadb(data + off, n - off,
                   JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
    if (v == NULL && json_error_code(&e) == json_error_duplicate_key) {
      json_dup_message(data, off, &e, ndoc, msg, cap);
      return -2;
    }
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
    cli_write_stream(d->stream, stdout, j);
    return 0;
  }
  custom = json_loadb(j->data, j->size, JSON_DECODE_ANY, &e);
  if (custom == NULL) return 1;
  /* a TaskSpec comes back whole (the host writes it again from what it
  ** read), anything else as the job's envelope */
  docs_add(d->out, j->name, j->format == KFJOB_FORMAT_TASKSPEC_JSON ? custom : envelope(j, custom));
  return 0;
}

/* A `render -f template-json` line with a key given twice: refused (its
** template is written again, so the host would not see the key twice). */
static int refuse_duplicates(const char *path, const char *data, size_t n) {
  json_error_t e;
  json_t *v = json_loadb(data, n, JSON_REJECT_DUPLICATES, &e);
  char msg[400];
  if (v != NULL || json_error_code(&e) != json_error_duplicate_key) {
    json_decref(v);
    return 0;
  }
  json_dup_message(data, 0, &e, 0, msg, sizeof msg);
  return cli_errorf(EXIT_INVALID, "%s: %s", path, msg);
}

/* Decode one binary (or TaskTemplate / TaskSpec JSON) file into documents
** via the host.  type: --type, else from the directory's output list,
** else a TaskTemplate or a TaskSpec.  Returns an exit status. */
int cli_decode_bytes(kfjob_host *h, const opts *o, const char *path,
                     const char *data, size_t n, const entry *e,
                     docs *out, render_ctx *stream) {
  kfjob_run_options ro;
  decode_ctx d;
  kfjob_status st;
  const char *type = o->type;
  int version = o->version < 0 ? 1 : o->version;
  char *stem = cli_stem_of(path), *inner = NULL, *named = NULL;
  kfjob_run_options_init(&ro);
  ro.namespace_ = o->ns;
  ro.image = o->image;
  ro.name = o->name ? o->name : e ? e->name : stem;
  if (type == NULL && e && (strcmp(e->format, "pb") == 0 || strcmp(e->format, "json") == 0)) {
    type = strcmp(e->kind, "HorovodJob") == 0 ? e->kind : e->type;
    version = e->version;
  }
  /* a line of `render -f template-json`: {"name", ..., "template"} */
  if (type == NULL && n && data[strspn(data, " \t\r\n")] == '{') {
    json_t *env = json_loadb(data, n, 0, NULL), *tt = json_object_get(env, "template");
    const char *nm = json_string_value(json_object_get(env, "name"));
    int code = json_is_object(tt) && nm ? refuse_duplicates(path, data, n) : 0;
    if (code) {
      json_decref(env);
      free(stem);
      return code;
    }
    if (json_is_object(tt) && nm && (inner = json_dumps(tt, JSON_COMPACT)) != NULL) {
      if (o->name == NULL) ro.name = named = cli_xstrdup(nm);
      data = inner;
      n = strlen(inner);
    }
    json_decref(env);
  }
  /* diff (no stream): a TaskSpec comes back whole, so that it reads the
  ** same as bytes and as JSON; the host gives other inputs as JSON */
  if (stream == NULL) ro.format = type == NULL ? KFJOB_FORMAT_TASKSPEC_JSON : KFJOB_FORMAT_JSON;
  else ro.format = o->format;
  d.out = out;
  d.stream = stream;
  d.fallback = ro.name;
  st = kfjob_host_decode(h, type, version, data, n, &ro, on_decoded, &d);
  free(stem);
  free(inner);
  free(named);
  if (st == KFJOB_OK) return 0;
  if (st == KFJOB_ESTOPPED)
    return cli_errorf(EXIT_INVALID, "%s: cannot read the decoded JSON", path);
  return cli_report(h, st, path);
}

/* A flyteidl.admin.TaskSpec in proto3 JSON: a `template` object, no
** envelope's `name` (render -f template-json lines have one). */
static int is_taskspec_json(json_t *v) {
  return json_is_object(json_object_get(v, "template")) &&
         json_object_get(v, "name") == NULL && json_object_get(v, "custom") == NULL;
}

/* Documents of one file.  Returns an exit status. */
static int load_file(kfjob_host *h, const opts *o, const char *path,
                     const entry *e, docs *out) {
  char *data, *stem;
  size_t n, i;
  json_t *arr;
  char msg[800];
  int code = 0, js;
  if (cli_read_file(path, &data, &n) != 0)
    return cli_errorf(EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
  if (o->type || looks_binary(data, n) ||
      (e && (strcmp(e->format, "pb") == 0 || strcmp(e->format, "template") == 0 ||
             strcmp(e->format, "template-json") == 0 ||
             strcmp(e->format, "taskspec") == 0 || strcmp(e->format, "taskspec-json") == 0))) {
    code = cli_decode_bytes(h, o, path, data, n, e, out, NULL);
    free(data);
    return code;
  }
  arr = json_array();
  js = parse_json_stream(data, n, arr, msg, sizeof msg);
  if (js == 0 && json_array_size(arr) == 1 &&
      is_taskspec_json(json_array_get(arr, 0))) {
    /* a TaskSpec as JSON: the host's strict reader, as `decode` reads it */
    json_decref(arr);
    code = cli_decode_bytes(h, o, path, data, n, e, out, NULL);
    free(data);
    return code;
  }
  if (js == -1) {
    json_array_clear(arr);
    js = parse_yaml(data, n, arr, msg, sizeof msg);
  }
  if (js != 0) {
    code = js == -2 ? cli_errorf(EXIT_INVALID, "%s: %s", path, msg)
                    : cli_errorf(EXIT_INVALID, "%s: neither JSON nor YAML (%s)", path, msg);
    json_decref(arr);
    free(data);
    return code;
  }
  stem = e ? cli_xstrdup(e->name) : cli_stem_of(path);
  for (i = 0; i < json_array_size(arr); i++) {
    json_t *v = json_array_get(arr, i);
    const char *name = doc_name(v);
    char *made = NULL;
    json_incref(v);
    if (e && e->format && (strcmp(e->format, "json") == 0 || strcmp(e->format, "yaml") == 0)) {
      /* a file of `render -o`: the list knows what the stream form holds */
      v = envelope_of(e->name, e->kind, e->type, e->version, v);
      name = e->name;
    }
    if (name == NULL)
      name = made = json_array_size(arr) == 1 ? cli_xstrdup(stem)
                                              : cli_xprintf("%s#%zu", stem, i + 1);
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
  cli_entries_load(&es, dir);
  if (es.n) {
    for (i = 0; i < es.n && code == 0; i++) {
      char *path = cli_xprintf("%s/%s", dir, es.v[i].file);
      code = load_file(h, o, path, &es.v[i], out);
      free(path);
    }
  } else {
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0;
    if (d == NULL) return cli_errorf(EXIT_USAGE, "cannot read %s: %s", dir, strerror(errno));
    while ((de = readdir(d)) != NULL) {
      char *path;
      struct stat sb;
      if (de->d_name[0] == '.') continue;
      path = cli_xprintf("%s/%s", dir, de->d_name);
      if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        names = (char **)cli_xrealloc(names, (n + 1) * sizeof *names);
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
  cli_entries_free(&es);
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
  char msg[800];
  size_t i;
  if (j->format == KFJOB_FORMAT_JSON) {
    json_error_t e;
    json_t *custom = json_loadb(j->data, j->size, JSON_DECODE_ANY, &e);
    if (custom == NULL) return 1;
    docs_add(c->out, j->name, envelope(j, custom));
    return 0;
  }
  arr = json_array();
  if ((j->format == KFJOB_FORMAT_MANIFEST ? parse_yaml(j->data, j->size, arr, msg, sizeof msg)
                                          : parse_json_stream(j->data, j->size, arr, msg, sizeof msg)) != 0) {
    json_decref(arr);
    return 1;
  }
  for (i = 0; i < json_array_size(arr); i++)
    docs_add(c->out, j->name, json_incref(json_array_get(arr, i)));
  json_decref(arr);
  return 0;
}

int cli_load_side(kfjob_host *h, const opts *o, const char *path, docs *out) {
  struct stat sb;
  if (strcmp(path, "-") != 0 && stat(path, &sb) != 0)
    return cli_errorf(EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
  if (strcmp(path, "-") != 0 && S_ISDIR(sb.st_mode)) return load_dir(h, o, path, out);
  if (ends_with(path, ".lua")) {
    kfjob_run_options ro;
    script_ctx c;
    kfjob_status st;
    char *name = cli_default_name(path);
    cli_run_options(o, &ro, name);
    ro.select = NULL;
    if (ro.format == KFJOB_FORMAT_YAML || ro.format == KFJOB_FORMAT_PB ||
        ro.format == KFJOB_FORMAT_TEMPLATE || cli_is_taskspec_format(ro.format))
      ro.format = KFJOB_FORMAT_JSON;     /* the same content, comparable */
    c.out = out;
    c.format = ro.format;
    st = cli_run_config(h, o, path, &ro, on_script_job, &c);
    free(name);
    if (st == KFJOB_ESTOPPED) return cli_errorf(EXIT_USAGE, "%s: unreadable render", path);
    return cli_report(h, st, path);
  }
  {
    char *dir = strcmp(path, "-") == 0 ? NULL : cli_dir_of(path);
    entries es;
    int code;
    memset(&es, 0, sizeof es);
    if (dir) cli_entries_load(&es, dir);
    code = load_file(h, o, path, dir ? cli_entries_find(&es, cli_base_of(path)) : NULL, out);
    cli_entries_free(&es);
    free(dir);
    return code;
  }
}

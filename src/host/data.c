/*
** data.c - data configs (.yaml, .yml, .json): the text read by the core's
** strict reader (kf_yaml_read), each job document built by the constructor
** a Lua config calls (kfjob.<Kind> with the document's keys but `kind`),
** so the checks and messages are the same; then the jobs emitted as the
** driver emits a Lua config's.  Three shapes: one job (a mapping with
** `kind`), a list of jobs (named NAME-1, ...), {jobs: {name: job}} (sorted
** by name).  Messages are "FILE:LINE: PATH: problem", PATH being the
** document's (jobs.bert.worker.replicas).  Every job is built before the
** first is emitted: a config with an error renders nothing.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kf_json.h"
#include "kf_yaml_read.h"
#include "lkf_binding.h"
#include "host.h"

#define SHAPES "a data config is one job (a mapping with its kind), a list " \
               "of jobs or {jobs: {name: job}}"

/* ASCII case-insensitive: does s end with ext (after at least one byte)? */
static int ends_with(const char *s, size_t n, const char *ext) {
  size_t k = strlen(ext), i;
  if (n <= k) return 0;
  for (i = 0; i < k; i++) {
    char c = s[n - k + i];
    if ((c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c) != ext[i]) return 0;
  }
  return 1;
}

int kfh_is_data(const char *chunkname) {
  size_t n = chunkname ? strlen(chunkname) : 0;
  return ends_with(chunkname, n, ".yaml") || ends_with(chunkname, n, ".yml") ||
         ends_with(chunkname, n, ".json");
}

/* ---- messages --------------------------------------------------------- */

/* Raises "FILE:LINE: PATH: what" (PATH left out when empty). */
static int data_error(lua_State *L, run *R, size_t line, const char *path,
                      const char *what) {
  R->st = KFJOB_ESCRIPT;
  if (path && path[0])
    return luaL_error(L, "%s:%d: %s: %s", R->short_src, (int)line, path, what);
  return luaL_error(L, "%s:%d: %s", R->short_src, (int)line, what);
}

/* A key as a path step: ".name" when identifier-like, else ["key"]. */
static void path_add(char *out, size_t cap, const char *k) {
  size_t n = strlen(out);
  const char *p = k;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
      break;
  if (*p || !*k) snprintf(out + n, cap - n, "[\"%s\"]", k);
  else snprintf(out + n, cap - n, "%s%s", n ? "." : "", k);
}

/* Does the constructor's message start with a path ("worker.replicas: ")?
** Returns its length, or 0. */
static size_t msg_path(const kf_yaml_doc *d, const char *prefix, const char *m,
                       char *full, size_t cap) {
  const char *colon = strstr(m, ": ");
  size_t n = colon ? (size_t)(colon - m) : 0, matched, i;
  if (n == 0 || n >= cap / 2) return 0;
  snprintf(full, cap, "%s%s%.*s", prefix, prefix[0] && m[0] != '[' ? "." : "",
           (int)n, m);
  kf_yaml_path_line(d, full, &matched);
  if (matched == strlen(full)) return n;      /* a path of the document */
  for (i = 0; i < n; i++)                     /* or one it leaves out */
    if (m[i] == ' ' || m[i] == '\'' || m[i] == '(') return 0;
  return n;
}

/* The constructor's error (on top) -> the document's path and line. */
static int job_failed(lua_State *L, run *R, const kf_yaml_doc *d, int kind,
                      const char *prefix, size_t job_line) {
  const char *m = lua_tostring(L, -1), *ctor = lkf_job_mt[kind];
  char full[512];
  size_t n, line;
  if (m == NULL || R->mem_hit || R->limit_hit) return lua_error(L);
  if (strncmp(m, ctor, strlen(ctor)) == 0 && strncmp(m + strlen(ctor), ": ", 2) == 0)
    m += strlen(ctor) + 2;
  if ((n = msg_path(d, prefix, m, full, sizeof full)) == 0)
    return data_error(L, R, job_line, prefix, m);
  line = kf_yaml_path_line(d, full, NULL);
  return data_error(L, R, line, full, m + n + 2);
}

/* ---- one job ---------------------------------------------------------- */

/* The first null inside a list under n (Lua tables cannot hold it). */
static int null_in_list(const kf_node *n, char *path, size_t cap) {
  size_t i, len = strlen(path);
  if (n->t != KF_NARR && n->t != KF_NOBJ) return 0;
  for (i = 0; i < n->u.c.n; i++) {
    if (n->t == KF_NARR) snprintf(path + len, cap - len, "[%zu]", i + 1);
    else path_add(path, cap, n->u.c.k[i]);
    if ((n->t == KF_NARR && n->u.c.v[i]->t == KF_NNIL) ||
        null_in_list(n->u.c.v[i], path, cap))
      return 1;
    path[len] = '\0';
  }
  return 0;
}

/* The kind a job document names; raises when it names none. */
static int job_kind(lua_State *L, run *R, const kf_yaml_doc *d,
                    const kf_node *job, const char *prefix, size_t line) {
  const kf_node *k = job->t == KF_NOBJ ? kf_node_get(job, "kind") : NULL;
  const char *names[KF_NKINDS + 1], *sug;
  char path[512], what[160];
  int i;
  snprintf(path, sizeof path, "%s%skind", prefix, prefix[0] ? "." : "");
  if (job->t != KF_NOBJ)
    return data_error(L, R, line, prefix, "a job must be a mapping with its kind");
  if (k == NULL) return data_error(L, R, line, prefix, "the job has no kind");
  line = kf_yaml_path_line(d, path, NULL);
  if (k->t != KF_NSTR) return data_error(L, R, line, path, "expected a string");
  for (i = 0; i < KF_NKINDS; i++) {
    names[i] = kf_kinds[i].name;
    if (strlen(names[i]) == k->u.s.n && strcmp(names[i], k->u.s.p) == 0) return i;
  }
  names[KF_NKINDS] = NULL;
  kf_name_show(k->u.s.p, k->u.s.n, what, 64);
  if ((sug = kf_suggest(k->u.s.p, names)) != NULL)
    lua_pushfstring(L, "unknown kind '%s' (did you mean '%s'?)", what, sug);
  else
    lua_pushfstring(L, "unknown kind '%s' (expected a kfjob constructor's name, "
                       "e.g. PyTorchJob)", what);
  return data_error(L, R, line, path, lua_tostring(L, -1));
}

/* Builds the job document `job` (path `prefix`) with kfjob.<Kind> (the
** module is at `mod`); pushes the job, and records its site. */
static void build_job(lua_State *L, run *R, int mod, const kf_yaml_doc *d,
                      const kf_node *job, const char *prefix) {
  size_t line = kf_yaml_path_line(d, prefix, NULL), i;
  int kind = job_kind(L, R, d, job, prefix, line);
  char path[512];
  snprintf(path, sizeof path, "%s", prefix);
  if (null_in_list(job, path, sizeof path))
    data_error(L, R, kf_yaml_path_line(d, path, NULL), path,
               "null is not allowed in a list");
  lua_getfield(L, mod, kf_kinds[kind].name);
  lua_createtable(L, 0, (int)job->u.c.n);
  for (i = 0; i < job->u.c.n; i++) {
    const char *k = job->u.c.k[i];
    if (strcmp(k, "kind") == 0 || job->u.c.v[i]->t == KF_NNIL ||
        (prefix[0] == '\0' && strcmp(k, "$schema") == 0))
      continue;
    lkf_pushnode(L, job->u.c.v[i]);             /* null: the key left out */
    lua_setfield(L, -2, job->u.c.k[i]);
  }
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) job_failed(L, R, d, kind, prefix, line);
  if (lua_getfield(L, LUA_REGISTRYINDEX, SITES) == LUA_TTABLE) {
    lua_pushvalue(L, -2);
    lua_pushfstring(L, "%s:%d", R->short_src, (int)line);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
}

/* ---- the shapes ------------------------------------------------------- */

typedef struct built {
  int names, jobs;        /* stack slots: lists of names and jobs */
  int n;
} built;

static void keep(lua_State *L, built *b) {   /* the job on top, its name below */
  b->n++;
  lua_rawseti(L, b->jobs, b->n);
  lua_rawseti(L, b->names, b->n);
}

static int cmp_key(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* {jobs: {name: job}}: every job, in name order. */
static void build_named(lua_State *L, run *R, int mod, const kf_yaml_doc *d,
                        const kf_node *jobs, built *b, kf_arena *A) {
  const char **keys;
  char prefix[512];
  size_t i, n = jobs->u.c.n;
  if (jobs->t != KF_NOBJ)
    data_error(L, R, kf_yaml_path_line(d, "jobs", NULL), "jobs",
               "expected a mapping of job names to jobs");
  n = jobs->u.c.n;
  if ((keys = (const char **)kf_arena_alloc(A, (n + 1) * sizeof *keys)) == NULL)
    luaL_error(L, "not enough memory");
  for (i = 0; i < n; i++) keys[i] = jobs->u.c.k[i];
  qsort((void *)keys, n, sizeof *keys, cmp_key);
  for (i = 0; i < n; i++) {
    const kf_node *job = kf_node_get(jobs, keys[i]);
    const char *why = kf_name_problem(keys[i], strlen(keys[i]));
    char shown[80];
    if (why) {                       /* "a\0b" cannot reach here: keys have no NUL */
      kf_name_show(keys[i], strlen(keys[i]), shown, sizeof shown);
      lua_pushfstring(L, "job '%s': %s", shown, why);
      data_error(L, R, kf_yaml_node_line(d, job), "jobs", lua_tostring(L, -1));
    }
    strcpy(prefix, "jobs");
    path_add(prefix, sizeof prefix, keys[i]);
    lua_pushstring(L, keys[i]);
    build_job(L, R, mod, d, job, prefix);
    keep(L, b);
  }
}

/* The jobs of the document, by its shape, into b. */
static void build_all(lua_State *L, run *R, int mod, const kf_yaml_doc *d,
                      built *b, kf_arena *A) {
  const kf_node *root = d->root, *jobs, *schema;
  char prefix[32];
  size_t i;
  /* a top-level $schema names a JSON Schema for editors: a string, as
  ** kfjob schema says (its value is not read further) */
  if (root->t == KF_NOBJ && (schema = kf_node_get(root, "$schema")) != NULL &&
      schema->t != KF_NSTR && schema->t != KF_NNIL)
    data_error(L, R, kf_yaml_node_line(d, schema), "$schema",
               "expected a string (the JSON Schema's location)");
  if (root->t == KF_NARR) {
    for (i = 0; i < root->u.c.n; i++) {
      snprintf(prefix, sizeof prefix, "[%zu]", i + 1);
      lua_pushfstring(L, "%s-%d", R->o.name ? R->o.name : "job", (int)i + 1);
      build_job(L, R, mod, d, root->u.c.v[i], prefix);
      keep(L, b);
    }
  } else if (root->t == KF_NOBJ && kf_node_get(root, "kind") != NULL) {
    lua_pushstring(L, R->o.name ? R->o.name : "job");
    build_job(L, R, mod, d, root, "");
    keep(L, b);
  } else if (root->t == KF_NOBJ && (jobs = kf_node_get(root, "jobs")) != NULL) {
    for (i = 0; i < root->u.c.n; i++)
      if (strcmp(root->u.c.k[i], "jobs") != 0 && strcmp(root->u.c.k[i], "$schema") != 0) {
        char k[80];
        kf_name_show(root->u.c.k[i], strlen(root->u.c.k[i]), k, sizeof k);
        lua_pushfstring(L, "unknown top-level key '%s' (a {jobs: ...} config "
                           "has only 'jobs' and '$schema')", k);
        data_error(L, R, kf_yaml_node_line(d, root->u.c.v[i]), "",
                   lua_tostring(L, -1));
      }
    build_named(L, R, mod, d, jobs, b, A);
  } else {
    data_error(L, R, d->line, "", root->t == KF_NOBJ
               ? "the mapping has neither 'kind' nor 'jobs': " SHAPES
               : "expected a mapping or a list: " SHAPES);
  }
}

/* ---- the run ---------------------------------------------------------- */

/* jansson's "'}' expected near end of file" reads like a Lua syntax error
** (the same words): said as "expected '}' near end of file", JSON's way. */
static void json_reword(lua_State *L, const char *m) {
  const char *x = strstr(m, " expected near ");
  if (x == NULL) {
    lua_pushstring(L, m);
    return;
  }
  lua_pushfstring(L, "expected %s near %s", lua_pushlstring(L, m, (size_t)(x - m)),
                  x + 15);
  lua_remove(L, -2);
}

/* A .json config must be JSON (RFC 8259, by the core's JSON reader, whose
** "line L, column C: ..." becomes FILE:L): the YAML reader, which gives the
** lines, would take YAML too.  Returns the tree, kept for a text the YAML
** reader refuses (libyaml cannot read an escaped surrogate pair): then
** every line is the first. */
static kf_node *json_first(lua_State *L, run *R, kf_arena *A) {
  kf_node *root = NULL;
  kf_err e;
  unsigned long line = 1, col = 0;
  int at = 0;
  kf_status st;
  size_t n = strlen(R->chunkname), bom;
  if (!ends_with(R->chunkname, n, ".json")) return NULL;   /* any case, as kfh_is_data */
  bom = R->len >= 3 && memcmp(R->src, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;   /* a UTF-8 BOM */
  if ((st = kf_json_parse(R->src + bom, R->len - bom, A, &root, &e)) == KF_OK) return root;
  if (st == KF_ENOMEM) luaL_error(L, "not enough memory");
  if (sscanf(e.msg, "line %lu, column %lu: %n", &line, &col, &at) == 2 && at > 0) {
    json_reword(L, e.msg + at);
    lua_pushfstring(L, "%s (column %d)", lua_tostring(L, -1), (int)col);
    return data_error(L, R, line, "", lua_tostring(L, -1)), NULL;
  }
  return data_error(L, R, 1, "", e.msg), NULL;
}

/* The text's one document; raises on a reader error or another count. */
/* A Kubernetes manifest given where a config is read (render, check,
** env): said so, with the command that reads it. */
static void manifest_given(lua_State *L, run *R, const kf_yaml_doc *docs, size_t nd) {
  size_t i;
  for (i = 0; i < nd; i++) {
    const kf_node *api = kf_node_get(docs[i].root, "apiVersion");
    const kf_node *kind = kf_node_get(docs[i].root, "kind");
    if (docs[i].root->t != KF_NOBJ || api == NULL || api->t != KF_NSTR || kind == NULL ||
        kind->t != KF_NSTR)
      continue;
    lua_pushfstring(L, "this is a Kubernetes manifest (apiVersion %s, kind %s), not a "
                    "config: use kfjob convert to read it (kfjob convert FILE -f lua "
                    "writes its config)", api->u.s.p, kind->u.s.p);
    data_error(L, R, docs[i].line, "", lua_tostring(L, -1));
  }
}

static const kf_yaml_doc *read_doc(lua_State *L, run *R, kf_arena *A) {
  kf_yaml_limits lim;
  kf_yaml_doc *docs;
  kf_yaml_where w;
  kf_err e;
  kf_node *json;
  size_t nd;
  kf_status st;
  memset(&lim, 0, sizeof lim);
  lim.index_base = 1;                  /* as the constructors' paths */
  if (R->len > KF_YAML_MAX_BYTES)      /* every format's (JSON is read first) */
    data_error(L, R, 1, "", "text larger than the limit (16 MiB)");
  json = json_first(L, R, A);
  st = kf_yaml_read(A, R->src, R->len, &lim, &docs, &nd, &w, &e);
  if (st == KF_ENOMEM) luaL_error(L, "not enough memory");
  if (st != KF_OK && json != NULL) {   /* valid JSON: no lines, then */
    if ((docs = (kf_yaml_doc *)kf_arena_alloc(A, sizeof *docs)) == NULL)
      luaL_error(L, "not enough memory");
    docs->root = json, docs->line = 1, docs->index_base = 1;
    return docs;
  }
  if (st != KF_OK) {
    R->not_input = w.not_text;   /* no text at all: kfjob_host_not_input() */
    if (w.column) lua_pushfstring(L, "%s (column %d)", w.what, (int)w.column);
    else lua_pushstring(L, w.what);
    data_error(L, R, w.line ? w.line : 1, w.path, lua_tostring(L, -1));
  }
  if (nd == 0 || (nd == 1 && docs[0].root->t == KF_NNIL))
    data_error(L, R, nd ? docs[0].line : 1, "", "the config is empty: " SHAPES);
  manifest_given(L, R, docs, nd);
  if (nd > 1)
    data_error(L, R, docs[1].line, "", "a second document: a data config is one "
               "document (a list of jobs goes in one)");
  return &docs[0];
}

/* The name the driver's messages give the file (Lua's short_src). */
static void set_short_src(lua_State *L, run *R) {
  lua_Debug ar;
  if (luaL_loadbufferx(L, "", 0, R->chunkname, "t") != LUA_OK) lua_error(L);
  lua_getinfo(L, ">S", &ar);
  snprintf(R->short_src, sizeof R->short_src, "%s", ar.short_src);
}

void kfh_run_data(lua_State *L, run *R) {
  int version = R->o.version < 0 ? 1 : R->o.version, mod, named, i;
  const kf_yaml_doc *d;
  kf_arena *A;
  built b;
  R->st = KFJOB_ESCRIPT;
  set_short_src(L, R);
  if (R->o.nparams + R->o.nstring_params > 0)   /* nothing would read them */
    luaL_error(L, "%s: a data config takes no params (--set, --set-string): only "
                  "a Lua config reads them", R->short_src);
  lua_pushcfunction(L, kfh_require);
  lua_pushliteral(L, KFJOB_LIBNAME);
  lua_call(L, 1, 1);
  mod = lua_gettop(L);
  A = kfh_push_arena(L);
  d = read_doc(L, R, A);
  named = d->root->t == KF_NOBJ && kf_node_get(d->root, "kind") == NULL;
  lua_newtable(L);
  b.names = lua_gettop(L);
  lua_newtable(L);
  b.jobs = lua_gettop(L);
  b.n = 0;
  build_all(L, R, mod, d, &b, A);             /* all, before any is emitted */
  R->total = named && R->o.select ? 1 : (size_t)b.n;
  for (i = 1; i <= b.n && !R->o.keep_going; i++) {   /* and rendered: all or none */
    lua_rawgeti(L, b.names, i);
    lua_rawgeti(L, b.jobs, i);
    kfh_emit_dry(L, R, lua_gettop(L) - 1, lua_gettop(L), version, named);
    lua_pop(L, 2);
  }
  for (i = 1; i <= b.n && !R->stopped; i++) {
    lua_rawgeti(L, b.names, i);
    lua_rawgeti(L, b.jobs, i);
    kfh_emit(L, R, lua_gettop(L) - 1, lua_gettop(L), version, named);
    lua_pop(L, 2);
  }
  if (R->o.select && R->named_seen && R->selected == 0 && !R->stopped) {
    R->st = KFJOB_EJOB;
    luaL_error(L, "%s: no job named '%s'", R->short_src, R->o.select);
  }
}

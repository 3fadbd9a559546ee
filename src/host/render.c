/*
** render.c - one job the config returned -> its rendering -> the host's
** callback.  The core renders (kf_render, kf_lint) into an arena and a
** buffer over the state's allocator, so they count against the memory
** limit; no Lua call happens while that memory is held, and it is freed
** before any error is raised.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kf_manifest.h"
#include "kf_render.h"
#include "kf_rules.h"
#include "kf_sched.h"
#include "lkf_binding.h"
#include "host.h"

_Static_assert((int)KF_RENDER_PB == (int)KFJOB_FORMAT_PB &&
               (int)KF_RENDER_YAML == (int)KFJOB_FORMAT_YAML &&
               (int)KF_RENDER_MANIFEST_JSON == (int)KFJOB_FORMAT_MANIFEST_JSON &&
               (int)KF_RENDER_MANIFEST_JSON + 1 == (int)KFJOB_FORMAT_NONE &&
               (int)KF_RENDER_TASKSPEC == (int)KFJOB_FORMAT_TASKSPEC &&
               (int)KF_RENDER_TASKSPEC_JSON == (int)KFJOB_FORMAT_TASKSPEC_JSON,
               "kf_render_format follows kfjob_format");

/* The core's options for the run's format: the indent only for the JSON
** formats (YAML uses 2), the replica encoding (ignored by manifests), the
** manifest's name, namespace and image.  "none" renders the job's own
** output, then drops it: the plugin message, or the manifest of a kind
** without a Flyte task type (SPEC §12). */
static void render_opts(const kf_job *kj, const run *R, const char *name,
                        int version, kf_render_opts *ro) {
  /* the Lua method each format mimics, naming its errors */
  static const char *const who[] = {
      [KF_RENDER_PB] = "kfjob.encode",
      [KF_RENDER_JSON] = "kfjob.to_json",
      [KF_RENDER_YAML] = "kfjob.to_json",
      [KF_RENDER_TEMPLATE] = "kfjob.task_template",
      [KF_RENDER_TEMPLATE_JSON] = "kfjob.task_template",
      [KF_RENDER_MANIFEST] = "kfjob.manifest",
      [KF_RENDER_MANIFEST_JSON] = "kfjob.manifest",
      [KF_RENDER_TASKSPEC] = "kfjob.task_spec",
      [KF_RENDER_TASKSPEC_JSON] = "kfjob.task_spec",
      [KF_RENDER_ENVIRONMENT] = "kfjob.environment"};
  kfjob_format f = R->o.format;
  kf_err e;
  kf_render_opts_init(ro);
  ro->format = f == KFJOB_FORMAT_ENVIRONMENT ? KF_RENDER_ENVIRONMENT
               : f != KFJOB_FORMAT_NONE ? (kf_render_format)f
               : kf_kinds[kj->kind].task_type ? KF_RENDER_PB
                                              : KF_RENDER_MANIFEST_JSON;
  ro->who = (unsigned)ro->format < sizeof who / sizeof *who ? who[ro->format] : "kfjob";
  ro->enc.version = version;
  ro->enc.ctor = lkf_job_mt[kj->kind];
  ro->enc.common = R->o.replica_encoding &&
                   strcmp(R->o.replica_encoding, "common") == 0;
  if (R->o.indent > 0 && (f == KFJOB_FORMAT_JSON || f == KFJOB_FORMAT_TEMPLATE_JSON ||
                          f == KFJOB_FORMAT_MANIFEST_JSON || f == KFJOB_FORMAT_TASKSPEC_JSON ||
                          f == KFJOB_FORMAT_ENVIRONMENT))
    ro->indent = R->o.indent;
  ro->manifest.name = name;
  ro->manifest.ns = R->o.namespace_;
  ro->manifest.image = R->o.image;
  /* validated by check_opts; "none" (kfjob check) for a target without
  ** payloads builds what that target takes: the manifest */
  if (R->o.target && kf_target_parse(R->o.target, &ro->target, "kfjob",
                                     "target", &e) == KF_OK) {
    ro->target_set = 1;
    if (f == KFJOB_FORMAT_NONE && !(kf_targets[ro->target].emits & KF_E_ENCODE)) {
      ro->format = KF_RENDER_MANIFEST_JSON;
      ro->who = who[KF_RENDER_MANIFEST_JSON];
    }
  }
}

/* Lint warnings as the host's array in the arena (non-NULL even when
** empty); items are {path=, message=} objects. */
static kf_status lint(const kf_job *kj, const run *R, const char *name,
                      int version, kf_arena *A, kfjob_job *j, kf_err *e) {
  kf_lint_opts lo;
  kf_node *list;
  kfjob_warning *w;
  kf_status st;
  size_t i, n;
  memset(&lo, 0, sizeof lo);
  lo.name = name;
  lo.image = R->o.image;
  lo.version = version;
  lo.who = "kfjob.lint";
  if (R->o.target &&
      (st = kf_target_parse(R->o.target, &lo.target, "kfjob", "target", e)) != KF_OK)
    return st;
  if ((st = kf_lint(kj, &lo, A, &list, e)) != KF_OK) return st;
  n = list->u.c.n;
  w = (kfjob_warning *)kf_arena_alloc(A, (n ? n : 1) * sizeof *w);
  if (w == NULL) return kf_nomem(e);
  for (i = 0; i < n; i++) {
    const kf_node *item = list->u.c.v[i], *v;
    w[i].path = w[i].message = "";
    if (item->t == KF_NOBJ) {
      if ((v = kf_node_get(item, "path")) != NULL && v->t == KF_NSTR) w[i].path = v->u.s.p;
      if ((v = kf_node_get(item, "message")) != NULL && v->t == KF_NSTR)
        w[i].message = v->u.s.p;
    } else if (item->t == KF_NSTR) {
      w[i].message = item->u.s.p;
    }
  }
  j->warnings = w;
  j->nwarnings = n;
  return KF_OK;
}

static kf_node *lua_node(lua_State *L, int idx, kf_arena *A, int depth,
                         const char *path, kf_err *e);

/* The node a table at absolute index idx becomes: an object for string
** keys, an array for a sequence, NULL with `e` set for a mix or other keys. */
static kf_node *table_kind(lua_State *L, int idx, kf_arena *A, const char *path,
                           kf_err *e) {
  size_t seq = lua_rawlen(L, idx), count = 0;
  int string_keys = 0;
  kf_node *n;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    count++;
    string_keys += lua_type(L, -1) == LUA_TSTRING;
  }
  if (string_keys != 0 && (string_keys != (int)count || seq != 0)) {
    kf_fail(e, KF_EINVAL, "%s: a table mixes a list and named keys", path);
    return NULL;
  }
  if (string_keys == 0 && count != seq) {
    kf_fail(e, KF_EINVAL, "%s: a table with keys that are not strings", path);
    return NULL;
  }
  if ((n = kf_node_new(A, string_keys ? KF_NOBJ : KF_NARR)) == NULL) kf_nomem(e);
  return n;
}

/* A table (absolute index idx) -> an object or array node, its values
** converted one level deeper. */
static kf_node *table_node(lua_State *L, int idx, kf_arena *A, int depth,
                           const char *path, kf_err *e) {
  kf_node *n = table_kind(L, idx, A, path, e);
  size_t i, seq = lua_rawlen(L, idx);
  if (n == NULL) return NULL;
  if (n->t == KF_NOBJ) {
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      kf_node *v = lua_node(L, -1, A, depth + 1, path, e);
      const char *k = kf_arena_strndup(A, lua_tostring(L, -2), lua_rawlen(L, -2));
      lua_pop(L, 1);
      if (v == NULL) {
        lua_pop(L, 1);
        return NULL;
      }
      if (k == NULL || !kf_node_push(A, n, k, v)) {
        lua_pop(L, 1);
        kf_nomem(e);
        return NULL;
      }
    }
    return n;
  }
  for (i = 1; i <= seq; i++) {
    kf_node *v;
    lua_rawgeti(L, idx, (lua_Integer)i);
    v = lua_node(L, -1, A, depth + 1, path, e);
    lua_pop(L, 1);
    if (v == NULL) return NULL;
    if (!kf_node_push(A, n, NULL, v)) {
      kf_nomem(e);
      return NULL;
    }
  }
  return n;
}

/* A Lua value (a job's `opts`) -> node, without any call that can raise
** or allocate in Lua (the arena is live): strings, numbers, booleans,
** tables with string keys or a sequence.  NULL with `e` set on bad input. */
static kf_node *lua_node(lua_State *L, int idx, kf_arena *A, int depth,
                         const char *path, kf_err *e) {
  kf_node *n;
  size_t len;
  const char *s;
  switch (lua_type(L, idx)) {
    case LUA_TSTRING:
      s = lua_tolstring(L, idx, &len);
      if ((n = kf_node_str(A, s, len)) == NULL) kf_nomem(e);
      return n;
    case LUA_TBOOLEAN:
      if ((n = kf_node_new(A, KF_NBOOL)) == NULL) {
        kf_nomem(e);
        return NULL;
      }
      n->u.b = lua_toboolean(L, idx);
      return n;
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        if ((n = kf_node_int(A, lua_tointeger(L, idx))) == NULL) kf_nomem(e);
      } else if ((n = kf_node_new(A, KF_NNUM)) == NULL) {
        kf_nomem(e);
      } else {
        n->u.d = lua_tonumber(L, idx);
      }
      return n;
    case LUA_TTABLE:
      if (depth > 16) {
        kf_fail(e, KF_ELIMIT, "%s: nested deeper than 16 levels", path);
        return NULL;
      }
      return table_node(L, lua_absindex(L, idx), A, depth, path, e);
    default:
      kf_fail(e, KF_EINVAL, "%s: a %s cannot be an option value", path,
              lua_typename(L, lua_type(L, idx)));
      return NULL;
  }
}

/* The TaskSpec options: the run's flags, then the job's own opts over
** them (SPEC 3.4: what a config sets wins). */
static kf_status taskspec_opts(lua_State *L, int jobopts, const run *R,
                               const char *name, kf_arena *A, kf_node **out,
                               kf_err *e) {
  kf_node *o = kf_node_new(A, KF_NOBJ), *id = NULL, *c = NULL, *m, *l;
  size_t i;
  int ok = o != NULL && (id = kf_obj_add(A, o, "id", KF_NOBJ)) != NULL &&
           (c = kf_obj_add(A, o, "container", KF_NOBJ)) != NULL;
  if (ok && R->o.project) ok = kf_obj_strref(A, id, "project", R->o.project);
  if (ok && R->o.domain) ok = kf_obj_strref(A, id, "domain", R->o.domain);
  if (ok) ok = kf_obj_str(A, id, "name", name);
  if (ok && R->o.task_version) ok = kf_obj_strref(A, id, "version", R->o.task_version);
  if (ok && R->o.image) ok = kf_obj_strref(A, c, "image", R->o.image);
  if (ok && R->o.nargs && (ok = (l = kf_obj_add(A, c, "args", KF_NARR)) != NULL))
    for (i = 0; ok && i < R->o.nargs; i++)
      ok = kf_node_push(A, l, NULL, kf_node_str(A, R->o.args[i], strlen(R->o.args[i])));
  if (ok && (R->o.retries >= 0 || R->o.timeout) &&
      (ok = (m = kf_obj_add(A, o, "metadata", KF_NOBJ)) != NULL)) {
    if (R->o.retries >= 0) ok = kf_obj_int(A, m, "retries", R->o.retries);
    if (ok && R->o.timeout) {
      const char *t = R->o.timeout;
      size_t k = strspn(t, "0123456789");
      if (k > 0 && k < 13 && t[k] == '\0') ok = kf_obj_int(A, m, "timeout", strtoll(t, NULL, 10));
      else ok = kf_obj_strref(A, m, "timeout", t);
    }
  }
  if (!ok) return kf_nomem(e);
  if (jobopts) {
    kf_node *over = lua_node(L, jobopts, A, 0, "opts", e);
    kf_status st;
    if (over == NULL) return e->code ? e->code : kf_nomem(e);
    if (over->t == KF_NARR && over->u.c.n == 0) over->t = KF_NOBJ;
    if (over->t != KF_NOBJ) return kf_fail(e, KF_EINVAL, "opts: expected a table");
    if ((st = kf_node_merge(A, o, over, "opts", e)) != KF_OK) return st;
  }
  *out = o;
  return KF_OK;
}

/* kfjob_job::resources in the arena; left NULL when the job's manifest
** cannot be made (its problem is the manifest's, not the summary's).  A
** quantity too large to total is the job's error (e): no wrong total. */
static kf_status resources(const kf_job *kj, const run *R, kf_arena *A,
                           kfjob_job *j, kf_err *err) {
  kf_job_res r;
  kf_target t = KF_T_OPERATOR;
  kf_err e;
  kfjob_resources *out;
  kfjob_pod_group *g;
  const char **slots[5];
  int i;
  kf_status st = kf_job_resources(kj, A, &r, &e);
  if (st != KF_OK && r.too_large)
    return kf_fail(err, KF_EINVAL, "%s", e.msg);
  if (st != KF_OK) return st == KF_ENOMEM ? KF_ENOMEM : KF_OK;
  out = (kfjob_resources *)kf_arena_alloc(A, sizeof *out);
  g = (kfjob_pod_group *)kf_arena_alloc(A, (r.ngroups ? r.ngroups : 1) * sizeof *g);
  if (out == NULL || g == NULL) return KF_ENOMEM;
  for (i = 0; i < r.ngroups; i++) g[i].role = r.groups[i].role, g[i].replicas = r.groups[i].replicas;
  out->groups = g;
  out->ngroups = (size_t)r.ngroups;
  out->pods = r.pods;
  slots[0] = &out->gpu, slots[1] = &out->cpu_request, slots[2] = &out->cpu_limit;
  slots[3] = &out->memory_request, slots[4] = &out->memory_limit;
  for (i = 0; i < 5; i++) {
    const kf_qty *q = i == 0 ? &r.req[2] : i == 1 ? &r.req[0] : i == 2 ? &r.lim[0]
                    : i == 3 ? &r.req[1] : &r.lim[1];
    char *t = (char *)kf_arena_alloc(A, KF_QTY_TEXT);
    if (t == NULL) return KF_ENOMEM;
    kf_qty_format(q, t, KF_QTY_TEXT);
    *slots[i] = t;
  }
  /* the gang the target will use beside the totals (SPEC §13) */
  if (R->o.target && kf_target_parse(R->o.target, &t, "kfjob", "target", &e) != KF_OK)
    t = KF_T_OPERATOR;
  out->gang = kf_sched_gang_size(kj, t, &out->gang_set);
  out->scheduled = kj->has_scheduling;
  j->resources = out;
  return KF_OK;
}

/* The run's format (and lint) of job kj into `out`, NUL-terminated. */
static kf_status render(lua_State *L, int jobopts, const kf_job *kj, const run *R,
                        const char *name, int version, kf_arena *A, kf_buf *out,
                        kfjob_job *j, kf_err *e) {
  kf_render_opts ro;
  kf_status st;
  render_opts(kj, R, name, version, &ro);
  if (R->o.format == KFJOB_FORMAT_TASKSPEC || R->o.format == KFJOB_FORMAT_TASKSPEC_JSON) {
    kf_node *o = NULL;
    if ((st = taskspec_opts(L, jobopts, R, name, A, &o, e)) != KF_OK) return st;
    ro.template_opts = o;
  }
  if ((st = kf_render(kj, &ro, A, out, e)) != KF_OK) return st;
  if (!kf_buf_addc(out, '\0')) return kf_nomem(e);
  if (R->o.format != KFJOB_FORMAT_NONE) {
    j->data = out->p;
    j->size = out->n - 1;
  }
  if (R->o.resources && (st = resources(kj, R, A, j, e)) != KF_OK) return st;
  return R->o.lint ? lint(kj, R, name, version, A, j, e) : KF_OK;
}

static int call_host(run *R, kfjob_job *j) {
  if (R->cb == NULL) return 0;
  return R->cb(R->ud, j);
}

void kfh_check_name(lua_State *L, run *R, int idx) {
  size_t n;
  const char *s = lua_tolstring(L, idx, &n), *problem = kf_name_problem(s, n);
  char shown[128];
  if (problem == NULL) return;
  kf_name_show(s, n, shown, sizeof shown);
  kfh_job_error(L, R, shown, problem);
}

/* A job the run's target refuses: every error of the target's rule rows,
** as job:check{target=} lists them (rendering stopped at the first), in
** an arena boxed on the stack; *n 0 when the rows find none (the job
** failed for another reason).  The rows see what rendering gave them:
** the name and image for a manifest or environment, nothing for a
** payload. */
static const kfjob_problem *refusals(lua_State *L, const kf_job *kj, const run *R,
                                     const char *name, int version, size_t *n) {
  kf_render_opts ro;
  kf_target_ctx c;
  kf_problems ps;
  kf_arena *A;
  kf_err e;
  kfjob_problem *v;
  kf_target t;
  size_t i;
  int kube;
  *n = 0;
  render_opts(kj, R, name, version, &ro);
  kube = ro.format == KF_RENDER_MANIFEST || ro.format == KF_RENDER_MANIFEST_JSON ||
         ro.format == KF_RENDER_ENVIRONMENT;
  t = ro.target_set ? ro.target : kube ? KF_T_OPERATOR : KF_T_FLYTE;
  memset(&c, 0, sizeof c);
  if (kube) c.name = name, c.image = R->o.image;
  A = kfh_push_arena(L);
  if (kf_target_problems(kj, t, &c, A, &ps, &e) != KF_OK ||
      (v = (kfjob_problem *)kf_arena_alloc(A, (ps.n ? ps.n : 1) * sizeof *v)) == NULL)
    return NULL;
  for (i = 0; i < ps.n; i++) {
    if (ps.v[i].sev != KF_SEV_ERROR) continue;
    v[*n].path = ps.v[i].path, v[*n].message = ps.v[i].message;
    v[*n].rule = ps.v[i].rule, v[*n].source = ps.v[i].source;
    v[*n].target = kf_targets[t].name;
    (*n)++;
  }
  return *n ? v : NULL;
}

static void emit_failed(run *R, const char *name, const char *kind,
                        const char *task_type, int version, const char *msg,
                        const kfjob_problem *problems, size_t nproblems) {
  kfjob_job j;
  memset(&j, 0, sizeof j);
  if (R->failed++ == 0)
    snprintf(R->first_error, sizeof R->first_error, "job '%s': %s", name, msg);
  j.name = name;
  j.kind = kind;
  j.task_type = task_type;
  j.version = version;
  j.format = R->o.format;
  j.index = R->index++;
  j.total = R->total;
  j.error = msg;
  j.problems = problems;
  j.nproblems = nproblems;
  if (call_host(R, &j) != 0) R->stopped = 1;
}

/* A job that could not be rendered (keep_going): with every refusal of
** the target's rules when the failure was a refusal (`refused`). */
static void render_failed(lua_State *L, run *R, const kf_job *kj, const kfjob_job *j,
                          const char *name, int version, const char *msg, int refused) {
  size_t np = 0;
  const kfjob_problem *ps = refused ? refusals(L, kj, R, name, version, &np) : NULL;
  emit_failed(R, name, j->kind, j->task_type, version, msg, ps, np);
}

/* A job that could not be made or rendered (keep_going): counted, and
** handed to the callback with its error. */
void kfh_emit_failed(lua_State *L, run *R, const char *name, const char *kind,
                     const char *task_type, int version, const char *msg) {
  (void)L;
  emit_failed(R, name, kind, task_type, version, msg, NULL, 0);
}

void kfh_emit(lua_State *L, run *R, int name, int job, int version, int named) {
  int top = lua_gettop(L);
  size_t namelen;
  const char *nm = lua_tolstring(L, name, &namelen);
  const kf_job *kj;
  kfjob_job j;
  kf_alloc a;
  kf_arena A;
  kf_buf out;
  kf_err e;
  kf_status st;
  const char *msg, *site;
  int jobopts = 0;
  memset(&j, 0, sizeof j);
  if (lua_type(L, job) == LUA_TTABLE) {   /* {job = <job>, opts = {...}} */
    luaL_checkstack(L, 2, NULL);
    lua_pushliteral(L, "opts");
    if (lua_rawget(L, job) != LUA_TNIL) jobopts = lua_gettop(L);
    lua_pushliteral(L, "job");
    lua_rawget(L, job);
    job = lua_gettop(L);
  }
  if (++R->emitted > (R->o.max_jobs ? R->o.max_jobs : KFJOB_DEFAULT_MAX_JOBS))
    luaL_error(L, "more than %I jobs in one render (the limit; split the sweep "
                  "or raise max_jobs)",
               (lua_Integer)(R->o.max_jobs ? R->o.max_jobs : KFJOB_DEFAULT_MAX_JOBS));
  kfh_check_name(L, R, name);
  if (named) R->named_seen = 1;
  if (R->o.select && named) {
    if (strcmp(R->o.select, nm) != 0) return;
    R->selected++;
  }
  luaL_checkstack(L, 4, NULL);
  lua_pushliteral(L, "kind");
  j.kind = (lua_gettable(L, job) == LUA_TSTRING) ? lua_tostring(L, -1) : "?";
  lua_pushliteral(L, "task_type");
  /* "" for the kinds without one (JAXJob, ...) */
  j.task_type = (lua_gettable(L, job) == LUA_TSTRING) ? lua_tostring(L, -1) : "";
  kj = lkf_checkjob(L, job);
  luaL_checkstack(L, 64, NULL);  /* lua_node's recursion, before the arena */

  /* no Lua call from here to kf_arena_free() */
  a.f = (kf_allocf)lua_getallocf(L, &a.ud);
  kf_arena_init(&A, a);
  kf_buf_init(&out, a);
  st = render(L, jobopts, kj, R, nm, version, &A, &out, &j, &e);
  if (st != KF_OK) {
    kf_buf_free(&out);
    kf_arena_free(&A);
    lua_pushstring(L, st == KF_ENOMEM ? "not enough memory" : e.msg);
    msg = lua_tostring(L, -1);
    if (R->mem_hit && strstr(msg, "not enough memory")) lua_error(L);
    if ((site = kfh_site(L, job)) != NULL) {    /* the line that made the job */
      if (!R->o.keep_going) {
        R->st = KFJOB_EJOB;
        luaL_error(L, "%s: job '%s': %s", site, nm, msg);
      }
      msg = lua_pushfstring(L, "%s: %s", site, msg);
    }
    if (!R->o.keep_going) kfh_job_error(L, R, nm, msg);
    render_failed(L, R, kj, &j, nm, version, msg, st == KF_EINVAL);
    lua_settop(L, top);   /* frees the problems' box */
    return;
  }
  j.name = nm;
  j.version = version;
  j.format = R->o.format;
  j.index = R->index++;
  j.total = R->total;
  if (call_host(R, &j) != 0) R->stopped = 1;
  if (st == KF_OK) {
    kf_buf_free(&out);
    kf_arena_free(&A);
  }
  lua_settop(L, top);
}

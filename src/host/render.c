/*
** render.c - one job the config returned -> its rendering -> the host's
** callback.  The core renders (kf_render, kf_lint) into an arena and a
** buffer over the state's allocator, so they count against the memory
** limit; no Lua call happens while that memory is held, and it is freed
** before any error is raised.
*/
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kf_env.h"
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

/* A lint item's message; a target rule's gets its target, rule and
** source, as the refusals show them. */
static const char *warning_text(const kf_node *item, kf_target t, kf_arena *A) {
  const kf_node *m = kf_node_get(item, "message"), *r = kf_node_get(item, "rule");
  const kf_node *src = kf_node_get(item, "source");
  const char *msg = m && m->t == KF_NSTR ? m->u.s.p : "";
  size_t n;
  char *out;
  if (r == NULL || r->t != KF_NSTR) return msg;
  n = strlen(msg) + r->u.s.n + (src && src->t == KF_NSTR ? src->u.s.n : 0) + 64;
  if ((out = (char *)kf_arena_alloc(A, n)) == NULL) return NULL;
  snprintf(out, n, "%s (target %s; rule %s: %s)", msg, kf_targets[t].name, r->u.s.p,
           src && src->t == KF_NSTR && src->u.s.n ? src->u.s.p : "kfjob");
  return out;
}

/* The lint options of the job as rendered: its resource name, image, the
** user's env (R16), version and target (flyte unless one is given). */
static kf_status lint_opts(const kf_render_opts *ro, kf_arena *A, kf_lint_opts *lo,
                           kf_err *e) {
  memset(lo, 0, sizeof *lo);
  lo->name = ro->manifest.name;
  lo->image = ro->manifest.image;
  lo->version = ro->enc.version;
  lo->who = "kfjob.lint";
  lo->target = ro->target_set ? ro->target : KF_T_FLYTE;
  if (ro->manifest.env.n > 0) {
    kf_kvs *env = (kf_kvs *)kf_arena_alloc(A, sizeof *env);
    kf_status st;
    if (env == NULL) return kf_nomem(e);
    if ((st = kf_env_user_vars(&ro->manifest.env, A, env, lo->who, e)) != KF_OK) return st;
    lo->env = env;
  }
  return KF_OK;
}

/* Lint warnings as the host's array in the arena (non-NULL even when
** empty); items are {path=, message=} objects. */
static kf_status lint(const kf_job *kj, const kf_render_opts *ro, kf_arena *A,
                      kfjob_job *j, kf_err *e) {
  kf_lint_opts lo;
  kf_node *list;
  kfjob_warning *w;
  kf_status st;
  size_t i, n;
  if ((st = lint_opts(ro, A, &lo, e)) != KF_OK ||
      (st = kf_lint(kj, &lo, A, &list, e)) != KF_OK)
    return st;
  n = list->u.c.n;
  w = (kfjob_warning *)kf_arena_alloc(A, (n ? n : 1) * sizeof *w);
  if (w == NULL) return kf_nomem(e);
  for (i = 0; i < n; i++) {
    const kf_node *item = list->u.c.v[i], *v;
    w[i].path = w[i].message = w[i].rule = w[i].source = "";
    if (item->t == KF_NOBJ) {
      if ((v = kf_node_get(item, "path")) != NULL && v->t == KF_NSTR) w[i].path = v->u.s.p;
      if ((v = kf_node_get(item, "rule")) != NULL && v->t == KF_NSTR) w[i].rule = v->u.s.p;
      if ((v = kf_node_get(item, "source")) != NULL && v->t == KF_NSTR) w[i].source = v->u.s.p;
      if ((w[i].message = warning_text(item, lo.target, A)) == NULL) return kf_nomem(e);
    } else if (item->t == KF_NSTR) {
      w[i].message = item->u.s.p;
    }
  }
  j->warnings = w;
  j->nwarnings = n;
  return KF_OK;
}

/* kfjob_job::resources in the arena; left NULL when the job's manifest
** cannot be made (its problem is the manifest's, not the summary's).  A
** quantity too large to total is the job's error (e): no wrong total. */
static kf_status resources(const kf_job *kj, const kf_render_opts *ro, kf_arena *A,
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
  /* the gang the target will use beside the totals */
  if (ro->target_set) t = ro->target;
  out->gang = kf_sched_gang_size(kj, t, &out->gang_set);
  out->scheduled = kj->has_scheduling;
  j->resources = out;
  return KF_OK;
}

/* The run's format (and lint) of job kj into `out`, NUL-terminated;
** j->version the task_type_version rendered. */
static kf_status render(lua_State *L, int jobopts, const kf_job *kj, const run *R,
                        const char *name, int version, kf_arena *A, kf_buf *out,
                        kfjob_job *j, kf_err *e) {
  kf_render_opts ro;
  kf_status st;
  if ((st = kfh_render_opts(L, jobopts, kj, R, name, version, A, &ro, e)) != KF_OK)
    return st;
  j->version = ro.enc.version;
  if (ro.target_set && ro.target == KF_T_CLUSTERED)   /* a Flyte 2 clustered task */
    j->task_type = KF_CLUSTERED_TASK_TYPE;
  if ((st = kf_render(kj, &ro, A, out, e)) != KF_OK) return st;
  if (!kf_buf_addc(out, '\0')) return kf_nomem(e);
  if (R->o.format == KFJOB_FORMAT_MANIFEST || R->o.format == KFJOB_FORMAT_MANIFEST_JSON ||
      R->o.format == KFJOB_FORMAT_ENVIRONMENT)
    j->resource_name = ro.manifest.name;
  if (R->o.format != KFJOB_FORMAT_NONE) {
    j->data = out->p;
    j->size = out->n - 1;
  }
  if (R->o.resources && (st = resources(kj, &ro, A, j, e)) != KF_OK) return st;
  return R->o.lint ? lint(kj, &ro, A, j, e) : KF_OK;
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
** failed for another reason).  The rows see what rendering gave them
** (the entry's opts over the run's): the name, image and env for a
** manifest or environment, nothing for a payload. */
static const kfjob_problem *refusals(lua_State *L, int jobopts, const kf_job *kj,
                                     const run *R, const char *name, int version,
                                     size_t *n) {
  kf_render_opts ro;
  kf_target_ctx c;
  kf_problems ps;
  kf_arena *A = kfh_push_arena(L);
  kf_err e;
  kfjob_problem *v;
  kf_target t;
  size_t i;
  int kube;
  *n = 0;
  if (kfh_render_opts(L, jobopts, kj, R, name, version, A, &ro, &e) != KF_OK) return NULL;
  kube = kf_render_kube(ro.format);
  t = kf_render_target(&ro);
  memset(&c, 0, sizeof c);
  if (t == KF_T_CLUSTERED) c.name = ro.manifest.name;   /* the JobSet's (R45) */
  if (kube) {
    kf_kvs *env = (kf_kvs *)kf_arena_alloc(A, sizeof *env);
    c.name = ro.manifest.name, c.image = ro.manifest.image;
    if (env && ro.manifest.env.n > 0 &&
        kf_env_user_vars(&ro.manifest.env, A, env, ro.who, &e) == KF_OK)
      c.env = env;
  }
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

static void emit_failed(lua_State *L, run *R, const char *name, const char *kind,
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
  kfh_check_time(L, R, 0);   /* the callback's time counts */
}

/* A job that could not be rendered (keep_going): with every refusal of
** the target's rules when the failure was a refusal (`refused`). */
static void render_failed(lua_State *L, run *R, int jobopts, const kf_job *kj,
                          const kfjob_job *j, const char *name, int version,
                          const char *msg, int refused) {
  size_t np = 0;
  const kfjob_problem *ps = refused ? refusals(L, jobopts, kj, R, name, version, &np)
                                    : NULL;
  emit_failed(L, R, name, j->kind, j->task_type, j->version, msg, ps, np);
}

/* A job that could not be made or rendered (keep_going): counted, and
** handed to the callback with its error. */
void kfh_emit_failed(lua_State *L, run *R, const char *name, const char *kind,
                     const char *task_type, int version, const char *msg) {
  emit_failed(L, R, name, kind, task_type, version, msg, NULL, 0);
}

/* The job of entry `job` (a job, or {job = <job>, opts = {...}}) pushed
** or in place; *jobopts the entry's opts' index, 0: none. */
static int entry_job(lua_State *L, int job, int *jobopts) {
  *jobopts = 0;
  if (lua_type(L, job) != LUA_TTABLE) return job;
  luaL_checkstack(L, 2, NULL);
  lua_pushliteral(L, "opts");
  if (lua_rawget(L, job) != LUA_TNIL) *jobopts = lua_gettop(L);
  lua_pushliteral(L, "job");
  lua_rawget(L, job);
  return lua_gettop(L);
}

/* A render's failure `st` (e) as the run reports it: raised (at the line
** that made the job), unless keep_going; then the message, pushed. */
static const char *render_error(lua_State *L, run *R, int job, const char *nm, kf_status st,
                                const kf_err *e) {
  const char *msg, *site;
  lua_pushstring(L, st == KF_ENOMEM ? "not enough memory" : e->msg);
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
  return msg;
}

/* The job rendered into an arena and a buffer of the state's allocator
** (the caller frees both); no Lua call from here to their freeing. */
static kf_status render_into(lua_State *L, int jobopts, const kf_job *kj, const run *R,
                             const char *nm, int version, kf_arena *A, kf_buf *out,
                             kfjob_job *j, kf_err *e) {
  kf_alloc a;
  luaL_checkstack(L, 64, NULL);  /* lua_node's recursion, before the arena */
  a.f = (kf_allocf)lua_getallocf(L, &a.ud);
  kf_arena_init(A, a);
  kf_buf_init(out, a);
  j->version = version;
  return render(L, jobopts, kj, R, nm, version, A, out, j, e);
}

void kfh_emit_dry(lua_State *L, run *R, int name, int job, int version, int named) {
  int top = lua_gettop(L), jobopts;
  const char *nm = lua_tostring(L, name);
  kfjob_job j;
  kf_arena A;
  kf_buf out;
  kf_err e;
  kf_status st;
  if (R->o.select && named && strcmp(R->o.select, nm) != 0) return;
  kfh_check_name(L, R, name);
  job = entry_job(L, job, &jobopts);
  memset(&j, 0, sizeof j);
  st = render_into(L, jobopts, lkf_checkjob(L, job), R, nm, version, &A, &out, &j, &e);
  kf_buf_free(&out);
  kf_arena_free(&A);
  if (st != KF_OK) render_error(L, R, job, nm, st, &e);
  lua_settop(L, top);
}

void kfh_emit(lua_State *L, run *R, int name, int job, int version, int named) {
  int top = lua_gettop(L);
  size_t namelen;
  const char *nm = lua_tolstring(L, name, &namelen);
  const kf_job *kj;
  kfjob_job j;
  kf_arena A;
  kf_buf out;
  kf_err e;
  kf_status st;
  const char *msg;
  int jobopts, job0 = job;
  memset(&j, 0, sizeof j);
  job = entry_job(L, job, &jobopts);
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
  st = render_into(L, jobopts, kj, R, nm, version, &A, &out, &j, &e);
  if (st != KF_OK) {
    kf_buf_free(&out);
    kf_arena_free(&A);
    msg = render_error(L, R, job, nm, st, &e);
    render_failed(L, R, jobopts, kj, &j, nm, version, msg, st == KF_EINVAL);
    lua_settop(L, top);   /* frees the problems' box */
    return;
  }
  j.name = nm;
  j.format = R->o.format;
  j.index = R->index++;
  j.total = R->total;
  if (call_host(R, &j) != 0) R->stopped = 1;
  if (st == KF_OK) {
    kf_buf_free(&out);
    kf_arena_free(&A);
  }
  lua_settop(L, top);
  kfh_check_time(L, R, job0);   /* the callback's time counts */
}

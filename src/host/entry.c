/*
** entry.c - the core's options for one job of a run: the run's flags,
** then, for a `{ job = <job>, opts = {...} }` entry, its opts over them.
** The opts are those of the output being rendered (a manifest's for -f
** manifest, task_spec's for -f taskspec ...); a key that output does not
** take is an error naming it and the format.  Called with the arena live:
** no Lua call here can raise or allocate (the opts table is only read).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "kf_manifest.h"
#include "kf_render.h"
#include "lkf_binding.h"
#include "host.h"

static const char *const format_names[] = {
    [KFJOB_FORMAT_PB] = "pb", [KFJOB_FORMAT_JSON] = "json", [KFJOB_FORMAT_YAML] = "yaml",
    [KFJOB_FORMAT_TEMPLATE] = "template", [KFJOB_FORMAT_TEMPLATE_JSON] = "template-json",
    [KFJOB_FORMAT_MANIFEST] = "manifest", [KFJOB_FORMAT_MANIFEST_JSON] = "manifest-json",
    [KFJOB_FORMAT_NONE] = "none", [KFJOB_FORMAT_TASKSPEC] = "taskspec",
    [KFJOB_FORMAT_TASKSPEC_JSON] = "taskspec-json",
    [KFJOB_FORMAT_ENVIRONMENT] = "environment"};

/* The keys an entry may give with the run's format, as its Lua method
** takes them without the presentation (format, indent: the run's), from
** the option rows (kf_options.c); the environment is its manifest's
** pods': it takes the manifest's options. */
static const char *const *known_keys(kfjob_format f) {
  switch (f) {
    case KFJOB_FORMAT_PB: case KFJOB_FORMAT_JSON: case KFJOB_FORMAT_YAML:
      return kf_option_entry_names(KF_OPT_E_ENCODE);
    case KFJOB_FORMAT_TEMPLATE: case KFJOB_FORMAT_TEMPLATE_JSON:
      return kf_option_entry_names(KF_OPT_E_TEMPLATE);
    case KFJOB_FORMAT_TASKSPEC: case KFJOB_FORMAT_TASKSPEC_JSON:
      return kf_option_entry_names(KF_OPT_E_TASKSPEC);
    case KFJOB_FORMAT_MANIFEST: case KFJOB_FORMAT_MANIFEST_JSON:
    case KFJOB_FORMAT_ENVIRONMENT:
      return kf_option_entry_names(KF_OPT_E_MANIFEST);
    default:   /* kfjob check renders the job's own output: any output's */
      return kf_option_entry_names(KF_OPT_E_ANY);
  }
}

/* "opts.<key>: unknown option for -f <format> (known: ...)". */
static kf_status check_keys(const kf_node *o, kfjob_format f, kf_err *e) {
  const char *const *known = known_keys(f);
  char list[400], what[48];
  size_t i, k, n = 0;
  const char *s;
  for (i = 0; i < o->u.c.n; i++) {
    for (k = 0; known[k]; k++)
      if (strcmp(known[k], o->u.c.k[i]) == 0) break;
    if (known[k]) continue;
    for (k = 0; known[k] && n < sizeof list; k++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", known[k]);
    if (f == KFJOB_FORMAT_NONE) snprintf(what, sizeof what, "any output");
    else snprintf(what, sizeof what, "-f %s", format_names[f]);
    s = kf_suggest(o->u.c.k[i], known);
    return kf_fail(e, KF_EINVAL, "opts.%.100s: unknown option for %s (%s%s%sknown: %s)",
                   o->u.c.k[i], what, s ? "did you mean '" : "", s ? s : "",
                   s ? "'?; " : "", list);
  }
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

/* The entry's opts at `jobopts` (0: none, *out NULL) as an object node
** whose keys the run's format takes. */
static kf_status entry_node(lua_State *L, int jobopts, const run *R, kf_arena *A,
                            kf_node **out, kf_err *e) {
  kf_node *o;
  *out = NULL;
  if (jobopts == 0) return KF_OK;
  if ((o = lua_node(L, jobopts, A, 0, "opts", e)) == NULL)
    return e->code ? e->code : kf_nomem(e);
  if (o->t == KF_NARR && o->u.c.n == 0) o->t = KF_NOBJ;
  if (o->t != KF_NOBJ) return kf_fail(e, KF_EINVAL, "opts: expected a table");
  *out = o;
  return check_keys(o, R->o.format, e);
}

/* The TaskSpec options: the run's flags, then the entry's opts over them
** (what a config sets wins). */
static kf_status taskspec_opts(const kf_node *over, const run *R, const char *name,
                               kf_arena *A, kf_node **out, kf_err *e) {
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
  if (over) {
    kf_status st = kf_node_merge(A, o, over, "opts", e);
    if (st != KF_OK) return st;
  }
  *out = o;
  return KF_OK;
}

/* The manifest options: the run's name, namespace and image, the entry's
** keys replacing them (labels and the rest given whole). */
static kf_status manifest_opts(const kf_node *over, const run *R, const char *name,
                               const char *who, kf_arena *A, kf_manifest_opts *mo,
                               kf_err *e) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  size_t i;
  int ok = o != NULL;
  if (ok && !kf_node_get(over, "name")) ok = kf_obj_str(A, o, "name", name);
  if (ok && R->o.namespace_ && !kf_node_get(over, "namespace"))
    ok = kf_obj_strref(A, o, "namespace", R->o.namespace_);
  if (ok && R->o.image && !kf_node_get(over, "image"))
    ok = kf_obj_strref(A, o, "image", R->o.image);
  for (i = 0; ok && over && i < over->u.c.n; i++)
    ok = kf_node_push(A, o, over->u.c.k[i], over->u.c.v[i]);
  if (!ok) return kf_nomem(e);
  return kf_manifest_opts_parse(o, mo, A, who, e);
}

/* The payload options an entry gives: version, replica_encoding. */
static kf_status enc_opts(const kf_node *over, kf_render_opts *ro, kf_err *e) {
  const kf_node *v = kf_node_get(over, "version");
  if (v && (v->t != KF_NINT || (v->u.i != 0 && v->u.i != 1)))
    return kf_fail(e, KF_EINVAL, "%s: opts.version: expected 0 or 1", ro->who);
  if (v) ro->enc.version = (int)v->u.i;
  if ((v = kf_node_get(over, "replica_encoding")) != NULL) {
    if (v->t != KF_NSTR || (strcmp(v->u.s.p, "flat") && strcmp(v->u.s.p, "common")))
      return kf_fail(e, KF_EINVAL, "%s: opts.replica_encoding: expected \"flat\" "
                     "or \"common\"", ro->who);
    ro->enc.common = v->u.s.p[0] == 'c';
  }
  return KF_OK;
}

/* The target: the entry's opts.target, else the run's. */
static kf_status target_of(const kf_node *over, const run *R, const char *who,
                           kf_render_opts *ro, kf_err *e) {
  const kf_node *v = kf_node_get(over, "target");
  const char *s = R->o.target;   /* validated by kfh_check_options */
  if (v && v->t != KF_NSTR)
    return kf_fail(e, KF_EINVAL, "%s: opts.target: expected a string", who);
  if (v) s = v->u.s.p;
  if (s == NULL) return KF_OK;
  ro->target_set = 1;
  return kf_target_parse(s, &ro->target, who, v ? "opts.target" : "target", e);
}

/* The Lua method each format mimics, naming its errors. */
static const char *const who_of[] = {
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

/* The run's format: "none" renders the job's own output, then drops it:
** the plugin message, or the manifest of a kind without a Flyte task type
** or for a target without payloads. */
static kf_render_format format_of(const kf_job *kj, const run *R,
                                  const kf_render_opts *ro) {
  kfjob_format f = R->o.format;
  if (f == KFJOB_FORMAT_ENVIRONMENT) return KF_RENDER_ENVIRONMENT;
  if (f != KFJOB_FORMAT_NONE) return (kf_render_format)f;
  if (ro->target_set && !(kf_targets[ro->target].emits & KF_E_ENCODE))
    return KF_RENDER_MANIFEST_JSON;
  return kf_kinds[kj->kind].task_type ? KF_RENDER_PB : KF_RENDER_MANIFEST_JSON;
}

kf_status kfh_render_opts(lua_State *L, int jobopts, const kf_job *kj, const run *R,
                          const char *name, int version, kf_arena *A,
                          kf_render_opts *ro, kf_err *e) {
  kfjob_format f = R->o.format;
  kf_node *over;
  kf_status st;
  kf_render_opts_init(ro);
  ro->who = "kfjob";
  if ((st = entry_node(L, jobopts, R, A, &over, e)) != KF_OK ||
      (st = target_of(over, R, "kfjob", ro, e)) != KF_OK)
    return st;
  ro->format = format_of(kj, R, ro);
  ro->who = (unsigned)ro->format < sizeof who_of / sizeof *who_of ? who_of[ro->format]
                                                                   : "kfjob";
  ro->enc.version = version;
  ro->enc.ctor = lkf_job_mt[kj->kind];
  ro->enc.common = R->o.replica_encoding && strcmp(R->o.replica_encoding, "common") == 0;
  if (R->o.indent > 0 && (f == KFJOB_FORMAT_JSON || f == KFJOB_FORMAT_TEMPLATE_JSON ||
                          f == KFJOB_FORMAT_MANIFEST_JSON || f == KFJOB_FORMAT_TASKSPEC_JSON ||
                          f == KFJOB_FORMAT_ENVIRONMENT))
    ro->indent = R->o.indent;
  if ((st = enc_opts(over, ro, e)) != KF_OK ||
      (st = manifest_opts(over, R, name, ro->who, A, &ro->manifest, e)) != KF_OK)
    return st;
  if (f == KFJOB_FORMAT_TASKSPEC || f == KFJOB_FORMAT_TASKSPEC_JSON) {
    kf_node *o = NULL;
    if ((st = taskspec_opts(over, R, name, A, &o, e)) != KF_OK) return st;
    ro->template_opts = o;
  } else if (f == KFJOB_FORMAT_TEMPLATE || f == KFJOB_FORMAT_TEMPLATE_JSON) {
    ro->template_opts = over;
  }
  return KF_OK;
}

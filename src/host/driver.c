/*
** driver.c - one run from start to end: a fresh state under lua_pcall,
** the config script (or the data to decode), and what it returned turned
** into jobs for kfh_emit (render.c); then the outcome as a status, a
** message and usage figures.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "kf_job.h"
#include "lkf_binding.h"
#include "host.h"

/* ======================================================================
** Error messages
** ====================================================================== */

static int starts_with(const char *s, const char *prefix) {
  return prefix[0] && strncmp(s, prefix, strlen(prefix)) == 0 &&
         s[strlen(prefix)] == ':';
}

/* Message handler: errors read "FILE:LINE: message", FILE being the
** script, LINE the innermost line of the script on the stack (an error
** raised by a kfjob function or deep in kfjob.template points at the
** script line that called it).  Never runs metamethods of the error
** value. */
static int msgh(lua_State *L) {
  run *R = kfh_run(L);
  const char *msg;
  lua_Debug ar;
  int level;
  if (lua_type(L, 1) == LUA_TSTRING) {
    msg = lua_tostring(L, 1);
  } else if (lua_isnil(L, 1)) {
    msg = lua_pushliteral(L, "nil error");
  } else {
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  if (R->short_src[0] == '\0' || starts_with(msg, R->short_src)) return 1;
  for (level = 0; lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 &&
        strcmp(ar.short_src, R->short_src) == 0 && ar.what[0] != 'C') {
      lua_pushfstring(L, "%s:%d: %s", R->short_src, ar.currentline, msg);
      return 1;
    }
  }
  lua_pushfstring(L, "%s: %s", R->short_src, msg);
  return 1;
}

/* ======================================================================
** The driver: what the config script returned -> jobs
** ====================================================================== */

/* Is the value at idx a kfjob job, or a job with its own TaskSpec options
** ({job = <job>, opts = {...}}, SPEC 3.4)?  Asks kfjob.is_job (no module
** loaded: nothing can be a job). */
static int is_job(lua_State *L, int idx) {
  int r = 0, top = lua_gettop(L);
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TTABLE) {   /* {job = <job>, opts = {...}} */
    lua_pushliteral(L, "opts");           /* without opts: {name = job} */
    if (lua_rawget(L, idx) != LUA_TTABLE) {
      lua_settop(L, top);
      return 0;
    }
    lua_pushliteral(L, "job");
    lua_rawget(L, idx);
    idx = lua_gettop(L);
  }
  if (lua_type(L, idx) != LUA_TUSERDATA) {
    lua_settop(L, top);
    return 0;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, KFJOB_LIBNAME) == LUA_TTABLE &&
      lua_getfield(L, -1, "is_job") == LUA_TFUNCTION) {
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    r = lua_toboolean(L, -1);
  }
  lua_settop(L, top);
  return r;
}

static const char *base_name(run *R) { return R->o.name ? R->o.name : "job"; }

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int not_a_job(lua_State *L, run *R, const char *what, int idx) {
  R->st = KFJOB_ESCRIPT;
  return luaL_error(L, "%s: %s is a %s, not a kfjob job", R->short_src, what,
                    luaL_typename(L, idx));
}

/* Jobs of a table: a list (names NAME-1...) or {name = job} (sorted). */
static void emit_table(lua_State *L, run *R, int t, int version) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, t), i, nstr = 0, nall = 0;
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    nall++;
    if (lua_type(L, -1) == LUA_TSTRING) nstr++;
  }
  if (nall == 0) return;
  if (nstr == 0 && nall == n) {                 /* a list */
    R->total = (size_t)n;
    for (i = 1; i <= n && !R->stopped; i++) {
      lua_rawgeti(L, t, i);
      if (!is_job(L, -1)) {
        lua_pushfstring(L, "item %I of the returned list", (LUAI_UACINT)i);
        not_a_job(L, R, lua_tostring(L, -1), -2);
      }
      lua_pushfstring(L, "%s-%I", base_name(R), (LUAI_UACINT)i);
      kfh_emit(L, R, lua_gettop(L), lua_gettop(L) - 1, version, 0);
      lua_pop(L, 2);
    }
  } else if (nstr == nall) {                    /* {name = job} */
    const char **keys;
    lua_Integer k = 0;
    int anchor;
    lua_createtable(L, (int)nstr, 0);           /* keeps the key strings */
    anchor = lua_gettop(L);
    keys = (const char **)lua_newuserdatauv(L, (size_t)nstr * sizeof *keys, 0);
    lua_pushnil(L);
    while (lua_next(L, t)) {
      lua_pop(L, 1);
      kfh_check_name(L, R, -1);   /* "a\0b" must not become "a" */
      lua_pushvalue(L, -1);
      lua_rawseti(L, anchor, ++k);
      keys[k - 1] = lua_tostring(L, -1);
    }
    qsort((void *)keys, (size_t)nstr, sizeof *keys, cmp_str);
    R->total = R->o.select ? 1 : (size_t)nstr;
    for (k = 0; k < nstr && !R->stopped; k++) {
      lua_pushstring(L, keys[k]);
      lua_pushvalue(L, -1);
      lua_rawget(L, t);
      if (!is_job(L, -1)) {
        lua_pushfstring(L, "'%s' in the returned table", keys[k]);
        not_a_job(L, R, lua_tostring(L, -1), -2);
      }
      kfh_emit(L, R, lua_gettop(L) - 1, lua_gettop(L), version, 1);
      lua_pop(L, 2);
    }
    lua_pop(L, 2);
  } else {
    R->st = KFJOB_ESCRIPT;
    luaL_error(L, "%s: the returned table mixes a list and named jobs",
               R->short_src);
  }
}

/* Pushes the record kfjob.template keeps for an iterator it made (where
** the config called it, the kind, the last failed variant), or nil. */
static int push_iter_info(lua_State *L, int f) {
  int top = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "kfjob.template.variants") == LUA_TTABLE &&
      lua_getfield(L, -1, "info") == LUA_TFUNCTION) {
    lua_pushvalue(L, f);
    lua_call(L, 1, 1);
    if (lua_istable(L, -1)) {
      lua_replace(L, top + 1);
      lua_settop(L, top + 1);
      return 1;
    }
  }
  lua_settop(L, top);
  lua_pushnil(L);
  return 0;
}

/* The total of a kfjob.template iterator (template.count), or 0. */
static size_t iter_total(lua_State *L) {
  size_t n = 0;
  int top = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "kfjob.template") == LUA_TTABLE &&
      lua_getfield(L, -1, "count") == LUA_TFUNCTION) {
    lua_pushvalue(L, top);                      /* the iterator, below */
    lua_call(L, 1, 1);
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0)
      n = (size_t)lua_tointeger(L, -1);
  }
  lua_settop(L, top);
  return n;
}

/* A variant of a kfjob.template iterator failed with the error on top:
** it gets the position of the config's call of `variants` (the iterator
** runs from here, where no line of the config is on the stack).  Then it
** ends the run, or, with keep_going, is a failed job and the run goes on
** (the iterator has moved past it).  Memory and limit errors always end
** the run. */
static void variant_failed(lua_State *L, run *R, int info, lua_Integer i,
                           int version) {
  const char *msg = lua_tostring(L, -1), *name, *kind;
  if (R->mem_hit || msg == NULL) lua_error(L);
  if (!starts_with(msg, R->short_src) && lua_getfield(L, info, "site") == LUA_TSTRING) {
    lua_pushfstring(L, "%s: %s", lua_tostring(L, -1), msg);
    lua_replace(L, -3);
    lua_pop(L, 1);
    msg = lua_tostring(L, -1);
  }
  if (R->limit_hit) lua_error(L);   /* at the config's call of variants */
  R->st = KFJOB_ESCRIPT;
  if (!R->o.keep_going) lua_error(L);
  if (lua_getfield(L, info, "failed") == LUA_TSTRING) {
    name = lua_tostring(L, -1);
  } else {
    lua_pop(L, 1);
    name = lua_pushfstring(L, "%s-%I", base_name(R), (LUAI_UACINT)i);
  }
  kind = lua_getfield(L, info, "kind") == LUA_TSTRING ? lua_tostring(L, -1) : "?";
  R->named_seen = 1;
  if (R->o.select == NULL || strcmp(R->o.select, name) == 0) {  /* --name */
    if (R->o.select) R->selected++;
    kfh_emit_failed(L, R, name, kind, "?", version, msg);
  }
  lua_pop(L, 3);
}

/* Jobs of an iterator: f, s, ctrl as the generic for uses them. */
static void emit_iter(lua_State *L, run *R, int f, int version) {
  lua_Integer i = 0;
  int seen, named, info;
  push_iter_info(L, f);
  info = lua_gettop(L);
  if (!lua_isnil(L, info)) {
    lua_pushvalue(L, f);
    R->total = R->o.select ? 0 : iter_total(L);
    lua_pop(L, 1);
  }
  lua_newtable(L);                              /* names seen */
  seen = lua_gettop(L);
  lua_pushvalue(L, f + 2);                      /* control */
  while (!R->stopped) {
    int ctl = lua_gettop(L);
    lua_pushvalue(L, f);
    lua_pushvalue(L, f + 1);
    lua_pushvalue(L, ctl);
    R->st = KFJOB_ESCRIPT;
    if (lua_isnil(L, info)) {
      lua_call(L, 2, 2);                        /* name, job */
    } else if (lua_pcall(L, 2, 2, 0) != LUA_OK) {
      i++;
      variant_failed(L, R, info, i, version);
      lua_settop(L, ctl);
      continue;
    }
    if (lua_isnil(L, -2)) break;
    lua_pushvalue(L, -2);                       /* the next control value */
    lua_replace(L, ctl);
    i++;
    named = 1;
    if (lua_isnil(L, -1) && is_job(L, -2)) {    /* an iterator of jobs */
      named = 0;
      lua_pop(L, 1);
      lua_pushfstring(L, "%s-%I", base_name(R), (LUAI_UACINT)i);
      lua_insert(L, -2);
    }
    if (lua_type(L, -2) != LUA_TSTRING) {
      R->st = KFJOB_ESCRIPT;
      luaL_error(L, "%s: the iterator gave a %s as job name, expected a string",
                 R->short_src, luaL_typename(L, -2));
    }
    if (!is_job(L, -1)) {
      lua_pushfstring(L, "job '%s' from the iterator", lua_tostring(L, -2));
      not_a_job(L, R, lua_tostring(L, -1), -2);
    }
    lua_pushvalue(L, -2);
    if (lua_rawget(L, seen) != LUA_TNIL)
      kfh_job_error(L, R, lua_tostring(L, -3), "the name is used by another job");
    lua_pop(L, 1);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, seen);
    if (!lua_isnil(L, info) && lua_getfield(L, info, "site") == LUA_TSTRING &&
        lua_getfield(L, LUA_REGISTRYINDEX, SITES) == LUA_TTABLE) {
      lua_pushvalue(L, -3);                     /* a variant: the variants call */
      lua_pushvalue(L, -3);
      lua_rawset(L, -3);
    }
    lua_settop(L, ctl + 2);
    kfh_emit(L, R, lua_gettop(L) - 1, lua_gettop(L), version, named);
    lua_settop(L, ctl);
  }
}

/* Pushes the number `v` reads as when that number writes back as exactly
** `v` ("8", "-3", "0.5", "2.0"); "1.10", "010", "1e3", "0x10" and "+1"
** would change on the way, so they stay what the user typed (as helm's
** --set-string, and YAML's own int/float forms, keep "1.10" distinct). */
static int push_number(lua_State *L, const char *v) {
  char back[64];
  if (lua_stringtonumber(L, v) == 0) return 0;
  if (lua_isinteger(L, -1)) {
    kf_format_int((int64_t)lua_tointeger(L, -1), back);
  } else {
    locale_t old = kf_c_numeric_begin();
    snprintf(back, sizeof back, "%.14g", (double)lua_tonumber(L, -1));
    kf_c_numeric_end(old);
    if (strspn(back, "-0123456789") == strlen(back)) strcat(back, ".0");
  }
  if (strcmp(back, v) == 0) return 1;
  lua_pop(L, 1);
  return 0;
}

static void push_params(lua_State *L, run *R) {
  size_t i;
  lua_createtable(L, 0, (int)(R->o.nparams + R->o.nstring_params));
  for (i = 0; i < R->o.nparams + R->o.nstring_params; i++) {
    int str = i >= R->o.nparams;
    const char *kv = str ? R->o.string_params[i - R->o.nparams] : R->o.params[i];
    const char *eq = strchr(kv, '=');
    const char *v = eq + 1;
    lua_pushlstring(L, kv, (size_t)(eq - kv));
    if (str || !push_number(L, v)) {
      if (!str && strcmp(v, "true") == 0) lua_pushboolean(L, 1);
      else if (!str && strcmp(v, "false") == 0) lua_pushboolean(L, 0);
      else lua_pushstring(L, v);
    }
    lua_rawset(L, -3);
  }
}

/* Whether a text that is not Lua opens like a Kubernetes manifest: its
** first line that is not blank, a comment or `---` starts a top-level
** apiVersion or kind key. */
static int manifest_text(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t e = i;
    while (e < n && s[e] != '\n') e++;
    if (e > i && s[i] != '#' && !(e - i >= 3 && memcmp(s + i, "---", 3) == 0) &&
        strspn(s + i, " \t\r") < e - i)
      return (e - i >= 11 && memcmp(s + i, "apiVersion:", 11) == 0) ||
             (e - i >= 5 && memcmp(s + i, "kind:", 5) == 0);
    i = e + 1;
  }
  return 0;
}

static void run_script(lua_State *L, run *R) {
  const char *src = R->src;
  size_t len = R->len;
  int base, nres, version = R->o.version < 0 ? 1 : R->o.version;
  lua_Debug ar;
  if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) src += 3, len -= 3;
  if (len > 0 && src[0] == '#') {   /* "#!" line: keep its newline */
    while (len > 0 && src[0] != '\n') src++, len--;
  }
  R->st = KFJOB_ESCRIPT;
  if (luaL_loadbufferx(L, src, len, R->chunkname, "t") != LUA_OK) {
    if (manifest_text(src, len))   /* a manifest without its .yaml name */
      luaL_error(L, "%s: this is a Kubernetes manifest, not a config: use kfjob convert "
                 "to read it (kfjob convert FILE -f lua writes its config)", R->chunkname + 1);
    lua_error(L);
  }
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  snprintf(R->short_src, sizeof R->short_src, "%s", ar.short_src);
  push_params(L, R);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "params");
  base = lua_gettop(L) - 1;                     /* the chunk */
  R->used = 0;                                  /* the budget is the script's */
  lua_call(L, 1, LUA_MULTRET);
  nres = lua_gettop(L) - base + 1;
  if (nres == 0 || lua_isnil(L, base)) {
    luaL_error(L, "%s: the config returned nothing; it must return a job, a "
                  "list of jobs, a {name = job} table or an iterator of name, "
                  "job", R->short_src);
  }
  lua_settop(L, base + 2);                      /* f, s, ctrl for iterators */
  if (is_job(L, base)) {
    R->total = 1;
    lua_pushstring(L, base_name(R));
    kfh_emit(L, R, lua_gettop(L), base, version, 0);
  } else if (lua_istable(L, base)) {
    emit_table(L, R, base, version);
  } else if (lua_isfunction(L, base)) {
    emit_iter(L, R, base, version);
  } else {
    luaL_error(L, "%s: the config returned a %s; it must return a job, a "
                  "list of jobs, a {name = job} table or an iterator of name, "
                  "job", R->short_src, luaL_typename(L, base));
  }
  if (R->o.select && R->named_seen && R->selected == 0 && !R->stopped) {
    R->st = KFJOB_EJOB;
    luaL_error(L, "%s: no job named '%s'", R->short_src, R->o.select);
  }
}

/* Push the name a decoded TaskTemplate gives (info.name or info.id.name),
** else the run's base name. */
static void push_template_name(lua_State *L, run *R, int info) {
  if (lua_istable(L, info)) {
    if (lua_getfield(L, info, "name") == LUA_TSTRING && lua_rawlen(L, -1) > 0)
      return;
    lua_pop(L, 1);
    if (lua_getfield(L, info, "id") == LUA_TTABLE) {
      if (lua_getfield(L, -1, "name") == LUA_TSTRING && lua_rawlen(L, -1) > 0) {
        lua_remove(L, -2);
        return;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pushstring(L, base_name(R));
}

/* Copies table t into the table at the top, but key `skip`. */
static void copy_but(lua_State *L, int t, const char *skip) {
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), skip) == 0) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
}

/* A decoded TaskSpec with the TaskSpec formats: {job = job, opts = info}
** without `type` and `runtime` (what task_spec writes itself), so that
** the whole TaskSpec is written again from what was read.  A job with a
** pod template writes config.primary_container_name itself: that key
** is left out of the config read back. */
static void push_spec_job(lua_State *L, int job, int info) {
  int pod;
  luaL_checkstack(L, 8, NULL);
  pod = lkf_checkjob(L, job)->pod_template != NULL;
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, job);
  lua_setfield(L, -2, "job");
  lua_newtable(L);
  copy_but(L, info, "runtime");
  lua_pushnil(L);
  lua_setfield(L, -2, "type");
  lua_getfield(L, -1, "config");
  if (pod && lua_istable(L, -1)) {
    lua_newtable(L);
    copy_but(L, lua_gettop(L) - 1, "primary_container_name");
    lua_pushnil(L);
    lua_setfield(L, -4, "config");
    lua_pushnil(L);
    if (lua_next(L, -2) != 0) {   /* other keys: keep them */
      lua_pop(L, 2);
      lua_setfield(L, -3, "config");
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  lua_setfield(L, -2, "opts");
}

/* Calls decode_task_template (on the stack's top) on the input, then
** decode_task_spec when that gives no job: each one's bytes are malformed
** as the other, so the TaskSpec's error counts only when its envelope was
** read.  Leaves job, info | nil, msg; returns whether a TaskSpec gave it. */
static int decode_template_or_spec(lua_State *L, const run *R) {
  const char *src = R->src;
  int spec = 0;
  int tt_fn = lua_gettop(L);
  lua_pushvalue(L, tt_fn);
  lua_pushlstring(L, src, R->len);
  lua_call(L, 1, 2);                          /* job, info | nil, msg */
  if (!is_job(L, -2) && lua_getfield(L, tt_fn - 1, "decode_task_spec") == LUA_TFUNCTION) {
    const char *m;
    lua_pushlstring(L, src, R->len);
    lua_call(L, 1, 2);
    m = lua_tostring(L, -1);
    spec = is_job(L, -2);
    if (!spec && (m == NULL || strstr(m, "malformed flyteidl.admin.TaskSpec") ||
                  strstr(m, "template: missing")))
      lua_pop(L, 2);                          /* the TaskTemplate's error */
  } else if (!is_job(L, -2)) {
    lua_pop(L, 1);
  }
  return spec;
}

/* A TaskTemplate of a target of its own (info.target: a Flyte 2 clustered
** task) is rendered for it unless the run names a target: the job at -2
** becomes {job = <job>, opts = {target = <info.target>}}. */
static void own_target(lua_State *L, run *R) {
  int info = lua_gettop(L), job = info - 1;
  if (R->o.target != NULL) return;
  if (lua_getfield(L, info, "target") != LUA_TSTRING) {
    lua_pop(L, 1);
    return;
  }
  lua_createtable(L, 0, 2);           /* target, entry */
  lua_pushvalue(L, job);
  lua_setfield(L, -2, "job");
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "target");
  lua_setfield(L, -2, "opts");
  lua_replace(L, job);
  lua_pop(L, 1);
}

/* Calls decode or from_json (on the stack's top) on the input as task
** type tt; leaves job, info | nil, msg. */
static void decode_payload(lua_State *L, const run *R, const char *tt, int version,
                           int kind) {
  const char *src = R->src;
  lua_pushstring(L, tt);
  lua_pushlstring(L, src, R->len);
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, version);
  lua_setfield(L, -2, "version");
  if (kind >= 0) {
    lua_pushstring(L, kf_kinds[kind].name);
    lua_setfield(L, -2, "kind");
  }
  lua_call(L, 3, 2);
}

static void run_decode(lua_State *L, run *R) {
  const char *src = R->src;
  const char *tt = R->task_type;
  size_t i = 0;
  int version = R->in_version, json, kind = -1, spec = 0;
  while (i < R->len && isspace((unsigned char)src[i])) i++;
  json = i < R->len && src[i] == '{';
  if (tt && (kind = kf_kind_by_name(tt)) >= 0) {  /* a kind: "HorovodJob" */
    kf_err e;
    R->st = KFJOB_EDATA;
    if (kf_need_task_type(kind, "kfjob_host_decode", &e) != KF_OK) luaL_error(L, "%s", e.msg);
    tt = kf_kinds[kind].task_type;
  }
  lua_pushcfunction(L, kfh_require);
  lua_pushliteral(L, KFJOB_LIBNAME);
  lua_call(L, 1, 1);
  lua_getfield(L, -1, R->task_type == NULL ? "decode_task_template"
                      : json ? "from_json" : "decode");
  if (!lua_isfunction(L, -1)) {
    R->st = KFJOB_EUNSUPPORTED;
    luaL_error(L, "decoding %s needs kfjob.%s, which this build of kfjob "
                  "does not provide",
               R->task_type == NULL ? "a TaskTemplate" : json ? "JSON" : "bytes",
               R->task_type == NULL ? "decode_task_template"
               : json ? "from_json" : "decode");
  }
  R->st = KFJOB_EDATA;
  if (R->task_type == NULL) spec = decode_template_or_spec(L, R);
  else decode_payload(L, R, tt, version, kind);
  if (!is_job(L, -2)) {
    if (lua_type(L, -1) == LUA_TSTRING) lua_error(L);
    luaL_error(L, "the input is not a valid %s", R->task_type ? R->task_type
                                                              : "TaskTemplate");
  }
  if (R->task_type == NULL && lua_istable(L, -1)) {
    if (lua_getfield(L, -1, "version") == LUA_TNUMBER)
      version = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    own_target(L, R);
    push_template_name(L, R, lua_gettop(L));
  } else {
    lua_pushstring(L, base_name(R));
  }
  R->total = 1;
  if (R->o.version >= 0) version = R->o.version;
  R->st = KFJOB_EJOB;
  if (R->o.format == KFJOB_FORMAT_TASKSPEC || R->o.format == KFJOB_FORMAT_TASKSPEC_JSON) {
    if (!spec) {   /* only a TaskSpec has them all: the job's JSON */
      R->o.format = KFJOB_FORMAT_JSON;
    } else {
      int name = lua_gettop(L);
      push_spec_job(L, name - 2, name - 1);
      kfh_emit(L, R, name, name + 1, version, 0);
      return;
    }
  }
  kfh_emit(L, R, lua_gettop(L), lua_gettop(L) - 2, version, 0);
}

static int pmain(lua_State *L) {
  run *R = (run *)lua_touserdata(L, 1);
  lua_settop(L, 0);
  R->st = KFJOB_EMEMORY;
  kfh_open_sandbox(L);
  if (R->mode == MODE_SCRIPT && kfh_is_data(R->chunkname)) kfh_run_data(L, R);
  else if (R->mode == MODE_SCRIPT) run_script(L, R);
  else run_decode(L, R);
  return 0;
}
static void set_deadline(run *R) {
  R->deadline_ns = kfh_deadline_ns(&R->o.time_limit_ms);
}

kfjob_status kfh_do_run(kfjob_host *h, run *R) {
  lua_State *L;
  int status;
  kfjob_status st = KFJOB_OK;
  R->h = h;
  R->mem_limit = h->opt.memory_limit;
  R->limit = h->opt.instruction_limit;
  set_deadline(R);
  memset(&h->usage, 0, sizeof h->usage);
  h->msg[0] = '\0';
  h->not_input = 0;
  L = lua_newstate(kfh_alloc, R);
  if (L == NULL) {
    kfh_msg(h, "memory limit too small to create a Lua state");
    return KFJOB_EMEMORY;
  }
  h->busy = 1;
  lua_setwarnf(L, kfh_warnf, R);
  lua_sethook(L, kfh_hook, LUA_MASKCOUNT, HOOK_STEP);
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, pmain);
  lua_pushlightuserdata(L, R);
  status = lua_pcall(L, 1, 0, 1);
  if (status != LUA_OK) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    if (R->limit_hit) {
      st = KFJOB_ELIMIT;
    } else if (status == LUA_ERRMEM ||
               (R->mem_hit && (status == LUA_ERRERR ||
                               strstr(msg, "not enough memory") != NULL))) {
      st = KFJOB_EMEMORY;
      if (R->mem_hit && R->mem_limit) {
        kfh_msg(h, "%s%smemory limit exceeded (%zu bytes)", R->short_src,
             R->short_src[0] ? ": " : "", R->mem_limit);
        msg = NULL;
      }
    } else {
      st = R->st == KFJOB_OK ? KFJOB_ESCRIPT : R->st;
      h->not_input = R->not_input;
    }
    if (msg) snprintf(h->msg, sizeof h->msg, "%s", msg);
  } else if (R->stopped) {
    st = KFJOB_ESTOPPED;
    kfh_msg(h, "stopped by the job callback");
  } else if (R->failed) {
    st = KFJOB_EJOB;
    snprintf(h->msg, sizeof h->msg, "%s%s%zu of %zu jobs could not be rendered "
             "(first: %s)", R->short_src, R->short_src[0] ? ": " : "",
             R->failed, R->index, R->first_error);
  }
  /* close with every instruction raising: no script code runs any more */
  R->closing = 1;
  lua_sethook(L, kfh_hook, LUA_MASKCOUNT, 1);
  lua_close(L);
  h->busy = 0;
  h->usage.memory_peak = R->mem_peak;
  h->usage.instructions = R->used;
  h->usage.jobs = R->index;
  h->usage.failed = R->failed;
  return st;
}


/*
** lkfjob_json.c - binding for proto3 JSON (custom, to_json, from_json) and
** the TaskTemplate envelope.
*/
#include <string.h>

#include "lkf_binding.h"
#include "kf_json.h"
#include "kf_render.h"
#include "kf_template.h"

static int indent_opt(lua_State *L, int idx, const char *who) {
  lua_Integer n = 0;
  if (lkf_optfield(L, idx, "indent") != LUA_TNIL) {
    if (!lua_isinteger(L, -1) || (n = lua_tointeger(L, -1)) < 0 || n > 16)
      luaL_error(L, "%s: opts.indent: expected an integer 0..16", who);
  }
  lua_pop(L, 1);
  return (int)n;
}

static ProtobufCMessage *job_msg(lua_State *L, lctx *X, const kf_job *j,
                                 int opts, const char *who) {
  kf_encopts o;
  kf_err e;
  ProtobufCMessage *m;
  kf_target t;
  if (kf_need_task_type(j->kind, who, &e) != KF_OK) lkf_raise(L, &e);
  lkf_encopts(L, opts, who, &o, 1);
  o.ctor = lkf_job_mt[j->kind];
  t = lkf_opt_target(L, opts, who, KF_T_FLYTE);
  o.clustered = t == KF_T_CLUSTERED;
  if (kf_target_emit(j, t, KF_E_ENCODE,
                     who + 6, who, o.ctor, &X->A, &e) != KF_OK ||
      kf_job_to_msg(j, &o, 0, &X->A, &m, &e) != KF_OK)
    lkf_raise(L, &e);
  return m;
}

static int m_custom(lua_State *L) {
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  kf_node *n;
  lkf_checkopts(L, 2, "kfjob.custom", kf_option_names(KF_OPT_ENCODE));
  n = kf_msg_to_node(job_msg(L, X, j, 2, "kfjob.custom"), &X->A);
  if (n == NULL) return luaL_error(L, "not enough memory");
  lkf_pushnode(L, n);
  return 1;
}

static int m_to_json(lua_State *L) {
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  kf_render_opts ro;
  kf_err e;
  kf_render_opts_init(&ro);
  ro.format = KF_RENDER_JSON;
  ro.who = "kfjob.to_json";
  lkf_checkopts(L, 2, "kfjob.to_json", kf_option_names(KF_OPT_TO_JSON));
  ro.indent = indent_opt(L, 2, "kfjob.to_json");
  lkf_encopts(L, 2, "kfjob.to_json", &ro.enc, 1);
  ro.enc.ctor = lkf_job_mt[j->kind];
  ro.target = lkf_opt_target(L, 2, "kfjob.to_json", KF_T_FLYTE);
  ro.target_set = 1;
  if (kf_render(j, &ro, &X->A, &X->buf, &e) != KF_OK) return lkf_raise(L, &e);
  lua_pushlstring(L, X->buf.p, X->buf.n);
  return 1;
}

/* job:task_template(opts) and job:task_spec(opts): the same options, the
** spec's with interface and metadata. */
static int envelope(lua_State *L, int spec) {
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  const char *who = spec ? "kfjob.task_spec" : "kfjob.task_template";
  kf_render_opts ro;
  kf_err e;
  kf_render_opts_init(&ro);
  ro.format = spec ? KF_RENDER_TASKSPEC : KF_RENDER_TEMPLATE;
  ro.who = who;
  lkf_checkopts(L, 2, who, kf_option_names(spec ? KF_OPT_TASKSPEC : KF_OPT_TEMPLATE));
  lkf_encopts(L, 2, who, &ro.enc, 1);
  ro.enc.ctor = lkf_job_mt[j->kind];
  ro.target = lkf_opt_target(L, 2, who, KF_T_FLYTE);
  ro.target_set = 1;
  ro.indent = indent_opt(L, 2, who);
  if (lkf_optfield(L, 2, "format") != LUA_TNIL) {
    const char *f = (lkf_opt_nul(L, who, "format"), lua_tostring(L, -1));
    if (f == NULL || (strcmp(f, "json") && strcmp(f, "pb")))
      return luaL_error(L, "%s: opts.format: expected \"pb\" or \"json\"", who);
    if (f[0] == 'j') ro.format = spec ? KF_RENDER_TASKSPEC_JSON : KF_RENDER_TEMPLATE_JSON;
  }
  lua_pop(L, 1);
  if (!lua_isnoneornil(L, 2)) {
    ro.template_opts = lkf_checknode_at(L, X, 2, who, "opts", &e);
  }
  if (kf_render(j, &ro, &X->A, &X->buf, &e) != KF_OK) return lkf_raise(L, &e);
  lua_pushlstring(L, X->buf.p, X->buf.n);
  return 1;
}

static int m_task_template(lua_State *L) { return envelope(L, 0); }
static int m_task_spec(lua_State *L) { return envelope(L, 1); }

static int l_from_json(lua_State *L) {
  static const char *const keys[] = {"version", "allow_unknown", "kind", NULL};
  const char *who = "kfjob.from_json";
  const char *tt = lkf_check_task_type(L, 1, who);
  lctx *X = lkf_ctx(L, 3);
  kf_encopts o;
  kf_node *root;
  kf_err e;
  kf_job j;
  int allow = 0, kind;
  lkf_checkopts(L, 3, who, keys);
  if (lkf_encopts(L, 3, who, &o, 0)) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  kind = lkf_kind_opt(L, 3, who);
  if (kind >= 0 && (kf_kinds[kind].task_type == NULL ||
                    strcmp(kf_kinds[kind].task_type, tt) != 0))
    return luaL_error(L, "%s: opts.kind: '%s' is not a kind of task type '%s'", who,
                      kf_kinds[kind].name, tt);
  if (lkf_optfield(L, 3, "allow_unknown") != LUA_TNIL) allow = lua_toboolean(L, -1);
  if (lua_type(L, 2) == LUA_TSTRING) {
    size_t n;
    const char *s = lua_tolstring(L, 2, &n);
    int done;
    /* the plain shape to_json writes, in one pass (issue 45); anything
    ** else is parsed into a tree below, as before */
    kf_status st = kf_from_json_text(tt, kind, o.version, s, n, &X->A, &j, &done, who, &e);
    if (done) {
      if (st != KF_OK) return lkf_fail(L, &e);
      lkf_pushjob(L, &j);
      return 1;
    }
    if (kf_json_parse(s, n, &X->A, &root, &e) != KF_OK) {
      if (e.code != KF_ENOMEM) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", who, e.msg);
        return 2;
      }
      return lkf_raise(L, &e);
    }
  } else {
    luaL_argexpected(L, lua_istable(L, 2), 2, "JSON string or table");
    root = lkf_checknode(L, X, 2, who, &e);
  }
  if (kf_from_json(tt, kind, o.version, root, allow, &X->A, &j, who, &e) != KF_OK)
    return lkf_fail(L, &e);
  lkf_pushjob(L, &j);
  return 1;
}

static int decode_envelope(lua_State *L, int spec) {
  static const char *const keys[] = {"kind", NULL};
  const char *who = spec ? "kfjob.decode_task_spec" : "kfjob.decode_task_template";
  size_t n;
  const char *p = lkf_checkstr(L, 1, &n);
  lctx *X = lkf_ctx(L, 2);
  kf_node *info;
  kf_err e;
  kf_job j;
  int kind;
  lkf_checkopts(L, 2, who, keys);
  kind = lkf_kind_opt(L, 2, who);
  if ((spec ? kf_decode_task_spec : kf_decode_task_template)(p, n, kind, &X->A, &j,
                                                            &info, who, &e) != KF_OK)
    return lkf_fail(L, &e);
  lkf_pushjob(L, &j);
  lkf_pushnode(L, info);
  return 2;
}

static int l_decode_task_template(lua_State *L) { return decode_envelope(L, 0); }
static int l_decode_task_spec(lua_State *L) { return decode_envelope(L, 1); }

const luaL_Reg lkf_json_funcs[] = {{"from_json", l_from_json},
                                   {"decode_task_template", l_decode_task_template},
                                   {"decode_task_spec", l_decode_task_spec},
                                   {NULL, NULL}};
const luaL_Reg lkf_json_methods[] = {{"custom", m_custom},
                                     {"to_json", m_to_json},
                                     {"task_template", m_task_template},
                                     {"task_spec", m_task_spec},
                                     {NULL, NULL}};

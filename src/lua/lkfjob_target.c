/*
** lkfjob_target.c - binding for job:check(opts): every problem the rules
** by target (kf_target_rules*.c, FACTS §8.5) find for one target.
*/
#include <string.h>

#include "lkf_binding.h"
#include "kf_env.h"
#include "kf_manifest.h"

/* The default target of check and lint: flyte, or operator for the kinds
** Flyte does not carry. */
kf_target lkf_default_target(const kf_job *j) {
  return kf_kinds[j->kind].task_type ? KF_T_FLYTE : KF_T_OPERATOR;
}

/* opts.name and opts.env (as manifests take them) into the rule context;
** env sorted and checked by kf_env_user_vars. */
int lkf_target_ctx_opts(lua_State *L, lctx *X, int idx, const char *who,
                        kf_target_ctx *c, kf_err *e) {
  kf_manifest_opts mo;
  kf_kvs *env;
  memset(c, 0, sizeof *c);
  if (lua_isnoneornil(L, idx)) return KF_OK;
  if (kf_manifest_opts_parse(lkf_checknode(L, X, idx, who, e), &mo, &X->A, who, e) != KF_OK)
    return e->code;
  c->name = mo.name, c->image = mo.image;
  if (mo.env.n == 0) return KF_OK;
  if ((env = kf_arena_alloc(&X->A, sizeof *env)) == NULL) return kf_nomem(e);
  if (kf_env_user_vars(&mo.env, &X->A, env, who, e) != KF_OK) return e->code;
  c->env = env;
  return KF_OK;
}

/* job:check([opts]) -> true | nil, { {path=, message=, rule=, source=}, ... }
** Errors only (SPEC §11): warnings go to job:lint{target=}.  opts.name and
** opts.env let the name and environment rules (R16) see them. */
static int m_check(lua_State *L) {
  static const char who[] = "kfjob.check";
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  kf_target_ctx c;
  kf_problems ps;
  kf_node *list;
  kf_err e;
  kf_target t;
  lkf_checkopts(L, 2, who, kf_option_names(KF_OPT_CHECK));
  t = lkf_opt_target(L, 2, who, lkf_default_target(j));
  /* a kind the target does not run is R24, a problem like the others */
  if (lkf_target_ctx_opts(L, X, 2, who, &c, &e) != KF_OK)
    return lkf_raise(L, &e);
  if (kf_target_problems(j, t, &c, &X->A, &ps, &e) != KF_OK) return lkf_raise(L, &e);
  if ((list = kf_node_new(&X->A, KF_NARR)) == NULL) return luaL_error(L, "not enough memory");
  if (kf_problems_push(&ps, KF_SEV_ERROR, &X->A, list, &e) != KF_OK)
    return lkf_raise(L, &e);
  if (list->u.c.n == 0) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushnil(L);
  lkf_pushnode(L, list);
  return 2;
}

const luaL_Reg lkf_target_methods[] = {{"check", m_check}, {NULL, NULL}};

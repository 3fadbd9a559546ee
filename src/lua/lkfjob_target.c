/*
** lkfjob_target.c - binding for job:check(opts): every problem the rules
** by target (kf_target_rules*.c, FACTS §8.5) find for one target.
*/
#include <string.h>

#include "lkfjob.h"

/* job:check([opts]) -> true | nil, { {path=, message=, rule=, source=}, ... }
** Errors only (SPEC §11): warnings go to job:lint{target=}. */
static int m_check(lua_State *L) {
  static const char who[] = "kfjob.check";
  static const char *const keys[] = {"target", NULL};
  const kf_job *j = lkf_checkjob(L, 1);
  lctx *X = lkf_ctx(L, 2);
  kf_target_ctx c;
  kf_problems ps;
  kf_node *list;
  kf_err e;
  kf_target t;
  lkf_checkopts(L, 2, who, keys);
  t = lkf_opt_target(L, 2, who, KF_T_FLYTE);
  memset(&c, 0, sizeof c);
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

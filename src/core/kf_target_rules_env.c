/*
** kf_target_rules_env.c - rules by target (FACTS §8.5) about
** the environment: user variables named like the ones a target injects
** (R16).  Rows as in kf_target_rules.c.
*/
#include "kf_target.h"

const kf_target_rule kf_target_rules_env[] = {
  {NULL, 0, {0}, {NULL}, NULL}
};

/*
** kf_target_rules.c - the rules that differ by target (FACTS §8.5), one
** row each: the kinds it concerns, its severity and source per target, and
** a test that reports each violation with its path.  Construction keeps
** only what holds on every target; these rows carry the rest.
*/
#include "kf_target.h"

const kf_target_rule kf_target_rules[] = {
  {NULL, 0, {0}, {NULL}, NULL}
};

/*
** kf_target_rules_manifest.c - rules by target (FACTS §8.5) about
** what each target's resources can express (kinds, restart policies, images
** and settings that differ by group, run policy fields a resource lacks).  Rows as in kf_target_rules.c.
*/
#include "kf_target.h"

const kf_target_rule kf_target_rules_manifest[] = {
  {NULL, 0, {0}, {NULL}, NULL}
};

/*
** kf_rules_int.h - the shorthands every table of rule rows uses
** (kf_target_rules*.c): kind bits, severities, a test's ADD, and the
** two Trainer versions sharing one value.  Private to src/core/rules.
*/
#ifndef KF_RULES_INT_H
#define KF_RULES_INT_H

#include "kf_rules.h"

#define K(k) KF_KIND_BIT(k)
#define ALL_KINDS ((1u << KF_NKINDS) - 1)
#define NA KF_SEV_NA
#define OK KF_SEV_OK
#define WARN KF_SEV_WARN
#define ERR KF_SEV_ERROR
/* in a rule's test: one problem for `r` on `t`, or return the failure */
#define ADD(...) do { kf_status st_ = kf_problem_add(out, r, t, __VA_ARGS__); \
                      if (st_ != KF_OK) return st_; } while (0)
/* a row's severity or source, the same for Trainer v2.2, v2.3 and v2.4 */
#define TRAINERS(s) [KF_T_TRAINER_22] = s, [KF_T_TRAINER_23] = s, [KF_T_TRAINER_24] = s
/* a row of the Trainer versions alone (n.a., 0, on the other targets) */
#define TRAINER_ROW(id, kinds, sev, source, test) \
  {id, kinds, {TRAINERS(sev)}, {TRAINERS(source)}, test, 0, 0}

#endif

/*
** kf_rules.h - the rules by target (rows in kf_target_rules*.c, each with
** its upstream source) and lint: what a job may be on each target.  The
** rows' types are the schema's (kf_target.h); the rules read the kube
** writers' helpers, nothing reads the rules but the top of the core.
*/
#ifndef KF_RULES_H
#define KF_RULES_H

#include "kf_target.h"
#include "kf_manifest.h"

/* The rule rows, each table ended by a row with id NULL: what a job's
** fields may be (kf_target_rules.c), what a target's resources can express
** (kf_target_rules_manifest.c), the environment (kf_target_rules_env.c). */
extern const kf_target_rule kf_target_rules[], kf_target_rules_manifest[],
    kf_target_rules_env[], kf_target_rules_sched[], kf_target_rules_clustered[],
    kf_target_rules_trainer[];

/* Trainer: the initContainers and containers of a pod template (the job's,
** `at` "pod_template", or a group's, "worker.pod_template") that a
** runtime patch cannot carry: only the runtime's node container (the
** template's primary), and of it only ContainerPatch's fields
** (kf_target_rules_manifest.c, for R23 and R31). */
kf_status kf_trainer_containers_rule(const kf_node *tmpl, const char *at,
                                     kf_target t, const kf_target_rule *r,
                                     kf_problems *out, kf_err *e);

/* Every problem of `j` on `t` (warnings and errors, in rule order). */
kf_status kf_target_problems(const kf_job *j, kf_target t,
                             const kf_target_ctx *c, kf_arena *A,
                             kf_problems *out, kf_err *e);

/* The first error as "<who>: <path>: <message> (target <name>)", `who`
** NULL: the job's constructor ("kfjob.PyTorchJob"), as emitting methods
** name it (SPEC §11); KF_OK when the target accepts the job (warnings do
** not count). */
kf_status kf_target_require(const kf_job *j, kf_target t,
                            const kf_target_ctx *c, kf_arena *A,
                            const char *who, kf_err *e);

/* Before emitting with method `emit` for `t`: the target takes the method
** and the kind (errors prefixed by `who`, the method's name), and the job
** breaks none of its rules (the first error prefixed by `ctor`, the job's
** constructor name; NULL: "kfjob.<Kind>"). */
kf_status kf_target_emit(const kf_job *j, kf_target t, unsigned emit,
                         const char *method, const char *who,
                         const char *ctor, kf_arena *A, kf_err *e);
/* The same where the payload's resource gets a name the rules check (a
** Flyte 2 clustered task's JobSet, R45): `name` NULL is kf_target_emit. */
kf_status kf_target_emit_named(const kf_job *j, kf_target t, unsigned emit,
                               const char *method, const char *who, const char *ctor,
                               const char *name, kf_arena *A, kf_err *e);

typedef struct kf_lint_opts {
  const char *name;             /* NULL: skip the name rules */
  const char *image;            /* the task image, NULL: unknown */
  int version;                  /* task_type_version the job is sent as */
  const char *who;              /* prefixes errors ("kfjob.lint") */
  kf_target target;             /* its warnings are added (0: flyte) */
  const kf_kvs *env;            /* the user's variables, sorted (R16);
                                   NULL: none */
} kf_lint_opts;

/* Warnings as an array of {path=, message=} objects, in the order of the
** job's fields (groups in kind order, run_policy, slots), then opts, then
** the target's rules (FACTS §8.5) as {path=, message=, rule=, source=}. */
kf_status kf_lint(const kf_job *j, const kf_lint_opts *o, kf_arena *A,
                  kf_node **out, kf_err *e);

#endif

/*
** kf_target.h - the systems a job can be checked and emitted for
** (SPEC §11, FACTS §8).  A job says what to run; a target names what runs
** it.  Rules that differ between targets (FACTS §8.5 R1-R26) are keyed by
** these values; construction keeps only the rules every target shares.
*/
#ifndef KF_TARGET_H
#define KF_TARGET_H

#include "kf_job.h"

typedef enum kf_target {
  KF_T_FLYTE,          /* Flyte 1.x backend + training-operator */
  KF_T_FLYTE2,         /* Flyte 2 backend (flyteidl2) */
  KF_T_OPERATOR,       /* training-operator v1.9 via kubectl */
  KF_T_MPI_OPERATOR,   /* mpi-operator v0.8, MPIJob kubeflow.org/v2beta1 */
  KF_T_TRAINER_22,     /* Kubeflow Trainer v2.2, TrainJob */
  KF_T_TRAINER_23,     /* Kubeflow Trainer v2.3, TrainJob */
  KF_T_TRAINER_24,     /* Kubeflow Trainer v2.4, TrainJob (v2.3's rules + CEL) */
  KF_T_CLUSTERED,      /* Flyte 2 clustered task (ClusteredTaskSpec, JobSet) */
  KF_NTARGETS
} kf_target;
/* Target bits, as a group row's not_on takes them (kf_schema.h). */
#define KF_T_BIT(t) (1u << (t))
#define KF_T_TRAINERS (KF_T_BIT(KF_T_TRAINER_22) | KF_T_BIT(KF_T_TRAINER_23) | \
                       KF_T_BIT(KF_T_TRAINER_24))
/* Kind bits, as a target's kinds and a rule row's kinds take them; the
** kinds with a Flyte task type (kf_kinds[].task_type). */
#define KF_KIND_BIT(k) (1u << (k))
#define KF_FLYTE_KINDS (KF_KIND_BIT(KF_TFJOB) | KF_KIND_BIT(KF_PYTORCH) | \
                        KF_KIND_BIT(KF_ELASTIC) | KF_KIND_BIT(KF_MPI) | KF_KIND_BIT(KF_HOROVOD))
/* Whether `t` is a Trainer target (a TrainJob). */
#define KF_T_IS_TRAINER(t) ((KF_T_TRAINERS >> (unsigned)(t)) & 1u)
/* Which Trainer patch table (schema/targets.json) a Trainer target reads:
** 0 for v2.2, 1 for v2.3 and later (v2.4's CRD is not vendored; FACTS 12.2). */
#define KF_T_TRAINER_TABLE(t) ((t) != KF_T_TRAINER_22)

/* Kubeflow Trainer's TrainJob (trainer.kubeflow.org/v1alpha1): its API
** group, the shipped runtime kfjob's TrainJobs run on by default, the
** runtime's node job (the one kfjob's runtime patch names) and kfjob's own
** runtime patch manager (<DNS-1123 subdomain>/<path>, R32).  The writer
** (kube/kf_manifest_trainer.c) and the reader of TrainJobs share them. */
#define KF_TRAINER_GROUP "trainer.kubeflow.org"
#define KF_TRAINER_API KF_TRAINER_GROUP "/v1alpha1"   /* a TrainJob's apiVersion */
#define KF_TRAINER_KIND "TrainJob"
#define KF_TRAINER_RUNTIME "torch-distributed"   /* PyTorch's: kf_kinds' trainer_runtime */
#define KF_TRAINER_NODE "node"
#define KF_TRAINER_PATCH_MANAGER "kfjob/manifest"

/* What a target emits, as method bits. */
#define KF_E_ENCODE        1u   /* encode, custom, to_json */
#define KF_E_TEMPLATE      2u   /* task_template */
#define KF_E_TASKSPEC      4u   /* task_spec */
#define KF_E_MANIFEST      8u
#define KF_E_ENVIRONMENT  16u

typedef struct kf_target_info {
  const char *name;            /* "mpi-operator" */
  const char *runs;            /* what runs the job, for messages and docs */
  unsigned kinds;              /* bit (1u << kind) per kind it takes */
  unsigned emits;              /* KF_E_* */
} kf_target_info;

extern const kf_target_info kf_targets[KF_NTARGETS];
extern const char *const kf_target_names[KF_NTARGETS + 1];  /* NULL-ended */

/* Name -> target.  Errors "<who>: <path>: unknown target 'x' (did you
** mean 'y'?; expected one of ...)". */
kf_status kf_target_parse(const char *s, kf_target *out, const char *who,
                          const char *path, kf_err *e);

/* Whether target `t` can take method `emit` (KF_E_*) for `kind`; the error
** names both, e.g. "<who>: target 'mpi-operator' has no task_spec (it
** runs MPIJob kubeflow.org/v2beta1 resources)". `method` is the Lua-facing
** name used in the message. */
kf_status kf_target_allows(kf_target t, unsigned emit, int kind,
                           const char *method, const char *who, kf_err *e);

/* ---- rules by target (FACTS §8.5) -------------------------------------- */

/* How a target treats a violation: n.a. and ok report nothing. */
typedef enum kf_sev { KF_SEV_NA, KF_SEV_OK, KF_SEV_WARN, KF_SEV_ERROR } kf_sev;

/* What a rule may look at besides the job: the emitting call's options.
** Fields are NULL/0 when the caller does not have them. */
struct kf_kvs;
typedef struct kf_target_ctx {
  const char *name;            /* resource name (manifest, environment) */
  const struct kf_kvs *env;    /* the user's variables (opts.env of
                                  environment and lint), sorted by name;
                                  NULL: none.  R16 also reads the pod
                                  template's primary env from the job. */
  int v0;                      /* sent as task_type_version 0 (lint) */
  const char *image;           /* task image (manifest): groups without
                               ** their own run it */
} kf_target_ctx;

typedef struct kf_problem {
  const char *path;            /* "worker.replicas" (spec path) */
  const char *message;         /* "must be at least 1 (got 0)" */
  const char *rule;            /* "R1" */
  const char *source;          /* file and function or issue, FACTS §8.5 */
  kf_sev sev;                  /* KF_SEV_WARN or KF_SEV_ERROR */
  int in_lint;                 /* the rule's in_lint */
  const char *ref;             /* what in the path's value it is about, to
                                  find the item of a list ("$(NAME)": R55's
                                  reference); NULL: the whole value */
} kf_problem;

typedef struct kf_problems {   /* grows in the arena */
  kf_arena *A;
  kf_problem *v;
  size_t n, cap;
} kf_problems;

typedef struct kf_target_rule kf_target_rule;
/* A rule's test: calls kf_problem_add once per violation it finds; `r`
** gives the severity and source for `t`. */
typedef kf_status (*kf_rule_test)(const kf_job *j, kf_target t,
                                  const kf_target_ctx *c,
                                  const kf_target_rule *r, kf_problems *out,
                                  kf_err *e);
struct kf_target_rule {
  const char *id;                       /* "R13" */
  unsigned kinds;                       /* bit per kind it applies to */
  unsigned char sev[KF_NTARGETS];       /* kf_sev per target */
  const char *source[KF_NTARGETS];      /* per target; NULL: not cited */
  kf_rule_test test;
  int in_lint;                          /* kf_lint warns about the same path
                                           in its own words: lint puts the
                                           row's id and source on that
                                           warning (R11, R12, R14, R15) */
  unsigned needs;                       /* KF_SETS_* bits: the test finds
                                           nothing in a job that sets none
                                           of them (kf_target_check.c skips
                                           it); 0: always run */
};

/* What a job sets, as far as a rule's `needs` asks (kf_job_sets): one
** cheap summary per walk instead of each rule searching every group. */
#define KF_SETS_CONTAINER   1u   /* the job's container (or its env) */
#define KF_SETS_GCONTAINER  2u   /* a group's container */
#define KF_SETS_TOPOLOGY    4u   /* a topology (a group's or scheduling's) */
#define KF_SETS_GPOD        8u   /* a group's pod template */
#define KF_SETS_EXIT_CODE  16u   /* a group's restart policy exit_code */
#define KF_SETS_TASK_RES   32u   /* the job's own requests or limits */
#define KF_SETS_EXT_RES    64u   /* an extended resource (any group's or the job's) */


/* Adds a problem (path and message copied into the arena; message is
** printf-style).  Nothing is added when the rule is n.a. or ok for `t`. */
kf_status kf_problem_add(kf_problems *out, const kf_target_rule *r,
                         kf_target t, const char *path, kf_err *e,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;


/* The problems of severity `sev` appended to `list` (an array node) as
** {path=, message=, rule=, source=} objects. */
kf_status kf_problems_push(const kf_problems *ps, kf_sev sev, kf_arena *A,
                           kf_node *list, kf_err *e);


/* Why target `t`'s resources have no place for group row `f` (R34), or
** NULL when they have. */
const char *kf_field_not_on(const kf_field *f, kf_target t);

/* Place `p`'s (KF_M_*) path on target `t`, as text (kfjob explain): a
** group place's under the group's replica spec on the kubeflow.org/v1 and
** MPIJob targets ("" for the spec itself), in the resource on Trainer and
** the JobSet; a job place's in the resource; on flyte and flyte2 the
** place's TaskTemplate path where it has one (kf_places[p].flyte); NULL:
** the target has no such place (kf_places[p].rule). */
const char *kf_place_path(int p, kf_target t);
/* The resource family target t writes, the places table's column it reads:
** "kubeflow.org/v1" (operator, flyte, flyte2), "MPIJob" (mpi-operator),
** "TrainJob" (the Trainers), "JobSet" (flyte2-clustered); kfjob.targets()
** gives it as `resource`. */
const char *kf_target_resource(kf_target t);
/* The role whose pods, given no command of their own, run what the
** target's controller gives them, so the writer gives them none and the
** import reads none: the mpi-operator's workers run sshd (mpi-operator
** v0.8.0 mpi_job_controller.go newWorker); -1: no such role. */
int kf_target_bare_role(kf_target t);
/* Whether flyte2-clustered's backend sets environment variable `name` on
** every pod, over the user's (flyte executor/pkg/plugin/clustered/
** runtime_torch.go: NNODES, NPROC_PER_NODE, MASTER_PORT, RDZV_BACKEND,
** JOBSET_*, POD_NAMESPACE): what the reader drops and R46 warns about. */
int kf_clustered_backend_var(const char *name);

/* The restart policies each target's replica specs carry, by target
** (the restart_policy row's values_on). */
extern const unsigned kf_restart_policy_on[KF_NTARGETS];
/* Whether target `t`'s resources carry value `v` of enum row `f` (its
** values_on). */
int kf_field_value_on(const kf_field *f, kf_target t, int v);

/* The job as target t runs it: j itself, or for flyte2-clustered, whose
** pods all come from the task's one container (flyte clustered/build.go),
** a copy in `copy` whose running groups' image, command and resources,
** the same in each (and not the job's own), are the job's (what differs
** stays on the groups, for R48).  The rules and the writers both see it,
** so a job read from a manifest (images on its groups) runs there. */
const kf_job *kf_job_for_target(const kf_job *j, kf_target t, kf_job *copy);

#endif

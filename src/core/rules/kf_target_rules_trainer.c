/*
** kf_target_rules_trainer.c - rules by target about how Trainer runs a
** PyTorch job's command (kfjob's torchrun wrapper, the runtime's process
** count), a TrainJob without spec.trainer, and the other system's host
** names in a migrated command: R57, R58, R60, R61.  Rows as in
** kf_target_rules.c; their table comes right after its rows.
*/
#include <stdio.h>
#include <string.h>

#include "kf_launcher.h"
#include "kf_rules.h"
#include "kf_rules_int.h"

/* The container a TrainJob's nodes run: the Trainer role's own when it
** gives a command, else the job's; NULL: neither. */
static const kf_container *trainer_container(const kf_job *j) {
  const kf_group *g = &j->g[kf_trainer_role(j)];
  if (g->has_container && g->container.ncommand) return &g->container;
  return j->has_container ? &j->container : NULL;
}

/* R57: a PyTorchJob whose command starts torchrun with nproc_per_node
** unset or "auto" and no GPU: the operator's torchrun runs "auto", one
** process per CPU of the node, where Trainer (numProcPerNode unset) runs
** the CPU request rounded up, at least 1. */
static kf_status test_pt_nproc_cpu(const kf_job *j, kf_target t,
                                   const kf_target_ctx *c, const kf_target_rule *r,
                                   kf_problems *out, kf_err *e) {
  const kf_group *g = &j->g[kf_trainer_role(j)];
  const kf_container *ct = trainer_container(j);
  (void)c;
  if (j->runtime || ct == NULL || !kf_starts_launcher((const char *const *)ct->command, ct->ncommand) ||
      (j->nproc_word ? strcmp(j->nproc_word, "auto") != 0 : j->nproc_per_node != 0) ||
      g->requests[KF_GPU] || g->limits[KF_GPU] || j->requests[KF_GPU] || j->limits[KF_GPU])
    return KF_OK;
  return kf_problem_add(out, r, t, "nproc_per_node", e, "unset (auto) without a GPU: "
                        "Trainer runs max(1, CPU request) processes a node, where the "
                        "operator's auto runs one per CPU of the node (set nproc_per_node "
                        "to the count the job needs)");
}

/* R60: several processes a node and a command that starts no launcher:
** Trainer runs kfjob's torchrun wrapper, numProcPerNode copies of the
** command a node, where the training-operator (and Flyte's backend) runs
** it once a pod and only sets PET_NPROC_PER_NODE. */
static kf_status test_nproc_no_launcher(const kf_job *j, kf_target t,
                                        const kf_target_ctx *c, const kf_target_rule *r,
                                        kf_problems *out, kf_err *e) {
  const kf_container *ct = trainer_container(j);
  (void)c;
  if (j->nproc_word != NULL || j->nproc_per_node <= 1 || j->runtime_trainer || ct == NULL ||
      ct->ncommand == 0 || !kf_trainer_wraps(j, (const char *const *)ct->command, ct->ncommand))
    return KF_OK;
  /* (convert --to prints R60's warnings: said_on_migration, convert_read.c) */
  return kf_problem_add(out, r, t, "nproc_per_node", e, "%d with a command that starts no "
                        "launcher: Trainer runs %d processes a node (kfjob's torchrun "
                        "wrapper starts the command that many times), where the "
                        "training-operator runs it once a pod and only sets "
                        "PET_NPROC_PER_NODE (start torchrun in the command, or set "
                        "nproc_per_node = 1 if the command starts its own processes)",
                        (int)j->nproc_per_node, (int)j->nproc_per_node);
}

/* R58: a TrainJob without spec.trainer runs the runtime's node job with no
** node env; every other target's pods get the operator's or Flyte's. */
static kf_status test_runtime_trainer(const kf_job *j, kf_target t,
                                      const kf_target_ctx *c, const kf_target_rule *r,
                                      kf_problems *out, kf_err *e) {
  (void)c;
  if (j->runtime_trainer)
    ADD("runtime_trainer", e, "true is a TrainJob without spec.trainer (the runtime's "
        "image, command and node count, no node env): only Trainer targets run it; set "
        "runtime_trainer = false and give the job its image and command to run it here");
  return KF_OK;
}

/* R61: a host name of the other system in what the pods run.  The
** training-operator reaches each pod through a headless Service,
** <job>-master-0 and <job>-worker-<i> (service.go); a TrainJob's pods are
** <job>-node-0-<i>.<job> (the JobSet's; torch.go PET_MASTER_ADDR).  A
** migrated command naming one does not resolve on the other.  The length
** of the name in s at `at` and the system it is of; 0: none. */
static int host_char(char c) {   /* a character a DNS label may hold */
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_';
}

static size_t other_host(const char *s, const char *name, int trainer, const char **at) {
  static const char *const op[] = {"-master-", "-worker-", NULL}, *const tj[] = {"-node-0-", NULL};
  const char *const *suf = trainer ? op : tj;
  size_t nl = strlen(name), i, n, d;
  const char *p;
  for (p = s; (p = strstr(p, name)) != NULL; p += nl)
    for (i = 0; suf[i]; i++) {
      n = nl + strlen(suf[i]);
      if ((p > s && host_char(p[-1])) || strncmp(p + nl, suf[i], n - nl) != 0) continue;
      for (d = n; p[d] >= '0' && p[d] <= '9'; d++) {}
      /* a whole label: an index without a leading zero (the master's is 0) */
      if (d == n || host_char(p[d]) || (p[n] == '0' && d > n + 1) ||
          (strcmp(suf[i], "-master-") == 0 && (d != n + 1 || p[n] != '0')))
        continue;
      *at = p;
      return d;
    }
  return 0;
}

/* What a kind's pods read for the rendezvous on Trainer (its plugin's
** variables) or on the operator (its setPodEnv's). */
static const char *rendezvous(int kind, int trainer) {
  if (kind == KF_JAX) return trainer ? "$(JAX_COORDINATOR_ADDRESS), which Trainer sets"
                                     : "$(COORDINATOR_ADDRESS):$(COORDINATOR_PORT), which the operator sets";
  if (kind == KF_XGBOOST) return trainer ? "$(DMLC_TRACKER_URI):$(DMLC_TRACKER_PORT), which Trainer sets"
                                         : "$(MASTER_ADDR):$(MASTER_PORT), which the operator sets";
  return trainer ? "$(PET_MASTER_ADDR):$(PET_MASTER_PORT), which Trainer sets"
                 : "$(MASTER_ADDR):$(MASTER_PORT), which the operator sets with a Master";
}

/* R61 over strings v[0..n) at `path`: one problem a string naming a host. */
static kf_status hosts_in(const kf_job *j, const char *path, const char *const *v, size_t n,
                          const char *name, kf_target t, const kf_target_rule *r,
                          kf_problems *out, kf_err *e) {
  size_t i, len;
  const char *at;
  kf_status st;
  for (i = 0; i < n; i++) {
    int trainer = KF_T_IS_TRAINER(t);
    if ((len = other_host(v[i], name, trainer, &at)) == 0) continue;
    /* (convert prints R61's warnings: said_always, convert_read.c) */
    if ((st = kf_problem_add(out, r, t, path, e, "'%.*s' is a host of the %s (%s): it does not "
                             "resolve on %s, whose pods are %s (use %s)", (int)len, at,
                             trainer ? "training-operator" : "TrainJob's JobSet",
                             trainer ? "<job>-master-0, <job>-worker-<i>" : "<job>-node-0-<i>.<job>",
                             kf_target_names[t], trainer ? "<job>-node-0-<i>.<job>" :
                             "<job>-master-0 and <job>-worker-<i>",
                             rendezvous(j->kind, trainer))) != KF_OK)
      return st;
    if ((out->v[out->n - 1].ref = kf_arena_strndup(out->A, at, len)) == NULL) return kf_nomem(e);
  }
  return KF_OK;
}

/* R61 over an env's values (a list of EnvVars or a name -> value table),
** each at its variable's path ("container.env.RDZV"). */
static kf_status env_hosts(const kf_job *j, const char *at, const kf_node *env, const char *name,
                           kf_target t, const kf_target_rule *r, kf_problems *out, kf_err *e) {
  char p[160];
  size_t i;
  kf_status st;
  for (i = 0; env && (env->t == KF_NARR || env->t == KF_NOBJ) && i < env->u.c.n; i++) {
    const kf_node *v = env->u.c.v[i], *nm = NULL;
    if (v->t == KF_NOBJ) nm = kf_node_get(v, "name"), v = kf_node_get(v, "value");
    snprintf(p, sizeof p, "%s.%.80s", at, env->t == KF_NOBJ ? env->u.c.k[i]
                                          : nm && nm->t == KF_NSTR ? nm->u.s.p : "?");
    if (v && v->t == KF_NSTR &&
        (st = hosts_in(j, p, &v->u.s.p, 1, name, t, r, out, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

static kf_status test_other_hosts(const kf_job *j, kf_target t, const kf_target_ctx *c,
                                  const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char p[64];
  int i;
  kf_status st;
  if (c->name == NULL || c->name[0] == '\0') return KF_OK;
  for (i = -1; i < k->nroles; i++) {
    const kf_group *g = i < 0 ? NULL : &j->g[k->roles[i].role];
    const kf_container *ct = g ? (g->has_container ? &g->container : NULL)
                               : (j->has_container ? &j->container : NULL);
    const char *key = g ? kf_roles[k->roles[i].role].key : NULL;
    if (ct == NULL) continue;
    snprintf(p, sizeof p, "%s%scontainer.command", key ? key : "", key ? "." : "");
    if ((st = hosts_in(j, p, ct->command, ct->ncommand, c->name, t, r, out, e)) != KF_OK) return st;
    snprintf(p, sizeof p, "%s%scontainer.args", key ? key : "", key ? "." : "");
    if ((st = hosts_in(j, p, ct->args, ct->nargs, c->name, t, r, out, e)) != KF_OK) return st;
    snprintf(p, sizeof p, "%s%scontainer.env", key ? key : "", key ? "." : "");
    if ((st = env_hosts(j, p, ct->env, c->name, t, r, out, e)) != KF_OK) return st;
  }
  return KF_OK;
}

const kf_target_rule kf_target_rules_trainer[] = {
  {"R57", K(KF_PYTORCH),
   {[KF_T_MPI_OPERATOR] = NA, TRAINERS(WARN)},
   {TRAINERS("trainer torch.go EnforceMLPolicy (numProcPerNode unset: auto only with a "
             "GPU, else max(1, CPU)); training-operator envvar.go setPodEnv "
             "(PET_NPROC_PER_NODE auto)")},
   test_pt_nproc_cpu, 0, 0},
  {"R58", K(KF_PYTORCH) | K(KF_ELASTIC) | K(KF_JAX) | K(KF_XGBOOST),
   {[KF_T_FLYTE] = ERR, [KF_T_FLYTE2] = ERR, [KF_T_OPERATOR] = ERR,
    [KF_T_MPI_OPERATOR] = ERR, [KF_T_CLUSTERED] = ERR, TRAINERS(OK)},
   {[KF_T_FLYTE] = "flyteplugins pytorch.go BuildResource (the operator's node env)",
    [KF_T_FLYTE2] = "flyteplugins pytorch.go BuildResource (the operator's node env)",
    [KF_T_OPERATOR] = "training-operator (its node env on every pod: envvar.go setPodEnv)",
    [KF_T_MPI_OPERATOR] = "mpi-operator v2beta1 (no such job)",
    [KF_T_CLUSTERED] = "flyte clustered runtime_torch.go (the plugin's node env)",
    TRAINERS("trainer trainjob_types.go TrainJobSpec.Trainer (+optional); torch.go, jax.go, "
             "xgboost.go EnforceMLPolicy (node env only when it is set)")},
   test_runtime_trainer, 0, 0},
  {"R60", K(KF_PYTORCH) | K(KF_ELASTIC),
   {[KF_T_MPI_OPERATOR] = NA, TRAINERS(WARN)},
   {TRAINERS("trainer torch.go EnforceMLPolicy (numProcPerNode -> PET_NPROC_PER_NODE, "
             "read by torchrun); training-operator envvar.go setPodEnv (the command runs "
             "as written)")},
   test_nproc_no_launcher, 0, 0},
  {"R61", K(KF_PYTORCH) | K(KF_ELASTIC) | K(KF_JAX) | K(KF_XGBOOST),
   {[KF_T_OPERATOR] = WARN, [KF_T_MPI_OPERATOR] = NA, TRAINERS(WARN)},
   {[KF_T_OPERATOR] = "trainer jobset (pods <job>-node-0-<i>.<job>); training-operator "
                      "common/service.go (a headless Service a pod, <job>-<role>-<i>)",
    TRAINERS("training-operator common/service.go (a headless Service a pod, "
             "<job>-<role>-<i>); trainer torch.go EnforceMLPolicy (PET_MASTER_ADDR "
             "<job>-node-0-0.<job>)")},
   test_other_hosts, 0, 0},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

/*
** kf_manifest_trainer.c - PyTorchJob / Elastic / JAXJob / XGBoostJob ->
** TrainJob trainer.kubeflow.org/v1alpha1 on the runtime Trainer ships for
** the kind (`torch-distributed`, `jax-distributed`, `xgboost-distributed`:
** kf_kinds' trainer_runtime), for Trainer v2.2-v2.4 (FACTS §8.4.4,
** §11.6).  Master and workers become the runtime's one `node` job:
** numNodes = master + workers (elastic: the fixed node count); for PyTorch
** one process per node and the task command wrapped in `torchrun
** --no-python` (Trainer sets only PET_*, which torchrun reads), JAX and
** XGBoost run their command as written; the pod settings are one runtime
** patch of `node`.  What
** a TrainJob cannot say is refused before by the rule rows (R9, R13, R17,
** R21, R23, R24 in kf_target_rules_manifest.c); the two versions differ in
** terminationGracePeriodSeconds, which only v2.3's patch has.
*/
#include <stdio.h>
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"
#include "kf_sched.h"

#include "kf_manifest_int.h"

/* The runtime patch's pod spec: what kf_pod_spec built for the group,
** reduced to PodSpecPatch; the primary container becomes `node` with its
** volume mounts and security context.  *out NULL: nothing to patch. */
static kf_status pod_patch(mctx *c, const kf_job *j, int role, kf_target t,
                           const kfm_shared *sh, kf_node **out) {
  const char *const *patch_keys = kfm_trainer_pod_patch[KF_T_TRAINER_TABLE(t)];
  const char *const *ct_keys = kfm_trainer_container_patch[KF_T_TRAINER_TABLE(t)];
  kf_node *cts, *pod, *patch;
  int k;
  kf_status st;
  *out = NULL;
  KF_OOM(c, cts = kf_node_new(c->A, KF_NARR));
  if ((st = kfm_container(c, j, role, sh, cts)) != KF_OK ||
      (st = kf_pod_spec(c->A, j, cts->u.c.v[0], sh->o->service_account, &pod,
                        c->who, c->e)) != KF_OK)
    return st;
  KF_OOM(c, patch = kf_node_new(c->A, KF_NOBJ));
  for (k = 0; patch_keys[k]; k++) {
    kf_node *v = kf_node_get(pod, patch_keys[k]);
    if (v == NULL) continue;
    if (strcmp(patch_keys[k], "containers") == 0) {
      /* the primary, renamed to `node`: its patchable fields but env (the
      ** webhook refuses env on node; it goes in spec.trainer.env) */
      const char *dname = kf_kinds[j->kind].container;
      size_t i;
      int x;
      kf_node *list = NULL, *node;
      for (i = 0; v->t == KF_NARR && i < v->u.c.n; i++) {
        const kf_node *ct = v->u.c.v[i], *nm = kf_node_get(ct, "name");
        if (!nm || nm->t != KF_NSTR || strcmp(nm->u.s.p, dname) != 0) continue;
        KF_OOM(c, node = kf_node_new(c->A, KF_NOBJ));
        KF_OOM(c, kf_obj_str(c->A, node, "name", KF_TRAINER_NODE));
        for (x = 0; ct_keys[x]; x++) {
          kf_node *f = kf_node_get(ct, ct_keys[x]);
          if (f && strcmp(ct_keys[x], "name") != 0 && strcmp(ct_keys[x], "env") != 0)
            KF_OOM(c, kf_node_push(c->A, node, ct_keys[x], f));
        }
        if (node->u.c.n > 1) {
          KF_OOM(c, list = kf_node_new(c->A, KF_NARR));
          KF_OOM(c, kf_node_push(c->A, list, NULL, node));
        }
        break;
      }
      if (list) KF_OOM(c, kf_node_push(c->A, patch, "containers", list));
      continue;
    }
    KF_OOM(c, kf_node_push(c->A, patch, patch_keys[k], v));
  }
  /* the group rows placed in the pod spec (R21: every group's the same) */
  if ((st = kfm_group_rows(c, &j->g[role], KF_M_POD, kf_roles[role].key, patch,
                           NULL)) != KF_OK)
    return st;
  if (patch->u.c.n) *out = patch;
  return KF_OK;
}

static kf_status runtime_patches(mctx *c, const kf_job *j, int role, kf_target t,
                                 const kfm_shared *sh, kf_node *spec) {
  kf_node *patch = NULL, *pm = NULL, *list, *p, *tmpl, *jobs, *job, *x;
  kf_status st;
  if ((j->pod_template || j->shared_memory || j->has_accelerator ||
       sh->o->service_account || kfm_place_given(&j->g[role], KF_M_POD)) &&
      (st = pod_patch(c, j, role, t, sh, &patch)) != KF_OK)
    return st;
  if (j->pod_template &&
      (st = kf_pod_meta(c->A, j->pod_template, NULL, NULL, &pm, c->e)) != KF_OK)
    return st;
  if (patch == NULL && pm == NULL) return KF_OK;
  KF_OOM(c, list = kf_obj_add(c->A, spec, "runtimePatches", KF_NARR));
  KF_OOM(c, p = kf_obj_add(c->A, list, NULL, KF_NOBJ));
  KF_OOM(c, kf_obj_str(c->A, p, "manager", j->runtime_patch_manager ? j->runtime_patch_manager
                                                                     : KF_TRAINER_PATCH_MANAGER));
  KF_OOM(c, x = kf_obj_add(c->A, p, "trainingRuntimeSpec", KF_NOBJ));
  KF_OOM(c, x = kf_obj_add(c->A, x, "template", KF_NOBJ));
  KF_OOM(c, x = kf_obj_add(c->A, x, "spec", KF_NOBJ));
  KF_OOM(c, jobs = kf_obj_add(c->A, x, "replicatedJobs", KF_NARR));
  KF_OOM(c, job = kf_obj_add(c->A, jobs, NULL, KF_NOBJ));
  KF_OOM(c, kf_obj_str(c->A, job, "name", KF_TRAINER_NODE));
  KF_OOM(c, x = kf_obj_add(c->A, job, "template", KF_NOBJ));
  KF_OOM(c, x = kf_obj_add(c->A, x, "spec", KF_NOBJ));
  KF_OOM(c, tmpl = kf_obj_add(c->A, x, "template", KF_NOBJ));
  if (pm) KF_OOM(c, kf_node_push(c->A, tmpl, "metadata", pm));
  if (patch) KF_OOM(c, kf_node_push(c->A, tmpl, "spec", patch));
  return KF_OK;
}

/* The TrainJob CRD's maxItems and maxLength for what kfjob writes in
** spec.trainer (trainer.kubeflow.org_trainjobs.yaml of v2.2 and v2.3: items
** of command and args 65536 characters in v2.2, 1048576 in v2.3).  The
** command starts with torchrun --no-python (`skip` items not the user's). */
static const struct trainer_limit {
  const char *key;
  size_t items, len22, len23;
} trainer_limits[] = {
    {"command", 128, 65536, 1048576},
    {"args", 128, 65536, 1048576},
    {"env", 128, 0, 0},
};

/* `from`: where command, args and env came from ("opts", "container",
** "master.container"), each; errors name <from>.<key>. */
static kf_status check_trainer_limits(mctx *c, kf_target t, const kf_node *tr,
                                      const char *image_path,
                                      const char *const from[3]) {
  const char *ver = t == KF_T_TRAINER_22 ? "v2.2" : t == KF_T_TRAINER_23 ? "v2.3" : "v2.4";
  const char *tn = kf_target_names[t];
  const kf_node *v = kf_node_get(tr, "image");
  size_t i, k;
  if (v && v->t == KF_NSTR && v->u.s.n > 500)
    return kfm_failf(c, image_path, "%zu characters: Trainer %s's TrainJob takes "
                     "an image of at most 500 (trainer.image maxLength) (target %s)",
                     v->u.s.n, ver, tn);
  for (k = 0; k < sizeof trainer_limits / sizeof trainer_limits[0]; k++) {
    const struct trainer_limit *l = &trainer_limits[k];
    size_t max = t == KF_T_TRAINER_22 ? l->len22 : l->len23;
    size_t skip = strcmp(l->key, "command") == 0 ? 2 : 0;
    if ((v = kf_node_get(tr, l->key)) == NULL || v->t != KF_NARR) continue;
    char opt[64];
    snprintf(opt, sizeof opt, "%s.%s", from[k], l->key);
    if (v->u.c.n > l->items)
      return kfm_failf(c, opt, "%zu items: Trainer %s's TrainJob takes at most "
                       "%zu (trainer.%s maxItems %zu%s) (target %s)", v->u.c.n - skip,
                       ver, l->items - skip, l->key, l->items,
                       skip ? ", torchrun --no-python included" : "", tn);
    for (i = skip; max && i < v->u.c.n; i++)
      if (v->u.c.v[i]->t == KF_NSTR && v->u.c.v[i]->u.s.n > max) {
        char path[80];
        snprintf(path, sizeof path, "%s[%zu]", opt, i - skip + 1);
        return kfm_failf(c, path, "%zu characters: Trainer %s's TrainJob takes at "
                         "most %zu (trainer.%s items maxLength) (target %s)",
                         v->u.c.v[i]->u.s.n, ver, max, l->key, tn);
      }
  }
  return KF_OK;
}

/* The trainer's command, args and env: the one `node` container's, each
** the call's, else the group's container's, else the job's (R21 keeps the
** groups equal); from[k] says where command, args, env came from. */
static kf_status trainer_run(mctx *c, const kf_job *j, int role, const kfm_shared *sh,
                             kf_node *tr, char from[3][48]) {
  kf_arena *A = c->A;
  kf_strs cmd = kfm_role_command(j, role, sh->o, from[0], sizeof from[0]);
  kf_node *args, *env, *l;
  size_t i;
  kf_status st;
  int group;
  if ((st = kfm_role_args(c, j, role, sh, &args, from[1], sizeof from[1])) != KF_OK ||
      (st = kfm_role_env(c, j, role, sh, &env)) != KF_OK)
    return st;
  if (args && args->u.c.n == 0) args = NULL;
  if (cmd.n || (args && kf_trainer_wraps(j, cmd.v, cmd.n))) {
    /* torchrun starts one process per numProcPerNode and sets RANK,
    ** WORLD_SIZE, MASTER_ADDR from the PET_* variables Trainer injects; a
    ** command that starts a launcher itself runs as written */
    KF_OOM(c, l = kf_obj_add(A, tr, "command", KF_NARR));
    if (kf_trainer_wraps(j, cmd.v, cmd.n))
      KF_OOM(c, kf_node_push(A, l, NULL, kf_node_str(A, "torchrun", 8)) &&
                 kf_node_push(A, l, NULL, kf_node_str(A, "--no-python", 11)));
    for (i = 0; i < cmd.n; i++)
      KF_OOM(c, kf_node_push(A, l, NULL, kf_node_str(A, cmd.v[i], strlen(cmd.v[i]))));
  }
  if (args) KF_OOM(c, kf_node_push(A, tr, "args", args));
  if (env) KF_OOM(c, kf_node_push(A, tr, "env", env));
  kfm_row_env(j, role, &group);
  if (sh->env) snprintf(from[2], sizeof from[2], "opts");
  else if (group) snprintf(from[2], sizeof from[2], "%.20s.container", kf_roles[role].key);
  else snprintf(from[2], sizeof from[2], "container");
  return KF_OK;
}

/* runtime_trainer: no spec.trainer, so the runtime's node job runs as it
** is (Trainer's plugins inject their node env only when it is set: torch.go,
** jax.go, xgboost.go EnforceMLPolicy).  What the job would put there is an
** error naming it; `tr` is spec's last key. */
static kf_status no_trainer(mctx *c, kf_node *spec, const kf_node *tr) {
  if (tr->u.c.n > 0)
    return kfm_failf(c, "runtime_trainer", "true writes no spec.trainer, but the job sets "
                     "what it would carry (spec.trainer.%s): leave that unset, or set "
                     "runtime_trainer = false", tr->u.c.k[0]);
  spec->u.c.n--;
  return KF_OK;
}

kf_status kfm_trainer(mctx *c, const kf_job *j, const kf_manifest_opts *o,
                      kf_target t, kf_node **out) {
  kf_arena *A = c->A;
  const int elastic = (kf_kinds[j->kind].flags & KF_K_ELASTIC) != 0;
  /* the group whose image and resources every node gets (R21: equal) */
  const int role = kf_trainer_role(j);
  kf_group tmp;
  const kf_group *g = kfm_pod_group(j, role, o, &tmp);
  const char *image_path = j->g[role].image ? (role == KF_WORKER ? "worker.image" : "master.image")
                                            : o->image ? "opts.image" : "container.image";
  kfm_shared sh;
  kf_node *spec, *ref, *tr, *res;
  char from[3][48];
  const char *const fromp[3] = {from[0], from[1], from[2]};
  kf_status st;
  if ((st = kfm_prepare(c, j, o, KF_TRAINER_API, KF_TRAINER_KIND, &sh)) != KF_OK)
    return st;
  KF_OOM(c, spec = kf_obj_add(A, sh.root, "spec", KF_NOBJ));
  KF_OOM(c, ref = kf_obj_add(A, spec, "runtimeRef", KF_NOBJ));
  KF_OOM(c, kf_obj_str(A, ref, "apiGroup", KF_TRAINER_GROUP) &&
             kf_obj_str(A, ref, "kind", "ClusterTrainingRuntime") &&
             kf_obj_str(A, ref, "name", j->runtime ? j->runtime
                                                    : kf_kinds[j->kind].trainer_runtime));
  if (j->has_run_policy && j->rp.active_deadline_seconds > 0)
    KF_OOM(c, kf_obj_int(A, spec, "activeDeadlineSeconds", j->rp.active_deadline_seconds));
  KF_OOM(c, tr = kf_obj_add(A, spec, "trainer", KF_NOBJ));
  /* the group's container rows (image) as the Trainer's */
  if ((st = kfm_group_rows(c, g, KF_M_CONTAINER, kf_roles[role].key, tr, NULL)) != KF_OK)
    return st;
  if ((st = trainer_run(c, j, role, &sh, tr, from)) != KF_OK) return st;
  if (elastic) {
    if (kf_trainer_runtime_count(j) == NULL)
      KF_OOM(c, kf_obj_int(A, tr, "numNodes", j->max_nodes));
    /* "auto" is Trainer's default when numProcPerNode is unset; "cpu" and
    ** "gpu" are refused by R10's row before we get here */
    if (j->nproc_word == NULL)
      KF_OOM(c, kf_obj_int(A, tr, "numProcPerNode", j->nproc_per_node));
  } else {
    kf_strs cmd = kfm_role_command(j, role, o, from[0], sizeof from[0]);
    /* runtime_nodes (or runtime_trainer): left out, the runtime's
    ** mlPolicy.numNodes */
    if (kf_trainer_runtime_count(j) == NULL)
      KF_OOM(c, kf_obj_int(A, tr, "numNodes", kf_trainer_nodes(j)));
    /* nproc_per_node, "auto" unset (R39); unset: one process a pod, but
    ** a launcher the command starts takes the runtime's (auto); with
    ** runtime_trainer, unset is the runtime's command's own count */
    if (j->nproc_word == NULL &&
        (j->nproc_per_node > 0 || (!j->runtime_trainer && kf_trainer_wraps(j, cmd.v, cmd.n))))
      KF_OOM(c, kf_obj_int(A, tr, "numProcPerNode",
                        j->nproc_per_node > 0 ? j->nproc_per_node : 1));
  }
  if ((st = kfm_group_rows(c, g, KF_M_RESOURCES, kf_roles[role].key, tr,
                           "resourcesPerNode")) != KF_OK)
    return st;
  res = kf_node_get(tr, "resourcesPerNode");
  if (res && res->u.c.n == 0) tr->u.c.n--;   /* no resources: leave it out */
  if (j->runtime_trainer && (st = no_trainer(c, spec, tr)) != KF_OK) return st;
  if ((st = runtime_patches(c, j, role, t, &sh, spec)) != KF_OK) return st;
  if ((st = check_trainer_limits(c, t, tr, image_path, fromp)) != KF_OK) return st;
  *out = sh.root;
  return KF_OK;
}

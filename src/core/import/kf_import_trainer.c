/*
** kf_import_trainer.c - a TrainJob (trainer.kubeflow.org/v1alpha1) on the
** shipped torch-distributed runtime read back (the inverse of
** kube/kf_manifest_trainer.c, FACTS §8.4.4): numNodes is master + workers
** (one process a node) or, read as Elastic, the fixed node count; the task
** command is what follows `torchrun --no-python`; kfjob's runtime patch of
** the `node` job is the pod template.
*/
#include <stdint.h>
#include <string.h>

#include "kf_pod.h"
#include "kf_import_int.h"
#include "kf_launcher.h"
#include "kf_qty.h"


static kf_status runtime_ref(kfi *c, const kf_node *ref) {
  static const char *const known[] = {"apiGroup", "kind", "name", NULL};
  const char *g = kfi_str(kf_node_get(ref, "apiGroup"));
  const char *k = kfi_str(kf_node_get(ref, "kind"));
  const char *n = kfi_str(kf_node_get(ref, "name"));
  kf_status st;
  if ((st = kfi_want(c, "spec.runtimeRef", ref, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, "spec.runtimeRef", ref, known, NULL, NULL)) != KF_OK)
    return st;
  if ((kf_node_get(ref, "apiGroup") && (!g || strcmp(g, KF_TRAINER_GROUP) != 0)) ||
      (kf_node_get(ref, "kind") && (!k || strcmp(k, "ClusterTrainingRuntime") != 0)) || !n)
    /* an error under lossy too: left out, the job would name another
    ** runtime (the kind's ClusterTrainingRuntime), a value replaced */
    return kfi_fail(c, "spec.runtimeRef", "kfjob reads TrainJobs on a ClusterTrainingRuntime "
                    "(apiGroup trainer.kubeflow.org), got kind '%.60s', apiGroup '%.60s'%s "
                    "(not left out under --lossy: the job would run on another runtime)",
                    k ? k : kf_node_get(ref, "kind") ? "(not a string)" : "ClusterTrainingRuntime",
                    g ? g : kf_node_get(ref, "apiGroup") ? "(not a string)" : KF_TRAINER_GROUP,
                    n ? "" : ", no name");
  /* the job's runtime; unset: the one Trainer ships for the kind */
  if (strcmp(n, kf_kinds[c->kind].trainer_runtime) != 0)
    KF_OOM(c, kf_node_push(c->A, c->spec, "runtime", kf_node_get(ref, "name")));
  return KF_OK;
}

/* The CPU count of quantity s rounded up (Quantity.Value()), through the
** quantity parser kfjob reads every quantity with: "4", "+3", "2.5",
** "700m"; 0 for a form this does not count (malformed, or more than
** 100000000). */
static long long cpu_count(const char *s) {
  kf_qty q;
  int64_t n;
  if (s == NULL || !kf_quantity_ok(s, strlen(s)) || kf_qty_parse(s, &q) != 0) return 0;
  n = kf_qty_units(&q, 100000000);
  return n < 0 ? 0 : (long long)n;
}

/* Whether a resource name of requests or limits holds "gpu"
** (runtime.GetNumGPUPerNode). */
static int gpu_in(const kf_node *r) {
  static const char *const kinds[] = {"requests", "limits"};
  size_t k, i;
  for (k = 0; k < 2; k++) {
    const kf_node *m = kf_node_get(r, kinds[k]);
    for (i = 0; m && m->t == KF_NOBJ && i < m->u.c.n; i++)
      if (strstr(m->u.c.k[i], "gpu")) return 1;
  }
  return 0;
}

/* The processes a node Trainer's torch plugin starts (torch.go
** EnforceMLPolicy, FACTS 11.5.4): numProcPerNode, else "auto" with a GPU
** resource, else the CPU request (else limit) rounded up, at least 1.
** NULL: a CPU quantity cpu_count does not count. */
static kf_node *torch_nproc(kfi *c, const kf_node *tr) {
  const kf_node *np = kf_node_get(tr, "numProcPerNode"), *r = kf_node_get(tr, "resourcesPerNode");
  const kf_node *cpu = kf_node_get(kf_node_get(r, "requests"), "cpu");
  long long n = 1;
  if (np) return (kf_node *)np;
  if (gpu_in(r)) return kf_node_str(c->A, "auto", 4);
  if (cpu == NULL) cpu = kf_node_get(kf_node_get(r, "limits"), "cpu");
  if (cpu && (n = cpu->t == KF_NINT ? cpu->u.i : cpu_count(kfi_str(cpu))) < 1) return NULL;
  return kf_node_int(c->A, n);
}

/* Migrating to a target that runs the command as written (keep_launcher):
** a command that starts a launcher (`torchrun train.py`, or kfjob's
** wrapper `torchrun --no-python X` of more than one process a node, then
** kept as written) gets the processes a node Trainer ran as
** nproc_per_node, so the operator's torchrun starts as many (it reads
** PET_NPROC_PER_NODE, which the operator sets from spec.nprocPerNode,
** "auto" when unset: envvar.go setPodEnv).  A launcher's "auto" (a GPU)
** is the operator's default: left unset. */
static kf_status keep_launcher(kfi *c, const kf_node *tr, int wrapped, int *out) {
  kf_node *np = torch_nproc(c, tr);
  if (np == NULL)
    return kfi_fail(c, "spec.trainer.resourcesPerNode", "a CPU quantity kfjob cannot count: "
                    "the processes a node the runtime starts are unknown (set "
                    "spec.trainer.numProcPerNode)");
  if (!wrapped && np->t != KF_NINT) return KF_OK;   /* auto: the operator's default */
  if (wrapped && np->t == KF_NINT && np->u.i == 1) return KF_OK;   /* one a pod: the PyTorchJob's */
  c->kept_nproc = np;
  *out = 1;
  return KF_OK;
}

/* The command and numProcPerNode run as written (kf_trainer_wraps): a
** runtime of the job's own, or on torch-distributed a trainer whose
** command kfjob's wrapper would change (neither `torchrun --no-python`
** nor a launcher, or args without a command); the job then names the
** runtime so it is written back as read. */
static kf_status as_written(kfi *c, const kf_node *tr, int *out) {
  const kf_node *cmd = kf_node_get(tr, "command"), *args = kf_node_get(tr, "args");
  const char *v[3] = {NULL, NULL, NULL};
  size_t i, n = cmd && cmd->t == KF_NARR ? cmd->u.c.n : 0;
  int wrapped, launcher;
  /* JAX and XGBoost: always (their runtimes take the command as it is) */
  if (kf_node_get(c->spec, "runtime") || !kf_trainer_wraps_kind(c->kind)) return *out = 1, KF_OK;
  for (i = 0; i < n && i < 3; i++) v[i] = kfi_str(cmd->u.c.v[i]);
  wrapped = n >= 2 && v[0] && v[1] && strcmp(v[0], "torchrun") == 0 &&
            strcmp(v[1], "--no-python") == 0;
  launcher = n && !wrapped && kf_starts_launcher(v, n < 3 ? n : 3);
  *out = n ? !wrapped && !launcher : args && args->t == KF_NARR && args->u.c.n > 0;
  if (*out) KF_OOM(c, kf_obj_strref(c->A, c->spec, "runtime", kf_kinds[c->kind].trainer_runtime));
  else *out = launcher;   /* a launcher: as written too */
  if ((wrapped || launcher) && c->keep_launcher && c->kind == KF_PYTORCH)
    return keep_launcher(c, tr, wrapped, out);
  return KF_OK;
}

/* The job's container (c->spec's, made on first use). */
static kf_node *job_container(kfi *c) {
  kf_node *ct = (kf_node *)kf_node_get(c->spec, "container");
  return ct ? ct : kf_obj_add(c->A, c->spec, "container", KF_NOBJ);
}

/* key = v in the job's container and in info's (`info`). */
static kf_status put_both(kfi *c, const char *key, kf_node *v, int info) {
  kf_node *ct;
  KF_OOM(c, ct = job_container(c));
  KF_OOM(c, kf_node_push(c->A, ct, key, v));
  if (info) KF_OOM(c, kf_node_push(c->A, c->ct, key, v));
  return KF_OK;
}

/* trainer.command: kfjob's `torchrun --no-python` and the task's command,
** or (`written`) the command as written. */
static kf_status command(kfi *c, const kf_node *cmd, int written) {
  kf_status st = kfi_strings(c, "spec.trainer.command", cmd);
  kf_node *l;
  size_t i;
  if (st != KF_OK) return st;
  if (written) return cmd->u.c.n ? put_both(c, "command", (kf_node *)cmd, 1) : KF_OK;
  if (cmd->u.c.n == 0 || cmd->u.c.n == 2) return KF_OK;   /* []: as absent (omitempty) */
  KF_OOM(c, l = kf_node_new(c->A, KF_NARR));
  for (i = 2; i < cmd->u.c.n; i++) KF_OOM(c, kf_node_push(c->A, l, NULL, cmd->u.c.v[i]));
  return put_both(c, "command", l, 1);
}

/* trainer.env: corev1.EnvVars (trainjob_types.go), every one the job's;
** info's as a table when one holds it. */
static kf_status env(kfi *c, const kf_node *env) {
  kf_node *v;
  int map;
  kf_status st;
  if ((st = kfi_want(c, "spec.trainer.env", env, KF_NARR)) != KF_OK ||
      (st = kfi_env_check(c, "spec.trainer.env", env)) != KF_OK)
    return st;
  if (env->u.c.n == 0) return KF_OK;
  KF_OOM(c, v = kfi_env_form(c, env, &map));
  return put_both(c, "env", v, map);
}

/* numProcPerNode is an int32 in the TrainJob CRD since Trainer v2.2
** (Trainer.NumProcPerNode *int32; v2.0/v2.1 took `auto`, `cpu`, `gpu`), and
** processes per node are at least 1 (v2.4's CEL `self >= 1`). */
static kf_status nproc_check(kfi *c, const kf_node *np) {
  const char *s = kfi_str(np);
  if (np == NULL || (np->t == KF_NINT && np->u.i >= 1 && np->u.i <= INT32_MAX)) return KF_OK;
  if (s)
    return kfi_fail(c, "spec.trainer.numProcPerNode", "expected an integer >= 1, got '%.40s' "
                    "(an int32 in the TrainJob CRD since Trainer v2.2; leave the field out "
                    "for the runtime's auto)", s);
  return kfi_fail(c, "spec.trainer.numProcPerNode", "expected an integer >= 1 "
                  "(an int32 in the TrainJob CRD)");
}

/* numNodes left out: the runtime's mlPolicy.numNodes, which the job keeps
** as runtime_nodes (written back without numNodes).  Every runtime
** Trainer ships says 1 (manifests/base/runtimes), the count the job holds
** for the other targets; another runtime's count is unknown, so a target
** that needs one (keep_launcher: the operator's, Flyte's) is refused.
** `keep`: 0 checks only (runtime_trainer already means the runtime's). */
static kf_status runtime_nodes(kfi *c, int keep) {
  static const char *const shipped[] = {"torch-distributed", "deepspeed-distributed",
      "mlx-distributed", "jax-distributed", "xgboost-distributed", "torchtune-llama3.2-1b",
      "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b", NULL};
  const char *rt = kfi_str(kf_node_get(c->spec, "runtime"));
  kf_node *yes;
  size_t i;
  for (i = 0; rt && shipped[i] && strcmp(rt, shipped[i]) != 0; i++) {}
  if (rt && !shipped[i] && c->keep_launcher)
    return kfi_fail(c, "spec.trainer.numNodes", "unset: the node count is runtime '%.100s''s "
                    "mlPolicy.numNodes, which kfjob does not know (not a runtime Trainer "
                    "ships); set spec.trainer.numNodes to migrate the job", rt);
  if (!keep) return KF_OK;
  KF_OOM(c, yes = kf_node_new(c->A, KF_NBOOL));
  yes->u.b = 1;
  return kf_node_push(c->A, c->spec, "runtime_nodes", yes) ? KF_OK : kf_nomem(c->e);
}

/* Nodes and processes: master + workers (JAX: workers), or Elastic's
** fixed count.  A PyTorchJob's numProcPerNode: 1 is kfjob's one process a
** pod for a command it wraps; unset there is the runtime's auto (nproc_per_node
** "auto"); a command that starts its own launcher keeps what is given.
** `absent`: no spec.trainer (runtime_trainer), whose count and processes
** are the runtime's: neither is held. */
static kf_status nodes(kfi *c, const kf_node *tr, kf_node *g, int written, int absent) {
  const kf_node *nn = kf_node_get(tr, "numNodes"), *np = kf_node_get(tr, "numProcPerNode");
  kf_node *m;
  kf_status st;
  /* Trainer v2.4's CRD takes 0 (trainjob_types.go Minimum=0, trainer#3809):
  ** a TrainJob of no node, which no kfjob job is */
  if (nn && nn->t == KF_NINT && nn->u.i == 0)
    return kfi_fail(c, "spec.trainer.numNodes", "0: a TrainJob of no node runs no pod, and every "
                    "kfjob job runs at least one (Trainer v2.4 takes 0; give the number of nodes "
                    "to run)");
  if (nn && (nn->t != KF_NINT || nn->u.i < 1))
    return kfi_fail(c, "spec.trainer.numNodes", "expected an integer >= 1");
  if ((st = nproc_check(c, np)) != KF_OK) return st;
  if (nn == NULL && (st = runtime_nodes(c, !absent)) != KF_OK) return st;
  if (c->kind == KF_ELASTIC) {
    if (nn) KF_OOM(c, kf_node_push(c->A, c->spec, "nnodes", (kf_node *)nn));
    if (np) KF_OOM(c, kf_node_push(c->A, c->spec, "nproc_per_node", (kf_node *)np));
    else if (!absent) KF_OOM(c, kf_obj_strref(c->A, c->spec, "nproc_per_node", "auto"));
    return kf_node_push(c->A, c->spec, "worker", g) ? KF_OK : kf_nomem(c->e);
  }
  /* lossy: left out and listed; the nodes, image, ... still read */
  if (np && !kf_trainer_wraps_kind(c->kind) &&
      (st = kfi_unmapped(c, "spec.trainer.numProcPerNode", np, "kfjob's JAXJob and "
                         "XGBoostJob have no processes per node")) != KF_OK)
    return st;
  if (c->kind == KF_JAX) {   /* workers only */
    KF_OOM(c, kf_obj_int(c->A, g, "replicas", nn ? nn->u.i : 1));
    return kf_node_push(c->A, c->spec, "worker", g) ? KF_OK : kf_nomem(c->e);
  }
  if (kf_trainer_wraps_kind(c->kind) && !absent) {
    if (np && (written || !(np->t == KF_NINT && np->u.i == 1)))
      KF_OOM(c, kf_node_push(c->A, c->spec, "nproc_per_node", (kf_node *)np));
    else if (np == NULL && c->kept_nproc)
      KF_OOM(c, kf_node_push(c->A, c->spec, "nproc_per_node", (kf_node *)c->kept_nproc));
    else if (np == NULL && !written)
      KF_OOM(c, kf_obj_strref(c->A, c->spec, "nproc_per_node", "auto"));
  }
  KF_OOM(c, m = kf_node_copy_shallow(c->A, g, KF_NOBJ));
  KF_OOM(c, kf_node_push(c->A, c->spec, "master", m));
  if (nn && nn->u.i > 1) {
    KF_OOM(c, kf_obj_int(c->A, g, "replicas", nn->u.i - 1));
    KF_OOM(c, kf_node_push(c->A, c->spec, "worker", g));
  }
  return KF_OK;
}

/* spec.trainer's keys: the group rows placed in the container (image,
** ...; args are the task's), then the Trainer's own. */
static void trainer_keys(const char **known) {
  static const char *const own[] = {"command", "args", "env", "numNodes", "numProcPerNode",
                                    "resourcesPerNode", NULL};
  size_t r, n = 0, i;
  for (r = 0; r < kf_group_obj.n; r++)
    if (kfi_container_row(kf_group_obj.f[r].manifest ? kf_group_obj.f[r].manifest : "") == (int)r)
      known[n++] = kf_group_obj.f[r].manifest;
  for (i = 0; own[i]; i++) known[n++] = own[i];
  known[n] = NULL;
}

/* spec.trainer `tr` (`absent`: an empty one, the TrainJob has none). */
static kf_status trainer(kfi *c, const kf_node *tr, int absent) {
  const char *known[KFI_GROUP_ROWS + 8];
  kfi_pod res;
  const kf_node *v;
  kf_node *g;
  size_t r;
  int written;
  kf_status st;
  memset(&res, 0, sizeof res);
  trainer_keys(known);
  if ((st = kfi_want(c, "spec.trainer", tr, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, "spec.trainer", tr, known, NULL, NULL)) != KF_OK)
    return st;
  if ((st = as_written(c, tr, &written)) != KF_OK) return st;
  if ((v = kf_node_get(tr, "command")) && (st = command(c, v, written)) != KF_OK) return st;
  if ((v = kf_node_get(tr, "args")) &&
      ((st = kfi_strings(c, "spec.trainer.args", v)) != KF_OK ||
       (v->u.c.n && (st = put_both(c, "args", (kf_node *)v, 1)) != KF_OK)))
    return st;
  if ((v = kf_node_get(tr, "env")) && (st = env(c, v)) != KF_OK) return st;
  c->pod_gpu = kf_node_get(kf_node_get(kf_node_get(tr, "resourcesPerNode"), "limits"),
                           KF_GPU_RESOURCE) != NULL;
  if ((v = kf_node_get(tr, "resourcesPerNode")) &&
      (st = kfi_resources(c, "spec.trainer.resourcesPerNode", v, &res)) != KF_OK)
    return st;
  KF_OOM(c, g = kf_node_new(c->A, KF_NOBJ));
  /* the node job's image (...): every group's (job fields, as the v1 readers') */
  for (r = 0; r < kf_group_obj.n; r++)
    if (kf_group_obj.f[r].manifest && kfi_container_row(kf_group_obj.f[r].manifest) == (int)r &&
        (v = kf_node_get(tr, kf_group_obj.f[r].manifest)))
      KF_OOM(c, kf_node_push(c->A, g, kf_group_obj.f[r].key, (kf_node *)v));
  if (res.requests) KF_OOM(c, kf_node_push(c->A, g, "requests", res.requests));
  if (res.limits) KF_OOM(c, kf_node_push(c->A, g, "limits", res.limits));
  return nodes(c, tr, g, written, absent);
}

/* Every level of kfjob's patch down to the node job's pod template holds
** only the key on the way (kf_manifest_trainer.c runtime_patches); the
** JobSet's and the Job's metadata (labels, annotations) and anything else
** there would be lost in the job: refused (lossy: listed), by path. */
static kf_status patch_levels(kfi *c, const kf_node *p) {
  static const struct { const char *path, *key, *also; } lv[] = {
      {"spec.runtimePatches[0]", "trainingRuntimeSpec", "manager"},
      {"spec.runtimePatches[0].trainingRuntimeSpec", "template", NULL},
      {"spec.runtimePatches[0].trainingRuntimeSpec.template", "spec", NULL},
      {"spec.runtimePatches[0].trainingRuntimeSpec.template.spec", "replicatedJobs", NULL},
      {"spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]",
       "template", "name"},
      {"spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template",
       "spec", NULL},
      {"spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template."
       "spec", "template", NULL}};
  static const char *const held_not[] = {"metadata", NULL};
  size_t i;
  kf_status st;
  for (i = 0; p && i < sizeof lv / sizeof *lv; i++) {
    const char *known[3];
    known[0] = lv[i].key, known[1] = lv[i].also, known[2] = NULL;
    if ((st = kfi_want(c, lv[i].path, p, KF_NOBJ)) != KF_OK ||
        (st = kfi_keys(c, lv[i].path, p, known, held_not, NULL)) != KF_OK)
      return st;
    p = kf_node_get(p, lv[i].key);
    if (p && p->t == KF_NARR) p = p->u.c.n ? p->u.c.v[0] : NULL;   /* replicatedJobs */
  }
  return KF_OK;
}

/* The patch's group rows placed in the pod spec (KF_M_POD): the node
** job's, so every group's (as the spec.trainer rows, nodes()). */
static kf_status pod_rows(kfi *c, const kfi_pod *pod) {
  static const char *const groups[] = {"master", "worker"};
  size_t r;
  int i;
  for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++) {
    if (pod->own[r] == NULL || kf_group_obj.f[r].place != KF_M_POD) continue;
    for (i = 0; i < 2; i++) {
      kf_node *g = (kf_node *)kf_node_get(c->spec, groups[i]);
      if (g && g->t == KF_NOBJ)
        KF_OOM(c, kf_node_push(c->A, g, kf_group_obj.f[r].key, (kf_node *)pod->own[r]));
    }
  }
  return KF_OK;
}

/* The patch's manager (any domain-prefixed path, as Trainer's webhook
** takes: apimachinery validation.go IsDomainPrefixedPath) kept as
** runtime_patch_manager so the patch is written back under it. */
static kf_status patch_manager(kfi *c, const kf_node *mn) {
  const char *m = kfi_str(mn);
  if (!kf_check_ok(KF_CHECK_DOMAIN_PATH, m))
    return kfi_fail(c, "spec.runtimePatches[0].manager", "'%.100s' is not %s", m,
                    kf_checks[KF_CHECK_DOMAIN_PATH].what);
  if (strcmp(m, KF_TRAINER_PATCH_MANAGER) == 0) return KF_OK;
  KF_OOM(c, kf_node_push(c->A, c->spec, "runtime_patch_manager", (kf_node *)mn));
  return KF_OK;
}

/* One runtime patch of the `node` job's pod template, whoever manages
** it.  Several (each its own manager) apply in turn over the runtime,
** which the job's one pod template cannot keep apart: refused. */
static kf_status patches(kfi *c, const kf_node *l, kf_node *master_or_worker[2]) {
  const kf_node *p, *rj, *t;
  kfi_pod pod;
  kf_status st;
  if ((st = kfi_want(c, "spec.runtimePatches", l, KF_NARR)) != KF_OK) return st;
  if (l->u.c.n > 1)
    return kfi_unmapped(c, "spec.runtimePatches", l, "kfjob holds one runtime patch: "
                        "several (one a manager) apply in turn, which the job's one pod "
                        "template cannot keep apart");
  p = l->u.c.n == 1 ? l->u.c.v[0] : NULL;
  rj = kf_node_get(kf_node_get(kf_node_get(kf_node_get(p, "trainingRuntimeSpec"),
                                           "template"), "spec"), "replicatedJobs");
  t = rj && rj->t == KF_NARR && rj->u.c.n == 1 ? rj->u.c.v[0] : NULL;
  if (!p || !kfi_str(kf_node_get(p, "manager")) || p->u.c.n != 2 ||
      !t || !kfi_str(kf_node_get(t, "name")) || strcmp(kfi_str(kf_node_get(t, "name")), KF_TRAINER_NODE) != 0)
    return kfi_unmapped(c, "spec.runtimePatches", l, "kfjob reads one patch (a manager "
                        "and trainingRuntimeSpec) of the node job alone");
  if ((st = patch_manager(c, kf_node_get(p, "manager"))) != KF_OK) return st;
  if ((st = patch_levels(c, p)) != KF_OK) return st;
  t = kf_node_get(kf_node_get(kf_node_get(t, "template"), "spec"), "template");
  if (t == NULL) return KF_OK;
  if ((st = kfi_pod_read(c, "spec.runtimePatches[0].trainingRuntimeSpec.template.spec."
                         "replicatedJobs[0].template.spec.template", t, KF_TRAINER_NODE, &pod)) != KF_OK)
    return st;
  /* the patch's node container takes no env (Trainer's ContainerPatch) */
  if (pod.env && (st = kfi_unmapped(c, "spec.runtimePatches[0].trainingRuntimeSpec.template.spec."
                                    "replicatedJobs[0].template.spec.template.spec.containers",
                                    pod.env, "a runtime patch of the node container has no "
                                    "env: the task's env is spec.trainer.env")) != KF_OK)
    return st;
  if ((st = pod_rows(c, &pod)) != KF_OK) return st;
  if (pod.tmpl) KF_OOM(c, kf_node_push(c->A, c->spec, "pod_template", pod.tmpl));
  if (pod.shm) KF_OOM(c, kf_node_push(c->A, c->spec, "shared_memory", (kf_node *)pod.shm));
  if (pod.accel) KF_OOM(c, kf_node_push(c->A, c->spec, "accelerator", pod.accel));
  (void)master_or_worker;
  return KF_OK;
}

kf_status kfi_trainer(kfi *c, const kf_node *spec) {
  static const char *const known[] = {"runtimeRef", "trainer", "activeDeadlineSeconds",
                                      "runtimePatches", "suspend", "managedBy", NULL};
  static const char *const held_not[] = {"labels", "annotations",
                                         "initializer", "podTemplateOverrides",
                                         "podSpecOverrides", NULL};
  const kf_node *v;
  kf_status st;
  if ((st = kfi_keys(c, "spec", spec, known, held_not, NULL)) != KF_OK ||
      (st = kfi_sched_flags(c, "spec", spec)) != KF_OK)
    return st;
  if ((v = kf_node_get(spec, "runtimeRef")) == NULL)
    return kfi_fail(c, "spec.runtimeRef", "required");
  if ((st = runtime_ref(c, v)) != KF_OK) return st;
  if ((v = kf_node_get(spec, "activeDeadlineSeconds"))) {
    kf_node *rp;
    KF_OOM(c, rp = kf_obj_add(c->A, c->spec, "run_policy", KF_NOBJ));
    KF_OOM(c, kf_node_push(c->A, rp, "active_deadline_seconds", (kf_node *)v));
  }
  /* Trainer *Trainer is +optional (trainjob_types.go): without it the
  ** runtime's node job runs as it is, and the torch, jax and xgboost
  ** plugins' EnforceMLPolicy inject no node env: runtime_trainer, read as
  ** an empty trainer would be (the runtime's count, image, command) */
  if ((v = kf_node_get(spec, "trainer")) == NULL) {
    kf_node *none, *yes;
    KF_OOM(c, (none = kf_node_new(c->A, KF_NOBJ)) && (yes = kf_node_new(c->A, KF_NBOOL)));
    yes->u.b = 1;
    if ((st = trainer(c, none, 1)) != KF_OK) return st;
    KF_OOM(c, kf_node_push(c->A, c->spec, "runtime_trainer", yes));
  } else if ((st = trainer(c, v, 0)) != KF_OK) {
    return st;
  }
  if ((v = kf_node_get(spec, "runtimePatches")) && (st = patches(c, v, NULL)) != KF_OK)
    return st;
  return KF_OK;
}

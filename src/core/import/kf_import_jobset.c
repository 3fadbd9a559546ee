/*
** kf_import_jobset.c - the JobSet of a Flyte 2 clustered task (target
** flyte2-clustered, kube/kf_manifest_clustered.c; flyte clustered/build.go)
** read back: checked for that shape, then seen as the kubeflow.org/v1
** PyTorchJob it stands for (an Elastic job of `parallelism` nodes, or with
** kind PyTorchJob a master and parallelism - 1 workers), which the v1
** reader takes; the plugin's variables, subdomain and annotations are the
** backend's and are dropped; the pod's resources are the task's.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_import_int.h"

#define JS_POD "spec.replicatedJobs[0].template.spec.template"

/* o without keys `drop` (a copy; NULL-ended list). */
static kf_node *without(kf_arena *A, const kf_node *o, const char *const *drop) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  size_t i;
  int k, skip;
  for (i = 0; d && o && o->t == KF_NOBJ && i < o->u.c.n; i++) {
    for (k = 0, skip = 0; drop[k] && !skip; k++) skip = strcmp(o->u.c.k[i], drop[k]) == 0;
    if (!skip && !kf_node_push(A, d, o->u.c.k[i], o->u.c.v[i])) return NULL;
  }
  return d;
}

/* The env of the pod's task container (containers[at]) without the
** plugin's variables; *vars gets those (name -> value). */
static kf_status split_env(kfi *c, kf_node *ct, size_t at, kf_node *vars) {
  const kf_node *env = kf_node_get(ct, "env");
  kf_node *mine;
  size_t i;
  char path[96];
  if (env == NULL) return KF_OK;
  snprintf(path, sizeof path, JS_POD ".spec.containers[%zu].env", at);
  if (env->t != KF_NARR) return kfi_want(c, path, env, KF_NARR);
  KF_OOM(c, mine = kf_node_new(c->A, KF_NARR));
  for (i = 0; i < env->u.c.n; i++) {
    const char *n = kfi_str(kf_node_get(env->u.c.v[i], "name"));
    if (n && kf_clustered_backend_var(n)) {
      const kf_node *v = kf_node_get(env->u.c.v[i], "value");
      if (v) KF_OOM(c, kf_node_push(c->A, vars, n, (kf_node *)v));
      continue;
    }
    KF_OOM(c, kf_node_push(c->A, mine, NULL, env->u.c.v[i]));
  }
  if (mine->u.c.n) return kf_node_put(c->A, ct, "env", mine) ? KF_OK : kf_nomem(c->e);
  ct->u.c.n = 0;   /* rebuilt below without env */
  return KF_OK;
}

static long int_of(const kf_node *n, long dflt) {
  return n && n->t == KF_NINT ? (long)n->u.i : dflt;
}

/* spec.replicatedJobs: one `workers` job of replicas 1, an Indexed Job. */
static kf_status one_job(kfi *c, const kf_node *spec, const kf_node **job) {
  const kf_node *rjs = kf_node_get(spec, "replicatedJobs"), *rj, *js;
  if (rjs == NULL || rjs->t != KF_NARR || rjs->u.c.n != 1)
    return kfi_fail(c, "spec.replicatedJobs", "a clustered task's JobSet has one "
                    "replicated job 'workers'");
  rj = rjs->u.c.v[0];
  if (!kfi_str(kf_node_get(rj, "name")) || strcmp(kfi_str(kf_node_get(rj, "name")), "workers") ||
      int_of(kf_node_get(rj, "replicas"), 1) != 1)
    return kfi_fail(c, "spec.replicatedJobs[0]", "expected name 'workers' and replicas 1 "
                    "(flyte clustered/build.go)");
  js = kf_node_get(kf_node_get(rj, "template"), "spec");
  if (js == NULL || js->t != KF_NOBJ)
    return kfi_fail(c, "spec.replicatedJobs[0].template.spec", "required");
  if (int_of(kf_node_get(js, "parallelism"), -1) != int_of(kf_node_get(js, "completions"), -2) ||
      int_of(kf_node_get(js, "parallelism"), 0) < 1)
    return kfi_fail(c, "spec.replicatedJobs[0].template.spec.parallelism", "expected "
                    "parallelism = completions >= 1 (the task's replicas)");
  *job = js;
  return KF_OK;
}

/* The plugin's NPROC_PER_NODE (a positive integer; none: 1) and
** RDZV_BACKEND; read as a PyTorchJob (--kind), only what a PyTorchJob's
** JobSet has (1, static): else it would run something else. */
static kf_status plugin_vars(kfi *c, const kf_node *vars, size_t at, long *nproc,
                             const char **rdzv) {
  const char *np = kfi_str(kf_node_get(vars, "NPROC_PER_NODE"));
  char *end = NULL, path[96];
  *rdzv = kfi_str(kf_node_get(vars, "RDZV_BACKEND"));
  *nproc = np ? strtol(np, &end, 10) : 1;
  snprintf(path, sizeof path, JS_POD ".spec.containers[%zu].env.NPROC_PER_NODE", at);
  if (np && (end == np || *end != '\0' || *nproc < 1 || *nproc > INT32_MAX))
    return kfi_fail(c, path, "'%.40s' is not a positive integer", np);
  path[strlen(path) - strlen(".NPROC_PER_NODE")] = '\0';   /* the env */
  if (c->kind != KF_ELASTIC && (*nproc != 1 || (*rdzv && strcmp(*rdzv, "static") != 0)))
    return kfi_fail(c, path, "NPROC_PER_NODE %ld and "
                    "RDZV_BACKEND %.20s are an Elastic job's: as a %s it would run one "
                    "process per node with static rendezvous (read it as Elastic)", *nproc,
                    *rdzv ? *rdzv : "(none)", kf_kinds[c->kind].name);
  return KF_OK;
}

/* The task container: the one annotation flyte.org/primary-container names
** (flyte clustered/build.go writes it), else the first. */
static kf_status primary_of(kfi *c, const kf_node *meta, const kf_node *cs, size_t *at) {
  const char *want = kfi_str(kf_node_get(kf_node_get(meta, "annotations"),
                                         "flyte.org/primary-container"));
  for (*at = 0; want && *at < cs->u.c.n; (*at)++)
    if (kfi_str(kf_node_get(cs->u.c.v[*at], "name")) &&
        strcmp(kfi_str(kf_node_get(cs->u.c.v[*at], "name")), want) == 0)
      return KF_OK;
  if (want == NULL) return *at = 0, KF_OK;
  return kfi_fail(c, "metadata.annotations.flyte.org/primary-container", "'%.60s' names "
                  "no container of the pod (" JS_POD ".spec.containers)", want);
}

/* The task container as the v1 reader takes it: its name is the backend's
** (kfjob's writer names it after the kind), so it reads as the kind's. */
static kf_status task_container(kfi *c, const kf_node *src, kf_node *vars, size_t at,
                                kf_node **out) {
  kf_node *ct;
  kf_status st;
  char path[96];
  snprintf(path, sizeof path, JS_POD ".spec.containers[%zu]", at);
  if ((st = kfi_want(c, path, src, KF_NOBJ)) != KF_OK) return st;
  KF_OOM(c, ct = kf_node_copy_shallow(c->A, src, KF_NOBJ));
  if ((st = split_env(c, ct, at, vars)) != KF_OK) return st;
  if (ct->u.c.n == 0) {
    static const char *const env_drop[] = {"env", NULL};
    KF_OOM(c, ct = without(c->A, src, env_drop));
  }
  KF_OOM(c, kf_node_put(c->A, ct, "name", kf_node_str(c->A, kf_kinds[KF_PYTORCH].container,
                                                       strlen(kf_kinds[KF_PYTORCH].container))));
  *out = ct;
  return KF_OK;
}

/* The v1 PyTorchJob the JobSet stands for, into *out. */
kf_status kfi_jobset_doc(kfi *c, const kf_node *doc, kf_node **out) {
  static const char *const meta_drop[] = {"annotations", NULL};
  static const char *const an_drop[] = {"flyte.org/task-type", "flyte.org/primary-container",
                                        NULL};
  static const char *const pod_drop[] = {"subdomain", NULL};
  const kf_node *spec = kf_node_get(doc, "spec"), *js = NULL, *meta = kf_node_get(doc, "metadata");
  const kf_node *fp = kf_node_get(spec, "failurePolicy"), *ttl, *tmpl, *an;
  kf_node *d, *m, *s, *specs, *rs, *pod, *ps, *cs, *ct = NULL, *vars, *rp = NULL, *ep;
  long n, nproc = 1;
  size_t at;
  const char *rdzv;
  kf_status st;
  if (spec == NULL || spec->t != KF_NOBJ) return kfi_fail(c, "spec", "required");
  if ((st = one_job(c, spec, &js)) != KF_OK) return st;
  n = int_of(kf_node_get(js, "parallelism"), 1);
  tmpl = kf_node_get(js, "template");
  cs = (kf_node *)kf_node_get(kf_node_get(tmpl, "spec"), "containers");
  if (cs == NULL || cs->t != KF_NARR || cs->u.c.n == 0)
    return kfi_fail(c, JS_POD ".spec.containers", "required: the task's container");
  KF_OOM(c, vars = kf_node_new(c->A, KF_NOBJ));
  if ((st = primary_of(c, meta, cs, &at)) != KF_OK ||
      (st = task_container(c, cs->u.c.v[at], vars, at, &ct)) != KF_OK ||
      (st = plugin_vars(c, vars, at, &nproc, &rdzv)) != KF_OK)
    return st;
  /* the pod, without the backend's subdomain */
  KF_OOM(c, ps = without(c->A, kf_node_get(tmpl, "spec"), pod_drop));
  KF_OOM(c, cs = kf_node_copy_shallow(c->A, cs, KF_NARR));
  cs->u.c.v[at] = ct;
  KF_OOM(c, kf_node_put(c->A, ps, "containers", cs));
  KF_OOM(c, pod = kf_node_copy_shallow(c->A, tmpl, KF_NOBJ));
  KF_OOM(c, kf_node_put(c->A, pod, "spec", ps));
  /* the resource */
  KF_OOM(c, d = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, kf_obj_str(c->A, d, "apiVersion", "kubeflow.org/v1") &&
                 kf_obj_str(c->A, d, "kind", "PyTorchJob"));
  KF_OOM(c, m = without(c->A, meta, meta_drop));
  if ((an = kf_node_get(meta, "annotations")) != NULL) {
    kf_node *a2 = without(c->A, an, an_drop);
    KF_OOM(c, a2);
    if (a2->u.c.n) KF_OOM(c, kf_node_push(c->A, m, "annotations", a2));
  }
  KF_OOM(c, kf_node_push(c->A, d, "metadata", m));
  KF_OOM(c, s = kf_obj_add(c->A, d, "spec", KF_NOBJ));
  if ((fp && int_of(kf_node_get(fp, "maxRestarts"), 0) > 0) ||
      (ttl = kf_node_get(spec, "ttlSecondsAfterFinished")) != NULL) {
    KF_OOM(c, rp = kf_obj_add(c->A, s, "runPolicy", KF_NOBJ));
    if (fp && int_of(kf_node_get(fp, "maxRestarts"), 0) > 0)
      KF_OOM(c, kf_obj_int(c->A, rp, "backoffLimit", int_of(kf_node_get(fp, "maxRestarts"), 0)));
    if ((ttl = kf_node_get(spec, "ttlSecondsAfterFinished")) != NULL)
      KF_OOM(c, kf_node_push(c->A, rp, "ttlSecondsAfterFinished", (kf_node *)ttl));
  }
  if (c->kind == KF_ELASTIC) {
    KF_OOM(c, ep = kf_obj_add(c->A, s, "elasticPolicy", KF_NOBJ));
    /* c10d is the default, which the JobSet cannot tell given */
    KF_OOM(c, ((rdzv && !strcmp(rdzv, "c10d")) || kf_obj_str(c->A, ep, "rdzvBackend", "static")) &&
                   kf_obj_int(c->A, ep, "minReplicas", n) && kf_obj_int(c->A, ep, "maxReplicas", n) &&
                   kf_obj_int(c->A, ep, "nProcPerNode", nproc));
  }
  KF_OOM(c, specs = kf_obj_add(c->A, s, "pytorchReplicaSpecs", KF_NOBJ));
  if (c->kind != KF_ELASTIC) {
    KF_OOM(c, rs = kf_obj_add(c->A, specs, "Master", KF_NOBJ));
    KF_OOM(c, kf_obj_int(c->A, rs, "replicas", 1) && kf_obj_str(c->A, rs, "restartPolicy", "Never") &&
                   kf_node_push(c->A, rs, "template", pod));
  }
  if (c->kind == KF_ELASTIC || n > 1) {
    KF_OOM(c, rs = kf_obj_add(c->A, specs, "Worker", KF_NOBJ));
    KF_OOM(c, kf_obj_int(c->A, rs, "replicas", c->kind == KF_ELASTIC ? n : n - 1) &&
                   kf_obj_str(c->A, rs, "restartPolicy", "Never") &&
                   kf_node_push(c->A, rs, "template", pod));
  }
  *out = d;
  return KF_OK;
}

/* After the v1 reader: the group's image and resources are the task's
** container's (every pod comes from it); interconnect and
** restart_on_host_maintenance have no place in the JobSet of flyte main. */
kf_status kfi_jobset_finish(kfi *c) {
  static const char *const keys[] = {"requests", "limits", "image"};
  const char *const roles[] = {"worker", "master"};
  int r, k;
  for (r = 0; r < 2; r++) {
    kf_node *g = (kf_node *)kf_node_get(c->spec, roles[r]);
    for (k = 0; g && g->t == KF_NOBJ && k < 3; k++) {
      const kf_node *v = kf_node_get(g, keys[k]);
      size_t i, o = 0;
      if (v == NULL) continue;
      if (k == 2) {   /* the job's container.image */
        kf_node *ct = (kf_node *)kf_node_get(c->spec, "container");
        if (ct == NULL) KF_OOM(c, ct = kf_obj_add(c->A, c->spec, "container", KF_NOBJ));
        if (!kf_node_get(ct, "image")) KF_OOM(c, kf_node_put(c->A, ct, "image", (kf_node *)v));
      } else if (!kf_node_get(c->spec, keys[k])) {
        KF_OOM(c, kf_node_put(c->A, c->spec, keys[k], (kf_node *)v));
      }
      for (i = 0; i < g->u.c.n; i++)
        if (strcmp(g->u.c.k[i], keys[k]) != 0) g->u.c.k[o] = g->u.c.k[i], g->u.c.v[o++] = g->u.c.v[i];
      g->u.c.n = o;
    }
  }
  return KF_OK;
}

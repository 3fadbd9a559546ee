/*
** kf_import_spec.c - the spec of each target's resource read back: run
** policy and replica specs (kubeflow.org/v1, and v2beta1 for the
** mpi-operator; the inverse of kube/kf_manifest_{operator,mpi,common}.c),
** the launcher command flytekit builds (MPI, Horovod), and the TrainJob on
** torch-distributed (kube/kf_manifest_trainer.c).  Keys come from the
** schema's rows (`manifest`) where a row has one.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_launcher.h"
#include "kf_pod.h"
#include "kf_import_int.h"
#include "kf_sched.h"

/* ---- run policy ------------------------------------------------------- */

kf_status kfi_run_policy(kfi *c, const char *path, const kf_node *rp) {
  const char *known[12];
  char p[KFI_PATH];
  kf_node *o;
  size_t i, n = 0;
  kf_status st;
  for (i = 0; i < kf_run_policy_obj.n; i++)   /* the rows placed in it */
    if (kf_run_policy_obj.f[i].place == KF_M_RUN_POLICY)
      known[n++] = kf_run_policy_obj.f[i].manifest;
  known[n++] = "schedulingPolicy", known[n++] = "suspend", known[n++] = "managedBy";
  known[n] = NULL;
  if ((st = kfi_want(c, path, rp, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, rp, known, NULL, NULL)) != KF_OK ||
      (st = kfi_sched_flags(c, path, rp)) != KF_OK)
    return st;
  kfi_path(p, path, "schedulingPolicy");
  if (kf_node_get(rp, "schedulingPolicy") &&
      (st = kfi_sched_policy(c, p, kf_node_get(rp, "schedulingPolicy"))) != KF_OK)
    return st;
  KF_OOM(c, o = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < kf_run_policy_obj.n; i++) {
    const kf_field *f = &kf_run_policy_obj.f[i];
    const kf_node *v = f->place == KF_M_RUN_POLICY ? kf_node_get(rp, f->manifest) : NULL;
    if (v) KF_OOM(c, kf_node_push(c->A, o, f->key, (kf_node *)v));
  }
  if (o->u.c.n) KF_OOM(c, kf_node_push(c->A, c->spec, "run_policy", o));
  return KF_OK;
}

/* ---- the launcher command (kube/kf_manifest.c kfm_launcher_command) --- */

static const char *arg(const kf_node *a, size_t i) {
  return a && a->t == KF_NARR && i < a->u.c.n ? kfi_str(a->u.c.v[i]) : NULL;
}

/* How many leading items of `a` are mpirun's line (the writer's flags,
** kf_mpirun_flags) and its -np value (0: not one). */
static size_t mpirun_len(const kf_node *a) {
  size_t i;
  for (i = 0; kf_mpirun_flags[i]; i++) {
    const char *s = arg(a, i);
    if (s == NULL || strcmp(s, kf_mpirun_flags[i]) != 0) return 0;
  }
  return arg(a, i) ? i + 1 : 0;   /* the -np value */
}

static kf_node *tail(kf_arena *A, const kf_node *a, size_t from) {
  kf_node *l = kf_node_new(A, KF_NARR);
  size_t i;
  for (i = from; l && i < a->u.c.n; i++)
    if (!kf_node_push(A, l, NULL, a->u.c.v[i])) return NULL;
  return l;
}

/* ---- replica specs ---------------------------------------------------- */

typedef struct groups {
  int n;
  int role[KF_NROLES];
  kf_node *g[KF_NROLES];          /* each group in constructor shape */
  kfi_pod pod[KF_NROLES];
  char path[KF_NROLES][KFI_PATH]; /* of each container */
} groups;

/* The value of group row f from the replica spec at `path`, into group g:
** an elastic job's replicas are its nnodes'; the CRD also takes the
** restart policy ExitCode (training-operator common_types.go). */
static kf_status replica_value(kfi *c, const char *path, const kf_field *f,
                               const kf_node *v, kf_node *g) {
  char p[KFI_PATH];
  const char *rp = kfi_str(v);
  if (strcmp(f->manifest, "replicas") == 0 && (kf_kinds[c->kind].flags & KF_K_ELASTIC))
    return KF_OK;
  kfi_path(p, path, f->manifest);
  if (strcmp(f->manifest, "restartPolicy") == 0 && rp && strcmp(rp, "Never") &&
      strcmp(rp, "OnFailure") && strcmp(rp, "Always") &&
      (strcmp(rp, "ExitCode") || c->target != KF_T_OPERATOR))
    return kfi_unmapped(c, p, v, c->target == KF_T_OPERATOR
                        ? "restart policies are Never, OnFailure, Always and ExitCode"
                        : c->target == KF_T_MPI_OPERATOR   /* v0.8 validation.go */
                        ? "the mpi-operator accepts only Never and OnFailure"
                        : "restart policies are Never, OnFailure and Always here");
  KF_OOM(c, kf_node_push(c->A, g, f->key, (kf_node *)v));
  return KF_OK;
}

/* The restart policy the manifest's operator gives a replica spec without
** one, where it is not kfjob's default (never): the kind row's
** operator_restart. */
static const char *operator_restart(const kfi *c, int role) {
  const kf_operator_restart *r = &kf_kinds[c->kind].operator_restart;
  unsigned roles = c->target == KF_T_MPI_OPERATOR ? r->mpi
                   : c->target == KF_T_OPERATOR ? r->v1 : 0;
  return roles >> role & 1u ? kf_restart_policy_enum.spell[r->policy][0] : NULL;
}

/* A replica spec without replicas: the operator's default, 1
** (training-operator setDefaultReplicas; mpi-operator v2beta1 default.go
** for the Launcher); mpi-operator's Worker defaults to 0, which its
** validation refuses (validateWorkerReplicaSpec).  An elastic job's come
** from elastic_workers. */
static kf_status default_replicas(kfi *c, const char *path, int role, kf_node *g) {
  char p[KFI_PATH];
  if (kf_kinds[c->kind].flags & KF_K_ELASTIC) return KF_OK;
  kfi_path(p, path, "replicas");
  if (c->target == KF_T_MPI_OPERATOR && role == KF_WORKER)
    return kfi_fail(c, p, "missing: mpi-operator defaults it to 0, which its validation "
                    "refuses (a Worker needs replicas >= 1)");
  KF_OOM(c, kf_obj_int(c->A, g, "replicas", 1));
  return KF_OK;
}

/* Every container of a replica's pod template has an image: the
** training-operator's webhooks require one (validate*ReplicaSpecs:
** Required(...containers[i].image)), and Kubernetes' pod validation for
** the mpi-operator's pods.  `main` the primary's path (its index). */
static kf_status image_given(kfi *c, const kf_node *tmpl, const char *main) {
  const kf_node *cs = kf_node_get(kf_node_get(tmpl, "spec"), "containers"), *im;
  char p[KFI_PATH], q[KFI_PATH];
  const char *b = strrchr(main, '[');
  size_t i;
  if (cs == NULL || cs->t != KF_NARR || b == NULL) return KF_OK;
  for (i = 0; i < cs->u.c.n; i++) {
    if (cs->u.c.v[i]->t != KF_NOBJ) continue;
    im = kf_node_get(cs->u.c.v[i], "image");
    if (im && !(im->t == KF_NSTR && im->u.s.n == 0)) continue;
    snprintf(q, sizeof q, "%.*s[%u]", (int)(b - main), main, (unsigned)i);
    kfi_path(p, q, "image");
    return kfi_fail(c, p, "required: every container needs an image (the training-operator's "
                    "webhooks and Kubernetes' pod validation refuse one without)");
  }
  return KF_OK;
}

/* A replica spec: "template" and the group rows placed there (replicas,
** restartPolicy, ...: KF_M_REPLICA), each under its row's key. */
static kf_status replica(kfi *c, const char *path, const kf_node *rs, int role,
                         groups *G) {
  const char *known[KFI_GROUP_ROWS + 2];
  char p[KFI_PATH];
  const kf_node *v;
  kf_node *g;
  int at = G->n++, n = 0;
  size_t r;
  kf_status st;
  for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++)
    if (kf_group_obj.f[r].place == KF_M_REPLICA && kf_group_obj.f[r].manifest)
      known[n++] = kf_group_obj.f[r].manifest;
  known[n++] = "template", known[n] = NULL;
  if ((st = kfi_want(c, path, rs, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, path, rs, known, NULL, NULL)) != KF_OK)
    return st;
  KF_OOM(c, g = G->g[at] = kf_node_new(c->A, KF_NOBJ));
  G->role[at] = role;
  for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++) {
    const kf_field *f = &kf_group_obj.f[r];
    if (f->place != KF_M_REPLICA || !f->manifest || (v = kf_node_get(rs, f->manifest)) == NULL)
      continue;
    if ((st = replica_value(c, path, f, v, g)) != KF_OK) return st;
  }
  if (kf_node_get(rs, "replicas") == NULL && (st = default_replicas(c, path, role, g)) != KF_OK)
    return st;
  /* training-operator pytorchjob_webhook.go validatePyTorchReplicaSpecs:
  ** Forbidden([Master].replicas, "must be 1") */
  if (role == KF_MASTER && c->kind == KF_PYTORCH && (v = kf_node_get(rs, "replicas")) &&
      v->t == KF_NINT && v->u.i == 0) {
    kfi_path(p, path, "replicas");
    return kfi_fail(c, p, "must be 1: the training-operator's webhook refuses any other "
                    "Master (leave the Master out for a job of workers only)");
  }
  if (kf_node_get(rs, "restartPolicy") == NULL && operator_restart(c, role))
    KF_OOM(c, kf_obj_strref(c->A, g, "restart_policy", operator_restart(c, role)));
  kfi_path(p, path, "template");
  if ((v = kf_node_get(rs, "template")) == NULL) return kfi_fail(c, p, "required");
  if ((st = kfi_pod_read(c, p, v, kf_kinds[c->kind].container, &G->pod[at])) != KF_OK)
    return st;
  snprintf(G->path[at], KFI_PATH, "%.200s.spec.containers[%u]", p, (unsigned)G->pod[at].index);
  return image_given(c, v, G->path[at]);
}

/* The value of group i's container at `off` (kfi_pod's command, args or
** env). */
static const kf_node *pod_value(const groups *G, int i, size_t off) {
  return *(const kf_node *const *)(const void *)((const char *)&G->pod[i] + off);
}

/* Whether group i is left out of the agreement on `off`: the
** mpi-operator's writer leaves a worker bare (sshd runs there). */
static int bare_worker(const kfi *c, const groups *G, int i, size_t off) {
  return pod_value(G, i, off) == NULL && off == offsetof(kfi_pod, command) &&
         G->role[i] == kf_target_bare_role(c->target);
}

/* Whether every group's container has the same value at `off` (NULL in
** each, or equal); *out the first; *at the first group that differs. */
static int agreed(const kfi *c, const groups *G, size_t off, const kf_node **out, int *at) {
  int i, first = -1;
  *out = NULL, *at = -1;
  for (i = 0; i < G->n; i++) {
    const kf_node *v = pod_value(G, i, off);
    if (bare_worker(c, G, i, off)) continue;
    if (first < 0) { first = i, *out = v; continue; }
    if ((v == NULL) != (*out == NULL) || (v && !kfi_equal(*out, v))) return *at = i, 0;
  }
  return 1;
}

/* Flyte's manifests carry one task container (flyteplugins' replica
** specs share the task's): a group that differs cannot be held. */
static kf_status one_container(kfi *c, const groups *G, int i, size_t off, const char *what,
                               const kf_node *first) {
  const kf_node *v = pod_value(G, i, off);
  char p[KFI_PATH];
  kfi_path(p, G->path[i], what);
  return kfi_unmapped(c, p, v, v && first ?
                      "the task's container differs from the first group's: "
                      "a Flyte task gives every group the same one" : v ?
                      "the first group's container has none: a Flyte task gives "
                      "every group the same one" :
                      "absent, while the first group's container has one: a Flyte "
                      "task gives every group the same one");
}

/* v as the job holds it under `key` (env: kfi_env_form), into `into`;
** the task's (info.container) gets it too when `info` (env: as a table). */
static kf_status put_value(kfi *c, const char *key, const kf_node *v, kf_node *into, int info) {
  int map = 1;
  kf_node *x = (kf_node *)v;
  if (strcmp(key, "env") == 0) KF_OOM(c, x = kfi_env_form(c, v, &map));
  KF_OOM(c, kf_node_push(c->A, into, key, x));
  if (info && map) KF_OOM(c, kf_node_push(c->A, c->ct, key, x));
  return KF_OK;
}

/* One field of the groups' containers (`off`, manifest key `key`): the
** job's container's when every group agrees (and info's), else each
** group's own container's (gct[i], made on first use), as the writers
** take a group's over the job's. */
static kf_status place(kfi *c, const groups *G, size_t off, const char *key, kf_node *ct,
                       kf_node **gct) {
  const kf_node *v;
  int i, at;
  kf_status st;
  if (!agreed(c, G, off, &v, &at)) {
    if (c->target == KF_T_FLYTE || c->target == KF_T_FLYTE2) {
      if ((st = one_container(c, G, at, off, key, v)) != KF_OK) return st;
    } else {
      for (i = 0; i < G->n; i++) {
        const kf_node *x = pod_value(G, i, off);
        if (x == NULL) continue;
        if (gct[i] == NULL) KF_OOM(c, gct[i] = kf_node_new(c->A, KF_NOBJ));
        if ((st = put_value(c, key, x, gct[i], 0)) != KF_OK) return st;
      }
      return KF_OK;
    }
  }
  return v ? put_value(c, key, v, ct, 1) : KF_OK;
}

/* MPI kinds: the launcher command's tail is the task's args; a group
** whose args are not that command has them as its own command. */
/* Flyte's MPIJob (flyteplugins mpi.go) writes slotsPerWorker 1 and the
** slots only in mpirun's -np (workers x slots): the slots from that. */
static kf_status flyte_slots(kfi *c, groups *G, const char *np) {
  char *end;
  long n = np ? strtol(np, &end, 10) : 0, w = 0;
  int i;
  if (n <= 0 || *end || (c->target != KF_T_FLYTE && c->target != KF_T_FLYTE2)) return KF_OK;
  for (i = 0; i < G->n; i++) {
    const kf_node *r = kf_node_get(G->g[i], "replicas");
    if (G->role[i] == KF_WORKER && r && r->t == KF_NINT) w = (long)r->u.i;
  }
  if (w > 0 && n % w == 0 && n / w > 1)
    KF_OOM(c, kf_node_put(c->A, c->spec, "slots", kf_node_int(c->A, n / w)));
  return KF_OK;
}

/* Is np the -np kfjob writes for the job read (kf_launcher.c: workers x
** slots; on Flyte any multiple of the workers, the slots read from it)?
** Else the line is the user's, kept as written. */
static int mpirun_np_ok(const kfi *c, const groups *G, const char *np) {
  const kf_node *s = kf_node_get(c->spec, "slots");
  long long w = 0, slots = 1, v;
  char *end;
  int i;
  if (np == NULL || *np < '0' || *np > '9') return 0;
  v = strtoll(np, &end, 10);
  if (*end || v < 0 || (v > 0 && *np == '0')) return 0;
  for (i = 0; i < G->n; i++)
    if (G->role[i] == KF_WORKER) {
      const kf_node *r = kf_node_get(G->g[i], "replicas");
      w = r == NULL ? 1 : r->t == KF_NINT ? (long long)r->u.i : -1;
    }
  if (w < 0) return 0;
  if (c->target == KF_T_FLYTE || c->target == KF_T_FLYTE2) return w ? v % w == 0 && v : v == 0;
  if (s) slots = s->t == KF_NINT ? (long long)s->u.i : -1;
  return slots >= 1 && v == w * slots;
}

/* ---- Horovod's line ---------------------------------------------------- */

/* The job values kfjob's horovodrun line carries (kf_launcher.c
** push_launcher), read from one line; `known` once a group's line was
** kfjob's: every other group's must then be that same line. */
typedef struct hvd_line {
  int known;
  int32_t slots, timeout;
  const char *level, *script;
  int verbose;
} hvd_line;

/* A decimal in 1..INT32_MAX (regenerating the line refuses any other
** spelling of it); 0 when s is none. */
static int32_t positive(const char *s) {
  char *end;
  long long v;
  if (s == NULL || *s < '0' || *s > '9') return 0;
  v = strtoll(s, &end, 10);
  return *end == '\0' && v >= 1 && v <= 0x7fffffff ? (int32_t)v : 0;
}

/* s can be a token field of the job (kf_build.c get_str): not empty, no
** whitespace or controls. */
static int token_ok(const kf_node *v) {
  char buf[64];
  const char *s = kfi_str(v);
  return s && v->u.s.n > 0 && v->u.s.n <= KF_MAX_STRING && strlen(s) == v->u.s.n &&
         kf_utf8_ok(s, v->u.s.n) && kf_token_problem(s, v->u.s.n, buf, sizeof buf) == NULL;
}

/* The job's values a line of kfjob's shape would carry, at the places
** kf_launcher.c writes them: the log level (4), the discovery script (14),
** the elastic timeout (16), --verbose after it (17); the slots are the
** spec's slotsPerWorker, but on Flyte (which writes slotsPerWorker 1,
** flyteplugins mpi.go) --slots-per-host's (12).  0: `a` has none. */
static int horovod_values(const kfi *c, const kf_node *a, hvd_line *h) {
  const kf_node *s = kf_node_get(c->spec, "slots");
  const char *v = arg(a, 17);
  if (a->u.c.n < 17 || !token_ok(a->u.c.v[4]) || !token_ok(a->u.c.v[14]) ||
      (h->timeout = positive(arg(a, 16))) == 0)
    return 0;
  h->level = kfi_str(a->u.c.v[4]), h->script = kfi_str(a->u.c.v[14]);
  h->verbose = v && strcmp(v, "--verbose") == 0;
  if (c->target == KF_T_FLYTE || c->target == KF_T_FLYTE2)
    h->slots = positive(arg(a, 12));
  else
    h->slots = s == NULL ? 1 : s->t == KF_NINT && s->u.i >= 1 && s->u.i <= 0x7fffffff ?
               (int32_t)s->u.i : 0;
  return h->slots > 0;
}

/* How many leading items of `a` are the horovodrun line kfjob writes for
** the job read (0: none; the line is the group's own command): the line
** is made again from the job's values (the first such line's, or `h`'s
** once known) and the group's worker count, and must be all of it, item
** for item.  The first line that is kfjob's gives the job its values. */
static kf_status horovod_len(kfi *c, const groups *G, const kf_node *a, hvd_line *h,
                             size_t *n) {
  hvd_line t;
  kf_job j;
  kf_node *l;
  kf_err e;
  const kf_node *r;
  size_t i;
  int k;
  *n = 0;
  if (a == NULL || a->t != KF_NARR) return KF_OK;
  if (h->known) t = *h;
  else if (!horovod_values(c, a, &t)) return KF_OK;
  memset(&j, 0, sizeof j);
  j.kind = KF_HOROVOD;
  for (k = 0; k < G->n; k++)
    if (G->role[k] == KF_WORKER && (r = kf_node_get(G->g[k], "replicas")) != NULL &&
        r->t == KF_NINT && r->u.i >= 0 && r->u.i <= 0x7fffffff)
      j.g[KF_WORKER].replicas = (int32_t)r->u.i;
  j.slots = t.slots, j.elastic_timeout = t.timeout, j.verbose = t.verbose;
  j.log_level = t.level, j.discovery_script_path = t.script;
  if (kf_launcher_command(&j, NULL, c->A, &l, c->who, &e) != KF_OK)
    return e.code == KF_ENOMEM ? kf_nomem(c->e) : KF_OK;
  if (a->u.c.n < l->u.c.n) return KF_OK;
  for (i = 0; i < l->u.c.n; i++) {
    const kf_node *x = a->u.c.v[i], *y = l->u.c.v[i];
    if (x->t != KF_NSTR || x->u.s.n != y->u.s.n || memcmp(x->u.s.p, y->u.s.p, y->u.s.n) != 0)
      return KF_OK;
  }
  *n = l->u.c.n;
  if (h->known) return KF_OK;
  *h = t, h->known = 1;
  KF_OOM(c, kf_obj_strref(c->A, c->spec, "log_level", t.level));
  KF_OOM(c, kf_obj_strref(c->A, c->spec, "discovery_script_path", t.script));
  KF_OOM(c, kf_obj_int(c->A, c->spec, "elastic_timeout", t.timeout));
  if (t.verbose) {
    kf_node *b;
    KF_OOM(c, b = kf_node_new(c->A, KF_NBOOL));
    b->u.b = 1;
    KF_OOM(c, kf_node_push(c->A, c->spec, "verbose", b));
  }
  if (c->target == KF_T_FLYTE || c->target == KF_T_FLYTE2)
    KF_OOM(c, kf_node_put(c->A, c->spec, "slots", kf_node_int(c->A, t.slots)));
  return KF_OK;
}

/* Whether `a` past its first n items is `task`. */
static int same_tail(const kf_node *a, size_t n, const kf_node *task) {
  size_t i;
  if (a->u.c.n - n != task->u.c.n) return 0;
  for (i = 0; i < task->u.c.n; i++)
    if (!kfi_equal(a->u.c.v[n + i], task->u.c.v[i])) return 0;
  return 1;
}

/* Whether the launcher runs a command of its own (its container's, or args
** read as its command). */
static int launcher_own(const groups *G) {
  int i;
  for (i = 0; i < G->n; i++)
    if (G->role[i] == KF_LAUNCHER)
      return G->pod[i].command != NULL || kf_node_get(G->g[i], "command") != NULL;
  return 0;
}

/* The operator's writer leaves a v1 worker without a command bare when the
** launcher runs its own and there is no task line (kf_manifest_operator.c
** v1_bare_worker): a worker whose args are kfjob's line alone, with no
** command, keeps them as its own then (the v1 operator runs `sleep 365d`
** there either way, mpijob_controller.go newWorker). */
static kf_status v1_worker_line(kfi *c, groups *G, const kf_node **task, const int *line) {
  int i;
  if (c->target != KF_T_OPERATOR || *task == NULL || (*task)->u.c.n || !launcher_own(G))
    return KF_OK;
  for (i = 0; i < G->n; i++)
    if (line[i] && G->role[i] == KF_WORKER && G->pod[i].command == NULL) {
      KF_OOM(c, kf_node_push(c->A, G->g[i], "command", (kf_node *)G->pod[i].args));
      *task = NULL;
    }
  return KF_OK;
}

static kf_status mpi_args(kfi *c, groups *G, kf_node *ct) {
  const kf_node *task = NULL;
  hvd_line h;
  int i, line[KF_NROLES] = {0};
  kf_status st;
  memset(&h, 0, sizeof h);
  for (i = 0; i < G->n; i++) {
    const kf_node *a = G->pod[i].args;
    size_t n = 0;
    if (a == NULL && G->role[i] == KF_LAUNCHER && G->pod[i].command == NULL) {
      /* kfjob's launcher always has args (a worker without a command runs
      ** what the operator gives it: sshd, or on v1 sleep 365d whatever its
      ** args, mpijob_controller.go newWorker) */
      char p[KFI_PATH];
      kfi_path(p, G->path[i], "args");
      if ((st = kfi_unmapped(c, p, NULL, "absent: kfjob's container runs the launcher's "
                             "mpirun or horovodrun line, or the group's own command, "
                             "as its args")) != KF_OK)
        return st;
      continue;
    }
    if (a && c->kind == KF_HOROVOD && (st = horovod_len(c, G, a, &h, &n)) != KF_OK) return st;
    if (a && c->kind == KF_MPI && (n = mpirun_len(a)) && !mpirun_np_ok(c, G, arg(a, n - 1)))
      n = 0;
    /* the writer gives every group without a command of its own the same
    ** line and args: another group's are that group's command */
    if (n && task && !same_tail(a, n, task)) n = 0;
    if (n == 0) {
      if (a) KF_OOM(c, kf_node_push(c->A, G->g[i], "command", (kf_node *)a));
      continue;
    }
    if (task == NULL && c->kind == KF_MPI && (st = flyte_slots(c, G, arg(a, n - 1))) != KF_OK)
      return st;
    if (task == NULL) KF_OOM(c, task = tail(c->A, a, n));
    line[i] = 1;
  }
  if ((st = v1_worker_line(c, G, &task, line)) != KF_OK) return st;
  return task && task->u.c.n ? put_value(c, "args", task, ct, 1) : KF_OK;
}

/* Each group keeps its image and the other group rows placed in its
** container (Law 1 emits with no image option); command, args and env go
** to the job's container, or each group's where they differ (place), and
** info.container has what every group shares. */
static kf_status container(kfi *c, groups *G) {
  kf_node *ct, *gct[KF_NROLES];
  int i;
  size_t r;
  kf_status st;
  memset(gct, 0, sizeof gct);
  KF_OOM(c, ct = kf_node_new(c->A, KF_NOBJ));
  for (i = 0; i < G->n; i++)
    for (r = 0; r < kf_group_obj.n && r < KFI_GROUP_ROWS; r++)
      if (G->pod[i].own[r])
        KF_OOM(c, kf_node_push(c->A, G->g[i], kf_group_obj.f[r].key, (kf_node *)G->pod[i].own[r]));
  if ((st = place(c, G, offsetof(kfi_pod, command), "command", ct, gct)) != KF_OK ||
      (st = (kf_kinds[c->kind].flags & KF_K_COMMAND) ? mpi_args(c, G, ct)
            : place(c, G, offsetof(kfi_pod, args), "args", ct, gct)) != KF_OK ||
      (st = place(c, G, offsetof(kfi_pod, env), "env", ct, gct)) != KF_OK ||
      (st = place(c, G, offsetof(kfi_pod, name), "name", ct, gct)) != KF_OK)
    return st;
  for (i = 0; i < G->n; i++)
    if (gct[i]) KF_OOM(c, kf_node_push(c->A, G->g[i], "container", gct[i]));
  if (ct->u.c.n) KF_OOM(c, kf_node_push(c->A, c->spec, "container", ct));
  return KF_OK;
}

/* A containers list of one name-only primary: what every template shows
** with nothing of its own. */
static int bare_primary(const kf_node *cs) {
  return cs && cs->t == KF_NARR && cs->u.c.n == 1 && cs->u.c.v[0]->t == KF_NOBJ &&
         cs->u.c.v[0]->u.c.n == 1;
}

/* Whether every group's template has key k of its spec (or, spec NULL,
** the template's own key k) equal to the first group's. */
static int shared_key(const groups *G, const char *part, const char *k) {
  const kf_node *v0 = kf_node_get(part ? kf_node_get(G->pod[0].tmpl, part) : G->pod[0].tmpl, k);
  int i;
  for (i = 1; v0 && i < G->n; i++) {
    const kf_node *t = G->pod[i].tmpl, *v = kf_node_get(part ? kf_node_get(t, part) : t, k);
    if (v == NULL || !kfi_equal(v0, v)) return 0;
  }
  return v0 != NULL;
}

/* What every group's template shares (the metadata, keys of the spec) is
** the job's template, each group keeps the rest: the writer merges a
** group's over the job's, so both give the same pods.  *out NULL:
** nothing shared (or a group without a template). */
static kf_status hoisted(kfi *c, const groups *G, kf_node **out) {
  const kf_node *s0;
  kf_node *job, *spec;
  size_t k;
  int i;
  *out = NULL;
  for (i = 0; i < G->n; i++)
    if (G->pod[i].tmpl == NULL) return KF_OK;
  if (G->n < 2 || (s0 = kf_node_get(G->pod[0].tmpl, "spec")) == NULL) return KF_OK;
  KF_OOM(c, job = kf_node_new(c->A, KF_NOBJ));
  KF_OOM(c, spec = kf_node_new(c->A, KF_NOBJ));
  if (shared_key(G, NULL, "metadata"))
    KF_OOM(c, kf_node_push(c->A, job, "metadata", kf_node_get(G->pod[0].tmpl, "metadata")));
  for (k = 0; k < s0->u.c.n; k++)
    if (shared_key(G, "spec", s0->u.c.k[k]))
      KF_OOM(c, kf_node_push(c->A, spec, s0->u.c.k[k], s0->u.c.v[k]));
  KF_OOM(c, kf_node_push(c->A, job, "spec", spec));
  if (kf_node_get(job, "metadata") || spec->u.c.n > 1 ||
      (spec->u.c.n == 1 && !bare_primary(kf_node_get(spec, "containers"))))
    *out = job;
  return KF_OK;
}

/* A group's template without the keys the job's holds (NULL: none left). */
static kf_node *unshared(kfi *c, const kf_node *t, const kf_node *job) {
  const kf_node *js = kf_node_get(job, "spec"), *s = kf_node_get(t, "spec");
  kf_node *d = kf_node_new(c->A, KF_NOBJ), *ds = kf_node_new(c->A, KF_NOBJ);
  size_t k;
  if (d == NULL || ds == NULL) return NULL;
  if (kf_node_get(t, "metadata") && !kf_node_get(job, "metadata") &&
      !kf_node_push(c->A, d, "metadata", kf_node_get(t, "metadata")))
    return NULL;
  for (k = 0; s && k < s->u.c.n; k++)
    if (!kf_node_get(js, s->u.c.k[k]) && !kf_node_push(c->A, ds, s->u.c.k[k], s->u.c.v[k]))
      return NULL;
  if (ds->u.c.n && !kf_node_push(c->A, d, "spec", ds)) return NULL;
  return d;
}

/* Pod settings: the template every group shares is the job's, else the
** keys they share and each group the rest (a serviceAccountName too:
** SPEC §14 carries no service account back); shared memory and
** accelerator from the groups that show them. */
static kf_status pod_settings(kfi *c, groups *G) {
  kf_node *job = NULL;
  int i, same = 1;
  kf_status st;
  for (i = 0; i < G->n; i++) {
    kfi_pod *p = &G->pod[i];
    if (i && !((p->tmpl == NULL && G->pod[0].tmpl == NULL) ||
               (p->tmpl && G->pod[0].tmpl && kfi_equal(p->tmpl, G->pod[0].tmpl))))
      same = 0;
    if (p->requests) KF_OOM(c, kf_node_push(c->A, G->g[i], "requests", p->requests));
    if (p->limits) KF_OOM(c, kf_node_push(c->A, G->g[i], "limits", p->limits));
    if (p->shm && !kf_node_get(c->spec, "shared_memory"))
      KF_OOM(c, kf_node_push(c->A, c->spec, "shared_memory", (kf_node *)p->shm));
    if (p->accel && !kf_node_get(c->spec, "accelerator"))
      KF_OOM(c, kf_node_push(c->A, c->spec, "accelerator", p->accel));
  }
  if (!same && (st = hoisted(c, G, &job)) != KF_OK) return st;
  if (!same && job) {
    KF_OOM(c, kf_node_push(c->A, c->spec, "pod_template", job));
    for (i = 0; i < G->n; i++) {
      kf_node *rest;
      KF_OOM(c, rest = unshared(c, G->pod[i].tmpl, job));
      if (rest->u.c.n) KF_OOM(c, kf_node_push(c->A, G->g[i], "pod_template", rest));
    }
    return KF_OK;
  }
  for (i = 0; i < G->n; i++) {
    if (G->pod[i].tmpl == NULL) continue;
    if (same) {
      KF_OOM(c, kf_node_push(c->A, c->spec, "pod_template", G->pod[i].tmpl));
      break;
    }
    KF_OOM(c, kf_node_push(c->A, G->g[i], "pod_template", G->pod[i].tmpl));
  }
  return KF_OK;
}

/* A group the manifest leaves out has no replicas (the writer leaves out
** the groups with none); a kind whose group is always there cannot hold
** that. */
static kf_status absent(kfi *c, const char *path, int role) {
  kf_replica_bounds b = kf_kind_role_bounds(&kf_kinds[c->kind], role);
  kf_node *g;
  if (b.default_replicas == 0 || (kf_kinds[c->kind].flags & KF_K_ELASTIC)) return KF_OK;
  if ((b.flags & KF_R_FIXED1) && c->kind == KF_XGBOOST)   /* xgboostjob_webhook.go */
    return kfi_fail(c, path, "required: the training-operator's webhook refuses an "
                    "XGBoostJob without a Master (add one with replicas: 1)");
  if (b.flags & KF_R_FIXED1)
    return kfi_unmapped(c, path, NULL, "required: kfjob's job of this kind always "
                        "has exactly one");
  KF_OOM(c, g = kf_obj_add(c->A, c->spec, kf_roles[role].key, KF_NOBJ));
  KF_OOM(c, kf_obj_int(c->A, g, "replicas", 0));
  return KF_OK;
}

#define SAFE_TO_EVICT "cluster-autoscaler.kubernetes.io/safe-to-evict"

/* The first replica whose template lacks a label or annotation of the
** resource (*key: "labels" or "annotations"), or NULL when every one
** repeats them, as Flyte's backend puts them on every pod (flyteplugins
** pod_helper.go); Kueue's labels kfjob writes on the resource alone, and
** the templates' safe-to-evict annotation the reader took out already. */
static const char *uncopied(const kfi *c, const kf_node *specs, const char **key) {
  static const char *const keys[2] = {"labels", "annotations"};
  static const char *const kueue[] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC, NULL};
  const kf_node *res[2];
  size_t i, r;
  int k;
  res[0] = c->labels, res[1] = c->annotations;
  for (r = 0; specs && specs->t == KF_NOBJ && r < specs->u.c.n; r++) {
    const kf_node *m = kf_node_get(kf_node_get(specs->u.c.v[r], "template"), "metadata");
    for (k = 0; k < 2; k++)
      for (i = 0; res[k] && res[k]->t == KF_NOBJ && i < res[k]->u.c.n; i++) {
        const char *mine = kfi_str(res[k]->u.c.v[i]);
        const char *s = kfi_str(kf_node_get(kf_node_get(m, keys[k]), res[k]->u.c.k[i]));
        if (s == NULL && k == 0 && kf_str_listed(kueue, res[k]->u.c.k[i])) continue;
        if (k == 1 && strcmp(res[k]->u.c.k[i], SAFE_TO_EVICT) == 0) continue;
        if (mine == NULL || s == NULL || strcmp(mine, s) != 0) {
          *key = keys[k];
          return specs->u.c.k[r];
        }
      }
  }
  return NULL;
}

/* On Flyte's targets the templates' copies of the resource's labels and
** annotations are the backend's (taken out of the templates); a template
** without them is not what the backend submits.  Elsewhere the resource's
** are the job's and the templates' stay theirs. */
static kf_status pod_copies(kfi *c, const char *sp, const kf_node *specs) {
  const char *key = NULL, *role;
  char p[KFI_PATH], q[KFI_PATH];
  if (c->target != KF_T_FLYTE && c->target != KF_T_FLYTE2) return KF_OK;
  if ((role = uncopied(c, specs, &key)) == NULL) {
    c->pod_copies = 1;
    return KF_OK;
  }
  kfi_path(p, sp, role);
  kfi_path(q, p, "template");
  kfi_path(p, q, "metadata");
  kfi_path(q, p, key);
  return kfi_unmapped(c, q, kf_node_get(kf_node_get(kf_node_get(kf_node_get(
                              specs, role), "template"), "metadata"), key),
                      "lacks some of the resource's: Flyte's backend puts the resource's "
                      "labels and annotations on every pod (flyteplugins pod_helper.go)");
}

kf_status kfi_replicas(kfi *c, const char *path, const kf_node *spec) {
  const kf_kind_info *k = &kf_kinds[c->kind];
  const kf_node *specs = kf_node_get(spec, k->crd_specs);
  const char *known[5];
  char sp[KFI_PATH], p[KFI_PATH];
  groups G;
  int i;
  kf_status st;
  memset(&G, 0, sizeof G);
  kfi_path(sp, path, k->crd_specs);
  for (i = 0; i < k->nroles; i++) known[i] = kf_roles[k->roles[i].role].name;
  known[i] = NULL;
  if ((st = kfi_want(c, sp, specs, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, sp, specs, known, NULL, NULL)) != KF_OK)
    return st;
  if ((st = pod_copies(c, sp, specs)) != KF_OK) return st;
  kfi_pod_shapes(c, specs, kf_kinds[c->kind].container);
  for (i = 0; i < k->nroles; i++) {
    const kf_node *rs = kf_node_get(specs, known[i]);
    kfi_path(p, sp, known[i]);
    if (rs && (st = replica(c, p, rs, k->roles[i].role, &G)) != KF_OK) return st;
    if (!rs && (st = absent(c, p, k->roles[i].role)) != KF_OK) return st;
  }
  if ((st = container(c, &G)) != KF_OK || (st = pod_settings(c, &G)) != KF_OK) return st;
  for (i = 0; i < G.n; i++)
    KF_OOM(c, kf_node_push(c->A, c->spec, kf_roles[G.role[i]].key, G.g[i]));
  return KF_OK;
}

/* ---- Elastic ---------------------------------------------------------- */

/* The Worker count of an elastic PyTorchJob: without min and max the
** operator takes both from it (pytorch_defaults.go setElasticPolicy), so
** it is nnodes; else kfjob's writer starts the upper bound's workers. */
static kf_status elastic_workers(kfi *c, const kf_node *spec, const kf_node *bound) {
  static const char path[] = "spec.pytorchReplicaSpecs.Worker.replicas";
  const kf_node *w = kf_node_get(kf_node_get(kf_node_get(spec, kf_kinds[KF_ELASTIC].crd_specs),
                                             "Worker"), "replicas");
  kf_status st;
  if (w && (st = kfi_want(c, path, w, KF_NINT)) != KF_OK) return st;
  if (w == NULL)   /* the operator's default (pytorch_defaults.go setDefaultReplicas) */
    KF_OOM(c, w = kf_node_int(c->A, 1));
  if (bound == NULL) {
    KF_OOM(c, kf_node_put(c->A, c->spec, "nnodes", (kf_node *)w));
    return KF_OK;
  }
  if (bound->t == KF_NINT && bound->u.i != w->u.i)
    return kfi_unmapped(c, path, w, "differs from elasticPolicy's maxReplicas (or "
                        "minReplicas): kfjob's Elastic job starts its nnodes' upper bound "
                        "of workers");
  return KF_OK;
}

/* Whether Elastic row `f` is read from elasticPolicy: the rows placed
** there (KF_M_ELASTIC) and the deprecated nProcPerNode (its own routine's
** on writing: Flyte's). */
static int in_elastic_policy(const kf_field *f) {
  return f->manifest && (f->place == KF_M_ELASTIC || f->type == KF_V_NPROC);
}

/* elasticPolicy by the keys of its rows (in_elastic_policy); min and max
** replicas are nnodes (an integer when they agree), spec.nprocPerNode a
** word. */
kf_status kfi_elastic(kfi *c, const kf_node *spec) {
  const kf_kind_info *k = &kf_kinds[KF_ELASTIC];
  const kf_node *ep = kf_node_get(spec, "elasticPolicy"), *v, *mn, *mx;
  const char *known[48];   /* 2 + the kind's fields (Elastic has under 40) + NULL */
  size_t i, n = 0;
  kf_status st;
  known[n++] = "minReplicas", known[n++] = "maxReplicas";
  for (i = 0; i < k->nfields && n + 1 < sizeof known / sizeof *known; i++)
    if (in_elastic_policy(&k->fields[i])) known[n++] = k->fields[i].manifest;
  known[n] = NULL;
  static const char *const held_not[] = {NULL};
  if (ep == NULL)   /* asked for by opts.kind: the manifest is a plain PyTorchJob */
    return kfi_fail(c, "spec.elasticPolicy", "missing: an Elastic job is a PyTorchJob with an "
                    "elasticPolicy (read this one as PyTorchJob)");
  if ((st = kfi_want(c, "spec.elasticPolicy", ep, KF_NOBJ)) != KF_OK ||
      (st = kfi_keys(c, "spec.elasticPolicy", ep, known, held_not, NULL)) != KF_OK)
    return st;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (in_elastic_policy(f) && (v = kf_node_get(ep, f->manifest)))
      KF_OOM(c, kf_node_push(c->A, c->spec, f->key, (kf_node *)v));
  }
  if ((v = kf_node_get(spec, "nprocPerNode")) != NULL && kf_node_get(ep, "nProcPerNode"))
    /* training-operator pytorchjob_webhook.go validateSpec */
    return kfi_fail(c, "spec.elasticPolicy.nProcPerNode", "must not be used with "
                    "spec.nprocPerNode: the training-operator's webhook refuses both "
                    "(keep spec.nprocPerNode)");
  if (v != NULL) {
    if ((st = kfi_nproc(c, "spec.nprocPerNode", v)) != KF_OK) return st;
  } else if (kf_node_get(ep, "nProcPerNode") == NULL)   /* pytorch_defaults.go */
    KF_OOM(c, kf_obj_strref(c->A, c->spec, "nproc_per_node", "auto"));
  mn = kf_node_get(ep, "minReplicas"), mx = kf_node_get(ep, "maxReplicas");
  if ((mn && (st = kfi_want(c, "spec.elasticPolicy.minReplicas", mn, KF_NINT)) != KF_OK) ||
      (mx && (st = kfi_want(c, "spec.elasticPolicy.maxReplicas", mx, KF_NINT)) != KF_OK))
    return st;
  if (mn && mx && mn->t == KF_NINT && mx->t == KF_NINT && mn->u.i != mx->u.i) {
    char s[48];
    snprintf(s, sizeof s, "%lld:%lld", (long long)mn->u.i, (long long)mx->u.i);
    KF_OOM(c, kf_obj_str(c->A, c->spec, "nnodes", s));
  } else if (mn || mx) {
    KF_OOM(c, kf_node_push(c->A, c->spec, "nnodes", (kf_node *)(mx ? mx : mn)));
  }
  return elastic_workers(c, spec, mx ? mx : mn);
}

/*
** kf_import_mpi.c - an MPI or Horovod job's launcher line read back: the
** mpirun or horovodrun line kfjob writes (kf_launcher.c, kube/kf_manifest.c
** kfm_launcher_command) is recognised item for item and made again from
** the job's values, its tail is the task's args, and a group whose args
** are not that line has them as its own command.
*/
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "kf_launcher.h"
#include "kf_import_int.h"

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

/* Flyte's MPIJob (flyteplugins mpi.go) writes slotsPerWorker 1 and the
** slots only in mpirun's -np (workers x slots): the slots from that. */
static kf_status flyte_slots(kfi *c, kfi_groups *G, const char *np) {
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
static int mpirun_np_ok(const kfi *c, const kfi_groups *G, const char *np) {
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
static kf_status horovod_len(kfi *c, const kfi_groups *G, const kf_node *a, hvd_line *h,
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
static int launcher_own(const kfi_groups *G) {
  int i;
  for (i = 0; i < G->n; i++)
    if (G->role[i] == KF_LAUNCHER)
      return G->pod[i].command != NULL || kf_node_get(G->g[i], "command") != NULL;
  return 0;
}

/* Whether a worker's args are its own whatever line they hold: the writers
** give a worker kfjob's line (and the task's args) only on the operator, and
** there not when the launcher has a command of its own (kf_manifest_operator.c
** v1_bare_worker; the mpi-operator's worker runs sshd without one), so a
** worker there that was written with the launcher's line runs it as its own. */
static int worker_own(const kfi *c, const kfi_groups *G) {
  int i;
  if (c->target == KF_T_MPI_OPERATOR) return 1;
  if (c->target != KF_T_OPERATOR) return 0;
  for (i = 0; i < G->n; i++)
    if (G->role[i] == KF_LAUNCHER) return G->pod[i].command != NULL;
  return 0;
}

/* The operator's writer leaves a v1 worker without a command bare when the
** launcher runs its own and there is no task line (kf_manifest_operator.c
** v1_bare_worker): a worker whose args are kfjob's line alone, with no
** command, keeps them as its own then (the v1 operator runs `sleep 365d`
** there either way, mpijob_controller.go newWorker). */
static kf_status v1_worker_line(kfi *c, kfi_groups *G, const kf_node **task, const int *line) {
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

/* On operator and mpi-operator each group's command is its own
** (kf_import_spec.c commands), and the writer gives a group running one of
** its own the task line only where it is the launcher's and the job has
** task args: kfjob's line in another such group, or with nothing after it,
** is that group's args as written (its command row). */
static kf_status own_line(kfi *c, kfi_groups *G, const kf_node *task, const int *line) {
  int i;
  if (c->target == KF_T_FLYTE || c->target == KF_T_FLYTE2 || task == NULL) return KF_OK;
  for (i = 0; i < G->n; i++)
    if (line[i] && G->pod[i].command != NULL && (G->role[i] != KF_LAUNCHER || !task->u.c.n))
      KF_OOM(c, kf_node_push(c->A, G->g[i], "command", (kf_node *)G->pod[i].args));
  return KF_OK;
}

/* A key of the launcher's container that spells command or args wrongly
** (it stays in the pod template's container, where the template's
** checks would name it later): said with the refusal, else "". */
static void misspelt(const kfi_pod *pd, char *out, size_t cap) {
  static const char *const want[] = {"command", "args", NULL};
  const kf_node *cs = kf_node_get(kf_node_get(pd->tmpl, "spec"), "containers");
  size_t i, k;
  *out = '\0';
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++)
    for (k = 0; cs->u.c.v[i]->t == KF_NOBJ && k < cs->u.c.v[i]->u.c.n; k++) {
      const char *key = cs->u.c.v[i]->u.c.k[k], *sg = kf_suggest(key, want);
      if (sg && strcmp(sg, key) != 0) {
        snprintf(out, cap, "; its container has '%.60s': did you mean '%s'?", key, sg);
        return;
      }
    }
}

kf_status kfi_mpi_args(kfi *c, kfi_groups *G, const kf_node **args) {
  const kf_node *task = NULL;
  hvd_line h;
  *args = NULL;
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
      char p[KFI_PATH], hint[160];
      kfi_path(p, G->path[i], "args");
      misspelt(&G->pod[i], hint, sizeof hint);
      /* not left out under lossy: the launcher would run kfjob's mpirun
      ** line in place of its image's entrypoint (the operator sets no
      ** launcher command: mpi-operator v2beta1 default.go SetDefaults_MPIJob) */
      return kfi_fail(c, p, "absent: kfjob's container runs the launcher's mpirun or "
                      "horovodrun line, or the group's own command, as its args: write the "
                      "launcher's command (its image's entrypoint) in command or args (not left "
                      "out under --lossy: the launcher would run another program)%s", hint);
    }
    if (a && G->role[i] != KF_LAUNCHER && worker_own(c, G)) {
      KF_OOM(c, kf_node_push(c->A, G->g[i], "command", (kf_node *)a));
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
  if ((st = own_line(c, G, task, line)) != KF_OK ||
      (st = v1_worker_line(c, G, &task, line)) != KF_OK)
    return st;
  *args = task && task->u.c.n ? task : NULL;
  return KF_OK;
}

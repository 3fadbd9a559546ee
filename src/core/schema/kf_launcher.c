/*
** kf_launcher.c - the command an MPIJob's or HorovodJob's launcher runs, as
** flytekit builds it (flytekit-kf-mpi task.py: _get_mpi_launcher_command /
** HorovodJob's horovodrun flags): a value of the job, shared by the
** TaskTemplate (v0 MPI, flyte/) and every manifest writer (kube/).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_launcher.h"

/* 1 when pushed; 0 when out of memory (the caller says so) */
static int push_str(kf_arena *A, kf_node *arr, const char *s) {
  return kf_node_push(A, arr, NULL, kf_node_str(A, s, strlen(s)));
}

static int push_all(kf_arena *A, kf_node *arr, const char *const *v) {
  for (; *v; v++)
    if (!push_str(A, arr, *v)) return 0;
  return 1;
}

static void decimal(int64_t v, char out[24]) {
  snprintf(out, 24, "%lld", (long long)v);
}

const char *const kf_mpirun_flags[] = {
    "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
    "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO",
    "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np", NULL};

/* The launcher's own words, before the user's args. */
static int push_launcher(kf_arena *A, kf_node *a, const kf_job *j) {
  char np[24], slots[24], timeout[24];
  /* workers x slots, both int32: no overflow in 64 bits */
  decimal((int64_t)j->g[KF_WORKER].replicas * j->slots, np);
  decimal(j->slots, slots);
  decimal(j->elastic_timeout, timeout);
  if (j->kind == KF_MPI) {
    return push_all(A, a, kf_mpirun_flags) && push_str(A, a, np);
  } else {
    const char *const horovodrun[] = {
        "horovodrun", "-np", np, "--log-level", j->log_level,
        "--network-interface", "eth0", "--min-np", np, "--max-np", np,
        "--slots-per-host", slots,
        "--host-discovery-script", j->discovery_script_path,
        "--elastic-timeout", timeout, j->verbose ? "--verbose" : NULL, NULL};
    return push_all(A, a, horovodrun);
  }
}

kf_status kf_launcher_command(const kf_job *j, const kf_strs *args,
                              kf_arena *A, kf_node **out, const char *who,
                              kf_err *e) {
  kf_node *a;
  size_t i;
  if (j->kind != KF_MPI && j->kind != KF_HOROVOD)
    return kf_fail(e, KF_EINVAL,
                   "%s: only MPIJob and HorovodJob have a launcher", who);
  if ((a = kf_node_new(A, KF_NARR)) == NULL || !push_launcher(A, a, j))
    return kf_nomem(e);
  for (i = 0; args && i < args->n; i++)
    if (!push_str(A, a, args->v[i])) return kf_nomem(e);
  if (a->u.c.n > KF_MAX_ITEMS)
    return kf_fail(e, KF_ELIMIT, "%s: args: command longer than the limit of %d items",
                   who, KF_MAX_ITEMS);
  *out = a;
  return KF_OK;
}

/* A decimal in 1..INT32_MAX as push_launcher writes one; 0: not one. */
static int32_t positive(const char *s) {
  char *end;
  long long v;
  if (s == NULL || *s < '1' || *s > '9') return 0;
  v = strtoll(s, &end, 10);
  return *end == '\0' && v <= 0x7fffffff ? (int32_t)v : 0;
}

/* A token field's value (kf_build.c get_str): not empty, UTF-8, no
** whitespace or controls. */
static int token(const char *s) {
  char buf[64];
  size_t n = s ? strlen(s) : 0;
  return n > 0 && n <= KF_MAX_STRING && kf_utf8_ok(s, n) &&
         kf_token_problem(s, n, buf, sizeof buf) == NULL;
}

size_t kf_horovod_line_read(kf_job *j, const char *const *args, size_t n, kf_arena *A) {
  kf_job t;
  kf_node *l;
  kf_err e;
  size_t i;
  if (j->kind != KF_HOROVOD || n < 17 || strcmp(args[0], "horovodrun") != 0 ||
      !token(args[4]) || !token(args[14]))
    return 0;
  t = *j;   /* push_launcher's places: 4, 14, 16, 17 */
  if ((t.elastic_timeout = positive(args[16])) == 0 ||
      (t.log_level = kf_arena_strndup(A, args[4], strlen(args[4]))) == NULL ||
      (t.discovery_script_path = kf_arena_strndup(A, args[14], strlen(args[14]))) == NULL)
    return 0;
  t.verbose = n > 17 && strcmp(args[17], "--verbose") == 0;
  if (kf_launcher_command(&t, NULL, A, &l, "", &e) != KF_OK || l->u.c.n > n) return 0;
  for (i = 0; i < l->u.c.n; i++)
    if (strcmp(args[i], l->u.c.v[i]->u.s.p) != 0) return 0;
  *j = t;
  return l->u.c.n;
}

int kf_starts_launcher(const char *const *v, size_t n) {
  const char *p;
  if (n == 0 || v[0] == NULL) return 0;
  if (strcmp(v[0], "torchrun") == 0) return 1;
  p = strrchr(v[0], '/');
  p = p ? p + 1 : v[0];
  return n >= 3 && v[1] && v[2] && strncmp(p, "python", 6) == 0 &&
         strcmp(v[1], "-m") == 0 && strcmp(v[2], "torch.distributed.run") == 0;
}

int kf_trainer_wraps_kind(int kind) {
  return kind == KF_PYTORCH || kind == KF_ELASTIC;
}

int kf_trainer_wraps(const kf_job *j, const char *const *cmd, size_t n) {
  return j->runtime == NULL && kf_trainer_wraps_kind(j->kind) && !kf_starts_launcher(cmd, n);
}

int kf_trainer_role(const kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  if ((k->flags & KF_K_ELASTIC) || j->g[KF_MASTER].replicas <= 0) return KF_WORKER;
  for (i = 0; i < k->nroles; i++)   /* (the kind's roles: a JAXJob has none) */
    if (k->roles[i].role == KF_MASTER) return KF_MASTER;
  return KF_WORKER;
}

int64_t kf_trainer_nodes(const kf_job *j) {
  int64_t w = j->g[KF_WORKER].replicas > 0 ? j->g[KF_WORKER].replicas : 0;
  if (kf_kinds[j->kind].flags & KF_K_ELASTIC) return j->max_nodes;
  return (kf_trainer_role(j) == KF_MASTER ? 1 : 0) + w;
}

const char *kf_trainer_runtime_count(const kf_job *j) {
  if (j->runtime_trainer) return "runtime_trainer";
  return j->runtime_nodes ? "runtime_nodes" : NULL;
}

int kf_mpi_tool(const char *const *v, size_t n) {
  static const char *const tools[] = {"mpirun", "mpiexec", "mpiexec.hydra", "horovodrun", NULL};
  const char *p;
  int t;
  if (n == 0 || v[0] == NULL) return 0;
  p = strrchr(v[0], '/');
  p = p ? p + 1 : v[0];
  for (t = 0; tools[t]; t++)
    if (strcmp(p, tools[t]) == 0) return 1;
  return 0;
}

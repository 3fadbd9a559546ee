/*
** kf_kinds.c - the job kinds, their replica groups and enum spellings as
** data, plus small lexical helpers (quantities, numbers, suggestions).
** Adding a kind means adding a row here, not writing functions.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"
#include "flyteidl/plugins/tensorflow.pb-c.h"
#include "flyteidl/plugins/pytorch.pb-c.h"
#include "flyteidl/plugins/mpi.pb-c.h"
#include "flyteidl/plugins/kubeflow/tensorflow.pb-c.h"
#include "flyteidl/plugins/kubeflow/pytorch.pb-c.h"
#include "flyteidl/plugins/kubeflow/mpi.pb-c.h"

const kf_role_info kf_roles[KF_NROLES] = {
  /* name         key          default flags */
  {"Worker",    "worker",    0, KF_R_REQUIRED},
  {"PS",        "ps",        0, 0},
  {"Chief",     "chief",     0, KF_R_MAX1},
  {"Evaluator", "evaluator", 0, KF_R_MAX1},
  {"Master",    "master",    1, KF_R_FIXED1},
  {"Launcher",  "launcher",  1, KF_R_FIXED1},
};

#define TF0 &flyteidl__plugins__distributed_tensorflow_training_task__descriptor
#define PT0 &flyteidl__plugins__distributed_py_torch_training_task__descriptor
#define MPI0 &flyteidl__plugins__distributed_mpitraining_task__descriptor
#define TF1 &flyteidl__plugins__kubeflow__distributed_tensorflow_training_task__descriptor
#define PT1 &flyteidl__plugins__kubeflow__distributed_py_torch_training_task__descriptor
#define MPI1 &flyteidl__plugins__kubeflow__distributed_mpitraining_task__descriptor
#define TF1R &flyteidl__plugins__kubeflow__distributed_tensorflow_training_replica_spec__descriptor
#define PT1R &flyteidl__plugins__kubeflow__distributed_py_torch_training_replica_spec__descriptor
#define MPI1R &flyteidl__plugins__kubeflow__distributed_mpitraining_replica_spec__descriptor

/* Role order inside a kind is the order of the constructor's fields and of
** spec() output. */
const kf_kind_info kf_kinds[KF_NKINDS] = {
  {"TFJob", "tensorflow", "tensorflow", "TFJob", "tfReplicaSpecs",
   KF_K_RUNPOLICY, 4,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_PS, "ps_replicas", "ps_replicas", "num_ps_replicas"},
    {KF_CHIEF, "chief_replicas", "chief_replicas", "num_chief_replicas"},
    {KF_EVALUATOR, "evaluator_replicas", "evaluator_replicas",
     "num_evaluator_replicas"}},
   TF0, TF1, TF1R},
  {"PyTorchJob", "pytorch", "pytorch", "PyTorchJob", "pytorchReplicaSpecs",
   KF_K_RUNPOLICY, 2,
   {{KF_WORKER, "worker_replicas", "workers", "num_workers"},
    {KF_MASTER, "master_replicas", NULL, NULL}},
   PT0, PT1, PT1R},
  {"Elastic", "pytorch", "pytorch", "PyTorchJob", "pytorchReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_ELASTIC, 1,
   {{KF_WORKER, "worker_replicas", "workers", NULL}},
   PT0, PT1, PT1R},
  {"MPIJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R},
  {"HorovodJob", "mpi", "mpi", "MPIJob", "mpiReplicaSpecs",
   KF_K_RUNPOLICY | KF_K_SLOTS | KF_K_COMMAND | KF_K_HOROVOD, 2,
   {{KF_WORKER, "worker_replicas", "num_workers", "num_workers"},
    {KF_LAUNCHER, "launcher_replicas", "num_launcher_replicas",
     "num_launcher_replicas"}},
   MPI0, MPI1, MPI1R},
};

const char *const kf_res_keys[KF_NRES] = {"cpu", "mem", "gpu",
                                          "ephemeral_storage"};
const char *const kf_rp_names[3] = {"never", "on_failure", "always"};
const char *const kf_cp_names[3] = {"none", "running", "all"};

const kf_kind_role *kf_kind_role_of(const kf_kind_info *k, int role) {
  int i;
  for (i = 0; i < k->nroles; i++)
    if (k->roles[i].role == role) return &k->roles[i];
  return NULL;
}

int kf_kind_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NKINDS; i++)
    if (strcmp(kf_kinds[i].name, name) == 0) return i;
  return -1;
}

int kf_role_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NROLES; i++)
    if (strcmp(kf_roles[i].name, name) == 0) return i;
  return -1;
}

/* Every accepted spelling, by enum value: lowercase, Kubernetes, proto. */
static const char *const rp_spellings[3][3] = {
  {"never", "Never", "RESTART_POLICY_NEVER"},
  {"on_failure", "OnFailure", "RESTART_POLICY_ON_FAILURE"},
  {"always", "Always", "RESTART_POLICY_ALWAYS"},
};
static const char *const cp_spellings[3][3] = {
  {"none", "None", "CLEANPOD_POLICY_NONE"},
  {"running", "Running", "CLEANPOD_POLICY_RUNNING"},
  {"all", "All", "CLEANPOD_POLICY_ALL"},
};

static int parse_spelling(const char *const t[3][3], const char *s) {
  int v, k;
  for (v = 0; v < 3; v++)
    for (k = 0; k < 3; k++)
      if (strcmp(t[v][k], s) == 0) return v;
  return -1;
}

int kf_parse_restart_policy(const char *s) {
  return parse_spelling(rp_spellings, s);
}
int kf_parse_clean_pod_policy(const char *s) {
  return parse_spelling(cp_spellings, s);
}

/* ---- did you mean ----------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), i, j;
  size_t row[64];
  if (la >= 63 || lb >= 63) return (size_t)-1;
  for (j = 0; j <= lb; j++) row[j] = j;
  for (i = 1; i <= la; i++) {
    size_t prev = row[0], cur;
    row[0] = i;
    for (j = 1; j <= lb; j++) {
      size_t best = prev + (a[i - 1] != b[j - 1]);
      cur = row[j];
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      prev = cur;
      row[j] = best;
    }
  }
  return row[lb];
}

const char *kf_suggest(const char *s, const char *const *cands) {
  const char *best = NULL;
  size_t bestd = (size_t)-1, len = strlen(s);
  for (; *cands != NULL; cands++) {
    size_t d = edit_distance(s, *cands);
    if (d < bestd) bestd = d, best = *cands;
  }
  /* close enough: a couple of typos, or a third of the word */
  if (best != NULL && (bestd <= 2 || bestd * 3 <= len) && bestd < len)
    return best;
  return NULL;
}

/* ---- quantities ------------------------------------------------------- */

/* Kubernetes resource.Quantity without a sign (we take no negatives):
**   digits [ "." digits ] | "." digits, then an optional suffix:
**   Ki Mi Gi Ti Pi Ei | m k M G T P E | (e|E) [+-] digits */
int kf_quantity_ok(const char *s, size_t n) {
  size_t i = 0, d = 0, rest;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++, d++;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, d++;
  }
  if (d == 0) return 0;
  rest = n - i;
  s += i;
  if (rest == 0) return 1;
  if (rest == 2 && s[1] == 'i' && strchr("KMGTPE", s[0]) != NULL) return 1;
  if (rest == 1 && strchr("mkMGTPE", s[0]) != NULL) return 1;
  if (s[0] == 'e' || s[0] == 'E') {
    size_t k = 1;
    if (k < rest && (s[k] == '+' || s[k] == '-')) k++;
    if (k == rest) return 0;
    for (; k < rest; k++)
      if (s[k] < '0' || s[k] > '9') return 0;
    return 1;
  }
  return 0;
}

/* By hand: snprintf dominated constructors that take numeric quantities. */
void kf_format_int(int64_t v, char out[32]) {
  char tmp[24];
  int n = 0, i = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) out[i++] = '-';
  while (n) out[i++] = tmp[--n];
  out[i] = '\0';
}

void kf_format_number(double d, char out[32]) {
  int prec;
  if (d == floor(d) && fabs(d) < 1e15) {
    kf_format_int((int64_t)d, out);
    return;
  }
  for (prec = 15; prec <= 17; prec++) {
    snprintf(out, 32, "%.*g", prec, d);
    if (strtod(out, NULL) == d) break;
  }
}

int kf_utf8_ok(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    unsigned c = *p++;
    int more;
    unsigned min, cp;
    if (c < 0x80) continue;
    if (c >= 0xC2 && c <= 0xDF) more = 1, min = 0x80, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) more = 2, min = 0x800, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) more = 3, min = 0x10000, cp = c & 0x07;
    else return 0;
    if (end - p < more) return 0;
    while (more--) {
      if ((*p & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (*p++ & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  }
  return 1;
}

/* lowerCamelCase JSON name of a proto field name (protoc's rule). Returns
** the full length; writes at most cap - 1 characters and a NUL. */
size_t kf_json_name(const char *name, char *out, size_t cap) {
  size_t n = 0;
  int up = 0;
  for (; *name; name++) {
    if (*name == '_') {
      up = 1;
      continue;
    }
    if (n + 1 < cap)
      out[n] = (char)(up && *name >= 'a' && *name <= 'z' ? *name - 32 : *name);
    n++;
    up = 0;
  }
  if (cap) out[n < cap ? n : cap - 1] = '\0';
  return n;
}

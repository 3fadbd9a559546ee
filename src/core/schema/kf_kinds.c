/*
** kf_kinds.c - lookups over the kind, role and enum rows of kf_schema.c
** (a kind's role, its bounds, kinds and roles by name, enum spellings,
** which groups take a row, a job's defaults) and the rules every kind
** lists (replica bounds, every row's lower bound).
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kf_job.h"
#include "kf_launcher.h"

/* ---- lookups ---------------------------------------------------------- */

const kf_kind_role *kf_kind_role_of(const kf_kind_info *k, int role) {
  int i;
  for (i = 0; i < k->nroles; i++)
    if (k->roles[i].role == role) return &k->roles[i];
  return NULL;
}

kf_replica_bounds kf_kind_role_bounds(const kf_kind_info *k, int role) {
  kf_replica_bounds b;
  if (k->bounds) return k->bounds[role];
  b.default_replicas = kf_roles[role].default_replicas;
  b.flags = kf_roles[role].flags;
  return b;
}

int kf_kind_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NKINDS; i++)
    if (strcmp(kf_kinds[i].name, name) == 0) return i;
  return -1;
}

/* "TFJob, PyTorchJob, ... or PaddleJob" and the same of the kinds with a
** Flyte task type, built once from the kind rows. */
static char names_buf[KF_NKINDS * 24], flyte_names_buf[KF_NKINDS * 24];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_of(char *buf, size_t cap, int flyte_only) {
  size_t l = 0;
  int i, n = 0, last = -1;
  for (i = 0; i < KF_NKINDS; i++)
    if (!flyte_only || kf_kinds[i].task_type) last = i;
  for (i = 0; i < KF_NKINDS; i++) {
    if (flyte_only && !kf_kinds[i].task_type) continue;
    l += (size_t)snprintf(buf + l, cap - l, "%s%s",
                          n++ == 0 ? "" : i == last ? " or " : ", ",
                          kf_kinds[i].name);
  }
}

static void kind_names_init(void) {
  names_of(names_buf, sizeof names_buf, 0);
  names_of(flyte_names_buf, sizeof flyte_names_buf, 1);
}

const char *kf_kind_names(void) {
  pthread_once(&names_once, kind_names_init);
  return names_buf;
}

const char *kf_flyte_kind_names(void) {
  pthread_once(&names_once, kind_names_init);
  return flyte_names_buf;
}

kf_status kf_need_task_type(int kind, const char *who, kf_err *e) {
  if (kf_kinds[kind].task_type != NULL) return KF_OK;
  return kf_fail(e, KF_EINVAL,
                 "%s: %s has no Flyte task type, so no plugin message, "
                 "TaskTemplate or TaskSpec (kinds with one: %s); the "
                 "training-operator runs it from manifest()",
                 who, kf_kinds[kind].name, kf_flyte_kind_names());
}

int kf_role_by_name(const char *name) {
  int i;
  for (i = 0; i < KF_NROLES; i++)
    if (strcmp(kf_roles[i].name, name) == 0) return i;
  return -1;
}

int kf_enum_parse(const kf_enum *en, const char *s) {
  int v, k;
  for (v = 0; v < en->n; v++)   /* the first byte rules out most spellings */
    for (k = 0; k < 3; k++)
      if (en->spell[v][k][0] == s[0] && strcmp(en->spell[v][k], s) == 0) return v;
  return -1;
}

int kf_parse_restart_policy(const char *s) {
  return kf_enum_parse(&kf_restart_policy_enum, s);
}
int kf_parse_clean_pod_policy(const char *s) {
  return kf_enum_parse(&kf_clean_pod_policy_enum, s);
}

int kf_group_takes_slow(const kf_field *f, int kind, int role) {
  if (f->flags & KF_F_REPLICAS)
    return kind < 0 || !(kf_kinds[kind].flags & KF_K_ELASTIC);
  if (f->flags & KF_F_COMMAND)
    return kind >= 0 ? (kf_kinds[kind].flags & KF_K_COMMAND) != 0
                     : role == KF_WORKER || role == KF_LAUNCHER;
  return 1;
}

int kf_python_task(const kf_job *j) {
  return j->kind == KF_ELASTIC && j->nnodes_int && j->max_nodes == 1;
}

const char *kf_task_type(const kf_job *j) {
  return kf_python_task(j) ? "python-task" : kf_kinds[j->kind].task_type;
}

static void defaults_of(kf_job *j, int kind) {
  const kf_kind_info *k = &kf_kinds[kind];
  size_t i;
  int r;
  memset(j, 0, sizeof *j);
  j->kind = kind;
  for (r = 0; r < KF_NROLES; r++) j->g[r].replicas = kf_roles[r].default_replicas;
  for (r = 0; r < k->nroles; r++)
    j->g[k->roles[r].role].replicas =
        kf_kind_role_bounds(k, k->roles[r].role).default_replicas;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    char *at = (char *)j + f->off;
    switch (f->type) {
      case KF_V_INT: case KF_V_ENUM: case KF_V_NPROC:
        *(int32_t *)(void *)at = f->idef;
        break;
      case KF_V_BOOL: *(int *)(void *)at = f->idef; break;
      case KF_V_STR: case KF_V_TOKEN: case KF_V_CHOICE:
        *(const char **)(void *)at = f->sdef;
        break;
      case KF_V_NNODES:
        j->min_nodes = j->max_nodes = f->idef;
        j->nnodes_int = 1;
        break;
      default: break;
    }
  }
}

/* Each kind's defaults, written once: every constructor starts from a
** copy (one block copy, not a pass over the kind's rows per job). */
static kf_job defaults[KF_NKINDS];
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void defaults_init(void) {
  int k;
  for (k = 0; k < KF_NKINDS; k++) defaults_of(&defaults[k], k);
}

void kf_job_defaults(kf_job *j, int kind) {
  pthread_once(&defaults_once, defaults_init);
  *j = defaults[kind];
}

/* ---- rules ------------------------------------------------------------ */

/* Path of a group's replica count in the given style. */
void kf_replicas_path(const kf_job *job, int role, int s, char *out,
                          size_t cap) {
  const kf_kind_role *kr = kf_kind_role_of(&kf_kinds[job->kind], role);
  char j[64];
  if (s == KF_PATH_SPEC && (job->deprecated >> role & 1u)) {
    snprintf(out, cap, "%s", kr->deprecated_key);  /* what the caller wrote */
  } else if (s == KF_PATH_SPEC) {
    snprintf(out, cap, "%s.replicas", kf_roles[role].key);
  } else if (s == KF_PATH_V1) {
    kf_json_name(kr->v1_field, j, sizeof j);
    snprintf(out, cap, "%s.replicas", j);
  } else {
    kf_json_name(kr->v0_field ? kr->v0_field : kr->v1_field, j, sizeof j);
    snprintf(out, cap, "%s", j);
  }
}

/* Each role's replica bounds that hold on every target (KF_R_*). */
kf_status kf_rule_replicas(const kf_job *j, int s, const char *who,
                               kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    int32_t n = j->g[role].replicas;
    unsigned f = kf_kind_role_bounds(k, role).flags;
    const char *rule = NULL;
    if (n < 0) rule = "must be >= 0";
    else if ((f & KF_R_FIXED1) && n != 1) rule = "must be 1";
    else if ((f & KF_R_OPT1) && n > 1) rule = "must be 0 or 1";
    else if ((f & KF_R_REQUIRED) && n < 1) rule = "must be >= 1";
    if (rule) {
      kf_replicas_path(j, role, s, path, sizeof path);
      return kf_fail(e, KF_EINVAL, "%s: %s: %s (got %d)", who, path, rule,
                     (int)n);
    }
  }
  return KF_OK;
}

/* At least one pod, where no group is required on its own (a PaddleJob
** with neither Master nor Workers would be an empty resource). */
kf_status kf_rule_some_replicas(const kf_job *j, int s, const char *who,
                                    kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i;
  for (i = 0; i < k->nroles; i++)
    if (j->g[k->roles[i].role].replicas > 0) return KF_OK;
  kf_replicas_path(j, k->roles[0].role, s, path, sizeof path);
  return kf_fail(e, KF_EINVAL, "%s: %s: must be >= 1 when %s.replicas is 0 "
                 "(a %s needs at least one pod)", who, path,
                 kf_roles[k->roles[k->nroles - 1].role].key, k->name);
}

/* Where a row is, in the given style: its spec key, or its proto path in
** JSON names. */
void kf_row_path(const char *parent_key, const char *parent_pb,
                 const kf_field *f, int s, char *out, size_t cap) {
  char a[64], b[64];
  if (s == KF_PATH_SPEC) {
    snprintf(out, cap, "%s%s%s", parent_key ? parent_key : "",
             parent_key ? "." : "", f->key);
    return;
  }
  if (parent_pb == NULL) parent_pb = f->pbmsg;
  kf_json_name(f->pb, b, sizeof b);
  if (parent_pb) kf_json_name(parent_pb, a, sizeof a);
  snprintf(out, cap, "%s%s%s", parent_pb ? a : "", parent_pb ? "." : "", b);
}

static kf_status bounds_of(const char *base, const kf_field *f, size_t n,
                           const char *pkey, const char *ppb, int s,
                           const char *who, kf_err *e) {
  char path[128];
  size_t i;
  for (i = 0; i < n; i++, f++) {
    const char *at = base + f->off;
    if (f->pb == NULL) continue;  /* checked where it is parsed */
    if ((f->type == KF_V_INT ||
         (f->type == KF_V_NPROC && !*(const char *const *)(const void *)(base + f->off_n))) &&
        *(const int32_t *)(const void *)at < f->min) {
      kf_row_path(pkey, ppb, f, s, path, sizeof path);
      return kf_fail(e, KF_EINVAL, "%s: %s: must be >= %d (got %d)", who, path,
                     (int)f->min, (int)*(const int32_t *)(const void *)at);
    }
    if (f->type == KF_V_NNODES) {
      const kf_job *j = (const kf_job *)(const void *)base;
      /* min > max is a target's matter (R9, kf_target_rules.c) */
      if (j->min_nodes < 1) {
        kf_row_path(pkey, ppb, f, s, path, sizeof path);
        return kf_fail(e, KF_EINVAL, "%s: %s: needs 1 <= min <= max (got %d:%d)",
                       who, path, (int)j->min_nodes, (int)j->max_nodes);
      }
    }
    if (f->type == KF_V_OBJ && f->off_n &&
        *(const int *)(const void *)(base + f->off_n)) {
      const kf_obj *o = (const kf_obj *)f->info;
      kf_status st = bounds_of(at, o->f, o->n, f->key, f->pb, s, who, e);
      if (st) return st;
    }
  }
  return KF_OK;
}

/* Every row's lower bound, for values that did not come through the
** parser (decoded messages). */
kf_status kf_rule_bounds(const kf_job *j, int s, const char *who,
                             kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  return bounds_of((const char *)j, k->fields, k->nfields, NULL, NULL, s, who,
                   e);
}

/* The Trainer rows: runtime_patch_manager by its validator; runtime_nodes
** (and runtime_trainer, which writes no spec.trainer at all) leaves the count to the runtime's mlPolicy.numNodes, so the job's own
** (what every other target runs) must be what the shipped runtimes say,
** 1 (manifests/base/runtimes: mlPolicy.numNodes: 1). */
kf_status kf_rule_trainer(const kf_job *j, int s, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  const char *row = kf_trainer_runtime_count(j);
  int64_t n;
  kf_status st;
  (void)s;
  if (j->runtime_patch_manager &&
      (st = kf_row_check(kf_row_find(k->fields, k->nfields, "runtime_patch_manager"),
                         j->runtime_patch_manager, "runtime_patch_manager", who, e)) != KF_OK)
    return st;
  if (row == NULL || (n = kf_trainer_nodes(j)) == 1) return KF_OK;
  return kf_fail(e, KF_EINVAL, "%s: %s: true leaves the node count to the "
                 "runtime's mlPolicy.numNodes (1 in the runtimes Trainer ships), but the "
                 "job has %lld nodes (set %s = false to write numNodes)", who, row,
                 (long long)n, row);
}

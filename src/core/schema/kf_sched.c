/*
** kf_sched.c - what holds for a job's scheduling on every target (SPEC
** §13, R27): Kueue's queue and priority class names are DNS-1123
** subdomains (kueue jobframework/validation.go ValidateQueueName), a
** topology asks for one mode; and the pod counts the gang rules and the
** CLI read.  Ranges (max_exec_time, min_available >= 1), the empty Volcano
** queue and the scheduler's name are the rows' own checks (kf_schema.c).
*/
#include <stdio.h>
#include <string.h>

#include "kf_sched.h"
#include "kf_target.h"

static int alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

const char *kf_dns1123_subdomain_problem(const char *s) {
  size_t n = strlen(s), i;
  if (n > 253) return "longer than 253 characters";
  for (i = 0; i < n; i++) {
    int edge = i == 0 || s[i - 1] == '.' || i + 1 == n || s[i + 1] == '.';
    if (alnum(s[i]) || (!edge && (s[i] == '-' || s[i] == '.'))) continue;
    return edge && (s[i] == '-' || s[i] == '.')
               ? "each '.'-separated part must start and end with a lowercase "
                 "letter or digit"
               : "only lowercase letters, digits, '-' and '.' are allowed";
  }
  return NULL;
}

static kf_status name_rule(const char *v, const char *path, const char *who,
                           kf_err *e) {
  const char *why = v ? kf_dns1123_subdomain_problem(v) : NULL;
  if (why == NULL) return KF_OK;
  return kf_fail(e, KF_EINVAL, "%s: %s: '%.80s' is not a DNS-1123 subdomain "
                 "(%s; Kueue's webhook refuses it)", who, path, v, why);
}

/* One of required, preferred, unconstrained (Kueue reads one). */
static kf_status topology_rule(const kf_topology *t, const char *path,
                               const char *who, kf_err *e) {
  const char *a = t->required ? "required" : NULL, *b = NULL;
  if (t->preferred) (a ? (b = "preferred") : (a = "preferred"));
  if (t->unconstrained && !b) (a ? (b = "unconstrained") : (a = "unconstrained"));
  if (b == NULL) return KF_OK;
  return kf_fail(e, KF_EINVAL, "%s: %s: %s and %s cannot be combined (a pod "
                 "set has one topology mode: required, preferred or "
                 "unconstrained)", who, path, a, b);
}

kf_status kf_rule_sched(const kf_job *j, int style, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[64];
  kf_status st;
  int i;
  (void)style;   /* scheduling never travels in a plugin message */
  if (j->has_scheduling) {
    if ((st = name_rule(j->sched.queue, "scheduling.queue", who, e)) != KF_OK ||
        (st = name_rule(j->sched.priority_class, "scheduling.priority_class",
                        who, e)) != KF_OK)
      return st;
    if (j->sched.has_topology &&
        (st = topology_rule(&j->sched.topology, "scheduling.topology", who, e)) != KF_OK)
      return st;
  }
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (!g->has_topology) continue;
    snprintf(path, sizeof path, "%s.topology", kf_roles[k->roles[i].role].key);
    if ((st = topology_rule(&g->topology, path, who, e)) != KF_OK) return st;
  }
  return KF_OK;
}

int kf_sched_has_group_settings(const kf_job *j) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (g->pod_template || g->has_topology) return 1;
  }
  return 0;
}

int kf_sched_elastic(const kf_job *j) {
  return j->kind == KF_ELASTIC && !j->nnodes_int && j->min_nodes < j->max_nodes;
}

int64_t kf_sched_pod_count(const kf_job *j, int target) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int64_t n = 0;
  int i;
  if (k->flags & KF_K_ELASTIC) return j->max_nodes;
  if (target == KF_T_MPI_OPERATOR)
    return (j->g[KF_WORKER].replicas > 0 ? j->g[KF_WORKER].replicas : 0) + 1;
  if (target == KF_T_TRAINER_22 || target == KF_T_TRAINER_23)
    return 1 + (j->g[KF_WORKER].replicas > 0 ? j->g[KF_WORKER].replicas : 0);
  for (i = 0; i < k->nroles; i++) {
    int32_t r = j->g[k->roles[i].role].replicas;
    if (r > 0) n += r;
  }
  return n;
}

int64_t kf_sched_gang_size(const kf_job *j, int target, int *set) {
  *set = j->has_scheduling && j->sched.has_gang && j->sched.gang.min_available > 0;
  return *set ? j->sched.gang.min_available : kf_sched_pod_count(j, target);
}

/*
** kf_whole.c - the whole job: what its pods run (`container`, a group's
** `container`) and where the resource lives (`namespace`, `labels`,
** `annotations`).  The value trees the rows hold (env, labels,
** annotations) are checked here as the API server checks them
** (kubernetes pkg/apis/core/validation: validateEnv, ValidateLabels,
** ValidateAnnotations), and the rule relating them to the rest of the job.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_pod.h"
#include "kf_sched.h"


static int empty_table(const kf_node *n) {
  return (n->t == KF_NOBJ || n->t == KF_NARR) && n->u.c.n == 0 && n->tag == NULL;
}

/* A table of name = string: every value a string; keys checked by `ok`
** (NULL: any) with `why` as the problem. */
static kf_status string_map(const kf_node *in, const char *who, const char *path,
                            int (*ok)(const char *), const char *why, kf_err *e) {
  char p[200];
  size_t i;
  if (in->t != KF_NOBJ || in->tag != NULL)
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a table of name = string", who, path);
  for (i = 0; i < in->u.c.n; i++) {
    kf_key_path(p, sizeof p, path, in->u.c.k[i]);
    if (in->u.c.v[i]->t != KF_NSTR)
      return kf_fail(e, KF_EINVAL, "%s: %s: expected a string", who, p);
    if (!kf_utf8_ok(in->u.c.k[i], strlen(in->u.c.k[i])) ||
        !kf_utf8_ok(in->u.c.v[i]->u.s.p, in->u.c.v[i]->u.s.n))   /* manifests are UTF-8 */
      return kf_fail(e, KF_EINVAL, "%s: %s: not valid UTF-8", who, p);
    if (ok && !ok(in->u.c.k[i])) return kf_fail(e, KF_EINVAL, "%s: %s: %s", who, p, why);
  }
  return KF_OK;
}

/* env: a list of EnvVars (the CRD's schema, then validateEnv), kept in its
** order, or a table of name = value, held (and emitted) sorted by name as
** opts.env is (SPEC §16).  A table is no list: a value referring to a name
** sorting after it does not expand (Kubernetes expands only variables
** defined earlier in the list); a list keeps the order it is given in. */
static kf_status check_env(const kf_node *in, kf_arena *A, const kf_node **out,
                           const char *who, const char *path, kf_err *e) {
  char owner[200];
  size_t n = strlen(path);
  kf_status st;
  if (empty_table(in)) {
    *out = NULL;
    return KF_OK;
  }
  if (in->t == KF_NOBJ && in->tag == NULL) {
    if ((st = string_map(in, who, path, kf_env_name, "invalid environment variable name "
                         "(letters, digits, '_', '-' or '.', not starting with a digit)",
                         e)) != KF_OK)
      return st;
    return (*out = kf_tree_sorted(in, A)) != NULL ? KF_OK : kf_nomem(e);
  }
  if (in->t != KF_NARR)
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a list of {name =, value =} or "
                   "{name =, valueFrom =} entries, or a table of name = value", who, path);
  if ((st = kf_pod_check_env(in, A, out, who, path, e)) != KF_OK) return st;
  snprintf(owner, sizeof owner, "%.*s", (int)(n > 4 ? n - 4 : 0), path);   /* - ".env" */
  return kf_pod_api_env(*out, A, who, owner, e);
}

static int label_key(const char *k) { return kf_check_ok(kf_labels_tree.key_check, k); }
static int annotation_key_ok(const char *k) {
  return kf_check_ok(kf_annotations_tree.key_check, k);
}

/* The Kueue labels scheduling writes (queue, priority_class,
** max_exec_time) are its rows' alone: a manifest's are read back as
** scheduling, and only there are they checked as Kueue takes them (R27).
** mine: what scheduling writes for the key, when the job has it. */
static kf_status kueue_label(const char *k, const char *mine, const char *who,
                             const char *path, kf_err *e) {
  static const char *const keys[3] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC};
  static const char *const rows[3] = {"queue", "priority_class", "max_exec_time"};
  char p[200];
  int i;
  for (i = 0; i < 3; i++)
    if (strcmp(k, keys[i]) == 0) {
      kf_key_path(p, sizeof p, path, k);
      if (mine)
        return kf_fail(e, KF_EINVAL, "%s: %s: differs from scheduling.%s ('%.80s'), "
                       "which kfjob writes as this label: a pod template may only "
                       "repeat it", who, p, rows[i], mine);
      return kf_fail(e, KF_EINVAL, "%s: %s: a Kueue label kfjob writes from "
                     "scheduling.%s: set scheduling.%s instead", who, p, rows[i], rows[i]);
    }
  return KF_OK;
}

static kf_status check_labels(const kf_node *in, kf_arena *A, const kf_node **out,
                              const char *who, const char *path, kf_err *e) {
  static const char key_rule[] = "invalid label key (an optional DNS subdomain prefix "
      "and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending "
      "with a letter or digit)";
  char p[200];
  size_t i;
  kf_status st;
  if (empty_table(in)) return *out = NULL, KF_OK;
  if ((st = string_map(in, who, path, label_key, key_rule, e)) != KF_OK) return st;
  for (i = 0; i < in->u.c.n; i++)
    if ((st = kueue_label(in->u.c.k[i], NULL, who, path, e)) != KF_OK) return st;
  for (i = 0; i < in->u.c.n; i++)
    if (!kf_check_ok(kf_labels_tree.value_check, in->u.c.v[i]->u.s.p)) {
      kf_key_path(p, sizeof p, path, in->u.c.k[i]);
      return kf_fail(e, KF_EINVAL, "%s: %s: invalid label value '%.100s' (empty, or at "
                     "most 63 letters, digits, '-', '_' or '.', starting and ending with "
                     "a letter or digit)", who, p, in->u.c.v[i]->u.s.p);
    }
  return (*out = kf_tree_sorted(in, A)) ? KF_OK : kf_nomem(e);
}

static kf_status check_annotations(const kf_node *in, kf_arena *A, const kf_node **out,
                                   const char *who, const char *path, kf_err *e) {
  static const char key_rule[] = "invalid annotation key (an optional DNS subdomain "
      "prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and "
      "ending with a letter or digit)";
  size_t i, total = 0;
  kf_status st;
  if (empty_table(in)) return *out = NULL, KF_OK;
  if ((st = string_map(in, who, path, annotation_key_ok, key_rule, e)) != KF_OK) return st;
  for (i = 0; i < in->u.c.n; i++)
    total += strlen(in->u.c.k[i]) + in->u.c.v[i]->u.s.n;
  if (total > 256 * 1024)   /* ValidateAnnotations: TotalAnnotationSizeLimitB */
    return kf_fail(e, KF_EINVAL, "%s: %s: larger than the 256 KiB Kubernetes allows",
                   who, path);
  return (*out = kf_tree_sorted(in, A)) ? KF_OK : kf_nomem(e);
}

const kf_tree kf_env_tree = {"a list of EnvVars or a table of name = value", check_env,
                             "Env", 0, 0};
const kf_tree kf_labels_tree = {"a table of label = value", check_labels, "StringMap",
                                KF_CHECK_LABEL_KEY, KF_CHECK_LABEL_VALUE};
/* (the values are any strings) */
const kf_tree kf_annotations_tree = {"a table of annotation = value", check_annotations,
                                     "StringMap", KF_CHECK_ANNOTATION_KEY, 0};

/* What scheduling writes as Kueue's label keys[i] (queue-name,
** priority-class, max-exec-time-seconds), or NULL; n: room for the time. */
static const char *sched_label(const kf_job *j, int i, char n[32]) {
  if (!j->has_scheduling) return NULL;
  if (i == 0) return j->sched.queue;
  if (i == 1) return j->sched.priority_class;
  if (j->sched.max_exec_time <= 0) return NULL;
  kf_format_int(j->sched.max_exec_time, n);
  return n;
}

/* A pod template's Kueue labels (queue-name, priority-class,
** max-exec-time-seconds) are scheduling's: Flyte 2 copies a pod
** template's labels onto the resource, where another value would bypass
** R27.  A copy of what scheduling writes is harmless (Kueue reads the
** job's own labels, jobframework QueueName) and hand-written manifests
** repeat it in their pod templates: it stays. */
static kf_status pod_kueue(const kf_job *j, const kf_node *tp, const char *at,
                           const char *who, kf_err *e) {
  static const char *const keys[3] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC};
  const kf_node *l = kf_node_get(kf_node_get(tp, "metadata"), "labels");
  char p[200], n[32];
  size_t i;
  int k;
  kf_status st;
  if (l == NULL || l->t != KF_NOBJ) return KF_OK;
  snprintf(p, sizeof p, "%s.metadata.labels", at);
  for (i = 0; i < l->u.c.n; i++) {
    const char *mine = NULL;
    for (k = 0; k < 3 && strcmp(l->u.c.k[i], keys[k]) != 0; k++) {}
    if (k < 3) mine = sched_label(j, k, n);
    if (mine && l->u.c.v[i]->t == KF_NSTR && strcmp(mine, l->u.c.v[i]->u.s.p) == 0)
      continue;
    if ((st = kueue_label(l->u.c.k[i], mine, who, p, e)) != KF_OK) return st;
  }
  return KF_OK;
}

/* Extended resources' requests against their limits; the namespace is a
** DNS-1123 label (its row's check); an MPI group's
** command is its container's args, so both cannot be given; no Kueue
** label in a pod template but a copy of scheduling's. */
kf_status kf_rule_whole(const kf_job *j, int style, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_status st;
  int i;
  (void)style;
  if ((st = kf_rule_ext_res(j, who, e)) != KF_OK) return st;
  if (j->ns && (st = kf_row_check(kf_row_find(k->fields, k->nfields, "namespace"),
                                  j->ns, "namespace", who, e)) != KF_OK)
    return st;
  if (j->pod_template && (st = pod_kueue(j, j->pod_template, "pod_template", who, e)) != KF_OK)
    return st;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (g->pod_template) {   /* the path only when there is a template: */
      char at[64];           /* snprintf per role was 6% of construction */
      snprintf(at, sizeof at, "%s.pod_template", kf_roles[k->roles[i].role].key);
      if ((st = pod_kueue(j, g->pod_template, at, who, e)) != KF_OK) return st;
    }
    if (g->ncommand && g->has_container && g->container.nargs)
      return kf_fail(e, KF_EINVAL, "%s: %s.container.args: not with %s.command (an MPI "
                     "group's command is its container's args)", who,
                     kf_roles[k->roles[i].role].key, kf_roles[k->roles[i].role].key);
  }
  return KF_OK;
}

/*
** kf_emit.c - a job's manifest and its pods' environment for a target:
** the target's rule rows first (rules/), then the target's writer (kube/).
*/
#include <string.h>

#include "kf_emit.h"

/* The target's rule rows for the options' name, image and (when env is
** given) the user's variables, checked against the target's (R16). */
static kf_status require_rules(const kf_job *j, kf_target t, const kf_manifest_opts *o,
                               const char *image, kf_kvs *env, kf_arena *A,
                               const char *who, kf_err *e) {
  kf_target_ctx tc;
  kf_status st;
  memset(&tc, 0, sizeof tc);
  tc.name = o->name, tc.image = image;
  if (env) {
    if ((st = kf_env_user_vars(&o->env, A, env, who, e)) != KF_OK) return st;
    tc.env = env;
  }
  return kf_target_require(j, t, &tc, A, NULL, e);
}

kf_status kf_manifest(const kf_job *j, const kf_manifest_opts *o, kf_arena *A,
                      kf_node **out, const char *who, kf_err *e) {
  kf_target t = o->target_set ? o->target : KF_T_OPERATOR;
  kf_kvs env;
  kf_job one;
  kf_status st = kf_target_allows(t, KF_E_MANIFEST, j->kind, "manifest", who, e);
  j = kf_job_for_target(j, t, &one);
  if (st != KF_OK ||
      (st = require_rules(j, t, o, kfm_task_image(j, o), o->env.n > 0 ? &env : NULL, A,
                          who, e)) != KF_OK)
    return st;
  return kf_manifest_write(j, t, o, A, out, who, e);
}

kf_status kf_environment(const kf_job *j, const kf_manifest_opts *o,
                         kf_arena *A, kf_node **out, const char *who,
                         kf_err *e) {
  kf_target t = o->target_set ? o->target : KF_T_OPERATOR;
  kf_kvs env;
  char pod[256];
  size_t len;
  kf_status st;
  kf_job one;
  if ((st = kf_target_allows(t, KF_E_ENVIRONMENT, j->kind, "environment", who, e)) != KF_OK)
    return st;
  j = kf_job_for_target(j, t, &one);
  if (o->name == NULL)
    return kf_fail(e, KF_EINVAL, "%s: opts.name: required (the resource name, "
                   "a DNS-1035 label)", who);
  if (!kf_dns_label(o->name, strlen(o->name), 1))
    return kf_fail(e, KF_EINVAL, "%s: opts.name: '%.100s' is not a DNS-1035 "
                   "label (%s)", who, o->name, kfm_dns1035_rule);
  if (strlen(o->name) > 63)
    return kf_fail(e, KF_EINVAL, "%s: opts.name: '%.100s' is not a DNS-1035 "
                   "label (at most 63 characters)", who, o->name);
  /* R15 stays an error on the operator, as in its manifests */
  if (t == KF_T_OPERATOR && (len = kfm_longest_pod(j, o->name, pod, sizeof pod)) > 63)
    return kf_fail(e, KF_EINVAL, "%s: opts.name: too long for this job: pod "
                   "name '%s' has %zu characters (at most 63)", who, pod, len);
  if ((st = kf_check_value(KF_CHECK_DNS_LABEL, o->ns, "opts.namespace", who, e)) != KF_OK)
    return st;
  if ((st = require_rules(j, t, o, NULL, &env, A, who, e)) != KF_OK) return st;
  return kf_environment_write(j, t, o, &env, A, out, who, e);
}

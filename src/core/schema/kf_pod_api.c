/*
** kf_pod_api.c - rules of the Kubernetes API server's pod validation that a
** pod template alone can show, applied at construction after the CRD
** schema check (kf_pod.c): the CRD schema is not the whole contract, the
** pods the operator creates also go through kubernetes/kubernetes
** pkg/apis/core/validation/validation.go (ValidatePodTemplateSpec and what
** it calls).  Each rule names that function; messages keep the API
** server's words ("Required value", "Invalid value: ...: <why>").
*/
#include <stdio.h>
#include <string.h>

#include "kf_pod.h"

#define DNS1123_LABEL_MSG "a lowercase RFC 1123 label must consist of lower case " \
  "alphanumeric characters or '-', and must start and end with an alphanumeric character"

typedef struct actx {
  const char *who, *pre;
  kf_err *e;
} actx;

static kf_status bad(actx *c, const char *path, const char *problem) {
  return kf_fail(c->e, KF_EINVAL, "%s: %s%s: %s", c->who, c->pre, path, problem);
}

static kf_status invalid_str(actx *c, const char *path, const char *v,
                             const char *why) {
  char p[400];
  snprintf(p, sizeof p, "Invalid value: \"%.80s\": %s", v, why);
  return bad(c, path, p);
}

static const char *str(const kf_node *o, const char *k) {
  const kf_node *v = o ? kf_node_get(o, k) : NULL;
  return v && v->t == KF_NSTR ? v->u.s.p : NULL;
}

/* IsDNS1123Label (k8s.io/apimachinery pkg/util/validation). */
static int dns_label_ok(const char *s) {
  size_t n = strlen(s), i;
  if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-') return 0;
  for (i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
      return 0;
  return 1;
}

/* ValidateEnvVarName: IsEnvVarName, [-._a-zA-Z][-._a-zA-Z0-9]*. */
static int env_name_ok(const char *s) {
  size_t i;
  if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (i = 0; s[i]; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
          (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
      return 0;
  return 1;
}

/* validateEnv, validateEnvVarValueFrom. */
static kf_status check_env(actx *c, const char *base, const kf_node *env) {
  char p[200];
  size_t i;
  for (i = 0; env && env->t == KF_NARR && i < env->u.c.n; i++) {
    const kf_node *ev = env->u.c.v[i];
    const char *name = str(ev, "name"), *value = str(ev, "value");
    snprintf(p, sizeof p, "%s.env[%zu].name", base, i + 1);
    if (name == NULL || name[0] == '\0') return bad(c, p, "Required value");
    if (!env_name_ok(name))
      return invalid_str(c, p, name, "a valid environment variable name must "
                         "consist of alphabetic characters, digits, '_', '-', or "
                         "'.', and must not start with a digit");
    if (value && value[0] && kf_node_get(ev, "valueFrom")) {
      snprintf(p, sizeof p, "%s.env[%zu].valueFrom", base, i + 1);
      return bad(c, p, "Invalid value: \"\": may not be specified when `value` "
                 "is not empty");
    }
  }
  return KF_OK;
}

/* validateContainerPorts: containerPort and a non-zero hostPort are port
** numbers (IsValidPortNum). */
static kf_status check_ports(actx *c, const char *base, const kf_node *ports) {
  static const char *const keys[] = {"containerPort", "hostPort"};
  char p[200], v[400];
  size_t i, k;
  for (i = 0; ports && ports->t == KF_NARR && i < ports->u.c.n; i++)
    for (k = 0; k < 2; k++) {
      const kf_node *n = kf_node_get(ports->u.c.v[i], keys[k]);
      if (n == NULL || n->t != KF_NINT || (k == 1 && n->u.i == 0)) continue;
      if (n->u.i >= 1 && n->u.i <= 65535) continue;
      snprintf(p, sizeof p, "%s.ports[%zu].%s", base, i + 1, keys[k]);
      snprintf(v, sizeof v, "Invalid value: %lld: must be between 1 and 65535, "
               "inclusive", (long long)n->u.i);
      return bad(c, p, v);
    }
  return KF_OK;
}

/* validateContainers / validateInitContainers: names are DNS-1123 labels
** and unique over both lists; every container but the primary (kfjob sets
** its image) names an image; then env and ports. */
static kf_status check_containers(actx *c, const kf_node *spec, const char *primary) {
  static const char *const lists[] = {"initContainers", "containers"};
  char p[200];
  size_t l, i;
  kf_status st;
  for (l = 0; l < 2; l++) {
    const kf_node *cs = kf_node_get(spec, lists[l]);
    for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++) {
      const kf_node *ct = cs->u.c.v[i];
      const char *name = str(ct, "name");
      snprintf(p, sizeof p, "spec.%s[%zu]", lists[l], i + 1);
      if (name && !dns_label_ok(name)) {
        strcat(p, ".name");
        return invalid_str(c, p, name, DNS1123_LABEL_MSG);
      }
      if ((l == 0 || !name || strcmp(name, primary) != 0) &&
          (str(ct, "image") == NULL || str(ct, "image")[0] == '\0')) {
        strcat(p, ".image");
        return bad(c, p, "Required value");
      }
      if ((st = check_env(c, p, kf_node_get(ct, "env"))) != KF_OK ||
          (st = check_ports(c, p, kf_node_get(ct, "ports"))) != KF_OK)
        return st;
    }
  }
  return KF_OK;
}

/* An init container named like a container: validateInitContainers
** checks init names against the containers' (Duplicate value). */
static kf_status check_names_across(actx *c, const kf_node *spec) {
  const kf_node *in = kf_node_get(spec, "initContainers");
  const kf_node *cs = kf_node_get(spec, "containers");
  size_t i, j;
  char p[200], v[200];
  /* each list is unique already (list-map keys, by hash set); the init
  ** list is short, so its names are looked up in the containers' */
  for (i = 0; in && in->t == KF_NARR && i < in->u.c.n; i++) {
    const char *a = str(in->u.c.v[i], "name");
    for (j = 0; a && cs && cs->t == KF_NARR && j < cs->u.c.n; j++) {
      const char *b = str(cs->u.c.v[j], "name");
      if (b && strcmp(a, b) == 0) {
        snprintf(p, sizeof p, "spec.initContainers[%zu].name", i + 1);
        snprintf(v, sizeof v, "Duplicate value: \"%.80s\"", a);
        return bad(c, p, v);
      }
    }
  }
  return KF_OK;
}

/* validateTolerations. */
static kf_status check_tolerations(actx *c, const kf_node *spec) {
  const kf_node *ts = kf_node_get(spec, "tolerations");
  char p[200];
  size_t i;
  for (i = 0; ts && ts->t == KF_NARR && i < ts->u.c.n; i++) {
    const kf_node *t = ts->u.c.v[i];
    const char *key = str(t, "key"), *op = str(t, "operator"), *val = str(t, "value");
    const char *eff = str(t, "effect");
    int exists = op && strcmp(op, "Exists") == 0;
    snprintf(p, sizeof p, "spec.tolerations[%zu].operator", i + 1);
    if ((key == NULL || key[0] == '\0') && !exists)
      return invalid_str(c, p, op ? op : "", "operator must be Exists when `key` "
                         "is empty, which means \"match all values and all keys\"");
    if (exists && val && val[0]) {
      snprintf(p, sizeof p, "spec.tolerations[%zu].operator", i + 1);
      return invalid_str(c, p, val, "value must be empty when `operator` is 'Exists'");
    }
    if (kf_node_get(t, "tolerationSeconds") && (eff == NULL || strcmp(eff, "NoExecute"))) {
      snprintf(p, sizeof p, "spec.tolerations[%zu].effect", i + 1);
      return invalid_str(c, p, eff ? eff : "", "effect must be 'NoExecute' when "
                         "`tolerationSeconds` is set");
    }
  }
  return KF_OK;
}

static int alnum(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* IsValidLabelValue (empty allowed) and the name part of IsQualifiedName. */
static int label_value_ok(const char *s) {
  size_t n = strlen(s), i;
  if (n == 0) return 1;
  if (n > 63 || !alnum(s[0]) || !alnum(s[n - 1])) return 0;
  for (i = 0; i < n; i++)
    if (!alnum(s[i]) && !strchr("-_.", s[i])) return 0;
  return 1;
}

/* IsQualifiedName: [DNS-1123 subdomain prefix '/'] name part. */
static int qualified_name_ok(const char *k) {
  const char *slash = strchr(k, '/');
  size_t i;
  if (slash == NULL) return k[0] != '\0' && label_value_ok(k);
  if (slash == k || slash - k > 253 || !label_value_ok(slash + 1) || slash[1] == '\0')
    return 0;
  for (i = 0; k + i < slash; i++)
    if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') ||
          k[i] == '-' || k[i] == '.'))
      return 0;
  return alnum(k[0]) && alnum(slash[-1]);
}

#define QNAME_MSG "name part must consist of alphanumeric characters, '-', '_' or " \
  "'.', and must start and end with an alphanumeric character, with an optional " \
  "DNS subdomain prefix and '/'"
#define LABEL_VALUE_MSG "a valid label must be an empty string or consist of " \
  "alphanumeric characters, '-', '_' or '.', and must start and end with an " \
  "alphanumeric character"

/* ValidatePodSpec: nodeSelector as labels (ValidateLabels: IsQualifiedName,
** IsValidLabelValue), activeDeadlineSeconds within [1, MaxInt32]. */
static kf_status check_pod_fields(actx *c, const kf_node *spec) {
  const kf_node *ns = kf_node_get(spec, "nodeSelector");
  const kf_node *ad = kf_node_get(spec, "activeDeadlineSeconds");
  char p[400];
  size_t i;
  for (i = 0; ns && ns->t == KF_NOBJ && i < ns->u.c.n; i++) {
    const char *k = ns->u.c.k[i], *v = ns->u.c.v[i]->u.s.p;
    snprintf(p, sizeof p, "spec.nodeSelector.%.100s", k);
    if (!qualified_name_ok(k)) return invalid_str(c, p, k, QNAME_MSG);
    if (ns->u.c.v[i]->t == KF_NSTR && !label_value_ok(v))
      return invalid_str(c, p, v, LABEL_VALUE_MSG);
  }
  if (ad && ad->t == KF_NINT && (ad->u.i < 1 || ad->u.i > 2147483647)) {
    snprintf(p, sizeof p, "Invalid value: %lld: must be between 1 and "
             "2147483647, inclusive", (long long)ad->u.i);
    return bad(c, "spec.activeDeadlineSeconds", p);
  }
  return KF_OK;
}

/* ValidateVolumes / validateVolumeSource: exactly one source per volume;
** ValidateVolumeMounts: a mount names a volume of the pod. */
static int has_volume(const kf_node *vols, const char *name) {
  size_t i;
  for (i = 0; vols && vols->t == KF_NARR && i < vols->u.c.n; i++) {
    const char *n = str(vols->u.c.v[i], "name");
    if (n && strcmp(n, name) == 0) return 1;
  }
  return 0;
}

static kf_status check_volumes(actx *c, const kf_node *spec) {
  static const char *const lists[] = {"initContainers", "containers"};
  const kf_node *vols = kf_node_get(spec, "volumes");
  char p[200], v[200];
  size_t i, j, l;
  for (i = 0; vols && vols->t == KF_NARR && i < vols->u.c.n; i++) {
    const kf_node *vol = vols->u.c.v[i];
    size_t sources = vol->u.c.n - (kf_node_get(vol, "name") != NULL);
    snprintf(p, sizeof p, "spec.volumes[%zu]", i + 1);
    if (sources == 0) return bad(c, p, "Required value: must specify a volume type");
    if (sources > 1) return bad(c, p, "Forbidden: may not specify more than 1 volume type");
  }
  for (l = 0; l < 2; l++) {
    const kf_node *cs = kf_node_get(spec, lists[l]);
    for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++) {
      const kf_node *ms = kf_node_get(cs->u.c.v[i], "volumeMounts");
      for (j = 0; ms && ms->t == KF_NARR && j < ms->u.c.n; j++) {
        const char *n = str(ms->u.c.v[j], "name");
        /* the shared-memory volume kfjob adds itself */
        if (n == NULL || has_volume(vols, n) || strcmp(n, KF_SHM_VOLUME) == 0) continue;
        snprintf(p, sizeof p, "spec.%s[%zu].volumeMounts[%zu].name", lists[l], i + 1, j + 1);
        snprintf(v, sizeof v, "Not found: \"%.80s\"", n);
        return bad(c, p, v);
      }
    }
  }
  return KF_OK;
}

kf_status kf_pod_api_check(const kf_node *tmpl, const char *who,
                           const char *prefix, kf_err *e) {
  const kf_node *spec = kf_node_get(tmpl, "spec");
  actx c;
  kf_status st;
  char pre[80];
  snprintf(pre, sizeof pre, "%s%s", prefix, prefix[0] ? "." : "");
  c.who = who, c.pre = pre, c.e = e;
  if (spec == NULL || spec->t != KF_NOBJ) return KF_OK;
  if ((st = check_containers(&c, spec, kf_pod_primary_name(tmpl))) != KF_OK ||
      (st = check_names_across(&c, spec)) != KF_OK ||
      (st = check_tolerations(&c, spec)) != KF_OK ||
      (st = check_pod_fields(&c, spec)) != KF_OK ||
      (st = check_volumes(&c, spec)) != KF_OK)
    return st;
  return KF_OK;
}

/* The accelerator becomes a node-affinity value and a toleration value:
** a label value (IsValidLabelValue, via validateTolerations). */
/* The primary container's name: the template's own choice or the default.
** Here, below kf_pod.c, which calls into this file. */
const char *kf_pod_primary_name(const kf_node *t) {
  const kf_node *p = t ? kf_node_get(t, "primary_container_name") : NULL;
  return p && p->t == KF_NSTR ? p->u.s.p : KF_PRIMARY_DEFAULT;
}

kf_status kf_pod_api_accel(const char *device, const char *who, kf_err *e) {
  if (label_value_ok(device)) return KF_OK;
  return kf_fail(e, KF_EINVAL, "%s: accelerator.device: Invalid value: \"%.80s\": %s",
                 who, device, LABEL_VALUE_MSG);
}

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
#include <stdlib.h>
#include <string.h>

#include "kf_pod.h"
#include "kf_qty.h"

#define DNS1123_LABEL_MSG "a lowercase RFC 1123 label must consist of lower case " \
  "alphanumeric characters or '-', and must start and end with an alphanumeric character"

typedef struct actx {
  const char *who, *pre;
  kf_arena *A;   /* scratch for the hash sets of kf_uniq.c */
  kf_err *e;
} actx;

static kf_status bad(actx *c, const char *path, const char *problem) {
  return kf_fail(c->e, KF_EINVAL, "%s: %s%s: %s", c->who, c->pre, path, problem);
}

static kf_status invalid_str(actx *c, const char *path, const char *v,
                             const char *why) {
  char p[520];
  snprintf(p, sizeof p, "Invalid value: \"%.80s\": %.400s", v, why);
  return bad(c, path, p);
}

static const char *str(const kf_node *o, const char *k) {
  const kf_node *v = o ? kf_node_get(o, k) : NULL;
  return v && v->t == KF_NSTR ? v->u.s.p : NULL;
}

#define MAX63_MSG "must be no more than 63 characters"

/* IsDNS1123Label (k8s.io/apimachinery pkg/util/validation): NULL, or its
** messages (the length, the pattern) joined with "; ". */
static const char *dns_label_problem(const char *s) {
  size_t n = strlen(s);
  int chars = kf_dns_label(s, n, 0);
  if (n > 63) return chars ? MAX63_MSG : MAX63_MSG "; " DNS1123_LABEL_MSG;
  return chars ? NULL : DNS1123_LABEL_MSG;
}

/* ValidateEnvVarName: IsEnvVarName, [-._a-zA-Z][-._a-zA-Z0-9]*. */

/* validateEnvVarValueFrom: not beside a non-empty value; exactly one of
** its sources. */
static kf_status check_value_from(actx *c, const char *base, size_t i,
                                  const kf_node *ev) {
  static const char *const src[] = {"fieldRef", "resourceFieldRef", "configMapKeyRef",
                                    "secretKeyRef", NULL};
  const kf_node *vf = kf_node_get(ev, "valueFrom");
  const char *value = str(ev, "value");
  char p[200];
  size_t k, n = 0;
  if (vf == NULL) return KF_OK;
  snprintf(p, sizeof p, "%s.env[%zu].valueFrom", base, i + 1);
  for (k = 0; src[k]; k++) n += kf_node_get(vf, src[k]) != NULL;
  if (n == 0)
    return bad(c, p, "Invalid value: \"\": must specify one of: `fieldRef`, "
               "`resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`");
  if (value && value[0])
    return bad(c, p, "Invalid value: \"\": may not be specified when `value` is not empty");
  if (n > 1)
    return bad(c, p, "Invalid value: \"\": may not have more than one field specified at a time");
  return KF_OK;
}

/* validateEnv, validateEnvVarValueFrom. */
static kf_status check_env(actx *c, const char *base, const kf_node *env) {
  char p[200];
  size_t i;
  kf_status st;
  for (i = 0; env && env->t == KF_NARR && i < env->u.c.n; i++) {
    const kf_node *ev = env->u.c.v[i];
    const char *name = str(ev, "name");
    snprintf(p, sizeof p, "%s.env[%zu].name", base, i + 1);
    if (name == NULL || name[0] == '\0') return bad(c, p, "Required value");
    if (!kf_env_name(name))
      return invalid_str(c, p, name, "a valid environment variable name must "
                         "consist of alphabetic characters, digits, '_', '-', or "
                         "'.', and must not start with a digit");
    if ((st = check_value_from(c, base, i, ev)) != KF_OK) return st;
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

/* IsValidPortName (IANA_SVC_NAME): its messages joined with "; " into
** buf, or NULL. */
static const char *port_name_problem(const char *s, char *buf, size_t cap) {
  size_t n = strlen(s), i;
  int chars = 1, letter = 0;
  buf[0] = '\0';
  for (i = 0; i < n; i++) {
    if (s[i] >= 'a' && s[i] <= 'z') letter = 1;
    else if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '-')) chars = 0;
  }
#define ADD(m) (void)(buf[0] ? strncat(buf, "; " m, cap - strlen(buf) - 1) : strncat(buf, m, cap - 1))
  if (n > 15) ADD("must be no more than 15 characters");
  if (!chars) ADD("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) ADD("must contain at least one letter (a-z)");
  if (strstr(s, "--")) ADD("must not contain consecutive hyphens");
  if (n && (s[0] == '-' || s[n - 1] == '-')) ADD("must not begin or end with a hyphen");
#undef ADD
  return buf[0] ? buf : NULL;
}

/* Items of a ports list by name; nameless ones never equal. */
static uint64_t port_name_hash(const void *ud, size_t i) {
  const kf_node *n = kf_node_get(((const kf_node *)ud)->u.c.v[i], "name");
  return n && n->t == KF_NSTR && n->u.s.n ? kf_node_hash(n, KF_HASH_SEED) : i;
}

static int port_name_eq(const void *ud, size_t a, size_t b) {
  const char *x = str(((const kf_node *)ud)->u.c.v[a], "name");
  const char *y = str(((const kf_node *)ud)->u.c.v[b], "name");
  return x && y && x[0] && strcmp(x, y) == 0;
}

/* validateContainerPorts: a port name is an IANA_SVC_NAME, unique in its
** container (by hash set, as Kubernetes' sets); a protocol is TCP, UDP or
** SCTP (supportedPortProtocols). */
static kf_status check_port_names(actx *c, const char *base, const kf_node *ports) {
  char p[200], why[300];
  size_t i, first, dup;
  int nomem;
  if (ports == NULL || ports->t != KF_NARR) return KF_OK;
  for (i = 0; i < ports->u.c.n; i++) {
    const char *n = str(ports->u.c.v[i], "name"), *pr = str(ports->u.c.v[i], "protocol");
    snprintf(p, sizeof p, "%s.ports[%zu].name", base, i + 1);
    if (n && n[0] && port_name_problem(n, why, sizeof why)) return invalid_str(c, p, n, why);
    if (pr && strcmp(pr, "TCP") && strcmp(pr, "UDP") && strcmp(pr, "SCTP")) {
      snprintf(p, sizeof p, "%s.ports[%zu].protocol", base, i + 1);
      snprintf(why, sizeof why, "Unsupported value: \"%.80s\": supported values: "
               "\"SCTP\", \"TCP\", \"UDP\"", pr);
      return bad(c, p, why);
    }
  }
  dup = kf_first_repeat(c->A, ports->u.c.n, port_name_hash, port_name_eq, ports,
                        &first, &nomem);
  if (nomem) return kf_nomem(c->e);
  if (dup == ports->u.c.n) return KF_OK;
  snprintf(p, sizeof p, "%s.ports[%zu].name", base, dup + 1);
  snprintf(why, sizeof why, "Duplicate value: \"%.80s\"", str(ports->u.c.v[dup], "name"));
  return bad(c, p, why);
}

/* A resource quantity node (a string the CRD pattern passed, or a whole
** number) as kf_qty; *huge when too large for it (above any other). */
static int res_qty(const kf_node *v, kf_qty *q, int *huge, char *text, size_t cap) {
  char num[32];
  const char *s = num;
  if (v->t == KF_NINT) snprintf(num, sizeof num, "%lld", (long long)v->u.i);
  else if (v->t == KF_NSTR) s = v->u.s.p;
  else return 0;
  if (s[0] == '-') return 0;   /* the CRD schema's business */
  *huge = kf_qty_parse(s, q) != 0;
  if (*huge) snprintf(text, cap, "%.60s", s);
  else kf_qty_format(q, text, cap);   /* quantity.String() */
  return 1;
}

/* IsNativeResource and helper.IsOvercommitAllowed: cpu, memory,
** ephemeral-storage (not hugepages-*, not extended resources such as
** nvidia.com/gpu, whose request must equal the limit). */
static int res_native(const char *n) {
  return strchr(n, '/') == NULL || strstr(n, "kubernetes.io/") != NULL;
}
static int res_overcommit(const char *n) {
  return res_native(n) && strncmp(n, "hugepages-", 10) != 0;
}

/* validateContainerResourceName: a name without '/' is a standard
** container resource; ValidateResourceQuantityValue. */
static kf_status check_res_names(actx *c, const char *base, const kf_node *m,
                                 const char *side) {
  char p[300], text[KF_QTY_TEXT];
  size_t i;
  kf_qty q;
  int huge;
  for (i = 0; m && m->t == KF_NOBJ && i < m->u.c.n; i++) {
    const char *k = m->u.c.k[i];
    snprintf(p, sizeof p, strpbrk(k, "./") ? "%s.resources.%s[\"%.100s\"]" : "%s.resources.%s.%.100s",
             base, side, k);   /* a key with dots quoted, as every path quotes it */
    if (strchr(k, '/') == NULL && strcmp(k, "cpu") && strcmp(k, "memory") &&
        strcmp(k, "ephemeral-storage") && strncmp(k, "hugepages-", 10))
      return invalid_str(c, p, k, "must be a standard resource for containers");
    if (m->u.c.v[i]->t == KF_NINT && m->u.c.v[i]->u.i < 0) {   /* ValidateNonnegativeQuantity */
      snprintf(text, sizeof text, "%lld", (long long)m->u.c.v[i]->u.i);
      return invalid_str(c, p, text, "must be greater than or equal to 0");
    }
    if (!res_native(k) && res_qty(m->u.c.v[i], &q, &huge, text, sizeof text) &&
        !huge && !kf_qty_whole_milli(&q))   /* ValidateResourceQuantityValue */
      return invalid_str(c, p, text, "must be an integer");
  }
  return KF_OK;
}

/* validateResourceRequirements (ValidateContainerResourceRequirements):
** a request is at most its limit, equal to it where overcommit is not
** allowed, and such a request needs a limit.  Path and words as the API
** server's: <container>.resources.requests: Invalid value: "2": must be
** less than or equal to cpu limit of 1. */
static kf_status check_resources(actx *c, const char *base, const kf_node *res) {
  const kf_node *req = kf_node_get(res, "requests"), *lim = kf_node_get(res, "limits");
  char p[300], rt[KF_QTY_TEXT], lt[KF_QTY_TEXT], why[400];
  size_t i;
  kf_status st;
  if ((st = check_res_names(c, base, lim, "limits")) != KF_OK ||
      (st = check_res_names(c, base, req, "requests")) != KF_OK)
    return st;
  for (i = 0; req && req->t == KF_NOBJ && i < req->u.c.n; i++) {
    const char *k = req->u.c.k[i];
    const kf_node *l = lim && lim->t == KF_NOBJ ? kf_node_get(lim, k) : NULL;
    kf_qty a, b;
    int ha, hb, cmp;
    if (!res_qty(req->u.c.v[i], &a, &ha, rt, sizeof rt)) continue;
    if (l == NULL) {
      if (res_overcommit(k)) continue;
      snprintf(p, sizeof p, "%s.resources.limits", base);
      return bad(c, p, "Required value: Limit must be set for non overcommitable resources");
    }
    if (!res_qty(l, &b, &hb, lt, sizeof lt)) continue;
    cmp = ha || hb ? ha - hb : kf_qty_cmp(&a, &b);
    if (cmp == 0 || (cmp < 0 && res_overcommit(k))) continue;
    snprintf(p, sizeof p, "%s.resources.requests", base);
    snprintf(why, sizeof why, "must be %s %.100s limit of %s",
             res_overcommit(k) ? "less than or equal to" : "equal to", k, lt);
    return invalid_str(c, p, rt, why);
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
      if (name && dns_label_problem(name)) {
        strcat(p, ".name");
        return invalid_str(c, p, name, dns_label_problem(name));
      }
      if ((l == 0 || !name || strcmp(name, primary) != 0) &&
          (str(ct, "image") == NULL || str(ct, "image")[0] == '\0')) {
        strcat(p, ".image");
        return bad(c, p, "Required value");
      }
      if ((st = check_env(c, p, kf_node_get(ct, "env"))) != KF_OK ||
          (st = check_ports(c, p, kf_node_get(ct, "ports"))) != KF_OK ||
          (st = check_port_names(c, p, kf_node_get(ct, "ports"))) != KF_OK ||
          (st = check_resources(c, p, kf_node_get(ct, "resources"))) != KF_OK)
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

/* IsValidLabelValue and IsQualifiedName are base's (kf_text.c). */
static int label_value_ok(const char *s) { return kf_label_value_problem(s) == NULL; }

#define QNAME_MSG "name part must consist of alphanumeric characters, '-', '_' or " \
  "'.', and must start and end with an alphanumeric character, with an optional " \
  "DNS subdomain prefix and '/'"
/* validateTolerations: a key is a qualified name (ValidateLabelName); an
** empty key needs Exists; Exists takes no value, Equal a label value
** (reported at .operator, as the API server does); tolerationSeconds
** needs NoExecute. */
static kf_status check_tolerations(actx *c, const kf_node *spec) {
  const kf_node *ts = kf_node_get(spec, "tolerations");
  char p[200];
  size_t i;
  for (i = 0; ts && ts->t == KF_NARR && i < ts->u.c.n; i++) {
    const kf_node *t = ts->u.c.v[i];
    const char *key = str(t, "key"), *op = str(t, "operator"), *val = str(t, "value");
    const char *eff = str(t, "effect");
    int exists = op && strcmp(op, "Exists") == 0;
    snprintf(p, sizeof p, "spec.tolerations[%zu].key", i + 1);
    if (key && key[0] && !kf_qualified_name(key)) return invalid_str(c, p, key, QNAME_MSG);
    snprintf(p, sizeof p, "spec.tolerations[%zu].operator", i + 1);
    if ((key == NULL || key[0] == '\0') && !exists)
      return invalid_str(c, p, op ? op : "", "operator must be Exists when `key` "
                         "is empty, which means \"match all values and all keys\"");
    if (kf_node_get(t, "tolerationSeconds") && (eff == NULL || strcmp(eff, "NoExecute"))) {
      snprintf(p, sizeof p, "spec.tolerations[%zu].effect", i + 1);
      return invalid_str(c, p, eff ? eff : "", "effect must be 'NoExecute' when "
                         "`tolerationSeconds` is set");
    }
    if (exists && val && val[0])
      return invalid_str(c, p, val, "value must be empty when `operator` is 'Exists'");
    if (!exists && val && !label_value_ok(val))
      return invalid_str(c, p, val, kf_label_value_problem(val));
  }
  return KF_OK;
}

/* ValidatePodSpec: nodeSelector as labels (ValidateLabels: IsQualifiedName,
** IsValidLabelValue), hostname and subdomain DNS-1123 labels,
** activeDeadlineSeconds within [1, MaxInt32]. */
static kf_status check_pod_fields(actx *c, const kf_node *spec) {
  const kf_node *ns = kf_node_get(spec, "nodeSelector");
  const kf_node *ad = kf_node_get(spec, "activeDeadlineSeconds");
  char p[400];
  size_t i;
  for (i = 0; ns && ns->t == KF_NOBJ && i < ns->u.c.n; i++) {
    const char *k = ns->u.c.k[i], *v = ns->u.c.v[i]->u.s.p;
    snprintf(p, sizeof p, "spec.nodeSelector.%.100s", k);
    if (!kf_qualified_name(k)) return invalid_str(c, p, k, QNAME_MSG);
    if (ns->u.c.v[i]->t == KF_NSTR && !label_value_ok(v))
      return invalid_str(c, p, v, kf_label_value_problem(v));
  }
  for (i = 0; i < 2; i++) {   /* hostname, subdomain: DNS-1123 labels */
    const char *h = str(spec, i ? "subdomain" : "hostname");
    snprintf(p, sizeof p, "spec.%s", i ? "subdomain" : "hostname");
    if (h && h[0] && dns_label_problem(h)) return invalid_str(c, p, h, dns_label_problem(h));
  }
  if (ad && ad->t == KF_NINT && (ad->u.i < 1 || ad->u.i > 2147483647)) {
    snprintf(p, sizeof p, "Invalid value: %lld: must be between 1 and "
             "2147483647, inclusive", (long long)ad->u.i);
    return bad(c, "spec.activeDeadlineSeconds", p);
  }
  return KF_OK;
}

/* ValidateVolumes / validateVolumeSource: a volume's name is a DNS-1123
** label (unique: the CRD's list-map key), and it has exactly one source. */
/* The pod's volume names, sorted, for the mounts' lookups (n log n: a pod
** of thousands of volumes and mounts is not read in n^2). */
typedef struct vnames {
  const char **v;
  size_t n;
} vnames;

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int volume_names(actx *c, const kf_node *vols, vnames *out) {
  size_t i;
  out->n = 0;
  out->v = NULL;
  if (vols == NULL || vols->t != KF_NARR || vols->u.c.n == 0) return 1;
  if ((out->v = (const char **)kf_arena_alloc(c->A, vols->u.c.n * sizeof *out->v)) == NULL)
    return 0;
  for (i = 0; i < vols->u.c.n; i++) {
    const char *n = str(vols->u.c.v[i], "name");
    if (n) out->v[out->n++] = n;
  }
  qsort(out->v, out->n, sizeof *out->v, by_name);
  return 1;
}

static int has_volume(const vnames *vols, const char *name) {
  return vols->n && bsearch(&name, vols->v, vols->n, sizeof *vols->v, by_name) != NULL;
}

static kf_status check_volumes(actx *c, const kf_node *spec) {
  const kf_node *vols = kf_node_get(spec, "volumes");
  char p[200];
  size_t i;
  for (i = 0; vols && vols->t == KF_NARR && i < vols->u.c.n; i++) {
    const kf_node *vol = vols->u.c.v[i];
    const char *name = str(vol, "name");
    size_t sources = vol->u.c.n - (kf_node_get(vol, "name") != NULL);
    snprintf(p, sizeof p, "spec.volumes[%zu].name", i + 1);
    if (name == NULL || name[0] == '\0') return bad(c, p, "Required value");
    if (dns_label_problem(name)) return invalid_str(c, p, name, dns_label_problem(name));
    snprintf(p, sizeof p, "spec.volumes[%zu]", i + 1);
    if (sources == 0) return bad(c, p, "Required value: must specify a volume type");
    if (sources > 1) return bad(c, p, "Forbidden: may not specify more than 1 volume type");
  }
  return KF_OK;
}

/* validateLocalDescendingPath: a subPath is relative, without "..". */
static const char *subpath_problem(const char *s) {
  const char *q;
  if (s[0] == '/') return "must be a relative path";
  for (q = s; (q = strstr(q, "..")) != NULL; q += 2)
    if ((q == s || q[-1] == '/') && (q[2] == '\0' || q[2] == '/')) return "must not contain '..'";
  return NULL;
}

/* ValidateVolumeMounts: a mount names a volume of the pod (or kfjob's
** shared-memory volume), has a mountPath, and a local descending subPath
** exclusive of subPathExpr (unique mountPaths: the CRD's list-map key). */
static kf_status check_mount(actx *c, const char *at, const kf_node *m,
                             const vnames *vols) {
  const char *n = str(m, "name"), *mp = str(m, "mountPath"), *sp = str(m, "subPath");
  char p[260], v[200];
  if (n && !has_volume(vols, n) && strcmp(n, KF_SHM_VOLUME) != 0) {
    snprintf(p, sizeof p, "%s.name", at);
    snprintf(v, sizeof v, "Not found: \"%.80s\"", n);
    return bad(c, p, v);
  }
  snprintf(p, sizeof p, "%s.mountPath", at);
  if (mp == NULL || mp[0] == '\0') return bad(c, p, "Required value");
  snprintf(p, sizeof p, "%s.subPath", at);
  if (sp && sp[0] && subpath_problem(sp)) return invalid_str(c, p, sp, subpath_problem(sp));
  sp = str(m, "subPathExpr");
  if (sp && sp[0] && str(m, "subPath") && str(m, "subPath")[0]) {
    snprintf(p, sizeof p, "%s.subPathExpr", at);
    return invalid_str(c, p, sp, "subPathExpr and subPath are mutually exclusive");
  }
  return KF_OK;
}

static kf_status check_mounts(actx *c, const kf_node *spec) {
  static const char *const lists[] = {"initContainers", "containers"};
  vnames vols;
  char at[200];
  size_t i, j, l;
  kf_status st;
  if (!volume_names(c, kf_node_get(spec, "volumes"), &vols)) return kf_nomem(c->e);
  for (l = 0; l < 2; l++) {
    const kf_node *cs = kf_node_get(spec, lists[l]);
    for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++) {
      const kf_node *ms = kf_node_get(cs->u.c.v[i], "volumeMounts");
      for (j = 0; ms && ms->t == KF_NARR && j < ms->u.c.n; j++) {
        snprintf(at, sizeof at, "spec.%s[%zu].volumeMounts[%zu]", lists[l], i + 1, j + 1);
        if ((st = check_mount(c, at, ms->u.c.v[j], &vols)) != KF_OK) return st;
      }
    }
  }
  return KF_OK;
}

kf_status kf_pod_api_check(const kf_node *tmpl, kf_arena *A, const char *who,
                           const char *prefix, kf_err *e) {
  const kf_node *spec = kf_node_get(tmpl, "spec");
  actx c;
  kf_status st;
  char pre[80];
  snprintf(pre, sizeof pre, "%s%s", prefix, prefix[0] ? "." : "");
  c.who = who, c.pre = pre, c.A = A, c.e = e;
  if (spec == NULL || spec->t != KF_NOBJ) return KF_OK;
  if ((st = check_containers(&c, spec, kf_pod_primary_name(tmpl))) != KF_OK ||
      (st = check_names_across(&c, spec)) != KF_OK ||
      (st = check_tolerations(&c, spec)) != KF_OK ||
      (st = check_pod_fields(&c, spec)) != KF_OK ||
      (st = check_volumes(&c, spec)) != KF_OK ||
      (st = check_mounts(&c, spec)) != KF_OK)
    return st;
  return KF_OK;
}

kf_status kf_pod_api_env(const kf_node *env, kf_arena *A, const char *who,
                         const char *owner, kf_err *e) {
  actx c;
  c.who = who, c.pre = "", c.A = A, c.e = e;
  return check_env(&c, owner, env);
}

/* The primary container's name: the template's own choice or the default.
** Here, below kf_pod.c, which calls into this file. */
const char *kf_pod_primary_name(const kf_node *t) {
  const kf_node *p = t ? kf_node_get(t, "primary_container_name") : NULL;
  return p && p->t == KF_NSTR ? p->u.s.p : KF_PRIMARY_DEFAULT;
}

/* The accelerator's device and partition size become node-affinity and
** toleration values: label values (IsValidLabelValue, via
** validateTolerations and ValidateNodeSelectorRequirement). */

kf_status kf_pod_api_accel(const char *field, const char *value, const char *who,
                           kf_err *e) {
  if (value == NULL || label_value_ok(value)) return KF_OK;
  return kf_fail(e, KF_EINVAL, "%s: accelerator.%s: Invalid value: \"%.80s\": %s",
                 who, field, value, kf_label_value_problem(value));
}

/*
** kf_extres.c - extended resources: the Kubernetes resources a container
** may ask for beside the fixed rows (cpu, mem, gpu, ephemeral_storage),
** held as a checked table of name = quantity after each resource array,
** and the rules relating a request to its limit.  Checked as the API
** server checks a container (kubernetes pkg/apis/core/validation/
** validation.go: validateContainerResourceName, validateResourceName,
** ValidateResourceQuantityValue, validateResourceRequirements,
** validateResourceQuantityHugePageValue;
** pkg/apis/core/helper/helpers.go: IsNativeResource,
** IsExtendedResourceName, IsOvercommitAllowed, IsHugePageResourceName,
** IsHugePageResourceValueDivisible).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_qty.h"

#define HUGE_PREFIX "hugepages-"

int kf_ext_res_key(const char *k) {
  return strchr(k, '/') != NULL || strncmp(k, HUGE_PREFIX, 10) == 0;
}

/* IsNativeResource: no domain, or the kubernetes.io one. */
static int native(const char *k) {
  return strchr(k, '/') == NULL || strstr(k, "kubernetes.io/") != NULL;
}
/* IsOvercommitAllowed: native and not hugepages. */
static int overcommit(const char *k) {
  return native(k) && strncmp(k, HUGE_PREFIX, 10) != 0;
}

/* The fixed rows' Kubernetes names, which only their rows hold. */
static const char *row_of(const char *k) {
  int r;
  for (r = 0; r < KF_NRES; r++)
    if (strcmp(kf_resources_obj.f[r].manifest, k) == 0) return kf_resources_obj.f[r].key;
  return NULL;
}

/* validateContainerResourceName's problem with k, or NULL. */
static const char *name_problem(const char *k, char *buf, size_t cap) {
  const char *row = row_of(k);
  if (row != NULL) {
    snprintf(buf, cap, "is the %s row's resource: give it as %s", row, row);
    return buf;
  }
  if (!kf_qualified_name(k))
    return "is not a Kubernetes resource name (IsQualifiedName: an optional DNS "
           "subdomain and '/', then at most 63 letters, digits, '-', '_' or '.')";
  if (strchr(k, '/') == NULL) {   /* IsStandardContainerResourceName */
    kf_qty q;
    if (strncmp(k, HUGE_PREFIX, 10) != 0)
      return "must be a standard resource for containers or fully qualified "
             "(a domain and '/': amd.com/gpu)";
    if (kf_qty_parse(k + 10, &q) != 0)   /* HugePageSizeFromResourceName */
      return "is not hugepages-<page size> (hugepages-2Mi, hugepages-1Gi)";
    return NULL;
  }
  if (!native(k)) {               /* IsExtendedResourceName */
    char quota[400];
    snprintf(quota, sizeof quota, "requests.%s", k);
    if (strncmp(k, "requests.", 9) == 0 || strlen(k) + 10 > sizeof quota || !kf_qualified_name(quota))
      return "doesn't follow extended resource name standard (its quota name "
             "requests.<name> must be a qualified name)";
  }
  return NULL;
}

int kf_ext_res_whole(const char *s) {
  kf_qty q;
  if (kf_qty_parse(s, &q) != 0) return 1;   /* too large to tell: a whole number */
  return kf_qty_whole_milli(&q);
}

/* IsHugePageResourceValueDivisible: a hugepages-<size> value is a whole
** number of pages, rounded up to whole bytes as Quantity.Value() does (0
** is); a page size that is not a positive whole number of bytes divides
** nothing.  Values past int64 are left alone, as kf_ext_res_whole leaves
** them. */
static int whole_pages(const char *k, const char *v) {
  kf_qty page, q;
  int64_t size, n;
  if (kf_qty_parse(k + 10, &page) != 0 || kf_qty_parse(v, &q) != 0) return 1;
  if (!kf_ext_res_whole(k + 10) || (size = kf_qty_units(&page, INT64_MAX)) <= 0) return 0;
  if ((n = kf_qty_units(&q, INT64_MAX)) < 0) return 1;
  return n % size == 0;
}

/* One value as a quantity string node (numbers as kfjob's other
** quantities), or an error at p. */
static kf_status value(const kf_node *v, kf_arena *A, kf_node **out, const char *who,
                       const char *p, kf_err *e) {
  char buf[32];
  const char *s = buf;
  if (v->t == KF_NSTR) {
    if (strlen(v->u.s.p) != v->u.s.n || !kf_quantity_ok(v->u.s.p, v->u.s.n))
      return kf_quantity_negative(v->u.s.p, v->u.s.n)
          ? kf_fail(e, KF_EINVAL, "%s: %s: '%.60s' is negative: Kubernetes refuses "
                    "negative requests and limits (pod validation: must be greater "
                    "than or equal to 0)", who, p, v->u.s.p)
          : kf_fail(e, KF_EINVAL, "%s: %s: invalid quantity '%.60s' (expected e.g. "
                    "\"8\", \"1Gi\")", who, p, v->u.s.p);
    s = v->u.s.p;
  } else if (v->t == KF_NINT && v->u.i >= 0) {
    kf_format_int(v->u.i, buf);
  } else if (v->t == KF_NNUM && v->u.d >= 0 && v->u.d < 1e300) {
    kf_format_number(v->u.d + 0.0, buf);
  } else {
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a non-negative quantity string or "
                   "number", who, p);
  }
  *out = kf_node_str(A, s, strlen(s));
  return *out ? KF_OK : kf_nomem(e);
}

static kf_status check_ext(const kf_node *in, kf_arena *A, const kf_node **out,
                           const char *who, const char *path, kf_err *e) {
  char p[300], why[120];
  kf_node *d, *v = NULL;
  size_t i;
  kf_status st;
  *out = NULL;
  if ((in->t == KF_NOBJ || in->t == KF_NARR) && in->u.c.n == 0 && in->tag == NULL)
    return KF_OK;
  if (in->t != KF_NOBJ || in->tag != NULL)
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a table of resource name = quantity",
                   who, path);
  if ((d = kf_node_new(A, KF_NOBJ)) == NULL) return kf_nomem(e);
  for (i = 0; i < in->u.c.n; i++) {
    const char *k = in->u.c.k[i], *why_not;
    kf_key_path(p, sizeof p, path, k);
    if ((why_not = name_problem(k, why, sizeof why)) != NULL)
      return kf_fail(e, KF_EINVAL, "%s: %s: '%.100s' %s", who, p, k, why_not);
    if ((st = value(in->u.c.v[i], A, &v, who, p, e)) != KF_OK) return st;
    if (!native(k) && !kf_ext_res_whole(v->u.s.p))
      return kf_fail(e, KF_EINVAL, "%s: %s: '%.60s' must be an integer (an extended "
                     "resource counts whole devices: ValidateResourceQuantityValue)",
                     who, p, v->u.s.p);
    if (strncmp(k, HUGE_PREFIX, 10) == 0 && !whole_pages(k, v->u.s.p))
      return kf_fail(e, KF_EINVAL, "%s: %s: '%.60s' is not a whole number of %.40s "
                     "pages (validateResourceQuantityHugePageValue: not positive integer "
                     "multiple of %.60s)", who, p, v->u.s.p, k + 10, k);
    if (!kf_node_push(A, d, k, v)) return kf_nomem(e);
  }
  return (*out = kf_tree_sorted(d, A)) ? KF_OK : kf_nomem(e);
}

const kf_tree kf_ext_res_tree = {"a table of resource name = quantity", check_ext,
                                 "Quantities", 0, 0};

static int cmp_qty(const char *a, const char *b) {
  kf_qty x, y;
  if (kf_qty_parse(a, &x) != 0 || kf_qty_parse(b, &y) != 0) return strcmp(a, b) != 0;
  return kf_qty_cmp(&x, &y);
}

/* One owner's (a group's or the task's, `at`: "worker." or "") requests
** against its limits.  `cpu_mem`: the owner's pods ask for cpu or memory. */
static kf_status pair(const kf_node *req, const kf_node *lim, int cpu_mem, const char *at,
                      const char *who, kf_err *e) {
  char p[300], side[64];
  size_t i;
  for (i = 0; req && i < req->u.c.n; i++) {
    const char *k = req->u.c.k[i], *r = req->u.c.v[i]->u.s.p;
    const kf_node *l = lim ? kf_node_get(lim, k) : NULL;
    int c;
    snprintf(side, sizeof side, "%slimits", at);
    kf_key_path(p, sizeof p, side, k);
    if (l == NULL && !overcommit(k))
      return kf_fail(e, KF_EINVAL, "%s: %s: required for the request %.40s: Kubernetes "
                     "cannot overcommit %.100s (validateResourceRequirements: Limit must "
                     "be set for non overcommitable resources)", who, p, r, k);
    if (l == NULL || (c = cmp_qty(r, l->u.s.p)) == 0 || (c < 0 && overcommit(k))) continue;
    snprintf(side, sizeof side, "%srequests", at);
    kf_key_path(p, sizeof p, side, k);
    return kf_fail(e, KF_EINVAL, "%s: %s: %.40s must be %s the limit %.40s "
                   "(validateResourceRequirements)", who, p, r,
                   overcommit(k) ? "at most" : "equal to", l->u.s.p);
  }
  for (i = 0; !cpu_mem && i < 2; i++) {   /* a limit alone is its request too */
    const kf_node *m = i ? lim : req;
    size_t n;
    for (n = 0; m && n < m->u.c.n; n++)
      if (strncmp(m->u.c.k[n], HUGE_PREFIX, 10) == 0) {
        snprintf(side, sizeof side, "%s%s", at, i ? "limits" : "requests");
        kf_key_path(p, sizeof p, side, m->u.c.k[n]);
        return kf_fail(e, KF_EINVAL, "%s: %s: HugePages require cpu or memory "
                       "(validateResourceRequirements): give a cpu or mem request or "
                       "limit", who, p);
      }
  }
  return KF_OK;
}

static int asks_cpu_mem(const char *const *req, const char *const *lim) {
  return req[KF_CPU] || req[KF_MEM] || lim[KF_CPU] || lim[KF_MEM];
}

kf_status kf_rule_ext_res(const kf_job *j, const char *who, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int task_cm = asks_cpu_mem(j->requests, j->limits), i;
  kf_status st;
  if ((j->requests_ext || j->limits_ext) &&
      (st = pair(j->requests_ext, j->limits_ext, task_cm, "", who, e)) != KF_OK)
    return st;
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    char at[32];
    if (g->requests_ext == NULL && g->limits_ext == NULL) continue;
    snprintf(at, sizeof at, "%s.", kf_roles[k->roles[i].role].key);
    if ((st = pair(g->requests_ext, g->limits_ext,
                   task_cm || asks_cpu_mem(g->requests, g->limits), at, who, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

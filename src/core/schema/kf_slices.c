/*
** kf_slices.c - Kueue's multi-layer slice constraints of a pod set
** (topology.slices; the annotation
** kueue.x-k8s.io/podset-slice-required-topology-constraints, beta and on by
** default from Kueue v0.19, gate TASMultiLayerTopology; kueue
** apis/kueue/v1beta2/topology_types.go, jobframework/tas_validation.go):
** 1 to 3 levels {level, size}, each level a label name given once, each
** size >= 1 dividing the one above it.  The annotation is the JSON array
** [{"topology": <level>, "size": <n>}, ...].
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_sched.h"

#define MAX_LEVELS 3

static kf_status bad(kf_err *e, const char *who, const char *path, size_t i,
                     const char *what) {
  return kf_fail(e, KF_EINVAL, "%s: %s[%zu]%s", who, path, i + 1, what);
}

static kf_status check_slices(const kf_node *in, kf_arena *A, const kf_node **out,
                              const char *who, const char *path, kf_err *e) {
  kf_node *l;
  int64_t size[MAX_LEVELS];
  const char *level[MAX_LEVELS];
  size_t i, k, n;
  if (in->t == KF_NOBJ && in->u.c.n == 0)
    return kf_fail(e, KF_EINVAL, "%s: %s: expected 1 to 3 levels { level =, size = } "
                   "(got none)", who, path);
  if (in->t != KF_NARR)
    return kf_fail(e, KF_EINVAL, "%s: %s: expected a list of { level =, size = }", who, path);
  if ((n = in->u.c.n) < 1 || n > MAX_LEVELS)
    return kf_fail(e, KF_EINVAL, "%s: %s: %zu levels: Kueue takes 1 to 3 slice constraints",
                   who, path, n);
  if ((l = kf_node_new(A, KF_NARR)) == NULL) return kf_nomem(e);
  for (i = 0; i < n; i++) {
    const kf_node *it = in->u.c.v[i], *lv, *sz;
    kf_node *o;
    if (it->t != KF_NOBJ) return bad(e, who, path, i, ": expected { level =, size = }");
    for (k = 0; k < it->u.c.n; k++)
      if (strcmp(it->u.c.k[k], "level") && strcmp(it->u.c.k[k], "size")) {
        char msg[160];
        snprintf(msg, sizeof msg, ".%.60s: unknown field (expected level, size)", it->u.c.k[k]);
        return bad(e, who, path, i, msg);
      }
    lv = kf_node_get(it, "level"), sz = kf_node_get(it, "size");
    if (lv == NULL || lv->t != KF_NSTR || !kf_qualified_name(lv->u.s.p))
      return bad(e, who, path, i, ".level: expected a node label name (the topology level)");
    if (sz == NULL || sz->t != KF_NINT || sz->u.i < 1 || sz->u.i > INT32_MAX)
      return bad(e, who, path, i, ".size: expected an integer >= 1");
    level[i] = lv->u.s.p, size[i] = sz->u.i;
    for (k = 0; k < i; k++)
      if (strcmp(level[k], level[i]) == 0)
        return bad(e, who, path, i, ".level: given twice (each level once)");
    if (i > 0 && size[i - 1] % size[i] != 0) {
      char msg[160];
      snprintf(msg, sizeof msg, ".size: %lld does not divide the level above's %lld",
               (long long)size[i], (long long)size[i - 1]);
      return bad(e, who, path, i, msg);
    }
    if ((o = kf_node_new(A, KF_NOBJ)) == NULL || !kf_obj_strref(A, o, "level", level[i]) ||
        !kf_obj_int(A, o, "size", size[i]) || !kf_node_push(A, l, NULL, o))
      return kf_nomem(e);
  }
  *out = l;
  return KF_OK;
}

const kf_tree kf_slices_tree = {"a list of 1 to 3 { level =, size = }", check_slices,
                                "Slices", 0, 0};

int kf_sched_slices_json(const kf_node *l, char *buf, size_t cap) {
  size_t i, n = 0;
  int w;
  if (l == NULL || l->t != KF_NARR) return 0;
  w = snprintf(buf, cap, "[");
  for (i = 0; w > 0 && (n += (size_t)w) < cap && i < l->u.c.n; i++) {
    const kf_node *lv = kf_node_get(l->u.c.v[i], "level"), *sz = kf_node_get(l->u.c.v[i], "size");
    w = snprintf(buf + n, cap - n, "%s{\"topology\":\"%s\",\"size\":%lld}", i ? "," : "",
                 lv->u.s.p, (long long)sz->u.i);
  }
  if (w <= 0 || n >= cap) return 0;
  w = snprintf(buf + n, cap - n, "]");
  return w > 0 && n + (size_t)w < cap;
}

/* ---- the annotation read back -------------------------------------- */

static const char *ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* A JSON string without escapes (a label name has none) at p. */
static const char *str(const char *p, const char **s, size_t *n) {
  const char *q;
  if (*p != '"') return NULL;
  for (q = p + 1; *q && *q != '"' && *q != '\\'; q++) {}
  if (*q != '"') return NULL;
  *s = p + 1, *n = (size_t)(q - p - 1);
  return q + 1;
}

/* One {"topology": "...", "size": N} at p into o. */
static const char *entry(kf_arena *A, const char *p, kf_node *o) {
  int seen = 0;
  if (*(p = ws(p)) != '{') return NULL;
  for (p = ws(p + 1); *p != '}';) {
    const char *k, *v;
    size_t kn, vn;
    if ((p = str(p, &k, &kn)) == NULL || *(p = ws(p)) != ':') return NULL;
    p = ws(p + 1);
    if (kn == 8 && strncmp(k, "topology", 8) == 0 && !(seen & 1)) {
      if ((p = str(p, &v, &vn)) == NULL || vn == 0 ||
          !kf_node_push(A, o, "level", kf_node_str(A, v, vn)))
        return NULL;
      seen |= 1;
    } else if (kn == 4 && strncmp(k, "size", 4) == 0 && !(seen & 2)) {
      char *end;
      long long x = strtoll(p, &end, 10);
      if (end == p || x < 1 || x > INT32_MAX || !kf_obj_int(A, o, "size", x)) return NULL;
      p = end, seen |= 2;
    } else {
      return NULL;
    }
    if (*(p = ws(p)) == ',') p = ws(p + 1);
    else if (*p != '}') return NULL;
  }
  return seen == 3 ? p + 1 : NULL;
}

const kf_node *kf_sched_slices_parse(kf_arena *A, const char *s) {
  kf_node *l = kf_node_new(A, KF_NARR), *o;
  const char *p = ws(s);
  if (l == NULL || *p != '[') return NULL;
  for (p = ws(p + 1); *p != ']';) {
    if ((o = kf_node_new(A, KF_NOBJ)) == NULL || (p = entry(A, p, o)) == NULL ||
        !kf_node_push(A, l, NULL, o))
      return NULL;
    if (*(p = ws(p)) == ',') p = ws(p + 1);
    else if (*p != ']') return NULL;
  }
  return *ws(p + 1) == '\0' ? l : NULL;
}

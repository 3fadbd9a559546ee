/*
** kf_manifest.c - job -> kubeflow.org/v1 custom resource, lint warnings,
** MPI/Horovod launcher commands.
**
** The translation follows Flyte's backend: replica types and map
** keys, groups with 0 replicas left out, the default container names, group
** image/resources/restart policy over the task's, MPI group `command` as
** the container's args, runPolicy and elasticPolicy mapping, no Master for
** elastic jobs.  Where the backend is wrong for the operator (it ignores v1
** `slots`) the manifest is right for the operator: slotsPerWorker = slots.
** Key order follows the Go structs the operator serializes.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"

#include "kf_manifest_int.h"

/* "<who>: <path>: <problem>" */
static kf_status failf(mctx *c, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static kf_status failf(mctx *c, const char *path, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return kf_fail(c->e, KF_EINVAL, "%s: %s: %s", c->who, path, msg);
}

static const char *type_name(const kf_node *n) {
  static const char *const names[] = {"nil", "boolean", "number", "number",
                                      "string", "table", "table"};
  return n->tag ? n->tag : names[n->t];
}

/* prefix.key, or prefix["key"] when the key is not an identifier (label
** keys have dots and slashes). */
static void key_path(char *out, size_t cap, const char *prefix, const char *k) {
  const char *p = k;
  int ident = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_';
  for (; ident && *p; p++)
    ident = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
            (*p >= '0' && *p <= '9') || *p == '_';
  snprintf(out, cap, ident ? "%s.%.100s" : "%s[\"%.100s\"]", prefix, k);
}

/* ---- options ---------------------------------------------------------- */

static kf_status opt_str(mctx *c, const char *path, const kf_node *v,
                         const char **out) {
  if (v->t != KF_NSTR)
    return failf(c, path, "expected a string, got %s", type_name(v));
  if (v->u.s.n > KF_MAX_STRING)   /* as every other string kfjob takes */
    return failf(c, path, "string longer than the limit of 1 MiB");
  if (strlen(v->u.s.p) != v->u.s.n)
    return failf(c, path, "string contains a NUL byte");
  *out = v->u.s.p;
  return KF_OK;
}

static kf_status opt_list(mctx *c, const char *path, const kf_node *v,
                          kf_strs *out) {
  const char **items;
  char p[160];
  size_t i;
  kf_status st;
  if (v->t == KF_NOBJ && v->u.c.n == 0) return KF_OK;   /* {} from Lua */
  if (v->t != KF_NARR)
    return failf(c, path, "expected a list of strings, got %s", type_name(v));
  if (v->u.c.n > KF_MAX_ITEMS)
    return failf(c, path, "list longer than the limit of %d items", KF_MAX_ITEMS);
  OOM(c, items = (const char **)kf_arena_alloc(c->A, v->u.c.n * sizeof *items + 1));
  for (i = 0; i < v->u.c.n; i++) {
    snprintf(p, sizeof p, "%s[%zu]", path, i + 1);
    if ((st = opt_str(c, p, v->u.c.v[i], &items[i])) != KF_OK) return st;
  }
  out->v = items;
  out->n = v->u.c.n;
  return KF_OK;
}

static kf_status opt_map(mctx *c, const char *path, const kf_node *v,
                         kf_kvs *out) {
  kf_kv *kv;
  char p[160];
  size_t i;
  kf_status st;
  if (v->t != KF_NOBJ || v->tag)
    return failf(c, path, "expected a table of strings by name, got %s",
                 v->t == KF_NARR ? "a list" : type_name(v));
  OOM(c, kv = (kf_kv *)kf_arena_alloc(c->A, v->u.c.n * sizeof *kv + 1));
  for (i = 0; i < v->u.c.n; i++) {
    kv[i].k = v->u.c.k[i];
    key_path(p, sizeof p, path, kv[i].k);
    if ((st = opt_str(c, p, v->u.c.v[i], &kv[i].v)) != KF_OK) return st;
  }
  out->v = kv;
  out->n = v->u.c.n;
  return KF_OK;
}

kf_status kf_strs_from_node(const kf_node *n, kf_strs *out, kf_arena *A,
                            const char *who, const char *path, kf_err *e) {
  mctx c;
  c.A = A, c.e = e, c.who = who;
  out->v = NULL, out->n = 0;
  return opt_list(&c, path, n, out);
}

kf_status kf_manifest_opts_parse(const kf_node *n, kf_manifest_opts *o,
                                 kf_arena *A, const char *who, kf_err *e) {
  mctx c0, *c = &c0;
  size_t i;
  c->A = A, c->e = e, c->who = who;
  memset(o, 0, sizeof *o);
  if (n == NULL || (n->t == KF_NARR && n->u.c.n == 0)) return KF_OK;
  if (n->t != KF_NOBJ)
    return kf_fail(e, KF_EINVAL, "%s: opts: expected a table, got %s", who,
                   type_name(n));
  for (i = 0; i < n->u.c.n; i++) {
    const char *k = n->u.c.k[i];
    const kf_node *v = n->u.c.v[i];
    char path[64];
    kf_status st = KF_OK;
    snprintf(path, sizeof path, "opts.%.40s", k);
    if (strcmp(k, "name") == 0) st = opt_str(c, path, v, &o->name);
    else if (strcmp(k, "namespace") == 0) st = opt_str(c, path, v, &o->ns);
    else if (strcmp(k, "image") == 0) st = opt_str(c, path, v, &o->image);
    else if (strcmp(k, "service_account") == 0)
      st = opt_str(c, path, v, &o->service_account);
    else if (strcmp(k, "command") == 0) st = opt_list(c, path, v, &o->command);
    else if (strcmp(k, "args") == 0) st = opt_list(c, path, v, &o->args);
    else if (strcmp(k, "env") == 0) st = opt_map(c, path, v, &o->env);
    else if (strcmp(k, "labels") == 0) st = opt_map(c, path, v, &o->labels);
    else if (strcmp(k, "annotations") == 0)
      st = opt_map(c, path, v, &o->annotations);
    else if (strcmp(k, "target") == 0) {
      const char *t;
      if ((st = opt_str(c, path, v, &t)) == KF_OK &&
          (st = kf_target_parse(t, &o->target, who, path, e)) == KF_OK)
        o->target_set = 1;
    }
    if (st != KF_OK) return st;
  }
  return KF_OK;
}

/* ---- Kubernetes names ------------------------------------------------- */

static int lower_alnum(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}
static int alnum(char ch) {
  return lower_alnum(ch) || (ch >= 'A' && ch <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?, the first character a letter for
** DNS-1035; length unchecked. */
int kfm_dns_label(const char *s, size_t n, int dns1035) {
  size_t i;
  if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1])) return 0;
  if (dns1035 && !(s[0] >= 'a' && s[0] <= 'z')) return 0;
  for (i = 0; i < n; i++)
    if (!lower_alnum(s[i]) && s[i] != '-') return 0;
  return 1;
}

static int dns_subdomain(const char *s, size_t n) {
  size_t i, start = 0;
  if (n == 0 || n > 253) return 0;
  for (i = 0; i <= n; i++)
    if (i == n || s[i] == '.') {
      if (!kfm_dns_label(s + start, i - start, 0)) return 0;
      start = i + 1;
    }
  return 1;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63: a label value
** (which may also be empty) and the name part of a label key. */
static int name_part(const char *s, size_t n) {
  size_t i;
  if (n == 0 || n > 63 || !alnum(s[0]) || !alnum(s[n - 1])) return 0;
  for (i = 0; i < n; i++)
    if (!alnum(s[i]) && !strchr("-_.", s[i])) return 0;
  return 1;
}

/* [prefix/]name with a DNS-1123 subdomain prefix (label/annotation keys). */
static int qualified_name(const char *k) {
  const char *slash = strchr(k, '/');
  if (slash == NULL) return name_part(k, strlen(k));
  return dns_subdomain(k, (size_t)(slash - k)) &&
         name_part(slash + 1, strlen(slash + 1));
}

/* What the API server accepts as an env var name (IsEnvVarName). */
static int env_name(const char *s) {
  if (*s == '\0' || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!alnum(*s) && !strchr("-_.", *s)) return 0;
  return 1;
}

static kf_status check_token(mctx *c, const char *path, const char *s) {
  if (*s == '\0') return failf(c, path, "must not be empty");
  char buf[64];
  const char *why = kf_token_problem(s, strlen(s), buf, sizeof buf);
  if (why != NULL) return failf(c, path, "%s", why);
  return KF_OK;
}

static int kv_cmp(const void *a, const void *b) {
  return strcmp(((const kf_kv *)a)->k, ((const kf_kv *)b)->k);
}

/* A sorted copy (Go writes maps sorted; env follows suit for stable
** output); the same key twice is an error. */
static kf_status sorted(mctx *c, const char *path, const kf_kvs *in,
                        kf_kv **out) {
  size_t i;
  char p[160];
  OOM(c, *out = (kf_kv *)kf_arena_alloc(c->A, in->n * sizeof **out + 1));
  if (in->n) memcpy(*out, in->v, in->n * sizeof **out);
  qsort(*out, in->n, sizeof **out, kv_cmp);
  for (i = 1; i < in->n; i++)
    if (strcmp((*out)[i].k, (*out)[i - 1].k) == 0) {
      key_path(p, sizeof p, path, (*out)[i].k);
      return failf(c, p, "given twice");
    }
  return KF_OK;
}

/* ---- pods the operator creates ---------------------------------------- */

/* Roles present in the resource, sorted by replica type as Go sorts map
** keys; returns how many. */
int kfm_present_roles(const kf_job *j, int out[KF_NROLES]) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  int i, n = 0, a, b;
  for (i = 0; i < k->nroles; i++)
    if (j->g[k->roles[i].role].replicas > 0) out[n++] = k->roles[i].role;
  for (a = 1; a < n; a++)   /* at most four: insertion sort */
    for (b = a; b > 0 && strcmp(kf_roles[out[b - 1]].name,
                                kf_roles[out[b]].name) > 0; b--) {
      int t = out[b];
      out[b] = out[b - 1];
      out[b - 1] = t;
    }
  return n;
}

/* The longest pod name the operator derives: <name>-<type>-<index>, the
** MPI launcher <name>-launcher.  Each pod also gets a headless Service of
** that name, which must be a DNS-1035 label: at most 63 characters. */
size_t kfm_longest_pod(const kf_job *j, const char *name, char *buf,
                          size_t cap) {
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), i;
  size_t best = 0;
  for (i = 0; i < n; i++) {
    char t[32], lower[16];
    size_t len, x;
    for (x = 0; kf_roles[roles[i]].name[x] && x + 1 < sizeof lower; x++)
      lower[x] = (char)(kf_roles[roles[i]].name[x] | 0x20);
    lower[x] = '\0';
    if (roles[i] == KF_LAUNCHER) snprintf(t, sizeof t, "-%s", lower);
    else snprintf(t, sizeof t, "-%s-%d", lower, (int)j->g[roles[i]].replicas - 1);
    len = strlen(name) + strlen(t);
    if (len > best) {
      best = len;
      snprintf(buf, cap, "%.200s%s", name, t);
    }
  }
  return best;
}

const char kfm_dns1035_rule[] =
    "lowercase letters, digits and '-', starting with a letter and ending "
    "with a letter or digit";

/* ---- quantities ------------------------------------------------------- */

/* Value in base units of a quantity that kf_quantity_ok accepted.  Parsed
** by hand: strtod would follow the C locale. */
long double kfm_qty_value(const char *s) {
  long double v = 0, scale = 1;
  int frac = 0;
  for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) {
    if (*s == '.') frac = 1;
    else v = v * 10 + (*s - '0'), scale *= frac ? 10 : 1;
  }
  v /= scale;
  if (s[0] && s[1] == 'i') {
    const char *p = strchr("KMGTPE", s[0]);
    return p ? v * powl(1024.0L, (long double)(p - "KMGTPE" + 1)) : v;
  }
  switch (s[0]) {
    case 'm': return v / 1000;
    case 'k': return v * 1e3L;
    case 'M': return v * 1e6L;
    case 'G': return v * 1e9L;
    case 'T': return v * 1e12L;
    case 'P': return v * 1e15L;
    case 'e': case 'E':
      if (s[1] != '\0') return v * powl(10.0L, (long double)strtol(s + 1, NULL, 10));
      return v * 1e18L;   /* "2E": exa */
  }
  return v;
}

int kfm_qty_cmp(const char *a, const char *b) {
  long double x = kfm_qty_value(a), y = kfm_qty_value(b);
  if (fabsl(x - y) <= 1e-12L * fmaxl(fabsl(x), fabsl(y))) return 0;
  return x < y ? -1 : 1;
}

/* Kubernetes resource names are the resource rows' manifest keys; their
** sorted order, as the API server prints them: */
static const int res_sorted[KF_NRES] = {KF_CPU, KF_EPH, KF_MEM, KF_GPU};

/* The resources Kubernetes gets for one group, as the backend derives them:
** zero quantities are dropped, a request above its limit is lowered to it,
** a missing request equals the limit, and a lone GPU request also becomes
** the limit (the API server wants both, equal, for extended resources). */
static kf_status group_resources(mctx *c, const kf_group *g, const char *key,
                                 const char *req[KF_NRES],
                                 const char *lim[KF_NRES]) {
  int i;
  for (i = 0; i < KF_NRES; i++) {
    req[i] = g->requests[i] && kfm_qty_value(g->requests[i]) != 0 ? g->requests[i] : NULL;
    lim[i] = g->limits[i] && kfm_qty_value(g->limits[i]) != 0 ? g->limits[i] : NULL;
    if (req[i] && lim[i]) {
      if (i == KF_GPU && kfm_qty_cmp(req[i], lim[i]) != 0) {
        char p[64];
        snprintf(p, sizeof p, "%s.requests.gpu", key);
        return failf(c, p, "%s differs from limits.gpu %s (Kubernetes needs "
                     "GPU requests equal to limits)", req[i], lim[i]);
      }
      if (kfm_qty_cmp(req[i], lim[i]) > 0) req[i] = lim[i];
    } else if (lim[i]) {
      req[i] = lim[i];
    } else if (req[i] && i == KF_GPU) {
      lim[i] = req[i];
    }
  }
  return KF_OK;
}

/* ---- building blocks -------------------------------------------------- */

static kf_node *str_list(kf_arena *A, const char *const *v, size_t n) {
  kf_node *a = kf_node_new(A, KF_NARR);
  size_t i;
  for (i = 0; a && i < n; i++)
    if (!kf_node_push(A, a, NULL, kf_node_str(A, v[i], strlen(v[i])))) return NULL;
  return a;
}

static kf_node *str_map(kf_arena *A, const kf_kv *kv, size_t n) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  size_t i;
  for (i = 0; o && i < n; i++)
    if (!kf_obj_str(A, o, kv[i].k, kv[i].v)) return NULL;
  return o;
}

static kf_status push_str(mctx *c, kf_node *arr, const char *s) {
  OOM(c, kf_node_push(c->A, arr, NULL, kf_node_str(c->A, s, strlen(s))));
  return KF_OK;
}

static kf_status push_int(mctx *c, kf_node *arr, int64_t v) {
  char b[24];
  snprintf(b, sizeof b, "%lld", (long long)v);
  return push_str(c, arr, b);
}

static kf_status launcher_command(mctx *c, const kf_job *j, const kf_strs *args,
                                  kf_node **out) {
  static const char *const mpirun[] = {
      "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
      "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO",
      "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np", NULL};
  /* workers x slots, both int32: no overflow in 64 bits */
  int64_t np = (int64_t)j->g[KF_WORKER].replicas * j->slots;
  kf_node *a;
  size_t i;
  kf_status st = KF_OK;
  if (j->kind != KF_MPI && j->kind != KF_HOROVOD)
    return kf_fail(c->e, KF_EINVAL,
                   "%s: only MPIJob and HorovodJob have a launcher", c->who);
  OOM(c, a = kf_node_new(c->A, KF_NARR));
  if (j->kind == KF_MPI) {
    for (i = 0; mpirun[i] && st == KF_OK; i++) st = push_str(c, a, mpirun[i]);
    if (st == KF_OK) st = push_int(c, a, np);
  } else {
    if ((st = push_str(c, a, "horovodrun")) ||
        (st = push_str(c, a, "-np")) || (st = push_int(c, a, np)) ||
        (st = push_str(c, a, "--log-level")) ||
        (st = push_str(c, a, j->log_level)) ||
        (st = push_str(c, a, "--network-interface")) ||
        (st = push_str(c, a, "eth0")) ||
        (st = push_str(c, a, "--min-np")) || (st = push_int(c, a, np)) ||
        (st = push_str(c, a, "--max-np")) || (st = push_int(c, a, np)) ||
        (st = push_str(c, a, "--slots-per-host")) ||
        (st = push_int(c, a, j->slots)) ||
        (st = push_str(c, a, "--host-discovery-script")) ||
        (st = push_str(c, a, j->discovery_script_path)) ||
        (st = push_str(c, a, "--elastic-timeout")) ||
        (st = push_int(c, a, j->elastic_timeout)))
      return st;
    if (j->verbose) st = push_str(c, a, "--verbose");
  }
  for (i = 0; args && i < args->n && st == KF_OK; i++)
    st = push_str(c, a, args->v[i]);
  if (a->u.c.n > KF_MAX_ITEMS)
    return kf_fail(c->e, KF_ELIMIT, "%s: args: command longer than the limit of %d items",
                   c->who, KF_MAX_ITEMS);
  *out = a;
  return st;
}

kf_status kf_launcher_command(const kf_job *j, const kf_strs *args,
                              kf_arena *A, kf_node **out, const char *who,
                              kf_err *e) {
  mctx c;
  c.A = A, c.e = e, c.who = who;
  return launcher_command(&c, j, args, out);
}

/* ---- the resource ----------------------------------------------------- */

typedef struct shared {       /* parts every replica spec uses */
  const kf_manifest_opts *o;
  kf_node *pod_meta;          /* template.metadata, NULL: none */
  kf_node *env;               /* container env, NULL: none */
  kf_node *args;              /* the task container's args, NULL: none */
} shared;

/* The group with the task's resources where it has none of its own (FACTS
** 3.4): a group with resources takes cpu and memory only from them, GPU
** and ephemeral storage from them when given, else from the task. */
const kf_group *kfm_task_resources(const kf_job *j, const kf_group *g,
                                      kf_group *tmp) {
  int r, own = 0, any = 0;
  for (r = 0; r < KF_NRES; r++) {
    own |= g->requests[r] || g->limits[r];
    any |= j->requests[r] || j->limits[r];
  }
  if (!any) return g;
  *tmp = *g;
  for (r = 0; r < KF_NRES; r++)
    if (!own || ((r == KF_GPU || r == KF_EPH) && !g->requests[r] && !g->limits[r]))
      tmp->requests[r] = j->requests[r], tmp->limits[r] = j->limits[r];
  return tmp;
}

static kf_status container(mctx *c, const kf_job *j, int role,
                           const shared *sh, kf_node *containers) {
  kf_group tmp;
  const kf_group *g = kfm_task_resources(j, &j->g[role], &tmp);
  const kf_manifest_opts *o = sh->o;
  const char *req[KF_NRES], *lim[KF_NRES];
  kf_node *ct, *res, *m[2] = {NULL, NULL};
  int i, side;
  kf_status st;
  OOM(c, ct = kf_obj_add(c->A, containers, NULL, KF_NOBJ));
  OOM(c, kf_obj_str(c->A, ct, "name", kf_kinds[j->kind].container));
  OOM(c, kf_obj_str(c->A, ct, "image", g->image ? g->image : o->image));
  if (o->command.n)
    OOM(c, kf_node_push(c->A, ct, "command", str_list(c->A, o->command.v, o->command.n)));
  if (g->ncommand)   /* MPI: the group command replaces the args */
    OOM(c, kf_node_push(c->A, ct, "args", str_list(c->A, g->command, g->ncommand)));
  else if (sh->args && sh->args->u.c.n)
    OOM(c, kf_node_push(c->A, ct, "args", sh->args));
  if (sh->env) OOM(c, kf_node_push(c->A, ct, "env", sh->env));
  if ((st = group_resources(c, g, kf_roles[role].key, req, lim)) != KF_OK)
    return st;
  OOM(c, res = kf_obj_add(c->A, ct, "resources", KF_NOBJ));
  for (side = 0; side < 2; side++) {     /* Go order: limits, requests */
    const char **q = side ? req : lim;
    for (i = 0; i < KF_NRES; i++) {
      int r = res_sorted[i];
      if (q[r] == NULL) continue;
      if (m[side] == NULL)
        OOM(c, m[side] = kf_obj_add(c->A, res, side ? "requests" : "limits", KF_NOBJ));
      OOM(c, kf_obj_str(c->A, m[side], kf_resources_obj.f[r].manifest, q[r]));
    }
  }
  return KF_OK;
}

static kf_status replica_spec(mctx *c, const kf_job *j, int role,
                              const shared *sh, kf_node *specs) {
  const char *const *rp = kf_restart_policy_enum.manifest;
  kf_node *rs, *tmpl, *pod, *containers;
  kf_status st;
  OOM(c, rs = kf_obj_add(c->A, specs, kf_roles[role].name, KF_NOBJ));
  OOM(c, kf_obj_int(c->A, rs, "replicas", j->g[role].replicas));
  OOM(c, tmpl = kf_obj_add(c->A, rs, "template", KF_NOBJ));
  if (sh->pod_meta) OOM(c, kf_node_push(c->A, tmpl, "metadata", sh->pod_meta));
  if (j->pod_template || j->shared_memory || j->has_accelerator) {
    /* the group's container, merged into the template's pod */
    OOM(c, containers = kf_node_new(c->A, KF_NARR));
    if ((st = container(c, j, role, sh, containers)) != KF_OK ||
        (st = kf_pod_spec(c->A, j, containers->u.c.v[0], sh->o->service_account,
                          &pod, c->who, c->e)) != KF_OK)
      return st;
    OOM(c, kf_node_push(c->A, tmpl, "spec", pod));
    OOM(c, kf_obj_str(c->A, rs, "restartPolicy", rp[j->g[role].restart_policy]));
    return KF_OK;
  }
  OOM(c, pod = kf_obj_add(c->A, tmpl, "spec", KF_NOBJ));
  OOM(c, containers = kf_obj_add(c->A, pod, "containers", KF_NARR));
  if ((st = container(c, j, role, sh, containers)) != KF_OK) return st;
  /* the pod's own policy, as Flyte builds every pod */
  OOM(c, kf_obj_str(c->A, pod, "restartPolicy", "Never"));
  if (sh->o->service_account)
    OOM(c, kf_obj_str(c->A, pod, "serviceAccountName", sh->o->service_account));
  OOM(c, kf_obj_str(c->A, rs, "restartPolicy", rp[j->g[role].restart_policy]));
  return KF_OK;
}

/* The run policy by its rows' manifest keys: enums in Kubernetes'
** spelling, zeros left out as ParseRunPolicy does; no policy gives {}. */
static kf_node *run_policy(kf_arena *A, const kf_job *j) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  const char *rp = (const char *)&j->rp;
  size_t i;
  if (o == NULL || !j->has_run_policy) return o;
  for (i = 0; i < kf_run_policy_obj.n; i++) {
    const kf_field *f = &kf_run_policy_obj.f[i];
    int32_t v = *(const int32_t *)(const void *)(rp + f->off);
    if (f->type == KF_V_ENUM) {
      if (!kf_obj_str(A, o, f->manifest, ((const kf_enum *)f->info)->manifest[v]))
        return NULL;
    } else if (v != 0 && !kf_obj_int(A, o, f->manifest, v)) {
      return NULL;
    }
  }
  return o;
}

static kf_status check_meta(mctx *c, const char *prefix, const kf_kvs *labels,
                            const kf_kvs *annotations);

/* Every input the API server or the operator would refuse. */
static kf_status check_opts(mctx *c, const kf_job *j, const kf_manifest_opts *o) {
  char pod[256], p[160];
  size_t i, len;
  kf_status st;
  if (o->name == NULL)
    return failf(c, "opts.name", "required (the resource name, a DNS-1035 label)");
  if (!kfm_dns_label(o->name, strlen(o->name), 1))
    return failf(c, "opts.name", "'%.100s' is not a DNS-1035 label (%s)",
                 o->name, kfm_dns1035_rule);
  if ((len = kfm_longest_pod(j, o->name, pod, sizeof pod)) > 63)
    return failf(c, "opts.name", "too long for this job: pod name '%s' has %zu "
                 "characters (at most 63)", pod, len);
  if (o->ns && (strlen(o->ns) > 63 || !kfm_dns_label(o->ns, strlen(o->ns), 0)))
    return failf(c, "opts.namespace", "'%.100s' is not a DNS-1123 label (at "
                 "most 63 lowercase letters, digits and '-', starting and "
                 "ending with a letter or digit)", o->ns);
  if (o->service_account &&
      !dns_subdomain(o->service_account, strlen(o->service_account)))
    return failf(c, "opts.service_account", "'%.100s' is not a DNS-1123 "
                 "subdomain (lowercase letters, digits, '-' and '.')",
                 o->service_account);
  if (o->image && (st = check_token(c, "opts.image", o->image)) != KF_OK)
    return st;
  for (i = 0; !o->image && i < (size_t)kf_kinds[j->kind].nroles; i++) {
    int role = kf_kinds[j->kind].roles[i].role;   /* in the kind's order */
    if (j->g[role].replicas > 0 && j->g[role].image == NULL)
      return failf(c, "opts.image", "required: %s has no image of its own",
                   kf_roles[role].key);
  }
  if ((st = check_meta(c, "opts", &o->labels, &o->annotations)) != KF_OK)
    return st;
  for (i = 0; i < o->env.n; i++)
    if (!env_name(o->env.v[i].k)) {
      key_path(p, sizeof p, "opts.env", o->env.v[i].k);
      return failf(c, p, "invalid environment variable name (letters, digits, "
                   "'_', '-' or '.', not starting with a digit)");
    }
  return KF_OK;
}

/* Labels and annotations the API server takes (prefix: where they are). */
static kf_status check_meta(mctx *c, const char *prefix, const kf_kvs *labels,
                            const kf_kvs *annotations) {
  char p[160], at[64];
  size_t i, total = 0;
  snprintf(at, sizeof at, "%s.labels", prefix);
  for (i = 0; i < labels->n; i++) {
    key_path(p, sizeof p, at, labels->v[i].k);
    if (!qualified_name(labels->v[i].k))
      return failf(c, p, "invalid label key (an optional DNS subdomain prefix "
                   "and '/', then at most 63 letters, digits, '-', '_' or '.', "
                   "starting and ending with a letter or digit)");
    if (*labels->v[i].v && !name_part(labels->v[i].v, strlen(labels->v[i].v)))
      return failf(c, p, "invalid label value '%.100s' (empty, or at most 63 "
                   "letters, digits, '-', '_' or '.', starting and ending "
                   "with a letter or digit)", labels->v[i].v);
  }
  snprintf(at, sizeof at, "%s.annotations", prefix);
  for (i = 0; i < annotations->n; i++) {
    key_path(p, sizeof p, at, annotations->v[i].k);
    if (!qualified_name(annotations->v[i].k))
      return failf(c, p, "invalid annotation key (an optional DNS subdomain "
                   "prefix and '/', then at most 63 letters, digits, '-', "
                   "'_' or '.', starting and ending with a letter or digit)");
    total += strlen(annotations->v[i].k) + strlen(annotations->v[i].v);
  }
  if (total > 256 * 1024)
    return failf(c, at, "larger than the 256 KiB Kubernetes allows");
  return KF_OK;
}

/* Pod settings the API server would refuse: the template's labels and
** annotations, task GPU requests that differ from the limits. */
static kf_status check_pod(mctx *c, const kf_job *j) {
  const kf_node *m = j->pod_template ? kf_node_get(j->pod_template, "metadata") : NULL;
  const kf_node *l = kf_node_get(m, "labels"), *an = kf_node_get(m, "annotations");
  const char *r = j->requests[KF_GPU], *lim = j->limits[KF_GPU];
  kf_kvs lk = {NULL, 0}, ak = {NULL, 0};
  kf_status st;
  if ((l && (st = opt_map(c, "pod_template.metadata.labels", l, &lk)) != KF_OK) ||
      (an && (st = opt_map(c, "pod_template.metadata.annotations", an, &ak)) != KF_OK) ||
      (st = check_meta(c, "pod_template.metadata", &lk, &ak)) != KF_OK)
    return st;
  if (r && lim && kfm_qty_value(r) != 0 && kfm_qty_value(lim) != 0 && kfm_qty_cmp(r, lim) != 0)
    return failf(c, "requests.gpu", "%s differs from limits.gpu %s (Kubernetes "
                 "needs GPU requests equal to limits)", r, lim);
  return KF_OK;
}

/* training-operator v1.9: kubeflow.org/v1 */
static kf_status manifest_operator(const kf_job *j, const kf_manifest_opts *o,
                                   kf_arena *A, kf_node **out, const char *who,
                                   kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  mctx c0, *c = &c0;
  shared sh;
  kf_node *root, *meta, *spec, *specs, *rp;
  kf_kv *labels, *annotations, *env;
  int roles[KF_NROLES], n, i;
  kf_status st;
  c->A = A, c->e = e, c->who = who;
  if ((st = check_opts(c, j, o)) != KF_OK ||
      (st = sorted(c, "opts.labels", &o->labels, &labels)) != KF_OK ||
      (st = sorted(c, "opts.annotations", &o->annotations, &annotations)) != KF_OK ||
      (st = sorted(c, "opts.env", &o->env, &env)) != KF_OK ||
      (st = check_pod(c, j)) != KF_OK)
    return st;

  OOM(c, root = kf_node_new(A, KF_NOBJ));
  OOM(c, kf_obj_str(A, root, "apiVersion", "kubeflow.org/v1"));
  OOM(c, kf_obj_str(A, root, "kind", k->crd_kind));
  OOM(c, meta = kf_obj_add(A, root, "metadata", KF_NOBJ));
  OOM(c, kf_obj_str(A, meta, "name", o->name));
  if (o->ns) OOM(c, kf_obj_str(A, meta, "namespace", o->ns));

  /* Flyte puts the execution's labels and annotations on the resource and
  ** on every pod template; so do we. */
  memset(&sh, 0, sizeof sh);
  sh.o = o;
  if (o->labels.n || o->annotations.n) {
    kf_node *l = NULL, *an = NULL;
    OOM(c, sh.pod_meta = kf_node_new(A, KF_NOBJ));
    if (o->labels.n) {
      l = str_map(A, labels, o->labels.n);
      OOM(c, kf_node_push(A, meta, "labels", l) &&
                 kf_node_push(A, sh.pod_meta, "labels", l));
    }
    if (o->annotations.n) {
      an = str_map(A, annotations, o->annotations.n);
      OOM(c, kf_node_push(A, meta, "annotations", an) &&
                 kf_node_push(A, sh.pod_meta, "annotations", an));
    }
    if (j->pod_template &&  /* the template's under the execution's */
        (st = kf_pod_meta(A, j->pod_template, l, an, &sh.pod_meta, e)) != KF_OK)
      return st;
  } else if (j->pod_template &&
             (st = kf_pod_meta(A, j->pod_template, NULL, NULL, &sh.pod_meta, e)) != KF_OK) {
    return st;
  }
  if (o->env.n) {
    OOM(c, sh.env = kf_node_new(A, KF_NARR));
    for (i = 0; i < (int)o->env.n; i++) {
      kf_node *v;
      OOM(c, v = kf_obj_add(A, sh.env, NULL, KF_NOBJ));
      OOM(c, kf_obj_str(A, v, "name", env[i].k) && kf_obj_str(A, v, "value", env[i].v));
    }
  }
  /* MPI: the task's args are the launcher command around opts.args, as
  ** flytekit sends them; groups without a command of their own keep them */
  if (k->flags & KF_K_COMMAND) {
    if ((st = launcher_command(c, j, &o->args, &sh.args)) != KF_OK) return st;
  } else if (o->args.n) {
    OOM(c, sh.args = str_list(A, o->args.v, o->args.n));
  }

  OOM(c, spec = kf_obj_add(A, root, "spec", KF_NOBJ));
  OOM(c, rp = run_policy(A, j));
  if (k->flags & KF_K_SLOTS)
    OOM(c, kf_obj_int(A, spec, "slotsPerWorker", j->slots));
  else
    OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  if (k->flags & KF_K_ELASTIC) {
    kf_node *ep;
    OOM(c, ep = kf_obj_add(A, spec, "elasticPolicy", KF_NOBJ));
    OOM(c, kf_obj_int(A, ep, "minReplicas", j->min_nodes) &&
               kf_obj_int(A, ep, "maxReplicas", j->max_nodes) &&
               kf_obj_str(A, ep, "rdzvBackend", j->rdzv_backend));
    /* an integer stays in the deprecated elasticPolicy field (today's
    ** output; lint warns, R10); a word only spec.nprocPerNode can carry */
    if (j->nproc_word == NULL)
      OOM(c, kf_obj_int(A, ep, "nProcPerNode", j->nproc_per_node));
    OOM(c, kf_obj_int(A, ep, "maxRestarts", j->max_restarts));
    if (j->nproc_word != NULL)
      OOM(c, kf_obj_strref(A, spec, "nprocPerNode", j->nproc_word));
  }
  OOM(c, specs = kf_obj_add(A, spec, k->crd_specs, KF_NOBJ));
  n = kfm_present_roles(j, roles);   /* elastic kinds have no master role */
  for (i = 0; i < n; i++)
    if ((st = replica_spec(c, j, roles[i], &sh, specs)) != KF_OK) return st;
  if (k->flags & KF_K_SLOTS) OOM(c, kf_node_push(A, spec, "runPolicy", rp));
  *out = root;
  return KF_OK;
}

kf_status kf_manifest(const kf_job *j, const kf_manifest_opts *o, kf_arena *A,
                      kf_node **out, const char *who, kf_err *e) {
  kf_target t = o->target_set ? o->target : KF_T_OPERATOR;
  kf_status st = kf_target_allows(t, KF_E_MANIFEST, j->kind, "manifest", who, e);
  kf_target_ctx tc;
  char ctor[48];
  if (st != KF_OK) return st;
  /* the target's rules (SPEC §11): the first error, as emitting raises it */
  memset(&tc, 0, sizeof tc);
  tc.name = o->name;
  snprintf(ctor, sizeof ctor, "kfjob.%s", kf_kinds[j->kind].name);
  if ((st = kf_target_require(j, t, &tc, A, ctor, e)) != KF_OK) return st;
  switch (t) {
    case KF_T_OPERATOR:
      return manifest_operator(j, o, A, out, who, e);
    case KF_T_FLYTE: case KF_T_FLYTE2: case KF_T_MPI_OPERATOR:
    case KF_T_TRAINER_22: case KF_T_TRAINER_23: case KF_NTARGETS:
      break;
  }
  return kf_fail(e, KF_EINVAL, "%s: manifest for target '%s' is not built yet",
                 who, kf_targets[t].name);
}

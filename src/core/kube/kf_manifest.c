/*
** kf_manifest.c - what the writers share below kf_manifest_common.c:
** manifest options, Kubernetes names, the pods the operator creates,
** quantities, the checks of options and pod settings.
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
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_manifest.h"
#include "kf_pod.h"
#include "kf_sched.h"

#include "kf_manifest_int.h"

/* "<who>: <path>: <problem>" */
kf_status kfm_failf(mctx *c, const char *path, const char *fmt, ...) {
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
void kfm_key_path(char *out, size_t cap, const char *prefix, const char *k) {
  kf_key_path(out, cap, prefix, k);
}

/* ---- options ---------------------------------------------------------- */

static kf_status opt_str(mctx *c, const char *path, const kf_node *v,
                         const char **out) {
  if (v->t != KF_NSTR)
    return kfm_failf(c, path, "expected a string, got %s", type_name(v));
  if (v->u.s.n > KF_MAX_STRING)   /* as every other string kfjob takes */
    return kfm_failf(c, path, "string longer than the limit of 1 MiB");
  if (strlen(v->u.s.p) != v->u.s.n)
    return kfm_failf(c, path, "string contains a NUL byte");
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
    return kfm_failf(c, path, "expected a list of strings, got %s", type_name(v));
  if (v->u.c.n > KF_MAX_ITEMS)
    return kfm_failf(c, path, "list longer than the limit of %d items", KF_MAX_ITEMS);
  KF_OOM(c, items = (const char **)kf_arena_alloc(c->A, v->u.c.n * sizeof *items + 1));
  for (i = 0; i < v->u.c.n; i++) {
    snprintf(p, sizeof p, "%s[%zu]", path, i + 1);
    if ((st = opt_str(c, p, v->u.c.v[i], &items[i])) != KF_OK) return st;
  }
  out->v = items;
  out->n = v->u.c.n;
  return KF_OK;
}

kf_status kfm_opt_map(mctx *c, const char *path, const kf_node *v,
                         kf_kvs *out) {
  kf_kv *kv;
  char p[160];
  size_t i;
  kf_status st;
  if (v->t != KF_NOBJ || v->tag)
    return kfm_failf(c, path, "expected a table of strings by name, got %s",
                 v->t == KF_NARR ? "a list" : type_name(v));
  KF_OOM(c, kv = (kf_kv *)kf_arena_alloc(c->A, v->u.c.n * sizeof *kv + 1));
  for (i = 0; i < v->u.c.n; i++) {
    kv[i].k = v->u.c.k[i];
    kfm_key_path(p, sizeof p, path, kv[i].k);
    if ((st = opt_str(c, p, v->u.c.v[i], &kv[i].v)) != KF_OK) return st;
  }
  out->v = kv;
  out->n = v->u.c.n;
  return KF_OK;
}

kf_status kf_strs_from_node(const kf_node *n, kf_strs *out, kf_arena *A,
                            const char *who, const char *path, kf_err *e) {
  mctx c;
  c.A = A, c.e = e, c.who = who, c.flyte = 0;
  out->v = NULL, out->n = 0;
  return opt_list(&c, path, n, out);
}

/* One option into its row's slot of o (no row: an option o does not hold). */
static kf_status opt_slot(mctx *c, const kf_option *r, const char *path,
                          const kf_node *v, kf_manifest_opts *o) {
  char *at = r ? (char *)o + r->off : NULL;
  kf_status st;
  const char *t = NULL;  /* set when opt_str succeeds; NULL quiets -O3's flow analysis */
  switch (r ? r->slot : KF_OS_NONE) {
    case KF_OS_STR: return opt_str(c, path, v, (const char **)(void *)at);
    case KF_OS_STRS: return opt_list(c, path, v, (kf_strs *)(void *)at);
    case KF_OS_MAP: return kfm_opt_map(c, path, v, (kf_kvs *)(void *)at);
    case KF_OS_NOT_BOOL:
      if (v->t != KF_NBOOL) return kfm_failf(c, path, "expected a boolean, got %s", type_name(v));
      *(int *)(void *)at = !v->u.b;
      return KF_OK;
    case KF_OS_TARGET:
      if ((st = opt_str(c, path, v, &t)) == KF_OK &&
          (st = kf_target_parse(t, (kf_target *)(void *)at, c->who, path, c->e)) == KF_OK)
        o->target_set = 1;
      return st;
    case KF_OS_NONE: break;
  }
  return KF_OK;
}

kf_status kf_manifest_opts_parse(const kf_node *n, kf_manifest_opts *o,
                                 kf_arena *A, const char *who, kf_err *e) {
  mctx c0, *c = &c0;
  size_t i;
  c->A = A, c->e = e, c->who = who, c->flyte = 0;
  memset(o, 0, sizeof *o);
  if (n == NULL || (n->t == KF_NARR && n->u.c.n == 0)) return KF_OK;
  if (n->t != KF_NOBJ)
    return kf_fail(e, KF_EINVAL, "%s: opts: expected a table, got %s", who,
                   type_name(n));
  for (i = 0; i < n->u.c.n; i++) {
    const char *k = n->u.c.k[i];
    const kf_node *v = n->u.c.v[i];
    char path[64];
    kf_status st;
    snprintf(path, sizeof path, "opts.%.40s", k);
    if ((st = opt_slot(c, kf_option_slot(k), path, v, o)) != KF_OK) return st;
  }
  return KF_OK;
}

/* ---- Kubernetes names (base/kf_text.c) -------------------------------- */

/* What the API server accepts as an env var name (IsEnvVarName). */
int kfm_env_name(const char *s) { return kf_env_name(s); }

static kf_status check_token(mctx *c, const char *path, const char *s) {
  if (*s == '\0') return kfm_failf(c, path, "must not be empty");
  char buf[64];
  const char *why = kf_token_problem(s, strlen(s), buf, sizeof buf);
  if (why != NULL) return kfm_failf(c, path, "%s", why);
  return KF_OK;
}

static int kv_cmp(const void *a, const void *b) {
  return strcmp(((const kf_kv *)a)->k, ((const kf_kv *)b)->k);
}

/* A sorted copy (Go writes maps sorted; env follows suit for stable
** output); the same key twice is an error. */
kf_status kfm_sorted(mctx *c, const char *path, const kf_kvs *in,
                        kf_kv **out) {
  size_t i;
  char p[160];
  KF_OOM(c, *out = (kf_kv *)kf_arena_alloc(c->A, in->n * sizeof **out + 1));
  if (in->n) memcpy(*out, in->v, in->n * sizeof **out);
  qsort(*out, in->n, sizeof **out, kv_cmp);
  for (i = 1; i < in->n; i++)
    if (strcmp((*out)[i].k, (*out)[i - 1].k) == 0) {
      kfm_key_path(p, sizeof p, path, (*out)[i].k);
      return kfm_failf(c, p, "given twice");
    }
  return KF_OK;
}

/* ---- the job's own container and metadata ----------------------------- */

const char *kfm_task_image(const kf_job *j, const kf_manifest_opts *o) {
  if (o && o->image) return o->image;
  return j->has_container ? j->container.image : NULL;
}

const char *kfm_namespace(const kf_job *j, const kf_manifest_opts *o) {
  return o && o->ns ? o->ns : j->ns;
}

const kf_node *kfm_row_env(const kf_job *j, int role, int *group) {
  const kf_group *g = &j->g[role];
  if (group) *group = 0;
  if (g->has_container && g->container.env) {
    if (group) *group = 1;
    return g->container.env;
  }
  return j->has_container ? j->container.env : NULL;
}

/* One EnvVar in the Go struct's key order (k8s.io/api/core/v1 EnvVar:
** name, value, valueFrom), value left out when not given. */
static kf_node *env_var(kf_arena *A, const kf_node *it) {
  static const char *const keys[] = {"name", "value", "valueFrom"};
  kf_node *v = kf_node_new(A, KF_NOBJ);
  int k;
  for (k = 0; v && k < 3; k++) {
    kf_node *x = kf_node_get(it, keys[k]);
    if (x && !kf_node_push(A, v, keys[k], x)) return NULL;
  }
  return v;
}

kf_node *kfm_env_list(kf_arena *A, const kf_node *env) {
  kf_node *l = kf_node_new(A, KF_NARR);
  kf_kv *kv;
  size_t i, n = env ? env->u.c.n : 0;
  if (l == NULL || env == NULL) return l;
  if (env->t == KF_NARR) {   /* EnvVars, in their order */
    for (i = 0; i < n; i++)
      if (!kf_node_push(A, l, NULL, env_var(A, env->u.c.v[i]))) return NULL;
    return l;
  }
  /* name = value: sorted by name, as opts.env */
  if ((kv = (kf_kv *)kf_arena_alloc(A, n * sizeof *kv + 1)) == NULL) return NULL;
  for (i = 0; i < n; i++) kv[i].k = env->u.c.k[i], kv[i].v = env->u.c.v[i]->u.s.p;
  qsort(kv, n, sizeof *kv, kv_cmp);
  for (i = 0; i < n; i++) {
    kf_node *v = kf_obj_add(A, l, NULL, KF_NOBJ);
    if (v == NULL || !kf_obj_strref(A, v, "name", kv[i].k) ||
        !kf_obj_strref(A, v, "value", kv[i].v))
      return NULL;
  }
  return l;
}

static int kv_find(const void *key, const void *b) {
  return strcmp((const char *)key, ((const kf_kv *)b)->k);
}

/* The job's labels (or annotations), a checked name -> string table, under
** the call's (opts wins by key): sorted entries in *out, n of them. */
kf_status kfm_merged_map(mctx *c, const char *path, const kf_node *job,
                         const kf_kvs *opt, kf_kv **out, size_t *n) {
  kf_kv *s, *m;
  size_t i, k = opt->n, nj = job ? job->u.c.n : 0;
  kf_status st;
  kf_kvs all;
  if ((st = kfm_sorted(c, path, opt, &s)) != KF_OK) return st;
  *out = s, *n = opt->n;
  if (nj == 0) return KF_OK;
  KF_OOM(c, m = (kf_kv *)kf_arena_alloc(c->A, (opt->n + nj) * sizeof *m + 1));
  if (opt->n) memcpy(m, s, opt->n * sizeof *m);
  for (i = 0; i < nj; i++)
    if (!bsearch(job->u.c.k[i], s, opt->n, sizeof *s, kv_find))
      m[k].k = job->u.c.k[i], m[k++].v = job->u.c.v[i]->u.s.p;
  all.v = m, all.n = k;
  *n = k;
  return kfm_sorted(c, path, &all, out);
}

/* ---- pods the operator creates ---------------------------------------- */

/* Roles present in the resource, sorted by replica type as Go sorts map
** keys; returns how many. */
/* Each kind's roles in name order, sorted once (the rules ask for the
** present ones several times per job). */
static int by_name[KF_NKINDS][KF_NROLES];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static void by_name_init(void) {
  int k, i, b;
  for (k = 0; k < KF_NKINDS; k++) {
    const kf_kind_info *ki = &kf_kinds[k];
    for (i = 0; i < ki->nroles; i++) {   /* at most four: insertion sort */
      int role = ki->roles[i].role;
      for (b = i; b > 0 && strcmp(kf_roles[by_name[k][b - 1]].name, kf_roles[role].name) > 0; b--)
        by_name[k][b] = by_name[k][b - 1];
      by_name[k][b] = role;
    }
  }
}

int kfm_present_roles(const kf_job *j, int out[KF_NROLES]) {
  const int *order = by_name[j->kind];
  int i, n = 0;
  pthread_once(&by_name_once, by_name_init);
  for (i = 0; i < kf_kinds[j->kind].nroles; i++)
    if (j->g[order[i]].replicas > 0) out[n++] = order[i];
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

/* On target t: Trainer's JobSet names its pods <name>-node-0-<i> (one
** replicated job `node` of numNodes pods; FACTS R15), the other targets
** as kfm_longest_pod. */
size_t kfm_longest_pod_on(const kf_job *j, kf_target t, const char *name, char *buf,
                          size_t cap) {
  int64_t nodes;
  if (!KF_T_IS_TRAINER(t)) return kfm_longest_pod(j, name, buf, cap);
  nodes = kf_trainer_nodes(j);
  snprintf(buf, cap, "%.200s-node-0-%lld", name, (long long)(nodes > 1 ? nodes - 1 : 0));
  return strlen(buf);
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
  if (*s == '+') s++;   /* "+1" (kf_quantity_ok takes the sign) */
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
    case 'n': return v / 1e9L;
    case 'u': return v / 1e6L;
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
const int kfm_res_sorted[KF_NRES] = {KF_CPU, KF_EPH, KF_MEM, KF_GPU};

/* The resources Kubernetes gets for one group, as the backend derives them:
** zero quantities are dropped, a request above its limit is lowered to it,
** a missing request equals the limit, and a lone GPU request also becomes
** the limit (the API server wants both, equal, for extended resources). */
kf_status kfm_group_resources(mctx *c, const kf_group *g, const char *key,
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
        return kfm_failf(c, p, "%s differs from limits.gpu %s (Kubernetes needs "
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

kf_node *kfm_str_list(kf_arena *A, const char *const *v, size_t n) {
  kf_node *a = kf_node_new(A, KF_NARR);
  size_t i;
  for (i = 0; a && i < n; i++)
    if (!kf_node_push(A, a, NULL, kf_node_str(A, v[i], strlen(v[i])))) return NULL;
  return a;
}

kf_node *kfm_str_map(kf_arena *A, const kf_kv *kv, size_t n) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  size_t i;
  for (i = 0; o && i < n; i++)
    if (!kf_obj_str(A, o, kv[i].k, kv[i].v)) return NULL;
  return o;
}

static kf_status check_meta(mctx *c, const char *prefix, const kf_kvs *labels,
                            const kf_kvs *annotations);

/* Every input the API server or the operator would refuse. */
kf_status kfm_check_opts(mctx *c, const kf_job *j, const kf_manifest_opts *o) {
  char pod[256], p[160];
  size_t i, len;
  kf_status st;
  if (o->name == NULL)
    return kfm_failf(c, "opts.name", "required (the resource name, a DNS-1035 label)");
  if (!kf_dns_label(o->name, strlen(o->name), 1))
    return kfm_failf(c, "opts.name", "'%.100s' is not a DNS-1035 label (%s)",
                 o->name, kfm_dns1035_rule);
  if (o->target_set && KF_T_IS_TRAINER(o->target)) {
    /* JobSet names the pods <name>-node-0-<i> (R15: a warning, not ours) */
    if ((len = strlen(o->name)) > 63)
      return kfm_failf(c, "opts.name", "too long: %zu characters (a TrainJob's "
                       "name has at most 63)", len);
  } else if ((len = kfm_longest_pod(j, o->name, pod, sizeof pod)) > 63) {
    return kfm_failf(c, "opts.name", "too long for this job: pod name '%s' has %zu "
                 "characters (at most 63)", pod, len);
  }
  if (o->no_pod_copy && o->target_set &&
      (o->target == KF_T_FLYTE || o->target == KF_T_FLYTE2))   /* pod_helper.go */
    return kfm_failf(c, "opts.copy_to_pods", "false cannot be expressed on %s: Flyte's "
                     "backend puts the execution's labels and annotations on every pod",
                     kf_target_names[o->target]);
  if (o->ns && (strlen(o->ns) > 63 || !kf_dns_label(o->ns, strlen(o->ns), 0)))
    return kfm_failf(c, "opts.namespace", "'%.100s' is not a DNS-1123 label (at "
                 "most 63 lowercase letters, digits and '-', starting and "
                 "ending with a letter or digit)", o->ns);
  if (o->service_account &&
      !kf_dns_subdomain(o->service_account, strlen(o->service_account)))
    return kfm_failf(c, "opts.service_account", "'%.100s' is not a DNS-1123 "
                 "subdomain (lowercase letters, digits, '-' and '.')",
                 o->service_account);
  if (o->image && (st = check_token(c, "opts.image", o->image)) != KF_OK)
    return st;
  /* a TrainJob without an image runs its runtime's (trainjob_types.go
  ** Trainer.Image: optional; FACTS of Trainer v2.3 builder.go) */
  for (i = 0; !kfm_task_image(j, o) && !(o->target_set && KF_T_IS_TRAINER(o->target)) &&
              i < (size_t)kf_kinds[j->kind].nroles; i++) {
    int role = kf_kinds[j->kind].roles[i].role;   /* in the kind's order */
    if (j->g[role].replicas > 0 && j->g[role].image == NULL)
      return kfm_failf(c, "opts.image", "required: %s has no image of its own (set "
                       "the job's container.image, or kfjob render --image; only a "
                       "TrainJob may run its runtime's image)", kf_roles[role].key);
  }
  if ((st = check_meta(c, "opts", &o->labels, &o->annotations)) != KF_OK)
    return st;
  for (i = 0; i < o->env.n; i++)
    if (!kfm_env_name(o->env.v[i].k)) {
      kfm_key_path(p, sizeof p, "opts.env", o->env.v[i].k);
      return kfm_failf(c, p, "invalid environment variable name (letters, digits, "
                   "'_', '-' or '.', not starting with a digit)");
    }
  return KF_OK;
}

/* Labels and annotations the API server takes (prefix: where they are), by
** the validators (ValidateLabels, ValidateAnnotations). */
/* The scheduling row a Kueue label is written from (queue-name,
** priority-class, max-exec-time-seconds), else NULL. */
static const char *kueue_row(const char *k) {
  static const char *const keys[3] = {KF_KUEUE_QUEUE, KF_KUEUE_PRIORITY, KF_KUEUE_MAX_EXEC};
  static const char *const rows[3] = {"queue", "priority_class", "max_exec_time"};
  int i;
  for (i = 0; i < 3; i++)
    if (strcmp(k, keys[i]) == 0) return rows[i];
  return NULL;
}

static kf_status check_meta(mctx *c, const char *prefix, const kf_kvs *labels,
                            const kf_kvs *annotations) {
  char p[160], at[64];
  size_t i, total = 0;
  snprintf(at, sizeof at, "%s.labels", prefix);
  for (i = 0; i < labels->n; i++) {
    /* the call's (a pod template's went at construction; Flyte 2's
    ** effective one carries scheduling's) */
    const char *row = strcmp(prefix, "opts") == 0 ? kueue_row(labels->v[i].k) : NULL;
    kfm_key_path(p, sizeof p, at, labels->v[i].k);
    if (row)   /* on the resource and every pod, past R27 */
      return kfm_failf(c, p, "a Kueue label kfjob writes from scheduling.%s: set "
                       "scheduling.%s on the job (job:with{scheduling = ...}) instead",
                       row, row);
    if (!kf_check_ok(KF_CHECK_LABEL_KEY, labels->v[i].k))
      return kfm_failf(c, p, "invalid label key (an optional DNS subdomain prefix "
                   "and '/', then at most 63 letters, digits, '-', '_' or '.', "
                   "starting and ending with a letter or digit)");
    if (!kf_check_ok(KF_CHECK_LABEL_VALUE, labels->v[i].v))
      return kfm_failf(c, p, "invalid label value '%.100s' (empty, or at most 63 "
                   "letters, digits, '-', '_' or '.', starting and ending "
                   "with a letter or digit)", labels->v[i].v);
  }
  snprintf(at, sizeof at, "%s.annotations", prefix);
  for (i = 0; i < annotations->n; i++) {
    kfm_key_path(p, sizeof p, at, annotations->v[i].k);
    if (!kf_check_ok(KF_CHECK_ANNOTATION_KEY, annotations->v[i].k))
      return kfm_failf(c, p, "invalid annotation key (an optional DNS subdomain "
                   "prefix and '/', then at most 63 letters, digits, '-', "
                   "'_' or '.', starting and ending with a letter or digit)");
    total += strlen(annotations->v[i].k) + strlen(annotations->v[i].v);
  }
  if (total > 256 * 1024)
    return kfm_failf(c, at, "larger than the 256 KiB Kubernetes allows");
  return KF_OK;
}

/* Pod settings the API server would refuse: the template's labels and
** annotations, task GPU requests that differ from the limits. */
kf_status kfm_check_pod(mctx *c, const kf_job *j) {
  const kf_node *m = j->pod_template ? kf_node_get(j->pod_template, "metadata") : NULL;
  const kf_node *l = kf_node_get(m, "labels"), *an = kf_node_get(m, "annotations");
  const char *r = j->requests[KF_GPU], *lim = j->limits[KF_GPU];
  kf_kvs lk = {NULL, 0}, ak = {NULL, 0};
  kf_status st;
  if ((l && (st = kfm_opt_map(c, "pod_template.metadata.labels", l, &lk)) != KF_OK) ||
      (an && (st = kfm_opt_map(c, "pod_template.metadata.annotations", an, &ak)) != KF_OK) ||
      (st = check_meta(c, "pod_template.metadata", &lk, &ak)) != KF_OK)
    return st;
  if (r && lim && kfm_qty_value(r) != 0 && kfm_qty_value(lim) != 0 && kfm_qty_cmp(r, lim) != 0)
    return kfm_failf(c, "requests.gpu", "%s differs from limits.gpu %s (Kubernetes "
                 "needs GPU requests equal to limits)", r, lim);
  return KF_OK;
}


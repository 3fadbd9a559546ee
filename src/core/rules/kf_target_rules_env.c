/*
** kf_target_rules_env.c - rules by target about
** the environment: user variables named like the ones a target injects
** (R16).  Rows as in kf_target_rules.c.
**
** The test computes the pods' environment (kf_env.c) and reports every
** user variable (opts.env, the job's or a group's container.env, the pod
** template's primary env) that the target also sets on a pod the variable
** is on, so the rule follows exactly what each target injects for each
** kind and group, and a new kind's generator brings its names along.
*/
#include <stdio.h>
#include <string.h>

#include "kf_env.h"
#include "kf_rules_int.h"


static int same_at(const char *a, const char *b) {
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The user's variables differ by group (a group's container.env), so
** each is checked once, where first met: `seen` the paths met so far;
** 1 when `path` is new (and now met), 0 when met, -1 out of memory. */
static int first_met(kf_strset *seen, const char *path) {
  path = path ? path : "";
  return kf_strset_add(seen, path, strlen(path));
}

/* Sets over the pods' variables, each made once, when first asked for:
** the rules look a name up once a variable, not once a variable of every
** pod (20 000 entries took seconds pairwise).  A pod that starts a run of
** pods with the same user variables (`run`) gets all three sets; the
** others only the few names the target sets. */
typedef struct env_ix {
  const kf_env_pods *ps;
  kf_arena *A;
  unsigned char *run;  /* per pod: 1 when it starts a run */
  unsigned char *made; /* per pod: its sets are made */
  kf_strset *first;    /* per pod: a name -> the index of its first entry */
  kf_strset *target;   /* per pod: a name -> its first entry the target sets */
  kf_strset *paths;    /* per pod: its user variables' paths */
  kf_strset all;       /* every name on any pod (all_made) */
  int all_made;
} env_ix;

static int same_users(const kf_env_pod *a, const kf_env_pod *b);

static int env_ix_init(env_ix *x, const kf_env_pods *ps, kf_arena *A) {
  size_t n = ps->n ? ps->n : 1, i;
  x->ps = ps, x->A = A, x->all_made = 0;
  kf_strset_init(&x->all, A, 0);
  x->first = (kf_strset *)kf_arena_alloc(A, 3 * n * sizeof *x->first);
  x->run = (unsigned char *)kf_arena_alloc(A, 2 * n);
  if (x->first == NULL || x->run == NULL) return -1;
  x->target = x->first + n, x->paths = x->target + n, x->made = x->run + n;
  for (i = 0; i < ps->n; i++)
    x->run[i] = i == 0 || !same_users(&ps->p[i - 1], &ps->p[i]);
  return 0;
}

/* Pod pi's sets (made on first use); -1 out of memory. */
static int env_ix_pod(env_ix *x, size_t pi) {
  const kf_env_pod *p = &x->ps->p[pi];
  size_t k, nu = x->run[pi] ? p->n : 0;
  if (x->made[pi]) return 0;
  x->made[pi] = 1;
  kf_strset_init(&x->first[pi], x->A, nu);
  kf_strset_init(&x->target[pi], x->A, 0);
  kf_strset_init(&x->paths[pi], x->A, nu);
  for (k = 0; k < p->n; k++) {
    const kf_env_var *v = &p->v[k];
    const char *at = v->path ? v->path : "";
    if (v->origin != KF_ENV_USER &&
        kf_strset_put(&x->target[pi], v->name, strlen(v->name), (long)k) < 0)
      return -1;
    if (nu && (kf_strset_put(&x->first[pi], v->name, strlen(v->name), (long)k) < 0 ||
               (v->origin == KF_ENV_USER && kf_strset_add(&x->paths[pi], at, strlen(at)) < 0)))
      return -1;
  }
  return 0;
}

/* Whether pods a and b have the same user variables (the same paths, in
** order): b adds nothing to check (a group's pods one after another). */
static int same_users(const kf_env_pod *a, const kf_env_pod *b) {
  size_t i = 0, k = 0;
  for (;;) {
    while (i < a->n && a->v[i].origin != KF_ENV_USER) i++;
    while (k < b->n && b->v[k].origin != KF_ENV_USER) k++;
    if (i == a->n || k == b->n) return i == a->n && k == b->n;
    if (!same_at(a->v[i++].path, b->v[k++].path)) return 0;
  }
}

/* Pods with user variable `u` (its path) where its name is also set by
** the target (origin KF_ENV_FLYTE, _OPERATOR or _YIELDED); *first the
** first such pod, *origin who set it there.  `run[i]`: pod i starts a run
** of pods with the same user variables (whether u is one is asked once).
** n: the count, -1 out of memory. */
static long injected_on(env_ix *x, const kf_env_var *u, const char **first,
                        int *origin) {
  const char *at = u->path ? u->path : "";
  size_t i;
  long n = 0, k;
  int mine = 0;
  for (i = 0; i < x->ps->n; i++) {
    if (env_ix_pod(x, i) != 0) return -1;
    if (x->run[i]) mine = kf_strset_get(&x->paths[i], at, strlen(at)) >= 0;
    if (!mine || (k = kf_strset_get(&x->target[i], u->name, strlen(u->name))) < 0) continue;
    if (n++ == 0) *first = x->ps->p[i].key, *origin = x->ps->p[i].v[k].origin;
  }
  return n;
}

/* The problem of user variable `u`, set by the target on n of the ps->n
** pods (first: the first, origin: who). */
static kf_status r16_add(const kf_job *j, const kf_env_pods *ps, const kf_env_var *u,
                         size_t n, const char *first, int origin, kf_target t,
                         const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const char *who = origin == KF_ENV_FLYTE ? "Flyte" : "the operator";
  kf_status st;
  if (KF_T_IS_TRAINER(t) && j->kind == KF_JAX) {   /* reserved by none: a warning */
    if ((st = kf_problem_add(out, r, t, u->path, e, "%s is also set by Trainer's jax runtime "
                             "on every pod: your value replaces it (the plugin reserves no "
                             "names)", u->name)) == KF_OK && out->n)
      out->v[out->n - 1].sev = KF_SEV_WARN;
    return st;
  }
  if (KF_T_IS_TRAINER(t))
    return kf_problem_add(out, r, t, u->path, e, "%s is reserved by Trainer's "
                          "%s runtime: the TrainJob webhook rejects it (%s)", u->name,
                          j->kind == KF_XGBOOST ? "xgboost" : "torch",
                          j->kind == KF_XGBOOST ? "is reserved for the XGBoost runtime"
                                                : "must not have reserved envs");
  if (origin == KF_ENV_YIELDED)
    return kf_problem_add(out, r, t, u->path, e, "%s is also what the operator "
                          "sets on %s%s: your value wins (the operator adds its "
                          "own only when the container has none)", u->name,
                          n == ps->n ? "every pod, e.g. " : "", first);
  if (n == ps->n)
    return kf_problem_add(out, r, t, u->path, e, "%s is also set by %s on "
                          "every pod: %s value wins (its entry comes after "
                          "yours)", u->name, who,
                          origin == KF_ENV_FLYTE ? "Flyte's" : "the operator's");
  return kf_problem_add(out, r, t, u->path, e, "%s is also set by %s on %s%s: "
                        "%s value wins there (its entry comes after yours)",
                        u->name, who, first, n > 1 ? " and other pods" : "",
                        origin == KF_ENV_FLYTE ? "Flyte's" : "the operator's");
}

/* Pod pi's user variables, each checked where first met; a variable
** named like an earlier one of the same pod (opts.env and the pod
** template's env) is not: the first is the one reported. */
static kf_status r16_pod(const kf_job *j, env_ix *x, size_t pi, kf_strset *seen, kf_target t, const kf_target_rule *r,
                         kf_problems *out, kf_err *e) {
  const kf_env_pod *p = &x->ps->p[pi];
  kf_strset names;
  size_t i;
  kf_strset_init(&names, out->A, p->n);
  for (i = 0; i < p->n; i++) {
    const kf_env_var *u = &p->v[i];
    const char *first = NULL;
    int origin = 0, met, fresh;
    long n;
    kf_status st;
    if (u->origin != KF_ENV_USER) continue;
    if ((fresh = kf_strset_add(&names, u->name, strlen(u->name))) < 0 ||
        (met = fresh ? first_met(seen, u->path) : 0) < 0 ||
        (n = met ? injected_on(x, u, &first, &origin) : 0) < 0)
      return kf_nomem(e);
    if (n > 0 &&
        (st = r16_add(j, x->ps, u, (size_t)n, first, origin, t, r, out, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

static kf_status r16_test(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out,
                          kf_err *e) {
  kf_env_pods ps;
  kf_err ignored;
  kf_strset seen;
  env_ix x;
  size_t pi;
  kf_status st;
  /* the kinds a target does not run are kf_target_allows' error; Trainer's
  ** JAX plugin reserves no names (jax.go Validate): the user's value wins,
  ** a warning (r16_add) */
  if (!(kf_targets[t].kinds & (1u << j->kind))) return KF_OK;
  /* what the target does not cover (an unread kind) is environment's
  ** own error; the rule has nothing to compare then */
  if (kf_env_pods_of(j, t, c && c->name ? c->name : "job", NULL,
                     c ? c->env : NULL, out->A, &ps, "R16", &ignored) != KF_OK)
    return ignored.code == KF_ENOMEM ? kf_nomem(e) : KF_OK;
  if (ps.n == 0) return KF_OK;
  if (env_ix_init(&x, &ps, out->A) != 0) return kf_nomem(e);
  kf_strset_init(&seen, out->A, ps.p[0].n);
  /* every pod's: a group's container.env is its pods' alone */
  for (pi = 0; pi < ps.n; pi++)
    if (x.run[pi] && (st = r16_pod(j, &x, pi, &seen, t, r, out, e)) != KF_OK) return st;
  return KF_OK;
}

/* R55: $(NAME) in a user variable's value, where NAME is set on the pod
** only by the target and after the user's entry: Kubernetes expands a
** reference only to a variable defined earlier (kubelet
** makeEnvironmentVariables, FACTS §11.8), so it stays as written. */
/* The next reference $(NAME) of the string at *at (*len the length of
** NAME, which it returns; *at then after it); "$$" escapes a "$" (expand.go).
** NULL: none left. */
static const char *next_ref(const char **at, size_t *len) {
  const char *s = *at, *end;
  for (; s && *s; s++) {
    if (s[0] != '$') continue;
    if (s[1] == '$') { s++; continue; }
    if (s[1] != '(' || (end = strchr(s + 2, ')')) == NULL) continue;
    *len = (size_t)(end - s - 2);
    *at = end + 1;
    return s + 2;
  }
  *at = s;
  return NULL;
}

/* The target's entry setting NAME (n, len) after pod pi's variable i when
** nothing before i defines it; NULL otherwise (the pod's sets are made). */
static const kf_env_var *set_late(const env_ix *x, size_t pi, size_t i, const char *n,
                                  size_t len) {
  long f = kf_strset_get(&x->first[pi], n, len), k;
  if (f >= 0 && (size_t)f < i) return NULL;
  k = kf_strset_get(&x->target[pi], n, len);   /* after i: nothing before is named n */
  return k < 0 ? NULL : &x->ps->p[pi].v[k];
}

/* Each reference is reported once a path (a string may hold several, each
** its own problem): 1 when reference NAME (n, len) of `path` is new (and
** now met), 0 when met, -1 out of memory. */
static int ref_first_met(kf_arena *A, kf_strset *seen, const char *path, const char *n,
                         size_t len) {
  size_t pl = strlen(path);
  char *key = (char *)kf_arena_alloc_raw(A, pl + len + 2);
  if (key == NULL) return -1;
  memcpy(key, path, pl);
  key[pl] = '\x01';
  memcpy(key + pl + 1, n, len);
  key[pl + 1 + len] = '\0';
  return kf_strset_add(seen, key, pl + 1 + len);
}

/* The problem just added (when the row added one: out->n past n0) is
** about reference NAME (ref, len) of its value: "$(NAME)", which finds the
** list item it is in (kf_problem.ref). */
static kf_status about_ref(kf_problems *out, size_t n0, const char *ref, size_t len,
                           kf_err *e) {
  if (out->n == n0) return KF_OK;
  out->v[out->n - 1].ref = kf_arena_strndup(out->A, ref - 2, len + 3);
  return out->v[out->n - 1].ref ? KF_OK : kf_nomem(e);
}

/* Whether a string under n holds "$(" (a reference R55 may look at): the
** pods' environment is built only then. */
static int ref_in(const kf_node *n) {
  size_t i;
  if (n == NULL) return 0;
  if (n->t == KF_NSTR) return strstr(n->u.s.p, "$(") != NULL;
  if (n->t != KF_NARR && n->t != KF_NOBJ) return 0;
  for (i = 0; i < n->u.c.n; i++)
    if (ref_in(n->u.c.v[i])) return 1;
  return 0;
}

static int strings_ref(const char *const *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (v[i] && strstr(v[i], "$(")) return 1;
  return 0;
}

static int container_ref(const kf_container *k) {
  return ref_in(k->env) || strings_ref(k->command, k->ncommand) || strings_ref(k->args, k->nargs);
}

static int any_ref(const kf_job *j, const kf_target_ctx *c) {
  size_t i;
  int r;
  if (c && c->env)
    for (i = 0; i < c->env->n; i++)
      if (strstr(c->env->v[i].v, "$(")) return 1;
  if ((j->has_container && container_ref(&j->container)) || ref_in(j->pod_template)) return 1;
  for (r = 0; r < KF_NROLES; r++)
    if ((j->g[r].has_container && container_ref(&j->g[r].container)) ||
        ref_in(j->g[r].pod_template) || strings_ref(j->g[r].command, j->g[r].ncommand))
      return 1;
  return 0;
}

/* A reference nothing on the pods defines stays as written (expand.go
** MappingFuncFor: syntaxWrap): a name set by no variable of the pods (pod
** pi's, or with pi == (size_t)-1 any pod's) -- not the user's, not the
** target's (Trainer sets no MASTER_ADDR, RANK or WORLD_SIZE).  Unknown
** here, so never reported: the variables kubelet makes for Services
** (<SVC>_SERVICE_HOST, <SVC>_SERVICE_PORT..., KUBERNETES_*) and, with an
** envFrom, any.  1 set, 0 not, -1 out of memory. */
static int set_on(env_ix *x, size_t pi, const char *n, size_t len) {
  size_t i, k;
  if (pi != (size_t)-1) return kf_strset_get(&x->first[pi], n, len) >= 0;
  for (i = 0; !x->all_made && i < x->ps->n; i++)
    for (k = 0; k < x->ps->p[i].n; k++) {
      const char *name = x->ps->p[i].v[k].name;
      if (kf_strset_add(&x->all, name, strlen(name)) < 0) return -1;
    }
  x->all_made = 1;
  return kf_strset_get(&x->all, n, len) >= 0;
}

static int kubelet_name(const char *n, size_t len) {
  size_t i;
  if (len >= 11 && strncmp(n, "KUBERNETES_", 11) == 0) return 1;
  for (i = 0; i + 13 <= len; i++)
    if (strncmp(n + i, "_SERVICE_HOST", 13) == 0 || strncmp(n + i, "_SERVICE_PORT", 13) == 0)
      return 1;
  return 0;
}

/* Whether reference NAME (n, len) is one no pod (set_on's pi) sets: 1
** yes, 0 no, -1 out of memory. */
static int undefined(env_ix *x, size_t pi, const char *n, size_t len) {
  int on;
  if (len == 0 || kubelet_name(n, len)) return 0;
  return (on = set_on(x, pi, n, len)) < 0 ? -1 : !on;
}

static int has_key(const kf_node *n, const char *key) {
  size_t i;
  if (n == NULL || (n->t != KF_NARR && n->t != KF_NOBJ)) return 0;
  for (i = 0; i < n->u.c.n; i++)
    if ((n->t == KF_NOBJ && strcmp(n->u.c.k[i], key) == 0) || has_key(n->u.c.v[i], key))
      return 1;
  return 0;
}

static int env_from(const kf_job *j) {
  int r;
  if (has_key(j->pod_template, "envFrom")) return 1;
  for (r = 0; r < KF_NROLES; r++)
    if (has_key(j->g[r].pod_template, "envFrom")) return 1;
  return 0;
}

/* Who sets the target's variables, for the messages. */
static const char *setter(kf_target t) {
  return KF_T_IS_TRAINER(t) ? "Trainer" : t == KF_T_FLYTE || t == KF_T_FLYTE2
         ? "Flyte and the operator" : "the operator";
}

/* One R55 check's state: the pods' sets, the references reported. */
typedef struct r55_run {
  env_ix x;
  kf_strset seen;
  kf_target t;
  const kf_target_rule *r;
  kf_problems *out;
  kf_err *e;
} r55_run;

/* Who sets variable `by` after the user's, for the messages. */
static const char *late_setter(const kf_env_var *by, kf_target t) {
  return by->origin == KF_ENV_FLYTE ? "Flyte" : KF_T_IS_TRAINER(t) ? "Trainer" : "the operator";
}

/* A command or args (path; v[0..n)): each reference no pod defines. */
static kf_status strings_undefined(r55_run *q, const char *path, const char *const *v,
                                   size_t n) {
  size_t i, len, n0;
  const char *ref, *at;
  int met, undef;
  kf_status st;
  for (i = 0; i < n; i++)
    for (at = v[i]; (ref = next_ref(&at, &len)) != NULL;) {
      if ((undef = undefined(&q->x, (size_t)-1, ref, len)) < 0) return kf_nomem(q->e);
      if (!undef) continue;
      if ((met = ref_first_met(q->out->A, &q->seen, path, ref, len)) < 0) return kf_nomem(q->e);
      if (met == 0) continue;
      n0 = q->out->n;
      if ((st = kf_problem_add(q->out, q->r, q->t, path, q->e, "$(%.*s) does not expand on "
                               "%s: neither the env nor %s sets %.*s on its pods, and "
                               "Kubernetes leaves a reference to an undefined variable as "
                               "written", (int)len, ref, kf_target_names[q->t], setter(q->t),
                               (int)len, ref)) != KF_OK ||
          (st = about_ref(q->out, n0, ref, len, q->e)) != KF_OK)
        return st;
    }
  return KF_OK;
}

/* A container's command and args, under `at` ("container", "worker.container"). */
static kf_status container_undefined(r55_run *q, const char *at, const kf_container *k) {
  char p[80];   /* `at` is at most 63 bytes (commands_undefined's) */
  kf_status st;
  snprintf(p, sizeof p, "%s.command", at);
  if ((st = strings_undefined(q, p, k->command, k->ncommand)) != KF_OK) return st;
  snprintf(p, sizeof p, "%s.args", at);
  return strings_undefined(q, p, k->args, k->nargs);
}

/* The job's and each running group's command and args (R55). */
static kf_status commands_undefined(r55_run *q, const kf_job *j) {
  char p[64];
  int i;
  kf_status st;
  if (j->has_container && (st = container_undefined(q, "container", &j->container)) != KF_OK)
    return st;
  for (i = 0; i < kf_kinds[j->kind].nroles; i++) {
    int role = kf_kinds[j->kind].roles[i].role;
    const kf_group *g = &j->g[role];
    if (g->replicas <= 0) continue;
    snprintf(p, sizeof p, "%s.command", kf_roles[role].key);
    if ((st = strings_undefined(q, p, g->command, g->ncommand)) != KF_OK) return st;
    snprintf(p, sizeof p, "%s.container", kf_roles[role].key);
    if (g->has_container && (st = container_undefined(q, p, &g->container)) != KF_OK)
      return st;
  }
  return KF_OK;
}

/* Each reference of pod pi's user variable u (its i-th) that stays as
** written: set by the target after it, or (undef) set by nothing. */
static kf_status env_refs(r55_run *q, size_t pi, size_t i, int undef) {
  const kf_env_pod *pod = &q->x.ps->p[pi];
  const kf_env_var *u = &pod->v[i], *by;
  const char *ref, *at;
  size_t len, n0;
  int met, none;
  kf_status st;
  for (at = u->value; (ref = next_ref(&at, &len)) != NULL;) {
    by = set_late(&q->x, pi, i, ref, len);
    if ((none = by == NULL && undef ? undefined(&q->x, pi, ref, len) : 0) < 0)
      return kf_nomem(q->e);
    if (by == NULL && !none) continue;
    if ((met = ref_first_met(q->out->A, &q->seen, u->path, ref, len)) < 0) return kf_nomem(q->e);
    if (met == 0) continue;
    n0 = q->out->n;
    if (by == NULL)
      st = kf_problem_add(q->out, q->r, q->t, u->path, q->e, "$(%.*s) does not expand on %s: "
                          "neither the env nor %s sets %.*s there, and Kubernetes leaves a "
                          "reference to an undefined variable as written", (int)len, ref,
                          pod->key, setter(q->t), (int)len, ref);
    else
      st = kf_problem_add(q->out, q->r, q->t, u->path, q->e, "$(%.*s) does not expand on %s: "
                          "%s sets %.*s after %s, and Kubernetes expands a reference only "
                          "to a variable defined before it (use it in command or args, "
                          "which see the whole environment)", (int)len, ref, pod->key,
                          late_setter(by, q->t), (int)len, ref, u->name);
    if (st != KF_OK || (st = about_ref(q->out, n0, ref, len, q->e)) != KF_OK) return st;
  }
  return KF_OK;
}

static kf_status r55_test(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  kf_env_pods ps;
  kf_err ignored = {0};
  r55_run q;
  size_t pi, i;
  int undef = !env_from(j);
  kf_status st;
  if (!(kf_targets[t].kinds & (1u << j->kind)) || !any_ref(j, c) ||
      kf_env_pods_of(j, t, c && c->name ? c->name : "job", NULL, c ? c->env : NULL,
                     out->A, &ps, "R55", &ignored) != KF_OK)
    return ignored.code == KF_ENOMEM ? kf_nomem(e) : KF_OK;
  if (env_ix_init(&q.x, &ps, out->A) != 0) return kf_nomem(e);
  kf_strset_init(&q.seen, out->A, 0);
  q.t = t, q.r = r, q.out = out, q.e = e;
  for (pi = 0; pi < ps.n; pi++) {
    if (!q.x.run[pi]) continue;
    if (env_ix_pod(&q.x, pi) != 0) return kf_nomem(e);
    for (i = 0; i < ps.p[pi].n; i++)
      if (ps.p[pi].v[i].origin == KF_ENV_USER && (st = env_refs(&q, pi, i, undef)) != KF_OK)
        return st;
  }
  return undef ? commands_undefined(&q, j) : KF_OK;
}

const kf_target_rule kf_target_rules_env[] = {
  {"R16", ALL_KINDS,
   {[KF_T_FLYTE] = KF_SEV_WARN, [KF_T_FLYTE2] = KF_SEV_WARN,
    [KF_T_OPERATOR] = KF_SEV_WARN, [KF_T_MPI_OPERATOR] = KF_SEV_WARN,
    TRAINERS(KF_SEV_ERROR)},
   {[KF_T_FLYTE] = "training-operator envvar.go setPodEnv, tensorflow.go, "
                   "mpijob.go; flytek8s k8s_resource_adds.go",
    [KF_T_FLYTE2] = "training-operator envvar.go setPodEnv, tensorflow.go, "
                    "mpijob.go; flytek8s k8s_resource_adds.go",
    [KF_T_OPERATOR] = "training-operator envvar.go setPodEnv, tensorflow.go, "
                      "mpijob.go hasIntelMPIBootstrapValues",
    [KF_T_MPI_OPERATOR] = "mpi-operator mpi_job_controller.go "
                          "newLauncherPodTemplate, newWorker",
    TRAINERS("trainer torch.go Validate, TorchRunReservedEnvNames; xgboost.go "
             "Validate; jax.go Validate (none reserved: a warning), apply.go upsert")},
   r16_test, 0, 0},
  {"R55", ALL_KINDS,
   {[KF_T_FLYTE] = KF_SEV_WARN, [KF_T_FLYTE2] = KF_SEV_WARN,
    [KF_T_OPERATOR] = KF_SEV_WARN, [KF_T_MPI_OPERATOR] = KF_SEV_WARN,
    TRAINERS(KF_SEV_WARN)},
   {[KF_T_FLYTE] = "kubelet makeEnvironmentVariables; training-operator envvar.go "
                   "setPodEnv",
    [KF_T_FLYTE2] = "kubelet makeEnvironmentVariables; training-operator envvar.go "
                    "setPodEnv",
    [KF_T_OPERATOR] = "kubelet makeEnvironmentVariables; training-operator envvar.go "
                      "setPodEnv appends after the user's env",
    [KF_T_MPI_OPERATOR] = "kubelet makeEnvironmentVariables; mpi-operator "
                          "mpi_job_controller.go appends after the user's env",
    TRAINERS("kubelet makeEnvironmentVariables; trainer torch.go EnforceMLPolicy "
             "upserts PET_* after TrainJob env")},
   r55_test, 0, 0},
  {NULL, 0, {0}, {NULL}, NULL, 0, 0}
};

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
typedef struct seen_paths {
  const char **at;
  size_t n, cap;
} seen_paths;

static int first_met(kf_arena *A, seen_paths *s, const char *path) {
  size_t i;
  for (i = 0; i < s->n; i++)
    if (same_at(s->at[i], path)) return 0;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    const char **v = (const char **)kf_arena_alloc_raw(A, cap * sizeof *v);
    if (v == NULL) return -1;
    if (s->n) memcpy(v, s->at, s->n * sizeof *v);
    s->at = v, s->cap = cap;
  }
  s->at[s->n++] = path;
  return 1;
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
** of pods with the same user variables (whether u is one is asked once). */
static size_t injected_on(const kf_env_pods *ps, const unsigned char *run,
                          const kf_env_var *u, const char **first, int *origin) {
  size_t i, k, n = 0;
  int mine = 0;
  for (i = 0; i < ps->n; i++) {
    const kf_env_pod *p = &ps->p[i];
    if (run[i])
      for (mine = 0, k = 0; k < p->n && !mine; k++)
        mine = p->v[k].origin == KF_ENV_USER && same_at(p->v[k].path, u->path);
    for (k = 0; mine && k < p->n; k++)
      if (p->v[k].origin != KF_ENV_USER && strcmp(p->v[k].name, u->name) == 0) break;
    if (!mine || k == p->n) continue;
    if (n++ == 0) *first = p->key, *origin = p->v[k].origin;
  }
  return n;
}

/* The problem of user variable `u`, set by the target on n of the ps->n
** pods (first: the first, origin: who). */
static kf_status r16_add(const kf_job *j, const kf_env_pods *ps, const kf_env_var *u,
                         size_t n, const char *first, int origin, kf_target t,
                         const kf_target_rule *r, kf_problems *out, kf_err *e) {
  const char *who = origin == KF_ENV_FLYTE ? "Flyte" : "the operator";
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

/* A pod's user variable named like an earlier one of the same pod (opts.env
** and the pod template's env): the first is the one reported. */
static int named_before(const kf_env_pod *p, size_t i) {
  size_t k;
  for (k = 0; k < i; k++)
    if (p->v[k].origin == KF_ENV_USER && strcmp(p->v[k].name, p->v[i].name) == 0)
      return 1;
  return 0;
}

static kf_status r16_test(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out,
                          kf_err *e) {
  kf_env_pods ps;
  kf_err ignored;
  seen_paths seen = {NULL, 0, 0};
  unsigned char *run;
  size_t pi, i, n;
  /* the kinds a target does not run are kf_target_allows' error; Trainer's
  ** JAX plugin reserves no names (jax.go Validate): the user's value wins */
  if (!(kf_targets[t].kinds & (1u << j->kind)) || (KF_T_IS_TRAINER(t) && j->kind == KF_JAX))
    return KF_OK;
  /* what the target does not cover (an unread kind) is environment's
  ** own error; the rule has nothing to compare then */
  if (kf_env_pods_of(j, t, c && c->name ? c->name : "job", NULL,
                     c ? c->env : NULL, out->A, &ps, "R16", &ignored) != KF_OK)
    return ignored.code == KF_ENOMEM ? kf_nomem(e) : KF_OK;
  if (ps.n == 0) return KF_OK;
  if ((run = (unsigned char *)kf_arena_alloc_raw(out->A, ps.n)) == NULL) return kf_nomem(e);
  for (pi = 0; pi < ps.n; pi++)
    run[pi] = pi == 0 || !same_users(&ps.p[pi - 1], &ps.p[pi]);
  /* every pod's: a group's container.env is its pods' alone */
  for (pi = 0; pi < ps.n; pi++) {
    if (!run[pi]) continue;
    for (i = 0; i < ps.p[pi].n; i++) {
      const kf_env_var *u = &ps.p[pi].v[i];
      const char *first = NULL;
      int origin = 0, met;
      kf_status st;
      if (u->origin != KF_ENV_USER || named_before(&ps.p[pi], i)) continue;
      if ((met = first_met(out->A, &seen, u->path)) < 0) return kf_nomem(e);
      if (met == 0 || (n = injected_on(&ps, run, u, &first, &origin)) == 0) continue;
      if ((st = r16_add(j, &ps, u, n, first, origin, t, r, out, e)) != KF_OK) return st;
    }
  }
  return KF_OK;
}

/* R55: $(NAME) in a user variable's value, where NAME is set on the pod
** only by the target and after the user's entry: Kubernetes expands a
** reference only to a variable defined earlier (kubelet
** makeEnvironmentVariables, FACTS §11.8), so it stays as written. */
static int named(const kf_env_var *v, const char *n, size_t len) {
  return strlen(v->name) == len && strncmp(v->name, n, len) == 0;
}

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

/* The target's entry setting NAME (n, len) after pod p's variable i when
** nothing before i defines it; NULL otherwise. */
static const kf_env_var *set_late(const kf_env_pod *p, size_t i, const char *n, size_t len) {
  size_t k;
  for (k = 0; k < i; k++)
    if (named(&p->v[k], n, len)) return NULL;
  for (k = i + 1; k < p->n; k++)
    if (p->v[k].origin != KF_ENV_USER && named(&p->v[k], n, len)) return &p->v[k];
  return NULL;
}

/* Each reference is reported once a path (a string may hold several, each
** its own problem): 1 when reference NAME (n, len) of `path` is new (and
** now met), 0 when met, -1 out of memory. */
static int ref_first_met(kf_arena *A, seen_paths *s, const char *path, const char *n,
                         size_t len) {
  size_t pl = strlen(path);
  char *key = (char *)kf_arena_alloc_raw(A, pl + len + 2);
  if (key == NULL) return -1;
  memcpy(key, path, pl);
  key[pl] = '\x01';
  memcpy(key + pl + 1, n, len);
  key[pl + 1 + len] = '\0';
  return first_met(A, s, key);
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
** MappingFuncFor: syntaxWrap): a name set by no variable of pods
** p[0..np) -- not the user's, not the target's (Trainer sets no
** MASTER_ADDR, RANK or WORLD_SIZE).  Unknown here, so never reported: the
** variables kubelet makes for Services (<SVC>_SERVICE_HOST,
** <SVC>_SERVICE_PORT..., KUBERNETES_*) and, with an envFrom, any. */
static int set_on(const kf_env_pod *p, size_t np, const char *n, size_t len) {
  size_t i, k;
  for (i = 0; i < np; i++)
    for (k = 0; k < p[i].n; k++)
      if (named(&p[i].v[k], n, len)) return 1;
  return 0;
}

static int kubelet_name(const char *n, size_t len) {
  size_t i;
  if (len >= 11 && strncmp(n, "KUBERNETES_", 11) == 0) return 1;
  for (i = 0; i + 13 <= len; i++)
    if (strncmp(n + i, "_SERVICE_HOST", 13) == 0 || strncmp(n + i, "_SERVICE_PORT", 13) == 0)
      return 1;
  return 0;
}

/* Whether reference NAME (n, len) is one no pod of p[0..np) sets. */
static int undefined(const char *n, size_t len, const kf_env_pod *p, size_t np) {
  return len && !kubelet_name(n, len) && !set_on(p, np, n, len);
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

/* A command or args (path; v[0..n)): each reference no pod defines. */
static kf_status strings_undefined(const char *path, const char *const *v, size_t n,
                                   kf_target t, const kf_env_pods *ps, seen_paths *seen,
                                   const kf_target_rule *r, kf_problems *out, kf_err *e) {
  size_t i, len;
  const char *ref, *at;
  kf_status st;
  int met;
  for (i = 0; i < n; i++)
    for (at = v[i]; (ref = next_ref(&at, &len)) != NULL;) {
      if (!undefined(ref, len, ps->p, ps->n)) continue;
      if ((met = ref_first_met(out->A, seen, path, ref, len)) < 0) return kf_nomem(e);
      if (met && (st = kf_problem_add(out, r, t, path, e, "$(%.*s) does not expand on %s: "
                                      "neither the env nor %s sets %.*s on its pods, and "
                                      "Kubernetes leaves a reference to an undefined "
                                      "variable as written", (int)len, ref,
                                      kf_target_names[t], setter(t), (int)len, ref)) != KF_OK)
        return st;
    }
  return KF_OK;
}

/* The job's and each running group's command and args (R55). */
static kf_status commands_undefined(const kf_job *j, kf_target t, const kf_env_pods *ps,
                                    seen_paths *seen, const kf_target_rule *r,
                                    kf_problems *out, kf_err *e) {
  char p[64];
  int i;
  kf_status st = KF_OK;
  if (j->has_container &&
      ((st = strings_undefined("container.command", j->container.command,
                               j->container.ncommand, t, ps, seen, r, out, e)) != KF_OK ||
       (st = strings_undefined("container.args", j->container.args, j->container.nargs,
                               t, ps, seen, r, out, e)) != KF_OK))
    return st;
  for (i = 0; i < kf_kinds[j->kind].nroles && st == KF_OK; i++) {
    int role = kf_kinds[j->kind].roles[i].role;
    const kf_group *g = &j->g[role];
    if (g->replicas <= 0) continue;
    snprintf(p, sizeof p, "%s.command", kf_roles[role].key);
    if ((st = strings_undefined(p, g->command, g->ncommand, t, ps, seen, r, out, e)) != KF_OK ||
        !g->has_container)
      continue;
    snprintf(p, sizeof p, "%s.container.command", kf_roles[role].key);
    if ((st = strings_undefined(p, g->container.command, g->container.ncommand, t, ps, seen,
                                r, out, e)) != KF_OK)
      continue;
    snprintf(p, sizeof p, "%s.container.args", kf_roles[role].key);
    st = strings_undefined(p, g->container.args, g->container.nargs, t, ps, seen, r, out, e);
  }
  return st;
}

/* Each reference of pod pi's user variable u (its i-th) that stays as
** written: set by the target after it, or (undef) set by nothing. */
static kf_status env_refs(const kf_env_pod *pod, size_t i, int undef, kf_target t,
                          seen_paths *seen, const kf_target_rule *r, kf_problems *out,
                          kf_err *e) {
  const kf_env_var *u = &pod->v[i], *by;
  const char *ref, *at;
  size_t len;
  int met;
  kf_status st;
  for (at = u->value; (ref = next_ref(&at, &len)) != NULL;) {
    by = set_late(pod, i, ref, len);
    if (by == NULL && !(undef && undefined(ref, len, pod, 1))) continue;
    if ((met = ref_first_met(out->A, seen, u->path, ref, len)) < 0) return kf_nomem(e);
    if (met == 0) continue;
    if (by == NULL)
      st = kf_problem_add(out, r, t, u->path, e, "$(%.*s) does not expand on %s: neither "
                          "the env nor %s sets %.*s there, and Kubernetes leaves a reference "
                          "to an undefined variable as written", (int)len, ref, pod->key,
                          setter(t), (int)len, ref);
    else
      st = kf_problem_add(out, r, t, u->path, e, "$(%.*s) does not expand on %s: %s "
                          "sets %.*s after %s, and Kubernetes expands a reference only "
                          "to a variable defined before it (use it in command or args, "
                          "which see the whole environment)", (int)len, ref,
                          pod->key, by->origin == KF_ENV_FLYTE ? "Flyte" :
                          KF_T_IS_TRAINER(t) ? "Trainer" : "the operator",
                          (int)len, ref, u->name);
    if (st != KF_OK) return st;
  }
  return KF_OK;
}

static kf_status r55_test(const kf_job *j, kf_target t, const kf_target_ctx *c,
                          const kf_target_rule *r, kf_problems *out, kf_err *e) {
  kf_env_pods ps;
  kf_err ignored = {0};
  seen_paths seen = {NULL, 0, 0};
  size_t pi, i;
  int undef = !env_from(j);
  kf_status st;
  if (!(kf_targets[t].kinds & (1u << j->kind)) || !any_ref(j, c) ||
      kf_env_pods_of(j, t, c && c->name ? c->name : "job", NULL, c ? c->env : NULL,
                     out->A, &ps, "R55", &ignored) != KF_OK)
    return ignored.code == KF_ENOMEM ? kf_nomem(e) : KF_OK;
  for (pi = 0; pi < ps.n; pi++) {
    if (pi > 0 && same_users(&ps.p[pi - 1], &ps.p[pi])) continue;
    for (i = 0; i < ps.p[pi].n; i++)
      if (ps.p[pi].v[i].origin == KF_ENV_USER &&
          (st = env_refs(&ps.p[pi], i, undef, t, &seen, r, out, e)) != KF_OK)
        return st;
  }
  return undef ? commands_undefined(j, t, &ps, &seen, r, out, e) : KF_OK;
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
             "Validate")},
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

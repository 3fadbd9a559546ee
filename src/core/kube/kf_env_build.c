/*
** kf_env_build.c - the builders of an environment listing (kf_env_int.h):
** pods and their variables in the arena, the user's variables as the
** manifests merge them, container ports, texts built line by line.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_env_int.h"
#include "kf_manifest_int.h"
#include "kf_pod.h"

/* ---- building the lists ----------------------------------------------- */

char *kfe_fmt(ectx *c, const char *f, ...) {
  char b[512];
  va_list ap;
  int n;
  va_start(ap, f);
  n = vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof b) return NULL;   /* names are <= 63 */
  return kf_arena_strndup(c->A, b, (size_t)n);
}

static kf_env_pod *pod_new(ectx *c, const char *key) {
  kf_env_pods *o = c->out;
  kf_env_pod *p;
  if (key == NULL) return NULL;
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 8;
    kf_env_pod *v = (kf_env_pod *)kf_arena_alloc_raw(c->A, cap * sizeof *v);
    if (v == NULL) return NULL;
    if (o->n) memcpy(v, o->p, o->n * sizeof *v);
    o->p = v, o->cap = cap;
  }
  p = &o->p[o->n++];
  memset(p, 0, sizeof *p);
  p->key = key;
  return p;
}

int kfe_var_add(ectx *c, kf_env_pod *p, const char *name, const char *value,
                   const kf_node *from, int origin, const char *path) {
  kf_env_var *v;
  if (name == NULL || (value == NULL && from == NULL)) return 0;
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    kf_env_var *nv = (kf_env_var *)kf_arena_alloc_raw(c->A, cap * sizeof *nv);
    if (nv == NULL) return 0;
    if (p->n) memcpy(nv, p->v, p->n * sizeof *nv);
    p->v = nv, p->cap = cap;
  }
  v = &p->v[p->n++];
  v->name = name, v->value = value, v->from = from, v->origin = origin;
  v->path = path;
  return 1;
}

int kfe_var_int(ectx *c, kf_env_pod *p, const char *name, long long v) {
  return OP(c, p, name, kfe_fmt(c, "%lld", v));
}

const kf_env_var *kfe_user_var(const kf_env_pod *p, const char *name) {
  size_t i;
  for (i = 0; i < p->n; i++)
    if (p->v[i].origin == KF_ENV_USER && strcmp(p->v[i].name, name) == 0)
      return &p->v[i];
  return NULL;
}

/* fieldRef valueFrom of `path` */
const kf_node *kfe_field_ref(ectx *c, const char *path) {
  kf_node *o = kf_node_new(c->A, KF_NOBJ), *fr;
  if (o == NULL || (fr = kf_obj_add(c->A, o, "fieldRef", KF_NOBJ)) == NULL ||
      !kf_obj_strref(c->A, fr, "fieldPath", path))
    return NULL;
  return o;
}

/* opts.env.NAME, or opts.env["NAME"] when NAME is not an identifier (as
** the manifests' messages write it). */
static int is_ident(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
          (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

void kfe_env_path(char *out, size_t cap, const char *name) {
  snprintf(out, cap, is_ident(name) ? "opts.env.%.100s" : "opts.env[\"%.100s\"]", name);
}

/* Group `role`'s container env row as a list and its path, made once;
** NULL: none (or no memory: *oom). */
static const kf_node *row_env(ectx *c, int role, int *oom) {
  int group;
  const kf_node *env = kfm_row_env(c->j, role, &group);
  if (env == NULL || c->row_env[role]) return c->row_env[role];
  c->row_env[role] = kfm_env_list(c->A, env);
  c->row_at[role] = group ? kfe_fmt(c, "%s.container.env", kf_roles[role].key)
                          : "container.env";
  if (c->row_env[role] == NULL || c->row_at[role] == NULL) *oom = 1;
  return c->row_env[role];
}

/* The user's variables of a pod of group `role` from its env row (the
** group's container.env, else the job's), entries named at their path:
** <row>[i] for a list, <row>.NAME for a table (emitted sorted). */
static int row_vars(ectx *c, kf_env_pod *p, int role) {
  int oom = 0;
  const kf_node *env = row_env(c, role, &oom), *src = kfm_row_env(c->j, role, NULL);
  size_t i;
  if (oom) return 0;
  for (i = 0; env && i < env->u.c.n; i++) {
    const kf_node *it = env->u.c.v[i], *nm = kf_node_get(it, "name");
    const kf_node *val = kf_node_get(it, "value"), *from = kf_node_get(it, "valueFrom");
    char at[200];
    if (src->t == KF_NARR) snprintf(at, sizeof at, "%s[%zu]", c->row_at[role], i + 1);
    else kfm_key_path(at, sizeof at, c->row_at[role], nm->u.s.p);
    if (!kfe_var_add(c, p, nm->u.s.p, from ? NULL : val ? val->u.s.p : "", from,
                     KF_ENV_USER, kfe_fmt(c, "%s", at)))
      return 0;
  }
  return 1;
}

/* A pod of group `role` with the user's variables: opts.env (sorted), else
** the group's or the job's container.env, then the pod template primary
** container's env, as the manifests merge them. */
kf_env_pod *kfe_user_pod(ectx *c, const char *key, int role) {
  kf_env_pod *p = pod_new(c, key);
  const kf_node *env = c->tp ? kf_node_get(c->tp, "env") : NULL;
  size_t i;
  if (p == NULL) return NULL;
  for (i = 0; c->env && i < c->env->n; i++) {
    char at[128];
    kfe_env_path(at, sizeof at, c->env->v[i].k);
    if (!kfe_var_add(c, p, c->env->v[i].k, c->env->v[i].v, NULL, KF_ENV_USER,
                     kfe_fmt(c, "%s", at)))
      return NULL;
  }
  if ((c->env == NULL || c->env->n == 0) && !row_vars(c, p, role)) return NULL;
  for (i = 0; env && env->t == KF_NARR && i < env->u.c.n; i++) {
    const kf_node *it = env->u.c.v[i], *nm = kf_node_get(it, "name");
    const kf_node *val = kf_node_get(it, "value"), *from = kf_node_get(it, "valueFrom");
    if (nm == NULL || nm->t != KF_NSTR) continue;   /* the schema requires it */
    if (!kfe_var_add(c, p, nm->u.s.p, from ? NULL : val && val->t == KF_NSTR ? val->u.s.p : "",
                     from, KF_ENV_USER,
                     kfe_fmt(c, "pod_template.spec.containers[%zu].env[%zu]", c->tp_at + 1, i + 1)))
      return NULL;
  }
  return p;
}

/* A pod of group `role`, index i: "worker-3". */
kf_env_pod *kfe_group_pod(ectx *c, int role, int i) {
  return kfe_user_pod(c, kfe_fmt(c, "%s-%d", kf_roles[role].key, i), role);
}

int kfe_file_add(kf_env_pod *p, const char *path, const char *content) {
  if (content == NULL) return 0;
  p->f[p->nf].path = path, p->f[p->nf].content = content;
  p->nf++;
  return 1;
}

/* The port called `pname` in a list of container ports, else `dflt`. */
static int32_t port_in(const kf_node *ports, const char *pname, int32_t dflt) {
  size_t i;
  for (i = 0; ports && ports->t == KF_NARR && i < ports->u.c.n; i++) {
    const kf_node *nm = kf_node_get(ports->u.c.v[i], "name");
    const kf_node *cp = kf_node_get(ports->u.c.v[i], "containerPort");
    if (nm && nm->t == KF_NSTR && strcmp(nm->u.s.p, pname) == 0 && cp &&
        cp->t == KF_NINT)
      return (int32_t)cp->u.i;
  }
  return dflt;
}

/* The primary container's port called `pname`, else the operator's
** default (the port it adds when the container has none of that name). */
static int32_t port_of(ectx *c, const char *pname, int32_t dflt) {
  return port_in(c->tp ? kf_node_get(c->tp, "ports") : NULL, pname, dflt);
}

/* The same in group `role`'s pod: its own template's primary container is
** merged over the job's (kf_manifest_sched.c), where a `ports` list
** replaces the job's. */
int32_t kfe_group_port_of(ectx *c, int role, const char *pname, int32_t dflt) {
  const kf_node *gt = c->j->g[role].pod_template;
  const kf_node *gp = gt ? kf_pod_primary(gt, NULL) : NULL;
  const kf_node *ports = gp ? kf_node_get(gp, "ports") : NULL;
  return ports ? port_in(ports, pname, dflt) : port_of(c, pname, dflt);
}

int64_t kfe_total_replicas(const kf_job *j, const int *roles, int n) {
  int64_t sum = 0;
  int i;
  for (i = 0; i < n; i++) sum += j->g[roles[i]].replicas;
  return sum;
}

/* Appends a formatted line to a text (its oom flag notes a failure). */
void kfe_addf(ectx *c, kf_buf *b, const char *f, ...) {
  char t[512];
  va_list ap;
  int n;
  (void)c;
  va_start(ap, f);
  n = vsnprintf(t, sizeof t, f, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof t || !kf_buf_add(b, t, (size_t)n)) b->oom = 1;
}

/* A text built line by line in a buffer, copied into the arena. */
const char *kfe_text_end(ectx *c, kf_buf *b) {
  const char *s = b->oom ? NULL : kf_arena_strndup(c->A, b->p ? b->p : "", b->n);
  kf_buf_free(b);
  return s;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Worker pod names sorted as the controller lists them (by name). */
const char **kfe_sorted_workers(ectx *c, const char *suffix) {
  int32_t n = c->j->g[KF_WORKER].replicas, i;
  const char **v = (const char **)kf_arena_alloc(c->A, (size_t)n * sizeof *v + 1);
  for (i = 0; v && i < n; i++)
    if ((v[i] = kfe_fmt(c, "%s-worker-%d%s", c->name, (int)i, suffix)) == NULL) return NULL;
  if (v) qsort(v, (size_t)n, sizeof *v, name_cmp);
  return v;
}

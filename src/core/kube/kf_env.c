/*
** kf_env.c - the environment each pod gets (FACTS §8.2), per target and
** kind.  The training-operator's kinds are a table of generators
** (operator_kinds[], one function per kind; a kind without one is an
** error naming the gap), the mpi-operator and Trainer have one each, and
** Flyte's own additions wrap the operator's.  Values are written as the
** controllers compute them; nothing is read from a manifest.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_env.h"
#include "kf_manifest_int.h"
#include "kf_pod.h"

typedef struct ectx {
  kf_arena *A;
  kf_err *e;
  const char *who;
  const kf_job *j;
  kf_target t;
  const char *name, *ns;       /* job (resource) name, namespace */
  const kf_kvs *env;           /* the user's opts.env, sorted */
  const kf_node *row_env[KF_NROLES];  /* else each group's container.env as
                                      ** a list (kfm_env_list), made once */
  const char *row_at[KF_NROLES];      /* its path: "container.env" */
  const kf_node *tp;           /* the pod template's primary container */
  size_t tp_at;
  kf_env_pods *out;
} ectx;

/* ---- building the lists ----------------------------------------------- */

static char *fmt(ectx *c, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *fmt(ectx *c, const char *f, ...) {
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

static int var_add(ectx *c, kf_env_pod *p, const char *name, const char *value,
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

/* The operator's variable (a value it formats). */
#define OP(c, p, name, val) var_add(c, p, name, val, NULL, KF_ENV_OPERATOR, NULL)

static int var_int(ectx *c, kf_env_pod *p, const char *name, long long v) {
  return OP(c, p, name, fmt(c, "%lld", v));
}

static const kf_env_var *user_var(const kf_env_pod *p, const char *name) {
  size_t i;
  for (i = 0; i < p->n; i++)
    if (p->v[i].origin == KF_ENV_USER && strcmp(p->v[i].name, name) == 0)
      return &p->v[i];
  return NULL;
}

/* fieldRef valueFrom of `path` */
static const kf_node *field_ref(ectx *c, const char *path) {
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

static void env_path(char *out, size_t cap, const char *name) {
  snprintf(out, cap, is_ident(name) ? "opts.env.%.100s" : "opts.env[\"%.100s\"]", name);
}

/* Group `role`'s container env row as a list and its path, made once;
** NULL: none (or no memory: *oom). */
static const kf_node *row_env(ectx *c, int role, int *oom) {
  int group;
  const kf_node *env = kfm_row_env(c->j, role, &group);
  if (env == NULL || c->row_env[role]) return c->row_env[role];
  c->row_env[role] = kfm_env_list(c->A, env);
  c->row_at[role] = group ? fmt(c, "%s.container.env", kf_roles[role].key)
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
    if (!var_add(c, p, nm->u.s.p, from ? NULL : val ? val->u.s.p : "", from,
                 KF_ENV_USER, fmt(c, "%s", at)))
      return 0;
  }
  return 1;
}

/* A pod of group `role` with the user's variables: opts.env (sorted), else
** the group's or the job's container.env, then the pod template primary
** container's env, as the manifests merge them. */
static kf_env_pod *user_pod(ectx *c, const char *key, int role) {
  kf_env_pod *p = pod_new(c, key);
  const kf_node *env = c->tp ? kf_node_get(c->tp, "env") : NULL;
  size_t i;
  if (p == NULL) return NULL;
  for (i = 0; c->env && i < c->env->n; i++) {
    char at[128];
    env_path(at, sizeof at, c->env->v[i].k);
    if (!var_add(c, p, c->env->v[i].k, c->env->v[i].v, NULL, KF_ENV_USER,
                 fmt(c, "%s", at)))
      return NULL;
  }
  if ((c->env == NULL || c->env->n == 0) && !row_vars(c, p, role)) return NULL;
  for (i = 0; env && env->t == KF_NARR && i < env->u.c.n; i++) {
    const kf_node *it = env->u.c.v[i], *nm = kf_node_get(it, "name");
    const kf_node *val = kf_node_get(it, "value"), *from = kf_node_get(it, "valueFrom");
    if (nm == NULL || nm->t != KF_NSTR) continue;   /* the schema requires it */
    if (!var_add(c, p, nm->u.s.p, from ? NULL : val && val->t == KF_NSTR ? val->u.s.p : "",
                 from, KF_ENV_USER,
                 fmt(c, "pod_template.spec.containers[%zu].env[%zu]", c->tp_at + 1, i + 1)))
      return NULL;
  }
  return p;
}

/* A pod of group `role`, index i: "worker-3". */
static kf_env_pod *group_pod(ectx *c, int role, int i) {
  return user_pod(c, fmt(c, "%s-%d", kf_roles[role].key, i), role);
}

static int file_add(kf_env_pod *p, const char *path, const char *content) {
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
static int32_t group_port_of(ectx *c, int role, const char *pname, int32_t dflt) {
  const kf_node *gt = c->j->g[role].pod_template;
  const kf_node *gp = gt ? kf_pod_primary(gt, NULL) : NULL;
  const kf_node *ports = gp ? kf_node_get(gp, "ports") : NULL;
  return ports ? port_in(ports, pname, dflt) : port_of(c, pname, dflt);
}

static int64_t total_replicas(const kf_job *j, const int *roles, int n) {
  int64_t sum = 0;
  int i;
  for (i = 0; i < n; i++) sum += j->g[roles[i]].replicas;
  return sum;
}

#define NOMEM(c, x) do { if (!(x)) return kf_nomem((c)->e); } while (0)

/* Appends a formatted line to a text (its oom flag notes a failure). */
static void addf(ectx *c, kf_buf *b, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void addf(ectx *c, kf_buf *b, const char *f, ...) {
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
static const char *text_end(ectx *c, kf_buf *b) {
  const char *s = b->oom ? NULL : kf_arena_strndup(c->A, b->p ? b->p : "", b->n);
  kf_buf_free(b);
  return s;
}

/* ---- training-operator v1.9 (FACTS §8.2.1-§8.2.3) --------------------- */

typedef kf_status (*env_gen)(ectx *c);

/* elasticPolicy.rdzvConf as PET_RDZV_CONF: key=value, comma-joined in
** order (elastic.go); NULL when out of memory. */
static const char *rdzv_conf(ectx *c, const kf_node *l) {
  kf_buf b;
  size_t i;
  kf_buf_init(&b, c->A->a);
  for (i = 0; i < l->u.c.n; i++) {
    const kf_node *k = kf_node_get(l->u.c.v[i], "key"), *v = kf_node_get(l->u.c.v[i], "value");
    if (i) addf(c, &b, ",");
    addf(c, &b, "%s=%s", k ? k->u.s.p : "", v ? v->u.s.p : "");
  }
  return text_end(c, &b);
}

/* PyTorchJob and its elastic form (envvar.go setPodEnv). */
static kf_status pytorch_env(ectx *c) {
  const kf_job *j = c->j;
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), i, k;
  int elastic = j->kind == KF_ELASTIC;
  int master = !elastic && j->g[KF_MASTER].replicas > 0;
  int32_t port = port_of(c, "pytorchjob-port", 23456);
  int64_t total = total_replicas(j, roles, n);
  /* spec.nprocPerNode: "auto" by defaulting unless elasticPolicy carries
  ** nProcPerNode, which kfjob writes for an elastic job's integer; a word
  ** goes to spec.nprocPerNode instead (R10) */
  const char *spec_nproc = elastic || j->nproc_word ? j->nproc_word
                           : j->nproc_per_node > 0 ? fmt(c, "%d", (int)j->nproc_per_node)
                                                   : "auto";
  /* getNprocPerNodeInt: Atoi, 1 when a word */
  const int nproc_int = !elastic && j->nproc_word == NULL && j->nproc_per_node > 0
                            ? j->nproc_per_node : 1;
  if (!elastic) NOMEM(c, spec_nproc);
  for (k = 0; k < n; k++) {
    int role = roles[k];
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = group_pod(c, role, i);
      int32_t rank = role == KF_MASTER ? i : i + 1;
      NOMEM(c, p);
      NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
      if (master) {
        NOMEM(c, var_int(c, p, "MASTER_PORT", port));
        NOMEM(c, var_int(c, p, "PET_MASTER_PORT", port));
        NOMEM(c, OP(c, p, "MASTER_ADDR", fmt(c, "%s-master-0", c->name)));
        NOMEM(c, OP(c, p, "PET_MASTER_ADDR", fmt(c, "%s-master-0", c->name)));
        NOMEM(c, var_int(c, p, "WORLD_SIZE", (long long)total * nproc_int));
        NOMEM(c, var_int(c, p, "RANK", rank));
        NOMEM(c, var_int(c, p, "PET_NODE_RANK", rank));
      }
      if (spec_nproc) NOMEM(c, OP(c, p, "PET_NPROC_PER_NODE", spec_nproc));
      if (!elastic) {
        NOMEM(c, var_int(c, p, "PET_NNODES", (long long)total));
        continue;
      }
      NOMEM(c, OP(c, p, "PET_RDZV_ENDPOINT",
                  j->rdzv_host ? fmt(c, "%s:%d", j->rdzv_host, (int)(j->rdzv_port ? j->rdzv_port : port))
                               : fmt(c, "%s-worker-0:%d", c->name,
                                     (int)(j->rdzv_port ? j->rdzv_port : port))));
      NOMEM(c, OP(c, p, "PET_RDZV_BACKEND",
                  j->rdzv_backend && *j->rdzv_backend ? j->rdzv_backend : "c10d"));
      NOMEM(c, OP(c, p, "PET_NNODES", fmt(c, "%d:%d", (int)j->min_nodes, (int)j->max_nodes)));
      NOMEM(c, var_int(c, p, "PET_MAX_RESTARTS", j->max_restarts));
      if (j->nproc_word == NULL)
        NOMEM(c, var_int(c, p, "PET_NPROC_PER_NODE", j->nproc_per_node));
      if (j->rdzv_id) NOMEM(c, OP(c, p, "PET_RDZV_ID", j->rdzv_id));
      if (j->rdzv_conf) NOMEM(c, OP(c, p, "PET_RDZV_CONF", rdzv_conf(c, j->rdzv_conf)));
      if (j->standalone) NOMEM(c, OP(c, p, "PET_STANDALONE", ""));
    }
  }
  return KF_OK;
}

/* TFJob: TF_CONFIG on the tensorflow container, when distributed
** (tensorflow.go genTFConfigJSONStr; Go map keys sorted). */
static kf_status tf_env(ectx *c) {
  const kf_job *j = c->j;
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), i, k, x;
  int32_t port = port_of(c, "tfjob-port", 2222);
  kf_buf cluster;
  kf_alloc sys = c->A->a;
  const char *cl;
  kf_buf_init(&cluster, sys);
  for (k = 0; k < n; k++) {   /* present roles are sorted by type name */
    int role = roles[k];
    kf_buf_adds(&cluster, k ? ",\"" : "{\"");
    kf_buf_adds(&cluster, kf_roles[role].key);
    kf_buf_adds(&cluster, "\":[");
    for (x = 0; x < j->g[role].replicas; x++) {
      char b[300];
      snprintf(b, sizeof b, "%s\"%s-%s-%d.%s.svc:%d\"", x ? "," : "", c->name,
               kf_roles[role].key, x, c->ns, (int)port);
      kf_buf_adds(&cluster, b);
    }
    kf_buf_addc(&cluster, ']');
  }
  kf_buf_addc(&cluster, '}');
  cl = cluster.oom ? NULL : kf_arena_strndup(c->A, cluster.p, cluster.n);
  kf_buf_free(&cluster);
  NOMEM(c, cl);
  /* every pod holds the whole cluster: quadratic in the pods */
  if ((double)strlen(cl) * (double)total_replicas(j, roles, n) > KF_MAX_ENV_BYTES)
    return kf_fail(c->e, KF_ELIMIT, "%s: the TF_CONFIG of %lld pods would take more "
                   "than the limit of %u MiB", c->who,
                   (long long)total_replicas(j, roles, n), KF_MAX_ENV_BYTES >> 20);
  for (k = 0; k < n; k++) {
    int role = roles[k];
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = group_pod(c, role, i);
      const char *v;
      NOMEM(c, p);
      if (total_replicas(j, roles, n) == 1) continue;   /* not distributed */
      kf_buf_init(&cluster, sys);
      addf(c, &cluster, "{\"cluster\":");
      kf_buf_adds(&cluster, cl);
      addf(c, &cluster, ",\"task\":{\"type\":\"%s\",\"index\":%d},\"environment\":\"cloud\"}",
           kf_roles[role].key, i);
      NOMEM(c, v = text_end(c, &cluster));
      NOMEM(c, OP(c, p, "TF_CONFIG", v));
    }
  }
  return KF_OK;
}

/* Whether the launcher container limits a GPU (mpijob.go isGPULauncher):
** its resources come from the group and the task only (the pod template's
** primary container may not set resources). */
static int launcher_gpu(const kf_job *j) {
  kf_group tmp;
  const kf_group *g = kfm_task_resources(j, &j->g[KF_LAUNCHER], &tmp);
  return (g->limits[KF_GPU] && kfm_qty_value(g->limits[KF_GPU]) != 0) ||
         (g->requests[KF_GPU] && kfm_qty_value(g->requests[KF_GPU]) != 0);
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Worker pod names sorted as the controller lists them (by name). */
static const char **sorted_workers(ectx *c, const char *suffix) {
  int32_t n = c->j->g[KF_WORKER].replicas, i;
  const char **v = (const char **)kf_arena_alloc(c->A, (size_t)n * sizeof *v + 1);
  for (i = 0; v && i < n; i++)
    if ((v[i] = fmt(c, "%s-worker-%d%s", c->name, (int)i, suffix)) == NULL) return NULL;
  if (v) qsort(v, (size_t)n, sizeof *v, name_cmp);
  return v;
}

/* MPIJob and HorovodJob kubeflow.org/v1 (mpijob_controller.go); on Flyte
** slotsPerWorker is always 1 (mpi.go never reads v1 slots). */
static kf_status mpi_v1_env(ectx *c) {
  const kf_job *j = c->j;
  int gpu = launcher_gpu(j);
  int32_t s = c->t == KF_T_OPERATOR ? j->slots : 1, i, n = j->g[KF_WORKER].replicas;
  const char **hosts = sorted_workers(c, "");
  const char *hostfile, *discover, *kubexec;
  kf_env_pod *p;
  kf_buf b;
  NOMEM(c, hosts);
  NOMEM(c, kubexec = fmt(c, "#!/bin/sh\nset -x\nPOD_NAME=$1\nshift\n/opt/kube/kubectl "
                         "exec ${POD_NAME} -- /bin/sh -c \"$*\""));
  kf_buf_init(&b, c->A->a);
  if (gpu) addf(c, &b, "%s-launcher slots=%d\n", c->name, (int)s);
  for (i = 0; i < n; i++)
    addf(c, &b, "%s-worker-%d slots=%d\n", c->name, (int)i, (int)s);
  NOMEM(c, hostfile = text_end(c, &b));
  kf_buf_init(&b, c->A->a);
  kf_buf_adds(&b, "#!/bin/sh");
  if (gpu) addf(c, &b, "\necho %s-launcher:%d", c->name, (int)s);
  for (i = 0; i < n; i++) addf(c, &b, "\necho %s:%d", hosts[i], (int)s);
  NOMEM(c, discover = text_end(c, &b));

  NOMEM(c, p = user_pod(c, "launcher-0", KF_LAUNCHER));
  NOMEM(c, OP(c, p, "OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"));
  NOMEM(c, OP(c, p, "OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"));
  if (!gpu) {
    NOMEM(c, OP(c, p, "NVIDIA_VISIBLE_DEVICES", ""));
    NOMEM(c, OP(c, p, "NVIDIA_DRIVER_CAPABILITIES", ""));
  }
  /* hasIntelMPIBootstrapValues: the user's own value is kept */
  NOMEM(c, var_add(c, p, "I_MPI_HYDRA_BOOTSTRAP", "rsh", NULL,
                   user_var(p, "I_MPI_HYDRA_BOOTSTRAP") ? KF_ENV_YIELDED : KF_ENV_OPERATOR, NULL));
  NOMEM(c, var_add(c, p, "I_MPI_HYDRA_BOOTSTRAP_EXEC", "/etc/mpi/kubexec.sh", NULL,
                   user_var(p, "I_MPI_HYDRA_BOOTSTRAP_EXEC") ? KF_ENV_YIELDED : KF_ENV_OPERATOR,
                   NULL));
  NOMEM(c, file_add(p, "/etc/mpi/kubexec.sh", kubexec));
  NOMEM(c, file_add(p, "/etc/mpi/hostfile", hostfile));
  NOMEM(c, file_add(p, "/etc/mpi/discover_hosts.sh", discover));
  for (i = 0; i < n; i++) {   /* workers: no env, only kubexec.sh */
    NOMEM(c, p = group_pod(c, KF_WORKER, i));
    NOMEM(c, file_add(p, "/etc/mpi/kubexec.sh", kubexec));
  }
  return KF_OK;
}

/* JAXJob (jax/envvar.go setPodEnv): every worker knows the coordinator,
** worker 0. */
static kf_status jax_env(ectx *c) {
  const kf_job *j = c->j;
  int32_t port = port_of(c, kf_kinds[KF_JAX].port_name, kf_kinds[KF_JAX].port), i;
  int32_t n = j->g[KF_WORKER].replicas;
  for (i = 0; i < n; i++) {
    kf_env_pod *p = group_pod(c, KF_WORKER, i);
    NOMEM(c, p);
    NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
    NOMEM(c, var_int(c, p, "COORDINATOR_PORT", port));
    NOMEM(c, OP(c, p, "COORDINATOR_ADDRESS", fmt(c, "%s-worker-0", c->name)));
    NOMEM(c, var_int(c, p, "NUM_PROCESSES", n));
    NOMEM(c, var_int(c, p, "PROCESS_ID", i));
  }
  return KF_OK;
}

/* XGBoostJob (xgboost/xgboost.go SetPodEnv): ranks count the master
** first; WORKER_PORT is the workers' xgboostjob-port, which the defaulter
** gives every replica (FACTS names the variable, not its value). */
static kf_status xgboost_env(ectx *c) {
  const kf_job *j = c->j;
  const char *pname = kf_kinds[KF_XGBOOST].port_name;
  int32_t port = port_of(c, pname, kf_kinds[KF_XGBOOST].port), i;
  int32_t masters = j->g[KF_MASTER].replicas, workers = j->g[KF_WORKER].replicas;
  int64_t total = (int64_t)masters + workers;
  const char *addrs = NULL;
  int k;
  if (total > 1) {   /* every pod holds every worker's address */
    kf_buf b;
    kf_buf_init(&b, c->A->a);
    for (i = 0; i < workers; i++)
      addf(c, &b, "%s%s-worker-%d", i ? "," : "", c->name, (int)i);
    addrs = b.oom ? NULL : kf_arena_strndup(c->A, b.p ? b.p : "", b.n);
    kf_buf_free(&b);
    NOMEM(c, addrs);
    if ((double)strlen(addrs) * (double)total > KF_MAX_ENV_BYTES)
      return kf_fail(c->e, KF_ELIMIT, "%s: the WORKER_ADDRS of %lld pods would take "
                     "more than the limit of %u MiB", c->who, (long long)total,
                     KF_MAX_ENV_BYTES >> 20);
  }
  for (k = 0; k < 2; k++) {
    int role = k == 0 ? KF_MASTER : KF_WORKER;
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = group_pod(c, role, i);
      NOMEM(c, p);
      NOMEM(c, var_int(c, p, "MASTER_PORT", port));
      NOMEM(c, OP(c, p, "MASTER_ADDR", fmt(c, "%s-master-0", c->name)));
      NOMEM(c, var_int(c, p, "WORLD_SIZE", total));
      NOMEM(c, var_int(c, p, "RANK", role == KF_MASTER ? i : (int64_t)i + masters));
      NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
      if (addrs) {
        NOMEM(c, var_int(c, p, "WORKER_PORT", port));
        NOMEM(c, OP(c, p, "WORKER_ADDRS", addrs));
      }
    }
  }
  return KF_OK;
}

/* PaddleJob (training-operator v1.9 paddlepaddle/envvar.go setPodEnv).
** With a master the job runs in PS mode: master 0 is the rendezvous pod,
** masters are servers and workers trainers; without one it is collective
** and worker 0 is the rendezvous pod.  That pod reads its own IP through
** the downward API (POD_IP_DUMMY); the others name its headless service
** (replicaName).  The port is the "master" port of the "paddle" container
** in the rendezvous group's template (getPortFromPaddleJob), 36543 when it
** has none (the defaulter's). */
static kf_status paddle_env(ectx *c) {
  const kf_job *j = c->j;
  int roles[KF_NROLES], n = kfm_present_roles(j, roles), k;
  int ps = j->g[KF_MASTER].replicas > 0, rdzv = ps ? KF_MASTER : KF_WORKER;
  int32_t port = group_port_of(c, rdzv, kf_kinds[KF_PADDLE].port_name,
                               kf_kinds[KF_PADDLE].port), i;
  int64_t total = total_replicas(j, roles, n);   /* getTotalReplicas */
  const kf_node *pod_ip = field_ref(c, "status.podIP");
  const char *remote = fmt(c, "%s-%s-0:%d", c->name, kf_roles[rdzv].key, (int)port);
  const char *local = fmt(c, "$(POD_IP_DUMMY):%d", (int)port);
  NOMEM(c, pod_ip && remote && local);
  for (k = 0; k < n; k++) {   /* Master before Worker */
    int role = roles[k];
    for (i = 0; i < j->g[role].replicas; i++) {
      kf_env_pod *p = group_pod(c, role, i);
      NOMEM(c, p);
      NOMEM(c, OP(c, p, "PYTHONUNBUFFERED", "1"));
      NOMEM(c, OP(c, p, "PADDLE_JOB_ID", c->name));
      NOMEM(c, var_int(c, p, "PADDLE_NNODES", total));
      if (role == rdzv && i == 0)
        NOMEM(c, var_add(c, p, "POD_IP_DUMMY", NULL, pod_ip, KF_ENV_OPERATOR, NULL));
      NOMEM(c, OP(c, p, "PADDLE_MASTER", role == rdzv && i == 0 ? local : remote));
      if (ps)   /* one server or one trainer per pod */
        NOMEM(c, OP(c, p, role == KF_MASTER ? "PADDLE_SERVER_NUM" : "PADDLE_TRAINER_NUM", "1"));
    }
  }
  return KF_OK;
}

/* By kind; NULL: kfjob does not list this kind's environment. */
static const env_gen operator_kinds[KF_NKINDS] = {
  [KF_TFJOB] = tf_env,
  [KF_PYTORCH] = pytorch_env,
  [KF_ELASTIC] = pytorch_env,
  [KF_MPI] = mpi_v1_env,
  [KF_HOROVOD] = mpi_v1_env,
  [KF_JAX] = jax_env,
  [KF_XGBOOST] = xgboost_env,
  [KF_PADDLE] = paddle_env,
};

/* ---- mpi-operator v0.8, MPIJob v2beta1 (FACTS §8.2.4) ----------------- */

/* mpiImplementation OpenMPI (what kfjob writes), runLauncherAsWorker off. */
static kf_status mpi_v2_env(ectx *c) {
  const kf_job *j = c->j;
  int32_t s = j->slots, i, n = j->g[KF_WORKER].replicas;
  const char *svc = fmt(c, ".%s.%s.svc", c->name, c->ns);
  const char **hosts = svc ? sorted_workers(c, svc) : NULL;
  const char *hostfile, *discover;
  kf_env_pod *p;
  kf_buf b;
  NOMEM(c, hosts);
  kf_buf_init(&b, c->A->a);
  for (i = 0; i < n; i++)
    addf(c, &b, "%s-worker-%d%s slots=%d\n", c->name, (int)i, svc, (int)s);
  NOMEM(c, hostfile = text_end(c, &b));
  kf_buf_init(&b, c->A->a);
  kf_buf_adds(&b, "#!/bin/sh\n");
  for (i = 0; i < n; i++) addf(c, &b, "echo %s\n", hosts[i]);
  NOMEM(c, discover = text_end(c, &b));

  NOMEM(c, p = user_pod(c, "launcher-0", KF_LAUNCHER));
  NOMEM(c, OP(c, p, "K_MPI_JOB_ROLE", "launcher"));
  NOMEM(c, OP(c, p, "OMPI_MCA_orte_keep_fqdn_hostnames", "true"));
  NOMEM(c, OP(c, p, "OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"));
  NOMEM(c, OP(c, p, "OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"));
  NOMEM(c, var_int(c, p, "OMPI_MCA_orte_set_default_slots", s));
  NOMEM(c, OP(c, p, "NVIDIA_VISIBLE_DEVICES", ""));
  NOMEM(c, OP(c, p, "NVIDIA_DRIVER_CAPABILITIES", ""));
  NOMEM(c, file_add(p, "/etc/mpi/hostfile", hostfile));
  NOMEM(c, file_add(p, "/etc/mpi/discover_hosts.sh", discover));
  for (i = 0; i < n; i++) {
    NOMEM(c, p = group_pod(c, KF_WORKER, i));
    NOMEM(c, OP(c, p, "K_MPI_JOB_ROLE", "worker"));
  }
  return KF_OK;
}

/* ---- Trainer v2.2 / v2.3, torch runtime (FACTS §8.2.5, §8.4.4) -------- */

/* Trainer's value for an unset numProcPerNode (nproc_per_node "auto"):
** "auto" when the nodes have a GPU, else the CPU count rounded up (the
** request, else the limit), at least 1 (FACTS §8.2.5). */
static const char *trainer_auto_nproc(ectx *c, const kf_group *g) {
  const char *cpu = g->requests[KF_CPU] ? g->requests[KF_CPU] : g->limits[KF_CPU];
  long double v;
  long long n;
  if ((g->limits[KF_GPU] && kfm_qty_value(g->limits[KF_GPU]) > 0) ||
      (g->requests[KF_GPU] && kfm_qty_value(g->requests[KF_GPU]) > 0))
    return "auto";
  v = cpu ? kfm_qty_value(cpu) : 0;
  n = (long long)v;
  if ((long double)n < v) n++;
  return fmt(c, "%lld", n < 1 ? 1LL : n);
}

static kf_status trainer_env(ectx *c) {
  const kf_job *j = c->j;
  int32_t nodes, nproc, i;
  const char *nproc_s = NULL;   /* a word's value, else nproc */
  /* the group whose container every node runs (the manifest's) */
  const int role = j->kind == KF_ELASTIC || j->g[KF_MASTER].replicas == 0 ? KF_WORKER
                                                                           : KF_MASTER;
  if (j->kind == KF_ELASTIC) {
    if (j->min_nodes != j->max_nodes)
      return kf_fail(c->e, KF_EINVAL, "%s: nnodes: an elastic range %d:%d cannot "
                     "map to a TrainJob (fixed numNodes; R9) (target %s)", c->who,
                     (int)j->min_nodes, (int)j->max_nodes, kf_targets[c->t].name);
    nodes = j->max_nodes, nproc = j->nproc_per_node;
    if (j->nproc_word != NULL) {   /* only "auto" gets here (R10) */
      kf_group tmp;
      nproc_s = trainer_auto_nproc(c, kfm_task_resources(j, &j->g[KF_WORKER], &tmp));
      NOMEM(c, nproc_s);
    }
  } else {   /* node 0 plays the master; nproc_per_node as the writer's */
    kf_strs cmd = kfm_job_command(j, role);
    nodes = (j->g[KF_MASTER].replicas > 0) + j->g[KF_WORKER].replicas;
    nproc = j->nproc_per_node > 0 ? j->nproc_per_node : 1;
    if (j->nproc_word || (j->nproc_per_node == 0 && !kf_trainer_wraps(j, cmd.v, cmd.n))) {
      kf_group tmp;   /* unset: the runtime's auto */
      nproc_s = trainer_auto_nproc(c, kfm_task_resources(j, &j->g[role], &tmp));
      NOMEM(c, nproc_s);
    }
  }
  for (i = 0; i < nodes; i++) {
    kf_env_pod *p = user_pod(c, fmt(c, "node-0-%d", (int)i), role);
    NOMEM(c, p);
    NOMEM(c, var_int(c, p, "PET_NNODES", nodes));
    NOMEM(c, nproc_s ? OP(c, p, "PET_NPROC_PER_NODE", nproc_s)
                     : var_int(c, p, "PET_NPROC_PER_NODE", nproc));
    NOMEM(c, var_add(c, p, "PET_NODE_RANK", NULL,
                     field_ref(c, "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
                     KF_ENV_OPERATOR, NULL));
    NOMEM(c, OP(c, p, "PET_MASTER_ADDR", fmt(c, "%s-node-0-0.%s", c->name, c->name)));
    NOMEM(c, OP(c, p, "PET_MASTER_PORT", "29500"));
  }
  return KF_OK;
}

/* Flyte 2 clustered tasks (flyte clustered/runtime_torch.go): every pod
** workers-0-<i> of the JobSet gets the plugin's variables, which replace
** the user's of the same name. */
static kf_status clustered_env(ectx *c) {
  const kf_job *j = c->j;
  const int elastic = j->kind == KF_ELASTIC, role = elastic ? KF_WORKER : KF_MASTER;
  int32_t nodes = elastic ? j->max_nodes : 1 + (j->g[KF_WORKER].replicas > 0
                                                    ? j->g[KF_WORKER].replicas : 0);
  int c10d = elastic && (!j->rdzv_backend || strcmp(j->rdzv_backend, "c10d") == 0);
  static const char *const names[] = {"NNODES", "NPROC_PER_NODE", "MASTER_PORT",
                                      "RDZV_BACKEND", "JOBSET_MAX_RESTARTS", "JOBSET_NAME",
                                      "JOBSET_RESTART_ATTEMPT", "POD_NAMESPACE"};
  const kf_node *jname = field_ref(c, "metadata.labels['jobset.sigs.k8s.io/jobset-name']");
  const kf_node *attempt = field_ref(c, "metadata.labels['jobset.sigs.k8s.io/restart-attempt']");
  const kf_node *ns = field_ref(c, "metadata.namespace");
  int32_t i;
  size_t x, k, o;
  NOMEM(c, jname && attempt && ns);
  if (elastic && j->min_nodes != j->max_nodes)
    return kf_fail(c->e, KF_EINVAL, "%s: nnodes: the range %d:%d cannot be expressed "
                   "(a fixed replicas count; R43) (target %s)", c->who, (int)j->min_nodes,
                   (int)j->max_nodes, kf_targets[c->t].name);
  for (i = 0; i < nodes; i++) {
    kf_env_pod *p = user_pod(c, fmt(c, "workers-0-%d", (int)i), role);
    NOMEM(c, p);
    for (x = 0, o = 0; x < p->n; x++) {   /* the plugin's win */
      for (k = 0; k < sizeof names / sizeof *names; k++)
        if (strcmp(p->v[x].name, names[k]) == 0) break;
      if (k == sizeof names / sizeof *names && strncmp(p->v[x].name, "JOBSET_", 7) != 0)
        p->v[o++] = p->v[x];
    }
    p->n = o;
    NOMEM(c, var_int(c, p, "NNODES", nodes));
    NOMEM(c, var_int(c, p, "NPROC_PER_NODE", elastic && !j->nproc_word ? j->nproc_per_node : 1));
    NOMEM(c, OP(c, p, "MASTER_PORT", "29500"));
    NOMEM(c, OP(c, p, "RDZV_BACKEND", c10d ? "c10d" : "static"));
    NOMEM(c, var_int(c, p, "JOBSET_MAX_RESTARTS", j->has_run_policy ? j->rp.backoff_limit : 0));
    NOMEM(c, var_add(c, p, "JOBSET_NAME", NULL, jname, KF_ENV_OPERATOR, NULL));
    NOMEM(c, var_add(c, p, "JOBSET_RESTART_ATTEMPT", NULL, attempt, KF_ENV_OPERATOR, NULL));
    NOMEM(c, var_add(c, p, "POD_NAMESPACE", NULL, ns, KF_ENV_OPERATOR, NULL));
  }
  return KF_OK;
}

/* ---- Flyte's additions (FACTS §8.2.7) --------------------------------- */

/* Inserts a Flyte variable after the user's (before the operator's). */
static int flyte_add(ectx *c, kf_env_pod *p, const char *name, const kf_node *from) {
  size_t at = 0, i;
  if (!var_add(c, p, name, NULL, from, KF_ENV_FLYTE, NULL)) return 0;
  while (at < p->n - 1 && p->v[at].origin <= KF_ENV_FLYTE) at++;
  if (at < p->n - 1) {
    kf_env_var v = p->v[p->n - 1];
    for (i = p->n - 1; i > at; i--) p->v[i] = p->v[i - 1];
    p->v[at] = v;
  }
  return 1;
}

/* Flyte 2: _F_PN on every container; Flyte 1.x: _F_WN on the PyTorch
** worker's first container.  The execution's FLYTE_INTERNAL_*,
** FLYTE_ATTEMPT_NUMBER and config-dependent ones (_F_DES) are runtime
** values and are not listed. */
static kf_status flyte_env(ectx *c) {
  const kf_node *name_ref = field_ref(c, "metadata.name");
  size_t i;
  NOMEM(c, name_ref);
  for (i = 0; i < c->out->n; i++) {
    kf_env_pod *p = &c->out->p[i];
    if (c->t == KF_T_FLYTE2) NOMEM(c, flyte_add(c, p, "_F_PN", name_ref));
    else if ((c->j->kind == KF_PYTORCH || c->j->kind == KF_ELASTIC) &&
             strncmp(p->key, "worker-", 7) == 0)
      NOMEM(c, flyte_add(c, p, "_F_WN", name_ref));
  }
  return KF_OK;
}

/* ---- entry points ----------------------------------------------------- */

kf_status kf_env_pods_of(const kf_job *j, kf_target t, const char *name,
                         const char *ns, const kf_kvs *env, kf_arena *A,
                         kf_env_pods *out, const char *who, kf_err *e) {
  ectx c;
  kf_status st;
  long long pods;
  int r;
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);
  c.A = A, c.e = e, c.who = who, c.j = j, c.t = t, c.out = out;
  c.name = name, c.ns = ns ? ns : "default", c.env = env;
  c.tp = kf_pod_primary(j->pod_template, &c.tp_at);
  if (strlen(name) > 63 || (ns && strlen(ns) > 63))   /* kf_environment checks them */
    return kf_fail(e, KF_EINVAL, "%s: opts.name: longer than a DNS label (63)", who);
  for (r = 0, pods = 0; r < KF_NROLES; r++)
    if (kf_kind_role_of(&kf_kinds[j->kind], r) && j->g[r].replicas > 0) pods += j->g[r].replicas;
  if (j->kind == KF_ELASTIC && j->max_nodes > pods) pods = j->max_nodes;
  if (pods > KF_MAX_ENV_PODS)
    return kf_fail(e, KF_ELIMIT, "%s: %lld pods are more than the limit of %d "
                   "whose environment kfjob lists", who, pods, KF_MAX_ENV_PODS);
  switch (t) {
    case KF_T_FLYTE: case KF_T_FLYTE2:
      if (kf_python_task(j))
        return kf_fail(e, KF_EINVAL, "%s: nnodes: an Elastic job with nnodes = 1 "
                       "runs on Flyte as a plain python-task pod: no PyTorchJob, "
                       "no injected environment (target %s)", who, kf_targets[t].name);
      /* fall through */
    case KF_T_OPERATOR:
      if (operator_kinds[j->kind] == NULL)
        return kf_fail(e, KF_EINVAL, "%s: kfjob does not list the environment "
                       "the operator gives a %s", who,
                       kf_kinds[j->kind].name);
      if ((st = operator_kinds[j->kind](&c)) != KF_OK) return st;
      return t == KF_T_OPERATOR ? KF_OK : flyte_env(&c);
    case KF_T_MPI_OPERATOR:
      return mpi_v2_env(&c);
    case KF_T_TRAINER_22: case KF_T_TRAINER_23: case KF_T_TRAINER_24:
      return trainer_env(&c);
    case KF_T_CLUSTERED:
      return clustered_env(&c);
    case KF_NTARGETS:
      break;
  }
  return kf_fail(e, KF_EINVAL, "%s: no such target", who);
}

/* What the API server accepts as an env var name (IsEnvVarName). */
static int kv_cmp(const void *a, const void *b) {
  return strcmp(((const kf_kv *)a)->k, ((const kf_kv *)b)->k);
}

kf_status kf_env_user_vars(const kf_kvs *in, kf_arena *A, kf_kvs *out,
                           const char *who, kf_err *e) {
  kf_kv *v = (kf_kv *)kf_arena_alloc(A, in->n * sizeof *v + 1);
  size_t i;
  if (v == NULL) return kf_nomem(e);
  if (in->n) memcpy(v, in->v, in->n * sizeof *v);
  qsort(v, in->n, sizeof *v, kv_cmp);
  for (i = 0; i < in->n; i++) {
    char at[128];
    env_path(at, sizeof at, v[i].k);
    if (!kfm_env_name(v[i].k))
      return kf_fail(e, KF_EINVAL, "%s: %s: invalid environment variable name "
                     "(letters, digits, '_', '-' or '.', not starting with a "
                     "digit)", who, at);
    if (i && strcmp(v[i].k, v[i - 1].k) == 0)
      return kf_fail(e, KF_EINVAL, "%s: %s: given twice", who, at);
  }
  out->v = v, out->n = in->n;
  return KF_OK;
}

/*
** kf_pod_tt.c - a job's pod settings in the flyteidl.core.TaskTemplate,
** as flytekit writes them (SPEC 2.4): task resources in the container (or
** the primary container), `extended_resources` (construct_extended_
** resources), and for a pod template the `k8s_pod` target (get_k8s_pod,
** _serialize_pod_spec) with config["primary_container_name"]; and the way
** back for decode_task_template.
*/
#include <stdio.h>
#include <string.h>

#include "kf_pod.h"
#include "kf_sched.h"
#include "kf_json.h"
#include "kf_template.h"


/* flytekit's container order of resource entries (_get_container_definition) */
static const int res_order[KF_NRES] = {KF_EPH, KF_CPU, KF_GPU, KF_MEM};
static const int res_name[KF_NRES] = {
    [KF_CPU] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__CPU,
    [KF_MEM] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__MEMORY,
    [KF_GPU] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__GPU,
    [KF_EPH] = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__EPHEMERAL_STORAGE};

/* The pod spec's key of a resource row: flytekit's _sanitize_resource_name
** of its ResourceName ("EPHEMERAL_STORAGE" -> "ephemeral-storage"). */
static void pod_key(int r, char out[24]) {
  const char *pb = kf_resources_obj.f[r].pb;
  size_t i;
  for (i = 0; pb[i] && i < 23; i++)
    out[i] = pb[i] == '_' ? '-' : (char)(pb[i] >= 'A' && pb[i] <= 'Z' ? pb[i] + 32 : pb[i]);
  out[i] = '\0';
}

static int has_res(const char *const *q) {
  int r;
  for (r = 0; r < KF_NRES; r++)
    if (q[r]) return 1;
  return 0;
}

static kf_status entries(kf_arena *A, const char *const *q,
                         Flyteidl__Core__Resources__ResourceEntry ***out,
                         size_t *n, kf_err *e) {
  Flyteidl__Core__Resources__ResourceEntry *v =
      kf_arena_alloc(A, KF_NRES * sizeof *v);
  int i;
  *n = 0;
  if (v == NULL || (*out = kf_arena_alloc(A, KF_NRES * sizeof **out)) == NULL)
    return kf_nomem(e);
  for (i = 0; i < KF_NRES; i++) {
    int r = res_order[i];
    if (q[r] == NULL) continue;
    flyteidl__core__resources__resource_entry__init(&v[*n]);
    v[*n].name = (Flyteidl__Core__Resources__ResourceName)res_name[r];
    v[*n].value = (char *)q[r];
    (*out)[*n] = &v[*n];
    ++*n;
  }
  return KF_OK;
}

static kf_node *strings(kf_arena *A, char **v, size_t n) {
  kf_node *l = kf_node_new(A, KF_NARR);
  size_t i;
  for (i = 0; l && i < n; i++)
    if (!kf_node_push(A, l, NULL, kf_node_str(A, v[i], strlen(v[i])))) return NULL;
  return l;
}

static kf_node *res_node(kf_arena *A, const char *const *q) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  char k[24];
  int r;
  for (r = 0; o && r < KF_NRES; r++) {
    if (q[r] == NULL) continue;
    pod_key(r, k);
    if (!kf_obj_str(A, o, kf_arena_strndup(A, k, strlen(k)), q[r])) return NULL;
  }
  return o;
}

/* The primary container as _serialize_pod_spec makes it: the task's
** image (unless the template's), command and args (always), env (task env,
** then the template's) and resources (both keys when either is set). */
static int primary_out(kf_arena *A, kf_node *p, const kf_job *j,
                       const Flyteidl__Core__Container *c) {
  kf_node *env = kf_node_new(A, KF_NARR), *old = kf_node_get(p, "env");
  size_t i;
  if (env == NULL) return 0;
  if (c && c->image && c->image[0] && !kf_node_put(A, p, "image", kf_node_str(A, c->image, strlen(c->image))))
    return 0;
  if (!kf_node_put(A, p, "command", strings(A, c ? c->command : NULL, c ? c->n_command : 0)) ||
      !kf_node_put(A, p, "args", strings(A, c ? c->args : NULL, c ? c->n_args : 0)))
    return 0;
  for (i = 0; c && i < c->n_env; i++) {
    kf_node *kv = kf_node_new(A, KF_NOBJ);
    if (kv == NULL || !kf_obj_strref(A, kv, "name", c->env[i]->key) ||
        !kf_obj_strref(A, kv, "value", c->env[i]->value) ||
        !kf_node_push(A, env, NULL, kv))
      return 0;
  }
  for (i = 0; old && old->t == KF_NARR && i < old->u.c.n; i++)
    if (!kf_node_push(A, env, NULL, old->u.c.v[i])) return 0;
  if (!kf_node_put(A, p, "env", env)) return 0;
  if (has_res(j->requests) || has_res(j->limits)) {
    kf_node *r = kf_node_new(A, KF_NOBJ);
    if (r == NULL || !kf_node_push(A, r, "limits", res_node(A, j->limits)) ||
        !kf_node_push(A, r, "requests", res_node(A, j->requests)) ||
        !kf_node_put(A, p, "resources", r))
      return 0;
  }
  return 1;
}

/* labels / annotations of the template's metadata -> map entries */
static kf_status meta_map(kf_arena *A, const kf_node *meta, const char *key,
                          const ProtobufCMessageDescriptor *d, size_t *n,
                          void *out, kf_err *e) {
  const kf_node *m = meta ? kf_node_get(meta, key) : NULL;
  Flyteidl__Core__K8sObjectMetadata__LabelsEntry **v;
  size_t i;
  *n = 0;
  if (m == NULL || m->t != KF_NOBJ || m->u.c.n == 0) return KF_OK;
  if ((v = kf_arena_alloc(A, m->u.c.n * sizeof *v)) == NULL) return kf_nomem(e);
  for (i = 0; i < m->u.c.n; i++) {
    /* labels and annotations entries share one layout */
    if ((v[i] = kf_arena_alloc(A, sizeof **v)) == NULL) return kf_nomem(e);
    protobuf_c_message_init(d, v[i]);
    v[i]->key = (char *)m->u.c.k[i];
    v[i]->value = (char *)m->u.c.v[i]->u.s.p;
  }
  *n = m->u.c.n;
  *(void **)out = v;
  return KF_OK;
}

static kf_status k8s_pod_out(const kf_job *j, kf_arena *A,
                             Flyteidl__Core__TaskTemplate *t, const char *who, kf_err *e) {
  const kf_node *tp = j->pod_template, *meta = kf_node_get(tp, "metadata");
  const char *name = kf_pod_primary_name(tp);
  Flyteidl__Core__K8sPod *pod = kf_arena_alloc(A, sizeof *pod);
  Flyteidl__Core__K8sObjectMetadata *md = kf_arena_alloc(A, sizeof *md);
  const kf_node *sp = kf_node_get(tp, "spec");
  kf_node *spec, *cs, *p = NULL;
  size_t i;
  kf_status st;
  if (pod == NULL || md == NULL) return kf_nomem(e);
  flyteidl__core__k8s_pod__init(pod);
  flyteidl__core__k8s_object_metadata__init(md);
  spec = sp ? kf_tree_dup(A, sp) : kf_node_new(A, KF_NOBJ);
  if (spec == NULL) return kf_nomem(e);
  if ((cs = kf_node_get(spec, "containers")) == NULL &&
      (cs = kf_obj_add(A, spec, "containers", KF_NARR)) == NULL)
    return kf_nomem(e);
  for (i = 0; i < cs->u.c.n && p == NULL; i++) {
    const kf_node *nm = kf_node_get(cs->u.c.v[i], "name");
    if (nm && strcmp(nm->u.s.p, name) == 0) p = cs->u.c.v[i];
  }
  if (p == NULL) {  /* a placeholder primary, after the template's */
    if ((p = kf_node_new(A, KF_NOBJ)) == NULL || !kf_obj_strref(A, p, "name", name) ||
        !kf_node_push(A, cs, NULL, p))
      return kf_nomem(e);
  }
  if (!primary_out(A, p, j, t->container)) return kf_nomem(e);
  if ((st = kf_node_to_struct(spec, A, &pod->pod_spec, e)) ||
      (st = meta_map(A, meta, "labels",
                     &flyteidl__core__k8s_object_metadata__labels_entry__descriptor,
                     &md->n_labels, &md->labels, e)) ||
      (st = meta_map(A, meta, "annotations",
                     &flyteidl__core__k8s_object_metadata__annotations_entry__descriptor,
                     &md->n_annotations, &md->annotations, e)))
    return st;
  for (i = 0; i < t->n_config; i++)
    if (strcmp(t->config[i]->key, "primary_container_name") == 0)
      return kf_fail(e, KF_EINVAL, "%s: opts.config.primary_container_name: "
                     "set by the job's pod_template; give only one", who);
  pod->metadata = md;
  t->target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_K8S_POD;
  t->k8s_pod = pod;
  return kf_template_add_config(A, t, "primary_container_name", name, e);
}

kf_status kf_pod_to_template(const kf_job *j, kf_arena *A,
                             Flyteidl__Core__TaskTemplate *t, const char *who, kf_err *e) {
  kf_status st;
  if (j->shared_memory || j->has_accelerator) {
    Flyteidl__Core__ExtendedResources *x = kf_arena_alloc(A, sizeof *x);
    if (x == NULL) return kf_nomem(e);
    flyteidl__core__extended_resources__init(x);
    if (j->has_accelerator) {
      Flyteidl__Core__GPUAccelerator *g = kf_arena_alloc(A, sizeof *g);
      if (g == NULL) return kf_nomem(e);
      flyteidl__core__gpuaccelerator__init(g);
      g->device = (char *)j->accel.device;
      if (j->accel.partition_size) {
        g->partition_size_value_case = FLYTEIDL__CORE__GPUACCELERATOR__PARTITION_SIZE_VALUE_PARTITION_SIZE;
        g->partition_size = (char *)j->accel.partition_size;
      } else if (j->accel.unpartitioned) {
        g->partition_size_value_case = FLYTEIDL__CORE__GPUACCELERATOR__PARTITION_SIZE_VALUE_UNPARTITIONED;
        g->unpartitioned = 1;
      }
      x->gpu_accelerator = g;
    }
    if (j->shared_memory) {
      Flyteidl__Core__SharedMemory *m = kf_arena_alloc(A, sizeof *m);
      if (m == NULL) return kf_nomem(e);
      flyteidl__core__shared_memory__init(m);
      m->mount_path = (char *)KF_SHM_PATH;
      m->mount_name = (char *)KF_SHM_VOLUME;
      m->size_limit = (char *)j->shared_memory;  /* "" for true: unset */
      x->shared_memory = m;
    }
    t->extended_resources = x;
  }
  if (j->pod_template) return k8s_pod_out(j, A, t, who, e);
  if (has_res(j->requests) || has_res(j->limits)) {
    Flyteidl__Core__Container *c = t->container;
    Flyteidl__Core__Resources *r = kf_arena_alloc(A, sizeof *r);
    if (r == NULL) return kf_nomem(e);
    if (c == NULL) {
      if ((c = kf_arena_alloc(A, sizeof *c)) == NULL) return kf_nomem(e);
      flyteidl__core__container__init(c);
      t->target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER;
      t->container = c;
    }
    flyteidl__core__resources__init(r);
    if ((st = entries(A, j->requests, &r->requests, &r->n_requests, e)) ||
        (st = entries(A, j->limits, &r->limits, &r->n_limits, e)))
      return st;
    c->resources = r;
  }
  return KF_OK;
}

/* ---- back ------------------------------------------------------------- */

static kf_status res_in(kf_arena *A, const kf_node *m, const char *path,
                        const char **q, const char *who, kf_err *e) {
  char k[24], b[32];
  size_t i;
  int r;
  if (m == NULL) return KF_OK;
  if (m->t != KF_NOBJ)
    return kf_fail(e, KF_EINVAL, "%s: %s: expected an object", who, path);
  for (i = 0; i < m->u.c.n; i++) {
    const kf_node *v = m->u.c.v[i];
    for (r = 0; r < KF_NRES; r++) {
      pod_key(r, k);
      if (strcmp(k, m->u.c.k[i]) == 0) break;
    }
    if (r == KF_NRES)
      return kf_fail(e, KF_EINVAL, "%s: %s.%s: unknown resource (expected cpu, "
                     "memory, gpu or ephemeral-storage)", who, path, m->u.c.k[i]);
    if (v->t == KF_NINT && v->u.i >= 0) kf_format_int(v->u.i, b);
    else if (v->t == KF_NNUM && v->u.d >= 0 && v->u.d < 1e300) kf_format_number(v->u.d, b);
    else b[0] = '\0';
    if (b[0]) q[r] = kf_arena_strndup(A, b, strlen(b));
    else if (v->t == KF_NSTR && kf_quantity_ok(v->u.s.p, v->u.s.n)) q[r] = v->u.s.p;
    else
      return kf_fail(e, KF_EINVAL, "%s: %s.%s: expected a quantity", who, path,
                     m->u.c.k[i]);
    if (q[r] == NULL) return kf_nomem(e);
  }
  return KF_OK;
}

static kf_status entries_in(const Flyteidl__Core__Resources__ResourceEntry *const *v,
                            size_t n, const char *path, const char **q, const char *who, kf_err *e) {
  size_t i;
  int r;
  for (i = 0; i < n; i++) {
    for (r = 0; r < KF_NRES && res_name[r] != (int)v[i]->name; r++) {}
    if (r == KF_NRES) continue;  /* UNKNOWN, STORAGE: the backend ignores them */
    if (!kf_quantity_ok(v[i]->value, strlen(v[i]->value)))
      return kf_fail(e, KF_EINVAL, "%s: container.resources.%s[%zu].value: invalid "
                     "quantity '%.60s'", who, path, i + 1, v[i]->value);
    q[r] = v[i]->value;
  }
  return KF_OK;
}

static const char *strnode(const kf_node *n) {
  return n && n->t == KF_NSTR ? n->u.s.p : NULL;
}

static char **strs_in(kf_arena *A, const kf_node *l, size_t *n) {
  char **v;
  size_t i;
  *n = 0;
  if (l == NULL || l->t != KF_NARR || l->u.c.n == 0) return NULL;
  if ((v = kf_arena_alloc(A, l->u.c.n * sizeof *v)) == NULL) return NULL;
  for (i = 0; i < l->u.c.n; i++)
    if ((v[i] = (char *)strnode(l->u.c.v[i])) != NULL) ++*n;
  return v;
}

/* The primary container back into the job's task resources and an info
** container; it leaves the template when nothing of the template's own
** is left in it. */
static kf_status primary_in(kf_arena *A, kf_node *cs, size_t at, kf_job *j,
                            Flyteidl__Core__TaskTemplate *t, const char *who, kf_err *e) {
  kf_node *p = cs->u.c.v[at], *q = kf_node_new(A, KF_NOBJ);
  const kf_node *env = kf_node_get(p, "env"), *res = kf_node_get(p, "resources");
  Flyteidl__Core__Container *c = kf_arena_alloc(A, sizeof *c);
  kf_node *keep = kf_node_new(A, KF_NARR);
  size_t i;
  kf_status st;
  if (q == NULL || c == NULL || keep == NULL) return kf_nomem(e);
  flyteidl__core__container__init(c);
  if (strnode(kf_node_get(p, "image"))) c->image = (char *)strnode(kf_node_get(p, "image"));
  c->command = strs_in(A, kf_node_get(p, "command"), &c->n_command);
  c->args = strs_in(A, kf_node_get(p, "args"), &c->n_args);
  if (res && ((st = res_in(A, kf_node_get(res, "requests"), "k8s_pod.pod_spec.resources.requests",
                           j->requests, who, e)) ||
              (st = res_in(A, kf_node_get(res, "limits"), "k8s_pod.pod_spec.resources.limits",
                           j->limits, who, e))))
    return st;
  if (env && env->t == KF_NARR && env->u.c.n &&
      (c->env = kf_arena_alloc(A, env->u.c.n * sizeof *c->env)) == NULL)
    return kf_nomem(e);
  for (i = 0; env && env->t == KF_NARR && i < env->u.c.n; i++) {
    const kf_node *it = env->u.c.v[i];
    const char *n = strnode(kf_node_get(it, "name"));
    Flyteidl__Core__KeyValuePair *kv;
    if (n == NULL || kf_node_get(it, "valueFrom") != NULL) {  /* stays */
      if (!kf_node_push(A, keep, NULL, (kf_node *)it)) return kf_nomem(e);
      continue;
    }
    if ((kv = kf_arena_alloc(A, sizeof *kv)) == NULL) return kf_nomem(e);
    flyteidl__core__key_value_pair__init(kv);
    kv->key = (char *)n;
    kv->value = strnode(kf_node_get(it, "value")) ? (char *)strnode(kf_node_get(it, "value")) : (char *)"";
    c->env[c->n_env++] = kv;
  }
  for (i = 0; i < p->u.c.n; i++) {
    const char *k = p->u.c.k[i];
    if (strcmp(k, "image") && strcmp(k, "command") && strcmp(k, "args") &&
        strcmp(k, "resources") && strcmp(k, "env") &&
        !kf_node_push(A, q, k, p->u.c.v[i]))
      return kf_nomem(e);
  }
  if (keep->u.c.n && !kf_node_push(A, q, "env", keep)) return kf_nomem(e);
  t->target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER;
  t->container = c;
  if (q->u.c.n == 1 && at + 1 == cs->u.c.n) {  /* the placeholder flytekit adds */
    cs->u.c.n--;
    return KF_OK;
  }
  cs->u.c.v[at] = q;
  return KF_OK;
}

static kf_node *meta_in(kf_arena *A, const Flyteidl__Core__K8sObjectMetadata *md) {
  kf_node *m = kf_node_new(A, KF_NOBJ), *l = NULL;
  size_t i;
  if (m == NULL || md == NULL) return m;
  if (md->n_annotations && (l = kf_obj_add(A, m, "annotations", KF_NOBJ)) == NULL) return NULL;
  for (i = 0; i < md->n_annotations; i++)
    if (!kf_obj_strref(A, l, md->annotations[i]->key, md->annotations[i]->value)) return NULL;
  if (md->n_labels && (l = kf_obj_add(A, m, "labels", KF_NOBJ)) == NULL) return NULL;
  for (i = 0; i < md->n_labels; i++)
    if (!kf_obj_strref(A, l, md->labels[i]->key, md->labels[i]->value)) return NULL;
  return m;
}

static kf_status k8s_pod_in(Flyteidl__Core__TaskTemplate *t, kf_arena *A,
                            kf_job *j, const char *who, kf_err *e) {
  const Flyteidl__Core__K8sPod *pod = t->k8s_pod;
  const char *name = NULL;
  kf_node *spec, *tp, *cs, *meta;
  size_t i;
  for (i = 0; i < t->n_config; i++)
    if (strcmp(t->config[i]->key, "primary_container_name") == 0)
      name = t->config[i]->value;
  if (name == NULL)
    return kf_fail(e, KF_EINVAL, "%s: config.primary_container_name: missing "
                   "(a k8s_pod target needs it)", who);
  spec = NULL;
  if (pod->pod_spec) {
    kf_status sst = kf_struct_to_node(pod->pod_spec, A, &spec);
    if (sst == KF_ELIMIT)
      return kf_fail(e, sst, "%s: k8s_pod.pod_spec: nested deeper than %d levels", who,
                     KF_MAX_DEPTH);
    if (sst != KF_OK) return kf_nomem(e);
  } else {
    spec = kf_node_new(A, KF_NOBJ);
  }
  if (spec == NULL || (tp = kf_node_new(A, KF_NOBJ)) == NULL ||
      (meta = meta_in(A, pod->metadata)) == NULL)
    return kf_nomem(e);
  cs = kf_node_get(spec, "containers");
  for (i = 0; cs && cs->t == KF_NARR && i < cs->u.c.n; i++)
    if (strnode(kf_node_get(cs->u.c.v[i], "name")) &&
        strcmp(strnode(kf_node_get(cs->u.c.v[i], "name")), name) == 0) {
      kf_status st = primary_in(A, cs, i, j, t, who, e);
      if (st) return st;
      break;
    }
  if (cs && cs->t == KF_NARR && cs->u.c.n == 0) {  /* only the placeholder was there */
    for (i = 0; spec->u.c.v[i] != cs; i++) {}
    memmove(&spec->u.c.k[i], &spec->u.c.k[i + 1], (spec->u.c.n - i - 1) * sizeof(char *));
    memmove(&spec->u.c.v[i], &spec->u.c.v[i + 1], (spec->u.c.n - i - 1) * sizeof(kf_node *));
    spec->u.c.n--;
  }
  if ((meta->u.c.n && !kf_node_push(A, tp, "metadata", meta)) ||
      (strcmp(name, KF_PRIMARY_DEFAULT) != 0 &&
       !kf_obj_strref(A, tp, "primary_container_name", name)) ||
      (spec->u.c.n && !kf_node_push(A, tp, "spec", spec)))
    return kf_nomem(e);
  return kf_pod_template_tree.check(tp, A, &j->pod_template, who, "k8s_pod", e);
}

/* What the constructor takes for a token field (kf_build.c get_str). */
static kf_status token_in(const char *s, const char *what, const char *who, kf_err *e) {
  const char *bad = NULL;
  char buf[64];
  size_t n;
  if (s == NULL) return KF_OK;
  n = strlen(s);
  if (n > KF_MAX_STRING) bad = "string longer than the limit of 1 MiB";
  else if (!kf_utf8_ok(s, n)) bad = "invalid UTF-8";
  else if (n == 0) bad = "must not be empty";
  else bad = kf_token_problem(s, n, buf, sizeof buf);   /* as the constructor checks */
  return bad ? kf_fail(e, KF_EINVAL, "%s: extendedResources.gpuAccelerator.%s: %s", who,
                       what, bad)
             : KF_OK;
}

kf_status kf_pod_from_template(Flyteidl__Core__TaskTemplate *t, kf_arena *A,
                               kf_job *j, const char *who, kf_err *e) {
  const Flyteidl__Core__ExtendedResources *x = t->extended_resources;
  kf_status st;
  if (x && x->shared_memory)
    j->shared_memory = x->shared_memory->size_limit ? x->shared_memory->size_limit : "";
  if (j->shared_memory && j->shared_memory[0] &&
      !kf_quantity_ok(j->shared_memory, strlen(j->shared_memory)))
    return kf_fail(e, KF_EINVAL, "%s: extendedResources.sharedMemory.sizeLimit: "
                   "invalid quantity '%.60s'", who, j->shared_memory);
  if (x && x->gpu_accelerator) {
    const Flyteidl__Core__GPUAccelerator *g = x->gpu_accelerator;
    j->has_accelerator = 1;
    j->accel.device = g->device && g->device[0] ? g->device : NULL;
    if (g->partition_size_value_case == FLYTEIDL__CORE__GPUACCELERATOR__PARTITION_SIZE_VALUE_PARTITION_SIZE)
      j->accel.partition_size = g->partition_size;
    j->accel.unpartitioned =
        g->partition_size_value_case == FLYTEIDL__CORE__GPUACCELERATOR__PARTITION_SIZE_VALUE_UNPARTITIONED &&
        g->unpartitioned;
    if ((st = token_in(j->accel.device, "device", who, e)) != KF_OK ||
        (st = token_in(j->accel.partition_size, "partitionSize", who, e)) != KF_OK)
      return st;
  }
  if (t->target_case == FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_K8S_POD && t->k8s_pod) {
    if ((st = k8s_pod_in(t, A, j, who, e))) return st;
  } else if (t->target_case == FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER &&
             t->container && t->container->resources) {
    const Flyteidl__Core__Resources *r = t->container->resources;
    if ((st = entries_in((const Flyteidl__Core__Resources__ResourceEntry *const *)r->requests,
                         r->n_requests, "requests", j->requests, who, e)) ||
        (st = entries_in((const Flyteidl__Core__Resources__ResourceEntry *const *)r->limits,
                         r->n_limits, "limits", j->limits, who, e)))
      return st;
  }
  /* the pod's topology and (Flyte 2) Kueue labels are scheduling's before
  ** the job is checked: a pod template cannot hold Kueue's labels */
  if ((st = kf_sched_template_out(j, A, e)) != KF_OK) return st;
  return kf_job_check(j, KF_PATH_SPEC, who, e);
}

kf_status kf_template_add_config(kf_arena *A, Flyteidl__Core__TaskTemplate *t,
                                 const char *k, const char *v, kf_err *e) {
  Flyteidl__Core__TaskTemplate__ConfigEntry *ce = kf_arena_alloc(A, sizeof *ce);
  Flyteidl__Core__TaskTemplate__ConfigEntry **nv =
      kf_arena_alloc(A, (t->n_config + 1) * sizeof *nv);
  if (ce == NULL || nv == NULL) return kf_nomem(e);
  flyteidl__core__task_template__config_entry__init(ce);
  ce->key = (char *)k;
  ce->value = (char *)v;
  if (t->n_config) memcpy(nv, t->config, t->n_config * sizeof *nv);
  nv[t->n_config++] = ce;
  t->config = nv;
  return KF_OK;
}

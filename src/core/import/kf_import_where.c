/*
** kf_import_where.c - where a target rule's problem with a job read from a
** kubeflow.org manifest is in that manifest (SPEC §17: messages name the
** manifest path): a replica spec's row (restartPolicy), a main
** container's field (its image, the item of its args holding a reference),
** the run policy's.  Read off the document itself, by the schema rows'
** places, so the CLI's convert and the binding's from_manifest name the
** same path.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_import_int.h"
#include "kf_json.h"

/* The role whose key `path` starts with ("worker." in "worker.image"),
** or -1. */
static int role_key(const char *path) {
  const char *dot = strchr(path, '.');
  int r;
  for (r = 0; dot && r < KF_NROLES; r++)
    if (strncmp(kf_roles[r].key, path, (size_t)(dot - path)) == 0 &&
        kf_roles[r].key[dot - path] == '\0')
      return r;
  return -1;
}

/* Where a TrainJob's pod template is: the node job's, in its first
** runtime patch (kf_import_trainer.c reads it there). */
#define TRAINER_TEMPLATE "spec.runtimePatches[0].trainingRuntimeSpec.template.spec." \
                         "replicatedJobs[0].template.spec.template."

/* `rest` of a kfjob pod template path (1-based list items, as Lua's)
** after the manifest's `prefix`, its items 0-based; 0: too long. */
static int template_rest(const char *prefix, const char *rest, char *out, size_t cap) {
  size_t len = (size_t)snprintf(out, cap, "%s", prefix);
  char *end;
  for (; *rest; rest++) {
    if (len + 24 >= cap) return 0;
    if (*rest == '[' && rest[1] >= '1' && rest[1] <= '9') {   /* [n] -> [n-1] */
      long x = strtol(rest + 1, &end, 10);
      if (*end == ']') {
        len += (size_t)snprintf(out + len, cap - len, "[%ld]", x - 1);
        rest = end;
        continue;
      }
    }
    out[len++] = *rest;
  }
  out[len] = '\0';
  return 1;
}

/* The replica spec of `role` in a kubeflow.org manifest of kind `kind`. */
static const kf_node *replica_spec(const kf_node *doc, int kind, int role) {
  return kf_node_get(kf_node_get(kf_node_get(doc, "spec"), kf_kinds[kind].crd_specs),
                     kf_roles[role].name);
}

/* The main container's place in the replica spec's template, as the reader
** takes it (kf_import_pod.c primary_at): containers[0] where any name runs
** (the mpi-operator, a v1 MPIJob), else the first of the kind's name; -1:
** none. */
static long main_container(const kf_node *doc, int kind, const kf_node *rs) {
  const kf_node *cs = kf_node_get(kf_node_get(kf_node_get(rs, "template"), "spec"),
                                  "containers");
  const char *api = kfi_str(kf_node_get(doc, "apiVersion"));
  size_t i;
  if (cs == NULL || cs->t != KF_NARR || cs->u.c.n == 0) return -1;
  if ((api && strcmp(api, "kubeflow.org/v2beta1") == 0) || kind == KF_MPI || kind == KF_HOROVOD)
    return 0;
  for (i = 0; i < cs->u.c.n; i++) {
    const char *n = kfi_str(kf_node_get(cs->u.c.v[i], "name"));
    if (n && strcmp(n, kf_kinds[kind].container) == 0) return (long)i;
  }
  return 0;
}

/* The place in list `l` of the first string holding `ref` ("$(NAME)"),
** or of the env entry named `name`; -1: none. */
static long item_of(const kf_node *l, const char *ref, const char *name) {
  size_t i;
  for (i = 0; l && l->t == KF_NARR && i < l->u.c.n; i++) {
    const char *s = kfi_str(name ? kf_node_get(l->u.c.v[i], "name") : l->u.c.v[i]);
    if (s && (name ? strcmp(s, name) == 0 : ref == NULL || strstr(s, ref) != NULL))
      return (long)i;
  }
  return -1;
}

/* A container field `f` (command, args, image, env.NAME) of role's main
** container, written to out (cap bytes); 0 when the manifest has no such
** value (with `need`, the field itself must be there). */
static int container_at(const kf_node *doc, int kind, int role, const char *f,
                        const char *ref, int need, char *out, size_t cap) {
  const kf_node *rs = replica_spec(doc, kind, role), *ct;
  long c = main_container(doc, kind, rs), k = -1;
  const char *env = strncmp(f, "env.", 4) == 0 ? f + 4 : NULL;
  int n;
  if (c < 0) return 0;
  ct = kf_node_get(kf_node_get(kf_node_get(rs, "template"), "spec"), "containers")->u.c.v[c];
  if (env || strcmp(f, "command") == 0 || strcmp(f, "args") == 0) {
    k = item_of(kf_node_get(ct, env ? "env" : f), ref, env);
    if (k < 0 && (need || env)) return 0;
  } else if (kf_node_get(ct, f) == NULL && need) {
    return 0;
  }
  n = snprintf(out, cap, "spec.%s.%s.template.spec.containers[%ld].", kf_kinds[kind].crd_specs,
               kf_roles[role].name, c);
  if (k < 0 || !(ref || env)) {   /* kfjob's "env[2].valueFrom": 1-based */
    char prefix[KFI_PATH];
    snprintf(prefix, sizeof prefix, "%s", out);
    return template_rest(prefix, env ? "env" : f, out, cap);
  }
  snprintf(out + n, cap - (size_t)n, "%s[%ld]%s", env ? "env" : f, k, env && ref ? ".value" : "");
  return 1;
}

/* The job's container field f: the first replica spec (the manifest's
** order) whose main container holds it, every group running the job's. */
static int job_container_at(const kf_node *doc, int kind, const char *f, const char *ref,
                            char *out, size_t cap) {
  const kf_kind_info *k = &kf_kinds[kind];
  const kf_node *specs = kf_node_get(kf_node_get(doc, "spec"), k->crd_specs);
  size_t i;
  int r, need;
  for (need = 1; need >= 0 && specs && specs->t == KF_NOBJ; need--)
    for (i = 0; i < specs->u.c.n; i++)
      for (r = 0; r < k->nroles; r++)
        if (strcmp(kf_roles[k->roles[r].role].name, specs->u.c.k[i]) == 0 &&
            container_at(doc, kind, k->roles[r].role, f, ref, need, out, cap))
          return 1;
  return 0;
}

/* `res` ("gpu", "amd.com/gpu") of resources object `o` as the manifest's
** key after out's `n` bytes: the row's name where `o` has it, else a name
** `o` has ending like it ("/gpu"); 0: none. */
static int resource_key(const kf_node *o, const char *res, char *out, size_t n) {
  char prefix[KFI_PATH];
  const kf_field *r = kf_obj_row(&kf_resources_obj, res);
  const char *name = r && r->manifest ? r->manifest : res, *tail = strrchr(name, '/');
  size_t i;
  if (kf_node_get(o, name) == NULL && tail != NULL && o && o->t == KF_NOBJ)
    for (i = 0; i < o->u.c.n; i++) {
      const char *k = o->u.c.k[i], *t = strrchr(k, '/');
      if (t && strcmp(t, tail) == 0) name = k;
    }
  if (kf_node_get(o, name) == NULL) return 0;
  snprintf(prefix, sizeof prefix, "%.*s", (int)n, out);
  kfi_path(out, prefix, name);   /* ["nvidia.com/gpu"], as the reader names it */
  return 1;
}

/* A group's resource ("limits.gpu"): in its main container's resources
** (the row's key where the manifest has it). */
static int resources_at(const kf_node *doc, int kind, int role, const char *rest, char *out,
                        size_t cap) {
  const char *dot = rest + strcspn(rest, ".[");
  char which[16], res[96];
  size_t n;
  if (*dot == '\0' || (size_t)(dot - rest) >= sizeof which) return 0;
  snprintf(which, sizeof which, "%.*s", (int)(dot - rest), rest);
  if (dot[0] == '[' && dot[1] == '"')   /* limits["amd.com/gpu"] */
    snprintf(res, sizeof res, "%.*s", (int)strcspn(dot + 2, "\""), dot + 2);
  else
    snprintf(res, sizeof res, "%s", dot + 1);
  if ((strcmp(which, "requests") != 0 && strcmp(which, "limits") != 0) ||
      !container_at(doc, kind, role, "resources", NULL, 0, out, cap))
    return 0;
  n = strlen(out);
  n += (size_t)snprintf(out + n, cap - n, ".%s", which);
  resource_key(kf_import_at(doc, out), res, out, n);
  return 1;
}

/* A group row's path (`rest` after "<role>."): its replica spec's key, or
** its main container's. */
static int group_at(const kf_node *doc, int kind, int role, const char *rest, const char *ref,
                    char *out, size_t cap) {
  size_t i;
  if (strncmp(rest, "container.", 10) == 0)
    return container_at(doc, kind, role, rest + 10, ref, 0, out, cap);
  if (strcmp(rest, "container") == 0 && container_at(doc, kind, role, "name", NULL, 0, out, cap)) {
    out[strlen(out) - 5] = '\0';   /* the main container itself, without ".name" */
    return 1;
  }
  if (resources_at(doc, kind, role, rest, out, cap)) return 1;
  for (i = 0; i < kf_group_obj.n; i++) {
    const kf_field *f = &kf_group_obj.f[i];
    if (strcmp(f->key, rest) != 0 || f->manifest == NULL) continue;
    if (f->place == KF_M_REPLICA)
      return snprintf(out, cap, "spec.%s.%s.%s", kf_kinds[kind].crd_specs, kf_roles[role].name,
                      f->manifest), 1;
    if (f->place == KF_M_CONTAINER)
      return container_at(doc, kind, role, f->manifest, NULL, 0, out, cap);
  }
  return 0;
}

/* A job row with a place of its own (an elastic policy's, the
** mpi-operator's spec.sshAuthMountPath): where the manifest's resource
** family (`mpi`: the mpi-operator's v2beta1) puts it. */
static int job_row_at(const kf_node *doc, int kind, int mpi, const char *path, char *out,
                      size_t cap) {
  static const char *const own[] = {"spec.elasticPolicy", "spec", NULL};
  const kf_kind_info *k = &kf_kinds[kind];
  const char *at;
  size_t i, w;
  for (i = 0; i < k->nfields; i++) {
    const kf_field *f = &k->fields[i];
    if (strcmp(f->key, path) != 0 || f->manifest == NULL || kf_places[f->place].group) continue;
    if (f->place == KF_M_NONE) {   /* written by a routine of its own: where the doc has it */
      for (w = 0; own[w + 1]; w++) {
        snprintf(out, cap, "%s.%s", own[w], f->manifest);
        if (kf_import_at(doc, out) != NULL) return 1;
      }
      return snprintf(out, cap, "spec.%s", f->manifest), 1;
    }
    at = mpi ? kf_places[f->place].mpi : kf_places[f->place].v1;
    if (at == NULL) return 0;
    return snprintf(out, cap, "%s.%s", at, f->manifest), 1;
  }
  return 0;
}

/* A run policy row, or a gang field (spec.runPolicy.schedulingPolicy). */
static int run_policy_at(const char *path, char *out, size_t cap) {
  static const char *const gang[][2] = {
      {"min_available", "minAvailable"}, {"priority_class", "priorityClass"},
      {"schedule_timeout_seconds", "scheduleTimeoutSeconds"}, {"min_resources", "minResources"},
      {"queue", "queue"}};
  size_t i;
  if (strcmp(path, "scheduling.gang") == 0)
    return snprintf(out, cap, "spec.runPolicy.schedulingPolicy"), 1;
  if (strncmp(path, "scheduling.gang.", 16) == 0) {
    for (i = 0; i < sizeof gang / sizeof gang[0]; i++)
      if (strcmp(path + 16, gang[i][0]) == 0)
        return snprintf(out, cap, "spec.runPolicy.schedulingPolicy.%s", gang[i][1]), 1;
    return 0;
  }
  if (strncmp(path, "run_policy.", 11) != 0) return 0;
  for (i = 0; i < kf_run_policy_obj.n; i++) {
    const kf_field *f = &kf_run_policy_obj.f[i];
    if (f->place == KF_M_RUN_POLICY && f->manifest && strcmp(f->key, path + 11) == 0)
      return snprintf(out, cap, "spec.runPolicy.%s", f->manifest), 1;
  }
  return 0;
}

/* A pod template's path: a group's ("worker.pod_template.<rest>") in its
** replica's template; the job's ("pod_template.<rest>", merged into every
** group's) in the first replica spec (the manifest's order) whose
** template holds it, else the first there is. */
static int template_at(const kf_node *doc, int kind, const char *path, char *out, size_t cap) {
  static const char pt[] = "pod_template.";
  const kf_kind_info *k = &kf_kinds[kind];
  const char *dot = strchr(path, '.');
  const kf_node *specs;
  char prefix[96];
  int i, pass, r = role_key(path);
  if (r >= 0 && strcmp(dot + 1, "pod_template") == 0 && replica_spec(doc, kind, r))
    return snprintf(out, cap, "spec.%s.%s.template", k->crd_specs, kf_roles[r].name), 1;
  if (r >= 0 && strncmp(dot + 1, pt, sizeof pt - 1) == 0 && replica_spec(doc, kind, r))
    return snprintf(prefix, sizeof prefix, "spec.%s.%s.template.", k->crd_specs, kf_roles[r].name),
           template_rest(prefix, dot + sizeof pt, out, cap);
  specs = kf_node_get(kf_node_get(doc, "spec"), k->crd_specs);
  if (strncmp(path, pt, sizeof pt - 1) != 0 || specs == NULL || specs->t != KF_NOBJ) return 0;
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < (int)specs->u.c.n; i++) {   /* the manifest's order */
      if (strlen(specs->u.c.k[i]) > 32) continue;
      snprintf(prefix, sizeof prefix, "spec.%s.%s.template.", k->crd_specs, specs->u.c.k[i]);
      if (template_rest(prefix, path + sizeof pt - 1, out, cap) &&
          (pass == 1 || kf_import_at(doc, out) != NULL))
        return 1;
    }
  return 0;
}

const kf_node *kf_import_at(const kf_node *doc, const char *path) {
  char key[128];
  const char *p = path;
  char *end;
  while (doc != NULL && *p) {
    size_t n = strcspn(p, ".[");
    if (n == 0 && p[0] == '[' && p[1] == '"') {   /* ["a.b/c"]: a key as the reader quotes it */
      const char *q = strstr(p + 2, "\"]");
      if (q == NULL || (size_t)(q - p - 2) >= sizeof key || doc->t != KF_NOBJ) return NULL;
      memcpy(key, p + 2, (size_t)(q - p - 2));
      key[q - p - 2] = '\0';
      doc = kf_node_get(doc, key);
      p = q + 2 + (q[2] == '.');
      continue;
    }
    if (n == 0 && *p == '[') {   /* a list item */
      long x = strtol(p + 1, &end, 10);
      if (*end != ']' || x < 0 || doc->t != KF_NARR || (size_t)x >= doc->u.c.n) return NULL;
      doc = doc->u.c.v[x];
      p = end + 1 + (end[1] == '.');
      continue;
    }
    if (n >= sizeof key || doc->t != KF_NOBJ) return NULL;
    memcpy(key, p, n);
    key[n] = '\0';
    doc = kf_node_get(doc, key);
    p += n + (p[n] == '.');
  }
  return doc;
}

/* In a TrainJob, whose one node job runs every group: its pod template (the
** runtime patch's), its container's rows and resources (spec.trainer's),
** its deadline (the spec's own). */
static int trainer_at(const kf_node *doc, const char *path, const char *ref, char *out,
                      size_t cap) {
  /* "<role>.<row>": every role's is the node's */
  const char *rest = role_key(path) >= 0 ? strchr(path, '.') + 1 : path;
  const kf_node *tr = kf_node_get(kf_node_get(doc, "spec"), "trainer");
  size_t i, n;
  if (strcmp(path, "run_policy.active_deadline_seconds") == 0)
    return snprintf(out, cap, "spec.activeDeadlineSeconds"), 1;
  if (strncmp(rest, "pod_template.", 13) == 0)
    return template_rest(TRAINER_TEMPLATE, rest + 13, out, cap);
  if (strncmp(rest, "container.", 10) == 0) rest += 10;
  else if (rest == path) return 0;   /* a job row: only its container's are spec.trainer's */
  if (strncmp(rest, "requests.", 9) == 0 || strncmp(rest, "limits.", 7) == 0) {
    n = (size_t)snprintf(out, cap, "spec.trainer.resourcesPerNode.%.*s",
                         (int)strcspn(rest, "."), rest);
    resource_key(kf_import_at(doc, out), strchr(rest, '.') + 1, out, n);
    return 1;
  }
  if (tr && (strncmp(rest, "env.", 4) == 0 ||
             ((strcmp(rest, "command") == 0 || strcmp(rest, "args") == 0) && ref))) {
    int env = rest[0] == 'e';   /* a variable by its name, or the item holding ref */
    long k = item_of(kf_node_get(tr, env ? "env" : rest), ref, env ? rest + 4 : NULL);
    if (k < 0) return snprintf(out, cap, "spec.trainer.%s", env ? "env" : rest), 1;
    return snprintf(out, cap, "spec.trainer.%s[%ld]%s", env ? "env" : rest, k,
                    env ? ".value" : ""), 1;
  }
  for (i = 0; tr && i < kf_container_obj.n; i++) {   /* spec.trainer's keys are the rows' */
    const char *k = kf_container_obj.f[i].key;
    n = strlen(k);
    if (strcmp(k, "name") != 0 && strncmp(rest, k, n) == 0 && (rest[n] == '\0' || rest[n] == '['))
      return template_rest("spec.trainer.", rest, out, cap);
  }
  return 0;
}

const char *kf_import_where(const kf_node *doc, int kind, const char *path, const char *ref,
                            kf_arena *A) {
  const char *api = kfi_str(kf_node_get(doc, "apiVersion")), *dot = strchr(path, '.');
  char out[KFI_PATH];
  int r, found = 0;
  if (api && strncmp(api, "trainer.kubeflow.org/", 21) == 0) {
    if (!trainer_at(doc, path, ref, out, sizeof out)) return path;
    found = 1;
  } else if (api == NULL || strncmp(api, "kubeflow.org/", 13) != 0 || kind < 0 || kind >= KF_NKINDS)
    return path;
  else if (strncmp(path, "container.", 10) == 0)
    found = job_container_at(doc, kind, path + 10, ref, out, sizeof out);
  else if (run_policy_at(path, out, sizeof out) || template_at(doc, kind, path, out, sizeof out) ||
           job_row_at(doc, kind, strcmp(api, "kubeflow.org/v2beta1") == 0, path, out, sizeof out))
    found = 1;
  if (!found && (r = role_key(path)) >= 0)
    found = group_at(doc, kind, r, dot + 1, ref, out, sizeof out);
  if (!found) return path;
  return kf_arena_strndup(A, out, strlen(out));
}

void kf_import_where_msg(const kf_node *doc, int kind, char *msg, size_t cap, kf_arena *A) {
  char *path = strstr(msg, ": "), *end, rest[KF_ERRMAX];
  const char *at;
  if (path == NULL || (end = strstr(path + 2, ": ")) == NULL) return;
  *end = '\0';
  at = kf_import_where(doc, kind, path + 2, NULL, A);
  *end = ':';
  if (at == NULL || strncmp(at, path + 2, (size_t)(end - path - 2)) == 0) return;
  kfi_problem0(rest, sizeof rest, end + 2);
  snprintf(path + 2, cap - (size_t)(path + 2 - msg), "%s: %s", at, rest);
}

/* ---- what lossy may leave out ------------------------------------------ */

/* The key of R23's "pod_template.spec.containers[N].KEY" (N from 1) that a
** TrainJob runs without: the kubelet's pull policy applies (core/v1
** defaults.go SetDefaults_Container), and a container port is a
** declaration that opens nothing ("not specifying a port here does not
** prevent that port from being exposed", core/v1 types.go Container.Ports).
** NULL: not one; *n gets N. */
static const char *container_key(const char *path, size_t *n) {
  static const char pre[] = "pod_template.spec.containers[";
  char *end;
  const char *k;
  if (strncmp(path, pre, sizeof pre - 1) != 0) return NULL;
  *n = (size_t)strtoul(path + sizeof pre - 1, &end, 10);
  if (*n == 0 || strncmp(end, "].", 2) != 0) return NULL;
  k = end + 2;
  return strcmp(k, "imagePullPolicy") == 0 || strcmp(k, "ports") == 0 ? k : NULL;
}

int kf_import_droppable(const kf_problem *p, kf_target t) {
  const char *dot = strchr(p->path, '.');
  size_t n;
  if (strcmp(p->rule, "R13") == 0) return dot != NULL && strcmp(dot, ".restart_policy") == 0;
  if (KF_T_IS_TRAINER(t) && strcmp(p->rule, "R23") == 0) return container_key(p->path, &n) != NULL;
  return KF_T_IS_TRAINER(t) && strcmp(p->rule, "R28") == 0 &&
         strncmp(p->path, "scheduling.gang.", 16) == 0;
}

/* A copy of object o whose key `k` is v (NULL: without it); NULL: no memory. */
static kf_node *obj_with(kf_arena *A, const kf_node *o, const char *k, kf_node *v) {
  kf_node *d = kf_node_new(A, KF_NOBJ);
  size_t i;
  if (d == NULL) return NULL;
  for (i = 0; i < o->u.c.n; i++) {
    kf_node *x = strcmp(o->u.c.k[i], k) == 0 ? v : o->u.c.v[i];
    if (x != NULL && !kf_node_push(A, d, o->u.c.k[i], x)) return NULL;
  }
  return d;
}

/* R23's container key (container_key) taken out of the job's pod template
** (a new tree: the read one may be shared); its value as compact JSON. */
static const char *drop_container_key(kf_job *j, const char *path, kf_arena *A, int *oom) {
  const kf_node *spec = kf_node_get(j->pod_template, "spec"), *cs = kf_node_get(spec, "containers");
  const kf_node *ct, *v;
  kf_node *arr, *nc, *ns, *nt;
  size_t n, i;
  const char *k = container_key(path, &n);
  kf_buf b;
  kf_err e;
  char *json;
  if (k == NULL || cs == NULL || cs->t != KF_NARR || n > cs->u.c.n) return NULL;
  if ((ct = cs->u.c.v[n - 1])->t != KF_NOBJ || (v = kf_node_get(ct, k)) == NULL) return NULL;
  kf_buf_init(&b, A->a);
  if (kf_node_to_json(v, -1, &b, &e) != KF_OK || (json = kf_arena_strndup(A, b.p, b.n)) == NULL) {
    kf_buf_free(&b);
    return *oom = 1, NULL;
  }
  kf_buf_free(&b);
  if ((arr = kf_node_new(A, KF_NARR)) == NULL) return *oom = 1, NULL;
  if ((nc = obj_with(A, ct, k, NULL)) == NULL) return *oom = 1, NULL;
  for (i = 0; i < cs->u.c.n; i++)
    if (!kf_node_push(A, arr, NULL, i == n - 1 ? nc : cs->u.c.v[i])) return *oom = 1, NULL;
  if ((ns = obj_with(A, spec, "containers", arr)) == NULL ||
      (nt = obj_with(A, j->pod_template, "spec", ns)) == NULL)
    return *oom = 1, NULL;
  j->pod_template = nt;
  return json;
}

/* Gang field `key` of j as compact JSON (an arena string), taken out of
** the job; NULL: not a field R28 names, or (*oom) no memory. */
static const char *drop_gang(kf_arena *A, kf_job *j, const char *key, int *oom) {
  kf_gang *g = &j->sched.gang;
  char *v = kf_arena_alloc(A, 64 + KF_NRES * 96 + (g->priority_class ? strlen(g->priority_class) : 0));
  size_t r, n = 0;
  if (v == NULL) return *oom = 1, NULL;
  if (strcmp(key, "min_available") == 0) {
    sprintf(v, "%ld", (long)g->min_available), g->min_available = 0;
  } else if (strcmp(key, "schedule_timeout_seconds") == 0) {
    sprintf(v, "%ld", (long)g->schedule_timeout_seconds), g->schedule_timeout_seconds = 0;
  } else if (strcmp(key, "priority_class") == 0 && g->priority_class) {
    sprintf(v, "\"%s\"", g->priority_class), g->priority_class = NULL;   /* a DNS subdomain */
  } else if (strcmp(key, "min_resources") == 0) {
    v[n++] = '{';
    for (r = 0; r < KF_NRES; r++)   /* quantities (checked): no quote to escape */
      if (g->min_resources[r])
        n += (size_t)sprintf(v + n, "%s\"%s\":\"%.80s\"", n > 1 ? "," : "",
                             kf_resources_obj.f[r].manifest, g->min_resources[r]),
        g->min_resources[r] = NULL;
    v[n++] = '}', v[n] = '\0';
    g->has_min_resources = 0;
  } else {
    return NULL;
  }
  return v;
}

const char *kf_import_drop(kf_job *j, const kf_problem *p, kf_arena *A, int *oom) {
  static const char *const rp_json[] = {"\"Never\"", "\"OnFailure\"", "\"Always\"",
                                        "\"ExitCode\""};
  const char *v;
  int r;
  if (strcmp(p->rule, "R28") == 0) return drop_gang(A, j, p->path + 16, oom);
  if (strcmp(p->rule, "R23") == 0) return drop_container_key(j, p->path, A, oom);
  if ((r = role_key(p->path)) < 0) return NULL;
  v = rp_json[j->g[r].restart_policy];
  j->g[r].restart_policy = KF_RP_NEVER;
  return v;
}

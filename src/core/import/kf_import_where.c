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
  n = snprintf(out, cap, "spec.%s.%s.template.spec.containers[%ld].%s", kf_kinds[kind].crd_specs,
               kf_roles[role].name, c, env ? "env" : f);
  if (k >= 0 && (ref || env))
    snprintf(out + n, cap - (size_t)n, "[%ld]%s", k, env && ref ? ".value" : "");
  return 1;
}

/* The job's container field f: the first of the kind's groups (kind
** order) whose container holds it, every group running the job's. */
static int job_container_at(const kf_node *doc, int kind, const char *f, const char *ref,
                            char *out, size_t cap) {
  const kf_kind_info *k = &kf_kinds[kind];
  int i, need;
  for (need = 1; need >= 0; need--)
    for (i = 0; i < k->nroles; i++)
      if (replica_spec(doc, kind, k->roles[i].role) &&
          container_at(doc, kind, k->roles[i].role, f, ref, need, out, cap))
        return 1;
  return 0;
}

/* A group row's path (`rest` after "<role>."): its replica spec's key, or
** its main container's. */
static int group_at(const kf_node *doc, int kind, int role, const char *rest, const char *ref,
                    char *out, size_t cap) {
  size_t i;
  if (strncmp(rest, "container.", 10) == 0)
    return container_at(doc, kind, role, rest + 10, ref, 0, out, cap);
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

/* A run policy row, or a gang field (spec.runPolicy.schedulingPolicy). */
static int run_policy_at(const char *path, char *out, size_t cap) {
  static const char *const gang[][2] = {
      {"min_available", "minAvailable"}, {"priority_class", "priorityClass"},
      {"schedule_timeout_seconds", "scheduleTimeoutSeconds"}, {"min_resources", "minResources"}};
  size_t i;
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

const char *kf_import_where(const kf_node *doc, int kind, const char *path, const char *ref,
                            kf_arena *A) {
  const char *api = kfi_str(kf_node_get(doc, "apiVersion")), *dot = strchr(path, '.');
  char out[KFI_PATH];
  int r, found = 0;
  if (api == NULL || strncmp(api, "kubeflow.org/", 13) != 0 || kind < 0 || kind >= KF_NKINDS)
    return path;
  if (strncmp(path, "container.", 10) == 0)
    found = job_container_at(doc, kind, path + 10, ref, out, sizeof out);
  else if (run_policy_at(path, out, sizeof out))
    found = 1;
  for (r = 0; !found && dot != NULL && r < KF_NROLES; r++)
    if (strncmp(kf_roles[r].key, path, (size_t)(dot - path)) == 0 &&
        kf_roles[r].key[dot - path] == '\0')
      found = group_at(doc, kind, r, dot + 1, ref, out, sizeof out);
  if (!found) return path;
  return kf_arena_strndup(A, out, strlen(out));
}

/* ---- what lossy may leave out ------------------------------------------ */

int kf_import_droppable(const kf_problem *p, kf_target t) {
  const char *dot = strchr(p->path, '.');
  if (strcmp(p->rule, "R13") == 0) return dot != NULL && strcmp(dot, ".restart_policy") == 0;
  return KF_T_IS_TRAINER(t) && strcmp(p->rule, "R28") == 0 &&
         strncmp(p->path, "scheduling.gang.", 16) == 0;
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
                             kf_resources_obj.f[r].key, g->min_resources[r]),
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
  const char *dot = strchr(p->path, '.'), *v;
  int r;
  if (strcmp(p->rule, "R28") == 0) return drop_gang(A, j, p->path + 16, oom);
  for (r = 0; r < KF_NROLES; r++)
    if (strncmp(kf_roles[r].key, p->path, (size_t)(dot - p->path)) == 0 &&
        kf_roles[r].key[dot - p->path] == '\0')
      break;
  if (r == KF_NROLES) return NULL;
  v = rp_json[j->g[r].restart_policy];
  j->g[r].restart_policy = KF_RP_NEVER;
  return v;
}

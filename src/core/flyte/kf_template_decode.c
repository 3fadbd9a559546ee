/*
** kf_template_decode.c - a flyteidl.core.TaskTemplate read back into a job
** and its report (info): the plugin message out of `custom` through the
** JSON path the backend uses, the container into the job's container.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_pb.h"
#include "kf_json.h"
#include "kf_template.h"
#include "kf_wire.h"
#include "kf_launcher.h"
#include "kf_sched.h"
#include "flyteidl/core/tasks.pb-c.h"
#include "flyteidl/core/identifier.pb-c.h"
#include "flyteidl/core/literals.pb-c.h"

/* ---- decoding --------------------------------------------------------- */

/* How many leading args are the job's launcher command (0: not wrapped),
** so info's args are the user's and task_template(info) gives the same
** bytes; -1 on allocation failure. */
static long launcher_prefix(const kf_job *j, const Flyteidl__Core__Container *c,
                            kf_arena *A) {
  kf_node *l;
  kf_err e;
  size_t i;
  if (!(kf_kinds[j->kind].flags & KF_K_COMMAND)) return 0;
  if (kf_launcher_command(j, NULL, A, &l, "", &e) != KF_OK) return e.code == KF_ENOMEM ? -1 : 0;
  if (c->n_args < l->u.c.n) return 0;
  for (i = 0; i < l->u.c.n; i++)
    if (strcmp(c->args[i], l->u.c.v[i]->u.s.p) != 0) return 0;
  return (long)l->u.c.n;
}

/* Kueue's labels read from the pod's metadata: they reach the job from
** the task on Flyte 2 alone (R30), so the template is Flyte 2's. */
static int flyte2_labels(const kf_job *j) {
  return j->has_scheduling &&
         (j->sched.queue || j->sched.priority_class || j->sched.max_exec_time);
}

/* info.config: the template's config, but for primary_container_name when
** the job writes a pod again (a pod template, Flyte 2's labels: task_spec
** and task_template write it there), so info fed back gives the same bytes. */
static int info_config(const Flyteidl__Core__TaskTemplate *t, const kf_job *j,
                       kf_node *info, kf_arena *A) {
  int pod = j->pod_template != NULL || flyte2_labels(j);
  kf_node *x = NULL;
  size_t i;
  for (i = 0; i < t->n_config; i++) {
    if (pod && strcmp(t->config[i]->key, "primary_container_name") == 0) continue;
    if (x == NULL && (x = kf_obj_add(A, info, "config", KF_NOBJ)) == NULL) return 0;
    if (!kf_obj_str(A, x, t->config[i]->key, t->config[i]->value)) return 0;
  }
  return 1;
}

static kf_node *info_node(const Flyteidl__Core__TaskTemplate *t, const kf_job *j,
                          kf_arena *A) {
  kf_node *info = kf_node_new(A, KF_NOBJ), *x;
  size_t i;
  int ok = info != NULL && kf_obj_str(A, info, "type", t->type) &&
           kf_obj_int(A, info, "version", t->task_type_version);
  if (ok && t->id) {
    ok = (x = kf_obj_add(A, info, "id", KF_NOBJ)) != NULL &&
         kf_obj_str(A, x, "project", t->id->project) &&
         kf_obj_str(A, x, "domain", t->id->domain) &&
         kf_obj_str(A, x, "name", t->id->name) &&
         kf_obj_str(A, x, "version", t->id->version);
  }
  if (ok && t->target_case == FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER &&
      t->container) {
    const Flyteidl__Core__Container *c = t->container;
    long skip = launcher_prefix(j, c, A);
    kf_node *l;
    ok = skip >= 0 && (x = kf_obj_add(A, info, "container", KF_NOBJ)) != NULL &&
         kf_obj_str(A, x, "image", c->image);
    if (ok && skip == 0 && (kf_kinds[j->kind].flags & KF_K_COMMAND)) {
      kf_node *b = kf_node_new(A, KF_NBOOL);   /* b->u.b = 0: args as they are */
      ok = b != NULL && kf_node_push(A, info, "wrap_launcher", b);
    }
    if (ok && c->n_command && (ok = (l = kf_obj_add(A, x, "command", KF_NARR)) != NULL))
      for (i = 0; ok && i < c->n_command; i++)
        ok = kf_node_push(A, l, NULL, kf_node_str(A, c->command[i], strlen(c->command[i])));
    if (ok && c->n_args > (size_t)skip && (ok = (l = kf_obj_add(A, x, "args", KF_NARR)) != NULL))
      for (i = (size_t)skip; ok && i < c->n_args; i++)
        ok = kf_node_push(A, l, NULL, kf_node_str(A, c->args[i], strlen(c->args[i])));
    if (ok && c->n_env && (ok = (l = kf_obj_add(A, x, "env", KF_NOBJ)) != NULL))
      for (i = 0; ok && i < c->n_env; i++)
        ok = kf_obj_str(A, l, c->env[i]->key, c->env[i]->value);
  }
  if (ok) ok = info_config(t, j, info, A);
  return ok ? info : NULL;
}

/* A list of n strings as a node (NULL: no memory). */
static kf_node *str_list(kf_arena *A, char *const *v, size_t n) {
  kf_node *l = kf_node_new(A, KF_NARR);
  size_t i;
  for (i = 0; l && i < n; i++)
    if (!kf_node_push(A, l, NULL, kf_node_str(A, v[i], strlen(v[i])))) return NULL;
  return l;
}

/* The container's env as the job holds it: a table of name = value when
** the names are sorted and unique (written back the same, sorted), else
** the {name, value} list in its order.  NULL: no memory. */
static kf_node *env_node(kf_arena *A, const Flyteidl__Core__Container *c) {
  kf_node *m = kf_node_new(A, KF_NOBJ), *l = kf_node_new(A, KF_NARR);
  size_t i;
  int sorted = 1;
  for (i = 0; m && l && i < c->n_env; i++) {
    const Flyteidl__Core__KeyValuePair *kv = c->env[i];
    kf_node *x = kf_obj_add(A, l, NULL, KF_NOBJ);
    sorted &= i == 0 || strcmp(c->env[i - 1]->key, kv->key) < 0;
    if (x == NULL || !kf_obj_str(A, x, "name", kv->key) || !kf_obj_str(A, x, "value", kv->value) ||
        !kf_obj_str(A, m, kv->key, kv->value))
      return NULL;
  }
  return sorted ? m : l;
}

/* The TaskTemplate's container is the job's (image, command, args,
** env; MPI's args without the launcher line info leaves out too): the job
** is built again from its spec with it, so the rows check it. */
static kf_status read_container(const Flyteidl__Core__TaskTemplate *t, kf_arena *A,
                                kf_job *j, const char *who, kf_err *e) {
  const Flyteidl__Core__Container *c = t->container;
  long skip;
  kf_node *spec, *ct;
  if (t->target_case != FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER || c == NULL)
    return KF_OK;
  if ((skip = launcher_prefix(j, c, A)) < 0 || (spec = kf_job_to_spec(j, A)) == NULL ||
      (ct = kf_node_new(A, KF_NOBJ)) == NULL)
    return kf_nomem(e);
  if ((c->image && c->image[0] && !kf_obj_str(A, ct, "image", c->image)) ||
      (c->n_command && !kf_node_push(A, ct, "command", str_list(A, c->command, c->n_command))) ||
      ((size_t)skip < c->n_args &&
       !kf_node_push(A, ct, "args", str_list(A, c->args + skip, c->n_args - (size_t)skip))) ||
      (c->n_env && !kf_node_push(A, ct, "env", env_node(A, c))))
    return kf_nomem(e);
  if (ct->u.c.n == 0) return KF_OK;
  if (!kf_node_put(A, spec, "container", ct)) return kf_nomem(e);
  return kf_job_from_spec(j->kind, spec, A, j, who, e);
}

/* Whether a v1 custom's replica specs use the `common` field (flyteidl
** kubeflow common.proto; replica_encoding = "common" writes it again). */
static int common_encoding(const kf_node *custom) {
  size_t i;
  for (i = 0; custom->t == KF_NOBJ && i < custom->u.c.n; i++)
    if (custom->u.c.v[i]->t == KF_NOBJ && kf_node_get(custom->u.c.v[i], "common")) return 1;
  return 0;
}

/* v0 MPI: the worker command comes from config, split on single spaces. */
static kf_status v0_worker_command(const Flyteidl__Core__TaskTemplate *t,
                                   kf_arena *A, kf_job *j, const char *who,
                                   kf_err *e) {
  size_t i, n = 1, k = 0;
  const char *v = NULL, *p;
  for (i = 0; i < t->n_config; i++)
    if (strcmp(t->config[i]->key, "worker_spec_command") == 0) v = t->config[i]->value;
  if (v == NULL) return KF_OK;
  for (p = v; *p; p++) n += *p == ' ';
  if (n > KF_MAX_ITEMS)
    return kf_fail(e, KF_EINVAL, "%s: config.worker_spec_command: list longer "
                   "than the limit of 4096 items", who);
  if ((j->g[KF_WORKER].command = kf_arena_alloc(A, n * sizeof(char *))) == NULL)
    return kf_nomem(e);
  for (p = v;; p++) {
    const char *q = strchr(p, ' ');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if ((j->g[KF_WORKER].command[k++] = kf_arena_strndup(A, p, len)) == NULL)
      return kf_nomem(e);
    if (q == NULL) break;
    p = q;
  }
  j->g[KF_WORKER].ncommand = k;
  return KF_OK;
}

kf_status kf_envelope_read(const char *p, size_t n,
                           const ProtobufCMessageDescriptor *d, kf_arena *A,
                           ProtobufCMessage **out, const char *who, kf_err *e) {
  size_t i = 0;
  kf_status st;
  while (i < n && strchr(" \t\r\n", p[i])) i++;
  if (i < n && p[i] == '{') {
    kf_node *root;
    if ((st = kf_json_parse(p, n, A, &root, e))) {
      if (st != KF_ENOMEM) {
        char tmp[KF_ERRMAX];
        memcpy(tmp, e->msg, sizeof tmp);
        kf_fail(e, st, "%s: %.480s", who, tmp);   /* KF_ELIMIT stays a limit */
      }
      return st;
    }
    /* envelope fields kfjob does not model are skipped, as in bytes; the
    ** custom inside is parsed strictly later */
    return kf_node_to_msg(root, d, 1, A, out, who, e);
  }
  st = kf_unpack(d, (const uint8_t *)p, n, who, A, out, e);
  if (st != KF_OK && (*out != NULL || st != KF_EINVAL)) return st;
  if (*out == NULL)
    return kf_fail(e, KF_EINVAL,
                   "%s: malformed %s (truncated bytes, a bad tag or a wrong wire "
                   "type)", who, d->name);
  return KF_OK;
}

kf_status kf_decode_task_template(const char *p, size_t n, int opt_kind,
                                  kf_arena *A, kf_job *j, kf_node **info,
                                  const char *who, kf_err *e) {
  Flyteidl__Core__TaskTemplate *t = NULL;
  kf_status st = kf_envelope_read(p, n, &flyteidl__core__task_template__descriptor, A,
                                  (ProtobufCMessage **)&t, who, e);
  if (st) return st;
  return kf_template_to_job(t, opt_kind, A, j, info, who, e);
}

/* The custom Struct as a node; errors name `who`.  An empty one (no
** field) is refused where kfjob never writes one (`empty_ok` 0: version 1
** and clustered tasks): Flyte registers such a task, and its backend fails
** it at run time (no workers, no replicas). */
static kf_status custom_node(const Flyteidl__Core__TaskTemplate *t, int empty_ok,
                             kf_arena *A, kf_node **out, const char *who, kf_err *e) {
  kf_status st;
  if (t->custom == NULL)
    return kf_fail(e, KF_EINVAL, "%s: custom: missing (nil Struct)", who);
  if ((st = kf_struct_to_node(t->custom, A, out)) != KF_OK)
    return st == KF_ELIMIT ? kf_fail(e, st, "%s: custom: nested deeper than %d levels",
                                     who, KF_MAX_DEPTH)
                           : kf_nomem(e);
  if (!empty_ok && (*out)->t == KF_NOBJ && (*out)->u.c.n == 0)
    return kf_fail(e, KF_EINVAL, "%s: custom: empty: a '%s' task without its plugin "
                   "message registers, then fails at run time (the backend finds no "
                   "replicas)", who, t->type);
  return KF_OK;
}

/* A Flyte 2 clustered task (flyte-sdk ClusteredTaskTemplate: type
** clustered-task, version 1): its ClusteredTaskSpec as an Elastic job, or
** the kind opts.kind names (PyTorchJob). */
static kf_status clustered_to_job(Flyteidl__Core__TaskTemplate *t, int opt_kind,
                                  kf_arena *A, kf_job *j, kf_node **info,
                                  const char *who, kf_err *e) {
  ProtobufCMessage *m;
  kf_node *custom;
  char cwho[128];
  int kind = opt_kind >= 0 ? opt_kind : KF_ELASTIC;
  kf_status st;
  if (t->task_type_version != KF_CLUSTERED_VERSION)
    return kf_fail(e, KF_EINVAL, "%s: unsupported task_type_version %d of type '%s' "
                   "(expected %d)", who, t->task_type_version, t->type, KF_CLUSTERED_VERSION);
  if (kind != KF_ELASTIC && kind != KF_PYTORCH)
    return kf_fail(e, KF_EINVAL, "%s: opts.kind: %s does not match type '%s' (Elastic or "
                   "PyTorchJob)", who, kf_kinds[kind].name, t->type);
  if ((st = custom_node(t, 0, A, &custom, who, e)) != KF_OK) return st;
  snprintf(cwho, sizeof cwho, "%s: custom", who);
  if ((st = kf_node_to_msg(custom, kf_clustered_desc, 0, A, &m, cwho, e)) ||
      (st = kf_clustered_job(m, kind, A, j, cwho, e)) ||
      (st = kf_pod_from_template(t, A, j, who, e)))   /* and the pod's scheduling */
    return st;
  if ((*info = info_node(t, j, A)) == NULL ||
      !kf_obj_strref(A, *info, "target", "flyte2-clustered"))
    return kf_nomem(e);
  return read_container(t, A, j, who, e);
}

kf_status kf_template_to_job(Flyteidl__Core__TaskTemplate *t, int opt_kind,
                             kf_arena *A, kf_job *j, kf_node **info,
                             const char *who, kf_err *e) {
  ProtobufCMessage *m;
  kf_node *custom;
  char cwho[128];  /* "<who>: custom" */
  int kind, version;
  kf_status st;
  if (t->type && strcmp(t->type, KF_CLUSTERED_TASK_TYPE) == 0)
    return clustered_to_job(t, opt_kind, A, j, info, who, e);
  version = t->task_type_version;
  if (version != 0 && version != 1)
    return kf_fail(e, KF_EINVAL,
                   "%s: unsupported task_type_version %d (expected 0 or 1)", who, version);
  if (strcmp(t->type, "python-task") == 0)
    return kf_fail(e, KF_EINVAL,
                   "%s: type 'python-task' carries no kubeflow config (an elastic "
                   "job with nnodes = 1 runs as a plain pod)", who);
  kind = kf_kind_for_task_type(t->type);
  if (kind < 0) return kf_unknown_task_type(who, t->type, e);
  if (opt_kind >= 0) {
    if (kf_kinds[opt_kind].task_type == NULL ||
        strcmp(kf_kinds[opt_kind].task_type, t->type) != 0)
      return kf_fail(e, KF_EINVAL, "%s: opts.kind: %s does not match type '%s'",
                     who, kf_kinds[opt_kind].name, t->type);
    kind = opt_kind;
  }
  /* version 0: a master-only PyTorchJob is {} (workers = 0) */
  if ((st = custom_node(t, version == 0, A, &custom, who, e)) != KF_OK) return st;
  snprintf(cwho, sizeof cwho, "%s: custom", who);
  if ((st = kf_node_to_msg(custom, version ? kf_kinds[kind].v1 : kf_kinds[kind].v0, 0,
                           A, &m, cwho, e)) ||
      (st = kf_job_from_msg(cwho, kind, m, version, A, j, e)))
    return st;
  if (version == 0 && (kf_kinds[j->kind].flags & KF_K_COMMAND) &&
      (st = v0_worker_command(t, A, j, who, e)))
    return st;
  /* kf_pod_tt.c; it takes the pod's topology and labels (SPEC §13) */
  if ((st = kf_pod_from_template(t, A, j, who, e)) != KF_OK) return st;
  /* Horovod's own values travel in the launcher line alone */
  if (t->target_case == FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER && t->container)
    kf_horovod_line_read(j, (const char *const *)t->container->args, t->container->n_args, A);
  if ((*info = info_node(t, j, A)) == NULL) return kf_nomem(e);
  if (flyte2_labels(j) && !kf_obj_strref(A, *info, "target", "flyte2"))   /* renders for it */
    return kf_nomem(e);
  if (version == 1 && common_encoding(custom) &&
      !kf_obj_strref(A, *info, "replica_encoding", "common"))
    return kf_nomem(e);
  if ((st = read_container(t, A, j, who, e))) return st;
  return KF_OK;
}

kf_status kf_from_json(const char *task_type, int kind, int version,
                       const kf_node *root, int allow_unknown, kf_arena *A,
                       kf_job *j, const char *who, kf_err *e) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(task_type, version);
  ProtobufCMessage *m;
  kf_status st;
  if (d == NULL) return kf_unknown_task_type(who, task_type, e);
  if (kind < 0) kind = kf_kind_for_task_type(task_type);
  if ((st = kf_node_to_msg(root, d, allow_unknown, A, &m, who, e)))
    return st;
  return kf_job_from_msg(who, kind, m, version, A, j, e);
}

kf_status kf_from_json_text(const char *task_type, int kind, int version,
                            const char *s, size_t n, kf_arena *A, kf_job *j,
                            int *done, const char *who, kf_err *e) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(task_type, version);
  ProtobufCMessage *m;
  *done = 0;
  /* an unknown task type is reported after the text's own errors */
  if (d == NULL || !kf_json_fast_msg(s, n, d, A, &m)) return KF_OK;
  *done = 1;
  if (kind < 0) kind = kf_kind_for_task_type(task_type);
  return kf_job_from_msg(who, kind, m, version, A, j, e);
}

/*
** kf_template.c - the flyteidl.core.TaskTemplate envelope: the plugin
** message travels as proto3 JSON inside `custom` (a Struct), exactly as
** flytekit registers it, and comes back out through the same JSON path
** the backend uses.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_options.h"
#include "kf_pb.h"
#include "kf_json.h"
#include "kf_template.h"
#include "kf_wire.h"
#include "kf_launcher.h"
#include "kf_sched.h"
#include "flyteidl/core/tasks.pb-c.h"
#include "flyteidl/core/identifier.pb-c.h"
#include "flyteidl/core/literals.pb-c.h"

/* ---- options (a node in the shape of the Lua opts table) -------------- */

/* A list of strings -> arena array. */
static kf_status opt_list(kf_arena *A, const kf_node *o, const char *key,
                          char ***out, size_t *n, const char *who, kf_err *e) {
  const kf_node *v = kf_node_get(o, key);
  size_t i;
  if (v == NULL || (v->t == KF_NOBJ && v->u.c.n == 0)) return KF_OK;
  if (v->t != KF_NARR)
    return kf_fail(e, KF_EINVAL, "%s: opts.container.%s: expected a list of strings",
                   who, key);
  if ((*out = kf_arena_alloc(A, v->u.c.n * sizeof(char *))) == NULL) return kf_nomem(e);
  for (i = 0; i < v->u.c.n; i++) {
    if (v->u.c.v[i]->t != KF_NSTR)
      return kf_fail(e, KF_EINVAL, "%s: opts.container.%s[%zu]: expected a string",
                     who, key, i + 1);
    if (kf_opt_bad_text(v->u.c.v[i]))
      return kf_fail(e, KF_EINVAL, "%s: opts.container.%s[%zu]: %s", who, key, i + 1,
                     kf_opt_bad_text(v->u.c.v[i]));
    (*out)[i] = (char *)v->u.c.v[i]->u.s.p;
  }
  *n = v->u.c.n;
  return KF_OK;
}

static kf_status build_id(kf_arena *A, const kf_node *o,
                          Flyteidl__Core__TaskTemplate *t, const char *who,
                          kf_err *e) {
  static const char *const known[] = {"project", "domain", "name", "version", NULL};
  Flyteidl__Core__Identifier *id;
  kf_status st;
  if ((st = kf_opt_check_known(o, "id", known, who, e))) return st;
  if ((id = kf_arena_alloc(A, sizeof *id)) == NULL) return kf_nomem(e);
  flyteidl__core__identifier__init(id);
  id->resource_type = FLYTEIDL__CORE__RESOURCE_TYPE__TASK;
  if ((st = kf_opt_string(o, "project", "id.", (const char **)&id->project, who, e)) ||
      (st = kf_opt_string(o, "domain", "id.", (const char **)&id->domain, who, e)) ||
      (st = kf_opt_string(o, "name", "id.", (const char **)&id->name, who, e)) ||
      (st = kf_opt_string(o, "version", "id.", (const char **)&id->version, who, e)))
    return st;
  t->id = id;
  return KF_OK;
}

static int env_cmp(const void *a, const void *b) {
  return strcmp((*(Flyteidl__Core__KeyValuePair *const *)a)->key,
                (*(Flyteidl__Core__KeyValuePair *const *)b)->key);
}

/* MPI and Horovod: the args become the launcher command around them, as
** flytekit's get_command wraps its entrypoint (FACTS 2.5, 2.6). */
static kf_status wrap_launcher(const kf_job *j, kf_arena *A,
                               Flyteidl__Core__Container *c, const char *who,
                               kf_err *e) {
  kf_strs args;
  kf_node *l;
  kf_status st;
  size_t i;
  args.v = (const char *const *)c->args;
  args.n = c->n_args;
  if ((st = kf_launcher_command(j, &args, A, &l, who, e))) return st;
  if ((c->args = kf_arena_alloc(A, l->u.c.n * sizeof *c->args)) == NULL) return kf_nomem(e);
  for (i = 0; i < l->u.c.n; i++) c->args[i] = (char *)l->u.c.v[i]->u.s.p;
  c->n_args = l->u.c.n;
  return KF_OK;
}

/* A repeated KeyValuePair field of a message: its array and its count. */
typedef struct kv_field {
  Flyteidl__Core__KeyValuePair ***env;
  size_t *n_env;
} kv_field;

/* A name = value table's entries as the container's env, sorted by name
** (Lua tables have no order); errors name <path>.NAME. */
static kf_status env_table(kf_arena *A, const kf_node *env, const char *path,
                           kv_field c, const char *who, kf_err *e) {
  Flyteidl__Core__KeyValuePair *kv = kf_arena_alloc(A, env->u.c.n * sizeof *kv);
  size_t n = env->u.c.n, i;
  *c.env = kf_arena_alloc(A, n * sizeof **c.env);
  if (kv == NULL || *c.env == NULL) return kf_nomem(e);
  for (i = 0; i < n; i++) {
    if (env->u.c.v[i]->t != KF_NSTR)
      return kf_fail(e, KF_EINVAL, "%s: %s.%s: expected a string", who, path, env->u.c.k[i]);
    if (kf_opt_bad_text(env->u.c.v[i]) || !kf_utf8_ok(env->u.c.k[i], strlen(env->u.c.k[i])))
      return kf_fail(e, KF_EINVAL, "%s: %s.%s: %s", who, path, env->u.c.k[i],
                     kf_opt_bad_text(env->u.c.v[i]) ? kf_opt_bad_text(env->u.c.v[i]) : "invalid UTF-8");
    flyteidl__core__key_value_pair__init(&kv[i]);
    kv[i].key = (char *)env->u.c.k[i];
    kv[i].value = (char *)env->u.c.v[i]->u.s.p;
    (*c.env)[i] = &kv[i];
  }
  /* qsort: n log n, where an insertion sort made 150 000 entries take
  ** minutes in one call */
  qsort(*c.env, n, sizeof **c.env, env_cmp);
  *c.n_env = n;
  return KF_OK;
}

/* The job's container.env list (checked EnvVars) as the container's
** name/value pairs, in order; a valueFrom cannot be one (the target's rules
** refuse it first). */
static kf_status env_list(kf_arena *A, const kf_node *env, const char *path,
                          kv_field c, const char *who, kf_err *e) {
  Flyteidl__Core__KeyValuePair *kv;
  size_t n = env->u.c.n, i;
  kv = kf_arena_alloc(A, n * sizeof *kv + 1);
  if (kv == NULL || (*c.env = kf_arena_alloc(A, n * sizeof **c.env + 1)) == NULL)
    return kf_nomem(e);
  for (i = 0; i < n; i++) {
    const kf_node *nm = kf_node_get(env->u.c.v[i], "name");
    const kf_node *v = kf_node_get(env->u.c.v[i], "value");
    if (kf_node_get(env->u.c.v[i], "valueFrom"))
      return kf_fail(e, KF_EINVAL, "%s: %s[%zu].valueFrom: the TaskTemplate "
                     "container's env is name/value pairs (flyteidl KeyValuePair)",
                     who, path, i + 1);
    flyteidl__core__key_value_pair__init(&kv[i]);
    kv[i].key = (char *)nm->u.s.p;
    kv[i].value = v ? (char *)v->u.s.p : (char *)"";
    (*c.env)[i] = &kv[i];
  }
  *c.n_env = n;
  return KF_OK;
}

/* The task container's place (KF_M_TASK_CONTAINER): the job's container
** rows placed there, each the core.Container field of its key. */
#define TASK_MSG (kf_places[KF_M_TASK_CONTAINER].msg)

/* Whether row f of the container at `base` has a value (the place's rows
** are strings, string lists and trees). */
static int row_set(const kf_field *f, const char *base) {
  if (f->type == KF_V_STRLIST) return *(const size_t *)(const void *)(base + f->off_n) != 0;
  return *(const void *const *)(const void *)(base + f->off) != NULL;
}

/* Row f of the job's container `jc` as its core.Container field of c, where
** the options left that field empty: a string, a repeated string, or name
** = value pairs (repeated KeyValuePair) from an env tree.  A row without a
** field of core.Container is refused with the place's rule (R34 says it
** first on Flyte's targets). */
static kf_status put_field(const kf_field *f, const kf_container *jc, kf_arena *A,
                           Flyteidl__Core__Container *c, const char *who, kf_err *e) {
  const ProtobufCFieldDescriptor *fd =
      protobuf_c_message_descriptor_get_field_by_name(TASK_MSG, f->key);
  const char *at = (const char *)jc + f->off;
  char *m = (char *)c, path[64];
  int rep;
  if (!row_set(f, (const char *)jc)) return KF_OK;
  if (fd == NULL)
    return kf_fail(e, KF_EINVAL, "%s: container.%s: cannot be expressed: %s", who,
                   f->key, kf_places[KF_M_TASK_CONTAINER].rule);
  rep = fd->label == PROTOBUF_C_LABEL_REPEATED;
  if (rep ? *(const size_t *)(const void *)(m + fd->quantifier_offset) != 0
          : (*(char **)(void *)(m + fd->offset) != NULL &&   /* init: the empty */
             *(char **)(void *)(m + fd->offset) != protobuf_c_empty_string))
    return KF_OK;   /* the call's */
  if (fd->type == PROTOBUF_C_TYPE_STRING && !rep && KF_V_ISSTR(f->type)) {
    *(char **)(void *)(m + fd->offset) = (char *)*(const char *const *)(const void *)at;
  } else if (fd->type == PROTOBUF_C_TYPE_STRING && f->type == KF_V_STRLIST) {
    *(size_t *)(void *)(m + fd->quantifier_offset) =
        *(const size_t *)(const void *)((const char *)jc + f->off_n);
    *(char ***)(void *)(m + fd->offset) = (char **)*(const char *const *const *)(const void *)at;
  } else if (rep && fd->descriptor == &flyteidl__core__key_value_pair__descriptor &&
             f->type == KF_V_TREE) {
    const kf_node *env = *(const kf_node *const *)(const void *)at;
    kv_field kv;
    kv.env = (Flyteidl__Core__KeyValuePair ***)(void *)(m + fd->offset);
    kv.n_env = (size_t *)(void *)(m + fd->quantifier_offset);
    snprintf(path, sizeof path, "container.%s", f->key);
    return env->t == KF_NOBJ ? env_table(A, env, path, kv, who, e)
                             : env_list(A, env, path, kv, who, e);
  } else {   /* a schema mistake */
    return kf_fail(e, KF_EINVAL, "%s: container.%s: no TaskTemplate writer for "
                   "this row's type", who, f->key);
  }
  return KF_OK;
}

/* What the job's container gives where the options do not: the rows of
** the task container's place, field by field. */
static kf_status job_container(const kf_job *j, kf_arena *A,
                               Flyteidl__Core__Container *c, const char *who, kf_err *e) {
  size_t i;
  kf_status st;
  if (!j->has_container) return KF_OK;
  for (i = 0; i < kf_container_obj.n; i++)
    if (kf_container_obj.f[i].place == KF_M_TASK_CONTAINER &&
        (st = put_field(&kf_container_obj.f[i], &j->container, A, c, who, e)) != KF_OK)
      return st;
  return KF_OK;
}

/* The task container: opts.container's fields, else the job's container's. */
static kf_status build_container(const kf_job *j, int wrap, kf_arena *A,
                                 const kf_node *o, Flyteidl__Core__TaskTemplate *t,
                                 const char *who, kf_err *e) {
  static const char *const known[] = {"image", "command", "args", "env", NULL};
  Flyteidl__Core__Container *c;
  const kf_node *env = kf_node_get(o, "env");
  kf_status st;
  if ((st = kf_opt_check_known(o, "container", known, who, e))) return st;
  if ((c = kf_arena_alloc(A, sizeof *c)) == NULL) return kf_nomem(e);
  flyteidl__core__container__init(c);
  if ((st = kf_opt_string(o, "image", "container.", (const char **)&c->image, who, e)) ||
      (st = opt_list(A, o, "command", &c->command, &c->n_command, who, e)) ||
      (st = opt_list(A, o, "args", &c->args, &c->n_args, who, e)))
    return st;
  if (env != NULL && env->t == KF_NOBJ && env->u.c.n > 0) {
    kv_field kv;
    kv.env = &c->env, kv.n_env = &c->n_env;
    if ((st = env_table(A, env, "opts.container.env", kv, who, e))) return st;
  } else if (env != NULL && !(env->t == KF_NOBJ || (env->t == KF_NARR && env->u.c.n == 0))) {
    return kf_fail(e, KF_EINVAL, "%s: opts.container.env: expected a table of name = value",
                   who);
  }
  if ((st = job_container(j, A, c, who, e))) return st;
  if (wrap && (kf_kinds[j->kind].flags & KF_K_COMMAND) &&
      (st = wrap_launcher(j, A, c, who, e)))
    return st;
  t->target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER;
  t->container = c;
  return KF_OK;
}

/* Whether the job's container gives the task container anything: a row
** of its place. */
static int has_job_container(const kf_job *j) {
  size_t i;
  for (i = 0; j->has_container && i < kf_container_obj.n; i++)
    if (kf_container_obj.f[i].place == KF_M_TASK_CONTAINER &&
        row_set(&kf_container_obj.f[i], (const char *)&j->container))
      return 1;
  return 0;
}

/* The config array is sized once for every entry it can get (the opts
** entries plus worker_spec_command), so n entries cost O(n) memory, not a
** copy per entry. */
static kf_status add_config(kf_arena *A, Flyteidl__Core__TaskTemplate *t,
                            size_t cap, const char *k, const char *v, kf_err *e) {
  Flyteidl__Core__TaskTemplate__ConfigEntry *ce = kf_arena_alloc(A, sizeof *ce);
  if (ce == NULL) return kf_nomem(e);
  if (t->config == NULL && (t->config = kf_arena_alloc(A, cap * sizeof *t->config)) == NULL)
    return kf_nomem(e);
  flyteidl__core__task_template__config_entry__init(ce);
  ce->key = (char *)k;
  ce->value = (char *)v;
  t->config[t->n_config++] = ce;
  return KF_OK;
}

/* One more entry after the sized ones (the pod settings' name): a copy. */
/* v0 carries an MPI worker command in config, split on single spaces by
** the backend, so arguments cannot contain one. */
static kf_status worker_spec_command(kf_arena *A, const kf_group *g,
                                     const char **out, const char *who,
                                     kf_err *e) {
  size_t i, len = 0;
  char *s;
  for (i = 0; i < g->ncommand; i++) {
    if (strchr(g->command[i], ' ') != NULL)
      return kf_fail(e, KF_EINVAL,
                     "%s: worker.command[%zu]: version 0 joins the command with "
                     "single spaces, so an argument cannot contain one ('%.40s')",
                     who, i + 1, g->command[i]);
    len += strlen(g->command[i]) + 1;
  }
  if ((s = kf_arena_alloc(A, len + 1)) == NULL) return kf_nomem(e);
  for (i = 0; i < g->ncommand; i++) {
    if (i) strcat(s, " ");
    strcat(s, g->command[i]);
  }
  *out = s;
  return KF_OK;
}

/* Registration fields flyteadmin requires (task_validator.go): every id
** field, and a non-empty image on the task container.  Without one in the
** options, a job whose every group has its own image gets the worker's (the
** backend overrides it per group anyway).  One message lists all that is
** missing. */
static kf_status check_registrable(const kf_job *j, Flyteidl__Core__TaskTemplate *t,
                                   const char *who, kf_err *e) {
  static const char *const idf[] = {"project", "domain", "name", "version"};
  const kf_kind_info *k = &kf_kinds[j->kind];
  char miss[KF_ERRMAX];
  size_t n = 0;
  int i, images = 1;
  miss[0] = '\0';
  for (i = 0; i < 4; i++) {
    const char *v = t->id == NULL ? NULL : i == 0 ? t->id->project : i == 1 ? t->id->domain
                                         : i == 2 ? t->id->name : t->id->version;
    if (v == NULL || v[0] == '\0')
      n += (size_t)snprintf(miss + n, sizeof miss - n, "%sopts.id.%s", n ? ", " : "", idf[i]);
  }
  for (i = 0; i < k->nroles; i++) {
    const kf_group *g = &j->g[k->roles[i].role];
    if (g->replicas > 0 && (g->image == NULL || g->image[0] == '\0')) images = 0;
  }
  if (t->container == NULL || t->container->image[0] == '\0') {
    if (!images || t->container == NULL)
      snprintf(miss + n, sizeof miss - n, "%sopts.container.image", n ? ", " : "");
    else
      t->container->image = (char *)j->g[KF_WORKER].image;
  }
  if (miss[0])
    return kf_fail(e, KF_EINVAL, "%s: missing registration fields: %s (flyteadmin "
                   "rejects a task without them)", who, miss);
  return KF_OK;
}

/* The task container: opts.container over the job's container; none when
** neither gives anything, but for task_spec (`spec`: always one). */
static kf_status task_container(const kf_job *j, int wrap, int spec, const kf_node *opts,
                                kf_arena *A, Flyteidl__Core__TaskTemplate *t,
                                const char *who, kf_err *e) {
  static const kf_node none = {KF_NOBJ, NULL, {0}};
  const kf_node *v = opts ? kf_node_get(opts, "container") : NULL;
  if (v == NULL && !spec && !has_job_container(j)) return KF_OK;
  return build_container(j, wrap, A, v ? v : &none, t, who, e);
}

/* task_spec's parts of the TaskTemplate: always a container, a
** registrable task, the interface and metadata (with flytekit's check of
** the cache key's ignored inputs). */
static kf_status spec_parts(const kf_job *j, int wrap, const kf_node *opts, kf_arena *A,
                            Flyteidl__Core__TaskTemplate *t, const char **description,
                            const char *who, kf_err *e) {
  kf_status st;
  size_t i;
  (void)wrap;
  if ((st = check_registrable(j, t, who, e)) ||
      (st = kf_interface_build(A, opts ? kf_node_get(opts, "interface") : NULL,
                               &t->interface, who, e)) ||
      (st = kf_metadata_build(A, opts ? kf_node_get(opts, "metadata") : NULL,
                              &t->metadata, description, who, e)))
    return st;
  /* flytekit: inputs the cache key ignores must be inputs */
  for (i = 0; i < t->metadata->n_cache_ignore_input_vars; i++) {
    const Flyteidl__Core__VariableMap *in = t->interface->inputs;
    const char *name = t->metadata->cache_ignore_input_vars[i];
    size_t x;
    for (x = 0; in && x < in->n_variables; x++)
      if (strcmp(in->variables[x]->key, name) == 0) break;
    if (in == NULL || x == in->n_variables)
      return kf_fail(e, KF_EINVAL, "%s: opts.metadata.cache.ignore_inputs[%zu]: '%.100s' "
                     "is not an input (opts.interface.inputs)", who, i + 1, name);
  }
  return KF_OK;
}

/* opts.config `v`: string values, each a config entry of t (room for
** *ncfg entries, grown by v's). */
static kf_status build_config(const kf_node *v, kf_arena *A, Flyteidl__Core__TaskTemplate *t,
                              size_t *ncfg, const char *who, kf_err *e) {
  kf_status st;
  size_t i;
  if (v->t != KF_NOBJ && !(v->t == KF_NARR && v->u.c.n == 0))
    return kf_fail(e, KF_EINVAL, "%s: opts.config: expected a table of key = value",
                   who);
  if (v->t == KF_NOBJ) *ncfg += v->u.c.n;
  for (i = 0; v->t == KF_NOBJ && i < v->u.c.n; i++) {
    if (v->u.c.v[i]->t != KF_NSTR)
      return kf_fail(e, KF_EINVAL, "%s: opts.config.%s: expected a string",
                     who, v->u.c.k[i]);
    if (kf_opt_bad_text(v->u.c.v[i]) || !kf_utf8_ok(v->u.c.k[i], strlen(v->u.c.k[i])))
      return kf_fail(e, KF_EINVAL, "%s: opts.config.%s: %s", who, v->u.c.k[i],
                     kf_opt_bad_text(v->u.c.v[i]) ? kf_opt_bad_text(v->u.c.v[i]) : "invalid UTF-8");
    if ((st = add_config(A, t, *ncfg, v->u.c.k[i], v->u.c.v[i]->u.s.p, e))) return st;
  }
  return KF_OK;
}

/* Builds the template; with `custom_out` the custom stays a node (for the
** direct Struct writer) instead of becoming Struct messages, or is not
** made at all with `no_custom` (the caller writes it from the job).  With
** `spec` (task_spec) it also takes interface and metadata, always sets
** both, and checks the registration fields; the description goes to
** *description. */
static kf_status build_template_of(const kf_job *j, const kf_encopts *o,
                                const kf_node *opts, int spec, kf_arena *A,
                                Flyteidl__Core__TaskTemplate **out,
                                kf_node **custom_out, int no_custom,
                                const char **description, const char *who,
                                kf_err *e) {
  /* the option rows of task_template / task_spec (kf_options.c) */
  const char *const *known = kf_option_names(spec ? KF_OPT_TASKSPEC : KF_OPT_TEMPLATE);
  Flyteidl__Core__TaskTemplate *t = kf_arena_alloc(A, sizeof *t);
  const kf_node *v;
  kf_status st;
  size_t i, ncfg = 1;   /* room for worker_spec_command */
  int wrap = 1;
  if ((st = kf_need_task_type(j->kind, who, e)) != KF_OK) return st;
  if (t == NULL) return kf_nomem(e);
  flyteidl__core__task_template__init(t);
  if (opts != NULL && (st = kf_opt_check_known(opts, "", known, who, e))) {
    /* "opts..x" -> "opts.x" for top-level keys */
    char *p = strstr(e->msg, "opts..");
    if (p) memmove(p + 5, p + 6, strlen(p + 6) + 1);
    return st;
  }
  /* flyte2-clustered: flyte-sdk's ClusteredTaskTemplate (_task.py) */
  t->type = o->clustered ? (char *)KF_CLUSTERED_TASK_TYPE : (char *)kf_task_type(j);
  t->task_type_version = o->clustered ? KF_CLUSTERED_VERSION : o->version;
  if (opts && (v = kf_node_get(opts, "wrap_launcher"))) {
    if (v->t != KF_NBOOL)
      return kf_fail(e, KF_EINVAL, "%s: opts.wrap_launcher: expected a boolean", who);
    wrap = v->u.b != 0;
  }
  if (opts && (v = kf_node_get(opts, "id")) && (st = build_id(A, v, t, who, e))) return st;
  if ((st = task_container(j, wrap, spec, opts, A, t, who, e))) return st;
  if (spec && (st = spec_parts(j, wrap, opts, A, t, description, who, e))) return st;
  if (opts && (v = kf_node_get(opts, "config")) &&
      (st = build_config(v, A, t, &ncfg, who, e)))
    return st;
  if (o->clustered || !kf_python_task(j)) {
    ProtobufCMessage *m;
    kf_node *custom;
    if (no_custom) {
      /* the caller writes custom straight from the job */
    } else if ((st = kf_job_to_msg(j, o, 1, A, &m, e))) {
      return st;
    } else if ((custom = kf_msg_to_node(m, A)) == NULL) {
      return kf_nomem(e);
    } else if (custom_out) {
      *custom_out = custom;
    } else if ((st = kf_node_to_struct(custom, A, &t->custom, e))) {
      return st;
    }
    if (o->version == 0 && (kf_kinds[j->kind].flags & KF_K_COMMAND) &&
        j->g[KF_WORKER].ncommand) {
      const char *cmd = NULL;
      for (i = 0; i < t->n_config; i++)
        if (strcmp(t->config[i]->key, "worker_spec_command") == 0)
          return kf_fail(e, KF_EINVAL,
                         "%s: opts.config.worker_spec_command: set by the job's "
                         "worker.command in version 0; give only one", who);
      if ((st = worker_spec_command(A, &j->g[KF_WORKER], &cmd, who, e)) ||
          (st = add_config(A, t, ncfg, "worker_spec_command", cmd, e)))
        return st;
    }
  }
  if ((st = kf_pod_to_template(j, A, t, who, e))) return st;  /* kf_pod_tt.c */
  kf_msg_sort_maps(&t->base);
  *out = t;
  return KF_OK;
}

/* The job's topology travels as its pod template's annotations (SPEC
** §13, kf_sched.c); the plugin message never changes. */
static kf_status build_template(const kf_job *j, const kf_encopts *o,
                                const kf_node *opts, int spec, kf_arena *A,
                                Flyteidl__Core__TaskTemplate **out,
                                kf_node **custom_out, int no_custom,
                                const char **description, const char *who,
                                kf_err *e) {
  kf_status st = kf_sched_template_in(j, A, &j, e);
  if (st != KF_OK) return st;
  return build_template_of(j, o, opts, spec, A, out, custom_out, no_custom,
                           description, who, e);
}

kf_status kf_task_template(const kf_job *j, const kf_encopts *o,
                           const kf_node *opts, kf_arena *A,
                           Flyteidl__Core__TaskTemplate **out,
                           const char *who, kf_err *e) {
  return build_template(j, o, opts, 0, A, out, NULL, 0, NULL, who, e);
}

static kf_status pack(const Flyteidl__Core__TaskTemplate *t, const kf_node *custom,
                      const kf_job *j, const kf_encopts *o, kf_arena *A,
                      kf_buf *out, kf_err *e);

kf_status kf_task_template_bytes(const kf_job *j, const kf_encopts *o,
                                 const kf_node *opts, kf_arena *A, kf_buf *out,
                                 const char *who, kf_err *e) {
  Flyteidl__Core__TaskTemplate *t;
  kf_node *custom = NULL;
  kf_status st;
  /* v1 custom straight from the job (kf_wire_job.c) when the kind has a plan */
  int direct = o->version == 1 && !o->clustered && !kf_python_task(j) &&
               kf_wire_job_struct(j, o->common, 5, NULL) == 1;
  if ((st = build_template(j, o, opts, 0, A, &t, &custom, direct, NULL, who, e))) return st;
  return pack(t, custom, direct ? j : NULL, o, A, out, e);
}

kf_status kf_template_build(const kf_job *j, const kf_encopts *o,
                            const kf_node *opts, int spec, kf_arena *A,
                            Flyteidl__Core__TaskTemplate **out, kf_node **custom,
                            const char **description, const char *who, kf_err *e) {
  return build_template(j, o, opts, spec, A, out, custom, 0, description, who, e);
}

kf_status kf_template_pack(const Flyteidl__Core__TaskTemplate *t,
                           const kf_node *custom, kf_arena *A, kf_buf *out,
                           kf_err *e) {
  return pack(t, custom, NULL, NULL, A, out, e);
}

/* Whether t holds nothing but its type, custom and task_type_version (the
** envelope of task_template() without options): pack then writes those
** itself, without the generic packer's passes over every field. */
static int bare_envelope(const Flyteidl__Core__TaskTemplate *t) {
  const ProtobufCMessageDescriptor *d = t->base.descriptor;
  unsigned i;
  if (t->base.n_unknown_fields) return 0;
  for (i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    /* the three at the numbers pack writes (protobuf-c's descriptor says) */
    if (f->offset == offsetof(Flyteidl__Core__TaskTemplate, type)) {
      if (f->id != 2 || f->type != PROTOBUF_C_TYPE_STRING) return 0;
      continue;
    }
    if (f->offset == offsetof(Flyteidl__Core__TaskTemplate, task_type_version)) {
      if (f->id != 7 || f->type != PROTOBUF_C_TYPE_INT32) return 0;
      continue;
    }
    if (f->offset == offsetof(Flyteidl__Core__TaskTemplate, custom)) continue;
    if (kf_field_present(f, &t->base)) return 0;
  }
  return 1;
}

#ifdef KF_CHECK_BOUNDS
/* Sanitizer and fuzz builds: what bare_envelope's fields were written as
** must be what the generic packer writes of m (skipped when it is out of
** memory: the allocation-failure harness runs these builds too). */
static void check_bare(const ProtobufCMessage *m, const char *bytes, size_t n, kf_arena *A) {
  kf_buf b;
  kf_err e;
  kf_buf_init(&b, A->a);
  if (kf_msg_pack_into(m, A, &b, &e) == KF_OK && (b.n != n || memcmp(b.p, bytes, n) != 0))
    abort();
  kf_buf_free(&b);
}
#endif

/* t in field-number order: fields 1-4, then custom (5) from the node
** `custom` or, with `j`, straight from the job (its kind has a plan, v1),
** then 6, 7, 9, 16, 17. */
static kf_status pack(const Flyteidl__Core__TaskTemplate *t, const kf_node *custom,
                      const kf_job *j, const kf_encopts *o, kf_arena *A,
                      kf_buf *out, kf_err *e) {
  Flyteidl__Core__TaskTemplate head, tail;
  kf_status st;
  uint8_t *w;
  size_t n = t->type ? strlen(t->type) : 0, start = out->n, head_end = 0, mid;
  int bare = j != NULL && t->custom == NULL && bare_envelope(t);
  if (bare) {   /* type = 2, then custom (5), task_type_version = 7 */
    if (!kf_buf_reserve(out, 16 + n)) return kf_nomem(e);
    w = (uint8_t *)out->p + out->n;
    if (n) {
      *w++ = 0x12;
      w = kf_varint_put(w, n);
      memcpy(w, t->type, n);
      w += n;
    }
    out->n = head_end = (size_t)((char *)w - out->p);
  }
  head = *t;
  head.target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET__NOT_SET;
  head.container = NULL;
  head.extended_resources = NULL;
  head.task_type_version = 0;
  head.n_config = 0;
  tail = *t;
  tail.id = NULL;
  tail.type = (char *)"";
  tail.metadata = NULL;
  tail.interface = NULL;
  tail.custom = NULL;
  if (!bare && (st = kf_msg_pack_into(&head.base, A, out, e))) return st;
  if (j != NULL) {
    size_t at = out->n;
    if (kf_wire_job_struct(j, o->common, 5, out) != 1) return kf_nomem(e);
#ifdef KF_CHECK_BOUNDS  /* sanitizer and fuzz builds: the tree's bytes */
    {
      ProtobufCMessage *m;
      size_t n = out->n - at;
      char *mine = kf_arena_alloc_raw(A, n + 1);
      if (mine == NULL) return kf_nomem(e);
      memcpy(mine, out->p + at, n);
      out->n = at;
      if ((st = kf_job_to_msg(j, o, 1, A, &m, e)) != KF_OK) return st;
      if ((custom = kf_msg_to_node(m, A)) == NULL) return kf_nomem(e);
      if ((st = kf_struct_pack_field(5, custom, A, out, e)) != KF_OK) return st;
      if (out->n - at != n || memcmp(out->p + at, mine, n) != 0) abort();
    }
#else
    (void)at;
#endif
  } else if (custom != NULL &&
             (st = kf_struct_pack_field(5, custom, A, out, e))) {  /* custom = 5 */
    return st;
  }
  if (bare) {
    mid = out->n;
    if (t->task_type_version != 0) {
      if (!kf_buf_reserve(out, 11)) return kf_nomem(e);
      w = (uint8_t *)out->p + out->n;
      *w++ = 0x38;
      w = kf_varint_put(w, (uint64_t)(int64_t)t->task_type_version);
      out->n = (size_t)((char *)w - out->p);
    }
#ifdef KF_CHECK_BOUNDS
    check_bare(&head.base, out->p + start, head_end - start, A);
    check_bare(&tail.base, out->p + mid, out->n - mid, A);
#else
    (void)start, (void)head_end, (void)mid;
#endif
    return KF_OK;
  }
  return kf_msg_pack_into(&tail.base, A, out, e);
}


/*
** kf_template.c - the flyteidl.core.TaskTemplate envelope: the plugin
** message travels as proto3 JSON inside `custom` (a Struct), exactly as
** flytekit registers it, and comes back out through the same JSON path
** the backend uses.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"
#include "kf_json.h"
#include "kf_template.h"
#include "kf_wire.h"
#include "flyteidl/core/tasks.pb-c.h"
#include "flyteidl/core/identifier.pb-c.h"
#include "flyteidl/core/literals.pb-c.h"

/* ---- options (a node in the shape of the Lua opts table) -------------- */

/* Option strings become proto3 strings: no NUL bytes, valid UTF-8. */
static const char *bad_text(const kf_node *v) {
  if (v->u.s.n > KF_MAX_STRING) return "string longer than the limit of 1 MiB";
  if (strlen(v->u.s.p) != v->u.s.n) return "string contains a NUL byte";
  if (!kf_utf8_ok(v->u.s.p, v->u.s.n)) return "invalid UTF-8";
  return NULL;
}

static kf_status opt_string(const kf_node *o, const char *key, const char *path,
                            const char **out, const char *who, kf_err *e) {
  const kf_node *v = kf_node_get(o, key);
  if (v == NULL) return KF_OK;
  if (v->t != KF_NSTR)
    return kf_fail(e, KF_EINVAL, "%s: opts.%s%s: expected a string", who, path,
                   key);
  if (bad_text(v))
    return kf_fail(e, KF_EINVAL, "%s: opts.%s%s: %s", who, path, key,
                   bad_text(v));
  *out = v->u.s.p;
  return KF_OK;
}

static kf_status check_known(const kf_node *o, const char *path,
                             const char *const *known, const char *who,
                             kf_err *e) {
  size_t i, j;
  if (o->t != KF_NOBJ && !(o->t == KF_NARR && o->u.c.n == 0))
    return kf_fail(e, KF_EINVAL, "%s: opts.%s: expected a table", who, path);
  for (i = 0; o->t == KF_NOBJ && i < o->u.c.n; i++) {
    for (j = 0; known[j]; j++)
      if (strcmp(known[j], o->u.c.k[i]) == 0) break;
    if (!known[j]) {
      const char *s = kf_suggest(o->u.c.k[i], known);
      return kf_fail(e, KF_EINVAL, "%s: opts.%s.%s: unknown option%s%s%s", who, path,
                     o->u.c.k[i], s ? " (did you mean '" : "", s ? s : "",
                     s ? "'?)" : "");
    }
  }
  return KF_OK;
}

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
    if (bad_text(v->u.c.v[i]))
      return kf_fail(e, KF_EINVAL, "%s: opts.container.%s[%zu]: %s", who, key, i + 1,
                     bad_text(v->u.c.v[i]));
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
  if ((st = check_known(o, "id", known, who, e))) return st;
  if ((id = kf_arena_alloc(A, sizeof *id)) == NULL) return kf_nomem(e);
  flyteidl__core__identifier__init(id);
  id->resource_type = FLYTEIDL__CORE__RESOURCE_TYPE__TASK;
  if ((st = opt_string(o, "project", "id.", (const char **)&id->project, who, e)) ||
      (st = opt_string(o, "domain", "id.", (const char **)&id->domain, who, e)) ||
      (st = opt_string(o, "name", "id.", (const char **)&id->name, who, e)) ||
      (st = opt_string(o, "version", "id.", (const char **)&id->version, who, e)))
    return st;
  t->id = id;
  return KF_OK;
}

static int env_cmp(const void *a, const void *b) {
  return strcmp((*(Flyteidl__Core__KeyValuePair *const *)a)->key,
                (*(Flyteidl__Core__KeyValuePair *const *)b)->key);
}

static kf_status build_container(kf_arena *A, const kf_node *o,
                                 Flyteidl__Core__TaskTemplate *t,
                                 const char *who, kf_err *e) {
  static const char *const known[] = {"image", "command", "args", "env", NULL};
  Flyteidl__Core__Container *c;
  const kf_node *env = kf_node_get(o, "env");
  kf_status st;
  size_t i;
  if ((st = check_known(o, "container", known, who, e))) return st;
  if ((c = kf_arena_alloc(A, sizeof *c)) == NULL) return kf_nomem(e);
  flyteidl__core__container__init(c);
  if ((st = opt_string(o, "image", "container.", (const char **)&c->image, who, e)) ||
      (st = opt_list(A, o, "command", &c->command, &c->n_command, who, e)) ||
      (st = opt_list(A, o, "args", &c->args, &c->n_args, who, e)))
    return st;
  if (env != NULL && env->t == KF_NOBJ && env->u.c.n > 0) {
    Flyteidl__Core__KeyValuePair *kv = kf_arena_alloc(A, env->u.c.n * sizeof *kv);
    size_t n = env->u.c.n;
    c->env = kf_arena_alloc(A, n * sizeof *c->env);
    if (kv == NULL || c->env == NULL) return kf_nomem(e);
    for (i = 0; i < n; i++) {
      if (env->u.c.v[i]->t != KF_NSTR)
        return kf_fail(e, KF_EINVAL, "%s: opts.container.env.%s: expected a string",
                       who, env->u.c.k[i]);
      if (bad_text(env->u.c.v[i]) || !kf_utf8_ok(env->u.c.k[i], strlen(env->u.c.k[i])))
        return kf_fail(e, KF_EINVAL, "%s: opts.container.env.%s: %s", who, env->u.c.k[i],
                       bad_text(env->u.c.v[i]) ? bad_text(env->u.c.v[i]) : "invalid UTF-8");
      flyteidl__core__key_value_pair__init(&kv[i]);
      kv[i].key = (char *)env->u.c.k[i];
      kv[i].value = (char *)env->u.c.v[i]->u.s.p;
      c->env[i] = &kv[i];
    }
    /* sorted by name: Lua tables have no order (qsort: n log n, where an
    ** insertion sort made 150 000 entries take minutes in one call) */
    qsort(c->env, n, sizeof *c->env, env_cmp);
    c->n_env = n;
  } else if (env != NULL && !(env->t == KF_NOBJ || (env->t == KF_NARR && env->u.c.n == 0))) {
    return kf_fail(e, KF_EINVAL, "%s: opts.container.env: expected a table of name = value",
                   who);
  }
  t->target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET_CONTAINER;
  t->container = c;
  return KF_OK;
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

/* Builds the template; with `custom_out` the custom stays a node (for the
** direct Struct writer) instead of becoming Struct messages. */
/* custom_out NULL: custom into t->custom; else the tree into *custom_out,
** or nothing at all with `no_custom` (the caller writes it). */
static kf_status build_template(const kf_job *j, const kf_encopts *o,
                                const kf_node *opts, kf_arena *A,
                                Flyteidl__Core__TaskTemplate **out,
                                kf_node **custom_out, int no_custom,
                                const char *who, kf_err *e) {
  static const char *const known[] = {"version", "replica_encoding", "format",
                                      "indent", "id", "container", "config", NULL};
  Flyteidl__Core__TaskTemplate *t = kf_arena_alloc(A, sizeof *t);
  const kf_node *v;
  kf_status st;
  size_t i, ncfg = 1;   /* room for worker_spec_command */
  if (t == NULL) return kf_nomem(e);
  flyteidl__core__task_template__init(t);
  if (opts != NULL && (st = check_known(opts, "", known, who, e))) {
    /* "opts..x" -> "opts.x" for top-level keys */
    char *p = strstr(e->msg, "opts..");
    if (p) memmove(p + 5, p + 6, strlen(p + 6) + 1);
    return st;
  }
  t->type = (char *)kf_task_type(j);
  t->task_type_version = o->version;
  if (opts && (v = kf_node_get(opts, "id")) && (st = build_id(A, v, t, who, e))) return st;
  if (opts && (v = kf_node_get(opts, "container")) && (st = build_container(A, v, t, who, e)))
    return st;
  if (opts && (v = kf_node_get(opts, "config"))) {
    if (v->t != KF_NOBJ && !(v->t == KF_NARR && v->u.c.n == 0))
      return kf_fail(e, KF_EINVAL, "%s: opts.config: expected a table of key = value",
                     who);
    if (v->t == KF_NOBJ) ncfg += v->u.c.n;
    for (i = 0; v->t == KF_NOBJ && i < v->u.c.n; i++) {
      if (v->u.c.v[i]->t != KF_NSTR)
        return kf_fail(e, KF_EINVAL, "%s: opts.config.%s: expected a string",
                       who, v->u.c.k[i]);
      if (bad_text(v->u.c.v[i]) || !kf_utf8_ok(v->u.c.k[i], strlen(v->u.c.k[i])))
        return kf_fail(e, KF_EINVAL, "%s: opts.config.%s: %s", who, v->u.c.k[i],
                       bad_text(v->u.c.v[i]) ? bad_text(v->u.c.v[i]) : "invalid UTF-8");
      if ((st = add_config(A, t, ncfg, v->u.c.k[i], v->u.c.v[i]->u.s.p, e))) return st;
    }
  }
  if (!kf_python_task(j)) {
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

kf_status kf_task_template(const kf_job *j, const kf_encopts *o,
                           const kf_node *opts, kf_arena *A,
                           Flyteidl__Core__TaskTemplate **out,
                           const char *who, kf_err *e) {
  return build_template(j, o, opts, A, out, NULL, 0, who, e);
}

kf_status kf_task_template_bytes(const kf_job *j, const kf_encopts *o,
                                 const kf_node *opts, kf_arena *A, kf_buf *out,
                                 const char *who, kf_err *e) {
  Flyteidl__Core__TaskTemplate *t, head, tail;
  kf_node *custom = NULL;
  kf_status st;
  /* v1 custom straight from the job (kf_wire_job.c) when the kind has a plan */
  int direct = o->version == 1 && !kf_python_task(j) && kf_wire_job_struct(j, o->common, 5, NULL) == 1;
  if ((st = build_template(j, o, opts, A, &t, &custom, direct, who, e))) return st;
  /* fields 1-2, then custom (5), then 6, 7, 9, 16, 17: in number order */
  head = *t;
  head.target_case = FLYTEIDL__CORE__TASK_TEMPLATE__TARGET__NOT_SET;
  head.container = NULL;
  head.extended_resources = NULL;
  head.task_type_version = 0;
  head.n_config = 0;
  tail = *t;
  tail.id = NULL;
  tail.type = (char *)"";
  if ((st = kf_msg_pack_into(&head.base, A, out, e))) return st;
  if (direct) {
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
  return kf_msg_pack_into(&tail.base, A, out, e);
}

/* ---- decoding --------------------------------------------------------- */

static kf_node *info_node(const Flyteidl__Core__TaskTemplate *t, kf_arena *A) {
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
    kf_node *l;
    ok = (x = kf_obj_add(A, info, "container", KF_NOBJ)) != NULL &&
         kf_obj_str(A, x, "image", c->image);
    if (ok && c->n_command && (ok = (l = kf_obj_add(A, x, "command", KF_NARR)) != NULL))
      for (i = 0; ok && i < c->n_command; i++)
        ok = kf_node_push(A, l, NULL, kf_node_str(A, c->command[i], strlen(c->command[i])));
    if (ok && c->n_args && (ok = (l = kf_obj_add(A, x, "args", KF_NARR)) != NULL))
      for (i = 0; ok && i < c->n_args; i++)
        ok = kf_node_push(A, l, NULL, kf_node_str(A, c->args[i], strlen(c->args[i])));
    if (ok && c->n_env && (ok = (l = kf_obj_add(A, x, "env", KF_NOBJ)) != NULL))
      for (i = 0; ok && i < c->n_env; i++)
        ok = kf_obj_str(A, l, c->env[i]->key, c->env[i]->value);
  }
  if (ok && t->n_config && (ok = (x = kf_obj_add(A, info, "config", KF_NOBJ)) != NULL))
    for (i = 0; ok && i < t->n_config; i++)
      ok = kf_obj_str(A, x, t->config[i]->key, t->config[i]->value);
  return ok ? info : NULL;
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

kf_status kf_decode_task_template(const char *p, size_t n, int opt_kind,
                                  kf_arena *A, kf_job *j, kf_node **info,
                                  const char *who, kf_err *e) {
  Flyteidl__Core__TaskTemplate *t;
  ProtobufCMessage *m;
  kf_node *custom;
  char cwho[128];  /* "<who>: custom" */
  size_t i = 0;
  int kind, version;
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
    ** custom inside is parsed strictly below */
    if ((st = kf_node_to_msg(root, &flyteidl__core__task_template__descriptor, 1,
                             A, (ProtobufCMessage **)&t, who, e)))
      return st;
  } else {
    st = kf_unpack(&flyteidl__core__task_template__descriptor, (const uint8_t *)p,
                   n, who, A, (ProtobufCMessage **)&t, e);
    if (st != KF_OK && (t != NULL || st != KF_EINVAL)) return st;
    if (t == NULL)
      return kf_fail(e, KF_EINVAL,
                     "%s: malformed flyteidl.core.TaskTemplate (truncated bytes, "
                     "a bad tag or a wrong wire type)", who);
  }
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
    if (strcmp(kf_kinds[opt_kind].task_type, t->type) != 0)
      return kf_fail(e, KF_EINVAL, "%s: opts.kind: %s does not match type '%s'",
                     who, kf_kinds[opt_kind].name, t->type);
    kind = opt_kind;
  }
  if (t->custom == NULL)
    return kf_fail(e, KF_EINVAL, "%s: custom: missing (nil Struct)", who);
  if ((st = kf_struct_to_node(t->custom, A, &custom)) != KF_OK)
    return st == KF_ELIMIT ? kf_fail(e, st, "%s: custom: nested deeper than %d levels",
                                     who, KF_MAX_DEPTH)
                           : kf_nomem(e);
  snprintf(cwho, sizeof cwho, "%s: custom", who);
  if ((st = kf_node_to_msg(custom, version ? kf_kinds[kind].v1 : kf_kinds[kind].v0, 0,
                           A, &m, cwho, e)) ||
      (st = kf_job_from_msg(cwho, kind, m, version, A, j, e)))
    return st;
  if (version == 0 && (kf_kinds[j->kind].flags & KF_K_COMMAND) &&
      (st = v0_worker_command(t, A, j, who, e)))
    return st;
  if ((st = kf_pod_from_template(t, A, j, who, e))) return st;  /* kf_pod_tt.c */
  if ((*info = info_node(t, A)) == NULL) return kf_nomem(e);
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

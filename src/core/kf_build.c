/*
** kf_spec.c - constructor-shaped value tree -> validated job, and back.
**
** All messages read "<ctor>: <path>: <problem>".  Objects are checked for
** unknown keys before their fields, fields in schema order, so the first
** error reported does not depend on table iteration order.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_core.h"

typedef struct ctx {
  kf_arena *A;
  kf_err *e;
  const char *ctor;
  const char *prefix;     /* path of the object being read, or "" */
  size_t n;               /* path segments below it */
  struct { const char *key; size_t idx; } seg[KF_MAX_DEPTH];
} ctx;

static void ctx_init(ctx *c, kf_arena *A, kf_err *e, const char *ctor,
                     const char *prefix) {
  c->A = A;
  c->e = e;
  c->ctor = ctor;
  c->prefix = prefix;
  c->n = 0;
}

/* The path is a stack of segments, written out only when an error needs
** it: formatting on every field costs more than the whole conversion. */
static size_t push(ctx *c, const char *key) {
  if (c->n < KF_MAX_DEPTH) c->seg[c->n].key = key, c->seg[c->n].idx = 0;
  return c->n++;
}
static size_t push_index(ctx *c, size_t i) {
  if (c->n < KF_MAX_DEPTH) c->seg[c->n].key = NULL, c->seg[c->n].idx = i;
  return c->n++;
}
static void pop(ctx *c, size_t n) { c->n = n; }

static void format_path(const ctx *c, char *out, size_t cap) {
  size_t i, l;
  snprintf(out, cap, "%s", c->prefix);
  for (i = 0; i < c->n && i < KF_MAX_DEPTH; i++) {
    l = strlen(out);
    if (c->seg[i].key == NULL)
      snprintf(out + l, cap - l, "[%zu]", c->seg[i].idx);
    else
      snprintf(out + l, cap - l, "%s%s", l ? "." : "",
               c->seg[i].key[0] ? c->seg[i].key : "''");
  }
}

static kf_status fail(ctx *c, const char *fmt, const char *a, const char *b) {
  char problem[300], path[256];
  snprintf(problem, sizeof problem, fmt, a, b);
  format_path(c, path, sizeof path);
  if (path[0])
    return kf_fail(c->e, KF_EINVAL, "%s: %s: %s", c->ctor, path, problem);
  return kf_fail(c->e, KF_EINVAL, "%s: %s", c->ctor, problem);
}

static const char *type_name(const kf_node *n) {
  static const char *const names[] = {"nil", "boolean", "number", "number",
                                      "string", "a list",
                                      "a table with named fields"};
  if (n->tag != NULL) return n->tag;
  return names[n->t];
}

/* Match an object's keys against `known` (NULL-terminated, at most
** KF_MAX_KNOWN): slots[i] gets the value of known[i] or NULL.  Unknown keys
** are rejected, smallest first, with a suggestion.  One pass, and the
** first character filters most comparisons. */
#define KF_MAX_KNOWN 24
static kf_status match_keys(ctx *c, const kf_node *obj,
                            const char *const *known, const kf_node **slots) {
  const char *bad = NULL;
  size_t i, j;
  for (j = 0; known[j] != NULL; j++) slots[j] = NULL;
  for (i = 0; obj->t == KF_NOBJ && i < obj->u.c.n; i++) {
    const char *k = obj->u.c.k[i];
    for (j = 0; known[j] != NULL; j++)
      if (known[j][0] == k[0] && (k[0] == '\0' || (known[j][1] == k[1] &&
          (k[1] == '\0' || known[j][2] == k[2]))) && strcmp(known[j], k) == 0)
        break;
    if (known[j] != NULL) slots[j] = obj->u.c.v[i];
    else if (bad == NULL || strcmp(k, bad) < 0) bad = k;
  }
  if (bad != NULL) {
    const char *sg = kf_suggest(bad, known);
    size_t n = push(c, bad);
    kf_status st = sg ? fail(c, "unknown field (did you mean '%s'?)", sg, "")
                      : fail(c, "unknown field", "", "");
    pop(c, n);
    return st;
  }
  return KF_OK;
}

static kf_status want_object(ctx *c, const kf_node *n, const char *tag,
                             const char *what) {
  /* tags are "kfjob.<Name>" */
  if (n->t == KF_NOBJ && (n->tag == NULL || tag == NULL ||
                          (strncmp(n->tag, "kfjob.", 6) == 0 &&
                           strcmp(n->tag + 6, tag) == 0)))
    return KF_OK;
  if (n->t == KF_NARR && n->u.c.n == 0) return KF_OK; /* {} from Lua */
  {
    char w[80];  /* `what` may name the tag: "a kfjob.%s or a table" */
    snprintf(w, sizeof w, what, tag ? tag : "");
    return fail(c, "expected %s, got %s", w, type_name(n));
  }
}

/* Integer (or integral float) within [lo, INT32_MAX]. */
static kf_status get_int(ctx *c, const kf_node *n, int64_t lo, int32_t *out) {
  char buf[40];
  int64_t v;
  if (n->t == KF_NINT) {
    v = n->u.i;
  } else if (n->t == KF_NNUM) {
    double d = n->u.d;
    if (!(d == floor(d)) || fabs(d) > 9.2e18) {
      kf_format_number(d, buf);
      if (isnan(d)) strcpy(buf, "nan");
      else if (isinf(d)) strcpy(buf, d > 0 ? "inf" : "-inf");
      return fail(c, "expected an integer, got %s", buf, "");
    }
    v = (int64_t)d;
  } else {
    return fail(c, "expected an integer, got %s", type_name(n), "");
  }
  if (v > INT32_MAX || v < INT32_MIN) {
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return fail(c, "integer out of int32 range (%s)", buf, "");
  }
  if (v < lo) {
    char lob[24];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    snprintf(lob, sizeof lob, "%lld", (long long)lo);
    return fail(c, "must be >= %s (got %s)", lob, buf);
  }
  *out = (int32_t)v;
  return KF_OK;
}

static kf_status get_str(ctx *c, const kf_node *n, int token,
                         const char **out) {
  if (n->t != KF_NSTR)
    return fail(c, "expected a string, got %s", type_name(n), "");
  if (n->u.s.n > KF_MAX_STRING)
    return fail(c, "string longer than the limit of 1 MiB", "", "");
  if (strlen(n->u.s.p) != n->u.s.n)
    return fail(c, "string contains a NUL byte", "", "");
  if (!kf_utf8_ok(n->u.s.p, n->u.s.n)) return fail(c, "invalid UTF-8", "", "");
  if (token) {
    size_t i;
    if (n->u.s.n == 0) return fail(c, "must not be empty", "", "");
    for (i = 0; i < n->u.s.n; i++) {
      unsigned char ch = (unsigned char)n->u.s.p[i];
      if (ch == ' ' || (ch >= '\t' && ch <= '\r'))
        return fail(c, "must not contain whitespace", "", "");
    }
  }
  *out = n->u.s.p;
  return KF_OK;
}

static kf_status get_enum(ctx *c, const kf_node *n, int (*parse)(const char *),
                          const char *what, const char *choices, int *out) {
  int v = -1;
  if (n->t == KF_NNUM && !(n->u.d == floor(n->u.d))) {
    char buf[32];
    kf_format_number(n->u.d, buf);
    return fail(c, what, buf, choices);
  }
  if (n->t == KF_NINT || (n->t == KF_NNUM && n->u.d == floor(n->u.d))) {
    /* a float beyond int64 would overflow the cast: out of range anyway */
    int64_t i = n->t == KF_NINT ? n->u.i : fabs(n->u.d) < 9e18 ? (int64_t)n->u.d : -1;
    if (i >= 0 && i <= 2) v = (int)i;
    if (v < 0) {
      char buf[24];
      snprintf(buf, sizeof buf, "%lld", (long long)i);
      return fail(c, what, buf, choices);
    }
  } else if (n->t == KF_NSTR) {
    v = parse(n->u.s.p);
    if (v < 0) {
      char q[80];
      snprintf(q, sizeof q, "'%.60s'", n->u.s.p);
      return fail(c, what, q, choices);
    }
  } else {
    return fail(c, "expected a string, got %s", type_name(n), "");
  }
  *out = v;
  return KF_OK;
}

static kf_status get_quantity(ctx *c, const kf_node *n, const char **out) {
  char buf[32];
  if (n->t == KF_NSTR && n->u.s.n > KF_MAX_STRING)
    return fail(c, "string longer than the limit of 1 MiB", "", "");
  if (n->t == KF_NSTR) {
    if (!kf_quantity_ok(n->u.s.p, n->u.s.n)) {
      char q[80];
      snprintf(q, sizeof q, "'%.60s'", n->u.s.p);
      return fail(c, "invalid quantity %s (expected e.g. \"500m\", \"4Gi\", \"2\")",
                  q, "");
    }
    *out = n->u.s.p;
    return KF_OK;
  }
  if (n->t == KF_NINT) {
    if (n->u.i < 0) return fail(c, "must not be negative", "", "");
    kf_format_int(n->u.i, buf);
  } else if (n->t == KF_NNUM) {
    if (isnan(n->u.d) || isinf(n->u.d))
      return fail(c, "expected a finite number", "", "");
    if (n->u.d < 0) return fail(c, "must not be negative", "", "");
    kf_format_number(n->u.d + 0.0, buf);  /* -0.0 + 0.0 is +0.0 */
  } else {
    return fail(c, "expected a quantity string or a number, got %s",
                type_name(n), "");
  }
  if ((*out = kf_arena_strndup(c->A, buf, strlen(buf))) == NULL)
    return kf_nomem(c->e);
  return KF_OK;
}

static const char *const res_known[] = {"cpu", "mem", "memory", "gpu",
                                        "ephemeral_storage", NULL};

static kf_status get_resources(ctx *c, const kf_node *n, const char **out) {
  const kf_node *slot[KF_MAX_KNOWN];
  kf_status st;
  size_t i;
  if ((st = want_object(c, n, NULL, "a table of resources")) != KF_OK ||
      n->t != KF_NOBJ)
    return st;
  if ((st = match_keys(c, n, res_known, slot)) != KF_OK) return st;
  if (slot[1] && slot[2])
    return fail(c, "both 'mem' and 'memory' given (they are aliases)", "", "");
  for (i = 0; i < KF_NRES; i++) {
    /* res_known: cpu mem memory gpu ephemeral_storage */
    static const int at[KF_NRES] = {0, 1, 3, 4};
    const char *key = kf_res_keys[i];
    const kf_node *v = slot[at[i]];
    if (v == NULL && i == KF_MEM && (v = slot[2]) != NULL) key = "memory";
    if (v != NULL) {
      size_t p = push(c, key);
      st = get_quantity(c, v, &out[i]);
      pop(c, p);
      if (st) return st;
    }
  }
  return KF_OK;
}

static kf_status get_command(ctx *c, const kf_node *n, kf_group *g) {
  size_t i;
  if (n->t != KF_NARR || n->u.c.n == 0) {
    if (n->t == KF_NOBJ && n->u.c.n == 0)
      return fail(c, "expected a non-empty list of strings, got an empty table",
                  "", "");
    return fail(c, "expected a non-empty list of strings, got %s",
                type_name(n), "");
  }
  if (n->u.c.n > KF_MAX_ITEMS)
    return fail(c, "list longer than the limit of 4096 items", "", "");
  g->command = (const char **)kf_arena_alloc(c->A, n->u.c.n * sizeof(char *));
  if (g->command == NULL) return kf_nomem(c->e);
  for (i = 0; i < n->u.c.n; i++) {
    size_t p = push_index(c, i + 1);
    kf_status st = get_str(c, n->u.c.v[i], 0, &g->command[i]);
    pop(c, p);
    if (st) return st;
  }
  g->ncommand = n->u.c.n;
  return KF_OK;
}

/* Which group fields a context accepts. */
#define GF_REPLICAS 1u
#define GF_COMMAND 2u

static kf_status parse_group(ctx *c, const kf_node *n, unsigned allow,
                             kf_group *g, int *replicas_given) {
  enum { F_REPLICAS, F_IMAGE, F_REQUESTS, F_LIMITS, F_RESTART, F_COMMAND };
  static const char *const all[] = {"replicas", "image", "requests", "limits",
                                    "restart_policy", "command", NULL};
  const char *known[7];
  int field[7];
  const kf_node *slot[KF_MAX_KNOWN];
  size_t k = 0, i;
  kf_status st;
  for (i = 0; all[i] != NULL; i++) {
    if (i == F_REPLICAS && !(allow & GF_REPLICAS)) continue;
    if (i == F_COMMAND && !(allow & GF_COMMAND)) continue;
    field[k] = (int)i;
    known[k++] = all[i];
  }
  known[k] = NULL;
  /* a field another context would take gets a precise message */
  for (i = 0; k < 6 && i < n->u.c.n; i++) {
    const char *key = n->u.c.k[i];
    const char *why = NULL;
    if (!(allow & GF_COMMAND) && strcmp(key, "command") == 0)
      why = "only MPI and Horovod groups take a command";
    else if (!(allow & GF_REPLICAS) && strcmp(key, "replicas") == 0)
      why = "not settable here (an elastic job takes nnodes)";
    if (why) {
      size_t p = push(c, key);
      st = fail(c, "%s", why, "");
      pop(c, p);
      return st;
    }
  }
  if ((st = match_keys(c, n, known, slot)) != KF_OK) return st;
  for (i = 0; known[i] != NULL; i++) {  /* schema order: stable first error */
    const kf_node *v = slot[i];
    size_t p;
    if (v == NULL) continue;
    p = push(c, known[i]);
    switch (field[i]) {
      case F_REPLICAS:
        st = get_int(c, v, 0, &g->replicas);
        if (replicas_given) *replicas_given = 1;
        break;
      case F_IMAGE: st = get_str(c, v, 1, &g->image); break;
      case F_REQUESTS: st = get_resources(c, v, g->requests); break;
      case F_LIMITS: st = get_resources(c, v, g->limits); break;
      case F_RESTART:
        st = get_enum(c, v, kf_parse_restart_policy,
                      "unknown restart policy %s (expected %s)",
                      "never, on_failure or always", &g->restart_policy);
        break;
      default: st = get_command(c, v, g);
    }
    pop(c, p);
    if (st) return st;
  }
  return KF_OK;
}

static kf_status parse_run_policy(ctx *cp, const kf_node *n,
                                  kf_run_policy *rp);

kf_status kf_run_policy_from_spec(const kf_node *n, kf_run_policy *rp,
                                  const char *ctor, const char *path,
                                  kf_err *e) {
  ctx c;
  ctx_init(&c, NULL, e, ctor, path);
  return parse_run_policy(&c, n, rp);
}

static kf_status parse_run_policy(ctx *cp, const kf_node *n,
                                  kf_run_policy *rp) {
  static const char *const known[] = {"clean_pod_policy",
                                      "ttl_seconds_after_finished",
                                      "active_deadline_seconds",
                                      "backoff_limit", NULL};
  const kf_node *slot[KF_MAX_KNOWN];
  kf_status st;
  size_t i;
  memset(rp, 0, sizeof *rp);
  if ((st = want_object(cp, n, "RunPolicy", "a kfjob.RunPolicy or a table")) ||
      n->t != KF_NOBJ)
    return st;
  if ((st = match_keys(cp, n, known, slot)) != KF_OK) return st;
  for (i = 0; known[i] != NULL; i++) {
    const char *key = known[i];
    const kf_node *v = slot[i];
    size_t p;
    if (v == NULL) continue;
    p = push(cp, key);
    if (strcmp(key, "clean_pod_policy") == 0)
      st = get_enum(cp, v, kf_parse_clean_pod_policy,
                    "unknown clean pod policy %s (expected %s)",
                    "none, running or all", &rp->clean_pod_policy);
    else {
      int32_t *f = key[0] == 't'   ? &rp->ttl_seconds_after_finished
                   : key[0] == 'a' ? &rp->active_deadline_seconds
                                   : &rp->backoff_limit;
      st = get_int(cp, v, 0, f);
      if (st == KF_OK && *f == 0)
        rp->zero |= key[0] == 't' ? KF_RPZ_TTL
                    : key[0] == 'a' ? KF_RPZ_DEADLINE : KF_RPZ_BACKOFF;
    }
    pop(cp, p);
    if (st) return st;
  }
  return KF_OK;
}

kf_status kf_group_from_spec(int role, const kf_node *n, kf_arena *A,
                             kf_group *g, const char *ctor, kf_err *e) {
  ctx c;
  kf_status st;
  unsigned allow = GF_REPLICAS;
  ctx_init(&c, A, e, ctor, "");
  memset(g, 0, sizeof *g);
  g->replicas = kf_roles[role].default_replicas;
  if (role == KF_WORKER || role == KF_LAUNCHER) allow |= GF_COMMAND;
  if ((st = want_object(&c, n, kf_roles[role].name, "a table of named fields")) ||
      n->t != KF_NOBJ)
    return st;
  if ((st = parse_group(&c, n, allow, g, NULL)) != KF_OK) return st;
  if ((kf_roles[role].flags & KF_R_FIXED1) && g->replicas != 1) {
    char b[24];
    snprintf(b, sizeof b, "%d", (int)g->replicas);
    size_t p = push(&c, "replicas");
    st = fail(&c, "must be 1 (got %s)", b, "");
    pop(&c, p);
    return st;
  }
  if ((kf_roles[role].flags & KF_R_MAX1) && g->replicas > 1) {
    char b[24];
    snprintf(b, sizeof b, "%d", (int)g->replicas);
    size_t p = push(&c, "replicas");
    st = fail(&c, "must be 0 or 1 (got %s)", b, "");
    pop(&c, p);
    return st;
  }
  return KF_OK;
}

/* ---- jobs ------------------------------------------------------------- */

static kf_status parse_nnodes(ctx *c, const kf_node *n, kf_job *j) {
  if (n->t == KF_NINT || n->t == KF_NNUM) {
    kf_status st = get_int(c, n, 1, &j->min_nodes);
    if (st) return st;
    j->max_nodes = j->min_nodes;
    j->nnodes_int = 1;
    return KF_OK;
  }
  if (n->t == KF_NSTR) {
    const char *s = n->u.s.p;
    char *end;
    long a, b;
    char q[80];
    snprintf(q, sizeof q, "'%.60s'", s);
    a = (s[0] >= '0' && s[0] <= '9') ? strtol(s, &end, 10) : -1;
    if (a >= 0 && *end == '\0') {
      b = a;
    } else if (a >= 0 && *end == ':' && end[1] >= '0' && end[1] <= '9') {
      b = strtol(end + 1, &end, 10);
      if (*end != '\0') b = -1;
    } else {
      b = -1;
    }
    if (a < 0 || b < 0)
      return fail(c, "expected an integer or \"MIN:MAX\", got %s", q, "");
    if (a > INT32_MAX || b > INT32_MAX) {
      char big[24];
      snprintf(big, sizeof big, "%ld", a > INT32_MAX ? a : b);
      return fail(c, "integer out of int32 range (%s)", big, "");
    }
    if (a < 1 || a > b)
      return fail(c, "needs 1 <= min <= max (got %s)", q, "");
    j->min_nodes = (int32_t)a;
    j->max_nodes = (int32_t)b;
    j->nnodes_int = 0;  /* only the integer 1 makes a python-task */
    return KF_OK;
  }
  return fail(c, "expected an integer or \"MIN:MAX\", got %s", type_name(n),
              "");
}

static const char *const rdzv_backends[] = {"c10d", "etcd", "etcd-v2", NULL};

/* Job-level scalar fields beyond the groups. */
static kf_status parse_scalar(ctx *c, const char *key, const kf_node *v,
                              kf_job *j) {
  if (strcmp(key, "slots") == 0) return get_int(c, v, 1, &j->slots);
  if (strcmp(key, "nnodes") == 0) return parse_nnodes(c, v, j);
  if (strcmp(key, "nproc_per_node") == 0)
    return get_int(c, v, 1, &j->nproc_per_node);
  if (strcmp(key, "max_restarts") == 0)
    return get_int(c, v, 0, &j->max_restarts);
  if (strcmp(key, "rdzv_backend") == 0) {
    kf_status st = get_str(c, v, 0, &j->rdzv_backend);
    int i;
    if (st) return st;
    for (i = 0; rdzv_backends[i]; i++)
      if (strcmp(rdzv_backends[i], j->rdzv_backend) == 0) return KF_OK;
    {
      char q[80];
      snprintf(q, sizeof q, "'%.60s'", j->rdzv_backend);
      return fail(c, "unknown rendezvous backend %s (expected %s)", q,
                  "c10d, etcd or etcd-v2");
    }
  }
  if (strcmp(key, "verbose") == 0) {
    if (v->t != KF_NBOOL)
      return fail(c, "expected a boolean, got %s", type_name(v), "");
    j->verbose = v->u.b;
    return KF_OK;
  }
  if (strcmp(key, "log_level") == 0) return get_str(c, v, 1, &j->log_level);
  if (strcmp(key, "discovery_script_path") == 0)
    return get_str(c, v, 1, &j->discovery_script_path);
  if (strcmp(key, "elastic_timeout") == 0)
    return get_int(c, v, 1, &j->elastic_timeout);
  return KF_OK;
}

static void job_defaults(kf_job *j, int kind) {
  int r;
  memset(j, 0, sizeof *j);
  j->kind = kind;
  for (r = 0; r < KF_NROLES; r++) j->g[r].replicas = kf_roles[r].default_replicas;
  j->slots = 1;
  j->nproc_per_node = 1;
  j->min_nodes = j->max_nodes = 1;
  j->nnodes_int = 1;
  j->rdzv_backend = "c10d";
  j->log_level = "INFO";
  j->discovery_script_path = "/etc/mpi/discover_hosts.sh";
  j->elastic_timeout = 1200;
}

/* The known keys of a kind, in spec() order. */
static size_t kind_keys(const kf_kind_info *k, const char **out) {
  size_t n = 0;
  int i;
  if (k->flags & KF_K_ELASTIC) {
    out[n++] = "nnodes";
    out[n++] = "nproc_per_node";
    out[n++] = "max_restarts";
    out[n++] = "rdzv_backend";
  }
  for (i = 0; i < k->nroles; i++) out[n++] = kf_roles[k->roles[i].role].key;
  if (k->flags & KF_K_RUNPOLICY) out[n++] = "run_policy";
  if (k->flags & KF_K_SLOTS) out[n++] = "slots";
  if (k->flags & KF_K_HOROVOD) {
    out[n++] = "verbose";
    out[n++] = "log_level";
    out[n++] = "discovery_script_path";
    out[n++] = "elastic_timeout";
  }
  for (i = 0; i < k->nroles; i++)
    if (k->roles[i].deprecated_key) out[n++] = k->roles[i].deprecated_key;
  out[n] = NULL;
  return n;
}

kf_status kf_job_from_spec(int kind, const kf_node *n, kf_arena *A,
                           kf_job *j, const char *ctor, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[kind];
  const char *known[KF_MAX_KNOWN];
  const kf_node *slot[KF_MAX_KNOWN];
  int given[KF_NROLES] = {0};
  int32_t dep[KF_NROLES] = {0};
  ctx c;
  kf_status st;
  size_t i;
  int r;
  ctx_init(&c, A, e, ctor, "");
  job_defaults(j, kind);
  if ((n->t != KF_NOBJ && !(n->t == KF_NARR && n->u.c.n == 0)) ||
      (n->t == KF_NOBJ && n->tag != NULL &&
       (strncmp(n->tag, "kfjob.", 6) != 0 || strcmp(n->tag + 6, k->name) != 0)))
    return fail(&c, "expected a table of named fields, got %s", type_name(n), "");
  kind_keys(k, known);
  if ((st = match_keys(&c, n, known, slot)) != KF_OK) return st;
  for (i = 0; known[i] != NULL; i++) {
    const char *key = known[i];
    const kf_node *v = slot[i];
    size_t p;
    if (v == NULL) continue;
    p = push(&c, key);
    st = KF_OK;
    for (r = 0; r < k->nroles; r++) {
      const kf_kind_role *kr = &k->roles[r];
      const kf_role_info *ri = &kf_roles[kr->role];
      if (strcmp(key, ri->key) == 0) {
        unsigned allow = (k->flags & KF_K_ELASTIC) ? 0 : GF_REPLICAS;
        if (k->flags & KF_K_COMMAND) allow |= GF_COMMAND;
        if ((st = want_object(&c, v, ri->name, "a kfjob.%s or a table")) == KF_OK &&
            v->t == KF_NOBJ)
          st = parse_group(&c, v, allow, &j->g[kr->role], &given[kr->role]);
        break;
      }
      if (kr->deprecated_key && strcmp(key, kr->deprecated_key) == 0) {
        st = get_int(&c, v, 0, &dep[kr->role]);
        break;
      }
    }
    if (r == k->nroles) {
      if (strcmp(key, "run_policy") == 0) {
        st = parse_run_policy(&c, v, &j->rp);
        j->has_run_policy = 1;
      } else {
        st = parse_scalar(&c, key, v, j);
      }
    }
    pop(&c, p);
    if (st) return st;
  }
  /* deprecated counts: alone they set replicas; both non-zero is an error */
  for (r = 0; r < k->nroles; r++) {
    const kf_kind_role *kr = &k->roles[r];
    int role = kr->role;
    if (dep[role] == 0) continue;
    if (given[role] && j->g[role].replicas != 0) {
      char other[64];
      snprintf(other, sizeof other, "%s.replicas", kf_roles[role].key);
      size_t p = push(&c, kr->deprecated_key);
      st = fail(&c, "cannot be combined with %s (%s is deprecated)", other,
                kr->deprecated_key);
      pop(&c, p);
      return st;
    }
    j->g[role].replicas = dep[role];
    j->deprecated |= 1u << role;
    given[role] = 1;
  }
  if (!(k->flags & KF_K_ELASTIC) && !given[KF_WORKER]) {
    size_t p = push(&c, "worker");
    push(&c, "replicas");
    st = fail(&c, "required (at least 1 worker)", "", "");
    pop(&c, p);
    return st;
  }
  if (k->flags & KF_K_ELASTIC) j->g[KF_WORKER].replicas = j->max_nodes;
  return kf_job_check(j, KF_PATH_SPEC, ctor, e);
}

/* ---- rules shared with the decoders ----------------------------------- */


/* Path of a group's replica count in the given style. */
static void replicas_path(const kf_job *job, int role, kf_pathstyle s,
                          char *out, size_t cap) {
  const kf_kind_role *kr = kf_kind_role_of(&kf_kinds[job->kind], role);
  char j[64];
  if (s == KF_PATH_SPEC && (job->deprecated >> role & 1u)) {
    snprintf(out, cap, "%s", kr->deprecated_key);  /* what the caller wrote */
  } else if (s == KF_PATH_SPEC) {
    snprintf(out, cap, "%s.replicas", kf_roles[role].key);
  } else if (s == KF_PATH_V1) {
    kf_json_name(kr->v1_field, j, sizeof j);
    snprintf(out, cap, "%s.replicas", j);
  } else {
    kf_json_name(kr->v0_field ? kr->v0_field : kr->v1_field, j, sizeof j);
    snprintf(out, cap, "%s", j);
  }
}

kf_status kf_job_check(const kf_job *j, kf_pathstyle s, const char *who,
                       kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  char path[96];
  int i;
  for (i = 0; i < k->nroles; i++) {
    int role = k->roles[i].role;
    int32_t n = j->g[role].replicas;
    unsigned f = kf_roles[role].flags;
    const char *rule = NULL;
    if (k->flags & KF_K_ELASTIC) break; /* replicas follow nnodes */
    if (n < 0) rule = "must be >= 0";
    else if ((f & KF_R_REQUIRED) && n < 1) rule = "must be >= 1";
    else if ((f & KF_R_FIXED1) && n != 1) rule = "must be 1";
    else if ((f & KF_R_MAX1) && n > 1) rule = "must be 0 or 1";
    if (rule) {
      replicas_path(j, role, s, path, sizeof path);
      return kf_fail(e, KF_EINVAL, "%s: %s: %s (got %d)", who, path, rule,
                     (int)n);
    }
  }
  if (k->flags & KF_K_ELASTIC) {
    const char *minp = s == KF_PATH_SPEC ? "nnodes" : "elasticConfig.minReplicas";
    if (j->min_nodes < 1 || j->min_nodes > j->max_nodes)
      return kf_fail(e, KF_EINVAL, "%s: %s: needs 1 <= min <= max (got %d:%d)",
                     who, minp, (int)j->min_nodes, (int)j->max_nodes);
    if (j->nproc_per_node < 1)
      return kf_fail(e, KF_EINVAL, "%s: %s: must be >= 1 (got %d)", who,
                     s == KF_PATH_SPEC ? "nproc_per_node"
                                       : "elasticConfig.nprocPerNode",
                     (int)j->nproc_per_node);
    if (j->max_restarts < 0)
      return kf_fail(e, KF_EINVAL, "%s: %s: must be >= 0 (got %d)", who,
                     s == KF_PATH_SPEC ? "max_restarts"
                                       : "elasticConfig.maxRestarts",
                     (int)j->max_restarts);
  }
  if ((k->flags & KF_K_SLOTS) && j->slots < 1)
    return kf_fail(e, KF_EINVAL, "%s: slots: must be >= 1 (got %d)", who,
                   (int)j->slots);
  if (j->has_run_policy) {
    const int32_t v[3] = {j->rp.ttl_seconds_after_finished,
                          j->rp.active_deadline_seconds, j->rp.backoff_limit};
    static const char *const names[2][3] = {
        {"ttl_seconds_after_finished", "active_deadline_seconds",
         "backoff_limit"},
        {"ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"}};
    for (i = 0; i < 3; i++)
      if (v[i] < 0)
        return kf_fail(e, KF_EINVAL, "%s: %s%s: must be >= 0 (got %d)", who,
                       s == KF_PATH_SPEC ? "run_policy." : "runPolicy.",
                       names[s != KF_PATH_SPEC][i], (int)v[i]);
  }
  return KF_OK;
}

/* ---- job -> spec ------------------------------------------------------ */

static int add_resources(kf_arena *A, kf_node *obj, const char *key,
                         const char *const *q) {
  kf_node *r = NULL;
  int i;
  for (i = 0; i < KF_NRES; i++) {
    if (q[i] == NULL) continue;
    if (r == NULL && (r = kf_obj_add(A, obj, key, KF_NOBJ)) == NULL) return 0;
    if (!kf_obj_strref(A, r, kf_res_keys[i], q[i])) return 0;
  }
  return 1;
}

static kf_node *group_node(const kf_group *g, int with_replicas, kf_arena *A) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  size_t i;
  if (o == NULL) return NULL;
  if (with_replicas && !kf_obj_int(A, o, "replicas", g->replicas)) return NULL;
  if (g->image && !kf_obj_strref(A, o, "image", g->image)) return NULL;
  if (!add_resources(A, o, "requests", g->requests) ||
      !add_resources(A, o, "limits", g->limits))
    return NULL;
  if (!kf_obj_strref(A, o, "restart_policy", kf_rp_names[g->restart_policy]))
    return NULL;
  if (g->ncommand) {
    kf_node *c = kf_obj_add(A, o, "command", KF_NARR);
    if (c == NULL) return NULL;
    for (i = 0; i < g->ncommand; i++)
      if (!kf_node_push(A, c, NULL,
                        kf_node_str(A, g->command[i], strlen(g->command[i]))))
        return NULL;
  }
  return o;
}

kf_node *kf_group_to_spec(const kf_group *g, kf_arena *A) {
  return group_node(g, 1, A);
}

kf_node *kf_run_policy_to_spec(const kf_run_policy *rp, kf_arena *A) {
  kf_node *o = kf_node_new(A, KF_NOBJ);
  if (o == NULL ||
      !kf_obj_strref(A, o, "clean_pod_policy", kf_cp_names[rp->clean_pod_policy]))
    return NULL;
  if ((rp->ttl_seconds_after_finished || (rp->zero & KF_RPZ_TTL)) &&
      !kf_obj_int(A, o, "ttl_seconds_after_finished",
                  rp->ttl_seconds_after_finished))
    return NULL;
  if ((rp->active_deadline_seconds || (rp->zero & KF_RPZ_DEADLINE)) &&
      !kf_obj_int(A, o, "active_deadline_seconds", rp->active_deadline_seconds))
    return NULL;
  if ((rp->backoff_limit || (rp->zero & KF_RPZ_BACKOFF)) &&
      !kf_obj_int(A, o, "backoff_limit", rp->backoff_limit))
    return NULL;
  return o;
}

kf_node *kf_job_to_spec(const kf_job *j, kf_arena *A) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_node *o = kf_node_new(A, KF_NOBJ);
  int i, ok = o != NULL;
  if (ok && (k->flags & KF_K_ELASTIC)) {
    if (j->nnodes_int && j->min_nodes == j->max_nodes) {
      ok = kf_obj_int(A, o, "nnodes", j->min_nodes);
    } else {
      char b[32];
      if (j->min_nodes == j->max_nodes)
        snprintf(b, sizeof b, "%d", (int)j->min_nodes);
      else
        snprintf(b, sizeof b, "%d:%d", (int)j->min_nodes, (int)j->max_nodes);
      ok = kf_obj_str(A, o, "nnodes", b);
    }
    ok = ok && kf_obj_int(A, o, "nproc_per_node", j->nproc_per_node) &&
         kf_obj_int(A, o, "max_restarts", j->max_restarts) &&
         kf_obj_strref(A, o, "rdzv_backend", j->rdzv_backend);
  }
  for (i = 0; ok && i < k->nroles; i++) {
    int role = k->roles[i].role;
    ok = kf_node_push(A, o, kf_roles[role].key,
                      group_node(&j->g[role], !(k->flags & KF_K_ELASTIC), A));
  }
  if (ok && j->has_run_policy)
    ok = kf_node_push(A, o, "run_policy", kf_run_policy_to_spec(&j->rp, A));
  if (ok && (k->flags & KF_K_SLOTS)) ok = kf_obj_int(A, o, "slots", j->slots);
  if (ok && (k->flags & KF_K_HOROVOD)) {
    kf_node *b = kf_obj_add(A, o, "verbose", KF_NBOOL);
    ok = b != NULL;
    if (ok) b->u.b = j->verbose;
    ok = ok && kf_obj_strref(A, o, "log_level", j->log_level) &&
         kf_obj_strref(A, o, "discovery_script_path", j->discovery_script_path) &&
         kf_obj_int(A, o, "elastic_timeout", j->elastic_timeout);
  }
  return ok ? o : NULL;
}

/* ---- equality and packing --------------------------------------------- */

static int str_eq(const char *a, const char *b) {
  if (a == NULL || b == NULL) return a == b;
  return strcmp(a, b) == 0;
}

static int group_eq(const kf_group *a, const kf_group *b) {
  size_t i;
  if (a->replicas != b->replicas || !str_eq(a->image, b->image) ||
      a->restart_policy != b->restart_policy || a->ncommand != b->ncommand)
    return 0;
  for (i = 0; i < KF_NRES; i++)
    if (!str_eq(a->requests[i], b->requests[i]) ||
        !str_eq(a->limits[i], b->limits[i]))
      return 0;
  for (i = 0; i < a->ncommand; i++)
    if (!str_eq(a->command[i], b->command[i])) return 0;
  return 1;
}

/* Only the integer 1 turns an elastic job into a plain python-task. */
static int python_task(const kf_job *j) {
  return j->kind == KF_ELASTIC && j->nnodes_int && j->max_nodes == 1;
}

int kf_job_equal(const kf_job *a, const kf_job *b) {
  const kf_kind_info *k;
  int i;
  if (a->kind != b->kind) return 0;
  k = &kf_kinds[a->kind];
  for (i = 0; i < k->nroles; i++)
    if (!group_eq(&a->g[k->roles[i].role], &b->g[k->roles[i].role])) return 0;
  /* explicit zeros equal unset ones: the configuration is the same */
  if (a->has_run_policy != b->has_run_policy ||
      (a->has_run_policy &&
       (a->rp.clean_pod_policy != b->rp.clean_pod_policy ||
        a->rp.ttl_seconds_after_finished != b->rp.ttl_seconds_after_finished ||
        a->rp.active_deadline_seconds != b->rp.active_deadline_seconds ||
        a->rp.backoff_limit != b->rp.backoff_limit)))
    return 0;
  if ((k->flags & KF_K_SLOTS) && a->slots != b->slots) return 0;
  if (k->flags & KF_K_ELASTIC) {
    if (a->min_nodes != b->min_nodes || a->max_nodes != b->max_nodes ||
        a->nproc_per_node != b->nproc_per_node ||
        a->max_restarts != b->max_restarts ||
        !str_eq(a->rdzv_backend, b->rdzv_backend) ||
        python_task(a) != python_task(b))
      return 0;
  }
  if (k->flags & KF_K_HOROVOD) {
    if (a->verbose != b->verbose || !str_eq(a->log_level, b->log_level) ||
        !str_eq(a->discovery_script_path, b->discovery_script_path) ||
        a->elastic_timeout != b->elastic_timeout)
      return 0;
  }
  return 1;
}

#define ALIGN(n) (((n) + sizeof(void *) - 1) & ~(sizeof(void *) - 1))

static size_t str_size(const char *s) { return s ? strlen(s) + 1 : 0; }

static size_t group_extra(const kf_group *g) {
  size_t n = ALIGN(g->ncommand * sizeof(char *)), i;
  n += str_size(g->image);
  for (i = 0; i < KF_NRES; i++)
    n += str_size(g->requests[i]) + str_size(g->limits[i]);
  for (i = 0; i < g->ncommand; i++) n += str_size(g->command[i]);
  return n;
}

static const char *copy_str(char **cur, const char *s) {
  size_t n;
  char *d;
  if (s == NULL) return NULL;
  n = strlen(s) + 1;
  d = *cur;
  memcpy(d, s, n);
  *cur += n;
  return d;
}

/* Copies g's strings to *cur; the command array first (aligned). */
static void group_copy(kf_group *dst, const kf_group *g, char **cur) {
  size_t i;
  *dst = *g;
  if (g->ncommand) {
    dst->command = (const char **)(void *)*cur;
    *cur += ALIGN(g->ncommand * sizeof(char *));
    for (i = 0; i < g->ncommand; i++)
      dst->command[i] = copy_str(cur, g->command[i]);
  } else {
    dst->command = NULL;
  }
  dst->image = copy_str(cur, g->image);
  for (i = 0; i < KF_NRES; i++) {
    dst->requests[i] = copy_str(cur, g->requests[i]);
    dst->limits[i] = copy_str(cur, g->limits[i]);
  }
}

size_t kf_group_size(const kf_group *g) {
  return ALIGN(sizeof *g) + group_extra(g);
}

void kf_group_pack_into(const kf_group *g, void *mem) {
  char *cur = (char *)mem + ALIGN(sizeof *g);
  group_copy((kf_group *)mem, g, &cur);
}

size_t kf_job_size(const kf_job *j) {
  size_t n = ALIGN(sizeof *j);
  int r;
  /* command arrays come first per group, so keep each group aligned */
  for (r = 0; r < KF_NROLES; r++) n += ALIGN(group_extra(&j->g[r]));
  n += str_size(j->rdzv_backend) + str_size(j->log_level) +
       str_size(j->discovery_script_path);
  return n;
}

void kf_job_pack_into(const kf_job *j, void *mem) {
  kf_job *d = (kf_job *)mem;
  char *cur = (char *)mem + ALIGN(sizeof *j);
  int r;
  *d = *j;
  for (r = 0; r < KF_NROLES; r++) {
    char *start = cur;
    group_copy(&d->g[r], &j->g[r], &cur);
    cur = start + ALIGN(group_extra(&j->g[r]));
  }
  d->rdzv_backend = copy_str(&cur, j->rdzv_backend);
  d->log_level = copy_str(&cur, j->log_level);
  d->discovery_script_path = copy_str(&cur, j->discovery_script_path);
}

/* ---- overrides (with) ------------------------------------------------- */

static kf_node *obj_slot(kf_arena *A, kf_node *obj, const char *key,
                         kf_node ***slot) {
  size_t i;
  for (i = 0; i < obj->u.c.n; i++)
    if (strcmp(obj->u.c.k[i], key) == 0) {
      *slot = &obj->u.c.v[i];
      return obj->u.c.v[i];
    }
  if (!kf_node_push(A, obj, key, kf_node_new(A, KF_NNIL))) return NULL;
  *slot = &obj->u.c.v[obj->u.c.n - 1];
  return **slot;
}

/* Set `v` at `key` of `base`, deep-merging plain tables; lists and objects
** made by constructors replace what was there. */
static kf_status merge_into(kf_arena *A, kf_node *base, const char *key,
                            const kf_node *v, const char *who, kf_err *e) {
  kf_node **slot, *cur = obj_slot(A, base, key, &slot);
  size_t i;
  if (cur == NULL) return kf_nomem(e);
  if ((v->t == KF_NOBJ || v->t == KF_NARR) && v->tag == NULL && v->u.c.n == 0 &&
      cur->t == KF_NOBJ)
    return KF_OK;  /* with{worker = {}} changes nothing */
  if (v->t == KF_NOBJ && v->tag == NULL && v->u.c.n > 0 &&
      (cur->t == KF_NOBJ || cur->t == KF_NNIL)) {
    /* copy first: the old object may be shared with the caller's tree */
    kf_node *copy = kf_node_new(A, KF_NOBJ);
    if (copy == NULL) return kf_nomem(e);
    for (i = 0; cur->t == KF_NOBJ && i < cur->u.c.n; i++)
      if (!kf_node_push(A, copy, cur->u.c.k[i], cur->u.c.v[i])) return kf_nomem(e);
    *slot = copy;
    return kf_node_merge(A, copy, v, who, e);
  }
  *slot = (kf_node *)v;
  return KF_OK;
}

kf_status kf_node_merge(kf_arena *A, kf_node *base, const kf_node *over,
                        const char *who, kf_err *e) {
  size_t i;
  if (over->t != KF_NOBJ) {
    if (over->t == KF_NARR && over->u.c.n == 0) return KF_OK;
    return kf_fail(e, KF_EINVAL, "%s: overrides: expected a table of fields", who);
  }
  for (i = 0; i < over->u.c.n; i++) {
    const char *key = over->u.c.k[i], *dot;
    size_t kl = strlen(key);
    kf_node *at = base;
    kf_status st;
    if (strchr(key, '.') &&
        (key[0] == '.' || key[kl - 1] == '.' || strstr(key, "..") != NULL))
      return kf_fail(e, KF_EINVAL, "%s: '%s': empty field name in a dotted key",
                     who, key);
    /* dotted keys walk (and create) nested tables */
    while ((dot = strchr(key, '.')) != NULL) {
      char *head = kf_arena_strndup(A, key, (size_t)(dot - key));
      kf_node **slot, *next;
      if (head == NULL || (next = obj_slot(A, at, head, &slot)) == NULL)
        return kf_nomem(e);
      if (next->t == KF_NNIL || (next->t == KF_NARR && next->u.c.n == 0)) {
        if ((next = kf_node_new(A, KF_NOBJ)) == NULL) return kf_nomem(e);
        *slot = next;
      } else if (next->t != KF_NOBJ) {
        return kf_fail(e, KF_EINVAL, "%s: %.*s: not a table, cannot set '%s'",
                       who, (int)(dot - over->u.c.k[i]), over->u.c.k[i],
                       over->u.c.k[i]);
      }
      at = next;
      key = dot + 1;
    }
    if ((st = merge_into(A, at, key, over->u.c.v[i], who, e)) != KF_OK)
      return st;
  }
  return KF_OK;
}

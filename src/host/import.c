/*
** import.c - kfjob_host_import_manifests(): manifests read back into jobs (SPEC §14)
** and rendered for a target, in C alone (no Lua state): the YAML reader,
** the import room (kf_import) and kf_render, over an arena whose allocator
** holds the handle's memory limit.  The manifest formats get the options
** the report carries back (name, namespace, labels, annotations, the
** container's command, args, env), as Law 1 re-emits.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_import.h"
#include "kf_json.h"
#include "kf_render.h"
#include "kf_target.h"
#include "kf_yaml.h"
#include "kf_yaml_read.h"
#include "lkf_binding.h"
#include "host.h"

/* Memory of one import: malloc within the handle's limit. */
typedef struct meter {
  size_t used, limit, peak;
  int hit;
} meter;

static void *meter_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  meter *m = (meter *)ud;
  void *p;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    free(ptr);
    m->used -= osize;
    return NULL;
  }
  if (m->limit && nsize > osize && m->used + (nsize - osize) > m->limit) {
    m->hit = 1;
    return NULL;
  }
  if ((p = realloc(ptr, nsize)) == NULL) return m->hit = 1, NULL;
  m->used = m->used - osize + nsize;
  if (m->used > m->peak) m->peak = m->used;
  return p;
}

/* One import: the handle, its options and the shared memory. */
typedef struct imp {
  kfjob_host *h;
  kfjob_run_options o;
  kf_import_opts io;
  int stream;
  int other;                    /* documents of other kinds to the callback */
  size_t read;                  /* documents read (not skipped) */
  size_t nfailed;               /* keep_going: jobs the target refused */
  size_t njobs;                 /* jobs passed to the callback (usage) */
  kfjob_import_fn cb;
  void *ud;
  kf_arena T;                   /* the documents read (kept to the end) */
  const kf_node *doc;           /* the one being read: where its problems are */
  kf_arena A;                   /* one document's work: reset after each */
  meter m;
  unsigned long long deadline_ns;   /* kfjob_run_options::time_limit_ms; 0: none */
} imp;

/* Past the run's time limit (checked before each document: one
** document's import is linear in its size, which the reader bounds)? */
static kfjob_status over_time(imp *I) {
  if (I->deadline_ns == 0 || kfh_now_ns() <= I->deadline_ns) return KFJOB_OK;
  kfh_msg(I->h, "time limit exceeded (%lu ms)", I->o.time_limit_ms);
  return KFJOB_ELIMIT;
}

static kfjob_status fail(imp *I, kfjob_status st, const kf_err *e) {
  if (I->m.hit || e->code == KF_ENOMEM) {
    kfh_msg(I->h, "memory limit exceeded (%zu bytes)", I->m.limit);
    return KFJOB_EMEMORY;
  }
  kfh_msg(I->h, "%s", e->msg);
  return st;
}

static const char *str_of(const kf_node *n) {
  return n && n->t == KF_NSTR ? n->u.s.p : NULL;
}

/* The report's node -> the host's struct (strings point into the node). */
static kf_status info_of(const kf_node *in, kf_arena *A, size_t doc,
                         kfjob_import_info *out, kf_err *e) {
  const kf_node *un = kf_node_get(in, "unmapped"), *ig = kf_node_get(in, "ignored");
  size_t i, nu = un && un->t == KF_NARR ? un->u.c.n : 0;
  size_t ni = ig && ig->t == KF_NARR ? ig->u.c.n : 0;
  kfjob_unmapped *u = (kfjob_unmapped *)kf_arena_alloc(A, (nu + 1) * sizeof *u);
  const char **g = (const char **)kf_arena_alloc(A, (ni + 1) * sizeof *g);
  if (u == NULL || g == NULL) return kf_nomem(e);
  memset(out, 0, sizeof *out);
  out->document = doc;
  out->kind = str_of(kf_node_get(in, "kind"));
  out->api_version = str_of(kf_node_get(in, "api_version"));
  out->target = str_of(kf_node_get(in, "target"));
  out->name = str_of(kf_node_get(in, "name"));
  if (out->name == NULL) out->name = "";
  out->namespace_ = str_of(kf_node_get(in, "namespace"));
  out->generate_name = str_of(kf_node_get(in, "generate_name"));
  out->copy_to_pods = 1;   /* the job holds the resource's and the templates' own */
  for (i = 0; i < nu; i++) {
    const kf_node *x = un->u.c.v[i], *v = kf_node_get(x, "value");
    kf_buf b;
    u[i].path = str_of(kf_node_get(x, "path"));
    u[i].reason = str_of(kf_node_get(x, "reason"));
    kf_buf_init(&b, A->a);
    if (v && kf_node_to_json(v, 0, &b, e) == KF_OK && kf_buf_addc(&b, '\0'))
      u[i].value = kf_arena_strndup(A, b.p, b.n - 1);
    kf_buf_free(&b);
    if (u[i].value == NULL) u[i].value = "null";
  }
  for (i = 0; i < ni; i++) g[i] = str_of(ig->u.c.v[i]);
  out->unmapped = u, out->nunmapped = nu;
  out->ignored = g, out->nignored = ni;
  return KF_OK;
}

/* Push key = v (when v is given) onto the options node. */
static int opt_put(kf_arena *A, kf_node *o, const char *k, const kf_node *v) {
  if (v == NULL || v->t == KF_NNIL) return 1;
  return kf_node_push(A, o, k, (kf_node *)v) != 0;
}

static int opt_str(kf_arena *A, kf_node *o, const char *k, const char *s,
                   const kf_node *fallback) {
  if (s == NULL) return opt_put(A, o, k, fallback);
  return opt_put(A, o, k, kf_node_str(A, s, strlen(s)));
}

/* The manifest options the report carries back, the run's over them (the
** job holds the resource's labels and annotations, its templates theirs:
** as options they would go on every pod too). */
static kf_status manifest_opts(imp *I, const kf_node *info, kf_manifest_opts *mo,
                               kf_err *e) {
  static const char *const cont[] = {"command", "args", "env", NULL};
  const kf_node *c = kf_node_get(info, "container");
  kf_node *n = kf_node_new(&I->A, KF_NOBJ);
  size_t i;
  int ok = n != NULL &&
           opt_str(&I->A, n, "name", I->o.name, kf_node_get(info, "name")) &&
           opt_str(&I->A, n, "namespace", I->o.namespace_, kf_node_get(info, "namespace")) &&
           opt_str(&I->A, n, "image", I->o.image, NULL);
  for (i = 0; ok && cont[i]; i++) ok = opt_put(&I->A, n, cont[i], kf_node_get(c, cont[i]));
  if (!ok) return kf_nomem(e);
  return kf_manifest_opts_parse(n, mo, &I->A, "kfjob.manifest", e);
}

/* A TaskTemplate's image for a job without one (a TrainJob on its
** runtime's): the run's (--image) as opts.container.image, else an error
** naming it; only a Trainer target may run without an image (as the
** manifest's check, kf_manifest.c: flyteadmin's task_validator.go and the
** pods need one).  Jobs with an image: as before. */
static kf_status template_image(imp *I, const kf_job *j, kf_render_opts *ro, kf_err *e) {
  const kf_kind_info *k = &kf_kinds[j->kind];
  kf_node *o, *c;
  int i, role = -1;
  if ((ro->format != KF_RENDER_TEMPLATE && ro->format != KF_RENDER_TEMPLATE_JSON) ||
      (ro->target_set && KF_T_IS_TRAINER(ro->target)) ||
      (j->has_container && j->container.image && j->container.image[0]))
    return KF_OK;
  for (i = 0; i < k->nroles && role < 0; i++)
    if (j->g[k->roles[i].role].replicas > 0 &&
        (j->g[k->roles[i].role].image == NULL || j->g[k->roles[i].role].image[0] == '\0'))
      role = k->roles[i].role;
  if (role < 0) return KF_OK;
  if (I->o.image == NULL)
    return kf_fail(e, KF_EINVAL, "%s: opts.image: required: %s has no image of its own (a "
                   "TaskTemplate's container needs one: set the job's container.image, or "
                   "kfjob render --image; only a TrainJob may run its runtime's image)",
                   ro->who, kf_roles[role].key);
  if ((o = kf_node_new(&I->A, KF_NOBJ)) == NULL || (c = kf_obj_add(&I->A, o, "container", KF_NOBJ)) == NULL ||
      !kf_obj_strref(&I->A, c, "image", I->o.image))
    return kf_nomem(e);
  ro->template_opts = o;
  return KF_OK;
}

/* The core's options for the run's format and target (when the run names
** none: the input's own for the manifest formats, else the format's
** default, flyte for the payloads and templates). */
static kf_status render_opts(imp *I, const kf_job *j, const kf_node *info,
                             kf_render_opts *ro, kf_err *e) {
  static const char *const who[] = {
      "kfjob.encode", "kfjob.to_json", "kfjob.to_json", "kfjob.task_template",
      "kfjob.task_template", "kfjob.manifest", "kfjob.manifest", "kfjob",
      "kfjob.task_spec", "kfjob.task_spec", "kfjob.environment"};
  kfjob_format f = I->o.format;
  const char *read = str_of(kf_node_get(info, "target"));
  /* the input's own target, for a payload too when it has one of its own
  ** (a clustered task's JobSet: its ClusteredTaskSpec, not Flyte 1's) */
  int own = f == KFJOB_FORMAT_MANIFEST || f == KFJOB_FORMAT_MANIFEST_JSON ||
            f == KFJOB_FORMAT_ENVIRONMENT || f == KFJOB_FORMAT_NONE ||
            (read != NULL && strcmp(read, "flyte2-clustered") == 0);
  const char *t = I->o.target ? I->o.target : own ? read : NULL;
  kf_status st;
  kf_render_opts_init(ro);
  ro->format = I->o.format == KFJOB_FORMAT_NONE ? KF_RENDER_MANIFEST_JSON
                                                : (kf_render_format)I->o.format;
  ro->who = who[ro->format];
  ro->enc.version = I->o.version < 0 ? 1 : I->o.version;
  ro->enc.ctor = lkf_job_mt[j->kind];
  ro->enc.common = I->o.replica_encoding && strcmp(I->o.replica_encoding, "common") == 0;
  if (I->o.indent > 0 && ro->format != KF_RENDER_YAML && ro->format != KF_RENDER_MANIFEST)
    ro->indent = I->o.indent;
  if ((st = manifest_opts(I, info, &ro->manifest, e)) != KF_OK) return st;
  if (t == NULL) return KF_OK;
  if ((st = kf_target_parse(t, &ro->target, "kfjob", "target", e)) != KF_OK) return st;
  ro->target_set = ro->manifest.target_set = 1;
  ro->manifest.target = ro->target;
  return KF_OK;
}

/* The target's problems with one document's job (its rule rows, for the
** run's name and image), found on first use and shared by lossy_drop,
** name_rule and import_warnings: the rows are walked once a document,
** again only when lossy_drop changed the job. */
typedef struct probs {
  int state;          /* 0: not walked (or the job changed); 1: ps; -1: the walk failed */
  kf_problems ps;
} probs;

/* The problems of `p` (walking the rows the first time), or NULL when the
** walk failed (each user then goes on without them, as before). */
static const kf_problems *problems_of(imp *I, const kf_job *j, const kf_render_opts *ro,
                                      probs *p) {
  kf_target_ctx c;
  kf_err e;
  if (p->state == 0) {
    memset(&c, 0, sizeof c);
    c.name = ro->manifest.name, c.image = ro->manifest.image;
    p->state = kf_target_problems(j, kf_render_target(ro), &c, &I->A, &p->ps, &e) == KF_OK ? 1 : -1;
  }
  return p->state == 1 ? &p->ps : NULL;
}

/* A rendering option's path (opts.name) the import took from the
** manifest, when the caller gave none: its metadata's. */
static const char *read_meta(const imp *I, const char *path) {
  if (strcmp(path, "opts.name") == 0 && I->o.name == NULL) return "metadata.name";
  if (strcmp(path, "opts.namespace") == 0 && I->o.namespace_ == NULL) return "metadata.namespace";
  return path;
}

/* Whether one of v[0..n) says `message` at `path`. */
static int said(const kfjob_problem *v, size_t n, const char *path, const char *message) {
  size_t i;
  for (i = 0; i < n; i++)
    if (strcmp(v[i].path, path) == 0 && strcmp(v[i].message, message) == 0) return 1;
  return 0;
}

/* The refusals of the target, the kind's first (rendering checks it
** first): each error with its rule and the rule's upstream source, as
** job:check{target=} lists them; the first (a migration says what blocks
** it: R24 for a TFJob on Trainer) becomes the error `e`.  *out NULL, *n 0:
** the rows find none. */
static void name_rule(imp *I, const kf_job *j, const kf_render_opts *ro, probs *pr,
                      kf_err *e, const kfjob_problem **out, size_t *n) {
  const kf_problems *ps;
  kfjob_problem *v;
  size_t i, k;
  *out = NULL, *n = 0;
  if ((ps = problems_of(I, j, ro, pr)) == NULL ||
      (v = (kfjob_problem *)kf_arena_alloc(&I->A, (ps->n + 1) * sizeof *v)) == NULL)
    return;
  for (k = 0; k < 2; k++)   /* the kind's, then the others in rule order */
    for (i = 0; i < ps->n; i++) {
      if (ps->v[i].sev != KF_SEV_ERROR || (strcmp(ps->v[i].path, "kind") == 0) != (k == 0))
        continue;
      /* named where it is in the manifest read (a TrainJob's groups share
      ** one place: said once) */
      v[*n].path = kf_import_where(I->doc, j->kind, ps->v[i].path, ps->v[i].ref, &I->A);
      if (v[*n].path == NULL) v[*n].path = ps->v[i].path;   /* no memory: kfjob's */
      v[*n].path = read_meta(I, v[*n].path);
      if (said(v, *n, v[*n].path, ps->v[i].message)) continue;
      v[*n].message = ps->v[i].message;
      v[*n].rule = ps->v[i].rule, v[*n].source = ps->v[i].source ? ps->v[i].source : "";
      v[*n].target = kf_targets[kf_render_target(ro)].name;
      (*n)++;
    }
  if (*n == 0) return;
  *out = v;
  kf_fail(e, KF_EINVAL, "kfjob.%s: %s: %s (target %s; rule %s: %s)",
          kf_kinds[j->kind].name, v[0].path, v[0].message, kf_targets[kf_render_target(ro)].name,
          v[0].rule, v[0].source[0] ? v[0].source : "kfjob");
}

/* Whether one more callback would pass kfjob_run_options::max_jobs (then
** said, the import stopping with KFJOB_ELIMIT), as a run's jobs do. */
static int too_many(imp *I) {
  unsigned long max = I->o.max_jobs ? I->o.max_jobs : KFJOB_DEFAULT_MAX_JOBS;
  if (I->njobs < max) return 0;
  kfh_msg(I->h, "more than %lu jobs in one import (the limit; split the stream or raise "
          "max_jobs)", max);
  return 1;
}

/* keep_going: a job the target refuses goes to the callback with its
** error (and its report); the import ends KFJOB_EJOB with the first. */
static kfjob_status failed(imp *I, const kf_job *j, const kfjob_import_info *ii,
                           const kf_err *e, const kfjob_problem *ps, size_t nps) {
  kfjob_job out;
  memset(&out, 0, sizeof out);
  out.problems = ps, out.nproblems = nps;
  out.name = ii->name;
  out.kind = kf_kinds[j->kind].name;
  out.task_type = kf_kinds[j->kind].task_type ? kf_kinds[j->kind].task_type : "";
  out.format = I->o.format;
  out.index = I->njobs;   /* the callbacks' count: a List's items, skipped documents */
  out.error = e->msg;
  if (!I->nfailed++) kfh_msg(I->h, "%s", e->msg);
  if (too_many(I)) return KFJOB_ELIMIT;
  I->njobs++;
  if (I->cb && I->cb(I->ud, &out, ii) != 0) {
    kfh_msg(I->h, "stopped by the callback");
    return KFJOB_ESTOPPED;
  }
  return KFJOB_OK;
}

/* With lossy, what the target cannot express and runs without (droppable)
** is left out of a copy of the job and listed in the report, when nothing
** else is refused: then every refusal is reported as it is. */
static kf_status lossy_drop(imp *I, kf_job *j, const kf_render_opts *ro, probs *pr,
                            kfjob_import_info *ii, kf_err *e) {
  const kf_problems *ps;
  kfjob_unmapped *u;
  size_t i, n = 0;
  int oom = 0;
  if (!I->io.lossy || !ro->target_set || (ps = problems_of(I, j, ro, pr)) == NULL)
    return KF_OK;
  for (i = 0; i < ps->n; i++)   /* a refusal of another kind: every one reported */
    if (ps->v[i].sev == KF_SEV_ERROR && !kf_import_droppable(&ps->v[i], ro->target)) return KF_OK;
  if ((u = (kfjob_unmapped *)kf_arena_alloc(&I->A, (ii->nunmapped + ps->n + 1) * sizeof *u)) == NULL)
    return kf_nomem(e);
  if (ii->nunmapped) memcpy(u, ii->unmapped, ii->nunmapped * sizeof *u);
  for (i = 0; i < ps->n; i++) {
    const char *v;
    char *why;
    if (ps->v[i].sev != KF_SEV_ERROR) continue;
    if ((v = kf_import_drop(j, &ps->v[i], &I->A, &oom)) == NULL) {
      if (oom) return kf_nomem(e);
      continue;
    }
    why = kf_arena_alloc(&I->A, strlen(ps->v[i].message) + 64);
    if (why == NULL) return kf_nomem(e);
    sprintf(why, "%s (rule %.8s on %s)", ps->v[i].message, ps->v[i].rule,
            kf_targets[ro->target].name);
    /* named where it is in the manifest read */
    u[ii->nunmapped + n].path = kf_import_where(I->doc, j->kind, ps->v[i].path, ps->v[i].ref,
                                                &I->A);
    if (u[ii->nunmapped + n].path == NULL) return kf_nomem(e);
    if (strncmp(u[ii->nunmapped + n].path, "spec.", 5) == 0 &&
        kf_import_at(I->doc, u[ii->nunmapped + n].path) == NULL) {   /* the kind's default */
      char *d = kf_arena_alloc(&I->A, strlen(v) + 48);
      if (d == NULL) return kf_nomem(e);
      sprintf(d, "%s, unset: the kind's default", v);
      v = d;
    }
    u[ii->nunmapped + n].value = v;
    u[ii->nunmapped + n].reason = why;
    j->emit_ok = 0;
    n++;
  }
  if (n) ii->unmapped = u, ii->nunmapped += n, pr->state = 0;   /* the job changed */
  return KF_OK;
}

/* With kfjob_run_options::lint, the target's warnings for the job. */
static void import_warnings(imp *I, const kf_job *j, const kf_render_opts *ro, probs *pr,
                            kfjob_job *out) {
  const kf_problems *ps;
  kfjob_warning *w;
  size_t i;
  if (!I->o.lint || !ro->target_set || (ps = problems_of(I, j, ro, pr)) == NULL ||
      (w = (kfjob_warning *)kf_arena_alloc(&I->A, (ps->n + 1) * sizeof *w)) == NULL)
    return;
  for (i = 0; i < ps->n; i++)
    if (ps->v[i].sev == KF_SEV_WARN) {   /* named where they are in the manifest read */
      const char *at = kf_import_where(I->doc, j->kind, ps->v[i].path, ps->v[i].ref, &I->A);
      w[out->nwarnings].path = at ? at : ps->v[i].path;
      w[out->nwarnings].message = ps->v[i].message;
      w[out->nwarnings].rule = ps->v[i].rule ? ps->v[i].rule : "";
      w[out->nwarnings].source = ps->v[i].source ? ps->v[i].source : "";
      out->nwarnings++;
    }
  out->warnings = w;
}

/* A document's job and report to the callback, then its rendering `b`
** freed; the callback's nonzero return stops the import. */
static kfjob_status hand_over(imp *I, const kfjob_job *out, const kfjob_import_info *ii,
                              kf_buf *b) {
  int stop;
  if (too_many(I)) {
    kf_buf_free(b);
    return KFJOB_ELIMIT;
  }
  I->njobs++;
  stop = I->cb && I->cb(I->ud, out, ii) != 0;
  kf_buf_free(b);
  if (stop) {
    kfh_msg(I->h, "stopped by the callback");
    return KFJOB_ESTOPPED;
  }
  return KFJOB_OK;
}

/* Render one job read and hand it, with its report, to the callback. */
static kfjob_status emit(imp *I, const kf_job *jin, const kf_node *info, size_t doc,
                         size_t item, size_t line) {
  kf_job jcopy = *jin;
  const kf_job *j = &jcopy;
  kf_render_opts ro;
  kfjob_import_info ii;
  kfjob_job out;
  probs pr = {0};   /* the target's problems: walked once, when first needed */
  kf_buf b;
  kf_err e;
  kf_status st;
  if ((st = info_of(info, &I->A, doc, &ii, &e)) != KF_OK) return fail(I, KFJOB_EDATA, &e);
  ii.item = item, ii.line = line;
  if ((st = render_opts(I, j, info, &ro, &e)) != KF_OK) return fail(I, KFJOB_EJOB, &e);
  if ((st = lossy_drop(I, &jcopy, &ro, &pr, &ii, &e)) != KF_OK) return fail(I, KFJOB_EMEMORY, &e);
  kf_buf_init(&b, I->A.a);
  if ((st = template_image(I, j, &ro, &e)) == KF_OK) st = kf_render(j, &ro, &I->A, &b, &e);
  if (st == KF_OK && !kf_buf_addc(&b, '\0')) st = kf_nomem(&e);
  if (st != KF_OK) {
    const kfjob_problem *ps = NULL;
    size_t nps = 0;
    kf_buf_free(&b);
    if (st == KF_EINVAL) name_rule(I, j, &ro, &pr, &e, &ps, &nps);
    if (st == KF_EINVAL && nps == 0)   /* the writer's own check */
      kf_import_where_msg(I->doc, j->kind, e.msg, sizeof e.msg, &I->A);
    if (st != KF_EINVAL || !I->o.keep_going) return fail(I, KFJOB_EJOB, &e);
    return failed(I, j, &ii, &e, ps, nps);
  }
  memset(&out, 0, sizeof out);
  out.name = ro.manifest.name ? ro.manifest.name : ii.name;
  out.kind = kf_kinds[j->kind].name;
  out.task_type = kf_kinds[j->kind].task_type ? kf_kinds[j->kind].task_type : "";
  if (ro.target_set && ro.target == KF_T_CLUSTERED) out.task_type = KF_CLUSTERED_TASK_TYPE;
  out.version = ro.enc.version;
  out.format = (kfjob_format)ro.format;
  out.data = I->o.format == KFJOB_FORMAT_NONE ? NULL : b.p;
  out.size = I->o.format == KFJOB_FORMAT_NONE ? 0 : b.n - 1;
  out.index = I->njobs;
  if (I->o.format == KFJOB_FORMAT_MANIFEST || I->o.format == KFJOB_FORMAT_MANIFEST_JSON ||
      I->o.format == KFJOB_FORMAT_ENVIRONMENT)
    out.resource_name = out.name;
  import_warnings(I, j, &ro, &pr, &out);
  return hand_over(I, &out, &ii, &b);
}

/* A document of another kind, given as it is (kfjob_import_options::other):
** its data in the run's form of text, JSON for the JSON formats. */
static kfjob_status other_doc(imp *I, const kf_import_doc *d) {
  const kf_node *root = d->root;
  kfjob_format f = I->o.format;
  int json = f == KFJOB_FORMAT_JSON || f == KFJOB_FORMAT_MANIFEST_JSON ||
             f == KFJOB_FORMAT_TEMPLATE_JSON || f == KFJOB_FORMAT_TASKSPEC_JSON;
  const kf_node *meta = kf_node_get(root, "metadata");
  kfjob_import_info ii;
  kfjob_job out;
  kf_buf b;
  kf_err e;
  kf_status st;
  kf_buf_init(&b, I->A.a);
  st = json ? kf_node_to_json(root, 2, &b, &e) : kf_yaml(&root, 1, 2, &b, &e);
  if (st == KF_OK && json && !kf_buf_addc(&b, '\n')) st = kf_nomem(&e);
  if (st == KF_OK && !kf_buf_addc(&b, '\0')) st = kf_nomem(&e);
  if (st != KF_OK) {
    kf_buf_free(&b);
    return fail(I, KFJOB_EDATA, &e);
  }
  memset(&ii, 0, sizeof ii);
  memset(&out, 0, sizeof out);
  ii.document = d->doc, ii.item = d->item, ii.other = 1, ii.line = d->line;
  ii.copy_to_pods = 1;   /* kfjob.h: always non-zero */
  ii.kind = str_of(kf_node_get(root, "kind"));
  ii.api_version = str_of(kf_node_get(root, "apiVersion"));
  ii.name = str_of(kf_node_get(meta, "name"));
  ii.namespace_ = str_of(kf_node_get(meta, "namespace"));
  if (ii.name == NULL) ii.name = "";
  out.name = ii.name, out.kind = ii.kind ? ii.kind : "", out.task_type = "";
  out.format = json ? KFJOB_FORMAT_MANIFEST_JSON : KFJOB_FORMAT_MANIFEST;
  out.data = b.p, out.size = b.n - 1, out.index = I->njobs;
  return hand_over(I, &out, &ii, &b);
}

/* How messages name a document of a stream of nd: "document D (line L)",
** ", item I" for a List's item; "" for a stream of one document. */
static void doc_where(const kf_import_doc *d, size_t nd, char *out, size_t cap) {
  if (nd <= 1 && d->item == 0) out[0] = '\0';
  else if (d->item)
    snprintf(out, cap, ": document %zu (line %zu), item %zu", d->doc, d->line, d->item);
  else
    snprintf(out, cap, ": document %zu (line %zu)", d->doc, d->line);
}

/* Read a document of a stream of nd (a List's items counted): a document
** of another kind is skipped (or given as it is), a kind kfjob knows but
** does not read (a misspelt one) refused naming the document, a job
** imported and emitted. */
static kfjob_status one_doc(imp *I, const kf_import_doc *d, size_t nd) {
  kf_node *info;
  kf_job j;
  kf_err e;
  char who[128], where[96], why[512];
  int cls;
  if (d->root->t == KF_NNIL) return KFJOB_OK;
  doc_where(d, nd, where, sizeof where);
  cls = kf_import_classify(d->root, why, sizeof why);
  if (I->stream && cls <= 0) {
    if (cls == 0) return I->other ? other_doc(I, d) : KFJOB_OK;
    kfh_msg(I->h, "kfjob.from_manifests%s: %s", where, why);
    I->h->not_input = 1;   /* a kind or apiVersion kfjob refuses: not its input */
    return KFJOB_EDATA;
  }
  snprintf(who, sizeof who, "%s%s", I->stream ? "kfjob.from_manifests" : "kfjob.from_manifest",
           I->stream ? where : "");
  I->io.who = who;
  if (kf_import(d->root, &I->io, &I->A, &j, &info, &e) != KF_OK) {
    kfjob_status st = fail(I, KFJOB_EDATA, &e);
    I->h->not_input = st == KFJOB_EDATA && cls < 0;   /* refused for its kind alone */
    return st;
  }
  I->read++;
  I->doc = d->root;
  return emit(I, &j, info, d->doc, d->item, d->line);
}

/* A stream with no document of a kind kfjob reads: the first one's
** refusal (it lists the supported kinds), or "no job in the stream (it
** holds no document)"; a stream of
** several documents says that none of them is a job. */
static kfjob_status none_read(imp *I, const kf_import_doc *docs, size_t nd) {
  size_t i, n = 0, first = nd;
  kfjob_status st;
  char why[MSG_MAX], where[96];
  static const char prefix[] = "kfjob.from_manifest: ";
  for (i = 0; i < nd; i++)
    if (docs[i].root->t != KF_NNIL && n++ == 0) first = i;
  if (n == 0) {
    kfh_msg(I->h, "kfjob.from_manifests: no job in the stream (it holds no document)");
    return KFJOB_EDATA;
  }
  I->stream = 0;   /* read it alone: kf_import's refusal names the kinds */
  st = one_doc(I, &docs[first], nd);
  if (st != KFJOB_EDATA || n == 1) return st;
  snprintf(why, sizeof why, "%s", I->h->msg);
  doc_where(&docs[first], nd, where, sizeof where);
  kfh_msg(I->h, "kfjob.from_manifests: no job in the stream: none of its %zu documents "
          "is of a kind kfjob reads (other kinds are skipped); the first, %s: %s", n,
          where + 2, strncmp(why, prefix, sizeof prefix - 1) == 0 ? why + sizeof prefix - 1
                                                                 : why);
  return st;
}

/* The text -> its documents; the reader's refusals name line and path. */
static kfjob_status read_docs(imp *I, const char *text, size_t len,
                              kf_yaml_doc **docs, size_t *nd) {
  const char *who = I->stream ? "kfjob.from_manifests" : "kfjob.from_manifest";
  kf_yaml_limits lim;
  kf_yaml_where w;
  kf_err e;
  memset(&lim, 0, sizeof lim);
  lim.max_nodes = 10 * KF_YAML_MAX_NODES;   /* as the binding's streams */
  lim.max_docs = 16384;
  lim.yaml11 = 1;   /* as kubectl reads a manifest (sigs.k8s.io/yaml: go-yaml v2) */
  if (kf_yaml_read(&I->T, text, len, &lim, docs, nd, &w, &e) != KF_OK) {
    if (I->m.hit || e.code == KF_ENOMEM) return fail(I, KFJOB_EMEMORY, &e);
    if (w.doc && w.line)
      kfh_msg(I->h, "%s: document %zu, line %zu%s%s: %s", who, w.doc, w.line,
              w.path[0] ? ": " : "", w.path, w.what);
    else
      kfh_msg(I->h, "%s: %s", who, w.what[0] ? w.what : e.msg);
    I->h->not_input = w.not_text;   /* a NUL byte: no text at all */
    return KFJOB_EDATA;
  }
  if (!I->stream && (*nd != 1 || (*docs)[0].root->t == KF_NNIL)) {
    if (*nd > 1)
      kfh_msg(I->h, "%s: %zu documents: this reads one (kfjob.from_manifests reads a "
                    "stream)", who, *nd);
    else
      kfh_msg(I->h, "%s: no document", who);
    return KFJOB_EDATA;
  }
  return KFJOB_OK;
}

/* A stream's documents with each List's items in its place (kubectl's
** reading); a single manifest is read as it is. */
static kfjob_status flatten(imp *I, const kf_yaml_doc *docs, size_t nd,
                            kf_import_doc **flat, size_t *nf) {
  kf_err e;
  if (!I->stream) {   /* read_docs saw to it: one document */
    if ((*flat = (kf_import_doc *)kf_arena_alloc(&I->T, sizeof **flat)) == NULL) {
      kf_nomem(&e);
      return fail(I, KFJOB_EMEMORY, &e);
    }
    (*flat)->root = docs[0].root, (*flat)->doc = 1, (*flat)->line = docs[0].line;
    (*flat)->src = &docs[0];
    *nf = 1;
    return KFJOB_OK;
  }
  if (kf_import_flatten(docs, nd, &I->T, flat, nf, &e) == KF_OK) return KFJOB_OK;
  if (I->m.hit || e.code == KF_ENOMEM) return fail(I, KFJOB_EMEMORY, &e);
  kfh_msg(I->h, "kfjob.from_manifests: %s", e.msg);
  return KFJOB_EDATA;
}

/* The import options -> the core's (an unknown kind is the host's error). */
static kfjob_status import_opts(imp *I, const kfjob_import_options *io) {
  I->io.kind = -1, I->io.lossy = 0, I->stream = 0;
  if (io == NULL) return KFJOB_OK;
  I->io.lossy = io->lossy != 0;
  I->stream = io->stream != 0;
  I->other = I->stream && io->other != 0;
  if (io->kind && (I->io.kind = kf_kind_by_name(io->kind)) < 0) {
    kfh_msg(I->h, "kind: unknown kind '%s' (expected one of %s)", io->kind,
            kf_kind_names());
    return KFJOB_EARG;
  }
  return KFJOB_OK;
}

KFJOB_API kfjob_status kfjob_host_import_manifests(kfjob_host *h, const char *text,
                                         size_t len,
                                         const kfjob_import_options *io,
                                         const kfjob_run_options *o,
                                         kfjob_import_fn cb, void *ud) {
  imp I;
  kf_alloc a;
  kf_yaml_doc *docs = NULL;
  kf_import_doc *flat = NULL;
  size_t nd = 0, nf = 0, i;
  kfjob_status st;
  if (h == NULL || h->busy) return KFJOB_EARG;
  memset(&I, 0, sizeof I);
  I.h = h, I.cb = cb, I.ud = ud;
  h->msg[0] = '\0';
  h->not_input = 0;
  memset(&h->usage, 0, sizeof h->usage);   /* this call's (kfjob_host_usage) */
  if (o) I.o = *o;
  else kfjob_run_options_init(&I.o);
  if ((st = kfh_check_options(h, &I.o)) != KFJOB_OK) return st;
  if ((st = import_opts(&I, io)) != KFJOB_OK) return st;
  {   /* a target that runs the command as written keeps a TrainJob's launcher */
    kf_target t;
    kf_err e;
    I.io.keep_launcher = I.o.target && kf_target_parse(I.o.target, &t, "kfjob", "target", &e) ==
                         KF_OK && !KF_T_IS_TRAINER(t) && t != KF_T_CLUSTERED;
  }
  if (text == NULL) {
    kfh_msg(h, "the text is NULL");
    return KFJOB_EARG;
  }
  I.m.limit = h->opt.memory_limit;
  I.deadline_ns = kfh_deadline_ns(&I.o.time_limit_ms);
  a.f = meter_alloc, a.ud = &I.m;
  kf_arena_init(&I.T, a);
  kf_arena_init(&I.A, a);
  h->busy = 1;
  st = read_docs(&I, text, len, &docs, &nd);
  if (st == KFJOB_OK) st = flatten(&I, docs, nd, &flat, &nf);
  if (st == KFJOB_OK && I.other) {   /* no job at all: none_read's refusal alone */
    for (i = 0; i < nf && !kf_import_reads(flat[i].root); i++) {}
    I.other = i < nf;
  }
  /* a document's job, report and rendering are the callback's to copy:
  ** its memory is used again by the next (a stream's memory is its text's
  ** trees and one document's work, not every document's) */
  for (i = 0; st == KFJOB_OK && i < nf; i++) {
    if ((st = over_time(&I)) != KFJOB_OK) break;
    st = one_doc(&I, &flat[i], nf);
    kf_arena_reset(&I.A);
  }
  if (st == KFJOB_OK && I.stream && I.read == 0) st = none_read(&I, flat, nf);
  if (st == KFJOB_OK && I.nfailed) st = KFJOB_EJOB;   /* its message is the first's */
  h->busy = 0;
  h->usage.jobs = I.njobs;       /* as a run's: what reached the callback */
  h->usage.failed = I.nfailed;
  h->usage.memory_peak = I.m.peak;
  kf_arena_free(&I.A);
  kf_arena_free(&I.T);
  return st;
}

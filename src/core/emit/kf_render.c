/*
** kf_render.c - one job -> one output format (see kf_render.h).
**
** Each format does what its Lua method does with the same options (see
** src/lua/lkfjob.c, lkfjob_json.c, lkfjob_manifest.c): the same checks in
** the same order with the same messages, then the same core calls.
*/
#include <stdlib.h>
#include <string.h>

#include "kf_render.h"
#include "kf_wire.h"
#include "kf_json.h"
#include "kf_template.h"
#include "kf_env.h"
#include "kf_sched.h"

void kf_render_opts_init(kf_render_opts *o) {
  memset(o, 0, sizeof *o);
  o->format = KF_RENDER_PB;
  o->enc.version = 1;
}

/* version / replica_encoding, as lkf_encopts checks them. */
static kf_status check_enc(const kf_encopts *o, const char *who, kf_err *e) {
  if (o->version != 0 && o->version != 1)
    return kf_fail(e, KF_EINVAL, "%s: opts.version: unsupported task_type_version "
                   "%d (expected 0 or 1)", who, o->version);
  if (o->common && o->version == 0)
    return kf_fail(e, KF_EINVAL, "%s: opts.replica_encoding: \"common\" needs "
                   "version 1", who);
  return KF_OK;
}

/* JSON indent of to_json and task_template. */
static kf_status check_json_indent(int indent, const char *who, kf_err *e) {
  if (indent < 0 || indent > 16)
    return kf_fail(e, KF_EINVAL, "%s: opts.indent: expected an integer 0..16", who);
  return KF_OK;
}

/* indent of the YAML formats (0: libyaml's 2) and of manifest JSON. */
static kf_status check_range_indent(int *indent, int yaml, const char *who,
                                    kf_err *e) {
  int lo = yaml ? 2 : 0, hi = yaml ? 9 : 16;
  if (yaml && *indent == 0) *indent = 2;
  if (*indent < lo || *indent > hi)
    return kf_fail(e, KF_EINVAL, "%s: opts.indent: expected an integer from %d "
                   "to %d, got %d", who, lo, hi, *indent);
  return KF_OK;
}

/* The plugin message's JSON (compact) -> YAML appended to out. */
static kf_status job_yaml(const kf_job *j, const kf_encopts *o, int indent,
                          kf_arena *A, kf_buf *out, kf_err *e) {
  ProtobufCMessage *m;
  kf_node *doc;
  kf_buf json;
  kf_status st;
  if ((st = kf_job_to_msg(j, o, 0, A, &m, e)) != KF_OK) return st;
  kf_buf_init(&json, A->a);
  st = kf_msg_to_json(m, 0, &json, e);
  if (st == KF_OK) st = kf_json_parse(json.p, json.n, A, &doc, e);
  if (st == KF_OK) st = kf_yaml((const kf_node *const *)&doc, 1, indent, out, e);
  kf_buf_free(&json);
  return st;
}

static kf_status manifest(const kf_job *j, const kf_render_opts *o, kf_arena *A,
                          kf_buf *out, kf_err *e) {
  int yaml = o->format == KF_RENDER_MANIFEST, indent = o->indent;
  kf_manifest_opts mo = o->manifest;
  kf_node *doc;
  kf_status st;
  if (o->target_set && !mo.target_set) mo.target_set = 1, mo.target = o->target;
  if ((st = check_range_indent(&indent, yaml, o->who, e)) != KF_OK ||
      (st = kf_manifest(j, &mo, A, &doc, o->who, e)) != KF_OK)
    return st;
  if (!yaml) return kf_node_to_json(doc, indent, out, e);
  if ((st = kf_yaml((const kf_node *const *)&doc, 1, indent, out, e)) != KF_OK &&
      st != KF_ENOMEM) {
    char msg[KF_ERRMAX];
    memcpy(msg, e->msg, sizeof msg);
    return kf_fail(e, st, "%s: %s", o->who, msg);
  }
  return st;
}

/* The payload and template formats: the target (default flyte) takes the
** method and accepts the job (SPEC §11). */
static kf_status target_ok(const kf_job *j, const kf_render_opts *o,
                           unsigned emit, kf_arena *A, kf_err *e) {
  const char *method = o->who;
  /* a clustered task's JobSet names its pods after the job (R45) */
  const char *name = o->target_set && o->target == KF_T_CLUSTERED ? o->manifest.name : NULL;
  if (strncmp(method, "kfjob.", 6) == 0) method += 6;
  return kf_target_emit_named(j, o->target_set ? o->target : KF_T_FLYTE, emit, method,
                              o->who, o->enc.ctor, name, A, e);
}

/* The template formats: target_ok, then on flyte2 the job with its Kueue
** labels in its pod template, which Flyte 2 copies onto a PyTorchJob (SPEC
** §13 R30, kf_sched.c). */
static kf_status template_ok(const kf_job **j, const kf_render_opts *o,
                             unsigned emit, kf_arena *A, kf_err *e) {
  kf_status st = target_ok(*j, o, emit, A, e);
  if (st != KF_OK || !o->target_set || o->target != KF_T_FLYTE2) return st;
  return kf_sched_labels_in(*j, A, j, e);
}

/* The plugin message as JSON: straight from the job when compact v1
** (kf_wire_job.c), else through the message. */
static kf_status job_json(const kf_job *j, const kf_render_opts *o, kf_arena *A,
                          kf_buf *out, kf_err *e) {
  ProtobufCMessage *m;
  kf_status st;
  int indent = o->indent;
  if ((st = check_json_indent(indent, o->who, e)) != KF_OK ||
      (st = check_enc(&o->enc, o->who, e)) != KF_OK ||
      (st = target_ok(j, o, KF_E_ENCODE, A, e)) != KF_OK)
    return st;
  if (indent == 0 && o->enc.version == 1 && !o->enc.clustered) {   /* straight from the job */
    size_t at = out->n;
    if (kf_wire_job_json(j, o->enc.common, out)) {
      if (out->oom) {
        out->n = at;
        return kf_nomem(e);
      }
#ifdef KF_CHECK_BOUNDS  /* sanitizer and fuzz builds: what kf_msg_to_json writes */
      {
        size_t n = out->n - at;
        char *mine = kf_arena_alloc_raw(A, n + 1);
        if (mine == NULL) return kf_nomem(e);
        memcpy(mine, out->p + at, n);
        out->n = at;
        if ((st = kf_job_to_msg(j, &o->enc, 0, A, &m, e)) != KF_OK ||
            (st = kf_msg_to_json(m, 0, out, e)) != KF_OK)
          return st;
        if (out->n - at != n || memcmp(out->p + at, mine, n) != 0) abort();
      }
#endif
      return KF_OK;
    }
  }
  if ((st = kf_job_to_msg(j, &o->enc, 0, A, &m, e)) != KF_OK) return st;
  return kf_msg_to_json(m, indent, out, e);
}

int kf_render_kube(kf_render_format f) {
  return f == KF_RENDER_MANIFEST || f == KF_RENDER_MANIFEST_JSON || f == KF_RENDER_ENVIRONMENT;
}

kf_target kf_render_target(const kf_render_opts *o) {
  return o->target_set ? o->target : kf_render_kube(o->format) ? KF_T_OPERATOR : KF_T_FLYTE;
}

kf_status kf_render(const kf_job *j, const kf_render_opts *o0, kf_arena *A,
                    kf_buf *out, kf_err *e) {
  Flyteidl__Core__TaskTemplate *t;
  kf_status st;
  kf_render_opts ro = *o0;   /* flyte2-clustered: the ClusteredTaskSpec */
  const kf_render_opts *o = &ro;
  int indent = o->indent;
  kf_job one;
  if (o->target_set) j = kf_job_for_target(j, o->target, &one);
  ro.enc.clustered = o->target_set && o->target == KF_T_CLUSTERED;
  if (o->format != KF_RENDER_MANIFEST && o->format != KF_RENDER_MANIFEST_JSON &&
      o->format != KF_RENDER_ENVIRONMENT &&
      (st = kf_need_task_type(j->kind, o->who, e)) != KF_OK)
    return st;
  switch (o->format) {
    case KF_RENDER_PB:
      if ((st = check_enc(&o->enc, o->who, e)) != KF_OK ||
          (st = target_ok(j, o, KF_E_ENCODE, A, e)) != KF_OK)
        return st;
      return kf_encode(j, &o->enc, A, out, e);
    case KF_RENDER_JSON:
      return job_json(j, o, A, out, e);
    case KF_RENDER_YAML:
      if ((st = check_range_indent(&indent, 1, o->who, e)) != KF_OK ||
          (st = check_enc(&o->enc, o->who, e)) != KF_OK ||
          (st = target_ok(j, o, KF_E_ENCODE, A, e)) != KF_OK)
        return st;
      return job_yaml(j, &o->enc, indent, A, out, e);
    case KF_RENDER_TEMPLATE:
      if ((st = check_enc(&o->enc, o->who, e)) != KF_OK ||
          (st = template_ok(&j, o, KF_E_TEMPLATE, A, e)) != KF_OK)
        return st;
      return kf_task_template_bytes(j, &o->enc, o->template_opts, A, out,
                                    o->who, e);
    case KF_RENDER_TEMPLATE_JSON:
      if ((st = check_enc(&o->enc, o->who, e)) != KF_OK ||
          (st = check_json_indent(indent, o->who, e)) != KF_OK ||
          (st = template_ok(&j, o, KF_E_TEMPLATE, A, e)) != KF_OK ||
          (st = kf_task_template(j, &o->enc, o->template_opts, A, &t, o->who,
                                    e)) != KF_OK)
        return st;
      return kf_msg_to_json(&t->base, indent, out, e);
    case KF_RENDER_TASKSPEC:
      if ((st = check_enc(&o->enc, o->who, e)) != KF_OK ||
          (st = template_ok(&j, o, KF_E_TASKSPEC, A, e)) != KF_OK)
        return st;
      return kf_task_spec_bytes(j, &o->enc, o->template_opts, A, out, o->who, e);
    case KF_RENDER_TASKSPEC_JSON: {
      Flyteidl__Admin__TaskSpec *ts;
      if ((st = check_enc(&o->enc, o->who, e)) != KF_OK ||
          (st = check_json_indent(indent, o->who, e)) != KF_OK ||
          (st = template_ok(&j, o, KF_E_TASKSPEC, A, e)) != KF_OK ||
          (st = kf_task_spec(j, &o->enc, o->template_opts, A, &ts, o->who, e)) != KF_OK)
        return st;
      return kf_msg_to_json(&ts->base, indent, out, e);
    }
    case KF_RENDER_MANIFEST:
    case KF_RENDER_MANIFEST_JSON:
      return manifest(j, o, A, out, e);
    case KF_RENDER_ENVIRONMENT: {
      kf_manifest_opts mo = o->manifest;
      kf_node *doc;
      if (o->target_set && !mo.target_set) mo.target_set = 1, mo.target = o->target;
      if ((st = check_json_indent(indent, o->who, e)) != KF_OK ||
          (st = kf_environment(j, &mo, A, &doc, o->who, e)) != KF_OK)
        return st;
      return kf_node_to_json(doc, indent, out, e);
    }
  }
  return kf_fail(e, KF_EINVAL, "kfjob: unknown output format %d", (int)o->format);
}

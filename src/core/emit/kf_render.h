/*
** kf_render.h - one job -> the bytes of one output format, with the options
** as a C struct.  Composes the core's encoders (kf_encode, kf_job_to_msg +
** kf_msg_to_json, the TaskTemplate and manifest builders, kf_yaml) exactly
** as the Lua methods job:encode, job:to_json, job:task_template and
** job:manifest do, including their error messages ("kfjob.to_json:
** opts.indent: ...", the name from kf_render_opts.who).  Lua-free: the
** host API renders through it.
*/
#ifndef KF_RENDER_H
#define KF_RENDER_H

#include "kf_job.h"
#include "kf_pb.h"
#include "kf_emit.h"
#include "kf_yaml.h"

/* Same order as kfjob_format in include/kfjob.h (without "none"). */
typedef enum kf_render_format {
  KF_RENDER_PB,             /* plugin message bytes        (job:encode) */
  KF_RENDER_JSON,           /* its proto3 JSON             (job:to_json) */
  KF_RENDER_YAML,           /* that JSON document as YAML */
  KF_RENDER_TEMPLATE,       /* TaskTemplate bytes          (job:task_template) */
  KF_RENDER_TEMPLATE_JSON,  /* the TaskTemplate as JSON */
  KF_RENDER_MANIFEST,       /* kubeflow.org/v1 resource, YAML (job:manifest) */
  KF_RENDER_MANIFEST_JSON,  /* the resource as JSON */
  /* kfjob_format's NONE sits here */
  KF_RENDER_TASKSPEC = KF_RENDER_MANIFEST_JSON + 2,  /* admin.TaskSpec bytes
                                                        (job:task_spec) */
  KF_RENDER_TASKSPEC_JSON,  /* the TaskSpec as JSON */
  KF_RENDER_ENVIRONMENT     /* every pod's environment, JSON (job:environment) */
} kf_render_format;

typedef struct kf_render_opts {
  kf_render_format format;
  kf_encopts enc;           /* version 0 or 1; common ("common" replica
                               encoding, version 1 only); not for manifests */
  int indent;               /* JSON formats: 0 compact, 1..16; YAML formats:
                               0 (the default, 2) or 2..9 */
  const kf_node *template_opts;  /* TaskTemplate and TaskSpec formats: id,
                                    container, config (and for TaskSpecs
                                    interface, metadata) as
                                    kf_task_template / kf_task_spec take
                                    them; NULL: none */
  kf_manifest_opts manifest;     /* manifest and environment formats: name
                                    is required */
  int target_set;           /* 0: each format's default target (flyte for
                               the payloads and templates, operator for
                               manifests unless manifest.target_set) */
  kf_target target;         /* the job must pass its rules (SPEC §11) */
  const char *who;          /* required: the method's name prefixing errors
                               ("kfjob.encode", "kfjob.to_json" also for
                               YAML, "kfjob.task_template",
                               "kfjob.task_spec",
                               "kfjob.manifest") */
} kf_render_opts;

/* Defaults: KF_RENDER_PB, version 1, flat replicas, no indent, no options. */
void kf_render_opts_init(kf_render_opts *o);

/* The target a rendering holds the job to: o's own, else the format's
** default (a manifest's or environment's the operator, a payload's
** Flyte). */
kf_target kf_render_target(const kf_render_opts *o);
/* Whether format f is a Kubernetes resource (a manifest, its JSON, a
** pod's environment). */
int kf_render_kube(kf_render_format f);

/* Append the job rendered as o->format to `out`; temporary memory comes
** from `A`.  Errors read like the Lua method's ("<o->who>: ...");
** KF_ENOMEM when memory ran out. */
kf_status kf_render(const kf_job *j, const kf_render_opts *o, kf_arena *A,
                    kf_buf *out, kf_err *e);

#endif

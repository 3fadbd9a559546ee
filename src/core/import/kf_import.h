/*
** kf_import.h - manifests read back into jobs (SPEC §14): a manifest as a
** kf_node tree in Kubernetes' spelling (kubeflow.org/v1 TFJob, PyTorchJob,
** MPIJob, JAXJob, XGBoostJob, PaddleJob; kubeflow.org/v2beta1 MPIJob;
** trainer.kubeflow.org/v1alpha1 TrainJob) -> a validated kf_job and a
** report of what carried over.  Sits above schema and codec, beside kube:
** it inverts what kube's writers build but calls none of them.
*/
#ifndef KF_IMPORT_H
#define KF_IMPORT_H

#include "kf_job.h"
#include "kf_target.h"

typedef struct kf_import_opts {
  int kind;             /* -1: from the manifest; else the kind to read as
                           (Elastic for a TrainJob, HorovodJob for an MPIJob) */
  int lossy;            /* list what kfjob cannot hold instead of failing */
  const char *who;      /* prefixes errors ("kfjob.from_manifest") */
} kf_import_opts;

/* The report (`info`) as a node: kind, api_version, target, name,
** namespace, labels, annotations, container = {
** command, args, env}, unmapped = {{path, value, reason}...}, ignored =
** {paths}.  Errors name the manifest path: "<who>: spec.x.y: <problem>". */
kf_status kf_import(const kf_node *doc, const kf_import_opts *o, kf_arena *A,
                    kf_job *out, kf_node **info, kf_err *e);

/* Whether the document's apiVersion and kind are ones kfjob reads (a
** stream's other documents are skipped). */
int kf_import_reads(const kf_node *doc);
/* "kubeflow.org/v1 TFJob, ... or trainer.kubeflow.org/v1alpha1 TrainJob" */
const char *kf_import_supported(void);

/* The job as a config writes it (kf_import_config.c): its spec without
** every key whose absence gives the same job, in the rows' order; NULL
** when out of memory.  Trials allocate in A (reset it between jobs). */
kf_node *kf_config_minimal(const kf_job *j, kf_arena *A);

#endif

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
#include "kf_yaml_read.h"

typedef struct kf_import_opts {
  int kind;             /* -1: from the manifest; else the kind to read as
                           (Elastic for a TrainJob, HorovodJob for an MPIJob) */
  int lossy;            /* list what kfjob cannot hold instead of failing */
  const char *who;      /* prefixes errors ("kfjob.from_manifest") */
  int keep_launcher;    /* the job is written for a target that runs the
                           command as written (operator, flyte): a torch
                           TrainJob's `torchrun --no-python` stays in the
                           command when it starts more than one process a
                           node, so the pods run as many (kf_import_trainer.c) */
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
/* What a stream's document is to import (kf_import_docs.c): 1 a job kfjob
** reads, 0 a document of another kind (copied through or skipped), -1 a
** refusal in `why` (a kind of kubeflow.org, trainer.kubeflow.org or
** Flyte's groups kfjob does not read, another version of a job kind, a
** near-miss of one: "PytorchJob", with its did-you-mean). */
int kf_import_classify(const kf_node *doc, char *why, size_t cap);

/* A stream's document, or an item of a List document in its place. */
typedef struct kf_import_doc {
  kf_node *root;
  size_t doc;                /* 1-based, in the stream */
  size_t item;               /* 1-based place in the List's items; 0: none */
  size_t line;               /* where it starts */
  const kf_yaml_doc *src;    /* the stream's document it is (in) */
} kf_import_doc;

/* The documents with each List's items in its place (kind List, or a
** typed list such as PyTorchJobList: kubectl flattens both; an item of a
** typed list without apiVersion and kind gets the list's); a List in a
** List, or an item that is not an object, is refused ("document D,
** items[I]: ...").  Allocates in A. */
kf_status kf_import_flatten(const kf_yaml_doc *docs, size_t nd, kf_arena *A,
                            kf_import_doc **out, size_t *n, kf_err *e);
/* "kubeflow.org/v1 TFJob, ... or trainer.kubeflow.org/v1alpha1 TrainJob" */
const char *kf_import_supported(void);

/* The job as a config writes it (kf_import_config.c): its spec without
** every key whose absence gives the same job, in the rows' order; NULL
** when out of memory.  Trials allocate in A (reset it between jobs). */
kf_node *kf_config_minimal(const kf_job *j, kf_arena *A);

/* Where a target rule's problem (its path and ref, kf_problem) with a job
** of kind `kind` read from `doc` is in that manifest, for a kubeflow.org
** one (kf_import_where.c): a replica spec's row
** (spec.mpiReplicaSpecs.Launcher.restartPolicy), a main container's field
** (the item of args holding the reference ref), a run policy row, a gang
** field, a pod template's field (a group's in its replica's template, the
** job's in the first that holds it; list items 0-based); `path` itself
** when the manifest has no such place (another
** apiVersion, a field of no row); NULL: out of memory. */
const char *kf_import_where(const kf_node *doc, int kind, const char *path, const char *ref,
                            kf_arena *A);
/* Error message `msg` ("<who>: <kfjob path>: <problem>", cap bytes)
** rewritten in place to name the manifest's path (kf_import_where, list
** items 0-based in the problem too); unchanged when it has none. */
void kf_import_where_msg(const kf_node *doc, int kind, char *msg, size_t cap, kf_arena *A);
/* The node at manifest path `path` in `doc` (object keys and 0-based
** list items: "spec.runPolicy.cleanPodPolicy", "...containers[0].env[2]");
** NULL: none there. */
const kf_node *kf_import_at(const kf_node *doc, const char *path);
/* A refusal lossy may leave out, what the target cannot express and runs
** without: a group's restart policy (R13; the system's own applies) and,
** on Trainer, a gang field of the run policy's schedulingPolicy (R28: a
** TrainJob has none; the runtime's podGroupPolicy applies) and the pod
** template container's imagePullPolicy or ports (R23: the kubelet's
** default; ports declare nothing). */
int kf_import_droppable(const kf_problem *p, kf_target t);
/* Problem p's field taken out of j: its value as compact JSON (an arena
** string), NULL when it names none (or no memory: *oom). */
const char *kf_import_drop(kf_job *j, const kf_problem *p, kf_arena *A, int *oom);

#endif

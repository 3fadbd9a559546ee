/*
** kf_pod.h - pod settings of a job (SPEC 2.4): the pod template's check
** against the PodTemplateSpec schema of the training-operator CRDs (tables
** generated at build time by scripts/podschema.py from
** schema/podtemplatespec.json), the rule relating the pod settings, and
** what the TaskTemplate and manifest writers ask of them.
*/
#ifndef KF_POD_H
#define KF_POD_H

#include "kf_job.h"

/* Generated schema tables (kf_podschema.c). */
enum { KF_PS_OBJ, KF_PS_MAP, KF_PS_ARR, KF_PS_STR, KF_PS_INT, KF_PS_BOOL,
       KF_PS_INTSTR };
#define KF_PSF_INT32 1u
#define KF_PSF_QTY   2u
typedef struct kf_pschema {
  uint8_t type, flags;
  uint16_t names;   /* OBJ: first of its sorted property names (NULL ends) */
  uint16_t n;       /* OBJ: number of properties */
  uint16_t item;    /* MAP: value schema; ARR: item schema */
  uint16_t req, enm, keys;  /* runs in kf_pschema_strs (0: none) */
} kf_pschema;
extern const kf_pschema kf_pschema_nodes[];
extern const unsigned kf_pschema_root;
extern const char *const kf_pschema_names[];
extern const uint16_t kf_pschema_kids[];
extern const char *const kf_pschema_strs[];

#define KF_PRIMARY_DEFAULT "primary"
#define KF_SHM_PATH "/dev/shm"
#define KF_SHM_VOLUME "flyte-shared-memory"

extern const kf_tree kf_pod_template_tree;
/* Whether mount path p (n bytes) is /dev/shm after cleaning (Go's
** path.Clean: "/dev/shm/", "//dev/shm", "/dev/shm/." are). */
int kf_pod_is_shm_path(const char *p, size_t n);
/* Accelerator and shared memory against the template (listed in every
** kind's rules). */
kf_status kf_rule_pod(const kf_job *j, int style, const char *who, kf_err *e);

/* A container's env list against the CRD's EnvVar schema (a canonical
** copy in *out); errors "<who>: <path>[i]...: <problem>". */
kf_status kf_pod_check_env(const kf_node *in, kf_arena *A, const kf_node **out,
                           const char *who, const char *path, kf_err *e);
/* validateEnv over a checked env list; `owner` is the path of what holds
** it ("container", "worker.container"). */
kf_status kf_pod_api_env(const kf_node *env, kf_arena *A, const char *who,
                         const char *owner, kf_err *e);

/* The API server's pod validation rules a template alone can show
** (kf_pod_api.c); errors "<who>: <prefix>.<path>: <problem>". */
kf_status kf_pod_api_check(const kf_node *tmpl, kf_arena *A, const char *who,
                           const char *prefix, kf_err *e);
/* accelerator.<field> (device, partition_size) as a label value. */
kf_status kf_pod_api_accel(const char *field, const char *value, const char *who,
                           kf_err *e);

/* The template's primary container name (default "primary"), and its
** primary container (NULL when the template lists none). */
const char *kf_pod_primary_name(const kf_node *tmpl);
const kf_node *kf_pod_primary(const kf_node *tmpl, size_t *index);


/* Manifests (kf_pod_manifest.c).  The backend's default node labels for
** an accelerator (flytek8s config gpu-device-node-label,
** gpu-partition-size-node-label) and the GPU resource name. */
#define KF_ACCEL_LABEL "k8s.amazonaws.com/accelerator"
#define KF_PARTITION_LABEL "k8s.amazonaws.com/gpu-partition-size"
#define KF_GPU_RESOURCE "nvidia.com/gpu"

#endif

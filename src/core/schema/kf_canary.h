/*
** kf_canary.h - the canary fields (issue 40): with -DKFJOB_CANARY_FIELDS=ON
** one field per place of KF_PLACES (kf_schema.h) that rows can be placed
** in, each only its member and its row, as the checklist of
** docs/ARCHITECTURE.md adds a field.  spec/canary_spec.lua proves each
** reaches every output its place has on every target and is refused with
** its place's rule where a target has none.  No other file names a
** canary: kf_job.h takes the members, kf_schema.c the rows, by the macros
** below (empty in a normal build).
*/
#ifndef KF_CANARY_H
#define KF_CANARY_H

#ifdef KFJOB_CANARY_FIELDS

/* members: of kf_group, of kf_run_policy, of kf_job */
#define KF_CANARY_GROUP_MEMBERS \
  const char *canary_replica, *canary_container, *canary_pod;
#define KF_CANARY_RUN_POLICY_MEMBERS int32_t canary_run_policy;
#define KF_CANARY_JOB_MEMBERS \
  const char *canary_mpi_spec, *canary_elastic, *canary_metadata;
/* of kf_container (the job's: the TaskTemplate container's place) */
#define KF_CANARY_CONTAINER_MEMBERS const char *canary_task_container;
/* the run policy's zero bit of canary_run_policy (after KF_RPZ_*) */
#define KF_CANARY_RPZ 8u

/* rows, after the last of their list (G, RP, J: kf_schema.c's offsets) */
#define KF_CANARY_GROUP_ROWS                                                  \
  {.key = "canary_replica", .type = KF_V_TOKEN, .flags = KF_F_PLACED,        \
   .off = G(canary_replica), .manifest = "canaryReplica",                    \
   .place = KF_M_REPLICA,                                                    \
   .desc = "Canary of the replica spec (a canary build only)"},              \
  {.key = "canary_container", .type = KF_V_TOKEN, .flags = KF_F_PLACED,      \
   .off = G(canary_container), .manifest = "canaryContainer",                \
   .place = KF_M_CONTAINER,                                                  \
   .desc = "Canary of the container (a canary build only)"},                 \
  {.key = "canary_pod", .type = KF_V_TOKEN, .flags = KF_F_PLACED,            \
   .off = G(canary_pod), .manifest = "canaryPod", .place = KF_M_POD,         \
   .desc = "Canary of the pod spec (a canary build only)"},
#define KF_CANARY_RUN_POLICY_ROWS                                             \
  {.key = "canary_run_policy", .type = KF_V_INT,                             \
   .flags = KF_F_PLACED | KF_F_OMITZERO, .off = RP(canary_run_policy),       \
   .off_n = RP(zero), .zbit = KF_CANARY_RPZ, .min = 0,                       \
   .manifest = "canaryRunPolicy", .place = KF_M_RUN_POLICY,                  \
   .desc = "Canary of the run policy (a canary build only)"},
/* in the mpi-operator's rows, every kind's whole-job rows (a leading
** comma: after a list's last row) and an Elastic job's */
#define KF_CANARY_MPI_SPEC_ROWS                                               \
  , {.key = "canary_mpi_spec", .type = KF_V_TOKEN, .flags = KF_F_PLACED,     \
     .off = J(canary_mpi_spec), .manifest = "canaryMpiSpec",                 \
     .place = KF_M_MPI_SPEC,                                                 \
     .desc = "Canary of the mpi-operator's spec (a canary build only)"}
#define KF_CANARY_METADATA_ROWS                                               \
  , {.key = "canary_metadata", .type = KF_V_TOKEN, .flags = KF_F_PLACED,     \
     .off = J(canary_metadata), .manifest = "canaryMetadata",                \
     .place = KF_M_METADATA,                                                 \
     .desc = "Canary of the resource's metadata (a canary build only)"}
#define KF_CANARY_ELASTIC_ROWS                                                \
  {.key = "canary_elastic", .type = KF_V_TOKEN, .flags = KF_F_PLACED,        \
   .off = J(canary_elastic), .manifest = "canaryElastic",                    \
   .place = KF_M_ELASTIC,                                                    \
   .desc = "Canary of the elastic policy (a canary build only)"},
/* in the job's container rows (CT: kf_schema.c's offsets): the TaskTemplate
** container is flyteidl core.Container, a fixed message, so the canary,
** no field of it, is refused there with the place's rule, as on every
** target without the place */
#define KF_CANARY_TASK_CONTAINER_ROWS                                         \
  , {.key = "canary_task_container", .type = KF_V_TOKEN,                     \
     .flags = KF_F_PLACED, .off = CT(canary_task_container),                 \
     .place = KF_M_TASK_CONTAINER,                                           \
     .desc = "Canary of the TaskTemplate container (a canary build only)"}

#else

#define KF_CANARY_GROUP_MEMBERS
#define KF_CANARY_RUN_POLICY_MEMBERS
#define KF_CANARY_JOB_MEMBERS
#define KF_CANARY_GROUP_ROWS
#define KF_CANARY_RUN_POLICY_ROWS
#define KF_CANARY_MPI_SPEC_ROWS
#define KF_CANARY_METADATA_ROWS
#define KF_CANARY_ELASTIC_ROWS
#define KF_CANARY_CONTAINER_MEMBERS
#define KF_CANARY_TASK_CONTAINER_ROWS

#endif
#endif

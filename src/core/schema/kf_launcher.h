/*
** kf_launcher.h - the MPI / Horovod launcher command of a job.
*/
#ifndef KF_LAUNCHER_H
#define KF_LAUNCHER_H

#include "kf_job.h"

/* The `mpirun ...` (MPIJob) or `horovodrun ...` (HorovodJob) argument list
** flytekit builds, up to and including its flags, then `args`. */
kf_status kf_launcher_command(const kf_job *j, const kf_strs *args,
                              kf_arena *A, kf_node **out, const char *who,
                              kf_err *e);

#endif

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

/* An MPIJob launcher's mpirun line as flytekit writes it
** (flytekitplugins-kfmpi _get_mpi_launcher_command), up to and including
** -np (its value, workers x slots, follows), NULL-ended: the writer's
** (kf_launcher_command) and the import's, which recognises the line. */
extern const char *const kf_mpirun_flags[];
/* A HorovodJob's values that only its horovodrun line carries (log level,
** discovery script, elastic timeout, --verbose) read from `args`, a line
** of push_launcher's shape: set in *j (strings copied to A) when the line
** made again from them is args' first items, item for item; returns that
** length, else 0 and *j unchanged. */
size_t kf_horovod_line_read(kf_job *j, const char *const *args, size_t n, kf_arena *A);

/* The command starts a launcher of its own (torchrun, python -m
** torch.distributed.run): Trainer runs it as written, not wrapped in
** `torchrun --no-python` (Trainer v2.3 examples/yaml/01-multi-node.yaml). */
int kf_starts_launcher(const char *const *v, size_t n);
/* The command starts an MPI launcher (mpirun, mpiexec, mpiexec.hydra,
** horovodrun, any directory): a launcher line written by hand. */
int kf_mpi_tool(const char *const *v, size_t n);
/* Whether a TrainJob's command `cmd` is kfjob's to wrap: a PyTorch job on
** the shipped runtime (the job's runtime unset) not starting a launcher
** (JAX and XGBoost runtimes run the command as written).  A job
** that names its runtime runs its command and numProcPerNode as written. */
int kf_trainer_wraps(const kf_job *j, const char *const *cmd, size_t n);
/* Whether Trainer runs kind `kind` on torch-distributed, whose command
** kfjob wraps in torchrun (PyTorchJob, Elastic). */
int kf_trainer_wraps_kind(int kind);
/* The group whose container every TrainJob node runs: the master where the
** kind has one and the job keeps it, else the workers. */
int kf_trainer_role(const kf_job *j);
/* A TrainJob's numNodes: an elastic job's fixed count, else the master (if
** any) and the workers. */
int64_t kf_trainer_nodes(const kf_job *j);
/* The row that leaves a TrainJob's numNodes to the runtime's
** mlPolicy.numNodes ("runtime_trainer": no spec.trainer at all;
** "runtime_nodes"), or NULL when the job writes its own count. */
const char *kf_trainer_runtime_count(const kf_job *j);

#endif

/*
** fuzz_decode.c - libFuzzer target for kf_decode (kfjob.decode).
** The first byte picks the task type, the version and the kind refinement:
**   b0 % 8: 0 tensorflow v0, 1 tensorflow v1, 2 pytorch v0, 3 pytorch v1,
**           4 mpi v0, 5 mpi v1, 6 mpi/HorovodJob v0, 7 mpi/HorovodJob v1.
** The rest is the message.  Accepted jobs go through fz_check_job.
*/
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const types[4] = {"tensorflow", "pytorch", "mpi", "mpi"};
  kf_arena A;
  kf_err e;
  kf_job j;
  kf_status st;
  int sel, kind;
  if (size < 1) return 0;
  sel = data[0] % 8;
  kind = sel >= 6 ? KF_HOROVOD : -1;
  kf_arena_init(&A, FZ_ALLOC);
  st = kf_decode(types[sel / 2], kind, sel % 2, data + 1, size - 1, &A, &j,
                 "kfjob.decode", &e);
  fz_note("decode", st, &e);
  if (st == KF_OK) fz_check_decoded(&j), fz_check_job(&j);
  else fz_error(st, &e, "kfjob.decode: ");
  kf_arena_free(&A);
  return 0;
}

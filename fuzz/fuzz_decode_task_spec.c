/*
** fuzz_decode_task_spec.c - libFuzzer target for
** kf_decode_task_spec (kfjob.decode_task_spec): flyteidl.admin.TaskSpec bytes,
** or its JSON when the text starts with '{'.  The first byte picks the
** kind refinement (b0 % 2: none or HorovodJob); the rest is the input.
*/
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kf_arena A;
  kf_err e;
  kf_job j;
  kf_node *info = NULL;
  kf_status st;
  int kind;
  if (size < 1) return 0;
  kind = data[0] % 2 ? KF_HOROVOD : -1;
  kf_arena_init(&A, FZ_ALLOC);
  st = kf_decode_task_spec((const char *)data + 1, size - 1, kind, &A, &j,
                               &info, "kfjob.decode_task_spec", &e);
  fz_note("decode_task_spec", st, &e);
  if (st == KF_OK) {
    if (info == NULL || info->t != KF_NOBJ) FZ_FAIL("no info object");
    fz_check_job(&j);
  } else {
    fz_error(st, &e, "kfjob.decode_task_spec: ");
  }
  kf_arena_free(&A);
  return 0;
}

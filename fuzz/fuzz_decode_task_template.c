/*
** fuzz_decode_task_template.c - libFuzzer target for
** kf_decode_task_template (kfjob.decode_task_template): TaskTemplate bytes,
** or its JSON when the text starts with '{'.  The first byte picks the
** kind refinement (b0 % 2: none or HorovodJob); the rest is the input.
*/
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fz_task_decoder_target(data, size, kf_decode_task_template, "kfjob.decode_task_template", 1);
}

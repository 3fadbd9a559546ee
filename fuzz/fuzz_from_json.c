/*
** fuzz_from_json.c - libFuzzer target for kf_json_parse + kf_from_json
** (kfjob.from_json).  The first byte picks the task type, the version, the
** kind refinement and allow_unknown:
**   b0 % 8 as in fuzz_decode.c; bit 3: allow_unknown.
** The rest is JSON text.  The parsed tree is also fed to kf_job_from_spec
** as a constructor table of kind b0 / 16 % 8 (JSON objects make good
** constructor tables), and kf_node_to_json must render it.
** kf_json_parse reads with kf_json_scan and falls back to jansson for
** what the scanner leaves; wherever the scanner answers, jansson's reader
** must accept the same text and build the same tree (doubles bit for bit).
*/
#include <math.h>

#include "fuzz_common.h"
#include "kf_json_int.h"

static void check_readers(const char *s, size_t n) {
  kf_arena A;
  kf_node *fast, *slow;
  kf_err e;
  kf_arena_init(&A, FZ_ALLOC);
  if (kf_json_scan(s, n, &A, &fast) == KF_SCAN_OK) {
    kf_status st = kf_json_parse_jansson(s, n, &A, &slow, &e);
    if (st == KF_OK && !kf_tree_same(fast, slow))
      FZ_FAIL("kf_json_scan and jansson build different trees");
    if (st != KF_OK && st != KF_ENOMEM)
      FZ_FAIL("kf_json_scan accepts what jansson refuses: %s", e.msg);
  }
  kf_arena_free(&A);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const types[4] = {"tensorflow", "pytorch", "mpi", "mpi"};
  kf_arena A;
  kf_buf b;
  kf_err e;
  kf_job j;
  kf_node *root;
  kf_status st;
  int sel, kind, allow, ck;
  if (size < 1) return 0;
  sel = data[0] % 8;
  allow = (data[0] >> 3) & 1;
  ck = (data[0] >> 4) % KF_NKINDS;
  kind = sel >= 6 ? KF_HOROVOD : -1;
  kf_arena_init(&A, FZ_ALLOC);
  kf_buf_init(&b, FZ_ALLOC);
  check_readers((const char *)data + 1, size - 1);
  st = kf_json_parse((const char *)data + 1, size - 1, &A, &root, &e);
  if (st != KF_OK) {
    fz_note("json_parse", st, &e);
    fz_error(st, &e, NULL);
  } else {
    if (kf_node_to_json(root, 0, &b, &e) != KF_OK)
      fz_error(KF_ELIMIT, &e, NULL);   /* only the depth limit may refuse */
    st = kf_from_json(types[sel / 2], kind, sel % 2, root, allow, &A, &j,
                      "kfjob.from_json", &e);
    fz_note("from_json", st, &e);
    if (st == KF_OK) fz_check_decoded(&j), fz_check_job(&j);
    else fz_error(st, &e, "kfjob.from_json: ");
    st = kf_job_from_spec(ck, root, &A, &j, fz_ctor(ck), &e);
    fz_note(fz_ctor(ck), st, &e);
    if (st == KF_OK) fz_check_job(&j);
    else fz_error(st, &e, fz_ctor(ck));
  }
  kf_buf_free(&b);
  kf_arena_free(&A);
  return 0;
}

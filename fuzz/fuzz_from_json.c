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
** kfjob.from_json reads the plain shape to_json writes in one pass
** (kf_json_fast_msg, through kf_from_json_text); wherever that path
** answers, the full path (kf_json_parse, kf_node_to_msg, kf_from_json)
** must build the same message (packed bytes) and end the same (status,
** message, job); where it gives up, the arena must be as it was.
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

/* The message the fast path built against the full path's, packed. */
static void same_msg(const ProtobufCMessage *a, const ProtobufCMessage *b) {
  size_t na = protobuf_c_message_get_packed_size(a);
  size_t nb = protobuf_c_message_get_packed_size(b);
  uint8_t *pa, *pb;
  if (na != nb) FZ_FAIL("fast path: message of %zu bytes, full path %zu", na, nb);
  if ((pa = malloc(na + 1)) == NULL || (pb = malloc(nb + 1)) == NULL) abort();
  protobuf_c_message_pack(a, pa);
  protobuf_c_message_pack(b, pb);
  if (memcmp(pa, pb, na) != 0) FZ_FAIL("fast path and full path build different messages");
  free(pa);
  free(pb);
}

/* The fast path's message and result against the full path's. */
static void check_fast(const char *s, size_t n, const char *tt, int kind, int version,
                       int allow) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(tt, version);
  ProtobufCMessage *fm, *sm;
  kf_arena A;
  kf_node *root;
  kf_err e1, e2;
  kf_job j1, j2;
  kf_status st1, st2;
  int done;
  if (d == NULL) return;
  kf_arena_init(&A, FZ_ALLOC);
  if (!kf_json_fast_msg(s, n, d, &A, &fm)) {
    if (kf_arena_used(&A) != 0 || A.total != 0 || fm != NULL)
      FZ_FAIL("the fast path gave up but left %zu bytes in the arena", kf_arena_used(&A));
    kf_arena_free(&A);
    return;
  }
  fz_note("fast_path", KF_OK, NULL);
  st2 = kf_json_parse(s, n, &A, &root, &e2);
  if (st2 == KF_OK) st2 = kf_node_to_msg(root, d, allow, &A, &sm, "w", &e2);
  if (st2 != KF_OK && st2 != KF_ENOMEM)
    FZ_FAIL("the fast path accepts what the full path refuses: %s", e2.msg);
  if (st2 == KF_OK) {
    same_msg(fm, sm);
    st1 = kf_from_json_text(tt, kind, version, s, n, &A, &j1, &done, "w", &e1);
    if (!done) FZ_FAIL("kf_from_json_text gave up on text kf_json_fast_msg reads");
    st2 = kf_from_json(tt, kind, version, root, allow, &A, &j2, "w", &e2);
    if (st1 != st2 || (st1 != KF_OK && strcmp(e1.msg, e2.msg) != 0))
      FZ_FAIL("fast path: %d '%s', full path: %d '%s'", (int)st1, st1 ? e1.msg : "",
              (int)st2, st2 ? e2.msg : "");
    if (st1 == KF_OK && !kf_job_equal(&j1, &j2))
      FZ_FAIL("the fast path and the full path make different jobs");
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
  check_fast((const char *)data + 1, size - 1, types[sel / 2], kind, sel % 2, allow);
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

/*
** fuzz_decode.c - libFuzzer target for kf_decode (kfjob.decode).
** The first byte picks the task type, the version and the kind refinement:
**   b0 % 8: 0 tensorflow v0, 1 tensorflow v1, 2 pytorch v0, 3 pytorch v1,
**           4 mpi v0, 5 mpi v1, 6 mpi/HorovodJob v0, 7 mpi/HorovodJob v1.
** The rest is the message.  Accepted jobs go through fz_check_job.
** Every input also runs decode's two paths apart: where the reader of the
** bytes (kf_wire_read_job) takes them, its job must be the message path's
** (kf_decode_msg), and so must the outcome of the checks.
*/
#include "fuzz_common.h"
#include "kf_wire.h"

/* The v1 bytes of a decoded job (flat), for comparing two jobs beyond
** kf_job_equal's rows; 0 when it has none. */
static size_t fz_bytes(const kf_job *j, kf_arena *A, kf_buf *b) {
  kf_encopts o;
  kf_err e;
  memset(&o, 0, sizeof o);
  o.version = 1;
  b->n = 0;
  return kf_encode(j, &o, A, b, &e) == KF_OK ? b->n : 0;
}

static void fz_two_paths(const char *tt, int kind, int version, const uint8_t *p,
                         size_t n) {
  const ProtobufCMessageDescriptor *d = kf_msg_desc(tt, version);
  kf_arena A, B;
  kf_err ef, em;
  kf_job jf, jm;
  kf_status sf, sm;
  int fast;
  kf_arena_init(&A, FZ_ALLOC);
  kf_arena_init(&B, FZ_ALLOC);
  fast = kf_wire_read_job(d, kind < 0 ? kf_kind_for_task_type(tt) : kind, version, p, n,
                          &A, &jf);
  sm = kf_decode_msg(tt, kind, version, p, n, &B, &jm, "kfjob.decode", &em);
  fz_note(fast ? "decode reader: took the bytes" : "decode reader: gave up", KF_OK, &em);
  if (fast) {
    sf = kf_job_check(&jf, version ? KF_PATH_V1 : KF_PATH_V0, "kfjob.decode", &ef);
    if (sf != sm)
      FZ_FAIL("decode paths differ: reader %d, message path %d (%s)", (int)sf, (int)sm,
              sm ? em.msg : "ok");
    if (sm != KF_OK && strcmp(ef.msg, em.msg) != 0)
      FZ_FAIL("decode paths' errors differ: '%s' vs '%s'", ef.msg, em.msg);
    if (sm == KF_OK && !kf_job_equal(&jf, &jm))
      FZ_FAIL("decode paths' jobs differ (%s v%d)", tt, version);
    if (sm == KF_OK) {
      kf_buf bf, bm;
      size_t nf, nm;
      kf_buf_init(&bf, FZ_ALLOC);
      kf_buf_init(&bm, FZ_ALLOC);
      nf = fz_bytes(&jf, &A, &bf);
      nm = fz_bytes(&jm, &B, &bm);
      if (nf != nm || (nf && memcmp(bf.p, bm.p, nf) != 0))
        FZ_FAIL("decode paths' jobs encode differently (%s v%d)", tt, version);
      kf_buf_free(&bf);
      kf_buf_free(&bm);
    }
  }
  kf_arena_free(&A);
  kf_arena_free(&B);
}

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
  fz_two_paths(types[sel / 2], kind, sel % 2, data + 1, size - 1);
  return 0;
}

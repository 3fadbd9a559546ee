/*
** fuzz_from_manifest.c - libFuzzer target for kf_import (manifests read
** back, SPEC §14).  The input is YAML text (a stream); its first byte
** chooses opts.lossy (bit 0) and opts.kind (the rest: none, or one of the
** kinds, so every kind is asked of every shape).  Besides "no crash, no leak, no UB", properties that
** abort:
**   - an error has status EINVAL or ELIMIT (ENOMEM aside) and a message
**     starting with the reader's name;
**   - a job read holds to spec(): kf_job_from_spec(kf_job_to_spec(j)) == j;
**   - Law 1 as a fixed point: the operator manifest of a job read reads
**     back, and that job's manifest reads back as the same job.
*/
#include "fuzz_common.h"
#include "kf_import.h"
#include "kf_yaml_read.h"

static void law1(const kf_job *j, kf_arena *A) {
#ifdef FZ_HAVE_MANIFEST
  kf_manifest_opts mo;
  kf_import_opts io = {-1, 0, "kfjob.from_manifest", 0};
  kf_node *m, *info;
  kf_job j1, j2;
  kf_err e;
  memset(&mo, 0, sizeof mo);
  mo.name = "fuzz", mo.image = "img:1";
  io.kind = j->kind;
  if (kf_manifest(j, &mo, A, &m, "kfjob.manifest", &e) != KF_OK) return;
  if (kf_import(m, &io, A, &j1, &info, &e) != KF_OK)
    FZ_FAIL("kfjob's own manifest does not read back: %s", e.msg);
  if (kf_manifest(&j1, &mo, A, &m, "kfjob.manifest", &e) != KF_OK)
    FZ_FAIL("a job read back cannot be emitted again: %s", e.msg);
  if (kf_import(m, &io, A, &j2, &info, &e) != KF_OK || !kf_job_equal(&j1, &j2))
    FZ_FAIL("read back twice, the job differs");
#else
  (void)j, (void)A;
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const kf_yaml_limits lim = {0, 16, 20000, 0, 0, 1};   /* YAML 1.1, as kubectl */
  kf_import_opts io = {-1, 0, "kfjob.from_manifest", 0};
  kf_yaml_doc *docs;
  kf_import_doc *flat = NULL;
  size_t nd, nf = 0, i;
  kf_arena A;
  kf_err e;
  kf_status st;
  if (size == 0) return 0;
  io.lossy = data[0] & 1;
  io.kind = (int)((data[0] >> 1) % (KF_NKINDS + 1)) - 1;
  kf_arena_init(&A, FZ_ALLOC);
  st = kf_yaml_read(&A, (const char *)data + 1, size - 1, &lim, &docs, &nd, NULL, &e);
  /* a stream as kfjob.from_manifests and the host read it: Lists
  ** flattened, each document classified (a refusal says why) */
  if (st == KF_OK) {
    kf_status sf = kf_import_flatten(docs, nd, &A, &flat, &nf, &e);
    if (sf != KF_OK) {
      fz_error(sf, &e, "document");
      nf = 0;
    }
  }
  for (i = 0; i < nf; i++) {
    char why[512];
    int c = kf_import_classify(flat[i].root, why, sizeof why);
    if (c == 1 && !kf_import_reads(flat[i].root)) FZ_FAIL("classified a job kfjob does not read");
    if (c < 0 && why[0] == '\0') FZ_FAIL("a refused document without a reason");
    if (c >= 0 && why[0] != '\0') FZ_FAIL("a reason for a document not refused");
    if (flat[i].doc < 1 || flat[i].doc > nd) FZ_FAIL("a flattened document out of the stream");
  }
  for (i = 0; st == KF_OK && i < nf; i++) {
    kf_node *info, *spec;
    kf_job j, back;
    kf_status s2 = kf_import(flat[i].root, &io, &A, &j, &info, &e);
    if (s2 != KF_OK) {
      fz_error(s2, &e, "kfjob.from_manifest");
      continue;
    }
    if ((spec = kf_job_to_spec(&j, &A)) == NULL) FZ_FAIL("spec() of a job read");
    if (kf_job_from_spec(j.kind, spec, &A, &back, fz_ctor(j.kind), &e) != KF_OK ||
        !kf_job_equal(&j, &back))
      FZ_FAIL("spec() round trip of a job read");
    law1(&j, &A);
  }
  kf_arena_free(&A);
  return 0;
}

/*
** fuzz_spec.c - libFuzzer target for the constructors: kf_job_from_spec,
** kf_group_from_spec, kf_run_policy_from_spec and kf_node_merge (with()),
** fed with kf_node trees built from the input by a tiny deterministic
** decoder (below), so the fuzzer explores shapes a Lua table can have.
**
** Input: b0 = selector, then one tree (two for mode 3):
**   b0 % 4        0 job, 1 replica group, 2 RunPolicy, 3 job:with(overrides)
**   (b0 / 4) % 8  job kind (TFJob, PyTorchJob, Elastic, MPIJob, HorovodJob,
**                 JAXJob, XGBoostJob, PaddleJob: the kf_kind order)
**   (b0 / 4) % 6  group role (Worker, PS, Chief, Evaluator, Master, Launcher)
**
** Tree encoding (fuzz/make_corpus.lua writes the same format; it reads the
** dictionaries between the KEYS/STRINGS/TAGS markers of this file):
**   T = next byte, T % 8:
**     0 nil                     1 boolean (T >> 3) & 1
**     2 integer (T >> 3) - 8    3 integer: next 8 bytes, little endian
**     4 number: next 8 bytes (IEEE double, little endian)
**     5 string: STRINGS[next byte % n]
**     6 string: length byte L, then L bytes
**     7 table: s = T >> 3; s & 1: object (else list); (s >> 1) & 7 items;
**       s & 16: tagged object, next byte picks TAGS[]; each object item is
**       preceded by a key: byte k < 0xF0: KEYS[k % n], else a length byte
**       and that many bytes.
**   Missing input reads as zero bytes.
*/
#include <math.h>

#include "fuzz_common.h"

/* KEYS-BEGIN */
static const char *const KEYS[] = {
    "worker", "ps", "chief", "evaluator", "master", "launcher", "run_policy",
    "num_workers", "num_ps_replicas", "num_chief_replicas",
    "num_evaluator_replicas", "num_launcher_replicas", "nnodes",
    "nproc_per_node", "max_restarts", "rdzv_backend", "slots", "verbose",
    "log_level", "discovery_script_path", "elastic_timeout", "replicas",
    "image", "requests", "limits", "restart_policy", "command", "cpu", "mem",
    "memory", "gpu", "ephemeral_storage", "clean_pod_policy",
    "ttl_seconds_after_finished", "active_deadline_seconds", "backoff_limit",
    "worker.replicas", "worker.requests.cpu", "run_policy.backoff_limit",
    "ps.replicas", "launcher.command", "worker.image", "a.b", ".", "worker.",
    ".worker", "replcas", "wroker", "", "kind", "task_type"};
/* KEYS-END */
/* STRINGS-BEGIN */
static const char *const STRINGS[] = {
    "", "0", "1", "2", "500m", "4Gi", "1.5", "-1", "1e3", "0x10", "+1", ".5",
    "1Ki", "1ki", "1E", "never", "on_failure", "always", "Never", "OnFailure",
    "Always", "RESTART_POLICY_ON_FAILURE", "none", "running", "all", "None",
    "CLEANPOD_POLICY_ALL", "c10d", "etcd", "etcd-v2", "2:4", "1:1", "0:1",
    "4:2", "1:", ":1", "1:2:3", "2147483647", "2147483648", "-2147483649",
    "img:1", "has space", "tab\tx", "INFO", "DEBUG", "/etc/mpi/discover_hosts.sh",
    "python", "train.py", "\xff\xfe", "\xc3\xa9", "x\n", "auto", "cpu", "gpu"};
/* STRINGS-END */
/* TAGS-BEGIN */
static const char *const TAGS[] = {
    "kfjob.TFJob", "kfjob.PyTorchJob", "kfjob.Elastic", "kfjob.MPIJob",
    "kfjob.HorovodJob", "kfjob.Worker", "kfjob.PS", "kfjob.Chief",
    "kfjob.Evaluator", "kfjob.Master", "kfjob.Launcher", "kfjob.RunPolicy",
    "kfjob.Other", "kfjob.JAXJob", "kfjob.XGBoostJob", "kfjob.PaddleJob"};
/* TAGS-END */

#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef struct rd {
  const uint8_t *p;
  size_t n;
  kf_arena *A;
  int depth;
} rd;

static uint8_t byte(rd *r) {
  if (r->n == 0) return 0;
  r->n--;
  return *r->p++;
}

static uint64_t u64(rd *r) {
  uint64_t v = 0;
  int i;
  for (i = 0; i < 8; i++) v |= (uint64_t)byte(r) << (8 * i);
  return v;
}

static kf_node *raw_str(rd *r) {
  size_t len = byte(r), i;
  char buf[256];
  for (i = 0; i < len; i++) buf[i] = (char)byte(r);
  return kf_node_str(r->A, buf, len);
}

static kf_node *tree(rd *r) {
  uint8_t t = byte(r);
  kf_node *n;
  switch (t % 8) {
    case 0: return kf_node_new(r->A, KF_NNIL);
    case 1:
      if ((n = kf_node_new(r->A, KF_NBOOL)) != NULL) n->u.b = (t >> 3) & 1;
      return n;
    case 2: return kf_node_int(r->A, (int64_t)(t >> 3) - 8);
    case 3: return kf_node_int(r->A, (int64_t)u64(r));
    case 4: {
      uint64_t bits = u64(r);
      if ((n = kf_node_new(r->A, KF_NNUM)) != NULL) memcpy(&n->u.d, &bits, sizeof bits);
      return n;
    }
    case 5: {
      const char *s = STRINGS[byte(r) % N(STRINGS)];
      return kf_node_str(r->A, s, strlen(s));
    }
    case 6: return raw_str(r);
    default: {
      unsigned s = t >> 3, items = (s >> 1) & 7, i;
      int obj = s & 1;
      if (r->depth >= 80) return kf_node_new(r->A, KF_NNIL);
      if ((n = kf_node_new(r->A, obj ? KF_NOBJ : KF_NARR)) == NULL) return NULL;
      if (obj && (s & 16)) n->tag = TAGS[byte(r) % N(TAGS)];
      r->depth++;
      for (i = 0; i < items; i++) {
        const char *key = NULL;
        kf_node *v;
        if (obj) {
          uint8_t k = byte(r);
          if (k < 0xF0) {
            key = KEYS[k % N(KEYS)];
          } else {
            kf_node *ks = raw_str(r);
            if (ks == NULL) return NULL;
            key = ks->u.s.p;
          }
        }
        if ((v = tree(r)) == NULL || !kf_node_push(r->A, n, key, v)) return NULL;
      }
      r->depth--;
      return n;
    }
  }
}

static const char *const gctors[KF_NROLES] = {
    "kfjob.Worker", "kfjob.PS", "kfjob.Chief", "kfjob.Evaluator",
    "kfjob.Master", "kfjob.Launcher"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kf_arena A;
  kf_err e;
  kf_job j;
  kf_status st;
  rd r;
  kf_node *n, *over;
  int mode, kind, role;
  if (size < 1) return 0;
  mode = data[0] % 4;
  kind = (data[0] / 4) % KF_NKINDS;
  role = (data[0] / 4) % KF_NROLES;
  kf_arena_init(&A, FZ_ALLOC);
  r.p = data + 1;
  r.n = size - 1;
  r.A = &A;
  r.depth = 0;
  if ((n = tree(&r)) == NULL) FZ_FAIL("tree: out of memory");
  switch (mode) {
    case 0:
      st = kf_job_from_spec(kind, n, &A, &j, fz_ctor(kind), &e);
      fz_note(fz_ctor(kind), st, &e);
      if (st == KF_OK) fz_check_job(&j);
      else fz_error(st, &e, fz_ctor(kind));
      break;
    case 1: {
      kf_group g;
      st = kf_group_from_spec(role, n, &A, &g, gctors[role], &e);
      fz_note(gctors[role], st, &e);
      if (st == KF_OK) {
        /* a group object used as a job field gives the same group */
        kf_node *gn = kf_group_to_spec(&g, &A), *jn = kf_node_new(&A, KF_NOBJ);
        if (gn == NULL || jn == NULL) FZ_FAIL("out of memory");
        gn->tag = gctors[role];
        if (!kf_node_push(&A, jn, kf_roles[role].key, gn)) FZ_FAIL("out of memory");
        if (role != KF_WORKER) {
          kf_node *w = kf_node_new(&A, KF_NOBJ);
          if (w == NULL || !kf_obj_int(&A, w, "replicas", 1) ||
              !kf_node_push(&A, jn, "worker", w))
            FZ_FAIL("out of memory");
        }
        st = kf_job_from_spec(kind, jn, &A, &j, fz_ctor(kind), &e);
        if (st == KF_OK) fz_check_job(&j);
        else fz_error(st, &e, fz_ctor(kind));
      } else {
        fz_error(st, &e, gctors[role]);
      }
      break;
    }
    case 2: {
      kf_run_policy rp;
      st = kf_run_policy_from_spec(n, &rp, "kfjob.RunPolicy", "", &e);
      fz_note("kfjob.RunPolicy", st, &e);
      if (st == KF_OK) {
        if (kf_run_policy_to_spec(&rp, &A) == NULL) FZ_FAIL("run policy to spec");
      } else {
        fz_error(st, &e, "kfjob.RunPolicy");
      }
      break;
    }
    default:
      st = kf_job_from_spec(kind, n, &A, &j, fz_ctor(kind), &e);
      fz_note(fz_ctor(kind), st, &e);
      if (st != KF_OK) {
        fz_error(st, &e, fz_ctor(kind));
        break;
      }
      if ((over = tree(&r)) == NULL) FZ_FAIL("tree: out of memory");
      {
        kf_node *base = kf_job_to_spec(&j, &A);
        kf_job w;
        if (base == NULL) FZ_FAIL("to spec");
        st = kf_node_merge(&A, base, over, fz_ctor(kind), &e);
        if (st == KF_OK) st = kf_job_from_spec(kind, base, &A, &w, fz_ctor(kind), &e);
        fz_note("with", st, &e);
        if (st == KF_OK) fz_check_job(&w);
        else fz_error(st, &e, fz_ctor(kind));
      }
      break;
  }
  kf_arena_free(&A);
  return 0;
}

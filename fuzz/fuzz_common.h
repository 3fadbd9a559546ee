/*
** fuzz_common.h - shared by the libFuzzer targets in fuzz/.
**
** The targets call the Lua-free core directly (kf_decode, kf_json_parse,
** kf_from_json, kf_decode_task_template, kf_job_from_spec).  Besides "no
** crash, no leak, no UB" (ASan + UBSan), every job an entry point accepts is
** checked against properties the specification promises, and a violation
** aborts so libFuzzer reports it:
**   - every error has a message starting with the entry point's name;
**   - spec() round trip: kf_job_from_spec(kf_job_to_spec(j)) == j;
**   - wire round trip: decode(encode(j)) == j for v1 flat, v1 common and
**     (when the job fits) v0;
**   - JSON round trip: from_json(to_json(j)) == j (via kf_json_parse);
**   - TaskTemplate round trip: decode_task_template(task_template(j)) == j;
**   - manifest, lint, YAML and JSON rendering never crash.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_pb.h"
#include "kf_json.h"
#include "kf_template.h"
#include "kf_pod.h"
#if defined(__has_include)
#if __has_include("kf_manifest.h")
#include "kf_emit.h"
#include "kf_yaml.h"
#define FZ_HAVE_MANIFEST 1
#endif
#endif

static void *fz_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(p);
    return NULL;
  }
  return realloc(p, nsize);
}

static const kf_alloc FZ_ALLOC = {fz_alloc, NULL};

#define FZ_FAIL(...)                                   \
  do {                                                 \
    fprintf(stderr, "\nfuzz property violated: ");     \
    fprintf(stderr, __VA_ARGS__);                      \
    fputc('\n', stderr);                               \
    abort();                                           \
  } while (0)

/* An error from an entry point: a message naming it, never "no message". */
static void fz_error(kf_status st, const kf_err *e, const char *prefix) {
  if (st == KF_ENOMEM) return;     /* malloc refused a huge request */
  if (st != KF_EINVAL && st != KF_ELIMIT) FZ_FAIL("status %d", (int)st);
  if (e->code != st) FZ_FAIL("kf_err.code %d but status %d", (int)e->code, (int)st);
  if (prefix && strncmp(e->msg, prefix, strlen(prefix)) != 0)
    FZ_FAIL("error message without the '%s' prefix: %s", prefix, e->msg);
  if (e->msg[0] == '\0') FZ_FAIL("empty error message");
}

/* KFJOB_FUZZ_VERBOSE=1: print each entry point's outcome (for replaying
** one input by hand: ./fuzz_decode fuzz/regressions/decode/FILE). */
static void fz_note(const char *what, kf_status st, const kf_err *e) {
  static int verbose = -1;
  if (verbose < 0) verbose = getenv("KFJOB_FUZZ_VERBOSE") != NULL;
  if (verbose) fprintf(stderr, "%s: %s\n", what, st == KF_OK ? "ok" : e->msg);
}

static const char *fz_task_type(const kf_job *j) {
  return kf_kinds[j->kind].task_type;
}

/* "kfjob.<Kind>", from the kind rows (so a new kind needs no edit here). */
static inline const char *fz_ctor(int kind) {
  static char names[KF_NKINDS][40];
  if (names[kind][0] == '\0')
    snprintf(names[kind], sizeof names[kind], "kfjob.%s", kf_kinds[kind].name);
  return names[kind];
}

/* A decoder's job: never a kind without a Flyte task type (SPEC §12). */
static inline void fz_check_decoded(const kf_job *j) {
  if (kf_kinds[j->kind].task_type == NULL)
    FZ_FAIL("a decoder produced a %s, which has no task type", kf_kinds[j->kind].name);
}

/* A kind without a Flyte task type: every Flyte output refuses it with the
** same message, and it has no versions. */
static void fz_check_no_task_type(const kf_job *j, kf_arena *A, kf_buf *b,
                                  kf_encopts *o) {
  Flyteidl__Core__TaskTemplate *t;
  ProtobufCMessage *m;
  kf_err e;
  kf_status st;
  o->version = 1;
  o->common = 0;
  st = kf_encode(j, o, A, b, &e);
  if (st != KF_EINVAL || !strstr(e.msg, " has no Flyte task type"))
    FZ_FAIL("encode of a %s: %s", kf_kinds[j->kind].name, st ? e.msg : "accepted");
  st = kf_job_to_msg(j, o, 0, A, &m, &e);
  if (st != KF_EINVAL || !strstr(e.msg, " has no Flyte task type"))
    FZ_FAIL("kf_job_to_msg of a %s: %s", kf_kinds[j->kind].name, st ? e.msg : "accepted");
  st = kf_task_template(j, o, NULL, A, &t, "kfjob.task_template", &e);
  if (st != KF_EINVAL || strncmp(e.msg, "kfjob.task_template: ", 21) != 0)
    FZ_FAIL("task_template of a %s: %s", kf_kinds[j->kind].name, st ? e.msg : "accepted");
  if (kf_job_versions(j) != 0) FZ_FAIL("versions of a %s", kf_kinds[j->kind].name);
}

/* The round trips a valid job must survive.  Uses its own arena.
** What the plugin message cannot carry is compared against `jw`, the job as
** it comes back: an Elastic job with the integer nnodes = 1 is a
** "python-task" (not in its bytes: it returns as "1:1"), and a HorovodJob's
** own fields (verbose, log_level, discovery_script_path, elastic_timeout)
** are not in the MPI message (they return as the defaults).  An MPI worker
** command fits version 0 only inside a TaskTemplate (kf_job_versions counts
** that), so a v0 encode may refuse it. */
/* Whether a container holds anything once its name is left out. */
static int fz_container_set(const kf_container *c) {
  return c->image || c->ncommand || c->nargs || c->env || c->name;
}

/* Whether a live group restarts on ExitCode (the operator's policy only). */
static int fz_has_exit_code(const kf_job *j) {
  int r;
  for (r = 0; r < KF_NROLES; r++)
    if (j->g[r].restart_policy == KF_RP_EXIT_CODE) return 1;   /* replicas 0 too */
  return 0;
}

static int fz_has_ext_res(const kf_job *j) {
  int r;
  if (j->requests_ext != NULL || j->limits_ext != NULL) return 1;
  for (r = 0; r < KF_NROLES; r++)
    if (j->g[r].requests_ext != NULL || j->g[r].limits_ext != NULL) return 1;
  return 0;
}

static void fz_check_job(const kf_job *j) {
  kf_job jw = *j, jt;
  const kf_node *prim = kf_pod_primary(j->pod_template, NULL);
  /* a template primary's env comes back in info.container.env (SPEC 2.4) */
  int tt_exact = kf_node_get(prim, "env") == NULL;
  kf_arena A;
  kf_buf b;
  kf_err e;
  kf_job r;
  kf_node *n;
  kf_status st;
  kf_encopts o;
  int v, common, kind;
  char ctor[40];
  memset(&o, 0, sizeof o);   /* the plugin message, not a clustered task */
  kf_arena_init(&A, FZ_ALLOC);
  kf_buf_init(&b, FZ_ALLOC);
  if (kf_job_check(j, KF_PATH_SPEC, "check", &e) != KF_OK)
    FZ_FAIL("an accepted job fails kf_job_check: %s", e.msg);

  /* spec() round trip */
  snprintf(ctor, sizeof ctor, "kfjob.%s", kf_kinds[j->kind].name);
  if ((n = kf_job_to_spec(j, &A)) == NULL) FZ_FAIL("kf_job_to_spec: NULL");
  if ((st = kf_job_from_spec(j->kind, n, &A, &r, ctor, &e)) != KF_OK)
    FZ_FAIL("spec() of an accepted job is rejected: %s", e.msg);
  if (!kf_job_equal(j, &r)) FZ_FAIL("spec() round trip changed the job");

  o.ctor = ctor;
  if (fz_task_type(j) == NULL) {   /* operator-only: manifests alone */
    fz_check_no_task_type(j, &A, &b, &o);
    goto manifests;
  }

  /* wire round trips: v1 flat, v1 common, v0 when it fits */
  kind = j->kind == KF_HOROVOD ? KF_HOROVOD : -1;
#ifdef FZ_HAVE_MANIFEST
  /* an nproc_per_node word has no int32 in the payload: the payload
  ** targets refuse it (R10), so there is no payload to round-trip */
  if (j->nproc_word != NULL) {
    if (kf_target_emit(j, KF_T_FLYTE, KF_E_ENCODE, "encode", "kfjob.encode", ctor,
                       &A, &e) == KF_OK)
      FZ_FAIL("a job with nproc_per_node '%s' passes flyte's rules", j->nproc_word);
    goto payloads_done;
  }
  /* nor has a restart policy of ExitCode (the plugin's enum stops at
  ** ALWAYS: R13 refuses it on Flyte, so kf_encode never sees it) */
  if (fz_has_exit_code(j)) {
    if (kf_target_emit(j, KF_T_FLYTE, KF_E_ENCODE, "encode", "kfjob.encode", ctor,
                       &A, &e) == KF_OK)
      FZ_FAIL("a job with restart_policy exit_code passes flyte's rules");
    goto payloads_done;
  }
  /* nor has an extended resource (the plugin's Resources name five; R56) */
  if (fz_has_ext_res(j)) {
    if (kf_target_emit(j, KF_T_FLYTE, KF_E_ENCODE, "encode", "kfjob.encode", ctor,
                       &A, &e) == KF_OK)
      FZ_FAIL("a job with an extended resource passes flyte's rules");
    goto payloads_done;
  }
  /* nor has a PyTorchJob of workers only (Flyte always sends a Master, R53) */
  if (j->kind == KF_PYTORCH && j->g[KF_MASTER].replicas == 0) {
    if (kf_target_emit(j, KF_T_FLYTE, KF_E_ENCODE, "encode", "kfjob.encode", ctor,
                       &A, &e) == KF_OK)
      FZ_FAIL("a PyTorchJob without a master passes flyte's rules");
    goto payloads_done;
  }
#endif
  if (kf_python_task(j)) jw.nnodes_int = 0;
  if (j->kind == KF_HOROVOD) {
    jw.verbose = 0;
    jw.log_level = "INFO";
    jw.discovery_script_path = "/etc/mpi/discover_hosts.sh";
    jw.elastic_timeout = 1200;
  }
  /* nor the fields of other targets' resources: Trainer's runtime, the
  ** mpi-operator's, the operator's elastic policy and a PyTorchJob's
  ** nprocPerNode, a Flyte 2 clustered task's */
  jw.runtime = NULL, jw.runtime_patch_manager = NULL;
  jw.runtime_nodes = jw.runtime_trainer = 0;
  jw.ssh_auth_mount_path = jw.mpi_implementation = jw.launcher_creation_policy = NULL;
  jw.run_launcher_as_worker = 0;
  jw.rdzv_host = jw.rdzv_id = NULL;
  jw.rdzv_port = 0, jw.standalone = 0;
  jw.rdzv_conf = jw.metrics = NULL;
  jw.given_default = 0;   /* an elastic default given: the operator's alone */
  jw.interconnect = NULL, jw.restart_on_host_maintenance = 0;
  if (jw.kind == KF_PYTORCH) jw.nproc_per_node = 0, jw.nproc_word = NULL;
  jw.container.name = NULL;   /* (the TaskTemplate's container has no name) */
  jw.has_container = fz_container_set(&jw.container) && jw.has_container;
  for (v = 0; v < KF_NROLES; v++) {
    jw.g[v].container.name = NULL;
    jw.g[v].has_container = fz_container_set(&jw.g[v].container) && jw.g[v].has_container;
  }
  /* nor a run-policy value given as 0 (proto3 leaves 0 out: unset) */
  jw.rp.zero = 0;
  /* nor where the resource lives: Flyte sets namespace, labels and
  ** annotations from the execution (the TaskTemplate has none either) */
  jw.ns = NULL;
  jw.labels = jw.annotations = NULL;
  /* the TaskTemplate carries the pod settings; the plugin message not */
  jt = jw;

  jw.pod_template = NULL;
  jw.shared_memory = NULL;
  jw.has_accelerator = 0;
  memset(&jw.accel, 0, sizeof jw.accel);
  memset(jw.requests, 0, sizeof jw.requests);
  memset(jw.limits, 0, sizeof jw.limits);
  /* nor what the pods run or where (the whole job) */
  jw.has_container = 0;
  memset(&jw.container, 0, sizeof jw.container);
  for (v = 0; v < KF_NROLES; v++) {
    jw.g[v].has_container = 0;
    memset(&jw.g[v].container, 0, sizeof jw.g[v].container);
  }
  for (v = 0; v <= 1; v++)
    for (common = 0; common <= v; common++) {
      o.version = v;
      o.common = common;
      o.ctor = ctor;
      b.n = 0;
      st = kf_encode(j, &o, &A, &b, &e);
      if (v == 0 && !(kf_job_versions(j) & 1u)) {
        if (st == KF_OK) FZ_FAIL("v0 encode of a job versions() says v0 cannot express");
        continue;
      }
      if (v == 0 && st != KF_OK && j->g[KF_WORKER].ncommand &&
          (kf_kinds[j->kind].flags & KF_K_COMMAND))
        continue;
      if (st != KF_OK) FZ_FAIL("encode v%d%s failed: %s", v, common ? " common" : "", e.msg);
      st = kf_decode(fz_task_type(j), kind, v, (const uint8_t *)b.p, b.n, &A, &r,
                    "kfjob.decode", &e);
      if (st != KF_OK)
        FZ_FAIL("decode(encode(j)) v%d%s failed: %s", v, common ? " common" : "", e.msg);
      if (!kf_job_equal(&jw, &r))
        FZ_FAIL("decode(encode(j)) v%d%s != j", v, common ? " common" : "");
    }

  /* JSON round trip (v1) */
  {
    ProtobufCMessage *m;
    kf_node *root;
    o.version = 1;
    o.common = 0;
    if (kf_job_to_msg(j, &o, 0, &A, &m, &e) != KF_OK) FZ_FAIL("kf_job_to_msg: %s", e.msg);
    b.n = 0;
    if (kf_msg_to_json(m, 0, &b, &e) != KF_OK) FZ_FAIL("kf_msg_to_json: %s", e.msg);
    if (kf_json_parse(b.p, b.n, &A, &root, &e) != KF_OK)
      FZ_FAIL("to_json output does not parse: %s\n%.*s", e.msg, (int)b.n, b.p);
    if (kf_from_json(fz_task_type(j), kind, 1, root, 0, &A, &r, "kfjob.from_json",
                     &e) != KF_OK)
      FZ_FAIL("from_json(to_json(j)) failed: %s", e.msg);
    if (!kf_job_equal(&jw, &r)) FZ_FAIL("from_json(to_json(j)) != j");
    if (kf_msg_to_node(m, &A) == NULL) FZ_FAIL("kf_msg_to_node: NULL");
  }

  /* TaskTemplate round trip (pb and JSON), when the job is not a
  ** python-task (that type carries no kubeflow config) */
  if (!kf_python_task(j)) {
    Flyteidl__Core__TaskTemplate *t;
    kf_node *info;
    o.version = 1;
    o.common = 0;
    if (kf_task_template(j, &o, NULL, &A, &t, "kfjob.task_template", &e) != KF_OK)
      FZ_FAIL("kf_task_template: %s", e.msg);
    /* a container's args carry Horovod's own values in the launcher line
    ** (kf_horovod_line_read); a job not verbose whose args start with
    ** --verbose reads back as a verbose one: the same bytes, two jobs */
    if (j->kind == KF_HOROVOD && t->container && t->container->n_args) {
      jt.verbose = j->verbose, jt.log_level = j->log_level;
      jt.discovery_script_path = j->discovery_script_path;
      jt.elastic_timeout = j->elastic_timeout;
      if (!j->verbose && j->has_container && j->container.nargs &&
          strcmp(j->container.args[0], "--verbose") == 0)
        tt_exact = 0;
    }
    b.n = 0;
    if (!kf_buf_reserve(&b, protobuf_c_message_get_packed_size(&t->base)))
      FZ_FAIL("buffer");
    b.n = protobuf_c_message_pack(&t->base, (uint8_t *)b.p);
    if (kf_decode_task_template(b.p, b.n, kind, &A, &r, &info,
                                "kfjob.decode_task_template", &e) != KF_OK)
      FZ_FAIL("decode_task_template(task_template(j)) failed: %s", e.msg);
    if (tt_exact && !kf_job_equal(&jt, &r))
      FZ_FAIL("decode_task_template(task_template(j)) != j");
    b.n = 0;
    if (kf_msg_to_json(&t->base, 2, &b, &e) != KF_OK) FZ_FAIL("TaskTemplate JSON: %s", e.msg);
    if (kf_decode_task_template(b.p, b.n, kind, &A, &r, &info,
                                "kfjob.decode_task_template", &e) != KF_OK)
      FZ_FAIL("decode_task_template(task_template json) failed: %s", e.msg);
    if (tt_exact && !kf_job_equal(&jt, &r)) FZ_FAIL("decode_task_template(json) != j");
    /* version 0 (an MPI worker command goes to the config) */
    o.version = 0;
    st = kf_task_template(j, &o, NULL, &A, &t, "kfjob.task_template", &e);
    if (kf_job_versions(j) & 1u) {
      int space = 0;
      size_t i;
      for (i = 0; i < j->g[KF_WORKER].ncommand; i++)
        space |= strchr(j->g[KF_WORKER].command[i], ' ') != NULL;
      if (st != KF_OK && !space) FZ_FAIL("v0 task_template of a v0 job: %s", e.msg);
      if (st == KF_OK) {
        b.n = 0;
        if (!kf_buf_reserve(&b, protobuf_c_message_get_packed_size(&t->base)))
          FZ_FAIL("buffer");
        b.n = protobuf_c_message_pack(&t->base, (uint8_t *)b.p);
        if (kf_decode_task_template(b.p, b.n, kind, &A, &r, &info,
                                "kfjob.decode_task_template", &e) != KF_OK)
          FZ_FAIL("decode_task_template(task_template(j, v0)) failed: %s", e.msg);
        if (tt_exact && !kf_job_equal(&jt, &r))
          FZ_FAIL("decode_task_template(task_template(j, v0)) != j");
      }
    } else if (st == KF_OK) {
      FZ_FAIL("v0 task_template of a job versions() says v0 cannot express");
    }
  }

manifests:
#ifdef FZ_HAVE_MANIFEST
payloads_done:
  /* every target's rules: no crash, every problem says where and why */
  {
    kf_target_ctx tc;
    kf_problems ps;
    size_t i;
    int t;
    memset(&tc, 0, sizeof tc);
    tc.name = "fuzz-job";
    for (t = 0; t < KF_NTARGETS; t++) {
      if (kf_target_problems(j, (kf_target)t, &tc, &A, &ps, &e) != KF_OK)
        FZ_FAIL("kf_target_problems (%s): %s", kf_targets[t].name, e.msg);
      for (i = 0; i < ps.n; i++)
        if (!ps.v[i].path[0] || !ps.v[i].message[0] || !ps.v[i].rule[0] ||
            (ps.v[i].sev != KF_SEV_WARN && ps.v[i].sev != KF_SEV_ERROR))
          FZ_FAIL("a problem without path, message, rule or severity (%s)",
                  kf_targets[t].name);
    }
  }
  /* manifests, lint and YAML: no crash; a manifest that is produced
  ** renders as YAML and JSON */
  {
    kf_manifest_opts mo;
    kf_lint_opts lo;
    kf_node *man, *warn;
    memset(&mo, 0, sizeof mo);
    mo.name = "fuzz-job";
    mo.image = "img:1";
    st = kf_manifest(j, &mo, &A, &man, "kfjob.manifest", &e);
    if (st == KF_OK) {
      const kf_node *docs[1];
      docs[0] = man;
      b.n = 0;
      if (kf_yaml(docs, 1, 2, &b, &e) != KF_OK) FZ_FAIL("kf_yaml of a manifest: %s", e.msg);
      b.n = 0;
      if (kf_node_to_json(man, 0, &b, &e) != KF_OK) FZ_FAIL("manifest JSON: %s", e.msg);
    } else {
      /* an option's problem names the method; a target rule's the job's
      ** constructor and the target (SPEC §11) */
      char ctor_p[48];
      snprintf(ctor_p, sizeof ctor_p, "kfjob.%s: ", kf_kinds[j->kind].name);
      fz_error(st, &e, strncmp(e.msg, ctor_p, strlen(ctor_p)) == 0 &&
                       strstr(e.msg, "(target ") != NULL ? ctor_p : "kfjob.manifest");
    }
    memset(&lo, 0, sizeof lo);
    lo.name = "fuzz-job";
    lo.version = 1;
    lo.who = "kfjob.lint";
    if (kf_lint(j, &lo, &A, &warn, &e) != KF_OK) FZ_FAIL("kf_lint: %s", e.msg);
  }
#endif
  kf_buf_free(&b);
  kf_arena_free(&A);
}

/* A TaskTemplate/TaskSpec decoder: bytes or JSON -> job and info. */
typedef kf_status (*fz_task_decoder)(const char *p, size_t n, int kind, kf_arena *A,
                                     kf_job *j, kf_node **info, const char *who,
                                     kf_err *e);

/* The target of such a decoder: the first byte picks the kind refinement
** (b0 % 2: none or HorovodJob), the rest is the input.  An accepted input
** gives an info object and a job that passes fz_check_job (and, with
** `decoded`, fz_check_decoded); an error starts with "<who>: ".  `who` is
** "kfjob.<name>". */
static inline int fz_task_decoder_target(const uint8_t *data, size_t size,
                                         fz_task_decoder decode, const char *who,
                                         int decoded) {
  kf_arena A;
  kf_err e;
  kf_job j;
  kf_node *info = NULL;
  kf_status st;
  int kind;
  char prefix[64];
  if (size < 1) return 0;
  kind = data[0] % 2 ? KF_HOROVOD : -1;
  kf_arena_init(&A, FZ_ALLOC);
  st = decode((const char *)data + 1, size - 1, kind, &A, &j, &info, who, &e);
  fz_note(who + strlen("kfjob."), st, &e);
  if (st == KF_OK) {
    if (info == NULL || info->t != KF_NOBJ) FZ_FAIL("no info object");
    if (decoded) fz_check_decoded(&j);
    fz_check_job(&j);
  } else {
    snprintf(prefix, sizeof prefix, "%s: ", who);
    fz_error(st, &e, prefix);
  }
  kf_arena_free(&A);
  return 0;
}

#endif

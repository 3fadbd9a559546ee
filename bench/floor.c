/*
** bench/floor.c -- the protobuf-c floor for kfjob's benchmarks, and the
** timing/callgrind helpers the benchmark scripts share.
**
** Built by bench/run.sh (plain cc, not part of the project build) against
** the protobuf-c code that CMake generates from proto/ into <build>/gen:
**
**   kfbench.so  Lua module (require "kfbench"): the floor for the four
**               workloads, a CPU clock in ns and callgrind client requests.
**   cgctl.so    the same callgrind requests without Lua, for Python's ctypes
**               (compiled with -DKFBENCH_NO_LUA).
**
** The workloads are the ones bench/bench.lua builds with kfjob; bench.lua
** checks that kfjob:encode() gives the same bytes as floor_bytes() here.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define KFB_HAVE_CG 1
#endif
#endif
#ifndef KFB_HAVE_CG
#define KFB_HAVE_CG 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#define RUNNING_ON_VALGRIND 0
#endif

#define EXPORT __attribute__((visibility("default")))

/* Callgrind (run with --collect-atstart=no): count only between start and stop;
** stop writes one dump whose description is `name`. */
EXPORT void kfbench_cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
EXPORT void kfbench_cg_stop(const char *name) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT(name); }
EXPORT int kfbench_on_valgrind(void) { return (int)RUNNING_ON_VALGRIND; }

#ifndef KFBENCH_NO_LUA
#include <lua.h>
#include <lauxlib.h>

#include "flyteidl/plugins/kubeflow/tensorflow.pb-c.h"
#include "flyteidl/plugins/kubeflow/pytorch.pb-c.h"
#include "flyteidl/plugins/kubeflow/mpi.pb-c.h"

#define IMAGE "ghcr.io/acme/trainer:2024.11-cuda12"

typedef Flyteidl__Core__Resources Res;
typedef Flyteidl__Core__Resources__ResourceEntry Entry;
typedef Flyteidl__Plugins__Kubeflow__RunPolicy RunPolicy;
typedef Flyteidl__Plugins__Kubeflow__DistributedTensorflowTrainingTask TFTask;
typedef Flyteidl__Plugins__Kubeflow__DistributedTensorflowTrainingReplicaSpec TFSpec;
typedef Flyteidl__Plugins__Kubeflow__DistributedPyTorchTrainingTask PTTask;
typedef Flyteidl__Plugins__Kubeflow__DistributedPyTorchTrainingReplicaSpec PTSpec;
typedef Flyteidl__Plugins__Kubeflow__ElasticConfig ElasticConfig;
typedef Flyteidl__Plugins__Kubeflow__DistributedMPITrainingTask MPITask;
typedef Flyteidl__Plugins__Kubeflow__DistributedMPITrainingReplicaSpec MPISpec;

enum { CPU = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__CPU,
       MEM = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__MEMORY,
       GPU = FLYTEIDL__CORE__RESOURCES__RESOURCE_NAME__GPU };

/* Every message of one workload, in one block: building from scratch is
** initialising this block and linking it; nothing is allocated. */
typedef struct Store {
  Entry e[12];
  Entry *req_w[3], *lim_w[3], *req_2[2];
  Res res_w, res_2, res_e[2];
  RunPolicy rp;
  TFSpec tf[4];
  TFTask tft;
  PTSpec pt[2];
  PTTask ptt;
  ElasticConfig ec;
  MPISpec mpi[2];
  MPITask mpit;
  char *cmd[4];
} Store;

static void entry(Entry *e, int name, char *value) {
  Entry init = FLYTEIDL__CORE__RESOURCES__RESOURCE_ENTRY__INIT;
  *e = init;
  e->name = name;
  e->value = value;
}

/* worker resources (cpu 8 / 32Gi / gpu 1, limits 16 / 64Gi / 1) and the
** second group's requests (cpu, mem) */
static void resources(Store *s, char *cpu2, char *mem2) {
  Res init = FLYTEIDL__CORE__RESOURCES__INIT;
  entry(&s->e[0], CPU, "8"); entry(&s->e[1], MEM, "32Gi"); entry(&s->e[2], GPU, "1");
  entry(&s->e[3], CPU, "16"); entry(&s->e[4], MEM, "64Gi"); entry(&s->e[5], GPU, "1");
  entry(&s->e[6], CPU, cpu2); entry(&s->e[7], MEM, mem2);
  for (int i = 0; i < 3; i++) { s->req_w[i] = &s->e[i]; s->lim_w[i] = &s->e[3 + i]; }
  s->req_2[0] = &s->e[6]; s->req_2[1] = &s->e[7];
  s->res_w = init;
  s->res_w.n_requests = 3; s->res_w.requests = s->req_w;
  s->res_w.n_limits = 3; s->res_w.limits = s->lim_w;
  s->res_2 = init;
  s->res_2.n_requests = 2; s->res_2.requests = s->req_2;
  s->res_e[0] = init; s->res_e[1] = init;
}

static void run_policy(Store *s) {
  RunPolicy init = FLYTEIDL__PLUGINS__KUBEFLOW__RUN_POLICY__INIT;
  s->rp = init;
  s->rp.clean_pod_policy = FLYTEIDL__PLUGINS__KUBEFLOW__CLEAN_POD_POLICY__CLEANPOD_POLICY_ALL;
  s->rp.ttl_seconds_after_finished = 3600;
  s->rp.active_deadline_seconds = 86400;
  s->rp.backoff_limit = 3;
}

#define ON_FAILURE FLYTEIDL__PLUGINS__RESTART_POLICY__RESTART_POLICY_ON_FAILURE

/* W: worker 8, ps 2, chief 1, evaluator unset (empty resources), run policy */
static ProtobufCMessage *build_tf(Store *s) {
  TFSpec si = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_TENSORFLOW_TRAINING_REPLICA_SPEC__INIT;
  TFTask ti = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_TENSORFLOW_TRAINING_TASK__INIT;
  resources(s, "4", "16Gi");
  run_policy(s);
  for (int i = 0; i < 4; i++) s->tf[i] = si;
  s->tf[0].replicas = 8; s->tf[0].image = IMAGE; s->tf[0].resources = &s->res_w;
  s->tf[0].restart_policy = ON_FAILURE;
  s->tf[1].replicas = 2; s->tf[1].image = IMAGE; s->tf[1].resources = &s->res_2;
  s->tf[2].replicas = 1; s->tf[2].resources = &s->res_e[0];
  s->tf[3].resources = &s->res_e[1];
  s->tft = ti;
  s->tft.worker_replicas = &s->tf[0];
  s->tft.ps_replicas = &s->tf[1];
  s->tft.chief_replicas = &s->tf[2];
  s->tft.run_policy = &s->rp;
  s->tft.evaluator_replicas = &s->tf[3];
  return &s->tft.base;
}

/* PyTorchJob: worker as W's, master 1 with the image and cpu 4 / 16Gi */
static ProtobufCMessage *build_pt(Store *s) {
  PTSpec si = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_PY_TORCH_TRAINING_REPLICA_SPEC__INIT;
  PTTask ti = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_PY_TORCH_TRAINING_TASK__INIT;
  resources(s, "4", "16Gi");
  run_policy(s);
  s->pt[0] = si; s->pt[1] = si;
  s->pt[0].replicas = 8; s->pt[0].image = IMAGE; s->pt[0].resources = &s->res_w;
  s->pt[0].restart_policy = ON_FAILURE;
  s->pt[1].replicas = 1; s->pt[1].image = IMAGE; s->pt[1].resources = &s->res_2;
  s->ptt = ti;
  s->ptt.worker_replicas = &s->pt[0];
  s->ptt.master_replicas = &s->pt[1];
  s->ptt.run_policy = &s->rp;
  return &s->ptt.base;
}

/* Elastic: nnodes "2:8", nproc_per_node 8, max_restarts 3, worker as W's */
static ProtobufCMessage *build_el(Store *s) {
  PTSpec si = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_PY_TORCH_TRAINING_REPLICA_SPEC__INIT;
  PTTask ti = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_PY_TORCH_TRAINING_TASK__INIT;
  ElasticConfig ei = FLYTEIDL__PLUGINS__KUBEFLOW__ELASTIC_CONFIG__INIT;
  resources(s, "4", "16Gi");
  run_policy(s);
  s->pt[0] = si;
  s->pt[0].replicas = 8; s->pt[0].image = IMAGE; s->pt[0].resources = &s->res_w;
  s->pt[0].restart_policy = ON_FAILURE;
  s->ec = ei;
  s->ec.rdzv_backend = "c10d"; s->ec.min_replicas = 2; s->ec.max_replicas = 8;
  s->ec.nproc_per_node = 8; s->ec.max_restarts = 3;
  s->ptt = ti;
  s->ptt.worker_replicas = &s->pt[0];
  s->ptt.run_policy = &s->rp;
  s->ptt.elastic_config = &s->ec;
  return &s->ptt.base;
}

/* MPIJob: worker as W's plus an sshd command, launcher 1 cpu 2 / 4Gi, slots 8 */
static ProtobufCMessage *build_mpi(Store *s) {
  MPISpec si = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_MPITRAINING_REPLICA_SPEC__INIT;
  MPITask ti = FLYTEIDL__PLUGINS__KUBEFLOW__DISTRIBUTED_MPITRAINING_TASK__INIT;
  resources(s, "2", "4Gi");
  run_policy(s);
  s->cmd[0] = "/usr/sbin/sshd"; s->cmd[1] = "-De"; s->cmd[2] = "-f";
  s->cmd[3] = "/home/jobuser/.sshd_config";
  s->mpi[0] = si; s->mpi[1] = si;
  s->mpi[0].replicas = 8; s->mpi[0].image = IMAGE; s->mpi[0].resources = &s->res_w;
  s->mpi[0].restart_policy = ON_FAILURE;
  s->mpi[0].n_command = 4; s->mpi[0].command = s->cmd;
  s->mpi[1].replicas = 1; s->mpi[1].image = IMAGE; s->mpi[1].resources = &s->res_2;
  s->mpit = ti;
  s->mpit.worker_replicas = &s->mpi[0];
  s->mpit.launcher_replicas = &s->mpi[1];
  s->mpit.run_policy = &s->rp;
  s->mpit.slots = 8;
  return &s->mpit.base;
}

typedef ProtobufCMessage *(*Builder)(Store *);
static const char *const kinds[] = { "TFJob", "PyTorchJob", "Elastic", "MPIJob", NULL };
static const Builder builders[] = { build_tf, build_pt, build_el, build_mpi };

static uint8_t out[4096];           /* the preallocated buffer */
static volatile size_t sink;

static Builder checkkind(lua_State *L) {
  return builders[luaL_checkoption(L, 1, NULL, kinds)];
}

/* floor_pack(kind, n): pack a prebuilt message n times */
static int l_floor_pack(lua_State *L) {
  Builder b = checkkind(L);
  lua_Integer n = luaL_checkinteger(L, 2);
  static Store s;
  ProtobufCMessage *m = b(&s);
  size_t t = 0;
  for (lua_Integer i = 0; i < n; i++) t += protobuf_c_message_pack(m, out);
  sink = t;
  return 0;
}

/* floor_build_pack(kind, n): build from scratch (stack) and pack, n times */
static int l_floor_build_pack(lua_State *L) {
  Builder b = checkkind(L);
  lua_Integer n = luaL_checkinteger(L, 2);
  size_t t = 0;
  for (lua_Integer i = 0; i < n; i++) {
    Store s;
    t += protobuf_c_message_pack(b(&s), out);
    __asm__ volatile("" : : "r"(&s) : "memory");
  }
  sink = t;
  return 0;
}

/* floor_unpack(kind, n): protobuf_c_message_unpack of the packed bytes n
** times, into a bump allocator reset each time (as kfjob's decode unpacks
** into its arena): what a decoder built on protobuf-c pays before its job */
static unsigned char bump_mem[1 << 16];
static size_t bump_at;
static void *bump_alloc(void *d, size_t n) {
  void *p;
  (void)d;
  n = (n + 15) & ~(size_t)15;
  if (bump_at + n > sizeof bump_mem) return NULL;
  p = bump_mem + bump_at;
  bump_at += n;
  return p;
}
static void bump_free(void *d, void *p) { (void)d; (void)p; }
static int l_floor_unpack(lua_State *L) {
  static Store s;
  ProtobufCMessage *m = checkkind(L)(&s);
  lua_Integer n = luaL_checkinteger(L, 2);
  ProtobufCAllocator a = { bump_alloc, bump_free, NULL };
  size_t len = protobuf_c_message_pack(m, out), t = 0;
  for (lua_Integer i = 0; i < n; i++) {
    ProtobufCMessage *u;
    bump_at = 0;
    u = protobuf_c_message_unpack(m->descriptor, &a, len, out);
    if (u == NULL) return luaL_error(L, "unpack failed");
    t += (size_t)u->descriptor->n_fields;
  }
  sink = t;
  return 0;
}

static int l_floor_bytes(lua_State *L) {
  static Store s;
  ProtobufCMessage *m = checkkind(L)(&s);
  size_t n = protobuf_c_message_get_packed_size(m);
  if (n > sizeof out) return luaL_error(L, "message too big");
  lua_pushlstring(L, (const char *)out, protobuf_c_message_pack(m, out));
  return 1;
}

/* CPU time of the process in ns (what the shared machine does not steal) */
static int l_now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
  return 1;
}

/* Every key and value of a nested table read once through the C API, as
** any reader of a constructor table must (lua_next, lua_type, the value):
** the floor under construction. */
static size_t walk(lua_State *L, int idx) {
  size_t t = 0, len;
  luaL_checkstack(L, 3, "walk");
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) == LUA_TSTRING) t += (size_t)lua_tolstring(L, -2, &len)[0] + len;
    switch (lua_type(L, -1)) {
      case LUA_TTABLE: t += walk(L, lua_gettop(L)); break;
      case LUA_TSTRING: t += (size_t)lua_tolstring(L, -1, &len)[0] + len; break;
      case LUA_TNUMBER: {
        int isint;
        lua_Integer i = lua_tointegerx(L, -1, &isint);
        t += isint ? (size_t)i : (size_t)lua_tonumber(L, -1);
        break;
      }
      case LUA_TBOOLEAN: t += (size_t)lua_toboolean(L, -1); break;
      default: break;
    }
    lua_pop(L, 1);
  }
  return t;
}

/* walk(t): walk a constructor table once (see walk) */
static int l_walk(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  sink = walk(L, 1);
  return 0;
}

/* walk_object(t, size): walk t, then return a new userdata of size bytes
** (with a metatable-less __gc-free block): the least a constructor that
** returns an object adds to the walk, the allocation and the collector's
** share of it. */
static int l_walk_object(lua_State *L) {
  lua_Integer size = luaL_checkinteger(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  sink = walk(L, 1);
  memset(lua_newuserdatauv(L, (size_t)size, 0), 0, (size_t)size);
  return 1;
}

static int l_cg_start(lua_State *L) { (void)L; kfbench_cg_start(); return 0; }
static int l_cg_stop(lua_State *L) { kfbench_cg_stop(luaL_checkstring(L, 1)); return 0; }

EXPORT int luaopen_kfbench(lua_State *L) {
  static const luaL_Reg f[] = {
    { "floor_pack", l_floor_pack }, { "floor_build_pack", l_floor_build_pack },
    { "floor_bytes", l_floor_bytes }, { "floor_unpack", l_floor_unpack },
    { "now", l_now }, { "walk", l_walk }, { "walk_object", l_walk_object },
    { "cg_start", l_cg_start }, { "cg_stop", l_cg_stop }, { NULL, NULL } };
  luaL_newlib(L, f);
  lua_pushboolean(L, RUNNING_ON_VALGRIND != 0);
  lua_setfield(L, -2, "on_valgrind");
  lua_pushboolean(L, KFB_HAVE_CG);
  lua_setfield(L, -2, "have_callgrind");
  return 1;
}
#endif

/*
** lkfjob_util.c - the binding's helpers: the per-state context, Lua values
** <-> kf_node trees, telling kfjob userdata apart, and option tables.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_options.h"
#include "kf_pb.h"
#include "lkf_binding.h"

/* the metatable names of jobs by kind and groups by role (lkf_binding.h) */
const char *const lkf_job_mt[KF_NKINDS] = {
    [KF_TFJOB] = "kfjob.TFJob", [KF_PYTORCH] = "kfjob.PyTorchJob",
    [KF_ELASTIC] = "kfjob.Elastic", [KF_MPI] = "kfjob.MPIJob",
    [KF_HOROVOD] = "kfjob.HorovodJob", [KF_JAX] = "kfjob.JAXJob",
    [KF_XGBOOST] = "kfjob.XGBoostJob", [KF_PADDLE] = "kfjob.PaddleJob"};
const char *const lkf_group_mt[KF_NROLES] = {
    [KF_WORKER] = "kfjob.Worker", [KF_PS] = "kfjob.PS",
    [KF_CHIEF] = "kfjob.Chief", [KF_EVALUATOR] = "kfjob.Evaluator",
    [KF_MASTER] = "kfjob.Master", [KF_LAUNCHER] = "kfjob.Launcher"};

/* ---- context ---------------------------------------------------------- */

/* What a context keeps between calls: a larger arena chunk or buffer is
** freed when the call ends, so one big call does not hold its memory. */
#define CTX_KEEP ((size_t)1 << 20)

/* Ends a call's use of the context: its work goes to the meter (the
** sandbox's instruction count), big memory is freed, the arena emptied. */
static void ctx_release(lua_State *L, lctx *c) {
  c->released = 1;
  if (c->meter != NULL)
    c->meter->add(L, (kf_arena_used(&c->A) + c->buf.n) / KF_METER_BYTES);
  kf_arena_trim(&c->A, CTX_KEEP);
  kf_buf_trim(&c->buf, CTX_KEEP);
  kf_arena_reset(&c->A);
}

/* The context of the running call.  A finalizer that runs during an
** allocation may call kfjob again: the context is marked busy for the
** call, and a nested call gets a temporary context of its own.  On Lua 5.4
** a to-be-closed slot clears the mark on return and on error; older
** versions have no such slot (see own_context below). */
#if LKF_LUAJIT
static void *sys_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud, (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}
#endif

void lkf_ctx_init(lua_State *L, lctx *c) {
  kf_alloc a;
#if LKF_LUAJIT
  (void)L;
  a.f = sys_alloc;
  a.ud = NULL;
#else
  a.f = (kf_allocf)lua_getallocf(L, &a.ud);
#endif
  kf_arena_init(&c->A, a);
  kf_buf_init(&c->buf, a);
  c->busy = 0;
  c->released = 0;
  c->owner = NULL;
  c->owner_sp = 0;
  c->anchored = 0;
  c->meter = NULL;   /* luaopen_kfjob sets the sandbox's; temporaries have none */
}

static lctx *temp_ctx(lua_State *L) {
  lctx *c = (lctx *)lua_newuserdatauv(L, sizeof *c, 0);
  lkf_ctx_init(L, c);
  c->busy = 2;  /* temporary: freed by __gc, never marked */
  luaL_setmetatable(L, CTX_NAME);
  return c;
}

#if !LKF_HAVE_TOCLOSE
/* Whether a kfjob function of this context (upvalue 1) is running below
** the current call on L's stack. */
static int outer_call(lua_State *L, const lctx *c) {
  lua_Debug ar;
  int level, found = 0;
  for (level = 1; !found && lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "f", &ar);
    if (lua_iscfunction(L, -1) && lua_getupvalue(L, -1, 1) != NULL) {
      found = lua_touserdata(L, -1) == c;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  return found;
}

/* Without lua_toclose nothing clears the busy mark, so a call decides
** whether the last call that took the context (its owner) still runs.
** All coroutines share one C stack (the stack grows down), and a nested
** call runs inside the owner's C frame: so a call whose frame is not
** deeper than the owner's lkf_ctx frame cannot be nested.  A deeper call
** on the owner's thread is nested only if a kfjob function runs below it
** (outer_call); on another thread it is taken as nested.  The owner
** changes only when the previous one has provably returned (or raised),
** and a call counted as nested only costs a temporary context. */
static int own_context(lua_State *L, lctx *c) {
#ifdef __GNUC__
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
#else
  volatile char here = 0;
  uintptr_t sp = (uintptr_t)&here;
#endif
  if (c->busy && sp < c->owner_sp && (L != c->owner || outer_call(L, c)))
    return 0;
  c->owner_sp = sp;
  c->owner = L;
  return 1;
}
#endif

lctx *lkf_ctx(lua_State *L, int nargs) {
  lctx *c = (lctx *)lua_touserdata(L, lua_upvalueindex(1));
  lua_settop(L, nargs);  /* the guard slot goes above the arguments */
  if (c->busy != 3 && c->meter != NULL) c->meter->check(L);  /* nothing held yet */
#if LKF_HAVE_TOCLOSE
  /* A coroutine that dies by an error does not close its to-be-closed
  ** slots: a thread whose status is an error can never resume, so its call
  ** is over and the context is taken back (the owner is anchored in the
  ** registry while it holds the context). */
  if (c->busy == 1 && c->owner != NULL && c->owner != L &&
      lua_status(c->owner) != LUA_OK && lua_status(c->owner) != LUA_YIELD)
    c->busy = 0;
  if (c->busy) return temp_ctx(L);
  if (c->owner != L) {   /* (may raise "not enough memory": not busy yet) */
    c->anchored = !lua_pushthread(L);   /* pcall closes the main thread's */
    if (!c->anchored) {
      lua_pop(L, 1);
      lua_pushnil(L);
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, c);
    c->owner = L;
  }
#else
  /* collected: a finalizer runs while the state closes (LuaJIT finalizes
  ** objects made during lua_close too) */
  if (c->busy == 3 || !own_context(L, c)) return temp_ctx(L);
#endif
  /* the previous call's end, unless its to-be-closed slot ended it (a
  ** release right after a release finds nothing to do) */
  if (!c->released) ctx_release(L, c);
  c->released = 0;
  c->buf.n = 0;
  c->busy = 1;
  lua_pushvalue(L, lua_upvalueindex(1));
#if LKF_HAVE_TOCLOSE
  lua_toclose(L, -1);
#endif
  return c;
}

int lkf_ctx_close(lua_State *L) {
#if LKF_HAVE_TOCLOSE
  lctx *c = (lctx *)lua_touserdata(L, 1);
  /* only the owner's own slot: coroutine.close() of a thread whose call
  ** was already taken back must not free another call's context */
  if (c->busy == 1 && c->owner == L) {
    c->busy = 0;
    ctx_release(L, c);
    if (c->anchored) {   /* let the coroutine be collected */
      lua_pushnil(L);
      lua_rawsetp(L, LUA_REGISTRYINDEX, c);
      c->anchored = 0;
      c->owner = NULL;
    }
    /* the sandbox's deadline again at the end of the call: one long call
    ** (a huge pod template) must not finish a run past its time limit */
    if (c->meter != NULL && lua_isnil(L, 2)) c->meter->check(L);
  }
#else
  (void)L;   /* no to-be-closed slots: the next call ends the last one */
#endif
  return 0;
}

int lkf_ctx_gc(lua_State *L) {
  lctx *c = (lctx *)luaL_checkudata(L, 1, CTX_NAME);
  kf_arena_free(&c->A);
  kf_buf_free(&c->buf);
  c->busy = 3;   /* collected: no call takes it again */
  return 0;
}

/* Raise a core error: allocation failures as Lua memory errors. */
int lkf_raise(lua_State *L, kf_err *e) {
  if (e->code == KF_ENOMEM) {
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
  }
  lua_pushstring(L, e->msg);
  return lua_error(L);
}

int lkf_fail(lua_State *L, kf_err *e) {
  if (e->code == KF_ENOMEM) return lkf_raise(L, e);
  luaL_pushfail(L);
  lua_pushstring(L, e->msg);
  return 2;
}

/* ---- Lua value -> kf_node --------------------------------------------- */

typedef struct conv {
  lua_State *L;
  kf_arena *A;
  kf_err *e;
  const char *who;
  const char *prefix;   /* path of the value itself ("opts"), or "" */
  int depth;
  /* path segments, formatted only for an error message */
  struct { const char *key; lua_Integer idx; } seg[KF_MAX_DEPTH + 1];
} conv;

static kf_status conv_fail(conv *c, const char *problem, const char *arg) {
  char p[200], path[256];
  int i;
  snprintf(p, sizeof p, problem, arg);
  snprintf(path, sizeof path, "%s", c->prefix);
  for (i = 0; i < c->depth && i <= KF_MAX_DEPTH; i++) {
    size_t l = strlen(path);
    if (c->seg[i].key)
      snprintf(path + l, sizeof path - l, "%s%s", l ? "." : "", c->seg[i].key);
    else
      snprintf(path + l, sizeof path - l, "[%lld]", (long long)c->seg[i].idx);
  }
  if (path[0])
    return kf_fail(c->e, KF_EINVAL, "%s: %s: %s", c->who, path, p);
  return kf_fail(c->e, KF_EINVAL, "%s: %s", c->who, p);
}

static kf_status to_node(conv *c, int idx, kf_node **out);


/* Objects made by kfjob become tagged trees so the core can check they are
** used in the right place. */
static kf_status object_node(conv *c, int idx, kf_node **out) {
  lua_State *L = c->L;
  int k = lkf_jobkind(L, idx);
  lgroup *g;
  if (k >= 0) {
    *out = kf_job_to_spec((const kf_job *)lua_touserdata(L, idx), c->A);
    if (*out) (*out)->tag = lkf_job_mt[k];
  } else if ((g = lkf_testgroup(L, idx)) != NULL) {
    *out = kf_group_to_spec(GROUP_OF(g), c->A);
    if (*out) (*out)->tag = lkf_group_mt[g->role];
  } else if (luaL_testudata(L, idx, RUNPOLICY_NAME)) {
    *out = kf_run_policy_to_spec((const kf_run_policy *)lua_touserdata(L, idx),
                                 c->A);
    if (*out) (*out)->tag = RUNPOLICY_NAME;
  } else {
    return conv_fail(c, "unexpected %s", luaL_typename(L, idx));
  }
  return *out ? KF_OK : kf_nomem(c->e);
}

#define CONV_BATCH 16

/* Stores the gathered fields in `obj`: an empty object gets arrays of
** exactly their number, a larger one grows as kf_node_push does. */
static int flush_fields(kf_arena *A, kf_node *obj, const char **bk,
                        kf_node **bv, size_t *nb) {
  size_t i, n = *nb;
  *nb = 0;
  if (obj->u.c.n == 0) {
    kf_node **v = (kf_node **)kf_arena_alloc_raw(A, n * sizeof *v);
    const char **k = (const char **)kf_arena_alloc_raw(A, n * sizeof *k);
    if (v == NULL || k == NULL) return 0;
    memcpy(v, bv, n * sizeof *v);
    memcpy(k, bk, n * sizeof *k);
    obj->u.c.v = v;
    obj->u.c.k = k;
    obj->u.c.n = obj->u.c.cap = n;
    return 1;
  }
  for (i = 0; i < n; i++)
    if (!kf_node_push(A, obj, bk[i], bv[i])) return 0;
  return 1;
}

/* One lua_next pass: string keys make an object; integer keys 1..n a
** list (placed by index, since the traversal order is unspecified). */
static kf_status table_node(conv *c, int idx, kf_node **out) {
  lua_State *L = c->L;
  kf_node *obj, **items = NULL;
  lua_Integer *keys = NULL, len = 0;
  size_t nint = 0, cap = 0, i, nb = 0;
  /* named fields are gathered here and stored once at the right size:
  ** most objects have a handful of keys, so this skips regrowing arrays */
  const char *bk[CONV_BATCH];
  kf_node *bv[CONV_BATCH];
  kf_status st;
  if (c->depth >= KF_MAX_DEPTH)
    return conv_fail(c, "nesting deeper than %s levels (a cyclic table?)", "64");
  if (!lua_checkstack(L, 4)) return kf_nomem(c->e);
  if ((obj = kf_node_new(c->A, KF_NOBJ)) == NULL) return kf_nomem(c->e);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    int kt = lua_type(L, -2);
    const char *ks = NULL;
    kf_node *v;
    if (kt == LUA_TSTRING) {
      size_t kl;
      ks = lua_tolstring(L, -2, &kl);  /* a string: no conversion */
      if (nint) return conv_fail(c, "table mixes list items and named fields%s", "");
      if (memchr(ks, '\0', kl)) return conv_fail(c, "table keys must not contain NUL bytes%s", "");
      c->seg[c->depth].key = ks;
    } else if (kt == LUA_TNUMBER && lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1) {
      if (obj->u.c.n || nb) return conv_fail(c, "table mixes list items and named fields%s", "");
      c->seg[c->depth].key = NULL;
      c->seg[c->depth].idx = lua_tointeger(L, -2);
    } else {
      return conv_fail(c, "table keys must be strings (got a %s key)",
                       lua_typename(L, kt));
    }
    c->depth++;
    st = to_node(c, lua_gettop(L), &v);
    c->depth--;
    if (st != KF_OK) return st;
    if (ks != NULL) {
      if (nb == CONV_BATCH && !flush_fields(c->A, obj, bk, bv, &nb))
        return kf_nomem(c->e);
      bk[nb] = ks;
      bv[nb++] = v;
    } else {
      lua_Integer k = lua_tointeger(L, -2);
      if (nint == KF_MAX_ITEMS)
        return conv_fail(c, "list longer than the limit of %s items", "4096");
      if (nint == cap) {
        size_t nc = cap ? cap * 2 : 8;
        kf_node **ni = kf_arena_alloc(c->A, nc * sizeof *ni);
        lua_Integer *nk = kf_arena_alloc(c->A, nc * sizeof *nk);
        if (ni == NULL || nk == NULL) return kf_nomem(c->e);
        if (nint) {
          memcpy(ni, items, nint * sizeof *ni);
          memcpy(nk, keys, nint * sizeof *nk);
        }
        items = ni, keys = nk, cap = nc;
      }
      items[nint] = v;
      keys[nint++] = k;
      if (k > len) len = k;
    }
    lua_pop(L, 1);
  }
  if (nb && !flush_fields(c->A, obj, bk, bv, &nb)) return kf_nomem(c->e);
  if (nint) {
    kf_node *arr = kf_node_new(c->A, KF_NARR);
    if ((lua_Integer)nint != len) return conv_fail(c, "list has holes%s", "");
    if (arr == NULL || (arr->u.c.v = kf_arena_alloc(c->A, nint * sizeof(kf_node *))) == NULL)
      return kf_nomem(c->e);
    for (i = 0; i < nint; i++) arr->u.c.v[keys[i] - 1] = items[i];
    arr->u.c.n = arr->u.c.cap = nint;
    obj = arr;
  }
  *out = obj;
  return KF_OK;
}

static kf_status to_node(conv *c, int idx, kf_node **out) {
  lua_State *L = c->L;
  kf_node *n;
  switch (lua_type(L, idx)) {
    case LUA_TTABLE:
      return table_node(c, idx, out);
    case LUA_TUSERDATA:
      return object_node(c, idx, out);
    case LUA_TSTRING: {
      size_t l;
      const char *s = lua_tolstring(L, idx, &l);
      /* points at the Lua string: anchored by the argument for the call */
      if ((n = kf_node_new(c->A, KF_NSTR)) == NULL) return kf_nomem(c->e);
      n->u.s.p = s;
      n->u.s.n = l;
      break;
    }
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        n = kf_node_int(c->A, lua_tointeger(L, idx));
      } else if ((n = kf_node_new(c->A, KF_NNUM)) != NULL) {
        n->u.d = lua_tonumber(L, idx);
      }
      if (n == NULL) return kf_nomem(c->e);
      break;
    case LUA_TBOOLEAN:
      if ((n = kf_node_new(c->A, KF_NBOOL)) == NULL) return kf_nomem(c->e);
      n->u.b = lua_toboolean(L, idx);
      break;
    default:
      return conv_fail(c, "unexpected %s", luaL_typename(L, idx));
  }
  *out = n;
  return KF_OK;
}

kf_node *lkf_checknode(lua_State *L, lctx *X, int idx, const char *who,
                           kf_err *e) {
  return lkf_checknode_at(L, X, idx, who, "", e);
}

kf_node *lkf_checknode_at(lua_State *L, lctx *X, int idx, const char *who,
                          const char *prefix, kf_err *e) {
  conv c;
  kf_node *n = NULL;
  c.prefix = prefix;
  c.L = L;
  c.A = &X->A;
  c.e = e;
  c.who = who;
  c.depth = 0;
  idx = lua_absindex(L, idx);
  if (to_node(&c, idx, &n) != KF_OK) lkf_raise(L, e);
  return n;
}

/* ---- a constructor table fed straight into a job ----------------------- */

/* The table at `idx` as a value tree, or 0 (the message is not kept: the
** general path reports it). */
static int list_node(lua_State *L, kf_arena *A, int idx, kf_node **out) {
  conv c;
  kf_err e;
  c.L = L;
  c.A = A;
  c.e = &e;
  c.who = "";
  c.prefix = "";
  c.depth = 0;
  return to_node(&c, idx, out) == KF_OK;
}

/* The fields of the table at `idx` for frame `fr`; 0 as soon as the feed
** does not take something (the caller then takes the general path).
** `room`: stack slots known free above the top; a level takes two (its
** key and value), so the stack is grown once for several levels. */
#define FEED_ROOM 16
static int feed_table(lua_State *L, kf_feed *F, kf_frame *fr, int idx, int room) {
  if (room < 3) {
    if (!lua_checkstack(L, FEED_ROOM)) return 0;
    room = FEED_ROOM;
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    kf_frame sub;
    kf_node v, *n;
    size_t kl;
    const char *ks;
    int r;
    if (lua_type(L, -2) != LUA_TSTRING) return 0;
    ks = lua_tolstring(L, -2, &kl);
    if ((r = kf_feed_key(F, fr, ks, kl, &sub)) == KF_FEED_NO) return 0;
    v.tag = NULL;
    switch (lua_type(L, -1)) {
      case LUA_TTABLE:
        if (r == KF_FEED_LIST) {   /* a value tree of just the list */
          if (!list_node(L, F->A, lua_gettop(L), &n) || !kf_feed_value(F, fr, sub.f, n))
            return 0;
        } else if (r != KF_FEED_OBJ || !feed_table(L, F, &sub, lua_gettop(L), room - 2)) {
          return 0;
        }
        lua_pop(L, 1);
        continue;
      case LUA_TSTRING:   /* points at the Lua string, as to_node does */
        v.t = KF_NSTR;
        v.u.s.p = lua_tolstring(L, -1, &v.u.s.n);
        break;
      case LUA_TNUMBER:
        if (lua_isinteger(L, -1)) {
          v.t = KF_NINT;
          v.u.i = lua_tointeger(L, -1);
        } else {
          v.t = KF_NNUM;
          v.u.d = lua_tonumber(L, -1);
        }
        break;
      case LUA_TBOOLEAN:
        v.t = KF_NBOOL;
        v.u.b = lua_toboolean(L, -1);
        break;
      default:
        return 0;
    }
    if (!kf_feed_value(F, fr, sub.f, &v)) return 0;
    lua_pop(L, 1);
  }
  return 1;
}

int lkf_feedjob(lua_State *L, lctx *X, int idx, int kind, kf_job *j,
                const char *who, kf_feed *F) {
  kf_frame root;
  int top = lua_gettop(L);
  kf_feed_begin(F, kind, j, &X->A, who, &root);
  if (feed_table(L, F, &root, lua_absindex(L, idx), 0) && kf_feed_end(F))
    return 1;
  lua_settop(L, top);
  return 0;
}

/* ---- kf_node -> Lua value --------------------------------------------- */

void lkf_pushnode(lua_State *L, const kf_node *n) {
  size_t i;
  luaL_checkstack(L, 3, "nesting too deep");
  switch (n->t) {
    case KF_NNIL: lua_pushnil(L); break;
    case KF_NBOOL: lua_pushboolean(L, n->u.b); break;
    case KF_NINT: lua_pushinteger(L, (lua_Integer)n->u.i); break;
    case KF_NNUM: lua_pushnumber(L, n->u.d); break;
    case KF_NSTR: lua_pushlstring(L, n->u.s.p, n->u.s.n); break;
    case KF_NARR:
      lua_createtable(L, (int)n->u.c.n, 0);
      for (i = 0; i < n->u.c.n; i++) {
        lkf_pushnode(L, n->u.c.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
      }
      break;
    case KF_NOBJ:
      lua_createtable(L, 0, (int)n->u.c.n);
      for (i = 0; i < n->u.c.n; i++) {
        lkf_pushnode(L, n->u.c.v[i]);
        lua_setfield(L, -2, n->u.c.k[i]);
      }
      break;
  }
}

/* ---- objects: what kind of kfjob userdata a value is ----------------- */

/* Key of the job metatables' kind: a light userdata, which telling a job
** apart looks up without interning a string. */
const char lkf_kind_key = 'k';

int lkf_jobkind(lua_State *L, int idx) {
  int k;
  int isnum = 0;
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return -1;
#if LUA_VERSION_NUM >= 502
  lua_rawgetp(L, -1, (void *)&lkf_kind_key);   /* raw: no metamethod may run here */
#else
  lua_pushlightuserdata(L, (void *)&lkf_kind_key);
  lua_rawget(L, -2);
#endif
  k = (int)lua_tointegerx(L, -1, &isnum);   /* the kind rows hold integers */
  lua_pop(L, 2);
  return isnum ? k : -1;
}

lgroup *lkf_testgroup(lua_State *L, int idx) {
  int r;
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx))
    return NULL;
  lua_pushliteral(L, "__role");
  lua_rawget(L, -2);
  r = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 2);
  return r >= 0 ? (lgroup *)lua_touserdata(L, idx) : NULL;
}

const kf_job *lkf_checkjob(lua_State *L, int idx) {
  if (lkf_jobkind(L, idx) < 0) {
    const char *got = luaL_typename(L, idx);
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING)
      got = lua_tostring(L, -1);
    luaL_argerror(L, idx, lua_pushfstring(L, "kfjob job expected, got %s", got));
  }
  return (const kf_job *)lua_touserdata(L, idx);
}

unsigned long long lkf_meter_mark(lua_State *L, const lctx *X) {
  return X->meter ? X->meter->allocated(L) : 0;
}

void lkf_meter_since(lua_State *L, const lctx *X, unsigned long long before) {
  if (X->meter == NULL) return;
  X->meter->add(L, (X->meter->allocated(L) - before) / KF_METER_BYTES);
  X->meter->check(L);
}

/* ---- options ---------------------------------------------------------- */

/* opts.kind: a kind name refining the task type (HorovodJob for "mpi");
** only kinds with a task type can come out of a decoder. */
int lkf_kind_opt(lua_State *L, int idx, const char *who) {
  int k = -1;
  if (lkf_optfield(L, idx, "kind") != LUA_TNIL) {
    const char *s = (lkf_opt_nul(L, who, "kind"), lua_tostring(L, -1));
    kf_err e;
    if (s == NULL || (k = kf_kind_by_name(s)) < 0)
      luaL_error(L, "%s: opts.kind: unknown job kind %s (expected %s)", who,
                 s ? lua_pushfstring(L, "'%s'", s) : luaL_typename(L, -1),
                 kf_flyte_kind_names());
    if (kf_need_task_type(k, who, &e) != KF_OK)
      luaL_error(L, "%s: opts.kind: %s", who, e.msg + strlen(who) + 2);
  }
  lua_pop(L, 1);
  return k;
}


/* Reject option keys a method does not know. */
void lkf_checkopts(lua_State *L, int idx, const char *who,
                       const char *const *known) {
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    size_t i;
    const char *k, *s;
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "%s: options: keys must be strings", who);
    k = lua_tostring(L, -1);
    for (i = 0; known[i]; i++)
      if (strcmp(known[i], k) == 0) break;
    if (known[i] == NULL) {
      s = kf_suggest(k, known);
      if (s) luaL_error(L, "%s: opts.%s: unknown option (did you mean '%s'?)", who, k, s);
      luaL_error(L, "%s: opts.%s: unknown option", who, k);
    }
  }
}

int lkf_optfield(lua_State *L, int idx, const char *key) {
  if (lua_isnoneornil(L, idx)) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  lua_pushstring(L, key);
  return lua_rawget(L, idx < 0 ? idx - 1 : idx);  /* raw: options run no Lua */
}

/* version / replica_encoding; returns 0 or an error message pushed. */
int lkf_encopts(lua_State *L, int idx, const char *who, kf_encopts *o,
                        int raise_errors) {
  int t;
  memset(o, 0, sizeof *o);   /* clustered and any later option: off */
  o->version = 1;
  if (lua_isnoneornil(L, idx)) return 0;   /* no options: the defaults */
  t = lkf_optfield(L, idx, "version");
  if (t != LUA_TNIL) {
    int isint;
    lua_Integer v = lua_tointegerx(L, -1, &isint);  /* 1.0 counts as 1 */
    if (t != LUA_TNUMBER) {
      const char *tn = luaL_typename(L, -1);
      lua_pushfstring(L, "%s: opts.version: expected 0 or 1, got %s '%s'", who,
                      tn, luaL_tolstring(L, -1, NULL));
      lua_remove(L, -2);
      if (raise_errors) lua_error(L);
      return 1;
    }
    if (!isint || (v != 0 && v != 1)) {
      lua_pushfstring(L, "%s: opts.version: unsupported task_type_version %s "
                         "(expected 0 or 1)", who, luaL_tolstring(L, -1, NULL));
      if (raise_errors) lua_error(L);
      return 1;
    }
    o->version = (int)v;
  }
  lua_pop(L, 1);
  t = lkf_optfield(L, idx, "replica_encoding");
  if (t != LUA_TNIL) {
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (t == LUA_TSTRING && strlen(s) != n) {   /* "common\0x" is not "common" */
      lua_pushfstring(L, "%s: opts.replica_encoding: string contains a NUL byte", who);
      if (raise_errors) lua_error(L);
      return 1;
    }
    if (t != LUA_TSTRING || (o->common = kf_replica_encoding(s)) < 0) {
      lua_pushfstring(L, "%s: opts.replica_encoding: expected \"flat\" or "
                         "\"common\", got %s", who, luaL_tolstring(L, -1, NULL));
      if (raise_errors) lua_error(L);
      return 1;
    }
    if (o->common && o->version == 0) {
      lua_pushfstring(L, "%s: opts.replica_encoding: \"common\" needs version 1", who);
      if (raise_errors) lua_error(L);
      return 1;
    }
  }
  lua_pop(L, 1);
  return 0;
}


/* opts.target at `idx` (absent: `dflt`); raises "<who>: opts.target: ..."
** with a did-you-mean for an unknown name. */
/* An option string at the top is compared as a C string: a NUL byte in it
** would cut it ("flyte\0x" read as "flyte"), so it is refused. */
void lkf_opt_nul(lua_State *L, const char *who, const char *key) {
  size_t n;
  const char *s;
  if (lua_type(L, -1) != LUA_TSTRING) return;
  s = lua_tolstring(L, -1, &n);
  if (strlen(s) != n)
    luaL_error(L, "%s: opts.%s: string contains a NUL byte", who, key);
}

/* A task type argument at `idx` (a C string from here on): a NUL byte in
** it is refused rather than cut ("pytorch\0x" is not "pytorch"). */
const char *lkf_checkstr(lua_State *L, int idx, size_t *n) {
  luaL_argexpected(L, lua_type(L, idx) == LUA_TSTRING, idx, "string");
  return lua_tolstring(L, idx, n);
}

const char *lkf_check_task_type(lua_State *L, int idx, const char *who) {
  size_t n;
  const char *s = lkf_checkstr(L, idx, &n);
  if (strlen(s) != n) luaL_error(L, "%s: task type: string contains a NUL byte", who);
  return s;
}

kf_target lkf_opt_target(lua_State *L, int idx, const char *who, kf_target dflt) {
  kf_target t = dflt;
  int ty = lkf_optfield(L, idx, "target");
  if (ty != LUA_TNIL) {
    kf_err e;
    lkf_opt_nul(L, who, "target");
    if (ty != LUA_TSTRING)
      luaL_error(L, "%s: opts.target: expected a target name, got %s", who,
                 luaL_typename(L, -1));
    if (kf_target_parse(lua_tostring(L, -1), &t, who, "opts.target", &e) != KF_OK)
      luaL_error(L, "%s", e.msg);
  }
  lua_pop(L, 1);
  return t;
}

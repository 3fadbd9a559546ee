/*
** lkfjob_sweep.c - the fast path of kfjob.template.variants: the odometer,
** the leaf overrides (job:with's leaf path), the names and the duplicate
** set in C, for the common sweep (a job base, axes of fields with scalar
** values, a name template over the axes).  kfjob.template decides when it
** applies and renders each axis value to text once; whatever this path
** cannot do the same way (a name that is not already a DNS label, an
** override that is not a leaf, a variant that fails, a name whose hash is
** in the set) it hands back to the template layer, which then does the
** variant exactly as the general path does, errors included.
**
**   kfjob._sweep(base, keys, values, texts, parts, max, unique)
**     -> next, add
**   next()     -> name, job, params | false, params | nil (done)
**   add(name)  -> true (new) | false (its hash is in the set)
**   kfjob._nameset() -> add   (the set alone, for the general path)
**
** The set keeps only 64-bit hashes in a Lua userdata (so the Lua heap and
** a sandbox's memory limit see it), kept at least 57 % full: at most
** 14 bytes per name.
*/
#include <string.h>

#include "lkfjob.h"

#define MAX_AXES 32

typedef struct sweep {
  int naxes, done;
  int idx[MAX_AXES], count[MAX_AXES];
  int max;                 /* longest name */
  int unique;              /* keep the set */
  uint64_t *slot;          /* the set (in the holder's userdata), 0 free */
  size_t nslot, used;
} sweep;

/* Upvalues of both closures. */
#define UV_CTX 1
#define UV_STATE 2
#define UV_BASE 3
#define UV_KEYS 4
#define UV_VALUES 5
#define UV_TEXTS 6
#define UV_PARTS 7
#define UV_HOLDER 8   /* {slots userdata}: replaced when the set grows */

static uint64_t fnv1a(const char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  size_t i;
  for (i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
  return h ? h : 1;   /* 0 marks a free slot; a clash is told apart by name */
}

/* Slot of h in a table of n slots: its place or the free slot it takes. */
static size_t set_find(const uint64_t *slot, size_t n, uint64_t h) {
  size_t i = (size_t)(((h >> 32) * (uint64_t)n) >> 32);
  while (slot[i] != 0 && slot[i] != h) i = i + 1 == n ? 0 : i + 1;
  return i;
}

/* Insert h: 1 new, 0 present.  Grows by half when 7/8 full. */
static int set_add(lua_State *L, sweep *s, uint64_t h) {
  size_t at;
  if (s->used + 1 > s->nslot / 8 * 7) {
    size_t n = s->nslot ? s->nslot + s->nslot / 2 : 1024, i;
    uint64_t *slot = (uint64_t *)lua_newuserdatauv(L, n * sizeof *slot, 0);
    memset(slot, 0, n * sizeof *slot);
    for (i = 0; i < s->nslot; i++)
      if (s->slot[i]) slot[set_find(slot, n, s->slot[i])] = s->slot[i];
    lua_rawseti(L, lua_upvalueindex(UV_HOLDER), 1);   /* the old one is garbage now */
    s->slot = slot;
    s->nslot = n;
  }
  at = set_find(s->slot, s->nslot, h);
  if (s->slot[at] == h) return 0;
  s->slot[at] = h;
  s->used++;
  return 1;
}

static int sweep_add(lua_State *L) {
  sweep *s = (sweep *)lua_touserdata(L, lua_upvalueindex(UV_STATE));
  size_t n;
  const char *name = luaL_checklstring(L, 1, &n);
  lua_pushboolean(L, set_add(L, s, fnv1a(name, n)));
  return 1;
}

/* The name of the current combination into buf; 0 unless it is a DNS-1035
** label of at most s->max characters as it stands (dns_name would return
** it unchanged). */
static size_t render_name(lua_State *L, const sweep *s, char *buf) {
  int i, np = (int)lua_rawlen(L, lua_upvalueindex(UV_PARTS));
  size_t n = 0, k;
  for (i = 1; i <= np; i++) {
    size_t len;
    const char *p;
    if (lua_rawgeti(L, lua_upvalueindex(UV_PARTS), i) == LUA_TNUMBER) {
      int a = (int)lua_tointeger(L, -1) - 1;
      lua_pop(L, 1);
      lua_rawgeti(L, lua_upvalueindex(UV_TEXTS), a + 1);
      lua_rawgeti(L, -1, s->idx[a] + 1);
      lua_remove(L, -2);
    }
    p = lua_tolstring(L, -1, &len);
    if (n + len > (size_t)s->max) {
      lua_pop(L, 1);
      return 0;
    }
    memcpy(buf + n, p, len);
    n += len;
    lua_pop(L, 1);
  }
  if (n == 0 || buf[0] < 'a' || buf[0] > 'z' || buf[n - 1] == '-') return 0;
  for (k = 0; k < n; k++) {
    char c = buf[k];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return 0;
    if (c == '-' && k + 1 < n && buf[k + 1] == '-') return 0;
  }
  return n;
}

static int sweep_next(lua_State *L) {
  sweep *s = (sweep *)lua_touserdata(L, lua_upvalueindex(UV_STATE));
  lctx *X;
  const kf_job *base;
  kf_job out;
  kf_node *over;
  kf_err e;
  char buf[64];
  size_t n;
  int a, params, ok;
  if (s->done) {
    lua_pushnil(L);
    return 1;
  }
  X = lkf_ctx(L, 0);
  /* params: a fresh table of this combination's axis values */
  lua_createtable(L, 0, s->naxes);
  params = lua_gettop(L);
  for (a = 0; a < s->naxes; a++) {
    lua_rawgeti(L, lua_upvalueindex(UV_KEYS), a + 1);
    lua_rawgeti(L, lua_upvalueindex(UV_VALUES), a + 1);
    lua_rawgeti(L, -1, s->idx[a] + 1);
    lua_remove(L, -2);
    lua_rawset(L, params);
  }
  n = render_name(L, s, buf);
  /* advance the odometer: the last axis varies fastest */
  for (a = s->naxes - 1; a >= 0; a--) {
    if (++s->idx[a] < s->count[a]) break;
    s->idx[a] = 0;
  }
  if (a < 0) s->done = 1;
  lua_pushvalue(L, lua_upvalueindex(UV_BASE));
  base = lkf_checkjob(L, -1);
  over = lkf_checknode(L, X, params, lkf_job_mt[base->kind], &e);
  ok = n > 0 && kf_job_with_leaves(base, over, &X->A, &out, lkf_job_mt[base->kind]);
  if (ok && s->unique) ok = set_add(L, s, fnv1a(buf, n));
  if (!ok) {   /* the template layer does this one */
    lua_pushboolean(L, 0);
    lua_pushvalue(L, params);
    return 2;
  }
  lua_pushlstring(L, buf, n);
  lkf_pushjob(L, &out);
  lua_pushvalue(L, params);
  return 3;
}

static int l_sweep(lua_State *L) {
  sweep *s;
  int a, naxes;
  int max = (int)luaL_checkinteger(L, 6);
  lkf_checkjob(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  naxes = (int)lua_rawlen(L, 2);
  if (naxes < 1 || naxes > MAX_AXES || max < 1 || max > 63) return 0;   /* not here */
  lua_settop(L, 7);
  lua_pushvalue(L, lua_upvalueindex(1));   /* 8: ctx */
  s = (sweep *)lua_newuserdatauv(L, sizeof *s, 0);   /* 9 */
  memset(s, 0, sizeof *s);
  s->naxes = naxes;
  s->max = max;
  s->unique = lua_toboolean(L, 7);
  for (a = 0; a < naxes; a++) {
    lua_rawgeti(L, 3, a + 1);
    s->count[a] = (int)lua_rawlen(L, -1);
    lua_pop(L, 1);
    if (s->count[a] < 1) return 0;
  }
  lua_pushvalue(L, 1);      /* base */
  lua_pushvalue(L, 2);      /* keys */
  lua_pushvalue(L, 3);      /* values */
  lua_pushvalue(L, 4);      /* texts */
  lua_pushvalue(L, 5);      /* parts */
  lua_newtable(L);          /* holder */
  for (a = 0; a < 8; a++) lua_pushvalue(L, 8 + a);
  lua_pushcclosure(L, sweep_next, 8);
  for (a = 0; a < 8; a++) lua_pushvalue(L, 8 + a);
  lua_pushcclosure(L, sweep_add, 8);
  return 2;
}

/* The set alone, for the sweeps the template layer does itself. */
static int l_nameset(lua_State *L) {
  int a;
  lua_settop(L, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  memset(lua_newuserdatauv(L, sizeof(sweep), 0), 0, sizeof(sweep));
  for (a = UV_STATE + 1; a < UV_HOLDER; a++) lua_pushnil(L);
  lua_newtable(L);
  lua_pushcclosure(L, sweep_add, UV_HOLDER);
  return 1;
}

const luaL_Reg lkf_sweep_funcs[] = {
    {"_sweep", l_sweep}, {"_nameset", l_nameset}, {NULL, NULL}};

/*
** lkfjob_sweep.c - the fast path of kfjob.template.variants: the odometer,
** the leaf overrides (job:with's leaf path), the names and the duplicate
** set in C, for the common sweep (a job base, axes of fields with scalar
** values and axes of variables only the name reads, a name template over
** the axes, made a DNS-1035 label as dns_name makes it).  kfjob.template
** decides when it applies and renders each axis value to text once;
** whatever this path cannot do the same way (a name dns_name would cut
** and hash, or of bytes past ASCII, an override that is not a leaf, a
** variant that fails, a name whose hash is in the set) it hands back to
** the template layer, which then does the variant exactly as the general
** path does, errors included.
**
**   kfjob._sweep(base, keys, values, texts, parts, max, unique, isvar)
**     -> next, add          (isvar[a]: axis a is a variable, not a field)
**   next()     -> name, job, params | false, params | nil (done)
**   add(name)  -> true (new) | false (its hash is in the set)
**   kfjob._nameset() -> add   (the set alone, for the general path)
**
** The set keeps only 64-bit hashes in a Lua userdata (so the Lua heap and
** a sandbox's memory limit see it), kept at least 57 % full: at most
** 14 bytes per name.
*/
#include <string.h>

#include "lkf_binding.h"

#define MAX_AXES 32

/* One axis value, read once: its node's type and scalar (a string points
** into the Lua string, which the values table anchors) and its text. */
typedef struct sval {
  kf_ntype t;
  int b;
  int64_t i;
  double d;
  const char *s, *text;
  size_t n, ntext;
} sval;

/* One piece of the name template: a literal, or axis >= 0. */
typedef struct spart {
  const char *p;
  size_t n;
  int axis;
} spart;

typedef struct sweep {
  int naxes, done, nparts, nfields;
  int idx[MAX_AXES], count[MAX_AXES];
  const char *key[MAX_AXES];   /* anchored by the keys table */
  sval *val[MAX_AXES];
  spart *part;
  int max;                 /* longest name */
  int unique;              /* keep the set */
  uint64_t *slot;          /* the set (in the holder's userdata), 0 free */
  size_t nslot, used;
  int moves;               /* 1: `mv` holds the base's pointers, -1: none */
  kf_moves mv;
  int leaves;              /* every field axis resolved to its row in `leaf` */
  kf_leaf leaf[MAX_AXES];  /* the field axes' rows, in axis order */
  int field[MAX_AXES];     /* the axes of those rows */
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

#define RAW_MAX 256   /* a longer rendered name: the template layer */

static int dns_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* dns_name of the n bytes of raw into buf, as kfjob.template's dns_name
** makes it (lowercase; each run of characters other than a-z, 0-9 and -
** one -, runs of - one; none leading or trailing; a v before a digit);
** 0 when that is empty, would be cut and hashed (longer than max) or the
** text holds a byte past ASCII (lowercased by the C library's locale in
** Lua): the template layer names those. */
static size_t dns_label(const char *raw, size_t n, char *buf, size_t max) {
  char out[RAW_MAX];
  size_t k, m = 0, pre;
  int dash = 0;
  for (k = 0; k < n; k++) {
    char c = raw[k];
    if ((unsigned char)c >= 0x80) return 0;
    if (c >= 'A' && c <= 'Z') c = (char)(c + ('a' - 'A'));
    if (c == '-' || !dns_char(c)) {   /* a run: one '-' if a character follows */
      dash = 1;
      continue;
    }
    if (dash && m > 0) out[m++] = '-';
    dash = 0;
    out[m++] = c;
  }
  if (m == 0) return 0;
  pre = out[0] >= 'a' && out[0] <= 'z' ? 0 : 1;   /* else a digit: 'v' first */
  if (m + pre > max) return 0;
  buf[0] = 'v';
  memcpy(buf + pre, out, m);
  return m + pre;
}

/* The name of the current combination into buf (at least 64 bytes): the
** template rendered, then made a DNS-1035 label of at most s->max
** characters; 0 when the template layer must name it (see dns_label). */
static size_t render_name(const sweep *s, char *buf) {
  char raw[RAW_MAX];
  int i, ok = 1;
  size_t n = 0, k;
  for (i = 0; i < s->nparts; i++) {
    const spart *p = &s->part[i];
    const char *t = p->p;
    size_t len = p->n;
    if (p->axis >= 0) {
      const sval *v = &s->val[p->axis][s->idx[p->axis]];
      t = v->text;
      len = v->ntext;
    }
    if (n + len > RAW_MAX) return 0;
    memcpy(raw + n, t, len);
    n += len;
  }
  /* already a label (the common case): as it stands */
  if (n == 0 || n > (size_t)s->max || raw[0] < 'a' || raw[0] > 'z' || raw[n - 1] == '-')
    ok = 0;
  for (k = 0; ok && k < n; k++)
    if (!dns_char(raw[k]) || (raw[k] == '-' && raw[k + 1] == '-')) ok = 0;
  if (ok) {
    memcpy(buf, raw, n);
    return n;
  }
  return n ? dns_label(raw, n, buf, (size_t)s->max) : 0;
}

/* This combination's field axis values, as nodes on the caller's stack
** (as lkf_checknode would make them from the params table). */
static int values(const sweep *s, kf_node *nv, const kf_node **pv) {
  int i;
  for (i = 0; i < s->nfields; i++) {
    int a = s->field[i];
    const sval *v = &s->val[a][s->idx[a]];
    memset(&nv[i], 0, sizeof nv[i]);
    nv[i].t = v->t;
    switch (v->t) {
      case KF_NBOOL: nv[i].u.b = v->b; break;
      case KF_NINT: nv[i].u.i = v->i; break;
      case KF_NNUM: nv[i].u.d = v->d; break;
      case KF_NSTR: nv[i].u.s.p = v->s; nv[i].u.s.n = v->n; break;
      case KF_NNIL: case KF_NARR: case KF_NOBJ: return 0;   /* never made */
    }
    pv[i] = &nv[i];
  }
  return 1;
}

static int sweep_next(lua_State *L) {
  sweep *s = (sweep *)lua_touserdata(L, lua_upvalueindex(UV_STATE));
  lctx *X;
  const kf_job *base;
  kf_job out;
  kf_node nv[MAX_AXES];
  const kf_node *pv[MAX_AXES];
  char buf[64];
  size_t n;
  int a, params, ok, kept = 0;
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
  n = render_name(s, buf);
  base = (const kf_job *)lua_touserdata(L, lua_upvalueindex(UV_BASE));
  /* keys that are not plain leaves: the template layer (with's general path) */
  ok = n > 0 && s->leaves && values(s, nv, pv) &&
       kf_job_with_values(base, s->leaf, pv, (size_t)s->nfields, &X->A, &out,
                          lkf_job_mt[base->kind], &kept);
  /* advance the odometer: the last axis varies fastest */
  for (a = s->naxes - 1; a >= 0; a--) {
    if (++s->idx[a] < s->count[a]) break;
    s->idx[a] = 0;
  }
  if (a < 0) s->done = 1;
  if (ok && s->unique) ok = set_add(L, s, fnv1a(buf, n));
  if (!ok) {   /* the template layer does this one */
    lua_pushboolean(L, 0);
    lua_pushvalue(L, params);
    return 2;
  }
  lua_pushlstring(L, buf, n);
  if (kept && s->moves == 0) s->moves = kf_job_moves(base, &s->mv) ? 1 : -1;
  kept = kept && s->moves == 1;   /* a base with a pod template: laid out */
  lkf_pushjob_from(L, &out, lua_upvalueindex(UV_BASE), kept, kept ? &s->mv : NULL);
  lua_pushvalue(L, params);
  return 3;
}

/* Reads the axis values (4: their texts) and the name's parts into the
** state, which anchors nothing itself: the closures keep the tables. */
static int setup(lua_State *L, sweep *s, int kind) {
  int a, j, i;
  s->leaves = 1;
  s->nparts = (int)lua_rawlen(L, 5);
  s->part = (spart *)lua_newuserdatauv(L, (size_t)(s->nparts ? s->nparts : 1) * sizeof(spart), 0);
  lua_rawseti(L, -2, 2);   /* into the holder on top ([1]: the set) */
  for (i = 0; i < s->nparts; i++) {
    spart *p = &s->part[i];
    lua_rawgeti(L, 5, i + 1);
    p->axis = -1;
    if (lua_type(L, -1) == LUA_TNUMBER) {
      p->axis = (int)lua_tointeger(L, -1) - 1;
      if (p->axis < 0 || p->axis >= s->naxes) return 0;
    } else if ((p->p = lua_tolstring(L, -1, &p->n)) == NULL) {
      return 0;
    }
    lua_pop(L, 1);
  }
  for (a = 0; a < s->naxes; a++) {
    lua_rawgeti(L, 2, a + 1);
    s->key[a] = lua_tostring(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, 3, a + 1);
    lua_rawgeti(L, 4, a + 1);
    s->count[a] = (int)lua_rawlen(L, -2);
    if (s->key[a] == NULL || s->count[a] < 1 || (int)lua_rawlen(L, -1) != s->count[a]) return 0;
    lua_rawgeti(L, 8, a + 1);
    if (!lua_toboolean(L, -1)) {   /* a field: its row (a variable only names) */
      s->field[s->nfields] = a;
      if (!kf_leaf_resolve(kind, s->key[a], &s->leaf[s->nfields++])) s->leaves = 0;
    }
    lua_pop(L, 1);
    s->val[a] = (sval *)lua_newuserdatauv(L, (size_t)s->count[a] * sizeof(sval), 0);
    lua_rawseti(L, -4, 3 + a);   /* into the holder */
    for (j = 0; j < s->count[a]; j++) {
      sval *v = &s->val[a][j];
      memset(v, 0, sizeof *v);
      lua_rawgeti(L, -2, j + 1);
      switch (lua_type(L, -1)) {
        case LUA_TNUMBER:
          if (lua_isinteger(L, -1)) v->t = KF_NINT, v->i = lua_tointeger(L, -1);
          else v->t = KF_NNUM, v->d = lua_tonumber(L, -1);
          break;
        case LUA_TBOOLEAN: v->t = KF_NBOOL; v->b = lua_toboolean(L, -1); break;
        case LUA_TSTRING: v->t = KF_NSTR; v->s = lua_tolstring(L, -1, &v->n); break;
        default: return 0;
      }
      lua_pop(L, 1);
      lua_rawgeti(L, -1, j + 1);
      v->text = lua_tolstring(L, -1, &v->ntext);
      lua_pop(L, 1);
      if (v->text == NULL) return 0;
    }
    lua_pop(L, 2);
  }
  return s->nfields > 0;   /* a variant is a new job (with of one field at least) */
}

static int l_sweep(lua_State *L) {
  sweep *s;
  int a, naxes;
  int max = (int)luaL_checkinteger(L, 6);
  int kind = lkf_checkjob(L, 1)->kind;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  naxes = (int)lua_rawlen(L, 2);
  if (naxes < 1 || naxes > MAX_AXES || max < 1 || max > 63) return 0;   /* not here */
  lua_settop(L, 8);
  if (!lua_istable(L, 8)) {   /* no isvar: every axis a field */
    lua_newtable(L);
    lua_replace(L, 8);
  }
  lua_pushvalue(L, lua_upvalueindex(1));   /* 9: ctx */
  s = (sweep *)lua_newuserdatauv(L, sizeof *s, 0);   /* 10 */
  memset(s, 0, sizeof *s);
  s->naxes = naxes;
  s->max = max;
  s->unique = lua_toboolean(L, 7);
  lua_pushvalue(L, 1);      /* 11 base */
  lua_pushvalue(L, 2);      /* 12 keys */
  lua_pushvalue(L, 3);      /* 13 values */
  lua_pushvalue(L, 4);      /* 14 texts */
  lua_pushvalue(L, 5);      /* 15 parts */
  lua_newtable(L);          /* 16 holder: the set, the parts, the values read */
  if (!setup(L, s, kind)) return 0;
  for (a = 0; a < 8; a++) lua_pushvalue(L, 9 + a);
  lua_pushcclosure(L, sweep_next, 8);
  for (a = 0; a < 8; a++) lua_pushvalue(L, 9 + a);
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

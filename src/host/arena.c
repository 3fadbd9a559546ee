/*
** arena.c - an arena on the Lua stack, freed however the run ends (a
** to-be-closed userdata, also collected): the data reader keeps its
** document in one, the renderer its problem lists.  Below data.c and
** render.c, which both use it.
*/
#include "lua.h"
#include "lauxlib.h"

#include "kf_core.h"
#include "lkf_binding.h"
#include "host.h"

typedef struct dbox {
  kf_arena A;
  int live;
} dbox;

static int dbox_close(lua_State *L) {
  dbox *b = (dbox *)lua_touserdata(L, 1);
  if (b != NULL && b->live) {
    b->live = 0;
    kf_arena_free(&b->A);
  }
  return 0;
}

/* kfh_push_arena's box (host.h). */
static dbox *push_box(lua_State *L) {
  dbox *b = (dbox *)lua_newuserdatauv(L, sizeof *b, 0);
  kf_alloc a;
  a.f = (kf_allocf)lua_getallocf(L, &a.ud);
  kf_arena_init(&b->A, a);
  b->live = 1;
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, dbox_close);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, dbox_close);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_toclose(L, -1);
  return b;
}

struct kf_arena *kfh_push_arena(lua_State *L) { return &push_box(L)->A; }


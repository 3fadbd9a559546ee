/* lkfjob_manifest.c - binding for manifests, lint and launcher commands. */
#include "lkfjob.h"

void lkf_open_manifest(lua_State *L, int ctx, int module, int methods) {
  (void)L; (void)ctx; (void)module; (void)methods;
}

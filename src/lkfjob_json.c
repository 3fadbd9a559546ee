/* lkfjob_json.c - binding for JSON, Struct and TaskTemplate (issue 3). */
#include "lkfjob.h"

void lkf_open_json(lua_State *L, int ctx, int module, int methods) {
  (void)L; (void)ctx; (void)module; (void)methods;
}

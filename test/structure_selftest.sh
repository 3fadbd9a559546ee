#!/bin/sh
# test/structure_selftest.sh [BUILD_DIR]: test/structure.lua fails, naming
# the file, the line and the rule, on each planted break of the rooms
# (in a scratch copy of src/ and include/; the objects of BUILD_DIR give the
# definitions).  Prints "N passed, N failed".
set -u
root=$(pwd)
build=$(cd "${1:-build}" && pwd)
pass=0 failed=0
plant() {   # name, file, sed script, expected words
  tmp=$(mktemp -d)
  cp -r "$root/src" "$root/include" "$root/test" "$tmp/"
  sed -i "$3" "$tmp/$2"
  out=$(cd "$tmp" && lua5.4 test/structure.lua "$build" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && printf '%s' "$out" | grep -qF "$4"; then
    pass=$((pass + 1)); echo "ok: $1"
  else
    failed=$((failed + 1)); echo "FAILED: $1 (exit $rc, wanted \"$4\")"; printf '%s\n' "$out" | head -5
  fi
  rm -rf "$tmp"
}
plant "an upward include with no cycle (codec -> kube)" src/core/codec/kf_yaml.c \
  '0,/#include "kf_yaml.h"/s//#include "kf_yaml.h"\n#include "kf_manifest.h"/' \
  'src/core/codec/kf_yaml.c:'
plant "the same names its rule" src/core/codec/kf_yaml.c \
  '0,/#include "kf_yaml.h"/s//#include "kf_yaml.h"\n#include "kf_manifest.h"/' \
  'core/codec uses only core/base, core/schema (not core/kube)'
plant "a room beside another (kube -> flyte)" src/core/kube/kf_write.c \
  '0,/#include "kf_env.h"/s//#include "kf_env.h"\n#include "kf_template.h"/' \
  'core/kube uses only core/base, core/schema, core/codec (not core/flyte)'
plant "another room's private header" src/core/rules/kf_lint.c \
  '0,/#include "kf_pod.h"/s//#include "kf_pod.h"\n#include "kf_manifest_int.h"/' \
  'kf_manifest_int.h is private to core/kube'
plant "a lower header declaring a higher room's function" src/core/schema/kf_pod.h \
  's|^#endif|kf_status kf_target_require(void);\n#endif|' \
  'kf_target_require is defined in src/core/rules/kf_target_check.c'
plant "the core including the public header" src/core/base/kf_text.c \
  '0,/#include "kf_core.h"/s//#include "kf_core.h"\n#include "kfjob.h"/' \
  'the core includes no public header'
plant "a sideways include in angle brackets (kube -> import)" src/core/kube/kf_write.c \
  '0,/#include "kf_env.h"/s//#include "kf_env.h"\n#include <kf_import.h>/' \
  'core/kube uses only core/base, core/schema, core/codec (not core/import)'
plant "a declaration over several lines" src/core/codec/kf_yaml.h \
  's|^#endif|long double\nkfm_qty_value\n  (const char *s);\n#endif|' \
  'src/core/codec/kf_yaml.h:'
plant "a function over 80 lines" src/core/base/kf_text.c \
  '$a int kf_selftest_long(void) {\n'"$(i=0; while [ $i -lt 80 ]; do printf '  (void)0;\\n'; i=$((i + 1)); done)"'  return 0;\n}' \
  'no C function over 80 lines (kf_selftest_long: 83)'
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]

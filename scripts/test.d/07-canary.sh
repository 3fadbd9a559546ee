# shellcheck shell=bash
# 07-canary.sh - sourced by scripts/test.sh.
#
# The canary build (issue 40): -DKFJOB_CANARY_FIELDS=ON in build-canary/
# compiles one canary field per place (src/core/schema/kf_canary.h, the
# only file that names one), and spec/canary_spec.lua follows each through
# every output its place has on every target (manifests, import, to_lua,
# to_config, schema, explain, meta) and its refusals.  Only the Lua module
# and the CLI are built; the busted counts go into the totals.
canary_stage() {
  local dir=build-canary out="$LOG/busted-canary.out"
  stage "canary fields: build ($dir, -DKFJOB_CANARY_FIELDS=ON) and spec/canary_spec.lua"
  canary_build() {
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFJOB_WERROR=ON \
      -DKFJOB_CANARY_FIELDS=ON -DKFJOB_TESTS=OFF >/dev/null &&
      cmake --build "$dir" -j"$JOBS" --target kfjob_module kfjob_cli
  }
  if ! check "canary build (-DKFJOB_CANARY_FIELDS=ON)" canary_build; then return; fi
  KFJOB_CLI="$ROOT/$dir/kfjob" busted --lua=lua5.4 --cpath="$ROOT/$dir/?.so" \
    -o utfTerminal spec/canary_spec.lua >"$out" 2>&1
  grep -aE '[0-9]+ successes? / ' "$out" | tail -1
  count_busted "$out"
  # a canary build that ran nothing proves nothing
  if grep -aqE ' 0 successes? / ' "$out"; then
    fail_named "spec/canary_spec.lua ran no case in the canary build"
  fi
}
canary_stage

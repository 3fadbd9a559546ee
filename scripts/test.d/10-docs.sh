# shellcheck shell=bash
# Every function the binding registers (luaL_Reg tables of src/lua/lkfjob*.c src/host/*.c)
# is documented in the README or a page of docs/, and every public C declaration (KFJOB_API in
# include/kfjob.h) has a Doxygen block right above it.
stage "docs cover the API"
docs_check() {
  local missing="" n
  for n in $(grep -ho '{"[a-z_0-9]*", [a-z_0-9]*}' src/lua/lkfjob*.c src/host/*.c | sed -E 's/\{"([a-z_0-9]*)".*/\1/' | sort -u); do
    grep -q "[.:]$n\b\|\`$n\b" README.md docs/*.md || missing="$missing $n"
  done
  [ -z "$missing" ] || { echo "not in README.md or docs/*.md:$missing"; return 1; }
}
doxygen_check() {
  local bare
  bare=$(awk '/KFJOB_API/ && !/define/ { if (prev !~ /\*\/[ \t]*$/) print NR": "$0 }
              { if ($0 !~ /^[ \t]*$/) prev = $0 }' include/kfjob.h)
  [ -z "$bare" ] || { echo "no Doxygen block above:"; echo "$bare"; return 1; }
}
check "README.md and docs/*.md document every Lua function" docs_check
check "include/kfjob.h: a Doxygen block on every declaration" doxygen_check

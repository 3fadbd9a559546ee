#!/bin/sh
# The installed-library test (ctest host_install):
#   install_test.sh BUILD_DIR SOURCE_DIR CMAKE CC
# Installs the host component of BUILD_DIR into a temporary prefix, builds
# examples/host/gateway.c against it with pkg-config (shared and static)
# and with find_package(kfjob) (kfjob::kfjob and kfjob::kfjob_static), runs
# each build on examples/host/train.lua and checks the TaskTemplates it
# writes with the installed kfjob CLI.
set -eu
BUILD=$1 SRC=$2 CMAKE=${3:-cmake} CC=${4:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix
fail() { echo "FAILED - $*"; exit 1; }
ok() { echo "ok - $*"; }

"$CMAKE" --install "$BUILD" --prefix "$PREFIX" --component host >"$TMP/install.log" ||
  { cat "$TMP/install.log"; fail "cmake --install"; }
PCDIR=$(dirname "$(find "$PREFIX" -name kfjob.pc | head -1)")
[ -f "$PCDIR/kfjob.pc" ] || fail "kfjob.pc installed"
[ -f "$PREFIX/include/kfjob.h" ] || fail "kfjob.h installed"
[ -x "$PREFIX/bin/kfjob" ] || fail "kfjob CLI installed"
[ -f "$(dirname "$PCDIR")/cmake/kfjob/kfjobConfig.cmake" ] || fail "kfjobConfig.cmake installed"
[ ! -e "$PREFIX/include/lkf_binding.h" ] && [ ! -e "$PREFIX/include/kf_core.h" ] ||
  fail "only the public header is installed"
ok "install: libraries, kfjob.h, kfjob.pc, CMake package, CLI"

export PKG_CONFIG_PATH="$PCDIR"
LIBDIR=$(pkg-config --variable=libdir kfjob)
[ "$(pkg-config --modversion kfjob)" = "$("$PREFIX/bin/kfjob" --version | cut -d' ' -f2)" ] ||
  fail "pkg-config version matches the library"
[ -f "$LIBDIR/libkfjob.so" ] && [ -f "$LIBDIR/libkfjob.a" ] || fail "libkfjob.so and .a in libdir"
ok "pkg-config: kfjob $(pkg-config --modversion kfjob), libdir found from the moved prefix"

# the header compiles alone, as C89-ish C and as C++
echo '#include <kfjob.h>
int main(void) { return kfjob_version_number() == KFJOB_VERSION_NUMBER ? 0 : 1; }' >"$TMP/hdr.c"
"$CC" -std=c99 -Wall -Wextra -Werror -pedantic -c "$TMP/hdr.c" -o "$TMP/hdr.o" \
  $(pkg-config --cflags kfjob) || fail "kfjob.h compiles with -std=c99 -pedantic"
if command -v c++ >/dev/null 2>&1; then
  c++ -x c++ -Wall -Werror -c "$TMP/hdr.c" -o "$TMP/hdr2.o" $(pkg-config --cflags kfjob) ||
    fail "kfjob.h compiles as C++"
fi
ok "kfjob.h is self-contained (C99 pedantic, C++)"

# shared, via pkg-config
"$CC" "$SRC/examples/host/gateway.c" $(pkg-config --cflags --libs kfjob) \
  -Wl,-rpath,"$LIBDIR" -o "$TMP/gw-pc" || fail "build with pkg-config"
# static, via pkg-config --static
STATIC_LIBS=$(pkg-config --static --libs kfjob | sed 's/-lkfjob//')
"$CC" "$SRC/examples/host/gateway.c" $(pkg-config --cflags kfjob) "$LIBDIR/libkfjob.a" \
  $STATIC_LIBS -o "$TMP/gw-pc-static" || fail "static build with pkg-config --static"
if ldd "$TMP/gw-pc-static" | grep -q libkfjob; then fail "static build links libkfjob.a"; fi
ok "examples/host built with pkg-config (shared and static)"

# CMake package
for variant in shared static; do
  flag=OFF; [ $variant = static ] && flag=ON
  "$CMAKE" -S "$SRC/examples/host" -B "$TMP/cm-$variant" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DKFJOB_LINK_STATIC=$flag >"$TMP/cm.log" 2>&1 || { cat "$TMP/cm.log"; fail "find_package(kfjob) $variant"; }
  "$CMAKE" --build "$TMP/cm-$variant" >"$TMP/cm.log" 2>&1 || { cat "$TMP/cm.log"; fail "build $variant"; }
  cp "$TMP/cm-$variant/kfjob-gateway" "$TMP/gw-cmake-$variant"
done
ok "examples/host built with find_package(kfjob) (kfjob::kfjob and kfjob::kfjob_static)"

# one compatibility rule for 0.x: the soname names the minor version
# (libkfjob.so.0.1) and find_package accepts 0.1 but not 0.0 or 0.2
MAJMIN=$(pkg-config --modversion kfjob | cut -d. -f1,2)
readelf -d "$LIBDIR/libkfjob.so" | grep -q "SONAME.*\[libkfjob\.so\.$MAJMIN\]" ||
  fail "soname libkfjob.so.$MAJMIN"
MINOR=${MAJMIN#*.}
for want in "$MAJMIN:ok" "0.$((MINOR + 1)):no" "1.0:no"; do
  v=${want%:*}
  mkdir -p "$TMP/ver-$v"
  printf 'cmake_minimum_required(VERSION 3.18)\nproject(v LANGUAGES C)\nfind_package(kfjob %s REQUIRED)\n' \
    "$v" >"$TMP/ver-$v/CMakeLists.txt"
  if "$CMAKE" -S "$TMP/ver-$v" -B "$TMP/ver-$v/b" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null 2>&1; then
    [ "${want#*:}" = ok ] || fail "find_package(kfjob $v) must fail"
  else
    [ "${want#*:}" = no ] || fail "find_package(kfjob $v) must succeed"
  fi
done
ok "0.x compatibility: soname libkfjob.so.$MAJMIN, find_package $MAJMIN only"

# run every build
for gw in gw-pc gw-pc-static gw-cmake-shared gw-cmake-static; do
  out=$TMP/out-$gw
  mkdir -p "$out"
  "$TMP/$gw" "$SRC/examples/host/train.lua" "$out" workers=3 >"$TMP/$gw.log" 2>&1 ||
    { cat "$TMP/$gw.log"; fail "$gw runs"; }
  grep -q "^kfjob library 0\.1\.0 (built with headers 0\.1\.0)$" "$TMP/$gw.log" || fail "$gw version line"
  grep -q "^submitted train-large (PyTorchJob, task type pytorch v1, [0-9]* bytes) -> $out/train-large.pb$" \
    "$TMP/$gw.log" || { cat "$TMP/$gw.log"; fail "$gw output"; }
  grep -q "^2 jobs submitted$" "$TMP/$gw.log" || fail "$gw count"
  "$PREFIX/bin/kfjob" decode "$out/train-large.pb" >"$TMP/dec.json" || fail "decode $gw output"
  grep -q '"replicas":12' "$TMP/dec.json" || { cat "$TMP/dec.json"; fail "$gw: train-large has 12 workers"; }
  "$PREFIX/bin/kfjob" decode "$out/train-small.pb" | grep -q '"replicas":3' || fail "$gw: train-small"
  # a hostile config fails cleanly
  printf 'while true do end\n' >"$TMP/loop.lua"
  if "$TMP/$gw" "$TMP/loop.lua" "$out" >"$TMP/$gw.log" 2>&1; then fail "$gw: loop must fail"; fi
  grep -q "instruction budget exceeded" "$TMP/$gw.log" || { cat "$TMP/$gw.log"; fail "$gw: budget message"; }
done
ok "each build runs: 2 TaskTemplates written, decoded by the installed CLI; a looping config is stopped"

#!/bin/sh
# The source rock of a release, offline: dist/kfjob-VERSION-1.src.rock from
# a git tag (default vVERSION, VERSION from CMakeLists.txt) or a branch.
# `luarocks pack` fetches the rockspec's source; the copy of
# rockspec/kfjob-VERSION-1.rockspec written to dist/ points it at this
# repository (git+file://), so nothing is downloaded, and the .src.rock
# carries the sources: `luarocks build dist/kfjob-VERSION-1.src.rock`
# installs the module and the kfjob command anywhere, offline too.
# Usage: scripts/release.sh [TAG|BRANCH]      (KFJOB_DIST=DIR: another output dir)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
V=$(sed -n 's/^project(kfjob VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
REF=${1:-v$V}
if git rev-parse -q --verify "refs/tags/$REF" >/dev/null; then
  KEY=tag
elif git rev-parse -q --verify "refs/heads/$REF" >/dev/null; then
  KEY=branch
else
  echo "release: no tag or branch $REF; tag the release first: git tag -a v$V -m 'kfjob $V'" >&2
  exit 1
fi
OUT=${KFJOB_DIST:-dist}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
sed -e "s|^  url = .*|  url = \"git+file://$ROOT\",|" \
    -e "s|^  tag = .*|  $KEY = \"$REF\",|" \
    "rockspec/kfjob-$V-1.rockspec" >"$OUT/kfjob-$V-1.rockspec"
(cd "$OUT" && luarocks pack "kfjob-$V-1.rockspec" >/dev/null)
echo "release: $OUT/kfjob-$V-1.src.rock (from $KEY $REF)"

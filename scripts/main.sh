#!/bin/bash
# The main job: install what is missing, build, and render the bundled
# example sweep (12 PyTorchJob variants) to ./out/sweep as JSON.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
OUT=${1:-out/sweep}
if [ -x build/kfjob ]; then
  exec build/kfjob render examples/sweep.lua -f json -o "$OUT"
fi
LUA_CPATH="$PWD/build/?.so;;" LUA_PATH="$PWD/lua/?.lua;;" exec lua5.4 examples/sweep_main.lua "$OUT"

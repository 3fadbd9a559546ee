#!/bin/sh
# Install what a fresh Debian machine lacks for building and testing kfjob.
# Idempotent: does nothing when every package is already there.
set -e
PKGS="lua5.4 liblua5.4-dev libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev
libjansson-dev libyaml-dev cmake make gcc pkg-config lua-busted lua-check luarocks
protobuf-compiler python3 python3-protobuf python3-yaml python3-jsonschema
valgrind clang libclang-rt-14-dev locales
lua5.1 liblua5.1-0-dev lua5.2 liblua5.2-dev lua5.3 liblua5.3-dev luajit libluajit-5.1-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# A locale whose decimal point is a comma, for the locale specs
# (spec/locale_spec.lua is pending with a message without it).
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO localedef -i de_DE -f UTF-8 de_DE.UTF-8 2>/dev/null ||
    echo "setup: could not generate de_DE.UTF-8 (locale specs will be pending)" >&2
fi

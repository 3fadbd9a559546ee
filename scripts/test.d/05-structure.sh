# shellcheck shell=bash
# The rooms of src/ and the directions between them (includes, calls between
# the objects of build/, functions of at most 80 lines): test/structure.lua.
stage "structure of src/"
check "src/: includes, calls and function lengths (test/structure.lua)" lua5.4 test/structure.lua build
check "test/structure.lua fails on each planted break of the rooms (test/structure_selftest.sh)" \
  sh test/structure_selftest.sh build

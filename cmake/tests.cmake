# C tests: each area has its own cmake/tests_<area>.cmake.
# A test's TIMEOUT only stops a hang: it is far above what the test needs on
# a busy machine (about ten times its time beside two busy processes, at
# least half an hour), so the machine's load never fails a test
# (docs/RELIABILITY.md, "Time in tests").  KFJOB_TEST_TIMEOUT for the quick
# tests, _SLOW for the valgrind runs and the allocation-failure harness (up
# to 12 min there).
set(KFJOB_TEST_TIMEOUT 1800)
set(KFJOB_TEST_TIMEOUT_SLOW 7200)
foreach(area json targets reliability host)
  include(${CMAKE_SOURCE_DIR}/cmake/tests_${area}.cmake)
endforeach()

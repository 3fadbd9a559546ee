# C tests: each area adds its own cmake/tests_<area>.cmake (kept apart so
# they can grow independently).
file(GLOB KF_TEST_CMAKE ${CMAKE_SOURCE_DIR}/cmake/tests_*.cmake)
foreach(f ${KF_TEST_CMAKE})
  include(${f})
endforeach()

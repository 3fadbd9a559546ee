# C tests: each area has its own cmake/tests_<area>.cmake.
foreach(area json targets reliability host)
  include(${CMAKE_SOURCE_DIR}/cmake/tests_${area}.cmake)
endforeach()

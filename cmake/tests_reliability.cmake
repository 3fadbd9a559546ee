# Reliability tests: the allocation-failure harness.
# test/alloc/allocfail.c links the core and the binding objects directly
# (with liblua) and runs test/alloc/scenarios.lua with a counting allocator
# that fails the N-th allocation for every N.  KFJOB_ALLOCFAIL_STEP=K in the
# environment samples every K-th N (default 1: all of them).
if(NOT LUA_LIBRARY)
  message(STATUS "kfjob: liblua5.4 not found, allocation-failure test skipped")
  return()
endif()
add_executable(kfjob_allocfail test/alloc/allocfail.c
               $<TARGET_OBJECTS:kfjob_core> $<TARGET_OBJECTS:kfjob_bind>)
target_include_directories(kfjob_allocfail PRIVATE ${LUA_INCDIR}
                           ${KF_CORE_INC} ${CMAKE_SOURCE_DIR}/src/lua ${CMAKE_BINARY_DIR}/gen)
target_link_libraries(kfjob_allocfail PRIVATE ${LUA_LIBRARY} PkgConfig::PROTOBUFC
                      PkgConfig::JANSSON PkgConfig::YAML m)
add_test(NAME allocfail
         COMMAND kfjob_allocfail ${CMAKE_SOURCE_DIR}/test/alloc/scenarios.lua)
set_tests_properties(allocfail PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT_SLOW} LABELS reliability)

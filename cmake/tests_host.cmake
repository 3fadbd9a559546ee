# Host API, libraries and CLI tests.
#   host_api            test/host/test_host.c against libkfjob.a
#   host_api_kinds      test/host/test_host_kinds.c: JAXJob, XGBoostJob, PaddleJob
#   host_api_valgrind   the same under valgrind (no leaks, no invalid access)
#   host_resources      test/host/test_resources.c (and under valgrind)
#   host_import         test/host/test_import.c: kfjob_host_import (and under
#                       valgrind)
#   host_bbfix          test/host/test_bbfix.c: callback time, usage, messages
#   host_symbols        only KFJOB_API symbols leave libkfjob.a / libkfjob.so
#   host_install        cmake --install to a temporary prefix, then build
#                       examples/host with pkg-config and with find_package
#                       and run it
# The CLI is tested by spec/cli_spec.lua (busted).
if(NOT KFJOB_HOST OR NOT TARGET kfjob_cli)
  return()
endif()

add_executable(test_host ${CMAKE_SOURCE_DIR}/test/host/test_host.c)
target_link_libraries(test_host PRIVATE kfjob::kfjob)
add_test(NAME host_api COMMAND test_host)
set_tests_properties(host_api PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)
# the default wall-clock limit stops a busy config (takes that limit, 60 s)
add_test(NAME host_time_default COMMAND test_host time_default)
set_tests_properties(host_time_default PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)
# the kinds without a Flyte task type (SPEC §12) through the host API
add_executable(test_host_kinds ${CMAKE_SOURCE_DIR}/test/host/test_host_kinds.c)
target_link_libraries(test_host_kinds PRIVATE kfjob::kfjob)
add_test(NAME host_api_kinds COMMAND test_host_kinds)
set_tests_properties(host_api_kinds PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)

# resources, failed variants, quantity sums (test/host/test_resources.c)
add_executable(test_resources ${CMAKE_SOURCE_DIR}/test/host/test_resources.c)
target_link_libraries(test_resources PRIVATE kfjob::kfjob)
add_test(NAME host_resources COMMAND test_resources)
set_tests_properties(host_resources PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)

# manifests read back (test/host/test_import.c)
add_executable(test_import ${CMAKE_SOURCE_DIR}/test/host/test_import.c)
target_link_libraries(test_import PRIVATE kfjob::kfjob)
add_test(NAME host_import COMMAND test_import)
set_tests_properties(host_import PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)

# host behaviour a black-box tester checked against the docs (test/host/test_bbfix.c)
add_executable(test_bbfix ${CMAKE_SOURCE_DIR}/test/host/test_bbfix.c)
target_link_libraries(test_bbfix PRIVATE kfjob::kfjob)
add_test(NAME host_bbfix COMMAND test_bbfix)
set_tests_properties(host_bbfix PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)

find_program(VALGRIND_EXECUTABLE valgrind)
if(VALGRIND_EXECUTABLE)
  add_test(NAME host_import_valgrind
           COMMAND ${VALGRIND_EXECUTABLE} --quiet --error-exitcode=99
                   --leak-check=full --show-leak-kinds=all
                   --errors-for-leak-kinds=all $<TARGET_FILE:test_import>)
  set_tests_properties(host_import_valgrind PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT_SLOW}
                       LABELS "host;valgrind")
  add_test(NAME host_resources_valgrind
           COMMAND ${VALGRIND_EXECUTABLE} --quiet --error-exitcode=99
                   --leak-check=full --show-leak-kinds=all
                   --errors-for-leak-kinds=all $<TARGET_FILE:test_resources>)
  set_tests_properties(host_resources_valgrind PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT_SLOW}
                       LABELS "host;valgrind")
  add_test(NAME host_api_valgrind
           COMMAND ${VALGRIND_EXECUTABLE} --quiet --error-exitcode=99
                   --leak-check=full --show-leak-kinds=all
                   --errors-for-leak-kinds=all --track-origins=yes
                   $<TARGET_FILE:test_host>)
  # a smaller instruction budget keeps the looping scripts quick
  set_tests_properties(host_api_valgrind PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT_SLOW}
                       LABELS "host;valgrind" ENVIRONMENT KFJOB_TEST_BUDGET=200000)
endif()

set(_kf_libs)
if(TARGET kfjob_static)
  list(APPEND _kf_libs $<TARGET_FILE:kfjob_static>)
endif()
if(TARGET kfjob_shared)
  list(APPEND _kf_libs $<TARGET_FILE:kfjob_shared>)
endif()
add_test(NAME host_symbols
         COMMAND sh ${CMAKE_SOURCE_DIR}/test/host/check_symbols.sh ${_kf_libs})
set_tests_properties(host_symbols PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host)

add_test(NAME host_install
         COMMAND sh ${CMAKE_SOURCE_DIR}/test/host/install_test.sh
                 ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${CMAKE_COMMAND}
                 ${CMAKE_C_COMPILER})
set_tests_properties(host_install PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT} LABELS host
                     RUN_SERIAL TRUE)

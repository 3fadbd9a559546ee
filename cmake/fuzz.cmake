# libFuzzer targets, built with -DKFJOB_FUZZ=ON and clang:
#   CC=clang cmake -S . -B build-fuzz -DKFJOB_FUZZ=ON -DKFJOB_WERROR=ON -DKFJOB_TESTS=OFF -DKFJOB_HOST=OFF
#   cmake --build build-fuzz --target kfjob_fuzzers
# Each target links the Lua-free core (kfjob_core objects), instrumented for
# coverage (-fsanitize=fuzzer-no-link) with ASan and UBSan.  fuzz/run.sh runs
# them (short bounded runs for the tests, long runs by hand); seeds are in
# fuzz/corpus/<target>/, crash reproducers in fuzz/regressions/<target>/.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "KFJOB_FUZZ needs clang (CC=clang), not ${CMAKE_C_COMPILER_ID}")
endif()
set(KF_FUZZ_SAN -fsanitize=address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
target_compile_options(kfjob_core PRIVATE -fsanitize=fuzzer-no-link ${KF_FUZZ_SAN})
target_compile_definitions(kfjob_core PRIVATE KF_CHECK_BOUNDS)
set(KF_FUZZERS decode from_json decode_task_template decode_task_spec spec qty yaml_read
    from_manifest)
add_custom_target(kfjob_fuzzers)
foreach(t ${KF_FUZZERS})
  add_executable(fuzz_${t} fuzz/fuzz_${t}.c $<TARGET_OBJECTS:kfjob_core>)
  target_include_directories(fuzz_${t} PRIVATE ${KF_CORE_INC} ${CMAKE_SOURCE_DIR}/src/lua
                             ${CMAKE_SOURCE_DIR}/include ${GEN})
  target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer ${KF_FUZZ_SAN})
  target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer ${KF_FUZZ_SAN})
  target_link_libraries(fuzz_${t} PRIVATE PkgConfig::PROTOBUFC PkgConfig::JANSSON
                        PkgConfig::YAML m)
  add_dependencies(kfjob_fuzzers fuzz_${t})
endforeach()

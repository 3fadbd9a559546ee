# Lua-free test of the manifest rule rows by target (C).
add_executable(test_target_rules test/test_target_rules.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_target_rules PRIVATE kfjob_core)
add_test(NAME target_rules COMMAND test_target_rules)
set_tests_properties(target_rules PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT})

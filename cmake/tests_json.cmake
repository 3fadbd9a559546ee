# Lua-free JSON / Struct codec test (C).
add_executable(test_json test/test_json.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_json PRIVATE kfjob_core)
add_test(NAME json_codec COMMAND test_json)
set_tests_properties(json_codec PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT})
# R16 through the rule walk (C).
add_executable(test_env_rules test/test_env_rules.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_env_rules PRIVATE kfjob_core)
add_test(NAME env_rules COMMAND test_env_rules)
set_tests_properties(env_rules PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT})

# Lua-free quantity arithmetic test (C): exact sums, canonical forms.
add_executable(test_qty test/test_qty.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_qty PRIVATE kfjob_core)
add_test(NAME qty_arith COMMAND test_qty)
set_tests_properties(qty_arith PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT})

# Lua-free YAML/JSON reader test (C): core schema, lines, refusals.
add_executable(test_yaml_read test/test_yaml_read.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_yaml_read PRIVATE kfjob_core)
add_test(NAME yaml_read COMMAND test_yaml_read)
set_tests_properties(yaml_read PROPERTIES TIMEOUT ${KFJOB_TEST_TIMEOUT})

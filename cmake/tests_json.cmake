# Lua-free JSON / Struct codec test (C).
add_executable(test_json test/test_json.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_json PRIVATE kfjob_core)
add_test(NAME json_codec COMMAND test_json)

# Lua-free quantity arithmetic test (C): exact sums, canonical forms.
add_executable(test_qty test/test_qty.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_qty PRIVATE kfjob_core)
add_test(NAME qty_arith COMMAND test_qty)

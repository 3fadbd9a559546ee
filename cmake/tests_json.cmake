# Lua-free JSON / Struct codec test (C).
add_executable(test_json test/test_json.c $<TARGET_OBJECTS:kfjob_core>)
target_link_libraries(test_json PRIVATE kfjob_core)
add_test(NAME json_codec COMMAND test_json)

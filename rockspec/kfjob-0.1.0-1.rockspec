rockspec_format = "3.0"
package = "kfjob"
version = "0.1.0-1"
source = {
  url = "git+https://example.invalid/kfjob.git",
  tag = "v0.1.0",
}
description = {
  summary = "Build, validate and serialize Flyte Kubeflow training task configs from Lua",
  detailed = [[
kfjob builds Flyte's Kubeflow distributed-training task configs (TFJob,
PyTorchJob incl. elastic, MPIJob, Horovod) from Lua, validates them strictly,
and emits flyteidl protobuf (task_type_version 0 and 1), proto3 JSON,
TaskTemplates and kubeflow.org/v1 manifests.
]],
  license = "Apache-2.0",
}
dependencies = {
  "lua >= 5.1",   -- 5.1, 5.2, 5.3, 5.4 and LuaJIT (README: Lua versions)
}
external_dependencies = {
  PROTOBUFC = { header = "protobuf-c/protobuf-c.h", library = "protobuf-c" },
  JANSSON = { header = "jansson.h", library = "jansson" },
  YAML = { header = "yaml.h", library = "yaml" },
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LIBDIR = "$(LIBDIR)",
    LUADIR = "$(LUADIR)",
    KFJOB_TESTS = "OFF",
    KFJOB_HOST = "OFF",
  },
}
test_dependencies = { "busted" }
test = { type = "busted" }

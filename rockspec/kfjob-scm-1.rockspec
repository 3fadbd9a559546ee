rockspec_format = "3.0"
package = "kfjob"
version = "scm-1"
-- For `luarocks make rockspec/kfjob-scm-1.rockspec` in a checkout, which
-- builds the checkout it runs in and never reads the source; releases are
-- packed from rockspec/kfjob-VERSION-1.rockspec (scripts/release.sh).
source = {
  url = "git+file://.",
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
  "lua >= 5.1",   -- 5.1, 5.2, 5.3, 5.4 and LuaJIT (docs/LUA_VERSIONS.md)
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
    -- with Lua 5.4 the `kfjob` command too (CMake leaves it out for the
    -- other versions), statically linked; no C libraries or headers for
    -- hosts in a rock tree (cmake --install gives those)
    KFJOB_SHARED = "OFF",
    KFJOB_INSTALL_DEV = "OFF",
    CMAKE_INSTALL_BINDIR = "$(BINDIR)",
    -- library/kfjob.lua (LuaCATS definitions) lands in the rock's own tree:
    -- share/kfjob/library/kfjob.lua under it
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
  },
}
-- busted from the system (Debian's lua-busted) or a rock, whichever is on
-- PATH: no test_dependencies, so `luarocks test` works offline
test = { type = "command", script = "test/rock/luarocks_test.lua" }

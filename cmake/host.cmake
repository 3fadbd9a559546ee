# Host side of kfjob: libkfjob.a and libkfjob.so for C programs
# that embed the sandboxed host API of include/kfjob.h, the `kfjob` CLI built
# on it, and their installation (header, pkg-config file, CMake package).
#
#   KFJOB_SHARED / KFJOB_STATIC  build libkfjob.so / libkfjob.a (both ON)
#
# Unlike the Lua module, these link liblua: a C host has no interpreter to
# provide it.  Only KFJOB_API symbols leave either library: the shared one
# through -fvisibility=hidden, the static one because its objects are merged
# into one (ld -r) whose hidden symbols are then made local (objcopy
# --localize-hidden), so kf_* and lkf_* cannot clash with a host's names.
#
# Everything installs as COMPONENT host:
#   cmake --install build --prefix /opt/kfjob --component host
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(KFJOB_SHARED "Build libkfjob.so for C hosts" ON)
option(KFJOB_STATIC "Build libkfjob.a for C hosts" ON)

if(NOT LUA_LIBRARY)
  message(FATAL_ERROR "kfjob: liblua5.4 not found; the host libraries and the "
          "CLI need it (install liblua5.4-dev or configure with -DKFJOB_HOST=OFF)")
endif()
if(NOT KFJOB_SHARED AND NOT KFJOB_STATIC)
  message(FATAL_ERROR "kfjob: KFJOB_HOST needs KFJOB_SHARED or KFJOB_STATIC")
endif()

set(KF_HOST_OBJECTS $<TARGET_OBJECTS:kfjob_core> $<TARGET_OBJECTS:kfjob_bind>)
set(KF_HOST_INCLUDE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set(KF_HOST_DEPS PkgConfig::PROTOBUFC PkgConfig::JANSSON PkgConfig::YAML
                 ${LUA_LIBRARY} m)
set(KF_HOST_TARGETS)

# 0.x: each minor version may break the ABI, so it is in the soname
# (libkfjob.so.0.1), as the CMake package's SameMinorVersion says; from
# 1.0 on, the major version alone (SameMajorVersion then).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(KFJOB_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(KFJOB_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
if(KFJOB_SHARED)
  add_library(kfjob_shared SHARED ${KF_HOST_OBJECTS})
  set_target_properties(kfjob_shared PROPERTIES
    OUTPUT_NAME kfjob EXPORT_NAME kfjob
    VERSION ${PROJECT_VERSION} SOVERSION ${KFJOB_SOVERSION})
  target_include_directories(kfjob_shared INTERFACE ${KF_HOST_INCLUDE})
  target_link_libraries(kfjob_shared PRIVATE ${KF_HOST_DEPS})
  if(NOT APPLE AND NOT WIN32)
    target_link_options(kfjob_shared PRIVATE -Wl,--no-undefined)
  endif()
  add_library(kfjob::kfjob ALIAS kfjob_shared)
  list(APPEND KF_HOST_TARGETS kfjob_shared)
endif()

if(KFJOB_STATIC)
  add_library(kfjob_static STATIC ${KF_HOST_OBJECTS})
  set_target_properties(kfjob_static PROPERTIES
    OUTPUT_NAME kfjob EXPORT_NAME kfjob_static)
  target_include_directories(kfjob_static INTERFACE ${KF_HOST_INCLUDE})
  # Installed, the dependencies come from kfjob::deps (kfjobConfig.cmake).
  foreach(d ${KF_HOST_DEPS})
    target_link_libraries(kfjob_static INTERFACE $<BUILD_INTERFACE:${d}>)
  endforeach()
  target_link_libraries(kfjob_static INTERFACE $<INSTALL_INTERFACE:kfjob::deps>)
  if(CMAKE_OBJCOPY AND CMAKE_LINKER AND NOT APPLE AND NOT WIN32)
    set(_kf_merged ${CMAKE_CURRENT_BINARY_DIR}/kfjob_static_merged.o)
    add_custom_command(TARGET kfjob_static POST_BUILD
      COMMAND ${CMAKE_LINKER} -r -o ${_kf_merged} --whole-archive
              $<TARGET_FILE:kfjob_static>
      COMMAND ${CMAKE_OBJCOPY} --localize-hidden ${_kf_merged}
      COMMAND ${CMAKE_COMMAND} -E remove $<TARGET_FILE:kfjob_static>
      COMMAND ${CMAKE_AR} qc $<TARGET_FILE:kfjob_static> ${_kf_merged}
      COMMAND ${CMAKE_RANLIB} $<TARGET_FILE:kfjob_static>
      COMMAND ${CMAKE_COMMAND} -E remove ${_kf_merged}
      COMMENT "libkfjob.a: keeping only the KFJOB_API symbols global"
      VERBATIM)
  endif()
  if(NOT TARGET kfjob::kfjob)
    add_library(kfjob::kfjob ALIAS kfjob_static)
  endif()
  list(APPEND KF_HOST_TARGETS kfjob_static)
endif()

# ---- the kfjob command-line tool: the host API's first user ----------------
add_executable(kfjob_cli
  ${CMAKE_SOURCE_DIR}/src/cli/main.c       # dispatch to the commands
  ${CMAKE_SOURCE_DIR}/src/cli/args.c       # usage text, argv -> options
  ${CMAKE_SOURCE_DIR}/src/cli/util.c       # allocation, errors, paths
  ${CMAKE_SOURCE_DIR}/src/cli/progress.c   # progress bar on stderr
  ${CMAKE_SOURCE_DIR}/src/cli/host.c       # host API glue, exit statuses
  ${CMAKE_SOURCE_DIR}/src/cli/outputs.c    # stream forms, files, -o DIR list
  ${CMAKE_SOURCE_DIR}/src/cli/render.c     # kfjob render
  ${CMAKE_SOURCE_DIR}/src/cli/writer.c     # render -o DIR: the writer thread
  ${CMAKE_SOURCE_DIR}/src/cli/check.c      # kfjob check
  ${CMAKE_SOURCE_DIR}/src/cli/convert.c    # kfjob convert: manifests back, for a target
  ${CMAKE_SOURCE_DIR}/src/cli/convert_read.c  # convert: the input read, its jobs held
  ${CMAKE_SOURCE_DIR}/src/cli/convert_gen.c   # convert -f lua|config: the generator
  ${CMAKE_SOURCE_DIR}/src/cli/names.c      # convert: distinct names for its jobs
  ${CMAKE_SOURCE_DIR}/src/cli/summary.c    # the resource table of check
  ${CMAKE_SOURCE_DIR}/src/cli/readback.c   # renders read back as documents
  ${CMAKE_SOURCE_DIR}/src/cli/decode.c     # kfjob decode
  ${CMAKE_SOURCE_DIR}/src/cli/diff.c       # kfjob diff
  ${CMAKE_SOURCE_DIR}/src/cli/env.c        # kfjob env
  ${CMAKE_SOURCE_DIR}/src/cli/meta.c       # kfjob meta (and the generators' args)
  ${CMAKE_SOURCE_DIR}/src/cli/schema.c     # kfjob schema
  ${CMAKE_SOURCE_DIR}/src/cli/explain.c)   # kfjob explain
set_target_properties(kfjob_cli PROPERTIES OUTPUT_NAME kfjob)
if(KFJOB_STATIC)
  target_link_libraries(kfjob_cli PRIVATE kfjob_static)
else()
  target_link_libraries(kfjob_cli PRIVATE kfjob_shared)
endif()
target_link_libraries(kfjob_cli PRIVATE PkgConfig::JANSSON PkgConfig::YAML Threads::Threads)

# ---- installation --------------------------------------------------------
# The CLI always; the libraries, header, CMake package and pkg-config file
# for C hosts unless KFJOB_INSTALL_DEV is OFF (the rock: LuaRocks wants
# only modules and commands in a rock's tree, and the CLI links
# libkfjob.a).
option(KFJOB_INSTALL_DEV "Install libkfjob, kfjob.h, the CMake package and kfjob.pc" ON)
install(TARGETS kfjob_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT host)
if(NOT KFJOB_INSTALL_DEV)
  return()
endif()
set(KFJOB_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kfjob)
install(TARGETS ${KF_HOST_TARGETS} EXPORT kfjobTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT host
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT host
                NAMELINK_COMPONENT host
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/kfjob.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT host)
install(EXPORT kfjobTargets NAMESPACE kfjob:: DESTINATION ${KFJOB_CMAKEDIR}
        COMPONENT host)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/kfjobConfig.cmake.in
  ${CMAKE_BINARY_DIR}/kfjobConfig.cmake INSTALL_DESTINATION ${KFJOB_CMAKEDIR})
# 0.x: a new minor version may break the API (and the soname says so)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kfjobConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kfjobConfig.cmake
              ${CMAKE_BINARY_DIR}/kfjobConfigVersion.cmake
        DESTINATION ${KFJOB_CMAKEDIR} COMPONENT host)

# pkg-config: relocatable (prefix found from the .pc file's own place) so
# `cmake --install --prefix ANY` works; Lua through its .pc when it has one.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(KFJOB_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(KFJOB_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _kf_up "/_/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/_")
  string(REGEX REPLACE "/$" "" _kf_up "${_kf_up}")
  set(KFJOB_PC_PREFIX "\${pcfiledir}/${_kf_up}")
  set(KFJOB_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(KFJOB_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(KFJOB_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
if(LUA_FOUND)
  set(KFJOB_PC_REQUIRES "libprotobuf-c jansson yaml-0.1 lua5.4")
  set(KFJOB_PC_LIBS_PRIVATE "-lm")
else()
  get_filename_component(_kf_lua_dir ${LUA_LIBRARY} DIRECTORY)
  set(KFJOB_PC_REQUIRES "libprotobuf-c jansson yaml-0.1")
  set(KFJOB_PC_LIBS_PRIVATE "-L${_kf_lua_dir} -llua5.4 -lm")
endif()
configure_file(${CMAKE_SOURCE_DIR}/kfjob.pc.in ${CMAKE_BINARY_DIR}/kfjob.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kfjob.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT host)

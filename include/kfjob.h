/**
 * \file kfjob.h
 * \brief Public C API of kfjob: the Lua module entry points and the
 *        protected host API for C programs that embed Lua.
 */
#ifndef KFJOB_H
#define KFJOB_H

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;

/** Export macro: only symbols marked with it leave the shared library. */
#if defined(_WIN32)
#  if defined(KFJOB_BUILDING)
#    define KFJOB_API __declspec(dllexport)
#  else
#    define KFJOB_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define KFJOB_API __attribute__((visibility("default")))
#else
#  define KFJOB_API
#endif

/** Version of the headers a program was compiled with (see
 *  kfjob_version_number() for the library it runs with). */
#define KFJOB_VERSION_MAJOR 0
#define KFJOB_VERSION_MINOR 1
#define KFJOB_VERSION_PATCH 0
#define KFJOB_VERSION_STRING "0.1.0"
/** MAJOR * 10000 + MINOR * 100 + PATCH. */
#define KFJOB_VERSION_NUMBER 100

/**
 * Open the module: pushes the `kfjob` table (as `require "kfjob"` does).
 * \param L a Lua 5.4 state with the standard `package` library.
 * \return 1 (the module table on the stack).
 */
KFJOB_API int luaopen_kfjob(struct lua_State *L);

/**
 * Register `kfjob` and its Lua submodules (`kfjob.template`) in
 * `package.preload`, so `require` finds them with no files on disk.
 * \param L a Lua 5.4 state with the `package` library opened.
 */
KFJOB_API void kfjob_preload(struct lua_State *L);

/** \return KFJOB_VERSION_NUMBER of the library actually linked. */
KFJOB_API unsigned kfjob_version_number(void);
/** \return KFJOB_VERSION_STRING of the library actually linked. */
KFJOB_API const char *kfjob_version_string(void);

#ifdef __cplusplus
}
#endif
#endif

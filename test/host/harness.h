/*
** harness.h - the checks shared by the C tests of the host API
** (test_host.c, test_host_kinds.c, test_resources.c, test_import.c).  A
** failed check prints file:line and what it saw, and counts; the test's main
** ends with `return harness_report();`.
*/
#ifndef KFJOB_TEST_HARNESS_H
#define KFJOB_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "kfjob.h"

static int checks, failures;

#define CHECK(c)                                                           \
  do {                                                                     \
    checks++;                                                              \
    if (!(c)) {                                                            \
      failures++;                                                          \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
    }                                                                      \
  } while (0)

/* Status check that shows the handle's message on failure. */
#define CHECK_ST(h, got, want)                                              \
  do {                                                                      \
    kfjob_status g_ = (got);                                                \
    checks++;                                                               \
    if (g_ != (want)) {                                                     \
      failures++;                                                           \
      fprintf(stderr, "%s:%d: status %s, expected %s: %s\n", __FILE__,      \
              __LINE__, kfjob_status_string(g_), kfjob_status_string(want), \
              kfjob_host_message(h));                                       \
    }                                                                       \
  } while (0)

/* sub occurs in the string s (not NULL). */
#define CHECK_HAS(s, sub)                                                   \
  do {                                                                      \
    const char *s_ = (s);                                                   \
    checks++;                                                               \
    if (s_ == NULL || strstr(s_, (sub)) == NULL) {                          \
      failures++;                                                           \
      fprintf(stderr, "%s:%d: expected \"%s\" in \"%s\"\n", __FILE__,       \
              __LINE__, (sub), s_ ? s_ : "(null)");                         \
    }                                                                       \
  } while (0)

/* The string got (not NULL) equals want. */
#define CHECK_STR(got, want)                                               \
  do {                                                                     \
    const char *g_ = (got);                                                \
    checks++;                                                              \
    if (g_ == NULL || strcmp(g_, (want)) != 0) {                           \
      failures++;                                                          \
      fprintf(stderr, "%s:%d: got \"%s\", expected \"%s\"\n", __FILE__,    \
              __LINE__, g_ ? g_ : "(null)", (want));                       \
    }                                                                      \
  } while (0)

/* The wall-clock limit (kfjob_run_options::time_limit_ms) of every run
** whose speed is not what a test checks: an hour, far above what any run
** of these tests needs even under valgrind on a loaded machine (there,
** beside two busy processes, one run took 87 s: past the 60 s default).  The tests of the
** limit itself give a runaway config a small limit and check that it
** stops, never how soon. */
#define HARNESS_TIME_LIMIT_MS 3600000UL

/* Run options at their defaults but for that limit. */
static inline void harness_run_options(kfjob_run_options *o) {
  kfjob_run_options_init(o);
  o->time_limit_ms = HARNESS_TIME_LIMIT_MS;
}

/* Prints the totals; the exit status of the test (1 when a check failed). */
static inline int harness_report(void) {
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

#endif

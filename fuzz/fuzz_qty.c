/*
** fuzz_qty.c - libFuzzer target for the exact quantity arithmetic
** (src/core/base/kf_qty.c): the input is split at its first '+' into two
** quantity texts.  Besides "no crash, no UB", properties that abort:
**   - a quantity kf_quantity_ok accepts parses (unless it is too large);
**   - canonical text parses back to the same value (exact round trip)
**     and is canonical: formatting it again gives the same text;
**   - a + b == b + a in value, and a + b >= a;
**   - x * 3 == x + x + x.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_job.h"
#include "kf_qty.h"

static void fail(const char *what, const char *a, const char *b) {
  fprintf(stderr, "property violated: %s ('%s', '%s')\n", what, a, b);
  abort();
}

/* parse, then check the canonical round trip */
static int parse(const char *s, kf_qty *q) {
  char t1[KF_QTY_TEXT], t2[KF_QTY_TEXT];
  kf_qty back;
  if (kf_qty_parse(s, q) != 0) {
    return -1;
  }
  kf_qty_format(q, t1, sizeof t1);
  if (kf_qty_parse(t1, &back) != 0 || kf_qty_cmp(&back, q) != 0)
    fail("canonical text parses back to the value", s, t1);
  kf_qty_format(&back, t2, sizeof t2);
  if (back.format == q->format && strcmp(t1, t2) != 0) fail("canonical form is stable", t1, t2);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char a[128], b[128];
  const uint8_t *plus = memchr(data, '+', size);
  size_t na = plus ? (size_t)(plus - data) : size, nb = plus ? size - na - 1 : 0;
  kf_qty x, y, s1, s2, t;
  if (na >= sizeof a || nb >= sizeof b) return 0;
  memcpy(a, data, na), a[na] = '\0';
  memcpy(b, plus ? plus + 1 : data, nb), b[nb] = '\0';
  if (strlen(a) != na || strlen(b) != nb) return 0;       /* NUL inside */
  if (parse(a, &x) != 0) {
    /* the grammar's quantities fail only when too large: a long exponent */
    if (kf_quantity_ok(a, na) && strpbrk(a, "eE") == NULL && na < 40) fail("valid quantity parses", a, b);
    return 0;
  }
  if (parse(b, &y) != 0) return 0;
  s1 = x, s2 = y;
  if (kf_qty_add(&s1, &y) == 0) {
    if (kf_qty_add(&s2, &x) != 0 || kf_qty_cmp(&s1, &s2) != 0) fail("a + b == b + a", a, b);
    if (kf_qty_cmp(&s1, &x) < 0) fail("a + b >= a", a, b);
  }
  t = x;
  if (kf_qty_mul(&t, 3) == 0) {
    s1 = x;
    if (kf_qty_add(&s1, &x) != 0 || kf_qty_add(&s1, &x) != 0 || kf_qty_cmp(&s1, &t) != 0)
      fail("x * 3 == x + x + x", a, b);
  }
  return 0;
}

/*
** test_qty.c - C tests for src/core/base/kf_qty.c (exact quantity sums).
** Every expected value is worked out by hand below each case, in
** nano-units where it helps, with Kubernetes' canonical form
** (resource.Quantity CanonicalizeBytes): DecimalSI takes the largest
** suffix of 10^3k that keeps the number whole, BinarySI the largest
** 1024^k, a binary value below 1024 or not whole prints as DecimalSI,
** and a sum keeps the format of its first non-zero term.
*/
#include <stdio.h>
#include <string.h>

#include "kf_qty.h"

static int npass, nfail;

static void check_str(const char *got, const char *exp, const char *what, int line) {
  if (got != NULL && strcmp(got, exp) == 0) {
    npass++;
    return;
  }
  nfail++;
  printf("FAIL line %d: %s\n  expected: %s\n  got:      %s\n", line, what, exp,
         got ? got : "(null)");
}
#define EQS(g, e, what) check_str(g, e, what, __LINE__)
#define CHECK(c, what) ((c) ? (void)npass++ : (void)(nfail++, printf("FAIL line %d: %s\n", __LINE__, what)))

/* canonical form of one quantity */
static const char *canon(const char *s) {
  static char out[KF_QTY_TEXT];
  kf_qty q;
  if (kf_qty_parse(s, &q) != 0) return NULL;
  kf_qty_format(&q, out, sizeof out);
  return out;
}

/* sum of a NULL-terminated list */
static const char *sum(const char *const *v) {
  static char out[KF_QTY_TEXT];
  kf_qty acc, x;
  kf_qty_zero(&acc);
  for (; *v; v++) {
    if (kf_qty_parse(*v, &x) != 0 || kf_qty_add(&acc, &x) != 0) return NULL;
  }
  kf_qty_format(&acc, out, sizeof out);
  return out;
}

int main(void) {
  /* one value, canonical */
  EQS(canon("0"), "0", "zero");
  EQS(canon("0.000"), "0", "zero with a fraction");
  EQS(canon("8"), "8", "plain integer");
  EQS(canon("0.5"), "500m", "0.5 = 500m");
  EQS(canon("1.5"), "1500m", "1.5 = 1500m");
  EQS(canon("2000m"), "2", "2000m = 2");
  EQS(canon("8000"), "8k", "8000 = 8k");
  EQS(canon("1500000"), "1500k", "1500000 = 1500k");
  EQS(canon("32Gi"), "32Gi", "32Gi stays");
  EQS(canon("1024Mi"), "1Gi", "1024Mi = 1Gi");
  EQS(canon("1536Mi"), "1536Mi", "1536Mi: not whole Gi");
  EQS(canon("0.5Ki"), "512", "0.5Ki = 512 (< 1024: DecimalSI)");
  EQS(canon("1.5Ki"), "1536", "1.5Ki = 1536 = 1Ki + 512: no whole Ki");
  EQS(canon("0.1Ki"), "102400m", "0.1Ki = 102.4 = 102400m");
  EQS(canon("1e3"), "1e3", "exponent form stays");
  EQS(canon("1E3"), "1e3", "capital E exponent");
  EQS(canon("12e2"), "1200", "12e2 = 1200 = 1.2e3, not whole: 1200e0");
  EQS(canon("2E"), "2E", "2E is two exa");
  EQS(canon("1e-3"), "1e-3", "1e-3 milli, exponent form");
  EQS(canon("1.5G"), "1500M", "1.5G = 1500M");
  EQS(canon("0.0000000001"), "1n", "below 1n rounds up to 1n");
  EQS(canon("1.0000000001"), "1000000001n", "1 + 1e-10 rounds up to 1.000000001");
  EQS(canon("1Ei"), "1Ei", "exbi");
  EQS(canon("2048Ei"), "2048Ei", "beyond Ei stays in Ei");
  CHECK(canon("") == NULL, "empty");
  CHECK(canon("1.2.3") == NULL, "two dots");
  CHECK(canon("4 Gi") == NULL, "a space");
  CHECK(canon("1e") == NULL, "exponent without digits");
  CHECK(canon("1e99") == NULL, "too large");

  /* sums */
  {
    static const char *const a[] = {"8", "500m", NULL};
    EQS(sum(a), "8500m", "8 + 500m = 8500m");
  }
  {
    static const char *const a[] = {"32Gi", "16Gi", NULL};
    EQS(sum(a), "48Gi", "32Gi + 16Gi = 48Gi");
  }
  {
    /* 1G + 1Gi = 1 000 000 000 + 1 073 741 824 = 2 073 741 824, DecimalSI
    ** (the first term's): 2073741824 has no trailing 000 */
    static const char *const a[] = {"1G", "1Gi", NULL};
    EQS(sum(a), "2073741824", "1G + 1Gi");
  }
  {
    /* 1Gi + 1G: BinarySI first; 2073741824 / 1024 = 2024943.1875: not
    ** whole Ki, so plain */
    static const char *const a[] = {"1Gi", "1G", NULL};
    EQS(sum(a), "2073741824", "1Gi + 1G");
  }
  {
    /* 0.1 + 0.2 = 300m exactly (binary floating point gives 0.30000000000000004) */
    static const char *const a[] = {"0.1", "0.2", NULL};
    EQS(sum(a), "300m", "0.1 + 0.2 = 300m");
  }
  {
    /* 512Mi + 512Mi + 1Gi = 2Gi */
    static const char *const a[] = {"512Mi", "512Mi", "1Gi", NULL};
    EQS(sum(a), "2Gi", "512Mi + 512Mi + 1Gi = 2Gi");
  }
  {
    /* 0 + 4Gi: a zero sum takes the next term's format */
    static const char *const a[] = {"0", "4Gi", NULL};
    EQS(sum(a), "4Gi", "0 + 4Gi");
  }
  {
    /* 250m + 750m = 1000m = 1 */
    static const char *const a[] = {"250m", "750m", NULL};
    EQS(sum(a), "1", "250m + 750m = 1");
  }
  {
    /* 1e3 + 1 = 1001: exponent format with exponent 0 prints plainly */
    static const char *const a[] = {"1e3", "1", NULL};
    EQS(sum(a), "1001", "1e3 + 1 = 1001");
  }
  {
    /* 4E + 4E + 4E = 12E (12e18 fits easily in 256 bits of nano-units) */
    static const char *const a[] = {"4E", "4E", "4E", NULL};
    EQS(sum(a), "12E", "4E * 3");
  }
  /* multiplication: replicas */
  {
    kf_qty q;
    char out[KF_QTY_TEXT];
    CHECK(kf_qty_parse("2.5Gi", &q) == 0, "2.5Gi parses");
    CHECK(kf_qty_mul(&q, 8) == 0, "x8");
    kf_qty_format(&q, out, sizeof out);
    EQS(out, "20Gi", "2.5Gi x 8 = 20Gi");
    CHECK(kf_qty_parse("250m", &q) == 0 && kf_qty_mul(&q, 3) == 0, "250m x 3");
    kf_qty_format(&q, out, sizeof out);
    EQS(out, "750m", "250m x 3 = 750m");
  }
  {
    char out[KF_QTY_TEXT];
    CHECK(kf_qty_sum("1", "1", out, sizeof out) == 0, "kf_qty_sum");
    EQS(out, "2", "1 + 1");
    CHECK(kf_qty_sum("1", "x", out, sizeof out) != 0, "kf_qty_sum of a bad quantity");
  }
  {
    kf_qty a, b;
    kf_qty_parse("1Gi", &a);
    kf_qty_parse("1G", &b);
    CHECK(kf_qty_cmp(&a, &b) > 0, "1Gi > 1G");
    CHECK(kf_qty_cmp(&b, &a) < 0, "1G < 1Gi");
    kf_qty_parse("1024Mi", &b);
    CHECK(kf_qty_cmp(&a, &b) == 0, "1Gi == 1024Mi");
  }
  printf("%d passed, %d failed\n", npass, nfail);
  return nfail != 0;
}

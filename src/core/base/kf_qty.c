/*
** kf_qty.c - exact Kubernetes quantity arithmetic (kf_qty.h): a value is
** a 256-bit count of nano-units, so "0.1Ki" (102.4) and "1500m" add
** without rounding; printing follows resource.Quantity's canonical form.
*/
#include <stdio.h>
#include <string.h>

#include "kf_qty.h"

#define NW KF_QTY_WORDS
#define NANO 1000000000u

/* ---- 256-bit unsigned words -------------------------------------------- */

static int is_zero(const uint32_t *w) {
  int i;
  for (i = 0; i < NW; i++)
    if (w[i]) return 0;
  return 1;
}

/* w = w * m + a; 1 on overflow (w then garbage: callers work on copies). */
static int mul_add(uint32_t *w, uint32_t m, uint32_t a) {
  uint64_t carry = a;
  int i;
  for (i = 0; i < NW; i++) {
    uint64_t t = (uint64_t)w[i] * m + carry;
    w[i] = (uint32_t)t;
    carry = t >> 32;
  }
  return carry != 0;
}

/* w /= d; returns the remainder. */
static uint32_t div_small(uint32_t *w, uint32_t d) {
  uint64_t r = 0;
  int i;
  for (i = NW - 1; i >= 0; i--) {
    uint64_t t = r << 32 | w[i];
    w[i] = (uint32_t)(t / d);
    r = t % d;
  }
  return (uint32_t)r;
}

static uint32_t mod_small(const uint32_t *w, uint32_t d) {
  uint32_t c[NW];
  memcpy(c, w, sizeof c);
  return div_small(c, d);
}

static int cmp_words(const uint32_t *a, const uint32_t *b) {
  int i;
  for (i = NW - 1; i >= 0; i--)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* ---- quantities -------------------------------------------------------- */

void kf_qty_zero(kf_qty *q) {
  memset(q, 0, sizeof *q);
  q->format = KF_QTY_DECIMAL_SI;
}

int kf_qty_is_zero(const kf_qty *q) { return is_zero(q->w); }

int kf_qty_parse(const char *s, kf_qty *q) {
  static const char bin[] = "KMGTPE", dec[] = "numkMGTPE";
  static const int dec_exp[] = {-9, -6, -3, 3, 6, 9, 12, 15, 18};
  kf_qty v;
  const char *p = s, *x;
  int digits = 0, frac = 0, dot = 0, e10 = 0, k2 = 0, scale, i, rem = 0;
  kf_qty_zero(&v);
  if (*p == '+') p++;   /* "+1": as written, the value 1 */
  for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
    if (*p == '.') {
      if (dot++) return -1;
      continue;
    }
    if (mul_add(v.w, 10, (uint32_t)(*p - '0'))) return -1;
    digits++;
    frac += dot;
  }
  if (digits == 0) return -1;
  if (*p == '\0') {
  } else if (p[1] == 'i' && p[2] == '\0' && (x = strchr(bin, p[0])) != NULL) {
    k2 = (int)(x - bin) + 1;
    v.format = KF_QTY_BINARY_SI;
  } else if (p[1] == '\0' && (x = strchr(dec, p[0])) != NULL) {
    e10 = dec_exp[x - dec];
  } else if (p[0] == 'e' || p[0] == 'E') {
    int neg = 0, n = 0;
    p++;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    if (*p == '\0') return -1;
    for (; *p; p++) {
      if (*p < '0' || *p > '9') return -1;
      if (n < 10000) n = n * 10 + (*p - '0');
    }
    e10 = neg ? -n : n;
    v.format = KF_QTY_DECIMAL_EXP;
  } else {
    return -1;
  }
  for (i = 0; i < k2; i++)
    if (mul_add(v.w, 1024, 0)) return -1;
  scale = 9 + e10 - frac;                     /* value = digits * 10^scale nano */
  if (scale > 0) {
    if (scale > 80 && !is_zero(v.w)) return -1;
    for (i = 0; i < scale && !is_zero(v.w); i++)
      if (mul_add(v.w, 10, 0)) return -1;
  } else {
    for (i = 0; i < -scale && !is_zero(v.w); i++)
      rem |= div_small(v.w, 10) != 0;
    if (rem && mul_add(v.w, 1, 1)) return -1;   /* below 1n: round up */
  }
  *q = v;
  return 0;
}

int kf_qty_add(kf_qty *acc, const kf_qty *x) {
  uint32_t w[NW];
  uint64_t carry = 0;
  int i;
  for (i = 0; i < NW; i++) {
    uint64_t t = (uint64_t)acc->w[i] + x->w[i] + carry;
    w[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry) return -1;
  if (is_zero(acc->w)) acc->format = x->format;
  memcpy(acc->w, w, sizeof w);
  return 0;
}

int kf_qty_mul(kf_qty *q, uint32_t n) {
  uint32_t w[NW];
  memcpy(w, q->w, sizeof w);
  if (mul_add(w, n, 0)) return -1;
  memcpy(q->w, w, sizeof w);
  return 0;
}

int kf_qty_cmp(const kf_qty *a, const kf_qty *b) { return cmp_words(a->w, b->w); }

int64_t kf_qty_units(const kf_qty *q, int64_t max) {
  uint32_t c[NW];
  uint64_t v;
  int i;
  memcpy(c, q->w, sizeof c);
  if (div_small(c, NANO) != 0 && mul_add(c, 1, 1)) return -1;   /* rounded up */
  for (i = 2; i < NW; i++)
    if (c[i]) return -1;
  v = (uint64_t)c[1] << 32 | c[0];
  return v > (uint64_t)max ? -1 : (int64_t)v;
}

int kf_qty_whole_milli(const kf_qty *q) {
  uint32_t c[NW];
  int i;
  memcpy(c, q->w, sizeof c);
  if (div_small(c, 1000000u) != 0 && mul_add(c, 1, 1)) return 1;   /* rounded up */
  for (i = 2; i < NW; i++)
    if (c[i]) return 1;
  if (c[1] & 0x80000000u) return 1;   /* past int64: too large to tell */
  return div_small(c, 1000u) == 0;
}

/* The decimal digits of w (destroyed). */
static size_t put_digits(uint32_t *w, char *out, size_t cap) {
  char tmp[96];
  size_t n = 0, i;
  do {
    uint32_t r = div_small(w, NANO);
    int k;
    for (k = 0; k < 9; k++) {
      tmp[n++] = (char)('0' + r % 10);
      r /= 10;
      if (r == 0 && is_zero(w)) break;
    }
  } while (!is_zero(w));
  for (i = 0; i < n && i + 1 < cap; i++) out[i] = tmp[n - 1 - i];
  if (cap) out[i < cap ? i : cap - 1] = '\0';
  return n;
}

size_t kf_qty_format(const kf_qty *q, char *out, size_t cap) {
  static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  static const char *const dec[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  uint32_t w[NW], lim[NW];
  kf_qty_form fmt = q->format;
  char suffix[16];
  size_t n;
  int exp = -9, k = 0;
  if (is_zero(q->w)) return (size_t)snprintf(out, cap, "0");
  memcpy(w, q->w, sizeof w);
  if (fmt == KF_QTY_BINARY_SI) {
    /* below 1024, or not whole units: DecimalSI, so nothing is rounded */
    memset(lim, 0, sizeof lim);
    lim[0] = 1024;
    mul_add(lim, NANO, 0);
    if (cmp_words(w, lim) < 0 || mod_small(w, NANO) != 0) fmt = KF_QTY_DECIMAL_SI;
  }
  if (fmt == KF_QTY_BINARY_SI) {
    div_small(w, NANO);
    while (k < 6 && mod_small(w, 1024) == 0) div_small(w, 1024), k++;
    snprintf(suffix, sizeof suffix, "%s", bin[k]);
  } else {
    while (mod_small(w, 1000) == 0) div_small(w, 1000), exp += 3;
    if (fmt == KF_QTY_DECIMAL_SI && exp <= 18)
      snprintf(suffix, sizeof suffix, "%s", dec[(exp + 9) / 3]);
    else if (exp == 0)
      suffix[0] = '\0';
    else
      snprintf(suffix, sizeof suffix, "e%d", exp);
  }
  n = put_digits(w, out, cap);
  if (n < cap) snprintf(out + n, cap - n, "%s", suffix);
  return n + strlen(suffix);
}

int kf_qty_sum(const char *a, const char *b, char *out, size_t cap) {
  kf_qty x, y;
  if (kf_qty_parse(a, &x) != 0 || kf_qty_parse(b, &y) != 0 || kf_qty_add(&x, &y) != 0)
    return -1;
  kf_qty_format(&x, out, cap);
  return 0;
}

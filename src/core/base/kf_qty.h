/*
** kf_qty.h - exact arithmetic on Kubernetes quantities ("500m", "32Gi",
** "1.5", "2e3"), as resource.Quantity does it: values are whole numbers
** of nano-units (finer values round up to 1n, as Kubernetes rounds them),
** sums are exact, and results print in Kubernetes' canonical form.  No
** floating point anywhere.  No Lua here.
*/
#ifndef KF_QTY_H
#define KF_QTY_H

#include <stddef.h>
#include <stdint.h>

#define KF_QTY_WORDS 8            /* 256 bits of nano-units: up to ~1e68 */

typedef enum kf_qty_format {
  KF_QTY_DECIMAL_SI,              /* "", m, k, M, G, ... (and n, u) */
  KF_QTY_BINARY_SI,               /* Ki, Mi, Gi, ... */
  KF_QTY_DECIMAL_EXP              /* 1e3, 2E-3 */
} kf_qty_form;

typedef struct kf_qty {
  uint32_t w[KF_QTY_WORDS];       /* nano-units, little-endian words */
  kf_qty_form format;             /* how the value prints */
} kf_qty;

/* Zero, in DecimalSI. */
void kf_qty_zero(kf_qty *q);
int kf_qty_is_zero(const kf_qty *q);
/* A quantity without a sign, as kf_quantity_ok accepts it.  Returns 0, or
** -1 when malformed or too large for the representation. */
int kf_qty_parse(const char *s, kf_qty *q);
/* acc += x; a zero acc takes x's format (as Quantity.Add).  -1 on
** overflow (acc unchanged). */
int kf_qty_add(kf_qty *acc, const kf_qty *x);
/* q *= n.  -1 on overflow (q unchanged). */
int kf_qty_mul(kf_qty *q, uint32_t n);
/* -1, 0, 1. */
int kf_qty_cmp(const kf_qty *a, const kf_qty *b);
/* Quantity.Value(): the value in whole units, rounded up ("2500m" is 3);
** -1 when above max (max >= 0). */
int64_t kf_qty_units(const kf_qty *q, int64_t max);
/* Quantity.MilliValue() % 1000 == 0, how Kubernetes tells an integer
** resource's value (ValidateResourceQuantityValue) and flyteadmin a GPU
** count: MilliValue rounds up to a milli-unit, so "999999999n" is whole;
** a value past int64 milli-units counts as whole (too large to tell). */
int kf_qty_whole_milli(const kf_qty *q);
/* Kubernetes' canonical text (CanonicalizeBytes): "1500m", "48Gi",
** "8k", "1536" (a binary value below 1024 or not a whole multiple prints
** in DecimalSI).  Returns the length; writes at most cap - 1 characters.
** KF_QTY_TEXT is always enough. */
#define KF_QTY_TEXT 96
size_t kf_qty_format(const kf_qty *q, char *out, size_t cap);
/* Parse a and b, add, format: the sum of two quantity strings.  -1 when
** either is malformed or the sum overflows. */
int kf_qty_sum(const char *a, const char *b, char *out, size_t cap);

#endif

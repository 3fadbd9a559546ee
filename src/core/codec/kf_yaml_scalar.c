/*
** kf_yaml_scalar.c - plain scalars of kf_yaml_read.c: the YAML 1.2 core
** schema, YAML 1.1 as go-yaml v2 (kubectl, sigs.k8s.io/yaml) resolves
** them, and JSON's escaped surrogate pairs made YAML's (libyaml refuses
** them).  See kf_yaml_read.h.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kf_yaml_scalar.h"

/* ---- scalars: the YAML 1.2 core schema -------------------------------- */


/* (Every word of the lists below has at most 5 bytes: a longer scalar is
** none of them without a look.) */
static int is_word(const char *s, size_t n, const char *const *words) {
  char c0 = n ? s[0] : '\0';
  if (n > 5) return 0;
  for (; *words; words++)   /* the first byte before the length */
    if ((*words)[0] == c0 && strlen(*words) == n && memcmp(s, *words, n) == 0) return 1;
  return 0;
}

/* Could s be one of the words below (null, booleans, .inf, .nan, signed
** or not)?  Each starts with one of these bytes, or is "". */
static int maybe_word(const char *s, size_t n) {
  if (n == 0) return 1;
  if (n > 5) return 0;
  switch (s[0]) {
    case 'n': case 'N': case '~': case 't': case 'T': case 'f': case 'F': case 'y':
    case 'Y': case 'o': case 'O': case '.': case '+': case '-':
      return 1;
    default:
      return 0;
  }
}

static int digits(const char *s, size_t n, const char *set) {
  size_t i;
  if (n == 0) return 0;
  for (i = 0; i < n; i++)
    if (s[i] == '\0' || strchr(set, s[i]) == NULL) return 0;
  return 1;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int float_syntax(const char *s, size_t n) {
  size_t i = 0, a, b = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) i++;
  for (a = i; i < n && s[i] >= '0' && s[i] <= '9'; i++) {}
  a = i - a;
  if (i < n && s[i] == '.')
    for (b = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++) {}
  if (b) b = i - b;
  if (a == 0 && b == 0) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t c;
    if (++i < n && (s[i] == '-' || s[i] == '+')) i++;
    for (c = i; i < n && s[i] >= '0' && s[i] <= '9'; i++) {}
    if (i == c) return 0;
  }
  return i == n;
}

/* The value of s[i..n), digits checked, in `base`: 1, with *ok 0 when it
** is out of int64's range. */
static int digits_value(const char *s, size_t i, size_t n, int base, int neg,
                        int64_t *out, int *ok) {
  uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    int d = s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10;
    if (v > (lim - (uint64_t)d) / (uint64_t)base) { *ok = 0; return 1; }
    v = v * (uint64_t)base + (uint64_t)d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 1;
}

/* An integer of the core schema; 1 when it is one (*ok: within int64). */
static int int_value(const char *s, size_t n, int64_t *out, int *ok) {
  size_t i = 0;
  int neg = 0, base = 10;
  *ok = 1;
  if (n > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    base = s[1] == 'o' ? 8 : 16;
    i = 2;
    if (!digits(s + 2, n - 2, base == 8 ? "01234567" : "0123456789abcdefABCDEF")) return 0;
  } else {
    if (n && (s[0] == '-' || s[0] == '+')) neg = s[0] == '-', i = 1;
    if (!digits(s + i, n - i, "0123456789")) return 0;
  }
  return digits_value(s, i, n, base, neg, out, ok);
}

static int float_value(const char *s, size_t n, double *out) {
  static const char *const inf[] = {".inf", ".Inf", ".INF", NULL};
  static const char *const nan[] = {".nan", ".NaN", ".NAN", NULL};
  char *end;
  size_t sign = n && (s[0] == '-' || s[0] == '+');
  if (is_word(s + sign, n - sign, inf)) {
    *out = s[0] == '-' ? -INFINITY : INFINITY;
    return 1;
  }
  if (is_word(s, n, nan)) { *out = NAN; return 1; }
  if (!float_syntax(s, n)) return 0;
  *out = kf_strtod(s, &end);   /* libyaml ends its scalars with a NUL */
  return end == s + n;
}

/* Null and the booleans, the same test in both YAML versions with their
** own word lists: R_NULL or R_BOOL with *out filled, else 0. */
static const char *const null_words[] = {"null", "Null", "NULL", "~", "", NULL};

static int null_or_bool(const char *s, size_t n, const char *const *yes,
                        const char *const *no, kf_node *out) {
  if (is_word(s, n, null_words)) { out->t = KF_NNIL; return R_NULL; }
  if (is_word(s, n, yes) || is_word(s, n, no)) {
    out->t = KF_NBOOL;
    out->u.b = is_word(s, n, yes);
    return R_BOOL;
  }
  return 0;
}

/* What a plain scalar is; fills *out (its strings still libyaml's). */
static int resolve_plain(const char *s, size_t n, kf_node *out, int *range_ok) {
  static const char *const yes[] = {"true", "True", "TRUE", NULL};
  static const char *const no[] = {"false", "False", "FALSE", NULL};
  int got;
  *range_ok = 1;
  /* (maybe_word: else none of the words, a number or a string) */
  if (maybe_word(s, n) && (got = null_or_bool(s, n, yes, no, out)) != 0) return got;
  if (int_value(s, n, &out->u.i, range_ok)) { out->t = KF_NINT; return R_INT; }
  if (float_value(s, n, &out->u.d)) { out->t = KF_NNUM; return R_FLOAT; }
  out->t = KF_NSTR;
  return R_STR;
}

/* ---- scalars: YAML 1.1 as go-yaml v2 (kubectl) resolves them -------- */

/* Go's strconv.ParseInt(s, 0, 64) on s[0..n) (no '_' left): 1 when it is
** an integer (*ok: within int64; ParseUint's larger ones are out of it). */
static int int11_value(const char *s, size_t n, int64_t *out, int *ok) {
  static const char *const sets[] = {"01", "01234567", "0123456789", "0123456789abcdefABCDEF"};
  size_t i = 0;
  int neg = 0, base = 10, set = 2;
  *ok = 1;
  if (n && (s[0] == '-' || s[0] == '+')) neg = s[0] == '-', i = 1;
  if (n - i > 1 && s[i] == '0') {
    char p = (char)(s[i + 1] | 0x20);
    if (p == 'x') base = 16, set = 3, i += 2;
    else if (p == 'o') base = 8, set = 1, i += 2;
    else if (p == 'b') base = 2, set = 0, i += 2;
    else base = 8, set = 1, i += 1;       /* 0400: octal */
  }
  if (!digits(s + i, n - i, sets[set])) return 0;
  return digits_value(s, i, n, base, neg, out, ok);
}

/* A number of a plain scalar that starts with a digit or sign: '_'
** dropped, ParseInt's integer, else a decimal float (not one out of
** range: ParseFloat's error leaves it a string). */
static int number11(kf_arena *A, const char *s, size_t n, kf_node *out, int *ok) {
  char buf[128], *t = buf, *end;
  size_t i, k = 0;
  if (n >= sizeof buf && (t = (char *)kf_arena_alloc_raw(A, n + 1)) == NULL) return -1;
  for (i = 0; i < n; i++)
    if (s[i] != '_') t[k++] = s[i];
  t[k] = '\0';
  if (int11_value(t, k, &out->u.i, ok)) { out->t = KF_NINT; return R_INT; }
  *ok = 1;
  if (!float_syntax(t, k)) return 0;
  out->u.d = kf_strtod(t, &end);
  if (end != t + k || isinf(out->u.d)) return 0;
  out->t = KF_NNUM;
  return R_FLOAT;
}

/* What a plain scalar is under YAML 1.1 (go-yaml v2 resolve.go); -1: no
** memory. */
static int resolve_plain11(kf_arena *A, const char *s, size_t n, kf_node *out, int *ok) {
  static const char *const yes[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                                    "on", "On", "ON", NULL};
  static const char *const no[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                   "off", "Off", "OFF", NULL};
  static const char *const special[] = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
                                        "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                                        NULL};
  int got;
  *ok = 1;
  out->t = KF_NSTR;
  if (maybe_word(s, n)) {   /* else none of the words: a number or a string */
    if ((got = null_or_bool(s, n, yes, no, out)) != 0) return got;
    if (is_word(s, n, special) && float_value(s, n, &out->u.d)) { out->t = KF_NNUM; return R_FLOAT; }
  }
  if (n && ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '+')) {
    if ((got = number11(A, s, n, out, ok)) != 0) return got;
  } else if (n && s[0] == '.' && float_syntax(s, n) && float_value(s, n, &out->u.d)) {
    out->t = KF_NNUM;
    return R_FLOAT;
  }
  out->t = KF_NSTR;
  return R_STR;
}

int kfy_resolve(kf_arena *A, const char *s, size_t n, int v11, kf_node *out, int *ok) {
  return v11 ? resolve_plain11(A, s, n, out, ok) : resolve_plain(s, n, out, ok);
}

/* ---- surrogate pairs ------------------------------------------------- */

/* The value of 4 hex digits at s, or -1. */
static long hex4(const char *s) {
  long v = 0;
  int i;
  for (i = 0; i < 4; i++) {
    char ch = s[i];
    int d = ch >= '0' && ch <= '9' ? ch - '0' : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f'
            ? (ch | 0x20) - 'a' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* Does a quote at t[i] open a quoted scalar (not sit inside a plain one)?
** The last character before it on its line, spaces skipped, is none or a
** flow or block indicator. */
static int opens_quote(const char *t, size_t i) {
  while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
  return i == 0 || strchr("\n:-[{,?", t[i - 1]) != NULL;
}

/* JSON's (and Python json.dumps') escaped surrogate pair "\ud83d\ude00",
** which libyaml refuses, as YAML's "\U0001F600" in every double-quoted
** scalar; lines keep their numbers.  NULL when none is there. */
char *kfy_join_surrogates(kf_arena *A, const char *t, size_t n, size_t *outn, int json) {
  char *out = NULL;
  size_t i, k = 0;
  int q = 0, changed = 0;   /* q: 0 outside, '"' or '\'' inside */
  if ((out = (char *)kf_arena_alloc_raw(A, n + 1)) == NULL) return NULL;
  for (i = 0; i < n; i++) {
    char ch = t[i];
    long hi, lo;
    if (q == 0 && ch == '#' && (i == 0 || t[i - 1] == ' ' || t[i - 1] == '\n')) {
      while (i < n && t[i] != '\n') out[k++] = t[i++];
      if (i < n) out[k++] = t[i];
      continue;
    }
    if (q == 0 && (ch == '"' || ch == '\'') && opens_quote(t, i)) q = ch;
    else if (q == '\'' && ch == '\'') q = i + 1 < n && t[i + 1] == '\'' ? (out[k++] = t[i++], q) : 0;
    else if (q == '"' && ch == '"') q = 0;
    else if (q == '"' && ch == '\\' && i + 12 <= n && t[i + 1] == 'u' && t[i + 6] == '\\' &&
             t[i + 7] == 'u' && (hi = hex4(t + i + 2)) >= 0xD800 && hi <= 0xDBFF &&
             (lo = hex4(t + i + 8)) >= 0xDC00 && lo <= 0xDFFF) {
      k += (size_t)sprintf(out + k, "\\U%08lX", 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
      i += 11, changed = 1;
      continue;
    } else if (json && q == '"' && ch == '\\' && i + 6 <= n && t[i + 1] == 'u' &&
               (hi = hex4(t + i + 2)) >= 0xD800 && hi <= 0xDFFF) {
      memcpy(out + k, "\\uFFFD", 6);   /* Go's encoding/json reads a lone one so */
      k += 6, i += 5, changed = 1;
      continue;
    } else if (q == '"' && ch == '\\' && i + 1 < n) {
      out[k++] = t[i++];
    }
    out[k++] = t[i];
  }
  out[k] = '\0';
  *outn = k;
  return changed ? out : NULL;
}


/*
** kf_text.c - lexical helpers shared by every layer: did-you-mean,
** Kubernetes quantities, number formatting, UTF-8, JSON names.
*/
#include <ctype.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "kf_core.h"

/* ---- numbers in the "C" locale ---------------------------------------- */

/* Number text never follows the process locale (a host's
** setlocale(LC_NUMERIC, "de_DE.UTF-8"), a script's os.setlocale): the
** printf/strtod calls that format or parse numbers run under a "C"
** LC_NUMERIC locale object made once and switched to for the calling
** thread only (uselocale, POSIX 2008), as glibc's own printf_l/strtod_l
** users and Python's float repr (locale-free dtoa) do. */
static locale_t c_numeric;
static pthread_once_t c_numeric_once = PTHREAD_ONCE_INIT;

static void c_numeric_init(void) {
  c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

locale_t kf_c_numeric_begin(void) {
  pthread_once(&c_numeric_once, c_numeric_init);
  /* without the object (out of memory) the current locale stays, and
  ** kf_format_number still turns a locale's decimal comma into '.' */
  return c_numeric != (locale_t)0 ? uselocale(c_numeric) : (locale_t)0;
}

void kf_c_numeric_end(locale_t old) {
  if (old != (locale_t)0) uselocale(old);
}

double kf_strtod(const char *s, char **end) {
  locale_t old = kf_c_numeric_begin();
  double d = strtod(s, end);
  kf_c_numeric_end(old);
  return d;
}

/* ---- did you mean ----------------------------------------------------- */

size_t kf_edit_distance(const char *a, const char *b, int nocase) {
  size_t la = strlen(a), lb = strlen(b), i, j;
  size_t row[64];
  if (la >= 63 || lb >= 63) return (size_t)-1;
  for (j = 0; j <= lb; j++) row[j] = j;
  for (i = 1; i <= la; i++) {
    size_t prev = row[0], cur;
    row[0] = i;
    for (j = 1; j <= lb; j++) {
      size_t best = prev + (nocase ? tolower((unsigned char)a[i - 1]) !=
                                         tolower((unsigned char)b[j - 1])
                                   : a[i - 1] != b[j - 1]);
      cur = row[j];
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      prev = cur;
      row[j] = best;
    }
  }
  return row[lb];
}

const char *kf_suggest(const char *s, const char *const *cands) {
  const char *best = NULL;
  size_t bestd = (size_t)-1, len = strlen(s);
  for (; *cands != NULL; cands++) {
    size_t d = kf_edit_distance(s, *cands, 0);
    if (d < bestd) bestd = d, best = *cands;
  }
  /* close enough: a couple of typos, or a third of the word */
  if (best != NULL && (bestd <= 2 || bestd * 3 <= len) && bestd < len)
    return best;
  return NULL;
}

/* ---- quantities ------------------------------------------------------- */

/* Kubernetes resource.Quantity without a sign (we take no negatives):
**   digits [ "." digits ] | "." digits, then an optional suffix:
**   Ki Mi Gi Ti Pi Ei | n u m k M G T P E | (e|E) [+-] digits
** (apimachinery suffix.go: n and u are 10^-9 and 10^-6, though
** quantity.go's grammar comment lists decimalSI from m) */
int kf_quantity_ok(const char *s, size_t n) {
  size_t i = 0, d = 0, rest;
  if (n > 0 && s[0] == '+') i++;   /* ParseQuantity takes a sign; '-' is negative */
  while (i < n && s[i] >= '0' && s[i] <= '9') i++, d++;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, d++;
  }
  if (d == 0) return 0;
  rest = n - i;
  s += i;
  if (rest == 0) return 1;
  if (rest == 2 && s[1] == 'i' && strchr("KMGTPE", s[0]) != NULL) return 1;
  if (rest == 1 && strchr("numkMGTPE", s[0]) != NULL) return 1;
  if (s[0] == 'e' || s[0] == 'E') {
    size_t k = 1;
    if (k < rest && (s[k] == '+' || s[k] == '-')) k++;
    if (k == rest) return 0;
    for (; k < rest; k++)
      if (s[k] < '0' || s[k] > '9') return 0;
    return 1;
  }
  return 0;
}

int kf_quantity_negative(const char *s, size_t n) {
  return n > 1 && s[0] == '-' && s[1] != '+' && kf_quantity_ok(s + 1, n - 1);
}

/* By hand: snprintf dominated constructors that take numeric quantities. */
void kf_format_int(int64_t v, char out[32]) {
  char tmp[24];
  int n = 0, i = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) out[i++] = '-';
  while (n) out[i++] = tmp[--n];
  out[i] = '\0';
}

void kf_format_number(double d, char out[32]) {
  int prec;
  char *p;
  /* an integral double below 2^63 is that integer, exactly: 2^60 reads
  ** "1152921504606846976" whether Lua gave a float (5.3, 5.4) or an
  ** integer (5.1, LuaJIT, where the binding converts it) */
  if (d == floor(d) && fabs(d) < 9223372036854775808.0) {
    kf_format_int((int64_t)d, out);
    return;
  }
  /* Python's repr: the shortest digits that read back.  A normal double
  ** has it at 15 digits when it has it within them (15 digits always
  ** read back, so the nearest 15 are the shortest padded with zeros); a
  ** subnormal has fewer bits, and its shortest can be 1 digit (1e-310) */
  for (prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
    locale_t old = kf_c_numeric_begin();
    snprintf(out, 32, "%.*g", prec, d);
    kf_c_numeric_end(old);
    for (p = out; *p; p++)
      if (*p == ',') *p = '.';
    if (kf_strtod(out, NULL) == d) break;
  }
}

int kf_utf8_ok(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    unsigned c;
    int more;
    unsigned min, cp;
    uint64_t w;
    /* ASCII, the common case, eight bytes at a time */
    while (end - p >= 8 && (memcpy(&w, p, 8), (w & 0x8080808080808080ull) == 0)) p += 8;
    if (p == end) break;
    c = *p++;
    if (c < 0x80) continue;
    if (c >= 0xC2 && c <= 0xDF) more = 1, min = 0x80, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) more = 2, min = 0x800, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) more = 3, min = 0x10000, cp = c & 0x07;
    else return 0;
    if (end - p < more) return 0;
    while (more--) {
      if ((*p & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (*p++ & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  }
  return 1;
}

/* ---- tokens (images, paths, names the cluster reads) ------------------ */

/* Decodes the code point at s[*i] (well-formed UTF-8 assumed) and
** advances *i. */
static unsigned next_cp(const unsigned char *s, size_t n, size_t *i) {
  unsigned c = s[(*i)++];
  int more = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  if (more) c &= 0x3Fu >> more;
  while (more-- && *i < n) c = c << 6 | (s[(*i)++] & 0x3F);
  return c;
}

/* Unicode White_Space beyond ASCII (NEL, NBSP, the U+2000 spaces, line and
** paragraph separators, ...) */
static int uni_space(unsigned c) {
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Invisible format characters (Unicode Cf) that make two tokens look the
** same: soft hyphen, zero-width and bidirectional marks, BOM, ... */
static int uni_format(unsigned c) {
  return c == 0xAD || c == 0x61C || c == 0x180E || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) ||
         (c >= 0x2066 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB);
}

const char *kf_token_problem(const char *s, size_t n, char *buf, size_t cap) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  /* eight bytes at a time while all are printable ASCII (0x21-0x7E); a
  ** word that may hold another byte goes to the loop below */
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, p + i, 8);
    if (((x - 0x2121212121212121ULL) & ~x & 0x8080808080808080ULL) != 0 ||
        ((x + 0x0101010101010101ULL) | x) & 0x8080808080808080ULL)
      break;
  }
  while (i < n) {
    unsigned c;
    if (p[i] > 0x20 && p[i] < 0x7F) {   /* printable ASCII: always fine */
      i++;
      continue;
    }
    c = next_cp(p, n, &i);
    const char *what;
    if (c == ' ' || (c >= '\t' && c <= '\r')) return "must not contain whitespace";
    if (c < 0x20 || (c >= 0x7F && c < 0xA0 && c != 0x85)) what = "a control character";
    else if (uni_space(c)) what = "whitespace";
    else if (uni_format(c)) what = "an invisible format character";
    else continue;
    snprintf(buf, cap, "must not contain %s (U+%04X)", what, c);
    return buf;
  }
  return NULL;
}

/* lowerCamelCase JSON name of a proto field name (protoc's rule). Returns
** the full length; writes at most cap - 1 characters and a NUL. */
size_t kf_json_name(const char *name, char *out, size_t cap) {
  size_t n = 0;
  int up = 0;
  for (; *name; name++) {
    if (*name == '_') {
      up = 1;
      continue;
    }
    if (n + 1 < cap)
      out[n] = (char)(up && *name >= 'a' && *name <= 'z' ? *name - 32 : *name);
    n++;
    up = 0;
  }
  if (cap) out[n < cap ? n : cap - 1] = '\0';
  return n;
}

/* ---- job names -------------------------------------------------------- */

const char *kf_name_problem(const char *s, size_t n) {
  size_t i;
  if (n == 0) return "job names must not be empty";
  if (memchr(s, 0, n) != NULL) return "job names must not contain NUL bytes";
  if (!kf_utf8_ok(s, n)) return "job names must be valid UTF-8";
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] < 0xa0))
      return "job names must not contain control characters (C0, DEL or C1)";
  }
  return NULL;
}

void kf_name_show(const char *s, size_t n, char *out, size_t cap) {
  size_t i, k = 0;
  for (i = 0; i < n && k + 8 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') out[k++] = (char)c;
    else k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
  }
  if (i < n && k + 4 <= cap) memcpy(out + k, "...", 3), k += 3;
  out[k] = '\0';
}

/* ---- Kubernetes names (apimachinery pkg/util/validation) -------------- */

static int lower_alnum(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}
static int alnum(char ch) {
  return lower_alnum(ch) || (ch >= 'A' && ch <= 'Z');
}

int kf_str_listed(const char *const *v, const char *s) {
  for (; v && *v; v++)   /* the first byte before the call */
    if (**v == *s && strcmp(*v, s) == 0) return 1;
  return 0;
}

int kf_dns_label(const char *s, size_t n, int dns1035) {
  size_t i;
  if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1])) return 0;
  if (dns1035 && !(s[0] >= 'a' && s[0] <= 'z')) return 0;
  for (i = 0; i < n; i++)
    if (!lower_alnum(s[i]) && s[i] != '-') return 0;
  return 1;
}

/* Why the n bytes at s are not a DNS-1123 subdomain, or NULL (empty too). */
static const char *subdomain_problem(const char *s, size_t n) {
  size_t i;
  if (n > 253) return "longer than 253 characters";
  for (i = 0; i < n; i++) {
    int edge = i == 0 || s[i - 1] == '.' || i + 1 == n || s[i + 1] == '.';
    if (lower_alnum(s[i]) || (!edge && (s[i] == '-' || s[i] == '.'))) continue;
    return edge && (s[i] == '-' || s[i] == '.')
               ? "each '.'-separated part must start and end with a lowercase "
                 "letter or digit"
               : "only lowercase letters, digits, '-' and '.' are allowed";
  }
  return NULL;
}

const char *kf_dns1123_subdomain_problem(const char *s) {
  return subdomain_problem(s, strlen(s));
}

int kf_dns_subdomain(const char *s, size_t n) {
  return n > 0 && subdomain_problem(s, n) == NULL;
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])? (empty too), length unchecked */
static int label_chars(const char *s, size_t n) {
  size_t i;
  if (n && (!alnum(s[0]) || !alnum(s[n - 1]))) return 0;
  for (i = 0; i < n; i++)
    if (!alnum(s[i]) && !strchr("-_.", s[i])) return 0;
  return 1;
}

int kf_label_name(const char *s, size_t n) {
  return n > 0 && n <= 63 && label_chars(s, n);
}

#define MAX63_MSG "must be no more than 63 characters"
#define LABEL_VALUE_MSG "a valid label must be an empty string or consist of " \
  "alphanumeric characters, '-', '_' or '.', and must start and end with an " \
  "alphanumeric character"

const char *kf_label_value_problem(const char *s) {
  size_t n = strlen(s);
  int chars = label_chars(s, n);
  if (n > 63) return chars ? MAX63_MSG : MAX63_MSG "; " LABEL_VALUE_MSG;
  return chars ? NULL : LABEL_VALUE_MSG;
}

int kf_env_name(const char *s) {
  if (*s == '\0' || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!alnum(*s) && !strchr("-_.", *s)) return 0;
  return 1;
}

void kf_key_path(char *out, size_t cap, const char *prefix, const char *k) {
  const char *p = k;
  size_t n;
  int ident = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_';
  for (; ident && *p; p++)
    ident = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
            (*p >= '0' && *p <= '9') || *p == '_';
  n = kf_put(out, 0, cap, prefix, (size_t)-1);   /* as snprintf("%s.%.100s") */
  n = kf_put(out, n, cap, ident ? "." : "[\"", (size_t)-1);
  n = kf_put(out, n, cap, k, 100);
  if (!ident) kf_put(out, n, cap, "\"]", 2);
}

size_t kf_put(char *out, size_t len, size_t cap, const char *s, size_t n) {
  size_t k = 0;
  while (k < n && s[k] != '\0') k++;
  if (len + k > cap - 1) k = len < cap - 1 ? cap - 1 - len : 0;
  memcpy(out + len, s, k);
  out[len + k] = '\0';
  return len + k;
}

int kf_qualified_name(const char *k) {
  const char *slash = strchr(k, '/');
  if (slash == NULL) return kf_label_name(k, strlen(k));
  return kf_dns_subdomain(k, (size_t)(slash - k)) && kf_label_name(slash + 1, strlen(slash + 1));
}

/* 0 to 99 as static strings, or NULL: a quantity given as a small integer
** (cpu = 8, gpu = 1) needs no formatting and no copy of its own. */
const char *kf_small_int(int64_t i) {
  static const char small[100][3] = {
      "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19",
      "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34", "35", "36", "37", "38", "39",
      "40", "41", "42", "43", "44", "45", "46", "47", "48", "49", "50", "51", "52", "53", "54", "55", "56", "57", "58", "59",
      "60", "61", "62", "63", "64", "65", "66", "67", "68", "69", "70", "71", "72", "73", "74", "75", "76", "77", "78", "79",
      "80", "81", "82", "83", "84", "85", "86", "87", "88", "89", "90", "91", "92", "93", "94", "95", "96", "97", "98", "99",
  };
  return i >= 0 && i < 100 ? small[i] : NULL;
}

/*
** kf_check.c - the validators a row names (kf_field.check, a string map's
** key_check and value_check): what each takes, as Kubernetes checks it
** (base/kf_text.c's checkers), its regular expression and largest length
** for the generators (kf_checks: `kfjob schema`, `explain`, `meta`), and
** the error a value that fails it gets.  Everything that checks a
** namespace, a Kueue name, a label or an annotation key by its validator
** calls here.
*/
#include <string.h>

#include "kf_job.h"

/* The validators' Kubernetes regular expressions, as
** k8s.io/apimachinery/pkg/util/validation/validation.go composes them
** (dns1123LabelFmt, dns1123SubdomainFmt, qnameCharFmt, qnameExtCharFmt,
** qualifiedNameFmt, labelValueFmt; IsQualifiedName's optional prefix is a
** DNS-1123 subdomain and '/'), with their MaxLength constants. */
#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_FMT DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*"
#define QNAME_CHAR_FMT "[A-Za-z0-9]"
#define QNAME_EXT_CHAR_FMT "[-A-Za-z0-9_.]"
#define QUALIFIED_NAME_FMT "(" QNAME_CHAR_FMT QNAME_EXT_CHAR_FMT "*)?" QNAME_CHAR_FMT
#define LABEL_VALUE_FMT "(" QUALIFIED_NAME_FMT ")?"
#define HTTP_PATH_FMT "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"

const kf_check_info kf_checks[] = {
  [KF_CHECK_NONE] = {NULL, NULL, 0, NULL},
  [KF_CHECK_DNS_LABEL] = {"dns1123_label", "^" DNS1123_LABEL_FMT "$", 63,
                          "a DNS-1123 label: at most 63 lowercase letters, digits and "
                          "'-', starting and ending with a letter or digit (IsDNS1123Label)"},
  /* Kueue's webhook takes a DNS-1123 subdomain (ValidateQueueName), but the
  ** name is a label's value, which the API server caps at 63 first */
  [KF_CHECK_KUEUE_NAME] = {"dns1123_subdomain", "^" DNS1123_SUBDOMAIN_FMT "$", 63,
                           "a DNS-1123 subdomain of at most 63 characters: '.'-separated "
                           "DNS-1123 labels (IsDNS1123Subdomain), in a label value "
                           "(IsValidLabelValue: at most 63)"},
  [KF_CHECK_LABEL_KEY] = {"label_key", "^(" DNS1123_SUBDOMAIN_FMT "/)?" QUALIFIED_NAME_FMT "$",
                          0, "a label key: an optional DNS-1123 subdomain of at most 253 "
                          "and '/', then at most 63 letters, digits, '-', '_' or '.', "
                          "starting and ending with a letter or digit (IsQualifiedName)"},
  [KF_CHECK_LABEL_VALUE] = {"label_value", "^" LABEL_VALUE_FMT "$", 63,
                            "a label value: empty, or at most 63 letters, digits, '-', '_' "
                            "or '.', starting and ending with a letter or digit "
                            "(IsValidLabelValue)"},
  /* ValidateAnnotations (apimachinery pkg/api/validation/objectmeta.go):
  ** IsQualifiedName(strings.ToLower(k)), a label key's rule with either case
  ** in the prefix; no expression of Kubernetes' own says it */
  [KF_CHECK_ANNOTATION_KEY] = {"annotation_key", NULL, 0,
                               "an annotation key: a label key whose DNS-1123 subdomain "
                               "prefix may have uppercase letters (IsQualifiedName of the "
                               "key lowered)"},
  /* IsDomainPrefixedPath (validation.go: a subdomain, '/', httpPathFmt's
  ** characters); the TrainJob CRD's manager maxLength 253 */
  [KF_CHECK_DOMAIN_PATH] = {"domain_prefixed_path",
                            "^" DNS1123_SUBDOMAIN_FMT "/" HTTP_PATH_FMT "$", 253,
                            "a domain-prefixed path of at most 253 characters: a DNS-1123 "
                            "subdomain, '/', then letters, digits or "
                            "/-._~%!$&'()*+,;=: (IsDomainPrefixedPath, \"acme.io/foo\")"},
};

/* IsDomainPrefixedPath: <subdomain>/<path>, each part not empty. */
static int domain_path(const char *s, size_t n) {
  static const char path_chars[] = "/-._~%!$&'()*+,;=:";
  const char *slash = strchr(s, '/');
  char host[254];
  size_t i, h = slash ? (size_t)(slash - s) : 0;
  if (n > 253 || h == 0 || slash[1] == '\0') return 0;
  memcpy(host, s, h);
  host[h] = '\0';
  if (kf_dns1123_subdomain_problem(host) != NULL) return 0;
  for (i = h + 1; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          strchr(path_chars, c)) || c == '\0')
      return 0;
  }
  return 1;
}

/* IsQualifiedName(strings.ToLower(k)) */
static int annotation_key(const char *k) {
  char low[320];
  size_t i, n = strlen(k);
  if (n >= sizeof low) return 0;   /* longer than 253 + '/' + 63: none is one */
  for (i = 0; i <= n; i++) low[i] = (k[i] >= 'A' && k[i] <= 'Z') ? (char)(k[i] + 32) : k[i];
  return kf_qualified_name(low);
}

int kf_check_ok(unsigned c, const char *s) {
  size_t n = strlen(s);
  switch ((enum kf_check)c) {
    case KF_CHECK_DNS_LABEL: return n <= 63 && kf_dns_label(s, n, 0);
    case KF_CHECK_KUEUE_NAME: return n <= 63 && kf_dns1123_subdomain_problem(s) == NULL;
    case KF_CHECK_LABEL_KEY: return kf_qualified_name(s);
    case KF_CHECK_LABEL_VALUE: return kf_label_value_problem(s) == NULL;
    case KF_CHECK_ANNOTATION_KEY: return annotation_key(s);
    case KF_CHECK_DOMAIN_PATH: return domain_path(s, n);
    case KF_CHECK_NONE: break;
  }
  return 1;
}

kf_status kf_row_check(const kf_field *f, const char *v, const char *path,
                       const char *who, kf_err *e) {
  return f ? kf_check_value(f->check, v, path, who, e) : KF_OK;
}

kf_status kf_check_value(unsigned check, const char *v, const char *path,
                         const char *who, kf_err *e) {
  if (v == NULL || kf_check_ok(check, v)) return KF_OK;
  switch ((enum kf_check)check) {
    case KF_CHECK_DNS_LABEL:
      return kf_fail(e, KF_EINVAL, "%s: %s: '%.100s' is not a DNS-1123 label (at "
                     "most 63 lowercase letters, digits and '-', starting and ending "
                     "with a letter or digit)", who, path, v);
    case KF_CHECK_KUEUE_NAME:   /* kueue jobframework/validation.go ValidateQueueName */
      if (kf_dns1123_subdomain_problem(v) == NULL)   /* a subdomain, over 63 */
        return kf_fail(e, KF_EINVAL, "%s: %s: '%.80s' is %zu characters: Kueue reads it "
                       "from a label value, which the API server caps at 63 "
                       "(IsValidLabelValue)", who, path, v, strlen(v));
      return kf_fail(e, KF_EINVAL, "%s: %s: '%.80s' is not a DNS-1123 subdomain "
                     "(%s; Kueue's webhook refuses it)", who, path, v,
                     kf_dns1123_subdomain_problem(v));
    case KF_CHECK_LABEL_KEY: case KF_CHECK_LABEL_VALUE: case KF_CHECK_ANNOTATION_KEY:
    case KF_CHECK_DOMAIN_PATH:
      return kf_fail(e, KF_EINVAL, "%s: %s: '%.100s' is not %s", who, path, v,
                     kf_checks[check].what);
    case KF_CHECK_NONE: break;
  }
  return KF_OK;
}

/*
** kf_yaml_scalar.h - what kf_yaml_read.c's plain scalars are (the YAML 1.2
** core schema, or YAML 1.1 as kubectl's go-yaml v2 reads them), and the
** text pass that makes JSON's escaped surrogate pairs YAML's.  Internal to
** the reader.
*/
#ifndef KF_YAML_SCALAR_H
#define KF_YAML_SCALAR_H

#include "kf_job.h"

enum { R_ANY, R_STR, R_INT, R_FLOAT, R_BOOL, R_NULL, R_BAD };

/* What the plain scalar s[0..n) (NUL-terminated at n) is: R_NULL, R_BOOL,
** R_INT (*ok: within int64), R_FLOAT or R_STR, its value in *out (a
** string's is left to the caller); YAML 1.1 when v11.  -1: no memory. */
int kfy_resolve(kf_arena *A, const char *s, size_t n, int v11, kf_node *out, int *ok);

/* t[0..n) with each escaped surrogate pair of a double-quoted scalar
** ("\ud83d\ude00") as "\U0001F600" and, in a JSON text (`json`), a lone
** one as "\uFFFD", in A (*outn its length); NULL when there is none (or no
** memory). */
char *kfy_join_surrogates(kf_arena *A, const char *t, size_t n, size_t *outn, int json);

#endif

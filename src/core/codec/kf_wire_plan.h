/*
** kf_wire_plan.h - the plans of each kind's v1 message that kf_wire_plan.c
** makes once from the kind table and the protobuf-c descriptors (every
** message kf_job_to_msg would build, its fields in pack order with their
** tag bytes and where each value lives in the job), and the tables beside
** them.  kf_wire_job.c writes a job by walking them: wire bytes, compact
** JSON, the TaskTemplate's custom Struct.  Private to those two files.
*/
#ifndef KF_WIRE_PLAN_H
#define KF_WIRE_PLAN_H

#include <stdint.h>

#include "kf_job.h"
#include "kf_pb.h"
#include "kf_wire.h"
#include "protobuf-c/protobuf-c.h"

typedef enum wkind {
  W_INT,      /* int32 / enum at off, left out when 0 */
  W_STR,      /* const char * at off, left out when NULL or "" */
  W_STRLIST,  /* repeated string: array at off, count at off_n */
  W_RES,      /* repeated ResourceEntry from the quantities at off */
  W_MSG       /* a sub-message (sub) */
} wkind;

typedef enum wwhen {
  P_ALWAYS,   /* built even when empty */
  P_FLAG,     /* when the int at flag is set */
  P_ANY       /* when its body is not empty (an elastic group's resources) */
} wwhen;

#define W_MAX_FIELDS 16
#define W_MAX_PLANS 128   /* v1 plans of both encodings, and v0's */
#define W_MAX_STRS 48

typedef struct wplan wplan;
typedef struct wfield {   /* what encoding reads first, the keys last */
  wkind k;
  wwhen when;
  uint8_t tag[5], ntag;
  uint8_t nkey, nskey;
  int16_t enames;            /* W_INT enum: first of its names in enum_q, or -1 */
  uint8_t nenames;
  uint32_t id;
  size_t off, off_n, flag;   /* from the job's start */
  const wplan *sub;
  const ProtobufCFieldDescriptor *fd;
  const kf_field *row;       /* the schema row (reading checks by it); NULL:
                                a v0 replica count */
  char key[48];              /* JSON: "camelCase": (nkey 0: no JSON plan) */
  uint8_t skey[48];          /* Struct: the map entry's key field, 0a len
                                camelCase, at the end (copied whole) */
} wfield;

struct wplan {
  const ProtobufCMessageDescriptor *d;
  wfield f[W_MAX_FIELDS];
  int n;
  uint8_t bykey[W_MAX_FIELDS];   /* field order by JSON key (Struct order) */
  size_t fixed;                  /* a top plan's Struct room without its strings
                                    (st_fixed; 0: no Struct plan) */
  const wfield *strs[W_MAX_STRS];  /* a top plan's fields holding strings */
  int nstrs;
};

/* JSON: quoted enum names (by value, from 0) and each resource entry's
** start: {"name":"CPU","value": (or without the value, then "}"). */
#define W_MAX_ENAMES 96
typedef struct wtables {
  int res_number[KF_NRES];        /* ResourceName's number per resource row */
  char enum_q[W_MAX_ENAMES][40];
  uint8_t enum_n[W_MAX_ENAMES];
  char res_q[KF_NRES][2][64];
  const char *res_name[KF_NRES];
  uint8_t res_n[KF_NRES][2];
  int json_ok;                    /* every planned field has its JSON key */
} wtables;

/* Filled by the first kf_wplan call (read them only after one). */
extern wtables kf_wtables;

/* The top plan of `kind`'s v1 message (common: with CommonReplicaSpec),
** the plans made on first use; NULL when the kind has none. */
const wplan *kf_wplan(int kind, int common);

#define AT(base, off, T) (*(T const *)(const void *)((const char *)(base) + (off)))

/* The top plan of `kind`'s v0 message (the replica counts and the rows
** with a v0 field), for reading only; NULL when the kind has none. */
const wplan *kf_wplan_v0(int kind);

/* Whether sub-message field w is there: always, by its flag, or (an
** elastic group's resources) when it has something. */
int kf_wplan_when(const wfield *w, const char *job);

/* (inline: most sub-messages are always there) */
static inline int msg_here(const wfield *w, const char *job) {
  return w->when == P_ALWAYS || kf_wplan_when(w, job);
}

/* The length of the bytes from lenat + 1 to o, put at lenat (one byte was
** kept for it; a longer one moves the bytes). */
uint8_t *kf_wplan_put_len_slow(uint8_t *lenat, uint8_t *o);

static inline uint8_t *put_len(uint8_t *lenat, uint8_t *o) {
  size_t n = (size_t)(o - lenat - 1);
  if (n < 0x80) {   /* one byte: the room kept for it */
    *lenat = (uint8_t)n;
    return o;
  }
  return kf_wplan_put_len_slow(lenat, o);
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CALIENT REST codec, shared by the calient driver and ocs-emu's REST
 * face: JSON bodies <-> structs, with jansson.  Pure: no I/O, every input
 * is validated and a refusal is one line naming the field and the value.
 *
 * Ports: a CALIENT port is duplex, named shelf.module.port.  We number
 * them p = 1..N with 16 ports per module on shelf 1 (port 17 is 1.2.1),
 * which is how ocs-emu names its ports.  Duplex port p is Polatis-style
 * ingress p plus egress N + p, so a "bi" cross-connect A-B is the two
 * patches A -> N+B and B -> N+A, and a "uni" one A>B is A -> N+B.
 */
#ifndef OCS_REST_H
#define OCS_REST_H

#include <stddef.h>
#include <stdint.h>

#include "proto/base/errbase.h"

#define REST_PORTS_PER_MODULE 16
#define REST_BODY_MAX         (8u << 20) /* any body, either direction */
#define REST_NAME_MAX         32         /* "1.256.16-1.256.16" fits */
#define REST_TEXT_MAX         256

enum rest_err { /* returned negated */
	        REST_EBASE = ERR_BASE_REST,
	        REST_EJSON, /* not JSON, or nested too deep */
	        REST_ESHAPE, /* JSON, but a field is missing or of the wrong type */
	        REST_EVALUE, /* a field has a value we cannot use */
	        REST_ESIZE,  /* body larger than REST_BODY_MAX */
	        REST_EMAX
};

/* One cross-connect: bi a-b, or uni a>b (duplex port numbers). */
struct rest_xc {
	uint32_t a, b;
	int      bi;
};

/* One half of a listed cross-connect (what the emulator reports). */
struct rest_half {
	double inp, outp; /* dBm, <= -90 printed as "NONE" */
	int    fail;      /* oc FAIL: no light through it */
};

/* One item's outcome of add, delete or a bulk operation. */
struct rest_result {
	int  ok;                  /* status "1" */
	char text[REST_TEXT_MAX]; /* msg and description, for failures */
};

/* "1.2.1" for 17; buf needs REST_NAME_MAX. */
const char *rest_port_fmt(uint32_t p, char *buf, size_t len);
/* shelf.module.port[/n] -> p (shelf 1 only; the /n suffix must be /1 or
 * absent).  0 or -REST_EVALUE. */
int rest_port_parse(const char *s, uint32_t *p);

/* "1.1.1-1.2.1" (bi) or "1.1.1>1.2.1" (uni). */
const char *rest_conn_fmt(const struct rest_xc *, char *buf, size_t len);
int         rest_conn_parse(const char *s, struct rest_xc *);

/*
 * Bodies.  Every *_fmt returns a malloc'd NUL-terminated string (NULL on
 * ENOMEM).  Every *_parse takes the body and its length, the switch size
 * N (ports must be 1..N; 0 = do not check) and fills err with one line
 * on failure; arrays come back malloc'd.
 */

/* [{"in":"1.1.1","out":"1.2.1","dir":"bi"}, ...] (also one "add"). */
char *rest_badd_fmt(const struct rest_xc *, size_t n);
int   rest_badd_parse(const char *body, size_t len, uint32_t nports,
                      struct rest_xc **out, size_t *n, char *err, size_t errlen);

/* [{"conn":"1.1.1-1.2.1"}, ...] */
char *rest_bdel_fmt(const struct rest_xc *, size_t n);
int   rest_bdel_parse(const char *body, size_t len, uint32_t nports,
                      struct rest_xc **out, size_t *n, char *err, size_t errlen);

/*
 * Outcomes: single operations answer [{"status":"1","msg":..,
 * "description":..}], bulk ones [{"response":{"status":..}}, ...].  Parse
 * accepts both shapes, status as "0"/"1" or 0/1; n is the number of
 * items (want: how many were sent, or 0 for any).
 */
char *rest_result_fmt(const struct rest_result *, size_t n, int bulk);
int   rest_result_parse(const char *body, size_t len, size_t want,
                        struct rest_result **out, size_t *n, char *err,
                        size_t errlen);

/* ?id=list rows: name, group, dir, band, half1 (and half2 when bi). */
char *rest_list_fmt(const struct rest_xc *, const struct rest_half (*)[2],
                    size_t n);
int   rest_list_parse(const char *body, size_t len, uint32_t nports,
                      struct rest_xc **out, size_t *n, char *err, size_t errlen);

/* ?id=summary rows: port, conn, power, aliases (and, unconfirmed for
 * real switches, inpower/outpower/inoc/outoc as in the port detail).
 * Parse gives N, the highest port number, and checks every port 1..N
 * appears once; rows (if not NULL) gets them indexed by port - 1. */
struct rest_port {
	uint32_t port;
	char     conn[REST_NAME_MAX]; /* "" if none */
	double   inpower, outpower;
	int      fail; /* FAILED / no hardware */
};
char *rest_ports_fmt(const struct rest_port *, size_t n);
int   rest_ports_parse(const char *body, size_t len, uint32_t *nports,
                       struct rest_port **rows, char *err, size_t errlen);

/* ?id=detail&port=..: RENAT's shape (an object, or a 1-element array). */
char *rest_detail_fmt(const struct rest_port *);
int   rest_detail_parse(const char *body, size_t len, struct rest_port *,
                        char *err, size_t errlen);

/* The value of key in a URI's query string, %-decoded, or -ENOENT;
 * -EINVAL for bad escapes or a value that does not fit. */
int rest_query_get(const char *uri, const char *key, char *buf, size_t len);

/* Patches <-> cross-connects.  map[in] = out (0 none), in = 1..N. */
/* Pair the patches of map into bi where both directions exist, else uni;
 * returns the number written to xc (room for N). */
size_t rest_xc_from_map(const uint16_t *map, uint32_t nports,
                        struct rest_xc *xc);
/* Add the patches of xc to map; -REST_EVALUE if a port is already used. */
int rest_xc_to_map(const struct rest_xc *, uint32_t nports, uint16_t *map);

#endif

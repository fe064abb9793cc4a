/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CALIENT REST codec, shared by the calient driver and ocs-emu's REST
 * face: JSON bodies <-> structs, with jansson.  Pure: no I/O, every input
 * is validated and a refusal is one line naming the field and the value.
 *
 * Ports: a CALIENT port is duplex, named shelf.module.port (any shelf,
 * any number of ports per module, gaps allowed: 1.1.1, 3.3.1, 6.1.1).  A
 * switch's names, sorted by (shelf, module, port), number its ports
 * p = 1..N (struct rest_names); the driver learns them from the ports
 * summary, ocs-emu makes its own (shelf 1, 16 ports per module: port 17
 * is 1.2.1).  Duplex port p is Polatis-style ingress p plus egress N + p,
 * so a "bi" cross-connect A-B is the two patches A -> N+B and B -> N+A,
 * and a "uni" one A>B is A -> N+B.
 */
#ifndef OCS_REST_H
#define OCS_REST_H

#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/drv.h"
#include "proto/base/errbase.h"

#define REST_PORTS_PER_MODULE 16 /* ocs-emu's layout */
#define REST_PORTS_MAX        4096
#define REST_BODY_MAX         (8u << 20) /* any body, either direction */
#define REST_NAME_MAX         32 /* a port name: "65535.65535.65535/1" */
#define REST_CONN_MAX         64 /* a connection: "A-B", or its owner's name */
#define REST_TEXT_MAX         256

enum rest_err { /* returned negated */
	        REST_EBASE = ERR_BASE_REST,
	        REST_EJSON, /* not JSON, or nested too deep */
	        REST_ESHAPE, /* JSON, but a field is missing or of the wrong type */
	        REST_EVALUE, /* a field has a value we cannot use */
	        REST_ESIZE,  /* body larger than REST_BODY_MAX */
	        REST_EMAX
};

/* The port names of a switch, in port order (port p is name[p - 1]). */
struct rest_names {
	uint32_t n;
	char (*name)[REST_NAME_MAX];
	uint64_t *key; /* sort key of each, ascending */
};

/* ocs-emu's names for n ports: 1.1.1 .. 1.1.16, 1.2.1, ...  0/-ENOMEM. */
int rest_names_default(struct rest_names *, uint32_t n);
/* Take n names as a device lists them (any order): sort, number, refuse
 * a malformed or repeated name.  0, -REST_EVALUE with err, -ENOMEM. */
int  rest_names_set(struct rest_names *, const char (*names)[REST_NAME_MAX],
                    size_t n, char *err, size_t errlen);
void rest_names_free(struct rest_names *);

/* shelf.module.port with an optional /1 (the same port): its sort key,
 * or -REST_EVALUE.  Each number 1..65535, no sign, no blanks. */
int rest_port_key(const char *s, uint64_t *key);
/* Port p's name ("?" out of range); buf needs REST_NAME_MAX. */
const char *rest_port_fmt(const struct rest_names *, uint32_t p, char *buf,
                          size_t len);
/* A name of this switch -> p.  0 or -REST_EVALUE. */
int rest_port_parse(const struct rest_names *, const char *s, uint32_t *p);
/* The same for drv_port_lookup: 0, -ENOENT, or -ENOTCONN while the
 * switch's names are not known yet. */
int rest_names_lookup(const struct rest_names *, const char *s, uint32_t *p);
/* The same ports, numbered the same?  1 or 0. */
int rest_names_equal(const struct rest_names *, const struct rest_names *);

/* One cross-connect: bi a-b, or uni a>b (duplex port numbers). */
struct rest_xc {
	uint32_t a, b;
	int      bi;
};

/* "1.1.1-1.2.1" (bi) or "1.1.1>1.2.1" (uni); buf needs REST_CONN_MAX. */
const char *rest_conn_fmt(const struct rest_names *, const struct rest_xc *,
                          char *buf, size_t len);
/* -REST_EVALUE unless both ports are of this switch (and a bi
 * connection joins two different ports). */
int rest_conn_parse(const struct rest_names *, const char *s,
                    struct rest_xc *);

/* An owner's connection or group name: 1..63 of [A-Za-z0-9_.>/-]. */
int rest_cname_ok(const char *s);

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

/* An add: ports and direction, and what its owner calls it ("" if not
 * given: the switch names it by its ports, group SYSTEM). */
struct rest_add {
	struct rest_xc x;
	char           name[REST_CONN_MAX];
	char           group[REST_CONN_MAX];
};

/* A connection a request refers to: by its ports (named == 0, x valid)
 * or by the name its owner gave it (text). */
struct rest_ref {
	struct rest_xc x;
	int            named;
	char           text[REST_CONN_MAX];
};

/*
 * Bodies.  Every *_fmt returns a malloc'd NUL-terminated string (NULL on
 * ENOMEM).  Every *_parse takes the body and its length, the switch's
 * names and fills err with one line on failure; arrays come back
 * malloc'd.
 */

/* [{"in":"1.1.1","out":"1.2.1","dir":"bi"}, ...] (also one "add", with
 * its optional conn, group, band, nolight, deadreckon). */
char *rest_badd_fmt(const struct rest_names *, const struct rest_xc *,
                    size_t n);
int   rest_badd_parse(const char *body, size_t len, const struct rest_names *,
                      struct rest_add **out, size_t *n, char *err,
                      size_t errlen);
/* The form-encoded add, id=add&in=..&out=..&dir=uni[&conn=..&group=..]
 * (RENAT); dir defaults to bi. */
int rest_add_form_parse(const char *body, size_t len,
                        const struct rest_names *, struct rest_add *,
                        char *err, size_t errlen);

/* [{"conn":"1.1.1-1.2.1"}, ...]; parse also takes owners' names. */
char *rest_bdel_fmt(const struct rest_names *, const struct rest_xc *,
                    size_t n);
int   rest_bdel_parse(const char *body, size_t len, const struct rest_names *,
                      struct rest_ref **out, size_t *n, char *err,
                      size_t errlen);
/* A connection named by a query value (conn=, name=). */
int rest_ref_parse(const struct rest_names *, const char *s,
                   struct rest_ref *);

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

/* ?id=list rows (and ?id=detail, one row): name, group, dir, band,
 * half1 (and half2 when bi), each half with its conn A>B. */
struct rest_row {
	struct rest_xc   x;
	char             name[REST_CONN_MAX];
	char             group[REST_CONN_MAX];
	int              active;
	struct rest_half h[2];
};
char *rest_list_fmt(const struct rest_names *, const struct rest_row *,
                    size_t n);
/* Connections are read from half1.conn (and half2.conn), never from the
 * name, which is whatever the owner called it. */
int rest_list_parse(const char *body, size_t len, const struct rest_names *,
                    struct rest_xc **out, size_t *n, char *err, size_t errlen);

/* A port as the summary and the detail show it: each duplex port has an
 * in half (light enters, ingress p) and an out half (egress N + p). */
struct rest_port {
	uint32_t port;
	char     inconn[REST_CONN_MAX];  /* circuit through the in half */
	char     outconn[REST_CONN_MAX]; /* circuit through the out half */
	double   inpower, outpower;
	int      fail;          /* FAILED / no hardware */
	int      inoos, outoos; /* admin state OOS (shutter closed) */
	char     inalias[REST_NAME_MAX + 1], outalias[REST_NAME_MAX + 1];
};
/* ?id=summary rows: port, conn, connid, power, aliases (and, unconfirmed
 * for real switches, inpower/outpower/inoc/outoc as in the detail). */
char *rest_ports_fmt(const struct rest_names *, const struct rest_port *,
                     size_t n);
/* The switch's names from the rows (max 4096) and, if rows is not NULL,
 * the rows in port order.  names must be freed after a 0. */
int rest_ports_parse(const char *body, size_t len, struct rest_names *names,
                     struct rest_port **rows, char *err, size_t errlen);

/* ?id=detail&port=..: RENAT's shape, a 1-element array (an object is
 * also read). */
char *rest_detail_fmt(const struct rest_names *, const struct rest_port *);
int rest_detail_parse(const char *body, size_t  len, const struct rest_names *,
                      struct rest_port *, char *err, size_t errlen);

/* The value of key in a URI's query string, %-decoded, or -ENOENT;
 * -EINVAL for bad escapes or a value that does not fit. */
int rest_query_get(const char *uri, const char *key, char *buf, size_t len);
/* The same in a form-encoded body (not NUL-terminated). */
int rest_form_get(const char *body, size_t blen, const char *key, char *buf,
                  size_t len);

/* Patches <-> cross-connects.  map[in] = out (0 none), in = 1..N. */
/* Pair the patches of map into bi where both directions exist, else uni;
 * returns the number written to xc (room for N). */
size_t rest_xc_from_map(const uint16_t *map, uint32_t nports,
                        struct rest_xc *xc);
/* Add the patches of xc to map; -REST_EVALUE if a port is already used. */
int rest_xc_to_map(const struct rest_xc *, uint32_t nports, uint16_t *map);

/* The patches of listed connections into map (N + 1 entries);
 * -REST_EVALUE naming the first that overlaps another. */
int rest_map_of(const struct rest_names *, const struct rest_xc *, size_t n,
                uint16_t *map, char *err, size_t errlen);
/*
 * A batch in connections: del (room for ncur) are the listed ones whose
 * patches do not all survive it, add (room for N) the ones to make; map
 * and rest are scratch of N + 1 entries.  0, -REST_EVALUE (the list
 * overlaps itself), -DRV_EBUSY (a patch asked for meets one that
 * stays), with err filled.
 */
int rest_plan(const struct rest_names *, const struct rest_xc *cur,
              size_t ncur, const struct drv_batch *, struct rest_xc *del,
              size_t *ndel, struct rest_xc *add, size_t *nadd, uint16_t *map,
              uint16_t *rest, char *err, size_t errlen);

#endif

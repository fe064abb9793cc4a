/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CALIENT TL1 data lines (cal_tl1.h).  Keys are matched whole
 * ("OS=" is not "POS="), values end at the next comma.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/cal_tl1.h"
#include "proto/base/errf.h"

#define VAL_MAX 64

/* The value of KEY= in a comma-separated list, or -1 if absent or too
 * long. */
static int
kv(const char *list, const char *key, char *buf, size_t len)
{
	size_t      kl = strlen(key), n;
	const char *p = list;

	while (p != NULL && *p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			p += kl + 1;
			n = strcspn(p, ",");
			if (n >= len)
				return (-1);
			memcpy(buf, p, n);
			buf[n] = '\0';
			return (0);
		}
		if ((p = strchr(p, ',')) != NULL)
			p++;
	}
	return (-1);
}

/* The line's AID (before the first ':') and what follows it. */
static const char *
aid_of(const char *line, char *aid, size_t len)
{
	const char *c = strchr(line, ':');
	size_t      n;

	if (c == NULL || (n = (size_t)(c - line)) == 0 || n >= len)
		return (NULL);
	memcpy(aid, line, n);
	aid[n] = '\0';
	return (c + 1);
}

int
cal_tl1_port(const char *line, char *name, size_t len, int *fail, char *err,
             size_t errlen)
{
	const char *rest = aid_of(line, name, len);
	char        v[VAL_MAX];
	uint64_t    key;

	if (rest == NULL || rest_port_key(name, &key) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "RTRV-PORT line \"%.60s\": no shelf.module.port "
		             "before ':'",
		             line));
	*fail = 0;
	if (strchr(rest, ':') != NULL) {
		rest = strchr(rest, ':') + 1;
		*fail = (kv(rest, "INOC", v, sizeof(v)) == 0 &&
		         (!strcmp(v, "FAIL") || !strcmp(v, "NOHW"))) ||
		        (kv(rest, "OUTOC", v, sizeof(v)) == 0 &&
		         (!strcmp(v, "FAIL") || !strcmp(v, "NOHW")));
	}
	return (0);
}

static int
port_kv(const char *rest, const char *key, const struct rest_names *t,
        uint32_t *p, const char *line, char *err, size_t errlen)
{
	char v[VAL_MAX];

	if (kv(rest, key, v, sizeof(v)) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "RTRV-CRS line \"%.60s\": no %s", line, key));
	if (rest_port_parse(t, v, p) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "RTRV-CRS line \"%.60s\": %s=%s is not a port of "
		             "this switch",
		             line, key, v));
	return (0);
}

int
cal_tl1_crs(const char *line, const struct rest_names *t,
            struct cal_tl1_crs *c, char *err, size_t errlen)
{
	char        aid[REST_CONN_MAX], v[VAL_MAX];
	const char *rest = aid_of(line, aid, sizeof(aid));
	int         rv;

	memset(c, 0, sizeof(*c));
	if (rest == NULL)
		return (
		    errf(-REST_EVALUE, err, errlen,
		         "RTRV-CRS line \"%.60s\": no connection before ':'",
		         line));
	if ((rv = port_kv(rest, "SRCPORT", t, &c->x.a, line, err, errlen)) ||
	    (rv = port_kv(rest, "DSTPORT", t, &c->x.b, line, err, errlen)))
		return (rv);
	if (kv(rest, "CONNTYPE", v, sizeof(v)) != 0 ||
	    (strcmp(v, "2WAY") && strcmp(v, "1WAY")))
		return (
		    errf(-REST_EVALUE, err, errlen,
		         "RTRV-CRS line \"%.60s\": CONNTYPE is not 1WAY or "
		         "2WAY",
		         line));
	c->x.bi = strcmp(v, "2WAY") == 0;
	if (c->x.bi && c->x.a == c->x.b)
		return (errf(-REST_EVALUE, err, errlen,
		             "RTRV-CRS line \"%.60s\": a 2WAY connection of a "
		             "port to itself",
		             line));
	if (kv(rest, "CONNNAME", c->name, sizeof(c->name)) != 0 ||
	    !rest_cname_ok(c->name))
		snprintf(c->name, sizeof(c->name), "%s", aid);
	if (!rest_cname_ok(c->name))
		return (errf(-REST_EVALUE, err, errlen,
		             "RTRV-CRS line \"%.60s\": no usable CONNNAME",
		             line));
	if (kv(rest, "GRPNAME", c->group, sizeof(c->group)) != 0 ||
	    !rest_cname_ok(c->group))
		snprintf(c->group, sizeof(c->group), "SYSTEM");
	c->active = kv(rest, "OS", v, sizeof(v)) == 0 && !strcmp(v, "RDY");
	c->fail = kv(rest, "OC", v, sizeof(v)) == 0 && !strcmp(v, "FAIL");
	return (0);
}

static int
power_kv(const char *rest, const char *key, double *dbm)
{
	char   v[VAL_MAX], *end;
	double d;

	if (kv(rest, key, v, sizeof(v)) != 0)
		return (-1);
	if (strcmp(v, "NONE") == 0) {
		*dbm = -90;
		return (0);
	}
	d = strtod(v, &end);
	if (end == v || *end != '\0' || !isfinite(d) || d < -200 || d > 50)
		return (-1);
	*dbm = d;
	return (0);
}

int
cal_tl1_sum(const char *line, const struct rest_names *t, uint32_t *port,
            double *inpwr, double *outpwr, char *err, size_t errlen)
{
	char        aid[REST_NAME_MAX];
	const char *rest = aid_of(line, aid, sizeof(aid));

	if (rest == NULL || rest_port_parse(t, aid, port) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "RTRV-PORT-SUM line \"%.60s\": no port of this "
		             "switch before ':'",
		             line));
	if (power_kv(rest, "INPWR", inpwr) != 0 ||
	    power_kv(rest, "OUTPWR", outpwr) != 0)
		return (
		    errf(-REST_EVALUE, err, errlen,
		         "RTRV-PORT-SUM line \"%.60s\": INPWR/OUTPWR is not "
		         "dBm or NONE",
		         line));
	return (0);
}

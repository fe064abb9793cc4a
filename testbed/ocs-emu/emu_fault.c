/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fault injection for ocs-emu: one spec language for --fault and the
 * control commands of both faces.  A spec is validated whole before any of
 * it takes effect, so a typo never leaves half the faults armed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/units.h"
#include "testbed/ocs-emu/emu.h"

const char emu_garbage[] = "\x01\x7f<html>garbage \xff\xfe</html>\r\n";

#define SPEC_MAX 512

static int
bad(char *err, size_t len, const char *item, const char *why)
{
	snprintf(err, len, "fault \"%.60s\": %s", item, why);
	return (-EINVAL);
}

static int
number(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	char         *end;
	unsigned long x;

	if (*s < '0' || *s > '9')
		return (-EINVAL);
	x = strtoul(s, &end, 10);
	if (*end != '\0' || x < lo || x > hi)
		return (-EINVAL);
	*v = (uint32_t)x;
	return (0);
}

int
emu_fault_set(struct emu *e, const char *spec, char *err, size_t errlen)
{
	struct emu_fault f = e->fault;
	uint8_t         *lose = NULL;
	char             buf[SPEC_MAX], *item, *save = NULL, *val;
	uint32_t         v, n2 = 2 * e->x.n;
	double           t;
	int              rv = 0;

	if (strlen(spec) >= sizeof(buf) || *spec == '\0')
		return (bad(err, errlen, spec, "empty or too long"));
	if ((lose = malloc(n2 + 1)) == NULL)
		return (-ENOMEM);
	memcpy(lose, e->x.failed, n2 + 1);
	snprintf(buf, sizeof(buf), "%s", spec);
	for (item = strtok_r(buf, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		if ((val = strchr(item, '=')) != NULL)
			*val++ = '\0';
		/* none: every fault off, failed ports too (an operator
		 * who says none means a healthy switch). */
		if (strcmp(item, "none") == 0 && val == NULL) {
			memset(&f, 0, sizeof(f));
			memset(lose, 0, n2 + 1);
		} else if (strcmp(item, "login") == 0 && val == NULL)
			f.refuse_login = 1;
		else if (strcmp(item, "deny-half") == 0 && val == NULL)
			f.deny_half = 1;
		else if (strcmp(item, "garbage") == 0 && val == NULL)
			f.garbage = 1;
		else if (strcmp(item, "drop") == 0) {
			if (val == NULL || number(val, 1, 1000000, &v) != 0) {
				rv = bad(err, errlen, item,
				         "expected drop=K, K >= 1 commands");
				break;
			}
			f.drop_after = v;
		} else if (strcmp(item, "delay") == 0) {
			if (val == NULL || unit_parse_time(val, &t) != 0 ||
			    t > 600) {
				rv = bad(err, errlen, item,
				         "expected delay=TIME up to 600s");
				break;
			}
			f.delay_ms = (uint32_t)(t * 1e3 + 0.5);
		} else if (strcmp(item, "slow") == 0) {
			if (val == NULL)
				v = 10;
			else if (number(val, 1, 1000, &v) != 0) {
				rv = bad(err, errlen, item,
				         "expected slow or slow=F, F 1..1000");
				break;
			}
			f.slow = v;
		} else if (strcmp(item, "lose") == 0 ||
		           strcmp(item, "restore") == 0) {
			if (val == NULL || number(val, 1, n2, &v) != 0) {
				rv = bad(
				    err, errlen, item,
				    "expected a port 1..2N of this switch");
				break;
			}
			lose[v] = item[0] == 'l';
		} else {
			rv = bad(err, errlen, item,
			         "expected none, login, drop=K, delay=TIME, "
			         "deny-half, garbage, slow[=F], lose=P or "
			         "restore=P");
			break;
		}
	}
	if (rv == 0) {
		e->fault = f;
		memcpy(e->x.failed, lose, n2 + 1);
		e->x.switch_ns =
		    e->c.switch_ns * (f.slow > 1 ? (uint64_t)f.slow : 1);
	}
	free(lose);
	return (rv);
}

void
emu_fault_fmt(const struct emu *e, char *buf, size_t len)
{
	const struct emu_fault *f = &e->fault;
	size_t                  k = 0;
	uint32_t                p;

#define ADD(...)                                                              \
	do {                                                                  \
		if (k < len)                                                  \
			k += (size_t)snprintf(buf + k, len - k, "%s",         \
			                      k ? "," : "");                  \
		if (k < len)                                                  \
			k += (size_t)snprintf(buf + k, len - k, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	if (f->refuse_login)
		ADD("login");
	if (f->drop_after)
		ADD("drop=%u", f->drop_after);
	if (f->delay_ms)
		ADD("delay=%ums", f->delay_ms);
	if (f->deny_half)
		ADD("deny-half");
	if (f->garbage)
		ADD("garbage");
	if (f->slow > 1)
		ADD("slow=%u", f->slow);
	for (p = 1; p <= 2 * e->x.n; p++)
		if (e->x.failed[p])
			ADD("lose=%u", p);
#undef ADD
	if (k == 0)
		snprintf(buf, len, "none");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what ocsd does with bytes from an operator socket
 * before it acts: decode (size, version, body), the request checks, and
 * the translation of every endpoint and of a whole map through a cabling
 * configuration, as the switch worker would.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/conf.h"
#include "ocsd/ctl_check.h"
#include "ocsd/map.h"
#include "ocsd/xc.h"
#include "proto/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static const char conf_text[] =
    "[switch]\ndriver = emu\nports = 16\n[cabling]\n"
    "h0.0 = 1 17\nh0.1 = 2 18\nh1.0 = 3 19\nh1.1 = 4 20\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct conf    *c;
	const Ocs__CtlRequest *q;
	Ocs__Msg              *m;
	struct map             desired, live, target;
	struct drv_patch       p[2];
	struct xc_ep           ep;
	uint16_t               ins[4];
	char                   err[512], **a, **b;
	size_t                 i, np, nin;
	int                    rv;

	if (c == NULL &&
	    conf_parse(conf_text, "fuzz", &c, err, sizeof(err)) != 0)
		abort();
	err[0] = '\0';
	if (msg_decode(data, len, &m, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return (0);
	}
	if (ctl_check(m, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		msg_free(m);
		return (0);
	}
	if (m->body_case == OCS__MSG__BODY_HELLO) {
		if (m->hello->host == NULL)
			abort();
		msg_free(m);
		return (0);
	}
	q = m->ctl;
	if (map_init(&desired, 16) != 0 || map_init(&live, 16) != 0)
		abort();
	for (i = 0; i < q->n_ports; i++) {
		err[0] = '\0';
		if (xc_resolve(c, 0, 16, q->ports[i], &ep, err, sizeof(err)) !=
		        0 &&
		    err[0] == '\0')
			abort();
		rv = xc_disconnect(c, 0, &desired, &live, q->ports[i], ins,
		                   &nin, err, sizeof(err));
		if (rv == 0 && nin > 4)
			abort();
	}
	if (q->n_pairs == 1) {
		rv = xc_connect(c, 0, &desired, &live, q->pairs[0]->a,
		                q->pairs[0]->b, p, &np, err, sizeof(err));
		if (rv == 0 && (np < 1 || np > 2))
			abort();
	}
	if (q->n_pairs > 0 && q->n_pairs <= 64) {
		a = calloc(q->n_pairs, sizeof(*a));
		b = calloc(q->n_pairs, sizeof(*b));
		if (a == NULL || b == NULL)
			abort();
		for (i = 0; i < q->n_pairs; i++) {
			a[i] = q->pairs[i]->a;
			b[i] = q->pairs[i]->b;
		}
		err[0] = '\0';
		rv = xc_build(c, 0, 16, a, b, q->n_pairs, &target, err,
		              sizeof(err));
		if (rv == 0)
			map_free(&target);
		else if (rv != -ENOMEM && err[0] == '\0')
			abort();
		free(a);
		free(b);
	}
	map_free(&desired);
	map_free(&live);
	msg_free(m);
	return (0);
}

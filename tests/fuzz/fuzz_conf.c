/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: ocsd's configuration parser on arbitrary text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf *c;
	char        *text = malloc(len + 1), err[512];
	size_t       i;

	if (text == NULL)
		return (0);
	memcpy(text, data, len);
	text[len] = '\0';
	if (conf_parse(text, "fuzz.conf", &c, err, sizeof(err)) == 0) {
		/* What is accepted is consistent: each transceiver on a
		 * switch there is, found by its name and (numbered) by its
		 * switch's ports. */
		for (i = 0; i < c->ntrx; i++) {
			const struct conf_trx *t = &c->trx[i];

			if (t->sw >= c->nsw || c->nsw == 0 ||
			    conf_trx_find(c, t->name) != t)
				abort();
			if (t->in_name[0] == '\0' &&
			    (t->in >= t->out ||
			     conf_trx_by_in(c, t->sw, t->in) != t))
				abort();
		}
		/* Servers: of one size, 2 to 8 hosts, each cabled. */
		if (c->nsrv > 0 &&
		    (c->srv_size < 2 || c->srv_size > CONF_SERVER_HOSTS))
			abort();
		for (i = 0; i < (size_t)c->nsrv * c->srv_size; i++)
			if (c->srv[i / c->srv_size].host[i % c->srv_size][0] ==
			    '\0')
				abort();
		conf_free(c);
	} else if (err[0] == '\0')
		abort();
	free(text);
	return (0);
}

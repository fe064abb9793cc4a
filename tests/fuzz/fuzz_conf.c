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
		/* What is accepted is consistent. */
		for (i = 0; i < c->ntrx; i++)
			if (c->trx[i].in >= c->trx[i].out ||
			    conf_trx_find(c, c->trx[i].name) != &c->trx[i])
				abort();
		conf_free(c);
	} else if (err[0] == '\0')
		abort();
	free(text);
	return (0);
}

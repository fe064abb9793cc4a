/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: topology files and generator specs (ocs-plan
 * --topology), TE-CCL inputs (their Mesh built) and TACCL profiles, with
 * a sketch after a tab.  The first byte picks one; what is accepted must
 * be a consistent topology, and a small one is synthesised and
 * validated.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/topo_taccl.h"
#include "collectives/topo_teccl.h"
#include "collectives/tsyn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void
check(const struct topo *t)
{
	uint32_t i, u, outs = 0;

	if (t->ngpu < 2 || t->ngpu > t->n || t->nlink == 0)
		abort();
	for (i = 0; i < t->nlink; i++)
		if (t->link[i].src >= t->n || t->link[i].dst >= t->n ||
		    t->link[i].src == t->link[i].dst || !(t->link[i].bw > 0))
			abort();
	for (u = 0; u < t->n; u++)
		outs += t->out_off[u + 1] - t->out_off[u];
	if (outs != t->nlink || t->out_off[t->n] != t->nlink)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct topo t;
	char       *text, err[400];
	int         rv;

	if (len < 1)
		return (0);
	if ((text = malloc(len)) == NULL)
		return (0);
	memcpy(text, data + 1, len - 1);
	text[len - 1] = '\0';
	err[0] = '\0';
	if (data[0] % 4 == 1)
		rv = topo_generate(text, &t, err, sizeof(err));
	else if (data[0] % 4 == 2) {
		struct topo_teccl x;

		rv = topo_teccl_parse(text, len - 1, &x, err, sizeof(err));
		if (rv == 0 && x.builtin[0] != '\0')
			rv = -ENOENT; /* a shipped file: not read here */
		else if (rv == 0)
			rv = topo_teccl_mesh(&x, &t, err, sizeof(err));
	} else if (data[0] % 4 == 3) {
		char *sk = strchr(text, '\t'), note[400];

		if (sk != NULL)
			*sk++ = '\0';
		rv = topo_taccl_parse(text, strlen(text), sk,
		                      sk ? strlen(sk) : 0, &t, note,
		                      sizeof(note), err, sizeof(err));
	} else
		rv = topo_parse(text, len - 1, &t, err, sizeof(err));
	if (rv == 0) {
		check(&t);
		/* Small ones go through synthesis and validation: ten,
		 * or mteg (its refine re-lays trees) by bit 2 of the
		 * first byte. */
		if (t.n <= 12 && t.nlink <= 48) {
			struct tsyn_params q = {.algo = data[0] & 4 ? TSYN_MTEG
			                                            : TSYN_TEN,
			                        .coll = SCHED_ALLREDUCE,
			                        .bytes = 1 << 20,
			                        .chunks = 1};
			struct sched       s;
			uint32_t           slots;

			if (tsyn_synth(&t, &q, &s, err, sizeof(err)) == 0) {
				if (tsyn_validate(&s, &slots, err,
				                  sizeof(err)) != 0)
					abort();
				sched_free(&s);
			}
		}
		topo_free(&t);
	} else if (rv != -ENOENT && err[0] == '\0')
		abort();
	free(text);
	return (0);
}

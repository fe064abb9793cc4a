/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: ocs-plan's option parser and its phase checks on an
 * argument vector cut from the input at NUL bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/plan_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct plan_opts o;
	char            *buf, *argv[34], err[512];
	int              argc = 1;
	size_t           i, start = 0;

	if ((buf = malloc(len + 1)) == NULL)
		return (0);
	memcpy(buf, data, len);
	buf[len] = '\0';
	argv[0] = "ocs-plan";
	for (i = 0; i <= len && argc < 33; i++)
		if (buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	argv[argc] = NULL;
	/* --model, --matrix and --topology read files: not devices that
	 * never end. */
	for (i = 1; i < (size_t)argc; i++)
		if (strstr(argv[i], "/dev") || strstr(argv[i], "/proc")) {
			free(buf);
			return (0);
		}
	if (plan_parse(argc, argv, &o, err, sizeof(err)) == 0 && !o.help) {
		uint32_t nph;

		/* --matrix and --topology take the nodes from their file. */
		if (o.algo == NULL ||
		    (o.matrix == NULL && o.topology == NULL && o.nodes < 2))
			abort();
		for (nph = 1; nph < 20; nph++)
			(void)plan_check(&o, nph, err, sizeof(err));
	} else if (err[0] == '\0' && !o.help)
		abort(); /* every failure explains itself */
	free(buf);
	return (0);
}

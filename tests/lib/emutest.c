/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The emulator's model for conformance tests (emutest.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/emutest.h"

struct emu *
emutest_new(uint32_t ports, uint64_t switch_ns, const char *user,
            const char *password)
{
	struct emu *e = calloc(1, sizeof(*e));

	if (e == NULL)
		abort();
	snprintf(e->c.user, sizeof(e->c.user), "%s", user);
	snprintf(e->c.password, sizeof(e->c.password), "%s", password);
	snprintf(e->sid, sizeof(e->sid), "OCS-EMU");
	e->c.ports = ports;
	e->c.switch_ns = switch_ns;
	pthread_mutex_init(&e->mtx, NULL);
	if (emu_model_init(e) != 0)
		abort();
	return (e);
}

void
emutest_del(struct emu *e)
{
	emu_model_free(e);
	pthread_mutex_destroy(&e->mtx);
	free(e);
}

void
emutest_zero_time(char *s)
{
	char *p = s;

	while ((p = strstr(p, "\r\n\n   ")) != NULL) {
		char *eol = strstr(p + 6, "\r\n");

		if (eol && eol - p >= 23)
			memcpy(eol - 17, "00-00-00 00:00:00", 17);
		p += 6;
	}
}

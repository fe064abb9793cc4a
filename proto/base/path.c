/* SPDX-License-Identifier: BSD-2-Clause */
/* mkdir -p (see path.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/base/path.h"

int
path_mkdirs(const char *dir, mode_t mode)
{
	char   buf[PATH_MAX];
	size_t i, n;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf))
		return (-ENAMETOOLONG);
	n = strlen(buf);
	/* Each prefix that ends at a '/' (or the end) is one level. */
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST)
			return (-errno);
		buf[i] = i < n ? '/' : '\0';
	}
	return (0);
}

void
path_default_control(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0)
		snprintf(buf, len, "ipc:///run/ocsd/ctl.sock");
	else if (xdg && xdg[0] == '/')
		snprintf(buf, len, "ipc://%s/ocsd/ctl.sock", xdg);
	else
		snprintf(buf, len, "ipc:///tmp/ocsd-%u/ctl.sock",
		         (unsigned)geteuid());
}

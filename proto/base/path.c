/* SPDX-License-Identifier: BSD-2-Clause */
/* mkdir -p, whole-file reads (see path.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
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

static void
too_big(const char *path, size_t max, char *err, size_t el)
{
	if (max >= (1u << 20))
		snprintf(err, el, "%.300s: larger than %zu MiB", path,
		         max >> 20);
	else
		snprintf(err, el, "%.300s: larger than %zu KiB", path,
		         max >> 10);
}

int
path_read(const char *path, size_t max, char **buf, size_t *len, char *err,
          size_t el)
{
	FILE       *f = fopen(path, "rbe");
	char       *b = NULL;
	size_t      n = 0, cap = 0, r;
	int         e;
	struct stat st;

	if (f == NULL) {
		e = errno;
		snprintf(err, el, "%.300s: %s", path, strerror(e));
		return (-e);
	}
	/* A file, or a pipe (a shell's <(...)): not a directory, which
	 * reads as nothing, nor a device, which may never end. */
	if (fstat(fileno(f), &st) != 0 ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		snprintf(err, el, "%.300s: %s", path,
		         e == EISDIR ? strerror(e)
		                     : "not a regular file or a pipe");
		fclose(f);
		return (-e);
	}
	errno = 0;
	do {
		if (n + 1 >= cap) {
			char *nb;

			cap = cap ? 2 * cap : 65536;
			if (n > max || (nb = realloc(b, cap)) == NULL) {
				too_big(path, max, err, el);
				free(b);
				fclose(f);
				return (-EFBIG);
			}
			b = nb;
		}
		r = fread(b + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		e = errno ? errno : EIO;
		snprintf(err, el, "%.300s: %s", path, strerror(e));
		free(b);
		fclose(f);
		return (-e);
	}
	if (n > max) {
		too_big(path, max, err, el);
		free(b);
		fclose(f);
		return (-EFBIG);
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return (0);
}

int
path_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	char           tmp[PATH_MAX + 8], dir[PATH_MAX];
	const uint8_t *p = buf;
	ssize_t        w;
	int            fd, rv = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp) ||
	    snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return (-ENAMETOOLONG);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)) <
	    0)
		return (-errno);
	while (len > 0 && rv == 0) {
		if ((w = write(fd, p, len)) > 0) {
			p += w;
			len -= (size_t)w;
		} else if (w < 0 && errno != EINTR)
			rv = -errno;
	}
	if (rv == 0 && fsync(fd) != 0)
		rv = -errno;
	if (close(fd) != 0 && rv == 0)
		rv = -errno;
	if (rv == 0 && rename(tmp, path) != 0)
		rv = -errno;
	if (rv != 0) {
		unlink(tmp);
		return (rv);
	}
	/* The rename is durable only once the directory entry is: without
	 * this a crash could bring back the old file after a change. */
	if ((fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >=
	    0) {
		if (fsync(fd) != 0)
			rv = -errno;
		close(fd);
	}
	return (rv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Filesystem paths: mkdir -p, and where ocsd's control socket lives. */
#ifndef OCS_PATH_H
#define OCS_PATH_H

#include <stddef.h>
#include <sys/types.h>

/* Create dir and its missing parents with mode (existing ones are left
 * as they are).  0, -ENAMETOOLONG or -errno of the mkdir that failed. */
int path_mkdirs(const char *dir, mode_t mode);

/* ocsd's control socket when neither its configuration nor the operator
 * names one: ipc:///run/ocsd/ctl.sock for root, else under
 * $XDG_RUNTIME_DIR/ocsd/, else /tmp/ocsd-UID/. */
void path_default_control(char *buf, size_t len);

/*
 * Replace path with len bytes of buf, whole or not at all: written to
 * path.tmp (mode), flushed to the disk, renamed over path, and the
 * directory's entry flushed too, so that a crash leaves the old file or
 * the new one, never part of either.  0 or -errno (path unchanged).
 */
int path_write_atomic(const char *path, const void *buf, size_t len,
                      mode_t mode);

/* The whole of a file, at most max bytes, into a malloc'd *buf (NUL
 * terminated, *len without it).  0, or -errno / -EFBIG with one line in
 * err naming the path. */
int path_read(const char *path, size_t max, char **buf, size_t *len, char *err,
              size_t errlen);

#endif

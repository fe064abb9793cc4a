/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scripted TL1 device (tl1dev.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/lib/tl1dev.h"

static const struct tl1dev_reply *
reply_of(const struct tl1dev *d, const char *verb)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		if (strcmp(d->r[i].verb, verb) == 0)
			return (&d->r[i]);
	return (NULL);
}

static void
answer(struct tl1dev *d, int fd, const char *cmd)
{
	const struct tl1dev_reply *r;
	char                       out[16384], verb[32], ctag[16] = "0";
	const char                *c = cmd;
	size_t                     k, i, n;
	int                        f;

	snprintf(verb, sizeof(verb), "%.*s", (int)strcspn(cmd, ":;"), cmd);
	for (f = 0; f < 3 && (c = strchr(c, ':')) != NULL; f++)
		c++;
	if (c != NULL && (n = strcspn(c, ":;")) > 0 && n < sizeof(ctag))
		snprintf(ctag, sizeof(ctag), "%.*s", (int)n, c);
	k = (size_t)snprintf(
	    out, sizeof(out),
	    "\r\n\n   %s 16-11-07 11:10:16\r\nM  %s COMPLD\r\n", d->sid, ctag);
	r = reply_of(d, verb);
	for (i = 0; r != NULL && i < r->nlines && k < sizeof(out); i++)
		k += (size_t)snprintf(out + k, sizeof(out) - k,
		                      "   \"%s\"\r\n", r->lines[i]);
	if (k < sizeof(out))
		k += (size_t)snprintf(out + k, sizeof(out) - k, ";%s%s",
		                      d->prompt ? "\r\n" : "",
		                      d->prompt ? d->prompt : "");
	if (k > sizeof(out) - 1)
		k = sizeof(out) - 1;
	if (write(fd, out, k) != (ssize_t)k)
		return;
}

static void
record(struct tl1dev *d, const char *cmd)
{
	size_t at = strlen(d->sent);

	snprintf(d->sent + at, sizeof(d->sent) - at, "%s\n", cmd);
}

static void *
serve(void *arg)
{
	struct tl1dev *d = arg;
	char           buf[4096], *semi, *cmd[16];
	size_t         n = 0;
	ssize_t        r;
	int            fd, nc, i;

	while ((fd = accept(d->lfd, NULL, NULL)) >= 0) {
		if (d->prompt && write(fd, d->prompt, strlen(d->prompt)) < 0)
			break;
		while ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0) {
			n += (size_t)r;
			buf[n] = '\0';
			/* Every complete command of this read, answered in
			 * order or (reverse) last first. */
			for (nc = 0, cmd[0] = buf;
			     nc < 16 && (semi = strchr(cmd[nc], ';')) != NULL;
			     cmd[++nc] = semi + 1) {
				*semi = '\0';
				cmd[nc] += strspn(cmd[nc], "\r\n ");
				record(d, cmd[nc]);
			}
			if (nc > d->most_in_one_read)
				d->most_in_one_read = nc;
			for (i = 0; i < nc; i++)
				answer(d, fd,
				       cmd[d->reverse ? nc - 1 - i : i]);
			if (nc > 0) {
				n -= (size_t)(cmd[nc] - buf);
				memmove(buf, cmd[nc], n + 1);
			}
		}
		close(fd);
		n = 0;
	}
	return (NULL);
}

int
tl1dev_start(struct tl1dev *d)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t          al = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d->sent[0] = '\0';
	if ((d->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(d->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(d->lfd, 4) != 0 ||
	    getsockname(d->lfd, (struct sockaddr *)&a, &al) != 0)
		return (-1);
	d->port = ntohs(a.sin_port);
	return (pthread_create(&d->th, NULL, serve, d) == 0 ? 0 : -1);
}

void
tl1dev_stop(struct tl1dev *d)
{
	shutdown(d->lfd, SHUT_RDWR);
	close(d->lfd);
	pthread_join(d->th, NULL);
}

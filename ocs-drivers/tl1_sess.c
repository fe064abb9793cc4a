/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A TL1 client session (tl1_sess.h), the transport of the TL1 drivers.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ocs-drivers/tl1_sess.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

#define TL1S_BACKOFF_MIN 50
#define TL1S_BACKOFF_MAX 2000
#define TL1S_LOGOUT_MS   500

void
tl1s_seterr(struct tl1s *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

int
tl1s_init(struct tl1s *s, const char *url, const char *defport,
          const struct drv_opts *o, const char *prompt)
{
	s->fd = -1;
	if (strncmp(url, "tl1://", 6) == 0)
		url += 6;
	if (net_hostport(url, defport, s->host, sizeof(s->host), s->port,
	                 sizeof(s->port)) != 0)
		return (-EINVAL);
	if (o->user == NULL || o->password == NULL ||
	    strlen(o->user) >= sizeof(s->user) ||
	    strlen(o->password) >= sizeof(s->pass) ||
	    strpbrk(o->user, ":;,\r\n") || strpbrk(o->password, ":;\r\n"))
		return (-EINVAL);
	snprintf(s->user, sizeof(s->user), "%s", o->user);
	snprintf(s->pass, sizeof(s->pass), "%s", o->password);
	s->xp = o->ssh ? &tl1s_ssh : &tl1s_tcp;
	if (o->ssh && (o->known_hosts == NULL || o->known_hosts[0] == '\0' ||
	               strlen(o->known_hosts) >= sizeof(s->known_hosts)))
		return (-EINVAL);
	if (o->ssh)
		snprintf(s->known_hosts, sizeof(s->known_hosts), "%s",
		         o->known_hosts);
	s->timeout_ms = o->timeout_ms;
	s->cancel_fd = o->cancel_fd;
	s->trace = o->trace;
	s->trace_arg = o->trace_arg;
	s->prompt = prompt;
	return (0);
}

void
tl1s_drop(struct tl1s *s)
{
	if (s->xp != NULL)
		s->xp->drop(s);
	s->fd = -1;
	tl1_buf_free(&s->in);
}

/* ---- TCP ----------------------------------------------------------------- */

static int
tcp_connect(struct tl1s *s, uint64_t deadline)
{
	uint64_t now = mono_ms();
	int      fd;

	if (now >= deadline)
		return (-ETIMEDOUT);
	fd =
	    net_connect(s->host, s->port, (int)(deadline - now), s->cancel_fd);
	if (fd < 0) {
		tl1s_seterr(s, "connecting to %s:%s: %s", s->host, s->port,
		            strerror(-fd));
		return (fd);
	}
	s->fd = fd;
	return (0);
}

static int
tcp_write_all(struct tl1s *s, const void *b, size_t n, uint64_t deadline)
{
	return (net_write_all(s->fd, b, n, deadline, s->cancel_fd));
}

static ssize_t
tcp_read_some(struct tl1s *s, void *b, size_t n, uint64_t deadline)
{
	return (net_read_some(s->fd, b, n, deadline, s->cancel_fd));
}

/*
 * Has the switch hung up since the last command?  A switch closes idle
 * sessions; finding out only after sending a batch would leave its
 * outcome unknown, so the close is looked for first.
 */
static int
tcp_hung_up(struct tl1s *s)
{
	struct pollfd pfd = {.fd = s->fd, .events = POLLIN | POLLRDHUP};
	char          c;

	if (poll(&pfd, 1, 0) <= 0)
		return (0);
	if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR))
		return (1);
	/* Readable: an autonomous message, or the end of the stream. */
	return (recv(s->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0);
}

static void
tcp_drop(struct tl1s *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

const struct tl1s_xport tl1s_tcp = {
    .name = "tcp",
    .connect = tcp_connect,
    .write_all = tcp_write_all,
    .read_some = tcp_read_some,
    .hung_up = tcp_hung_up,
    .drop = tcp_drop,
};

/* The device's prompt between replies ("agent>") is not TL1: skipped,
 * with the blanks before it. */
static void
skip_prompt(struct tl1s *s)
{
	size_t k = 0, j, pl = s->prompt ? strlen(s->prompt) : 0;

	if (pl == 0)
		return;
	for (;;) {
		for (j = k; j < s->in.len &&
		            (s->in.p[j] == ' ' || s->in.p[j] == '\t' ||
		             s->in.p[j] == '\r' || s->in.p[j] == '\n');
		     j++)
			;
		if (s->in.len - j < pl || memcmp(s->in.p + j, s->prompt, pl))
			break;
		/* "agent> ": the blanks after it are the prompt's too. */
		for (k = j + pl; k < s->in.len && s->in.p[k] == ' '; k++)
			;
	}
	/* Up to the prompt's end: the line ends after it may begin a
	 * reply's header. */
	if (k > 0)
		tl1_buf_consume(&s->in, k);
}

/* Our reply, or one more '>' block of it, into r. */
static int
take(struct tl1_resp *r, struct tl1_resp *m)
{
	size_t i;

	if (r->kind == 0) {
		*r = *m;
		m->lines = NULL;
		m->nlines = 0;
		return (0);
	}
	for (i = 0; i < m->nlines; i++) {
		char **nl = realloc(r->lines, (r->nlines + 1) * sizeof(*nl));

		if (nl == NULL)
			return (-ENOMEM);
		r->lines = nl;
		r->lines[r->nlines++] = m->lines[i];
		m->lines[i] = NULL;
	}
	r->more = m->more;
	return (0);
}

/* Messages already read: 1 when every one of our n replies is complete
 * (a reply is matched by its tag, in whatever order they come), 0 for
 * more bytes, or an error. */
static int
parse_in(struct tl1s *s, char (*tag)[16], struct tl1_resp *r, size_t n,
         size_t *done)
{
	struct tl1_resp m;
	ssize_t         len;
	size_t          i;
	int             rv;

	for (;;) {
		skip_prompt(s);
		if ((len = tl1_resp_parse(s->in.p, s->in.len, &m)) <= 0)
			break;
		tl1_buf_consume(&s->in, (size_t)len);
		if (m.kind == TL1_AUTO) {
			s->nauto++;
			if (s->trace)
				s->trace(s->trace_arg,
				         "tl1 < autonomous %s %s %s", m.alarm,
				         m.tag, m.verb);
		}
		for (i = 0; m.kind == TL1_RESP && i < n; i++)
			if (strcmp(m.tag, tag[i]) == 0 &&
			    (r[i].kind == 0 || r[i].more))
				break;
		if (m.kind != TL1_RESP || i == n) {
			tl1_resp_free(&m);
			continue;
		}
		rv = take(&r[i], &m);
		tl1_resp_free(&m);
		if (rv != 0)
			return (rv);
		if (!r[i].more && ++*done == n)
			return (1);
	}
	if (len < 0) {
		tl1s_seterr(s, "%s:%s answered %s: not TL1", s->host, s->port,
		            len == -EMSGSIZE ? "an oversized message"
		                             : "garbage");
		return (-DRV_EPROTO);
	}
	return (0);
}

int
tl1s_commands(struct tl1s *s, const struct tl1s_cmd *c, size_t n,
              struct tl1_resp *r, uint64_t deadline)
{
	struct tl1_buf out = {0};
	char           tag[TL1S_MAX_CMDS][16], chunk[8192];
	size_t         i, done = 0;
	ssize_t        got;
	int            rv = 0;

	for (i = 0; i < n; i++)
		memset(&r[i], 0, sizeof(r[i]));
	if (n == 0 || n > TL1S_MAX_CMDS)
		return (-EINVAL);
	if (s->fd < 0)
		return (-ENOTCONN);
	for (i = 0; i < n && rv == 0; i++) {
		s->ctag = s->ctag % 999999 + 1;
		snprintf(tag[i], sizeof(tag[i]), "%u", s->ctag);
		rv = tl1_cmd_fmt(&out, c[i].verb, "", c[i].aid, s->ctag,
		                 c[i].rest);
	}
	if (rv != 0) {
		tl1_buf_free(&out);
		return (-ENOMEM);
	}
	if (s->trace)
		s->trace(s->trace_arg, "tl1 > %.200s", out.p);
	/* One write: TL1's tags let a session have several commands
	 * outstanding, and the device answers each in turn. */
	rv = s->xp->write_all(s, out.p, out.len, deadline);
	tl1_buf_free(&out);
	if (rv != 0) {
		tl1s_seterr(s, "sending %s to %s:%s: %s", c[0].verb, s->host,
		            s->port, strerror(-rv));
		tl1s_drop(s);
		return (rv);
	}
	while ((rv = parse_in(s, tag, r, n, &done)) == 0) {
		got = s->xp->read_some(s, chunk, sizeof(chunk), deadline);
		if (got <= 0) {
			rv = got == 0 ? -ECONNRESET : (int)got;
			/* Name the first command still unanswered. */
			for (i = 0; i + 1 < n && r[i].kind && !r[i].more; i++)
				;
			tl1s_seterr(s, "waiting for %s reply from %s:%s: %s",
			            c[i].verb, s->host, s->port,
			            got == 0
			                ? "connection closed by the switch"
			                : strerror(-rv));
			break;
		}
		if ((rv = tl1_buf_put(&s->in, chunk, (size_t)got)) != 0)
			break;
	}
	if (rv == 1)
		return (0);
	for (i = 0; i < n; i++)
		tl1_resp_free(&r[i]);
	tl1s_drop(s);
	return (rv);
}

int
tl1s_command(struct tl1s *s, const char *verb, const char *aid,
             const char *rest, struct tl1_resp *r, uint64_t deadline)
{
	struct tl1s_cmd c = {verb, aid, rest};

	return (tl1s_commands(s, &c, 1, r, deadline));
}

int
tl1s_ok(struct tl1s *s, const char *verb, const char *aid, const char *rest,
        struct tl1_resp *r, uint64_t deadline)
{
	char txt[300];
	int  rv;

	if ((rv = tl1s_command(s, verb, aid, rest, r, deadline)) != 0)
		return (rv);
	if (r->status == TL1_COMPLD)
		return (0);
	tl1_resp_errtext(r, txt, sizeof(txt));
	tl1s_seterr(s, "%s: %s", verb, txt);
	tl1_resp_free(r);
	return (-DRV_EDENIED);
}

void
tl1s_logout(struct tl1s *s)
{
	struct tl1_resp r;

	if (s->fd >= 0 && tl1s_command(s, "CANC-USER", s->user, ":", &r,
	                               mono_ms() + TL1S_LOGOUT_MS) == 0)
		tl1_resp_free(&r);
	tl1s_drop(s);
}

/* Connect and log in. */
static int
login(struct tl1s *s, uint64_t deadline)
{
	struct tl1_resp r;
	char            rest[200], txt[300];
	int             rv;

	if ((rv = s->xp->connect(s, deadline)) != 0) {
		s->xp->drop(s);
		return (rv);
	}
	/* Over SSH the switch's user is logged in already. */
	if (s->xp->logs_in)
		return (0);
	snprintf(rest, sizeof(rest), "::%s", s->pass);
	if ((rv = tl1s_command(s, "ACT-USER", s->user, rest, &r, deadline)) !=
	    0)
		return (rv);
	if (r.status != TL1_COMPLD) {
		tl1_resp_errtext(&r, txt, sizeof(txt));
		tl1s_seterr(s, "login as %s on %s:%s refused: %s", s->user,
		            s->host, s->port, txt);
		tl1_resp_free(&r);
		tl1s_drop(s);
		return (-DRV_EAUTH);
	}
	tl1_resp_free(&r);
	return (0);
}

int
tl1s_ensure(struct tl1s *s, uint64_t                          deadline,
            int (*learn)(void *arg, uint64_t deadline), void *arg)
{
	uint32_t backoff = TL1S_BACKOFF_MIN;
	int      rv;

	if (s->fd >= 0 && s->xp->hung_up(s)) {
		if (s->trace)
			s->trace(s->trace_arg,
			         "tl1: %s:%s closed the session; logging in "
			         "again",
			         s->host, s->port);
		tl1s_drop(s);
	}
	if (s->fd >= 0)
		return (0);
	for (;;) {
		if ((rv = login(s, deadline)) == 0 && learn != NULL &&
		    (rv = learn(arg, deadline)) != 0)
			tl1s_drop(s);
		/* Wrong credentials do not get better by retrying. */
		if (rv == 0 || rv == -DRV_EAUTH || rv == -ENOMEM)
			return (rv);
		if (mono_ms() + backoff >= deadline || rv == -ECANCELED)
			return (rv);
		if (net_sleep(backoff, s->cancel_fd) != 0)
			return (-ECANCELED);
		backoff = backoff * 2 > TL1S_BACKOFF_MAX ? TL1S_BACKOFF_MAX
		                                         : backoff * 2;
	}
}

int
tl1s_capture(struct tl1s *s, uint32_t run, struct drv_capture *c,
             uint64_t deadline)
{
	struct tl1_resp r;
	char            aid[16];
	int             rv;

	snprintf(aid, sizeof(aid), "%08x", run);
	if ((rv = tl1s_ok(s, "RTRV-EMU-CAPTURE", aid, "", &r, deadline)) != 0)
		return (rv);
	if (r.nlines != 1 ||
	    tl1_capture_parse(r.lines[0], c, s->err, sizeof(s->err)) != 0) {
		if (r.nlines != 1)
			snprintf(s->err, sizeof(s->err),
			         "RTRV-EMU-CAPTURE: %zu lines, expected one",
			         r.nlines);
		rv = -DRV_EPROTO;
	}
	tl1_resp_free(&r);
	return (rv);
}

int
tl1s_inject(struct tl1s *s, const char *spec, char *now, size_t len,
            uint64_t deadline)
{
	struct tl1_resp r;
	char            rest[256];
	int             rv;

	snprintf(rest, sizeof(rest), "::%s", spec);
	if ((rv = tl1s_ok(s, "SET-EMU-FAULT", "", rest, &r, deadline)) != 0)
		return (rv);
	snprintf(now, len, "%s",
	         r.nlines && strncmp(r.lines[0], "FAULTS=", 7) == 0
	             ? r.lines[0] + 7
	             : spec);
	tl1_resp_free(&r);
	return (0);
}

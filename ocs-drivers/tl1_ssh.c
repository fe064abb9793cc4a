/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TL1 over SSH, the client side (tl1_sess.h's tl1s_ssh): libssh connects,
 * checks the switch's host key against the configured known_hosts file
 * (a host not in it is added, as OpenSSH's accept-new does; a key that
 * changed is refused, naming the new key's fingerprint and the file),
 * logs in with the switch user's password and opens a shell channel
 * whose bytes are TL1, as on the raw port.
 */
#include <errno.h>
#include <libssh/libssh.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/sshkh.h"
#include "ocs-drivers/tl1_sess.h"
#include "proto/base/mono.h"

struct ssh_x {
	ssh_session ss;
	ssh_channel ch;
};

/* The host key: known, or new (then remembered); -DRV_EAUTH when it
 * changed. */
static int
check_host(struct tl1s *s, ssh_session ss)
{
	char who[300], fp[128];
	int  rv;

	snprintf(who, sizeof(who), "%s:%s", s->host, s->port);
	rv = sshkh_check(ss, who, s->known_hosts, fp, sizeof(fp), s->err,
	                 sizeof(s->err));
	if (rv == 0 && fp[0] && s->trace)
		s->trace(s->trace_arg, "tl1: %s: host key %s added to %s", who,
		         fp, s->known_hosts);
	return (rv);
}

static int
x_open(struct tl1s *s, struct ssh_x *x, uint64_t deadline)
{
	long secs = (long)((deadline - mono_ms() + 999) / 1000);
	int  port = atoi(s->port), no = 0, rv;

	if (ssh_options_set(x->ss, SSH_OPTIONS_HOST, s->host) != 0 ||
	    ssh_options_set(x->ss, SSH_OPTIONS_PORT, &port) != 0 ||
	    ssh_options_set(x->ss, SSH_OPTIONS_USER, s->user) != 0 ||
	    ssh_options_set(x->ss, SSH_OPTIONS_TIMEOUT, &secs) != 0 ||
	    ssh_options_set(x->ss, SSH_OPTIONS_PROCESS_CONFIG, &no) != 0 ||
	    ssh_options_set(x->ss, SSH_OPTIONS_KNOWNHOSTS, s->known_hosts) !=
	        0 ||
	    ssh_options_set(x->ss, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
	                    "/dev/null") != 0)
		return (-ENOMEM);
	if (ssh_connect(x->ss) != SSH_OK) {
		tl1s_seterr(s, "connecting to %s:%s over ssh: %s", s->host,
		            s->port, ssh_get_error(x->ss));
		return (-ECONNREFUSED);
	}
	if ((rv = check_host(s, x->ss)) != 0)
		return (rv);
	if (ssh_userauth_password(x->ss, NULL, s->pass) != SSH_AUTH_SUCCESS) {
		tl1s_seterr(s, "login as %s on %s:%s over ssh refused: %s",
		            s->user, s->host, s->port, ssh_get_error(x->ss));
		return (-DRV_EAUTH);
	}
	if ((x->ch = ssh_channel_new(x->ss)) == NULL ||
	    ssh_channel_open_session(x->ch) != SSH_OK ||
	    ssh_channel_request_shell(x->ch) != SSH_OK) {
		tl1s_seterr(s, "%s:%s: no shell channel over ssh: %s", s->host,
		            s->port, ssh_get_error(x->ss));
		return (-DRV_EPROTO);
	}
	return (0);
}

static int
ssh_x_connect(struct tl1s *s, uint64_t deadline)
{
	struct ssh_x *x;
	int           rv;

	if (mono_ms() >= deadline)
		return (-ETIMEDOUT);
	if ((x = calloc(1, sizeof(*x))) == NULL ||
	    (x->ss = ssh_new()) == NULL) {
		free(x);
		return (-ENOMEM);
	}
	s->xpriv = x;
	if ((rv = x_open(s, x, deadline)) != 0)
		return (rv); /* drop frees x */
	s->fd = ssh_get_fd(x->ss);
	return (0);
}

static int
ssh_x_write_all(struct tl1s *s, const void *b, size_t n, uint64_t deadline)
{
	struct ssh_x *x = s->xpriv;

	(void)deadline; /* bounded by the session's timeout */
	return (ssh_channel_write(x->ch, b, (uint32_t)n) == (int)n
	            ? 0
	            : -ECONNRESET);
}

static ssize_t
ssh_x_read_some(struct tl1s *s, void *b, size_t n, uint64_t deadline)
{
	struct ssh_x *x = s->xpriv;
	int           got;

	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = s->fd, .events = POLLIN},
		    {.fd = s->cancel_fd > 0 ? s->cancel_fd : -1,
		     .events = POLLIN},
		};
		uint64_t now = mono_ms();

		got = ssh_channel_read_nonblocking(x->ch, b, (uint32_t)n, 0);
		if (got > 0)
			return (got);
		if (got == SSH_ERROR)
			return (-ECONNRESET);
		if (ssh_channel_is_eof(x->ch) || ssh_channel_is_closed(x->ch))
			return (0);
		if (now >= deadline)
			return (-ETIMEDOUT);
		if (poll(pfd, 2, (int)(deadline - now)) < 0 && errno != EINTR)
			return (-errno);
		if (pfd[1].revents)
			return (-ECANCELED);
	}
}

static int
ssh_x_hung_up(struct tl1s *s)
{
	struct ssh_x *x = s->xpriv;

	return (x == NULL || x->ch == NULL ||
	        ssh_channel_poll(x->ch, 0) == SSH_ERROR ||
	        ssh_channel_is_eof(x->ch) || ssh_channel_is_closed(x->ch));
}

static void
ssh_x_drop(struct tl1s *s)
{
	struct ssh_x *x = s->xpriv;

	if (x == NULL)
		return;
	if (x->ch != NULL)
		ssh_channel_free(x->ch);
	ssh_disconnect(x->ss);
	ssh_free(x->ss);
	free(x);
	s->xpriv = NULL;
	s->fd = -1;
}

const struct tl1s_xport tl1s_ssh = {
    .name = "ssh",
    .connect = ssh_x_connect,
    .write_all = ssh_x_write_all,
    .read_some = ssh_x_read_some,
    .hung_up = ssh_x_hung_up,
    .drop = ssh_x_drop,
    .logs_in = 1,
};

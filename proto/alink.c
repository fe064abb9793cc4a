/* SPDX-License-Identifier: BSD-2-Clause */
/* The agent link's wire (see alink.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "proto/alink.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

/* ---- TLS -------------------------------------------------------------- */

static void
tls_reason(const char *what, char *err, size_t errlen)
{
	unsigned long e = ERR_get_error();
	char          buf[256];

	if (e == 0)
		snprintf(buf, sizeof(buf), "no reason given");
	else
		ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	snprintf(err, errlen, "%s: %s", what, buf);
}

/* Both ends are ours: TLS 1.3 alone (no renegotiation to meet in a
 * non-blocking loop), no session tickets (nothing resumes), writes that
 * may stop after a record and be retried from another address, and
 * reads ahead (a record's header and body in one read(2), not two:
 * what OpenSSL read ahead is drained before the socket is polled again,
 * alink_rx_read). */
static SSL_CTX *
tls_ctx(const SSL_METHOD *method)
{
	SSL_CTX *ctx = SSL_CTX_new(method);

	if (ctx == NULL)
		return (NULL);
	SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
	SSL_CTX_set_num_tickets(ctx, 0);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
	                          SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_read_ahead(ctx, 1);
	return (ctx);
}

int
alink_tls_server(const char *cert_key, SSL_CTX **out, char *err, size_t errlen)
{
	SSL_CTX *ctx;
	char     what[PATH_MAX + 64];

	*out = NULL;
	if ((ctx = tls_ctx(TLS_server_method())) == NULL) {
		tls_reason("TLS", err, errlen);
		return (-ENOMEM);
	}
	snprintf(what, sizeof(what), "certificate and key %.4000s", cert_key);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert_key) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, cert_key, SSL_FILETYPE_PEM) !=
	        1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		tls_reason(what, err, errlen);
		SSL_CTX_free(ctx);
		return (-EINVAL);
	}
	*out = ctx;
	return (0);
}

int
alink_tls_client(const char *ca, SSL_CTX **out, char *err, size_t errlen)
{
	SSL_CTX *ctx;
	char     what[PATH_MAX + 16];

	*out = NULL;
	if ((ctx = tls_ctx(TLS_client_method())) == NULL) {
		tls_reason("TLS", err, errlen);
		return (-ENOMEM);
	}
	snprintf(what, sizeof(what), "CA %.4000s", ca);
	if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
		tls_reason(what, err, errlen);
		SSL_CTX_free(ctx);
		return (-EINVAL);
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	*out = ctx;
	return (0);
}

void
alink_tls_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

/* ---- one connection --------------------------------------------------- */

static int
is_ip(const char *h)
{
	struct in6_addr a;

	return (inet_pton(AF_INET, h, &a) == 1 ||
	        inet_pton(AF_INET6, h, &a) == 1);
}

/*
 * Does the server's certificate name the address dialled?  As nng checks
 * the join's (mbed TLS): an IP address in its subjectAltName, or, in a
 * certificate without one, its subject's common name written as the
 * address (what a lab's self-signed certificate for 10.0.0.1 has).
 */
static int
ip_matches(SSL *ssl, const char *ip)
{
	X509 *c = SSL_get0_peer_certificate(ssl);
	char  cn[256];
	int   n;

	if (c == NULL)
		return (0);
	if (X509_check_ip_asc(c, ip, 0) == 1)
		return (1);
	if (X509_get_ext_by_NID(c, NID_subject_alt_name, -1) >= 0)
		return (0);
	n = X509_NAME_get_text_by_NID(X509_get_subject_name(c), NID_commonName,
	                              cn, sizeof(cn));
	return (n > 0 && strcmp(cn, ip) == 0);
}

int
alink_io_init(struct alink_io *io, int fd, SSL_CTX *ctx, int server,
              const char *host)
{
	io->fd = fd;
	io->ssl = NULL;
	io->want_write = 0;
	if (ctx == NULL)
		return (0);
	if ((io->ssl = SSL_new(ctx)) == NULL || SSL_set_fd(io->ssl, fd) != 1)
		goto fail;
	if (server)
		SSL_set_accept_state(io->ssl);
	else {
		/* A DNS name is checked by OpenSSL in the handshake; an
		 * address after it (ip_matches). */
		if (host == NULL ||
		    (!is_ip(host) && SSL_set1_host(io->ssl, host) != 1))
			goto fail;
		SSL_set_connect_state(io->ssl);
	}
	return (0);
fail:
	SSL_free(io->ssl);
	io->ssl = NULL;
	ERR_clear_error();
	return (-ENOMEM);
}

/* An SSL call's outcome as ours: -EAGAIN (want_write set), 0 at the
 * peer's clean end, -EPROTO or -errno. */
static long
tls_outcome(struct alink_io *io, int r)
{
	int e = SSL_get_error(io->ssl, r);

	io->want_write = e == SSL_ERROR_WANT_WRITE;
	switch (e) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		return (-EAGAIN);
	case SSL_ERROR_ZERO_RETURN:
		return (0);
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		/* An end without close_notify is an end all the same. */
		return (errno != 0 ? -errno : 0);
	default:
		return (-EPROTO);
	}
}

int
alink_io_handshake(struct alink_io *io, char *err, size_t errlen)
{
	long rv;
	int  r;

	if (io->ssl == NULL || SSL_is_init_finished(io->ssl))
		return (0);
	ERR_clear_error();
	errno = 0;
	if ((r = SSL_do_handshake(io->ssl)) == 1)
		return (0);
	if ((rv = tls_outcome(io, r)) == -EAGAIN)
		return (-EAGAIN);
	if (rv == -EPROTO) {
		long vr = SSL_get_verify_result(io->ssl);

		if (vr != X509_V_OK)
			snprintf(err, errlen, "TLS: certificate: %s",
			         X509_verify_cert_error_string(vr));
		else
			tls_reason("TLS", err, errlen);
	} else
		snprintf(err, errlen, "TLS: %s",
		         rv == 0 ? "the peer closed the connection"
		                 : strerror((int)-rv));
	ERR_clear_error();
	return (-EPROTO);
}

/* Read what there is: > 0 bytes, 0 at the peer's end, -EAGAIN, -EPROTO
 * (TLS), -errno. */
static long
alink_io_read(struct alink_io *io, void *buf, size_t len)
{
	ssize_t r;
	int     n;

	if (io->ssl == NULL) {
		do
			r = read(io->fd, buf, len);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return (errno == EWOULDBLOCK ? -EAGAIN : -errno);
		return ((long)r);
	}
	ERR_clear_error();
	errno = 0;
	n = SSL_read(io->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
	if (n > 0) {
		io->want_write = 0;
		return (n);
	}
	return (tls_outcome(io, n));
}

long
alink_io_write(struct alink_io *io, const void *buf, size_t len)
{
	ssize_t w;
	int     n;

	if (io->ssl == NULL) {
		do
			w = send(io->fd, buf, len,
			         MSG_NOSIGNAL | MSG_DONTWAIT);
		while (w < 0 && errno == EINTR);
		if (w < 0)
			return (errno == EWOULDBLOCK ? -EAGAIN : -errno);
		return ((long)w);
	}
	ERR_clear_error();
	errno = 0;
	n = SSL_write(io->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
	if (n > 0) {
		io->want_write = 0;
		return (n);
	}
	n = (int)tls_outcome(io, n);
	return (n == 0 ? -EPIPE : n);
}

/* Wait until the connection can go on (the way its last call wanted, or
 * ev) or the deadline: 0, -ETIMEDOUT, -errno. */
static int
io_wait(struct alink_io *io, short ev, uint64_t deadline)
{
	struct pollfd pfd = {.fd = io->fd};
	uint64_t      now;
	int           r;

	pfd.events = io->want_write ? POLLOUT : ev;
	for (;;) {
		if ((now = mono_ms()) >= deadline)
			return (-ETIMEDOUT);
		if ((r = poll(&pfd, 1, (int)(deadline - now))) > 0)
			return (0);
		if (r < 0 && errno != EINTR)
			return (-errno);
	}
}

/* Write all of buf by the deadline (mono_ms()): 0, -ETIMEDOUT, -errno. */
static int
alink_io_write_all(struct alink_io *io, const void *buf, size_t len,
                   uint64_t deadline)
{
	const uint8_t *p = buf;
	long           w;
	int            rv;

	while (len > 0) {
		if ((w = alink_io_write(io, p, len)) > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w != -EAGAIN)
			return ((int)w);
		if ((rv = io_wait(io, POLLOUT, deadline)) != 0)
			return (rv);
	}
	return (0);
}

void
alink_io_shutdown_wr(struct alink_io *io)
{
	if (io->ssl != NULL) {
		(void)SSL_shutdown(io->ssl);
		ERR_clear_error();
	}
	if (io->fd >= 0)
		(void)shutdown(io->fd, SHUT_WR);
}

void
alink_io_close(struct alink_io *io)
{
	if (io->ssl != NULL) {
		/* Best effort: the peer learns it was an orderly end. */
		(void)SSL_shutdown(io->ssl);
		SSL_free(io->ssl);
		ERR_clear_error();
	}
	if (io->fd >= 0)
		close(io->fd);
	io->ssl = NULL;
	io->fd = -1;
}

/* ---- frames ----------------------------------------------------------- */

int
alink_pack(const Ocs__Msg *m, uint8_t **buf, size_t *len)
{
	size_t n = ocs__msg__get_packed_size(m);

	*buf = NULL;
	if (n > MSG_MAX_BYTES)
		return (-MSG_ESIZE);
	if ((*buf = malloc(ALINK_HDR + n)) == NULL)
		return (-ENOMEM);
	(*buf)[0] = (uint8_t)(n >> 24);
	(*buf)[1] = (uint8_t)(n >> 16);
	(*buf)[2] = (uint8_t)(n >> 8);
	(*buf)[3] = (uint8_t)n;
	ocs__msg__pack(m, *buf + ALINK_HDR);
	*len = ALINK_HDR + n;
	return (0);
}

/* One read into the buffer, grown first when nearly full. */
static long
read_once(struct alink_rx *rx, struct alink_io *io, size_t *space)
{
	size_t   want = rx->max + ALINK_HDR;
	uint8_t *nb;
	long     r;

	if (rx->cap - rx->len < 4096 && rx->cap < want) {
		size_t cap = rx->cap ? rx->cap * 2 : 4096;

		if (cap > want)
			cap = want;
		if ((nb = realloc(rx->b, cap)) == NULL)
			return (-ENOMEM);
		rx->b = nb;
		rx->cap = cap;
	}
	if (rx->len == rx->cap)
		return (-EMSGSIZE); /* only a frame over max fills it */
	*space = rx->cap - rx->len;
	if ((r = alink_io_read(io, rx->b + rx->len, *space)) > 0)
		rx->len += (size_t)r;
	return (r);
}

long
alink_rx_read(struct alink_rx *rx, struct alink_io *io)
{
	size_t space = 0;
	long   r, total = 0;

	/* A plain read shorter than the room took all there was: asking
	 * again would only be told EAGAIN, a system call a frame.  TLS
	 * hands out a record at a time: read on while OpenSSL holds more
	 * (a record read ahead, or the rest of one), so that nothing waits
	 * inside it while the socket looks idle; what is still in the
	 * socket wakes its poller again (level-triggered).  Asking until
	 * EAGAIN cost a read(2) a record. */
	while ((r = read_once(rx, io, &space)) > 0) {
		total += r;
		if (io->ssl == NULL ? (size_t)r < space
		                    : !SSL_has_pending(io->ssl))
			break;
	}
	return (total > 0 ? total : r);
}

int
alink_rx_next(struct alink_rx *rx, Ocs__Msg **m, char *why, size_t whylen)
{
	size_t n;
	int    rv;

	*m = NULL;
	if (rx->len < ALINK_HDR)
		return (0);
	n = (size_t)rx->b[0] << 24 | (size_t)rx->b[1] << 16 |
	    (size_t)rx->b[2] << 8 | rx->b[3];
	if (n > rx->max) {
		snprintf(why, whylen, "a frame of %zu bytes, limit %zu", n,
		         rx->max);
		return (-MSG_ESIZE);
	}
	if (rx->len < ALINK_HDR + n)
		return (0);
	rv = msg_decode(rx->b + ALINK_HDR, n, m, why, whylen);
	rx->len -= ALINK_HDR + n;
	memmove(rx->b, rx->b + ALINK_HDR + n, rx->len);
	return (rv == 0 ? 1 : rv);
}

void
alink_rx_free(struct alink_rx *rx)
{
	free(rx->b);
	rx->b = NULL;
	rx->len = rx->cap = 0;
}

/* ---- the agent's end -------------------------------------------------- */

/* A host the agent cannot dial: said as "the one you joined". */
static int
wildcard(const char *h, size_t n)
{
	return (n == 0 || (n == 7 && memcmp(h, "0.0.0.0", 7) == 0) ||
	        (n == 1 && h[0] == '*') ||
	        (n == 4 && memcmp(h, "[::]", 4) == 0));
}

/* host:port after a scheme: where the host ends (at the last ':'). */
static const char *
host_end(const char *hp)
{
	const char *c = strrchr(hp, ':');

	return (c != NULL ? c : hp + strlen(hp));
}

int
alink_url(const char *link, const char *joined, char *out, size_t len)
{
	const char *hp, *jh, *je, *scheme;
	int         n;

	if (strncmp(link, "ipc://", 6) == 0) {
		n = snprintf(out, len, "%s", link);
		return (n > 6 && (size_t)n < len ? 0 : -EINVAL);
	}
	if (strncmp(link, "tcp://", 6) == 0)
		scheme = "tcp://";
	else if (strncmp(link, "tls+tcp://", 10) == 0)
		scheme = "tls+tcp://";
	else
		return (-EINVAL);
	hp = link + strlen(scheme);
	if (*host_end(hp) != ':' || host_end(hp)[1] == '\0')
		return (-EINVAL);
	if (!wildcard(hp, (size_t)(host_end(hp) - hp))) {
		n = snprintf(out, len, "%s", link);
		return ((size_t)n < len ? 0 : -EINVAL);
	}
	/* The host of the join's URL: after its scheme, before its port. */
	if ((jh = strstr(joined, "://")) == NULL)
		return (-EINVAL);
	jh += 3;
	je = host_end(jh);
	if (wildcard(jh, (size_t)(je - jh)))
		return (-EINVAL);
	n = snprintf(out, len, "%s%.*s%s", scheme, (int)(je - jh), jh,
	             host_end(hp));
	return (n > 0 && (size_t)n < len ? 0 : -EINVAL);
}

/* The host of a tcp or tls+tcp URL, for the certificate's check. */
static void
url_host(const char *url, char *out, size_t len)
{
	const char *h = strstr(url, "://"), *e;

	h = h ? h + 3 : url;
	e = host_end(h);
	if (*h == '[' && e > h + 1 && e[-1] == ']') {
		h++;
		e--;
	}
	snprintf(out, len, "%.*s", (int)(e - h), h);
}

int
alink_connect(struct alink_conn *c, const char *url, SSL_CTX *ctx,
              int timeout_ms, char *err, size_t errlen)
{
	uint64_t deadline = mono_ms() + (uint64_t)timeout_ms;
	char     addr[300], host[256], why[300];
	int      tls = strncmp(url, "tls+tcp://", 10) == 0, fd, rv;

	memset(c, 0, sizeof(*c));
	c->io.fd = -1;
	snprintf(c->url, sizeof(c->url), "%s", url);
	if (tls && ctx == NULL) {
		snprintf(err, errlen,
		         "agent link %s: TLS needs a CA file to verify ocsd",
		         url);
		return (-EINVAL);
	}
	if (net_url_addr(tls ? url + 4 : url, addr, sizeof(addr)) != 0) {
		snprintf(err, errlen, "agent link \"%.200s\": not an address",
		         url);
		return (-EINVAL);
	}
	if ((fd = net_connect_addr(addr, timeout_ms)) < 0) {
		snprintf(err, errlen, "agent link %s: %s", url, strerror(-fd));
		return (fd);
	}
	url_host(url, host, sizeof(host));
	if ((rv = alink_io_init(&c->io, fd, tls ? ctx : NULL, 0, host)) != 0) {
		close(fd);
		snprintf(err, errlen, "agent link %s: out of memory", url);
		return (rv);
	}
	while ((rv = alink_io_handshake(&c->io, why, sizeof(why))) == -EAGAIN)
		if ((rv = io_wait(&c->io, POLLIN, deadline)) != 0) {
			snprintf(why, sizeof(why), "TLS: %s", strerror(-rv));
			break;
		}
	if (rv == 0 && c->io.ssl != NULL && is_ip(host) &&
	    !ip_matches(c->io.ssl, host)) {
		snprintf(why, sizeof(why),
		         "TLS: certificate: it does not name %s", host);
		rv = -EPROTO;
	}
	if (rv != 0) {
		snprintf(err, errlen, "agent link %s: %s", url, why);
		alink_io_close(&c->io);
		return (rv == -ETIMEDOUT ? rv : -EPROTO);
	}
	c->rx.max = MSG_MAX_BYTES;
	return (0);
}

void
alink_disconnect(struct alink_conn *c)
{
	if (c->io.fd >= 0)
		alink_io_close(&c->io);
	alink_rx_free(&c->rx);
}

int
alink_send(struct alink_conn *c, const Ocs__Msg *m, uint64_t deadline,
           char *err, size_t errlen)
{
	uint8_t *buf;
	size_t   len;
	int      rv;

	if ((rv = alink_pack(m, &buf, &len)) != 0) {
		snprintf(err, errlen, "encoding: %s", msg_strerror(rv));
		return (rv);
	}
	rv = alink_io_write_all(&c->io, buf, len, deadline);
	free(buf);
	if (rv == -EPIPE || rv == -ECONNRESET) {
		snprintf(err, errlen,
		         "agent link %s: ocsd closed it (it stopped or "
		         "restarted)",
		         c->url);
		return (-ECONNRESET);
	}
	if (rv != 0)
		snprintf(err, errlen, "agent link %s: %s", c->url,
		         strerror(-rv));
	return (rv);
}

/* A read's or a wait's failure said: -ECONNRESET for ocsd's end. */
static int
recv_failed(struct alink_conn *c, long r, char *err, size_t errlen)
{
	if (r == 0 || r == -ECONNRESET || r == -EPIPE) {
		snprintf(err, errlen,
		         "agent link %s: ocsd closed it (it stopped or "
		         "restarted)",
		         c->url);
		return (-ECONNRESET);
	}
	snprintf(err, errlen, "agent link %s: %s", c->url,
	         r == -ETIMEDOUT ? "no answer in time"
	         : r == -EPROTO  ? "TLS failed"
	                         : strerror((int)-r));
	return ((int)r);
}

int
alink_take(struct alink_conn *c, Ocs__Msg **m, char *err, size_t errlen)
{
	char why[300];
	int  rv;

	if ((rv = alink_rx_next(&c->rx, m, why, sizeof(why))) < 0)
		snprintf(err, errlen, "agent link %s: %s", c->url, why);
	return (rv);
}

int
alink_fill(struct alink_conn *c, char *err, size_t errlen)
{
	long r = alink_rx_read(&c->rx, &c->io);

	if (r > 0 || r == -EAGAIN)
		return (r > 0);
	return (recv_failed(c, r, err, errlen));
}

int
alink_recv(struct alink_conn *c, uint64_t deadline, Ocs__Msg **m, char *err,
           size_t errlen)
{
	long r;
	int  rv;

	while ((rv = alink_take(c, m, err, errlen)) == 0) {
		r = alink_rx_read(&c->rx, &c->io);
		if (r > 0)
			continue;
		if (r == -EAGAIN) {
			if (deadline == 0)
				return (0);
			if ((r = io_wait(&c->io, POLLIN, deadline)) == 0)
				continue;
		}
		return (recv_failed(c, r, err, errlen));
	}
	return (rv);
}

int
alink_call(struct alink_conn *c, const Ocs__Msg *m, uint64_t run,
           int timeout_ms, Ocs__Msg **rep, char *err, size_t errlen)
{
	uint64_t deadline = mono_ms() + (uint64_t)timeout_ms;
	int      rv;

	*rep = NULL;
	if ((rv = alink_send(c, m, deadline, err, errlen)) != 0)
		return (rv);
	for (;;) {
		if ((rv = alink_recv(c, deadline, rep, err, errlen)) < 0)
			return (rv);
		if ((*rep)->has_seq && (*rep)->seq == m->seq)
			return (0);
		/* A run's end said unasked answers whatever waits for it. */
		if (run != 0 && (*rep)->body_case == OCS__MSG__BODY_ABORT &&
		    (*rep)->has_run_id && (*rep)->run_id == run)
			return (0);
		msg_free(*rep); /* a request given up on, or a stale push */
		*rep = NULL;
	}
}

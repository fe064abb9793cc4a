/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch's SSH faces: TL1 over SSH (ocs-emu --tl1-ssh), what labs
 * expose of a Polatis, and NETCONF over SSH (--netconf, RFC 6242).  An
 * SSH server (libssh) authenticates a switch user by password, accepts
 * a session channel with a shell (and a pty, which it ignores) or the
 * face's subsystem ("netconf"), and hands a socketpair to the face's
 * server (the Polatis TL1 server, libnetconf2's) as a session already
 * logged in; a thread per connection carries bytes between the channel
 * and the socketpair.  A handshake not done within the login grace is
 * cut (a slowloris holds no thread for long); sessions idle too long
 * are closed by the face's server.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/server.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "testbed/ocs-emu/emu.h"

#define SSH_MAX_CONN  64 /* connections at once, handshaking or not */
#define SSH_MAX_TRIES 3  /* passwords per connection */
#define HOSTKEY_NAME  "ssh_host_ed25519_key"

struct emu_ssh;

struct conn {
	struct emu_ssh *face;
	pthread_t       thr;
	int             fd;          /* the TCP connection (libssh's) */
	uint64_t        deadline_ms; /* handshake done by then; 0: done */
	int             done;        /* the thread has ended */
	ssh_session     ss;
	ssh_channel     ch;
	int             shell, ended, tries;
	int             sp[2]; /* [0] the TL1 server's, [1] ours */
	char            user[EMU_USER_MAX + 1];
	enum emu_priv   priv;
	void           *guard; /* the face's guard's state, or NULL */
	unsigned        id;
	struct ssh_server_callbacks_struct  scb;
	struct ssh_channel_callbacks_struct ccb;
};

struct emu_ssh {
	struct emu         *e;
	struct emu_ssh_conf sc;
	ssh_bind            bind;
	int                 lfd, stopfd, wakefd;
	pthread_t           thr;
	pthread_mutex_t     mtx; /* guards c[] and its deadlines */
	struct conn        *c[SSH_MAX_CONN];
	unsigned            next_id;
};

/* ---- one connection ----------------------------------------------------- */

static int
auth_password(ssh_session ss, const char *user, const char *pass, void *arg)
{
	struct conn *c = arg;
	struct emu  *e = c->face->e;
	int          priv;

	(void)ss;
	pthread_mutex_lock(&e->mtx);
	priv = e->fault.refuse_login ? -EACCES
	                             : emu_users_auth(&e->users, user, pass);
	pthread_mutex_unlock(&e->mtx);
	if (priv < 0) {
		log_info("%s[%u]: password of \"%.40s\" refused",
		         c->face->sc.what, c->id, user);
		if (++c->tries >= SSH_MAX_TRIES)
			ssh_disconnect(c->ss);
		return (SSH_AUTH_DENIED);
	}
	snprintf(c->user, sizeof(c->user), "%s", user);
	c->priv = (enum emu_priv)priv;
	return (SSH_AUTH_SUCCESS);
}

static int
chan_data(ssh_session ss, ssh_channel ch, void *data, uint32_t len, int err,
          void *arg)
{
	struct conn *c = arg;

	(void)ss;
	(void)ch;
	(void)err;
	if (c->guard != NULL && c->face->sc.guard(c->guard, data, len)) {
		log_warnx("%s[%u]: refused what the face cannot take, closing",
		          c->face->sc.what, c->id);
		c->ended = 1;
		return ((int)len);
	}
	/* Before the hand-over too: the socketpair keeps it. */
	if (net_write_all(c->sp[1], data, len, mono_ms() + 10000, -1) != 0)
		c->ended = 1;
	return ((int)len);
}

static int
chan_pty(ssh_session ss, ssh_channel ch, const char *term, int w, int h,
         int pw, int ph, void *arg)
{
	(void)ss, (void)ch, (void)term, (void)w, (void)h, (void)pw, (void)ph;
	(void)arg;
	return (0); /* accepted; TL1 needs no terminal */
}

static int
chan_shell(ssh_session ss, ssh_channel ch, void *arg)
{
	struct conn *c = arg;

	(void)ss;
	(void)ch;
	if (c->shell || c->face->sc.subsystem != NULL)
		return (-1);
	c->shell = 1;
	return (0);
}

/* The face's subsystem ("netconf"), once. */
static int
chan_subsystem(ssh_session ss, ssh_channel ch, const char *name, void *arg)
{
	struct conn *c = arg;

	(void)ss;
	(void)ch;
	if (c->shell || c->face->sc.subsystem == NULL ||
	    strcmp(name, c->face->sc.subsystem) != 0)
		return (-1);
	c->shell = 1;
	return (0);
}

static void
chan_eof(ssh_session ss, ssh_channel ch, void *arg)
{
	(void)ss;
	(void)ch;
	((struct conn *)arg)->ended = 1;
}

static ssh_channel
chan_open(ssh_session ss, void *arg)
{
	struct conn *c = arg;

	if (c->ch != NULL || (c->ch = ssh_channel_new(ss)) == NULL)
		return (NULL);
	c->ccb = (struct ssh_channel_callbacks_struct){
	    .userdata = c,
	    .channel_data_function = chan_data,
	    .channel_pty_request_function = chan_pty,
	    .channel_shell_request_function = chan_shell,
	    .channel_subsystem_request_function = chan_subsystem,
	    .channel_eof_function = chan_eof,
	    .channel_close_function = chan_eof,
	};
	ssh_callbacks_init(&c->ccb);
	ssh_set_channel_callbacks(c->ch, &c->ccb);
	return (c->ch);
}

/* Replies of the TL1 server, out on the channel. */
static int
from_tl1(socket_t fd, int revents, void *arg)
{
	struct conn *c = arg;
	char         buf[16384];
	ssize_t      n;

	(void)revents;
	n = read(fd, buf, sizeof(buf));
	if (n <= 0 || ssh_channel_write(c->ch, buf, (uint32_t)n) != n)
		c->ended = 1;
	return (0);
}

/* Until the channel has a shell: the handshake, authentication and the
 * channel's requests.  0, or -1 when the client went or was cut. */
static int
handshake(struct conn *c, ssh_event ev)
{
	if (ssh_handle_key_exchange(c->ss) != SSH_OK) {
		log_debug("%s[%u]: key exchange: %s", c->face->sc.what, c->id,
		          ssh_get_error(c->ss));
		return (-1);
	}
	ssh_event_add_session(ev, c->ss);
	while (!(c->ch && c->shell && c->user[0])) {
		if (ssh_event_dopoll(ev, 1000) == SSH_ERROR ||
		    !ssh_is_connected(c->ss))
			return (-1);
	}
	return (0);
}

/* The session's life after the handshake: hand the socketpair over and
 * carry bytes until either end goes. */
static void
carry(struct conn *c, ssh_event ev)
{
	struct emu_ssh *f = c->face;

	if (f->sc.hand(f->sc.arg, c->sp[0], c->user, c->priv) != 0) {
		log_warnx("%s[%u]: too many sessions, closing", f->sc.what,
		          c->id);
		return;
	}
	c->sp[0] = -1; /* the face server's now */
	pthread_mutex_lock(&f->mtx);
	c->deadline_ms = 0; /* the face server's timeouts from here on */
	pthread_mutex_unlock(&f->mtx);
	log_info("%s[%u]: %s logged in", f->sc.what, c->id, c->user);
	ssh_event_add_fd(ev, c->sp[1], POLLIN, from_tl1, c);
	while (!c->ended && ssh_is_connected(c->ss) &&
	       !ssh_channel_is_closed(c->ch)) {
		if (ssh_event_dopoll(ev, -1) == SSH_ERROR)
			break;
	}
	ssh_event_remove_fd(ev, c->sp[1]);
}

static void *
conn_main(void *arg)
{
	struct conn *c = arg;
	ssh_event    ev = ssh_event_new();

	c->scb = (struct ssh_server_callbacks_struct){
	    .userdata = c,
	    .auth_password_function = auth_password,
	    .channel_open_request_session_function = chan_open,
	};
	ssh_callbacks_init(&c->scb);
	ssh_set_server_callbacks(c->ss, &c->scb);
	ssh_set_auth_methods(c->ss, SSH_AUTH_METHOD_PASSWORD);
	if (ev != NULL && handshake(c, ev) == 0)
		carry(c, ev);
	if (c->ch != NULL && !ssh_channel_is_closed(c->ch)) {
		ssh_channel_send_eof(c->ch);
		ssh_channel_close(c->ch);
	}
	if (ev != NULL) {
		ssh_event_remove_session(ev, c->ss);
		ssh_event_free(ev);
	}
	ssh_disconnect(c->ss); /* frees the session's channels */
	c->ch = NULL;
	log_debug("%s[%u]: closed", c->face->sc.what, c->id);
	pthread_mutex_lock(&c->face->mtx);
	c->done = 1;
	pthread_mutex_unlock(&c->face->mtx);
	(void)!write(c->face->wakefd, &(uint64_t){1}, sizeof(uint64_t));
	return (NULL);
}

/* ---- the listener ------------------------------------------------------- */

static void
conn_free(struct conn *c)
{
	ssh_free(c->ss); /* closes fd */
	if (c->sp[0] >= 0)
		close(c->sp[0]);
	close(c->sp[1]);
	free(c->guard);
	free(c);
}

static void
accept_one(struct emu_ssh *f)
{
	struct conn *c;
	int          fd, i;

	if ((fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
		return;
	/* Small replies go out at once: Nagle against the peer's delayed
	 * ACK costs an exchange 40 ms. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	pthread_mutex_lock(&f->mtx);
	for (i = 0; i < SSH_MAX_CONN && f->c[i]; i++)
		;
	pthread_mutex_unlock(&f->mtx);
	if (i == SSH_MAX_CONN || (c = calloc(1, sizeof(*c))) == NULL) {
		log_warnx("%s: too many connections, refusing one",
		          f->sc.what);
		close(fd);
		return;
	}
	c->face = f;
	c->fd = fd;
	if (f->sc.guard != NULL &&
	    (c->guard = calloc(1, f->sc.guard_size)) == NULL) {
		close(fd);
		free(c);
		return;
	}
	c->id = ++f->next_id;
	c->deadline_ms =
	    mono_ms() +
	    (f->e->c.login_grace_ms ? f->e->c.login_grace_ms : 60000);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->sp) != 0) {
		close(fd);
		free(c->guard);
		free(c);
		return;
	}
	fcntl(c->sp[0], F_SETFL, O_NONBLOCK);
	if ((c->ss = ssh_new()) == NULL ||
	    ssh_bind_accept_fd(f->bind, c->ss, fd) != SSH_OK) {
		log_warnx("%s: %s", f->sc.what,
		          c->ss ? ssh_get_error(f->bind) : "out of memory");
		if (c->ss == NULL || ssh_get_fd(c->ss) != fd)
			close(fd);
		if (c->ss)
			ssh_free(c->ss);
		close(c->sp[0]);
		close(c->sp[1]);
		free(c->guard);
		free(c);
		return;
	}
	pthread_mutex_lock(&f->mtx);
	f->c[i] = c;
	if (pthread_create(&c->thr, NULL, conn_main, c) != 0) {
		f->c[i] = NULL;
		pthread_mutex_unlock(&f->mtx);
		conn_free(c);
		return;
	}
	pthread_mutex_unlock(&f->mtx);
	log_debug("%s[%u]: connection", f->sc.what, c->id);
}

/* Join the threads that ended; cut the handshakes that are late.  The
 * poll timeout to the next deadline, or -1. */
static int
sweep(struct emu_ssh *f, int stopping)
{
	uint64_t now = mono_ms();
	int      i, timeout = -1;

	for (i = 0; i < SSH_MAX_CONN; i++) {
		struct conn *c;

		pthread_mutex_lock(&f->mtx);
		c = f->c[i];
		if (c && c->done)
			f->c[i] = NULL;
		else if (c && (stopping ||
		               (c->deadline_ms && now >= c->deadline_ms))) {
			/* Its blocking reads and writes fail now. */
			if (!stopping)
				log_info("%s[%u]: no login within the grace, "
				         "closing",
				         f->sc.what, c->id);
			shutdown(c->fd, SHUT_RDWR);
			c->deadline_ms = 0;
			c = NULL;
		} else if (c) {
			if (c->deadline_ms) {
				int w = (int)(c->deadline_ms - now);
				if (timeout < 0 || w < timeout)
					timeout = w;
			}
			c = NULL;
		}
		pthread_mutex_unlock(&f->mtx);
		if (c != NULL) {
			pthread_join(c->thr, NULL);
			conn_free(c);
		}
	}
	return (timeout);
}

static void *
face_main(void *arg)
{
	struct emu_ssh *f = arg;
	struct pollfd   pfd[3];
	uint64_t        v;
	int             timeout = -1, i, left;

	for (;;) {
		pfd[0] = (struct pollfd){.fd = f->stopfd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = f->lfd, .events = POLLIN};
		pfd[2] = (struct pollfd){.fd = f->wakefd, .events = POLLIN};
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		if (pfd[2].revents)
			(void)!read(f->wakefd, &v, sizeof(v));
		if (pfd[1].revents & POLLIN)
			accept_one(f);
		timeout = sweep(f, 0);
	}
	/* Cut every connection and wait for each thread. */
	do {
		sweep(f, 1);
		pthread_mutex_lock(&f->mtx);
		for (i = 0, left = 0; i < SSH_MAX_CONN; i++)
			left += f->c[i] != NULL;
		pthread_mutex_unlock(&f->mtx);
		if (left)
			poll(&pfd[2], 1, 100);
	} while (left);
	return (NULL);
}

/* ---- the host key ------------------------------------------------------- */

/* The host key from the state directory, made there on first use; a
 * switch without --state has one for this run only. */
static int
host_key(struct emu *e, ssh_key *key, char *err, size_t len)
{
	char  dir[PATH_MAX], path[PATH_MAX + 32], *b64 = NULL;
	FILE *fp;
	int   fd;

	if (e->c.state[0] == '\0') {
		log_info("ssh: no --state: a host key for this run only");
		return (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, key) == SSH_OK
		            ? 0
		            : -ENOMEM);
	}
	snprintf(dir, sizeof(dir), "%s", e->c.state);
	snprintf(path, sizeof(path), "%s/%s", dirname(dir), HOSTKEY_NAME);
	if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL, key) == SSH_OK)
		return (0);
	if (access(path, F_OK) == 0) {
		snprintf(err, len, "host key %s: cannot read it", path);
		return (-EINVAL);
	}
	if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, key) != SSH_OK ||
	    ssh_pki_export_privkey_base64(*key, NULL, NULL, NULL, &b64) !=
	        SSH_OK) {
		snprintf(err, len, "cannot make a host key");
		return (-ENOMEM);
	}
	/* Private: made 0600, never replaced. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || (fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, len, "host key %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		ssh_string_free_char(b64);
		return (-EINVAL);
	}
	fputs(b64, fp);
	ssh_string_free_char(b64);
	if (fclose(fp) != 0) {
		snprintf(err, len, "host key %s: %s", path, strerror(errno));
		return (-EINVAL);
	}
	log_info("ssh: host key made in %s", path);
	return (0);
}

int
emu_ssh_start(struct emu *e, const struct emu_ssh_conf *sc,
              struct emu_ssh **out, char *bound, size_t blen, char *err,
              size_t errlen)
{
	struct emu_ssh *f;
	ssh_key         key = NULL;
	char            host[256], port[16];
	int             rv;

	if (net_hostport(sc->addr, sc->port, host, sizeof(host), port,
	                 sizeof(port)) != 0) {
		snprintf(err, errlen, "%s \"%s\": expected ADDR:PORT", sc->opt,
		         sc->addr);
		return (-EINVAL);
	}
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return (-ENOMEM);
	f->e = e;
	f->sc = *sc;
	f->lfd = f->stopfd = f->wakefd = -1;
	pthread_mutex_init(&f->mtx, NULL);
	if ((rv = host_key(e, &key, err, errlen)) != 0)
		goto fail;
	rv = -ENOMEM;
	if ((f->bind = ssh_bind_new()) == NULL ||
	    ssh_bind_options_set(f->bind, SSH_BIND_OPTIONS_IMPORT_KEY, key) !=
	        SSH_OK)
		goto fail;
	key = NULL; /* the bind's now */
	if ((f->lfd = net_listen(host, port, bound, blen)) < 0) {
		rv = f->lfd;
		snprintf(err, errlen, "%s %s: %s", sc->opt, sc->addr,
		         strerror(-rv));
		goto fail;
	}
	if ((f->stopfd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    (f->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    pthread_create(&f->thr, NULL, face_main, f) != 0) {
		snprintf(err, errlen, "cannot start the %s face", sc->what);
		goto fail;
	}
	*out = f;
	return (0);
fail:
	if (key != NULL)
		ssh_key_free(key);
	if (f->bind != NULL)
		ssh_bind_free(f->bind);
	if (f->lfd >= 0)
		close(f->lfd);
	if (f->stopfd >= 0)
		close(f->stopfd);
	if (f->wakefd >= 0)
		close(f->wakefd);
	pthread_mutex_destroy(&f->mtx);
	free(f);
	return (rv);
}

void
emu_ssh_stop(struct emu_ssh *f)
{
	if (f == NULL)
		return;
	(void)!write(f->stopfd, &(uint64_t){1}, sizeof(uint64_t));
	pthread_join(f->thr, NULL);
	ssh_bind_free(f->bind);
	close(f->lfd);
	close(f->stopfd);
	close(f->wakefd);
	pthread_mutex_destroy(&f->mtx);
	free(f);
}

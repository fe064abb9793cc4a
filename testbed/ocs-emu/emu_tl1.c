/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu's TL1 server: one poll loop serves many sessions of one dialect
 * (Polatis or CALIENT, emu_tl1_int.h), with the reply framing both use.
 * A session's reply to a patch change is held until the switching time
 * has passed (unless --ack immediate), and the session's next command
 * waits for it, while other sessions carry on.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_tl1_int.h"

/* ---- replies ------------------------------------------------------------ */

int
addl(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char    buf[512];

	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 16;
		char **nv = realloc(l->v, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		l->v = nv;
		l->cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if ((l->v[l->n] = strdup(buf)) == NULL)
		return (-ENOMEM);
	l->n++;
	return (0);
}

void
lines_free(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

time_t
emu_now(const struct srv *sv)
{
	return (time(NULL) + (time_t)sv->e->clock_s);
}

void
respond(struct srv *sv, struct sess *s, const char *ctag, enum tl1_status st,
        const char *code, const char *comment, const struct lines *l,
        uint64_t due_ms)
{
	const struct emu_fault *f = &sv->e->fault;
	struct tl1_buf         *b;

	if (!s->control && f->delay_ms) {
		uint64_t late = mono_ms() + f->delay_ms;

		due_ms = due_ms > late ? due_ms : late;
	}
	b = due_ms ? &s->held : &s->out;
	if (!s->control && f->garbage)
		tl1_buf_put(b, emu_garbage, strlen(emu_garbage));
	else {
		tl1_resp_fmt(b, sv->e->sid, emu_now(sv), ctag, st, code,
		             comment, l ? l->v : NULL, l ? l->n : 0,
		             sv->e->c.block_bytes);
		const char *pr = s->prompt ? s->prompt : sv->d->prompt;

		if (pr != NULL)
			tl1_buf_printf(b, "\r\n%s", pr);
	}
	if (due_ms)
		s->due_ms = due_ms;
	log_trace("tl1[%u] < M %s %s%s%s", s->id, ctag, tl1_status_name(st),
	          code ? " " : "", code ? code : "");
}

void
deny(struct srv *sv, struct sess *s, const char *ctag, const char *code,
     const char *fmt, ...)
{
	char    comment[256], *q;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(comment, sizeof(comment), fmt, ap);
	va_end(ap);
	/* Client bytes echoed in a comment stay on its one line and inside
	 * it: no control characters, no early end of comment. */
	for (q = comment; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f ||
		    (q[0] == '*' && q[1] == '/'))
			*q = '?';
	respond(sv, s, ctag, TL1_DENY, code, comment, NULL, 0);
}

void
compld(struct srv *sv, struct sess *s, const char *ctag, const struct lines *l)
{
	respond(sv, s, ctag, TL1_COMPLD, NULL, NULL, l, 0);
}

void
report_evt(struct srv *sv, const char *line)
{
	int i;

	/* On unless the session turned them off (OPR-ARC-EQPT), as on
	 * the switch: its clients turn them off at login. */
	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = sv->s[i];

		if (s && s->logged_in && !s->inhibit && !s->closing)
			tl1_auto_fmt(&s->out, sv->e->sid, emu_now(sv), "A",
			             ++sv->atag, "REPT EVT PORT", line);
	}
}

void
persist(struct srv *sv)
{
	int rv;

	if (sv->e->x.gen != sv->e->saved_gen &&
	    (rv = emu_state_save(sv->e)) != 0)
		log_warnx("saving state to %s: %s", sv->e->c.state,
		          strerror(-rv));
}

/* ---- parameters --------------------------------------------------------- */

const char *
keyword(const struct tl1_cmd *c, const char *key, char *buf, size_t len)
{
	size_t i, kl = strlen(key);

	for (i = 0; i < c->nblk; i++) {
		const char *p = c->blk[i];

		while (p && *p) {
			if (strncasecmp(p, key, kl) == 0 && p[kl] == '=') {
				const char *v = p + kl + 1;
				size_t      vl = strcspn(v, ",");

				if (vl && v[0] == '"' && v[vl - 1] == '"' &&
				    vl >= 2) {
					v++;
					vl -= 2;
				}
				snprintf(buf, len, "%.*s", (int)vl, v);
				return (buf);
			}
			p = strchr(p, ',');
			if (p)
				p++;
		}
	}
	return (NULL);
}

int
params_only(struct srv *sv, struct sess *s, const struct tl1_cmd *c,
            size_t from, const char *const *keys)
{
	size_t i, k, kl;

	for (i = from; i < c->nblk; i++) {
		const char *p = c->blk[i];

		while (p && *p) {
			kl = strcspn(p, "=,");
			for (k = 0; keys[k]; k++)
				if (strlen(keys[k]) == kl &&
				    strncasecmp(p, keys[k], kl) == 0)
					break;
			if (keys[k] == NULL) {
				deny(sv, s, c->ctag, "IPNV",
				     "Unexpected parameter %.*s in block %zu",
				     (int)(kl > 40 ? 40 : kl), p, i);
				return (-EINVAL);
			}
			p = strchr(p, ',');
			if (p)
				p++;
		}
	}
	return (0);
}

int
number_in(const char *s, long lo, long hi, long *v)
{
	char *end;

	if (s == NULL || *s == '\0' || (*s != '-' && (*s < '0' || *s > '9')))
		return (-EINVAL);
	*v = strtol(s, &end, 10);
	return (*end == '\0' && *v >= lo && *v <= hi ? 0 : -EINVAL);
}

ssize_t
port_list(struct srv *sv, struct sess *s, const struct tl1_cmd *c, int need,
          uint32_t **out)
{
	uint32_t i, n = 2 * sv->e->x.n;
	char     bad[32];
	ssize_t  k;

	*out = NULL;
	if (need && c->aid[0] == '\0') {
		deny(sv, s, c->ctag, "IIAC", "Empty parameters");
		return (-EINVAL);
	}
	/* One more than the switch has: a longer list is "too many". */
	if ((*out = calloc(n + 1, sizeof(**out))) == NULL) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		return (-EINVAL);
	}
	if (c->aid[0] == '\0' || strcasecmp(c->aid, "ALL") == 0) {
		for (i = 0; i < n; i++)
			(*out)[i] = i + 1;
		return ((ssize_t)n);
	}
	k = tl1_aid_parse(c->aid, *out, n + 1, bad, sizeof(bad));
	if (k == -E2BIG || k > (ssize_t)n)
		deny(sv, s, c->ctag, "IIAC", "Too many ports");
	else if (k < 0)
		deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %s", bad);
	for (i = 0; k >= 0 && k <= (ssize_t)n && i < (uint32_t)k; i++)
		if (!oxc_valid_port(&sv->e->x, (*out)[i])) {
			deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %u",
			     (*out)[i]);
			k = -EINVAL;
		}
	if (k < 0 || k > (ssize_t)n) {
		free(*out);
		*out = NULL;
		return (-EINVAL);
	}
	return (k);
}

/* ---- dispatch ----------------------------------------------------------- */

static const struct emu_tl1_verb *
verb_of(const struct emu_tl1_dialect *d, const char *verb)
{
	size_t t, i;

	for (t = 0; t < 5 && d->verbs[t]; t++)
		for (i = 0; i < *d->nverbs[t]; i++)
			if (strcmp(d->verbs[t][i].verb, verb) == 0)
				return (&d->verbs[t][i]);
	return (NULL);
}

/* A command that does not parse: the device names where, counting from
 * 1 (GR-831 devices answer CTAG 0 when they found none). */
static void
parse_error(struct srv *sv, struct sess *s, const struct tl1_cmd *c,
            enum tl1_perr pe, size_t off)
{
	static const char *const code[] = {
	    [TL1_PERR_VERB] = "IICM",
	    [TL1_PERR_TID] = "IITA",
	    [TL1_PERR_CTAG] = "IICT",
	    [TL1_PERR_SYNTAX] = "IISP",
	};
	const char *tag = c->ctag && c->ctag[0] ? c->ctag : "0";

	deny(sv, s, tag,
	     code[pe >= TL1_PERR_VERB && pe <= TL1_PERR_SYNTAX
	              ? pe
	              : TL1_PERR_SYNTAX],
	     "Parse error at offset %zu in command", off + 1);
}

/* The drop fault: hang up on this command, unanswered.  1 if so. */
static int
dropped(struct srv *sv, struct sess *s)
{
	if (s->control || !sv->e->fault.drop_after ||
	    ++s->ncmds <= sv->e->fault.drop_after)
		return (0);
	log_info("tl1[%u]: fault: dropping the session at command %u", s->id,
	         s->ncmds);
	tl1_buf_consume(&s->out, s->out.len);
	tl1_buf_consume(&s->held, s->held.len);
	s->due_ms = 0;
	s->dp_wait = 0;
	s->closing = 1;
	return (1);
}

static void
handle(struct srv *sv, struct sess *s, const char *text, size_t len)
{
	const struct emu_tl1_verb *v;
	struct tl1_cmd             c;
	enum tl1_perr              pe = 0;
	size_t                     off = 0;

	log_trace("tl1[%u] > %.*s", s->id, (int)(len > 200 ? 200 : len), text);
	pthread_mutex_lock(&sv->e->mtx);
	if (tl1_cmd_parse(text, len, sv->d->parse_flags, &c, &pe, &off) != 0) {
		parse_error(sv, s, &c, pe, off);
		goto out;
	}
	v = verb_of(sv->d, c.verb);
	/* Fault control answers even a faulty switch. */
	s->control = v && strcmp(v->verb, "SET-EMU-FAULT") == 0;
	if (dropped(sv, s))
		;
	else if (c.tid[0] != '\0' && strcmp(c.tid, sv->e->sid) != 0)
		deny(sv, s, c.ctag, "IITA", "Mismatched TID");
	else if (v == NULL)
		deny(sv, s, c.ctag, "IICM", "Invalid command");
	else if (v->priv && !s->logged_in)
		deny(sv, s, c.ctag, sv->d->nologin_code, "%s",
		     sv->d->nologin_text);
	else if (v->priv > (int)s->priv)
		emu_tl1_denied(sv, s, &c);
	else
		v->fn(sv, s, &c);
	s->control = 0;
out:
	pthread_mutex_unlock(&sv->e->mtx);
	tl1_cmd_free(&c);
}

/* ---- sessions and the loop ---------------------------------------------- */

/* Index of the ';' ending the first command (outside quotes), or -1. */
static ssize_t
cmd_end(const char *p, size_t n)
{
	size_t i;
	int    q = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '"')
			q = !q;
		else if (q && p[i] == '\\' && i + 1 < n)
			i++;
		else if (!q && p[i] == ';')
			return ((ssize_t)i);
	}
	return (-1);
}

static void
sess_close(struct srv *sv, int i)
{
	struct sess *s = sv->s[i];

	log_debug("tl1[%u]: session closed", s->id);
	if (s->fd >= 0)
		close(s->fd);
	tl1_buf_free(&s->in);
	tl1_buf_free(&s->out);
	tl1_buf_free(&s->held);
	free(s);
	sv->s[i] = NULL;
}

/*
 * Commands up to each ';', whatever ends the line (\r\n, \n, \r, or
 * nothing): the blanks before a command are skipped by the parser.
 */
static void
process(struct srv *sv, struct sess *s)
{
	ssize_t e;

	while (s->due_ms == 0 && !s->closing &&
	       (e = cmd_end(s->in.p, s->in.len)) >= 0) {
		handle(sv, s, s->in.p, (size_t)e);
		tl1_buf_consume(&s->in, (size_t)e + 1);
	}
	if (s->in.len > TL1_MAX_CMD) {
		log_warnx_limited(
		    &sv->flood,
		    "tl1[%u]: command longer than %u bytes, closing", s->id,
		    TL1_MAX_CMD);
		s->closing = 1;
	}
}

/* Connections that have not logged in take MAX_SESS - SESS_RESERVED
 * sessions at most: the oldest of them gives way to a new one. */
static void
make_room(struct srv *sv)
{
	int i, n = 0, old = -1;

	for (i = 0; i < MAX_SESS; i++) {
		if (sv->s[i] == NULL || sv->s[i]->logged_in)
			continue;
		n++;
		if (old < 0 || sv->s[i]->last_ms < sv->s[old]->last_ms)
			old = i;
	}
	if (n < MAX_SESS - SESS_RESERVED || old < 0)
		return;
	log_warnx_limited(&sv->flood,
	                  "tl1: %d connections not logged in: the oldest, "
	                  "tl1[%u], closed for a new one",
	                  n, sv->s[old]->id);
	sess_close(sv, old);
}

/* A new session on fd (which it owns from here on), or NULL after
 * closing fd when every session is taken. */
static struct sess *
sess_new(struct srv *sv, int fd)
{
	struct sess *s;
	int          i;

	make_room(sv);
	for (i = 0; i < MAX_SESS && sv->s[i]; i++)
		;
	if (i == MAX_SESS || (s = calloc(1, sizeof(*s))) == NULL) {
		log_warnx_limited(
		    &sv->flood,
		    "tl1: %d sessions, all logged in: refusing one", MAX_SESS);
		close(fd);
		return (NULL);
	}
	s->fd = fd;
	s->id = ++sv->next_id;
	s->last_ms = mono_ms();
	sv->s[i] = s;
	return (s);
}

static void
accept_one(struct srv *sv, int lfd)
{
	struct sess *s;
	int          fd, one = 1;

	if ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if ((s = sess_new(sv, fd)) == NULL)
		return;
	if (sv->d->prompt != NULL)
		tl1_buf_printf(&s->out, "%s", sv->d->prompt);
	log_debug("tl1[%u]: session opened", s->id);
}

/* ---- sessions handed over by another face (TL1 over SSH) ---------------- */

#define INBOX_MAX 16

struct emu_tl1_inbox {
	pthread_mutex_t mtx;
	int             evfd; /* readable while the queue holds any */
	struct {
		int           fd;
		char          user[EMU_USER_MAX + 1];
		enum emu_priv priv;
	} q[INBOX_MAX];
	size_t n;
};

int
emu_tl1_inbox_new(struct emu_tl1_inbox **out)
{
	struct emu_tl1_inbox *ib = calloc(1, sizeof(*ib));

	if (ib == NULL)
		return (-ENOMEM);
	if ((ib->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		free(ib);
		return (-errno);
	}
	pthread_mutex_init(&ib->mtx, NULL);
	*out = ib;
	return (0);
}

void
emu_tl1_inbox_free(struct emu_tl1_inbox *ib)
{
	size_t i;

	if (ib == NULL)
		return;
	for (i = 0; i < ib->n; i++)
		close(ib->q[i].fd);
	close(ib->evfd);
	pthread_mutex_destroy(&ib->mtx);
	free(ib);
}

int
emu_tl1_inbox_put(struct emu_tl1_inbox *ib, int fd, const char *user,
                  enum emu_priv priv)
{
	uint64_t one = 1;
	int      rv = 0;

	pthread_mutex_lock(&ib->mtx);
	if (ib->n == INBOX_MAX || strlen(user) > EMU_USER_MAX) {
		rv = -ENOSPC;
	} else {
		ib->q[ib->n].fd = fd;
		snprintf(ib->q[ib->n].user, sizeof(ib->q[0].user), "%s", user);
		ib->q[ib->n++].priv = priv;
		(void)!write(ib->evfd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&ib->mtx);
	return (rv);
}

/* Every session waiting in the inbox becomes one of ours: logged in as
 * the user the other face authenticated, with the SSH face's prompt. */
static void
adopt(struct srv *sv, struct emu_tl1_inbox *ib)
{
	struct sess *s;
	uint64_t     v;
	size_t       i;

	(void)!read(ib->evfd, &v, sizeof(v));
	pthread_mutex_lock(&ib->mtx);
	for (i = 0; i < ib->n; i++) {
		if ((s = sess_new(sv, ib->q[i].fd)) == NULL)
			continue;
		s->logged_in = 1;
		s->priv = ib->q[i].priv;
		snprintf(s->user, sizeof(s->user), "%s", ib->q[i].user);
		s->prompt = sv->d->ssh_prompt;
		if (s->prompt != NULL)
			tl1_buf_printf(&s->out, "%s", s->prompt);
		log_debug("tl1[%u]: session of %s over ssh", s->id, s->user);
	}
	ib->n = 0;
	pthread_mutex_unlock(&ib->mtx);
}

/*
 * When a quiet session is closed (0: never).  A logged-in one after the
 * session timeout (ED-EQPT TIMEOUT, 0 = none); one that has not logged in
 * after the login grace: connections that never log in cannot take every
 * session and lock the switch's controller out.
 */
static uint64_t
idle_until(const struct srv *sv, const struct sess *s)
{
	if (!s->logged_in)
		return (sv->e->c.login_grace_ms
		            ? s->last_ms + sv->e->c.login_grace_ms
		            : 0);
	return (sv->e->idle_timeout_s
	            ? s->last_ms + sv->e->idle_timeout_s * 1000ull
	            : 0);
}

/* The poll set: stop, listener, inbox, then each session; the poll
 * timeout is the nearest delayed answer or idle limit. */
static int
poll_set(struct srv *sv, int lfd, int stopfd, int inboxfd, struct pollfd *pfd,
         int *idx, int *timeout)
{
	uint64_t now = mono_ms();
	int      i, n = 0;

	*timeout = -1;
	pfd[n].fd = stopfd;
	pfd[n++].events = POLLIN;
	pfd[n].fd = lfd;
	pfd[n++].events = POLLIN;
	pfd[n].fd = inboxfd; /* -1: ignored by poll */
	pfd[n++].events = POLLIN;
	pfd[n].fd = -1; /* the datapath's news, while an answer waits */
	pfd[n++].events = POLLIN;
	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = sv->s[i];
		uint64_t     t;

		if (s == NULL)
			continue;
		if (s->dp_wait)
			pfd[3].fd = sv->e->dp_wake;
		t = s->due_ms ? s->due_ms : idle_until(sv, s);
		if (t) {
			int w = t > now ? (int)(t - now) : 0;
			if (*timeout < 0 || w < *timeout)
				*timeout = w;
		}
		pfd[n].fd = s->fd;
		/* A session whose answer is held reads nothing more. */
		pfd[n].events = (s->closing || s->due_ms ? 0 : POLLIN) |
		                (s->out.len ? POLLOUT : 0);
		idx[n++] = i;
	}
	return (n);
}

/* Bytes in and out of session i; 0, or -ECONNRESET once it is closed. */
static int
sess_io(struct srv *sv, int i, short revents, uint64_t now)
{
	struct sess *s = sv->s[i];
	char         buf[16384];
	ssize_t      r;

	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		r = recv(s->fd, buf, sizeof(buf), 0);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			sess_close(sv, i);
			return (-ECONNRESET);
		}
		if (r > 0) {
			tl1_buf_put(&s->in, buf, (size_t)r);
			s->last_ms = now;
		}
	}
	if ((revents & POLLOUT) && s->out.len) {
		r = send(s->fd, s->out.p, s->out.len, MSG_NOSIGNAL);
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			sess_close(sv, i);
			return (-ECONNRESET);
		}
		if (r > 0)
			tl1_buf_consume(&s->out, (size_t)r);
	}
	return (0);
}

/* Has the datapath applied every change: the paths the mirrors pass
 * carried, the removed ones dark? */
static int
carrying(struct srv *sv)
{
	int rv;

	pthread_mutex_lock(&sv->e->mtx);
	rv = emu_dp_done(sv->e, mono_ns());
	pthread_mutex_unlock(&sv->e->mtx);
	return (rv);
}

/* Release answers whose delay is over, run what came in, and close the
 * sessions that are done or idle too long. */
static void
sess_work(struct srv *sv, uint64_t now)
{
	int i;

	log_limit_tick(&sv->flood);
	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = sv->s[i];
		uint64_t     until;

		if (s == NULL)
			continue;
		if (s->due_ms && (now >= s->due_ms || s->dp_wait) &&
		    !carrying(sv)) {
			/* The mirrors have moved, the kernel datapath not
			 * yet: COMPLD once light really passes (and no
			 * longer passes where a patch went), as soon as it
			 * says so (dp_wake), else looked at every ms. */
			s->due_ms = now + 1;
			s->dp_wait = sv->e->dp_track;
		} else if (s->due_ms && (now >= s->due_ms || s->dp_wait)) {
			tl1_buf_put(&s->out, s->held.p, s->held.len);
			tl1_buf_consume(&s->held, s->held.len);
			s->due_ms = 0;
			s->dp_wait = 0;
		}
		process(sv, s);
		if (s->closing && s->out.len == 0) {
			sess_close(sv, i);
			continue;
		}
		until = idle_until(sv, s);
		if (!s->due_ms && until && now >= until) {
			if (s->logged_in)
				log_info("tl1[%u]: idle for %us, closing",
				         s->id, sv->e->idle_timeout_s);
			else
				log_warnx_limited(
				    &sv->flood,
				    "tl1[%u]: no login within %u "
				    "ms, closing",
				    s->id, sv->e->c.login_grace_ms);
			sess_close(sv, i);
		}
	}
}

int
emu_tl1_serve(struct emu *e, const struct emu_tl1_dialect *d, int lfd,
              int stopfd, struct emu_tl1_inbox *ib)
{
	struct srv    sv;
	struct pollfd pfd[MAX_SESS + 4];
	int           idx[MAX_SESS + 4];
	int           i, n, timeout;
	uint64_t      now;

	memset(&sv, 0, sizeof(sv));
	sv.e = e;
	sv.d = d;
	for (;;) {
		n = poll_set(&sv, lfd, stopfd, ib ? ib->evfd : -1, pfd, idx,
		             &timeout);
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
			return (-errno);
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN)
			accept_one(&sv, lfd);
		if (pfd[2].revents & POLLIN)
			adopt(&sv, ib);
		if (pfd[3].revents & POLLIN) {
			uint64_t v;

			(void)read(pfd[3].fd, &v, sizeof(v));
		}
		now = mono_ms();
		for (i = 4; i < n; i++)
			(void)sess_io(&sv, idx[i], pfd[i].revents, now);
		sess_work(&sv, now);
	}
	for (i = 0; i < MAX_SESS; i++)
		if (sv.s[i])
			sess_close(&sv, i);
	return (0);
}

int
emu_tl1_feed(struct emu *e, const struct emu_tl1_dialect *d, const char *in,
             size_t len, struct tl1_buf *out)
{
	struct srv  sv;
	struct sess s;
	int         rv = 0;

	memset(&sv, 0, sizeof(sv));
	memset(&s, 0, sizeof(s));
	sv.e = e;
	sv.d = d;
	s.fd = -1;
	sv.s[0] = &s;
	if (tl1_buf_put(&s.in, in, len) != 0)
		return (-ENOMEM);
	do {
		if (s.due_ms) { /* no waiting here */
			tl1_buf_put(&s.out, s.held.p, s.held.len);
			tl1_buf_consume(&s.held, s.held.len);
			s.due_ms = 0;
		}
		process(&sv, &s);
	} while (s.due_ms);
	if (s.out.len && tl1_buf_put(out, s.out.p, s.out.len) != 0)
		rv = -ENOMEM;
	tl1_buf_free(&s.in);
	tl1_buf_free(&s.out);
	tl1_buf_free(&s.held);
	return (rv);
}

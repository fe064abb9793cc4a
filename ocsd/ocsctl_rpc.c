/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's one request to ocsd (ctlc.c: a REQ socket per command, the
 * proof of the control secret when one is set), the answer printed,
 * errors in the output's format.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ctlc.h"
#include "ocsd/ocsctl.h"

/* An error that ends the command, in the output's format; returns 1. */
__attribute__((__format__(printf, 2, 3))) static int
say(const struct opts *o, const char *fmt, ...)
{
	va_list ap;
	char    msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return (ocsctl_fail(o, "%s", msg));
}

/* The reply as kind, then stdout flushed: 0, or 1 after saying why.  A
 * reader that went away (ocsctl show | head) is nobody's error. */
static int
print_reply(const struct opts *o, enum out_kind kind, const Ocs__CtlReply *r)
{
	struct out out;
	int        rv;

	out_init(&out, o->json, o->po.brief);
	ocsctl_print(&out, kind, r, &o->po);
	rv = out_finish(&out);
	if (fflush(stdout) != 0 && errno != EPIPE)
		return (ocsctl_fail(o, "writing output: %s", strerror(errno)));
	return (rv);
}

/*
 * apply: ocsd numbers the map's entries; the operator knows lines.  A
 * leading "entry N" becomes FILE:LINE, a later "entry N" "line L".
 */
static const char *
entries_as_lines(const struct opts *o, const char *t, char *out, size_t len)
{
	const char *p = t, *e;
	unsigned    entry;
	size_t      n = 0;
	int         k;

	if (o->file == NULL || o->lines == NULL)
		return (t);
	while ((e = strstr(p, "entry ")) != NULL && n < len) {
		if (sscanf(e, "entry %u%n", &entry, &k) != 1 || entry < 1 ||
		    entry > o->nlines) {
			n += (size_t)snprintf(out + n, len - n, "%.*s",
			                      (int)(e - p) + 6, p);
			p = e + 6;
			continue;
		}
		n += (size_t)snprintf(out + n, len - n, "%.*s", (int)(e - p),
		                      p);
		if (n < len && e == t)
			n += (size_t)snprintf(out + n, len - n, "%s:%u",
			                      o->file, o->lines[entry - 1]);
		else if (n < len)
			n += (size_t)snprintf(out + n, len - n, "line %u",
			                      o->lines[entry - 1]);
		p = e + k;
	}
	if (n < len)
		snprintf(out + n, len - n, "%s", p);
	return (out);
}

/* One request/reply exchange.  Returns 0 with *reply set, or 1 after
 * printing the error (2 when ocsd found an argument wrong). */
static int
call(const struct opts *o, Ocs__CtlRequest *q, const char *what,
     Ocs__Msg **reply)
{
	const struct ctlc c = {o->url, o->ca, o->timeout_ms, o->secret,
	                       o->slen};
	char              err[1024], t[1024];
	int               rv, refused;

	if ((rv = ctlc_call(&c, q, what, reply, err, sizeof(err), &refused)) ==
	    0)
		return (0);
	if (!refused)
		return (say(o, "%s", err));
	say(o, "%s: %s", what, entries_as_lines(o, err, t, sizeof(t)));
	/* An argument ocsd found wrong is a usage error too. */
	return (rv == -OCSD_EUSAGE ? 2 : 1);
}

int
ocsctl_call(const struct opts *o, Ocs__CtlRequest *q, const char *what,
            Ocs__Msg **reply)
{
	return (call(o, q, what, reply));
}

/* Ask, and print the answer as a kind of reply, in the chosen format. */
int
ocsctl_run_capture(const struct opts *o, Ocs__CtlRequest *q)
{
	Ocs__CtlRequest cq;
	Ocs__Msg       *rep, *crep = NULL;
	Ocs__RunReport *rr;
	int             rv;

	if ((rv = call(o, q, "run", &rep)) != 0)
		return (rv);
	/* The capture of this run, asked once the run is over; the run's
	 * outcome is printed whatever the capture says. */
	rr = rep->ctl_reply->report;
	if (rr != NULL) {
		ocs__ctl_request__init(&cq);
		cq.op = OCS__CTL_REQUEST__OP__CAPTURE;
		cq.has_run_id = 1;
		cq.run_id = rr->run_id;
		if (call(o, &cq, "capture", &crep) == 0 &&
		    crep->ctl_reply->capture != NULL)
			rep->ctl_reply->capture = crep->ctl_reply->capture;
		else
			rv = 1;
	}
	if (print_reply(o, OUT_REPORT, rep->ctl_reply) != 0)
		rv = 1;
	/* The capture belongs to crep's message: give it back. */
	rep->ctl_reply->capture = NULL;
	msg_free(rep);
	if (crep)
		msg_free(crep);
	return (rv);
}

int
ocsctl_watch_loop(const struct opts *o, uint64_t count)
{
	Ocs__CtlRequest q;
	Ocs__Msg       *rep;
	struct opts     one = *o;
	uint64_t        since = 0, seen = 0;
	int             rv, first = 1;

	/* The watch is held up to wait_ms; the exchange must outlast it. */
	one.po.brief = o->json ? 1 : o->po.brief;
	for (;;) {
		ocs__ctl_request__init(&q);
		q.op = OCS__CTL_REQUEST__OP__WATCH;
		q.has_since = q.has_wait_ms = 1;
		q.since = since;
		/* The first answer says where ocsd's events stand now. */
		q.wait_ms = first ? 0
		            : o->timeout_ms > 4000
		                ? (uint32_t)(o->timeout_ms - 2000)
		                : 2000;
		one.timeout_ms = (int)q.wait_ms + o->timeout_ms;
		if ((rv = call(&one, &q, "watch", &rep)) != 0)
			return (rv);
		if (first)
			rep->ctl_reply->n_events = 0;
		since = rep->ctl_reply->event_seq;
		if (count && rep->ctl_reply->n_events > count - seen)
			rep->ctl_reply->n_events = (size_t)(count - seen);
		seen += rep->ctl_reply->n_events;
		if ((!first && rep->ctl_reply->n_events) &&
		    print_reply(&one, OUT_EVENTS, rep->ctl_reply) != 0) {
			msg_free(rep);
			return (1);
		}
		msg_free(rep);
		first = 0;
		if (count && seen >= count)
			return (0);
	}
}

int
ocsctl_request(const struct opts *o, Ocs__CtlRequest *q, enum out_kind kind,
               const char *what)
{
	Ocs__Msg *rep;
	int       rv;

	if (o->force) {
		q->has_force = 1;
		q->force = 1;
	}
	q->switch_name = (char *)(uintptr_t)o->sw;
	if ((rv = call(o, q, what, &rep)) != 0)
		return (rv);
	rv = print_reply(o, kind, rep->ctl_reply);
	msg_free(rep);
	return (rv);
}

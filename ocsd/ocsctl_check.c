/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl check: every transceiver of the cabling in one table, what the
 * switch sees of it (light in from its transmitter, light out to its
 * receiver, the ports' state) beside what its host sees (the interface's
 * link and MTU, as the agent said), who its receiver hears (a probe
 * sent across each idle-patched circuit), and every problem named.
 * Three questions to ocsd (agents, ports, probe), joined here by the
 * cabling's names (HOST.TRX); on a fabric the ports are asked of each
 * switch in turn (unless -S names one), and a receiver's expected
 * transmitter is looked for on its own switch only, since port numbers
 * are a switch's own.  The exit status is 1 when a problem was found.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ocsctl.h"

#define LIT_DBM -40.0 /* as show ports: above it, light */

struct row {
	char        name[80]; /* h00.0 */
	char        sw[40];   /* a fabric's switch, or "" */
	uint32_t    in, out;  /* switch ports (0: not cabled) */
	int         in_lit, out_lit, in_failed, out_failed;
	double      in_dbm, out_dbm;
	int         has_in_dbm, has_out_dbm;
	uint32_t    in_peer, out_peer; /* 0: unpatched */
	int         agent;             /* its host's agent joined */
	const char *iface, *link;      /* the agent's word: up, dark, ... */
	int         has_mtu;
	uint32_t    mtu;
	/* The probe: whether one went out of its transmitter, what its
	 * receiver heard ("h01.0,h02.1"), why it was not probed; and the
	 * transmitter the live map patches to its receiver, if any. */
	int               has_probe, sent, unsent;
	char              heard[200], pwhy[80];
	const struct row *expect;
	char              why[800];
};

struct check {
	struct row *r;
	size_t      n, cap;
};

static struct row *
row_of(struct check *c, const char *name)
{
	struct row *t;
	size_t      i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->r[i].name, name) == 0)
			return (&c->r[i]);
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		if ((t = realloc(c->r, c->cap * sizeof(*t))) == NULL)
			return (NULL);
		c->r = t;
	}
	t = &c->r[c->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	return (t);
}

/* The switch's side: each port cabled to a transceiver.  A fabric's
 * reply holds its switch's part in switches[], named there. */
static int
from_ports(struct check *c, const Ocs__CtlReply *p, const char *sw)
{
	struct row *t;
	size_t      i;

	for (i = 0; i < p->n_switches; i++) {
		const Ocs__CtlReply *sub = p->switches[i];

		if (from_ports(c, sub,
		               sub->sw && sub->sw->name ? sub->sw->name
		                                        : sw) != 0)
			return (-1);
	}
	for (i = 0; i < p->n_ports; i++) {
		const Ocs__PortInfo *q = p->ports[i];
		int                  lit = q->has_dbm && q->dbm > LIT_DBM;

		if (q->trx == NULL)
			continue;
		if ((t = row_of(c, q->trx)) == NULL)
			return (-1);
		snprintf(t->sw, sizeof(t->sw), "%s", sw ? sw : "");
		if (q->ingress) {
			t->in = q->port;
			t->in_lit = lit;
			t->in_failed = q->failed;
			t->has_in_dbm = q->has_dbm;
			t->in_dbm = q->dbm;
			t->in_peer = q->has_peer ? q->peer : 0;
		} else {
			t->out = q->port;
			t->out_lit = lit;
			t->out_failed = q->failed;
			t->has_out_dbm = q->has_dbm;
			t->out_dbm = q->dbm;
			t->out_peer = q->has_peer ? q->peer : 0;
		}
	}
	return (0);
}

/* The hosts' side: each agent's transceivers and their links. */
static int
from_agents(struct check *c, const Ocs__CtlReply *a)
{
	struct row *t;
	char        name[80];
	size_t      i, k;

	for (i = 0; i < a->n_agents; i++) {
		const Ocs__AgentInfo *g = a->agents[i];

		if (strcmp(g->state, "lost") == 0)
			continue;
		for (k = 0; k < g->transceivers; k++) {
			snprintf(name, sizeof(name), "%s.%zu", g->host, k);
			if ((t = row_of(c, name)) == NULL)
				return (-1);
			t->agent = 1;
		}
		for (k = 0; k < g->n_links; k++) {
			const Ocs__TrxLink *l = g->links[k];

			snprintf(name, sizeof(name), "%s.%u", g->host, l->trx);
			if ((t = row_of(c, name)) == NULL)
				return (-1);
			t->agent = 1;
			t->iface = l->iface;
			t->link = l->shown;
			t->has_mtu = l->has_mtu;
			t->mtu = l->mtu;
		}
	}
	return (0);
}

/* The probe's side: what each transceiver sent and heard. */
static int
from_probes(struct check *c, const Ocs__CtlReply *p)
{
	struct row *t;
	size_t      i, k, o;

	for (i = 0; i < p->n_probes; i++) {
		const Ocs__ProbeReport *q = p->probes[i];

		if ((t = row_of(c, q->trx)) == NULL)
			return (-1);
		t->has_probe = 1;
		t->sent = q->sent;
		t->unsent = q->has_unsent && q->unsent;
		snprintf(t->pwhy, sizeof(t->pwhy), "%s", q->why ? q->why : "");
		for (o = 0, k = 0; k < q->n_heard && o < sizeof(t->heard); k++)
			o += (size_t)snprintf(t->heard + o,
			                      sizeof(t->heard) - o, "%s%s",
			                      k ? "," : "", q->heard[k]);
	}
	return (0);
}

/* Each receiver's expected transmitter: the row on its switch whose
 * ingress the live map patches to its egress.  After sorting (rows do
 * not move). */
static void
expectations(struct check *c)
{
	size_t i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; c->r[i].out_peer && j < c->n; j++)
			if (c->r[j].in == c->r[i].out_peer &&
			    strcmp(c->r[i].sw, c->r[j].sw) == 0)
				c->r[i].expect = &c->r[j];
}

/* The MTU most transceivers have (0: none said). */
static uint32_t
common_mtu(const struct check *c)
{
	uint32_t best = 0, most = 0, n;
	size_t   i, j;

	for (i = 0; i < c->n; i++) {
		if (!c->r[i].has_mtu)
			continue;
		for (n = 0, j = 0; j < c->n; j++)
			n += c->r[j].has_mtu && c->r[j].mtu == c->r[i].mtu;
		if (n > most)
			most = n, best = c->r[i].mtu;
	}
	return (best);
}

__attribute__((__format__(printf, 2, 3))) static void
say(struct row *t, const char *fmt, ...)
{
	size_t  o = strlen(t->why);
	va_list ap;

	if (o + 3 >= sizeof(t->why))
		return;
	if (o)
		o += (size_t)snprintf(t->why + o, sizeof(t->why) - o, "; ");
	va_start(ap, fmt);
	vsnprintf(t->why + o, sizeof(t->why) - o, fmt, ap);
	va_end(ap);
}

/* Every problem of one transceiver, in words. */
static void
judge(struct row *t, uint32_t mtu)
{
	const char *l = t->link ? t->link : "";
	int         up = strcmp(l, "up") == 0;

	if (t->in == 0 && t->out == 0)
		say(t, "not in the switch's cabling");
	if (!t->agent)
		say(t, "no agent has joined for its host");
	if (t->in_failed)
		say(t, "switch %s%sport %u is failed", t->sw,
		    t->sw[0] ? " " : "", t->in);
	if (t->out_failed)
		say(t, "switch %s%sport %u is failed", t->sw,
		    t->sw[0] ? " " : "", t->out);
	if (t->in && t->in_peer && !t->in_lit)
		say(t,
		    "no light from its transmitter into port %u (laser "
		    "off, or the fibre not in)",
		    t->in);
	if (t->agent && t->out && t->out_lit && !up)
		say(t,
		    "port %u sends it light but its link is %s "
		    "(retraining, or its receiver's fibre is not from port "
		    "%u)",
		    t->out, l[0] ? l : "unknown", t->out);
	if (up && t->out && !t->out_lit)
		say(t,
		    "a carrier without light from port %u: its receiver "
		    "is lit from elsewhere (a swapped fibre?)",
		    t->out);
	if (strcmp(l, "down") == 0)
		say(t, "interface %s is down", t->iface ? t->iface : "?");
	if (strcmp(l, "unplugged") == 0)
		say(t, "interface %s is missing or unplugged",
		    t->iface ? t->iface : "?");
	if (t->has_mtu && mtu && t->mtu != mtu)
		say(t, "MTU %u, most have %u", t->mtu, mtu);
}

/* Does the comma-separated list have name? */
static int
listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (; *list; list += strcspn(list, ","), list += *list == ',')
		if (strncmp(list, name, n) == 0 &&
		    (list[n] == ',' || list[n] == '\0'))
			return (1);
	return (0);
}

/* The probe's problems: a patched circuit that carried nothing, a
 * receiver that heard another transmitter than the map says (a swapped
 * fibre, a wrong [cabling] line), one that heard where no circuit is. */
static void
judge_peer(struct row *t)
{
	const struct row *e = t->expect;

	if (!t->has_probe)
		return;
	if (t->unsent)
		say(t, "its transmitter could not send a probe");
	if (t->pwhy[0] && (e != NULL || t->sent)) {
		say(t, "not probed: %s", t->pwhy);
		return;
	}
	if (e != NULL && t->heard[0] == '\0') {
		if (e->sent)
			say(t, "sent by %s, not heard", e->name);
		else if (e->unsent)
			say(t, "nothing heard: %s could not send its probe",
			    e->name);
		else if (e->has_probe && e->pwhy[0])
			say(t, "nothing heard: %s sent no probe (%s)", e->name,
			    e->pwhy);
		else
			say(t, "nothing heard: %s sent no probe", e->name);
	} else if (e != NULL && !listed(t->heard, e->name))
		say(t,
		    "heard %s, but the switch's map patches %s to it (a "
		    "swapped fibre, or a wrong [cabling] line)",
		    t->heard, e->name);
	else if (e != NULL && strchr(t->heard, ',') != NULL)
		say(t, "heard %s, more than %s alone", t->heard, e->name);
	else if (e == NULL && t->heard[0])
		say(t,
		    "heard %s where the switch's map patches nothing (a "
		    "wrong [cabling] line?)",
		    t->heard);
}

static int
by_name(const void *a, const void *b)
{
	return (strcmp(((const struct row *)a)->name,
	               ((const struct row *)b)->name));
}

static void
print_side(struct out *o, const char *key, uint32_t port, int has_dbm,
           double dbm)
{
	char d[24];

	snprintf(d, sizeof(d), has_dbm ? "%.1f" : "-", dbm);
	out_obj(o, key);
	if (port)
		out_u64(o, "port", "  %4llu", port);
	else
		out_text(o, "  %4s", "-");
	if (has_dbm)
		out_dbl(o, "dbm", NULL, dbm);
	out_str(o, NULL, " %6s", d);
	out_end(o);
}

static void
print_row(struct out *o, const struct row *t, int fabric)
{
	char mtu[16];

	snprintf(mtu, sizeof(mtu), t->has_mtu ? "%u" : "-", t->mtu);
	out_obj(o, NULL);
	out_str(o, "transceiver", "%-12s", t->name);
	if (fabric)
		out_str(o, "switch", " %-6s", t->sw[0] ? t->sw : "-");
	out_str(o, "iface", " %-8s", t->iface ? t->iface : "-");
	print_side(o, "in", t->in, t->has_in_dbm, t->in_dbm);
	print_side(o, "out", t->out, t->has_out_dbm, t->out_dbm);
	out_str(o, "link", " %-10s", t->link ? t->link : "-");
	out_str(o, NULL, " %-8s", t->heard[0] ? t->heard : "-");
	if (t->heard[0])
		out_str(o, "peer", NULL, t->heard);
	if (t->expect)
		out_str(o, "peer_expected", NULL, t->expect->name);
	if (t->has_mtu)
		out_u64(o, "mtu", NULL, t->mtu);
	out_str(o, NULL, " %5s", mtu);
	out_str(o, "problems", "  %s\n", t->why[0] ? t->why : "ok");
	out_end(o);
}

/* Ask ocsd op (of switch sw, NULL: ocsd's choice). */
static int
ask(const struct opts *o, int op, const char *sw, Ocs__Msg **rep)
{
	Ocs__CtlRequest q;

	ocs__ctl_request__init(&q);
	q.op = op;
	q.switch_name = (char *)(uintptr_t)sw;
	return (ocsctl_call(o, &q, "check", rep));
}

/* The port readings: of the switch -S names or the only one, or of each
 * switch of a fabric in turn (their names from status). */
static int
ask_ports(const struct opts *o, struct check *c)
{
	Ocs__Msg            *st = NULL, *po = NULL;
	const Ocs__CtlReply *sr = NULL;
	size_t               i, n = 1;
	int                  rv = 0;

	if (o->sw == NULL &&
	    (rv = ask(o, OCS__CTL_REQUEST__OP__STATUS, NULL, &st)) != 0)
		return (rv);
	if (st != NULL && st->ctl_reply->n_switches > 0) {
		sr = st->ctl_reply;
		n = sr->n_switches;
	}
	for (i = 0; rv == 0 && i < n; i++) {
		const char *sw = o->sw;

		if (sr != NULL) {
			const Ocs__SwitchInfo *si = sr->switches[i]->sw;

			if (si == NULL || si->name == NULL) {
				rv = ocsctl_fail(o,
				                 "check: ocsd's status "
				                 "names no switch %zu",
				                 i);
				break;
			}
			sw = si->name;
		}
		if ((rv = ask(o, OCS__CTL_REQUEST__OP__PORTS, sw, &po)) != 0)
			break;
		if (from_ports(c, po->ctl_reply, sw) != 0)
			rv = ocsctl_fail(o, "check: out of memory");
		msg_free(po);
	}
	if (st)
		msg_free(st);
	return (rv);
}

int
ocsctl_check(struct opts *o, int argc, char **argv)
{
	struct check c = {NULL, 0, 0};
	struct out   out;
	Ocs__Msg    *ag = NULL, *pr = NULL;
	size_t       i, bad = 0;
	uint32_t     mtu;
	int          rv, fabric = 0;

	(void)argv;
	if (argc > 1)
		return (ocsctl_fail(o, "check: no arguments") + 1);
	if ((rv = ask(o, OCS__CTL_REQUEST__OP__AGENTS, NULL, &ag)) != 0 ||
	    (rv = ask_ports(o, &c)) != 0 ||
	    (rv = ask(o, OCS__CTL_REQUEST__OP__PROBE, NULL, &pr)) != 0)
		goto out;
	if (from_agents(&c, ag->ctl_reply) != 0 ||
	    from_probes(&c, pr->ctl_reply) != 0) {
		rv = ocsctl_fail(o, "check: out of memory");
		goto out;
	}
	qsort(c.r, c.n, sizeof(*c.r), by_name);
	expectations(&c);
	mtu = common_mtu(&c);
	for (i = 0; i < c.n; i++)
		fabric |= c.r[i].sw[0] != '\0';
	out_init(&out, o->json, o->po.brief);
	out_text(&out, "%-12s", "transceiver");
	if (fabric)
		out_text(&out, " %-6s", "switch");
	out_text(&out, " %-8s  %4s %6s  %4s %6s %-10s %-8s %5s  %s\n", "iface",
	         "in", "dBm", "out", "dBm", "link", "peer", "mtu", "problems");
	out_arr(&out, "transceivers");
	for (i = 0; i < c.n; i++) {
		judge(&c.r[i], mtu);
		judge_peer(&c.r[i]);
		bad += c.r[i].why[0] != '\0';
		print_row(&out, &c.r[i], fabric);
	}
	out_end(&out);
	out_u64(&out, "problems", "%llu transceivers with problems",
	        (uint64_t)bad);
	out_u64(&out, "count", NULL, (uint64_t)c.n);
	out_text(&out, " (of %zu)\n", c.n);
	rv = out_finish(&out);
	if (rv == 0 && bad)
		rv = 1;
out:
	free(c.r);
	if (ag)
		msg_free(ag);
	if (pr)
		msg_free(pr);
	return (rv);
}

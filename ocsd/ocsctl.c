/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl: the operator's command line for ocsd.  Commands are a table
 * (iproute2's ip.c); every one prints text, or JSON with -j; an error is
 * one line naming the object and the reason (with the switch's own text)
 * and a non-zero exit: 1 for failures, 2 for usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "collectives/units.h"
#include "ocsd/conf.h"
#include "proto/auth.h"
#include "proto/link.h"
#include "proto/msg.h"

struct opts {
	int         json;
	const char *url;
	int         timeout_ms;
	int         timeout_set;
	char        defurl[PATH_MAX + 16];
	const char *file; /* apply: for line numbers in errors */
	uint32_t   *lines;
	uint8_t     secret[AUTH_SEC_MAX + 1];
	size_t      slen; /* 0: no proof sent */
	const char *ca;   /* tls+tcp:// */
};

#define CTL_FMT(a, b) __attribute__((__format__(printf, a, b)))

CTL_FMT(1, 2) static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ocsctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return (1);
}

static int
usage(void)
{
	fprintf(
	    stderr,
	    "usage: ocsctl [-j] [-C CA_FILE] [-k SECRET_FILE] [-s ADDRESS] "
	    "[-t TIMEOUT] COMMAND\n"
	    "  show                 switch, circuits, patches, cabling\n"
	    "  status               daemon and switch health\n"
	    "  connect A B          circuit between transceivers, or patch "
	    "ingress-egress\n"
	    "  disconnect A [B...]  remove what A is patched with\n"
	    "  apply FILE           make FILE (lines \"A B\") the whole map, "
	    "one batch\n"
	    "  clear                remove every patch\n"
	    "  map diff|sync|adopt  compare / push desired / keep the "
	    "switch's\n"
	    "  agents               the joined host agents\n"
	    "  run --algo retri|bridge|static --bytes SIZE [--reconfig "
	    "auto|none|all|k,...]\n"
	    "      [--nodes all|N] [--bandwidth RATE] [--alpha-s TIME] "
	    "[--alpha-h TIME]\n"
	    "      [--delay TIME] [--chunk SIZE]\n"
	    "                       run an All-to-All on the agents, "
	    "report per phase\n"
	    "  abort                abort the running collective\n");
	return (2);
}

/* Hello -> Challenge on the socket, then the proof into q. */
static int
prove(const struct opts *o, nng_socket sock, Ocs__CtlRequest *q,
      const char *what, uint8_t nonce[AUTH_NONCE], uint8_t proof[AUTH_PROOF])
{
	Ocs__Msg   req, *rep;
	Ocs__Hello h;
	nng_msg   *m;
	char       why[300], label[32];
	uint64_t   seq = ((uint64_t)nng_random() << 32) | nng_random();
	int        rv;

	msg_init(&req, seq);
	ocs__hello__init(&h);
	h.host = "ocsctl";
	req.body_case = OCS__MSG__BODY_HELLO;
	req.hello = &h;
	if ((rv = msg_encode(&req, &m)) != 0)
		return (fail("%s: %s", what, msg_strerror(rv)));
	if ((rv = nng_sendmsg(sock, m, 0)) != 0) {
		nng_msg_free(m);
		return (fail("%s: sending to %s: %s", what, o->url,
		             nng_strerror(rv)));
	}
	if ((rv = nng_recvmsg(sock, &m, 0)) != 0)
		return (fail("%s: no challenge from ocsd at %s: %s", what,
		             o->url, nng_strerror(rv)));
	rv = msg_decode(nng_msg_body(m), nng_msg_len(m), &rep, why,
	                sizeof(why));
	nng_msg_free(m);
	if (rv != 0)
		return (fail("%s: bad answer from ocsd: %s", what, why));
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		fail("%s: %s", what, rep->error->text);
		msg_free(rep);
		return (1);
	}
	if (rep->body_case != OCS__MSG__BODY_CHALLENGE ||
	    rep->challenge->nonce.len != AUTH_NONCE) {
		msg_free(rep);
		return (fail("%s: ocsd answered the hello without a "
		             "challenge",
		             what));
	}
	memcpy(nonce, rep->challenge->nonce.data, AUTH_NONCE);
	msg_free(rep);
	snprintf(label, sizeof(label), "ocsctl:%d", q->op);
	if (auth_proof(o->secret, o->slen, nonce, AUTH_NONCE, label, proof) !=
	    0)
		return (fail("%s: cannot compute the proof", what));
	q->has_nonce = q->has_proof = 1;
	q->nonce.data = nonce;
	q->nonce.len = AUTH_NONCE;
	q->proof.data = proof;
	q->proof.len = AUTH_PROOF;
	return (0);
}

/* One request/reply exchange.  Returns 0 with *reply set, or 1 after
 * printing the error. */
static int
call(const struct opts *o, Ocs__CtlRequest *q, const char *what,
     Ocs__Msg **reply)
{
	uint8_t    nonce[AUTH_NONCE], proof[AUTH_PROOF];
	nng_socket sock;
	nng_msg   *m;
	Ocs__Msg   req;
	char       why[300];
	uint64_t   seq = ((uint64_t)nng_random() << 32) | nng_random();
	int        rv;

	*reply = NULL;
	msg_init(&req, seq);
	req.body_case = OCS__MSG__BODY_CTL;
	req.ctl = q;
	if ((rv = nng_req0_open(&sock)) != 0)
		return (fail("%s: %s", what, nng_strerror(rv)));
	nng_socket_set_ms(sock, NNG_OPT_RECVTIMEO, o->timeout_ms);
	nng_socket_set_ms(sock, NNG_OPT_SENDTIMEO, o->timeout_ms);
	nng_socket_set_size(sock, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* A request is never re-sent: operations are not idempotent. */
	nng_socket_set_ms(sock, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	if ((rv = link_dial(sock, o->url, o->ca, 0, why, sizeof(why))) != 0) {
		nng_close(sock);
		return (fail("cannot reach ocsd at %s", why));
	}
	if (o->slen && prove(o, sock, q, what, nonce, proof) != 0) {
		nng_close(sock);
		return (1);
	}
	if ((rv = msg_encode(&req, &m)) != 0) {
		nng_close(sock);
		return (fail("%s: %s", what, msg_strerror(rv)));
	}
	if ((rv = nng_sendmsg(sock, m, 0)) != 0) {
		nng_msg_free(m);
		nng_close(sock);
		return (fail("%s: sending to %s: %s", what, o->url,
		             nng_strerror(rv)));
	}
	if ((rv = nng_recvmsg(sock, &m, 0)) != 0) {
		nng_close(sock);
		return (fail("%s: no answer from ocsd at %s: %s", what, o->url,
		             nng_strerror(rv)));
	}
	rv = msg_decode(nng_msg_body(m), nng_msg_len(m), reply, why,
	                sizeof(why));
	nng_msg_free(m);
	nng_close(sock);
	if (rv != 0)
		return (fail("%s: bad answer from ocsd: %s", what, why));
	if (!(*reply)->has_seq || (*reply)->seq != seq) {
		msg_free(*reply);
		*reply = NULL;
		return (fail("%s: answer to another request", what));
	}
	if ((*reply)->body_case == OCS__MSG__BODY_ERROR) {
		const char *t = (*reply)->error->text;
		unsigned    entry;

		/* apply: turn "entry N" into FILE:LINE. */
		if (o->file && sscanf(t, "entry %u", &entry) == 1 &&
		    entry >= 1 && o->lines) {
			const char *rest = strchr(t, ':');
			fail("%s: %s:%u%s", what, o->file, o->lines[entry - 1],
			     rest ? rest : "");
		} else
			fail("%s: %s", what, t);
		msg_free(*reply);
		*reply = NULL;
		return (1);
	}
	if ((*reply)->body_case != OCS__MSG__BODY_CTL_REPLY) {
		msg_free(*reply);
		*reply = NULL;
		return (fail("%s: unexpected answer from ocsd", what));
	}
	return (0);
}

/* ---- output ------------------------------------------------------------- */

static json_t *
j_patches(Ocs__Patch **p, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "in", json_integer(p[i]->in));
		json_object_set_new(o, "out", json_integer(p[i]->out));
		if (p[i]->from)
			json_object_set_new(o, "from",
			                    json_string(p[i]->from));
		if (p[i]->to)
			json_object_set_new(o, "to", json_string(p[i]->to));
		json_array_append_new(a, o);
	}
	return (a);
}

static json_t *
j_report(const Ocs__RunReport *rr)
{
	json_t *o = json_object(), *ph = json_array(), *rb = json_array(),
	       *h = json_array();
	size_t i;

	json_object_set_new(o, "run_id", json_integer((json_int_t)rr->run_id));
	json_object_set_new(o, "algo", json_string(rr->algo));
	json_object_set_new(o, "nodes", json_integer(rr->nodes));
	json_object_set_new(o, "bytes", json_integer((json_int_t)rr->bytes));
	for (i = 0; i < rr->n_reconfigure_before; i++)
		json_array_append_new(rb,
		                      json_integer(rr->reconfigure_before[i]));
	json_object_set_new(o, "reconfigure_before", rb);
	for (i = 0; i < rr->n_phases; i++) {
		const Ocs__PhaseReport *p = rr->phases[i];
		json_t                 *e = json_object();

		json_object_set_new(e, "phase", json_integer(p->phase));
		json_object_set_new(e, "reconfigured",
		                    json_boolean(p->reconfigured));
		json_object_set_new(e, "reconf_s", json_real(p->reconf_s));
		json_object_set_new(e, "data_s", json_real(p->data_s));
		json_object_set_new(e, "barrier_s", json_real(p->barrier_s));
		json_object_set_new(e, "bytes",
		                    json_integer((json_int_t)p->bytes));
		json_object_set_new(e, "predicted_s",
		                    json_real(p->predicted_s));
		if (p->has_control_s)
			json_object_set_new(e, "control_s",
			                    json_real(p->control_s));
		json_array_append_new(ph, e);
	}
	json_object_set_new(o, "phases", ph);
	json_object_set_new(o, "total_s", json_real(rr->total_s));
	json_object_set_new(o, "predicted_s", json_real(rr->predicted_s));
	json_object_set_new(o, "blocks_verified",
	                    json_integer((json_int_t)rr->blocks_verified));
	json_object_set_new(o, "errors", json_integer((json_int_t)rr->errors));
	json_object_set_new(o, "verified",
	                    json_boolean(rr->errors == 0 && !rr->aborted));
	json_object_set_new(o, "delta_s", json_real(rr->delta_s));
	json_object_set_new(o, "bandwidth_bps", json_real(rr->bandwidth_bps));
	json_object_set_new(o, "alpha_s", json_real(rr->alpha_s));
	json_object_set_new(o, "alpha_h", json_real(rr->alpha_h));
	for (i = 0; i < rr->n_hosts; i++)
		json_array_append_new(h, json_string(rr->hosts[i]));
	json_object_set_new(o, "hosts", h);
	return (o);
}

static json_t *
j_reply(const Ocs__CtlReply *r)
{
	json_t *o = json_object();
	size_t  i;

	if (r->sw) {
		json_t *s = json_object();

		json_object_set_new(s, "driver", json_string(r->sw->driver));
		json_object_set_new(s, "address", json_string(r->sw->address));
		json_object_set_new(s, "connected",
		                    json_boolean(r->sw->connected));
		if (r->sw->has_ports)
			json_object_set_new(s, "ports",
			                    json_integer(r->sw->ports));
		if (r->sw->has_switch_ms)
			json_object_set_new(s, "switch_ms",
			                    json_integer(r->sw->switch_ms));
		if (r->sw->last_error)
			json_object_set_new(s, "last_error",
			                    json_string(r->sw->last_error));
		if (r->sw->warning)
			json_object_set_new(s, "warning",
			                    json_string(r->sw->warning));
		if (r->sw->has_last_op_ms)
			json_object_set_new(s, "last_op_ms",
			                    json_real(r->sw->last_op_ms));
		json_object_set_new(o, "switch", s);
	}
	if (r->has_in_sync)
		json_object_set_new(o, "in_sync", json_boolean(r->in_sync));
	if (r->has_live_age_ms)
		json_object_set_new(o, "live_age_ms",
		                    json_integer((json_int_t)r->live_age_ms));
	if (r->has_uptime_s)
		json_object_set_new(o, "uptime_s",
		                    json_integer((json_int_t)r->uptime_s));
	if (r->has_changed)
		json_object_set_new(o, "changed", json_integer(r->changed));
	if (r->message)
		json_object_set_new(o, "message", json_string(r->message));
	if (r->n_circuits) {
		json_t *a = json_array();

		for (i = 0; i < r->n_circuits; i++) {
			json_t *c = json_object();

			json_object_set_new(c, "a",
			                    json_string(r->circuits[i]->a));
			json_object_set_new(c, "b",
			                    json_string(r->circuits[i]->b));
			json_object_set_new(
			    c, "complete",
			    json_boolean(r->circuits[i]->complete));
			json_array_append_new(a, c);
		}
		json_object_set_new(o, "circuits", a);
	}
	if (r->n_live || r->sw)
		json_object_set_new(o, "live", j_patches(r->live, r->n_live));
	if (r->n_desired)
		json_object_set_new(o, "desired",
		                    j_patches(r->desired, r->n_desired));
	if (r->n_only_live || r->n_only_desired || r->has_in_sync) {
		json_object_set_new(o, "only_live",
		                    j_patches(r->only_live, r->n_only_live));
		json_object_set_new(
		    o, "only_desired",
		    j_patches(r->only_desired, r->n_only_desired));
	}
	if (r->n_agents) {
		json_t *a = json_array();

		for (i = 0; i < r->n_agents; i++) {
			json_t *t = json_object();

			json_object_set_new(
			    t, "agent_id",
			    json_integer(r->agents[i]->agent_id));
			json_object_set_new(t, "host",
			                    json_string(r->agents[i]->host));
			json_object_set_new(
			    t, "transceivers",
			    json_integer(r->agents[i]->transceivers));
			json_object_set_new(t, "state",
			                    json_string(r->agents[i]->state));
			json_array_append_new(a, t);
		}
		json_object_set_new(o, "agents", a);
	}
	if (r->report)
		json_object_set_new(o, "report", j_report(r->report));
	if (r->n_cabling) {
		json_t *a = json_array();

		for (i = 0; i < r->n_cabling; i++) {
			json_t *t = json_object();

			json_object_set_new(t, "name",
			                    json_string(r->cabling[i]->name));
			json_object_set_new(t, "in",
			                    json_integer(r->cabling[i]->in));
			json_object_set_new(t, "out",
			                    json_integer(r->cabling[i]->out));
			json_array_append_new(a, t);
		}
		json_object_set_new(o, "cabling", a);
	}
	return (o);
}

static int
print_json(const Ocs__CtlReply *r)
{
	json_t *o = j_reply(r);
	char   *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(6));

	json_decref(o);
	if (s == NULL)
		return (fail("out of memory"));
	printf("%s\n", s);
	free(s);
	return (0);
}

static void
t_switch(const Ocs__SwitchInfo *s)
{
	printf("switch %s %s: %s", s->driver, s->address,
	       s->connected ? "connected" : "NOT CONNECTED");
	if (s->has_ports)
		printf(", %ux%u", s->ports, s->ports);
	if (s->has_switch_ms)
		printf(", switching time %u ms", s->switch_ms);
	if (s->has_last_op_ms && s->last_op_ms > 0)
		printf(", last operation %.2f ms", s->last_op_ms);
	printf("\n");
	if (s->last_error)
		printf("last error: %s\n", s->last_error);
	if (s->warning)
		printf("warning: %s\n", s->warning);
}

static void
t_patches(const char *title, Ocs__Patch **p, size_t n)
{
	size_t i;

	printf("%s (%zu):\n", title, n);
	if (n)
		printf("  %5s %5s  %-16s %-16s\n", "in", "out", "from (TX)",
		       "to (RX)");
	for (i = 0; i < n; i++)
		printf("  %5u %5u  %-16s %-16s\n", p[i]->in, p[i]->out,
		       p[i]->from ? p[i]->from : "-",
		       p[i]->to ? p[i]->to : "-");
}

static void
t_sync(const Ocs__CtlReply *r)
{
	if (!r->has_in_sync)
		return;
	if (r->in_sync)
		printf("map: switch matches the desired map");
	else
		printf("map: DIVERGED from the desired map ('ocsctl map "
		       "diff')");
	if (r->has_live_age_ms)
		printf(" (read back %.1f s ago)", r->live_age_ms / 1000.0);
	printf("\n");
}

static int
print_text(const char *cmd, const Ocs__CtlReply *r)
{
	size_t i;

	if (strcmp(cmd, "show") == 0) {
		if (r->sw)
			t_switch(r->sw);
		t_sync(r);
		printf("circuits (%zu):\n", r->n_circuits);
		for (i = 0; i < r->n_circuits; i++)
			printf("  %-16s %s %s\n", r->circuits[i]->a,
			       r->circuits[i]->complete ? "<->" : " ->",
			       r->circuits[i]->b);
		t_patches("patches on the switch", r->live, r->n_live);
		printf("transceivers (%zu):\n", r->n_cabling);
		for (i = 0; i < r->n_cabling; i++)
			printf("  %-16s TX ingress %u, RX egress %u\n",
			       r->cabling[i]->name, r->cabling[i]->in,
			       r->cabling[i]->out);
		return (0);
	}
	if (strcmp(cmd, "status") == 0) {
		if (r->sw)
			t_switch(r->sw);
		t_sync(r);
		if (r->has_uptime_s)
			printf("ocsd up %llu s\n",
			       (unsigned long long)r->uptime_s);
		return (0);
	}
	if (strcmp(cmd, "diff") == 0 || strcmp(cmd, "adopt") == 0) {
		t_sync(r);
		t_patches("only on the switch", r->only_live, r->n_only_live);
		t_patches("only in the desired map", r->only_desired,
		          r->n_only_desired);
		return (0);
	}
	if (strcmp(cmd, "agents") == 0) {
		printf("%6s  %-20s %5s  %-8s %s\n", "agent", "host", "trx",
		       "state", "seen");
		for (i = 0; i < r->n_agents; i++)
			printf("%6u  %-20s %5u  %-8s %.1f s ago\n",
			       r->agents[i]->agent_id, r->agents[i]->host,
			       r->agents[i]->transceivers, r->agents[i]->state,
			       r->agents[i]->seen_ms_ago / 1000.0);
		return (0);
	}
	if (r->report) {
		const Ocs__RunReport *rr = r->report;
		char                  a[32], b[32], c[32], d[32], e[32];

		printf("run %llu: %s, %u nodes, %s per node, reconfigure "
		       "before",
		       (unsigned long long)rr->run_id, rr->algo, rr->nodes,
		       unit_fmt_size(rr->bytes, a, sizeof(a)));
		if (rr->n_reconfigure_before == 0)
			printf(" -");
		for (i = 0; i < rr->n_reconfigure_before; i++)
			printf("%s%u", i ? "," : " ",
			       rr->reconfigure_before[i]);
		printf("\nmodel: %s, alpha-s %s, alpha-h %s, delta %s\n",
		       unit_fmt_rate(rr->bandwidth_bps, a, sizeof(a)),
		       unit_fmt_time(rr->alpha_s, b, sizeof(b)),
		       unit_fmt_time(rr->alpha_h, c, sizeof(c)),
		       unit_fmt_time(rr->delta_s, d, sizeof(d)));
		printf("%5s  %12s %12s %12s %12s %12s\n", "phase", "reconf",
		       "data", "barrier", "bytes", "predicted");
		for (i = 0; i < rr->n_phases; i++) {
			const Ocs__PhaseReport *p = rr->phases[i];

			printf("%5u  %11s%c %12s %12s %12s %12s\n", p->phase,
			       p->reconfigured
			           ? unit_fmt_time(p->reconf_s, a, sizeof(a))
			           : "-",
			       p->reconfigured && p->phase == 0 ? '*' : ' ',
			       unit_fmt_time(p->data_s, b, sizeof(b)),
			       p->reconfigured
			           ? unit_fmt_time(p->barrier_s, c, sizeof(c))
			           : "-",
			       unit_fmt_size(p->bytes, d, sizeof(d)),
			       unit_fmt_time(p->predicted_s, e, sizeof(e)));
		}
		printf("total  %s (model %s); * phase 0's circuits are set up "
		       "before the collective\n",
		       unit_fmt_time(rr->total_s, a, sizeof(a)),
		       unit_fmt_time(rr->predicted_s, b, sizeof(b)));
		printf("verified: %llu blocks, %llu errors\n",
		       (unsigned long long)rr->blocks_verified,
		       (unsigned long long)rr->errors);
		return (0);
	}
	if (r->message)
		printf("%s\n", r->message);
	return (0);
}

/* ---- commands ----------------------------------------------------------- */

static int
run(const struct opts *o, Ocs__CtlRequest *q, const char *cmd,
    const char *what)
{
	Ocs__Msg *rep;
	int       rv;

	if ((rv = call(o, q, what, &rep)) != 0)
		return (rv);
	rv = o->json ? print_json(rep->ctl_reply)
	             : print_text(cmd, rep->ctl_reply);
	msg_free(rep);
	if (fflush(stdout) != 0)
		return (fail("writing output: %s", strerror(errno)));
	return (rv);
}

static int
do_simple(struct opts *o, int argc, char **argv, Ocs__CtlRequest__Op op)
{
	Ocs__CtlRequest q;

	if (argc != 1)
		return (fail("%s: takes no arguments", argv[0]) + 1);
	ocs__ctl_request__init(&q);
	q.op = op;
	return (run(o, &q, argv[0], argv[0]));
}

static int
do_show(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__SHOW));
}

static int
do_status(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__STATUS));
}

static int
do_clear(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__CLEAR));
}

static int
do_connect(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	Ocs__Endpoints  e, *ep = &e;
	char            what[300];

	if (argc != 3)
		return (fail("connect: expected two endpoints (A B)") + 1);
	ocs__ctl_request__init(&q);
	ocs__endpoints__init(&e);
	q.op = OCS__CTL_REQUEST__OP__CONNECT;
	e.a = argv[1];
	e.b = argv[2];
	q.n_pairs = 1;
	q.pairs = &ep;
	snprintf(what, sizeof(what), "connect %.100s %.100s", argv[1],
	         argv[2]);
	return (run(o, &q, "connect", what));
}

static int
do_disconnect(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[300];

	if (argc < 2)
		return (fail("disconnect: expected an endpoint") + 1);
	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__DISCONNECT;
	q.n_ports = (size_t)argc - 1;
	q.ports = argv + 1;
	snprintf(what, sizeof(what), "disconnect %.100s%s", argv[1],
	         argc > 2 ? " ..." : "");
	return (run(o, &q, "disconnect", what));
}

/* apply FILE: lines "A B", '#' comments; "-" is stdin. */
static int
do_apply(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	Ocs__Endpoints *e = NULL, **ep = NULL;
	char          **words = NULL, line[512], a[256], b[256], extra[2];
	size_t          n = 0, cap = 0, i;
	unsigned        lineno = 0;
	FILE           *f;
	int             rv;

	if (argc != 2)
		return (fail("apply: expected one FILE") + 1);
	f = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "r");
	if (f == NULL)
		return (fail("apply: %s: %s", argv[1], strerror(errno)));
	rv = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = line;
		int   k;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			rv = fail("apply: %s:%u: line too long", argv[1],
			          lineno);
			break;
		}
		s[strcspn(s, "#\r\n")] = '\0';
		k = sscanf(s, "%255s %255s %1s", a, b, extra);
		if (k <= 0)
			continue;
		if (k != 2) {
			rv = fail("apply: %s:%u: expected \"A B\", got \"%s\"",
			          argv[1], lineno, s);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			words = realloc(words, 2 * cap * sizeof(*words));
			o->lines = realloc(o->lines, cap * sizeof(*o->lines));
			if (words == NULL || o->lines == NULL) {
				rv = fail("apply: out of memory");
				break;
			}
		}
		words[2 * n] = strdup(a);
		words[2 * n + 1] = strdup(b);
		o->lines[n++] = lineno;
	}
	if (f != stdin)
		fclose(f);
	if (rv == 0) {
		e = calloc(n ? n : 1, sizeof(*e));
		ep = calloc(n ? n : 1, sizeof(*ep));
		if (e == NULL || ep == NULL)
			rv = fail("apply: out of memory");
	}
	if (rv == 0) {
		for (i = 0; i < n; i++) {
			ocs__endpoints__init(&e[i]);
			e[i].a = words[2 * i];
			e[i].b = words[2 * i + 1];
			ep[i] = &e[i];
		}
		ocs__ctl_request__init(&q);
		q.op = OCS__CTL_REQUEST__OP__APPLY;
		q.n_pairs = n;
		q.pairs = ep;
		o->file = argv[1];
		rv = run(o, &q, "apply", "apply");
	}
	for (i = 0; i < 2 * n; i++)
		free(words[i]);
	free(words);
	free(e);
	free(ep);
	return (rv);
}

static int
do_map(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[64];

	if (argc != 2)
		return (fail("map: expected diff, sync or adopt") + 1);
	ocs__ctl_request__init(&q);
	if (strcmp(argv[1], "diff") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_DIFF;
	else if (strcmp(argv[1], "sync") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_SYNC;
	else if (strcmp(argv[1], "adopt") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_ADOPT;
	else
		return (
		    fail("map \"%s\": expected diff, sync or adopt", argv[1]) +
		    1);
	snprintf(what, sizeof(what), "map %s", argv[1]);
	return (run(o, &q, argv[1], what));
}

static int
do_agents(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__AGENTS));
}

static int
do_abort(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__ABORT));
}

static int
do_run(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
	    {"algo", required_argument, NULL, 'a'},
	    {"bytes", required_argument, NULL, 'b'},
	    {"reconfig", required_argument, NULL, 'r'},
	    {"nodes", required_argument, NULL, 'n'},
	    {"bandwidth", required_argument, NULL, 'B'},
	    {"alpha-s", required_argument, NULL, 's'},
	    {"alpha-h", required_argument, NULL, 'h'},
	    {"delay", required_argument, NULL, 'd'},
	    {"chunk", required_argument, NULL, 'c'},
	    {NULL, 0, NULL, 0},
	};
	Ocs__CtlRequest q;
	Ocs__RunRequest rq;
	uint64_t        sz;
	double          t;
	char           *end;
	unsigned long   v;
	int             c;

	ocs__ctl_request__init(&q);
	ocs__run_request__init(&rq);
	q.op = OCS__CTL_REQUEST__OP__RUN;
	q.run = &rq;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		const char *a = optarg;

		switch (c) {
		case 'a':
			rq.algo = optarg;
			break;
		case 'b':
			if (unit_parse_size(a, &sz) != 0 || sz == 0)
				return (fail("run: --bytes \"%s\": expected a "
				             "size (B, KiB, MiB, GiB, KB, "
				             "MB, GB)",
				             a) +
				        1);
			rq.bytes = sz;
			break;
		case 'r':
			rq.reconfig = optarg;
			break;
		case 'n':
			if (strcmp(a, "all") == 0)
				break;
			v = strtoul(a, &end, 10);
			if (*a < '0' || *a > '9' || *end || v < 2 || v > 65535)
				return (fail("run: --nodes \"%s\": all, or a "
				             "number of agents (2 or more)",
				             a) +
				        1);
			rq.has_nodes = 1;
			rq.nodes = (uint32_t)v;
			break;
		case 'B':
			if (unit_parse_rate(a, &rq.bandwidth_bps) != 0)
				return (fail("run: --bandwidth \"%s\": "
				             "expected a rate (Gbps, GBps, "
				             "...)",
				             a) +
				        1);
			rq.has_bandwidth_bps = 1;
			break;
		case 's':
		case 'h':
		case 'd':
			if (unit_parse_time(a, &t) != 0)
				return (fail("run: --%s \"%s\": expected a "
				             "time (ns, us, ms, s)",
				             c == 's'   ? "alpha-s"
				             : c == 'h' ? "alpha-h"
				                        : "delay",
				             a) +
				        1);
			if (c == 's') {
				rq.has_alpha_s = 1;
				rq.alpha_s = t;
			} else if (c == 'h') {
				rq.has_alpha_h = 1;
				rq.alpha_h = t;
			} else {
				rq.has_delta = 1;
				rq.delta = t;
			}
			break;
		case 'c':
			if (unit_parse_size(a, &sz) != 0 || sz < 1024 ||
			    sz > (1u << 20))
				return (fail("run: --chunk \"%s\": 1KiB to "
				             "1MiB",
				             a) +
				        1);
			rq.has_chunk = 1;
			rq.chunk = (uint32_t)sz;
			break;
		case ':':
			return (
			    fail("run: %s: missing value", argv[optind - 1]) +
			    1);
		default:
			return (fail("run: \"%s\": unknown option",
			             argv[optind - 1]) +
			        1);
		}
	}
	if (optind != argc)
		return (
		    fail("run: \"%s\": unexpected argument", argv[optind]) +
		    1);
	if (rq.algo == NULL || rq.bytes == 0)
		return (fail("run: --algo and --bytes are required") + 1);
	/* A run takes as long as it takes: wait longer than for the rest. */
	if (!o->timeout_set)
		o->timeout_ms = 3600 * 1000;
	return (run(o, &q, "run", "run"));
}

static const struct cmd {
	const char *name;
	int (*fn)(struct opts *, int, char **);
} cmds[] = {
    {"show", do_show},       {"status", do_status},
    {"connect", do_connect}, {"disconnect", do_disconnect},
    {"apply", do_apply},     {"clear", do_clear},
    {"map", do_map},         {"agents", do_agents},
    {"run", do_run},         {"abort", do_abort},
};

int
main(int argc, char **argv)
{
	struct opts o;
	const char *secret;
	double      t;
	size_t      i;
	int         ch, rv;

	memset(&o, 0, sizeof(o));
	o.timeout_ms = 30000;
	conf_default_control(o.defurl, sizeof(o.defurl));
	o.url = getenv("OCSD_CONTROL") ? getenv("OCSD_CONTROL") : o.defurl;
	secret = getenv("OCSD_SECRET_FILE");
	o.ca = getenv("OCSD_TLS_CA");
	while ((ch = getopt(argc, argv, "+hjC:k:s:t:")) != -1) {
		switch (ch) {
		case 'j':
			o.json = 1;
			break;
		case 'k':
			secret = optarg;
			break;
		case 'C':
			o.ca = optarg;
			break;
		case 's':
			o.url = optarg;
			break;
		case 't':
			if (unit_parse_time(optarg, &t) != 0 || t < 0.001 ||
			    t > 3600)
				return (fail("-t \"%s\": expected a time "
				             "between 1ms and 1h (ms, s)",
				             optarg) +
				        1);
			o.timeout_ms = (int)(t * 1000);
			o.timeout_set = 1;
			break;
		default:
			return (usage());
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return (usage());
	if (secret != NULL && *secret != '\0') {
		char err[300];

		if (auth_read_secret(secret, o.secret, &o.slen, err,
		                     sizeof(err)) != 0)
			return (fail("-k: %s", err));
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].name, argv[0]) == 0) {
			rv = cmds[i].fn(&o, argc, argv);
			free(o.lines);
			nng_fini();
			return (rv);
		}
	fail("\"%s\": unknown command (show, status, connect, disconnect, "
	     "apply, clear, map)",
	     argv[0]);
	return (2);
}

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

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "ocsd/err.h"
#include "ocsd/ocsctl.h"
#include "proto/auth.h"
#include "proto/base/path.h"
#include "proto/base/units.h"
#include "proto/base/version.h"
#include "proto/link.h"
#include "proto/msg.h"

struct opts {
	const char          *url;
	int                  timeout_ms;
	int                  timeout_set;
	char                 defurl[PATH_MAX + 16];
	const char          *file; /* apply: for line numbers in errors */
	uint32_t            *lines;
	size_t               nlines;
	uint8_t              secret[AUTH_SEC_MAX + 1];
	size_t               slen; /* 0: no proof sent */
	const char          *ca;   /* tls+tcp:// */
	const struct output *out;
	int                  force; /* --force: see take_force */
};

int
ocsctl_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ocsctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return (1);
}

/* On stdout for -h (exit 0), on stderr for a usage error (exit 2). */
static int
usage(FILE *f, int rv)
{
	fprintf(
	    f,
	    "usage: ocsctl [-j|--json] [-C CA_FILE] [-k SECRET_FILE] "
	    "[-s ADDRESS] [-t TIMEOUT] COMMAND\n"
	    "       ocsctl -h|--help | --version\n"
	    "  show                 switch, circuits, patches, cabling\n"
	    "  status               daemon and switch health\n"
	    "  connect A B          circuit between transceivers, or patch "
	    "ingress-egress\n"
	    "  disconnect A [B...]  remove what A is patched with\n"
	    "  apply [--force] FILE make FILE (lines \"A B\", - for stdin) "
	    "the "
	    "whole map,\n"
	    "                       one batch; an empty one only with "
	    "--force\n"
	    "  clear                remove every patch\n"
	    "  (connect, disconnect, apply, clear and map sync wait for a run "
	    "to end;\n"
	    "   --force aborts the run first)\n"
	    "  map diff|sync|adopt  compare / push desired / keep the "
	    "switch's\n"
	    "  agents [evict HOST]  the joined host agents; forget one (a "
	    "live one joins again)\n"
	    "  run --algo retri|bridge|static --bytes SIZE [--reconfig "
	    "auto|none|all|k,...]\n"
	    "      [--nodes all|N] [--bandwidth RATE] [--alpha-s TIME] "
	    "[--alpha-h TIME]\n"
	    "      [--delay TIME] [--chunk SIZE] [--keep]\n"
	    "                       run an All-to-All on the agents, "
	    "report per phase\n"
	    "  abort                abort the running collective\n");
	return (rv);
}

/* An error that ends the command, in the output's format; returns 1. */
__attribute__((__format__(printf, 2, 3))) static int
say(const struct opts *o, const char *fmt, ...)
{
	va_list ap;
	char    msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->out->error(msg);
	return (1);
}

/* Hello -> Challenge on the socket, then the proof into q. */
static int
prove(const struct opts *o, nng_socket sock, Ocs__CtlRequest *q,
      const char *what, uint8_t nonce[AUTH_NONCE], uint8_t proof[AUTH_PROOF])
{
	Ocs__Msg   req, *rep;
	Ocs__Hello h;
	char       why[400], peer[300], label[32];
	uint64_t   seq = ((uint64_t)nng_random() << 32) | nng_random();

	msg_init(&req, seq);
	ocs__hello__init(&h);
	h.host = "ocsctl";
	req.body_case = OCS__MSG__BODY_HELLO;
	req.hello = &h;
	snprintf(peer, sizeof(peer), "ocsd at %s", o->url);
	if (msg_call(sock, &req, peer, &rep, why, sizeof(why)) != 0)
		return (say(o, "%s: %s", what, why));
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		say(o, "%s: %s", what, rep->error->text);
		msg_free(rep);
		return (1);
	}
	if (rep->body_case != OCS__MSG__BODY_CHALLENGE ||
	    rep->challenge->nonce.len != AUTH_NONCE) {
		msg_free(rep);
		return (say(o,
		            "%s: ocsd answered the hello without a "
		            "challenge",
		            what));
	}
	memcpy(nonce, rep->challenge->nonce.data, AUTH_NONCE);
	msg_free(rep);
	snprintf(label, sizeof(label), "ocsctl:%d", q->op);
	if (auth_proof(o->secret, o->slen, nonce, AUTH_NONCE, label, proof) !=
	    0)
		return (say(o, "%s: cannot compute the proof", what));
	q->has_nonce = q->has_proof = 1;
	q->nonce.data = nonce;
	q->nonce.len = AUTH_NONCE;
	q->proof.data = proof;
	q->proof.len = AUTH_PROOF;
	return (0);
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
 * printing the error. */
static int
call(const struct opts *o, Ocs__CtlRequest *q, const char *what,
     Ocs__Msg **reply)
{
	uint8_t    nonce[AUTH_NONCE], proof[AUTH_PROOF];
	nng_socket sock;
	Ocs__Msg   req;
	char       why[400], peer[300];
	uint64_t   seq = ((uint64_t)nng_random() << 32) | nng_random();
	int        rv;

	*reply = NULL;
	msg_init(&req, seq);
	req.body_case = OCS__MSG__BODY_CTL;
	req.ctl = q;
	if ((rv = nng_req0_open(&sock)) != 0)
		return (say(o, "%s: %s", what, nng_strerror(rv)));
	nng_socket_set_ms(sock, NNG_OPT_RECVTIMEO, o->timeout_ms);
	nng_socket_set_ms(sock, NNG_OPT_SENDTIMEO, o->timeout_ms);
	nng_socket_set_size(sock, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* A request is never re-sent: operations are not idempotent. */
	nng_socket_set_ms(sock, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	if ((rv = link_dial(sock, o->url, o->ca, 0, why, sizeof(why))) != 0) {
		nng_close(sock);
		return (say(o, "cannot reach ocsd at %s", why));
	}
	if (o->slen && prove(o, sock, q, what, nonce, proof) != 0) {
		nng_close(sock);
		return (1);
	}
	snprintf(peer, sizeof(peer), "ocsd at %s", o->url);
	rv = msg_call(sock, &req, peer, reply, why, sizeof(why));
	nng_close(sock);
	if (rv != 0)
		return (say(o, "%s: %s", what, why));
	if ((*reply)->body_case == OCS__MSG__BODY_ERROR) {
		char t[1024];

		say(o, "%s: %s", what,
		    entries_as_lines(o, (*reply)->error->text, t, sizeof(t)));
		/* An argument ocsd found wrong is a usage error too. */
		rv = (*reply)->error->code == -OCSD_EUSAGE ? 2 : 1;
		msg_free(*reply);
		*reply = NULL;
		return (rv);
	}
	if ((*reply)->body_case != OCS__MSG__BODY_CTL_REPLY) {
		msg_free(*reply);
		*reply = NULL;
		return (say(o, "%s: unexpected answer from ocsd", what));
	}
	return (0);
}

/* ---- commands ----------------------------------------------------------- */

/*
 * --force anywhere after a command that changes circuits: go ahead even
 * during a run (ocsd aborts it first), and apply even an empty map.
 */
static void
take_force(struct opts *o, int *argc, char **argv)
{
	int i, j;

	for (i = j = 1; i < *argc; i++)
		if (strcmp(argv[i], "--force") == 0)
			o->force = 1;
		else
			argv[j++] = argv[i];
	*argc = j;
	argv[j] = NULL;
}

/* Ask, and print the answer as a kind of reply, in the chosen format. */
static int
run(const struct opts *o, Ocs__CtlRequest *q, enum out_kind kind,
    const char *what)
{
	Ocs__Msg *rep;
	int       rv;

	if (o->force) {
		q->has_force = 1;
		q->force = 1;
	}
	if ((rv = call(o, q, what, &rep)) != 0)
		return (rv);
	rv = o->out->print[kind](rep->ctl_reply);
	msg_free(rep);
	if (fflush(stdout) != 0)
		return (ocsctl_fail("writing output: %s", strerror(errno)));
	return (rv);
}

static int
do_simple(struct opts *o, int argc, char **argv, Ocs__CtlRequest__Op op,
          enum out_kind kind)
{
	Ocs__CtlRequest q;

	if (argc != 1)
		return (ocsctl_fail("%s: takes no arguments", argv[0]) + 1);
	ocs__ctl_request__init(&q);
	q.op = op;
	return (run(o, &q, kind, argv[0]));
}

static int
do_show(struct opts *o, int argc, char **argv)
{
	return (
	    do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__SHOW, OUT_SHOW));
}

static int
do_status(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__STATUS,
	                  OUT_STATUS));
}

static int
do_clear(struct opts *o, int argc, char **argv)
{
	take_force(o, &argc, argv);
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__CLEAR,
	                  OUT_MESSAGE));
}

static int
do_connect(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	Ocs__Endpoints  e, *ep = &e;
	char            what[300];

	take_force(o, &argc, argv);
	if (argc != 3)
		return (ocsctl_fail("connect: expected two endpoints (A B)") +
		        1);
	ocs__ctl_request__init(&q);
	ocs__endpoints__init(&e);
	q.op = OCS__CTL_REQUEST__OP__CONNECT;
	e.a = argv[1];
	e.b = argv[2];
	q.n_pairs = 1;
	q.pairs = &ep;
	/* ocsd's answer names the endpoints: not echoed here again. */
	snprintf(what, sizeof(what), "connect");
	return (run(o, &q, OUT_MESSAGE, what));
}

static int
do_disconnect(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[300];

	take_force(o, &argc, argv);
	if (argc < 2)
		return (ocsctl_fail("disconnect: expected an endpoint") + 1);
	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__DISCONNECT;
	q.n_ports = (size_t)argc - 1;
	q.ports = argv + 1;
	snprintf(what, sizeof(what), "disconnect %.100s%s", argv[1],
	         argc > 2 ? " ..." : "");
	return (run(o, &q, OUT_MESSAGE, what));
}

/* A word ocsd would take: printable ASCII (sscanf split it at spaces). */
static int
printable(const char *w)
{
	for (; *w; w++)
		if ((unsigned char)*w < 0x21 || (unsigned char)*w > 0x7e)
			return (0);
	return (1);
}

/* s with anything unprintable as \xNN, cut to fit: a binary file's bytes
 * are not for the terminal. */
static const char *
escape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f)
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, len - n, "\\x%02x", c);
	}
	out[n] = '\0';
	return (out);
}

/*
 * apply [--force] FILE: lines "A B", '#' comments; "-" is stdin.  The
 * file is the whole map, so a file that cannot be read, or holds no
 * patch, would clear every circuit: that is refused without --force.
 */
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

	take_force(o, &argc, argv);
	if (argc != 2 || argv[1][0] == '\0')
		return (ocsctl_fail("apply: expected [--force] FILE") + 1);
	f = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "r");
	if (f == NULL)
		return (
		    ocsctl_fail("apply: %s: %s", argv[1], strerror(errno)));
	rv = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = line;
		int   k;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			rv = ocsctl_fail("apply: %s:%u: line too long",
			                 argv[1], lineno);
			break;
		}
		s[strcspn(s, "#\r\n")] = '\0';
		k = sscanf(s, "%255s %255s %1s", a, b, extra);
		if (k <= 0)
			continue;
		if (k != 2 || !printable(a) || !printable(b)) {
			char shown[200];

			rv = ocsctl_fail(
			    "apply: %s:%u: expected \"A B\", got \"%s\"",
			    argv[1], lineno, escape(s, shown, sizeof(shown)));
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			words = realloc(words, 2 * cap * sizeof(*words));
			o->lines = realloc(o->lines, cap * sizeof(*o->lines));
			if (words == NULL || o->lines == NULL) {
				rv = ocsctl_fail("apply: out of memory");
				break;
			}
		}
		words[2 * n] = strdup(a);
		words[2 * n + 1] = strdup(b);
		o->lines[n++] = lineno;
	}
	/* A read error (a directory, a device) is not an end of file. */
	if (rv == 0 && ferror(f))
		rv = ocsctl_fail("apply: %s: %s", argv[1],
		                 strerror(errno ? errno : EIO));
	if (f != stdin)
		fclose(f);
	if (rv == 0 && n == 0 && !o->force)
		rv = ocsctl_fail("apply: %s: no patches; an empty map clears "
		                 "every circuit (apply --force, or ocsctl "
		                 "clear)",
		                 argv[1]);
	if (rv == 0) {
		e = calloc(n ? n : 1, sizeof(*e));
		ep = calloc(n ? n : 1, sizeof(*ep));
		if (e == NULL || ep == NULL)
			rv = ocsctl_fail("apply: out of memory");
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
		o->nlines = n;
		rv = run(o, &q, OUT_MESSAGE, "apply");
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

	take_force(o, &argc, argv);
	if (argc != 2)
		return (ocsctl_fail("map: expected diff, sync or adopt") + 1);
	ocs__ctl_request__init(&q);
	if (strcmp(argv[1], "diff") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_DIFF;
	else if (strcmp(argv[1], "sync") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_SYNC;
	else if (strcmp(argv[1], "adopt") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_ADOPT;
	else
		return (ocsctl_fail("map \"%s\": expected diff, sync or adopt",
		                    argv[1]) +
		        1);
	snprintf(what, sizeof(what), "map %s", argv[1]);
	return (run(o, &q,
	            q.op == OCS__CTL_REQUEST__OP__MAP_SYNC ? OUT_MESSAGE
	                                                   : OUT_DIFF,
	            what));
}

/* agents, or agents evict HOST. */
static int
do_agents(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[100];

	if (argc > 1 && strcmp(argv[1], "evict") == 0) {
		if (argc != 3)
			return (ocsctl_fail("agents evict: expected a HOST") +
			        1);
		ocs__ctl_request__init(&q);
		q.op = OCS__CTL_REQUEST__OP__EVICT;
		q.n_ports = 1;
		q.ports = argv + 2;
		snprintf(what, sizeof(what), "agents evict %.64s", argv[2]);
		return (run(o, &q, OUT_MESSAGE, what));
	}
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__AGENTS,
	                  OUT_AGENTS));
}

static int
do_abort(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__ABORT,
	                  OUT_MESSAGE));
}

/* One option of run into rq: 0, or 2 after saying what is wrong. */
static int
run_opt(int c, const char *a, Ocs__RunRequest *rq)
{
	uint64_t      sz;
	double        t;
	char         *end;
	unsigned long v;

	switch (c) {
	case 'a':
		rq->algo = (char *)(uintptr_t)a;
		return (0);
	case 'b':
		if (unit_parse_size(a, &sz) != 0 || sz == 0)
			return (
			    ocsctl_fail("run: --bytes \"%s\": expected a "
			                "size (B, KiB, MiB, GiB, KB, MB, GB)",
			                a) +
			    1);
		rq->bytes = sz;
		return (0);
	case 'r':
		rq->reconfig = (char *)(uintptr_t)a;
		return (0);
	case 'n':
		if (strcmp(a, "all") == 0)
			return (0);
		v = strtoul(a, &end, 10);
		if (*a < '0' || *a > '9' || *end || v < 2 || v > 65535)
			return (ocsctl_fail("run: --nodes \"%s\": all, or a "
			                    "number of agents (2 or more)",
			                    a) +
			        1);
		rq->has_nodes = 1;
		rq->nodes = (uint32_t)v;
		return (0);
	case 'B':
		if (unit_parse_rate(a, &rq->bandwidth_bps) != 0)
			return (
			    ocsctl_fail("run: --bandwidth \"%s\": expected "
			                "a rate (Gbps, GBps, ...)",
			                a) +
			    1);
		rq->has_bandwidth_bps = 1;
		return (0);
	case 's':
	case 'h':
	case 'd':
		if (unit_parse_time(a, &t) != 0)
			return (
			    ocsctl_fail("run: --%s \"%s\": expected a time "
			                "(ns, us, ms, s)",
			                c == 's'   ? "alpha-s"
			                : c == 'h' ? "alpha-h"
			                           : "delay",
			                a) +
			    1);
		if (c == 's')
			rq->has_alpha_s = 1, rq->alpha_s = t;
		else if (c == 'h')
			rq->has_alpha_h = 1, rq->alpha_h = t;
		else
			rq->has_delta = 1, rq->delta = t;
		return (0);
	case 'c':
		if (unit_parse_size(a, &sz) != 0 || sz < 1024 ||
		    sz > (1u << 20))
			return (ocsctl_fail(
			            "run: --chunk \"%s\": 1KiB to 1MiB", a) +
			        1);
		rq->has_chunk = 1;
		rq->chunk = (uint32_t)sz;
		return (0);
	}
	return (2);
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
	    {"keep", no_argument, NULL, 'K'},
	    {NULL, 0, NULL, 0},
	};
	Ocs__CtlRequest q;
	Ocs__RunRequest rq;
	int             c, rv;

	ocs__ctl_request__init(&q);
	ocs__run_request__init(&rq);
	q.op = OCS__CTL_REQUEST__OP__RUN;
	q.run = &rq;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		if (c == ':')
			return (ocsctl_fail("run: %s: missing value",
			                    argv[optind - 1]) +
			        1);
		if (c == 'K') {
			rq.has_keep = rq.keep = 1;
			continue;
		}
		if (c == '?' || strchr("abrnBshdc", c) == NULL)
			return (ocsctl_fail("run: \"%s\": unknown option",
			                    argv[optind - 1]) +
			        1);
		if ((rv = run_opt(c, optarg, &rq)) != 0)
			return (rv);
	}
	if (optind != argc)
		return (ocsctl_fail("run: \"%s\": unexpected argument",
		                    argv[optind]) +
		        1);
	if (rq.algo == NULL || rq.bytes == 0)
		return (ocsctl_fail("run: --algo and --bytes are required") +
		        1);
	/* A run takes as long as it takes: wait longer than for the rest. */
	if (!o->timeout_set)
		o->timeout_ms = 3600 * 1000;
	return (run(o, &q, OUT_REPORT, "run"));
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

/* The commands there are, from the table, so the list is never short. */
static void
unknown(const char *cmd)
{
	char   list[256] = "";
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		         "%s%s", i ? ", " : "", cmds[i].name);
	ocsctl_fail("\"%s\": unknown command (%s)", cmd, list);
}

static const struct option longopts[] = {
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
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
	o.out = &output_text;
	o.timeout_ms = 30000;
	path_default_control(o.defurl, sizeof(o.defurl));
	o.url = getenv("OCSD_CONTROL") ? getenv("OCSD_CONTROL") : o.defurl;
	secret = getenv("OCSD_SECRET_FILE");
	o.ca = getenv("OCSD_TLS_CA");
	/* getopt would read -json as -j -s on: say what was meant. */
	for (i = 1; i < (size_t)argc; i++)
		if (strcmp(argv[i], "-json") == 0)
			return (ocsctl_fail(
			            "-json: did you mean --json (or -j)?") +
			        1);
	while ((ch = getopt_long(argc, argv, "+hjC:k:s:t:", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'h':
			return (usage(stdout, 0));
		case 'V':
			printf("ocsctl %s\n", OCS_VERSION);
			return (0);
		case 'j':
			o.out = &output_json;
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
				return (
				    ocsctl_fail("-t \"%s\": expected a time "
				                "between 1ms and 1h (ms, s)",
				                optarg) +
				    1);
			o.timeout_ms = (int)(t * 1000);
			o.timeout_set = 1;
			break;
		default:
			return (usage(stderr, 2));
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return (usage(stderr, 2));
	if (secret != NULL && *secret != '\0') {
		char err[300];

		if (auth_read_secret(secret, o.secret, &o.slen, err,
		                     sizeof(err)) != 0)
			return (ocsctl_fail("-k: %s", err));
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].name, argv[0]) == 0) {
			rv = cmds[i].fn(&o, argc, argv);
			free(o.lines);
			nng_fini();
			return (rv);
		}
	unknown(argv[0]);
	return (2);
}

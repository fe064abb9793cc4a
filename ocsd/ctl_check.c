/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The checks an operator request passes before ocsd acts on it: body,
 * operation, counts and every string.  Pure, so it is unit-tested and
 * fuzzed apart from the daemon.
 */
#include <stdio.h>
#include <string.h>

#include "ocs-drivers/drv.h"
#include "collectives/tmat.h"
#include "ocsd/ctl_check.h"
#include "proto/msg.h"

/* The checks a request passes before anything acts on it. */
/* A run's traffic matrix: n * n counts for 2 <= n <= TMAT_MAX_N, each
 * at most TMAT_MAX_ENTRY; its name printable. */
static int
check_matrix(const Ocs__RunRequest *r, char *why, size_t len)
{
	size_t n = 0, i;

	if (r->has_radix &&
	    (r->radix < 3 || r->radix > 9 || r->radix % 2 == 0)) {
		snprintf(why, len, "run: radix %u (3, 5, 7 or 9)", r->radix);
		return (-MSG_EFIELD);
	}
	if (r->planes && strcmp(r->planes, "together") != 0 &&
	    strcmp(r->planes, "apart") != 0 &&
	    strcmp(r->planes, "auto") != 0) {
		snprintf(why, len,
		         "run: planes \"%.40s\": together, apart or auto",
		         msg_str_ok(r->planes) ? r->planes : "?");
		return (-MSG_EFIELD);
	}
	if (r->matrix_name && !msg_str_ok(r->matrix_name)) {
		snprintf(why, len, "run: matrix_name bad");
		return (-MSG_EFIELD);
	}
	if (r->n_matrix == 0)
		return (0);
	while (n * n < r->n_matrix && n <= TMAT_MAX_N)
		n++;
	if (n * n != r->n_matrix || n < 2 || n > TMAT_MAX_N) {
		snprintf(why, len,
		         "run: matrix of %zu counts is not n x n for n in "
		         "2..%u",
		         r->n_matrix, TMAT_MAX_N);
		return (-MSG_EFIELD);
	}
	for (i = 0; i < r->n_matrix; i++)
		if (r->matrix[i] > TMAT_MAX_ENTRY) {
			snprintf(why, len,
			         "run: matrix row %zu, column %zu: %llu bytes "
			         "(at most 1 PiB)",
			         i / n + 1, i % n + 1,
			         (unsigned long long)r->matrix[i]);
			return (-MSG_EFIELD);
		}
	return (0);
}

/* A synthesised collective: its name, chunks 1..CTL_MAX_CHUNKS and a
 * topology of printable text (a generator or JSON, lines allowed). */
static int
check_topo(const Ocs__RunRequest *r, char *why, size_t len)
{
	size_t i;

	if (r->collective && !msg_str_ok(r->collective)) {
		snprintf(why, len, "run: collective bad");
		return (-MSG_EFIELD);
	}
	if (r->has_chunks && (r->chunks < 1 || r->chunks > CTL_MAX_CHUNKS)) {
		snprintf(why, len, "run: chunks %u (1..%u)", r->chunks,
		         CTL_MAX_CHUNKS);
		return (-MSG_EFIELD);
	}
	if (r->topology == NULL)
		return (0);
	for (i = 0; r->topology[i]; i++)
		if (i == CTL_MAX_TOPOLOGY ||
		    ((unsigned char)r->topology[i] < 0x20 &&
		     !strchr("\t\r\n", r->topology[i])) ||
		    r->topology[i] == 0x7f) {
			snprintf(why, len,
			         "run: topology: byte %zu is not text (or "
			         "more than %u bytes)",
			         i, CTL_MAX_TOPOLOGY);
			return (-MSG_EFIELD);
		}
	if (i == 0) {
		snprintf(why, len, "run: topology empty");
		return (-MSG_EFIELD);
	}
	return (0);
}

/* Servers: 1 to 8 GPUs (a node's local links are ports of its
 * executor), local links of 1 kbps to 10 Tbps with a latency under 1 s. */
static int
check_servers(const Ocs__RunRequest *r, char *why, size_t len)
{
	if (r->has_gpus_per_server &&
	    (r->gpus_per_server < 1 || r->gpus_per_server > 8)) {
		snprintf(why, len, "run: gpus_per_server %u (1..8)",
		         r->gpus_per_server);
		return (-MSG_EFIELD);
	}
	if (r->has_scaleup_bps &&
	    !(r->scaleup_bps >= 1e3 && r->scaleup_bps <= 1e13)) {
		snprintf(why, len, "run: scaleup_bps %g (1 kbps to 10 Tbps)",
		         r->scaleup_bps);
		return (-MSG_EFIELD);
	}
	if (r->has_scaleup_alpha &&
	    !(r->scaleup_alpha >= 0 && r->scaleup_alpha < 1)) {
		snprintf(why, len, "run: scaleup_alpha %g (0 to 1 s)",
		         r->scaleup_alpha);
		return (-MSG_EFIELD);
	}
	return (0);
}

int
ctl_check(const Ocs__Msg *m, char *why, size_t len)
{
	const Ocs__CtlRequest *q;
	size_t                 i;
	int                    rv;

	if (m->body_case == OCS__MSG__BODY_HELLO) {
		if (!msg_str_ok(m->hello->host)) {
			snprintf(why, len, "hello: bad name");
			return (-MSG_EFIELD);
		}
		return (0);
	}
	if (m->body_case != OCS__MSG__BODY_CTL) {
		snprintf(why, len, "expected a control request, got body %d",
		         m->body_case);
		return (-MSG_EBODY);
	}
	q = m->ctl;
	if (q->op < OCS__CTL_REQUEST__OP__SHOW ||
	    q->op > OCS__CTL_REQUEST__OP__PROBE) {
		snprintf(why, len, "unknown operation %d", q->op);
		return (-MSG_EFIELD);
	}
	if (q->op == OCS__CTL_REQUEST__OP__PROBE && q->has_wait_ms &&
	    (q->wait_ms < CTL_PROBE_MIN_MS || q->wait_ms > CTL_PROBE_MAX_MS)) {
		snprintf(why, len, "wait_ms %u: a probe waits %u to %u ms",
		         q->wait_ms, CTL_PROBE_MIN_MS, CTL_PROBE_MAX_MS);
		return (-MSG_EFIELD);
	}
	if (q->switch_name != NULL &&
	    (!msg_str_ok(q->switch_name) || strlen(q->switch_name) > 64)) {
		snprintf(why, len, "switch_name bad");
		return (-MSG_EFIELD);
	}
	/* A map longer than the switch has ports is refused later, at its
	 * first entry that cannot be (out of range, or a port used twice),
	 * which names the line; this only bounds the work. */
	if (q->n_pairs > CTL_MAX_PAIRS || q->n_ports > 64) {
		snprintf(why, len, "%zu entries, %zu ports: too many",
		         q->n_pairs, q->n_ports);
		return (-MSG_EFIELD);
	}
	for (i = 0; i < q->n_pairs; i++)
		if (!msg_str_ok(q->pairs[i]->a) ||
		    !msg_str_ok(q->pairs[i]->b)) {
			snprintf(why, len,
			         "entry %zu: empty, too long or "
			         "unprintable endpoint",
			         i + 1);
			return (-MSG_EFIELD);
		}
	for (i = 0; i < q->n_ports; i++)
		if (!msg_str_ok(q->ports[i])) {
			snprintf(
			    why, len,
			    "endpoint %zu: empty, too long or unprintable",
			    i + 1);
			return (-MSG_EFIELD);
		}
	if (q->op == OCS__CTL_REQUEST__OP__FAULT &&
	    (q->fault == NULL || !msg_str_ok(q->fault))) {
		snprintf(why, len, "fault: a spec is needed");
		return (-MSG_EFIELD);
	}
	if (q->op == OCS__CTL_REQUEST__OP__CAPTURE &&
	    (!q->has_run_id || q->run_id == 0)) {
		snprintf(why, len, "capture: a run id is needed");
		return (-MSG_EFIELD);
	}
	if (q->op == OCS__CTL_REQUEST__OP__EVICT && q->n_ports != 1) {
		snprintf(why, len, "evict: one host");
		return (-MSG_EFIELD);
	}
	if (q->op == OCS__CTL_REQUEST__OP__RUN &&
	    (q->run == NULL || !msg_str_ok(q->run->algo) ||
	     (q->run->reconfig && !msg_str_ok(q->run->reconfig)))) {
		snprintf(why, len, "run: algo or reconfig missing or bad");
		return (-MSG_EFIELD);
	}
	if (q->op == OCS__CTL_REQUEST__OP__RUN &&
	    (rv = check_matrix(q->run, why, len)) != 0)
		return (rv);
	if (q->op == OCS__CTL_REQUEST__OP__RUN &&
	    (rv = check_servers(q->run, why, len)) != 0)
		return (rv);
	if (q->op == OCS__CTL_REQUEST__OP__RUN)
		return (check_topo(q->run, why, len));
	return (0);
}

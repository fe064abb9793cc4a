/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scripted TL1 device for driver tests: a thread on a loopback port
 * that answers each command by its verb with fixed data lines (a real
 * device's, from a client's fixtures), in GR-831 framing with the
 * device's SID, and an optional prompt after every reply.  It keeps what
 * it was sent, one command a line, for the test to check.
 */
#ifndef OCS_TESTS_TL1DEV_H
#define OCS_TESTS_TL1DEV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct tl1dev_reply {
	const char        *verb;  /* "RTRV-PATCH" */
	const char *const *lines; /* data lines, unquoted */
	size_t             nlines;
};

struct tl1dev {
	const char                *sid;    /* the header's, "( nil )" too */
	const char                *prompt; /* "agent>", or NULL */
	const struct tl1dev_reply *r;      /* verbs not here: COMPLD */
	size_t                     nr;
	int  reverse; /* answer the commands of one read last first */
	char sent[8192];
	int  most_in_one_read; /* commands, for a check of pipelining */
	/* inside */
	int       lfd;
	uint16_t  port;
	pthread_t th;
};

/* Listen on 127.0.0.1, ephemeral port (in ->port), and serve.  0/-1. */
int  tl1dev_start(struct tl1dev *);
void tl1dev_stop(struct tl1dev *);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The floor of a barrier over nng on this machine: n REQ clients in
 * procs child processes (one socket and connection each, over IPC, as
 * the benches' agents: one process for ocs-load's, one each for real
 * agents) each send a Ready and wait; one REP server in this
 * process holds every Ready on its own context, as ocsd does, and
 * answers them all (the release).  A round is the release to the last
 * Ready back: ocsd's barrier without protobuf, the run's state or the
 * switch.  The median of `rounds` in ms, or -1.
 */
#ifndef OCS_TESTS_NNG_FLOOR_H
#define OCS_TESTS_NNG_FLOOR_H

#include <stdint.h>
#include <sys/types.h>

double nng_floor_ms(uint32_t n, uint32_t procs, int rounds);
/* Called first in main(): in the child started by nng_floor_ms() it
 * runs the clients and never returns. */
void nng_floor_child(int argc, char **argv);

/*
 * The same barrier over bare sockets (sock_floor.c): n clients in procs
 * child processes, one Unix stream each, in one epoll loop a process;
 * the server in this thread writes every release and reads the Readys
 * in one epoll loop.  No messaging library, no thread hand-offs: what
 * the barrier costs on this machine in system calls and wake-ups alone.
 */
double sock_floor_ms(uint32_t n, uint32_t procs, int rounds);
void   sock_floor_child(int argc, char **argv);

/* Both: procs children, n clients among them, each a re-exec of this
 * program with flag, addr and its count (a fork would carry nng's
 * threads); 0 or -1.  The median of t[0..n), which it sorts. */
int floor_spawn(const char *flag, const char *addr, uint32_t n, uint32_t procs,
                pid_t *pid);
double floor_median(double *t, int n);

#endif

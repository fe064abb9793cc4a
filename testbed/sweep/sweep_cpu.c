/* SPDX-License-Identifier: BSD-2-Clause */
/* CPU used by a testbed's processes and the machine (see sweep_cpu.h). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/base/mono.h"
#include "testbed/sweep/sweep_cpu.h"

int
cpu_parse_stat(const char *text, char *name, size_t len, uint64_t *ticks)
{
	const char        *l = strchr(text, '('), *r = strrchr(text, ')');
	unsigned long long ut, st;
	int                k;

	/* The name is between the first '(' and the last ')': it may hold
	 * blanks and parentheses itself. */
	if (l == NULL || r == NULL || r < l || len == 0)
		return (-1);
	snprintf(name, len, "%.*s", (int)(r - l - 1), l + 1);
	/* After the name: state, then fields 4..13, then utime, stime. */
	for (r++, k = 0; *r && k < 11; k++) {
		while (*r == ' ')
			r++;
		while (*r && *r != ' ')
			r++;
	}
	if (k != 11 || sscanf(r, " %llu %llu", &ut, &st) != 2)
		return (-1);
	*ticks = ut + st;
	return (0);
}

int
cpu_parse_host(const char *text, uint64_t *busy, uint64_t *all)
{
	unsigned long long v[8] = {0};
	int                n;

	/* user nice system idle iowait irq softirq steal */
	n = sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	           &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return (-1);
	*all = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	*busy = *all - v[3] - v[4];
	return (0);
}

static int
slurp(const char *path, char *buf, size_t len)
{
	int     fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return (-1);
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	return (0);
}

/* The time a process's threads were runnable and waited for a CPU (the
 * second field of each /proc/PID/task/TID/schedstat), ns. */
static uint64_t
task_wait(pid_t pid)
{
	char           path[64], text[256];
	struct dirent *e;
	DIR           *d;
	uint64_t       sum = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		unsigned long long run, wait;
		char               p[300];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task/%s/schedstat", (int)pid,
		         e->d_name);
		if (slurp(p, text, sizeof(text)) == 0 &&
		    sscanf(text, "%llu %llu", &run, &wait) == 2)
			sum += wait;
	}
	closedir(d);
	return (sum);
}

static void
add_proc(struct cpu_snap *s, pid_t pid)
{
	char path[64], text[1024];

	if (s->n == CPU_MAX_PROCS)
		return;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	s->pid[s->n] = pid;
	s->ticks[s->n] = 0;
	s->wait[s->n] = 0;
	s->name[s->n][0] = '\0';
	if (slurp(path, text, sizeof(text)) == 0)
		cpu_parse_stat(text, s->name[s->n], sizeof(s->name[0]),
		               &s->ticks[s->n]);
	s->wait[s->n] = task_wait(pid);
	s->n++;
}

static int
named(const char *comm, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(comm, *names) == 0)
			return (1);
	return (0);
}

/* Every process whose name is in names. */
static void
add_named(struct cpu_snap *s, const char *const *names)
{
	struct dirent *e;
	DIR           *d = opendir("/proc");

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && s->n < CPU_MAX_PROCS) {
		char path[300], comm[64];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (slurp(path, comm, sizeof(comm)) != 0)
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		if (named(comm, names))
			add_proc(s, (pid_t)atoi(e->d_name));
	}
	closedir(d);
}

int
cpu_snap(struct cpu_snap *s, const pid_t *pids, size_t n,
         const char *const *names)
{
	char   text[4096];
	size_t i;

	memset(s, 0, sizeof(*s));
	s->ns = mono_ns();
	if (slurp("/proc/stat", text, sizeof(text)) != 0 ||
	    cpu_parse_host(text, &s->host_busy, &s->host_all) != 0)
		return (-1);
	if (pids != NULL)
		for (i = 0; i < n; i++)
			if (pids[i] > 0)
				add_proc(s, pids[i]);
	if (pids == NULL && names != NULL)
		add_named(s, names);
	return (0);
}

void
cpu_used(const struct cpu_snap *a, const struct cpu_snap *b, struct cpu_use *u)
{
	double hz = (double)sysconf(_SC_CLK_TCK), wall;
	size_t i, j;
	long   nc = sysconf(_SC_NPROCESSORS_ONLN);

	memset(u, 0, sizeof(*u));
	u->cores = nc > 0 ? (unsigned)nc : 1;
	wall = (double)(b->ns - a->ns) / 1e9;
	u->wall_s = wall;
	if (!(wall > 0) || !(hz > 0))
		return;
	for (i = 0; i < b->n; i++) {
		double c;

		for (j = 0; j < a->n && a->pid[j] != b->pid[i]; j++)
			;
		if (j == a->n || b->ticks[i] < a->ticks[j])
			continue;
		if (b->wait[i] >= a->wait[j] &&
		    (double)(b->wait[i] - a->wait[j]) / 1e9 / wall > u->wait) {
			u->wait =
			    (double)(b->wait[i] - a->wait[j]) / 1e9 / wall;
			snprintf(u->waiter, sizeof(u->waiter), "%s",
			         b->name[i]);
		}
		c = (double)(b->ticks[i] - a->ticks[j]) / hz / wall;
		u->sum += c;
		if (c > u->max) {
			u->max = c;
			snprintf(u->who, sizeof(u->who), "%s", b->name[i]);
		}
	}
	if (b->host_all > a->host_all && b->host_busy >= a->host_busy)
		u->host = (double)(b->host_busy - a->host_busy) /
		          (double)(b->host_all - a->host_all) * u->cores;
}

void
cpu_worst(struct cpu_use *acc, const struct cpu_use *u)
{
	if (u->max > acc->max) {
		acc->max = u->max;
		memcpy(acc->who, u->who, sizeof(acc->who));
	}
	if (u->wait > acc->wait) {
		acc->wait = u->wait;
		memcpy(acc->waiter, u->waiter, sizeof(acc->waiter));
	}
	acc->sum = fmax(acc->sum, u->sum);
	acc->host = fmax(acc->host, u->host);
	acc->cores = u->cores;
	acc->wall_s = fmax(acc->wall_s, u->wall_s);
}

int
cpu_bound(const struct cpu_use *u, char *why, size_t len)
{
	double cores = u->cores ? u->cores : 1;

	why[0] = '\0';
	if (u->max >= CPU_BOUND_SHARE)
		snprintf(why, len, "%s used %.2f of a core", u->who, u->max);
	else if (u->sum >= CPU_BOUND_SHARE * cores)
		snprintf(why, len, "the testbed used %.2f of %.0f cores",
		         u->sum, cores);
	else if (u->wait >= CPU_WAIT_SHARE)
		snprintf(
		    why, len,
		    "%s's threads waited for a CPU %.0f%% of the run (the "
		    "machine at %.2f of %.0f cores)",
		    u->waiter, 100 * u->wait, u->host, cores);
	else if (u->host >= CPU_BOUND_SHARE * cores)
		snprintf(why, len,
		         "the machine was busy: %.2f of %.0f cores (%.2f "
		         "not the testbed's)",
		         u->host, cores, fmax(0, u->host - u->sum));
	return (why[0] != '\0');
}

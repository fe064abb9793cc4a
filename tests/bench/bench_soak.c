/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_soak: 1 000 runs (OCS_SOAK_RUNS) on a whole testbed — ocs-emu,
 * ocsd driving it over TL1, 9 agents — with trouble thrown in at random:
 * the operator's abort at a random moment, an agent killed (kill -9)
 * mid-run and started again, a switch fault armed before the run (a
 * dropped connection, slow or garbled replies, a port without light),
 * and ocsd itself killed mid-run and restarted.  Every run must end
 * verified or failed with a named reason (ocsctl's one line on stderr),
 * none may hang, every agent must be back and idle after each, and the
 * history (runs.jsonl) must hold every run that got an id.  Printed: a
 * table by trouble, the reasons given, and the checks.
 */
#include <ctype.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/base/mono.h"
#include "tests/lib/rig.h"

#define NAGENTS     9
#define RUN_WAIT_MS 60000 /* a run that takes longer has hung */
#define BACK_MS     20000 /* every agent idle again within this */
#define MAX_REASONS 64
#define MAX_IDS     100000

enum trouble { T_NONE, T_ABORT, T_AGENT, T_FAULT, T_OCSD, T_N };

static const char *const trouble_name[T_N] = {
    "none", "operator abort", "agent kill -9", "switch fault", "ocsd kill -9"};

/* Of every 100 runs: mostly clean, the rest troubled. */
static const int trouble_pct[T_N] = {55, 15, 12, 13, 5};

static const char *const faults[] = {"drop=1",  "delay=300ms", "garbage",
                                     "slow=20", "deny-half",   "lose=5"};

struct row {
	uint32_t runs, verified, named, unnamed, hung;
	double   wall_s;
};

struct reason {
	char     text[96];
	uint32_t n;
};

struct soak {
	struct rig   *r;
	uint32_t      seed;
	struct row    row[T_N];
	struct reason why[MAX_REASONS];
	uint32_t      nwhy, lost_after, ocsd_restarts, intents;
	uint64_t     *ids;
	uint32_t      nids, noid;
};

static uint32_t
rnd(struct soak *s, uint32_t n)
{
	s->seed = s->seed * 1103515245u + 12345u;
	return ((s->seed >> 8) % n);
}

static enum trouble
pick(struct soak *s)
{
	int x = (int)rnd(s, 100), t;

	for (t = 0; t < T_N - 1; t++)
		if ((x -= trouble_pct[t]) < 0)
			break;
	return ((enum trouble)t);
}

/* The reason's shape: digits (run ids, counts) folded, so that the same
 * reason counts once. */
static void
count_reason(struct soak *s, const char *line)
{
	char     k[96];
	size_t   n = 0;
	uint32_t i;

	for (; *line && *line != '\n' && n + 1 < sizeof(k); line++) {
		if (isdigit((unsigned char)*line)) {
			if (n == 0 || k[n - 1] != 'N')
				k[n++] = 'N';
			continue;
		}
		k[n++] = *line;
	}
	k[n] = '\0';
	for (i = 0; i < s->nwhy; i++)
		if (strcmp(s->why[i].text, k) == 0)
			break;
	if (i == s->nwhy && s->nwhy == MAX_REASONS)
		i = MAX_REASONS - 1; /* the rest, lumped */
	else if (i == s->nwhy)
		snprintf(s->why[s->nwhy++].text, sizeof(k), "%s", k);
	s->why[i].n++;
}

static void
add_id(struct soak *s, uint64_t id)
{
	if (s->nids < MAX_IDS)
		s->ids[s->nids++] = id;
}

/* "run N" anywhere in text: the run's id. */
static void
note_id(struct soak *s, const char *text)
{
	const char *p = strstr(text, "run ");

	while (p && !isdigit((unsigned char)p[4]))
		p = strstr(p + 4, "run ");
	if (p == NULL) {
		s->noid++;
		return;
	}
	add_id(s, strtoull(p + 4, NULL, 10));
}

static int
start_run(struct soak *s, struct proc *p, const char *err)
{
	static const char *const algos[] = {"retri", "bridge", "static"};
	char                     bin[256];
	char                    *argv[] = {
	                       (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin)),
	                       "-s",
	                       s->r->sock,
	                       "run",
	                       "--algo",
	                       (char *)(uintptr_t)algos[rnd(s, 3)],
	                       "--bytes",
	                       "64KiB",
	                       NULL};

	unlink(err);
	return (proc_start(p, argv, err));
}

static char *
slurp_file(const char *path)
{
	FILE  *f = fopen(path, "r");
	char  *b;
	long   n;
	size_t got;

	if (f == NULL)
		return (strdup(""));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n < 0 || (b = malloc((size_t)n + 1)) == NULL) {
		fclose(f);
		return (strdup(""));
	}
	got = fread(b, 1, (size_t)n, f);
	b[got] = '\0';
	fclose(f);
	return (b);
}

/* The run id after "run_id" in text, 0 if none. */
static uint64_t
json_id(const char *text)
{
	const char *p = strstr(text, "\"run_id\"");

	if (p == NULL)
		return (0);
	p += strlen("\"run_id\"");
	return (strtoull(p + strspn(p, ": "), NULL, 10));
}

/* The run ocsd's intent (run.state) names, which the history must hold. */
static void
intent_id(struct soak *s)
{
	char     st[300], *text;
	uint64_t id;

	snprintf(st, sizeof(st), "%s/state/run.state", s->r->dir);
	if (access(st, F_OK) != 0)
		return;
	text = slurp_file(st);
	s->intents++;
	if ((id = json_id(text)) != 0)
		add_id(s, id);
	free(text);
}

static void
until_running(struct soak *s)
{
	uint64_t end = mono_ms() + 3000;
	char    *o, *e;
	int      on = 0;

	while (!on && mono_ms() < end) {
		if (rig_ctl(s->r, &o, &e, "status", NULL) == 0)
			on = strstr(o, " in progress") != NULL;
		free(o);
		free(e);
	}
	mono_sleep_ms(rnd(s, 30));
}

/* The trouble, thrown in while the run goes (or before it, a fault). */
static void
trouble(struct soak *s, enum trouble t, int *victim)
{
	char *o, *e;

	/* Somewhere in the run (of about 0.2 s): planning, a barrier, a
	 * phase. */
	mono_sleep_ms(rnd(s, 250));
	switch (t) {
	case T_ABORT:
		(void)rig_ctl(s->r, &o, &e, "abort", NULL);
		free(o);
		free(e);
		break;
	case T_AGENT:
		*victim = (int)rnd(s, NAGENTS);
		proc_stop(&s->r->agent[*victim], SIGKILL);
		break;
	case T_OCSD:
		/* When the run is on: killed before it, ocsd would only
		 * be refusing a connection. */
		until_running(s);
		proc_stop(&s->r->ocsd, SIGKILL);
		/* Killed with a run under way on the switch: its intent is
		 * on disk, and the history must have that run after the
		 * restart (interrupted, or as it ended if it had). */
		intent_id(s);
		break;
	default:
		break;
	}
}

/* Everything back: the agent started again, ocsd too, the fault off,
 * and every agent idle. */
static void
recover(struct soak *s, enum trouble t, int victim)
{
	if (t == T_AGENT && victim >= 0)
		(void)rig_agent(s->r, victim, "secret");
	if (t == T_OCSD && rig_ocsd_restart(s->r) == 0)
		s->ocsd_restarts++;
	if (t == T_FAULT)
		(void)rig_fault(s->r, "none");
	if (rig_wait_agents(s->r, NAGENTS, BACK_MS) != 0)
		s->lost_after++;
}

/* Its stdout (the report) until it ends, then its exit status; -1 when
 * it has not ended within ms. */
static int
drain_wait(struct proc *p, char *out, size_t len, int ms)
{
	struct pollfd pfd = {.fd = p->out, .events = POLLIN};
	uint64_t      end = mono_ms() + (uint64_t)ms;
	size_t        n = 0;
	ssize_t       r = 1;

	while (r > 0 && mono_ms() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if ((r = read(p->out, out + n, len - n - 1)) > 0)
			n += (size_t)r;
		if (n + 1 == len) /* the id is at the start: enough */
			n = 0;
	}
	out[n] = '\0';
	return (proc_wait(p, mono_ms() < end ? (int)(end - mono_ms()) : 10));
}

/* One run with its trouble; the outcome counted. */
static void
one_run(struct soak *s, enum trouble t)
{
	struct row *w = &s->row[t];
	struct proc p;
	char        err[300], out[8192], *e;
	int         victim = -1, rc;
	uint64_t    t0 = mono_us();

	snprintf(err, sizeof(err), "%s/soak.err", s->r->dir);
	if (t == T_FAULT)
		(void)rig_fault(
		    s->r, faults[rnd(s, sizeof(faults) / sizeof(faults[0]))]);
	if (start_run(s, &p, err) != 0)
		return;
	trouble(s, t, &victim);
	rc = drain_wait(&p, out, sizeof(out), RUN_WAIT_MS);
	w->runs++;
	w->wall_s += (mono_us() - t0) / 1e6;
	if (rc == -1 && p.pid > 0) {
		w->hung++;
		proc_stop(&p, SIGKILL);
		recover(s, t, victim);
		return;
	}
	e = slurp_file(err);
	if (rc == 0) {
		w->verified++;
		count_reason(s, "verified");
	} else if (e[0] != '\0' && strchr(e, '\n') == e + strlen(e) - 1) {
		w->named++;
		count_reason(s, e);
	} else
		w->unnamed++;
	note_id(s, rc == 0 ? out : e);
	free(e);
	recover(s, t, victim);
}

/* ocsd's log lines about run id (the last 8): why it is not in the
 * history. */
static void
log_lines(struct soak *s, uint64_t id)
{
	char  path[300], key[32], line[1024], keep[8][1024];
	FILE *f;
	int   n = 0, i;

	snprintf(path, sizeof(path), "%s/ocsd.log", s->r->dir);
	snprintf(key, sizeof(key), "%llu", (unsigned long long)id);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, key))
			snprintf(keep[n++ % 8], sizeof(keep[0]), "%s", line);
	fclose(f);
	for (i = n > 8 ? n - 8 : 0; i < n; i++)
		printf("    %s", keep[i % 8]);
}

/* The history's ids: every id a run was given is there.  Also how many
 * records it has, and of them interrupted (ocsd killed under them). */
static uint32_t
missing_from_history(struct soak *s, uint32_t *nrec, uint32_t *nint)
{
	char      path[300], *h, *p;
	uint64_t *have = calloc(MAX_IDS, sizeof(*have));
	uint32_t  i, k, miss = 0;

	snprintf(path, sizeof(path), "%s/state/runs.jsonl", s->r->dir);
	h = slurp_file(path);
	*nrec = 0;
	for (p = h; have && (p = strstr(p, "\"run_id\"")) != NULL; p++) {
		p += strlen("\"run_id\"");
		p += strspn(p, ": ");
		if (*nrec < MAX_IDS)
			have[(*nrec)++] = strtoull(p, NULL, 10);
	}
	*nint = 0;
	for (p = h; (p = strstr(p, "interrupted")) != NULL; p++)
		(*nint)++;
	for (i = 0; have && i < s->nids; i++) {
		for (k = 0; k < *nrec && have[k] != s->ids[i]; k++)
			;
		if (k < *nrec)
			continue;
		miss++;
		printf("missing from the history: run %llu\n",
		       (unsigned long long)s->ids[i]);
		log_lines(s, s->ids[i]);
	}
	free(have);
	free(h);
	return (have ? miss : s->nids);
}

static void
report(struct soak *s, uint32_t nrec, uint32_t nint, uint32_t miss,
       double total_s)
{
	struct row sum = {0};
	int        t;
	uint32_t   i;

	printf("%-16s %6s %9s %9s %8s %5s %9s\n", "trouble", "runs",
	       "verified", "failed,", "unnamed", "hung", "mean s");
	printf("%-16s %6s %9s %9s %8s %5s %9s\n", "", "", "", "named", "", "",
	       "");
	for (t = 0; t < T_N; t++) {
		struct row *w = &s->row[t];

		printf("%-16s %6u %9u %9u %8u %5u %9.3f\n", trouble_name[t],
		       w->runs, w->verified, w->named, w->unnamed, w->hung,
		       w->runs ? w->wall_s / w->runs : 0);
		sum.runs += w->runs;
		sum.verified += w->verified;
		sum.named += w->named;
		sum.unnamed += w->unnamed;
		sum.hung += w->hung;
	}
	printf("%-16s %6u %9u %9u %8u %5u %9.3f\n", "all", sum.runs,
	       sum.verified, sum.named, sum.unnamed, sum.hung,
	       sum.runs ? total_s / sum.runs : 0);
	printf("\noutcomes (digits folded to N):\n");
	for (i = 0; i < s->nwhy; i++)
		printf("  %5u  %s\n", s->why[i].n, s->why[i].text);
	printf("\nagents not all idle %d s after a run: %u times\n",
	       BACK_MS / 1000, s->lost_after);
	printf("history: %u records (%u interrupted); %u run ids in answers, "
	       "%u of them missing; %u answers without an id (ocsd killed "
	       "under them); ocsd restarted %u times, %u of them with a run's "
	       "intent on disk\n",
	       nrec, nint, s->nids, miss, s->noid, s->ocsd_restarts,
	       s->intents);
}

int
main(void)
{
	const char     *e = getenv("OCS_SOAK_RUNS");
	struct rig_opts o = {
	    .switch_time = "1ms", .run_conf = "deadline = 10s\n", .quiet = 1};
	struct soak s = {.seed = 34};
	uint32_t n = e ? (uint32_t)atoi(e) : 1000, i, nrec = 0, nint = 0, miss;
	uint64_t t0;
	int      bad;

	signal(SIGPIPE, SIG_IGN);
	printf("bench_soak: %u runs of 64 KiB a node on %d agents (retri, "
	       "bridge, static at random), ocs-emu at 1 ms, trouble at "
	       "random\n\n",
	       n, NAGENTS);
	fflush(stdout);
	if ((s.ids = calloc(MAX_IDS, sizeof(*s.ids))) == NULL ||
	    (s.r = rig_up_opts(NAGENTS, &o)) == NULL) {
		fprintf(stderr, "bench_soak: the testbed did not come up\n");
		return (1);
	}
	t0 = mono_us();
	for (i = 0; i < n; i++) {
		one_run(&s, pick(&s));
		if ((i + 1) % 50 == 0)
			fprintf(stderr, "bench_soak: %u/%u runs\r", i + 1, n);
	}
	fprintf(stderr, "\n");
	miss = missing_from_history(&s, &nrec, &nint);
	report(&s, nrec, nint, miss, (mono_us() - t0) / 1e6);
	bad = s.lost_after || miss;
	for (i = 0; i < T_N; i++)
		bad |= s.row[i].unnamed || s.row[i].hung;
	rig_down(s.r);
	free(s.ids);
	printf("\nsoak: %s\n", bad ? "FAILED"
	                           : "every run verified or failed "
	                             "with a reason; nothing lost");
	return (bad ? 1 : 0);
}

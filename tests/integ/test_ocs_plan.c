/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_ocs_plan.c: the ocs-plan program as other tools see it:
 * its JSON contract, exit statuses, and one-line errors.  Runs the real
 * binary from $OCS_BIN (default bin/).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

struct out {
	char  *o, *e;
	size_t no, ne;
	int    status;
};

static char *
slurp(int fd, size_t *len)
{
	size_t  cap = 4096, n = 0;
	char   *buf = malloc(cap);
	ssize_t r;

	assert_non_null(buf);
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	*len = n;
	return (buf);
}

/* Run ocs-plan with a NULL-terminated argument list. */
static void
run(struct out *r, ...)
{
	const char *bin = getenv("OCS_BIN") ? getenv("OCS_BIN") : "bin";
	char        path[512], *argv[64], errf[] = "/tmp/ocs-plan-errXXXXXX";
	int         po[2], fe, argc = 1, st;
	va_list     ap;
	pid_t       pid;

	snprintf(path, sizeof(path), "%s/ocs-plan", bin);
	argv[0] = path;
	va_start(ap, r);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	assert_int_equal(pipe(po), 0);
	assert_true((fe = mkstemp(errf)) >= 0);
	unlink(errf);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(fe, 2);
		close(po[0]);
		execv(path, argv);
		_exit(127);
	}
	close(po[1]);
	r->o = slurp(po[0], &r->no);
	close(po[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	r->status = WEXITSTATUS(st);
	lseek(fe, 0, SEEK_SET);
	r->e = slurp(fe, &r->ne);
	close(fe);
}

static void
out_free(struct out *r)
{
	free(r->o);
	free(r->e);
}

static json_t *
parse_json(const struct out *r)
{
	json_error_t je;
	json_t      *j = json_loads(r->o, 0, &je);

	if (j == NULL)
		fail_msg("bad JSON at line %d: %s\n%s", je.line, je.text,
		         r->o);
	return (j);
}

static void
test_ocs_plan_json_contract(void **state)
{
	struct out r;
	json_t    *j, *byr, *rb, *e;
	size_t     i;
	double     pred, best = INFINITY;
	json_int_t phases, R, prev = 0;

	(void)state;
	run(&r, "--algo", "retri", "--nodes", "81", "--bytes", "4MiB",
	    "--delay", "2us", "--validate", "--json", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.ne, 0);
	j = parse_json(&r);
	assert_string_equal(json_string_value(json_object_get(j, "algo")),
	                    "retri");
	assert_int_equal(json_integer_value(json_object_get(j, "nodes")), 81);
	phases = json_integer_value(json_object_get(j, "phases"));
	assert_int_equal(phases, 4);
	R = json_integer_value(json_object_get(j, "reconfigurations"));
	rb = json_object_get(j, "reconfigure_before");
	assert_true(json_is_array(rb));
	assert_int_equal((json_int_t)json_array_size(rb), R);
	json_array_foreach(rb, i, e)
	{
		json_int_t k = json_integer_value(e);
		assert_true(k >= 1 && k < phases && k > prev);
		prev = k;
	}
	pred = json_real_value(json_object_get(j, "predicted_s"));
	byr = json_object_get(j, "by_r");
	assert_int_equal((json_int_t)json_array_size(byr), phases);
	json_array_foreach(byr, i, e)
	{
		double v = json_real_value(json_object_get(e, "predicted_s"));
		assert_int_equal(json_integer_value(json_object_get(e, "r")),
		                 (json_int_t)i);
		assert_true(v > 0);
		if (v < best)
			best = v;
	}
	/* auto picks the best R, and reports its cost. */
	assert_true(pred == best);
	assert_true(
	    json_real_value(json_object_get(json_array_get(byr, (size_t)R),
	                                    "predicted_s")) == pred);
	assert_true(json_is_true(json_object_get(j, "valid")));
	json_decref(j);
	out_free(&r);
}

/* R = 0 with the spec's closed form s*as + y*(n-1)/2. */
static void
test_ocs_plan_matches_closed_form(void **state)
{
	struct out r;
	json_t    *j;
	double     m = 3 * 1048576.0, y = 1e-6 + 8.0 / 400e9 * m / 3, want;

	(void)state;
	run(&r, "--algo", "retri", "--nodes", "243", "--bytes", "3MiB",
	    "--reconfig", "none", "--json", NULL);
	assert_int_equal(r.status, 0);
	j = parse_json(&r);
	want = 5 * 1.7e-6 + y * 121;
	assert_true(fabs(json_real_value(json_object_get(j, "predicted_s")) -
	                 want) <= 1e-9 * want);
	assert_int_equal(
	    json_integer_value(json_object_get(j, "reconfigurations")), 0);
	json_decref(j);
	out_free(&r);
}

/* Per-boundary delays: an expensive middle boundary is avoided. */
static void
test_ocs_plan_per_boundary_delay(void **state)
{
	struct out r;
	json_t    *j, *rb;

	(void)state;
	run(&r, "--algo", "retri", "--nodes", "27", "--delay", "1ns,1s",
	    "--json", NULL);
	assert_int_equal(r.status, 0);
	j = parse_json(&r);
	rb = json_object_get(j, "reconfigure_before");
	assert_int_equal(json_array_size(rb), 1);
	assert_int_equal(json_integer_value(json_array_get(rb, 0)), 1);
	json_decref(j);
	out_free(&r);
}

static void
test_ocs_plan_phases_listing(void **state)
{
	struct out r;
	char      *p;
	int        rows = 0;

	(void)state;
	run(&r, "--algo", "retri", "--nodes", "9", "--reconfig", "none",
	    "--phases", "--validate", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.o, "valid: yes"));
	assert_non_null(
	    strstr(r.o, "phase 0: circuits set: rings of stride 1"));
	assert_non_null(
	    strstr(r.o, "phase 1: reuse circuits of phase 0 (rings of stride "
	                "1); 3 hops"));
	/* 9 nodes x 2 directions x 2 phases rows. */
	for (p = r.o; (p = strstr(p, "\n  ")) != NULL; p++)
		if (p[3] == ' ' && p[8] >= '0' && p[8] <= '9')
			rows++;
	assert_int_equal(rows, 36);
	out_free(&r);
}

static void
expect_usage_error(const char *opt, const char *val, ...)
{
	struct out r;
	char      *args[16];
	int        n = 0;
	va_list    ap;

	va_start(ap, val);
	while ((args[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	run(&r, args[0], args[1], args[2], args[3], args[4], args[5],
	    n > 6 ? args[6] : NULL, n > 7 ? args[7] : NULL, NULL);
	assert_int_equal(r.status, 2);
	assert_int_equal(r.no, 0);
	/* Exactly one line, naming the option and the value. */
	assert_true(r.ne > 0 && r.e[r.ne - 1] == '\n');
	assert_null(memchr(r.e, '\n', r.ne - 1));
	if (strstr(r.e, opt) == NULL || strstr(r.e, val) == NULL)
		fail_msg("stderr \"%s\" must name %s and %s", r.e, opt, val);
	out_free(&r);
}

/* --topology: the JSON contract on a shipped topology, every algorithm
 * valid and no faster than the bound, and --steps. */
static void
test_ocs_plan_topology_json(void **state)
{
	static const char *const algos[] = {"ten", "mteg", "scalecc",
	                                    "sph", "spt",  "ring"};
	struct out               r;
	json_t                  *j;
	size_t                   i;

	(void)state;
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
		double done, bound, algbw;

		run(&r, "--algo", algos[i], "--topology", "ndv2:2",
		    "--collective", "allgather", "--bytes", "64MB", "--json",
		    "--validate", NULL);
		assert_int_equal(r.status, 0);
		j = parse_json(&r);
		assert_string_equal(
		    json_string_value(json_object_get(j, "algo")), algos[i]);
		assert_string_equal(
		    json_string_value(json_object_get(j, "collective")),
		    "allgather");
		assert_int_equal(
		    json_integer_value(json_object_get(j, "gpus")), 16);
		assert_int_equal(
		    json_integer_value(json_object_get(j, "chunks")), 1);
		assert_true(json_real_value(json_object_get(j, "slot_s")) > 0);
		assert_true(json_integer_value(json_object_get(j, "slots")) >
		            0);
		done = json_real_value(json_object_get(j, "completion_s"));
		bound = json_real_value(json_object_get(j, "lower_bound_s"));
		algbw = json_real_value(json_object_get(j, "algbw_GBps"));
		assert_true(bound > 0 && done >= bound * (1 - 1e-9));
		assert_true(fabs(algbw - 64e6 / done / 1e9) < 1e-9 * algbw);
		assert_true(
		    json_real_value(json_object_get(j, "synthesis_s")) >= 0);
		assert_true(json_is_true(json_object_get(j, "valid")));
		if (strcmp(algos[i], "mteg") == 0)
			assert_true(json_integer_value(
			                json_object_get(j, "horizon")) > 0);
		json_decref(j);
		out_free(&r);
	}
	/* A ReduceScatter on a generator, every send listed. */
	run(&r, "--algo", "ten", "--topology", "ring:4:8GBps:0",
	    "--collective", "reducescatter", "--bytes", "4MiB", "--json",
	    "--steps", NULL);
	assert_int_equal(r.status, 0);
	j = parse_json(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "slots")), 2);
	/* 4 chunks, each reduced from 3 others: 3 sends each at least. */
	assert_true(json_array_size(json_object_get(j, "steps")) >= 12);
	json_decref(j);
	out_free(&r);
}

static void
test_ocs_plan_topology_bad_input(void **state)
{
	(void)state;
	expect_usage_error("--topology", "dgx9", "--algo", "ten", "--topology",
	                   "dgx9", "--collective", "allgather", NULL);
	expect_usage_error("--algo", "retri", "--algo", "retri", "--topology",
	                   "dgx1", "--collective", "allgather", NULL);
	expect_usage_error("--collective", "gather", "--algo", "ten",
	                   "--topology", "dgx1", "--collective", "gather",
	                   NULL);
	expect_usage_error("--collective", "missing", "--algo", "ten",
	                   "--topology", "dgx1", NULL);
	expect_usage_error("--chunks", "0", "--algo", "ten", "--topology",
	                   "dgx1", "--collective", "allgather", "--chunks",
	                   "0", NULL);
	expect_usage_error("--topology", "mesh:3:1Gbps:1us", "--algo", "ten",
	                   "--topology", "mesh:3:1Gbps:1us", "--collective",
	                   "allgather", NULL);
	expect_usage_error("--chunks", "only with --topology", "--algo",
	                   "retri", "--nodes", "9", "--chunks", "2", NULL);
}

static void
test_ocs_plan_bad_input_exit_2(void **state)
{
	(void)state;
	expect_usage_error("--algo", "pairwise", "--algo", "pairwise",
	                   "--nodes", "9", "--json", "--validate", NULL);
	expect_usage_error("--nodes", "1", "--algo", "retri", "--nodes", "1",
	                   "--json", "--validate", NULL);
	expect_usage_error("--bytes", "12XB", "--algo", "retri", "--nodes",
	                   "9", "--bytes", "12XB", NULL);
	expect_usage_error("--delay", "3parsecs", "--algo", "retri", "--nodes",
	                   "9", "--delay", "3parsecs", NULL);
	expect_usage_error("--bandwidth", "fast", "--algo", "retri", "--nodes",
	                   "9", "--bandwidth", "fast", NULL);
	expect_usage_error("--reconfig", "5", "--algo", "retri", "--nodes",
	                   "27", "--reconfig", "5", NULL);
	expect_usage_error("--reconfig", "2,1", "--algo", "retri", "--nodes",
	                   "27", "--reconfig", "2,1", NULL);
	expect_usage_error("--delay", "1us,1us,1us", "--algo", "bridge",
	                   "--nodes", "8", "--delay", "1us,1us,1us", NULL);
}

static void
test_ocs_plan_large_n_cost_only(void **state)
{
	struct out r;

	(void)state;
	run(&r, "--algo", "retri", "--nodes", "19683", "--json", NULL);
	assert_int_equal(r.status, 0);
	out_free(&r);
	/* Materialising 3^9 is refused with a clear message, exit 1. */
	run(&r, "--algo", "retri", "--nodes", "19683", "--validate", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.e, "--nodes \"19683\""));
	assert_non_null(strstr(r.e, "materialises"));
	out_free(&r);
}

/* The --matrix contract: the "done" command, answered in ms. */
static void
test_ocs_plan_matrix_json(void **state)
{
	struct out r;
	json_t    *j, *st, *e, *perm, *pl;
	size_t     i, k;
	double     lb, pred, best = INFINITY;

	(void)state;
	run(&r, "--algo", "auto", "--matrix", "zipf:16:0.8:1", "--delay",
	    "1ms", "--json", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.ne, 0);
	j = parse_json(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "nodes")), 16);
	assert_true(json_is_true(json_object_get(j, "valid")));
	pred = json_real_value(json_object_get(j, "predicted_s"));
	lb = json_real_value(json_object_get(j, "lower_bound_s"));
	/* The bound is for direct schedules: circuit reuse may beat it. */
	assert_true(lb > 0 && pred > 0);
	if (strstr(json_string_value(json_object_get(j, "algo")), "+reuse"))
		assert_true(json_array_size(json_object_get(j, "rides")) > 0);
	else
		assert_true(pred >= lb);
	assert_float_equal(json_real_value(json_object_get(j, "ratio")),
	                   pred / lb, 1e-9);
	assert_true(json_real_value(json_object_get(j, "schedule_us")) > 0);
	st = json_object_get(j, "stage_list");
	assert_int_equal((json_int_t)json_array_size(st),
	                 json_integer_value(json_object_get(j, "stages")));
	assert_int_equal(
	    json_integer_value(json_object_get(j, "reconfigurations")),
	    (json_int_t)json_array_size(st) - 1);
	json_array_foreach(st, i, e)
	{
		int seen[16] = {0};

		assert_true(json_integer_value(
		                json_object_get(e, "weight_bytes")) > 0);
		perm = json_object_get(e, "perm");
		assert_int_equal(json_array_size(perm), 16);
		for (k = 0; k < 16; k++) {
			json_t *d = json_array_get(perm, k);

			if (json_is_null(d))
				continue;
			assert_true(json_integer_value(d) >= 0 &&
			            json_integer_value(d) < 16 &&
			            json_integer_value(d) != (json_int_t)k);
			assert_int_equal(seen[json_integer_value(d)]++, 0);
		}
	}
	/* auto keeps the cheapest planner it tried. */
	pl = json_object_get(j, "planners");
	assert_true(json_array_size(pl) >= 4);
	json_array_foreach(pl, i, e)
	{
		double v = json_real_value(json_object_get(e, "predicted_s"));
		best = v < best ? v : best;
	}
	assert_true(pred == best);
	json_decref(j);
	out_free(&r);
}

static void
test_ocs_plan_matrix_bad_input(void **state)
{
	char       path[] = "/tmp/ocs-plan-matXXXXXX";
	int        fd;
	struct out r;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, "0,5,1\n2,0,x7\n1,1,0\n", 19), 19);
	close(fd);
	run(&r, "--algo", "fast", "--matrix", path, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.e, "row 2, column 3: \"x7\""));
	assert_true(r.ne > 0 && strchr(r.e, '\n') == r.e + r.ne - 1);
	out_free(&r);
	unlink(path);
	run(&r, "--algo", "fast", "--matrix", path, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.e, "No such file"));
	out_free(&r);
	expect_usage_error("--algo", "retri", "--algo", "retri", "--matrix",
	                   "zipf:8:0.8:1", NULL);
	expect_usage_error("--nodes", "the matrix", "--algo", "fast",
	                   "--matrix", "zipf:8:0.8:1", "--nodes", "8", NULL);
	expect_usage_error("--gpus-per-server", "0", "--algo", "fast",
	                   "--matrix", "zipf:8:0.8:1", "--gpus-per-server",
	                   "0", NULL);
	expect_usage_error("--transceivers", "9", "--algo", "fast", "--matrix",
	                   "zipf:8:0.8:1", "--transceivers", "9", NULL);
	expect_usage_error("--transceivers", "2", "--algo", "fast", "--matrix",
	                   "zipf:8:0.8:1", "--gpus-per-server", "2",
	                   "--transceivers", "2", NULL);
	expect_usage_error("--gpus-per-server", "only with --matrix", "--algo",
	                   "retri", "--nodes", "9", "--gpus-per-server", "2",
	                   NULL);
	run(&r, "--algo", "fast", "--matrix", "zipf:9:0.8:1",
	    "--gpus-per-server", "2", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.e, "not 2 or more whole servers"));
	out_free(&r);
	run(&r, "--algo", "fast", "--matrix", "zipf:16:0.8:1",
	    "--gpus-per-server", "4", "--phases", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.o, "4 servers of 4 GPUs"));
	assert_non_null(strstr(r.o, "stage 0:"));
	out_free(&r);
}

/* A ring ReduceScatter exported for the dialect named (NULL: the
 * default); the file holds want. */
static void
reducescatter(const char *path, const char *dialect, const char *want)
{
	char       buf[512];
	struct out o;
	ssize_t    r;
	int        fd;

	if (dialect)
		run(&o, "--algo", "ring", "--topology", "ring:4:8GBps:1us",
		    "--collective", "reducescatter", "--msccl-dialect",
		    dialect, "--export", "msccl", path, NULL);
	else
		run(&o, "--algo", "ring", "--topology", "ring:4:8GBps:1us",
		    "--collective", "reducescatter", "--export", "msccl", path,
		    NULL);
	assert_int_equal(o.status, 0);
	out_free(&o);
	assert_true((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(r > 100);
	buf[r] = '\0';
	assert_non_null(strstr(buf, want));
}

/* --export msccl FILE writes the schedule as MSCCL XML (the unit test
 * plays it); what it cannot export is refused in one line. */
static void
test_ocs_plan_export_msccl(void **state)
{
	char       path[] = "/tmp/ocs-plan-xmlXXXXXX", buf[512];
	int        fd;
	ssize_t    r;
	struct out o;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	run(&o, "--algo", "retri", "--nodes", "9", "--export", "msccl", path,
	    NULL);
	assert_int_equal(o.status, 0);
	out_free(&o);
	r = read(fd, buf, sizeof(buf) - 1);
	assert_true(r > 100);
	buf[r] = '\0';
	assert_non_null(strstr(buf, "<algo name=\"ocsd-retri\""));
	assert_non_null(strstr(buf, "coll=\"alltoall\""));
	assert_non_null(strstr(buf, "outofplace=\"1\""));
	close(fd);
	unlink(path);
	expect_usage_error("--export", "expected msccl FILE or chakra",
	                   "--algo", "retri", "--nodes", "9", "--export",
	                   "dot", "x", NULL);
	expect_usage_error("--export msccl", "not with --matrix", "--algo",
	                   "fast", "--matrix", "zipf:8:0.8:1", "--export",
	                   "msccl", "x", NULL);
	/* A synthesised AllReduce on a topology with switches. */
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
	                       0600)) >= 0);
	run(&o, "--algo", "mteg", "--topology", "ndv2:2", "--collective",
	    "allreduce", "--bytes", "64MB", "--chunks", "2", "--export",
	    "msccl", path, NULL);
	assert_int_equal(o.status, 0);
	out_free(&o);
	r = read(fd, buf, sizeof(buf) - 1);
	assert_true(r > 100);
	buf[r] = '\0';
	assert_non_null(strstr(buf, "<algo name=\"ocsd-mteg\""));
	assert_non_null(strstr(buf, "ngpus=\"16\" coll=\"allreduce\""));
	assert_non_null(strstr(buf, "nchunksperloop=\"32\""));
	close(fd);
	/* ReduceScatter as current runtimes spell it, and as the legacy
	 * one does. */
	reducescatter(path, NULL, "coll=\"reducescatter\"");
	reducescatter(path, "legacy", "coll=\"reduce_scatter\"");
	unlink(path);
	expect_usage_error("--msccl-dialect", "rccl", "--algo", "retri",
	                   "--nodes", "9", "--msccl-dialect", "rccl", NULL);
	expect_usage_error("--max-steps", "only with --export msccl", "--algo",
	                   "retri", "--nodes", "9", "--max-steps", "64", NULL);
}

/* Ranks' files PREFIX.0.et .. PREFIX.(n-1).et, and no more. */
static void
et_files(const char *prefix, unsigned n)
{
	char        path[300];
	struct stat st;
	unsigned    r;

	for (r = 0; r <= n; r++) {
		snprintf(path, sizeof(path), "%s.%u.et", prefix, r);
		if (r == n) {
			assert_int_not_equal(stat(path, &st), 0);
			break;
		}
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_size > 20);
		unlink(path);
	}
}

/* --export chakra PREFIX for each kind of schedule (test_chakra reads
 * the traces back); a prefix it cannot write to is an error, exit 1. */
static void
test_ocs_plan_export_chakra(void **state)
{
	char       dir[] = "/tmp/ocs-plan-etXXXXXX", prefix[300];
	struct out o;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/a2a", dir);
	run(&o, "--algo", "retri", "--nodes", "9", "--reconfig", "all",
	    "--delay", "1ms", "--export", "chakra", prefix, NULL);
	assert_int_equal(o.status, 0);
	out_free(&o);
	et_files(prefix, 9);
	run(&o, "--algo", "ten", "--topology", "ring:5:100Gbps:1us",
	    "--collective", "allreduce", "--bytes", "1MiB", "--export",
	    "chakra", prefix, NULL);
	assert_int_equal(o.status, 0);
	out_free(&o);
	et_files(prefix, 5);
	run(&o, "--algo", "fast", "--matrix", "zipf:8:0.8:1", "--export",
	    "chakra", prefix, NULL);
	assert_int_equal(o.status, 0);
	out_free(&o);
	et_files(prefix, 8);
	run(&o, "--algo", "static", "--nodes", "4", "--export", "chakra",
	    "/nonexistent/dir/t", NULL);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.e, "/nonexistent/dir/t.0.et"));
	out_free(&o);
	rmdir(dir);
}

/* --topology reads a TE-CCL input: its topology, and its chunks and
 * chunk size unless given; a bad field named, exit 2. */
static void
test_ocs_plan_teccl_input(void **state)
{
	char        path[] = "/tmp/ocs-plan-tecclXXXXXX";
	const char *good =
	    "{\"TopologyParams\": {\"name\": \"NDv2\", \"option\": 1, "
	    "\"chassis\": 2, \"chunk_size\": 0.0625}, \"GurobiParams\": "
	    "{\"time_limit\": 2}, \"InstanceParams\": {\"collective\": 1, "
	    "\"num_chunks\": 2, \"epoch_type\": 2}}";
	const char *bad;
	struct out  o;
	int         fd;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, good, strlen(good)), (ssize_t)strlen(good));
	close(fd);
	run(&o, "--algo", "ten", "--topology", path, "--collective",
	    "allgather", "--validate", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(
	    strstr(o.e, "TE-CCL input: NDv2, 2 chunks of 59.6 MiB"));
	/* Not TE-CCL's 2-chassis matrix: said at import. */
	assert_non_null(strstr(o.e, "note: TE-CCL's NDv2 with 2 chassis is a "
	                            "fixed 16-node matrix"));
	assert_non_null(strstr(o.o, "on ndv2:2: 16 GPUs"));
	assert_non_null(strstr(o.o, "2 chunks per GPU"));
	out_free(&o);
	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) >= 0);
	bad = "{\"TopologyParams\": {\"nodes\": 8}}";
	assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	run(&o, "--algo", "ten", "--topology", path, "--collective",
	    "allgather", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.e, "TopologyParams.nodes: unknown"));
	out_free(&o);
	unlink(path);
}

static void
test_ocs_plan_help(void **state)
{
	struct out r;

	(void)state;
	run(&r, "--help", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.o, "usage: ocs-plan"));
	/* every planner --algo takes with --matrix is named */
	assert_non_null(
	    strstr(r.o, "fast|spreadout|solstice|eclipse|sorted|auto"));
	out_free(&r);
}

/* A matrix file's own words (issue 40): one line each, naming the limit
 * or the option, never "out of memory" or an invisible character. */
static void
matrix_file(const char *text, size_t len, const char *says, int status,
            const char *extra)
{
	char       path[] = "/tmp/ocs-plan-matXXXXXX";
	int        fd;
	struct out r;

	len = len ? len : strlen(text);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	if (extra)
		run(&r, "--algo", "eclipse", "--matrix", path, extra, "1MiB",
		    NULL);
	else
		run(&r, "--algo", "eclipse", "--matrix", path, NULL);
	if (r.status != status || !strstr(status ? r.e : r.o, says))
		fprintf(stderr, "said: %s%s", r.o, r.e);
	assert_int_equal(r.status, status);
	assert_non_null(strstr(status ? r.e : r.o, says));
	if (status)
		assert_true(r.ne > 0 && strchr(r.e, '\n') == r.e + r.ne - 1);
	out_free(&r);
	unlink(path);
}

static void
test_ocs_plan_matrix_messages(void **state)
{
	char      *wide = malloc(1025 * 2 + 1);
	struct out r;
	int        i;

	(void)state;
	for (i = 0; i < 1025; i++)
		memcpy(wide + 2 * i, i < 1024 ? "1," : "1\n", 2);
	matrix_file(wide, 1025 * 2, "1025 columns: at most 1024 nodes", 2,
	            NULL);
	free(wide);
	matrix_file("0,2251799813685249\n1,0\n", 0, "over the cap of 1 PiB", 2,
	            NULL);
	matrix_file("{\"bytes\": [[0, 2251799813685249], [1, 0]]}", 0,
	            "over the cap of 1 PiB", 2, NULL);
	/* A byte-order mark is not part of the first count. */
	matrix_file("\xef\xbb\xbf"
	            "0,1KiB\n1KiB,0\n",
	            0, "2 nodes, 1 stages", 0, NULL);
	/* --bytes with a file changes nothing: refused, not ignored. */
	matrix_file("0,1\n1,0\n", 0, "--bytes: not with --matrix", 2,
	            "--bytes");
	expect_usage_error("--bytes", "uniform", "--algo", "fast", "--matrix",
	                   "uniform:8:1KiB", "--bytes", "1MiB", NULL);
	/* fast is bounded (n^3 memory), by name and with what to use. */
	run(&r, "--algo", "fast", "--matrix", "zipf:129:0.8:1", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.e, "at most 128 nodes"));
	out_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ocs_plan_json_contract),
	    cmocka_unit_test(test_ocs_plan_topology_json),
	    cmocka_unit_test(test_ocs_plan_topology_bad_input),
	    cmocka_unit_test(test_ocs_plan_matches_closed_form),
	    cmocka_unit_test(test_ocs_plan_per_boundary_delay),
	    cmocka_unit_test(test_ocs_plan_phases_listing),
	    cmocka_unit_test(test_ocs_plan_bad_input_exit_2),
	    cmocka_unit_test(test_ocs_plan_large_n_cost_only),
	    cmocka_unit_test(test_ocs_plan_help),
	    cmocka_unit_test(test_ocs_plan_matrix_json),
	    cmocka_unit_test(test_ocs_plan_matrix_bad_input),
	    cmocka_unit_test(test_ocs_plan_matrix_messages),
	    cmocka_unit_test(test_ocs_plan_export_msccl),
	    cmocka_unit_test(test_ocs_plan_export_chakra),
	    cmocka_unit_test(test_ocs_plan_teccl_input),
	};

	return (cmocka_run_group_tests_name("ocs_plan", tests, NULL, NULL));
}

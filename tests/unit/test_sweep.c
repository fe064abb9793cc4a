/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_sweep.c: ocs-sweep's parts that read input: value lists
 * (every bad form), the CSV (a row out and back, and what resuming reads:
 * keys, a torn last line cut off, a foreign file refused), the model file
 * (bad keys and values named with their line), and one model point
 * against ocs-plan's library.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testbed/sweep/sweep.h"
#include "testbed/sweep/sweep_csv.h"
#include "testbed/sweep/sweep_fit.h"
#include "testbed/sweep/sweep_list.h"

static void
test_lists(void **state)
{
	double *v;
	size_t  n;
	char    err[300];

	(void)state;
	assert_int_equal(sweep_list_parse("1KiB..256MiB*4", SWEEP_SIZE, &v, &n,
	                                  err, sizeof(err)),
	                 0);
	assert_int_equal(n, 10); /* 1K 4K 16K ... 256M */
	assert_true(v[0] == 1024 && v[9] == 268435456.0);
	free(v);
	assert_int_equal(sweep_list_parse("1us..100ms*10,150ms", SWEEP_TIME,
	                                  &v, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 7);
	assert_true(fabs(v[5] - 0.1) < 1e-12 && fabs(v[6] - 0.15) < 1e-12);
	free(v);
	/* Sorted, duplicates once. */
	assert_int_equal(sweep_list_parse("27,9,9,3..81*3", SWEEP_COUNT, &v,
	                                  &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 4);
	assert_true(v[0] == 3 && v[1] == 9 && v[2] == 27 && v[3] == 81);
	free(v);
	{
		static const char *const badsz[] = {"",
		                                    ",",
		                                    "0",
		                                    "1KiB..",
		                                    "1KiB..1MiB",
		                                    "1KiB..1MiB*1",
		                                    "1KiB..1MiB*0.5",
		                                    "1MiB..1KiB*2",
		                                    "1KiB..1MiB*x",
		                                    "abc",
		                                    "-1KiB",
		                                    "1KiB..1TiB*1.0001"};
		size_t                   i;

		for (i = 0; i < sizeof(badsz) / sizeof(badsz[0]); i++) {
			err[0] = '\0';
			assert_int_equal(sweep_list_parse(badsz[i], SWEEP_SIZE,
			                                  &v, &n, err,
			                                  sizeof(err)),
			                 -1);
			assert_true(err[0] != '\0');
			assert_null(v);
		}
	}
	assert_int_equal(
	    sweep_list_parse("2h", SWEEP_TIME, &v, &n, err, sizeof(err)), -1);
	assert_int_equal(
	    sweep_list_parse("0", SWEEP_COUNT, &v, &n, err, sizeof(err)), -1);
	assert_int_equal(
	    sweep_list_parse("9x", SWEEP_COUNT, &v, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"9x\""));
}

static void
test_csv_round_trip(void **state)
{
	struct sweep_row r = {0}, back;
	char             line[1100], err[200], k1[200], k2[200];
	int              len;

	(void)state;
	snprintf(r.algo, sizeof(r.algo), "retri");
	r.nodes = 81;
	r.bytes = 268435456;
	r.delta_s = 1.5e-5;
	r.reconfs = 2;
	snprintf(r.before, sizeof(r.before), "2;3");
	r.predicted_s = 0.0123456789;
	r.simulated_s = NAN;
	r.packet_s = 0.0125;
	r.measured_s = r.measured_min_s = r.measured_max_s = NAN;
	r.cpu_max = r.cpu_sum = NAN;
	r.cpu_host = 1.5;
	snprintf(r.cpu_bound, sizeof(r.cpu_bound), "ocs-emu at 0.97 core");
	snprintf(r.model, sizeof(r.model), "lab-a");
	snprintf(r.hash, sizeof(r.hash), "0123456789abcdef");
	assert_true((len = sweep_row_fmt(&r, line, sizeof(line))) > 0);
	assert_string_equal(line, "retri,81,268435456,1.5e-05,2,2;3,"
	                          "0.0123456789,,0.0125,,,,0,0,,,1.5,"
	                          "ocs-emu at 0.97 core,lab-a,"
	                          "0123456789abcdef\n");
	line[len - 1] = '\0';
	assert_int_equal(sweep_row_parse(line, &back, err, sizeof(err)), 0);
	assert_true(isnan(back.simulated_s) && isnan(back.measured_s));
	assert_true(back.packet_s == 0.0125 && back.cpu_host == 1.5);
	assert_true(isnan(back.cpu_max));
	assert_string_equal(back.cpu_bound, "ocs-emu at 0.97 core");
	assert_string_equal(back.before, "2;3");
	sweep_row_key(&r, k1, sizeof(k1));
	sweep_row_key(&back, k2, sizeof(k2));
	assert_string_equal(k1, k2);
	/* Every column is checked, and named. */
	assert_int_equal(sweep_row_parse("retri,81", &back, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "columns"));
	assert_int_equal(sweep_row_parse("retri,x,1,1,0,,1,,,,,,0,0,,,,,m,"
	                                 "0123456789abcdef",
	                                 &back, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "column nodes"));
	assert_int_equal(sweep_row_parse("retri,9,1,1,0,1-2,1,,,,,,0,0,,,,,m,"
	                                 "0123456789abcdef",
	                                 &back, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "reconfigure_before"));
	assert_int_equal(sweep_row_parse("retri,9,1,,0,,1,,,,,,0,0,,,,,m,"
	                                 "0123456789abcdef",
	                                 &back, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "delta_s"));
	assert_int_equal(sweep_row_parse("retri,9,1,1,0,,1,,,,,,0,0,,,,,m,"
	                                 "0123456789ABCDEF",
	                                 &back, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "model_hash"));
	assert_int_equal(sweep_row_parse("retri,9,1,1,0,,1,,,,,,0,0,,,,\"x,m,"
	                                 "0123456789abcdef",
	                                 &back, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "cpu_bound"));
}

static void
test_resume_reads(void **state)
{
	char              path[] = "/tmp/test_sweep_XXXXXX", err[300], sz[32];
	struct sweep_done d;
	FILE             *f;
	int               fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "%s\n", SWEEP_CSV_HEADER);
	fprintf(f, "retri,9,1024,1e-06,1,1,6e-06,,,,,,0,0,,,,,default,"
	           "00000000000000aa\n");
	fprintf(f, "static,9,1024,1e-06,0,,7e-06,,,,,,0,0,,,,,default,"
	           "00000000000000aa\n");
	fprintf(f, "static,9,1024,1e-06,0,,7e-06,,,,,,0,0,,,,,default,"
	           "00000000000000bb\n");
	fprintf(f, "bridge,9,10"); /* killed while writing this one */
	fclose(f);
	assert_int_equal(sweep_done_load(&d, path, err, sizeof(err)), 0);
	assert_int_equal(d.n, 3);
	assert_true(
	    sweep_done_has(&d, "static,9,1024,1e-06,00000000000000aa"));
	assert_true(
	    sweep_done_has(&d, "static,9,1024,1e-06,00000000000000bb"));
	assert_false(
	    sweep_done_has(&d, "retri,9,1024,1e-06,00000000000000bb"));
	assert_false(
	    sweep_done_has(&d, "bridge,9,1024,1e-06,00000000000000aa"));
	sweep_done_free(&d);
	/* The torn line is gone from the file. */
	f = fopen(path, "r");
	fseek(f, -2, SEEK_END);
	assert_int_equal(fread(sz, 1, 2, f), 2);
	assert_true(sz[1] == '\n' && sz[0] == 'b');
	fclose(f);
	/* A file that is not ours is refused with its name. */
	f = fopen(path, "w");
	fprintf(f, "a,b,c\n1,2,3\n");
	fclose(f);
	assert_int_equal(sweep_done_load(&d, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":1: not a sweep's CSV"));
	/* A bad row is named with its line. */
	f = fopen(path, "w");
	fprintf(f,
	        "%s\nretri,9,1024,oops,1,1,6e-06,,,,,,0,0,,,,,default,"
	        "00000000000000aa\n",
	        SWEEP_CSV_HEADER);
	fclose(f);
	assert_int_equal(sweep_done_load(&d, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: column delta_s"));
	/* An older sweep's CSV (rows keyed by the model's name): refused,
	 * saying what to do, never resumed into. */
	f = fopen(path, "w");
	fprintf(f, "%s\nretri,9,1024,1e-06,1,1,6e-06,,,,,0,0,default\n",
	        SWEEP_CSV_HEADER_V1);
	fclose(f);
	assert_int_equal(sweep_done_load(&d, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "older ocs-sweep"));
	unlink(path);
	/* No file yet: nothing done. */
	assert_int_equal(sweep_done_load(&d, path, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
}

static void
model_file(const char *text, char *err, size_t len, int want)
{
	char          path[] = "/tmp/test_sweep_model_XXXXXX";
	struct cmodel m = {.name = "default",
	                   .bps = 400e9,
	                   .alpha_s = 1.7e-6,
	                   .alpha_h = 1e-6};
	int           fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(cmodel_load(&m, path, err, len), want);
	if (want == 0) {
		assert_string_equal(m.name, "lab");
		assert_true(m.bps == 10e9 && fabs(m.alpha_s - 2e-5) < 1e-15);
		assert_true(m.alpha_h == 1e-6); /* left as it was */
	}
	unlink(path);
}

static void
test_model_file(void **state)
{
	char err[400];

	(void)state;
	model_file("[model]\nname = lab\nbandwidth = 10Gbps\nalpha_s = 20us\n",
	           err, sizeof(err), 0);
	model_file("[model]\nname = lab\n\nalpha_x = 1us\n", err, sizeof(err),
	           -1);
	assert_non_null(strstr(err, ":4: unknown key \"alpha_x\""));
	/* The servers' local links (FAST's scale-up). */
	model_file("[model]\nname = lab\nbandwidth = 10Gbps\nalpha_s = 20us\n"
	           "scaleup_bandwidth = 400Mbps\nscaleup_alpha = 20us\n",
	           err, sizeof(err), 0);
	model_file("[model]\nscaleup_bandwidth = 0bps\n", err, sizeof(err),
	           -1);
	assert_non_null(strstr(err, ":2: scaleup_bandwidth \"0bps\": bad"));
	model_file("[model]\nscaleup_alpha = 2s\n", err, sizeof(err), -1);
	assert_non_null(strstr(err, ":2: scaleup_alpha \"2s\": bad"));
	model_file("[model]\nbandwidth = fast\n", err, sizeof(err), -1);
	assert_non_null(strstr(err, ":2: bandwidth \"fast\": bad value"));
	model_file("[run]\nalpha_s = 1us\n", err, sizeof(err), -1);
	assert_non_null(strstr(err, ":2: section [run]"));
	model_file("[model]\nname = lab\nbandwidth = 10Gbps\nalpha_s = "
	           "20us\n[conditions]\nrate = 100Mbps\nnodes = 9\ncpu_max = "
	           "0.5\n",
	           err, sizeof(err), 0);
	model_file("[model]\n[conditions]\nnodes = -3\n", err, sizeof(err),
	           -1);
	assert_non_null(strstr(err, ":3: nodes \"-3\": bad value"));
	model_file("[conditions]\nwho = me\n", err, sizeof(err), -1);
	assert_non_null(strstr(err, ":2: [conditions]: unknown key"));
	model_file("[model]\nname = a,b\n", err, sizeof(err), -1);
	assert_non_null(strstr(err, ":2: name"));
	/* Bounded: a model is a few lines. */
	{
		char *big = malloc(CMODEL_MAX_BYTES + 2);

		memset(big, ';', CMODEL_MAX_BYTES + 1);
		big[CMODEL_MAX_BYTES + 1] = '\0';
		model_file(big, err, sizeof(err), -1);
		assert_non_null(strstr(err, "larger than 64 KiB"));
		free(big);
	}
}

/* Every parameter, the reconfiguration mode and the backend change the
 * hash that keys rows; the conditions do not; a model written with its
 * conditions reads back the same. */
static void
test_model_hash(void **state)
{
	struct cmodel m = {.name = "lab",
	                   .bps = 1e8,
	                   .alpha_s = 1e-3,
	                   .alpha_h = 3e-4,
	                   .reconf_s = 2e-4,
	                   .frame = 65536},
	              n;
	char    h0[17], h[17], path[] = "/tmp/test_sweep_hash_XXXXXX";
	char    err[300];
	double *f[] = {&n.bps, &n.alpha_s, &n.alpha_h, &n.reconf_s, &n.frame};
	size_t  i;
	int     fd;

	(void)state;
	cmodel_hash(&m, "reconfig=0|model", h0);
	assert_int_equal(strlen(h0), 16);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		n = m;
		*f[i] *= 1.000001;
		cmodel_hash(&n, "reconfig=0|model", h);
		assert_string_not_equal(h, h0);
	}
	n = m;
	n.name[0] = 'L';
	cmodel_hash(&n, "reconfig=0|model", h);
	assert_string_not_equal(h, h0);
	cmodel_hash(&m, "reconfig=1|model", h);
	assert_string_not_equal(h, h0);
	cmodel_hash(&m, "reconfig=0|model+sim", h);
	assert_string_not_equal(h, h0);
	n = m;
	n.cond.nodes = 9;
	n.cond.rate_bps = 1e8;
	n.cond.cpu_max = 0.4;
	n.cond.residual_max = 0.03;
	cmodel_hash(&n, "reconfig=0|model", h);
	assert_string_equal(h, h0);
	n.su_bps = 4e8; /* written and read back */
	n.su_alpha = 2e-5;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cmodel_write(&n, path, "a comment\nand another"), 0);
	memset(&m, 0, sizeof(m));
	assert_int_equal(cmodel_load(&m, path, err, sizeof(err)), 0);
	assert_true(m.cond.nodes == 9 && m.cond.rate_bps == 1e8);
	assert_true(fabs(m.cond.cpu_max - 0.4) < 1e-9);
	assert_true(m.frame == 65536 && m.bps == 1e8);
	assert_true(m.su_bps == 4e8 && fabs(m.su_alpha - 2e-5) < 1e-12);
	cmodel_hash(&m, "reconfig=0|model", h);
	assert_string_equal(h, h0);
	unlink(path);
}

/* /proc's lines as the kernel writes them (a name with blanks and
 * parentheses too), and the verdicts on what a run used. */
static void
test_cpu(void **state)
{
	char           name[16], why[96];
	uint64_t       t, busy, all;
	struct cpu_use u = {.cores = 2};

	(void)state;
	assert_int_equal(
	    cpu_parse_stat("4242 (ocs-emu) S 1 4242 4242 0 -1 4194560 120 0 0 "
	                   "0 150 37 0 0 20 0 3 0 12345 0 0",
	                   name, sizeof(name), &t),
	    0);
	assert_string_equal(name, "ocs-emu");
	assert_int_equal(t, 187);
	assert_int_equal(cpu_parse_stat("7 (a) b) (c) R 1 2 3 4 5 6 7 8 9 10 "
	                                "11 12 13",
	                                name, sizeof(name), &t),
	                 0);
	assert_string_equal(name, "a) b) (c");
	assert_int_equal(t, 23);
	assert_int_equal(cpu_parse_stat("7 (x) R 1 2", name, sizeof(name), &t),
	                 -1);
	assert_int_equal(
	    cpu_parse_stat("no name here", name, sizeof(name), &t), -1);
	assert_int_equal(cpu_parse_host("cpu  100 5 50 1000 20 1 2 3 0 0\n"
	                                "cpu0 1 2 3 4\n",
	                                &busy, &all),
	                 0);
	assert_int_equal(all, 1181);
	assert_int_equal(busy, 161);
	assert_int_equal(cpu_parse_host("intr 1 2 3", &busy, &all), -1);
	/* The links bound it: nothing to say. */
	u.max = 0.3;
	u.sum = 0.9;
	u.host = 1.0;
	snprintf(u.who, sizeof(u.who), "ocs-emu");
	assert_int_equal(cpu_bound(&u, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	/* One process near a core: named. */
	u.max = 0.93;
	assert_int_equal(cpu_bound(&u, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "ocs-emu used 0.93 of a core"));
	/* The testbed's sum near the machine's cores. */
	u.max = 0.5;
	u.sum = 1.8;
	assert_int_equal(cpu_bound(&u, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "the testbed used 1.80 of 2 cores"));
	/* Waiting for a CPU: late for want of one, whatever it used. */
	u.sum = 0.4;
	u.wait = 0.3;
	snprintf(u.waiter, sizeof(u.waiter), "ocs-agent");
	assert_int_equal(cpu_bound(&u, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "ocs-agent's threads waited for a CPU "
	                            "30% of the run"));
	u.wait = 0.05;
	/* Someone else's work: the machine busy. */
	u.host = 1.9;
	assert_int_equal(cpu_bound(&u, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "machine was busy"));
	assert_null(strchr(why, ','));
}

/* The calibration's fit: a made-up testbed (known parameters, the five
 * plans' regressors) is recovered exactly from exact data; noise widens
 * the intervals, which then hold the truth; a parameter the runs cannot
 * tell apart, or that would come out negative, is held at 0. */
static void
test_fit(void **state)
{
	/* alpha_s, alpha_h, beta, gamma, reconf: 1 ms, 300 us, 100 Mbps,
	 * beta again, 500 us */
	const double truth[5] = {1e-3, 3e-4, 8e-8, 8e-8, 5e-4};
	double       X[60 * 5], y[60], noise;
	struct fit   f;
	size_t       r, n = 0;
	int          i;

	(void)state;
	for (r = 0; r < 60; r++) {
		double sz = (double)(1u << (20 + 2 * (r % 3))); /* 1..16 MiB */
		int    plan = (int)(r / 3) % 5;
		double *x = X + 5 * n;

		/* P, H, L, S, R of static / retri all / bridge all / retri
		 * none / bridge none on 9 nodes, roughly */
		x[0] = plan == 0 ? 1 : plan % 2 ? 2 : 4;
		x[1] = plan == 0 ? 4 : plan < 3 ? x[0] : 2 * x[0] + 1;
		x[2] = sz *
		       (plan == 0  ? 1.1
		        : plan < 3 ? 0.33
		                   : 0.6) *
		       (plan == 2 || plan == 4 ? 2 : 1);
		/* relays hold a frame, or the whole transfer if smaller */
		x[3] = (x[1] - x[0]) * fmin(65536, sz / 64);
		x[4] = plan == 1 ? 1 : plan == 2 ? 3 : 0;
		y[n] = 0;
		for (i = 0; i < 5; i++)
			y[n] += truth[i] * x[i];
		n++;
	}
	assert_int_equal(fit_ols(X, y, n, 5, &f), 0);
	for (i = 0; i < 5; i++) {
		assert_false(f.held[i]);
		assert_true(fabs(f.theta[i] / truth[i] - 1) < 1e-6);
		assert_true(f.half[i] < truth[i] * 1e-6);
	}
	assert_int_equal(f.dof, 55);
	/* Noise of +-5% (deterministic): intervals widen and hold it. */
	for (r = 0, noise = 0.05; r < n; r++, noise = -noise)
		y[r] *= 1 + noise * ((double)(r % 7) / 6);
	assert_int_equal(fit_ols(X, y, n, 5, &f), 0);
	assert_true(f.half[2] > 0);
	assert_true(fabs(f.theta[2] - truth[2]) <= f.half[2]);
	/* Every relay holding a whole frame: gamma's S is F (H - P), not
	 * told apart from alpha_s and alpha_h, and held. */
	for (r = 0; r < n; r++)
		X[5 * r + 3] = (X[5 * r + 1] - X[5 * r + 0]) * 65536;
	assert_int_equal(fit_ols(X, y, n, 5, &f), 0);
	assert_true(f.held[3] && !f.held[2]);
	/* Reconfigurations never vary: held at 0, said so. */
	for (r = 0; r < n; r++)
		X[5 * r + 4] = 0;
	assert_int_equal(fit_ols(X, y, n, 5, &f), 0);
	assert_true(f.held[4] && f.theta[4] == 0 && f.half[4] == 0);
	/* Data that would make alpha_s negative: held at 0, the rest
	 * still fitted and non-negative. */
	for (r = 0; r < n; r++)
		y[r] = 8e-8 * X[5 * r + 2] - 1e-3 * X[5 * r + 0];
	assert_int_equal(fit_ols(X, y, n, 5, &f), 0);
	assert_true(f.held[0]);
	for (i = 0; i < 5; i++)
		assert_true(f.theta[i] >= 0);
	/* Nothing to fit. */
	assert_int_equal(fit_ols(X, y, 0, 5, &f), -1);
	assert_int_equal(fit_ols(X, y, n, 0, &f), -1);
	assert_true(fabs(fit_t975(10) - 2.228) < 1e-9 && fit_t975(200) < 2);
}

/* A point is the library's optimum: R* and its cost. */
static void
test_point(void **state)
{
	struct sweep     s = {0};
	struct sweep_row r = {0};
	char             err[200];

	(void)state;
	s.m.bps = 400e9;
	s.m.alpha_s = 1.7e-6;
	s.m.alpha_h = 1e-6;
	s.simulate = 1;
	snprintf(r.algo, sizeof(r.algo), "retri");
	r.nodes = 27;
	r.bytes = 1 << 20;
	r.delta_s = 1e-6;
	assert_int_equal(sweep_point(&s, &r, err, sizeof(err)), 0);
	/* Every phase reconfigured at 1 us for 1 MiB (the paper's regime),
	 * and the simulator close to the model. */
	assert_int_equal(r.reconfs, 2);
	assert_string_equal(r.before, "1;2");
	assert_true(r.predicted_s > 0 && !isnan(r.simulated_s));
	assert_true(fabs(r.simulated_s / r.predicted_s - 1) < 0.2);
	r.delta_s = 1;
	assert_int_equal(sweep_point(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(r.reconfs, 0);
	s.reconf = SWEEP_ALL;
	assert_int_equal(sweep_point(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(r.reconfs, 2);
	assert_true(r.predicted_s > 2.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lists),
	    cmocka_unit_test(test_csv_round_trip),
	    cmocka_unit_test(test_resume_reads),
	    cmocka_unit_test(test_model_file),
	    cmocka_unit_test(test_model_hash),
	    cmocka_unit_test(test_cpu),
	    cmocka_unit_test(test_fit),
	    cmocka_unit_test(test_point),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

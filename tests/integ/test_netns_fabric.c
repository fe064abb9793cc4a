/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_netns_fabric.c (root): the namespace testbed as a
 * fabric.  Two switches, a plane each, both ocs-emu kernel datapaths
 * (netns.sh fabric): every host's t0 a veth into switch A's namespace,
 * t1 into switch B's; ocsd drives A over Polatis TL1 and B over CALIENT
 * REST; agents on raw Ethernet.  ReTri, Bridge and ReTri with its planes
 * apart run verified through the kernel, the circuits of each plane on
 * its own switch; and nothing of the testbed (namespaces, the hosts'
 * second names) outlives it.  Without root the test is skipped with the
 * reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/lib/rig.h"

static int
need_root(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_netns_fabric: skipped: needs root "
		                "(network namespaces, veth, tc)\n");
		return (0);
	}
	return (1);
}

/* ocsctl run ARGS...: verified with no error; its text in *out. */
static void
run_ok(struct rig *r, char **out, const char *algo, const char *planes)
{
	char *err;
	int   rv;

	if (planes != NULL)
		rv = rig_ctl(r, out, &err, "run", "--algo", algo, "--bytes",
		             "512KiB", "--reconfig", "all", "--planes", planes,
		             NULL);
	else
		rv = rig_ctl(r, out, &err, "run", "--algo", algo, "--bytes",
		             "512KiB", NULL);
	if (rv != 0 || strstr(*out, " blocks, 0 errors\n") == NULL)
		fprintf(stderr, "%s: %s%s", algo, *out, err);
	assert_int_equal(rv, 0);
	assert_non_null(strstr(*out, "verified: "));
	assert_non_null(strstr(*out, " blocks, 0 errors\n"));
	free(err);
}

/* Does anything of the testbed prefix remain: a namespace, or a mount
 * of one (the hosts' second names are bind mounts)? */
static int
left_behind(const char *prefix)
{
	char *lsns[] = {"ip", "netns", "list", NULL};
	char *mnt[] = {"cat", "/proc/self/mountinfo", NULL}, *o, *e;
	int   left;

	assert_int_equal(proc_run(lsns, &o, &e), 0);
	left = strstr(o, prefix) != NULL;
	free(o);
	free(e);
	assert_int_equal(proc_run(mnt, &o, &e), 0);
	left |= strstr(o, prefix) != NULL;
	free(o);
	free(e);
	return (left);
}

/* Port p1 of a switch's namespace and the host it reaches: the plant is
 * as the cabling says (h00's t0 on A's p1, its t1 on B's p1). */
static void
plant_cabled(struct rig *r)
{
	char  cmd[200], *o, *e;
	char *argv[] = {"sh", "-c", cmd, NULL};

	snprintf(cmd, sizeof(cmd),
	         "ip -n %s-sw -o link show p1 && ip -n %s_b-sw -o link show "
	         "p1 && ip -n %s_b-h00 -o link show t1",
	         r->netns, r->netns, r->netns);
	if (proc_run(argv, &o, &e) != 0)
		fail_msg("the fabric's plant: %s", e);
	free(o);
	free(e);
}

static void
test_fabric_netns(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .netns = 1,
	                     .netns_rate = "1Gbps",
	                     .fabric = 1};
	struct rig     *r;
	char           *out, *err, prefix[24];

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(5, &o));
	*state = r; /* torn down even if an assertion fails */
	snprintf(prefix, sizeof(prefix), "%s", r->netns);
	plant_cabled(r);
	assert_int_equal(rig_ctl(r, &out, &err, "-br", "status", NULL), 0);
	assert_non_null(strstr(out, "A connected"));
	assert_non_null(strstr(out, "B connected"));
	free(out);
	free(err);
	run_ok(r, &out, "retri", NULL);
	free(out);
	/* Bridge's later reconfigurations are light-checked on switch B's
	 * REST face: answered only once the kernel forwards. */
	run_ok(r, &out, "bridge", NULL);
	free(out);
	run_ok(r, &out, "retri", "apart");
	assert_non_null(strstr(out, "planes apart"));
	assert_non_null(strstr(out, "plane A: reconf"));
	assert_non_null(strstr(out, "plane B: reconf"));
	free(out);
	/* Each plane on its own switch: B's ports are the .1 transceivers
	 * (their power read from B's kernel datapath), never a .0. */
	assert_int_equal(
	    rig_ctl(r, &out, &err, "-S", "B", "show", "ports", NULL), 0);
	assert_non_null(strstr(out, "h00.1"));
	assert_non_null(strstr(out, "h04.1"));
	assert_null(strstr(out, "h00.0"));
	free(out);
	free(err);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
	assert_false(left_behind(prefix));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_fabric_netns, rig_teardown),
	};

	return (
	    cmocka_run_group_tests_name("netns_fabric", tests, NULL, NULL));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_tl1_ssh.c: TL1 over SSH, both ends real: ocs-emu
 * --tl1-ssh on an ephemeral port and the polatis driver with transport
 * ssh.  Patches through the SSH face, the host key learnt and then held
 * (a changed key refused and named), a wrong password, and the face's
 * defences as on the raw port: a connection that never finishes its
 * handshake is cut after the login grace, more connections than the
 * face serves are refused without starving a real client, and a session
 * idle past the session timeout is closed (the driver logs in again).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/proc.h"

struct fx {
	char       *dir;
	struct proc emu;
	char        tl1[64], ssh[64], kh[300];
	int         nkey; /* host keys the driver added (trace) */
};

static void
trace(void *arg, const char *fmt, ...)
{
	struct fx *f = arg;
	va_list    ap;
	char       line[512];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(line, "host key") && strstr(line, "added to"))
		f->nkey++;
}

/* ocs-emu with TL1 over SSH on ssh ("" for an ephemeral port), its state
 * (and host key) in the directory sub of the fixture's. */
static void
emu_start(struct fx *f, const char *ssh, const char *sub, const char *x1,
          const char *x2)
{
	char  bin[256], log[300], state[300], line[256], addr[80];
	char *argv[20];
	int   n = 0;

	snprintf(log, sizeof(log), "%s/emu.log", f->dir);
	snprintf(state, sizeof(state), "%s/%s", f->dir, sub);
	mkdir(state, 0700);
	snprintf(state, sizeof(state), "%s/%s/emu.state", f->dir, sub);
	snprintf(addr, sizeof(addr), "%s", ssh[0] ? ssh : "127.0.0.1:0");
	argv[n++] = (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin));
	argv[n++] = "--tl1";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--tl1-ssh";
	argv[n++] = addr;
	argv[n++] = "--ports";
	argv[n++] = "16";
	argv[n++] = "--switch-time";
	argv[n++] = "5ms";
	argv[n++] = "--state";
	argv[n++] = state;
	if (x1)
		argv[n++] = (char *)(uintptr_t)x1;
	if (x2)
		argv[n++] = (char *)(uintptr_t)x2;
	argv[n] = NULL;
	assert_int_equal(proc_start(&f->emu, argv, log), 0);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	assert_int_equal(strncmp(line, "ocs-emu: tl1 ", 13), 0);
	snprintf(f->tl1, sizeof(f->tl1), "%.63s", line + 13);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	assert_int_equal(strncmp(line, "ocs-emu: tl1-ssh ", 17), 0);
	snprintf(f->ssh, sizeof(f->ssh), "%.63s", line + 17);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = proc_tmpdir("tl1ssh");
	snprintf(f->kh, sizeof(f->kh), "%s/known_hosts", f->dir);
	emu_start(f, "", "a", "--login-grace", "500ms");
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int        dirty;

	proc_stop(&f->emu, SIGTERM);
	dirty = proc_log_dirty(&f->emu);
	proc_rmtree(f->dir);
	free(f->dir);
	free(f);
	return (dirty ? -1 : 0);
}

static int
open_drv(struct fx *f, const char *pw, struct drv **d)
{
	struct drv_opts o = {.user = "root",
	                     .password = pw,
	                     .timeout_ms = 3000,
	                     .ssh = 1,
	                     .known_hosts = f->kh,
	                     .trace = trace,
	                     .trace_arg = f};

	return (drv_open(d, "polatis", f->ssh, &o));
}

/* The file's contents, malloc'd ("" if none). */
static char *
slurp(const char *path)
{
	FILE  *fp = fopen(path, "r");
	char  *s = calloc(1, 8192);
	size_t n;

	assert_non_null(s);
	if (fp != NULL) {
		n = fread(s, 1, 8191, fp);
		s[n] = '\0';
		fclose(fp);
	}
	return (s);
}

static void
test_tl1_ssh_patches(void **state)
{
	struct fx       *f = *state;
	struct drv      *d;
	struct drv_patch p[2] = {{1, 17}, {2, 18}};
	struct drv_batch b = {.connect = p, .nconnect = 2};
	struct drv_caps  c;
	uint16_t         map[17];
	char            *kh, port[16];

	assert_int_equal(open_drv(f, "root", &d), 0);
	assert_int_equal(drv_caps(d, &c), 0);
	assert_int_equal(c.nports, 16);
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(drv_read_map(d, map, 16), 0);
	assert_int_equal(map[1], 17);
	assert_int_equal(map[2], 18);
	drv_close(d);
	/* The key was learnt once, for [host]:port. */
	assert_int_equal(f->nkey, 1);
	kh = slurp(f->kh);
	snprintf(port, sizeof(port), "]:%s ", strrchr(f->ssh, ':') + 1);
	assert_non_null(strstr(kh, port));
	free(kh);
	/* And held: the next login adds nothing. */
	assert_int_equal(open_drv(f, "root", &d), 0);
	assert_int_equal(drv_read_map(d, map, 16), 0);
	assert_int_equal(map[2], 18);
	drv_close(d);
	assert_int_equal(f->nkey, 1);
}

/* Another switch (another host key) at the same address is refused,
 * and the error names the key and the file. */
static void
test_tl1_ssh_changed_key(void **state)
{
	struct fx  *f = *state;
	struct drv *d;
	char        ssh[64];

	assert_int_equal(open_drv(f, "root", &d), 0);
	drv_close(d);
	snprintf(ssh, sizeof(ssh), "%s", f->ssh);
	proc_stop(&f->emu, SIGTERM);
	unlink(f->emu.log);
	emu_start(f, ssh, "b", NULL, NULL);
	assert_int_equal(open_drv(f, "root", &d), -DRV_EAUTH);
	assert_non_null(strstr(drv_last_error(d), "host key changed"));
	assert_non_null(strstr(drv_last_error(d), "SHA256:"));
	assert_non_null(strstr(drv_last_error(d), f->kh));
	drv_close(d);
}

static void
test_tl1_ssh_wrong_password(void **state)
{
	struct fx  *f = *state;
	struct drv *d;

	assert_int_equal(open_drv(f, "wrong", &d), -DRV_EAUTH);
	assert_non_null(strstr(drv_last_error(d), "login as root"));
	drv_close(d);
}

/* A client that connects and says nothing is cut after the grace. */
static void
test_tl1_ssh_slowloris(void **state)
{
	struct fx *f = *state;
	char       host[64], port[16], buf[512];
	uint64_t   t0 = mono_ms();
	ssize_t    r;
	int        fd;

	assert_int_equal(
	    net_hostport(f->ssh, NULL, host, sizeof(host), port, sizeof(port)),
	    0);
	fd = net_connect(host, port, 2000, -1);
	assert_true(fd >= 0);
	/* The server's banner, then nothing but the close. */
	while ((r = net_read_some(fd, buf, sizeof(buf), t0 + 5000, -1)) > 0)
		;
	assert_int_equal(r, 0);
	assert_true(mono_ms() - t0 >= 400);
	close(fd);
}

/* More connections than the face serves: the extra ones are closed at
 * once, and once the crowd goes a real client gets in. */
static void
test_tl1_ssh_many_sessions(void **state)
{
	struct fx  *f = *state;
	struct drv *d;
	char        host[64], port[16], buf[512];
	int         fd[80], i, closed = 0;
	uint16_t    map[17];

	assert_int_equal(
	    net_hostport(f->ssh, NULL, host, sizeof(host), port, sizeof(port)),
	    0);
	for (i = 0; i < 80; i++)
		assert_true((fd[i] = net_connect(host, port, 2000, -1)) >= 0);
	/* The last ones see the close before any grace runs out. */
	for (i = 70; i < 80; i++) {
		ssize_t r;

		while ((r = net_read_some(fd[i], buf, sizeof(buf),
		                          mono_ms() + 300, -1)) > 0)
			;
		closed += r == 0;
	}
	assert_true(closed >= 10 - 2); /* a few may have taken a freed slot */
	for (i = 0; i < 80; i++)
		close(fd[i]);
	mono_sleep_ms(200);
	assert_int_equal(open_drv(f, "root", &d), 0);
	assert_int_equal(drv_read_map(d, map, 16), 0);
	drv_close(d);
}

/* A session idle past the session timeout is closed by the switch; the
 * driver notices before its next command and logs in again. */
static void
test_tl1_ssh_idle_timeout(void **state)
{
	struct fx       *f = *state;
	struct drv      *d;
	struct drv_patch p = {3, 19};
	struct drv_batch b = {.connect = &p, .nconnect = 1};
	uint16_t         map[17];
	char            *log;

	proc_stop(&f->emu, SIGTERM);
	unlink(f->emu.log);
	emu_start(f, "", "c", "--session-timeout", "1s");
	assert_int_equal(open_drv(f, "root", &d), 0);
	mono_sleep_ms(1600);
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(drv_read_map(d, map, 16), 0);
	assert_int_equal(map[3], 19);
	drv_close(d);
	log = slurp(f->emu.log);
	assert_non_null(strstr(log, "idle for 1s, closing"));
	free(log);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_tl1_ssh_patches, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tl1_ssh_changed_key, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tl1_ssh_wrong_password, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tl1_ssh_slowloris, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tl1_ssh_many_sessions, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tl1_ssh_idle_timeout, setup,
	                                    teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("tl1_ssh", tests, NULL, NULL));
}

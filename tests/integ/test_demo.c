/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_demo.c: make run (testbed/run-demo.sh) leaves nothing
 * behind however it ends: its reader gone (SIGPIPE, as with | head), a
 * hang-up, or Ctrl-C.  Each case runs the demo with its own TMPDIR, so
 * "nothing behind" is checkable: the scratch directory is gone, and no
 * process names it any more.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/base/mono.h"
#include "tests/lib/proc.h"

/* Processes whose command line mentions s. */
static int
procs_naming(const char *s)
{
	DIR           *d = opendir("/proc");
	struct dirent *e;
	char           path[300], buf[4096];
	int            n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		FILE  *f;
		size_t k, i;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		k = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (i = 0; i < k; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[k] = '\0';
		n += strstr(buf, s) != NULL;
	}
	closedir(d);
	return (n);
}

static int
dir_empty(const char *dir)
{
	DIR           *d = opendir(dir);
	struct dirent *e;
	int            n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return (n == 0);
}

/* Within 5 s, nothing of the demo run in tmp is left. */
static void
assert_clean(const char *tmp)
{
	int i;

	for (i = 0; i < 50 && (procs_naming(tmp) || !dir_empty(tmp)); i++)
		mono_sleep_ms(100);
	if (procs_naming(tmp) || !dir_empty(tmp)) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "ls -laR %s >&2", tmp);
		(void)!system(cmd);
	}
	if (procs_naming(tmp) || !dir_empty(tmp))
		fail_msg("the demo left %d process(es) or files in %s",
		         procs_naming(tmp), tmp);
}

/*
 * The demo with TMPDIR=tmp in a child, in its own process group: its
 * stdout through the shell command pipe_to, or into the file out (then
 * the child is the demo's own shell).
 */
static pid_t
demo(const char *tmp, const char *pipe_to, const char *out, const char *bytes)
{
	const char *bin = getenv("OCS_BIN") ? getenv("OCS_BIN") : "bin";
	char        cmd[1024];
	pid_t       pid;
	int         fd;

	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		/* Ignored on entry, a signal cannot be trapped by a shell:
		 * and a test may run under nohup (HUP) or as a background
		 * job (INT), so every signal tested is reset. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		setenv("TMPDIR", tmp, 1);
		if (pipe_to != NULL) {
			snprintf(cmd, sizeof(cmd),
			         "sh testbed/run-demo.sh %s 3 %s %s", bin,
			         bytes, pipe_to);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		execl("/bin/sh", "sh", "testbed/run-demo.sh", bin, "3",
		      "64KiB", (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	return (pid);
}

static void
test_demo_reader_gone(void **state)
{
	char *tmp = proc_tmpdir("demo");
	int   st;
	pid_t pid;

	(void)state;
	pid = demo(tmp, "| head -n 1 >/dev/null", NULL, "64KiB");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_clean(tmp);
	proc_rmtree(tmp);
	free(tmp);
}

/* Signal the demo's shell once its agents have joined. */
static void
signalled(int sig)
{
	char *tmp = proc_tmpdir("demo");
	char  out[300], buf[256];
	FILE *f;
	pid_t pid;
	int   i, up = 0, st;

	snprintf(out, sizeof(out), "%s.out", tmp);
	/* Runs long enough (seconds) to be signalled in one even on a
	 * busy machine: a demo that ended first would prove nothing. */
	pid = demo(tmp, NULL, out, "256MiB");
	for (i = 0; i < 1000 && !up; i++) {
		mono_sleep_ms(10);
		if ((f = fopen(out, "r")) == NULL)
			continue;
		while (fgets(buf, sizeof(buf), f) != NULL)
			up |= strstr(buf, "agents joined") != NULL;
		fclose(f);
	}
	assert_true(up);
	/* To the demo's shell alone (a terminal would signal the whole
	 * group): the script's own clean-up is what is tested. */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	kill(pid, sig);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* It ended through its trap, not by finishing first. */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), sig == SIGHUP ? 129 : 130);
	assert_clean(tmp);
	unlink(out);
	proc_rmtree(tmp);
	free(tmp);
}

static void
test_demo_hangup(void **state)
{
	(void)state;
	signalled(SIGHUP);
}

static void
test_demo_interrupt(void **state)
{
	(void)state;
	signalled(SIGINT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demo_reader_gone),
	    cmocka_unit_test(test_demo_hangup),
	    cmocka_unit_test(test_demo_interrupt),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("demo", tests, NULL, NULL));
}

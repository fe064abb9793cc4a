/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_conf.c: ocsd's configuration: a good file, and every
 * kind of bad key or value rejected with the line, key and value named.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocsd/conf.h"

#define GOOD                                                                  \
	"[switch]\n"                                                          \
	"driver = polatis\n"                                                  \
	"address = 10.0.0.5:3082\n"                                           \
	"user = root\n"                                                       \
	"password = root\n"                                                   \
	"timeout = 2s\n"                                                      \
	"switch_time = 25ms\n"                                                \
	"poll = 10s\n"                                                        \
	"[control]\n"                                                         \
	"listen = ipc:///tmp/x/ctl.sock\n"                                    \
	"[state]\n"                                                           \
	"dir = /var/lib/ocsd\n"                                               \
	"reconcile = push\n"                                                  \
	"[cabling]\n"                                                         \
	"h0.0 = 1 65\n"                                                       \
	"h0.1 = 2, 66   ; a comment\n"                                        \
	"rack-3_b.12 = 3 67\n"

static void
test_conf_good(void **state)
{
	struct conf *c;
	char         err[512];

	(void)state;
	assert_int_equal(conf_parse(GOOD, "t.conf", &c, err, sizeof(err)), 0);
	assert_string_equal(c->sw[0].driver, "polatis");
	assert_string_equal(c->sw[0].address, "10.0.0.5:3082");
	assert_int_equal(c->sw[0].timeout_ms, 2000);
	assert_int_equal(c->sw[0].switch_ms, 25);
	assert_int_equal(c->sw[0].poll_ms, 10000);
	assert_string_equal(c->control, "ipc:///tmp/x/ctl.sock");
	assert_int_equal(c->reconcile, CONF_RECON_PUSH);
	assert_int_equal(c->ntrx, 3);
	assert_int_equal(conf_trx_find(c, "h0.1")->out, 66);
	assert_int_equal(conf_trx_by_in(c, 0, 3)->out, 67);
	assert_string_equal(conf_trx_by_out(c, 0, 65)->name, "h0.0");
	assert_null(conf_trx_find(c, "h9.9"));
	assert_int_equal(conf_check_ports(c, 0, 64, 64, err, sizeof(err)), 0);
	assert_int_equal(conf_check_ports(c, 0, 32, 32, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "h0.0 = 1 65 does not fit a 32x32"));
	conf_free(c);
}

/* One bad line put into a good file, at the end of its section (a section is given
 * once): the error names the line, the key and the value. */
static void
bad_line(const char *section, const char *line, const char *want)
{
	struct conf *c;
	char         text[2048], err[512], head[64];
	int          lines = 0;
	const char  *p, *at;

	snprintf(head, sizeof(head), "[%s]\n", section);
	if ((at = strstr(GOOD, head)) != NULL) {
		/* At the end of the section: after its own lines. */
		at += strlen(head);
		at = strstr(at, "\n[") ? strstr(at, "\n[") + 1
		                       : GOOD + strlen(GOOD);
		snprintf(text, sizeof(text), "%.*s%s\n%s", (int)(at - GOOD),
		         GOOD, line, at);
	} else {
		at = GOOD + strlen(GOOD);
		snprintf(text, sizeof(text), "%s%s%s\n", GOOD, head, line);
		lines++; /* the section's header */
	}
	for (p = GOOD; p < at; p++)
		lines += *p == '\n';
	assert_int_equal(conf_parse(text, "t.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_null(c);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	/* The line number is the bad line's. */
	snprintf(text, sizeof(text), "t.conf:%d:", lines + 1);
	if (strncmp(err, text, strlen(text)) != 0)
		fail_msg("error \"%s\" should start with \"%s\"", err, text);
}

/* [run] model = FILE: the file's parameters, relative to the conf's
 * directory, keys after it winning; a bad model file named with its
 * line. */
static void
test_conf_model_file(void **state)
{
	char         dir[] = "/tmp/test_conf_XXXXXX", path[300], text[2048];
	char         err[512];
	struct conf *c;
	FILE        *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lab.model", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("; calibrated\n[model]\nname = lab\nbandwidth = 2Gbps\n"
	      "alpha_s = 1ms\nalpha_h = 300us\nreconf_overhead = 400us\n"
	      "scaleup_bandwidth = 8Gbps\n",
	      f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/ocsd.conf", dir);
	snprintf(text, sizeof(text),
	         "%s[run]\nmodel = lab.model\n"
	         "alpha_h = 100us\n",
	         GOOD);
	assert_int_equal(conf_parse(text, path, &c, err, sizeof(err)), 0);
	assert_true(c->run_bps == 2e9 && fabs(c->run_alpha_s - 1e-3) < 1e-12);
	assert_true(fabs(c->run_alpha_h - 100e-6) < 1e-12 &&
	            fabs(c->run_reconf_s - 400e-6) < 1e-12);
	assert_string_equal(c->run_model, "lab");
	/* Servers' local links: the file's rate, the default latency. */
	assert_true(c->run_su_bps == 8e9 &&
	            fabs(c->run_su_alpha - 20e-6) < 1e-12);
	conf_free(c);
	snprintf(text, sizeof(text), "%s[run]\nmodel = nowhere.model\n", GOOD);
	assert_int_equal(conf_parse(text, path, &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "model: \"nowhere.model\""));
	assert_non_null(strstr(err, "nowhere.model: No such file"));
	snprintf(path, sizeof(path), "%s/lab.model", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("[model]\nbandwidth = 2Gbps\nalpha_q = 1ms\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/ocsd.conf", dir);
	snprintf(text, sizeof(text), "%s[run]\nmodel = lab.model\n", GOOD);
	assert_int_equal(conf_parse(text, path, &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "lab.model:3: unknown key \"alpha_q\""));
	snprintf(path, sizeof(path), "%s/lab.model", dir);
	unlink(path);
	rmdir(dir);
}

static void
test_conf_bad_values(void **state)
{
	(void)state;
	bad_line("switch", "driver = cisco", "driver: \"cisco\": unknown");
	bad_line("run", "idle_lit = sometimes",
	         "idle_lit: \"sometimes\": expected yes or no");
	bad_line("switch", "timeout = 5", "timeout: \"5\": expected a time");
	bad_line("switch", "timeout = 0", "timeout: \"0\": at least 1ms");
	bad_line("switch", "poll = forever", "poll: \"forever\"");
	bad_line("switch", "switch_time = -1ms", "switch_time: \"-1ms\"");
	bad_line("switch", "ports = 0", "ports: \"0\": expected 1..");
	bad_line("switch", "ports = 12x", "ports: \"12x\"");
	bad_line("switch", "colour = blue", "colour: \"blue\": unknown key");
	bad_line("switch", "user = ", "user: \"\": empty");
	bad_line("switch", "transport = telnet",
	         "transport: \"telnet\": expected tcp or ssh");
	bad_line("control", "listen = http://x", "listen: \"http://x\"");
	bad_line("state", "reconcile = maybe", "reconcile: \"maybe\"");
	bad_line("run", "scaleup_bandwidth = lots",
	         "scaleup_bandwidth: \"lots\"");
	bad_line("run", "scaleup_alpha = 2s", "scaleup_alpha: \"2s\"");
	bad_line("nonsense", "a = b", "unknown section [nonsense]");
	bad_line("cabling", "h0.0 = 9 99",
	         "h0.0: \"9 99\": transceiver "
	         "listed twice");
	bad_line("cabling", "h5.0 = 1 99", "port 1 also cabled to h0.0");
	bad_line("cabling", "h5.0 = 30 65", "port 65 also cabled to h0.0");
	bad_line("cabling", "h5.0 = 70 60", "must be below the egress");
	bad_line("cabling", "h5.0 = 70", "expected \"INGRESS EGRESS\"");
	bad_line("cabling", "h5.0 = 70 71 72", "expected \"INGRESS EGRESS\"");
	bad_line("cabling", "h5.0 = x y", "expected \"INGRESS EGRESS\"");
	bad_line("cabling", "h5 = 70 71", "host.index");
	bad_line("cabling", "h.5.x = 70 71", "host.index");
	bad_line("cabling", "h5.0 = 0 71", "INGRESS EGRESS");
}

static void
test_conf_whole_file_checks(void **state)
{
	struct conf *c;
	char         err[512];

	(void)state;
	assert_int_equal(conf_parse("[switch]\naddress = x:1\n", "a.conf", &c,
	                            err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "driver missing"));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\n", "a.conf",
	                            &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "address missing"));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\naddress = "
	                            "h:1\nuser = u\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "user and password"));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\naddress = "
	                            "h:99999\nuser = u\npassword = p\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "address: \"h:99999\""));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\naddress = "
	                            "h\nuser = u\npassword = p\nports = 8\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "only the emu driver"));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\naddress = "
	                            "h\nuser = u\npassword = p\n"
	                            "password_file = /nonexistent/pw\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "both given"));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\naddress = "
	                            "h\nuser = u\n"
	                            "password_file = /nonexistent/pw\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "/nonexistent/pw"));
	assert_int_equal(
	    conf_parse("no section here\n", "a.conf", &c, err, sizeof(err)),
	    -CONF_EPARSE);
	assert_non_null(strstr(err, "a.conf:1: syntax error"));
	/* TL1 over SSH is the polatis driver's; its known_hosts is taken
	 * from the file's directory, its port 22 by default. */
	assert_int_equal(conf_parse("[switch]\ndriver = calient-tl1\naddress "
	                            "= h\nuser = u\npassword = p\n"
	                            "transport = ssh\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "transport = ssh is the polatis"));
	assert_int_equal(conf_parse("[switch]\ndriver = polatis\naddress = "
	                            "h\nuser = u\npassword = p\n"
	                            "transport = ssh\nknown_hosts = kh\n",
	                            "/etc/o/a.conf", &c, err, sizeof(err)),
	                 0);
	assert_int_equal(c->sw[0].ssh, 1);
	assert_string_equal(c->sw[0].known_hosts, "/etc/o/kh");
	conf_free(c);
	/* The emu driver needs nothing else. */
	assert_int_equal(conf_parse("[switch]\ndriver = emu\nports = 8\n",
	                            "a.conf", &c, err, sizeof(err)),
	                 0);
	assert_int_equal(c->sw[0].ports, 8);
	conf_free(c);
	assert_int_equal(
	    conf_load("/nonexistent/ocsd.conf", &c, err, sizeof(err)),
	    -CONF_EPARSE);
	assert_non_null(strstr(err, "No such file"));
}

/* What ocsd would refuse at start-up, -n refuses too (issue 11). */
static void
refused(const char *text, const char *want)
{
	struct conf *c = NULL;
	char         err[512];

	if (conf_parse(text, "/etc/x/a.conf", &c, err, sizeof(err)) !=
	    -CONF_EPARSE)
		fail_msg("accepted: %s", text);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	assert_null(c);
}

#define SW_POL "[switch]\ndriver = polatis\nuser = u\npassword = p\n"
#define SW_CAL "[switch]\ndriver = calient\nuser = u\npassword = p\n"

static void
test_conf_startup_checks(void **state)
{
	struct conf *c;
	char         err[512];

	(void)state;
	refused(SW_POL "address = http://10.0.0.5:80\n", "speaks TL1");
	refused(SW_CAL "address = 10.0.0.5:8080\n", "http[s]://HOST");
	/* The agent link: TLS when the join is, its own address, agents
	 * to serve; its old name (barrier) still read, events ignored. */
	refused("[switch]\ndriver = emu\n[agents]\nlisten = tls+tcp://h:1\n"
	        "link = tcp://h:3\ntls_cert_key = /k\nsecret_file = /s\n",
	        "agents join over TLS: their link is tls+tcp:// too");
	refused("[switch]\ndriver = emu\n[agents]\nlisten = ipc:///x\n"
	        "link = ipc:///x\nsecret_file = /s\n",
	        "link: \"ipc:///x\": the same address as listen");
	refused("[switch]\ndriver = emu\n[agents]\nlisten = ipc:///x\n"
	        "link = tls+tcp://h:1\nsecret_file = /s\n",
	        "tls_cert_key is required");
	refused("[switch]\ndriver = emu\n[agents]\nlink = tcp://h:3\n",
	        "needs listen");
	refused("[switch]\ndriver = emu\n[agents]\nlisten = ipc:///x\n"
	        "link = udp://h:3\nsecret_file = /s\n",
	        "link: \"udp://h:3\": expected ipc://PATH");
	assert_int_equal(conf_parse("[switch]\ndriver = emu\n[agents]\n"
	                            "listen = ipc:///x\nevents = ipc:///y\n"
	                            "barrier = tcp://127.0.0.1:0\n"
	                            "secret_file = /s\n",
	                            "/etc/x/a.conf", &c, err, sizeof(err)),
	                 0);
	assert_string_equal(c->link, "tcp://127.0.0.1:0");
	conf_free(c);
	assert_int_equal(conf_parse("[switch]\ndriver = emu\n[agents]\n"
	                            "listen = tls+tcp://0.0.0.0:7410\n"
	                            "link = tls+tcp://0.0.0.0:7411\n"
	                            "tls_cert_key = /k\nsecret_file = /s\n",
	                            "/etc/x/a.conf", &c, err, sizeof(err)),
	                 0);
	conf_free(c);
	refused("[switch]\ndriver = emu\n[state]\ndir = /a\n[switch]\n"
	        "ports = 8\n",
	        "[switch] given twice");
	/* Relative paths are the configuration file's neighbours. */
	assert_int_equal(conf_parse("[switch]\ndriver = emu\n[agents]\n"
	                            "listen = ipc:///x\nevents = ipc:///y\n"
	                            "secret_file = secret\n",
	                            "/etc/x/a.conf", &c, err, sizeof(err)),
	                 0);
	assert_string_equal(c->secret_file, "/etc/x/secret");
	conf_free(c);
	/* ...the state directory and ipc:// sockets too (issue 34: a
	 * relative socket was made in the cwd and left there at exit). */
	assert_int_equal(conf_parse("[switch]\ndriver = emu\n[control]\n"
	                            "listen = ipc://run/ctl.sock\n[agents]\n"
	                            "listen = ipc://ag.sock\n"
	                            "link = tcp://127.0.0.1:0\n"
	                            "secret_file = /s\n[state]\ndir = st\n",
	                            "/etc/x/a.conf", &c, err, sizeof(err)),
	                 0);
	assert_string_equal(c->control, "ipc:///etc/x/run/ctl.sock");
	assert_string_equal(c->agents, "ipc:///etc/x/ag.sock");
	assert_string_equal(c->link, "tcp://127.0.0.1:0");
	assert_string_equal(c->state_dir, "/etc/x/st");
	conf_free(c);
	/* A key given twice, or under both its names, is refused like a
	 * section given twice: which one wins would be the file's order. */
	refused("[switch]\ndriver = emu\npoll = 1s\npoll = 2s\n",
	        "a.conf:4: poll: \"2s\": given twice in [switch]");
	refused("[switch]\ndriver = emu\n[agents]\nlisten = ipc:///x\n"
	        "link = tcp://h:3\nbarrier = tcp://h:4\nsecret_file = /s\n",
	        "barrier: \"tcp://h:4\": given twice in [agents]");
}

#define CALIENT                                                               \
	"[switch]\ndriver = calient\naddress = http://h\nuser = a\n"          \
	"password = b\n"

/* A switch that names its ports: 1.1.1 .. 1.1.4 are ports 1..4. */
static int
names(void *arg, const char *name, uint32_t *p)
{
	static const char *const n[] = {"1.1.1", "1.1.2", "1.1.3", "1.1.4"};
	uint32_t                 i;

	if (arg != NULL)
		return (-ENOTSUP);
	for (i = 0; i < 4; i++)
		if (strcmp(name, n[i]) == 0) {
			*p = i + 1;
			return (0);
		}
	return (-ENOENT);
}

static void
test_conf_named_cabling(void **state)
{
	struct conf *c;
	char         err[512];
	int          x;

	(void)state;
	assert_int_equal(conf_parse(CALIENT "[cabling]\nh0.0 = 1.1.1 1.1.2\n"
	                                    "h1.0 = 1.1.3, 1.1.3\n",
	                            "t.conf", &c, err, sizeof(err)),
	                 0);
	/* Not yet looked up: no port can be checked. */
	assert_int_equal(conf_check_ports(c, 0, 4, 4, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "not yet looked up"));
	assert_int_equal(
	    conf_resolve_ports(c, 0, 4, 4, names, NULL, err, sizeof(err)), 0);
	assert_int_equal(conf_trx_find(c, "h0.0")->in, 1);
	assert_int_equal(conf_trx_find(c, "h0.0")->out, 4 + 2);
	assert_int_equal(conf_trx_find(c, "h1.0")->in, 3);
	assert_int_equal(conf_trx_find(c, "h1.0")->out, 4 + 3);
	/* A switch that numbers its ports refuses names. */
	assert_int_equal(
	    conf_resolve_ports(c, 0, 4, 4, names, &x, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "numbers its ports"));
	conf_free(c);
	/* A name the switch does not have. */
	assert_int_equal(conf_parse(CALIENT "[cabling]\nh0.0 = 1.1.1 2.1.1\n",
	                            "t.conf", &c, err, sizeof(err)),
	                 0);
	assert_int_equal(
	    conf_resolve_ports(c, 0, 4, 4, names, NULL, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "the switch has no port 2.1.1"));
	conf_free(c);
	/* A name and a number that turn out to be the same port. */
	assert_int_equal(conf_parse(CALIENT "[cabling]\nh0.0 = 1.1.1 1.1.2\n"
	                                    "h1.0 = 1 7\n",
	                            "t.conf", &c, err, sizeof(err)),
	                 0);
	assert_int_equal(
	    conf_resolve_ports(c, 0, 4, 4, names, NULL, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "same port"));
	conf_free(c);
	/* Mixed in one line, malformed, repeated. */
	bad_line("cabling", "h5.0 = 1.1.1 9", "both ends by number");
	bad_line("cabling", "h5.0 = 1.1 1.1.2", "device's port names");
	bad_line("cabling", "h5.0 = 1.1.1 1.x.2", "device's port names");
	assert_int_equal(conf_parse(CALIENT "[cabling]\nh0.0 = 1.1.1 1.1.2\n"
	                                    "h1.0 = 1.1.1 1.1.3\n",
	                            "t.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "also cabled to h0.0"));
	/* Names are the driver's to judge: a Polatis numbers its ports,
	 * whether its section comes before the cabling or after. */
	assert_int_equal(conf_parse(SW_POL "address = h\n[cabling]\n"
	                                   "h0.0 = 1.1.1 1.1.2\n",
	                            "t.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "t.conf:7: h0.0: \"1.1.1 1.1.2\": "
	                            "expected \"INGRESS EGRESS\""));
	assert_int_equal(conf_parse("[cabling]\nh0.0 = 1.1.1 1.1.2\n" SW_POL
	                            "address = h\n",
	                            "t.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_non_null(strstr(err, "h0.0: \"1.1.1\": not a port of driver "
	                            "polatis (it numbers its ports)"));
}

/* A fabric: [switch NAME] sections, each with its own driver and
 * defaults, and cabling lines that name their switch; ports are a
 * switch's own, so the same numbers on two switches do not clash. */
#define FABRIC                                                                \
	"[switch A]\ndriver = polatis\naddress = 10.0.0.5\nuser = u\n"        \
	"password = p\nswitch_time = 10ms\n"                                  \
	"[switch B]\ndriver = calient\naddress = http://10.0.0.6\nuser = u\n" \
	"password = p\n"                                                      \
	"[cabling]\nh0.0 = A 1 17\nh0.1 = B, 1.1.1 1.1.2\nh1.0 = A 2 18\n"    \
	"h1.1 = B 1.1.3 1.1.4\n"

static void
test_conf_fabric(void **state)
{
	struct conf *c;
	char         err[512], text[1024];

	(void)state;
	assert_int_equal(conf_parse(FABRIC, "t.conf", &c, err, sizeof(err)),
	                 0);
	assert_int_equal(c->nsw, 2);
	assert_string_equal(c->sw[0].name, "A");
	assert_string_equal(c->sw[1].driver, "calient");
	assert_int_equal(c->sw[0].switch_ms, 10);
	assert_int_equal(c->sw[1].switch_ms, 25); /* its own default */
	assert_int_equal(conf_switch_find(c, "B"), 1);
	assert_int_equal(conf_switch_find(c, "C"), -1);
	assert_string_equal(conf_switch_label(c, 1), "B");
	assert_int_equal(conf_trx_find(c, "h0.1")->sw, 1);
	assert_int_equal(conf_trx_find(c, "h1.0")->sw, 0);
	assert_string_equal(conf_trx_by_in(c, 0, 2)->name, "h1.0");
	assert_null(conf_trx_by_in(c, 1, 2));
	/* Each switch's ports are checked against that switch alone. */
	assert_int_equal(conf_check_ports(c, 0, 16, 16, err, sizeof(err)), 0);
	assert_int_equal(
	    conf_resolve_ports(c, 1, 4, 4, names, NULL, err, sizeof(err)), 0);
	assert_int_equal(conf_trx_find(c, "h1.1")->out, 4 + 4);
	assert_int_equal(conf_trx_find(c, "h0.0")->in, 1); /* A's, kept */
	conf_free(c);
	/* The same ports on two switches are two ports. */
	snprintf(text, sizeof(text), "%s",
	         "[switch A]\ndriver = emu\n[switch B]\ndriver = emu\n"
	         "[cabling]\nh0.0 = A 1 9\nh0.1 = B 1 9\n");
	assert_int_equal(conf_parse(text, "t.conf", &c, err, sizeof(err)), 0);
	conf_free(c);
	/* Refused: a port twice on one switch, a lone and a named switch
	 * mixed, a line without its switch, a switch that is not there, a
	 * named switch on a lone one's cabling, a bad name, a section
	 * twice. */
	struct {
		const char *text, *want;
	} bad[] = {
	    {"[switch A]\ndriver = emu\n[cabling]\nh0.0 = A 1 9\n"
	     "h0.1 = A 1 10\n",
	     "t.conf:5: h0.1: \"A 1 10\": port 1 also cabled to h0.0"},
	    {"[switch]\ndriver = emu\n[switch A]\ndriver = emu\n",
	     "do not mix"},
	    {"[switch A]\ndriver = emu\n[switch]\ndriver = emu\n",
	     "do not mix"},
	    {"[switch A]\ndriver = emu\n[cabling]\nh0.0 = 1 9\n",
	     "h0.0: the switches are named: write SWITCH INGRESS EGRESS"},
	    {"[switch A]\ndriver = emu\n[cabling]\nh0.0 = C 1 9\n",
	     "h0.0: \"C\": no [switch C] section"},
	    {"[switch]\ndriver = emu\n[cabling]\nh0.0 = A 1 9\n",
	     "there is one [switch], unnamed"},
	    {"[switch 9x]\ndriver = emu\n", "a switch's name is a letter"},
	    {"[switch A]\ndriver = emu\n[switch A]\ndriver = emu\n",
	     "given twice"},
	    {"[switch A]\ndriver = emu\n[switch B]\nuser = u\n",
	     "[switch B]: driver"},
	    {"[switch A]\ndriver = emu\n[switch B]\ndriver = polatis\n",
	     "[switch B]: address missing"},
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    conf_parse(bad[i].text, "t.conf", &c, err, sizeof(err)),
		    -CONF_EPARSE);
		if (strstr(err, bad[i].want) == NULL)
			fail_msg("case %zu: error \"%s\" lacks \"%s\"", i, err,
			         bad[i].want);
	}
}

/* A reload keeps what the switches looked up for lines cabled alike. */
static void
test_conf_carry_ports(void **state)
{
	struct conf *a, *b;
	char         err[512];

	(void)state;
	assert_int_equal(conf_parse(FABRIC, "t.conf", &a, err, sizeof(err)),
	                 0);
	assert_int_equal(
	    conf_resolve_ports(a, 1, 4, 4, names, NULL, err, sizeof(err)), 0);
	assert_int_equal(conf_parse(FABRIC, "t.conf", &b, err, sizeof(err)),
	                 0);
	assert_true(conf_same_switches(a, b));
	assert_false(conf_switch_changed(&a->sw[1], &b->sw[1]));
	assert_int_equal(conf_trx_find(b, "h0.1")->in, 0);
	conf_carry_ports(b, a);
	assert_int_equal(conf_trx_find(b, "h0.1")->in, 1);
	assert_string_equal(conf_trx_by_out(b, 1, 4 + 2)->name, "h0.1");
	conf_free(b);
	assert_int_equal(conf_parse("[switch A]\ndriver = emu\n", "t.conf", &b,
	                            err, sizeof(err)),
	                 0);
	assert_false(conf_same_switches(a, b));
	conf_free(a);
	conf_free(b);
}

/* [servers]: which hosts share a server, in the order given (GPU k is
 * host[k]); every server of one size, a host in one server, a host the
 * cabling has; each mistake named on its line. */
#define SERVERS                                                               \
	"[switch]\ndriver = emu\n[cabling]\n"                                 \
	"h00.0 = 1 65\nh01.0 = 2 66\nh02.0 = 3 67\nh03.0 = 4 68\n"            \
	"h04.0 = 5 69\nh05.0 = 6 70\nh3.0 = 7 71\n[servers]\n"

static void
servers_bad(const char *lines, const char *want)
{
	struct conf *c;
	char         text[1024], err[512];

	snprintf(text, sizeof(text), "%s%s", SERVERS, lines);
	assert_int_equal(conf_parse(text, "t.conf", &c, err, sizeof(err)),
	                 -CONF_EPARSE);
	assert_null(c);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
}

static void
test_conf_servers(void **state)
{
	struct conf *c;
	char         text[1024], err[512];

	(void)state;
	snprintf(text, sizeof(text), "%s%s", SERVERS,
	         "s0 = h00 h02 h04\ns1 = h05, h03 h01 ; a comment\n");
	assert_int_equal(conf_parse(text, "t.conf", &c, err, sizeof(err)), 0);
	assert_int_equal(c->nsrv, 2);
	assert_int_equal(c->srv_size, 3);
	assert_string_equal(c->srv[0].name, "s0");
	assert_string_equal(c->srv[0].host[1], "h02");
	assert_string_equal(c->srv[1].host[0], "h05");
	assert_string_equal(c->srv[1].host[2], "h01");
	conf_free(c);
	/* None: no servers. */
	assert_int_equal(conf_parse(GOOD, "t.conf", &c, err, sizeof(err)), 0);
	assert_int_equal(c->nsrv, 0);
	conf_free(c);
	servers_bad("s0 = h00 h01\ns1 = h02 h03 h04\n",
	            "t.conf:13: s1: \"h02 h03 h04\": 3 hosts; s0 has 2 "
	            "(servers are of one size)");
	servers_bad("s0 = h00 h01\ns1 = h02 h01\n",
	            "t.conf:13: s1: \"h02 h01\": h01 is also in server s0");
	servers_bad("s0 = h00 h00\n", "h00 listed twice");
	servers_bad("s0 = h00\n", "a server is 2 to 8 hosts");
	servers_bad("s0 =\n", "a server is 2 to 8 hosts");
	servers_bad("s0 = h00 h01 h02 h03 h04 h05 h3 h06 h07\n",
	            "more than 8 hosts");
	servers_bad("s0 = h00 h01\ns0 = h02 h03\n",
	            "t.conf:13: s0: \"h02 h03\": server listed twice");
	servers_bad("0s = h00 h01\n", "a server's name is a letter");
	servers_bad("s0 = h00 h0.1\n", "\"h0.1\": not a host's name");
	/* A host the cabling lacks (h03 is cabled, h3 too, h0 not: a
	 * prefix of cabled names is no host). */
	servers_bad("s0 = h00 h0\n",
	            "t.conf: [servers]: s0: \"h0\": no transceiver of h0 in "
	            "[cabling]");
	servers_bad("s0 = h00 h06\n", "no transceiver of h06");
	snprintf(text, sizeof(text), "%s%s", SERVERS, "s0 = h3 h03\n");
	assert_int_equal(conf_parse(text, "t.conf", &c, err, sizeof(err)), 0);
	conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_good),
	    cmocka_unit_test(test_conf_model_file),
	    cmocka_unit_test(test_conf_bad_values),
	    cmocka_unit_test(test_conf_whole_file_checks),
	    cmocka_unit_test(test_conf_startup_checks),
	    cmocka_unit_test(test_conf_named_cabling),
	    cmocka_unit_test(test_conf_fabric),
	    cmocka_unit_test(test_conf_carry_ports),
	    cmocka_unit_test(test_conf_servers),
	};

	return (cmocka_run_group_tests_name("conf", tests, NULL, NULL));
}

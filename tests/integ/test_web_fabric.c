/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_web_fabric.c: ocs-web's Switch page on a fabric.  One
 * ocsd driving two switches (tests/lib/rig.c's fabric: switch A an
 * ocs-emu over Polatis TL1, switch B another over CALIENT REST, every
 * host's .0 on A and .1 on B), ocs-web beside it, headless Chromium
 * (tests/lib/wd.c).  The page draws one matrix a switch, and each
 * matrix's lit cells are the live circuits ocsctl -j show gives for that
 * switch (read from the canvas's pixels); the circuits table is every
 * switch's, named; each switch's ports are read with ?switch=NAME and a
 * name ocsd does not know, or no name at all, is an error that says so;
 * the cursor of one matrix describes that switch's ports; a change on
 * switch B reaches B's matrix live.  A second rig (web_planes) with
 * agents and switch B slow: a run with its planes apart draws a lane a
 * plane on the Runs page, B's dark while A's is lit, and the phase
 * table's plane columns are the report's; and eight pages of one
 * browser share one event stream (feed.js), each live and each still
 * able to load /api/ pages.  Skipped, saying why, only when Chromium
 * cannot start.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "tests/lib/rig.h"
#include "tests/lib/rjson.h"
#include "tests/lib/wd.h"

#define NODES 4

struct fx {
	struct rig *r;
	struct proc web;
	char        url[128];
	struct wd   wd;
	int         browser; /* 0: no chromium here, tests skip */
	char        shots[512];
};

/* ocs-web on f->r and a browser (none here: f->browser 0, tests skip). */
static int
web_up(struct fx *f)
{
	char        bin[256], log[300], line[256];
	const char *s;

	snprintf(log, sizeof(log), "%s/web.log", f->r->dir);
	{
		char *argv[] = {
		    (char *)(uintptr_t)proc_bin("ocs-web", bin, sizeof(bin)),
		    "-s",
		    f->r->sock,
		    "-l",
		    "127.0.0.1:0",
		    NULL};

		if (proc_start(&f->web, argv, log) != 0 ||
		    proc_line(&f->web, line, sizeof(line), 10000) != 0 ||
		    sscanf(line, "ocs-web: %127s", f->url) != 1) {
			fprintf(stderr, "ocs-web did not start\n");
			return (-1);
		}
	}
	s = getenv("OCS_WEB_SHOTS");
	snprintf(f->shots, sizeof(f->shots), "%s",
	         s && *s ? s : "build/web-shots");
	mkdir(f->shots, 0755);
	snprintf(log, sizeof(log), "%s/chromedriver.log", f->r->dir);
	if (wd_start(&f->wd, 1280, 900, log) == 0)
		f->browser = 1;
	else
		fprintf(stderr, "# browser tests skipped: %s\n", f->wd.why);
	return (0);
}

static int
setup(void **state)
{
	static struct fx f;
	struct rig_opts  o = {
	     .switch_time = "1ms", .no_agents = 1, .fabric = 1, .quiet = 1};

	memset(&f, 0, sizeof(f));
	if ((f.r = rig_up_opts(NODES, &o)) == NULL)
		return (-1);
	*state = &f;
	return (web_up(&f));
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	wd_stop(&f->wd);
	proc_stop(&f->web, SIGTERM);
	return (rig_down(f->r) == 0 ? 0 : -1);
}

#define NEED_BROWSER(f)                                                       \
	do {                                                                  \
		if (!(f)->browser) {                                          \
			skip();                                               \
			return;                                               \
		}                                                             \
	} while (0)

static int
ctl3(struct fx *f, const char *a, const char *b, const char *c)
{
	char *o = NULL, *e = NULL;
	int   rv = rig_ctl(f->r, &o, &e, a, b, c, NULL);

	free(o);
	free(e);
	return (rv);
}

/* ocsctl -j show, parsed: {"switches": {"A": ..., "B": ...}}. */
static json_t *
show_json(struct fx *f)
{
	char   *o = NULL, *e = NULL;
	json_t *j = NULL;

	if (rig_ctl(f->r, &o, &e, "-j", "show", NULL) == 0)
		j = json_loads(o, 0, NULL);
	free(o);
	free(e);
	assert_non_null(j);
	assert_non_null(json_object_get(j, "switches"));
	return (j);
}

static void
open_switch(struct fx *f)
{
	char url[256];

	snprintf(url, sizeof(url), "%s#switch", f->url);
	assert_int_equal(wd_get(&f->wd, url), 0);
	if (wd_wait(&f->wd, "return document.body.dataset.readyswitch==='1'",
	            15000) < 0)
		fail_msg("the Switch page never drew (%s)", f->wd.why);
}

/* Switch name's matrix, from its pixels: the ingress,egress pairs
 * (ports as ocsd numbers them) whose cell is the live colour, one
 * "IN-OUT;" each in row order. */
static void
lit_cells(struct fx *f, const char *name, char *buf, size_t len)
{
	char js[1400];

	snprintf(
	    js, sizeof(js),
	    "const b = document.querySelector('.board[data-switch=\"%s\"]"
	    "'); if (!b) return 'no board'; const cv = b.querySelector("
	    "'canvas'), g = cv.getContext('2d'); const d = "
	    "ocs.boards['%s']; if (!d) return 'no geometry'; let s = '';"
	    "for (let r = 0; r < d.n; r++) for (let c = 0; c < d.m; c++) {"
	    "const p = g.getImageData(d.pad + c * d.px + (d.px >> 1), "
	    "d.pad + r * d.px + (d.px >> 1), 1, 1).data;"
	    "if (p[0] === 27 && p[1] === 122 && p[2] === 47) "
	    "s += (r + 1) + '-' + (d.n + c + 1) + ';'; } return s",
	    name, name);
	assert_int_equal(wd_str(&f->wd, js, buf, len), 0);
}

/* The live circuits ocsctl gives for switch name, as lit_cells says
 * them. */
static void
live_cells(json_t *show, const char *name, char *buf, size_t len)
{
	json_t *sw = json_object_get(json_object_get(show, "switches"), name);
	json_t *p;
	size_t  i, n = 0, k;
	int     in[64], out[64], np = 0, t;

	buf[0] = '\0';
	json_array_foreach(json_object_get(sw, "live"), i, p) if (np < 64)
	{
		in[np] = (int)json_integer_value(json_object_get(p, "in"));
		out[np++] = (int)json_integer_value(json_object_get(p, "out"));
	}
	/* In row order, as the page is read. */
	for (i = 0; i < (size_t)np; i++)
		for (k = i + 1; k < (size_t)np; k++)
			if (in[k] < in[i]) {
				t = in[k], in[k] = in[i], in[i] = t;
				t = out[k], out[k] = out[i], out[i] = t;
			}
	for (i = 0; i < (size_t)np; i++)
		n += (size_t)snprintf(buf + n, len - n, "%d-%d;", in[i],
		                      out[i]);
}

static void
test_web_fabric_one_matrix_a_switch(void **state)
{
	struct fx *f = *state;
	json_t    *show;
	char       page[1024], want[1024], errs[4096], path[700];
	size_t     ncol;
	double     top;

	NEED_BROWSER(f);
	/* A circuit on each switch, and a second on B. */
	assert_int_equal(ctl3(f, "connect", "h00.0", "h01.0"), 0);
	assert_int_equal(ctl3(f, "connect", "h02.1", "h03.1"), 0);
	assert_int_equal(ctl3(f, "connect", "h00.1", "h01.1"), 0);
	open_switch(f);
	assert_int_equal(wd_str(&f->wd,
	                        "return [...document.querySelectorAll("
	                        "'#matrices .board')].map(b => "
	                        "b.dataset.switch + ':' + "
	                        "b.querySelector('h3').textContent).join()",
	                        page, sizeof(page)),
	                 0);
	assert_string_equal(page, "A:Switch A,B:Switch B");
	show = show_json(f);
	lit_cells(f, "A", page, sizeof(page));
	live_cells(show, "A", want, sizeof(want));
	printf("# switch A: lit %s, ocsctl's live %s\n", page, want);
	assert_int_equal(strlen(want) > 0, 1);
	assert_string_equal(page, want);
	lit_cells(f, "B", page, sizeof(page));
	live_cells(show, "B", want, sizeof(want));
	printf("# switch B: lit %s, ocsctl's live %s\n", page, want);
	assert_string_equal(page, want);
	json_decref(show);
	/* The circuits table: every switch's, the switch named last. */
	assert_int_equal(
	    wd_str(&f->wd,
	           "return [...document.querySelectorAll('#circuits tbody "
	           "tr')].map(r => [...r.cells].map(c => c.textContent)"
	           ".join(' ')).join('; ')",
	           page, sizeof(page)),
	    0);
	assert_string_equal(page, "h00.0 ↔ h01.0 A; h00.1 ↔ h01.1 B; "
	                          "h02.1 ↔ h03.1 B");
	snprintf(path, sizeof(path), "%s/switch-fabric.png", f->shots);
	assert_int_equal(wd_screenshot(&f->wd, path, &ncol, &top), 0);
	printf("# %s: %zu colours, the commonest %.1f%%\n", path, ncol,
	       100 * top);
	assert_true(ncol >= 16);
	assert_true(top < 0.97);
	assert_int_equal(wd_console_errors(&f->wd, errs, sizeof(errs)), 0);
	if (errs[0])
		fail_msg("console errors:\n%s", errs);
}

/* What the page's fetch of path answers: "STATUS BODY" into buf. */
static void
page_fetch(struct fx *f, const char *path, char *buf, size_t len)
{
	char js[400];

	snprintf(js, sizeof(js),
	         "window.got = undefined; fetch('%s').then(r => r.text()"
	         ".then(t => { window.got = r.status + ' ' + t; })); return 1",
	         path);
	assert_true(wd_num(&f->wd, js) == 1);
	assert_true(wd_wait(&f->wd, "return window.got !== undefined", 5000) >=
	            0);
	assert_int_equal(wd_str(&f->wd, "return window.got", buf, len), 0);
}

/* Each switch's ports by name; a name ocsd does not know, a malformed
 * one, and none at all are errors that say what is wrong. */
static void
test_web_fabric_ports(void **state)
{
	struct fx *f = *state;
	char       buf[16384];
	long       t;

	NEED_BROWSER(f);
	open_switch(f);
	/* The page reads both switches' ports once it has drawn. */
	t = wd_wait(&f->wd,
	            "return ocs.boards.A && ocs.boards.B && "
	            "ocs.boards.A.readings > 0 && ocs.boards.B.readings > 0",
	            10000);
	printf("# both switches' ports on the page after %ld ms\n", t);
	assert_true(t >= 0);
	page_fetch(f, "/api/ports?switch=B", buf, sizeof(buf));
	assert_memory_equal(buf, "200 ", 4);
	assert_non_null(strstr(buf, "\"B\""));
	assert_non_null(strstr(buf, "\"transceiver\":\"h00.1\""));
	assert_null(strstr(buf, "\"transceiver\":\"h00.0\""));
	page_fetch(f, "/api/ports?switch=Z", buf, sizeof(buf));
	printf("# ?switch=Z: %.200s\n", buf);
	assert_memory_equal(buf, "400 ", 4);
	assert_non_null(strstr(buf, "Z"));
	page_fetch(f, "/api/ports?switch=9x", buf, sizeof(buf));
	printf("# ?switch=9x: %.200s\n", buf);
	assert_memory_equal(buf, "400 ", 4);
	assert_non_null(strstr(buf, "switch \"9x\""));
	page_fetch(f, "/api/ports", buf, sizeof(buf));
	printf("# no switch: %.200s\n", buf);
	assert_memory_equal(buf, "400 ", 4);
	assert_non_null(strstr(buf, "name one"));
}

/* The keyboard's cursor on B's matrix describes B's ports: its own
 * cabling (.1 transceivers), its own readings. */
static void
test_web_fabric_cursor(void **state)
{
	static const char *const down[] = {"\xee\x80\x95"}; /* ArrowDown */
	struct fx               *f = *state;
	char                     buf[1024];

	NEED_BROWSER(f);
	open_switch(f);
	assert_true(wd_num(&f->wd,
	                   "document.querySelector('.board[data-switch=\"B\"] "
	                   "canvas').focus(); return 1") == 1);
	assert_int_equal(wd_keys(&f->wd, down, 1), 0);
	assert_int_equal(wd_str(&f->wd,
	                        "return document.querySelector('.board[data-"
	                        "switch=\"B\"] .cell-info').textContent",
	                        buf, sizeof(buf)),
	                 0);
	printf("# B's cursor: %s\n", buf);
	assert_memory_equal(buf, "switch B: ingress 2 (h01.1 TX", 29);
}

/* A change on switch B reaches B's matrix while the page is open. */
static void
test_web_fabric_live(void **state)
{
	struct fx *f = *state;
	json_t    *show;
	char       page[1024], want[1024];
	long       t;

	NEED_BROWSER(f);
	open_switch(f);
	assert_int_equal(ctl3(f, "connect", "h02.0", "h03.0"), 0);
	/* Live and desired: ocsd may tell of the switch's new circuit
	 * before its desired map has it (a moment's drift, drawn so). */
	t = wd_wait(&f->wd,
	            "const A = ocs.state.show.switches.A; return "
	            "A.live.some(p => p.from === 'h02.0') && "
	            "(A.desired || []).some(p => p.from === 'h02.0')",
	            5000);
	printf("# h02.0-h03.0 on the page after %ld ms\n", t);
	assert_true(t >= 0);
	show = show_json(f);
	lit_cells(f, "A", page, sizeof(page));
	live_cells(show, "A", want, sizeof(want));
	json_decref(show);
	assert_non_null(strstr(want, "3-"));
	assert_string_equal(page, want);
}

/* ---- planes apart, and many pages ------------------------------------- */

/* A second rig: agents on it, switch B slow (SLOW_B) so a run with its
 * planes apart keeps B dark long after A is out. */
#define SLOW_B "200ms"

static int
setup_planes(void **state)
{
	static struct fx f;
	struct rig_opts  o = {.switch_time = "1ms",
	                      .switch_time_b = SLOW_B,
	                      .fabric = 1,
	                      .quiet = 1};

	memset(&f, 0, sizeof(f));
	if ((f.r = rig_up_opts(NODES, &o)) == NULL)
		return (-1);
	*state = &f;
	return (web_up(&f));
}

/* How many pixels of a timeline lane (its second line from the top,
 * above its label's letters) in [x0, x1) are the colour r,g,b, of how
 * many. */
static void
lane_count(struct fx *f, const char *lane, double x0, double x1, int r, int g,
           int b, int *hit, int *all)
{
	char js[900], buf[64];

	snprintf(js, sizeof(js),
	         "const l = ocs.tl.planes.find(p => p.name === '%s'); "
	         "const g = document.getElementById('timeline')"
	         ".getContext('2d'); let hit = 0, all = 0; "
	         "for (let x = Math.ceil(%f); x < %f; x++) { const p = "
	         "g.getImageData(x, l.y + 1, 1, 1).data; all++; "
	         "if (p[0] === %d && p[1] === %d && p[2] === %d) hit++; } "
	         "return hit + ' ' + all",
	         lane, x0, x1, r, g, b);
	assert_int_equal(wd_str(&f->wd, js, buf, sizeof(buf)), 0);
	assert_int_equal(sscanf(buf, "%d %d", hit, all), 2);
}

/*
 * A run with its planes apart on the Runs page: a lane a plane above the
 * agents, B's lane dark (its switch moving, then its links) for about
 * its release after the barrier while A's lane is lit, each plane's
 * band labelled with its dark time, and the phase table's columns a
 * plane equal to the report's reconf_s and release_s.
 */
static void
test_web_planes_timeline(void **state)
{
	struct fx   *f = *state;
	char        *o = NULL, *e = NULL, js[600], buf[2048], url[256];
	char         errs[4096], path[700];
	json_t      *j, *rep, *pa, *pb, *bands;
	json_error_t je;
	long long    id;
	double       rb, ra, x0, x1, dark_b, page_rel;
	int          hit, all, rv;
	size_t       ncol;
	double       top;

	NEED_BROWSER(f);
	rv = rig_ctl(f->r, &o, &e, "-j", "run", "--algo", "retri", "--bytes",
	             "256KiB", "--reconfig", "all", "--planes", "apart", NULL);
	if (rv != 0)
		fail_msg("run: exit %d, stderr \"%s\"", rv, e);
	free(e);
	assert_non_null(j = json_loads(o, 0, &je));
	free(o);
	rep = json_object_get(j, "report");
	id = json_integer_value(json_object_get(rep, "run_id"));
	assert_string_equal(json_string_value(json_object_get(rep, "planes")),
	                    "apart");
	assert_non_null(pa = rjson_plane(rep, 1, "A"));
	assert_non_null(pb = rjson_plane(rep, 1, "B"));
	ra = json_number_value(json_object_get(pa, "release_s"));
	rb = json_number_value(json_object_get(pb, "release_s"));
	printf("# run %lld: phase 1, A released after %.3f s, B after %.3f "
	       "s\n",
	       id, ra, rb);

	snprintf(url, sizeof(url), "%s#runs", f->url);
	assert_int_equal(wd_get(&f->wd, url), 0);
	snprintf(js, sizeof(js),
	         "return !!(ocs.report && ocs.report.run_id === %lld && "
	         "ocs.tl && ocs.tl.planes.length && !(ocs.live && "
	         "!ocs.live.ended))",
	         id);
	if (wd_wait(&f->wd, js, 15000) < 0)
		fail_msg("run %lld's timeline never drew with planes (%s)", id,
		         f->wd.why);
	assert_int_equal(wd_str(&f->wd,
	                        "return ocs.tl.planes.map(p => p.name)"
	                        ".join()",
	                        buf, sizeof(buf)),
	                 0);
	assert_string_equal(buf, "A,B");
	/* Phase 1's bands, each plane's. */
	assert_int_equal(wd_str(&f->wd,
	                        "return JSON.stringify(ocs.tl.planes.map(p "
	                        "=> p.bands.find(b => b.phase === 1)))",
	                        buf, sizeof(buf)),
	                 0);
	printf("# phase 1's bands: %s\n", buf);
	assert_non_null(bands = json_loads(buf, 0, &je));
	x0 =
	    json_number_value(json_object_get(json_array_get(bands, 1), "x0"));
	x1 =
	    json_number_value(json_object_get(json_array_get(bands, 1), "x1"));
	dark_b = json_number_value(
	    json_object_get(json_array_get(bands, 1), "dark_s"));
	/* B dark for its release less A's (A left alone would be 0: here
	 * A moved too, in its 1 ms), and so drawn much wider than A. */
	if (!(dark_b > 0.8 * (rb - ra) && dark_b <= rb + 1e-6 && x1 - x0 > 20))
		fail_msg("B's band: %.3f s dark over %.0f-%.0f px, its "
		         "release %.3f s (A's %.3f s)",
		         dark_b, x0, x1, rb, ra);
	assert_non_null(strstr(json_string_value(json_object_get(
	                           json_array_get(bands, 1), "label")),
	                       "B dark "));
	if (json_is_object(json_array_get(bands, 0)))
		assert_true(json_number_value(json_object_get(
		                json_array_get(bands, 0), "x1")) <
		            x0 + 0.5 * (x1 - x0));
	json_decref(bands);
	/* The pixels: across B's band, B's lane dark (its switch moving,
	 * 139,26,26, or its links, 232,192,192) but for the model's line
	 * (2 px, 3 when it falls between two), and A's lit (169,211,169) but for that line and A's own
	 * few pixels dark. */
	lane_count(f, "B", x0 + 1, x1 - 1, 139, 26, 26, &hit, &all);
	{
		int hit2, all2;

		lane_count(f, "B", x0 + 1, x1 - 1, 232, 192, 192, &hit2,
		           &all2);
		printf("# B's lane over its band: %d + %d of %d px dark\n",
		       hit, hit2, all);
		assert_true(all > 10 && hit + hit2 >= all - 3);
	}
	lane_count(f, "A", x0 + 1, x1 - 1, 169, 211, 169, &hit, &all);
	printf("# A's lane over B's band: %d of %d px lit\n", hit, all);
	assert_true(hit >= all * 3 / 4);
	/* The phase table: two columns a plane, the report's numbers. */
	assert_int_equal(
	    wd_str(&f->wd,
	           "return [...document.querySelectorAll('#phases thead "
	           "th.plane-col')].map(t => t.textContent).join()",
	           buf, sizeof(buf)),
	    0);
	assert_string_equal(buf, "A reconf,A release,B reconf,B release");
	page_rel = wd_num(&f->wd, "return +document.querySelector('#phases "
	                          "tr[data-phase=\"1\"]').cells[9].dataset.v");
	printf("# the table's B release of phase 1: %.6f s\n", page_rel);
	assert_true(fabs(page_rel - rb) <= 1e-6 * (1 + rb));
	json_decref(j);
	snprintf(path, sizeof(path), "%s/runs-planes.png", f->shots);
	assert_int_equal(wd_screenshot(&f->wd, path, &ncol, &top), 0);
	printf("# %s: %zu colours, the commonest %.1f%%\n", path, ncol,
	       100 * top);
	assert_int_equal(wd_console_errors(&f->wd, errs, sizeof(errs)), 0);
	if (errs[0])
		fail_msg("console errors:\n%s", errs);
}

static uint64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

/*
 * Eight pages open in one browser (HTTP/1.1: six connections a host):
 * they share one event stream (feed.js), so each loads, each gets a
 * circuit change within a second, and each still loads /api/ pages.
 * With a stream a page the seventh never loaded.
 */
#define TABS 8

static void
test_web_eight_tabs(void **state)
{
	struct fx *f = *state;
	char       h[TABS][128], url[256], buf[4096];
	uint64_t   t0;
	long       t;
	double     at;
	int        i;

	NEED_BROWSER(f);
	assert_int_equal(wd_page_timeout(&f->wd, 10000), 0);
	assert_int_equal(wd_handle(&f->wd, h[0], sizeof(h[0])), 0);
	snprintf(url, sizeof(url), "%s#switch", f->url);
	for (i = 0; i < TABS; i++) {
		if (i > 0)
			assert_int_equal(
			    wd_new_tab(&f->wd, h[i], sizeof(h[i])), 0);
		if (wd_get(&f->wd, url) != 0 ||
		    wd_wait(&f->wd,
		            "return !!(window.ocs && ocs.state.show && "
		            "document.body.dataset.readyswitch === '1')",
		            10000) < 0)
			fail_msg("page %d of %d did not load: %s", i + 1, TABS,
			         f->wd.why);
		assert_int_equal(
		    wd_str(&f->wd, "return ocs.feed", buf, sizeof(buf)), 0);
		assert_string_equal(buf, "shared");
	}
	t0 = wall_ms();
	assert_int_equal(ctl3(f, "connect", "h02.0", "h03.0"), 0);
	for (i = TABS - 1; i >= 0; i--) {
		assert_int_equal(wd_switch(&f->wd, h[i]), 0);
		t = wd_wait(&f->wd,
		            "return ocs.state.show.switches.A.live.some(p => "
		            "p.from === 'h02.0')",
		            5000);
		at = wd_num(&f->wd, "return ocs.matrixAt");
		printf("# page %d: the change drawn %.0f ms after ocsctl "
		       "began\n",
		       i + 1, at - (double)t0);
		assert_true(t >= 0);
		assert_true(at - (double)t0 < 1000);
		page_fetch(f, "/api/status", buf, sizeof(buf));
		assert_memory_equal(buf, "200 ", 4);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_web_fabric_one_matrix_a_switch),
	    cmocka_unit_test(test_web_fabric_ports),
	    cmocka_unit_test(test_web_fabric_cursor),
	    cmocka_unit_test(test_web_fabric_live),
	};
	const struct CMUnitTest planes[] = {
	    cmocka_unit_test(test_web_planes_timeline),
	    cmocka_unit_test(test_web_eight_tabs),
	};
	int rv;

	rv = cmocka_run_group_tests_name("web_fabric", tests, setup, teardown);
	return (rv + cmocka_run_group_tests_name("web_planes", planes,
	                                         setup_planes, teardown));
}

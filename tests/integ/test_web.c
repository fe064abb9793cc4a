/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_web.c: ocs-web in a real browser.  ocs-emu, ocsd and 9
 * agents (tests/lib/rig.c), ocs-web beside ocsd, headless Chromium driven
 * through chromedriver (tests/lib/wd.c).  Every page loads without a
 * console error and its screenshot (kept in OCS_WEB_SHOTS, by default
 * build/web-shots) is neither blank nor one colour; what the pages show
 * equals ocsctl -j at the same moment (circuits, agents, a run's phases
 * and times); a run started from ocsctl appears on the Runs page and
 * advances live; an agent killed shows lost within its heartbeat
 * deadline; the tabs work from the keyboard and every text has a
 * contrast of 4.5:1 at least.  Skipped, saying why, only when Chromium
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
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "proto/base/mono.h"
#include "tests/lib/rig.h"
#include "tests/lib/wd.h"

#define NODES 9

struct fx {
	struct rig *r;
	struct proc web;
	char        url[128];
	struct wd   wd;
	int         browser; /* 0: no chromium here, tests skip */
	char        shots[512];
};

static int
setup(void **state)
{
	static struct fx f;
	char             bin[256], ctl[300], log[300], line[256];
	const char      *s;

	memset(&f, 0, sizeof(f));
	if ((f.r = rig_up(NODES, "1ms", NULL)) == NULL)
		return (-1);
	snprintf(ctl, sizeof(ctl), "%s", f.r->sock);
	snprintf(log, sizeof(log), "%s/web.log", f.r->dir);
	{
		char *argv[] = {
		    (char *)(uintptr_t)proc_bin("ocs-web", bin, sizeof(bin)),
		    "-s",
		    ctl,
		    "-l",
		    "127.0.0.1:0",
		    NULL};

		if (proc_start(&f.web, argv, log) != 0 ||
		    proc_line(&f.web, line, sizeof(line), 10000) != 0 ||
		    sscanf(line, "ocs-web: %127s", f.url) != 1) {
			fprintf(stderr, "ocs-web did not start\n");
			return (-1);
		}
	}
	s = getenv("OCS_WEB_SHOTS");
	snprintf(f.shots, sizeof(f.shots), "%s",
	         s && *s ? s : "build/web-shots");
	mkdir(f.shots, 0755);
	snprintf(log, sizeof(log), "%s/chromedriver.log", f.r->dir);
	if (wd_start(&f.wd, 1280, 900, log) == 0)
		f.browser = 1;
	else
		fprintf(stderr, "# browser tests skipped: %s\n", f.wd.why);
	rig_wait_agents(f.r, NODES, 20000);
	*state = &f;
	return (0);
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

/* Open page (a #hash) and wait for its view to have drawn. */
static void
open_page(struct fx *f, const char *page, const char *ready)
{
	char url[256], js[200];

	snprintf(url, sizeof(url), "%s#%s", f->url, page);
	assert_int_equal(wd_get(&f->wd, url), 0);
	snprintf(js, sizeof(js), "return document.body.dataset.ready%s==='1'",
	         ready);
	if (wd_wait(&f->wd, js, 15000) < 0)
		fail_msg("page %s never drew (%s)", page, f->wd.why);
}

/* ocsctl ARGS... (up to three): its exit status. */
static int
ctl3(struct fx *f, const char *a, const char *b, const char *c)
{
	char *o = NULL, *e = NULL;
	int   rv = rig_ctl(f->r, &o, &e, a, b, c, NULL);

	free(o);
	free(e);
	return (rv);
}

/* ocsctl -j ARGS..., parsed. */
static json_t *
ctl_json(struct fx *f, const char *a, const char *b)
{
	char   *o = NULL, *e = NULL;
	json_t *j = NULL;

	if (rig_ctl(f->r, &o, &e, "-j", a, b, NULL) == 0)
		j = json_loads(o, 0, NULL);
	free(o);
	free(e);
	assert_non_null(j);
	return (j);
}

static void
test_web_pages_load_clean(void **state)
{
	static const char *const pages[][2] = {{"switch", "switch"},
	                                       {"agents", "agents"},
	                                       {"runs", "runs"},
	                                       {"plans", "plans"}};
	struct fx               *f = *state;
	char                     errs[4096], path[700];
	size_t                   i, ncol;
	double                   top;

	NEED_BROWSER(f);
	/* Something on the switch to draw. */
	assert_int_equal(ctl3(f, "connect", "h00.0", "h01.0"), 0);
	for (i = 0; i < 4; i++) {
		open_page(f, pages[i][0], pages[i][1]);
		usleep(300000);
		snprintf(path, sizeof(path), "%s/%s.png", f->shots,
		         pages[i][0]);
		assert_int_equal(wd_screenshot(&f->wd, path, &ncol, &top), 0);
		printf("# %s: %s, %zu colours, the commonest %.1f%%\n",
		       pages[i][0], path, ncol, 100 * top);
		assert_true(ncol >= 16);
		assert_true(top < 0.97);
		assert_int_equal(wd_console_errors(&f->wd, errs, sizeof(errs)),
		                 0);
		if (errs[0])
			fail_msg("page %s: console errors:\n%s", pages[i][0],
			         errs);
	}
}

/* The circuits the Switch page lists, "a b" a line, sorted. */
static void
test_web_switch_equals_ocsctl(void **state)
{
	struct fx *f = *state;
	json_t    *j, *c;
	char       page[4096], want[4096];
	size_t     i, n = 0;

	NEED_BROWSER(f);
	assert_int_equal(ctl3(f, "connect", "h02.1", "h05.0"), 0);
	open_page(f, "switch", "switch");
	j = ctl_json(f, "show", NULL);
	want[0] = '\0';
	json_array_foreach(json_object_get(j, "circuits"), i, c) n +=
	    (size_t)snprintf(want + n, sizeof(want) - n, "%s %s\n",
	                     json_string_value(json_object_get(c, "a")),
	                     json_string_value(json_object_get(c, "b")));
	json_decref(j);
	/* What the page shows (its circuits table), in the same order. */
	assert_int_equal(
	    wd_str(&f->wd,
	           "return [...document.querySelectorAll('#circuits tbody "
	           "tr')].map(r => r.cells[0].textContent + ' ' + "
	           "r.cells[2].textContent + '\\n').join('')",
	           page, sizeof(page)),
	    0);
	assert_true(n > 0);
	assert_string_equal(page, want);
}

/* An agents page row's state, "" when the row is not there. */
static void
row_state(struct fx *f, const char *host, char *buf, size_t len)
{
	char js[300];

	snprintf(js, sizeof(js),
	         "const r = document.querySelector('#ag-body "
	         ".vrow[data-host=\"%s\"]'); return r ? r.dataset.state : ''",
	         host);
	wd_str(&f->wd, js, buf, len);
}

static void
test_web_agents_equal_ocsctl(void **state)
{
	struct fx *f = *state;
	json_t    *j, *a;
	char       st[32];
	size_t     i, n = 0;

	NEED_BROWSER(f);
	open_page(f, "agents", "agents");
	assert_true(wd_wait(&f->wd,
	                    "return document.querySelectorAll('#ag-body "
	                    ".vrow').length === 9",
	                    5000) >= 0);
	j = ctl_json(f, "agents", NULL);
	json_array_foreach(json_object_get(j, "agents"), i, a)
	{
		const char *h = json_string_value(json_object_get(a, "host"));

		row_state(f, h, st, sizeof(st));
		assert_string_equal(
		    st, json_string_value(json_object_get(a, "state")));
		n++;
	}
	json_decref(j);
	assert_int_equal(n, NODES);
}

static void
test_web_run_appears_live(void **state)
{
	struct fx  *f = *state;
	struct proc run;
	char        bin[256], log[300], js[400], ids[32];
	long        t;
	double      phase0, phase1;
	json_t     *j, *p;
	size_t      i;

	NEED_BROWSER(f);
	open_page(f, "runs", "runs");
	snprintf(log, sizeof(log), "%s/run.log", f->r->dir);
	{
		/* Fibres at the emulator's own speed: 64 MiB makes phases
		 * of a good fraction of a second each. */
		char *argv[] = {
		    (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin)),
		    "-s",
		    f->r->sock,
		    "run",
		    "--algo",
		    "bridge",
		    "--bytes",
		    "64MiB",
		    "--reconfig",
		    "all",
		    NULL};

		assert_int_equal(proc_start(&run, argv, log), 0);
	}
	t = wd_wait(&f->wd,
	            "const e = document.getElementById('live-run'); return "
	            "!!e.dataset.run && e.textContent.includes('in progress')",
	            20000);
	assert_true(t >= 0);
	phase0 = wd_num(&f->wd, "return +document.getElementById('live-run')"
	                        ".dataset.phase || 0");
	/* It advances while we look. */
	snprintf(js, sizeof(js),
	         "const e = document.getElementById('live-run'); return "
	         "+e.dataset.phase > %g || !e.textContent.includes('in "
	         "progress')",
	         phase0);
	assert_true(wd_wait(&f->wd, js, 30000) >= 0);
	phase1 = wd_num(&f->wd, "return +document.getElementById('live-run')"
	                        ".dataset.phase || 0");
	printf("# run seen live after %ld ms, phase %g then %g\n", t, phase0,
	       phase1);
	assert_int_equal(proc_wait(&run, 60000), 0);
	/* Ended: the history's first row is the run, and its phases as
	 * ocsctl -j runs ID says. */
	j = ctl_json(f, "runs", NULL);
	p = json_array_get(json_object_get(j, "runs"),
	                   json_array_size(json_object_get(j, "runs")) - 1);
	snprintf(ids, sizeof(ids), "%lld",
	         (long long)json_integer_value(json_object_get(p, "run_id")));
	json_decref(j);
	snprintf(
	    js, sizeof(js),
	    "return document.querySelector('#runs tbody tr') && "
	    "document.querySelector('#runs tbody tr').dataset.run === "
	    "'%s' && window.ocs.report && String(window.ocs.report.run_id) "
	    "=== '%s' && document.querySelectorAll('#phases tbody "
	    "tr').length > 0",
	    ids, ids);
	assert_true(wd_wait(&f->wd, js, 10000) >= 0);
	j = ctl_json(f, "runs", ids);
	/* The table whole (rows past a screen's come a frame later). */
	{
		char q[200];

		snprintf(
		    q, sizeof(q),
		    "return document.getElementById('phases').dataset.rows "
		    "=== '%zu'",
		    json_array_size(json_object_get(
		        json_object_get(j, "report"), "phases")));
		assert_true(wd_wait(&f->wd, q, 5000) >= 0);
	}
	json_array_foreach(
	    json_object_get(json_object_get(j, "report"), "phases"), i, p)
	{
		char   q[300];
		double v;

		snprintf(q, sizeof(q),
		         "return +document.querySelectorAll('#phases tbody "
		         "tr')[%zu].cells[2].dataset.v",
		         i);
		v = wd_num(&f->wd, q);
		assert_true(fabs(v - json_number_value(json_object_get(
		                         p, "data_s"))) < 1e-9);
		snprintf(q, sizeof(q),
		         "return +document.querySelectorAll('#phases tbody "
		         "tr')[%zu].cells[4].dataset.v",
		         i);
		v = wd_num(&f->wd, q);
		assert_true(fabs(v - json_number_value(json_object_get(
		                         p, "predicted_s"))) < 1e-9);
	}
	json_decref(j);
}

static void
test_web_agent_killed_shows_lost(void **state)
{
	struct fx *f = *state;
	char       st[32];
	long       t;

	NEED_BROWSER(f);
	open_page(f, "agents", "agents");
	row_state(f, "h08", st, sizeof(st));
	assert_string_equal(st, "idle");
	proc_stop(&f->r->agent[8], SIGKILL);
	/* Its heartbeat is 1 s: lost within three. */
	t = wd_wait(&f->wd,
	            "const r = document.querySelector('#ag-body "
	            ".vrow[data-host=\"h08\"]'); return !!r && "
	            "r.dataset.state === 'lost'",
	            3000);
	printf("# h08 killed: lost on the page after %ld ms\n", t);
	assert_true(t >= 0);
}

/* Tab to the Runs tab, Enter: the Runs page, without a mouse.  Then
 * every text's contrast against what is behind it (WCAG's ratio). */
static void
test_web_keyboard_and_contrast(void **state)
{
	static const char contrast[] =
	    "function lum(c){const m=c.match(/[\\d.]+/g).map(Number);"
	    "const f=v=>{v/=255;return v<=0.03928?v/12.92:"
	    "Math.pow((v+0.055)/1.055,2.4)};return 0.2126*f(m[0])+"
	    "0.7152*f(m[1])+0.0722*f(m[2]);}"
	    "function bg(e){for(;e;e=e.parentElement){const c="
	    "getComputedStyle(e).backgroundColor;const m=c.match(/[\\d.]+/g);"
	    "if(m&&(m.length<4||+m[3]>0.5))return c;}return "
	    "'rgb(255,255,255)';}"
	    "let worst=99,what='';document.querySelectorAll('body *').forEach("
	    "e=>{if(!e.offsetParent&&e.tagName!=='BODY')return;"
	    "const t=[...e.childNodes].some(n=>n.nodeType===3&&n.textContent."
	    "trim());if(!t)return;const a=lum(getComputedStyle(e).color),"
	    "b=lum(bg(e));const r=(Math.max(a,b)+0.05)/(Math.min(a,b)+0.05);"
	    "if(r<worst){worst=r;what=e.tagName+' '+e.textContent.slice(0,30)}"
	    "});return worst+' '+what";
	static const char *const tabs[] = {"\xee\x80\x84", "\xee\x80\x84",
	                                   "\xee\x80\x84", "\xee\x80\x84",
	                                   "\xee\x80\x87"};
	struct fx               *f = *state;
	char                     hash[64], worst[200];
	int                      i;

	NEED_BROWSER(f);
	open_page(f, "switch", "switch");
	/* Tab until the Runs tab has the focus (skip link, Switch, Agents,
	 * Runs: a few), then Enter. */
	for (i = 0; i < 8; i++) {
		wd_str(&f->wd, "return document.activeElement.id || ''", hash,
		       sizeof(hash));
		if (strcmp(hash, "tab-runs") == 0)
			break;
		assert_int_equal(wd_keys(&f->wd, tabs, 1), 0);
	}
	assert_string_equal(hash, "tab-runs");
	assert_int_equal(wd_keys(&f->wd, tabs + 4, 1), 0);
	assert_true(
	    wd_wait(&f->wd, "return location.hash === '#runs'", 3000) >= 0);
	wd_str(&f->wd, "return location.hash", hash, sizeof(hash));
	assert_string_equal(hash, "#runs");
	assert_true(wd_wait(&f->wd,
	                    "return !document.getElementById('page-runs')"
	                    ".hidden",
	                    3000) >= 0);
	{
		char   js[2000];
		double r;

		snprintf(js, sizeof(js), "%s", contrast);
		wd_str(&f->wd, js, worst, sizeof(worst));
		r = atof(worst);
		printf("# the lowest text contrast on the Runs page: %s\n",
		       worst);
		assert_true(r >= 4.5);
	}
}

/* ocs-sweep ARGS (the model's) into dir: 0 or -1. */
static int
sweep_into(const char *dir, const char *bw, const char *as)
{
	char        bin[256], log[700];
	struct proc p;
	char       *argv[] = {
	          (char *)(uintptr_t)proc_bin("ocs-sweep", bin, sizeof(bin)),
	          "--algo",
	          "retri,static",
	          "--nodes",
	          "9",
	          "--bytes",
	          "1MiB,16MiB",
	          "--delay",
	          "1us,1ms,10ms",
	          "--bandwidth",
	          (char *)(uintptr_t)bw,
	          "--alpha-s",
	          (char *)(uintptr_t)as,
	          "--alpha-h",
	          "1us",
	          "--out",
	          (char *)(uintptr_t)dir,
	          NULL};

	snprintf(log, sizeof(log), "%s.log", dir);
	if (proc_start(&p, argv, log) != 0)
		return (-1);
	return (proc_wait(&p, 60000));
}

/* From dir/sweep.csv, the rows of model hash: "BYTES DELTA_NS SPEEDUP;"
 * for retri:9 over static:9 (static's time over retri's), sorted as
 * the page's cells come (size, then delta). */
static void
expected_cells(const char *dir, const char *hash, char *out, size_t len)
{
	char   path[700], line[1024], key[64][48];
	double sp[64], rt[64], stt[64];
	size_t n = 0, o = 0, i;
	FILE  *f;

	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f) != NULL) {
		char  *c[24], *s = line, *nl;
		int    k = 0;
		double pred;

		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		while (k < 24 && (c[k++] = strsep(&s, ",")) != NULL)
			;
		if (k < 20 || c[19] == NULL || strcmp(c[19], hash) != 0)
			continue;
		pred = atof(c[6]);
		snprintf(key[n], sizeof(key[n]), "%s %.0f", c[2],
		         atof(c[3]) * 1e9);
		for (i = 0; i < n && strcmp(key[i], key[n]) != 0; i++)
			;
		if (i == n) {
			rt[n] = stt[n] = 0;
			n++;
		}
		if (strcmp(c[0], "retri") == 0)
			rt[i] = pred;
		else
			stt[i] = pred;
	}
	fclose(f);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		sp[i] = stt[i] / rt[i];
		o += (size_t)snprintf(out + o, len - o, "%s %.6g;", key[i],
		                      sp[i]);
	}
}

/* The page's heatmap cells as expected_cells says them. */
static void
page_cells(struct fx *f, char *out, size_t len)
{
	assert_int_equal(
	    wd_str(&f->wd,
	           "return ocs.heat.slice().sort((a, b) => a.bytes - b.bytes "
	           "|| a.delta_s - b.delta_s).map(c => c.bytes + ' ' + "
	           "Math.round(c.delta_s * 1e9) + ' ' + "
	           "(+c.speedup.toPrecision(6))).join(';') "
	           "+ ';'",
	           out, len),
	    0);
}

/* A sweep into which two models were run: the heatmap shows one model's
 * rows at a time (the latest first), never a mix (issue 40). */
static void
test_web_sweep_models(void **state)
{
	struct fx  *f = *state;
	struct proc web = {0};
	char        dir[600], bin[256], log[700], line[256], url[200];
	char        h[2][32], want[2048], page[2048], path[700];
	json_t     *meta, *runs;
	int         i;

	NEED_BROWSER(f);
	snprintf(dir, sizeof(dir), "%s/sweep", f->r->dir);
	assert_int_equal(sweep_into(dir, "10Gbps", "1us"), 0);
	assert_int_equal(sweep_into(dir, "1Gbps", "10us"), 0);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	assert_non_null(meta = json_load_file(path, 0, NULL));
	runs = json_object_get(meta, "runs");
	assert_int_equal(json_array_size(runs), 2);
	for (i = 0; i < 2; i++)
		snprintf(h[i], sizeof(h[i]), "%s",
		         json_string_value(json_object_get(
		             json_object_get(json_array_get(runs, (size_t)i),
		                             "model"),
		             "hash")));
	json_decref(meta);
	assert_string_not_equal(h[0], h[1]);
	snprintf(log, sizeof(log), "%s/web-sweep.log", f->r->dir);
	{
		char *argv[] = {
		    (char *)(uintptr_t)proc_bin("ocs-web", bin, sizeof(bin)),
		    "-s",
		    f->r->sock,
		    "-l",
		    "127.0.0.1:0",
		    "--sweep",
		    dir,
		    NULL};

		assert_int_equal(proc_start(&web, argv, log), 0);
		assert_int_equal(proc_line(&web, line, sizeof(line), 10000),
		                 0);
		assert_int_equal(sscanf(line, "ocs-web: %127s", url), 1);
	}
	strcat(url, "#plans");
	assert_int_equal(wd_get(&f->wd, url), 0);
	/* 30 s: an ASan build on a machine at load 30 took longer than 15. */
	if (wd_wait(&f->wd, "return !!window.ocs && !!ocs.heat", 30000) < 0) {
		char st[600] = "", errs[2048] = "";

		wd_str(
		    &f->wd,
		    "return location.href + ' sweeps ' + document."
		    "getElementById('sweep-pick').options.length + ' models "
		    "' + document.getElementById('model-pick').options.length"
		    " + ' info ' + document.getElementById('sweep-info')"
		    ".textContent",
		    st, sizeof(st));
		wd_console_errors(&f->wd, errs, sizeof(errs));
		fail_msg("no heatmap: %s; console: %s", st, errs);
	}
	assert_true(wd_num(&f->wd, "return document.getElementById("
	                           "'model-pick').options.length") == 2);
	/* The latest model first, then the other one picked. */
	for (i = 1; i >= 0; i--) {
		char js[300];

		if (i == 0) {
			snprintf(
			    js, sizeof(js),
			    "const s = document.getElementById('model-pick');"
			    " s.value = '%s'; s.dispatchEvent(new "
			    "Event('change')); return 1",
			    h[0]);
			assert_true(wd_num(&f->wd, js) == 1);
		}
		snprintf(js, sizeof(js), "return ocs.heatModel === '%s'",
		         h[i]);
		assert_true(wd_wait(&f->wd, js, 5000) >= 0);
		expected_cells(dir, h[i], want, sizeof(want));
		page_cells(f, page, sizeof(page));
		printf("# model %s: %s\n", h[i], page);
		assert_string_equal(page, want);
	}
	proc_stop(&web, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_web_pages_load_clean),
	    cmocka_unit_test(test_web_switch_equals_ocsctl),
	    cmocka_unit_test(test_web_agents_equal_ocsctl),
	    cmocka_unit_test(test_web_run_appears_live),
	    cmocka_unit_test(test_web_keyboard_and_contrast),
	    cmocka_unit_test(test_web_sweep_models),
	    cmocka_unit_test(test_web_agent_killed_shows_lost),
	};

	return (cmocka_run_group_tests_name("web", tests, setup, teardown));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A WebDriver client for the browser tests and benches: chromedriver
 * (Debian's chromium-driver) started on a free port, one headless
 * Chromium session, the W3C commands the tests need over plain HTTP
 * with jansson, screenshots decoded with libpng.
 */
#ifndef OCS_TEST_WD_H
#define OCS_TEST_WD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tests/lib/proc.h"

struct wd {
	struct proc driver;
	int         port;
	char        session[128];
	char        why[512]; /* why the last call failed */
};

/* Start chromedriver and a headless session (width x height).  0, or -1
 * with why set (chromium or its driver missing: the caller skips). */
int  wd_start(struct wd *, int width, int height, const char *log);
void wd_stop(struct wd *);

/* Go to url (waits for the load).  0 or -1. */
int wd_get(struct wd *, const char *url);
/* How long wd_get waits for a page to load (WebDriver's "pageLoad";
 * Chromium's own is 300 s): a page that cannot load fails a test in
 * that time.  0 or -1. */
int wd_page_timeout(struct wd *, int ms);
/* A new tab, made the current one (its handle into handle); another tab
 * made the current one.  0 or -1. */
int wd_new_tab(struct wd *, char *handle, size_t len);
int wd_switch(struct wd *, const char *handle);
/* The current tab's handle into handle.  0 or -1. */
int wd_handle(struct wd *, char *handle, size_t len);
/* Run script (a function body; arguments[] as in WebDriver) and return
 * its value (json_decref it), or NULL with why. */
json_t *wd_exec(struct wd *, const char *script);
/* Its value as a number, or NAN; as a string into buf, or -1. */
double wd_num(struct wd *, const char *script);
int    wd_str(struct wd *, const char *script, char *buf, size_t len);
/* Poll script every 50 ms until it is true, up to timeout_ms: how long it
 * took (ms), or -1. */
long wd_wait(struct wd *, const char *script, int timeout_ms);
/* Press keys one after the other (WebDriver key codes: "\xee\x80\x84" is
 * Tab, U+E004; "\xee\x80\x87" is Enter, U+E007).  0 or -1. */
int wd_keys(struct wd *, const char *const *keys, size_t n);
/* The browser's console entries of level SEVERE since the last call, one
 * a line, into buf (empty: none).  0 or -1. */
int wd_console_errors(struct wd *, char *buf, size_t len);
/* A screenshot into path (PNG), and how many distinct colours it has and
 * the share of its commonest one.  0 or -1. */
int wd_screenshot(struct wd *, const char *path, size_t *colours,
                  double *top_share);

#endif

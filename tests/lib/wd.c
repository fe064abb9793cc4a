/* SPDX-License-Identifier: BSD-2-Clause */
/* A WebDriver client: chromedriver and one headless Chromium (wd.h). */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/wd.h"

static int
free_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t          sl = sizeof(sa);
	int                fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return (port);
}

/* One HTTP exchange with chromedriver: the answer's "value", or NULL. */
static json_t *
call(struct wd *w, const char *method, const char *path, json_t *body)
{
	char        *b = body ? json_dumps(body, JSON_COMPACT) : NULL, port[8];
	char        *resp = NULL, head[512];
	size_t       rl = 0, cap = 0;
	ssize_t      n;
	json_t      *o, *v = NULL;
	json_error_t je;
	char        *hb, *cl;
	int          fd, hl;

	json_decref(body);
	snprintf(port, sizeof(port), "%d", w->port);
	if ((fd = net_connect("127.0.0.1", port, 5000, -1)) < 0) {
		snprintf(w->why, sizeof(w->why), "chromedriver: %s",
		         strerror(-fd));
		free(b);
		return (NULL);
	}
	hl = snprintf(head, sizeof(head),
	              "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	              "Content-Type: application/json\r\n"
	              "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	              method, path, w->port, b ? strlen(b) : 0);
	if (net_write_all(fd, head, (size_t)hl, mono_ms() + 5000, -1) != 0 ||
	    (b &&
	     net_write_all(fd, b, strlen(b), mono_ms() + 5000, -1) != 0)) {
		snprintf(w->why, sizeof(w->why), "chromedriver: write");
		close(fd);
		free(b);
		return (NULL);
	}
	free(b);
	for (;;) {
		if (rl + 65536 > cap) {
			char *nr = realloc(resp, cap = cap ? 2 * cap : 262144);

			if (nr == NULL)
				break;
			resp = nr;
		}
		n = net_read_some(fd, resp + rl, cap - rl - 1,
		                  mono_ms() + 60000, -1);
		if (n <= 0)
			break;
		rl += (size_t)n;
		resp[rl] = '\0';
		/* Whole once Content-Length bytes follow the head. */
		if ((hb = strstr(resp, "\r\n\r\n")) != NULL &&
		    (cl = strcasestr(resp, "Content-Length:")) != NULL &&
		    cl < hb &&
		    rl >= (size_t)(hb + 4 - resp) + strtoul(cl + 15, NULL, 10))
			break;
	}
	close(fd);
	if (resp == NULL)
		return (NULL);
	resp[rl] = '\0';
	b = strstr(resp, "\r\n\r\n");
	if (b == NULL || (o = json_loads(b + 4, 0, &je)) == NULL) {
		snprintf(w->why, sizeof(w->why), "chromedriver: bad answer");
		free(resp);
		return (NULL);
	}
	free(resp);
	v = json_object_get(o, "value");
	if (json_is_object(v) && json_object_get(v, "error")) {
		snprintf(w->why, sizeof(w->why), "%s: %.400s",
		         json_string_value(json_object_get(v, "error")),
		         json_string_value(json_object_get(v, "message")));
		json_decref(o);
		return (NULL);
	}
	v = json_incref(v ? v : json_null());
	json_decref(o);
	return (v);
}

int
wd_start(struct wd *w, int width, int height, const char *log)
{
	char    arg[64], win[64];
	json_t *caps, *v;
	int     i;

	memset(w, 0, sizeof(*w));
	if (access("/usr/bin/chromedriver", X_OK) != 0 ||
	    access("/usr/bin/chromium", X_OK) != 0) {
		snprintf(w->why, sizeof(w->why),
		         "no /usr/bin/chromium or /usr/bin/chromedriver "
		         "(make deps installs chromium and chromium-driver)");
		return (-1);
	}
	if ((w->port = free_port()) < 0)
		return (-1);
	snprintf(arg, sizeof(arg), "--port=%d", w->port);
	{
		char *argv[] = {"/usr/bin/chromedriver", arg, NULL};

		if (proc_start(&w->driver, argv, log) != 0)
			return (-1);
	}
	for (i = 0; i < 100; i++) { /* up to 10 s for it to listen */
		if ((v = call(w, "GET", "/status", NULL)) != NULL) {
			json_decref(v);
			break;
		}
		usleep(100000);
	}
	snprintf(win, sizeof(win), "--window-size=%d,%d", width, height);
	caps = json_pack(
	    "{s:{s:{s:s,s:{s:s,s:[s,s,s,s,s,s]},s:{s:s}}}}", "capabilities",
	    "alwaysMatch", "browserName", "chrome", "goog:chromeOptions",
	    "binary", "/usr/bin/chromium", "args", "--headless=new",
	    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
	    "--no-first-run", win, "goog:loggingPrefs", "browser", "ALL");
	if ((v = call(w, "POST", "/session", caps)) == NULL) {
		char why[512];

		memcpy(why, w->why, sizeof(why));
		wd_stop(w);
		snprintf(w->why, sizeof(w->why), "chromium: %s", why);
		return (-1);
	}
	snprintf(w->session, sizeof(w->session), "%s",
	         json_string_value(json_object_get(v, "sessionId")));
	json_decref(v);
	return (w->session[0] ? 0 : -1);
}

void
wd_stop(struct wd *w)
{
	char    path[200];
	json_t *v;

	if (w->session[0]) {
		snprintf(path, sizeof(path), "/session/%s", w->session);
		v = call(w, "DELETE", path, NULL);
		json_decref(v);
		w->session[0] = '\0';
	}
	if (w->driver.pid > 0)
		proc_stop(&w->driver, 15);
	w->driver.pid = 0;
}

static json_t *
scall(struct wd *w, const char *method, const char *what, json_t *body)
{
	char path[256];

	snprintf(path, sizeof(path), "/session/%s/%s", w->session, what);
	return (call(w, method, path, body));
}

int
wd_get(struct wd *w, const char *url)
{
	json_t *v = scall(w, "POST", "url", json_pack("{s:s}", "url", url));

	json_decref(v);
	return (v ? 0 : -1);
}

int
wd_handle(struct wd *w, char *handle, size_t len)
{
	json_t *v = scall(w, "GET", "window", NULL);

	snprintf(handle, len, "%s",
	         json_is_string(v) ? json_string_value(v) : "");
	json_decref(v);
	return (handle[0] ? 0 : -1);
}

int
wd_page_timeout(struct wd *w, int ms)
{
	json_t *v =
	    scall(w, "POST", "timeouts", json_pack("{s:i}", "pageLoad", ms));

	json_decref(v);
	return (v ? 0 : -1);
}

int
wd_new_tab(struct wd *w, char *handle, size_t len)
{
	json_t *v =
	    scall(w, "POST", "window/new", json_pack("{s:s}", "type", "tab"));
	const char *h = json_string_value(json_object_get(v, "handle"));

	snprintf(handle, len, "%s", h ? h : "");
	json_decref(v);
	return (handle[0] && wd_switch(w, handle) == 0 ? 0 : -1);
}

int
wd_switch(struct wd *w, const char *handle)
{
	json_t *v =
	    scall(w, "POST", "window", json_pack("{s:s}", "handle", handle));

	json_decref(v);
	return (v ? 0 : -1);
}

json_t *
wd_exec(struct wd *w, const char *script)
{
	return (scall(w, "POST", "execute/sync",
	              json_pack("{s:s,s:[]}", "script", script, "args")));
}

double
wd_num(struct wd *w, const char *script)
{
	json_t *v = wd_exec(w, script);
	double  d = json_is_number(v) ? json_number_value(v) : NAN;

	json_decref(v);
	return (d);
}

int
wd_str(struct wd *w, const char *script, char *buf, size_t len)
{
	json_t *v = wd_exec(w, script);
	int     rv = json_is_string(v) ? 0 : -1;

	snprintf(buf, len, "%s", rv == 0 ? json_string_value(v) : "");
	json_decref(v);
	return (rv);
}

long
wd_wait(struct wd *w, const char *script, int timeout_ms)
{
	uint64_t t0 = mono_ms();
	json_t  *v;

	for (;;) {
		v = wd_exec(w, script);
		if (json_is_true(v)) {
			json_decref(v);
			return ((long)(mono_ms() - t0));
		}
		json_decref(v);
		if (mono_ms() - t0 > (uint64_t)timeout_ms)
			return (-1);
		usleep(50000);
	}
}

int
wd_keys(struct wd *w, const char *const *keys, size_t n)
{
	json_t *acts = json_array(), *v;
	size_t  i;

	for (i = 0; i < n; i++) {
		json_array_append_new(acts,
		                      json_pack("{s:s,s:s}", "type", "keyDown",
		                                "value", keys[i]));
		json_array_append_new(
		    acts,
		    json_pack("{s:s,s:s}", "type", "keyUp", "value", keys[i]));
	}
	v = scall(w, "POST", "actions",
	          json_pack("{s:[{s:s,s:s,s:o}]}", "actions", "type", "key",
	                    "id", "keyboard", "actions", acts));
	json_decref(v);
	return (v ? 0 : -1);
}

int
wd_console_errors(struct wd *w, char *buf, size_t len)
{
	json_t *v =
	    scall(w, "POST", "se/log", json_pack("{s:s}", "type", "browser"));
	size_t i, o = 0;

	buf[0] = '\0';
	if (!json_is_array(v)) {
		json_decref(v);
		return (-1);
	}
	for (i = 0; i < json_array_size(v); i++) {
		json_t     *e = json_array_get(v, i);
		const char *lv =
		    json_string_value(json_object_get(e, "level"));

		if (lv && strcmp(lv, "SEVERE") == 0 && o + 2 < len)
			o += (size_t)snprintf(
			    buf + o, len - o, "%s\n",
			    json_string_value(json_object_get(e, "message")));
	}
	json_decref(v);
	return (0);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y ? -1 : x > y);
}

/* Distinct colours of an RGBA image, and its commonest one's share. */
static void
colours(const uint32_t *px, size_t n, size_t *distinct, double *top)
{
	uint32_t *c = malloc(n * sizeof(*c));
	size_t    i, run = 1, best = 1;

	*distinct = 0;
	*top = 1;
	if (c == NULL || n == 0) {
		free(c);
		return;
	}
	memcpy(c, px, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u32);
	*distinct = 1;
	for (i = 1; i < n; i++) {
		if (c[i] == c[i - 1]) {
			if (++run > best)
				best = run;
			continue;
		}
		run = 1;
		(*distinct)++;
	}
	*top = (double)best / (double)n;
	free(c);
}

int
wd_screenshot(struct wd *w, const char *path, size_t *ncol, double *top)
{
	json_t     *v = scall(w, "GET", "screenshot", NULL);
	const char *b64 = json_string_value(v);
	png_image   img;
	uint8_t    *png, *rgba = NULL;
	size_t      bl, pl;
	FILE       *f;
	int         rv = -1;

	if (b64 == NULL) {
		json_decref(v);
		return (-1);
	}
	bl = strlen(b64);
	if ((png = malloc(bl)) == NULL) {
		json_decref(v);
		return (-1);
	}
	pl = (size_t)EVP_DecodeBlock(png, (const unsigned char *)b64, (int)bl);
	while (bl > 0 && b64[bl - 1] == '=') { /* the padding's zeros */
		bl--;
		pl--;
	}
	json_decref(v);
	if ((f = fopen(path, "we")) != NULL) {
		fwrite(png, 1, pl, f);
		fclose(f);
	}
	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	if (png_image_begin_read_from_memory(&img, png, pl)) {
		img.format = PNG_FORMAT_RGBA;
		if ((rgba = malloc(PNG_IMAGE_SIZE(img))) != NULL &&
		    png_image_finish_read(&img, NULL, rgba, 0, NULL)) {
			colours((const uint32_t *)(void *)rgba,
			        (size_t)img.width * img.height, ncol, top);
			rv = 0;
		}
	}
	png_image_free(&img);
	free(rgba);
	free(png);
	return (rv);
}

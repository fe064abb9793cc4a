/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web: the live view of ocsd (see web.h).  Read-only, bound to
 * localhost by default; any other address needs TLS (--tls) and a
 * password (--auth), or it does not start.  Prints "ocs-web: URL" once it
 * listens, so port 0 works, and serves until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "ocsd/web.h"
#include "proto/alink.h"
#include "proto/base/log.h"
#include "proto/base/net.h"
#include "proto/base/path.h"
#include "proto/base/version.h"

#ifndef OCS_WEB_DIR
#define OCS_WEB_DIR "ocsd/www"
#endif

static void
usage(void)
{
	fprintf(stderr,
	        "usage: ocs-web [-v] [-s CONTROL] [-k SECRET] [-C CA] "
	        "[-l ADDR:PORT]\n"
	        "               [--assets DIR] [--tls CERTKEY --auth FILE] "
	        "[--sweep DIR]... [--plan FILE]...\n");
	exit(2);
}

/* The page's files, read once: what is served is what was there. */
static int
load_assets(struct web *w, const char *dir)
{
	static const struct {
		const char *name, *type;
	} files[] = {
	    {"/index.html", "text/html; charset=utf-8"},
	    {"/app.js", "text/javascript; charset=utf-8"},
	    {"/style.css", "text/css; charset=utf-8"},
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char  path[4200];
		FILE *f;
		long  n;

		snprintf(path, sizeof(path), "%s%s", dir, files[i].name);
		if ((f = fopen(path, "re")) == NULL) {
			log_warnx("web: %s: %s", path, strerror(errno));
			return (-1);
		}
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		w->assets[i].name = files[i].name;
		w->assets[i].type = files[i].type;
		if (n < 0 ||
		    (w->assets[i].data = malloc((size_t)n + 1)) == NULL ||
		    fread(w->assets[i].data, 1, (size_t)n, f) != (size_t)n) {
			fclose(f);
			log_warnx("web: reading %s failed", path);
			return (-1);
		}
		w->assets[i].len = (size_t)n;
		fclose(f);
		w->nassets++;
	}
	return (0);
}

/* --auth FILE: one line user:password, readable by its owner only; the
 * Authorization header a browser sends for it.  0 or -1 (said). */
static int
load_auth(struct web_opts *o)
{
	struct stat st;
	char        line[256];
	size_t      n;
	FILE       *f;

	if ((f = fopen(o->auth_file, "re")) == NULL) {
		log_warnx("--auth %s: %s", o->auth_file, strerror(errno));
		return (-1);
	}
	if (fstat(fileno(f), &st) != 0 || (st.st_mode & 077) != 0) {
		fclose(f);
		log_warnx("--auth %s: readable by others (chmod 600 it)",
		          o->auth_file);
		return (-1);
	}
	if (fgets(line, sizeof(line), f) == NULL) {
		fclose(f);
		log_warnx("--auth %s: empty", o->auth_file);
		return (-1);
	}
	fclose(f);
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (strchr(line, ':') == NULL || line[0] == ':' || n < 8) {
		log_warnx("--auth %s: expected user:password (8 characters "
		          "at least)",
		          o->auth_file);
		return (-1);
	}
	memcpy(o->auth_b64, "Basic ", 6);
	EVP_EncodeBlock((unsigned char *)o->auth_b64 + 6,
	                (const unsigned char *)line, (int)n);
	memset(line, 0, sizeof(line));
	return (0);
}

static int
is_loopback(const char *listen)
{
	char host[80], port[16];

	if (net_hostport(listen, "8080", host, sizeof(host), port,
	                 sizeof(port)) != 0)
		return (0);
	return (strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0 ||
	        strcmp(host, "localhost") == 0);
}

enum { O_ASSETS = 256, O_TLS, O_AUTH, O_SWEEP, O_PLAN };

static void
parse(int argc, char **argv, struct web_opts *o, char *defurl, size_t dl,
      uint8_t *secret, size_t *slen)
{
	static const struct option lo[] = {
	    {"assets", required_argument, NULL, O_ASSETS},
	    {"tls", required_argument, NULL, O_TLS},
	    {"auth", required_argument, NULL, O_AUTH},
	    {"sweep", required_argument, NULL, O_SWEEP},
	    {"plan", required_argument, NULL, O_PLAN},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	const char *secret_file = getenv("OCSD_SECRET_FILE");
	char        err[300];
	int         c;

	o->listen = "127.0.0.1:8080";
	o->assets = OCS_WEB_DIR;
	o->ctl.url = getenv("OCSD_CONTROL");
	o->ctl.ca = getenv("OCSD_TLS_CA");
	o->ctl.timeout_ms = 10000;
	while ((c = getopt_long(argc, argv, "vs:k:C:l:hV", lo, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->verbose++;
			break;
		case 's':
			o->ctl.url = optarg;
			break;
		case 'k':
			secret_file = optarg;
			break;
		case 'C':
			o->ctl.ca = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case O_ASSETS:
			o->assets = optarg;
			break;
		case O_TLS:
			o->tls = optarg;
			break;
		case O_AUTH:
			o->auth_file = optarg;
			break;
		case O_SWEEP:
		case O_PLAN:
			if ((c == O_SWEEP ? o->nsweeps : o->nplans) ==
			    WEB_LIST_MAX) {
				fprintf(stderr,
				        "ocs-web: at most %d of each\n",
				        WEB_LIST_MAX);
				exit(2);
			}
			if (c == O_SWEEP)
				o->sweeps[o->nsweeps++] = optarg;
			else
				o->plans[o->nplans++] = optarg;
			break;
		case 'V':
			printf("ocs-web %s\n", OCS_VERSION);
			exit(0);
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (o->ctl.url == NULL || !o->ctl.url[0]) {
		path_default_control(defurl, dl);
		o->ctl.url = defurl;
	}
	if (secret_file && secret_file[0]) {
		if (auth_read_secret(secret_file, secret, slen, err,
		                     sizeof(err)) != 0) {
			fprintf(stderr, "ocs-web: %s\n", err);
			exit(2);
		}
		o->ctl.secret = secret;
		o->ctl.slen = *slen;
	}
}

int
main(int argc, char **argv)
{
	static struct web_opts o;
	static struct web      w;
	static uint8_t         secret[AUTH_SEC_MAX + 1];
	char                   defurl[4200], err[300];
	size_t                 slen = 0;
	sigset_t               ss;
	int                    rv = 1;

	log_init("ocs-web", 1, 0);
	parse(argc, argv, &o, defurl, sizeof(defurl), secret, &slen);
	log_init("ocs-web", 1, o.verbose);
	o.loopback = is_loopback(o.listen);
	if (!o.loopback && (o.tls == NULL || o.auth_file == NULL)) {
		fprintf(stderr,
		        "ocs-web: -l %s is not a loopback address: it needs "
		        "--tls CERTKEY and --auth FILE\n",
		        o.listen);
		return (2);
	}
	if (o.auth_file && load_auth(&o) != 0)
		return (2);
	/* Signals come through the loop's signalfd: blocked before any
	 * thread starts, so every thread inherits the mask. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	w.o = &o;
	w.lfd = w.wake_fd = w.sig_fd = -1;
	if (load_assets(&w, o.assets) != 0)
		return (1);
	if (o.tls && alink_tls_server(o.tls, &w.tls, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-web: --tls %s: %s\n", o.tls, err);
		return (1);
	}
	if (nng_mtx_alloc(&w.mtx) != 0 || nng_cv_alloc(&w.cv, w.mtx) != 0)
		fatalx("out of memory");
	if (web_listen(&w) == 0 && web_workers_start(&w) == 0 &&
	    web_feed_start(&w) == 0) {
		printf("ocs-web: %s://%s/\n", o.tls ? "https" : "http",
		       w.bound);
		fflush(stdout);
		log_info("serving %s for ocsd at %s", w.bound, o.ctl.url);
		rv = web_serve(&w) == 0 ? 0 : 1;
	}
	web_feed_stop(&w);
	web_workers_stop(&w);
	web_close(&w);
	alink_tls_free(w.tls);
	while (w.nassets > 0)
		free(w.assets[--w.nassets].data);
	nng_cv_free(w.cv);
	nng_mtx_free(w.mtx);
	return (rv);
}

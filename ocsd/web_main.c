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
#include "proto/base/units.h"
#include "proto/base/version.h"

#ifndef OCS_WEB_DIR
#define OCS_WEB_DIR "ocsd/www"
#endif

static void
usage(FILE *out, int rv)
{
	fprintf(out,
	        "usage: ocs-web [-v] [-s CONTROL] [-k SECRET] [-C CA] "
	        "[-l ADDR:PORT]\n"
	        "               [--assets DIR] [--tls CERTKEY --auth FILE] "
	        "[--sweep DIR]... [--plan FILE]...\n"
	        "               [--head-timeout TIME]\n"
	        "       ocs-web -h | --help | -V | --version\n");
	exit(rv);
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

enum { O_ASSETS = 256, O_TLS, O_AUTH, O_SWEEP, O_PLAN, O_HEAD };

/* --head-timeout: 100 ms to 10 min, or exit 2 naming the value. */
static uint64_t
head_timeout(const char *arg)
{
	double s;

	if (unit_parse_time(arg, &s) != 0 || s < 0.1 || s > 600) {
		fprintf(stderr,
		        "ocs-web: --head-timeout \"%s\": expected a time "
		        "from 100ms to 600s\n",
		        arg);
		exit(2);
	}
	return ((uint64_t)(s * 1000 + 0.5));
}

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
	    {"head-timeout", required_argument, NULL, O_HEAD},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	const char *secret_file = getenv("OCSD_SECRET_FILE");
	char        err[300];
	int         c;

	o->listen = "127.0.0.1:8080";
	o->head_ms = WEB_HEAD_MS;
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
		case O_HEAD:
			o->head_ms = head_timeout(optarg);
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
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind != argc)
		usage(stderr, 2);
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
	if (web_assets_load(&w, o.assets) != 0)
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
	web_assets_free(&w);
	nng_cv_free(w.cv);
	nng_mtx_free(w.mtx);
	return (rv);
}

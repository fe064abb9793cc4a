/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calient driver's parts: its HTTP session (drv_calient_http.c) and
 * the REST operations over it (drv_calient.c).  Not for other users.
 */
#ifndef OCS_DRV_CALIENT_INT_H
#define OCS_DRV_CALIENT_INT_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/http/http.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/rest.h"

struct calient {
	char              base[300]; /* http[s]://host:port, for messages */
	nng_url          *url;
	nng_http_client  *cli;
	nng_http_conn    *conn;   /* NULL: not connected */
	uint32_t          served; /* answers read on conn */
	nng_aio          *aio;
	int               done_fd;    /* readable when aio completes */
	int               cancel_fd;  /* drv_opts' */
	char              basic[300]; /* "Basic <base64>" */
	char              user[64];
	char              cookie[256]; /* "" until logged in */
	int               timeout_ms;
	struct rest_names names; /* the switch's ports; n = 0 until known */
	uint32_t          switch_ms;
	char              err[512];
	void (*trace)(void *, const char *, ...);
	void *trace_arg;
};

/* One HTTP exchange's answer. */
struct hres {
	uint16_t status;
	char    *body; /* NUL-terminated, malloc'd */
	size_t   len;
};

__attribute__((__format__(printf, 2, 3))) void
     cal_seterr(struct calient *, const char *fmt, ...);
void cal_drop(struct calient *);

/* Parse url (http[s]://host[:port]) and opts; set up the client.  0,
 * -EINVAL (bad url, credentials or TLS setup), -ENOMEM, -errno. */
int  cal_http_open(struct calient *, const char *url, const struct drv_opts *);
void cal_http_close(struct calient *);

/*
 * One request, with the Basic credentials (use_basic or no cookie yet)
 * or the session cookie.  0 with the answer in *h (any status), or a
 * transport failure as -errno with c->err set and the connection
 * dropped; *sent tells whether the request went out whole (the device
 * may have acted on it).  A kept-alive connection the switch had closed
 * while idle is replaced and the request sent again, once.
 */
int cal_xfer_once(struct calient *, const char *method, const char *uri,
                  const char *body, int use_basic, struct hres *h, int *sent,
                  uint64_t deadline);

/* Sleep ms, or -ECANCELED as soon as the caller's cancel_fd says so. */
int cal_sleep(struct calient *, uint32_t ms);

#endif

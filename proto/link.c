/* SPDX-License-Identifier: BSD-2-Clause */
/* nng listeners and dialers with our permissions and TLS (see link.h). */
#include <stdio.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/supplemental/tls/tls.h>

#include "proto/link.h"

void
link_peer_name(nng_msg *m, char *buf, size_t len)
{
	link_pipe_name(nng_msg_get_pipe(m), buf, len);
}

void
link_pipe_name(nng_pipe p, char *buf, size_t len)
{
	nng_sockaddr sa;

	snprintf(buf, len, "pipe %u", nng_pipe_id(p));
	if (nng_pipe_get_addr(p, NNG_OPT_REMADDR, &sa) != 0)
		return;
	if (sa.s_family == NNG_AF_INET) {
		const uint8_t *a = (const uint8_t *)&sa.s_in.sa_addr;

		snprintf(buf, len, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3],
		         (unsigned)((sa.s_in.sa_port & 0xff) << 8 |
		                    sa.s_in.sa_port >> 8));
	} else if (sa.s_family == NNG_AF_IPC)
		snprintf(buf, len, "ipc %.100s (pipe %u)", sa.s_ipc.sa_path,
		         nng_pipe_id(p));
}

int
link_is_tls(const char *url)
{
	return (strncmp(url, "tls+tcp://", 10) == 0);
}

int
link_listen(nng_socket s, const char *url, const char *cert_key,
            nng_listener *out, char *err, size_t errlen)
{
	nng_listener l;
	int          rv;

	if (link_is_tls(url) && (cert_key == NULL || *cert_key == '\0')) {
		snprintf(err, errlen,
		         "%s: TLS needs a certificate and key "
		         "file (tls_cert_key)",
		         url);
		return (NNG_EINVAL);
	}
	if ((rv = nng_listener_create(&l, s, url)) != 0) {
		snprintf(err, errlen, "%s: %s", url, nng_strerror(rv));
		return (rv);
	}
	if (strncmp(url, "ipc://", 6) == 0 &&
	    (rv = nng_listener_set_int(l, NNG_OPT_IPC_PERMISSIONS, 0660)) !=
	        0) {
		snprintf(err, errlen, "%s: permissions: %s", url,
		         nng_strerror(rv));
		nng_listener_close(l);
		return (rv);
	}
	if (link_is_tls(url) &&
	    (rv = nng_listener_set_string(l, NNG_OPT_TLS_CERT_KEY_FILE,
	                                  cert_key)) != 0) {
		snprintf(err, errlen, "%s: certificate and key %s: %s", url,
		         cert_key, nng_strerror(rv));
		nng_listener_close(l);
		return (rv);
	}
	if ((rv = nng_listener_start(l, 0)) != 0) {
		snprintf(err, errlen, "listening on %s: %s", url,
		         nng_strerror(rv));
		nng_listener_close(l);
		return (rv);
	}
	if (out != NULL)
		*out = l;
	return (0);
}

int
link_dial(nng_socket s, const char *url, const char *ca, int flags, char *err,
          size_t errlen)
{
	nng_dialer d;
	nng_url   *u = NULL;
	int        rv;

	if (!link_is_tls(url)) {
		if ((rv = nng_dial(s, url, NULL, flags)) != 0)
			snprintf(err, errlen, "%s: %s", url, nng_strerror(rv));
		return (rv);
	}
	if (ca == NULL || *ca == '\0') {
		snprintf(err, errlen,
		         "%s: TLS needs a CA file to verify the "
		         "server",
		         url);
		return (NNG_EINVAL);
	}
	if ((rv = nng_url_parse(&u, url)) != 0 ||
	    (rv = nng_dialer_create(&d, s, url)) != 0) {
		snprintf(err, errlen, "%s: %s", url, nng_strerror(rv));
		nng_url_free(u);
		return (rv);
	}
	if ((rv = nng_dialer_set_string(d, NNG_OPT_TLS_CA_FILE, ca)) != 0 ||
	    (rv = nng_dialer_set_int(d, NNG_OPT_TLS_AUTH_MODE,
	                             NNG_TLS_AUTH_MODE_REQUIRED)) != 0 ||
	    (rv = nng_dialer_set_string(d, NNG_OPT_TLS_SERVER_NAME,
	                                u->u_hostname)) != 0) {
		snprintf(err, errlen, "%s: CA %s: %s", url, ca,
		         nng_strerror(rv));
		nng_dialer_close(d);
		nng_url_free(u);
		return (rv);
	}
	nng_url_free(u);
	if ((rv = nng_dialer_start(d, flags)) != 0) {
		snprintf(err, errlen, "%s: %s", url, nng_strerror(rv));
		return (rv);
	}
	return (0);
}

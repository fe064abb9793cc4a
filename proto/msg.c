/* SPDX-License-Identifier: BSD-2-Clause */
/* Packing and checking of ocs.proto messages (see msg.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/msg.h"

static const char *const msg_errtab[] = {
    [MSG_EVERSION - MSG_EBASE] = "protocol version mismatch",
    [MSG_EDECODE - MSG_EBASE] = "malformed message",
    [MSG_ESIZE - MSG_EBASE] = "message too large",
    [MSG_EBODY - MSG_EBASE] = "unexpected message",
    [MSG_EFIELD - MSG_EBASE] = "bad field in message",
};

const char *
msg_strerror(int rv)
{
	int e = -rv;

	if (e > MSG_EBASE && e < MSG_ENNG_BASE && msg_errtab[e - MSG_EBASE])
		return (msg_errtab[e - MSG_EBASE]);
	if (e > MSG_ENNG_BASE && e < MSG_EMAX)
		return (nng_strerror(e - MSG_ENNG_BASE));
	if (e > 0 && e < 4096)
		return (strerror(e));
	return ("unknown error");
}

int
msg_nngerr(int rv)
{
	switch (rv) {
	case 0:
		return (0);
	case NNG_ENOMEM:
		return (-ENOMEM);
	case NNG_ETIMEDOUT:
		return (-ETIMEDOUT);
	case NNG_ECONNREFUSED:
		return (-ECONNREFUSED);
	case NNG_ECONNRESET:
		return (-ECONNRESET);
	case NNG_ECLOSED:
		return (-EBADF);
	case NNG_ECANCELED:
		return (-ECANCELED);
	case NNG_EADDRINUSE:
		return (-EADDRINUSE);
	case NNG_EADDRINVAL:
		return (-EINVAL);
	case NNG_ENOENT:
		return (-ENOENT);
	case NNG_EPERM:
		return (-EPERM);
	case NNG_EMSGSIZE:
		return (-EMSGSIZE);
	default:
		if (rv & NNG_ESYSERR)
			return (-(rv & ~NNG_ESYSERR));
		return (-(MSG_ENNG_BASE + rv));
	}
}

void
msg_init(Ocs__Msg *m, uint64_t seq)
{
	ocs__msg__init(m);
	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = seq;
}

int
msg_encode(const Ocs__Msg *m, nng_msg **out)
{
	size_t len = ocs__msg__get_packed_size(m);
	int    rv;

	*out = NULL;
	if (len > MSG_MAX_BYTES)
		return (-MSG_ESIZE);
	if ((rv = nng_msg_alloc(out, len)) != 0)
		return (msg_nngerr(rv));
	ocs__msg__pack(m, nng_msg_body(*out));
	return (0);
}

int
msg_decode(const void *buf, size_t len, Ocs__Msg **out, char *why,
           size_t whylen)
{
	Ocs__Msg *m;

	*out = NULL;
	/* The socket caps what it receives too (NNG_OPT_RECVMAXSZ); this
	 * covers buffers that came another way (fuzzing, files). */
	if (len > MSG_MAX_BYTES) {
		snprintf(why, whylen, "message of %zu bytes, limit %u", len,
		         MSG_MAX_BYTES);
		return (-MSG_ESIZE);
	}
	m = ocs__msg__unpack(NULL, len, buf);
	if (m == NULL) {
		snprintf(why, whylen, "%zu bytes that are not an ocs.Msg",
		         len);
		return (-MSG_EDECODE);
	}
	/* A peer of another version may mean other things by the same
	 * fields: refuse rather than guess. */
	if (m->version != MSG_VERSION) {
		snprintf(why, whylen, "protocol version %u, expected %u",
		         m->version, MSG_VERSION);
		ocs__msg__free_unpacked(m, NULL);
		return (-MSG_EVERSION);
	}
	if (m->body_case == OCS__MSG__BODY__NOT_SET) {
		snprintf(why, whylen, "message without a body");
		ocs__msg__free_unpacked(m, NULL);
		return (-MSG_EBODY);
	}
	*out = m;
	return (0);
}

void
msg_free(Ocs__Msg *m)
{
	if (m != NULL)
		ocs__msg__free_unpacked(m, NULL);
}

int
msg_error(uint64_t seq, int code, const char *text, nng_msg **out)
{
	Ocs__Msg   m;
	Ocs__Error e;

	msg_init(&m, seq);
	ocs__error__init(&e);
	e.code = code;
	e.text = (char *)(uintptr_t)text;
	m.body_case = OCS__MSG__BODY_ERROR;
	m.error = &e;
	return (msg_encode(&m, out));
}

int
msg_str_ok(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return (0);
	for (i = 0; s[i]; i++) {
		if (i == MSG_MAX_STR)
			return (0);
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return (0);
	}
	return (1);
}

int
msg_call(nng_socket sock, const Ocs__Msg *m, const char *peer, Ocs__Msg **rep,
         char *err, size_t errlen)
{
	nng_msg *nm;
	char     why[300];
	int      rv;

	*rep = NULL;
	if ((rv = msg_encode(m, &nm)) != 0) {
		snprintf(err, errlen, "encoding: %s", msg_strerror(rv));
		return (rv);
	}
	if ((rv = nng_sendmsg(sock, nm, 0)) != 0) {
		nng_msg_free(nm);
		snprintf(err, errlen, "%s: %s", peer, nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	if ((rv = nng_recvmsg(sock, &nm, 0)) != 0) {
		/* A REQ socket whose request is never re-sent fails the wait
		 * when the connection that carried it goes. */
		if (rv == NNG_ECONNRESET)
			snprintf(err, errlen,
			         "%s closed the connection before answering "
			         "(it stopped or restarted)",
			         peer);
		else
			snprintf(err, errlen, "%s: no answer: %s", peer,
			         nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), rep, why,
	                sizeof(why));
	nng_msg_free(nm);
	if (rv != 0) {
		snprintf(err, errlen, "%s: bad answer: %s", peer, why);
		return (rv);
	}
	/* A REQ socket drops stale replies, but a peer may still answer
	 * with someone else's seq: never take it for ours. */
	if (!(*rep)->has_seq || (*rep)->seq != m->seq) {
		snprintf(err, errlen, "%s answered another request", peer);
		msg_free(*rep);
		*rep = NULL;
		return (-MSG_EBODY);
	}
	return (0);
}

const char *
msg_body_name(int body_case)
{
	const ProtobufCFieldDescriptor *f;

	f = protobuf_c_message_descriptor_get_field(&ocs__msg__descriptor,
	                                            (unsigned)body_case);
	return (f ? f->name : "?");
}

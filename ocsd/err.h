/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's own error codes (range in proto/base/errbase.h) and the one
 * function that names any code ocsd may meet: its own, the drivers',
 * the configuration's, the messages' and nng's, the collectives', errno.
 */
#ifndef OCS_OCSD_ERR_H
#define OCS_OCSD_ERR_H

#include "proto/base/errbase.h"

enum ocsd_err {
	OCSD_EBASE = ERR_BASE_OCSD,
	OCSD_ESWITCH,   /* the switch is unreachable */
	OCSD_EMISMATCH, /* the read-back differs from what was applied */
	OCSD_EREQUEST,  /* the request cannot be carried out */
	OCSD_ESTATE,    /* the desired map could not be saved */
	OCSD_EABORT,    /* the collective run was aborted */
	OCSD_EBUSY,     /* a run is in progress */
	OCSD_EUSAGE,    /* an argument of the request is invalid */
	OCSD_EMAX
};

/* Any code of ours or of the modules below, or strerror. */
const char *ocsd_strerror(int rv);

#endif

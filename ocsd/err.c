/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsd's error texts: its own codes, and those of every module below it. */
#include <string.h>

#include "collectives/coll.h"
#include "ocs-drivers/drv.h"
#include "ocsd/conf.h"
#include "ocsd/err.h"
#include "proto/msg.h"

const char *
ocsd_strerror(int rv)
{
	int e = -rv;

	switch (e) {
	case OCSD_ESWITCH:
		return ("switch unreachable");
	case OCSD_EMISMATCH:
		return ("switch state differs from what was applied");
	case OCSD_EREQUEST:
		return ("bad request");
	case OCSD_ESTATE:
		return ("cannot save state");
	case OCSD_EABORT:
		return ("run aborted");
	case OCSD_EBUSY:
		return ("a run is in progress");
	case OCSD_EUSAGE:
		return ("invalid argument");
	}
	if (e > DRV_EBASE && e < DRV_EMAX)
		return (drv_strerror(rv));
	if (e > CONF_EBASE && e < CONF_EMAX)
		return ("configuration error");
	if (e > MSG_EBASE && e < MSG_EMAX)
		return (msg_strerror(rv));
	if (e > COLL_EBASE && e < COLL_EMAX)
		return (coll_strerror(rv));
	if (e > 0 && e < 4096)
		return (strerror(e));
	return ("unknown error");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one function that names any code ocsd may meet: its own (they
 * travel to clients: proto/wire.h), the drivers', the configuration's,
 * the messages' and nng's, the collectives', errno.
 */
#ifndef OCS_OCSD_ERR_H
#define OCS_OCSD_ERR_H

#include "proto/wire.h"

/* Any code of ours or of the modules below, or strerror. */
const char *ocsd_strerror(int rv);

#endif

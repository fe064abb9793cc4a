/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where each module's error codes start.  Functions return 0 or a
 * negative code: a negated errno below 4096 (Linux's MAX_ERRNO), else a
 * negated module code.  Every module's enum starts at its base here, so
 * two modules can never hand out the same number; each range is 1024
 * wide but for msg's, which carries nng's error numbers (msg.h).
 */
#ifndef OCS_ERRBASE_H
#define OCS_ERRBASE_H

enum err_base {
	ERR_BASE_DRV = 4096,   /* ocs-drivers/drv.h */
	ERR_BASE_COLL = 5120,  /* collectives/coll.h */
	ERR_BASE_CONF = 6144,  /* ocsd/conf.h */
	ERR_BASE_OCSD = 7168,  /* proto/wire.h (ocsd's codes) */
	ERR_BASE_MSG = 8192,   /* proto/msg.h: own codes, then nng's */
	ERR_BASE_REST = 13312, /* ocs-drivers/rest.h */
	ERR_BASE_AMSG = 14336, /* proto/amsg.h */
	ERR_BASE_UNIT = 15360, /* proto/base/units.h */
	ERR_BASE_END = 16384
};

#define ERR_RANGE 1024

#endif

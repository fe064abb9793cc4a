/* SPDX-License-Identifier: BSD-2-Clause */
/* Error texts of the collectives library. */
#include <string.h>

#include "collectives/coll.h"
#include "proto/base/units.h"

static const char *const coll_errtab[] = {
    [COLL_EPORT - COLL_EBASE] = "port limit broken",
    [COLL_EDARK - COLL_EBASE] = "hop on a circuit that is not lit",
    [COLL_ENOTHELD - COLL_EBASE] = "node sends a block it does not hold",
    [COLL_EUNDELIVERED - COLL_EBASE] = "block not delivered",
    [COLL_EPATH - COLL_EBASE] = "path does not lead from source to "
                                "destination",
    [COLL_EBYTES - COLL_EBASE] = "transfer bytes disagree with its blocks",
    [COLL_ENOCFG - COLL_EBASE] = "first phase has no circuit "
                                 "configuration",
    [COLL_EUNREACH - COLL_EBASE] = "peer not reachable in the "
                                   "configuration",
    [COLL_ETOOBIG - COLL_EBASE] = "schedule too large to materialise",
    [COLL_ENODES - COLL_EBASE] = "more nodes than this planner takes",
    [COLL_EPLANE - COLL_EBASE] = "a phase's planes disagree with its "
                                 "circuits",
    [COLL_ENONUM - COLL_EBASE] = "not a number",
    [COLL_ERANGE - COLL_EBASE] = "out of range",
    [COLL_EALGO - COLL_EBASE] = "unknown algorithm",
    [COLL_ETOPO - COLL_EBASE] = "malformed topology",
    [COLL_ELINK - COLL_EBASE] = "link carries more than one chunk at a "
                                "time",
    [COLL_EREDUCE - COLL_EBASE] = "contribution reduced twice",
};

const char *
coll_strerror(int rv)
{
	const char *u = unit_strerror(rv);
	int         e = -rv;

	if (u != NULL)
		return (u);
	if (e > COLL_EBASE && e < COLL_EMAX && coll_errtab[e - COLL_EBASE])
		return (coll_errtab[e - COLL_EBASE]);
	if (e > 0 && e < COLL_EBASE)
		return (strerror(e));
	return ("unknown error");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Planes that reconfigure apart (a fabric: one switch a transceiver
 * plane).  Together, every reconfiguration darkens every plane at one
 * barrier; apart, a phase names the planes it changes (sched.h) and each
 * is released on its own, the others carrying data meanwhile.  What that
 * buys is the model's to say (cost.h: a phase costs the latest plane's
 * delay and data): planes_choose prices both and keeps the one asked for,
 * or the cheaper (ties stay together, as every schedule ran before).
 *
 * planes_spread puts a schedule of P transceivers onto q planes of P
 * each (2q transceivers on q planes for the ring algorithms).  Together:
 * every phase on every plane, each transfer's blocks cut evenly across
 * them.  Apart: the schedule's configurations take turns, epoch e (the
 * phases from its e-th configuration on) all on plane e mod q, and the
 * barrier that starts epoch e reconfigures the plane epoch e - 1 used,
 * for epoch e - 1 + q, while epoch e's data flows on another: each
 * plane carries all of a phase, but its delay hides behind the other
 * planes' data.
 */
#ifndef COLL_PLANES_H
#define COLL_PLANES_H

#include <stdint.h>

#include "collectives/cost.h"
#include "collectives/sched.h"

enum planes_mode {
	PLANES_NONE = 0, /* not asked: the schedule as it is */
	PLANES_TOGETHER,
	PLANES_APART,
	PLANES_AUTO,
};

/* "together", "apart" or "auto": 0, or -COLL_ERANGE. */
int         planes_parse(const char *, enum planes_mode *);
const char *planes_name(enum planes_mode);

/*
 * s (its planes set, sched_set_planes) priced with every plane together
 * and apart (sched_apart); s keeps what mode asks for, auto the cheaper.
 * *together and *apart (nullable) get both costs.  1 (apart kept), 0
 * (together), -EINVAL (apart asked of one plane), -ENOMEM or a path
 * error.
 */
int planes_choose(struct sched *s, const struct cost_params *cp,
                  enum planes_mode mode, double *together, double *apart);

/*
 * src (a uniform All-to-All on P ports) onto q planes of P ports into
 * out, apart or together (see above); out's planes are set and, apart,
 * its phases name them.  0, -EINVAL (q < 2, q * P > SCHED_MAX_PLANES, or
 * not a uniform All-to-All), -ENOMEM, -COLL_ETOOBIG.  sched_free(out) in
 * every case.
 */
int planes_spread(const struct sched *src, uint32_t q, int apart,
                  struct sched *out);

/*
 * Both spreads of src on q planes priced under cp; out gets the one mode
 * asks for (auto: the cheaper, together on a tie).  1 apart, 0 together,
 * or a negative code as planes_spread's.
 */
int planes_spread_choose(const struct sched *src, uint32_t q,
                         const struct cost_params *cp, enum planes_mode mode,
                         struct sched *out, double *together, double *apart);

#endif

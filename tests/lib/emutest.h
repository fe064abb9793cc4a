/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The emulator's model for the conformance tests of its faces: made as
 * ocs-emu makes it (SID OCS-EMU), and the TL1 header's time zeroed so
 * replies compare exactly.
 */
#ifndef OCS_TESTS_EMUTEST_H
#define OCS_TESTS_EMUTEST_H

#include <stdint.h>

#include "testbed/ocs-emu/emu.h"

/* ports a side, switching time, the account ("" for none).  Aborts the
 * test on failure. */
struct emu *emutest_new(uint32_t ports, uint64_t switch_ns, const char *user,
                        const char *password);
void        emutest_del(struct emu *);
/* Every "\r\n\n   SID YY-MM-DD HH:MM:SS" header's time to zeros. */
void emutest_zero_time(char *);

#endif

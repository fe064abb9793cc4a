/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one monotonic clock (after bgpd's monotime.c): every timeout,
 * deadline and measured duration in the tree reads CLOCK_MONOTONIC
 * through these, so no two parts disagree on what "now" is.  Safe from
 * any thread; never fails on Linux.
 */
#ifndef OCS_MONO_H
#define OCS_MONO_H

#include <stdint.h>

uint64_t mono_ns(void);
uint64_t mono_us(void);
uint64_t mono_ms(void);
/* Seconds as a double, for measured durations. */
double mono_s(void);

/* Sleep ms milliseconds, restarting after signals. */
void mono_sleep_ms(uint32_t ms);

#endif

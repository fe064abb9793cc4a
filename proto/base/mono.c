/* SPDX-License-Identifier: BSD-2-Clause */
/* The monotonic clock (see mono.h). */
#include <errno.h>
#include <time.h>

#include "proto/base/mono.h"

uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

uint64_t
mono_us(void)
{
	return (mono_ns() / 1000u);
}

uint64_t
mono_ms(void)
{
	return (mono_ns() / 1000000u);
}

double
mono_s(void)
{
	return ((double)mono_ns() / 1e9);
}

void
mono_sleep_ms(uint32_t ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
	                      .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* What ocsd and its clients agree on besides the messages (wire.h). */
#include "proto/wire.h"

int
wire_name_char(int c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	        (c >= '0' && c <= '9') || c == '-' || c == '_');
}

int
wire_swname_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= WIRE_SWNAME_MAX ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return (0);
	for (i = 1; i < len; i++)
		if (!wire_name_char((unsigned char)s[i]))
			return (0);
	return (1);
}

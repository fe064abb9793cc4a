/* SPDX-License-Identifier: BSD-2-Clause */
#include <string.h>

#include "tests/lib/rjson.h"

json_t *
rjson_find(json_t *arr, const char *key, const char *val)
{
	json_t *e;
	size_t  i;

	json_array_foreach(arr, i, e)
	{
		const char *s = json_string_value(json_object_get(e, key));

		if (s != NULL && strcmp(s, val) == 0)
			return (e);
	}
	return (NULL);
}

json_t *
rjson_plane(json_t *rep, size_t k, const char *name)
{
	json_t *ph = json_array_get(json_object_get(rep, "phases"), k);

	return (rjson_find(json_object_get(ph, "planes"), "name", name));
}

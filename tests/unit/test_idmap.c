/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_idmap.c: the id map against a plain array under random
 * puts, replacements and deletions (deletion by backward shift is where
 * linear probing goes wrong), clustered ids, and its limits.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "proto/base/idmap.h"

#define IDS 3000

static uint32_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return ((uint32_t)(*s >> 33));
}

/* Every id's lookup agrees with the reference. */
static void
agree(const struct idmap *m, void *const *ref, const uint32_t *ids)
{
	uint32_t i, n = 0;

	for (i = 0; i < IDS; i++) {
		assert_ptr_equal(idmap_get(m, ids[i]), ref[i]);
		n += ref[i] != NULL;
	}
	assert_int_equal(m->n, n);
}

static void
run(uint32_t (*id_of)(uint32_t, uint64_t *), uint32_t cap)
{
	static char     vals[IDS], other;
	static void    *ref[IDS];
	static uint32_t ids[IDS];
	struct idmap    m;
	uint64_t        s = 42;
	uint32_t        i, k, live = 0;

	assert_int_equal(idmap_init(&m, cap), 0);
	for (i = 0; i < IDS; i++) {
		ids[i] = id_of(i, &s);
		ref[i] = NULL;
	}
	for (k = 0; k < 200000; k++) {
		i = rnd(&s) % IDS;
		if (rnd(&s) % 3 != 0 && (ref[i] != NULL || live < cap)) {
			void *v = &vals[rnd(&s) % IDS];

			assert_int_equal(idmap_put(&m, ids[i], v), 0);
			live += ref[i] == NULL;
			ref[i] = v;
		} else {
			/* A wrong value deletes nothing. */
			idmap_del(&m, ids[i], &other);
			assert_ptr_equal(idmap_get(&m, ids[i]), ref[i]);
			idmap_del(&m, ids[i], rnd(&s) % 2 ? NULL : ref[i]);
			live -= ref[i] != NULL;
			ref[i] = NULL;
		}
		if (k % 5000 == 0)
			agree(&m, ref, ids);
	}
	agree(&m, ref, ids);
	idmap_fini(&m);
}

static uint32_t
sequential(uint32_t i, uint64_t *s)
{
	(void)s;
	return (i + 1);
}

static uint32_t
spread(uint32_t i, uint64_t *s)
{
	/* Distinct, non-zero, otherwise random. */
	return ((rnd(s) & 0xfff00000u) | (i + 1));
}

/* Multiples of the table size all hash near each other. */
static uint32_t
strided(uint32_t i, uint64_t *s)
{
	(void)s;
	return ((i + 1) * 4096u);
}

static void
test_idmap_against_an_array(void **state)
{
	(void)state;
	run(sequential, IDS);
	run(spread, IDS);
	run(strided, IDS);
	/* Nearly full: long runs, every deletion shifts. */
	run(spread, 1000);
}

static void
test_idmap_limits(void **state)
{
	struct idmap m;
	int          x, rv = 0;
	uint32_t     id;

	(void)state;
	assert_int_equal(idmap_init(&m, 4), 0);
	assert_int_equal(idmap_put(&m, 0, &x), -EINVAL);
	assert_int_equal(idmap_put(&m, 1, NULL), -EINVAL);
	assert_null(idmap_get(&m, 0));
	assert_null(idmap_get(&m, 7));
	for (id = 1; id < 100 && rv == 0; id++)
		rv = idmap_put(&m, id, &x);
	assert_int_equal(rv, -ENOSPC);
	/* Full means one slot short of the table: lookups still end. */
	assert_int_equal(m.n, m.mask);
	assert_null(idmap_get(&m, 1000));
	assert_ptr_equal(idmap_get(&m, 1), &x);
	/* Replacing needs no room. */
	assert_int_equal(idmap_put(&m, 1, &rv), 0);
	assert_ptr_equal(idmap_get(&m, 1), &rv);
	idmap_fini(&m);
	idmap_fini(&m); /* twice is harmless */
	assert_null(idmap_get(&m, 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_idmap_against_an_array),
	    cmocka_unit_test(test_idmap_limits),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

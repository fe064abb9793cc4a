/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch's user accounts (emu_user.h).  Passwords are kept as SHA-512
 * crypt(3) hashes, so the state file holds no password a reader could
 * use elsewhere.
 */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "testbed/ocs-emu/emu_user.h"

static int
chars_ok(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	return (n >= min && n <= max &&
	        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                  "abcdefghijklmnopqrstuvwxyz0123456789._-") == n);
}

int
emu_user_name_ok(const char *s)
{
	return (chars_ok(s, 1, EMU_USER_MAX));
}

int
emu_user_pass_ok(const char *s)
{
	return (chars_ok(s, 0, EMU_PASS_MAX));
}

static const char *const priv_names[] = {
    [EMU_PRIV_VIEW] = "VIEW",
    [EMU_PRIV_USER] = "USER",
    [EMU_PRIV_ADMIN] = "ADMIN",
};

const char *
emu_priv_name(enum emu_priv p)
{
	return (p >= EMU_PRIV_VIEW && p <= EMU_PRIV_ADMIN ? priv_names[p]
	                                                  : "NONE");
}

int
emu_priv_parse(const char *s, enum emu_priv *p)
{
	int i;

	for (i = EMU_PRIV_VIEW; i <= EMU_PRIV_ADMIN; i++)
		if (strcasecmp(s, priv_names[i]) == 0) {
			*p = (enum emu_priv)i;
			return (0);
		}
	return (-EINVAL);
}

/* crypt(3) of pass with setting (a fresh salt, or the stored hash to
 * compare with) into out: 0, -ENOMEM or -EINVAL. */
static int
hash_with(const char *pass, const char *setting, char *out, size_t len)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char        *h;
	int                rv = 0;

	if (cd == NULL)
		return (-ENOMEM);
	h = crypt_r(pass, setting, cd);
	if (h == NULL || h[0] == '*' || strlen(h) >= len)
		rv = -EINVAL;
	else
		memcpy(out, h, strlen(h) + 1);
	free(cd);
	return (rv);
}

int
emu_user_set_pass(struct emu_user *u, const char *pass)
{
	static const char b64[] = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                          "abcdefghijklmnopqrstuvwxyz";
	unsigned char     rnd[16];
	char              setting[64];
	size_t            i;

	if (!emu_user_pass_ok(pass))
		return (-EINVAL);
	if (pass[0] == '\0') {
		u->hash[0] = '\0';
		return (0);
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return (-EIO);
	/* A thousand rounds: logins are frequent and local. */
	i = (size_t)snprintf(setting, sizeof(setting), "$6$rounds=1000$");
	for (size_t k = 0; k < sizeof(rnd); k++)
		setting[i++] = b64[rnd[k] & 63];
	setting[i++] = '$';
	setting[i] = '\0';
	return (hash_with(pass, setting, u->hash, sizeof(u->hash)));
}

struct emu_user *
emu_users_find(struct emu_users *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return (&t->v[i]);
	return (NULL);
}

struct emu_user *
emu_users_find_orig(struct emu_users *t, const char *orig)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].orig, orig) == 0)
			return (&t->v[i]);
	return (NULL);
}

int
emu_users_add(struct emu_users *t, const char *name, const char *pass,
              enum emu_priv priv)
{
	struct emu_user u;
	int             rv;

	if (!emu_user_name_ok(name) || priv < EMU_PRIV_VIEW ||
	    priv > EMU_PRIV_ADMIN)
		return (-EINVAL);
	if (emu_users_find(t, name) != NULL)
		return (-EEXIST);
	if (t->n == EMU_USERS_MAX)
		return (-ENOSPC);
	memset(&u, 0, sizeof(u));
	snprintf(u.name, sizeof(u.name), "%s", name);
	snprintf(u.orig, sizeof(u.orig), "%s", name);
	u.priv = priv;
	if ((rv = emu_user_set_pass(&u, pass)) != 0)
		return (rv);
	t->v[t->n++] = u;
	return (0);
}

int
emu_users_del(struct emu_users *t, const char *name)
{
	struct emu_user *u = emu_users_find(t, name);
	size_t           i;

	if (u == NULL)
		return (-ENOENT);
	i = (size_t)(u - t->v);
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(t->v[0]));
	t->n--;
	return (0);
}

int
emu_users_auth(struct emu_users *t, const char *name, const char *pass)
{
	struct emu_user *u = emu_users_find(t, name);
	char             h[EMU_HASH_MAX];

	if (u == NULL || !emu_user_pass_ok(pass))
		return (-EACCES);
	if (u->hash[0] == '\0')
		return (pass[0] == '\0' ? (int)u->priv : -EACCES);
	if (hash_with(pass, u->hash, h, sizeof(h)) != 0 ||
	    strcmp(h, u->hash) != 0)
		return (-EACCES);
	return ((int)u->priv);
}

int
emu_user_fmt(const struct emu_user *u, char *buf, size_t len)
{
	int n = snprintf(buf, len, "user %s %s %s %s", u->name,
	                 emu_priv_name(u->priv), u->hash[0] ? u->hash : "-",
	                 u->orig);

	return (n < 0 || (size_t)n >= len ? -ENOSPC : 0);
}

int
emu_users_parse(struct emu_users *t, const char *line)
{
	struct emu_user u;
	char            name[64], cls[16], hash[EMU_HASH_MAX], orig[64];

	memset(&u, 0, sizeof(u));
	if (sscanf(line, "user %63s %15s %127s %63s", name, cls, hash, orig) !=
	        4 ||
	    !emu_user_name_ok(name) || !emu_user_name_ok(orig) ||
	    emu_priv_parse(cls, &u.priv) != 0 ||
	    (strcmp(hash, "-") != 0 && hash[0] != '$') ||
	    emu_users_find(t, name) != NULL || t->n == EMU_USERS_MAX)
		return (-EINVAL);
	snprintf(u.name, sizeof(u.name), "%s", name);
	snprintf(u.orig, sizeof(u.orig), "%s", orig);
	if (strcmp(hash, "-") != 0)
		snprintf(u.hash, sizeof(u.hash), "%s", hash);
	t->v[t->n++] = u;
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch's user accounts, one table for every face that logs users
 * in (TL1 and TL1 over SSH today, NETCONF later): names, a password kept
 * only as its crypt(3) hash, and an access class.  Pure: no I/O, no
 * locking (the caller holds the emulator's mutex), no protocol; the
 * state file keeps the table as "user" lines (emu_users_fmt/_parse).
 */
#ifndef OCS_EMU_USER_H
#define OCS_EMU_USER_H

#include <stddef.h>

#define EMU_USER_MAX  20  /* characters of a user name */
#define EMU_PASS_MAX  32  /* characters of a password */
#define EMU_USERS_MAX 64  /* accounts a switch holds */
#define EMU_HASH_MAX  128 /* a crypt(3) hash, "" for no password */

/* Access classes, each allowing what the one below it does. */
enum emu_priv {
	EMU_PRIV_NONE = 0, /* nobody logged in */
	EMU_PRIV_VIEW,     /* retrieve only */
	EMU_PRIV_USER,     /* and change ports, patches, labels */
	EMU_PRIV_ADMIN,    /* and users, the system, its clock */
};

struct emu_user {
	char          name[EMU_USER_MAX + 1];
	char          orig[EMU_USER_MAX + 1]; /* the name it was entered as */
	char          hash[EMU_HASH_MAX];
	enum emu_priv priv;
};

struct emu_users {
	struct emu_user v[EMU_USERS_MAX];
	size_t          n;
};

/* A name: letters, digits, '.', '_' and '-', 1..EMU_USER_MAX of them. */
int emu_user_name_ok(const char *);
/* A password: the same characters, 0..EMU_PASS_MAX ("" is none). */
int emu_user_pass_ok(const char *);

/* "ADMIN", "USER", "VIEW"; and back, any case: 0 or -EINVAL. */
const char *emu_priv_name(enum emu_priv);
int         emu_priv_parse(const char *, enum emu_priv *);

/* Add an account.  0, -EEXIST (the name is taken), -EINVAL (a bad name,
 * password or class), -ENOSPC (the table is full), -ENOMEM. */
int emu_users_add(struct emu_users *, const char *name, const char *pass,
                  enum emu_priv);
/* 0 or -ENOENT. */
int              emu_users_del(struct emu_users *, const char *name);
struct emu_user *emu_users_find(struct emu_users *, const char *name);
/* The account as an earlier name of it (see orig), or NULL. */
struct emu_user *emu_users_find_orig(struct emu_users *, const char *orig);
/* The password of an account: 0, -EINVAL (bad password), -ENOMEM. */
int emu_user_set_pass(struct emu_user *, const char *pass);
/* Do name and password open an account?  Its class, or -EACCES (no such
 * account, or the wrong password: the same answer for both). */
int emu_users_auth(struct emu_users *, const char *name, const char *pass);

/* The state file's line for an account, "user NAME CLASS HASH|- ORIG"
 * without a newline. */
int emu_user_fmt(const struct emu_user *, char *buf, size_t len);
/* One such line into the table: 0, or -EINVAL for a line that is not. */
int emu_users_parse(struct emu_users *, const char *line);

#endif

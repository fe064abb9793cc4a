/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Polatis dialect's sessions and users: ACT-/CANC-USER, ENT-, ED-,
 * DLT- and RTRV-USER-SECU, ED-SECU-PID, RTRV-USER, on the switch's one
 * account table (emu_user.h).  The replies and codes are those the
 * vendor's TL1 regression suite expects (testbed/ocs-emu/PROTOCOLS.md);
 * every other verb's class is checked by the dispatcher.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/log.h"
#include "testbed/ocs-emu/emu_tl1_int.h"

#define NOT_ADMIN "User not in the admin group"

void
emu_tl1_denied(struct srv *sv, struct sess *s, const struct tl1_cmd *c)
{
	deny(sv, s, c->ctag, "PICC", "Permission denied");
}

/* Field i (from 0) of a comma list, copied into buf ("" past the end). */
static const char *
field(const char *list, size_t i, char *buf, size_t len)
{
	const char *p = list ? list : "";
	size_t      n;

	for (; i > 0 && p; i--)
		if ((p = strchr(p, ',')) != NULL)
			p++;
	n = p ? strcspn(p, ",") : 0;
	snprintf(buf, len, "%.*s", (int)(n >= len ? len - 1 : n), p ? p : "");
	return (buf);
}

static const char *
blk1(const struct tl1_cmd *c)
{
	return (c->nblk >= 2 ? c->blk[1] : "");
}

static void
changed(struct srv *sv)
{
	sv->e->x.gen++; /* the state file keeps the users */
	persist(sv);
}

/*
 * ACT-USER::u:c::pw; logs in, also over a session already logged in (as
 * another user: it becomes theirs).  A missing password block is an
 * empty password; an empty one is IPMS.
 */
static void
cmd_act_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	const char *pw = c->nblk >= 2 ? c->blk[1] : "";
	int         priv, again;

	if (c->aid[0] == '\0') {
		deny(sv, s, c->ctag, "IIAC", "Too few parameters (0/1)");
		return;
	}
	if (c->nblk >= 2 && pw[0] == '\0') {
		deny(sv, s, c->ctag, "IPMS",
		     "Too few parameters (0/1) in block 1");
		return;
	}
	priv = emu_users_auth(&sv->e->users, c->aid, pw);
	if (priv < 0 || sv->e->fault.refuse_login) {
		log_info("tl1[%u]: login as \"%.40s\" refused", s->id, c->aid);
		deny(sv, s, c->ctag, "PICC", "Permission denied");
		return;
	}
	again = s->logged_in && strcmp(s->user, c->aid) == 0;
	s->logged_in = 1;
	s->priv = (enum emu_priv)priv;
	snprintf(s->user, sizeof(s->user), "%s", c->aid);
	respond(sv, s, c->ctag, TL1_COMPLD, NULL,
	        again ? "Already logged in" : NULL, NULL, 0);
}

/* CANC-USER::u:c; logs out and keeps the connection.  u is the user
 * logged in, or the name that account had when it logged in. */
static void
cmd_canc_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_user *u = emu_users_find(&sv->e->users, s->user);

	if (strcmp(c->aid, s->user) != 0 &&
	    (u == NULL || strcmp(c->aid, u->orig) != 0)) {
		deny(sv, s, c->ctag, "PICC", "Permission denied");
		return;
	}
	/* OPR-ARC-EQPT's choice stays with the connection. */
	compld(sv, s, c->ctag, NULL);
	s->logged_in = 0;
	s->priv = EMU_PRIV_NONE;
	s->user[0] = '\0';
}

/* A class field: "" is the default (USER); 0, or -EINVAL answered. */
static int
class_of(struct srv *sv, struct sess *s, const struct tl1_cmd *c,
         const char *v, enum emu_priv *p)
{
	if (v[0] == '\0') {
		*p = EMU_PRIV_USER;
		return (0);
	}
	if (emu_priv_parse(v, p) == 0)
		return (0);
	deny(sv, s, c->ctag, "IPNV", "Invalid user access privilege");
	return (-EINVAL);
}

/* ENT-USER-SECU::u:c::pw,,class; (admins only). */
static void
cmd_ent_user_secu(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	char          pw[64], cls[16];
	enum emu_priv p;
	int           rv;

	if (s->priv < EMU_PRIV_ADMIN) {
		emu_tl1_denied(sv, s, c);
		return;
	}
	field(blk1(c), 0, pw, sizeof(pw));
	if (!emu_user_name_ok(c->aid) || !emu_user_pass_ok(pw)) {
		emu_tl1_denied(sv, s, c);
		return;
	}
	if (class_of(sv, s, c, field(blk1(c), 2, cls, sizeof(cls)), &p) != 0)
		return;
	rv = emu_users_add(&sv->e->users, c->aid, pw, p);
	if (rv == -EEXIST)
		deny(sv, s, c->ctag, "IDNV", "User exists");
	else if (rv == -ENOSPC)
		deny(sv, s, c->ctag, "SROF", "Too many users");
	else if (rv != 0)
		deny(sv, s, c->ctag, "SROF", "%s", strerror(-rv));
	else {
		log_info("tl1[%u]: %s added user %s (%s)", s->id, s->user,
		         c->aid, emu_priv_name(p));
		changed(sv);
		compld(sv, s, c->ctag, NULL);
	}
}

/*
 * ED-USER-SECU::u:c::name,pw,,class; every field is written: an empty
 * name keeps the name, an empty password is none, an empty class the
 * default (the suite's "change password as empty string").  Admins
 * only.
 */
static void
cmd_ed_user_secu(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_user *u, *o, nu;
	char             nm[64], pw[64], cls[16];
	enum emu_priv    p;

	if (s->priv < EMU_PRIV_ADMIN) {
		emu_tl1_denied(sv, s, c);
		return;
	}
	if ((u = emu_users_find(&sv->e->users, c->aid)) == NULL) {
		deny(sv, s, c->ctag, "IDNV", "User does not exist");
		return;
	}
	field(blk1(c), 0, nm, sizeof(nm));
	field(blk1(c), 1, pw, sizeof(pw));
	if ((nm[0] && !emu_user_name_ok(nm)) || !emu_user_pass_ok(pw)) {
		emu_tl1_denied(sv, s, c);
		return;
	}
	if (class_of(sv, s, c, field(blk1(c), 3, cls, sizeof(cls)), &p) != 0)
		return;
	if (nm[0] && (o = emu_users_find(&sv->e->users, nm)) != NULL &&
	    o != u) {
		deny(sv, s, c->ctag, "IDNV", "User exists");
		return;
	}
	/* Made on a copy: a refusal changes nothing. */
	nu = *u;
	nu.priv = p;
	if (emu_user_set_pass(&nu, pw) != 0) {
		deny(sv, s, c->ctag, "SROF", "Cannot set the password");
		return;
	}
	if (nm[0])
		snprintf(nu.name, sizeof(nu.name), "%.*s", EMU_USER_MAX, nm);
	*u = nu;
	changed(sv);
	compld(sv, s, c->ctag, NULL);
}

/* DLT-USER-SECU::u:c; (admins only). */
static void
cmd_dlt_user_secu(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (s->priv < EMU_PRIV_ADMIN) {
		deny(sv, s, c->ctag, "PICC", NOT_ADMIN);
		return;
	}
	if (emu_users_del(&sv->e->users, c->aid) != 0) {
		deny(sv, s, c->ctag, "IDNV", "User does not exist");
		return;
	}
	log_info("tl1[%u]: %s deleted user %s", s->id, s->user, c->aid);
	changed(sv);
	compld(sv, s, c->ctag, NULL);
}

/* An account's line, "name,CLASS": not quoted, as the suite splits the
 * reply on blanks and takes what is before the first comma. */
static void
user_line(struct lines *l, const struct emu_user *u)
{
	addl(l, "%c%s,%s", TL1_LINE_RAW, u->name, emu_priv_name(u->priv));
}

/* RTRV-USER-SECU::[u]:c; every account, or one; others than your own
 * are for admins. */
static void
cmd_rtrv_user_secu(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines     l = {0};
	struct emu_user *u = NULL;
	size_t           i;

	if (s->priv < EMU_PRIV_ADMIN && strcmp(c->aid, s->user) != 0) {
		deny(sv, s, c->ctag, "SRCN", NOT_ADMIN);
		return;
	}
	if (c->aid[0] && (u = emu_users_find(&sv->e->users, c->aid)) == NULL) {
		deny(sv, s, c->ctag, "IDNV", "User does not exist");
		return;
	}
	for (i = 0; i < sv->e->users.n; i++)
		if (u == NULL || u == &sv->e->users.v[i])
			user_line(&l, &sv->e->users.v[i]);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* RTRV-USER:::c; the session's own account. */
static void
cmd_rtrv_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines     l = {0};
	struct emu_user *u = emu_users_find(&sv->e->users, s->user);

	if (u != NULL)
		user_line(&l, u);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* ED-SECU-PID::u:c::old,new; a password changed by one who knows it
 * (your own, or any for an admin). */
static void
cmd_ed_secu_pid(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_user *u;
	char             old[64], pw[64];
	const char      *who = c->aid[0] ? c->aid : s->user;

	field(blk1(c), 0, old, sizeof(old));
	field(blk1(c), 1, pw, sizeof(pw));
	if ((s->priv < EMU_PRIV_ADMIN && strcmp(who, s->user) != 0) ||
	    (u = emu_users_find(&sv->e->users, who)) == NULL ||
	    emu_users_auth(&sv->e->users, who, old) < 0 ||
	    emu_user_set_pass(u, pw) != 0) {
		emu_tl1_denied(sv, s, c);
		return;
	}
	changed(sv);
	compld(sv, s, c->ctag, NULL);
}

const struct emu_tl1_verb emu_tl1_secu_verbs[] = {
    {"ACT-USER", 0, cmd_act_user},
    {"CANC-USER", EMU_PRIV_VIEW, cmd_canc_user},
    {"ENT-USER-SECU", EMU_PRIV_VIEW, cmd_ent_user_secu},
    {"ED-USER-SECU", EMU_PRIV_VIEW, cmd_ed_user_secu},
    {"DLT-USER-SECU", EMU_PRIV_VIEW, cmd_dlt_user_secu},
    {"RTRV-USER-SECU", EMU_PRIV_VIEW, cmd_rtrv_user_secu},
    {"RTRV-USER", EMU_PRIV_VIEW, cmd_rtrv_user},
    {"ED-SECU-PID", EMU_PRIV_VIEW, cmd_ed_secu_pid},
};
const size_t emu_tl1_secu_nverbs =
    sizeof(emu_tl1_secu_verbs) / sizeof(emu_tl1_secu_verbs[0]);

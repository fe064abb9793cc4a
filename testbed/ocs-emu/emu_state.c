/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The emulator's state file: what a switch keeps across a power cycle.
 *
 *	# ocs-emu state
 *	size 64
 *	boot restore
 *	sid OCS-EMU
 *	user admin ADMIN $6$rounds=1000$salt$hash admin
 *	patch 1 65
 *	conn 1 1 uni active Quali lab_a
 *
 * A conn line keeps what a CALIENT client gave a connection (its name,
 * group, and whether it is only provisioned); "-" is none.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu.h"

/* "conn A B bi|uni active|idle GROUP NAME" into the registry. */
static int
conn_line(struct emu *e, const char *line, char *err, size_t errlen,
          unsigned lineno)
{
	struct emu_conn c = {0};
	char            dir[8], st[8], grp[REST_CONN_MAX], nm[REST_CONN_MAX];

	if (sscanf(line, "conn %u %u %7s %7s %63s %63s", &c.a, &c.b, dir, st,
	           grp, nm) != 6 ||
	    c.a < 1 || c.a > e->x.n || c.b < 1 || c.b > e->x.n ||
	    (strcmp(dir, "bi") && strcmp(dir, "uni")) ||
	    (strcmp(st, "active") && strcmp(st, "idle")) ||
	    (strcmp(grp, "-") && !rest_cname_ok(grp)) ||
	    (strcmp(nm, "-") && !rest_cname_ok(nm)) || e->conns.n >= e->x.n) {
		snprintf(err, errlen, "%s:%u: cannot parse \"%.*s\"",
		         e->c.state, lineno, (int)strcspn(line, "\n"), line);
		return (-EINVAL);
	}
	c.bi = strcmp(dir, "bi") == 0;
	c.active = strcmp(st, "active") == 0;
	if (strcmp(grp, "-"))
		memcpy(c.group, grp, strlen(grp) + 1);
	if (strcmp(nm, "-"))
		memcpy(c.name, nm, strlen(nm) + 1);
	e->conns.v[e->conns.n++] = c;
	return (0);
}

int
emu_state_load(struct emu *e, char *err, size_t errlen)
{
	struct drv_patch *p = NULL;
	struct oxc_err    oe;
	char              line[512], word[32], arg[128];
	unsigned          a, b, lineno = 0;
	size_t            np = 0;
	FILE             *f;
	int               rv = 0, boot = -1, users = 0;

	if ((f = fopen(e->c.state, "re")) == NULL) {
		if (errno == ENOENT)
			return (-ENOENT);
		snprintf(err, errlen, "%s: %s", e->c.state, strerror(errno));
		return (-EINVAL);
	}
	if ((p = calloc(e->x.n, sizeof(*p))) == NULL) {
		fclose(f);
		return (-ENOMEM);
	}
	while (rv == 0 && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%31s", word) != 1)
			continue;
		if (strcmp(word, "size") == 0 &&
		    sscanf(line, "size %u", &a) == 1) {
			if (a != e->x.n) {
				snprintf(err, errlen,
				         "%s:%u: size %u, but --ports is %u",
				         e->c.state, lineno, a, e->x.n);
				rv = -EINVAL;
			}
		} else if (strcmp(word, "boot") == 0 &&
		           sscanf(line, "boot %127s", arg) == 1 &&
		           (strcmp(arg, "dark") == 0 ||
		            strcmp(arg, "restore") == 0)) {
			boot = strcmp(arg, "restore") == 0 ? OXC_BOOT_RESTORE
			                                   : OXC_BOOT_DARK;
		} else if (strcmp(word, "sid") == 0 &&
		           sscanf(line, "sid %63[^\n]", arg) == 1) {
			memcpy(e->sid, arg, strlen(arg) + 1); /* blanks too */
		} else if (strcmp(word, "user") == 0) {
			/* The file's accounts replace the --user one. */
			if (!users++)
				e->users.n = 0;
			if (emu_users_parse(&e->users, line) != 0) {
				snprintf(err, errlen,
				         "%s:%u: cannot parse a user line",
				         e->c.state, lineno);
				rv = -EINVAL;
			}
		} else if (strcmp(word, "conn") == 0) {
			rv = conn_line(e, line, err, errlen, lineno);
		} else if (strcmp(word, "patch") == 0 &&
		           sscanf(line, "patch %u %u", &a, &b) == 2 &&
		           np < e->x.n) {
			p[np].in = (uint16_t)a;
			p[np++].out = (uint16_t)b;
		} else {
			snprintf(err, errlen, "%s:%u: cannot parse \"%.*s\"",
			         e->c.state, lineno, (int)strcspn(line, "\n"),
			         line);
			rv = -EINVAL;
		}
	}
	fclose(f);
	if (rv == 0 && boot >= 0)
		e->x.boot = (enum oxc_boot)boot;
	if (rv == 0 && e->x.boot == OXC_BOOT_RESTORE && np > 0 &&
	    oxc_connect(&e->x, p, np, 0, &oe) != 0) {
		snprintf(err, errlen, "%s: patch on port %u is invalid",
		         e->c.state, oe.port);
		rv = -EINVAL;
	}
	free(p);
	e->saved_gen = e->x.gen;
	e->conns.synced = e->x.gen + 1; /* agree them with the patches */
	return (rv);
}

int
emu_state_save(struct emu *e)
{
	char     tmp[PATH_MAX + 8], dir[PATH_MAX];
	FILE    *f;
	uint32_t in;
	size_t   i;
	int      fd, rv = 0;

	if (e->c.state[0] == '\0')
		return (0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", e->c.state);
	/* It holds the users' password hashes: for our eyes only. */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) <
	    0)
		return (-errno);
	if ((f = fdopen(fd, "w")) == NULL) {
		rv = -errno;
		close(fd);
		unlink(tmp);
		return (rv);
	}
	fprintf(f, "# ocs-emu state\nsize %u\nboot %s\nsid %s\n", e->x.n,
	        e->x.boot == OXC_BOOT_RESTORE ? "restore" : "dark", e->sid);
	for (i = 0; i < e->users.n; i++) {
		char ul[256];

		if (emu_user_fmt(&e->users.v[i], ul, sizeof(ul)) == 0)
			fprintf(f, "%s\n", ul);
	}
	for (in = 1; in <= e->x.n; in++)
		if (e->x.out_of[in])
			fprintf(f, "patch %u %u\n", in, e->x.out_of[in]);
	emu_conn_sync(e);
	for (i = 0; i < e->conns.n; i++) {
		const struct emu_conn *c = &e->conns.v[i];

		if (c->name[0] || c->group[0] || !c->active)
			fprintf(f, "conn %u %u %s %s %s %s\n", c->a, c->b,
			        c->bi ? "bi" : "uni",
			        c->active ? "active" : "idle",
			        c->group[0] ? c->group : "-",
			        c->name[0] ? c->name : "-");
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		rv = -errno;
	if (fclose(f) != 0 && rv == 0)
		rv = -errno;
	if (rv == 0 && rename(tmp, e->c.state) != 0)
		rv = -errno;
	if (rv != 0) {
		unlink(tmp);
		return (rv);
	}
	snprintf(dir, sizeof(dir), "%s", e->c.state);
	if ((fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >=
	    0) {
		fsync(fd);
		close(fd);
	}
	e->saved_gen = e->x.gen;
	return (0);
}

int
emu_model_init(struct emu *e)
{
	size_t n = 2 * (size_t)e->c.ports + 1, i;

	if (oxc_init(&e->x, e->c.ports, e->c.switch_ns) != 0)
		return (-ENOMEM);
	e->cnt_in = calloc(n, sizeof(*e->cnt_in));
	e->cnt_out = calloc(n, sizeof(*e->cnt_out));
	e->cnt_drop = calloc(n, sizeof(*e->cnt_drop));
	e->corrupt = calloc(n, sizeof(*e->corrupt));
	e->port = calloc(n, sizeof(*e->port));
	if (!e->cnt_in || !e->cnt_out || !e->cnt_drop || !e->corrupt ||
	    !e->port || rest_names_default(&e->names, e->c.ports) != 0 ||
	    emu_conn_init(e) != 0) {
		emu_model_free(e);
		return (-ENOMEM);
	}
	/* The --user account is the first admin; a state file's users
	 * replace it. */
	if (e->c.user[0] && emu_users_add(&e->users, e->c.user, e->c.password,
	                                  EMU_PRIV_ADMIN) != 0) {
		emu_model_free(e);
		return (-EINVAL);
	}
	for (i = 0; i < n; i++) {
		e->port[i].wave = e->port[i].rwave = 1550;
		e->port[i].atime = e->port[i].ratime = 1;
		e->port[i].th[0] = -40; /* LOS */
		e->port[i].th[1] = -30; /* LOW */
		e->port[i].th[2] = 10;  /* HIGH */
	}
	return (0);
}

void
emu_model_free(struct emu *e)
{
	oxc_free(&e->x);
	free(e->link_ns);
	e->link_ns = NULL;
	free(e->cnt_in);
	free(e->cnt_out);
	free(e->cnt_drop);
	free(e->corrupt);
	free(e->port);
	rest_names_free(&e->names);
	emu_conn_free(e);
	e->cnt_in = e->cnt_out = e->cnt_drop = NULL;
	e->corrupt = NULL;
	e->port = NULL;
}

int
emu_label_ok(const char *v)
{
	size_t i;

	if (strlen(v) > EMU_LABEL_MAX)
		return (0);
	for (i = 0; v[i]; i++)
		if ((unsigned char)v[i] < 0x20 ||
		    (unsigned char)v[i] >= 0x7f ||
		    strchr("\"\\:;,&", v[i]) != NULL)
			return (0);
	return (1);
}

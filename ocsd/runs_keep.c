/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's records of its runs (runs.h's hooks): each run's report kept
 * when it ends, the intent a run leaves before it changes the switch
 * (with the record it would be if ocsd stopped then), and at start a run
 * the last ocsd left in progress recorded as interrupted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ocsd.h"
#include "ocsd/reply.h"
#include "ocsd/run.h"
#include "ocsd/runs.h"
#include "proto/base/log.h"
#include "proto/base/path.h"

void
runs_keep(void *arg, const struct run_report *rep, const char *aborted)
{
	struct ocsd *d = arg;
	json_t      *j;
	int          rv;

	if (d->runs_path[0] == '\0')
		return;
	if ((j = reply_run_json(rep, aborted)) == NULL)
		rv = -ENOMEM;
	else
		rv = d->runs_ix ? runs_index_append(d->runs_ix, j)
		                : runs_append(d->runs_path, j);
	json_decref(j);
	if (rv != 0)
		log_warnx("run %llu: keeping its report in %s: %s",
		          (unsigned long long)rep->id, d->runs_path,
		          strerror(-rv));
}

#define INTERRUPTED                                                           \
	"interrupted: ocsd stopped during the run (recorded at "              \
	"its restart)"

int
runs_intent(void *arg, const struct run_report *rep, char *err, size_t len)
{
	struct ocsd *d = arg;
	json_t      *j = reply_run_json(rep, INTERRUPTED);
	char        *rec = j ? json_dumps(j, JSON_COMPACT) : NULL, *buf = NULL;
	int          n, rv = -ENOMEM;

	json_decref(j);
	/* The record is a convenience; the intent is what matters. */
	n = asprintf(&buf,
	             "# ocsd: run %llu in progress; on a restart the desired "
	             "map is restored\nrun %llu\n%s%s",
	             (unsigned long long)rep->id, (unsigned long long)rep->id,
	             rec && strlen(rec) < RUNS_LINE_MAX ? rec : "",
	             rec && strlen(rec) < RUNS_LINE_MAX ? "\n" : "");
	if (n > 0)
		rv =
		    path_write_atomic(d->run_state_path, buf, (size_t)n, 0640);
	free(rec);
	free(buf);
	if (rv != 0) {
		snprintf(err, len, "saving the run's intent to %.300s: %s",
		         d->run_state_path, strerror(-rv));
		return (-OCSD_ESTATE);
	}
	return (0);
}

void
runs_recover(struct ocsd *d)
{
	json_t *j = NULL, *all = NULL;
	char   *text = NULL, *rec, why[300];
	size_t  len, cut;
	int     rv;

	if ((rv = runs_repair(d->runs_path, &cut)) != 0)
		log_warnx("%s: %s", d->runs_path, strerror(-rv));
	else if (cut > 0)
		log_warnx("%s: a torn last record (%zu bytes, a crash while "
		          "it was written) cut",
		          d->runs_path, cut);
	if (path_read(d->run_state_path, RUNS_LINE_MAX, &text, &len, why,
	              sizeof(why)) != 0)
		return;
	if ((rec = strstr(text, "\n{")) != NULL &&
	    (j = json_loads(rec + 1, JSON_DISABLE_EOF_CHECK, NULL)) != NULL &&
	    json_is_integer(json_object_get(j, "run_id"))) {
		uint64_t id =
		    (uint64_t)json_integer_value(json_object_get(j, "run_id"));

		/* Recorded already when it ended (ocsd stopped after). */
		if (runs_read(d->runs_path, id, &all, why, sizeof(why)) ==
		    -ENOENT) {
			rv = runs_append(d->runs_path, j);
			log_warnx(
			    "run %llu was in progress when ocsd stopped: "
			    "%s",
			    (unsigned long long)id,
			    rv == 0 ? "recorded as interrupted"
			            : strerror(-rv));
		} else
			json_decref(all);
	}
	json_decref(j);
	free(text);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's output, after bgpctl's struct output: one implementation per
 * format, the text tables (ocsctl_text.c) and JSON for -j
 * (ocsctl_json.c), chosen once; each command names what its reply is.
 */
#ifndef OCS_OCSCTL_H
#define OCS_OCSCTL_H

#include "proto/msg.h"

enum out_kind {
	OUT_SHOW,    /* switch, circuits, patches, cabling */
	OUT_STATUS,  /* switch and map state */
	OUT_DIFF,    /* what differs between switch and desired map */
	OUT_AGENTS,  /* the joined agents */
	OUT_MESSAGE, /* what a change did */
	OUT_REPORT,  /* a run's report */
	OUT_NKINDS
};

/* Each prints a reply to stdout: 0, or 1 after an error on stderr. */
struct output {
	int (*print[OUT_NKINDS])(const Ocs__CtlReply *);
	/* An error the command ends with, in the format asked for (JSON
	 * also keeps the line on stderr). */
	void (*error)(const char *msg);
};

extern const struct output output_text, output_json;

/* "ocsctl: " and the message on stderr; returns 1. */
int ocsctl_fail(const char *fmt, ...)
    __attribute__((__format__(printf, 1, 2)));

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CALIENT's TL1 data lines (the calient-tl1 driver's codec).  Pure: a
 * line of a COMPLD reply (quotes already removed by tl1.c) in, a struct
 * out, every field checked, a refusal one line naming the field.  The
 * shapes are an S162's (SW 6.0-3) as Quali's driver tests show them:
 *
 *   RTRV-PORT     1.1.1:WX,NONE,NONE:INAS=OOS-NP,INOS=OOS,INOC=OK,...
 *   RTRV-PORT-SUM 1.1.1:ALIAS=NONE,INPWR=NONE,OUTPWR=NONE,
 *                 CONNNAME1=1.1.1>1.1.2,CONNSTATE1=ACT,CONNNAME2=NONE,...
 *   RTRV-CRS      2.3.6-3.2.5:SRCPORT=2.3.6,DSTPORT=3.2.5,GRPNAME=DSTRAUB,
 *                 CONNNAME=2.3.6-3.2.5,CONNTYPE=2WAY,AS=UMA,OS=RDY,OC=OK,..
 */
#ifndef OCS_CAL_TL1_H
#define OCS_CAL_TL1_H

#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/rest.h"

/* RTRV-PORT: the port's name, and whether a half says FAIL/NOHW. */
int cal_tl1_port(const char *line, char *name, size_t len, int *fail,
                 char *err, size_t errlen);

/* RTRV-CRS: one connection of this switch. */
struct cal_tl1_crs {
	struct rest_xc x;
	int            active; /* OS=RDY: it carries light */
	int            fail;   /* OC=FAIL */
	char           name[REST_CONN_MAX];
	char           group[REST_CONN_MAX];
};
int cal_tl1_crs(const char *line, const struct rest_names *,
                struct cal_tl1_crs *, char *err, size_t errlen);

/* RTRV-PORT-SUM: the port and its halves' power (dBm, -90 for NONE). */
int cal_tl1_sum(const char *line, const struct rest_names *, uint32_t *port,
                double *inpwr, double *outpwr, char *err, size_t errlen);

#endif

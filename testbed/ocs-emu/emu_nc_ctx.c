/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The YANG context of the NETCONF face: ietf-netconf and
 * ietf-netconf-monitoring as Debian ships them (libyuma-base), and the
 * Polatis optical-switch module as far as its clients show it.  The
 * module's text is ours, written from what ONOS's Polatis driver and
 * tcdona3's client send and parse (PROTOCOLS.md says which parts each
 * confirms); the vendor's own text is not public.
 */
#include <errno.h>
#include <stdio.h>

#include "testbed/ocs-emu/emu_nc.h"

/* The revision is the one ONOS's driver was generated from (its classes
 * are opticalswitch.rev20180322): ONOS reads it from the hello to pick
 * "pair" (2017-08-04 on) over the older "pairs". */
static const char optical_switch_yang[] =
    "module optical-switch {\n"
    "  namespace \"" EMU_NC_NS "\";\n"
    "  prefix opsw;\n"
    "  organization \"ocsd: ocs-emu\";\n"
    "  description\n"
    "    \"The parts of the Polatis optical-switch module that ONOS's\n"
    "     Polatis driver and tcdona3's client use, as ocs-emu serves\n"
    "     them; inferred from those clients, not the vendor's text.\";\n"
    "  revision 2018-03-22 {\n"
    "    description \"As ONOS's driver knows it.\";\n"
    "  }\n"
    "  typedef port-format {\n"
    "    type uint32 { range \"1..max\"; }\n"
    "  }\n"
    "  container product-information {\n"
    "    config false;\n"
    "    leaf manufacturer { type string; }\n"
    "    leaf serial-number { type string; }\n"
    "    leaf model-name { type string; }\n"
    "    leaf software-version { type string; }\n"
    "  }\n"
    "  container cross-connects {\n"
    "    list pair {\n"
    "      key \"ingress\";\n"
    "      leaf ingress { type port-format; }\n"
    "      leaf egress { type port-format; mandatory true; }\n"
    "    }\n"
    "  }\n"
    "  container port-config {\n"
    "    list port {\n"
    "      key \"port-id\";\n"
    "      leaf port-id { type port-format; }\n"
    "      leaf label { type string { length \"0..32\"; } }\n"
    "      leaf status {\n"
    "        config false;\n"
    "        type enumeration {\n"
    "          enum ENABLED;\n"
    "          enum DISABLED;\n"
    "          enum FAILED;\n"
    "        }\n"
    "      }\n"
    "      leaf peer-port { config false; type string; }\n"
    "    }\n"
    "  }\n"
    "  container voa {\n"
    "    list port {\n"
    "      key \"port-id\";\n"
    "      leaf port-id { type port-format; }\n"
    "      leaf atten-mode {\n"
    "        type enumeration {\n"
    "          enum VOA_MODE_NONE;\n"
    "          enum VOA_MODE_RELATIVE;\n"
    "          enum VOA_MODE_ABSOLUTE;\n"
    "          enum VOA_MODE_CONVERGED;\n"
    "          enum VOA_MODE_MAXIMUM;\n"
    "          enum VOA_MODE_FIXED;\n"
    "        }\n"
    "      }\n"
    "      leaf atten-level {\n"
    "        type decimal64 { fraction-digits 2; }\n"
    "        units dB;\n"
    "      }\n"
    "      leaf reference-port { type port-format; }\n"
    "    }\n"
    "  }\n"
    "  container opm-config {\n"
    "    list port {\n"
    "      key \"port-id\";\n"
    "      leaf port-id { type port-format; }\n"
    "      leaf wavelength {\n"
    "        type decimal64 { fraction-digits 2; }\n"
    "        units nm;\n"
    "      }\n"
    "      leaf offset {\n"
    "        type decimal64 { fraction-digits 2; }\n"
    "        units dB;\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  container opm-power {\n"
    "    config false;\n"
    "    list port {\n"
    "      key \"port-id\";\n"
    "      leaf port-id { type port-format; }\n"
    "      leaf power {\n"
    "        type decimal64 { fraction-digits 2; }\n"
    "        units dBm;\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

/* Its RPC to open and close port shutters, as tcdona3 calls it; in the
 * messages' context too, where RPCs are parsed. */
static const char polatis_switch_yang[] =
    "module polatis-switch {\n"
    "  namespace \"" EMU_NC_PLTS_NS "\";\n"
    "  prefix plts;\n"
    "  organization \"ocsd: ocs-emu\";\n"
    "  description\n"
    "    \"The shutter RPC of Polatis' polatis-switch module as tcdona3's\n"
    "     client calls it; inferred, not the vendor's text.\";\n"
    "  rpc port-shutter-set-state {\n"
    "    input {\n"
    "      leaf-list port-enab { type uint32 { range \"1..max\"; } }\n"
    "      leaf-list port-disab { type uint32 { range \"1..max\"; } }\n"
    "    }\n"
    "  }\n"
    "}\n";

static struct ly_ctx *
netconf_ctx(const char *dir, const char **what)
{
	static const char *nc_features[] = {"writable-running", NULL};
	struct ly_ctx     *ctx = NULL;

	*what = "the context";
	if (ly_ctx_new(dir, LY_CTX_NO_YANGLIBRARY, &ctx) != LY_SUCCESS)
		return (NULL);
	*what = "ietf-netconf";
	if (ly_ctx_load_module(ctx, "ietf-netconf", NULL, nc_features) == NULL)
		return (ctx);
	*what = "ietf-netconf-monitoring";
	if (ly_ctx_load_module(ctx, "ietf-netconf-monitoring", NULL, NULL) ==
	    NULL)
		return (ctx);
	*what = "polatis-switch";
	if (lys_parse_mem(ctx, polatis_switch_yang, LYS_IN_YANG, NULL) !=
	    LY_SUCCESS)
		return (ctx);
	*what = NULL;
	return (ctx);
}

int
emu_nc_ctx_new(const char *dir, struct ly_ctx **srv, struct ly_ctx **data,
               char *err, size_t len)
{
	const char    *what;
	struct ly_ctx *bad;

	*data = NULL;
	*srv = bad = netconf_ctx(dir, &what);
	if (what == NULL) {
		bad = *data;
		*data = bad = netconf_ctx(dir, &what);
		if (what == NULL &&
		    lys_parse_mem(*data, optical_switch_yang, LYS_IN_YANG,
		                  NULL) != LY_SUCCESS)
			what = "optical-switch";
	}
	if (what == NULL)
		return (0);
	snprintf(err, len,
	         "YANG: cannot load %s from %s: %s (is libyuma-base "
	         "installed?)",
	         what, dir,
	         bad == NULL              ? "out of memory"
	         : ly_errmsg(bad) == NULL ? "?"
	                                  : ly_errmsg(bad));
	ly_ctx_destroy(*srv);
	ly_ctx_destroy(*data);
	*srv = *data = NULL;
	return (-EINVAL);
}

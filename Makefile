# SPDX-License-Identifier: BSD-2-Clause
#
# The one build for everything (non-recursive).  Programs land in bin/,
# objects and test binaries under $(BUILD)/.
#
#   make          build every program
#   make test     unit, golden and integration tests; ends "N passed, N failed"
#   make check    the same under ASan+UBSan in build/san
#   make run      the demo (see README)
#   make run-fabric the demo on a fabric: two switches, a plane each
#   make run-netns the demo on the namespace testbed (root; FABRIC=1: two
#                  switches, a plane each)
#   make web      the demo testbed with its live view (ocs-web), until Ctrl-C
#   make bench    benchmarks, printed as tables
#   make fuzz     libFuzzer targets (clang), FUZZ_TIME seconds each
#   make deps     install missing Debian packages with apt-get
#   make memcheck the make run demo under valgrind
#   make soak     10,000 reconfigurations through each driver (not in CI)
#   make fmt lint clean
#
# Quiet unless V=1.

.SUFFIXES:
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

BUILD      ?= build
SAN        ?= 0
BIN        ?= $(if $(filter 1,$(SAN)),$(BUILD)/bin,bin)
PKG_CONFIG ?= pkg-config
FUZZ_TIME  ?= 30

# Objects stay even when only a pattern rule names them (test programs).
.PRECIOUS: $(BUILD)/%.o

# Debian packages the build, the tests and the demo need.
DEB_PKGS := gcc make libc6-dev pkg-config \
	libnng-dev libprotobuf-c-dev protobuf-c-compiler \
	libnl-3-dev libnl-route-3-dev libpcap-dev \
	libcmocka-dev libjansson-dev libinih-dev libssl-dev libsystemd-dev \
	libisal-dev libssh-dev libcrypt-dev libmicrohttpd-dev \
	libnetconf2-dev libyang2-dev libyuma-base python3-ncclient \
	valgrind curl openssl groff-base systemd iproute2 gnuplot-nox \
	libpng-dev chromium chromium-driver g++ libns3-dev

ifneq ($(shell command -v dpkg-query 2>/dev/null),)
DEPS_HAVE := $(shell dpkg-query -W -f='$${db:Status-Abbrev} $${Package}\n' \
	$(DEB_PKGS) 2>/dev/null | awk '$$1 == "ii" { print $$2 }')
DEPS_MISSING := $(strip $(filter-out $(DEPS_HAVE),$(DEB_PKGS)))
endif

.PHONY: deps
deps:
	@missing="$(DEPS_MISSING)"; \
	if [ -z "$$missing" ]; then echo "deps: all installed"; exit 0; fi; \
	echo "deps: installing $$missing"; \
	sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
		--no-install-recommends $$missing

ifneq ($(DEPS_MISSING),)
# Install first, then start again with the real rules (flags come from
# pkg-config, which needs the packages).
.NOTPARALLEL:
GOALS := $(filter-out deps clean,$(or $(MAKECMDGOALS),all))
$(GOALS):
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory $@
else

ifeq ($(V),1)
Q :=
else
Q := @
endif

PKGS := jansson cmocka inih libprotobuf-c libssl libcrypto libnl-3.0 \
	libnl-route-3.0
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
NL_LIBS := $(shell $(PKG_CONFIG) --libs libnl-3.0 libnl-route-3.0)
PCAP_LIBS := $(shell $(PKG_CONFIG) --libs libpcap 2>/dev/null || echo -lpcap)
JANSSON_LIBS := $(shell $(PKG_CONFIG) --libs jansson)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka)
INIH_LIBS := $(shell $(PKG_CONFIG) --libs inih)
PROTOBUF_LIBS := $(shell $(PKG_CONFIG) --libs libprotobuf-c) \
	$(shell $(PKG_CONFIG) --libs libssl libcrypto)
NNG_LIBS := $(shell $(PKG_CONFIG) --libs nng 2>/dev/null || echo -lnng) -pthread
CRYPTO_LIBS := $(shell $(PKG_CONFIG) --libs libcrypto)
PNG_LIBS := $(shell $(PKG_CONFIG) --libs libpng)
SYSTEMD_LIBS := $(shell $(PKG_CONFIG) --libs libsystemd)
# CRC32C of the agents' frames (agent/crc32c.c).
ISAL_LIBS := $(shell $(PKG_CONFIG) --libs libisal)
# TL1 over SSH (the polatis driver's transport = ssh, ocs-emu --tl1-ssh).
SSH_LIBS := $(shell $(PKG_CONFIG) --libs libssh)
MHD_LIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd)
# NETCONF (ocs-emu --netconf, the polatis-netconf driver): libnetconf2
# over libyang.
NC_LIBS := $(shell $(PKG_CONFIG) --libs libnetconf2 libyang)
# What libdrv.a needs (calient: nng HTTP/TLS, jansson, base64; polatis:
# libssh; polatis-netconf: libnetconf2).
DRV_LDLIBS := $(JANSSON_LIBS) $(NNG_LIBS) $(CRYPTO_LIBS) $(SSH_LIBS) \
	$(NC_LIBS)

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wsign-compare \
	-Wformat=2 -Wno-format-nonliteral
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -MMD -MP -I. -I$(BUILD) \
	$(CFLAGS) $(PKG_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS)
ifeq ($(SAN),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
ALL_LDFLAGS += -fsanitize=address,undefined
endif
# ocs-sweep --netns runs testbed/netns.sh beside its programs' directory
# (bin/ and testbed/ of the tree); the sanitizer build's programs are in
# build/san/bin, so the script goes beside them too.
SAN_FILES :=
ifeq ($(SAN),1)
SAN_FILES := $(BUILD)/testbed/netns.sh
endif

# ---- proto/base: logging, the clock, sockets, units; used by everyone ------
BASE_SRCS := \
	proto/base/log.c \
	proto/base/mono.c \
	proto/base/net.c \
	proto/base/units.c \
	proto/base/errf.c \
	proto/base/path.c \
	proto/base/idmap.c
BASE_LIB := $(BUILD)/libbase.a

# ---- collectives: the pure planning library ------------------------------
COLL_SRCS := \
	collectives/coll.c \
	collectives/sched.c \
	collectives/sched_validate.c \
	collectives/sched_planes.c \
	collectives/planes.c \
	collectives/cost.c \
	collectives/cmodel.c \
	collectives/topo_teccl.c \
	collectives/topo_taccl.c \
	collectives/circ.c \
	collectives/reconf.c \
	collectives/a2a.c \
	collectives/retri.c \
	collectives/bridge.c \
	collectives/bruck.c \
	collectives/baseline.c \
	collectives/sim.c \
	collectives/plan_cli.c \
	collectives/sched_plan.c \
	collectives/plan.c \
	collectives/topo.c \
	collectives/heap.c \
	collectives/tsyn.c \
	collectives/tsyn_lib.c \
	collectives/tsyn_ten.c \
	collectives/tsyn_fifo.c \
	collectives/tsyn_mteg.c \
	collectives/tsyn_mteg_refine.c \
	collectives/tsyn_scalecc.c \
	collectives/tsyn_validate.c \
	collectives/tsyn_bound.c \
	collectives/tmat.c \
	collectives/tmat_gen.c \
	collectives/match.c \
	collectives/skew.c \
	collectives/skew_bvn.c \
	collectives/skew_eclipse.c \
	collectives/skew_ir.c \
	collectives/skew_reuse.c \
	collectives/msccl.c \
	collectives/msccl_xml.c \
	collectives/msccl_play.c \
	collectives/msccl_layout.c \
	collectives/msccl_merge.c \
	collectives/msccl_topo.c \
	collectives/tsyn_circ.c \
	collectives/skew_servers.c \
	collectives/skew_srv.c
COLL_LIB := $(BUILD)/libcoll.a

# ---- ocs-drivers: driver interface, drivers, switch model, TL1 codec ------
DRV_SRCS := \
	ocs-drivers/drv.c \
	ocs-drivers/drv_emu.c \
	ocs-drivers/drv_polatis.c \
	ocs-drivers/drv_polatis_netconf.c \
	ocs-drivers/pnc_tree.c \
	ocs-drivers/sshkh.c \
	ocs-drivers/drv_calient.c \
	ocs-drivers/drv_calient_http.c \
	ocs-drivers/rest.c \
	ocs-drivers/rest_name.c \
	ocs-drivers/rest_state.c \
	ocs-drivers/rest_plan.c \
	ocs-drivers/cal_tl1.c \
	ocs-drivers/drv_calient_tl1.c \
	ocs-drivers/oxc.c \
	ocs-drivers/tl1.c \
	ocs-drivers/tl1_sess.c \
	ocs-drivers/tl1_ssh.c \
	ocs-drivers/tl1_capture.c
DRV_LIB := $(BUILD)/libdrv.a

# ---- proto: ocs.proto and its glue ----------------------------------------
PROTO_H := $(BUILD)/proto/ocs.pb-c.h
MSG_OBJS := $(BUILD)/proto/msg.o $(BUILD)/proto/auth.o $(BUILD)/proto/link.o \
	$(BUILD)/proto/alink.o $(BUILD)/proto/amsg.o \
	$(BUILD)/proto/plan.o $(BUILD)/proto/report.o $(BUILD)/proto/report_tl.o \
	$(BUILD)/proto/wire.o $(BUILD)/proto/ocs.pb-c.o
MSG_LIB := $(BUILD)/libmsg.a

# Generated files are targets in their own right, not intermediates make
# would delete (and then regenerate, recompiling everything after it).
.SECONDARY: $(PROTO_H) $(BUILD)/proto/ocs.pb-c.c

$(BUILD)/proto/%.pb-c.c $(BUILD)/proto/%.pb-c.h: proto/%.proto
	@mkdir -p $(BUILD)
	@echo "  PROTOC  $<"
	$(Q)protoc-c --c_out=$(BUILD) $<

# Generated code is not ours to fix: only the warnings it trips are off.
$(BUILD)/proto/ocs.pb-c.o: $(BUILD)/proto/ocs.pb-c.c
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-cast-qual -Wno-missing-prototypes \
		-c -o $@ $<

# Chakra execution traces (ocs-plan --export chakra): ASTRA-sim's schema.
CHAKRA_OBJS := $(BUILD)/proto/chakra.o $(BUILD)/proto/chakra_et_def.pb-c.o
.SECONDARY: $(BUILD)/proto/chakra_et_def.pb-c.h \
	$(BUILD)/proto/chakra_et_def.pb-c.c
$(BUILD)/proto/chakra.o: $(BUILD)/proto/chakra_et_def.pb-c.h
$(BUILD)/proto/chakra_et_def.pb-c.o: $(BUILD)/proto/chakra_et_def.pb-c.c
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-cast-qual -Wno-missing-prototypes \
		-c -o $@ $<

$(MSG_LIB): $(MSG_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# ---- ocsd: the controller and ocsctl ---------------------------------------
OCSD_SRCS := \
	ocsd/ocsd.c \
	ocsd/daemon.c \
	ocsd/err.c \
	ocsd/conf.c \
	ocsd/map.c \
	ocsd/xc.c \
	ocsd/sw.c \
	ocsd/fab.c \
	ocsd/ctl.c \
	ocsd/ctl_check.c \
	ocsd/ctl_plan.c \
	ocsd/reply.c \
	ocsd/agents.c \
	ocsd/agents_link.c \
	ocsd/agents_view.c \
	ocsd/agents_probe.c \
	ocsd/agjoin.c \
	ocsd/aglink.c \
	ocsd/run.c \
	ocsd/run_link.c \
	ocsd/run_idle.c \
	ocsd/run_plan.c \
	ocsd/run_fab.c \
	ocsd/run_srv.c \
	ocsd/run_apart.c \
	ocsd/run_job.c \
	ocsd/run_topo.c \
	ocsd/run_report.c \
	ocsd/runs.c \
	ocsd/runs_index.c \
	ocsd/runs_keep.c \
	ocsd/ev.c
# What ocsctl and ocs-web share: the control client and the output (one
# JSON for both, ocs-web's endpoints being ocsctl -j's answers).
CTLC_SRCS := \
	ocsd/ctlc.c \
	ocsd/ocsctl_out.c \
	ocsd/ocsctl_print.c
OCSCTL_SRCS := \
	ocsd/ocsctl.c \
	ocsd/ocsctl_rpc.c \
	ocsd/ocsctl_cmd.c \
	ocsd/ocsctl_check.c \
	$(CTLC_SRCS)

# ---- programs --------------------------------------------------------------
PROGS := $(BIN)/ocs-plan $(BIN)/ocs-emu $(BIN)/ocsd $(BIN)/ocsctl \
	$(BIN)/ocs-agent $(BIN)/ocs-sweep $(BIN)/ocs-load $(BIN)/ocs-web

# The packet-level check on ns-3 (Debian 12's libns3-dev, ns-3.37; C++):
# built where ns-3 is installed (make deps installs it), and ocs-sweep
# --simulate ns3 says so where it is not.
NS3_LIBS := -lns3-core -lns3-network -lns3-point-to-point
ifneq ($(shell $(PKG_CONFIG) --exists ns3-point-to-point && echo y),)
PROGS += $(BIN)/ocs-ns3
endif

LOAD_SRCS := testbed/load/load.c testbed/load/ocs_load.c

SWEEP_SRCS := \
	testbed/sweep/ocs-sweep.c \
	testbed/sweep/sweep_list.c \
	testbed/sweep/sweep_csv.c \
	testbed/sweep/sweep_point.c \
	testbed/sweep/sweep_bed.c \
	testbed/sweep/sweep_measure.c \
	testbed/sweep/sweep_cpu.c \
	testbed/sweep/sweep_ns3.c \
	testbed/sweep/sweep_cal.c \
	testbed/sweep/sweep_fit.c \
	testbed/sweep/sweep_probe.c \
	testbed/sweep/sweep_jobs.c \
	testbed/sweep/sweep_plot.c

AGENT_SRCS := \
	agent/agent.c \
	agent/session.c \
	agent/carrier.c \
	agent/flink.c \
	agent/exec.c \
	agent/exec_slot.c \
	agent/exec_flow.c \
	agent/exec_relay.c \
	agent/exec_recv.c \
	agent/vplace.c \
	agent/xport.c \
	agent/xport_fibre.c \
	agent/xport_local.c \
	agent/local.c \
	agent/xport_kernel.c \
	agent/xport_kernel_rx.c \
	agent/probe.c \
	agent/frame.c \
	agent/crc32c.c \
	agent/pattern.c

# Each program links the libraries it uses, our own and the system's.
$(BIN)/ocs-agent: $(AGENT_SRCS:%.c=$(BUILD)/%.o) $(MSG_LIB) $(COLL_LIB) \
		$(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(NNG_LIBS) \
		$(PROTOBUF_LIBS) $(ISAL_LIBS) -lm

$(BIN)/ocsd: $(OCSD_SRCS:%.c=$(BUILD)/%.o) $(MSG_LIB) $(DRV_LIB) \
		$(COLL_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(NNG_LIBS) \
		$(PROTOBUF_LIBS) $(INIH_LIBS) $(DRV_LDLIBS) $(SYSTEMD_LIBS) -lm

$(BIN)/ocsctl: $(OCSCTL_SRCS:%.c=$(BUILD)/%.o) \
		$(BUILD)/collectives/tmat_load.o $(MSG_LIB) $(COLL_LIB) \
		$(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(NNG_LIBS) \
		$(PROTOBUF_LIBS) $(JANSSON_LIBS) -lm

# ocs-web: the live view beside ocsd (its page is ocsd/www/).
WEB_SRCS := \
	ocsd/web_main.c \
	ocsd/web_srv.c \
	ocsd/web_http.c \
	ocsd/web_api.c \
	ocsd/web_assets.c \
	ocsd/web_feed.c \
	ocsd/web_cache.c
$(BUILD)/ocsd/web_main.o: ALL_CFLAGS += -DOCS_WEB_DIR='"$(CURDIR)/ocsd/www"'
$(BIN)/ocs-web: $(WEB_SRCS:%.c=$(BUILD)/%.o) $(CTLC_SRCS:%.c=$(BUILD)/%.o) \
		$(MSG_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(NNG_LIBS) \
		$(PROTOBUF_LIBS) $(JANSSON_LIBS) -lm

EMU_SRCS := \
	testbed/ocs-emu/emu_main.c \
	testbed/ocs-emu/emu_tl1.c \
	testbed/ocs-emu/emu_tl1_polatis.c \
	testbed/ocs-emu/emu_tl1_port.c \
	testbed/ocs-emu/emu_tl1_secu.c \
	testbed/ocs-emu/emu_tl1_voa.c \
	testbed/ocs-emu/emu_tl1_calient.c \
	testbed/ocs-emu/emu_user.c \
	testbed/ocs-emu/emu_ssh.c \
	testbed/ocs-emu/emu_netconf.c \
	testbed/ocs-emu/emu_nc_ctx.c \
	testbed/ocs-emu/emu_nc_data.c \
	testbed/ocs-emu/emu_nc_filter.c \
	testbed/ocs-emu/emu_nc_edit.c \
	testbed/ocs-emu/emu_nc_guard.c \
	testbed/ocs-emu/emu_nc_port.c \
	testbed/ocs-emu/emu_rest.c \
	testbed/ocs-emu/emu_rest_xc.c \
	testbed/ocs-emu/emu_conn.c \
	testbed/ocs-emu/emu_fault.c \
	testbed/ocs-emu/emu_fibre.c \
	testbed/ocs-emu/emu_kdp.c \
	testbed/ocs-emu/emu_nlb.c \
	testbed/ocs-emu/emu_link.c \
	testbed/ocs-emu/emu_cap.c \
	testbed/ocs-emu/emu_state.c

# The emulator shares the switch model and the codecs, not the drivers;
# its REST face is libmicrohttpd (idle and connection limits nng's HTTP
# server lacks; Basic auth decoded by libcrypto).
$(BIN)/ocs-emu: $(EMU_SRCS:%.c=$(BUILD)/%.o) $(DRV_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) \
		$(NNG_LIBS) $(CRYPTO_LIBS) $(NL_LIBS) $(PCAP_LIBS) \
		$(SSH_LIBS) $(MHD_LIBS) $(NC_LIBS) -lcrypt -lm

$(BUILD)/collectives/tplan.o: ALL_CFLAGS += \
	-DOCS_TOPO_DIR='"$(CURDIR)/collectives/topologies"'
$(BIN)/ocs-plan: $(BUILD)/collectives/ocs-plan.o $(BUILD)/collectives/tplan.o \
		$(BUILD)/collectives/skplan.o $(BUILD)/collectives/tmat_load.o \
		$(CHAKRA_OBJS) $(COLL_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) \
		$(INIH_LIBS) $(PROTOBUF_LIBS) -lm

# Simulated agents: the protocol's codecs and nng, nothing of agent/.
$(BIN)/ocs-load: $(LOAD_SRCS:%.c=$(BUILD)/%.o) $(MSG_LIB) $(COLL_LIB) \
		$(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(NNG_LIBS) \
		$(PROTOBUF_LIBS) -lm

$(BIN)/ocs-ns3: testbed/ns3/ocs-ns3.cc
	@mkdir -p $(@D)
	@echo "  CXX     $@"
	$(Q)$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -o $@ $< $(NS3_LIBS)

# Sweeps: the collectives library's model and simulator, a CSV, gnuplot.
$(BIN)/ocs-sweep: $(SWEEP_SRCS:%.c=$(BUILD)/%.o) $(COLL_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) \
		$(INIH_LIBS) -pthread -lm

# ---- tests -----------------------------------------------------------------
# Unit tests link the unit under test and what it needs (TEST_DEPS_<name>).
UNIT_TESTS := \
	units \
	sched \
	planes \
	retri \
	a2a_validate \
	cost \
	reconf \
	sim \
	plan_cli \
	tl1 \
	rest \
	tsyn \
	oxc \
	conf \
	xc \
	frame \
	exec \
	auth \
	msg \
	plan \
	map \
	drv \
	runner \
	agents \
	report \
	emu_polatis \
	emu_calient \
	emu_calient_tl1 \
	emu_netconf \
	calient_dev \
	polatis_dev \
	tmat \
	skew \
	skew_srv \
	local \
	msccl \
	kx \
	sweep \
	chakra \
	idmap \
	runs \
	links \
	emu_cap \
	nlb \
	alink
INTEG_TESTS := \
	ocs_plan \
	polatis \
	tl1_ssh \
	netconf \
	calient \
	ocsd \
	web_limits \
	fabric \
	servers \
	faults \
	security \
	run \
	demo \
	shutdown \
	reap \
	ocs_sweep \
	relay \
	check \
	netns \
	netns_fabric \
	load \
	web \
	web_fabric
TEST_BINS := $(UNIT_TESTS:%=$(BUILD)/tests/test_%) \
	$(INTEG_TESTS:%=$(BUILD)/tests/test_%)

TEST_DEPS_tl1 := $(DRV_LIB)
TEST_DEPS_rest := $(DRV_LIB)
TEST_DEPS_tsyn := $(BUILD)/collectives/tplan.o
TEST_DEPS_msccl := $(BUILD)/collectives/tplan.o
TEST_DEPS_oxc := $(DRV_LIB)
TEST_DEPS_conf := $(BUILD)/ocsd/conf.o $(BUILD)/proto/wire.o $(DRV_LIB)
TEST_DEPS_xc := $(BUILD)/ocsd/xc.o $(BUILD)/ocsd/map.o $(BUILD)/ocsd/conf.o $(BUILD)/proto/wire.o \
	$(DRV_LIB)
AGENT_CORE := $(addprefix $(BUILD)/agent/,exec.o exec_slot.o exec_flow.o \
	exec_relay.o exec_recv.o) $(BUILD)/agent/vplace.o $(BUILD)/agent/frame.o \
	$(BUILD)/agent/crc32c.o $(BUILD)/agent/pattern.o
TEST_DEPS_frame := $(AGENT_CORE) $(BUILD)/agent/probe.o $(BUILD)/agent/xport.o \
	$(MSG_LIB)
TEST_DEPS_kx := $(BUILD)/agent/xport_kernel_rx.o
TEST_DEPS_links := $(BUILD)/agent/carrier.o $(BUILD)/agent/flink.o \
	$(BUILD)/testbed/ocs-emu/emu_link.o $(DRV_LIB)
TEST_DEPS_emu_cap := $(BUILD)/testbed/ocs-emu/emu_cap.o
TEST_DEPS_nlb := $(BUILD)/testbed/ocs-emu/emu_nlb.o
TEST_LIBS_nlb := $(NL_LIBS)
TEST_DEPS_sweep := $(addprefix $(BUILD)/testbed/sweep/,sweep_list.o \
	sweep_csv.o sweep_point.o sweep_cpu.o sweep_ns3.o sweep_fit.o) \
	$(COLL_LIB)
TEST_DEPS_chakra := $(CHAKRA_OBJS)
$(BUILD)/tests/unit/test_chakra.o: $(BUILD)/proto/chakra_et_def.pb-c.h
TEST_DEPS_exec := $(AGENT_CORE) $(BUILD)/tests/lib/xrun.o $(MSG_LIB)
TEST_DEPS_auth := $(MSG_LIB)
TEST_DEPS_msg := $(MSG_LIB)
TEST_DEPS_plan := $(MSG_LIB)
TEST_DEPS_local := $(addprefix $(BUILD)/agent/,local.o xport_local.o \
	xport.o)
TEST_DEPS_report := $(MSG_LIB)
# The emulator's TL1 faces, without sockets (emu_tl1_feed).
EMU_TL1_OBJS := $(addprefix $(BUILD)/testbed/ocs-emu/,emu_tl1.o \
	emu_tl1_polatis.o emu_tl1_port.o emu_tl1_secu.o emu_tl1_voa.o \
	emu_tl1_calient.o emu_user.o emu_fault.o emu_state.o emu_conn.o)
TEST_DEPS_emu_polatis = $(BUILD)/tests/lib/emutest.o $(EMU_TL1_OBJS) $(DRV_LIB)
TEST_DEPS_emu_calient_tl1 = $(BUILD)/tests/lib/emutest.o $(EMU_TL1_OBJS) \
	$(DRV_LIB)
# The emulator's NETCONF trees (data, filter, edit), without the server.
TEST_DEPS_emu_netconf = $(BUILD)/tests/lib/emutest.o $(EMU_TL1_OBJS) \
	$(addprefix $(BUILD)/testbed/ocs-emu/,emu_nc_ctx.o emu_nc_data.o \
	emu_nc_filter.o emu_nc_edit.o emu_nc_guard.o emu_nc_port.o) $(DRV_LIB)
# The emulator's REST resources, without the HTTP server.
TEST_DEPS_emu_calient = $(BUILD)/tests/lib/emutest.o \
	$(addprefix $(BUILD)/testbed/ocs-emu/,emu_rest_xc.o emu_conn.o emu_state.o \
	emu_user.o) \
	$(DRV_LIB)
TEST_DEPS_map := $(BUILD)/ocsd/map.o
TEST_DEPS_runs := $(BUILD)/ocsd/runs.o $(BUILD)/ocsd/runs_index.o
TEST_DEPS_drv := $(DRV_LIB)
TEST_DEPS_alink := $(MSG_LIB)
TEST_DEPS_calient_dev := $(BUILD)/tests/lib/tl1dev.o $(DRV_LIB)
TEST_DEPS_polatis_dev := $(BUILD)/tests/lib/tl1dev.o $(DRV_LIB)
# The runner with the real switch worker; the agents' registry is the
# test's (it plays the agents through the runner's callbacks).
TEST_DEPS_runner := $(addprefix $(BUILD)/ocsd/,run.o run_link.o run_idle.o run_plan.o \
	run_fab.o run_srv.o run_apart.o run_job.o run_topo.o run_report.o runs.o sw.o fab.o map.o \
	xc.o conf.o err.o reply.o ev.o) $(MSG_LIB) $(DRV_LIB)
# The registry, joined by the agent's own session code in one process.
TEST_DEPS_agents := $(addprefix $(BUILD)/ocsd/,agents.o agents_link.o agents_view.o agents_probe.o \
	agjoin.o aglink.o conf.o err.o ev.o \
	reply.o map.o xc.o) $(BUILD)/agent/session.o $(MSG_LIB) $(DRV_LIB)
TEST_LDLIBS := $(CMOCKA_LIBS) $(JANSSON_LIBS) $(INIH_LIBS) $(NNG_LIBS) \
	$(PROTOBUF_LIBS) $(DRV_LDLIBS) $(ISAL_LIBS) $(PCAP_LIBS) -lcrypt -lm

.SECONDEXPANSION:
$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $$(TEST_DEPS_$$*) \
		$(COLL_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LDLIBS) \
		$(TEST_LIBS_$*)

# Integration tests run the real programs (tests/lib/proc.c).
INTEG_DEPS_ocs_plan := $(DRV_LIB)
INTEG_DEPS_polatis := $(DRV_LIB)
INTEG_DEPS_tl1_ssh := $(DRV_LIB)
INTEG_DEPS_netconf := $(DRV_LIB)
INTEG_DEPS_calient := $(DRV_LIB)
INTEG_DEPS_faults := $(DRV_LIB)
INTEG_DEPS_security := $(DRV_LIB) $(MSG_LIB)
INTEG_DEPS_ocsd := $(DRV_LIB)
INTEG_DEPS_fabric := $(DRV_LIB) $(BUILD)/tests/lib/rjson.o
INTEG_DEPS_servers := $(COLL_LIB)
INTEG_DEPS_run := $(DRV_LIB) $(COLL_LIB)
INTEG_DEPS_load :=
# Headless Chromium through chromedriver; screenshots read with libpng.
INTEG_DEPS_web := $(BUILD)/tests/lib/wd.o
INTEG_LIBS_web := $(PNG_LIBS)
INTEG_DEPS_web_fabric := $(BUILD)/tests/lib/wd.o $(BUILD)/tests/lib/rjson.o
INTEG_LIBS_web_fabric := $(PNG_LIBS)
INTEG_DEPS_reap = $(REAP)
$(INTEG_TESTS:%=$(BUILD)/tests/test_%): \
		$(BUILD)/tests/test_%: $(BUILD)/tests/integ/test_%.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$$(INTEG_DEPS_$$*) $(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(TEST_LDLIBS) $(INTEG_LIBS_$*)

# Every test, bench and make run runs under reap, which fails when it
# leaves a process behind (tests/lib/reap.c).
REAP := $(BUILD)/tests/reap
$(REAP): $(BUILD)/tests/lib/reap.o
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

# ---- benches ---------------------------------------------------------------
$(BUILD)/bench/bench_plan: $(BUILD)/tests/bench/bench_plan.o $(COLL_LIB) \
		$(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ -lm

# The model in-process; the measured sweeps through bin/ocs-sweep.
$(BUILD)/bench/bench_sweep: $(BUILD)/tests/bench/bench_sweep.o \
		$(BUILD)/testbed/sweep/sweep_point.o \
		$(BUILD)/testbed/sweep/sweep_ns3.o \
		$(BUILD)/testbed/sweep/sweep_list.o \
		$(BUILD)/testbed/sweep/sweep_csv.o $(BUILD)/tests/lib/proc.o \
		$(COLL_LIB) $(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(INIH_LIBS) -lm

# ---- generic rules ---------------------------------------------------------
ALL_SRCS := $(BASE_SRCS) $(COLL_SRCS) collectives/ocs-plan.c \
	collectives/tplan.c collectives/skplan.c collectives/tmat_load.c \
	$(DRV_SRCS) \
	$(EMU_SRCS) $(OCSD_SRCS) $(OCSCTL_SRCS) $(WEB_SRCS) $(SWEEP_SRCS) \
	proto/msg.c proto/report.c proto/report_tl.c \
	$(LOAD_SRCS) proto/auth.c proto/chakra.c \
	proto/link.c proto/plan.c proto/alink.c proto/amsg.c \
	$(AGENT_SRCS) \
	$(UNIT_TESTS:%=tests/unit/test_%.c) \
	$(INTEG_TESTS:%=tests/integ/test_%.c) tests/lib/proc.c \
	tests/lib/rig.c tests/lib/xrun.c tests/lib/reap.c tests/lib/emutest.c \
	tests/lib/tl1dev.c tests/lib/wd.c tests/lib/rjson.c \
	tests/bench/bench_plan.c tests/bench/bench_switch.c \
	tests/bench/bench_run.c tests/bench/bench_soak.c tests/bench/bench_tsyn.c tests/bench/bench_kdp.c \
	tests/bench/bench_fabric.c \
	tests/bench/bench_servers.c \
	tests/bench/bench_skew.c tests/bench/bench_sweep.c \
	tests/bench/bench_scale.c tests/bench/bench_web.c tests/bench/nng_floor.c \
	tests/bench/sock_floor.c tests/soak/soak.c

$(BUILD)/%.o: %.c | $(PROTO_H)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(COLL_LIB): $(COLL_SRCS:%.c=$(BUILD)/%.o)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BASE_LIB): $(BASE_SRCS:%.c=$(BUILD)/%.o)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(DRV_LIB): $(DRV_SRCS:%.c=$(BUILD)/%.o)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

-include $(ALL_SRCS:%.c=$(BUILD)/%.d)

# ---- goals -----------------------------------------------------------------
.PHONY: all test test-loaded check run run-fabric run-netns memcheck bench fuzz fmt lint clean web

all: $(PROGS)

test: $(PROGS) $(TEST_BINS) $(BUILD)/install/ocs-plan $(REAP) $(SAN_FILES)
	@OCS_BIN=$(BIN) OCS_GOLDEN=tests/golden OCS_INSTALL=1 MAKE="$(MAKE)" \
		BUILD=$(BUILD) SAN=$(SAN) OCS_README=README.md \
		OCS_REAP=$(REAP) sh tests/run.sh $(TEST_BINS)

check:
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 test

$(BUILD)/testbed/netns.sh: testbed/netns.sh
	@mkdir -p $(@D)
	$(Q)cp $< $@

# The suite 10 times in a row with both cores of a 2-core machine busy
# (OCS_TEST_LOAD busy loops): every run must pass.  OCS_ROUNDS to change.
test-loaded: $(PROGS) $(TEST_BINS) $(BUILD)/install/ocs-plan $(REAP)
	@n=$${OCS_ROUNDS:-10}; ok=0; i=1; while [ $$i -le $$n ]; do \
		OCS_TEST_LOAD=$${OCS_TEST_LOAD:-2} $(MAKE) --no-print-directory \
			test >$(BUILD)/loaded.log 2>&1 && ok=$$((ok + 1)); \
		echo "round $$i of $$n: $$(tail -n 1 $(BUILD)/loaded.log)"; \
		grep -v ' 0 failed' $(BUILD)/loaded.log | grep -v '^(with' \
			| head -n 60; \
		i=$$((i + 1)); done; \
	echo "test-loaded: $$ok of $$n rounds green"; [ $$ok -eq $$n ]

run: $(PROGS) $(REAP)
	@$(REAP) sh testbed/run-demo.sh $(BIN)

# make run on a fabric: two emulated switches of two dialects, a plane
# each, under one ocsd.
run-fabric: $(PROGS) $(REAP)
	@$(REAP) sh testbed/run-fabric.sh $(BIN)

# The demo testbed with ocs-web beside ocsd, until Ctrl-C.
web: $(PROGS) $(REAP)
	@$(REAP) sh testbed/run-web.sh $(BIN)

# The namespace testbed (root): hosts in network namespaces, the kernel
# datapath, agents on raw Ethernet.
run-netns: $(PROGS) $(REAP)
	@FABRIC=$(FABRIC) $(REAP) sh testbed/run-netns.sh $(BIN)

memcheck: $(PROGS)
	@sh testbed/memcheck.sh $(BIN)

$(BUILD)/bench/bench_switch: $(BUILD)/tests/bench/bench_switch.o \
		$(BUILD)/tests/lib/proc.o $(MSG_LIB) $(DRV_LIB) $(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(NNG_LIBS) $(PROTOBUF_LIBS) $(DRV_LDLIBS) -lm

$(BUILD)/bench/bench_fabric: $(BUILD)/tests/bench/bench_fabric.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(JANSSON_LIBS) -lm

$(BUILD)/bench/bench_servers: $(BUILD)/tests/bench/bench_servers.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$(addprefix $(BUILD)/agent/,local.o xport_local.o xport.o) \
		$(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(JANSSON_LIBS) -lm

$(BUILD)/bench/bench_run: $(BUILD)/tests/bench/bench_run.o \
		$(BUILD)/tests/bench/nng_floor.o $(BUILD)/tests/bench/sock_floor.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$(AGENT_CORE) $(BUILD)/agent/xport_fibre.o \
		$(BUILD)/agent/xport.o $(BUILD)/tests/lib/xrun.o $(MSG_LIB) \
		$(DRV_LIB) $(COLL_LIB) $(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(PROTOBUF_LIBS) $(DRV_LDLIBS) $(ISAL_LIBS) -lm

$(BUILD)/bench/bench_scale: $(BUILD)/tests/bench/bench_scale.o \
		$(BUILD)/tests/bench/nng_floor.o $(BUILD)/tests/bench/sock_floor.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$(BUILD)/testbed/load/load.o $(MSG_LIB) $(COLL_LIB) \
		$(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(NNG_LIBS) $(PROTOBUF_LIBS) $(JANSSON_LIBS) -lm

$(BUILD)/bench/bench_soak: $(BUILD)/tests/bench/bench_soak.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o $(BASE_LIB) \
		$(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) -lm

# ocs-web in headless Chromium (tests/lib/wd.c); a run's record made by
# proto/report.c.
$(BUILD)/bench/bench_web: $(BUILD)/tests/bench/bench_web.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$(BUILD)/tests/lib/wd.o $(MSG_LIB) $(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(NNG_LIBS) $(PROTOBUF_LIBS) $(JANSSON_LIBS) $(PNG_LIBS) -lcrypto -lm

$(BUILD)/bench/bench_kdp: $(BUILD)/tests/bench/bench_kdp.o \
		$(BUILD)/tests/lib/proc.o $(BUILD)/tests/lib/rig.o \
		$(BUILD)/agent/xport_kernel.o $(BUILD)/agent/xport_kernel_rx.o \
		$(BUILD)/agent/xport.o \
		$(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(JANSSON_LIBS) -lm

$(BUILD)/bench/bench_skew: $(BUILD)/tests/bench/bench_skew.o \
		$(COLL_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) \
		$(INIH_LIBS) -lm

$(BUILD)/bench/bench_tsyn: $(BUILD)/tests/bench/bench_tsyn.o \
		$(BUILD)/collectives/tplan.o $(COLL_LIB) $(BASE_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) -lm

# ---- install ---------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=...]: programs, man pages,
# systemd units and configuration examples (never /etc itself: an
# installed configuration is the operator's).
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share/ocsd
DOCDIR     ?= $(PREFIX)/share/doc/ocsd
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
SUBST := sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'
MAN1 := collectives/ocs-plan.1 testbed/sweep/ocs-sweep.1 testbed/load/ocs-load.1
MAN5 := ocsd/ocsd.conf.5
MAN8 := ocsd/ocsd.8 ocsd/ocsctl.8 agent/ocs-agent.8 testbed/ocs-emu/ocs-emu.8 \
	ocsd/ocs-web.8
UNITS := ocsd/ocsd.service.in agent/ocs-agent.service.in \
	testbed/ocs-emu/ocs-emu.service.in
EXAMPLES := ocsd/ocsd.conf.example agent/ocs-agent.conf.example \
	testbed/ocs-emu/ocs-emu.conf.example

# The installed ocs-plan finds the shipped topologies where they go; the
# stamp changes (and tplan is rebuilt) only when DATADIR does.
$(BUILD)/install/datadir: FORCE
	@mkdir -p $(@D)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
.PHONY: FORCE
FORCE:
$(BUILD)/install/tplan.o: collectives/tplan.c $(BUILD)/install/datadir \
		| $(PROTO_H)
	@mkdir -p $(@D)
	@echo "  CC      $< (install)"
	$(Q)$(CC) $(ALL_CFLAGS) -DOCS_TOPO_DIR='"$(DATADIR)/topologies"' \
		-c -o $@ $<
$(BUILD)/install/ocs-plan: $(BUILD)/collectives/ocs-plan.o \
		$(BUILD)/install/tplan.o $(BUILD)/collectives/skplan.o \
		$(BUILD)/collectives/tmat_load.o \
		$(CHAKRA_OBJS) $(COLL_LIB) $(BASE_LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) \
		$(INIH_LIBS) $(PROTOBUF_LIBS) -lm

# The installed ocs-web serves its page from DATADIR/www.
$(BUILD)/install/web_main.o: ocsd/web_main.c $(BUILD)/install/datadir \
		| $(PROTO_H)
	@mkdir -p $(@D)
	@echo "  CC      $< (install)"
	$(Q)$(CC) $(ALL_CFLAGS) -DOCS_WEB_DIR='"$(DATADIR)/www"' -c -o $@ $<
$(BUILD)/install/ocs-web: $(BUILD)/install/web_main.o \
		$(filter-out $(BUILD)/ocsd/web_main.o,$(WEB_SRCS:%.c=$(BUILD)/%.o)) \
		$(CTLC_SRCS:%.c=$(BUILD)/%.o) $(MSG_LIB) $(BASE_LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(NNG_LIBS) \
		$(PROTOBUF_LIBS) $(JANSSON_LIBS) -lm

.PHONY: install uninstall
install: $(PROGS) $(BUILD)/install/ocs-plan $(BUILD)/install/ocs-web
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DATADIR)/topologies $(DESTDIR)$(DATADIR)/www \
		$(DESTDIR)$(DOCDIR)/examples
	$(Q)install -m 755 $(BIN)/ocsctl $(BIN)/ocs-emu $(BIN)/ocs-sweep \
		$(BIN)/ocs-load $(BUILD)/install/ocs-plan $(DESTDIR)$(BINDIR)
	$(Q)install -m 755 $(BIN)/ocsd $(BIN)/ocs-agent \
		$(BUILD)/install/ocs-web $(DESTDIR)$(SBINDIR)
	$(Q)install -m 644 ocsd/www/index.html ocsd/www/app.js ocsd/www/feed.js \
		ocsd/www/style.css $(DESTDIR)$(DATADIR)/www
	$(Q)install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	$(Q)install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5
	$(Q)install -m 644 $(MAN8) $(DESTDIR)$(MANDIR)/man8
	$(Q)install -m 644 collectives/topologies/*.json \
		$(DESTDIR)$(DATADIR)/topologies
	$(Q)for u in $(UNITS); do \
		$(SUBST) $$u >$(DESTDIR)$(UNITDIR)/$$(basename $$u .in) && \
		chmod 644 $(DESTDIR)$(UNITDIR)/$$(basename $$u .in) || exit 1; \
	done
	$(Q)for e in $(EXAMPLES); do \
		$(SUBST) $$e >$(DESTDIR)$(DOCDIR)/examples/$$(basename $$e) && \
		chmod 644 $(DESTDIR)$(DOCDIR)/examples/$$(basename $$e) || \
		exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ocsctl $(DESTDIR)$(BINDIR)/ocs-emu \
		$(DESTDIR)$(BINDIR)/ocs-plan $(DESTDIR)$(BINDIR)/ocs-sweep \
		$(DESTDIR)$(BINDIR)/ocs-load $(DESTDIR)$(SBINDIR)/ocsd \
		$(DESTDIR)$(SBINDIR)/ocs-agent $(DESTDIR)$(SBINDIR)/ocs-web
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8)))
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(UNITS:.in=)))
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

# Not in CI: 10,000 reconfigurations through each driver (SOAK_N).
SOAK_N ?= 10000
$(BUILD)/soak/soak: $(BUILD)/tests/soak/soak.o $(BUILD)/tests/lib/proc.o \
		$(MSG_LIB) $(DRV_LIB) $(BASE_LIB) $(PROGS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(NNG_LIBS) $(PROTOBUF_LIBS) $(DRV_LDLIBS) -lm

.PHONY: soak
soak: $(BUILD)/soak/soak
	@OCS_BIN=$(BIN) $(BUILD)/soak/soak $(SOAK_N)

BENCHES := bench_plan bench_switch bench_run bench_scale bench_kdp bench_tsyn \
	bench_skew bench_sweep bench_soak bench_web bench_fabric bench_servers
bench: $(BENCHES:%=$(BUILD)/bench/%) $(REAP)
	@for b in $(BENCHES); do \
		OCS_BIN=$(BIN) $(REAP) $(BUILD)/bench/$$b || exit 1; echo; \
	done

FUZZ_TARGETS := units plan_cli tl1_resp emu_tl1 conf plan_msg rest ocsd_msg \
	topo report cal_tl1 tmat sweep alink emu_nc web_http nlb flink probe
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -I. -I$(BUILD) \
	-fsanitize=fuzzer,address,undefined
FUZZ_SRCS_units := $(COLL_SRCS) $(BASE_SRCS)
FUZZ_SRCS_plan_cli := $(COLL_SRCS) $(BASE_SRCS)
FUZZ_SRCS_tl1_resp := $(DRV_SRCS) $(BASE_SRCS)
FUZZ_SRCS_emu_tl1 := $(DRV_SRCS) testbed/ocs-emu/emu_tl1.c \
	testbed/ocs-emu/emu_tl1_polatis.c testbed/ocs-emu/emu_tl1_port.c \
	testbed/ocs-emu/emu_tl1_secu.c testbed/ocs-emu/emu_tl1_voa.c \
	testbed/ocs-emu/emu_user.c testbed/ocs-emu/emu_tl1_calient.c \
	testbed/ocs-emu/emu_fault.c testbed/ocs-emu/emu_conn.c \
	testbed/ocs-emu/emu_state.c $(BASE_SRCS)
FUZZ_LIBS_emu_tl1 := -lcrypt
FUZZ_SRCS_emu_nc := $(FUZZ_SRCS_emu_tl1) testbed/ocs-emu/emu_nc_ctx.c \
	testbed/ocs-emu/emu_nc_data.c testbed/ocs-emu/emu_nc_filter.c \
	testbed/ocs-emu/emu_nc_edit.c testbed/ocs-emu/emu_nc_guard.c \
	testbed/ocs-emu/emu_nc_port.c
FUZZ_LIBS_emu_nc := -lcrypt
FUZZ_SRCS_conf := $(DRV_SRCS) $(COLL_SRCS) $(BASE_SRCS) ocsd/conf.c proto/wire.c
FUZZ_LIBS_conf := $(INIH_LIBS)
FUZZ_SRCS_plan_msg := $(COLL_SRCS) $(BASE_SRCS) proto/msg.c proto/plan.c \
	$(BUILD)/proto/ocs.pb-c.c \
	agent/exec.c agent/exec_slot.c agent/exec_flow.c agent/exec_relay.c \
	agent/exec_recv.c agent/vplace.c agent/frame.c agent/crc32c.c agent/pattern.c
FUZZ_LIBS_plan_msg := $(PROTOBUF_LIBS) $(NNG_LIBS) $(ISAL_LIBS)
FUZZ_SRCS_rest := ocs-drivers/rest.c ocs-drivers/rest_name.c \
	ocs-drivers/rest_state.c ocs-drivers/rest_plan.c proto/base/errf.c
FUZZ_SRCS_topo := $(COLL_SRCS) $(BASE_SRCS)
FUZZ_SRCS_tmat := $(COLL_SRCS) $(BASE_SRCS)
FUZZ_SRCS_sweep := testbed/sweep/sweep_list.c testbed/sweep/sweep_csv.c \
	testbed/sweep/sweep_cpu.c collectives/cmodel.c $(BASE_SRCS)
FUZZ_LIBS_sweep := $(INIH_LIBS)
FUZZ_SRCS_cal_tl1 := ocs-drivers/cal_tl1.c ocs-drivers/tl1.c \
	ocs-drivers/rest_name.c proto/base/errf.c
FUZZ_SRCS_report := proto/report.c proto/report_tl.c proto/msg.c \
	$(BUILD)/proto/ocs.pb-c.c \
	$(BASE_SRCS)
FUZZ_LIBS_report := $(PROTOBUF_LIBS) $(NNG_LIBS)
FUZZ_SRCS_ocsd_msg := $(DRV_SRCS) $(COLL_SRCS) $(BASE_SRCS) proto/msg.c \
	$(BUILD)/proto/ocs.pb-c.c ocsd/ctl_check.c ocsd/conf.c proto/wire.c ocsd/xc.c \
	ocsd/map.c
FUZZ_LIBS_ocsd_msg := $(PROTOBUF_LIBS) $(INIH_LIBS)
FUZZ_SRCS_web_http := ocsd/web_http.c
FUZZ_SRCS_nlb := testbed/ocs-emu/emu_nlb.c $(BASE_SRCS)
FUZZ_SRCS_flink := agent/flink.c $(BASE_SRCS)
FUZZ_SRCS_probe := agent/probe.c agent/frame.c agent/crc32c.c agent/xport.c \
	proto/amsg.c proto/msg.c proto/plan.c proto/alink.c proto/auth.c \
	$(BUILD)/proto/ocs.pb-c.c $(COLL_SRCS) $(BASE_SRCS)
FUZZ_LIBS_probe := $(ISAL_LIBS) $(PROTOBUF_LIBS) $(NNG_LIBS) -lcrypto -lssl
FUZZ_LIBS_nlb := $(shell $(PKG_CONFIG) --cflags --libs libnl-3.0 \
	libnl-route-3.0)
FUZZ_SRCS_alink := proto/alink.c proto/msg.c $(BUILD)/proto/ocs.pb-c.c \
	$(BASE_SRCS)
FUZZ_LIBS_alink := $(PROTOBUF_LIBS) $(NNG_LIBS)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $$(FUZZ_SRCS_$$*)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ $(FUZZ_LIBS_$*) $(DRV_LDLIBS) \
		$(INIH_LIBS) -pthread -lm

# Each target runs FUZZ_TIME seconds from the committed seeds; the
# summary line per target carries the executions count.
# One target a fuzzer, so that make -j2 fuzz runs two at a time (CI
# does: 18 fuzzers of FUZZ_TIME seconds each, one core each).
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
fuzz-run-%: $(BUILD)/fuzz/fuzz_%
	$(Q)mkdir -p $(BUILD)/fuzz/corpus-$*; \
	echo "fuzz: $* for $(FUZZ_TIME)s"; \
	$(BUILD)/fuzz/fuzz_$* -max_total_time=$(FUZZ_TIME) \
		-artifact_prefix=$(BUILD)/fuzz/ -print_final_stats=1 \
		$(BUILD)/fuzz/corpus-$* \
		tests/fuzz/seed-$* >$(BUILD)/fuzz/$*.log 2>&1 || \
		{ tail -n 30 $(BUILD)/fuzz/$*.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units' $(BUILD)/fuzz/$*.log | \
		sed 's/^/fuzz: $*: /'

# Every C file of ours, wherever it lives (build/ holds generated ones).
TREE_SRCS := $(shell find agent collectives ocs-drivers ocsd proto testbed \
	tests -name '*.[ch]' -o -name '*.cc' 2>/dev/null)

fmt:
	$(Q)clang-format --dry-run -Werror $(TREE_SRCS)

# Dependencies point one way (DESIGN.md, README "Layout"); each rule is a
# grep for includes that break it, so the layering stays true:
#   proto/base/    includes nothing of ours outside itself
#   collectives/   only itself and proto/base/, and no nng
#   ocs-drivers/   only itself and proto/base/
#   proto/         only itself and collectives/ (the plan types it encodes)
#   agent/         no ocsd/, no ocs-drivers/
#   testbed/       no ocsd/, and of ocs-drivers/ only the switch model
#                  and the codecs it shares with the drivers
# and protobuf-c's types appear only in proto/ and the files that
# dispatch messages: ocsd's sockets (ctl*, agents.c, agents_probe.c, agjoin.c,
# aglink.c), its replies
# (reply.*), ocsctl's requests and output, the agent's session.
LINT_OURS := (ocsd|ocs-drivers|agent|testbed|proto|collectives)/
lint:
	$(Q)! grep -nE '#include "$(LINT_OURS)' proto/base/*.[ch] | \
		grep -v '"proto/base/' || \
		{ echo "lint: proto/base/ depends upward"; exit 1; }
	$(Q)! grep -nE '#include "$(LINT_OURS)|<nng/' collectives/*.[ch] | \
		grep -vE '"(collectives|proto/base)/' | \
		grep -v '^collectives/ocs-plan.c:.*"proto/chakra.h"' || \
		{ echo "lint: collectives/ depends upward"; exit 1; }
	$(Q)! grep -nE '#include "$(LINT_OURS)' ocs-drivers/*.[ch] | \
		grep -vE '"(ocs-drivers|proto/base)/' || \
		{ echo "lint: ocs-drivers/ depends upward"; exit 1; }
	$(Q)! grep -nE '#include "(ocsd|ocs-drivers|agent|testbed)/' \
		proto/*.[ch] || { echo "lint: proto/ depends upward"; exit 1; }
	$(Q)! grep -nE '#include "(ocsd|ocs-drivers|testbed)/' \
		agent/*.[ch] || \
		{ echo "lint: agent/ includes ocsd/ or a driver"; exit 1; }
	$(Q)! grep -rnE '#include "(ocsd|agent)/|#include "ocs-drivers/' \
		testbed | grep -vE '"ocs-drivers/(oxc|tl1|rest)\.h"' || \
		{ echo "lint: testbed/ includes ocsd/, agent/ or a driver"; \
		exit 1; }
	$(Q)! grep -lE 'Ocs__|ocs__' agent/*.[ch] ocsd/*.[ch] collectives/*.[ch] \
		ocs-drivers/*.[ch] testbed/ocs-emu/*.[ch] testbed/load/*.[ch] \
		proto/base/*.[ch] | \
		grep -vE '^(ocsd/(ctl|ctl_check|ctl_plan|ctlc|agents|agents_int|agents_probe|agjoin|aglink|reply|ocsctl[a-z_]*|web_api|web_feed)\.[ch]|agent/session\.[ch]|testbed/load/load\.c)$$' || \
		{ echo "lint: protobuf-c types outside proto/ and dispatch"; \
		exit 1; }
	$(Q)cppcheck --quiet --error-exitcode=1 --std=c11 -I. \
		--suppress=missingIncludeSystem $(BASE_SRCS) $(COLL_SRCS)

clean:
	rm -rf build bin

endif

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""A real NETCONF client against ocs-emu --netconf: Debian's ncclient (and
paramiko under it), sending what a client of a Polatis sends.  Run by
tests/integ/test_netconf.c as  nc_client.py CASE HOST PORT; each case
prints "ok CASE" and exits 0, or prints why and exits 1.

Cases:
  basic    connect, the hello's capabilities, edit-config (tcdona3's
           batch), get (subtree), get-config, delete, close-session
  deny     a busy port, a port the switch has not, an unknown namespace,
           state data written, a read-only user: rpc-errors with tag and
           message, nothing changed
  onos     ONOS's Polatis driver's requests, byte for byte its XML
  bad      malformed XML, 10^6 ports, a huge list, a half-closed channel,
           a client that never says hello (closed after the grace)
  sessions kill-session, lock and unlock, 100 idle sessions
"""
import socket
import sys
import time

from lxml import etree
from ncclient import manager
from ncclient.operations import RPCError
import paramiko

NS = "http://www.polatis.com/yang/optical-switch"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
O = "{%s}" % NS


def die(why):
    print("FAIL %s" % why)
    sys.exit(1)


def check(cond, why):
    if not cond:
        die(why)


def connect(host, port, user="root", password="root"):
    return manager.connect(host=host, port=port, username=user,
                           password=password, hostkey_verify=False,
                           allow_agent=False, look_for_keys=False,
                           timeout=15)


def pairs(m):
    """tcdona3's get_cross_connects: (ingress, egress) tuples."""
    flt = ('<cross-connects xmlns="%s"><pair><ingress/><egress/></pair>'
           '</cross-connects>' % NS)
    data = m.get(filter=("subtree", flt)).data_ele
    out = []
    for p in data.findall(".//%scross-connects/%spair" % (O, O)):
        out.append((int(p.find(O + "ingress").text),
                    int(p.find(O + "egress").text)))
    return sorted(out)


def edit(m, body):
    return m.edit_config(target="running", config=(
        '<nc:config xmlns:nc="%s"><cross-connects xmlns="%s">%s'
        '</cross-connects></nc:config>' % (NC, NS, body)))


def rpc_error(fn):
    """The rpc-error fn raises: (tag, message), or dies."""
    try:
        fn()
    except RPCError as e:
        return e.tag, e.message
    die("no rpc-error")


def case_basic(host, port):
    m = connect(host, port)
    caps = list(m.server_capabilities)
    check("urn:ietf:params:netconf:base:1.1" in caps, "base:1.1 missing")
    check("urn:ietf:params:netconf:capability:writable-running:1.0" in caps,
          "writable-running missing")
    check(not any(":candidate" in c for c in caps), "candidate announced")
    check(any(c.startswith(NS + "?module=optical-switch&revision=")
              for c in caps), "optical-switch module missing: %s" % caps)
    # tcdona3's apply_patch_list: one edit-config with a list.
    edit(m, "<pair><ingress>1</ingress><egress>18</egress></pair>"
            "<pair><ingress>2</ingress><egress>17</egress></pair>")
    check(pairs(m) == [(1, 18), (2, 17)], "pairs after edit: %s" % pairs(m))
    # get-config holds configuration only: no power, no status.
    cfg = m.get_config(source="running").data_ele
    check(cfg.find(".//%sopm-power" % O) is None, "state in get-config")
    check(cfg.find(".//%sstatus" % O) is None, "status in get-config")
    check(len(cfg.findall(".//%spair" % O)) == 2, "get-config pairs")
    # tcdona3's get_port_power on the lit path's egress: light arrives
    # only from a transmitting host; the monitor reads a number.
    flt = ('<opm-power xmlns="%s"><port><port-id>18</port-id><power/>'
           '</port></opm-power>' % NS)
    d = m.get(filter=("subtree", flt)).data_ele
    pw = d.findall(".//%sopm-power/%sport" % (O, O))
    check(len(pw) == 1 and pw[0].find(O + "port-id").text == "18",
          "one port's power")
    float(pw[0].find(O + "power").text)
    # tcdona3's get_port_status and labels.
    flt = ('<port-config xmlns="%s"><port><port-id>3</port-id><status/>'
           '</port></port-config>' % NS)
    st = m.get(filter=("subtree", flt)).data_ele.find(".//%sstatus" % O)
    check(st is not None and st.text == "ENABLED", "status of port 3")
    m.edit_config(target="running", config=(
        '<config xmlns="%s"><port-config xmlns="%s"><port><port-id>3'
        '</port-id><label>rack1-a</label></port></port-config></config>'
        % (NC, NS)))
    flt = ('<port-config xmlns="%s"><port><port-id/><label/></port>'
           '</port-config>' % NS)
    lb = m.get(filter=("subtree", flt)).data_ele
    got = {int(p.find(O + "port-id").text): p.find(O + "label").text
           for p in lb.findall(".//%sport" % O)}
    check(got.get(3) == "rack1-a", "label of port 3: %s" % got.get(3))
    # tcdona3's set_voa, get_all_atten, set_opm_config, disable_port:
    # the attenuator of egress 18, the monitor of port 18, port 5's
    # shutter (TL1 sees them: test_netconf.c asks).
    m.edit_config(target="running", config=(
        '<nc:config xmlns:nc="%s"><voa xmlns="%s"><port><port-id>18'
        '</port-id><atten-mode>VOA_MODE_ABSOLUTE</atten-mode>'
        '<atten-level>3.00</atten-level></port></voa></nc:config>'
        % (NC, NS)))
    flt = ('<voa xmlns="%s"><port><port-id/><atten-level/></port></voa>'
           % NS)
    at = {int(p.find(O + "port-id").text): float(p.find(O + "atten-level")
                                                  .text)
          for p in m.get(filter=("subtree", flt)).data_ele.findall(
              ".//%svoa/%sport" % (O, O))
          if p.find(O + "atten-level") is not None}
    check(at == {18: 3.0}, "attenuation: %s" % at)
    m.edit_config(target="running", config=(
        '<nc:config xmlns:nc="%s"><opm-config xmlns="%s"><port><port-id>'
        '18</port-id><wavelength>1310.00</wavelength><offset>0.50</offset>'
        '</port></opm-config></nc:config>' % (NC, NS)))
    m.dispatch(etree.fromstring(
        '<port-shutter-set-state xmlns="http://www.polatis.com/yang/'
        'polatis-switch"><port-disab>5</port-disab>'
        '</port-shutter-set-state>'))
    flt = ('<port-config xmlns="%s"><port><port-id>5</port-id><status/>'
           '</port></port-config>' % NS)
    st = m.get(filter=("subtree", flt)).data_ele.find(".//%sstatus" % O)
    check(st is not None and st.text == "DISABLED", "shutter of port 5")
    # set_voa on an ingress port: refused, naming it.
    tag, msg = rpc_error(lambda: m.edit_config(target="running", config=(
        '<nc:config xmlns:nc="%s"><voa xmlns="%s"><port><port-id>2'
        '</port-id><atten-mode>VOA_MODE_MAXIMUM</atten-mode></port></voa>'
        '</nc:config>' % (NC, NS))))
    check(tag == "invalid-value" and "Not an output port: 2" in msg,
          "voa on an ingress: %s %s" % (tag, msg))
    # tcdona3's disconnect_patch_list: delete by ingress only.
    edit(m, '<pair xmlns:nc="%s" nc:operation="delete"><ingress>2'
            '</ingress></pair>' % NC)
    check(pairs(m) == [(1, 18)], "after delete: %s" % pairs(m))
    m.close_session()
    print("ok basic")


def case_deny(host, port):
    m = connect(host, port)
    edit(m, "<pair><ingress>4</ingress><egress>20</egress></pair>")
    before = pairs(m)
    # A busy egress, and a batch whose second pair is busy: nothing of
    # it is applied.
    tag, msg = rpc_error(lambda: edit(
        m, "<pair><ingress>5</ingress><egress>21</egress></pair>"
           "<pair><ingress>6</ingress><egress>20</egress></pair>"))
    check(tag == "in-use" and "Port 20 already patched to 4" in msg,
          "busy: %s %s" % (tag, msg))
    check(pairs(m) == before, "half a batch applied: %s" % pairs(m))
    tag, msg = rpc_error(lambda: edit(
        m, "<pair><ingress>40</ingress><egress>50</egress></pair>"))
    check(tag == "invalid-value" and "Invalid OXC port: 40" in msg,
          "missing port: %s %s" % (tag, msg))
    tag, msg = rpc_error(lambda: edit(
        m, '<pair xmlns:nc="%s" nc:operation="delete"><ingress>9</ingress>'
           '</pair>' % NC))
    check(tag == "data-missing", "delete of nothing: %s %s" % (tag, msg))
    tag, msg = rpc_error(lambda: m.edit_config(target="running", config=(
        '<config xmlns="%s"><widgets xmlns="urn:example:widgets"><w>1'
        '</w></widgets></config>' % NC)))
    check(tag == "unknown-namespace", "foreign namespace: %s" % tag)
    tag, msg = rpc_error(lambda: m.edit_config(target="running", config=(
        '<config xmlns="%s"><opm-power xmlns="%s"><port><port-id>1'
        '</port-id><power>3</power></port></opm-power></config>'
        % (NC, NS))))
    check(tag == "invalid-value" and "state data" in msg,
          "state written: %s %s" % (tag, msg))
    check(pairs(m) == before, "changed by refusals: %s" % pairs(m))
    m.close_session()
    v = connect(host, port, "viewer", "viewpass")
    check(pairs(v) == before, "viewer reads")
    tag, msg = rpc_error(lambda: edit(
        v, "<pair><ingress>7</ingress><egress>23</egress></pair>"))
    check(tag == "access-denied", "viewer writes: %s" % tag)
    v.close_session()
    try:
        connect(host, port, "root", "wrong")
        die("a wrong password let in")
    except Exception as e:  # ncclient's AuthenticationError
        check("uthentication" in type(e).__name__ + str(e),
              "wrong password: %r" % e)
    print("ok deny")


def case_onos(host, port):
    """ONOS drivers/polatis/netconf: the XML its utility classes build,
    sent as it sends it (NetconfSession.get / editConfig / doWrappedRpc
    wrap them in the rpc envelope; ncclient does that here)."""
    m = connect(host, port)
    rev = [c for c in m.server_capabilities
           if c.startswith(NS + "?module=optical-switch&revision=")]
    check(rev and rev[0].split("revision=")[1] >= "2017-08-04",
          "ONOS needs a revision >= 2017-08-04 for <pair>: %s" % rev)
    # PolatisDeviceDescription: product-information.
    d = m.get(filter=("subtree", '<product-information xmlns="%s">'
                      '</product-information>' % NS)).data_ele
    pi = d.find(".//%sproduct-information" % O)
    for leaf in ("manufacturer", "model-name", "software-version",
                 "serial-number"):
        check(pi is not None and pi.find(O + leaf) is not None,
              "product-information/" + leaf)
    # PolatisUtility.getPortsFilter: every port, status, label, peer-port.
    d = m.get(filter=("subtree", '<port-config xmlns="%s"><port><port-id/>'
                      '<status/><label/><peer-port/></port></port-config>'
                      % NS)).data_ele
    ports = d.findall(".//%sport-config/%sport" % (O, O))
    check(len(ports) == 32, "ONOS ports: %d" % len(ports))
    for p in ports:
        for leaf in ("port-id", "status", "label", "peer-port"):
            check(p.find(O + leaf) is not None, "port/" + leaf)
    # PolatisFlowRuleProgrammable.editConnection: merge, then delete, of
    # one pair, default-operation absent (mode null).
    m.edit_config(target="running", config=(
        '<config xmlns="%s"><cross-connects xmlns="%s"><pair operation='
        '"merge"><ingress>11</ingress><egress>27</egress></pair>'
        '</cross-connects></config>' % (NC, NS)))
    # getConnectionsFilter: the whole container.
    d = m.get(filter=("subtree", '<cross-connects xmlns="%s">'
                      '</cross-connects>' % NS)).data_ele
    got = [(p.find(O + "ingress").text, p.find(O + "egress").text)
           for p in d.findall(".//%scross-connects/%spair" % (O, O))]
    check(("11", "27") in got, "ONOS pair: %s" % got)
    # PolatisPowerConfig.getPortPowerFilter(port): port-id only, power
    # comes as its sibling.
    d = m.get(filter=("subtree", '<opm-power xmlns="%s"><port><port-id>27'
                      '</port-id></port></opm-power>' % NS)).data_ele
    pw = d.find(".//%sopm-power/%sport/%spower" % (O, O, O))
    check(pw is not None, "ONOS power: %s" % etree.tostring(d))
    float(pw.text)
    # PolatisPowerConfig.setTargetPower: a merge of the attenuator, then
    # getPortAttenuationFilter reads it back.
    m.edit_config(target="running", default_operation="merge", config=(
        '<config xmlns="%s"><voa xmlns="%s"><port><port-id>27</port-id>'
        '<atten-mode>VOA_MODE_ABSOLUTE</atten-mode><atten-level>2.5'
        '</atten-level></port></voa></config>' % (NC, NS)))
    d = m.get(filter=("subtree", '<voa xmlns="%s"><port><port-id>27'
                      '</port-id><atten-level></atten-level></port></voa>'
                      % NS)).data_ele
    lv = d.find(".//%svoa/%sport/%satten-level" % (O, O, O))
    check(lv is not None and float(lv.text) == 2.5, "ONOS attenuation")
    m.edit_config(target="running", config=(
        '<config xmlns="%s"><cross-connects xmlns="%s"><pair operation='
        '"delete"><ingress>11</ingress><egress>27</egress></pair>'
        '</cross-connects></config>' % (NC, NS)))
    d = m.get(filter=("subtree", '<cross-connects xmlns="%s">'
                      '</cross-connects>' % NS)).data_ele
    check(d.find(".//%spair/%singress" % (O, O)) is None or
          "11" not in [i.text for i in d.iter(O + "ingress")],
          "ONOS delete")
    m.close_session()
    print("ok onos")


def raw_session(host, port, hello=True):
    """A paramiko channel on the netconf subsystem, hello sent (base:1.0
    framing, ]]>]]>)."""
    t = paramiko.Transport((host, port))
    t.connect(username="root", password="root")
    ch = t.open_session()
    ch.invoke_subsystem("netconf")
    ch.settimeout(10)
    if hello:
        ch.sendall(('<?xml version="1.0"?><hello xmlns="%s"><capabilities>'
                    '<capability>urn:ietf:params:netconf:base:1.0'
                    '</capability></capabilities></hello>]]>]]>' % NC)
                   .encode())
        read_msg(ch)
    return t, ch


def read_msg(ch):
    buf = b""
    while b"]]>]]>" not in buf:
        b = ch.recv(65536)
        if not b:
            return None
        buf += b
    return buf.split(b"]]>]]>")[0].decode()


def case_bad(host, port):
    # Malformed XML: an rpc-error (malformed-message) or a closed session.
    t, ch = raw_session(host, port)
    ch.sendall(b'<rpc message-id="1" xmlns="%s"><get><filter>'
               b'<cross-connects></rpc>]]>]]>' % NC.encode())
    r = read_msg(ch)
    check(r is None or "rpc-error" in r, "malformed: %s" % r)
    t.close()
    # An empty namespace (Debian 12's libyang crashes on two siblings in
    # it): the session is closed, the switch lives.
    t, ch = raw_session(host, port)
    ch.sendall(b'<rpc message-id="3" xmlns="%s"><get><filter><a xmlns="">'
               b'<b/><b/></a></filter></get></rpc>]]>]]>' % NC.encode())
    check(read_msg(ch) is None, "an empty namespace answered")
    t.close()
    m = connect(host, port)
    # A million as a port, and a list naming 10^6 ports.
    tag, msg = rpc_error(lambda: edit(
        m, "<pair><ingress>1000000</ingress><egress>17</egress></pair>"))
    check(tag == "invalid-value", "10^6 as a port: %s %s" % (tag, msg))
    many = "".join("<pair><ingress>%d</ingress><egress>%d</egress></pair>"
                   % (i, i + 1) for i in range(1, 10**5 + 1))
    t0 = time.time()
    tag, msg = rpc_error(lambda: edit(m, many))
    check(tag == "too-big", "a huge list: %s %s" % (tag, msg))
    check(time.time() - t0 < 60, "a huge list took %.1fs" % (time.time() - t0))
    # The session still serves.
    pairs(m)
    m.close_session()
    # A half-closed channel: EOF after a request; the switch answers or
    # closes, and keeps serving others.
    t, ch = raw_session(host, port)
    ch.sendall(b'<rpc message-id="2" xmlns="%s"><get/></rpc>]]>]]>'
               % NC.encode())
    ch.shutdown_write()
    r = read_msg(ch)
    check(r is None or "rpc-reply" in r, "half-closed: %s" % r)
    t.close()
    # No hello: closed after the login grace (the test runs with 1s).
    t, ch = raw_session(host, port, hello=False)
    srv_hello = read_msg(ch)
    check(srv_hello is not None and "<hello" in srv_hello, "server hello")
    t0 = time.time()
    check(read_msg(ch) is None, "no hello, yet an answer")
    check(time.time() - t0 < 8, "no hello: open for %.1fs" % (time.time() - t0))
    t.close()
    m = connect(host, port)
    pairs(m)
    m.close_session()
    print("ok bad")


def case_sessions(host, port):
    a = connect(host, port)
    b = connect(host, port)
    # lock: b's edits are refused while a holds running.
    a.lock(target="running")
    tag, msg = rpc_error(lambda: edit(
        b, "<pair><ingress>12</ingress><egress>28</egress></pair>"))
    check(tag == "in-use" and "locked" in msg, "locked: %s %s" % (tag, msg))
    tag, msg = rpc_error(lambda: b.lock(target="running"))
    check(tag == "lock-denied", "second lock: %s" % tag)
    a.unlock(target="running")
    edit(b, "<pair><ingress>12</ingress><egress>28</egress></pair>")
    # kill-session: b ends a; a's next request fails.
    b.kill_session(a.session_id)
    time.sleep(0.5)
    try:
        pairs(a)
        die("a killed session still answers")
    except RPCError:
        die("a killed session answers with an error")
    except Exception:
        pass
    tag, msg = rpc_error(lambda: b.kill_session("9999"))
    check(tag == "invalid-value", "kill of nothing: %s" % tag)
    b.close_session()
    # 100 idle sessions: those past the switch's limit are closed, and a
    # client still gets in once they go.
    idle, refused = [], 0
    for _ in range(100):
        try:
            t = paramiko.Transport((host, port))
            t.connect(username="root", password="root")
            idle.append(t)
        except Exception:
            refused += 1
    live = sum(1 for t in idle if t.is_active())
    check(live <= 64, "%d idle sessions held" % live)
    for t in idle:
        t.close()
    time.sleep(0.5)
    m = connect(host, port)
    pairs(m)
    m.close_session()
    print("ok sessions (%d refused or closed of 100)" % (100 - live))


def main():
    if len(sys.argv) != 4:
        die("usage: nc_client.py CASE HOST PORT")
    case, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"basic": case_basic, "deny": case_deny, "onos": case_onos,
     "bad": case_bad, "sessions": case_sessions}[case](host, port)


if __name__ == "__main__":
    main()

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_emu_polatis.c: conformance of ocs-emu's Polatis TL1
 * face.  Commands as real clients send them (the Polatis SDK, tcdona3,
 * Quali's cloudshell-L1-polatis, the Polatis TL1 test-suite), each with
 * the exact reply a Polatis gives (issue 12; testbed/ocs-emu/PROTOCOLS.md
 * says which are confirmed and which inferred), run through the
 * emulator's own command path.  Every expected reply is also run through
 * the driver's parser (tl1.c), which must read it as the device meant.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "proto/base/version.h"
#include "tests/lib/emutest.h"
#include "testbed/ocs-emu/emu.h"

#define H  "\r\n\n   OCS-EMU 00-00-00 00:00:00\r\n"
#define HN "\r\n\n   Polatis OXC 00-00-00 00:00:00\r\n"

/* A command and the exact bytes the switch sends back (header time
 * zeroed). */
struct conv {
	const char *in, *out;
};

static const struct conv polatis[] = {
    /* Before the login: the text clients match to log in again. */
    {"RTRV-PATCH:::1:;",
     H "M  1 DENY\r\n   PLNA\r\n   /* Not logged in */\r\n;"},
    {"ACT-USER::root:2::root;", H "M  2 COMPLD\r\n;"},
    /* Parse errors count from 1. */
    {"INIT-SYS::ALARM:::1;",
     H "M  0 DENY\r\n   IICT\r\n   /* Parse error at offset 17 in command "
       "*/\r\n;"},
    {"ACT-USER::admin::123::root;",
     H "M  0 DENY\r\n   IICT\r\n   /* Parse error at offset 17 in command "
       "*/\r\n;"},
    {"RTRV-HDR:@#@#::3:;",
     H "M  0 DENY\r\n   IITA\r\n   /* Parse error at offset 10 in command "
       "*/\r\n;"},
    {"RTRV-HDR:9942::3:;",
     H "M  0 DENY\r\n   IITA\r\n   /* Parse error at offset 10 in command "
       "*/\r\n;"},
    {"RTRV-HDR:OTHER::3:;",
     H "M  3 DENY\r\n   IITA\r\n   /* Mismatched TID */\r\n;"},
    {"RTRV-NETYPE:::4:;",
     H "M  4 COMPLD\r\n   \"Polatis,N-OCS-EMU-8x8,OCS," OCS_VERSION "\"\r\n;"},
    {"RTRV-EQPT::SYSTEM:5:::PARAMETER=SIZE;",
     H "M  5 COMPLD\r\n   \"SYSTEM:SIZE=8x8\"\r\n;"},
    {"OPR-ARC-EQPT::REPMGR:6::IND;", H "M  6 COMPLD\r\n;"},
    {"RTRV-ARC-EQPT::ALL:7:;", H "M  7 COMPLD\r\n   \"REPMGR:IND,,\"\r\n;"},
    {"RLS-ARC-EQPT::ALL:8:;", H "M  8 COMPLD\r\n;"},
    {"RTRV-ARC-EQPT::REPMGR:9:;", H "M  9 COMPLD\r\n   \"REPMGR:ALW,,\"\r\n;"},
    /* Off again, as clients keep them (test_emu_polatis_autonomous). */
    {"OPR-ARC-EQPT::REPMGR:9::IND;", H "M  9 COMPLD\r\n;"},
    {"RTRV-ARC-EQPT::FOO:9:;",
     H "M  9 DENY\r\n   IIAC\r\n   /* Invalid AID FOO */\r\n;"},
    /* Parameters: ranges, garbage, names. */
    {"ED-EQPT::TIMEOUT:10:::ADMIN=61;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::TIMEOUT:10:::ADMIN=-2;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::TIMEOUT:10:::ADMIN=@#$;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::TIMEOUT:10:::adm=5;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Unexpected parameter adm in block 2 "
       "*/\r\n;"},
    {"ED-EQPT::TIMEOUT:11:::ADMIN=60;", H "M  11 COMPLD\r\n;"},
    {"RTRV-EQPT::TIMEOUT:12:::PARAMETER=ADMIN;",
     H "M  12 COMPLD\r\n   \"TIMEOUT:ADMIN=60\"\r\n;"},
    {"ED-EQPT::TIMEOUT:11:::ADMIN=0;", H "M  11 COMPLD\r\n;"},
    {"RTRV-EQPT::BOOT:13:::PARAMETER=12345;",
     H "M  13 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::BOOT:13:::MODE=12345;",
     H "M  13 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::BOOT:13:::MODE=sun;",
     H "M  13 DENY\r\n   IDNV\r\n   /* Invalid value sun */\r\n;"},
    {"RTRV-EQPT::9999:14:;",
     H "M  14 DENY\r\n   IIAC\r\n   /* Invalid AID 9999 */\r\n;"},
    /* One rule for port lists. */
    {"RTRV-PORT-POWER::1&&17:15:;",
     H "M  15 DENY\r\n   IIAC\r\n   /* Too many ports */\r\n;"},
    {"RTRV-PORT-POWER::17:15:;",
     H "M  15 DENY\r\n   IDNV\r\n   /* Invalid OXC port: 17 */\r\n;"},
    {"ENT-PATCH::1000,9:16:;",
     H "M  16 DENY\r\n   IDNV\r\n   /* Invalid OXC port: 1000 */\r\n;"},
    {"ENT-PATCH::a,b:16:;",
     H "M  16 DENY\r\n   IDNV\r\n   /* Invalid OXC port: a */\r\n;"},
    {"ENT-PATCH::,:16:;",
     H "M  16 DENY\r\n   IIAC\r\n   /* Empty parameters */\r\n;"},
    {"ENT-PATCH::1&2,9&10:17:;", H "M  17 COMPLD\r\n;"},
    {"RTRV-PATCH:::18:;", H "M  18 COMPLD\r\n   \"1,9\"\r\n   \"2,10\"\r\n;"},
    {"RTRV-PATCH::10:18:;", H "M  18 COMPLD\r\n   \"2,10\"\r\n;"},
    {"DLT-PATCH::1:19:;", H "M  19 COMPLD\r\n;"},
    /* What the SDK and Quali's autoload call. */
    {"RTRV-PORT-PMON::1&2:20:;",
     H "M  20 COMPLD\r\n   \"1:1550,0.00,1\"\r\n   \"2:1550,0.00,1\"\r\n;"},
    {"SET-PORT-PMON::2:21:::WAVE=1310,OFFSET=0.5,ATIME=3;",
     H "M  21 COMPLD\r\n;"},
    {"RTRV-PORT-PMON::2:22:;", H "M  22 COMPLD\r\n   \"2:1310,0.50,3\"\r\n;"},
    {"SET-PORT-PMON::2:21:::ATIME=9;",
     H "M  21 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"RTRV-PORT-REVPOWER::3:23:;", H "M  23 COMPLD\r\n   \"3:-99.00\"\r\n;"},
    {"SET-PORT-LABEL::3:24:::LABEL=\"h1-tx\";", H "M  24 COMPLD\r\n;"},
    {"RTRV-PORT-LABEL::3&4:25:;",
     H "M  25 COMPLD\r\n   \"3:h1-tx\"\r\n   \"4:\"\r\n;"},
    {"SET-PORT-LABEL::3:24:::LABEL=\"0123456789012345678901234567890123\";",
     H "M  24 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"RTRV-PORT-ATTEN::8&&9:26:;", H "M  26 COMPLD\r\n   \"9:NONE,,\"\r\n;"},
    {"SET-PORT-ATTEN::9:27:::MODE=ABSOLUTE,LEVEL=3;", H "M  27 COMPLD\r\n;"},
    {"SET-PORT-ATTEN::1:27:::MODE=ABS,LEVEL=(3.0);",
     H "M  27 DENY\r\n   IDNV\r\n   /* Not an output port: 1 */\r\n;"},
    {"RTRV-EQPT::PMON:28:::PARAMETER=CONFIG;",
     H "M  28 COMPLD\r\n   \"PMON::PORT=1,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=2,MODE=INPUT\"\r\n   \"PMON::PORT=3,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=4,MODE=INPUT\"\r\n   \"PMON::PORT=5,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=6,MODE=INPUT\"\r\n   \"PMON::PORT=7,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=8,MODE=INPUT\"\r\n   \"PMON::PORT=9,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=10,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=11,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=12,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=13,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=14,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=15,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=16,MODE=OUTPUT\"\r\n;"},
    {"RTRV-ALM-ALL:::29:;", H "M  29 COMPLD\r\n;"},
    {"RTRV-ALM-ENV:::29:;", H "M  29 COMPLD\r\n;"},
    {"ED-DAT:::30::26-13-01,00-00-00;",
     H "M  30 DENY\r\n   IDNV\r\n   /* Bad parameter value */\r\n;"},
    {"INIT-SYS::ALARM:31::8;",
     H "M  31 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    /* A SID of up to 20 characters, blanks and quotes allowed. */
    {"SET-SID:::32::\"Polatis OXC\";", HN "M  32 COMPLD\r\n;"},
    {"SET-SID:::33::ABCDEFGHIJKLMNOPQRSTU;",
     HN "M  33 DENY\r\n   IDNV\r\n   /* Bad parameter value */\r\n;"},
    {"SET-SID:::33::**raja;",
     HN "M  33 DENY\r\n   IDNV\r\n   /* Bad parameter value */\r\n;"},
    {"SET-SID:::34::Polatis OXC;", HN "M  34 COMPLD\r\n;"},
    {"SET-SID:::35::OCS-EMU;", H "M  35 COMPLD\r\n;"},
    {"FROB-NICATE:::36:;",
     H "M  36 DENY\r\n   IICM\r\n   /* Invalid command */\r\n;"},
    /* Logging out keeps the connection; another user's is refused. */
    {"CANC-USER::admin:37:;",
     H "M  37 DENY\r\n   PICC\r\n   /* Permission denied */\r\n;"},
    {"CANC-USER::root:38:;", H "M  38 COMPLD\r\n;"},
    {"RTRV-HDR:::39:;",
     H "M  39 DENY\r\n   PLNA\r\n   /* Not logged in */\r\n;"},
    {"ACT-USER::root:40::root;", H "M  40 COMPLD\r\n;"},
    {"ACT-USER::root:41::wrong;",
     H "M  41 DENY\r\n   PICC\r\n   /* Permission denied */\r\n;"},
};

#define DENY(tag, code, text)                                                 \
	H "M  " tag " DENY\r\n   " code "\r\n   /* " text " */\r\n;"
#define OK(tag) H "M  " tag " COMPLD\r\n;"

/*
 * The switch's users as the vendor's regression suite drives them:
 * classes (admin, user, view) enforced on every verb, with the deny codes
 * and texts it expects; ED-USER-SECU writes every field (an empty
 * password is none, an empty class the default); an account renamed
 * while logged in still logs out by the name it logged in with.
 */
static const struct conv users[] = {
    {"ACT-USER::root:1::root;", OK("1")},
    {"OPR-ARC-EQPT::REPMGR:1::IND;", OK("1")},
    /* Again: COMPLD, and the text the suite's SSH driver looks for. */
    {"ACT-USER::root:2::root;",
     H "M  2 COMPLD\r\n   /* Already logged in */\r\n;"},
    {"ENT-USER-SECU::polatis1:3::root,,user;", OK("3")},
    {"ENT-USER-SECU::polatis1:3::root,,user;",
     DENY("3", "IDNV", "User exists")},
    {"ENT-USER-SECU::polatis2:4::root,,polatis;",
     DENY("4", "IPNV", "Invalid user access privilege")},
    {"ENT-USER-SECU::polatis1@#$:5::root,,admin;",
     DENY("5", "PICC", "Permission denied")},
    {"ENT-USER-SECU::polatis3:5::@$,,admin;",
     DENY("5", "PICC", "Permission denied")},
    {"ENT-USER-SECU::viewer:5::99427,,view;", OK("5")},
    /* Not quoted: the suite splits the reply at blanks and takes what
     * comes before each comma as a user to delete. */
    {"RTRV-USER-SECU:::6:;",
     H "M  6 COMPLD\r\n   root,ADMIN\r\n   polatis1,USER\r\n"
       "   viewer,VIEW\r\n;"},
    {"RTRV-USER-SECU::abcd:7:;", DENY("7", "IDNV", "User does not exist")},
    {"DLT-USER-SECU::5147:8:;", DENY("8", "IDNV", "User does not exist")},
    /* A user-class session: patches, not users or the system. */
    {"CANC-USER::root:9:;", OK("9")},
    {"ACT-USER::polatis1:10::root;", OK("10")},
    {"ENT-PATCH::1,9:11:;", OK("11")},
    {"ENT-USER-SECU::x:12::root,,admin;",
     DENY("12", "PICC", "Permission denied")},
    {"RTRV-USER-SECU::root:13:;",
     DENY("13", "SRCN", "User not in the admin group")},
    {"RTRV-USER-SECU:::13:;",
     DENY("13", "SRCN", "User not in the admin group")},
    {"RTRV-USER-SECU::polatis1:13:;",
     H "M  13 COMPLD\r\n   polatis1,USER\r\n;"},
    {"DLT-USER-SECU::root:14;",
     DENY("14", "PICC", "User not in the admin group")},
    {"CANC-USER::root:15:;", DENY("15", "PICC", "Permission denied")},
    {"ED-EQPT::BOOT:16:::MODE=DARK;", DENY("16", "PICC", "Permission denied")},
    {"RTRV-USER:::17:;", H "M  17 COMPLD\r\n   polatis1,USER\r\n;"},
    {"ED-SECU-PID::polatis1:18::root,s3cret;", OK("18")},
    {"ED-SECU-PID::polatis1:18::root,other;",
     DENY("18", "PICC", "Permission denied")},
    {"CANC-USER::polatis1:19:;", OK("19")},
    /* A view-class session: retrieve only. */
    {"ACT-USER::viewer:20::99427;", OK("20")},
    {"RTRV-PATCH:::21:;", H "M  21 COMPLD\r\n   \"1,9\"\r\n;"},
    {"DLT-PATCH::1:22:;", DENY("22", "PICC", "Permission denied")},
    /* Another login on the same session replaces the first. */
    {"ACT-USER::root:23::root;", OK("23")},
    {"ED-USER-SECU::polatis1:24::polatis2,,,;", OK("24")},
    {"RTRV-USER-SECU::polatis2:25:;",
     H "M  25 COMPLD\r\n   polatis2,USER\r\n;"},
    {"ED-USER-SECU::polatis2:26::,,,abcd;",
     DENY("26", "IPNV", "Invalid user access privilege")},
    {"ED-USER-SECU::polatis2:26::,@root,,admin;",
     DENY("26", "PICC", "Permission denied")},
    {"ED-USER-SECU::polatis2:26::viewer,,,;",
     DENY("26", "IDNV", "User exists")},
    {"CANC-USER::root:27:;", OK("27")},
    /* No password block: no password (the edit emptied it). */
    {"ACT-USER::polatis2:28:;", OK("28")},
    {"ACT-USER::root:29::;",
     DENY("29", "IPMS", "Too few parameters (0/1) in block 1")},
    {"CANC-USER::polatis1:30:;", OK("30")},
    {"ACT-USER::root:31::root;", OK("31")},
    {"DLT-USER-SECU::polatis2:32:;", OK("32")},
    {"DLT-USER-SECU::polatis2:32:;",
     DENY("32", "IDNV", "User does not exist")},
};

/* The suite's system items: network identity, labels, dates, alarms, the
 * reset that keeps the session, a quoted CTAG. */
static const struct conv sys[] = {
    {"ACT-USER::root:1::root;", OK("1")},
    {"OPR-ARC-EQPT::REPMGR:1::IND;", OK("1")},
    {"RTRV-IP::eth0:2:;",
     H "M  2 COMPLD\r\n   \"eth0:IPADDR=127.0.0.1,NETMASK=255.0.0.0,"
       "GATEWAY=0.0.0.0,BROADCAST=127.255.255.255\"\r\n;"},
    {"RTRV-IPPORT::eth1:3:;",
     H "M  3 COMPLD\r\n   \"ETH1:IPADDR=0.0.0.0,NETMASK=0.0.0.0,"
       "GATEWAY=0.0.0.0,BROADCAST=0.0.0.0,DHCP=N\"\r\n;"},
    {"RTRV-MAC::eth0:4:;",
     H "M  4 COMPLD\r\n   \"ETH0:MAC=02:4f:43:53:08:00\"\r\n;"},
    {"RTRV-MAC::eth2:4:;", DENY("4", "IIAC", "Invalid AID eth2")},
    {"ED-PORT-LABEL::1&7:5:::LABEL=src1&src2;", OK("5")},
    {"RTRV-PORT-LABEL::1&7:6:;",
     H "M  6 COMPLD\r\n   \"1:src1\"\r\n   \"7:src2\"\r\n;"},
    {"ED-PORT-LABEL::1:7:::LABEL=@#$;",
     DENY("7", "IPNV", "Parameter not valid")},
    {"ED-PORT-LABEL::1:7:::LABEL=ABCDEFGHIJKLMNOPQRSTUVWXYZ;",
     DENY("7", "IPNV", "Parameter not valid")},
    {"ED-PORT-LABEL::1&7:7:::LABEL=a&b&c;",
     DENY("7", "IPNV", "Parameter not valid")},
    {"RTRV-PORT-LABEL::1:6:;", H "M  6 COMPLD\r\n   \"1:src1\"\r\n;"},
    {"ED-DAT:::8::16-08-33;", DENY("8", "IDNV", "Bad parameter value")},
    {"ED-DAT:::8::16-02-30;", DENY("8", "IDNV", "Bad parameter value")},
    {"ED-DAT:::8::2038-08-16;", DENY("8", "SSTP", "Date out of range")},
    {"ED-DAT::123::31-2016-12;",
     DENY("0", "IICT", "Parse error at offset 13 in command")},
    {"RTRV-ALM-EQPT::Invalid:9::cr,,sa;",
     DENY("9", "IIAC", "Invalid AID Invalid")},
    {"RTRV-ALM-ENV::Invalid:9:;", DENY("9", "IIAC", "Invalid AID Invalid")},
    {"RTRV-ALM-ALL::ALL:9:;", OK("9")},
    /* Phase 1 resets the OXC and the shutters; the session goes on. */
    {"ENT-PATCH::2,10:10:;", OK("10")},
    {"OPR-PORT-SHUTTER::3:11:;", OK("11")},
    {"ED-EQPT::BOOT:12:::MODE=DARK;", OK("12")},
    {"INIT-SYS::SYSTEM:13::1;", OK("13")},
    {"RTRV-PATCH:::14:;", OK("14")},
    {"RTRV-PORT-SHUTTER::3:15:;", H "M  15 COMPLD\r\n   \"3:OPEN\"\r\n;"},
    {"INIT-SYS::SYSTEM:16::2;", DENY("16", "IPNV", "Parameter not valid")},
    {"INIT-SYS::ALARM:17::3;", OK("17")},
    {"RTRV-NETYPE:::\"Polatis OXC\":;", H
     "M  \"Polatis OXC\" COMPLD\r\n   \"Polatis,N-OCS-EMU-8x8,OCS," OCS_VERSION
     "\"\r\n;"},
};

/* Attenuators in every mode the vendor's SDK sends (LEVEL=(x) as it
 * writes levels), read back positionally; the reverse monitors, the
 * thresholds and their monitoring, and port flapping; the power monitors
 * read what each does to the light. */
static const struct conv voa[] = {
    {"ACT-USER::root:1::root;", OK("1")},
    {"OPR-ARC-EQPT::REPMGR:1::IND;", OK("1")},
    {"RTRV-EQPT::ATTEN:2:::PARAMETER=CONFIG;",
     H "M  2 COMPLD\r\n   \"ATTEN::MODE=CONVERGED\"\r\n;"},
    {"SET-PORT-ATTEN::5:3:::MODE=ABS,LEVEL=(3.5);", OK("3")},
    {"SET-PORT-ATTEN::6:3:::MODE=MAX;", OK("3")},
    {"SET-PORT-ATTEN::7:3:::MODE=CONV,LEVEL=2;", OK("3")},
    {"SET-PORT-ATTEN::8:3:::MODE=REL,LEVEL=(1.0),REFS=2;", OK("3")},
    {"RTRV-PORT-ATTEN:::4:;",
     H "M  4 COMPLD\r\n   \"5:ABS,3.50,\"\r\n   \"6:MAX,,\"\r\n"
       "   \"7:CONV,2.00,\"\r\n   \"8:REL,1.00,2\"\r\n;"},
    /* FIX holds what is in force. */
    {"SET-PORT-ATTEN::6:5:::MODE=FIX;", OK("5")},
    {"SET-PORT-ATTEN::7:5:::MODE=NONE;", OK("5")},
    {"RTRV-PORT-ATTEN::6&7:4:;",
     H "M  4 COMPLD\r\n   \"6:FIX,60.00,\"\r\n   \"7:NONE,,\"\r\n;"},
    {"SET-PORT-ATTEN::7:6:::MODE=ABS;",
     DENY("6", "IPNV", "Parameter not valid")},
    {"SET-PORT-ATTEN::7:6:::MODE=NONE,LEVEL=1;",
     DENY("6", "IPNV", "Parameter not valid")},
    {"SET-PORT-ATTEN::7:6:::MODE=ABS,LEVEL=1,REFS=2;",
     DENY("6", "IPNV", "Parameter not valid")},
    {"SET-PORT-ATTEN::7:6:::MODE=ODD;",
     DENY("6", "IPNV", "Parameter not valid")},
    /* 3.5 dB off the -4 dBm a path carries; relative: 1 dB under port 2's
     * -3 dBm. */
    {"ENT-PATCH::1&2,5&8:7:;", OK("7")},
    {"RTRV-PORT-POWER::5&8:8:;",
     H "M  8 COMPLD\r\n   \"5:-7.50\"\r\n   \"8:-4.00\"\r\n;"},
    {"RTRV-EQPT::REVPMON:9:::PARAMETER=CONFIG;",
     H "M  9 COMPLD\r\n   \"REVPMON::PORT=1,MODE=OUTPUT\"\r\n"
       "   \"REVPMON::PORT=2,MODE=OUTPUT\"\r\n"
       "   \"REVPMON::PORT=3,MODE=OUTPUT\"\r\n"
       "   \"REVPMON::PORT=4,MODE=OUTPUT\"\r\n"
       "   \"REVPMON::PORT=5,MODE=INPUT\"\r\n"
       "   \"REVPMON::PORT=6,MODE=INPUT\"\r\n"
       "   \"REVPMON::PORT=7,MODE=INPUT\"\r\n"
       "   \"REVPMON::PORT=8,MODE=INPUT\"\r\n;"},
    {"RTRV-PORT-REVPMON::1&2:10:;",
     H "M  10 COMPLD\r\n   \"1:1550,0.00,1\"\r\n   \"2:1550,0.00,1\"\r\n;"},
    {"SET-TH-PMON::1:11:::TYPE=LOS,VALUE=-25.5;", OK("11")},
    {"RTRV-TH-PMON::1:12:::TYPE=LOS;",
     H "M  12 COMPLD\r\n   \"1:LOS,-25.50\"\r\n;"},
    {"RTRV-TH-PMON::2:12:;",
     H "M  12 COMPLD\r\n   \"2:LOS,-40.00\"\r\n   \"2:LOW,-30.00\"\r\n"
       "   \"2:HIGH,10.00\"\r\n;"},
    {"SET-TH-PMON::1:13:::TYPE=BAD,VALUE=1;",
     DENY("13", "IPNV", "Parameter not valid")},
    {"SET-STATE-PMON::1:14:::TYPE=LOS,MODE=SINGLE;", OK("14")},
    {"RTRV-STATE-PMON::1:15:::TYPE=LOS;",
     H "M  15 COMPLD\r\n   \"1:LOS,SINGLE\"\r\n;"},
    {"SET-STATE-PMON::1:16:::TYPE=LOS,MODE=SOMETIMES;",
     DENY("16", "IPNV", "Parameter not valid")},
    /* A port flapping is dark in its off intervals (1 s first). */
    {"ENT-PORT-FLAP::3:17::1000, 500, 1;", OK("17")},
    {"RTRV-PORT-FLAP:::18:;",
     H "M  18 COMPLD\r\n   \"3:1000,500,1,INACTIVE\"\r\n;"},
    {"OPR-PORT-FLAP::4:19;", DENY("19", "SNVS", "No flap set on port 4")},
    {"OPR-PORT-FLAP::3:19;", OK("19")},
    {"RTRV-PORT-FLAP::3:20:;",
     H "M  20 COMPLD\r\n   \"3:1000,500,1,ACTIVE\"\r\n;"},
    {"RTRV-PORT-POWER::3:21:;", H "M  21 COMPLD\r\n   \"3:-99.00\"\r\n;"},
    {"RLS-PORT-FLAP::3:22;", OK("22")},
    {"RTRV-PORT-POWER::3:23:;", H "M  23 COMPLD\r\n   \"3:-3.00\"\r\n;"},
    {"ENT-PORT-FLAP::3:24::5,500,1;",
     DENY("24", "IPNV", "Parameter not valid")},
};

/* The reply, parsed as the driver parses it, says what was meant. */
static void
driver_reads(const char *out)
{
	struct tl1_resp r;
	ssize_t         n = tl1_resp_parse(out, strlen(out), &r);
	const char     *dl = strstr(out, "DENY\r\n   ");
	char            code[8] = "";

	if (n != (ssize_t)strlen(out))
		fail_msg("the driver reads %zd of %zu bytes of: %s", n,
		         strlen(out), out);
	assert_int_equal(r.kind, TL1_RESP);
	if (dl != NULL) {
		sscanf(dl + 9, "%7[A-Z]", code);
		assert_int_equal(r.status, TL1_DENY);
		assert_string_equal(r.code, code);
		assert_non_null(strstr(out, r.comment));
	} else
		assert_int_equal(r.status, TL1_COMPLD);
	tl1_resp_free(&r);
}

/* All the commands in one session, as a client sends them; the replies
 * come back in order, one each. */
static void
converse(struct emu *e, const struct emu_tl1_dialect *d, const struct conv *c,
         size_t n)
{
	struct tl1_buf in = {0}, out = {0};
	char          *p, *next;
	size_t         i;

	for (i = 0; i < n; i++)
		assert_int_equal(tl1_buf_printf(&in, "%s\r\n", c[i].in), 0);
	assert_int_equal(emu_tl1_feed(e, d, in.p, in.len, &out), 0);
	assert_int_equal(tl1_buf_put(&out, "", 1), 0);
	emutest_zero_time(out.p);
	for (p = out.p, i = 0; i < n; i++, p = next) {
		/* A reply runs to its ";" line, the next starts "\r\n\n". */
		next = strstr(p + 1, "\r\n\n   ");
		if (next != NULL)
			*next = '\0';
		if (strcmp(p, c[i].out) != 0)
			fail_msg("%s\n  got:  %s\n  want: %s", c[i].in, p,
			         c[i].out);
		driver_reads(c[i].out);
		if (next == NULL) {
			assert_int_equal(i, n - 1);
			break;
		}
		*next = '\r';
	}
	tl1_buf_free(&in);
	tl1_buf_free(&out);
}

/* One session throughout, as a client would keep one. */
static void
test_emu_polatis_conformance(void **state)
{
	struct emu *e = emutest_new(8, 1000000, "root", "root");

	(void)state;
	converse(e, &emu_tl1_polatis, polatis,
	         sizeof(polatis) / sizeof(polatis[0]));
	emutest_del(e);
}

static void
test_emu_polatis_users(void **state)
{
	struct emu *e = emutest_new(8, 0, "root", "root");

	(void)state;
	converse(e, &emu_tl1_polatis, users, sizeof(users) / sizeof(users[0]));
	emutest_del(e);
}

static void
test_emu_polatis_system(void **state)
{
	struct emu *e = emutest_new(8, 0, "root", "root");

	(void)state;
	snprintf(e->c.tl1, sizeof(e->c.tl1), "127.0.0.1:3082");
	converse(e, &emu_tl1_polatis, sys, sizeof(sys) / sizeof(sys[0]));
	emutest_del(e);
}

static void
test_emu_polatis_voa(void **state)
{
	struct emu *e = emutest_new(4, 0, "root", "root");

	(void)state;
	converse(e, &emu_tl1_polatis, voa, sizeof(voa) / sizeof(voa[0]));
	emutest_del(e);
}

/* A switch reports by default, each session until it says otherwise (as
 * its clients do at login); the REPT comes before the change's COMPLD. */
static void
test_emu_polatis_autonomous(void **state)
{
	static const char in[] =
	    "ACT-USER::root:1::root;OPR-PORT-SHUTTER::1:2:;"
	    "OPR-ARC-EQPT::REPMGR:3::IND;RLS-PORT-SHUTTER::1:4:;"
	    "CANC-USER::root:5:;ACT-USER::root:6::root;"
	    "OPR-PORT-SHUTTER::1:7:;";
	struct emu    *e = emutest_new(8, 0, "root", "root");
	struct tl1_buf out = {0};
	const char    *rept, *c2;

	(void)state;
	assert_int_equal(
	    emu_tl1_feed(e, &emu_tl1_polatis, in, strlen(in), &out), 0);
	assert_int_equal(tl1_buf_put(&out, "", 1), 0);
	rept = strstr(out.p, "REPT EVT PORT");
	c2 = strstr(out.p, "M  2 COMPLD");
	assert_non_null(rept);
	assert_non_null(c2);
	assert_true(rept < c2);
	assert_non_null(strstr(rept, "Port 1 disabled"));
	/* One only: the session turned them off, across its logins. */
	assert_null(strstr(rept + 1, "REPT"));
	assert_non_null(strstr(out.p, "M  7 COMPLD"));
	tl1_buf_free(&out);
	emutest_del(e);
}

/* Phase 10 restarts the switch: the answer, then the session closes
 * (nothing after it is read); phase 1 kept it (test_emu_polatis_system). */
static void
test_emu_polatis_restart(void **state)
{
	static const char in[] = "ACT-USER::root:1::root;"
	                         "INIT-SYS::SYSTEM:2::10;RTRV-HDR:::3:;";
	struct emu       *e = emutest_new(8, 0, "root", "root");
	struct tl1_buf    out = {0};

	(void)state;
	assert_int_equal(
	    emu_tl1_feed(e, &emu_tl1_polatis, in, strlen(in), &out), 0);
	assert_int_equal(tl1_buf_put(&out, "", 1), 0);
	assert_non_null(strstr(out.p, "M  2 COMPLD"));
	assert_null(strstr(out.p, "M  3 "));
	tl1_buf_free(&out);
	emutest_del(e);
}

/* The accounts survive a restart in the state file, their passwords as
 * hashes only, the file readable by its owner only. */
static void
test_emu_polatis_users_kept(void **state)
{
	struct emu *e = emutest_new(8, 0, "root", "root"), *e2;
	char        path[] = "/tmp/test_emu_polatis.XXXXXX", err[256];
	char        buf[4096];
	struct stat st;
	FILE       *fp;
	size_t      n;
	int         fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(e->c.state, sizeof(e->c.state), "%s", path);
	assert_int_equal(
	    emu_users_add(&e->users, "polatis1", "s3cret", EMU_PRIV_USER), 0);
	assert_int_equal(emu_state_save(e), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_non_null(fp = fopen(path, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_null(strstr(buf, "s3cret"));
	assert_non_null(strstr(buf, "user polatis1 USER $6$"));
	/* A switch started with another --user keeps the file's. */
	e2 = emutest_new(8, 0, "other", "pw");
	snprintf(e2->c.state, sizeof(e2->c.state), "%s", path);
	assert_int_equal(emu_state_load(e2, err, sizeof(err)), 0);
	assert_int_equal(emu_users_auth(&e2->users, "polatis1", "s3cret"),
	                 EMU_PRIV_USER);
	assert_int_equal(emu_users_auth(&e2->users, "polatis1", "wrong"),
	                 -EACCES);
	assert_int_equal(emu_users_auth(&e2->users, "root", "root"),
	                 EMU_PRIV_ADMIN);
	assert_int_equal(emu_users_auth(&e2->users, "other", "pw"), -EACCES);
	emutest_del(e2);
	/* A line that is not an account is refused, naming the line. */
	assert_non_null(fp = fopen(path, "a"));
	fputs("user bad@name ADMIN - bad@name\n", fp);
	fclose(fp);
	e2 = emutest_new(8, 0, "root", "root");
	snprintf(e2->c.state, sizeof(e2->c.state), "%s", path);
	assert_int_equal(emu_state_load(e2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "user line"));
	emutest_del(e2);
	unlink(path);
	emutest_del(e);
}

/* Whatever ends a line: \r\n, \n, \r alone, or nothing. */
static void
test_emu_polatis_terminators(void **state)
{
	static const char *const ends[] = {"\r\n", "\n", "\r", ""};
	struct emu              *e = emutest_new(8, 1000000, "root", "root");
	struct tl1_buf           out = {0};
	char                     in[256];
	size_t                   i;

	(void)state;
	for (i = 0; i < 4; i++) {
		out.len = 0;
		snprintf(in, sizeof(in),
		         "ACT-USER::root:1::root;%sRTRV-PATCH:::2:;%s",
		         ends[i], ends[i]);
		assert_int_equal(
		    emu_tl1_feed(e, &emu_tl1_polatis, in, strlen(in), &out),
		    0);
		assert_int_equal(tl1_buf_put(&out, "", 1), 0);
		assert_non_null(strstr(out.p, "M  1 COMPLD"));
		assert_non_null(strstr(out.p, "M  2 COMPLD"));
	}
	tl1_buf_free(&out);
	emutest_del(e);
}

/* An unnamed switch calls itself "( nil )": the driver's parser still
 * finds the SID and the reply. */
static void
test_emu_polatis_nil_sid(void **state)
{
	const char     *s = "\r\n\n   ( nil ) 24-01-02 03:04:05\r\n"
	                    "M  7 COMPLD\r\n   \"SYSTEM:SIZE=16x32\"\r\n;";
	struct tl1_resp r;

	(void)state;
	assert_int_equal(tl1_resp_parse(s, strlen(s), &r), (ssize_t)strlen(s));
	assert_string_equal(r.sid, "( nil )");
	assert_string_equal(r.tag, "7");
	assert_int_equal(r.nlines, 1);
	tl1_resp_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_emu_polatis_conformance),
	    cmocka_unit_test(test_emu_polatis_users),
	    cmocka_unit_test(test_emu_polatis_system),
	    cmocka_unit_test(test_emu_polatis_voa),
	    cmocka_unit_test(test_emu_polatis_autonomous),
	    cmocka_unit_test(test_emu_polatis_restart),
	    cmocka_unit_test(test_emu_polatis_users_kept),
	    cmocka_unit_test(test_emu_polatis_terminators),
	    cmocka_unit_test(test_emu_polatis_nil_sid),
	};

	log_init("test", 1, -1);
	return (cmocka_run_group_tests_name("emu_polatis", tests, NULL, NULL));
}

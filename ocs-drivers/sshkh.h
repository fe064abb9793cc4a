/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch's SSH host key against an OpenSSH known_hosts file, for
 * every driver that reaches a switch over SSH (polatis' transport = ssh,
 * polatis-netconf): a host not in the file is added (OpenSSH's
 * accept-new), a key that changed is refused naming the new key's
 * fingerprint and the file.
 */
#ifndef OCS_SSHKH_H
#define OCS_SSHKH_H

#include <libssh/libssh.h>
#include <stddef.h>

/* ss is connected, its SSH_OPTIONS_KNOWNHOSTS set to known_hosts; who
 * names the switch in messages ("HOST:PORT").  0 (known, or new and
 * added: then added holds its fingerprint, else ""), -DRV_EAUTH (the key
 * changed) or -DRV_EPROTO (the file could not be read or written); err
 * says why. */
int sshkh_check(ssh_session ss, const char *who, const char *known_hosts,
                char *added, size_t alen, char *err, size_t len);

#endif

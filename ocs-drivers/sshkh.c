/* SPDX-License-Identifier: BSD-2-Clause */
/* The known_hosts check of the SSH drivers (sshkh.h). */
#include <stdio.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/sshkh.h"

/* "SHA256:..." of the server's key, or "?" */
static void
fingerprint(ssh_session ss, char *buf, size_t len)
{
	ssh_key        key = NULL;
	unsigned char *h = NULL;
	size_t         hl = 0;
	char          *f = NULL;

	snprintf(buf, len, "?");
	if (ssh_get_server_publickey(ss, &key) == SSH_OK &&
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &h, &hl) ==
	        0 &&
	    (f = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, h, hl)) !=
	        NULL)
		snprintf(buf, len, "%s", f);
	ssh_string_free_char(f);
	ssh_clean_pubkey_hash(&h);
	ssh_key_free(key);
}

int
sshkh_check(ssh_session ss, const char *who, const char *known_hosts,
            char *added, size_t alen, char *err, size_t len)
{
	char fp[128];

	if (alen)
		added[0] = '\0';
	switch (ssh_session_is_known_server(ss)) {
	case SSH_KNOWN_HOSTS_OK:
		return (0);
	case SSH_KNOWN_HOSTS_NOT_FOUND:
	case SSH_KNOWN_HOSTS_UNKNOWN:
		fingerprint(ss, fp, sizeof(fp));
		if (ssh_session_update_known_hosts(ss) != SSH_OK) {
			snprintf(err, len, "%s: cannot add its host key to %s",
			         who, known_hosts);
			return (-DRV_EPROTO);
		}
		if (alen)
			snprintf(added, alen, "%s", fp);
		return (0);
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		fingerprint(ss, fp, sizeof(fp));
		snprintf(err, len,
		         "%s: host key changed (now %s): not the key %s holds "
		         "for it; refused",
		         who, fp, known_hosts);
		return (-DRV_EAUTH);
	default:
		snprintf(err, len, "%s: host key check failed: %s", who,
		         ssh_get_error(ss));
		return (-DRV_EPROTO);
	}
}

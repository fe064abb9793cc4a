/* SPDX-License-Identifier: BSD-2-Clause */
/* CRC32C (Castagnoli), as iSCSI and ext4 use it, computed by ISA-L.
 * crc32c(0, "123456789", 9) is 0xe3069283. */
#ifndef OCS_CRC32C_H
#define OCS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: pass 0 to start. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif

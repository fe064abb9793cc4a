/* SPDX-License-Identifier: BSD-2-Clause */
/* The release every program reports with --version. */
#ifndef OCS_VERSION_H
#define OCS_VERSION_H

#define OCS_VERSION "0.4.0"

#endif

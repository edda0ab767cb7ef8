/* SPDX-License-Identifier: Apache-2.0 */
/* The instances' part of the status block, written at load and teardown. */
#ifndef RDRAND_STATUS_PRIV_H
#define RDRAND_STATUS_PRIV_H

#include "status_block.h"

struct rdrand_prov;

/* A provider instance was loaded (prov) or refused by the CoCo check. */
void rdrand_status_loaded(const struct rdrand_prov *prov);
void rdrand_status_coco_refused(const struct rdrand_prov *prov);
/* A loaded instance is torn down. */
void rdrand_status_unloaded(const struct rdrand_prov *prov);

#endif

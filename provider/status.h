/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exported status block (include/rdrand_status.h): the storage of
 * the counters (counters.c) and of the verdict (fault.c), and the
 * instances' state, written where it changes (load, teardown).
 */
#ifndef RDRAND_STATUS_PRIV_H
#define RDRAND_STATUS_PRIV_H

#include <stdatomic.h>

#define RDRAND_STATUS_ATOMIC(type) _Atomic type
#include "rdrand_status.h"

struct rdrand_prov;

/*
 * The block, by its hidden name: the module's own accesses are direct
 * (PC-relative), as they were to the static arrays it replaces; the
 * exported name RDRAND_STATUS_SYMBOL is an alias of it (status.c).
 */
extern struct rdrand_status rdrand_status_block;

/* Around a change of the state part: readers retry across it. */
void rdrand_status_begin(void);
void rdrand_status_end(void);

/* A provider instance was loaded (prov) or refused by the CoCo check. */
void rdrand_status_loaded(const struct rdrand_prov *prov);
void rdrand_status_coco_refused(const struct rdrand_prov *prov);
/* A loaded instance is torn down. */
void rdrand_status_unloaded(const struct rdrand_prov *prov);

#endif

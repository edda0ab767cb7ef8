/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exported status block (include/rdrand_status.h): the storage of
 * the counters (counters.c) and of the verdict (fault.c), and of the
 * instances' state (status.c).
 */
#ifndef RDRAND_STATUS_BLOCK_H
#define RDRAND_STATUS_BLOCK_H

#include <stdatomic.h>

#define RDRAND_STATUS_ATOMIC(type) _Atomic type
#include "rdrand_status.h"

/*
 * The block, by its hidden name: the module's own accesses are direct
 * (PC-relative), as they were to the static arrays it replaces; the
 * exported name RDRAND_STATUS_SYMBOL is an alias of it (status_block.c).
 */
extern struct rdrand_status rdrand_status_block;

/* Around a change of the state part: readers retry across it. */
void rdrand_status_begin(void);
void rdrand_status_end(void);

#endif

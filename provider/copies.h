/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copies of the module in one process (the same build loaded from two
 * paths): where the process's verdict lives (copies.c says why).
 */
#ifndef RDRAND_COPIES_H
#define RDRAND_COPIES_H

#include "status_block.h"

/*
 * The status block whose verdict binds this copy of the module: the
 * block of the first copy of this build to load in the process, this
 * copy's own when it was that first copy or is alone.  Found once, at
 * the first call (a load: it walks the loaded objects); the same block
 * after.
 */
struct rdrand_status *rdrand_copies_home(void);

#endif

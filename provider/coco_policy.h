/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_COCO_POLICY_H
#define RDRAND_COCO_POLICY_H

#include <stddef.h>

#include "prov.h"

/*
 * Detect a confidential guest and, in one, draw and check the configured
 * seed bits.  Returns 1 when loading may go on (possibly latched in error
 * under on_coco_failure = fail-closed), 0 when the provider must refuse.
 * Under on_coco_failure = abort a failure does not return.
 */
int rdrand_coco_init_check(struct rdrand_prov *prov);

#endif

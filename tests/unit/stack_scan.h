/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the dead stack below a frame, for the zeroization tests. */
#ifndef RDRAND_TEST_STACK_SCAN_H
#define RDRAND_TEST_STACK_SCAN_H

#include <stdint.h>

/*
 * Eight bytes at p, byte by byte (any alignment), outside the
 * sanitizers' view: the dead stack is out of bounds for them.
 */
__attribute__((no_sanitize("address", "thread"))) static inline uint64_t
load64(const volatile unsigned char *p)
{
    uint64_t v = 0;

    for (int j = 0; j < 8; j++)
        v |= (uint64_t)p[j] << (8 * j);
    return v;
}

#endif

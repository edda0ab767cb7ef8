/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A thread's unfinished test windows, handed to the next new thread:
 * the windowed tests (bit proportion, APT, stuck bit) judge 512 and 64
 * words of the process's stream even where each thread draws fewer.
 */
#ifndef RDRAND_HANDOVER_H
#define RDRAND_HANDOVER_H

#include "health.h"

/* At thread exit: offer h's open windows (kept only if none waits). */
void rdrand_handover_put(const struct rdrand_health *h);

/*
 * At a thread's first self-test, on its fresh state: take the waiting
 * windows, if any, so that its words continue them.
 */
void rdrand_handover_take(struct rdrand_health *h);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recovery after a trip: fresh windows of undelivered words, judged
 * one by one by the continuous tests and as a whole by longer ones.
 */
#ifndef RDRAND_RECOVERY_H
#define RDRAND_RECOVERY_H

#include "health.h"

/* RDRAND_RECOVERY_WINDOWS, _WORDS: health_state.h. */
/*
 * Over the 16 windows each bit takes each value fewer than this many
 * times, and each byte lane's APT counts (reference included) sum to
 * fewer than RDRAND_RECOVERY_APT_CUTOFF.
 */
#define RDRAND_RECOVERY_BIT_CUTOFF 4445
#define RDRAND_RECOVERY_APT_CUTOFF 98

/* The sums of the windows' counts, and the verdict on them. */
struct rdrand_recovery_sums {
    uint32_t ones[64];
    uint32_t apt[8];
};

/* Add the counts of the window h has just completed. */
void rdrand_recovery_add_window(struct rdrand_recovery_sums *s,
                                const struct rdrand_health *h);

/* RDRAND_R_OK, or RDRAND_R_RECOVERY_FAILED when a sum is over a cutoff. */
int rdrand_recovery_judge(const struct rdrand_recovery_sums *s);

/*
 * Draw (never deliver) and judge through h: finish the current window,
 * then RDRAND_RECOVERY_WINDOWS whole ones, whose sums are judged too.
 * RDRAND_R_OK or the reason of the first failure.  h must be warm (a
 * self-test just passed).
 */
int rdrand_recovery_windows(struct rdrand_health *h);

#endif

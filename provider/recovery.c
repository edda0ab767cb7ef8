/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Why a recovery judges 16 windows, and their sums: a persistent defect
 * that the 512-word tests catch in only some windows (a bit biased to
 * 0.65 trips the bit proportion test in 18 % of them) would pass a
 * one-window recovery often, and be served until its next trip.  Over
 * 8192 words the same statistics see far weaker defects (a bit biased
 * to 0.53 fails with probability > 1 - 10^-9) at the same 2^-40 false
 * positives per sum; a clean source fails a recovery with probability
 * about 2^-33.6, which fault.c counts in the permanent verdict's rate.
 * The cutoffs (recovery.h) are derived once, in docs/health-tests.md
 * ("The latch, the recovery and the process's verdict").
 * It costs ~8800 RDRANDs (~0.3 ms at 35 ns) and runs only after a trip.
 */
#include "recovery.h"

#include <openssl/crypto.h>

#include "draw.h"
#include "errors.h"

void rdrand_recovery_add_window(struct rdrand_recovery_sums *s,
                                const struct rdrand_health *h)
{
    for (int b = 0; b < 64; b++)
        s->ones[b] += rdrand_health_bit_count(h, b);
    for (int lane = 0; lane < 8; lane++)
        s->apt[lane] += rdrand_health_apt_count(h, lane);
}

int rdrand_recovery_judge(const struct rdrand_recovery_sums *s)
{
    const uint32_t n = RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW;

    for (int b = 0; b < 64; b++)
        if (s->ones[b] >= RDRAND_RECOVERY_BIT_CUTOFF
            || n - s->ones[b] >= RDRAND_RECOVERY_BIT_CUTOFF)
            return RDRAND_R_RECOVERY_FAILED;
    for (int lane = 0; lane < 8; lane++)
        if (s->apt[lane] >= RDRAND_RECOVERY_APT_CUTOFF)
            return RDRAND_R_RECOVERY_FAILED;
    return RDRAND_R_OK;
}

/* Words drawn per rdrand_draw call: one frame wipe per 64 words. */
#define RDRAND_RECOVERY_CHUNK 64

int rdrand_recovery_windows(struct rdrand_health *h)
{
    uint64_t words[RDRAND_RECOVERY_CHUNK];
    struct rdrand_recovery_sums sums = {{0}, {0}};
    /* The rest of a window now open holds judged words before: not summed. */
    size_t skip = (RDRAND_APT_WINDOW - h->s.apt_seen) % RDRAND_APT_WINDOW;
    const size_t summed = (size_t)RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW;
    size_t total = skip + summed;
    int reason = RDRAND_R_OK;

    for (size_t k = 0; k < total && reason == RDRAND_R_OK; k++) {
        if (k % RDRAND_RECOVERY_CHUNK == 0) {
            size_t n = total - k < RDRAND_RECOVERY_CHUNK
                           ? total - k
                           : RDRAND_RECOVERY_CHUNK;

            reason =
                rdrand_draw(NULL, (unsigned char *)words, n * sizeof(words[0]));
            if (reason != RDRAND_R_OK)
                break;
        }
        reason = rdrand_health_check_word(h, words[k % RDRAND_RECOVERY_CHUNK]);
        /* total - k words to judge, this one included */
        if (reason == RDRAND_R_OK && rdrand_health_opens_window(h)
            && total - k <= summed)
            rdrand_recovery_add_window(&sums, h);
    }
    OPENSSL_cleanse(words, sizeof(words));
    if (reason == RDRAND_R_OK)
        reason = rdrand_recovery_judge(&sums);
    OPENSSL_cleanse(&sums, sizeof(sums));
    return reason;
}

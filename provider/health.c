/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Health tests on RDRAND words (SP 800-90B 4.4) and the startup self-test.
 *
 * RDRAND is the output of a DRBG, so a working unit gives uniform 64-bit
 * words (H = 64 per word, H = 8 per byte).  Each cutoff makes such a
 * source trip with probability <= 2^-40 per test window: a trip latches
 * the source, so false alarms must be vanishingly rare, while the known
 * defects are gross (constants 0, ~0, 0xFFFFFFFF; repeated values) and
 * trip on their first or second word; a stuck byte lane trips within
 * W + C - 1 = 531 words.  Rates for a clean source, exact:
 *
 *   - word == 0, word == ~0: 2^-64 = 5.4e-20 per word each,
 *     5.4e-13 per 10^7 words each.
 *   - Repetition count test, C = 1 + ceil(40 / 64) = 2 (any immediate
 *     repeat of a word fails): 2^-64 per word, 5.4e-13 per 10^7 words.
 *   - Adaptive proportion test per byte lane, W = 512, C = 20: the count
 *     is 1 + Binomial(511, 2^-8) (the reference always counts itself), so
 *     P(count >= 20) = P(Bin(511, 2^-8) >= 19) = 4.77e-13 = 2^-40.93 per
 *     lane-window, <= 3.8e-12 per 512 words (8 lanes), <= 7.5e-8 per
 *     10^7 words (19531 windows x 8 lanes).
 *     The textbook 1 + CRITBINOM(512, 2^-8, 1 - 2^-40) gives 19, but that
 *     formula ignores that the reference matches itself: with C = 19 the
 *     real rate is P(Bin(511, 2^-8) >= 18) = 4.72e-12 = 2^-37.6 > 2^-40.
 *     C = 20 is the smallest cutoff that honours alpha <= 2^-40; a stuck
 *     lane still trips after 20 samples.
 *   - Self-test bit-change floor (see rdrand_selftest_changes_ok below):
 *     2.4e-15 per pair, 1.7e-14 = 2^-45.8 per 8-word sample.
 *   - Self-test lane variety (rdrand_selftest_lanes_vary below): a byte
 *     lane holds one value in all 8 words with probability 2^-56, so
 *     8 x 2^-56 = 2^-53 per sample.
 *
 * Every test sees every word, even after another test failed on it, so the
 * state always describes the whole stream.  The first failing test in the
 * order zero, ones, repeat, APT names the reason.  A failure is meant to
 * be latched by the caller; the state is not reset here.
 */
#include "health.h"

#include "errors.h"
#include <string.h>

/*
 * A consecutive pair of self-test words must differ in at least this many
 * bits.  For uniform words the Hamming distance is Binomial(64, 1/2), so
 * P(distance <= 3) = (1 + 64 + 2016 + 41664) / 2^64 = 2.4e-15 = 2^-48.6
 * per pair; 7 pairs in an 8-word sample give 1.7e-14 = 2^-45.8.
 */
#define RDRAND_SELFTEST_MIN_FLIPS 4

void rdrand_health_init(struct rdrand_health *h)
{
    *h = (struct rdrand_health){0};
}

#define RDRAND_BYTES(b) (0x0101010101010101u * (uint8_t)(b))
#define RDRAND_LANES16(v) (0x0001000100010001u * (uint16_t)(v))

/*
 * The APT (90B 4.4.2) on all eight byte lanes at once, as SWAR so that
 * it costs a few instructions per word rather than a loop over lanes.
 * The first word of a window holds every lane's reference sample; a lane
 * matches where its byte of word ^ reference is zero.  Returns non-zero
 * if any lane has reached the cutoff.
 */
static int rdrand_apt(struct rdrand_health *h, uint64_t word)
{
    uint64_t diff, low7, zero, over;

    if (h->apt_seen == 0) {
        h->apt_reference = word;
        h->apt_even = h->apt_odd = 0;
    }
    diff = word ^ h->apt_reference;
    /* Per byte: 0x01 where diff's byte is zero, else 0x00. */
    low7 = (diff & RDRAND_BYTES(0x7f)) + RDRAND_BYTES(0x7f);
    zero = (~(low7 | diff) & RDRAND_BYTES(0x80)) >> 7;
    h->apt_even += zero & RDRAND_LANES16(0x00ff);
    h->apt_odd += (zero >> 8) & RDRAND_LANES16(0x00ff);
    if (++h->apt_seen == RDRAND_APT_WINDOW)
        h->apt_seen = 0; /* the next word opens a new window */
    /* A 16-bit count >= cutoff sets its lane's top bit once biased. */
    over = (h->apt_even + RDRAND_LANES16(0x8000 - RDRAND_APT_CUTOFF))
           | (h->apt_odd + RDRAND_LANES16(0x8000 - RDRAND_APT_CUTOFF));
    return (over & RDRAND_LANES16(0x8000)) != 0;
}

unsigned int rdrand_health_apt_count(const struct rdrand_health *h, int lane)
{
    uint64_t packed = lane % 2 == 0 ? h->apt_even : h->apt_odd;

    return (unsigned int)(packed >> (16 * (lane / 2))) & 0xffff;
}

int rdrand_health_check_word(struct rdrand_health *h, uint64_t word)
{
    int repeated = h->have_last && word == h->last_word;
    int apt_failed = rdrand_apt(h, word);

    h->last_word = word;
    h->have_last = 1;

    if (word == 0)
        return RDRAND_R_STUCK_ZERO;
    if (word == ~(uint64_t)0)
        return RDRAND_R_STUCK_ONES;
    if (repeated)
        return RDRAND_R_REPEATED_WORD;
    if (apt_failed)
        return RDRAND_R_ADAPTIVE_PROPORTION;
    return RDRAND_R_OK;
}

/* Number of set bits, without relying on compiler builtins. */
static int rdrand_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int)((x * 0x0101010101010101u) >> 56);
}

/*
 * The kernel's "enough changes" test in bit form.  The repetition count
 * test already rejects equal neighbours; this also rejects near-equal
 * ones (a counter, a word with one bit toggling, a mostly stuck register),
 * which the continuous tests let through.
 */
static int rdrand_selftest_changes_ok(uint64_t prev, uint64_t word)
{
    return rdrand_popcount64(prev ^ word) >= RDRAND_SELFTEST_MIN_FLIPS;
}

/*
 * Every byte lane takes at least two values across the sample.  A lane
 * stuck at one value passes the continuous tests for its first 19 words
 * (the APT needs 20), so without this a stuck lane would pass the 8-word
 * self-test and a recovery would hand out 19 more words of it.
 */
static int rdrand_selftest_lanes_vary(const uint64_t *words, size_t n)
{
    uint64_t changed = 0, low7;

    for (size_t i = 1; i < n; i++)
        changed |= words[i] ^ words[0];
    /* Some byte of changed is zero iff some lane never changed. */
    low7 = (changed & RDRAND_BYTES(0x7f)) + RDRAND_BYTES(0x7f);
    return (~(low7 | changed) & RDRAND_BYTES(0x80)) == 0;
}

/*
 * A continuous-test failure returns that test's reason; a too-short
 * sample, too few bit changes or a byte lane that never changes returns
 * RDRAND_R_SELFTEST_FAILED.
 * Words are judged in order, so the earliest bad word names the reason.
 */
int rdrand_health_selftest_sample(const uint64_t *words, size_t n)
{
    struct rdrand_health h;
    int reason;

    if (words == NULL || n < RDRAND_SELFTEST_WORDS)
        return RDRAND_R_SELFTEST_FAILED;

    rdrand_health_init(&h);
    for (size_t i = 0; i < n; i++) {
        if ((reason = rdrand_health_check_word(&h, words[i])) != RDRAND_R_OK)
            return reason;
        if (i > 0 && !rdrand_selftest_changes_ok(words[i - 1], words[i]))
            return RDRAND_R_SELFTEST_FAILED;
    }
    return rdrand_selftest_lanes_vary(words, n) ? RDRAND_R_OK
                                                : RDRAND_R_SELFTEST_FAILED;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Health tests on RDRAND words (SP 800-90B 4.4) and the startup self-test.
 *
 * A working unit gives uniform 64-bit words (RDRAND is a DRBG's
 * output), and a trip fails the request and latches the source, so each
 * cutoff makes a working CPU trip with probability <= 2^-40 per 512-word
 * window (the APT per lane; 2^-37.9 over its 8 lanes; all together
 * 2^-37.7), while the known defects are gross.  Each test's cutoff, rate
 * and catch point are derived once, in docs/health-tests.md ("Continuous
 * tests", "False-positive rates"); health.h names the constants.
 *
 * The recent-words test subsumes the repetition count test (the last
 * word is one of the recent ones); the repetition is still named as
 * such, and compared without the tables.  Every test sees every word,
 * even after another test failed on it, so the state always describes
 * the whole stream; the first failing test in the order zero, ones,
 * repeat, recent words, long cycle, stuck bit, APT, bit proportion names
 * the reason.
 */
#include "health.h"

#include <string.h>

#include <openssl/crypto.h>

#include "errors.h"
#include "health_step.h"

/*
 * A consecutive pair of self-test words must differ in at least this many
 * bits.  For uniform words the Hamming distance is Binomial(64, 1/2), so
 * P(distance <= 3) = (1 + 64 + 2016 + 41664) / 2^64 = 2.4e-15 = 2^-48.6
 * per pair; 63 pairs in a 64-word sample give 1.5e-13 = 2^-42.6.
 */
#define RDRAND_SELFTEST_MIN_FLIPS 4

void rdrand_health_init(struct rdrand_health *h)
{
    *h = (struct rdrand_health){0};
}

void rdrand_health_set_key(struct rdrand_health *h, const uint64_t key[2],
                           int aes)
{
    h->s.key[0] = key[0];
    h->s.key[1] = key[1];
    rdrand_aes_forget(&h->digest);
    if (aes) {
        unsigned char k[RDRAND_AES_KEY_BYTES];

        memcpy(k, key, sizeof(k));
        rdrand_aes_set_key(&h->digest, k);
        OPENSSL_cleanse(k, sizeof(k));
    }
    h->keyed = 1;
}

/*
 * The proofs first (a word 0 or ~0, a repeat: errors.c marks their
 * reasons RDRAND_REASON_PROOF), then the statistics: a word that is both
 * a repeat and the end of a biased window is reported as the repeat, so
 * the verdict it makes is the permanent one.
 */
int rdrand_health_reason(unsigned int verdict)
{
    static const struct {
        unsigned int bit;
        int reason;
    } order[] = {{RDRAND_FAIL_ZERO, RDRAND_R_STUCK_ZERO},
                 {RDRAND_FAIL_ONES, RDRAND_R_STUCK_ONES},
                 {RDRAND_FAIL_REPEAT, RDRAND_R_REPEATED_WORD},
                 {RDRAND_FAIL_CYCLE, RDRAND_R_SHORT_CYCLE},
                 {RDRAND_FAIL_LONG_CYCLE, RDRAND_R_LONG_CYCLE},
                 {RDRAND_FAIL_STUCK_BIT, RDRAND_R_STUCK_BIT},
                 {RDRAND_FAIL_APT, RDRAND_R_ADAPTIVE_PROPORTION},
                 {RDRAND_FAIL_BIASED_BIT, RDRAND_R_BIASED_BIT}};

    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (verdict & order[i].bit)
            return order[i].reason;
    return RDRAND_R_OK;
}

unsigned int rdrand_health_apt_count(const struct rdrand_health *h, int lane)
{
    if (h->s.apt_seen == 0 && h->s.apt_counts == 0)
        return 0; /* no window opened yet */
    return (unsigned int)((h->s.apt_counts - RDRAND_APT_BIAS) >> (8 * lane))
           & 0xff;
}

unsigned int rdrand_health_bit_count(const struct rdrand_health *h, int bit)
{
    unsigned int count = 0;

    for (int i = 0; i < RDRAND_BIT_PLANES; i++)
        count |= (unsigned int)(h->ones[i] >> bit & 1) << i;
    for (int i = 0; i < 3; i++)
        count += (unsigned int)(h->s.group[i] >> bit & 1) << i;
    return count;
}

/*
 * The step of health_step.h, each word meeting the tables at once (the
 * draw loop's lag is for throughput, which the self-test and the
 * recovery do not need).
 */
RDRAND_AESNI unsigned int rdrand_health_verdict(struct rdrand_health *h,
                                                uint64_t w)
{
    struct rdrand_health_findings f = {0};
    struct rdrand_apt apt = rdrand_apt_load(&h->s);
    uint64_t check, d = rdrand_health_digest(h, h->s.key, w, &check);

    if (h->seen != NULL)
        f.seen = rdrand_seen_step(h->seen, d, check);
    (void)rdrand_health_tests(h, &h->s, &apt, w, d, &f);
    rdrand_apt_store(&h->s, &apt);
    if (!rdrand_health_any(&f, w))
        return 0;
    return rdrand_health_failed(&h->s, &f, w);
}

int rdrand_health_check_word(struct rdrand_health *h, uint64_t word)
{
    return rdrand_health_reason(rdrand_health_verdict(h, word));
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
 * The sample rules, beyond the continuous tests: every pair of words
 * differs (a cycle of any period up to n - 1 fails, not only up to K);
 * every bit position takes both values (a stuck bit fails, wherever the
 * continuous test's blocks fall); neighbours differ in at least
 * RDRAND_SELFTEST_MIN_FLIPS bits (the kernel's "enough changes" test in
 * bit form: a mostly stuck register fails).
 */
int rdrand_health_sample_repeats(const uint64_t *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (words[i] == words[j])
                return 1;
    return 0;
}

int rdrand_health_sample_rules(const uint64_t *words, size_t n)
{
    uint64_t seen_zero = 0, seen_one = 0;

    if (rdrand_health_sample_repeats(words, n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0
            && rdrand_popcount64(words[i - 1] ^ words[i])
                   < RDRAND_SELFTEST_MIN_FLIPS)
            return 0;
        seen_zero |= ~words[i];
        seen_one |= words[i];
    }
    return (seen_zero & seen_one) == ~(uint64_t)0;
}

/*
 * A continuous-test failure returns that test's reason; two equal words
 * anywhere in the sample are a repeat, a proof (RDRAND_R_SHORT_CYCLE,
 * the reason the tables give it where a thread has them, and where it
 * has none, or its first sample is judged before it joins them); a
 * too-short sample or another broken sample rule returns
 * RDRAND_R_SELFTEST_FAILED.
 * Words are judged in order, so the earliest bad word names the reason.
 * A stream not keyed yet (a unit test's; the provider keys its threads'
 * from the process, source.c) is judged under a key of two of the
 * sample's words, which are never delivered, and keeps it only if the
 * sample passes: a failing one may have chosen it (words[0] equal to
 * words[n - 1] makes a half 0), and a degenerate key would leave a
 * delivered word in the state, the last digest (review of the round-four
 * fix, 3).
 */
int rdrand_health_selftest(struct rdrand_health *h, const uint64_t *words,
                           size_t n)
{
    int reason = RDRAND_R_OK;

    if (words == NULL || n < RDRAND_SELFTEST_WORDS)
        return RDRAND_R_SELFTEST_FAILED;
    if (!h->keyed) {
        h->s.key[0] = words[0] ^ words[n - 1];
        h->s.key[1] = words[1] ^ words[n - 2];
    }
    for (size_t i = 0; i < n; i++) {
        int r = rdrand_health_check_word(h, words[i]);

        if (reason == RDRAND_R_OK)
            reason = r;
    }
    if (reason == RDRAND_R_OK && rdrand_health_sample_repeats(words, n))
        reason = RDRAND_R_SHORT_CYCLE;
    if (reason == RDRAND_R_OK && !rdrand_health_sample_rules(words, n))
        reason = RDRAND_R_SELFTEST_FAILED;
    h->warm = reason == RDRAND_R_OK;
    h->keyed |= h->warm;
    return reason;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fast continuous tests (provider/health.h and seen.h: keyed digests
 * in shared FIFO buckets with SWAR tags, SWAR byte lanes, bit-sliced
 * counts in groups of 8) against a plain scalar model written from the
 * rules alone (every raw word seen, one counter per lane and per bit).
 * The streams here are shorter than the 4,096 words the recent-words
 * test is held to, so the model's "seen before" is "anywhere before";
 * the long-cycle bit, which needs the key to predict, must come only
 * with a word seen before.  Word by word, the verdict bits must be equal,
 * and so must
 * every APT lane count, every bit's count of ones and the window and block
 * positions: on random streams and on every defect class, the defect
 * starting at each position of a group, a bit block and around a window's
 * end, fed on after every trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "health.h"
#include "health_step.h"
#include "seen_table.h"
#include "splitmix.h"
#include "test_key.h"

/*
 * The scalar model: nothing packed, nothing keyed.  The words seen are a
 * plain set (open addressing, by the word's own bits), and the last one.
 */
#define REF_SET (1u << 19) /* twice the longest stream */
struct ref {
    uint64_t set[REF_SET];
    int zero_seen; /* 0 is the set's empty slot */
    uint64_t last;
    size_t n; /* words seen */
    unsigned int block_seen;
    uint64_t seen0, seen1;
    unsigned int apt_seen;
    uint8_t reference[8];
    unsigned int count[8];
    unsigned int ones[64];
};

/* Whether w was seen before; it is then. */
static int ref_seen(struct ref *r, uint64_t w)
{
    size_t i = (size_t)(w * 0x9e3779b97f4a7c15u >> 45);

    if (w == 0) {
        int seen = r->zero_seen;

        r->zero_seen = 1;
        return seen;
    }
    for (; r->set[i] != 0; i = (i + 1) % REF_SET)
        if (r->set[i] == w)
            return 1;
    r->set[i] = w;
    return 0;
}

static unsigned int ref_verdict(struct ref *r, uint64_t w)
{
    unsigned int v = 0, over = 0;

    if (w == 0)
        v |= RDRAND_FAIL_ZERO;
    if (w == ~(uint64_t)0)
        v |= RDRAND_FAIL_ONES;
    if (r->n > 0 && r->last == w)
        v |= RDRAND_FAIL_REPEAT;
    if (ref_seen(r, w))
        v |= RDRAND_FAIL_CYCLE;
    r->last = w;
    r->n++;

    r->seen0 |= ~w;
    r->seen1 |= w;
    if (++r->block_seen == RDRAND_BIT_BLOCK) {
        if ((r->seen0 & r->seen1) != ~(uint64_t)0)
            v |= RDRAND_FAIL_STUCK_BIT;
        r->block_seen = 0;
        r->seen0 = r->seen1 = 0;
    }

    if (r->apt_seen == 0) {
        for (int lane = 0; lane < 8; lane++) {
            r->reference[lane] = (uint8_t)(w >> (8 * lane));
            r->count[lane] = 0;
        }
        memset(r->ones, 0, sizeof(r->ones));
    }
    for (int lane = 0; lane < 8; lane++) {
        if ((uint8_t)(w >> (8 * lane)) == r->reference[lane])
            r->count[lane]++;
        if (r->count[lane] >= RDRAND_APT_CUTOFF)
            over = 1;
    }
    for (int bit = 0; bit < 64; bit++)
        r->ones[bit] += (unsigned int)(w >> bit & 1);
    if (r->apt_seen == RDRAND_APT_WINDOW - 1)
        for (int bit = 0; bit < 64; bit++)
            if (r->ones[bit] >= RDRAND_BIT_CUTOFF
                || r->ones[bit] <= RDRAND_APT_WINDOW - RDRAND_BIT_CUTOFF)
                v |= RDRAND_FAIL_BIASED_BIT;
    if (over)
        v |= RDRAND_FAIL_APT;
    r->apt_seen = over ? 0 : (r->apt_seen + 1) % RDRAND_APT_WINDOW;
    return v;
}

/* Both models on one word: everything observable must agree. */
static unsigned int both(struct rdrand_health *h, struct ref *r, uint64_t w,
                         const char *what, size_t i)
{
    unsigned int fast = rdrand_health_verdict(h, w);
    unsigned int slow = ref_verdict(r, w);
    int same =
        (fast & ~RDRAND_FAIL_LONG_CYCLE) == slow
        && (!(fast & RDRAND_FAIL_LONG_CYCLE) || (slow & RDRAND_FAIL_CYCLE))
        && h->s.apt_seen == r->apt_seen && h->s.block_seen == r->block_seen;

    for (int lane = 0; lane < 8 && same; lane++)
        same = rdrand_health_apt_count(h, lane) == r->count[lane];
    for (int bit = 0; bit < 64 && same; bit++)
        same = rdrand_health_bit_count(h, bit) == r->ones[bit];
    if (!same) {
        print_error("%s: word %zu (%016llx): verdict %#x, model %#x; window "
                    "%u/%u block %u/%u\n",
                    what, i, (unsigned long long)w, fast, slow, h->s.apt_seen,
                    r->apt_seen, h->s.block_seen, r->block_seen);
        fail();
    }
    return fast;
}

static void start(struct rdrand_health *h, struct ref *r, uint64_t seed)
{
    static struct rdrand_seen seen;
    uint64_t s = seed, k0;

    rdrand_health_init(h);
    memset(&seen, 0, sizeof(seen));
    h->seen = &seen;
    memset(r, 0, sizeof(*r));
    k0 = rdrand_test_splitmix(&s);
    rdrand_test_key(h, k0, rdrand_test_splitmix(&s));
}

enum defect {
    D_CONSTANT,
    D_ZERO,
    D_ONES,
    D_CYCLE,
    D_STUCK0,
    D_STUCK1,
    D_LANE,
    D_TOP_BITS,
    D_BIASED,
    D_BIASED_LOW,
    D_COUNT
};

static uint64_t defect_word(enum defect d, int arg, uint64_t *s, size_t i)
{
    uint64_t w = rdrand_test_splitmix(s), bit = (uint64_t)1 << (arg % 64);

    switch (d) {
    case D_CONSTANT:
        return 0x0123456789abcdefu;
    case D_ZERO:
        return 0;
    case D_ONES:
        return ~(uint64_t)0;
    case D_CYCLE: {
        uint64_t c = 0xfeedu + i % (size_t)arg;

        return rdrand_test_splitmix(&c);
    }
    case D_STUCK0:
        return w & ~bit;
    case D_STUCK1:
        return w | bit;
    case D_LANE:
        return (w & ~((uint64_t)0xff << (8 * (arg % 8))))
               | (uint64_t)0x5a << (8 * (arg % 8));
    case D_TOP_BITS:
        return w & ~RDRAND_BYTES(0x80);
    case D_BIASED: /* 1 in 7 words of 8 */
        return (w >> 61) != 0 ? w | bit : w & ~bit;
    case D_BIASED_LOW: /* 1 in 1 word of 8 */
        return (w >> 61) == 0 ? w | bit : w & ~bit;
    case D_COUNT:
        break;
    }
    return w;
}

/* 2 x 10^5 clean words: no trip, and every count equal at every word. */
static void test_random_streams(void **state)
{
    static struct rdrand_health h;
    static struct ref r;
    uint64_t s = 42;

    (void)state;
    start(&h, &r, 7);
    for (size_t i = 0; i < 200000; i++)
        assert_int_equal(both(&h, &r, rdrand_test_splitmix(&s), "random", i),
                         0);
}

/*
 * Every defect class, starting after 0..70 good words (every position of
 * a group of 8 and of a bit block) and just before, at and after a
 * window's end; 1200 words each, fed on after every trip.  Each defect
 * must trip at least once (the model agrees it should).
 */
static void test_defects_every_onset(void **state)
{
    static const size_t late[] = {505, 510, 511, 512, 513, 519};
    static struct rdrand_health h;
    static struct ref r;

    (void)state;
    for (int d = 0; d < D_COUNT; d++) {
        for (size_t k = 0; k < 71 + sizeof(late) / sizeof(late[0]); k++) {
            size_t onset = k < 71 ? k : late[k - 71];
            int arg = d == D_CYCLE ? 2 + (int)(k % 32) : (int)(k * 7 % 64);
            uint64_t s = 1000 + k, g = 5000 + k;
            unsigned int trips = 0;

            start(&h, &r, k);
            for (size_t i = 0; i < onset + 1200; i++) {
                uint64_t w =
                    i < onset ? rdrand_test_splitmix(&g)
                              : defect_word((enum defect)d, arg, &s, i - onset);

                trips |= both(&h, &r, w, "defect", i);
            }
            if (trips == 0) {
                print_error("defect %d (arg %d, onset %zu) never tripped\n", d,
                            arg, onset);
                fail();
            }
        }
    }
}

/* The bit-sliced cutoff compare against the plain one, every count. */
static void test_biased_bits_every_count(void **state)
{
    (void)state;
    for (unsigned int base = 0; base <= RDRAND_APT_WINDOW; base += 64) {
        uint64_t planes[RDRAND_BIT_PLANES] = {0}, expect = 0;

        for (int bit = 0; bit < 64; bit++) {
            unsigned int count = base + (unsigned int)bit;

            if (count > RDRAND_APT_WINDOW)
                count = RDRAND_APT_WINDOW - (unsigned int)bit;
            for (int i = 0; i < RDRAND_BIT_PLANES; i++)
                planes[i] |= (uint64_t)(count >> i & 1) << bit;
            if (count >= RDRAND_BIT_CUTOFF
                || count <= RDRAND_APT_WINDOW - RDRAND_BIT_CUTOFF)
                expect |= (uint64_t)1 << bit;
        }
        assert_true(rdrand_health_biased_bits(planes) == expect);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_streams),
        cmocka_unit_test(test_defects_every_onset),
        cmocka_unit_test(test_biased_bits_every_count),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

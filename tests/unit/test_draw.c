/* SPDX-License-Identifier: Apache-2.0 */
/* The no-retry loop, word by word, against the simulated CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "draw.h"
#include "errors.h"
#include "fake_core.h"
#include "health.h"
#include "health_step.h"
#include "sim.h"
#include "test_key.h"

/* The simulated CPU's default stream, computed independently. */
static uint64_t expected_word(uint64_t index)
{
    uint64_t z = (index + 1) * 0x9e3779b97f4a7c15ULL;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/*
 * Every length 1..600: ceil(len/8) executions, exact bytes, no overrun.
 * A fresh state first draws its APT reference (word 0), never delivered.
 */
static void test_every_length(void **state)
{
    unsigned char buf[600 + 16];

    (void)state;
    for (size_t len = 1; len <= 600; len++) {
        struct rdrand_health h;
        uint64_t words_before = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);

        sim_or_fail("");
        rdrand_health_init(&h);
        memset(buf, 0xA5, sizeof(buf));
        assert_int_equal(rdrand_draw(&h, buf, len), RDRAND_R_OK);
        assert_int_equal(rdrand_sim_executions(), 1 + (len + 7) / 8);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS)
                             - words_before,
                         1 + (len + 7) / 8);
        for (size_t i = 0; i < len; i++) {
            uint64_t w = expected_word(1 + i / 8);
            unsigned char b;

            memcpy(&b, (unsigned char *)&w + i % 8, 1);
            assert_int_equal(buf[i], b);
        }
        assert_true(all_bytes(buf + len, sizeof(buf) - len, 0xA5));
    }
}

/*
 * One state, requests of 1..97 bytes over 2100 words: every window's
 * reference (executions 0, 512, 1024, ...) is drawn in the middle of
 * some request and never delivered; every other word is, in order, the
 * unused bytes of a partial last word dropped; executions exact.
 */
static void test_requests_across_windows(void **state)
{
    static unsigned char buf[97 + 16];
    struct rdrand_health h;
    uint64_t next = 0; /* the next execution's index */

    (void)state;
    sim_or_fail("");
    rdrand_health_init(&h);
    for (size_t len = 1; next < 2100; len = len % 97 + 1) {
        uint64_t before = rdrand_sim_executions();

        memset(buf, 0xA5, sizeof(buf));
        assert_int_equal(rdrand_draw(&h, buf, len), RDRAND_R_OK);
        for (size_t i = 0; i < len; i += 8) {
            uint64_t w;

            if (next % RDRAND_APT_WINDOW == 0)
                next++; /* the reference */
            w = expected_word(next++);
            assert_memory_equal(buf + i, &w, len - i < 8 ? len - i : 8);
        }
        assert_int_equal(rdrand_sim_executions() - before, next - before);
        assert_true(all_bytes(buf + len, sizeof(buf) - len, 0xA5));
    }
}

/*
 * The no-retry rule: a failure at word k of an n-word request executes
 * exactly k words, returns nothing (the buffer is wiped) and counts one
 * hardware failure.
 */
static void test_fail_at_word_k_executes_k(void **state)
{
    unsigned char buf[8 * 12];
    char spec[32];

    (void)state;
    for (size_t n = 1; n <= 12; n++) {
        for (size_t k = 1; k <= n; k++) {
            uint64_t failures = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);
            uint64_t words = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
            struct rdrand_health h;

            snprintf(spec, sizeof(spec), "fail-at=%zu", k);
            sim_or_fail(spec);
            rdrand_health_init(&h);
            memset(buf, 0xA5, sizeof(buf));
            assert_int_equal(rdrand_draw(&h, buf, n * 8),
                             RDRAND_R_RDRAND_FAILED);
            assert_int_equal(rdrand_sim_executions(), k);
            assert_int_equal(
                rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - words, k);
            assert_int_equal(
                rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - failures, 1);
            assert_true(all_bytes(buf, n * 8, 0));
            assert_true(all_bytes(buf + n * 8, sizeof(buf) - n * 8, 0xA5));
        }
    }
}

/* An odd-length request that fails in its last, partial word. */
static void test_fail_in_partial_last_word(void **state)
{
    unsigned char buf[21 + 8];

    (void)state;
    sim_or_fail("fail-at=3");
    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(rdrand_draw(NULL, buf, 21), RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_sim_executions(), 3);
    assert_true(all_bytes(buf, 21, 0));
    assert_true(all_bytes(buf + 21, 8, 0xA5));
}

/* Without health tests too, an odd length's last word is cut, no overrun. */
static void test_partial_last_word_unchecked(void **state)
{
    unsigned char buf[21 + 8];
    uint64_t w;

    (void)state;
    sim_or_fail("");
    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(rdrand_draw(NULL, buf, 21), RDRAND_R_OK);
    assert_int_equal(rdrand_sim_executions(), 3);
    for (uint64_t i = 0; i < 3; i++) {
        w = expected_word(i);
        assert_memory_equal(buf + 8 * i, &w, i < 2 ? 8 : 5);
    }
    assert_true(all_bytes(buf + 21, 8, 0xA5));
}

/* fail-from: the request fails at its first word; nothing more runs. */
static void test_fail_from(void **state)
{
    unsigned char buf[64];

    (void)state;
    sim_or_fail("fail-from=1");
    assert_int_equal(rdrand_draw(NULL, buf, sizeof(buf)),
                     RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_draw(NULL, buf, sizeof(buf)),
                     RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_sim_executions(), 2);
}

/* Health tests are applied when a state is given, and only then. */
static void test_stuck_value_needs_health(void **state)
{
    unsigned char buf[32];
    struct rdrand_health h;

    (void)state;
    sim_or_fail("value=ffffffffffffffff");
    rdrand_health_init(&h);
    assert_int_equal(rdrand_draw(&h, buf, sizeof(buf)), RDRAND_R_STUCK_ONES);
    /* The second word was requested before the first was judged. */
    assert_int_equal(rdrand_sim_executions(), 2);
    assert_true(all_bytes(buf, sizeof(buf), 0));
    assert_int_equal(rdrand_draw(NULL, buf, sizeof(buf)), RDRAND_R_OK);
    assert_true(all_bytes(buf, sizeof(buf), 0xff));
}

/*
 * A word that fails a test, then CF=0 on the word drawn after it: the
 * test's reason (the first bad word in stream order), the CF=0 counted.
 */
static void test_trip_then_cf0(void **state)
{
    unsigned char buf[32];
    struct rdrand_health h;
    uint64_t failures = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);

    (void)state;
    sim_or_fail("value=ffffffffffffffff,fail-at=2");
    rdrand_health_init(&h);
    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(rdrand_draw(&h, buf, sizeof(buf)), RDRAND_R_STUCK_ONES);
    assert_int_equal(rdrand_sim_executions(), 2);
    assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - failures,
                     1);
    assert_true(all_bytes(buf, sizeof(buf), 0));
}

/*
 * After every request the current group's bit counts have gone into the
 * window's (right after a group's first word they would be that word),
 * and no delivered word is in the digests, counts or APT state.  (The bit
 * block's ORs are the documented exception, docs/health-tests.md.)
 */
static void test_no_delivered_word_kept(void **state)
{
    struct rdrand_health h;
    uint64_t words[40];

    (void)state;
    sim_or_fail("");
    rdrand_health_init(&h);
    rdrand_test_key(&h, 0x243f6a8885a308d3u, 0x13198a2e03707344u);
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        assert_int_equal(rdrand_draw(&h, (unsigned char *)&words[i], 8),
                         RDRAND_R_OK);
        for (int p = 0; p < 3; p++)
            assert_true(h.s.group[p] == 0);
        for (size_t j = 0; j <= i; j++) {
            assert_true(h.s.apt_reference != words[j]);
            assert_true(h.s.apt_counts != words[j]);
            assert_true(h.s.last != words[j]);
            for (int k = 0; k < RDRAND_BIT_PLANES; k++)
                assert_true(h.ones[k] != words[j]);
        }
    }
}

/*
 * The state a request leaves: the draw loop keeps the tests' state in
 * registers and judges each word in one branch, rdrand_health_verdict()
 * (the self-test's and recovery's path) works through the state word by
 * word.  Fed the same words, both must leave every field equal, and give
 * the same reason.
 */
static void assert_same_state(const struct rdrand_health *a,
                              const struct rdrand_health *b)
{
    assert_memory_equal(&a->s, &b->s, sizeof(a->s));
    assert_memory_equal(a->ones, b->ones, sizeof(a->ones));
    assert_int_equal(a->keyed, b->keyed);
    assert_int_equal(a->warm, b->warm);
    /* Each path has tables of its own: both entered the same. */
    assert_memory_equal(a->seen, b->seen, sizeof(*a->seen));
}

/* What rdrand_draw does at the end of a request, on the word-by-word state. */
static void end_request(struct rdrand_health *h)
{
    rdrand_health_close_group(h, h->s.group, 0);
    memset(h->s.group, 0, sizeof(h->s.group));
}

static void keyed_pair(struct rdrand_health *a, struct rdrand_health *b)
{
    static struct rdrand_seen table_a, table_b;

    rdrand_health_init(a);
    rdrand_test_key(a, 0x243f6a8885a308d3u, 0x13198a2e03707344u);
    *b = *a;
    memset(&table_a, 0, sizeof(table_a));
    memset(&table_b, 0, sizeof(table_b));
    a->seen = &table_a;
    b->seen = &table_b;
}

/*
 * A clean stream, requests of 1..97 bytes over 2100 words (every kind of
 * boundary inside some request): both paths leave the same state.
 */
static void test_draw_matches_word_by_word(void **state)
{
    static unsigned char buf[97];
    struct rdrand_health a, b;
    uint64_t fed = 0;

    (void)state;
    sim_or_fail("");
    keyed_pair(&a, &b);
    for (size_t len = 1; fed < 2100; len = len % 97 + 1) {
        assert_int_equal(rdrand_draw(&a, buf, len), RDRAND_R_OK);
        for (; fed < rdrand_sim_executions(); fed++)
            assert_int_equal(rdrand_health_check_word(&b, expected_word(fed)),
                             RDRAND_R_OK);
        end_request(&b);
        assert_same_state(&a, &b);
    }
}

/*
 * A stream that trips: the simulated CPU replays a file in which word
 * `at` repeats an earlier word (a repetition or a short cycle), or in
 * which every word from `at` on has bit 5 set (stuck bit, at a block's
 * end), or from which the words cycle with a period of 300 (caught at its
 * first repeat by the recent words: both paths each with tables of their
 * own).  One request of 4 KiB from states already 0..70 words in: the
 * same reason, the same executions (the one after the bad word
 * included), the same state; a repeat that only the tables find is found
 * RDRAND_SEEN_LAG words later (seen.h).
 */
static void test_draw_matches_word_by_word_on_trips(void **state)
{
    static unsigned char buf[4096];
    static uint64_t words[700];
    char path[32], spec[64];
    const size_t n = sizeof(words) / sizeof(words[0]);

    (void)state;
    for (int kind = 0; kind < 4; kind++) {
        for (size_t pre = 0; pre <= 70; pre += 7) {
            size_t at = pre + 40 + (size_t)kind * 3 + (kind == 3) * 300;
            struct rdrand_health a, b;
            int fd, reason_a, reason_b = RDRAND_R_OK;
            FILE *f;
            uint64_t fed;

            snprintf(path, sizeof(path), "/tmp/test_draw_XXXXXX");
            fd = mkstemp(path);
            f = fd >= 0 ? fdopen(fd, "w") : NULL;
            assert_non_null(f);
            for (size_t i = 0; i < n; i++) {
                words[i] = expected_word(i);
                if (kind == 0 && i == at)
                    words[i] = words[i - 1]; /* repetition */
                if (kind == 1 && i == at)
                    words[i] = words[i - 9]; /* short cycle */
                if (kind == 2 && i >= at)
                    words[i] |= 32; /* bit 5 stuck at 1 */
                if (kind == 3 && i >= at)
                    words[i] = words[i - 300]; /* long cycle */
                fprintf(f, "%016llx\n", (unsigned long long)words[i]);
            }
            assert_int_equal(fclose(f), 0);
            snprintf(spec, sizeof(spec), "words=%s", path);
            sim_or_fail(spec);
            keyed_pair(&a, &b);
            if (pre > 0) {
                assert_int_equal(rdrand_draw(&a, buf, pre * 8), RDRAND_R_OK);
                for (fed = 0; fed < rdrand_sim_executions(); fed++)
                    assert_int_equal(rdrand_health_check_word(&b, words[fed]),
                                     RDRAND_R_OK);
                end_request(&b);
            }
            fed = rdrand_sim_executions();
            reason_a = rdrand_draw(&a, buf, sizeof(buf));
            assert_int_not_equal(reason_a, RDRAND_R_OK);
            /* Word by word: up to the first bad word, then the one after. */
            for (; reason_b == RDRAND_R_OK; fed++)
                reason_b = rdrand_health_check_word(&b, words[fed]);
            end_request(&b);
            assert_int_equal(reason_a, reason_b);
            if (kind == 3) {
                assert_int_equal(reason_a, RDRAND_R_SHORT_CYCLE);
                assert_int_equal(fed, at + 1);
            }
            if (kind == 1 || kind == 3) {
                /*
                 * Found in the tables, RDRAND_SEEN_LAG words after (seen.h),
                 * the others' tests run on those words: a permanent verdict,
                 * whose state is not used again.
                 */
                assert_int_equal(rdrand_sim_executions(),
                                 fed + 1 + RDRAND_SEEN_LAG);
            } else {
                assert_int_equal(rdrand_sim_executions(), fed + 1);
                assert_same_state(&a, &b);
            }
            assert_true(all_bytes(buf, sizeof(buf), 0));
            unlink(path);
        }
    }
}

/*
 * A word only the tables find (word `at` repeating word at - d, d = 2 to
 * RDRAND_SEEN_LAG + 1), then, 1 to RDRAND_SEEN_LAG - 1 words later, while
 * it still waits for its lookup, a word that fails a test at once (0, ~0, or
 * the word before it again): the first bad word is the repeat, so the reason is
 * the recent-words test's, a proof, whatever the later word's (review of the
 * round-four fix, 2: a mutant that reported the later word passed every test).
 */
/* The simulated CPU replays words[0..n) (words=path, a new file). */
static void replay(const uint64_t *words, size_t n, char path[32],
                   char spec[64])
{
    int fd;
    FILE *f;

    snprintf(path, 32, "/tmp/test_draw_XXXXXX");
    fd = mkstemp(path);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%016llx\n", (unsigned long long)words[i]);
    assert_int_equal(fclose(f), 0);
    snprintf(spec, 64, "words=%s", path);
    sim_or_fail(spec);
}

static void test_waiting_repeat_comes_first(void **state)
{
    static unsigned char buf[4096];
    static uint64_t words[300];
    const size_t at = 100, n = sizeof(words) / sizeof(words[0]);
    char path[32], spec[64];

    (void)state;
    for (size_t d = 2; d <= RDRAND_SEEN_LAG + 1; d++) {
        for (int kind = 0; kind < 3; kind++) {
            for (size_t after = 1; after < RDRAND_SEEN_LAG; after++) {
                struct rdrand_health a, b;

                for (size_t i = 0; i < n; i++)
                    words[i] = expected_word(i);
                words[at] = words[at - d];
                words[at + after] = kind == 0   ? 0
                                    : kind == 1 ? ~(uint64_t)0
                                                : words[at + after - 1];
                replay(words, n, path, spec);
                keyed_pair(&a, &b);
                assert_int_equal(rdrand_draw(&a, buf, sizeof(buf)),
                                 RDRAND_R_SHORT_CYCLE);
                assert_true(all_bytes(buf, sizeof(buf), 0));
                unlink(path);
            }
        }
    }
}

/*
 * The draw loop judges a word only after the next one's RDRAND, and keeps
 * the tests' state in registers between boundaries; a CF=0 must still
 * stop the request at that very word.  From states 0..511 words into a
 * window (so that the request crosses the ends of groups of 8, bit
 * blocks of 64 and an APT window with its reference), a 600-byte request
 * with CF=0 at each of its executions k: exactly k executions, counted,
 * one failure counted, nothing delivered, nothing written past it.
 */
static void test_cf0_at_every_position(void **state)
{
    static const size_t starts[] = {0, 1, 7, 8, 9, 63, 64, 100, 503, 510, 511};
    static unsigned char buf[511 * 8];
    char spec[48];

    (void)state;
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
        struct rdrand_health h;
        uint64_t pre, executions;

        /* The request's executions without a failure, from this state. */
        sim_or_fail("");
        rdrand_health_init(&h);
        if (starts[i] > 0)
            assert_int_equal(rdrand_draw(&h, buf, starts[i] * 8), RDRAND_R_OK);
        pre = rdrand_sim_executions();
        assert_int_equal(rdrand_draw(&h, buf, 600), RDRAND_R_OK);
        executions = rdrand_sim_executions() - pre;
        assert_true(executions >= 75 && executions <= 76);
        for (uint64_t k = 1; k <= executions; k++) {
            uint64_t words = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
            uint64_t failures = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);

            snprintf(spec, sizeof(spec), "fail-at=%llu",
                     (unsigned long long)(pre + k));
            sim_or_fail(spec);
            rdrand_health_init(&h);
            if (starts[i] > 0)
                assert_int_equal(rdrand_draw(&h, buf, starts[i] * 8),
                                 RDRAND_R_OK);
            assert_int_equal(rdrand_sim_executions(), pre);
            words = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
            memset(buf, 0xA5, sizeof(buf));
            assert_int_equal(rdrand_draw(&h, buf, 600), RDRAND_R_RDRAND_FAILED);
            assert_int_equal(rdrand_sim_executions() - pre, k);
            assert_int_equal(
                rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - words, k);
            assert_int_equal(
                rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - failures, 1);
            assert_true(all_bytes(buf, 600, 0));
            assert_true(all_bytes(buf + 600, 8, 0xA5));
        }
    }
}

/*
 * An independent model of the continuous tests, written from their
 * definitions (docs/health-tests.md, the cutoffs in health.h) with none
 * of health.h's code: plain counters per bit and per byte lane, the last
 * 32 words themselves (this stream repeats no word further back than 32,
 * and the recent-words test remembers at least 4,096, so over this stream
 * it is "one of the last 32"; the history starts as 32 zeros).
 */
#define MODEL_LAST 32
struct model {
    uint64_t last[MODEL_LAST]; /* the last 32 words judged */
    unsigned int judged;       /* words judged, mod 32 its slot */
    uint64_t seen0, seen1;     /* stuck bit, this block */
    unsigned int in_block;
    uint64_t reference;     /* the APT window's first word */
    unsigned int in_window; /* words in the window; 0: the next opens it */
    unsigned int lane[8];   /* matches of each byte lane with the reference */
    unsigned int ones[64];  /* ones of each bit in the window */
};

/* Reasons in the order a word failing several tests reports them. */
enum { M_ZERO, M_ONES, M_REPEAT, M_CYCLE, M_STUCK, M_APT, M_BIASED, M_N };

static const int model_reasons[M_N] = {
    RDRAND_R_STUCK_ZERO,  RDRAND_R_STUCK_ONES, RDRAND_R_REPEATED_WORD,
    RDRAND_R_SHORT_CYCLE, RDRAND_R_STUCK_BIT,  RDRAND_R_ADAPTIVE_PROPORTION,
    RDRAND_R_BIASED_BIT};

/* The tests word w fails (bit M_* of each), 0 if none; the state advances. */
static unsigned int model_judge(struct model *m, uint64_t w)
{
    unsigned int slot = m->judged % MODEL_LAST;
    unsigned int prev = (slot + MODEL_LAST - 1) % MODEL_LAST;
    int fail[M_N] = {0};

    fail[M_ZERO] = w == 0;
    fail[M_ONES] = w == ~(uint64_t)0;
    fail[M_REPEAT] = w == m->last[prev];
    for (int i = 0; i < MODEL_LAST; i++)
        fail[M_CYCLE] |= w == m->last[i];
    m->last[slot] = w;
    m->judged++;

    m->seen0 |= ~w;
    m->seen1 |= w;
    if (++m->in_block == RDRAND_BIT_BLOCK) {
        fail[M_STUCK] = (m->seen0 & m->seen1) != ~(uint64_t)0;
        m->seen0 = m->seen1 = 0;
        m->in_block = 0;
    }

    if (m->in_window == 0) {
        m->reference = w;
        memset(m->lane, 0, sizeof(m->lane));
        memset(m->ones, 0, sizeof(m->ones));
    }
    for (int i = 0; i < 8; i++)
        if ((uint8_t)(w >> (8 * i)) == (uint8_t)(m->reference >> (8 * i))
            && ++m->lane[i] >= RDRAND_APT_CUTOFF)
            fail[M_APT] = 1;
    for (int b = 0; b < 64; b++)
        m->ones[b] += (unsigned int)(w >> b & 1);
    if (++m->in_window == RDRAND_APT_WINDOW) {
        for (int b = 0; b < 64; b++)
            if (m->ones[b] >= RDRAND_BIT_CUTOFF
                || RDRAND_APT_WINDOW - m->ones[b] >= RDRAND_BIT_CUTOFF)
                fail[M_BIASED] = 1;
        m->in_window = 0;
    }
    if (fail[M_APT])
        m->in_window = 0; /* a failing window starts over */

    unsigned int failed = 0;

    for (int i = 0; i < M_N; i++)
        failed |= (unsigned int)fail[i] << i;
    return failed;
}

/* The reason of the first test failed, RDRAND_R_OK if none. */
static int model_reason(unsigned int failed)
{
    for (int i = 0; i < M_N; i++)
        if (failed & 1u << i)
            return model_reasons[i];
    return RDRAND_R_OK;
}

/* Word i of the defective stream, and whether its RDRAND reports CF=0. */
#define SEGMENT 1200
static uint64_t defective_word(uint64_t i, int *cf0)
{
    uint64_t seg = i / SEGMENT, off = i % SEGMENT;
    uint64_t spot = expected_word(1000000 + seg) % (SEGMENT - 100) + 50;
    uint64_t w = expected_word(i);

    *cf0 = 0;
    switch (seg % 9) {
    case 1: /* the all-zero word */
        return off == spot ? 0 : w;
    case 2: /* the all-ones word */
        return off == spot ? ~(uint64_t)0 : w;
    case 3: /* a repetition */
        return off == spot ? expected_word(i - 1) : w;
    case 4: /* short cycles of every length 1..32, one every 37 words */
        return off % 37 == 36 ? expected_word(i - 1 - (off / 37 + seg) % 32)
                              : w;
    case 5: /* bit 13 stuck at 1 from the spot on */
        return off >= spot ? w | 1u << 13 : w;
    case 6: /* byte lane 2 stuck: every window opened in here trips */
        return (w & ~((uint64_t)0xff << 16)) | (uint64_t)0x5a << 16;
    case 7: /* bit 7 set three times in four */
        return expected_word(i + 7777) % 4 != 0 ? w | 0x80
                                                : w & ~(uint64_t)0x80;
    case 8: /* CF=0 at the spot, and twice in a row further on */
        *cf0 = off == spot || off == spot + 40 || off == spot + 41;
        return *cf0 ? 0 : w;
    default:
        return w;
    }
}

/*
 * The draw against the model, over a stream with every kind of defect
 * (zero, ones, repetition, short cycle, stuck bit, APT, bit proportion,
 * CF=0), requests of 1..600 bytes that cross every boundary, the state
 * carried on after each failure.  Per request: the model's reason, its
 * executions (the word after a failing one included, when the request
 * needed it; a CF=0 word the last), and on success the stream's words
 * delivered.  Every reason must be met, or the stream tests nothing.
 */
static void test_draw_matches_model(void **state)
{
    static unsigned char buf[600], expect[600];
    static struct rdrand_seen seen;
    const uint64_t n = 18 * SEGMENT;
    char path[32], spec[64];
    struct rdrand_health h;
    struct model m = {0};
    int met[M_N] = {0}, cf0_met = 0, lagged_met = 0, fd;
    uint64_t pos = 0;
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "/tmp/test_draw_XXXXXX");
    fd = mkstemp(path);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    assert_non_null(f);
    for (uint64_t i = 0; i < n; i++) {
        int cf0;
        uint64_t w = defective_word(i, &cf0);

        fprintf(f, "%016llx%s\n", (unsigned long long)w, cf0 ? " fail" : "");
    }
    assert_int_equal(fclose(f), 0);
    snprintf(spec, sizeof(spec), "words=%s", path);
    sim_or_fail(spec);
    rdrand_health_init(&h);
    h.seen = &seen;
    for (size_t len = 1; pos + 100 < n; len = len * 7 % 601) {
        size_t needed = (len + 7) / 8, delivered = 0;
        uint64_t k = 0, executed = 0;
        int want = RDRAND_R_OK, got;

        /*
         * The model's request: stream order, the first bad word decides.
         * A word only the tables find (a repeat of one further back than
         * the last) is found RDRAND_SEEN_LAG words later (seen.h), or at
         * the first word after it that fails another test, or at the
         * request's end or a CF=0: the words up to there are drawn.
         */
        unsigned int lagged = 0;

        while (delivered < needed) {
            int cf0, opens = m.in_window == 0;
            uint64_t w = defective_word(pos + k++, &cf0);
            unsigned int failed;

            if (cf0) {
                if (want == RDRAND_R_OK)
                    want = RDRAND_R_RDRAND_FAILED;
                break;
            }
            failed = model_judge(&m, w);
            delivered += !opens;
            if (want == RDRAND_R_OK && failed == 1u << M_CYCLE) {
                want = RDRAND_R_SHORT_CYCLE;
                continue;
            }
            if (want != RDRAND_R_OK) {
                if ((failed & ~(1u << M_CYCLE)) == 0
                    && ++lagged < RDRAND_SEEN_LAG)
                    continue;
                k += delivered < needed; /* the next, already drawn */
                break;
            }
            want = model_reason(failed);
            if (want != RDRAND_R_OK) {
                k += delivered < needed; /* the next, already drawn */
                break;
            }
            for (size_t b = 8 * (delivered - 1);
                 !opens && b < len && b < 8 * delivered; b++)
                expect[b] = (unsigned char)(w >> (8 * (b % 8)));
        }
        executed = rdrand_sim_executions();
        got = rdrand_draw(&h, buf, len);
        assert_int_equal(got, want);
        assert_int_equal(rdrand_sim_executions() - executed, k);
        if (got == RDRAND_R_OK)
            assert_memory_equal(buf, expect, len);
        else
            assert_true(all_bytes(buf, len, 0));
        for (int i = 0; i < M_N; i++)
            met[i] |= want == model_reasons[i];
        cf0_met |= want == RDRAND_R_RDRAND_FAILED;
        lagged_met |= lagged > 0;
        pos += k;
        /*
         * After a repeat found late, the draw has run the other tests on
         * the words after it: a permanent verdict in the provider, whose
         * state is not used again.  Both start over.
         */
        if (want == RDRAND_R_SHORT_CYCLE) {
            rdrand_health_init(&h);
            memset(&seen, 0, sizeof(seen));
            h.seen = &seen;
            memset(&m, 0, sizeof(m));
        }
    }
    for (int i = 0; i < M_N; i++)
        if (!met[i])
            fail_msg("the stream never tripped reason %d", model_reasons[i]);
    assert_true(cf0_met);
    assert_true(lagged_met); /* a repeat found late, words drawn after it */
    unlink(path);
}

static void test_zero_length(void **state)
{
    unsigned char buf[1] = {0x5A};

    (void)state;
    sim_or_fail("");
    assert_int_equal(rdrand_draw(NULL, buf, 0), RDRAND_R_OK);
    assert_int_equal(rdrand_sim_executions(), 0);
    assert_int_equal(buf[0], 0x5A);
}

/* With health tests: nothing drawn, the state as it was. */
static void test_zero_length_checked(void **state)
{
    unsigned char buf[1] = {0x5A};
    struct rdrand_health a, b;

    (void)state;
    sim_or_fail("");
    keyed_pair(&a, &b);
    assert_int_equal(rdrand_draw(&a, buf, 0), RDRAND_R_OK);
    assert_int_equal(rdrand_sim_executions(), 0);
    assert_int_equal(buf[0], 0x5A);
    assert_same_state(&a, &b);
}

/*
 * Tables whose bucket counts are out of range (another process of the
 * tree may write anything there): the draw starts such a bucket over, as
 * the word-by-word path does, and never leaves a count out of range.
 */
static void test_counts_out_of_range(void **state)
{
    static unsigned char buf[64 * 8];
    struct rdrand_health a, b;
    size_t restarted = 0;

    (void)state;
    sim_or_fail("");
    keyed_pair(&a, &b);
    for (size_t i = 0; i < RDRAND_RECENT_BUCKETS; i++) {
        a.seen->tag[i][RDRAND_RECENT_COUNT] = 0xffff;
        b.seen->tag[i][RDRAND_RECENT_COUNT] = 0xffff;
    }
    assert_int_equal(rdrand_draw(&a, buf, sizeof(buf)), RDRAND_R_OK);
    for (uint64_t i = 0; i < rdrand_sim_executions(); i++)
        assert_int_equal(rdrand_health_check_word(&b, expected_word(i)),
                         RDRAND_R_OK);
    end_request(&b);
    assert_same_state(&a, &b);
    for (size_t i = 0; i < RDRAND_RECENT_BUCKETS; i++) {
        unsigned int n = a.seen->tag[i][RDRAND_RECENT_COUNT];

        assert_true(n == 0xffff || n < RDRAND_RECENT_WAYS);
        restarted += n != 0xffff;
    }
    assert_true(restarted > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_length),
        cmocka_unit_test(test_requests_across_windows),
        cmocka_unit_test(test_fail_at_word_k_executes_k),
        cmocka_unit_test(test_fail_in_partial_last_word),
        cmocka_unit_test(test_partial_last_word_unchecked),
        cmocka_unit_test(test_fail_from),
        cmocka_unit_test(test_stuck_value_needs_health),
        cmocka_unit_test(test_trip_then_cf0),
        cmocka_unit_test(test_no_delivered_word_kept),
        cmocka_unit_test(test_zero_length),
        cmocka_unit_test(test_zero_length_checked),
        cmocka_unit_test(test_counts_out_of_range),
        cmocka_unit_test(test_draw_matches_word_by_word),
        cmocka_unit_test(test_draw_matches_word_by_word_on_trips),
        cmocka_unit_test(test_waiting_repeat_comes_first),
        cmocka_unit_test(test_cf0_at_every_position),
        cmocka_unit_test(test_draw_matches_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

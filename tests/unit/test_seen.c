/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recent-words and long-cycle tests (provider/seen.h) on streams fed
 * word by word through the continuous tests, with tables of their own:
 *  - after 20,000 clean words, cycles of 33 to 2^24 words trip them,
 *    never before the first repeated word: at the first one for periods
 *    up to 4,096, within the bound docs/health-tests.md derives (2^-20
 *    per cycle and key) beyond;
 *  - a constant every 64th or 1,000th word, the constant 4, lag repeats:
 *    caught at the second occurrence;
 *  - across threads: states sharing the tables and the key, one drawing
 *    a cycle's first period and another the second; eight states drawing
 *    one stream 300,000 words apart;
 *  - a clean stream of 10^6 words never trips them, and 2^20 words whose
 *    digests share a bucket and a point slot match nothing.
 * The summary lines give the numbers of docs/health-tests.md.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "errors.h"
#include "health.h"
#include "health_step.h"
#include "seams.h"
#include "seen.h"
#include "splitmix.h"
#include "test_key.h"

#define CLEAN 20000 /* clean words before each defect, as in the review */
#define KEYS 64     /* keys (processes) per period */

static struct rdrand_seen *table;

static uint64_t splitmix(uint64_t x)
{
    return rdrand_test_mix64(x * RDRAND_TEST_GOLDEN + 0x632be59bd9b4e019u);
}

/* A fresh state under key k, with the (emptied) test table. */
static void keyed_state(struct rdrand_health *h, uint64_t k)
{
    rdrand_health_init(h);
    memset(table, 0, sizeof(*table));
    rdrand_test_key(h, splitmix(k << 1), splitmix(k << 1 | 1));
    h->seen = table;
}

/* Clean word i of the stream for key k (distinct streams per key). */
static uint64_t clean_word(uint64_t k, uint64_t i)
{
    return splitmix(k << 40 ^ i);
}

/*
 * docs/health-tests.md's bound ("Recent words and long cycles"): a word
 * repeated at lag p is still in its bucket unless 16 of the p words in
 * between fell into it, P(Poisson(p / 4096) >= 16); if it left, it is
 * still caught if it is a point (1/256) whose slot no later point took,
 * e^(-p / 2^24).  With q the chance a repeated word is caught, more than
 * m repeated words pass with probability (1 - q)^m: m words is the bound
 * at 2^-20.
 */
static double bound_words(double p)
{
    double mean = p / RDRAND_RECENT_BUCKETS, term = exp(-mean), stays = 0, q;

    for (int k = 0; k < RDRAND_RECENT_WAYS; k++) {
        stays += term;
        term *= mean / (k + 1);
    }
    q = stays + (1 - stays) / 256 * exp(-p / 16777216.0);
    if (q >= 1 - 1e-15)
        return 0;
    return ceil(log(ldexp(1, -20)) / log(1 - q)) - 1;
}

static int feed(struct rdrand_health *h, uint64_t w)
{
    return rdrand_health_check_word(h, w);
}

static void test_cycles_caught_within_bound(void **state)
{
    static const struct {
        uint64_t p;
        uint64_t keys;
    } periods[] = {{33, KEYS},
                   {100, KEYS},
                   {1000, KEYS},
                   {4096, KEYS},
                   {10000, KEYS},
                   {32768, KEYS},
                   {100000, 16},
                   {(uint64_t)1 << 20, 4},
                   {(uint64_t)1 << 24, 1}};

    (void)state;
    for (size_t j = 0; j < sizeof(periods) / sizeof(periods[0]); j++) {
        uint64_t p = periods[j].p, worst = 0, sum = 0;
        double bound = bound_words((double)p);

        for (uint64_t k = 0; k < periods[j].keys; k++) {
            struct rdrand_health h;
            uint64_t i, repeated;
            int reason = RDRAND_R_OK;

            keyed_state(&h, k);
            for (i = 0; i < CLEAN; i++)
                assert_int_equal(feed(&h, clean_word(k, i)), RDRAND_R_OK);
            /* the cycle: CLEAN + (i - CLEAN) mod p, its words new */
            for (; reason == RDRAND_R_OK && i < CLEAN + 2 * p + 20000; i++)
                reason = feed(&h, clean_word(k + 1000, (i - CLEAN) % p));
            assert_true(reason == RDRAND_R_SHORT_CYCLE
                        || reason == RDRAND_R_LONG_CYCLE);
            /* i - 1 tripped; nothing before the first repeat can */
            assert_true(i - 1 >= CLEAN + p);
            repeated = i - 1 - (CLEAN + p);
            if (repeated > bound)
                fail_msg("cycle of %llu (key %llu): %llu repeated words "
                         "passed, bound %.0f",
                         (unsigned long long)p, (unsigned long long)k,
                         (unsigned long long)repeated, bound);
            worst = repeated > worst ? repeated : worst;
            sum += repeated;
        }
        printf("cycle of %8llu words: repeated words passed before the "
               "trip: mean %.1f, max %llu over %llu keys (bound %.0f)\n",
               (unsigned long long)p, (double)sum / (double)periods[j].keys,
               (unsigned long long)worst, (unsigned long long)periods[j].keys,
               bound);
    }
}

/*
 * Repeats that are no cycle, each caught at its second occurrence (the
 * first repeated word): a constant every 64th and every 1,000th word
 * (the review's defect: a sample of one word in four caught 2 of 8), the
 * constant 4 every 8th word (AMD-SB-7033's proof of concept returns it),
 * odd words repeating the word 100 before, one word in 8 the word 3,000
 * before.  Every lag is within the 4,096 words held to 2^-45.7.
 */
static void test_repeats_caught_at_once(void **state)
{
    static const struct {
        const char *name;
        uint64_t constant, lag, every; /* constant, or lag */
    } kinds[] = {{"a constant every 64th word", 0x0123456789abcdefu, 0, 64},
                 {"a constant every 1000th word", 0xfedcba9876543210u, 0, 1000},
                 {"the constant 4 every 8th word", 4, 0, 8},
                 {"odd words repeat lag 100", 0, 100, 2},
                 {"1 in 8 words repeat lag 3000", 0, 3000, 8}};
    static uint64_t w[CLEAN + 20000];

    (void)state;
    for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
        for (uint64_t k = 0; k < KEYS; k++) {
            struct rdrand_health h;
            uint64_t i, first = 0;
            int reason = RDRAND_R_OK;

            keyed_state(&h, k);
            for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
                int odd = i >= CLEAN + kinds[j].lag
                          && i % kinds[j].every == kinds[j].every - 1;

                w[i] = clean_word(k, i);
                if (odd)
                    w[i] =
                        kinds[j].lag ? w[i - kinds[j].lag] : kinds[j].constant;
                if (odd && first == 0)
                    first = i;
            }
            for (i = 0; reason == RDRAND_R_OK && i < sizeof(w) / sizeof(w[0]);
                 i++)
                reason = feed(&h, w[i]);
            assert_int_equal(reason, RDRAND_R_SHORT_CYCLE);
            /* the lag repeats' first is a repeat; a constant's second is */
            if (kinds[j].lag == 0)
                first += kinds[j].every;
            if (i - 1 != first)
                fail_msg("%s (key %llu): tripped at word %llu, not %llu",
                         kinds[j].name, (unsigned long long)k,
                         (unsigned long long)(i - 1),
                         (unsigned long long)first);
        }
        printf("%s: caught at its first repeat, %d keys\n", kinds[j].name,
               KEYS);
    }
}

/*
 * Two threads' states: the tree's key and tables, their own last word.
 * A cycle of 1000 words whose first period one thread draws and whose
 * second the other: the second trips at its first word.
 */
static void test_across_threads(void **state)
{
    struct rdrand_health a, b;
    int reason = RDRAND_R_OK;
    uint64_t i;

    (void)state;
    keyed_state(&a, 7);
    b = a;
    for (i = 0; i < 1000; i++)
        assert_int_equal(feed(&a, clean_word(99, i)), RDRAND_R_OK);
    for (i = 0; reason == RDRAND_R_OK && i < 1000; i++)
        reason = feed(&b, clean_word(99, i));
    assert_int_equal(reason, RDRAND_R_SHORT_CYCLE);
    assert_int_equal(i, 1);
    /* without the tables, b's own tests see nothing */
    keyed_state(&a, 7);
    b = a;
    b.seen = NULL;
    for (i = 0; i < 1000; i++)
        assert_int_equal(feed(&a, clean_word(99, i)), RDRAND_R_OK);
    for (i = 0; i < 1000; i++)
        assert_int_equal(feed(&b, clean_word(99, i)), RDRAND_R_OK);
}

/*
 * The review's eight threads on one stream 300,000 words apart, six
 * words a request, in turn: thread t's words are those thread t + 1 drew
 * 2.4 million words of the tree earlier, beyond the buckets' reach; the
 * points catch the first thread to reach its neighbour's start within
 * the bound for that lag.
 */
static void test_threads_apart(void **state)
{
    enum { THREADS = 8, APART = 300000, REQUEST = 6 };
    static struct rdrand_health h[THREADS];
    uint64_t pos[THREADS], drawn = 0;
    int reason = RDRAND_R_OK;
    double bound = bound_words((double)APART * THREADS);

    (void)state;
    keyed_state(&h[0], 11);
    for (int t = 0; t < THREADS; t++) {
        h[t] = h[0];
        pos[t] = (uint64_t)t * APART;
    }
    while (reason == RDRAND_R_OK && drawn < (uint64_t)2 * APART * THREADS)
        for (int t = 0; t < THREADS && reason == RDRAND_R_OK; t++)
            for (int r = 0; r < REQUEST && reason == RDRAND_R_OK; r++) {
                reason = feed(&h[t], clean_word(77, pos[t]++));
                drawn++;
            }
    assert_true(reason == RDRAND_R_SHORT_CYCLE
                || reason == RDRAND_R_LONG_CYCLE);
    /* the first repeated word is drawn once APART words a thread */
    assert_true(drawn >= (uint64_t)APART * THREADS);
    printf("8 threads 300,000 words apart: %llu repeated words passed "
           "(bound %.0f)\n",
           (unsigned long long)(drawn - (uint64_t)APART * THREADS), bound);
    assert_true((double)(drawn - (uint64_t)APART * THREADS) <= bound + 1);
}

/*
 * A clean stream through the tables: 10^6 words, each a false match with
 * probability <= 16 * 2^-64 + 2^-64.  test_health_long runs 10^7 more
 * and test_health_clean 10^8 on 8 threads sharing tables.
 */
static void test_clean_never_trips(void **state)
{
    struct rdrand_health h;

    (void)state;
    keyed_state(&h, 3);
    for (uint64_t i = 0; i < 1000000; i++)
        if (feed(&h, clean_word(12345, i)) != RDRAND_R_OK)
            fail_msg("clean word %llu tripped", (unsigned long long)i);
}

/*
 * The tables compare 64 bits that the bucket, point and slot bits do not
 * fix (review of round three, D1).  2^20 distinct words, each entered
 * into one bucket and one point slot (their digests' position bits
 * forced, 36 of 64, with 28 left free): had the tables held the digest,
 * about 2^20 * 17 * 2^-28 = 66 of them would match an entry; their own
 * checks match with probability 2^20 * 17 * 2^-64.
 */
static void test_slot_compares_64_bits(void **state)
{
    struct rdrand_health h;
    uint64_t matches = 0;

    (void)state;
    rdrand_health_init(&h);
    rdrand_test_key(&h, 0x243f6a8885a308d3u, 0x13198a2e03707344u);
    memset(table, 0, sizeof(*table));
    for (uint64_t i = 0; i < (1u << 20); i++) {
        uint64_t check,
            d = rdrand_health_digest(&h, h.s.key, splitmix(i), &check);

        /* every one into bucket 0x2a5 and, a point, into slot 0x1234 */
        d = (d & ~((uint64_t)0xfff << 52 | 0xffffff)) | (uint64_t)0x2a5 << 52
            | (uint64_t)0x1234 << 8;
        matches += rdrand_seen_step(table, d, check) != 0;
    }
    assert_int_equal(matches, 0);
}

/*
 * Where the CPU has AES-NI the digest is AES-MMO, E_k(w) ^ w, as OpenSSL's
 * AES computes it (the one-way check the shared tables hold: health.h);
 * without, the multiplications.  Under 64 keys, 1,024 words each.
 */
static void test_digest_is_aes_mmo(void **state)
{
    struct rdrand_health h;
    int aes = rdrand_test_digest_aes();

    (void)state;
    if (getenv("RDRAND_TEST_DIGEST") == NULL && !aes)
        fail_msg("this CPU has no AES-NI: the shipped digest is not tested");
    for (uint64_t k = 0; k < 64; k++) {
        rdrand_health_init(&h);
        rdrand_test_key(&h, splitmix(3 * k), splitmix(3 * k + 1));
        assert_int_equal(h.digest.ready, aes);
        for (uint64_t i = 0; i < 1024; i++) {
            uint64_t w = i == 0 ? 0 : splitmix(k << 20 | i), check, ref[2],
                     d = rdrand_health_digest(&h, h.s.key, w, &check);

            assert_true(rdrand_test_mmo(h.s.key, w, ref));
            if (aes) {
                assert_true(d == ref[0] && check == ref[1]);
            } else {
                uint64_t mcheck,
                    md = rdrand_health_digest_mul(h.s.key, w, &mcheck);

                assert_true(d == md && check == mcheck);
                assert_false(d == ref[0] || check == ref[1]);
            }
        }
    }
    rdrand_health_init(&h);
}

/*
 * A word entered into a bucket whose count is out of range (another
 * process of the tree may write anything there): the bucket starts over
 * at its first entry, nothing is written outside it, and the word is
 * still caught when it comes again.
 */
static void test_count_out_of_range(void **state)
{
    struct rdrand_health h;
    size_t restarted = 0, at = 0;

    (void)state;
    keyed_state(&h, 1);
    for (size_t b = 0; b < RDRAND_RECENT_BUCKETS; b++)
        table->tag[b][RDRAND_RECENT_COUNT] = 0xffff;
    assert_int_equal(feed(&h, clean_word(1, 0)), RDRAND_R_OK);
    for (size_t b = 0; b < RDRAND_RECENT_BUCKETS; b++)
        if (table->tag[b][RDRAND_RECENT_COUNT] != 0xffff) {
            restarted++;
            at = b;
        }
    assert_int_equal(restarted, 1);
    assert_int_equal(table->tag[at][RDRAND_RECENT_COUNT], 1);
    assert_int_not_equal(atomic_load(&table->check[at][0]), 0);
    assert_int_equal(atomic_load(&table->check[at][RDRAND_RECENT_WAYS]), 0);
    assert_int_equal(feed(&h, clean_word(1, 1)), RDRAND_R_OK);
    assert_int_equal(feed(&h, clean_word(1, 0)), RDRAND_R_SHORT_CYCLE);
    rdrand_health_init(&h);
}

/*
 * The process's key (seen.c): a half of ~0 or ~1 is never ~0 (a fold by
 * it maps every nonzero word to ~0); a half set first is the process's,
 * whatever candidate comes later; without the OS's key, a sample that
 * failed the sample rules keys nothing until both halves are set.
 */
static void test_process_key_halves(void **state)
{
    static const uint64_t words[RDRAND_SELFTEST_WORDS];
    uint64_t key[2] = {0, 0};
    struct rdrand_seen *t;
    int aes;

    (void)state;
    rdrand_seen_forget(); /* mapped, as at a load */
    rdrand_seen_seam_unkey();
    assert_int_equal(
        rdrand_seen_process(key, &aes, &t, words, RDRAND_SELFTEST_WORDS, 0), 0);
    assert_int_equal(rdrand_seen_seam_key_half(0, ~(uint64_t)0),
                     ~(uint64_t)0 ^ 2);
    assert_int_equal(rdrand_seen_seam_key_half(0, 5), ~(uint64_t)0 ^ 2);
    /* half 0 set, half 1 not yet (another thread between the two) */
    assert_int_equal(
        rdrand_seen_process(key, &aes, &t, words, RDRAND_SELFTEST_WORDS, 0), 0);
    assert_int_equal(rdrand_seen_seam_key_half(1, ~(uint64_t)1),
                     ~(uint64_t)1 ^ 2);
    assert_int_equal(
        rdrand_seen_process(key, &aes, &t, words, RDRAND_SELFTEST_WORDS, 0), 1);
    assert_int_equal(key[0], ~(uint64_t)0 ^ 2);
    assert_int_equal(key[1], ~(uint64_t)1 ^ 2);
    rdrand_seen_forget();
}

/*
 * The OS's key refused (getrandom ENOSYS under a seccomp filter, in a
 * child): no key until a sample that passed the sample rules gives one,
 * its halves' top bits set.  The child's exit status: 0 if all held.
 */
static int key_without_os(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
    uint64_t words[RDRAND_SELFTEST_WORDS], key[2] = {0, 0}, probe;
    struct rdrand_seen *t;
    int aes;

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return 2;
    if (syscall(SYS_getrandom, &probe, sizeof(probe), 1) != -1
        || errno != ENOSYS)
        return 3;         /* the filter does not do what it must */
    rdrand_seen_forget(); /* the OS's key asked for again: refused */
    for (size_t i = 0; i < RDRAND_SELFTEST_WORDS; i++)
        words[i] = clean_word(7, i);
    if (rdrand_seen_process(key, &aes, &t, words, RDRAND_SELFTEST_WORDS, 0)
        != 0)
        return 4;
    if (rdrand_seen_process(key, &aes, &t, words, RDRAND_SELFTEST_WORDS, 1) != 1
        || key[0] >> 63 != 1 || key[1] >> 63 != 1)
        return 5;
    return 0;
}

static void test_key_without_os(void **state)
{
    int status = 0;
    pid_t pid;

    (void)state;
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        exit(key_without_os()); /* exit: a coverage build writes counts */
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycles_caught_within_bound),
        cmocka_unit_test(test_repeats_caught_at_once),
        cmocka_unit_test(test_across_threads),
        cmocka_unit_test(test_threads_apart),
        cmocka_unit_test(test_clean_never_trips),
        cmocka_unit_test(test_slot_compares_64_bits),
        cmocka_unit_test(test_digest_is_aes_mmo),
        cmocka_unit_test(test_count_out_of_range),
        cmocka_unit_test(test_process_key_halves),
        cmocka_unit_test(test_key_without_os),
    };
    int rc;

    table = calloc(1, sizeof(*table));
    if (table == NULL)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(table);
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_tests: what each continuous health test costs per word, so that
 * the gap to the budget (all the tests <= 3 % of a 4 KiB draw,
 * docs/performance.md) has a known owner.
 *
 *   bench_tests [-n WORDS] [-r REPS]
 *     -n WORDS  words per timed batch (default 65536)
 *     -r REPS   timed batches per row (default 31)
 *
 * Each test's step (provider/health_step.h, the code the draw loop runs)
 * is timed alone in a loop of its own over words drawn from RDRAND once,
 * each batch's words made new by an XOR with the batch number (the
 * tables must not find the last batch's words).  A row's figure is its
 * fastest batch, less the loop's own cost (the "loop" row: load, XOR,
 * keep the result), in ns per word.  Alone, a step runs without the
 * RDRAND latency it may overlap in the draw loop, and the tables' lines
 * come later than there (a word's lookup waits RDRAND_SEEN_LAG words
 * for them, much shorter without RDRAND): the rows say which test
 * costs what; the last two measure what the tests do add, the draw of
 * 4 KiB with them against without, and the budget, 3 % of the latter.
 *
 * Every step is a noinline function named bench_step_*: callgrind
 * counts its instructions (scripts/bench.sh divides by the words).
 * Exit status: 0, 1 if an RDRAND failed, 2 usage, 77 no RDRAND.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_health.h"
#include "draw.h"
#include "health.h"
#include "health_step.h"
#include "hw.h"
#include "seen_table.h"

#define BENCH_WORDS_MAX ((size_t)1 << 20)
#define BENCH_REPS_MAX 1001
#define BENCH_DRAW_BYTES 4096

static uint64_t bench_words[BENCH_WORDS_MAX], bench_d[BENCH_WORDS_MAX],
    bench_check[BENCH_WORDS_MAX];
static volatile uint64_t bench_sink;
/* The steps' state, and the draw rows' own (a step leaves h inconsistent). */
static struct rdrand_health bench_h, bench_draw_h;
static struct rdrand_seen *bench_table;
static int bench_failed;

/* ---- the steps, each alone; n words, batch number k ---- */

__attribute__((noinline)) static void bench_step_loop(size_t n, uint64_t k)
{
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc += bench_words[i] ^ k;
    bench_sink = acc;
}

__attribute__((noinline)) RDRAND_AESNI static void bench_step_digest(size_t n,
                                                                     uint64_t k)
{
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++) {
        bench_d[i] = rdrand_health_digest(&bench_h, bench_h.s.key,
                                          bench_words[i] ^ k, &bench_check[i]);
        acc += bench_d[i];
    }
    bench_sink = acc;
}

__attribute__((noinline)) static void bench_step_repeat(size_t n, uint64_t k)
{
    struct rdrand_health_scalars c = bench_h.s;
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc |= rdrand_health_repeat(&c, bench_d[i] ^ k);
    bench_sink = acc;
}

/* The recent words and long cycles, lagged as in the draw loop. */
__attribute__((noinline)) static void bench_step_seen(size_t n, uint64_t k)
{
    struct rdrand_seen_lag lag = {{0}, {0}, 0, 0};
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc |= rdrand_seen_lagged(bench_table, &lag, bench_d[i] ^ k,
                                  bench_check[i] ^ k);
    acc |= rdrand_seen_drain(bench_table, &lag);
    bench_sink = acc;
}

__attribute__((noinline)) static void bench_step_stuck(size_t n, uint64_t k)
{
    struct rdrand_health_scalars c = bench_h.s;
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc |= rdrand_health_block_step(&c, bench_words[i] ^ k);
    bench_sink = acc;
}

__attribute__((noinline)) static void bench_step_apt(size_t n, uint64_t k)
{
    struct rdrand_apt apt = rdrand_apt_load(&bench_h.s);
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc |= rdrand_health_apt_step(
            &apt, _mm_cvtsi64_si128((long long)(bench_words[i] ^ k)));
    bench_sink = acc;
}

/* The bit proportion: groups of 8 words, judged at each window's end. */
__attribute__((noinline)) static void bench_step_bits(size_t n, uint64_t k)
{
    struct rdrand_health_scalars c = bench_h.s;
    uint64_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc |= rdrand_health_group_step(&bench_h, &c, bench_words[i] ^ k);
    bench_sink = acc;
}

/* The real draw, 4 KiB requests, with and without the tests; raw RDRAND. */
static unsigned char bench_out[BENCH_DRAW_BYTES];

__attribute__((noinline)) static void bench_step_draw_health(size_t n,
                                                             uint64_t k)
{
    (void)k;
    for (size_t i = 0; i < n; i += BENCH_DRAW_BYTES / 8)
        bench_failed |=
            rdrand_draw(&bench_draw_h, bench_out, sizeof(bench_out));
}

__attribute__((noinline)) static void bench_step_draw_plain(size_t n,
                                                            uint64_t k)
{
    (void)k;
    for (size_t i = 0; i < n; i += BENCH_DRAW_BYTES / 8)
        bench_failed |= rdrand_draw(NULL, bench_out, sizeof(bench_out));
}

__attribute__((noinline)) static void bench_step_rdrand(size_t n, uint64_t k)
{
    uint64_t w, acc = k;

    for (size_t i = 0; i < n; i++) {
        bench_failed |= !rdrand_hw_rdrand64(&w);
        acc ^= w;
    }
    bench_sink = acc;
}

/* ---- timing ---- */

struct bench_row {
    const char *name, *what;
    void (*step)(size_t n, uint64_t k);
    int less_loop; /* the loop's own cost is taken off */
    double best;
};

static struct bench_row bench_rows[] = {
    {"loop", "the loop alone (load, XOR, keep)", bench_step_loop, 0, 0},
    {"digest", "digest (AES-MMO, or multiply-fold)", bench_step_digest, 1, 0},
    {"repeat", "repetition (last digest)", bench_step_repeat, 1, 0},
    {"seen", "recent words + long cycles (tables)", bench_step_seen, 1, 0},
    {"stuck", "stuck bit (64-word blocks)", bench_step_stuck, 1, 0},
    {"apt", "adaptive proportion (8 lanes)", bench_step_apt, 1, 0},
    {"bits", "bit proportion (bit-sliced)", bench_step_bits, 1, 0},
    {"rdrand", "raw RDRAND, one word", bench_step_rdrand, 0, 0},
    {"draw_plain", "rdrand_draw 4 KiB, no tests", bench_step_draw_plain, 0, 0},
    {"draw_health", "rdrand_draw 4 KiB, tests", bench_step_draw_health, 0, 0},
};
#define BENCH_NROWS (sizeof(bench_rows) / sizeof(bench_rows[0]))

static double bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench_usage(void)
{
    fprintf(stderr, "usage: bench_tests [-n WORDS] [-r REPS]\n");
    return 2;
}

static int bench_setup(size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!rdrand_hw_rdrand64(&bench_words[i]))
            return 0;
    if (!bench_health_keyed(&bench_h, &bench_table))
        return 0;
    bench_draw_h = bench_h;
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = 65536;
    int reps = 31, opt;
    double plain, added;

    while ((opt = getopt(argc, argv, "n:r:")) != -1) {
        char *end;
        unsigned long v = strtoul(optarg, &end, 10);

        if (*end != '\0' || v == 0)
            return bench_usage();
        if (opt == 'n' && v <= BENCH_WORDS_MAX)
            n = (v + BENCH_DRAW_BYTES / 8 - 1) / (BENCH_DRAW_BYTES / 8)
                * (BENCH_DRAW_BYTES / 8);
        else if (opt == 'r' && v <= BENCH_REPS_MAX)
            reps = (int)v;
        else
            return bench_usage();
    }
    if (optind != argc)
        return bench_usage();
    if (!rdrand_hw_leaf1_ecx(30)) { /* CPUID.1:ECX.RDRAND */
        printf("SKIP: no RDRAND on this CPU\n");
        return 77;
    }
    if (n > BENCH_WORDS_MAX || !bench_setup(n)) {
        fprintf(stderr, "bench_tests: setup failed (RDRAND or memory)\n");
        return 1;
    }
    /* Round-robin: every row sees the same machine in each round. */
    for (size_t i = 0; i < BENCH_NROWS; i++)
        bench_rows[i].best = 1e300;
    for (int r = 0; r < reps; r++) {
        for (size_t i = 0; i < BENCH_NROWS; i++) {
            double t0 = bench_now_ns(), t;

            bench_rows[i].step(n, (uint64_t)r * 0x9e3779b97f4a7c15u + 1);
            t = (bench_now_ns() - t0) / (double)n;
            if (t < bench_rows[i].best)
                bench_rows[i].best = t;
        }
    }
    printf("%-12s %-40s %10s\n", "test", "what", "ns/word");
    for (size_t i = 0; i < BENCH_NROWS; i++) {
        struct bench_row *b = &bench_rows[i];
        double ns = b->best - (b->less_loop ? bench_rows[0].best : 0);

        printf("%-12s %-40s %10.2f\n", b->name, b->what, ns);
        printf("bench: test_%s_ns=%.2f\n", b->name, ns);
    }
    plain = bench_rows[BENCH_NROWS - 2].best;
    added = bench_rows[BENCH_NROWS - 1].best - plain;
    printf("the tests add %.2f ns/word to a 4 KiB draw (%.1f %%); the budget,"
           " 3 %%, is %.2f ns/word\n",
           added, 100 * added / plain, 0.03 * plain);
    printf("bench: tests_added_ns=%.2f\n", added);
    printf("bench: tests_added_vs_draw=%.3f\n", added / plain);
    free(bench_table);
    if (bench_failed)
        fprintf(stderr, "bench_tests: an RDRAND or a draw failed\n");
    return bench_failed ? 1 : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RDRAND under contention: one thread per CPU this process may run on
 * (its affinity mask), each pinned, each
 * executing RDRAND (provider/hw.h's one execution, as the provider does:
 * no retry) for its share of the words, all at once.  Per CPU: words,
 * CF=0 count, and the latency of each execution (TSC cycles, converted
 * to ns with the TSC's rate measured over the run), as percentiles: each
 * RDRAND between two fenced TSC reads (lfence; rdtsc; lfence: rdtsc
 * alone can be read before RDRAND completes), less the cost of an empty
 * fenced pair, measured first.  In
 * total: CF=0 per 10^9 words, and, when none was seen, the 95 % upper
 * bound (3 / words: the "rule of three" for zero events in n trials).
 * The baseline in the same run: one thread alone on CPU 0 first; each
 * CPU's median under contention is printed as a ratio to it.
 *
 *   bench_contention [-n WORDS] [-b BASELINE_WORDS]
 *     WORDS: in total across the CPUs (default 10^9); BASELINE_WORDS:
 *     the single-thread run (default 10^7).
 * Exit status 77 without RDRAND, 1 on a usage or system error; CF=0
 * words are results, not errors.
 */
#define _GNU_SOURCE
#include "hw.h"
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if !defined(__x86_64__)
int main(void)
{
    printf("SKIP: RDRAND is an x86-64 instruction\n");
    return 77;
}
#else
#include <x86intrin.h>

/*
 * Latencies up to 2^16 cycles counted one by one (a RDRAND takes a few
 * hundred to a few thousand cycles); anything longer (an interrupt, a
 * preemption, a stall) in one overflow bucket, with the maximum kept.
 */
#define LAT_BUCKETS 65536

struct cpu_run {
    int cpu;
    uint64_t words;
    uint64_t failures;
    uint64_t max_cycles;
    uint64_t hist[LAT_BUCKETS + 1];
    double seconds;
    int error;
};

static pthread_barrier_t start_line;
static uint64_t fence_cycles; /* an empty fenced pair, subtracted */

/* The TSC after everything before it completed, before anything after. */
static inline uint64_t fenced_tsc(void)
{
    uint64_t t;

    _mm_lfence();
    t = __rdtsc();
    _mm_lfence();
    return t;
}

/* The least cycles of an empty fenced pair, over many. */
static uint64_t empty_pair_cycles(void)
{
    uint64_t least = UINT64_MAX;

    for (int i = 0; i < 100000; i++) {
        uint64_t c0 = fenced_tsc(), c = fenced_tsc() - c0;

        if (c < least)
            least = c;
    }
    return least;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run_cpu(void *arg)
{
    struct cpu_run *r = arg;
    cpu_set_t set;
    uint64_t word, sink = 0;
    double t0;

    CPU_ZERO(&set);
    CPU_SET(r->cpu, &set);
    r->error = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    pthread_barrier_wait(&start_line);
    t0 = now();
    for (uint64_t i = 0; i < r->words; i++) {
        uint64_t c0 = fenced_tsc();
        int ok = rdrand_hw_rdrand64(&word);
        uint64_t c = fenced_tsc() - c0;

        c = c > fence_cycles ? c - fence_cycles : 0;

        r->failures += !ok;
        sink ^= word;
        r->hist[c < LAT_BUCKETS ? c : LAT_BUCKETS]++;
        if (c > r->max_cycles)
            r->max_cycles = c;
    }
    r->seconds = now() - t0;
    /* Keep the words live: the asm is volatile, but say it. */
    __asm__ __volatile__("" : : "r"(sink));
    return NULL;
}

/* The latency at quantile q (0..1), in cycles (LAT_BUCKETS: above). */
static uint64_t quantile(const struct cpu_run *r, double q)
{
    uint64_t want = (uint64_t)(q * (double)r->words), seen = 0;

    for (uint64_t c = 0; c <= LAT_BUCKETS; c++) {
        seen += r->hist[c];
        if (seen > want)
            return c;
    }
    return LAT_BUCKETS;
}

/* Run one thread per entry of runs[0..n) at once; 0 or an errno. */
static int run_all(struct cpu_run *runs, int n)
{
    pthread_t *t = calloc((size_t)n, sizeof(*t));
    int err = 0, started = 0;

    if (t == NULL)
        return ENOMEM;
    if ((err = pthread_barrier_init(&start_line, NULL, (unsigned)n)) != 0) {
        free(t);
        return err;
    }
    for (; started < n; started++)
        if ((err = pthread_create(&t[started], NULL, run_cpu, &runs[started]))
            != 0)
            break;
    /* A thread that could not start would leave the others waiting. */
    if (err != 0) {
        fprintf(stderr, "bench_contention: pthread_create: %s\n",
                strerror(err));
        exit(1);
    }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start_line);
    free(t);
    for (int i = 0; i < n; i++)
        if (runs[i].error != 0)
            return runs[i].error;
    return 0;
}

/* A latency in ns; ">" where it fell in the overflow bucket. */
static void put_ns(const char *name, uint64_t cycles, double ns_per_cycle)
{
    printf(" %s %s%.0f", name, cycles >= LAT_BUCKETS ? ">" : "",
           (double)cycles * ns_per_cycle);
}

static void print_cpu(const struct cpu_run *r, double ns_per_cycle,
                      uint64_t base_p50)
{
    uint64_t p50 = quantile(r, 0.5);

    if (r->words == 0) {
        printf("cpu %3d: no words (fewer words than CPUs)\n", r->cpu);
        return;
    }

    printf("cpu %3d: %12" PRIu64 " words, CF=0 %" PRIu64
           ", %.1f M words/s, latency ns",
           r->cpu, r->words, r->failures, (double)r->words / r->seconds / 1e6);
    put_ns("p50", p50, ns_per_cycle);
    put_ns("p99", quantile(r, 0.99), ns_per_cycle);
    put_ns("p99.9", quantile(r, 0.999), ns_per_cycle);
    put_ns("p99.99", quantile(r, 0.9999), ns_per_cycle);
    printf(" max %.0f", (double)r->max_cycles * ns_per_cycle);
    if (base_p50 != 0)
        printf(", p50 vs alone %.2f", (double)p50 / (double)base_p50);
    printf("\n");
}

static uint64_t parse_count(const char *s, const char *what)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end); /* 1e9 as well as 1000000000 */
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 1e13
        || v != (double)(uint64_t)v) {
        fprintf(stderr,
                "bench_contention: %s must be a whole number of "
                "words from 1 to 1e13, got '%s'\n",
                what, s);
        exit(1);
    }
    return (uint64_t)v;
}

int main(int argc, char **argv)
{
    uint64_t total = 1000000000, base_words = 10000000, cf0 = 0, words = 0;
    cpu_set_t allowed;
    long ncpu = 0;
    struct cpu_run *runs, *base;
    double t0, c0, ns_per_cycle;
    int opt, err;

    while ((opt = getopt(argc, argv, "n:b:")) != -1) {
        if (opt == 'n')
            total = parse_count(optarg, "-n");
        else if (opt == 'b')
            base_words = parse_count(optarg, "-b");
        else {
            fprintf(stderr, "usage: %s [-n WORDS] [-b BASELINE_WORDS]\n",
                    argv[0]);
            return 1;
        }
    }
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        fprintf(stderr, "bench_contention: sched_getaffinity: %s\n",
                strerror(errno));
        return 1;
    }
    ncpu = CPU_COUNT(&allowed);
    if (optind != argc || ncpu < 1) {
        fprintf(stderr, "usage: %s [-n WORDS] [-b BASELINE_WORDS]\n", argv[0]);
        return 1;
    }
    if (!rdrand_hw_leaf1_ecx(30)) {
        printf("SKIP: CPUID reports no RDRAND\n");
        return 77;
    }
    base = calloc(1, sizeof(*base));
    runs = calloc((size_t)ncpu, sizeof(*runs));
    if (base == NULL || runs == NULL) {
        fprintf(stderr, "bench_contention: out of memory\n");
        return 1;
    }
    fence_cycles = empty_pair_cycles();
    t0 = now();
    c0 = (double)__rdtsc();
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            base->cpu = c; /* the first CPU this process may use */
            break;
        }
    base->words = base_words;
    if ((err = run_all(base, 1)) != 0) {
        fprintf(stderr, "bench_contention: pinning to CPU %d: %s\n", base->cpu,
                strerror(err));
        return 1;
    }
    for (long i = 0, c = 0; i < ncpu; i++, c++) {
        while (!CPU_ISSET(c, &allowed))
            c++;
        runs[i].cpu = (int)c;
        /* The remainder to the first CPUs: exactly `total` words. */
        runs[i].words =
            total / (uint64_t)ncpu + ((uint64_t)i < total % (uint64_t)ncpu);
    }
    if ((err = run_all(runs, (int)ncpu)) != 0) {
        fprintf(stderr, "bench_contention: pinning: %s\n", strerror(err));
        return 1;
    }
    ns_per_cycle = (now() - t0) * 1e9 / ((double)__rdtsc() - c0);

    printf("TSC: %.3f GHz (measured over the run); an empty fenced pair "
           "%" PRIu64 " cycles, subtracted\n",
           1.0 / ns_per_cycle, fence_cycles);
    printf("alone:\n");
    print_cpu(base, ns_per_cycle, 0);
    printf("all %ld CPUs at once:\n", ncpu);
    for (long i = 0; i < ncpu; i++) {
        print_cpu(&runs[i], ns_per_cycle, quantile(base, 0.5));
        cf0 += runs[i].failures;
        words += runs[i].words;
    }
    printf("total: %" PRIu64 " words, CF=0 %" PRIu64 ": %.3g per 10^9 words",
           words, cf0, (double)cf0 * 1e9 / (double)words);
    if (cf0 == 0)
        printf(" (95 %% upper bound %.3g per 10^9)", 3e9 / (double)words);
    printf("\nbench: contention_cf0_per_1e9=%.3f\n",
           (double)cf0 * 1e9 / (double)words);
    printf("bench: contention_p50_vs_alone=%.2f\n",
           (double)quantile(&runs[0], 0.5) / (double)quantile(base, 0.5));
    free(runs);
    free(base);
    return 0;
}
#endif

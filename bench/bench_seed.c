/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_seed: what the seed path costs on this machine's real CPU, every
 * variant measured in the same run, interleaved round-robin, median of N
 * batches, and reported as ratios against a baseline from the same run.
 *
 *   bench_seed [-n OPS] [-r REPS]
 *     -n OPS   operations per timed batch (default: calibrated so that a
 *              batch takes about 5 ms)
 *     -r REPS  timed batches per variant; the median is reported
 *              (default 41)
 *
 * Variants:
 *   raw       rdrand_hw_rdrand64 in a loop, CF checked, words copied out:
 *             the floor (the baseline is raw 48 bytes, 6 words)
 *   draw      rdrand_draw(NULL, ...): the no-retry loop without health
 *   health    rdrand_draw(&h, ...): with the continuous tests
 *   get_seed  get_seed + clear_seed through the RAND dispatch table of a
 *             provider started by OSSL_provider_init against a minimal
 *             core (secure-heap buffer, counters, latch check)
 *   evp-pr    EVP_RAND_generate(RAND_get0_public, 32 bytes, prediction
 *             resistance = 1) in a library context whose seed source is
 *             RDRAND (provider registered with OSSL_PROVIDER_add_builtin):
 *             one get_seed per call plus the DRBG chain's reseeds
 *   evp-pr-seed-src   the same with OpenSSL's SEED-SRC (getrandom)
 *   evp       the same without prediction resistance: no seed drawn
 *
 * Exit status: 0, 1 if any RDRAND or seed request failed (this never
 * retries), 2 usage, 77 no RDRAND on this CPU.  Timings are printed,
 * never judged.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#include "counters.h"
#include "draw.h"
#include "health.h"
#include "hw.h"
#include "rand.h"

#define BENCH_TARGET_NS 5e6 /* calibrated batch length */
#define BENCH_MAX_BYTES 4096
#define BENCH_MAX_REPS 1001

static unsigned char bench_buf[BENCH_MAX_BYTES];
static volatile uint64_t bench_sink;
static uint64_t bench_failures;

/* ---- what is timed ---- */

struct variant;
typedef void bench_fn(const struct variant *v, size_t ops);

struct variant {
    const char *name;
    size_t bytes;
    bench_fn *run;
    size_t ops;                /* per batch */
    double ns[BENCH_MAX_REPS]; /* ns per op, one per batch */
    double median, p25, p75;
};

static void bench_raw(const struct variant *v, size_t ops)
{
    uint64_t word;

    for (size_t i = 0; i < ops; i++) {
        for (size_t done = 0; done < v->bytes; done += sizeof(word)) {
            if (!rdrand_hw_rdrand64(&word)) {
                bench_failures++;
                break;
            }
            memcpy(bench_buf + done, &word, sizeof(word));
        }
        bench_sink ^= bench_buf[i % v->bytes];
    }
}

static void bench_draw(const struct variant *v, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        if (rdrand_draw(NULL, bench_buf, v->bytes) != 0)
            bench_failures++;
        bench_sink ^= bench_buf[i % v->bytes];
    }
}

static struct rdrand_health bench_health;

static void bench_health_draw(const struct variant *v, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        if (rdrand_draw(&bench_health, bench_buf, v->bytes) != 0)
            bench_failures++;
        bench_sink ^= bench_buf[i % v->bytes];
    }
}

/* A provider on a core that answers no config key and takes no errors. */
static void *bench_provctx, *bench_ctx;
static const OSSL_DISPATCH *bench_prov_out;
static OSSL_FUNC_rand_get_seed_fn *bench_get_seed;
static OSSL_FUNC_rand_clear_seed_fn *bench_clear_seed;

static int bench_core_get_params(const OSSL_CORE_HANDLE *handle,
                                 OSSL_PARAM params[])
{
    (void)handle, (void)params;
    return 1;
}

static const OSSL_DISPATCH bench_core[] = {
    {OSSL_FUNC_CORE_GET_PARAMS, (void (*)(void))bench_core_get_params},
    {0, NULL}};

static void (*bench_fn_of(const OSSL_DISPATCH *d, int id))(void)
{
    for (; d->function_id != 0; d++)
        if (d->function_id == id)
            return d->function;
    fprintf(stderr, "bench_seed: dispatch function %d missing\n", id);
    exit(1);
}

static int bench_provider_up(void)
{
    static int handle;
    OSSL_FUNC_rand_newctx_fn *newctx;
    OSSL_FUNC_rand_instantiate_fn *instantiate;

    if (!OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle, bench_core,
                            &bench_prov_out, &bench_provctx))
        return 0;
    newctx = (OSSL_FUNC_rand_newctx_fn *)bench_fn_of(rdrand_rand_functions,
                                                     OSSL_FUNC_RAND_NEWCTX);
    instantiate = (OSSL_FUNC_rand_instantiate_fn *)bench_fn_of(
        rdrand_rand_functions, OSSL_FUNC_RAND_INSTANTIATE);
    bench_get_seed = (OSSL_FUNC_rand_get_seed_fn *)bench_fn_of(
        rdrand_rand_functions, OSSL_FUNC_RAND_GET_SEED);
    bench_clear_seed = (OSSL_FUNC_rand_clear_seed_fn *)bench_fn_of(
        rdrand_rand_functions, OSSL_FUNC_RAND_CLEAR_SEED);
    return (bench_ctx = newctx(bench_provctx, NULL, NULL)) != NULL
           && instantiate(bench_ctx, 0, 0, NULL, 0, NULL);
}

static void bench_provider_down(void)
{
    OSSL_FUNC_rand_freectx_fn *freectx =
        (OSSL_FUNC_rand_freectx_fn *)bench_fn_of(rdrand_rand_functions,
                                                 OSSL_FUNC_RAND_FREECTX);

    freectx(bench_ctx);
    ((OSSL_FUNC_provider_teardown_fn *)bench_fn_of(
        bench_prov_out, OSSL_FUNC_PROVIDER_TEARDOWN))(bench_provctx);
}

static void bench_get_seed_path(const struct variant *v, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        unsigned char *seed;
        size_t n = bench_get_seed(bench_ctx, &seed, (int)v->bytes * 8, v->bytes,
                                  v->bytes, 0, NULL, 0);

        if (n != v->bytes) {
            bench_failures++;
            continue;
        }
        bench_sink ^= seed[i % n];
        bench_clear_seed(bench_ctx, seed, n);
    }
}

/* Library contexts: seeded from RDRAND, and from SEED-SRC. */
static OSSL_LIB_CTX *bench_lib_rdrand, *bench_lib_seed_src;
static OSSL_PROVIDER *bench_loaded[3];

static OSSL_LIB_CTX *bench_libctx(int rdrand)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    unsigned char b[32];

    if (libctx == NULL)
        return NULL;
    if (rdrand
        && (!OSSL_PROVIDER_add_builtin(libctx, RDRAND_PROVIDER_NAME,
                                       OSSL_provider_init)
            || (bench_loaded[0] =
                    OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME))
                   == NULL
            || !RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME,
                                          RDRAND_PROPERTY_QUERY)))
        return NULL;
    if ((bench_loaded[rdrand ? 1 : 2] = OSSL_PROVIDER_load(libctx, "default"))
            == NULL
        || RAND_bytes_ex(libctx, b, sizeof(b), 0) != 1)
        return NULL;
    return libctx;
}

static void bench_evp(OSSL_LIB_CTX *libctx, size_t bytes, int pr, size_t ops)
{
    EVP_RAND_CTX *pub = RAND_get0_public(libctx);

    for (size_t i = 0; i < ops; i++) {
        if (pub == NULL
            || EVP_RAND_generate(pub, bench_buf, bytes, 0, pr, NULL, 0) != 1)
            bench_failures++;
        bench_sink ^= bench_buf[i % bytes];
    }
}

static void bench_evp_pr_rdrand(const struct variant *v, size_t ops)
{
    bench_evp(bench_lib_rdrand, v->bytes, 1, ops);
}

static void bench_evp_pr_seed_src(const struct variant *v, size_t ops)
{
    bench_evp(bench_lib_seed_src, v->bytes, 1, ops);
}

static void bench_evp_no_pr(const struct variant *v, size_t ops)
{
    bench_evp(bench_lib_rdrand, v->bytes, 0, ops);
}

/* ---- timing ---- */

static double bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double bench_batch(const struct variant *v, size_t ops)
{
    double t0 = bench_now_ns();

    v->run(v, ops);
    return bench_now_ns() - t0;
}

/* Double the batch until it lasts about BENCH_TARGET_NS. */
static size_t bench_calibrate(const struct variant *v)
{
    size_t ops = 1;
    double t;

    while ((t = bench_batch(v, ops)) < BENCH_TARGET_NS / 2 && ops < 1u << 26)
        ops *= 2;
    ops = (size_t)((double)ops * BENCH_TARGET_NS / (t > 1 ? t : 1));
    return ops > 0 ? ops : 1;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double bench_quantile(const double *sorted, int n, double q)
{
    return sorted[(int)(q * (n - 1) + 0.5)];
}

/* ---- the report ---- */

enum {
    RAW32,
    RAW48,
    RAW256,
    RAW4096,
    DRAW32,
    DRAW48,
    DRAW256,
    DRAW4096,
    HEALTH32,
    HEALTH48,
    HEALTH256,
    HEALTH4096,
    SEED32,
    SEED48,
    EVP_PR,
    EVP_PR_SEED_SRC,
    EVP_NO_PR,
    NVARIANTS
};

#define BENCH_VARIANT(n, b, f)                                                 \
    {                                                                          \
        .name = (n), .bytes = (b), .run = (f)                                  \
    }
#define RAW "raw rdrand64 loop"
#define DRAW "rdrand_draw, no health"
#define HEALTH "rdrand_draw, health"
#define SEED "get_seed+clear_seed (dispatch)"
static struct variant variants[NVARIANTS] = {
    [RAW32] = BENCH_VARIANT(RAW, 32, bench_raw),
    [RAW48] = BENCH_VARIANT(RAW, 48, bench_raw),
    [RAW256] = BENCH_VARIANT(RAW, 256, bench_raw),
    [RAW4096] = BENCH_VARIANT(RAW, 4096, bench_raw),
    [DRAW32] = BENCH_VARIANT(DRAW, 32, bench_draw),
    [DRAW48] = BENCH_VARIANT(DRAW, 48, bench_draw),
    [DRAW256] = BENCH_VARIANT(DRAW, 256, bench_draw),
    [DRAW4096] = BENCH_VARIANT(DRAW, 4096, bench_draw),
    [HEALTH32] = BENCH_VARIANT(HEALTH, 32, bench_health_draw),
    [HEALTH48] = BENCH_VARIANT(HEALTH, 48, bench_health_draw),
    [HEALTH256] = BENCH_VARIANT(HEALTH, 256, bench_health_draw),
    [HEALTH4096] = BENCH_VARIANT(HEALTH, 4096, bench_health_draw),
    [SEED32] = BENCH_VARIANT(SEED, 32, bench_get_seed_path),
    [SEED48] = BENCH_VARIANT(SEED, 48, bench_get_seed_path),
    [EVP_PR] = BENCH_VARIANT("EVP_RAND_generate pr=1, RDRAND", 32,
                             bench_evp_pr_rdrand),
    [EVP_PR_SEED_SRC] = BENCH_VARIANT("EVP_RAND_generate pr=1, SEED-SRC", 32,
                                      bench_evp_pr_seed_src),
    [EVP_NO_PR] =
        BENCH_VARIANT("EVP_RAND_generate pr=0 (no seed)", 32, bench_evp_no_pr),
};

static void bench_ratio(const char *what, int num, int den)
{
    printf("  %-44s %6.3f\n", what,
           variants[num].median / variants[den].median);
}

static void bench_cpu_name(char *out, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];

    snprintf(out, len, "unknown CPU");
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');

        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            snprintf(out, len, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    if (f != NULL)
        fclose(f);
}

static int bench_has_rdrand(void)
{
    struct rdrand_cpuid leaf0, leaf1;

    return rdrand_hw_cpuid(0, 0, &leaf0) && leaf0.eax >= 1
           && rdrand_hw_cpuid(1, 0, &leaf1) && (leaf1.ecx >> 30 & 1);
}

static uint64_t bench_seed_requests(void)
{
    return rdrand_counter_get(RDRAND_CTR_SEED_REQUESTS);
}

static size_t bench_parse(const char *s, size_t max)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    return *s != '\0' && *s != '-' && *end == '\0' && v >= 1 && v <= max
               ? (size_t)v
               : 0;
}

int main(int argc, char **argv)
{
    size_t fixed_ops = 0, reps = 41;
    uint64_t evp_pr_requests = 0, evp_pr_ops = 0;
    char cpu[128];
    int opt;

    while ((opt = getopt(argc, argv, "n:r:")) != -1) {
        if (opt == 'n' && (fixed_ops = bench_parse(optarg, 1u << 30)) != 0)
            continue;
        if (opt == 'r' && (reps = bench_parse(optarg, BENCH_MAX_REPS)) != 0)
            continue;
        fprintf(stderr, "usage: %s [-n OPS 1..2^30] [-r REPS 1..%d]\n", argv[0],
                BENCH_MAX_REPS);
        return 2;
    }
    if (!bench_has_rdrand()) {
        printf("SKIP: CPUID reports no RDRAND on this CPU\n");
        return 77;
    }
    bench_cpu_name(cpu, sizeof(cpu));
    rdrand_health_init(&bench_health);
    if (!bench_provider_up() || (bench_lib_rdrand = bench_libctx(1)) == NULL
        || (bench_lib_seed_src = bench_libctx(0)) == NULL) {
        fprintf(stderr, "bench_seed: setting up the provider failed\n");
        return 1;
    }

    for (int v = 0; v < NVARIANTS; v++)
        variants[v].ops = fixed_ops ? fixed_ops : bench_calibrate(&variants[v]);
    /* Round-robin: every variant sees the same machine state over time. */
    for (size_t r = 0; r < reps; r++) {
        for (int v = 0; v < NVARIANTS; v++) {
            uint64_t before = bench_seed_requests();

            variants[v].ns[r] =
                bench_batch(&variants[v], variants[v].ops) / variants[v].ops;
            if (v == EVP_PR) {
                evp_pr_requests += bench_seed_requests() - before;
                evp_pr_ops += variants[v].ops;
            }
        }
    }
    for (int v = 0; v < NVARIANTS; v++) {
        qsort(variants[v].ns, reps, sizeof(double), bench_cmp);
        variants[v].median = bench_quantile(variants[v].ns, (int)reps, 0.5);
        variants[v].p25 = bench_quantile(variants[v].ns, (int)reps, 0.25);
        variants[v].p75 = bench_quantile(variants[v].ns, (int)reps, 0.75);
    }

    printf("bench_seed: %s; %s %zu batches per variant, round-robin; "
           "median ns/op\n",
           cpu, fixed_ops ? "fixed batch," : "~5 ms batches,", reps);
    printf("%-34s %5s %8s %7s %7s %9s\n", "variant", "bytes", "ns/op", "p25",
           "p75", "MB/s");
    for (int v = 0; v < NVARIANTS; v++)
        printf("%-34s %5zu %8.1f %7.1f %7.1f %9.1f\n", variants[v].name,
               variants[v].bytes, variants[v].median, variants[v].p25,
               variants[v].p75, variants[v].bytes * 1e3 / variants[v].median);

    printf("ratios (medians of this run):\n");
    bench_ratio("draw no-health / raw, 48 B (the baseline)", DRAW48, RAW48);
    bench_ratio("health / raw, 48 B", HEALTH48, RAW48);
    bench_ratio("health / no-health, 32 B", HEALTH32, DRAW32);
    bench_ratio("health / no-health, 48 B", HEALTH48, DRAW48);
    bench_ratio("health / no-health, 256 B", HEALTH256, DRAW256);
    bench_ratio("health / no-health, 4096 B", HEALTH4096, DRAW4096);
    bench_ratio("draw no-health / raw, 4096 B", DRAW4096, RAW4096);
    bench_ratio("get_seed path / raw, 48 B", SEED48, RAW48);
    bench_ratio("get_seed path / health draw, 48 B", SEED48, HEALTH48);
    bench_ratio("get_seed path / health draw, 32 B", SEED32, HEALTH32);
    bench_ratio("EVP pr=1: RDRAND / SEED-SRC", EVP_PR, EVP_PR_SEED_SRC);
    bench_ratio("EVP pr=1 RDRAND / EVP pr=0 (cost of a seed)", EVP_PR,
                EVP_NO_PR);
    printf("seed requests during the EVP pr=1 RDRAND batches: %" PRIu64
           " for %" PRIu64 " calls\n",
           evp_pr_requests, evp_pr_ops);

    bench_provider_down();
    for (int i = 0; i < 3; i++)
        OSSL_PROVIDER_unload(bench_loaded[i]);
    OSSL_LIB_CTX_free(bench_lib_rdrand);
    OSSL_LIB_CTX_free(bench_lib_seed_src);
    if (bench_failures != 0) {
        printf("FAILED: %" PRIu64 " RDRAND or seed requests failed (no "
               "retry)\n",
               bench_failures);
        return 1;
    }
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_seed: what the seed path costs on this machine's real CPU, every
 * variant measured in the same run, interleaved round-robin, N batches
 * each, and reported as ratios against a baseline from the same run.
 * Ratios use each variant's fastest batch: on a shared machine a batch
 * is only ever slowed by others (preemption, a busy sibling core), so the
 * fastest one is the closest to the code's own cost; the table also shows
 * the median and the 75th percentile, whose spread tells how loaded the
 * machine was.
 *
 *   bench_seed [-n OPS] [-r REPS] [-v ROW]
 *     -n OPS   operations per timed batch (default: calibrated so that a
 *              batch takes about 5 ms)
 *     -r REPS  timed batches per variant (default 41)
 *     -v ROW   run only the variant of that row of the table (1..), for
 *              profiling: valgrind --tool=callgrind
 *              --toggle-collect=bench_batch bench_seed -n 10000 -r 1 -v 2
 *              counts the instructions of exactly 10000 operations
 *
 * Variants (rows of the table):
 *   raw       rdrand_hw_rdrand64 in a loop, CF checked, words copied out:
 *             the floor (the baseline is raw 48 bytes, 6 words)
 *   draw      rdrand_draw(NULL, ...): the no-retry loop without health
 *   health    rdrand_draw(&h, ...): with the continuous tests
 *   get_seed  get_seed + clear_seed through the RAND dispatch table of a
 *             provider started by OSSL_provider_init against a minimal
 *             core (seed buffer, counters, latch check)
 *   EVP_RAND_generate on an RDRAND context (48 B, 4 KiB) and on a
 *             SEED-SRC context (48 B), created as an application would
 *             (no lock)
 *   CTR-DRBG pr=1: a CTR-DRBG (AES-256) whose parent is an RDRAND (or
 *             SEED-SRC) context, instantiated with prediction resistance
 *             and asked for 32 B with it: every generate reseeds
 *   public DRBG pr=1: EVP_RAND_generate(RAND_get0_public, 32 B, prediction
 *             resistance) in a library context whose seed source is
 *             RDRAND (provider registered with OSSL_PROVIDER_add_builtin),
 *             or SEED-SRC: one get_seed per call plus the chain's reseeds;
 *             and pr=0: no seed drawn
 *
 *   reduce512: get_seed 48 B on a second instance whose core answers
 *             conditioning = reduce512; EVP_RAND_generate 48 B on an
 *             RDRAND context and a CTR-DRBG pr=1 over an RDRAND parent,
 *             both in a library context whose builtin provider is in
 *             that mode (docs/conditioning.md)
 *
 *   mix = os: get_seed 48 B on an instance whose core answers mix = os;
 *             EVP_RAND_generate 48 B and a CTR-DRBG pr=1, in library
 *             contexts whose builtin provider is in mix = os, with
 *             conditioning none and reduce512 (docs/mix.md)
 *
 *   CoCo seed check: what OSSL_provider_init does in a CoCo guest or
 *             with coco = require (rdrand_coco_seed_check: 256 bits drawn
 *             and health-tested); CoCo detection: the signal probes every
 *             load runs
 *
 * 2 threads vs 1 (raw 48 B and generate 48 B, each thread with its own
 * context) run in the same rounds.  After them, OSSL_PROVIDER_load +
 * unload of rdrand.so (coco = auto) in a fresh library context each time;
 * OPENSSL_MODULES must name the directory of rdrand.so.
 *
 * Every figure of issue 13 is printed once as a human table and once as
 * a "bench: NAME=VALUE" line; scripts/bench.sh adds speed_rand_16k_ratio.
 *
 * Exit status: 0, 1 if any RDRAND or seed request failed (this never
 * retries), 2 usage, 77 no RDRAND on this CPU.  Timings are printed,
 * never judged.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#include "bench_health.h"
#include "coco.h"
#include "counters.h"
#include "draw.h"
#include "health.h"
#include "hw.h"
#include "load.h"
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
    EVP_RAND_CTX **ctx;        /* bench_generate: the context, prediction */
    int pr;                    /* resistance requested or not */
    size_t ops;                /* per batch */
    double ns[BENCH_MAX_REPS]; /* ns per op, one per batch */
    double best, median, p75;
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

/* A provider thread's state (bench_health.h). */
static struct rdrand_health bench_health;
static struct rdrand_seen *bench_health_table;

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
static void *bench_r512_provctx, *bench_r512_ctx;
static void *bench_mix_provctx, *bench_mix_ctx;
static const OSSL_DISPATCH *bench_prov_out;
static OSSL_FUNC_rand_get_seed_fn *bench_get_seed;
static OSSL_FUNC_rand_clear_seed_fn *bench_clear_seed;

/* What a config section would say: conditioning and mix (NULL: unset). */
struct bench_mode {
    const char *conditioning, *mix;
};
static const struct bench_mode bench_r512 = {"reduce512", NULL};
static const struct bench_mode bench_mix = {NULL, "os"};
static const struct bench_mode bench_r512_mix = {"reduce512", "os"};

/* The handles of the instances in those modes (see below). */
static int bench_r512_handle, bench_mix_handle;

static int bench_answer(const struct bench_mode *m, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    if (m->conditioning != NULL
        && (p = OSSL_PARAM_locate(params, "conditioning")) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, m->conditioning))
        return 0;
    return m->mix == NULL || (p = OSSL_PARAM_locate(params, "mix")) == NULL
           || OSSL_PARAM_set_utf8_ptr(p, m->mix);
}

static int bench_core_get_params(const OSSL_CORE_HANDLE *handle,
                                 OSSL_PARAM params[])
{
    if (handle == (const OSSL_CORE_HANDLE *)&bench_r512_handle)
        return bench_answer(&bench_r512, params);
    if (handle == (const OSSL_CORE_HANDLE *)&bench_mix_handle)
        return bench_answer(&bench_mix, params);
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

/* A provider instance and an instantiated RDRAND context on it. */
static int bench_instance_up(const OSSL_CORE_HANDLE *handle, void **provctx,
                             void **ctx)
{
    OSSL_FUNC_rand_newctx_fn *newctx = (OSSL_FUNC_rand_newctx_fn *)bench_fn_of(
        rdrand_rand_functions, OSSL_FUNC_RAND_NEWCTX);
    OSSL_FUNC_rand_instantiate_fn *instantiate =
        (OSSL_FUNC_rand_instantiate_fn *)bench_fn_of(
            rdrand_rand_functions, OSSL_FUNC_RAND_INSTANTIATE);

    return OSSL_provider_init(handle, bench_core, &bench_prov_out, provctx)
           && (*ctx = newctx(*provctx, NULL, NULL)) != NULL
           && instantiate(*ctx, 0, 0, NULL, 0, NULL);
}

static int bench_provider_up(void)
{
    static int handle;

    bench_get_seed = (OSSL_FUNC_rand_get_seed_fn *)bench_fn_of(
        rdrand_rand_functions, OSSL_FUNC_RAND_GET_SEED);
    bench_clear_seed = (OSSL_FUNC_rand_clear_seed_fn *)bench_fn_of(
        rdrand_rand_functions, OSSL_FUNC_RAND_CLEAR_SEED);
    return bench_instance_up((const OSSL_CORE_HANDLE *)&handle, &bench_provctx,
                             &bench_ctx)
           && bench_instance_up((const OSSL_CORE_HANDLE *)&bench_r512_handle,
                                &bench_r512_provctx, &bench_r512_ctx)
           && bench_instance_up((const OSSL_CORE_HANDLE *)&bench_mix_handle,
                                &bench_mix_provctx, &bench_mix_ctx);
}

static void bench_provider_down(void)
{
    OSSL_FUNC_rand_freectx_fn *freectx =
        (OSSL_FUNC_rand_freectx_fn *)bench_fn_of(rdrand_rand_functions,
                                                 OSSL_FUNC_RAND_FREECTX);
    OSSL_FUNC_provider_teardown_fn *teardown =
        (OSSL_FUNC_provider_teardown_fn *)bench_fn_of(
            bench_prov_out, OSSL_FUNC_PROVIDER_TEARDOWN);

    freectx(bench_ctx);
    teardown(bench_provctx);
    freectx(bench_r512_ctx);
    teardown(bench_r512_provctx);
    freectx(bench_mix_ctx);
    teardown(bench_mix_provctx);
}

static void bench_seed_on(void *ctx, const struct variant *v, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        unsigned char *seed;
        size_t n = bench_get_seed(ctx, &seed, (int)v->bytes * 8, v->bytes,
                                  v->bytes, 0, NULL, 0);

        if (n != v->bytes) {
            bench_failures++;
            continue;
        }
        bench_sink ^= seed[i % n];
        bench_clear_seed(ctx, seed, n);
    }
}

static void bench_get_seed_path(const struct variant *v, size_t ops)
{
    bench_seed_on(bench_ctx, v, ops);
}

/* The same on the instance in conditioning = reduce512. */
static void bench_get_seed_r512(const struct variant *v, size_t ops)
{
    bench_seed_on(bench_r512_ctx, v, ops);
}

/* The same on the instance in mix = os. */
static void bench_get_seed_mix(const struct variant *v, size_t ops)
{
    bench_seed_on(bench_mix_ctx, v, ops);
}

/*
 * The load-time CoCo check as OSSL_provider_init runs it: the seed
 * check (coco_seed_bits, 256 by default: draw and health tests), which
 * only a CoCo guest or coco = require runs, and the detection (the
 * signal probes through the hw seam), which every load runs.
 */
static void bench_coco_seed_check(const struct variant *v, size_t ops)
{
    unsigned char scratch[RDRAND_COCO_SEED_BITS_MAX / 8];

    (void)v;
    for (size_t i = 0; i < ops; i++)
        if (rdrand_coco_seed_check(bench_provctx, scratch, sizeof(scratch))
            != 0)
            bench_failures++;
}

static void bench_coco_detect(const struct variant *v, size_t ops)
{
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;

    (void)v;
    for (size_t i = 0; i < ops; i++) {
        rdrand_coco_gather(&in);
        rdrand_coco_detect(&in, &out);
        bench_sink ^= (uint64_t)out.platform;
    }
}

/*
 * The builtin provider in a mode: its init sees the core's get_params
 * answer bench_mode_next, as from a config section, whatever the library
 * context's configuration says.  The provider reads its section only in
 * its init, which OSSL_PROVIDER_load runs before it returns.
 */
static OSSL_FUNC_core_get_params_fn *bench_real_get_params;
static OSSL_DISPATCH bench_mode_in[128];
static OSSL_provider_init_fn bench_mode_init;
static const struct bench_mode *bench_mode_next;

static int bench_mode_get_params(const OSSL_CORE_HANDLE *handle,
                                 OSSL_PARAM params[])
{
    return bench_real_get_params(handle, params)
           && bench_answer(bench_mode_next, params);
}

static int bench_mode_init(const OSSL_CORE_HANDLE *handle,
                           const OSSL_DISPATCH *in, const OSSL_DISPATCH **out,
                           void **provctx)
{
    size_t n = 0;

    for (; in[n].function_id != 0 && n + 1 < 128; n++) {
        bench_mode_in[n] = in[n];
        if (in[n].function_id == OSSL_FUNC_CORE_GET_PARAMS) {
            bench_real_get_params = OSSL_FUNC_core_get_params(&in[n]);
            bench_mode_in[n].function = (void (*)(void))bench_mode_get_params;
        }
    }
    bench_mode_in[n] = (OSSL_DISPATCH){0, NULL};
    return bench_real_get_params != NULL
           && OSSL_provider_init(handle, bench_mode_in, out, provctx);
}

/*
 * Library contexts: seeded from RDRAND in the mode given (NULL: the
 * defaults), or from SEED-SRC (rdrand 0).  *prov: the RDRAND provider.
 */
static OSSL_LIB_CTX *bench_lib_rdrand, *bench_lib_seed_src, *bench_lib_r512;
static OSSL_LIB_CTX *bench_lib_mix, *bench_lib_r512_mix;
static OSSL_PROVIDER *bench_loaded[10];
static int bench_nloaded;

static OSSL_PROVIDER *bench_load(OSSL_LIB_CTX *libctx, const char *name)
{
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, name);

    if (prov != NULL)
        bench_loaded[bench_nloaded++] = prov;
    return prov;
}

static OSSL_LIB_CTX *bench_libctx(int rdrand, const struct bench_mode *mode,
                                  OSSL_PROVIDER **prov)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    unsigned char b[32];

    if (libctx == NULL)
        return NULL;
    bench_mode_next = mode;
    if (rdrand
        && (!OSSL_PROVIDER_add_builtin(libctx, RDRAND_PROVIDER_NAME,
                                       mode != NULL ? bench_mode_init
                                                    : OSSL_provider_init)
            || (*prov = bench_load(libctx, RDRAND_PROVIDER_NAME)) == NULL
            || !RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME,
                                          RDRAND_PROPERTY_QUERY)))
        return NULL;
    if (bench_load(libctx, "default") == NULL
        || RAND_bytes_ex(libctx, b, sizeof(b), 0) != 1)
        return NULL;
    return libctx;
}

/*
 * Contexts of their own: RDRAND and SEED-SRC as an application would
 * create them (no lock), and CTR-DRBGs over locked parents of each (a
 * DRBG's parent must be lockable).
 */
static EVP_RAND_CTX *bench_gen_rdrand, *bench_gen_seed_src;
static EVP_RAND_CTX *bench_parent[5], *bench_pr_rdrand, *bench_pr_seed_src;
static EVP_RAND_CTX *bench_pr_r512;  /* over RDRAND, reduce512 */
static EVP_RAND_CTX *bench_gen_r512; /* RDRAND itself, reduce512 */
/* The same in mix = os, and in mix = os with reduce512. */
static EVP_RAND_CTX *bench_pr_mix, *bench_gen_mix;
static EVP_RAND_CTX *bench_pr_r512_mix, *bench_gen_r512_mix;
/* The public DRBGs of the two library contexts (this thread's). */
static EVP_RAND_CTX *bench_pub_rdrand, *bench_pub_seed_src;

static EVP_RAND_CTX *bench_rand_ctx(OSSL_LIB_CTX *libctx, const char *alg,
                                    const char *props, EVP_RAND_CTX *parent)
{
    EVP_RAND *rand = EVP_RAND_fetch(libctx, alg, props);
    EVP_RAND_CTX *ctx = rand != NULL ? EVP_RAND_CTX_new(rand, parent) : NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(
                               OSSL_DRBG_PARAM_CIPHER, "AES-256-CTR", 0),
                           OSSL_PARAM_END};

    EVP_RAND_free(rand);
    /* A DRBG over a parent: AES-256, prediction resistance on. */
    if (ctx != NULL
        && ((parent != NULL && !EVP_RAND_CTX_set_params(ctx, params))
            || !EVP_RAND_instantiate(ctx, parent != NULL ? 256 : 0,
                                     parent != NULL, NULL, 0, NULL))) {
        EVP_RAND_CTX_free(ctx);
        ctx = NULL;
    }
    return ctx;
}

static EVP_RAND_CTX *bench_locked_ctx(OSSL_LIB_CTX *libctx, const char *alg,
                                      const char *props)
{
    EVP_RAND_CTX *ctx = bench_rand_ctx(libctx, alg, props, NULL);

    return ctx != NULL && EVP_RAND_enable_locking(ctx) ? ctx : NULL;
}

static int bench_contexts_up(void)
{
    return (bench_gen_rdrand =
                bench_rand_ctx(bench_lib_rdrand, RDRAND_ALGORITHM_NAME,
                               RDRAND_PROPERTY_QUERY, NULL))
               != NULL
           && (bench_gen_seed_src =
                   bench_rand_ctx(bench_lib_seed_src, "SEED-SRC", NULL, NULL))
                  != NULL
           && (bench_parent[0] =
                   bench_locked_ctx(bench_lib_rdrand, RDRAND_ALGORITHM_NAME,
                                    RDRAND_PROPERTY_QUERY))
                  != NULL
           && (bench_parent[1] =
                   bench_locked_ctx(bench_lib_seed_src, "SEED-SRC", NULL))
                  != NULL
           && (bench_pr_rdrand = bench_rand_ctx(bench_lib_rdrand, "CTR-DRBG",
                                                NULL, bench_parent[0]))
                  != NULL
           && (bench_pr_seed_src = bench_rand_ctx(
                   bench_lib_seed_src, "CTR-DRBG", NULL, bench_parent[1]))
                  != NULL
           && (bench_parent[2] =
                   bench_locked_ctx(bench_lib_r512, RDRAND_ALGORITHM_NAME,
                                    RDRAND_PROPERTY_QUERY))
                  != NULL
           && (bench_pr_r512 = bench_rand_ctx(bench_lib_r512, "CTR-DRBG", NULL,
                                              bench_parent[2]))
                  != NULL
           && (bench_gen_r512 =
                   bench_rand_ctx(bench_lib_r512, RDRAND_ALGORITHM_NAME,
                                  RDRAND_PROPERTY_QUERY, NULL))
                  != NULL
           && (bench_parent[3] = bench_locked_ctx(
                   bench_lib_mix, RDRAND_ALGORITHM_NAME, RDRAND_PROPERTY_QUERY))
                  != NULL
           && (bench_pr_mix = bench_rand_ctx(bench_lib_mix, "CTR-DRBG", NULL,
                                             bench_parent[3]))
                  != NULL
           && (bench_gen_mix =
                   bench_rand_ctx(bench_lib_mix, RDRAND_ALGORITHM_NAME,
                                  RDRAND_PROPERTY_QUERY, NULL))
                  != NULL
           && (bench_parent[4] =
                   bench_locked_ctx(bench_lib_r512_mix, RDRAND_ALGORITHM_NAME,
                                    RDRAND_PROPERTY_QUERY))
                  != NULL
           && (bench_pr_r512_mix = bench_rand_ctx(
                   bench_lib_r512_mix, "CTR-DRBG", NULL, bench_parent[4]))
                  != NULL
           && (bench_gen_r512_mix =
                   bench_rand_ctx(bench_lib_r512_mix, RDRAND_ALGORITHM_NAME,
                                  RDRAND_PROPERTY_QUERY, NULL))
                  != NULL
           && (bench_pub_rdrand = RAND_get0_public(bench_lib_rdrand)) != NULL
           && (bench_pub_seed_src = RAND_get0_public(bench_lib_seed_src))
                  != NULL;
}

static void bench_contexts_down(void)
{
    EVP_RAND_CTX_free(bench_pr_rdrand);
    EVP_RAND_CTX_free(bench_pr_seed_src);
    EVP_RAND_CTX_free(bench_pr_r512);
    EVP_RAND_CTX_free(bench_gen_r512);
    EVP_RAND_CTX_free(bench_pr_mix);
    EVP_RAND_CTX_free(bench_gen_mix);
    EVP_RAND_CTX_free(bench_pr_r512_mix);
    EVP_RAND_CTX_free(bench_gen_r512_mix);
    for (int i = 0; i < 5; i++)
        EVP_RAND_CTX_free(bench_parent[i]);
    EVP_RAND_CTX_free(bench_gen_rdrand);
    EVP_RAND_CTX_free(bench_gen_seed_src);
}

/* EVP_RAND_generate on the variant's context. */
static void bench_generate(const struct variant *v, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        if (EVP_RAND_generate(*v->ctx, bench_buf, v->bytes, 0, v->pr, NULL, 0)
            != 1)
            bench_failures++;
        bench_sink ^= bench_buf[i % v->bytes];
    }
}

/* ---- timing ---- */

static double bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Not inlined: profilers collect inside it (callgrind --toggle-collect). */
__attribute__((noinline)) static double bench_batch(const struct variant *v,
                                                    size_t ops)
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

/* ---- 2 threads vs 1 ---- */

struct bench_thread {
    pthread_t id;
    int gen; /* 0: raw 48 B, 1: EVP_RAND_generate 48 B on ctx */
    EVP_RAND_CTX *ctx;
    size_t ops;
    uint64_t failures;
};

static void *bench_thread_main(void *arg)
{
    struct bench_thread *t = arg;
    unsigned char buf[48];
    uint64_t word;

    for (size_t i = 0; i < t->ops; i++) {
        if (t->gen) {
            if (EVP_RAND_generate(t->ctx, buf, sizeof(buf), 0, 0, NULL, 0) != 1)
                t->failures++;
            continue;
        }
        for (size_t done = 0; done < sizeof(buf); done += sizeof(word)) {
            if (!rdrand_hw_rdrand64(&word)) {
                t->failures++;
                break;
            }
            memcpy(buf + done, &word, sizeof(word));
        }
    }
    bench_sink ^= buf[0];
    return NULL;
}

/* Requests per second of n threads together, each doing ops requests. */
static double bench_threads_rate(struct bench_thread *t, int n, int gen,
                                 size_t ops)
{
    double t0 = bench_now_ns();

    for (int i = 0; i < n; i++) {
        t[i].gen = gen, t[i].ops = ops;
        if (pthread_create(&t[i].id, NULL, bench_thread_main, &t[i]) != 0) {
            fprintf(stderr, "bench_seed: pthread_create failed\n");
            exit(1);
        }
    }
    for (int i = 0; i < n; i++) {
        pthread_join(t[i].id, NULL);
        bench_failures += t[i].failures;
        t[i].failures = 0;
    }
    return (double)n * (double)ops * 1e9 / (bench_now_ns() - t0);
}

/* ---- loading rdrand.so ---- */

/* A config naming rdrand.so's section (not activated), coco = coco. */
static int bench_load_conf(char *path, const char *coco)
{
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    if (f == NULL)
        return 0;
    fprintf(f,
            "openssl_conf = init\n[init]\nproviders = prov\n"
            "[prov]\n%s = sect\n[sect]\nmodule = rdrand.so\n"
            "coco = %s\n",
            RDRAND_PROVIDER_NAME, coco);
    return fclose(f) == 0;
}

/*
 * Microseconds of OSSL_PROVIDER_load + unload in a fresh library context
 * (OpenSSL runs a provider's init once per context), or -1.
 */
static double bench_load_once(const char *conf)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *p = NULL;
    double t0 = 0, us = -1;

    if (libctx != NULL && OSSL_LIB_CTX_load_config(libctx, conf)) {
        t0 = bench_now_ns();
        if ((p = OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME)) != NULL
            && OSSL_PROVIDER_unload(p))
            us = (bench_now_ns() - t0) / 1e3;
    }
    OSSL_LIB_CTX_free(libctx);
    return us;
}

/* Fastest OSSL_PROVIDER_load + unload with coco = auto, in us: 0 or -1. */
static int bench_load_us(int reps, double *us)
{
    char conf[] = "/tmp/bench_seed_XXXXXX";
    int ok = bench_load_conf(conf, "auto");

    *us = 1e300;
    for (int r = 0; ok && r < reps; r++) {
        double t = bench_load_once(conf);

        ok = t >= 0;
        *us = t < *us ? t : *us;
    }
    if (strchr(conf, 'X') == NULL)
        unlink(conf);
    return ok ? 0 : -1;
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
    GEN48,
    GEN4096,
    GEN48_SEED_SRC,
    PR_DRBG,
    PR_DRBG_SEED_SRC,
    EVP_PR,
    EVP_PR_SEED_SRC,
    EVP_NO_PR,
    COCO_SEED_CHECK,
    COCO_DETECT,
    SEED48_R512, /* issue 12's rows last: the others keep their numbers */
    PR_DRBG_R512,
    GEN48_R512,
    SEED48_MIX, /* issue 22's: after them */
    GEN48_MIX,
    PR_DRBG_MIX,
    GEN48_R512_MIX,
    PR_DRBG_R512_MIX,
    NVARIANTS
};

#define BENCH_VARIANT(n, b, f)                                                 \
    {                                                                          \
        .name = (n), .bytes = (b), .run = (f)                                  \
    }
/* EVP_RAND_generate on context c, prediction resistance p. */
#define BENCH_EVP(n, b, c, p)                                                  \
    {                                                                          \
        .name = (n), .bytes = (b), .run = bench_generate, .ctx = &(c),         \
        .pr = (p)                                                              \
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
    [GEN48] =
        BENCH_EVP("EVP_RAND_generate, RDRAND ctx", 48, bench_gen_rdrand, 0),
    [GEN4096] =
        BENCH_EVP("EVP_RAND_generate, RDRAND ctx", 4096, bench_gen_rdrand, 0),
    [GEN48_SEED_SRC] =
        BENCH_EVP("EVP_RAND_generate, SEED-SRC ctx", 48, bench_gen_seed_src, 0),
    [PR_DRBG] = BENCH_EVP("CTR-DRBG pr=1 over RDRAND", 32, bench_pr_rdrand, 1),
    [PR_DRBG_SEED_SRC] =
        BENCH_EVP("CTR-DRBG pr=1 over SEED-SRC", 32, bench_pr_seed_src, 1),
    [EVP_PR] = BENCH_EVP("public DRBG pr=1, RDRAND", 32, bench_pub_rdrand, 1),
    [EVP_PR_SEED_SRC] =
        BENCH_EVP("public DRBG pr=1, SEED-SRC", 32, bench_pub_seed_src, 1),
    [EVP_NO_PR] =
        BENCH_EVP("public DRBG pr=0 (no seed)", 32, bench_pub_rdrand, 0),
    [COCO_SEED_CHECK] =
        BENCH_VARIANT("CoCo seed check at load", 32, bench_coco_seed_check),
    [COCO_DETECT] =
        BENCH_VARIANT("CoCo detection at load", 0, bench_coco_detect),
    [SEED48_R512] = BENCH_VARIANT("get_seed+clear_seed, reduce512", 48,
                                  bench_get_seed_r512),
    [PR_DRBG_R512] =
        BENCH_EVP("CTR-DRBG pr=1 over RDRAND reduce512", 32, bench_pr_r512, 1),
    [GEN48_R512] = BENCH_EVP("EVP_RAND_generate, RDRAND ctx reduce512", 48,
                             bench_gen_r512, 0),
    [SEED48_MIX] =
        BENCH_VARIANT("get_seed+clear_seed, mix=os", 48, bench_get_seed_mix),
    [GEN48_MIX] =
        BENCH_EVP("EVP_RAND_generate, RDRAND ctx mix=os", 48, bench_gen_mix, 0),
    [PR_DRBG_MIX] =
        BENCH_EVP("CTR-DRBG pr=1 over RDRAND mix=os", 32, bench_pr_mix, 1),
    [GEN48_R512_MIX] = BENCH_EVP("EVP_RAND_generate, reduce512 mix=os", 48,
                                 bench_gen_r512_mix, 0),
    [PR_DRBG_R512_MIX] = BENCH_EVP("CTR-DRBG pr=1 over reduce512 mix=os", 32,
                                   bench_pr_r512_mix, 1),
};

static void bench_ratio(const char *what, int num, int den)
{
    printf("  %-44s %6.3f\n", what, variants[num].best / variants[den].best);
}

/* The figures of issue 13: a human row, then one machine-readable line. */
struct bench_figure {
    const char *name, *what, *unit, *target;
    double value;
};

static struct bench_figure bench_figures[32];
static int bench_nfigures;

static void bench_figure(const char *name, double value, const char *unit,
                         const char *target, const char *what)
{
    bench_figures[bench_nfigures++] = (struct bench_figure){.name = name,
                                                            .what = what,
                                                            .unit = unit,
                                                            .target = target,
                                                            .value = value};
}

/* Issue 13's ratios between two rows: num's time over den's. */
static const struct {
    const char *name;
    int num, den;
    const char *unit, *target, *what;
} bench_ratios[] = {
    {"generate_4k_vs_raw", RAW4096, GEN4096, "x raw speed", ">= 0.95",
     "EVP_RAND_generate 4 KiB, RDRAND ctx, vs raw loop"},
    {"generate_48_vs_raw6", GEN48, RAW48, "x time", "<= 1.40",
     "EVP_RAND_generate 48 B vs six raw RDRANDs"},
    {"generate_48_vs_seed_src", GEN48_SEED_SRC, GEN48, "x faster", ">= 4",
     "EVP_RAND_generate 48 B, RDRAND vs SEED-SRC"},
    {"get_seed_48_vs_raw6", SEED48, RAW48, "x time", "<= 1.15",
     "get_seed+clear_seed 48 B vs six raw RDRANDs"},
    {"health_vs_no_health_4k", HEALTH4096, DRAW4096, "x time", "<= 1.03",
     "rdrand_draw 4 KiB, health vs none"},
    {"pr_drbg_vs_seed_src", PR_DRBG_SEED_SRC, PR_DRBG, "x faster", ">= 1.35",
     "CTR-DRBG pr=1 32 B, over RDRAND vs SEED-SRC"},
    /*
     * docs/conditioning.md: what each mode costs against SEED-SRC, like
     * with like: EVP_RAND_generate of 48 B on each seed source's own
     * context (no DRBG between).
     */
    {"seed_48_none_vs_seed_src", GEN48, GEN48_SEED_SRC, "x time", "-",
     "48 B, EVP_RAND_generate: RDRAND none vs SEED-SRC"},
    {"seed_48_reduce512_vs_seed_src", GEN48_R512, GEN48_SEED_SRC, "x time", "-",
     "48 B, EVP_RAND_generate: RDRAND reduce512 vs SEED-SRC"},
    {"pr_drbg_reduce512_vs_seed_src", PR_DRBG_R512, PR_DRBG_SEED_SRC, "x time",
     "-", "CTR-DRBG pr=1 32 B, over reduce512 vs SEED-SRC"},
    /* docs/mix.md: the same, with the OS's entropy mixed in. */
    {"seed_48_mix_vs_none", GEN48_MIX, GEN48, "x time", "-",
     "48 B, EVP_RAND_generate: mix=os vs mix=none"},
    {"seed_48_mix_vs_seed_src", GEN48_MIX, GEN48_SEED_SRC, "x time", "-",
     "48 B, EVP_RAND_generate: RDRAND mix=os vs SEED-SRC"},
    {"seed_48_reduce512_mix_vs_seed_src", GEN48_R512_MIX, GEN48_SEED_SRC,
     "x time", "-", "48 B, EVP_RAND_generate: reduce512 mix=os vs SEED-SRC"},
    {"pr_drbg_mix_vs_none", PR_DRBG_MIX, PR_DRBG, "x time", "-",
     "CTR-DRBG pr=1 32 B, over mix=os vs mix=none"},
    {"pr_drbg_mix_vs_seed_src", PR_DRBG_MIX, PR_DRBG_SEED_SRC, "x time", "-",
     "CTR-DRBG pr=1 32 B, over RDRAND mix=os vs SEED-SRC"},
    {"pr_drbg_reduce512_mix_vs_seed_src", PR_DRBG_R512_MIX, PR_DRBG_SEED_SRC,
     "x time", "-", "CTR-DRBG pr=1 32 B, over reduce512 mix=os vs SEED-SRC"},
};

static double bench_best_ratio(int num, int den)
{
    return variants[num].best / variants[den].best;
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

/* A library context's provider really runs the mode asked for. */
static int bench_mode_checked(OSSL_PROVIDER *prov, const struct bench_mode *m)
{
    const char *cond = NULL, *mix = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CONDITIONING, &cond, 0),
                      OSSL_PARAM_utf8_ptr(RDRAND_PARAM_MIX, &mix, 0),
                      OSSL_PARAM_END};

    return OSSL_PROVIDER_get_params(prov, p) && cond != NULL && mix != NULL
           && strcmp(cond, m->conditioning ? m->conditioning : "none") == 0
           && strcmp(mix, m->mix ? m->mix : "none") == 0;
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

/*
 * RDRAND executions per 4 KiB health draw, averaged over 511 requests
 * (whole windows of references), from the words counter.
 */
static double bench_health_words_4k(void)
{
    static const struct variant v = {.bytes = 4096};
    uint64_t before = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);

    bench_health_draw(&v, 511);
    return (double)(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - before) / 511;
}

int main(int argc, char **argv)
{
    size_t fixed_ops = 0, reps = 41;
    uint64_t evp_pr_requests = 0, evp_pr_ops = 0;
    uint64_t drbg_requests = 0, drbg_ops = 0;
    double rate[4][BENCH_MAX_REPS], scaling, load_us = 0, health_words;
    struct bench_thread threads[2] = {{0}};
    int have_load, only = 0;
    OSSL_PROVIDER *prov_rdrand = NULL, *prov_r512 = NULL, *prov_mix = NULL;
    OSSL_PROVIDER *prov_r512_mix = NULL;
    char cpu[128];
    int opt;

    while ((opt = getopt(argc, argv, "n:r:v:")) != -1) {
        if (opt == 'n' && (fixed_ops = bench_parse(optarg, 1u << 30)) != 0)
            continue;
        if (opt == 'r' && (reps = bench_parse(optarg, BENCH_MAX_REPS)) != 0)
            continue;
        if (opt == 'v' && (only = (int)bench_parse(optarg, NVARIANTS)) != 0)
            continue;
        fprintf(stderr,
                "usage: %s [-n OPS 1..2^30] [-r REPS 1..%d] [-v ROW 1..%d]\n",
                argv[0], BENCH_MAX_REPS, NVARIANTS);
        return 2;
    }
    if (!bench_has_rdrand()) {
        printf("SKIP: CPUID reports no RDRAND on this CPU\n");
        return 77;
    }
    bench_cpu_name(cpu, sizeof(cpu));
    if (!bench_health_keyed(&bench_health, &bench_health_table)
        || !bench_provider_up()
        || (bench_lib_rdrand = bench_libctx(1, NULL, &prov_rdrand)) == NULL
        || (bench_lib_seed_src = bench_libctx(0, NULL, NULL)) == NULL
        || (bench_lib_r512 = bench_libctx(1, &bench_r512, &prov_r512)) == NULL
        || (bench_lib_mix = bench_libctx(1, &bench_mix, &prov_mix)) == NULL
        || (bench_lib_r512_mix =
                bench_libctx(1, &bench_r512_mix, &prov_r512_mix))
               == NULL
        || !bench_mode_checked(prov_r512, &bench_r512)
        || !bench_mode_checked(prov_mix, &bench_mix)
        || !bench_mode_checked(prov_r512_mix, &bench_r512_mix)
        || !bench_contexts_up()
        || (threads[0].ctx =
                bench_rand_ctx(bench_lib_rdrand, RDRAND_ALGORITHM_NAME,
                               RDRAND_PROPERTY_QUERY, NULL))
               == NULL
        || (threads[1].ctx =
                bench_rand_ctx(bench_lib_rdrand, RDRAND_ALGORITHM_NAME,
                               RDRAND_PROPERTY_QUERY, NULL))
               == NULL) {
        fprintf(stderr, "bench_seed: setting up the provider failed\n");
        ERR_print_errors_fp(stderr);
        return 1;
    }

    if (only != 0) {
        struct variant *v = &variants[only - 1];

        v->ops = fixed_ops ? fixed_ops : bench_calibrate(v);
        for (size_t r = 0; r < reps; r++)
            v->ns[r] = bench_batch(v, v->ops) / v->ops;
        qsort(v->ns, reps, sizeof(double), bench_cmp);
        printf("%d %s, %zu B: %.1f ns/op (fastest of %zu batches of %zu)\n",
               only, v->name, v->bytes, v->ns[0], reps, v->ops);
        goto out;
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
            if (v == PR_DRBG) {
                drbg_requests += bench_seed_requests() - before;
                drbg_ops += variants[v].ops;
            }
        }
        /* 1 and 2 threads, raw and generate, interleaved the same way. */
        for (int k = 0; k < 4; k++)
            rate[k][r] = bench_threads_rate(
                threads, 1 + k % 2, k / 2, variants[k / 2 ? GEN48 : RAW48].ops);
    }
    for (int k = 0; k < 4; k++)
        qsort(rate[k], reps, sizeof(double), bench_cmp);
    /* 2-thread gain of generate over the raw instruction's own gain. */
    scaling = rate[3][reps - 1] / rate[2][reps - 1]
              / (rate[1][reps - 1] / rate[0][reps - 1]);
    have_load = getenv("OPENSSL_MODULES") != NULL
                && bench_load_us((int)reps, &load_us) == 0;
    for (int v = 0; v < NVARIANTS; v++) {
        qsort(variants[v].ns, reps, sizeof(double), bench_cmp);
        variants[v].median = bench_quantile(variants[v].ns, (int)reps, 0.5);
        variants[v].best = variants[v].ns[0];
        variants[v].p75 = bench_quantile(variants[v].ns, (int)reps, 0.75);
    }

    printf("bench_seed: %s; %s %zu batches per variant, round-robin; "
           "ns/op of the fastest batch, the median and p75\n",
           cpu, fixed_ops ? "fixed batch," : "~5 ms batches,", reps);
    printf("%3s %-34s %5s %8s %8s %8s %9s\n", "row", "variant", "bytes",
           "ns/op", "median", "p75", "MB/s");
    for (int v = 0; v < NVARIANTS; v++)
        printf("%3d %-34s %5zu %8.1f %8.1f %8.1f %9.1f\n", v + 1,
               variants[v].name, variants[v].bytes, variants[v].best,
               variants[v].median, variants[v].p75,
               variants[v].bytes * 1e3 / variants[v].best);

    printf("ratios (fastest batches of this run):\n");
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
    /* Where the time goes: differences of rows, fastest batches. */
    health_words = bench_health_words_4k();
    printf("cost breakdown (ns, differences of fastest batches):\n");
    printf("  %-52s %7.2f\n", "RDRAND, per word (raw loop, 4 KiB)",
           variants[RAW4096].best / 512);
    printf("  %-52s %7.2f\n", "draw loop without health, per word over raw",
           (variants[DRAW4096].best - variants[RAW4096].best) / 512);
    /*
     * A 4 KiB health draw executes 512 words and, on average, 512 / 511
     * APT references (one opens each window, never delivered): their
     * RDRANDs are not health-test cost.
     */
    printf("  %-52s %7.2f\n", "health tests, per executed word (4 KiB)",
           (variants[HEALTH4096].best - variants[DRAW4096].best
            - (health_words - 512) * variants[RAW4096].best / 512)
               / health_words);
    printf("  %-52s %7.1f\n", "health tests, per 48 B request",
           variants[HEALTH48].best - variants[DRAW48].best);
    printf("  %-52s %7.1f\n",
           "get_seed+clear_seed over the health draw, per 48 B",
           variants[SEED48].best - variants[HEALTH48].best);
    printf("  %-52s %7.1f\n",
           "EVP_RAND_generate over the health draw, per 48 B",
           variants[GEN48].best - variants[HEALTH48].best);
    printf("seed requests during the EVP pr=1 RDRAND batches: %" PRIu64
           " for %" PRIu64 " calls\n",
           evp_pr_requests, evp_pr_ops);
    printf("seed requests during the CTR-DRBG pr=1 over RDRAND batches: "
           "%" PRIu64 " for %" PRIu64 " calls\n",
           drbg_requests, drbg_ops);
    printf("conditioned blocks (reduce512 rows) in this run: %" PRIu64 "\n",
           rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS));
    printf("OS bytes read (mix=os rows) in this run: %" PRIu64
           ", failed reads: %" PRIu64 "\n",
           rdrand_counter_get(RDRAND_CTR_OS_BYTES),
           rdrand_counter_get(RDRAND_CTR_OS_FAILURES));
    printf("requests/s, best batch: raw 48 B 1 thread %.0f, 2 threads %.0f; "
           "generate 48 B 1 thread %.0f, 2 threads %.0f\n",
           rate[0][reps - 1], rate[1][reps - 1], rate[2][reps - 1],
           rate[3][reps - 1]);

    for (size_t i = 0; i < sizeof(bench_ratios) / sizeof(bench_ratios[0]); i++)
        bench_figure(bench_ratios[i].name,
                     bench_best_ratio(bench_ratios[i].num, bench_ratios[i].den),
                     bench_ratios[i].unit, bench_ratios[i].target,
                     bench_ratios[i].what);
    bench_figure("seed_48_none_us", variants[SEED48].best / 1e3, "us", "-",
                 "48 B seed, conditioning none");
    bench_figure("seed_48_reduce512_us", variants[SEED48_R512].best / 1e3, "us",
                 "-", "48 B seed, conditioning reduce512");
    bench_figure("seed_48_mix_us", variants[SEED48_MIX].best / 1e3, "us", "-",
                 "48 B seed, mix os");
    bench_figure("threads2_scaling_vs_raw", scaling, "x raw's gain", ">= 1.0",
                 "2 vs 1 thread, generate 48 B, over raw's");
    bench_figure("coco_check_us", variants[COCO_SEED_CHECK].best / 1e3, "us",
                 "-", "CoCo check at load: 256 bits drawn and tested");
    bench_figure("coco_detect_us", variants[COCO_DETECT].best / 1e3, "us", "-",
                 "CoCo detection at load (every load)");
    if (have_load) {
        bench_figure("load_unload_us", load_us, "us", "-",
                     "OSSL_PROVIDER_load+unload rdrand.so, coco=auto");
    } else {
        printf("FAILED: loading rdrand.so (OPENSSL_MODULES must name its "
               "directory)\n");
        bench_failures++;
    }
    printf("\nfigures of issue 13 (this run):\n");
    printf("  %-48s %9s  %-13s %s\n", "figure", "value", "unit", "target");
    for (int i = 0; i < bench_nfigures; i++)
        printf("  %-48s %9.3f  %-13s %s\n", bench_figures[i].what,
               bench_figures[i].value, bench_figures[i].unit,
               bench_figures[i].target);
    for (int i = 0; i < bench_nfigures; i++)
        printf("bench: %s=%.3f\n", bench_figures[i].name,
               bench_figures[i].value);

out:
    bench_provider_down();
    free(bench_health_table);
    EVP_RAND_CTX_free(threads[0].ctx);
    EVP_RAND_CTX_free(threads[1].ctx);
    bench_contexts_down();
    (void)prov_rdrand;
    for (int i = 0; i < bench_nloaded; i++)
        OSSL_PROVIDER_unload(bench_loaded[i]);
    OSSL_LIB_CTX_free(bench_lib_r512);
    OSSL_LIB_CTX_free(bench_lib_mix);
    OSSL_LIB_CTX_free(bench_lib_r512_mix);
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

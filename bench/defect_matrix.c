/* SPDX-License-Identifier: Apache-2.0 */
/*
 * defect_matrix: issue 19's table of defect class x request pattern,
 * measured through the real libcrypto loading the simulated-CPU module
 * (tests/rdrand-sim.so).  For each cell, in a fork()ed process of its own
 * (the module's verdict and tables are the process's: a fresh process is
 * the only fresh start), the simulated CPU replays a words= file: clean
 * splitmix64 words, then the defect from execution CLEAN + 1 on, long
 * enough that the loop never replays the clean prefix within the cell
 * (checked: the cell fails if it executed more words than the file has).
 * The pattern's requests run from the first word, through the clean
 * prefix and into the defect, until BUDGET words past the defect's start
 * have been executed, or AFTER requests have started after the first
 * trip, whichever comes first.
 *
 *   defect_matrix [--check] [-d BUDGET] [-a AFTER] [-t SECONDS]
 *                 [-r ROW] [-p PATTERNS] MODULE
 *     MODULE      path of rdrand-sim.so
 *     --check     assert the goals below; exit 1 if one is missed
 *     -d BUDGET   words executed past the defect's start (default 50000)
 *     -a AFTER    requests started after the first trip (default 500)
 *     -t SECONDS  deadline of a cell; a cell still running then is
 *                 killed and reported as a hang (default 30)
 *     -r ROW      only the row of that name ("cycle of 100")
 *     -p PATTERNS only these patterns, letters a-g (default all)
 *
 * Patterns (every request goes through libcrypto's EVP_RAND API):
 *   a  one long-lived RDRAND context, 48-byte generates
 *   b  a fresh RDRAND context per 48-byte generate
 *   c  a fresh library context per request (the provider loaded in it)
 *   d  a new thread per request (one at a time), one shared context
 *   e  8 threads sharing the requests, a context each
 *   f  direct 48-byte seeds: a CTR-DRBG (AES-256, no derivation
 *      function) whose parent is an RDRAND context, 32-byte generates with
 *      prediction resistance: each reseeds with one 48-byte get_seed
 *   g  a prediction-resistant CTR-DRBG child of a CTR-DRBG whose parent
 *      is an RDRAND context (libcrypto's public/primary chain, derivation
 *      function on), 4 KiB generates: each pulls one get_seed through the
 *      chain (32 bytes on OpenSSL 3.0)
 *
 * What is counted, per cell:
 *   before  bytes the provider delivered after the defect started and
 *           before the first trip: a request counts if it started while
 *           health-trips was 0 and the process had executed more than
 *           CLEAN words when it returned (a request that straddles the
 *           start counts whole: the count errs high);
 *   after   bytes delivered by requests that started once health-trips
 *           was nonzero (the goal: 0);
 * for a-e the bytes of successful generates, for f and g the growth of
 * the provider's seed-bytes counter (what the seed source handed the
 * DRBG), and also the verdict, trips and health-failures parameters at
 * the end, the app's failed requests and the words past the start when
 * the first trip was seen.  Only libcrypto's API, the provider's public
 * parameter and configuration names and the RDRAND_SIM grammar are used.
 *
 * Goals (--check), issue 19's "What to build":
 *   every cell: after == 0, no hang, no crash;
 *   a biased bit: the cell trips;
 *   a cycle of period p, the lag-L repeat, the late cycle: the cell trips
 *   and before <= 8 p + 4096 (its first period, new words, and at most
 *   4 KiB of repeats; for the lag, p = L).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#define CONF_NAME "rdrand-sim"
#define POOL_THREADS 8
#define SMALL 48        /* a-e: bytes per generate */
#define DRBG_SMALL 32   /* f: the application's request; the seed is 48 */
#define DRBG_LARGE 4096 /* g */
#define SLACK_BYTES 4096
/*
 * Words the file holds past BUDGET: a request in flight when the budget
 * is reached, on each of the pool's threads, may run a recovery (a
 * self-test and 16 windows of 512 words, with their references) first.
 */
#define OVERSHOOT_WORDS (POOL_THREADS * 9000 + 8192)

enum kind { BIAS, CYCLE, LAG };

struct defect {
    const char *name;
    enum kind kind;
    double bias;    /* BIAS: probability that bit 40 is 1 */
    uint64_t p;     /* CYCLE: period; LAG: lag */
    uint64_t clean; /* clean words before the defect */
};

static const struct defect defects[] = {
    {"bit 40 biased to 0.75", BIAS, 0.75, 0, 20000},
    {"bit 40 biased to 0.70", BIAS, 0.70, 0, 20000},
    {"bit 40 biased to 0.68", BIAS, 0.68, 0, 20000},
    {"bit 40 biased to 0.65", BIAS, 0.65, 0, 20000},
    {"cycle of 33", CYCLE, 0, 33, 20000},
    {"cycle of 100", CYCLE, 0, 100, 20000},
    {"cycle of 200", CYCLE, 0, 200, 20000},
    {"cycle of 500", CYCLE, 0, 500, 20000},
    {"cycle of 1000", CYCLE, 0, 1000, 20000},
    {"cycle of 2000", CYCLE, 0, 2000, 20000},
    {"cycle of 4096", CYCLE, 0, 4096, 20000},
    {"cycle of 10000", CYCLE, 0, 10000, 20000},
    {"odd words repeat the word 100 before", LAG, 0, 100, 20000},
    {"cycle of 1000 after 100000 good words", CYCLE, 0, 1000, 100000},
};
#define NDEFECTS (sizeof(defects) / sizeof(defects[0]))

enum pattern {
    ONE_CTX,
    FRESH_CTX,
    FRESH_LIBCTX,
    NEW_THREAD,
    POOL,
    DRBG_SEED,
    DRBG_CHILD,
    NPATTERNS
};

static const char *const pattern_names[NPATTERNS] = {
    "a one context",           "b fresh context", "c fresh library context",
    "d thread each",           "e 8-thread pool", "f DRBG pr=1, 48 B seeds",
    "g DRBG child pr=1, 4 KiB"};

/* What a cell's process sends back through its pipe. */
struct result {
    int error; /* the cell could not be measured: see message */
    int tripped;
    uint64_t before, after;
    uint64_t trip_words; /* past the defect's start when first seen */
    int64_t trip_at;     /* the same, signed: < 0 is a trip on clean words */
    uint64_t requests, failed, trips, health_failures, words;
    char verdict[16];
    char message[160];
};

static struct options {
    const char *module;
    int check;
    uint64_t budget;
    uint64_t after;
    unsigned deadline;
    const char *row;
    const char *patterns;
    char conf[PATH_MAX];
} opt = {NULL, 0, 50000, 500, 30, NULL, "abcdefg", ""};

/* ---- the word streams ---- */

/* splitmix64 (Steele, Lea, Flood 2014): a generator the tests pass. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t good(uint64_t series, uint64_t i)
{
    return mix((series << 40 ^ i) * 0x9e3779b97f4a7c15ULL
               + 0x9e3779b97f4a7c15ULL);
}

/* Word i (0-based: execution i + 1) of the stream; prev holds the words. */
static uint64_t stream_word(const struct defect *d, const uint64_t *prev,
                            uint64_t i)
{
    uint64_t j, w, bit = (uint64_t)1 << 40;

    if (i < d->clean)
        return good(1, i);
    j = i - d->clean;
    switch (d->kind) {
    case BIAS:
        w = good(2, j);
        /* top 53 bits of another stream as a uniform [0, 1) */
        return (double)(good(3, j) >> 11) * 0x1p-53 < d->bias ? w | bit
                                                              : w & ~bit;
    case CYCLE:
        return good(4, j % d->p);
    case LAG:
        return j % 2 == 1 ? prev[i - d->p] : good(5, j);
    }
    return 0;
}

static uint64_t file_words(const struct defect *d)
{
    return d->clean + opt.budget + OVERSHOOT_WORDS;
}

static int write_words(const struct defect *d, const char *path)
{
    uint64_t n = file_words(d), *w = malloc(n * sizeof(*w));
    FILE *f = fopen(path, "w");
    int ok = w != NULL && f != NULL;

    for (uint64_t i = 0; ok && i < n; i++) {
        w[i] = stream_word(d, w, i);
        ok = fprintf(f, "%016llx\n", (unsigned long long)w[i]) == 17;
    }
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    free(w);
    return ok;
}

/* ---- in the cell's process ---- */

struct run {
    const struct defect *d;
    enum pattern pattern;
    OSSL_PROVIDER *obs; /* reads the process's parameters */
    OSSL_LIB_CTX *libctx;
    EVP_RAND *rdrand, *ctr;
    EVP_RAND_CTX *shared;
    pthread_mutex_t lock;
    struct result r;
    uint64_t after_requests;
    int stop;
};

static __attribute__((format(printf, 2, 3))) void
cell_error(struct run *run, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&run->lock);
    if (!run->r.error) {
        run->r.error = 1;
        va_start(ap, fmt);
        vsnprintf(run->r.message, sizeof(run->r.message), fmt, ap);
        va_end(ap);
    }
    run->stop = 1;
    pthread_mutex_unlock(&run->lock);
}

static uint64_t param_u64(struct run *run, const char *name)
{
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};

    if (!OSSL_PROVIDER_get_params(run->obs, p))
        cell_error(run, "parameter %s unreadable", name);
    return v;
}

static const char *param_text(struct run *run, const char *name)
{
    const char *v = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_ptr(name, (char **)&v, 0),
                      OSSL_PARAM_END};

    if (!OSSL_PROVIDER_get_params(run->obs, p) || v == NULL) {
        cell_error(run, "parameter %s unreadable", name);
        return "?";
    }
    return v;
}

/* A library context with the provider (warn = none) and default loaded. */
static OSSL_LIB_CTX *libctx_up(OSSL_PROVIDER **prov)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();

    *prov = NULL;
    if (libctx == NULL)
        return NULL;
    if (OSSL_LIB_CTX_load_config(libctx, opt.conf))
        *prov = OSSL_PROVIDER_load(libctx, CONF_NAME);
    ERR_clear_error();
    return libctx;
}

static void libctx_down(OSSL_LIB_CTX *libctx, OSSL_PROVIDER *prov)
{
    if (prov != NULL)
        OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
}

static EVP_RAND_CTX *seed_ctx(EVP_RAND *rdrand)
{
    EVP_RAND_CTX *ctx = rdrand != NULL ? EVP_RAND_CTX_new(rdrand, NULL) : NULL;

    if (ctx != NULL && !EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)) {
        EVP_RAND_CTX_free(ctx);
        ctx = NULL;
    }
    return ctx;
}

/*
 * An AES-256 CTR-DRBG under parent, prediction resistance on; without the
 * derivation function a reseed asks its parent for exactly seedlen (48)
 * bytes, with it (libcrypto's default) for 32 on 3.0.
 */
static EVP_RAND_CTX *drbg_ctx(EVP_RAND *ctr, EVP_RAND_CTX *parent, int df)
{
    char cipher[] = "AES-256-CTR";
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_DRBG_PARAM_CIPHER, cipher,
                                             sizeof(cipher) - 1),
                      OSSL_PARAM_int(OSSL_DRBG_PARAM_USE_DF, &df),
                      OSSL_PARAM_END};
    EVP_RAND_CTX *ctx = EVP_RAND_CTX_new(ctr, parent);

    if (ctx != NULL && !EVP_RAND_instantiate(ctx, 256, 1, NULL, 0, p)) {
        EVP_RAND_CTX_free(ctx);
        ctx = NULL;
    }
    return ctx;
}

/*
 * Before a request: 0 to stop; else *trips is health-trips now, which
 * decides whether the request is one after the first trip.
 */
static int next_request(struct run *run, uint64_t *trips)
{
    int go;

    pthread_mutex_lock(&run->lock);
    go = !run->stop && run->after_requests < opt.after
         && param_u64(run, RDRAND_PARAM_RDRAND_WORDS)
                < run->d->clean + opt.budget;
    /* each request draws a word at least, or is one after the trip */
    go = go && run->r.requests < run->d->clean + opt.budget + opt.after;
    if (go) {
        *trips = param_u64(run, RDRAND_PARAM_HEALTH_TRIPS);
        run->r.requests++;
        run->after_requests += *trips > 0;
    }
    run->stop |= !go;
    pthread_mutex_unlock(&run->lock);
    return go;
}

/* After it: bytes the provider delivered to it. */
static void account(struct run *run, uint64_t trips, int ok, uint64_t bytes)
{
    uint64_t words, now;

    pthread_mutex_lock(&run->lock);
    /* The trip count first: a trip is seen with its own draw's words. */
    now = param_u64(run, RDRAND_PARAM_HEALTH_TRIPS);
    words = param_u64(run, RDRAND_PARAM_RDRAND_WORDS);
    if (trips > 0)
        run->r.after += bytes;
    else if (words > run->d->clean)
        run->r.before += bytes;
    run->r.failed += !ok;
    if (now > 0 && !run->r.tripped) {
        run->r.tripped = 1;
        run->r.trip_at = (int64_t)words - (int64_t)run->d->clean;
    }
    pthread_mutex_unlock(&run->lock);
}

static int generate(EVP_RAND_CTX *ctx, size_t len, int pr)
{
    static _Thread_local unsigned char buf[DRBG_LARGE];
    int ok = ctx != NULL && EVP_RAND_generate(ctx, buf, len, 0, pr, NULL, 0);

    ERR_clear_error();
    return ok;
}

static void *one_request(void *arg)
{
    return (void *)(intptr_t)generate(arg, SMALL, 0);
}

static void *pool_worker(void *arg)
{
    struct run *run = arg;
    EVP_RAND_CTX *ctx = seed_ctx(run->rdrand);
    uint64_t trips;

    if (ctx == NULL)
        cell_error(run, "a pool thread's context failed");
    while (ctx != NULL && next_request(run, &trips)) {
        int ok = generate(ctx, SMALL, 0);

        account(run, trips, ok, ok ? SMALL : 0);
    }
    EVP_RAND_CTX_free(ctx);
    return NULL;
}

/* c: the whole stack, from a new library context, per request. */
static int fresh_libctx_request(void)
{
    OSSL_PROVIDER *prov;
    OSSL_LIB_CTX *libctx = libctx_up(&prov);
    EVP_RAND *rdrand = prov != NULL
                           ? EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME, NULL)
                           : NULL;
    EVP_RAND_CTX *ctx = seed_ctx(rdrand);
    int ok = generate(ctx, SMALL, 0);

    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rdrand);
    libctx_down(libctx, prov);
    ERR_clear_error();
    return ok;
}

static void run_pattern(struct run *run)
{
    EVP_RAND_CTX *parent = NULL, *drbg = NULL, *child = NULL;
    uint64_t trips;

    if (run->pattern == POOL) {
        pthread_t t[POOL_THREADS];
        int n = 0;

        while (n < POOL_THREADS
               && pthread_create(&t[n], NULL, pool_worker, run) == 0)
            n++;
        if (n < POOL_THREADS)
            cell_error(run, "pthread_create failed");
        while (n > 0)
            pthread_join(t[--n], NULL);
        return;
    }
    if (run->pattern == DRBG_SEED || run->pattern == DRBG_CHILD) {
        parent = seed_ctx(run->rdrand);
        drbg = parent != NULL
                   ? drbg_ctx(run->ctr, parent, run->pattern == DRBG_CHILD)
                   : NULL;
        if (run->pattern == DRBG_CHILD && drbg != NULL)
            child = drbg_ctx(run->ctr, drbg, 1);
        if (drbg == NULL || (run->pattern == DRBG_CHILD && child == NULL)) {
            cell_error(run, "the DRBG chain could not be instantiated");
            goto done;
        }
    }
    while (next_request(run, &trips)) {
        uint64_t seeded, requests;
        pthread_t t;
        void *ret;
        int ok = 0;

        switch (run->pattern) {
        case ONE_CTX:
            ok = generate(run->shared, SMALL, 0);
            break;
        case FRESH_CTX: {
            EVP_RAND_CTX *ctx = seed_ctx(run->rdrand);

            ok = generate(ctx, SMALL, 0);
            EVP_RAND_CTX_free(ctx);
            break;
        }
        case FRESH_LIBCTX:
            ok = fresh_libctx_request();
            break;
        case NEW_THREAD:
            if (pthread_create(&t, NULL, one_request, run->shared) != 0) {
                cell_error(run, "pthread_create failed");
                break;
            }
            pthread_join(t, &ret);
            ok = (int)(intptr_t)ret;
            break;
        case DRBG_SEED:
        case DRBG_CHILD:
            seeded = param_u64(run, RDRAND_PARAM_SEED_BYTES);
            requests = param_u64(run, RDRAND_PARAM_SEED_REQUESTS);
            ok = run->pattern == DRBG_SEED ? generate(drbg, DRBG_SMALL, 1)
                                           : generate(child, DRBG_LARGE, 1);
            /* the pattern is one get_seed per generate: make sure */
            if (param_u64(run, RDRAND_PARAM_SEED_REQUESTS) == requests)
                cell_error(run, "a prediction-resistant generate drew no "
                                "seed");
            account(run, trips, ok,
                    param_u64(run, RDRAND_PARAM_SEED_BYTES) - seeded);
            continue;
        default:
            break;
        }
        account(run, trips, ok, ok ? SMALL : 0);
    }
done:
    EVP_RAND_CTX_free(child);
    EVP_RAND_CTX_free(drbg);
    EVP_RAND_CTX_free(parent);
}

static void run_cell(const struct defect *d, enum pattern pattern,
                     struct result *out)
{
    static struct run run;
    OSSL_PROVIDER *obs, *prov = NULL;
    OSSL_LIB_CTX *observer = libctx_up(&obs);
    pthread_mutexattr_t attr;

    memset(&run, 0, sizeof(run));
    /* recursive: a parameter read under the lock may report an error */
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&run.lock, &attr);
    run.d = d;
    run.pattern = pattern;
    run.obs = obs;
    if (obs == NULL) {
        cell_error(&run, "the provider did not load");
        goto done;
    }
    run.libctx = libctx_up(&prov);
    if (prov == NULL
        || (run.rdrand =
                EVP_RAND_fetch(run.libctx, RDRAND_ALGORITHM_NAME, NULL))
               == NULL
        || (run.ctr = EVP_RAND_fetch(run.libctx, "CTR-DRBG", NULL)) == NULL
        || (run.shared = seed_ctx(run.rdrand)) == NULL) {
        cell_error(&run, "setup failed");
        goto done;
    }
    run_pattern(&run);
    run.r.trips = param_u64(&run, RDRAND_PARAM_HEALTH_TRIPS);
    run.r.health_failures = param_u64(&run, RDRAND_PARAM_HEALTH_FAILURES);
    run.r.words = param_u64(&run, RDRAND_PARAM_RDRAND_WORDS);
    snprintf(run.r.verdict, sizeof(run.r.verdict), "%s",
             param_text(&run, RDRAND_PARAM_HEALTH_VERDICT));
    if (run.r.words > file_words(d))
        cell_error(&run,
                   "%llu words executed, the file has %llu: the loop "
                   "replayed the clean prefix",
                   (unsigned long long)run.r.words,
                   (unsigned long long)file_words(d));
    /*
     * rdrand-words counts a request's words when the request ends, so on
     * the pool the other threads' requests under way (up to 7 words each,
     * a reference included) are not in it yet when a trip is seen: a trip
     * that close to the start is not placed among the clean words.
     */
    if (run.r.tripped && run.r.trip_at < 0
        && (pattern != POOL
            || -run.r.trip_at > (int64_t)POOL_THREADS * (SMALL / 8 + 1)))
        cell_error(&run, "tripped on clean words");
    run.r.trip_words = run.r.trip_at > 0 ? (uint64_t)run.r.trip_at : 0;
done:
    *out = run.r;
    /* the process ends here: nothing is freed */
    (void)observer;
}

/* ---- in the parent ---- */

/* The temporary files, removed also when the run is interrupted. */
static char tmp_dir[] = "/tmp/defect-matrix-XXXXXX";
static char tmp_words[PATH_MAX];

static void remove_tmp(void)
{
    unlink(tmp_words);
    unlink(opt.conf);
    rmdir(tmp_dir);
}

static const int caught[] = {SIGINT, SIGTERM, SIGPIPE, SIGHUP};

static void interrupted(int sig)
{
    remove_tmp(); /* unlink and rmdir are async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Fork the cell; give it opt.deadline seconds. */
static void cell(const struct defect *d, const char *words, enum pattern p,
                 struct result *r)
{
    int fds[2], status = 0;
    double until = now_s() + opt.deadline;
    pid_t pid, done = 0;
    ssize_t got;

    memset(r, 0, sizeof(*r));
    r->error = 1;
    if (pipe(fds) != 0) {
        snprintf(r->message, sizeof(r->message), "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    if ((pid = fork()) == 0) {
        char spec[PATH_MAX + 8];
        struct result res;

        close(fds[0]);
        /* a cell outlives no killed run, and the files are the run's */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
            _exit(1);
        for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
            signal(caught[i], SIG_DFL);
        snprintf(spec, sizeof(spec), "words=%s", words);
        setenv("RDRAND_SIM", spec, 1);
        run_cell(d, p, &res);
        _exit(write(fds[1], &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
    }
    close(fds[1]);
    if (pid < 0) {
        snprintf(r->message, sizeof(r->message), "fork: %s", strerror(errno));
        close(fds[0]);
        return;
    }
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && now_s() < until)
        usleep(2000);
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        snprintf(r->message, sizeof(r->message), "hang: killed after %u s",
                 opt.deadline);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(r->message, sizeof(r->message),
                 "the cell's process died "
                 "(status 0x%x)",
                 (unsigned)status);
    } else if ((got = read(fds[0], r, sizeof(*r))) != (ssize_t)sizeof(*r)) {
        memset(r, 0, sizeof(*r));
        r->error = 1;
        snprintf(r->message, sizeof(r->message), "no result from the cell");
    }
    close(fds[0]);
}

/* "" if the cell meets its goals, else why not. */
static const char *goal_missed(const struct defect *d, const struct result *r,
                               char *why, size_t len)
{
    uint64_t bound = 8 * d->p + SLACK_BYTES;

    why[0] = '\0';
    if (r->error)
        snprintf(why, len, "%s", r->message);
    else if (r->after > 0)
        snprintf(why, len, "%llu bytes after the first trip",
                 (unsigned long long)r->after);
    else if (!r->tripped)
        snprintf(why, len, "never tripped");
    else if (d->kind != BIAS && r->before > bound)
        snprintf(why, len, "%llu bytes before the trip, bound %llu",
                 (unsigned long long)r->before, (unsigned long long)bound);
    return why;
}

static int usage(void)
{
    fprintf(stderr, "usage: defect_matrix [--check] [-d BUDGET] [-a AFTER] "
                    "[-t SECONDS] [-r ROW] [-p PATTERNS] MODULE\n");
    return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;

    errno = 0;
    *out = strtoull(s, &end, 10);
    return *s >= '0' && *s <= '9' && *end == '\0' && errno == 0 && *out > 0;
}

int main(int argc, char **argv)
{
    char why[200];
    unsigned missed = 0, cells = 0;
    uint64_t v;
    FILE *f;
    int i;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--check") == 0)
            opt.check = 1;
        else if (val == NULL)
            return usage();
        else if (strcmp(a, "-d") == 0 && parse_u64(val, &opt.budget))
            i++;
        else if (strcmp(a, "-a") == 0 && parse_u64(val, &opt.after))
            i++;
        else if (strcmp(a, "-t") == 0 && parse_u64(val, &v) && v < 86400)
            opt.deadline = (unsigned)v, i++;
        else if (strcmp(a, "-r") == 0)
            opt.row = argv[++i];
        else if (strcmp(a, "-p") == 0 && strspn(val, "abcdefg") == strlen(val))
            opt.patterns = argv[++i];
        else
            return usage();
    }
    if (i != argc - 1)
        return usage();
    /* the config's module = must not depend on OPENSSL_MODULES */
    if ((opt.module = realpath(argv[i], NULL)) == NULL) {
        perror(argv[i]);
        return 2;
    }
    if (mkdtemp(tmp_dir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(opt.conf, sizeof(opt.conf), "%s/matrix.cnf", tmp_dir);
    snprintf(tmp_words, sizeof(tmp_words), "%s/words", tmp_dir);
    for (size_t c = 0; c < sizeof(caught) / sizeof(caught[0]); c++)
        signal(caught[c], interrupted);
    /* No system openssl.cnf: every library context is the tool's own. */
    OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
    if ((f = fopen(opt.conf, "w")) == NULL) {
        perror(opt.conf);
        remove_tmp();
        return 2;
    }
    fprintf(f,
            "openssl_conf = init\n[init]\nproviders = provs\n"
            "[provs]\n" CONF_NAME " = rdrand_sect\ndefault = default_sect\n"
            "[default_sect]\nactivate = 1\n"
            "[rdrand_sect]\nmodule = %s\nactivate = 1\nwarn = none\n",
            opt.module);
    if (fclose(f) != 0) {
        perror(opt.conf);
        remove_tmp();
        return 2;
    }

    printf("Budget: %llu words past the defect's start, or %llu requests "
           "after the first trip. Bytes: delivered by the provider (f, g: "
           "its seed bytes). Goal: after = 0; cycles and the lag: before "
           "<= 8 p + %d; biases: a trip.\n\n",
           (unsigned long long)opt.budget, (unsigned long long)opt.after,
           SLACK_BYTES);
    printf("| defect | pattern | before trip (B) | after trip (B) | trip at "
           "(words past start) | verdict | trips | health-failures | failed "
           "requests | requests | goal |\n");
    printf("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
    for (size_t d = 0; d < NDEFECTS; d++) {
        const struct defect *def = &defects[d];

        if (opt.row != NULL && strcmp(def->name, opt.row) != 0)
            continue;
        if (!write_words(def, tmp_words)) {
            fprintf(stderr, "%s: cannot write\n", tmp_words);
            remove_tmp();
            return 2;
        }
        for (enum pattern p = 0; p < NPATTERNS; p++) {
            struct result r;
            char trip[32] = "—";

            if (strchr(opt.patterns, 'a' + (int)p) == NULL)
                continue;
            cell(def, tmp_words, p, &r);
            goal_missed(def, &r, why, sizeof(why));
            cells++;
            missed += why[0] != '\0';
            if (r.error) {
                printf("| %s | %s | | | | | | | | | **%s** |\n", def->name,
                       pattern_names[p], why);
                continue;
            }
            if (r.tripped)
                snprintf(trip, sizeof(trip), "%llu",
                         (unsigned long long)r.trip_words);
            printf("| %s | %s | %llu | %llu | %s | %s | %llu | %llu | %llu "
                   "| %llu | %s |\n",
                   def->name, pattern_names[p], (unsigned long long)r.before,
                   (unsigned long long)r.after, trip, r.verdict,
                   (unsigned long long)r.trips,
                   (unsigned long long)r.health_failures,
                   (unsigned long long)r.failed, (unsigned long long)r.requests,
                   why[0] ? why : "met");
            if (why[0])
                fprintf(stderr, "goal missed: %s, %s: %s\n", def->name,
                        pattern_names[p], why);
        }
    }
    remove_tmp();
    printf("\n%u of %u cells miss a goal.\n", missed, cells);
    return opt.check && missed > 0 ? 1 : 0;
}

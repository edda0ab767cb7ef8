/* SPDX-License-Identifier: Apache-2.0 */
#include "source.h"

#include <stdint.h>
#include <stdio.h>

#include <openssl/crypto.h>

#include "coco_policy.h"
#include "conditioning.h"
#include "config.h"
#include "counters.h"
#include "draw.h"
#include "errors.h"
#include "samples.h"

/*
 * The continuous tests must see the stream this process draws, not one
 * context's slice of it: state kept in a RAND context, a provider
 * instance or a library context would give a defective CPU a fresh start
 * with every new context (an application creating one per request got
 * a constant served indefinitely).  Shared process-wide state would need
 * a lock or an atomic on every word, bouncing a cache line between cores
 * on the seed path.  So the state is per thread: every context, provider
 * instance and library context on a thread feeds the same tests, nothing
 * resets them, and a thread's first draw runs the full self-test into its
 * state before anything is delivered, so a new thread is no fresh start
 * either.  Default TLS model: the module is dlopen()ed.
 */
static _Thread_local struct rdrand_health rdrand_thread_health;

/*
 * What the thread has answered of the process's trips (below), and
 * whether its state is registered for the wipe at thread exit.
 */
static _Thread_local uint64_t rdrand_thread_trips;
static _Thread_local int rdrand_thread_wiped_at_exit;

/*
 * Every fault anywhere in the process (a health-test trip, CF=0) is a
 * fact about the CPU, not about the provider instance or the thread that
 * met it.  So it is counted here, process-wide: the low 32 bits count
 * every fault, the high 32 those of the windowed tests (adaptive
 * proportion, bit proportion).  A request whose thread has not answered
 * the current count (one relaxed load per request) first recovers:
 * the self-test, and after a windowed trip also a whole fresh window of
 * undelivered words through the thread's tests.  So a fault met by one
 * instance makes every instance on every thread test before it serves
 * again, and a defect only the 512-word tests see cannot be served
 * between their windows: each recovery judges a whole window of its own.
 */
static _Atomic uint64_t rdrand_trips;

#define RDRAND_TRIP_WINDOWED ((uint64_t)1 << 32)

/*
 * The thread's state at thread exit: wiped by a thread-local key's
 * destructor (libcrypto's CRYPTO_THREAD_LOCAL, a pthread key), registered
 * once per process; the module stays mapped (-z nodelete), so the
 * destructor outlives an unload.  Not the core's thread_start upcall:
 * that is per provider instance and is dropped at unload, while the
 * state outlives the instance.  A process's exit() does not run key
 * destructors: the exiting thread's state dies with the process.
 */
static CRYPTO_ONCE rdrand_exit_once = CRYPTO_ONCE_STATIC_INIT;
static CRYPTO_THREAD_LOCAL rdrand_exit_key;
static int rdrand_exit_key_ok;

static void rdrand_thread_wipe(void *state)
{
    OPENSSL_cleanse(state, sizeof(struct rdrand_health));
}

static void rdrand_exit_key_init(void)
{
    rdrand_exit_key_ok =
        CRYPTO_THREAD_init_local(&rdrand_exit_key, rdrand_thread_wipe);
}

static void rdrand_wipe_at_exit(void)
{
    if (rdrand_thread_wiped_at_exit)
        return;
    if (CRYPTO_THREAD_run_once(&rdrand_exit_once, rdrand_exit_key_init)
        && rdrand_exit_key_ok
        && CRYPTO_THREAD_set_local(&rdrand_exit_key, &rdrand_thread_health))
        rdrand_thread_wiped_at_exit = 1;
}

struct rdrand_health *rdrand_source_health(void)
{
    return &rdrand_thread_health;
}

void rdrand_source_forget(void)
{
    rdrand_health_init(&rdrand_thread_health);
    atomic_store(&rdrand_trips, 0);
    rdrand_thread_trips = 0;
    rdrand_samples_forget();
}

int rdrand_source_selftest(void)
{
    uint64_t words[RDRAND_SELFTEST_WORDS];
    int reason = rdrand_draw(NULL, (unsigned char *)words, sizeof(words));

    rdrand_wipe_at_exit();
    if (reason == RDRAND_R_OK)
        reason = rdrand_health_selftest(&rdrand_thread_health, words,
                                        RDRAND_SELFTEST_WORDS);
    /* A word of an earlier self-test, on any thread: the output cycles. */
    if (reason == RDRAND_R_OK
        && rdrand_samples_seen(words, RDRAND_SELFTEST_WORDS)) {
        reason = RDRAND_R_SELFTEST_FAILED;
        rdrand_thread_health.warm = 0;
    }
    OPENSSL_cleanse(words, sizeof(words));
    return reason;
}

/*
 * After a windowed trip: judge words (never delivered) through the
 * thread's tests until a whole window of undelivered words has been
 * judged.  fresh: the current window holds no delivered word (it opened
 * at the thread's trip, or the thread had drawn nothing).  On the thread
 * that tripped that window is finished (448 words after the self-test's
 * 64); elsewhere the current window is finished and one whole one after
 * it judged (at most 1023 words).  A persistent defect of the kind these
 * tests see fails it as it failed the window that tripped, so it stays
 * latched; a transient has passed.
 */
static int rdrand_source_window(int fresh)
{
    struct rdrand_health *h = &rdrand_thread_health;
    uint64_t word = 0;
    int reason = RDRAND_R_OK;

    for (size_t n = 0; reason == RDRAND_R_OK; n++) {
        if (rdrand_health_opens_window(h)) {
            if (fresh && n > 0)
                break;
            fresh = 1;
        }
        reason = rdrand_draw(NULL, (unsigned char *)&word, sizeof(word));
        if (reason == RDRAND_R_OK)
            reason = rdrand_health_check_word(h, word);
    }
    OPENSSL_cleanse(&word, sizeof(word));
    return reason;
}

/* The self-test, and after a windowed trip the window. */
static int rdrand_source_recover(int windowed)
{
    int fresh = rdrand_health_opens_window(&rdrand_thread_health);
    int reason = rdrand_source_selftest();

    if (reason == RDRAND_R_OK && windowed)
        reason = rdrand_source_window(fresh);
    return reason;
}

static int rdrand_is_health_reason(int reason)
{
    return reason == RDRAND_R_STUCK_ZERO || reason == RDRAND_R_STUCK_ONES
           || reason == RDRAND_R_REPEATED_WORD || reason == RDRAND_R_SHORT_CYCLE
           || reason == RDRAND_R_STUCK_BIT || reason == RDRAND_R_BIASED_BIT
           || reason == RDRAND_R_ADAPTIVE_PROPORTION
           || reason == RDRAND_R_SELFTEST_FAILED;
}

#define RDRAND_FAULT_REASON(state) ((int)((state)&0xffffffffu))

/* Latch reason (an earlier one is kept unless replace); bump the generation. */
static void rdrand_source_latch(struct rdrand_prov *prov, int reason,
                                int replace)
{
    uint64_t state = atomic_load(&prov->fault_state), next;

    do {
        int kept = RDRAND_FAULT_REASON(state);

        if (replace || kept == RDRAND_R_OK)
            kept = reason;
        next = ((state >> 32) + 1) << 32 | (uint32_t)kept;
    } while (!atomic_compare_exchange_weak(&prov->fault_state, &state, next));
}

int rdrand_source_latched(const struct rdrand_prov *prov)
{
    int latched = RDRAND_FAULT_REASON(atomic_load(&prov->fault_state));

    if (latched == RDRAND_R_OK && prov->coco_enforced)
        latched = rdrand_coco_verdict(); /* another instance's fault */
    return latched;
}

void rdrand_source_latch_coco(struct rdrand_prov *prov, int coco_reason)
{
    rdrand_source_latch(prov, coco_reason, 1);
}

void rdrand_source_fault(struct rdrand_prov *prov, int reason, const char *what)
{
    int windowed =
        reason == RDRAND_R_ADAPTIVE_PROPORTION || reason == RDRAND_R_BIASED_BIT;

    /* The first fault is the one worth reporting: it is kept. */
    rdrand_source_latch(prov, reason, 0);
    atomic_fetch_add(&rdrand_trips, windowed ? RDRAND_TRIP_WINDOWED + 1 : 1);
    if (prov->coco_enforced)
        rdrand_coco_fail(reason);
    if (rdrand_is_health_reason(reason))
        rdrand_counter_add(RDRAND_CTR_HEALTH_FAILURES, 1);
    if (what != NULL)
        RDRAND_RAISE(prov, reason, "%s", what);
    rdrand_warn_once(prov, reason);
}

/*
 * Recovery policy.  Outside a confidential guest a fault is latched until
 * a later request finds the hardware healthy again: that request first
 * runs the full startup self-test (and after a windowed trip a whole
 * window, rdrand_source_window) and proceeds only if it passes.  A
 * thread's first request runs the self-test too, and so does every
 * thread's next request after a fault anywhere in the process
 * (rdrand_trips): a fault latches this instance, and makes every other
 * one on every thread test before serving again.  Why not latch every
 * instance outright: the recovery is what would clear it, and it runs on
 * every thread anyway; status stays per instance.  The test state is not
 * reset by a fault: a failing APT window or bit run starts over (one
 * defect, one failure), the history goes on.
 *
 * Inside a confidential guest (coco_enforced) the first fault of any
 * instance is the process's verdict (coco_policy.c): every enforced
 * instance, loaded before or after it, fails every request from then on,
 * as the kernel would have panicked instead.  One atomic load per
 * request.
 */
int rdrand_source_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                       const char *request)
{
    uint64_t state = atomic_load(&prov->fault_state);
    uint64_t trips = atomic_load_explicit(&rdrand_trips, memory_order_relaxed);
    int latched = RDRAND_FAULT_REASON(state);
    int reason = RDRAND_R_OK;
    char what[96];

    if (rdrand_config_refuses(prov, request, len))
        return 0; /* before anything a recovery could clear */
    if (latched == RDRAND_R_OK && prov->coco_enforced)
        latched = rdrand_coco_verdict();
    if (latched != RDRAND_R_OK && prov->coco_enforced) {
        RDRAND_RAISE(prov, latched,
                     "latched in a confidential guest (%s)%s%s: restart the "
                     "process on working hardware",
                     rdrand_coco_platform_name(prov->coco.platform),
                     prov->coco_cause ? " since: " : "",
                     prov->coco_cause ? rdrand_reason_text(prov->coco_cause)
                                      : "");
        return 0;
    }
    if (!prov->rdrand_available) {
        RDRAND_RAISE(prov, RDRAND_R_NO_RDRAND, "%s of %zu bytes failed",
                     request, len);
        return 0;
    }
    if (latched != RDRAND_R_OK || !rdrand_thread_health.warm
        || trips != rdrand_thread_trips) {
        int windowed = trips >> 32 != rdrand_thread_trips >> 32
                       || latched == RDRAND_R_ADAPTIVE_PROPORTION
                       || latched == RDRAND_R_BIASED_BIT;

        reason = rdrand_source_recover(windowed);
        if (reason == RDRAND_R_OK)
            rdrand_thread_trips = trips; /* a later fault is not answered */
        /* Clear only if no fault came while the self-test ran. */
        if (reason == RDRAND_R_OK && latched != RDRAND_R_OK
            && !atomic_compare_exchange_strong(&prov->fault_state, &state,
                                               state >> 32 << 32)
            && (latched = RDRAND_FAULT_REASON(state)) != RDRAND_R_OK) {
            RDRAND_RAISE(prov, latched,
                         "%s of %zu bytes failed: another request met "
                         "this fault during recovery",
                         request, len);
            return 0;
        }
    }
    /* The mode is chosen here, so recovery and latching stay in one place. */
    if (reason == RDRAND_R_OK)
        reason = prov->config.conditioning == RDRAND_CONDITIONING_REDUCE512
                     ? rdrand_cond_fill(&prov->cond_key, &rdrand_thread_health,
                                        out, len)
                     : rdrand_draw(&rdrand_thread_health, out, len);
    if (reason == RDRAND_R_OK)
        return 1;
    snprintf(what, sizeof(what),
             "%s of %zu bytes failed closed: nothing was delivered", request,
             len);
    rdrand_source_fault(prov, reason, what);
    return 0;
}

int rdrand_source_usable(const struct rdrand_prov *prov)
{
    return rdrand_config_ok(prov) && prov->rdrand_available
           && rdrand_source_latched(prov) == RDRAND_R_OK;
}

const char *rdrand_source_state_text(const struct rdrand_prov *prov)
{
    int fault = rdrand_source_latched(prov);

    if (!rdrand_config_ok(prov))
        return prov->config.state;
    if (fault != RDRAND_R_OK)
        return rdrand_reason_text(fault);
    return prov->rdrand_available ? "ok"
                                  : rdrand_reason_text(RDRAND_R_NO_RDRAND);
}

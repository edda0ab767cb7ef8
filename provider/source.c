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
#include "handover.h"
#include "recovery.h"
#include "samples.h"
#include "verdict.h"

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

/* Whether the thread's state is registered for the wipe at thread exit. */
static _Thread_local int rdrand_thread_wiped_at_exit;

/*
 * The thread's state at thread exit: its open windows handed over
 * (handover.c), then wiped by a thread-local key's
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
    rdrand_handover_put(state);
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
    rdrand_verdict_forget();
    rdrand_samples_forget();
    rdrand_handover_forget();
}

int rdrand_source_selftest(void)
{
    uint64_t words[RDRAND_SELFTEST_WORDS];
    int reason = rdrand_draw(NULL, (unsigned char *)words, sizeof(words));

    rdrand_wipe_at_exit();
    /*
     * The thread's first sample that passes the sample rules: its tests
     * join the process's long-cycle test under the process's key (set
     * from such a sample only, samples.c) and continue the windows an
     * exited thread left (handover.c).  Before it, the thread's state is
     * keyed from its own failing sample, and nothing is delivered.
     */
    if (reason == RDRAND_R_OK && rdrand_thread_health.samples == NULL
        && rdrand_health_sample_rules(words, RDRAND_SELFTEST_WORDS)) {
        rdrand_thread_health.samples = rdrand_samples_process(
            rdrand_thread_health.s.key, words, RDRAND_SELFTEST_WORDS);
        rdrand_thread_health.keyed = 1;
        rdrand_handover_take(&rdrand_thread_health);
    }
    if (reason == RDRAND_R_OK)
        reason = rdrand_health_selftest(&rdrand_thread_health, words,
                                        RDRAND_SELFTEST_WORDS);
    OPENSSL_cleanse(words, sizeof(words));
    return reason;
}

/*
 * After a trip (anywhere in the process): the self-test, then the long
 * sample of recovery.c, all undelivered.
 */
static int rdrand_source_recover(void)
{
    int reason = rdrand_source_selftest();

    if (reason == RDRAND_R_OK)
        reason = rdrand_recovery_windows(&rdrand_thread_health);
    return reason;
}

static int rdrand_is_health_reason(int reason)
{
    return reason == RDRAND_R_STUCK_ZERO || reason == RDRAND_R_STUCK_ONES
           || reason == RDRAND_R_REPEATED_WORD || reason == RDRAND_R_SHORT_CYCLE
           || reason == RDRAND_R_LONG_CYCLE || reason == RDRAND_R_STUCK_BIT
           || reason == RDRAND_R_BIASED_BIT
           || reason == RDRAND_R_ADAPTIVE_PROPORTION
           || reason == RDRAND_R_SELFTEST_FAILED
           || reason == RDRAND_R_RECOVERY_FAILED;
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

    return latched != RDRAND_R_OK ? latched : rdrand_verdict_reason();
}

void rdrand_source_latch_coco(struct rdrand_prov *prov, int coco_reason)
{
    rdrand_source_latch(prov, coco_reason, 1);
}

void rdrand_source_record(struct rdrand_prov *prov, int reason,
                          const char *what)
{
    int permanent;

    /* The first fault is the one worth reporting: it is kept. */
    rdrand_source_latch(prov, reason, 0);
    permanent = rdrand_verdict_trip(reason);
    if (rdrand_is_health_reason(reason))
        rdrand_counter_add(RDRAND_CTR_HEALTH_FAILURES, 1);
    if (what != NULL)
        RDRAND_RAISE(prov, reason, "%s%s", what,
                     permanent ? "; the process's verdict on RDRAND is now "
                                 "permanent (health-verdict): no request "
                                 "is served again in this process"
                               : "");
}

void rdrand_source_warn(const struct rdrand_prov *prov, int reason)
{
    if (rdrand_verdict_load() & RDRAND_VERDICT_PERMANENT)
        rdrand_warn_permanent(prov, reason);
    else
        rdrand_warn_once(prov, reason);
}

void rdrand_source_fault(struct rdrand_prov *prov, int reason, const char *what)
{
    rdrand_source_record(prov, reason, what);
    rdrand_source_warn(prov, reason);
}

/*
 * A request the instance's config refuses (a refused value, a keyless
 * reduce512); a fork()ed child refused here under a permanent verdict
 * owes the verdict's line too.
 */
static int rdrand_source_config_refuses(const struct rdrand_prov *prov,
                                        uint64_t v, const char *request,
                                        size_t len)
{
    if (!rdrand_config_refuses(prov, request, len))
        return 0;
    if (v & RDRAND_VERDICT_PERMANENT)
        rdrand_warn_permanent(prov, rdrand_verdict_reason());
    return 1;
}

/* Why a permanent verdict fails this request, for the error queue. */
static void rdrand_source_refuse(const struct rdrand_prov *prov, uint64_t v,
                                 int latched, const char *request, size_t len)
{
    if (prov->coco_cause != RDRAND_R_OK || (v & RDRAND_VERDICT_ENFORCED))
        RDRAND_RAISE(prov, latched,
                     "latched in a confidential guest (%s%s)%s%s: restart "
                     "the process on working hardware",
                     rdrand_coco_platform_name(prov->coco.platform),
                     prov->coco_enforced ? ""
                                         : "; CoCo rules set by another "
                                           "instance in this process",
                     prov->coco_cause ? " since: " : "",
                     prov->coco_cause ? rdrand_reason_text(prov->coco_cause)
                                      : "");
    else
        RDRAND_RAISE(prov, latched,
                     "%s of %zu bytes failed: RDRAND tripped the health "
                     "tests again within %llu words of an earlier trip, or "
                     "failed its recovery; the process will not use it "
                     "again: restart it after checking the CPU, microcode "
                     "and firmware",
                     request, len,
                     (unsigned long long)RDRAND_VERDICT_HORIZON_WORDS);
}

/*
 * Recovery policy (the verdict itself is verdict.c's).  A fault latches
 * the instance that met it and counts a trip for the process.  Before a
 * request is served after a trip that no passed recovery has answered
 * yet, it recovers: the self-test and the long sample (recovery.c),
 * none of it delivered; it proceeds only if they pass.  A thread's first
 * request runs the self-test.  A second trip soon after the first, which
 * is what a failed recovery is, makes the verdict permanent, and then no
 * instance on any thread serves again: one relaxed load per request
 * tells (the same load gives the trip count).  Under CoCo rules the
 * first fault is permanent.  The test state is not reset by a fault: a
 * failing APT window or bit run starts over (one defect, one failure),
 * the history goes on.
 */
int rdrand_source_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                       const char *request)
{
    uint64_t state = atomic_load(&prov->fault_state);
    uint64_t v = rdrand_verdict_load();
    int latched = RDRAND_FAULT_REASON(state);
    int reason = RDRAND_R_OK;
    char what[96];

    if (rdrand_source_config_refuses(prov, v, request, len))
        return 0; /* before anything a recovery could clear */
    if ((v & RDRAND_VERDICT_PERMANENT)
        || (latched != RDRAND_R_OK && prov->coco_cause != RDRAND_R_OK)) {
        rdrand_source_refuse(
            prov, v, latched != RDRAND_R_OK ? latched : rdrand_verdict_reason(),
            request, len);
        /* A fork()ed child inherits the verdict, not the parent's warning. */
        rdrand_warn_permanent(
            prov, latched != RDRAND_R_OK ? latched : rdrand_verdict_reason());
        return 0;
    }
    if (!prov->rdrand_available) {
        RDRAND_RAISE(prov, RDRAND_R_NO_RDRAND, "%s of %zu bytes failed",
                     request, len);
        return 0;
    }
    if (latched != RDRAND_R_OK || !rdrand_thread_health.warm
        || rdrand_verdict_unanswered(v)) {
        if (rdrand_verdict_unanswered(v)) {
            if ((reason = rdrand_source_recover()) == RDRAND_R_OK)
                rdrand_verdict_answer(v); /* a later trip is not answered */
        } else {
            reason = rdrand_source_selftest();
        }
        /* Clear only if no fault came while the recovery ran. */
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

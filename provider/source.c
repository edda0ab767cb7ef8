/* SPDX-License-Identifier: Apache-2.0 */
#include "source.h"

#include <stdint.h>
#include <stdio.h>

#include <openssl/crypto.h>

#include "conditioning.h"
#include "counters.h"
#include "draw.h"
#include "errors.h"
#include "fault.h"
#include "handover.h"
#include "mix.h"
#include "recovery.h"
#include "seen.h"

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
    /* The key is ok only where the once ran its init and that made it. */
    (void)CRYPTO_THREAD_run_once(&rdrand_exit_once, rdrand_exit_key_init);
    if (rdrand_exit_key_ok
        && CRYPTO_THREAD_set_local(&rdrand_exit_key, &rdrand_thread_health))
        rdrand_thread_wiped_at_exit = 1;
}

struct rdrand_health *rdrand_source_health(void)
{
    return &rdrand_thread_health;
}

int rdrand_source_selftest(void)
{
    uint64_t words[RDRAND_SELFTEST_WORDS];
    int reason = rdrand_draw(NULL, (unsigned char *)words, sizeof(words));

    rdrand_wipe_at_exit();
    /*
     * The thread's first self-test joins the tree's tables of words seen
     * under the process's key (seen.c) before its sample is judged, so a
     * sample that repeats a word the tree drew is a repeat, a proof; and
     * it continues the windows an exited thread left (handover.c).  Only
     * where the load got no key from the OS does the thread wait for a
     * sample that passes the sample rules (the process's key is then
     * taken from it); until then its samples are judged under a key of
     * their own, never kept (health.c).
     */
    if (reason == RDRAND_R_OK && !rdrand_thread_health.keyed) {
        uint64_t key[2];
        int aes;
        struct rdrand_seen *seen;

        if (rdrand_seen_process(
                key, &aes, &seen, words, RDRAND_SELFTEST_WORDS,
                rdrand_health_sample_rules(words, RDRAND_SELFTEST_WORDS))) {
            rdrand_health_set_key(&rdrand_thread_health, key, aes);
            rdrand_thread_health.seen = seen;
            rdrand_handover_take(&rdrand_thread_health);
        }
        OPENSSL_cleanse(key, sizeof(key));
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

/* RDRAND output as the instance's conditioning gives it. */
static int rdrand_source_words(struct rdrand_prov *prov, unsigned char *out,
                               size_t len)
{
    return prov->config.conditioning == RDRAND_CONDITIONING_REDUCE512
               ? rdrand_cond_fill(&prov->cond_key, &rdrand_thread_health, out,
                                  len)
               : rdrand_draw(&rdrand_thread_health, out, len);
}

/*
 * What fault.c admits, with the thread's part of it: the self-test of a
 * thread's first request, the recovery or self-test fault.c asks for.
 * The mode is chosen here, so that every mode passes the same admission.
 */
int rdrand_source_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                       const char *request)
{
    struct rdrand_ticket t;
    int reason = RDRAND_R_OK;
    char what[96];
    enum rdrand_admit admit = rdrand_fault_admit(prov, &t, request, len);

    switch (admit) { /* unreachable: rdrand_fault_admit gives one of the 4 */
    case RDRAND_ADMIT_REFUSED:
        return 0;
    case RDRAND_ADMIT_RECOVER:
        reason = rdrand_source_recover();
        break;
    case RDRAND_ADMIT_RETEST:
        reason = rdrand_source_selftest();
        break;
    case RDRAND_ADMIT_SERVE:
        if (!rdrand_thread_health.warm) /* the thread's first request */
            reason = rdrand_source_selftest();
        break;
    }
    if (reason == RDRAND_R_OK && t.admit != RDRAND_ADMIT_SERVE
        && !rdrand_fault_answered(prov, &t, request, len))
        return 0;
    if (reason == RDRAND_R_OK)
        reason =
            prov->config.mix == RDRAND_MIX_OS
                ? rdrand_mix_fill(prov, out, len, rdrand_source_words, request)
                : rdrand_source_words(prov, out, len);
    if (reason == RDRAND_R_OK)
        return 1;
    /* The OS's failure is mix.c's to report: it says nothing of RDRAND. */
    if (reason == RDRAND_R_OS_ENTROPY_FAILED)
        return 0;
    snprintf(what, sizeof(what),
             "%s of %zu bytes failed closed: nothing was delivered", request,
             len);
    rdrand_fault_report(prov, reason, what);
    return 0;
}

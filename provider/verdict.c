/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's verdict.  A fault is a fact about the CPU, not about the
 * provider instance, the library context or the thread that met it, so
 * it is decided here, once for the process, and every request of every
 * instance asks here once (one relaxed load, which it needed anyway for
 * the trip count).
 *
 * Intermittent or permanent.  A trip on a working CPU is rare (each
 * window of 512 words trips some test with probability 2^-37.7,
 * health.c), so it is answered by a recovery (source.c: the self-test
 * and 16 fresh windows judged one by one and as a whole) before anything
 * is served again.  One recovery that passes is not enough evidence
 * against a defect that keeps tripping: a statistical test passes a
 * persistent defect with some probability per window, and the review of
 * issue 19 saw a biased bit served again after a lucky recovery.  So a
 * second trip within RDRAND_VERDICT_HORIZON_WORDS words of the previous
 * one (the failed recovery of a persistent defect is such a trip) makes
 * the verdict permanent: no instance serves again in this process, and
 * every later load sees it.  A false permanent verdict on a working CPU
 * needs a clean trip followed within the horizon by another clean trip
 * (2^11 windows * 2^-37.7 = 2^-26.7) or by a failed clean recovery (at
 * most 64 threads * 2^-33.6 = 2^-27.6): <= 2^-26.1 per clean trip, so
 * 2^-63.8 per window drawn (docs/health-tests.md, "Intermittent and
 * permanent").
 *
 * Under CoCo rules (a detected guest, or coco = require in any instance)
 * there is no recovery: the first trip is permanent, as the kernel would
 * have panicked, and a trip met before the rules began is too.  Once set
 * by any instance, the rules are the process's.
 *
 * The module stays mapped (-z nodelete): the verdict outlives an unload
 * and binds a later load.  Only a new process clears it.
 */
#include "verdict.h"

#include <stdatomic.h>

#include "counters.h"
#include "errors.h"
#include "status.h"

/*
 * The verdict and why it is permanent (the first reason is kept; set
 * before the flag) live in the status block, where readers outside the
 * process find them (include/rdrand_status.h).
 */
#define rdrand_verdict (rdrand_status_block.verdict)
#define rdrand_verdict_why (rdrand_status_block.verdict_reason)
_Static_assert(RDRAND_VERDICT_PERMANENT == RDRAND_STATUS_VERDICT_PERMANENT
                   && RDRAND_VERDICT_ENFORCED == RDRAND_STATUS_VERDICT_ENFORCED,
               "verdict.h and rdrand_status.h give the flags alike");
/* The last trip: its reason, and the words drawn in the process then. */
static _Atomic int rdrand_verdict_last_reason;
static _Atomic uint64_t rdrand_verdict_last_words;
/*
 * The trips a passed recovery has answered.  Not per thread: once one
 * recovery after the last trip has passed, the CPU has been shown to
 * work again, and a thread needs no more than its own self-test.  (Per
 * thread, a server starting a thread per request would pay a recovery
 * on every request after one trip, for the life of the process.)
 */
static _Atomic uint64_t rdrand_verdict_answered;

uint64_t rdrand_verdict_load(void)
{
    return atomic_load_explicit(&rdrand_verdict, memory_order_relaxed);
}

static void rdrand_verdict_set_permanent(int reason)
{
    int none = RDRAND_R_OK;

    atomic_compare_exchange_strong(&rdrand_verdict_why, &none, reason);
    atomic_fetch_or(&rdrand_verdict, RDRAND_VERDICT_PERMANENT);
}

int rdrand_verdict_trip(int reason)
{
    uint64_t now = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
    uint64_t last = atomic_exchange(&rdrand_verdict_last_words, now);
    uint64_t v;

    atomic_store(&rdrand_verdict_last_reason, reason);
    v = atomic_fetch_add(&rdrand_verdict, 1);
    /*
     * A later reader of the counter may have swapped first (last > now):
     * the two trips were concurrent, within any horizon.
     */
    if ((v & RDRAND_VERDICT_ENFORCED)
        || (RDRAND_VERDICT_TRIPS(v) > 0
            && (now < last || now - last < RDRAND_VERDICT_HORIZON_WORDS)))
        rdrand_verdict_set_permanent(reason);
    return (rdrand_verdict_load() & RDRAND_VERDICT_PERMANENT) != 0;
}

/*
 * A trip that raced with this sees either the flag (its fetch_add came
 * after) or is counted in v (before), its reason stored first.
 */
void rdrand_verdict_enforce(void)
{
    uint64_t v = atomic_fetch_or(&rdrand_verdict, RDRAND_VERDICT_ENFORCED);

    if (RDRAND_VERDICT_TRIPS(v) > 0 && !(v & RDRAND_VERDICT_PERMANENT))
        rdrand_verdict_set_permanent(atomic_load(&rdrand_verdict_last_reason));
}

int rdrand_verdict_unanswered(uint64_t v)
{
    return RDRAND_VERDICT_TRIPS(v)
           != atomic_load_explicit(&rdrand_verdict_answered,
                                   memory_order_relaxed);
}

/* Only forwards: a slower recovery of older trips does not undo a newer. */
void rdrand_verdict_answer(uint64_t v)
{
    uint64_t seen = atomic_load(&rdrand_verdict_answered);

    while (seen < RDRAND_VERDICT_TRIPS(v)
           && !atomic_compare_exchange_weak(&rdrand_verdict_answered, &seen,
                                            RDRAND_VERDICT_TRIPS(v)))
        ;
}

int rdrand_verdict_reason(void)
{
    if (!(atomic_load(&rdrand_verdict) & RDRAND_VERDICT_PERMANENT))
        return RDRAND_R_OK;
    return atomic_load(&rdrand_verdict_why);
}

const char *rdrand_verdict_text(uint64_t v)
{
    if (v & RDRAND_VERDICT_PERMANENT)
        return "permanent";
    return RDRAND_VERDICT_TRIPS(v) > 0 ? "intermittent" : "ok";
}

void rdrand_verdict_forget(void)
{
    atomic_store(&rdrand_verdict, 0);
    atomic_store(&rdrand_verdict_why, RDRAND_R_OK);
    atomic_store(&rdrand_verdict_last_reason, RDRAND_R_OK);
    atomic_store(&rdrand_verdict_last_words, 0);
    atomic_store(&rdrand_verdict_answered, 0);
}

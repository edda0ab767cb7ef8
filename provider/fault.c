/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fault state's one owner.  Three arguments live here, each once:
 * the verdict (a fault is a fact about the CPU, decided for the process),
 * the latch and its recovery (what a request must do after a fault), and
 * the refusal (what nothing clears).  docs/health-tests.md derives the
 * numbers ("Intermittent and permanent").
 */
#include "fault.h"

#include <pthread.h>
#include <stdio.h>

#include "coco.h"
#include "copies.h"
#include "counters.h"
#include "errors.h"
#include "prov.h"
#include "status_block.h"

/*
 * The verdict.  A trip on a working CPU is rare (each window of 512
 * words trips some test with probability 2^-37.7, docs/health-tests.md),
 * so it is answered by a recovery (source.c: the self-test and 16 fresh
 * windows judged one by one and as a whole) before anything is served
 * again.
 * One recovery that passes is not enough against a defect that keeps
 * tripping (a statistical test passes a persistent defect with some
 * probability per window), so a second trip within
 * RDRAND_VERDICT_HORIZON_WORDS words of the previous one (a failed
 * recovery is such a trip) makes the verdict permanent: no instance
 * serves again in this process, and every later load sees it.  A false
 * permanent verdict on a working CPU costs <= 2^-26.1 per clean trip,
 * 2^-63.8 per window drawn.
 *
 * A repeat is a proof, not a statistic: a word equal to one drawn before
 * (the repetition, short-cycle and long-cycle tests compare whole words,
 * through 64-bit keyed digests) comes from a working RDRAND with
 * probability about n^2 / 2^65 over the n words remembered, and from a
 * cycling or stuck one every time.  A recovery would only let a cycle
 * long enough to pass 8192 fresh words serve again.  So such a trip is
 * permanent at once (errors.c marks its reasons RDRAND_REASON_PROOF); the
 * false-positive rate is derived in docs/health-tests.md ("A repeat is a
 * proof").
 *
 * Under CoCo rules (a detected guest, or coco = require in any instance)
 * there is no recovery: the first trip is permanent, as the kernel would
 * have panicked, and a trip met before the rules began is too.
 *
 * The verdict and why it is permanent (the first reason is kept; set
 * before the flag) live in the status block, where readers outside the
 * process find them (include/rdrand_status.h).  The module stays mapped
 * (-z nodelete): the verdict outlives an unload and binds a later load.
 * Only a new process clears it.
 *
 * Whatever the copy of the module (the same build from another path,
 * with a block of its own: copies.c says why, and finds the home block,
 * the first copy's), the verdict's two flags, permanent (with its
 * reason) and CoCo rules, are the process's: set in this copy's block
 * and the home block, read in both, and a flag found in the home block
 * taken into this copy's as if it had set it.  The trips and the
 * horizon stay each copy's (each counts its own words).
 */
#define rdrand_verdict (rdrand_status_block.verdict)
#define rdrand_verdict_why (rdrand_status_block.verdict_reason)
#define RDRAND_VERDICT_FLAGS                                                   \
    (RDRAND_VERDICT_PERMANENT | RDRAND_VERDICT_ENFORCED)
/* The home block: this copy's own until its first load finds another. */
static struct rdrand_status *_Atomic rdrand_verdict_home = &rdrand_status_block;
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

void rdrand_fault_join_copies(void)
{
    atomic_store_explicit(&rdrand_verdict_home, rdrand_copies_home(),
                          memory_order_relaxed);
}

static uint64_t rdrand_verdict_mirror(struct rdrand_status *home);

/*
 * Two relaxed loads where this copy is the home (alone, or the first
 * copy), three in a later copy; the mirror once per flag and copy.
 */
uint64_t rdrand_fault_verdict(void)
{
    struct rdrand_status *home =
        atomic_load_explicit(&rdrand_verdict_home, memory_order_relaxed);
    uint64_t shared =
        atomic_load_explicit(&home->verdict, memory_order_relaxed);
    uint64_t v;

    if (home == &rdrand_status_block)
        return shared;
    v = atomic_load_explicit(&rdrand_verdict, memory_order_relaxed);
    return (shared & RDRAND_VERDICT_FLAGS & ~v) ? rdrand_verdict_mirror(home)
                                                : v;
}

/*
 * The verdict first (it takes a flag another copy set), then the flag
 * in this copy's block again, ordered: the reason was set before it.
 */
int rdrand_fault_permanent(void)
{
    uint64_t own;

    if (!(rdrand_fault_verdict() & RDRAND_VERDICT_PERMANENT))
        return RDRAND_R_OK;
    /*
     * rdrand_fault_verdict() returned this copy's flags (the mirror sets
     * them there first) and no flag is ever cleared: the flag is there,
     * and this load is for the order alone.
     */
    own = atomic_load(&rdrand_verdict);
    if (!(own & RDRAND_VERDICT_PERMANENT)) /* unreachable: never cleared */
        return RDRAND_R_OK;
    return atomic_load(&rdrand_verdict_why);
}

/* In this copy's block and the home block, the reason before the flag. */
static void rdrand_verdict_set_permanent(int reason)
{
    struct rdrand_status *home = atomic_load(&rdrand_verdict_home);
    int none = RDRAND_R_OK;

    atomic_compare_exchange_strong(&rdrand_verdict_why, &none, reason);
    atomic_fetch_or(&rdrand_verdict, RDRAND_VERDICT_PERMANENT);
    if (home == &rdrand_status_block)
        return;
    none = RDRAND_R_OK;
    atomic_compare_exchange_strong(&home->verdict_reason, &none, reason);
    atomic_fetch_or(&home->verdict, RDRAND_VERDICT_PERMANENT);
}

/* Count a trip; 1 when the verdict is (now) permanent. */
static int rdrand_verdict_trip(int reason)
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
        || rdrand_reason_has(reason, RDRAND_REASON_PROOF)
        || (RDRAND_VERDICT_TRIPS(v) > 0
            && (now < last || now - last < RDRAND_VERDICT_HORIZON_WORDS)))
        rdrand_verdict_set_permanent(reason);
    return (rdrand_fault_verdict() & RDRAND_VERDICT_PERMANENT) != 0;
}

/*
 * CoCo rules, in this copy's block and the home block.  A trip that
 * raced with this sees either the flag (its fetch_add came after) or is
 * counted in v (before), its reason stored first; a trip of another copy
 * is its own to judge when that copy finds the flag (the mirror).
 */
static void rdrand_verdict_enforce(void)
{
    struct rdrand_status *home = atomic_load(&rdrand_verdict_home);
    uint64_t v = atomic_fetch_or(&rdrand_verdict, RDRAND_VERDICT_ENFORCED);

    if (home != &rdrand_status_block)
        atomic_fetch_or(&home->verdict, RDRAND_VERDICT_ENFORCED);
    if (RDRAND_VERDICT_TRIPS(v) > 0 && !(v & RDRAND_VERDICT_PERMANENT))
        rdrand_verdict_set_permanent(atomic_load(&rdrand_verdict_last_reason));
}

/*
 * Flags another copy set in the home block: this copy's, as if its own
 * (read again, ordered: a flag's reason was set before it).
 */
static uint64_t rdrand_verdict_mirror(struct rdrand_status *home)
{
    uint64_t flags = atomic_load_explicit(&home->verdict, memory_order_acquire)
                     & RDRAND_VERDICT_FLAGS & ~atomic_load(&rdrand_verdict);

    if (flags & RDRAND_VERDICT_ENFORCED)
        rdrand_verdict_enforce();
    if (flags & RDRAND_VERDICT_PERMANENT)
        rdrand_verdict_set_permanent(atomic_load(&home->verdict_reason));
    return atomic_load(&rdrand_verdict);
}

void rdrand_fault_enforce_coco(struct rdrand_prov *prov)
{
    rdrand_verdict_enforce();
    prov->fault.coco_enforced = 1;
}

int rdrand_fault_coco_enforced(const struct rdrand_prov *prov)
{
    return prov->fault.coco_enforced
           || (rdrand_fault_verdict() & RDRAND_VERDICT_ENFORCED) != 0;
}

static int rdrand_verdict_unanswered(uint64_t v)
{
    return RDRAND_VERDICT_TRIPS(v)
           != atomic_load_explicit(&rdrand_verdict_answered,
                                   memory_order_relaxed);
}

/*
 * Only forwards: a slower recovery of older trips does not undo a newer.
 * The exchange fails only when another recovery's answer lands between
 * the load and it (seen is then that answer): no code runs there that a
 * test could act in, and x86's lock cmpxchg never fails spuriously.
 */
static void rdrand_verdict_answer(uint64_t v)
{
    uint64_t seen = atomic_load(&rdrand_verdict_answered);

    while (seen < RDRAND_VERDICT_TRIPS(v)) {
        int won = atomic_compare_exchange_weak(&rdrand_verdict_answered, &seen,
                                               RDRAND_VERDICT_TRIPS(v));

        if (won) /* unreachable: not won only on a lost race (above) */
            break;
    }
}

/*
 * One warning per process, outside the error queue, because an error
 * queue nobody prints is easy to miss and a broken CPU RNG is worth a
 * line in the system log.
 *
 * A fork()ed child is a process of its own: a pre-fork server's worker
 * meeting its first fault must say so even if its parent already did.
 * So every child starts unwarned: a pthread_atfork handler clears the
 * flag, registered once when the module is mapped and never dropped
 * (the module is linked -z nodelete and is never unmapped).  It costs a
 * store per fork() and nothing at the fault, where a getpid() compare
 * would have cost a system call at the moment a sandboxed process fails
 * (test_seccomp allows only write there) and would mistake a child
 * given a dead ancestor's recycled pid for the ancestor.  A child made
 * without fork() (raw clone(2), glibc's _Fork) runs no handler and keeps
 * its parent's flag; its faults still reach the error queue.
 */
static atomic_flag rdrand_warned = ATOMIC_FLAG_INIT;
/*
 * The second kind of line: the process's verdict became permanent.  A
 * first trip that a recovery may answer warns once; the verdict that no
 * request will be served again until a restart is worth a line of its
 * own, also once per process (docs/operations.md).
 */
static atomic_flag rdrand_warned_permanent = ATOMIC_FLAG_INIT;

/* The third: the OS's entropy failed (mix = os), not the hardware. */
static atomic_flag rdrand_warned_os = ATOMIC_FLAG_INIT;

static void rdrand_warned_child(void)
{
    atomic_flag_clear(&rdrand_warned_os);
    atomic_flag_clear(&rdrand_warned);
    atomic_flag_clear(&rdrand_warned_permanent);
}

__attribute__((constructor)) static void rdrand_warned_at_load(void)
{
    /* Fails only out of memory: then children stay silent, as before. */
    (void)pthread_atfork(NULL, NULL, rdrand_warned_child);
}

static int rdrand_warn_once_claim(const struct rdrand_prov *prov)
{
    return prov->config.warn != RDRAND_WARN_NONE
           && !atomic_flag_test_and_set(&rdrand_warned);
}

static void rdrand_warn_once(const struct rdrand_prov *prov, int reason)
{
    if (rdrand_warn_once_claim(prov))
        rdrand_warn(prov, "%s", rdrand_reason_text(reason));
}

static int rdrand_warn_permanent_claim(const struct rdrand_prov *prov)
{
    /* A permanent verdict says the fault too: no separate first line. */
    (void)rdrand_warn_once_claim(prov);
    return prov->config.warn != RDRAND_WARN_NONE
           && !atomic_flag_test_and_set(&rdrand_warned_permanent);
}

void rdrand_fault_warn_os(const struct rdrand_prov *prov, const char *detail)
{
    if (prov->config.warn != RDRAND_WARN_NONE
        && !atomic_flag_test_and_set(&rdrand_warned_os))
        rdrand_warn(prov, "%s: %s",
                    rdrand_reason_text(RDRAND_R_OS_ENTROPY_FAILED), detail);
}

static void rdrand_warn_permanent(const struct rdrand_prov *prov, int reason)
{
    if (rdrand_warn_permanent_claim(prov))
        rdrand_warn(prov,
                    "%s; the process's verdict on RDRAND is now permanent "
                    "(health-verdict): no request is served again in this "
                    "process; restart it after checking the CPU, its "
                    "microcode and firmware",
                    rdrand_reason_text(reason));
}

/* The instance's latch. */
#define RDRAND_LATCH_REASON(latch) ((int)((latch)&0xffffffffu))

/*
 * Latch reason (an earlier one is kept unless replace); bump the
 * generation.  The exchange fails only when another request latches or
 * clears the instance between the load and it: no code runs there that
 * a test could act in, and x86's lock cmpxchg never fails spuriously.
 */
static void rdrand_latch(struct rdrand_prov *prov, int reason, int replace)
{
    uint64_t latch = atomic_load(&prov->fault.latch);
    int won;

    do {
        int kept = RDRAND_LATCH_REASON(latch);
        uint64_t next;

        if (replace || kept == RDRAND_R_OK)
            kept = reason;
        next = ((latch >> 32) + 1) << 32 | (uint32_t)kept;
        won = atomic_compare_exchange_weak(&prov->fault.latch, &latch, next);
    } while (!won); /* unreachable: not won only on a lost race (above) */
}

int rdrand_fault_latched(const struct rdrand_prov *prov)
{
    int latched = RDRAND_LATCH_REASON(atomic_load(&prov->fault.latch));

    return latched != RDRAND_R_OK ? latched : rdrand_fault_permanent();
}

int rdrand_fault_coco_failed(struct rdrand_prov *prov, int cause)
{
    int coco_reason = rdrand_coco_reason(cause);

    prov->fault.coco_cause = cause;
    rdrand_latch(prov, coco_reason, 1);
    (void)rdrand_warn_permanent_claim(prov);
    return coco_reason;
}

void rdrand_fault_record(struct rdrand_prov *prov, int reason, const char *what)
{
    int permanent;

    /* The first fault is the one worth reporting: it is kept. */
    rdrand_latch(prov, reason, 0);
    permanent = rdrand_verdict_trip(reason);
    if (rdrand_reason_has(reason, RDRAND_REASON_HEALTH))
        rdrand_counter_add(RDRAND_CTR_HEALTH_FAILURES, 1);
    if (what != NULL)
        RDRAND_RAISE(prov, reason, "%s%s", what,
                     permanent ? "; the process's verdict on RDRAND is now "
                                 "permanent (health-verdict): no request "
                                 "is served again in this process"
                               : "");
}

void rdrand_fault_warn(const struct rdrand_prov *prov, int reason)
{
    if (rdrand_fault_verdict() & RDRAND_VERDICT_PERMANENT)
        rdrand_warn_permanent(prov, reason);
    else
        rdrand_warn_once(prov, reason);
}

int rdrand_fault_warn_claim(const struct rdrand_prov *prov)
{
    return (rdrand_fault_verdict() & RDRAND_VERDICT_PERMANENT) != 0
               ? rdrand_warn_permanent_claim(prov)
               : rdrand_warn_once_claim(prov);
}

void rdrand_fault_report(struct rdrand_prov *prov, int reason, const char *what)
{
    rdrand_fault_record(prov, reason, what);
    rdrand_fault_warn(prov, reason);
}

/*
 * The refusal.  A value the operator wrote and we refused must not leave
 * the provider running on defaults the operator did not choose, and
 * refusing to load would be skipped silently by OpenSSL
 * (RDRAND_TEXT_UNSERVED, errors.h), or on 4.0 fail without our reason.  So the
 * instance loads and every request fails, naming what to fix.  The same
 * holds for a mode the operator chose that cannot run here (reduce512
 * without AES-NI or without its key): none was not asked for.
 */
void rdrand_fault_refuse(struct rdrand_prov *prov, int reason, const char *why)
{
    struct rdrand_fault *f = &prov->fault;

    if (f->refused != 0)
        return; /* the first is the one the operator fixes first */
    f->refused = reason;
    snprintf(f->why, sizeof(f->why), "%s", why);
    snprintf(f->state, sizeof(f->state), "%s: %s", rdrand_reason_text(reason),
             why);
}

int rdrand_fault_refused(const struct rdrand_prov *prov)
{
    return prov->fault.refused;
}

static void rdrand_fault_raise_refusal(const struct rdrand_prov *prov,
                                       const char *request, size_t len)
{
    const struct rdrand_fault *f = &prov->fault;

    if (!rdrand_reason_has(f->refused, RDRAND_REASON_CONFIG))
        RDRAND_RAISE(prov, f->refused, "%s of %zu bytes refused: %s", request,
                     len, f->why); /* it says what to do */
    else
        RDRAND_RAISE(prov, f->refused,
                     "%s of %zu bytes refused: %s; fix this provider's "
                     "section in openssl.cnf and restart the process",
                     request, len, f->why);
}

/* Why a permanent verdict or a CoCo latch fails this request. */
static void rdrand_fault_raise_permanent(const struct rdrand_prov *prov,
                                         uint64_t v, int latched,
                                         const char *request, size_t len)
{
    int cause = prov->fault.coco_cause;

    if (cause != RDRAND_R_OK || (v & RDRAND_VERDICT_ENFORCED))
        RDRAND_RAISE(prov, latched,
                     "latched in a confidential guest (%s%s)%s%s: restart "
                     "the process on working hardware",
                     rdrand_coco_platform_name(prov->coco.platform),
                     prov->fault.coco_enforced
                         ? ""
                         : "; CoCo rules set by another instance in this "
                           "process",
                     cause ? " since: " : "",
                     cause ? rdrand_reason_text(cause) : "");
    else if (rdrand_reason_has(latched, RDRAND_REASON_PROOF))
        RDRAND_RAISE(prov, latched,
                     "%s of %zu bytes failed: RDRAND repeated a 64-bit word "
                     "drawn before in this process or a process it shares a "
                     "parent with, which a working RDRAND all but never "
                     "does; the process will not use it again: restart it "
                     "after checking the CPU, microcode and firmware",
                     request, len);
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
 * Admission, in the order nothing can undo: a refusal; a permanent
 * verdict or a CoCo latch (no recovery under CoCo rules); no RDRAND.
 * Then recovery policy: after a trip (anywhere in the process) that no
 * passed recovery has answered yet, the request recovers first (the
 * self-test and the long sample, none of it delivered); an instance
 * latched by a trip another thread's recovery answered self-tests.  A
 * second trip soon after, which is what a failed recovery is, makes the
 * verdict permanent.  One relaxed load of the verdict per request (it
 * gives the trip count too), one of the instance's latch.
 */
enum rdrand_admit rdrand_fault_admit(struct rdrand_prov *prov,
                                     struct rdrand_ticket *t,
                                     const char *request, size_t len)
{
    int latched;

    t->latch = atomic_load(&prov->fault.latch);
    t->verdict = rdrand_fault_verdict();
    latched = RDRAND_LATCH_REASON(t->latch);
    t->admit = RDRAND_ADMIT_REFUSED;
    if (prov->fault.refused != 0) {
        rdrand_fault_raise_refusal(prov, request, len);
        /* A fork()ed child refused here owes the verdict's line too. */
        if (t->verdict & RDRAND_VERDICT_PERMANENT)
            rdrand_warn_permanent(prov, rdrand_fault_permanent());
        return t->admit;
    }
    if ((t->verdict & RDRAND_VERDICT_PERMANENT)
        || (latched != RDRAND_R_OK && prov->fault.coco_cause != RDRAND_R_OK)) {
        if (latched == RDRAND_R_OK)
            latched = rdrand_fault_permanent();
        rdrand_fault_raise_permanent(prov, t->verdict, latched, request, len);
        /* A fork()ed child inherits the verdict, not the parent's warning. */
        rdrand_warn_permanent(prov, latched);
        return t->admit;
    }
    if (!prov->rdrand_available) {
        RDRAND_RAISE(prov, RDRAND_R_NO_RDRAND, "%s of %zu bytes failed",
                     request, len);
        return t->admit;
    }
    if (rdrand_verdict_unanswered(t->verdict))
        t->admit = RDRAND_ADMIT_RECOVER;
    else if (latched != RDRAND_R_OK)
        t->admit = RDRAND_ADMIT_RETEST;
    else
        t->admit = RDRAND_ADMIT_SERVE;
    return t->admit;
}

/* Clear the latch only if no fault came while the test or recovery ran. */
int rdrand_fault_answered(struct rdrand_prov *prov,
                          const struct rdrand_ticket *t, const char *request,
                          size_t len)
{
    uint64_t latch = t->latch;
    int latched;

    if (t->admit == RDRAND_ADMIT_RECOVER)
        rdrand_verdict_answer(t->verdict); /* a later trip is not answered */
    if (RDRAND_LATCH_REASON(latch) == RDRAND_R_OK
        || atomic_compare_exchange_strong(&prov->fault.latch, &latch,
                                          latch >> 32 << 32)
        || (latched = RDRAND_LATCH_REASON(latch)) == RDRAND_R_OK)
        return 1;
    RDRAND_RAISE(prov, latched,
                 "%s of %zu bytes failed: another request met this fault "
                 "during recovery",
                 request, len);
    return 0;
}

int rdrand_fault_usable(const struct rdrand_prov *prov)
{
    return prov->fault.refused == 0 && prov->rdrand_available
           && rdrand_fault_latched(prov) == RDRAND_R_OK;
}

const char *rdrand_fault_state_text(const struct rdrand_prov *prov)
{
    int fault = rdrand_fault_latched(prov);

    if (prov->fault.refused != 0)
        return prov->fault.state;
    if (fault != RDRAND_R_OK)
        return rdrand_reason_text(fault);
    return prov->rdrand_available ? "ok"
                                  : rdrand_reason_text(RDRAND_R_NO_RDRAND);
}

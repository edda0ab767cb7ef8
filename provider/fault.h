/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fault state: one owner (fault.c) for whether a request may be
 * served.  Per instance: a refusal (a section the provider could not
 * accept, or a mode that cannot run on this machine) and the latch (a
 * fault this instance met).  Per process: the verdict on the CPU (trips,
 * permanent, CoCo rules; the last two whatever the copy of the module,
 * fault.c).  Detectors (the draw, the health tests, the CoCo check, the
 * conditioning key) report here and keep nothing of it; every request
 * asks here once (rdrand_fault_admit).
 */
#ifndef RDRAND_FAULT_H
#define RDRAND_FAULT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "status_block.h" /* the verdict word is the block's */

struct rdrand_prov;

/* An instance's part of the fault state (in struct rdrand_prov). */
struct rdrand_fault {
    /*
     * The latch: the reason (RDRAND_R_OK if none) in the low 32 bits, and
     * in the high 32 a generation every fault bumps, so that a recovery
     * clears only the fault its self-test answered, never a later one.
     */
    _Atomic uint64_t latch;
    /*
     * A refusal: reason 0, or what every request raises for the life of
     * the instance; why says what failed and what the operator can do,
     * state is what health-state shows.  Written at load only.
     */
    int refused;
    char why[224];
    char state[320];
    int coco_enforced; /* this instance enforces CoCo rules */
    int coco_cause;    /* why its CoCo check at load failed, or 0 */
};

/*
 * A snapshot of the process's verdict, two relaxed loads (three in a
 * second copy of the module in the process, fault.c): the count of
 * trips so far in the low bits, and two flags: never served again, CoCo
 * rules apply.  The status block's word (include/rdrand_status.h).
 */
#define RDRAND_VERDICT_PERMANENT ((uint64_t)1 << 63)
#define RDRAND_VERDICT_ENFORCED ((uint64_t)1 << 62)
#define RDRAND_VERDICT_TRIPS(v) ((v) & (RDRAND_VERDICT_ENFORCED - 1))
/*
 * Written out, not the block's own macros: those are UINT64_C(1) << 63,
 * whose glibc expansion "1UL" clang-tidy's literal-suffix check refuses
 * in every file that uses it.  The same bits, asserted.
 */
_Static_assert(RDRAND_VERDICT_PERMANENT == RDRAND_STATUS_VERDICT_PERMANENT
                   && RDRAND_VERDICT_ENFORCED == RDRAND_STATUS_VERDICT_ENFORCED,
               "fault.h and rdrand_status.h give the flags alike");

/*
 * Two trips less than this many RDRAND words apart (drawn anywhere in
 * the process) make the verdict permanent: fault.c derives it.
 */
#define RDRAND_VERDICT_HORIZON_WORDS ((uint64_t)1 << 20)

uint64_t rdrand_fault_verdict(void);
/*
 * Bind this copy of the module to the process's verdict, wherever
 * another copy of the same build keeps it (copies.c): the first step of
 * every load, before anything reads or sets the verdict.
 */
void rdrand_fault_join_copies(void);
/* The reason of the permanent verdict, or RDRAND_R_OK. */
int rdrand_fault_permanent(void);

/* What a request must do before it draws (rdrand_fault_admit). */
enum rdrand_admit {
    RDRAND_ADMIT_REFUSED, /* refused; the reason is on the error queue */
    RDRAND_ADMIT_SERVE,   /* draw (after the thread's first self-test) */
    RDRAND_ADMIT_RETEST,  /* a self-test first: the instance is latched */
    RDRAND_ADMIT_RECOVER  /* the recovery first: an unanswered trip */
};
struct rdrand_ticket {
    enum rdrand_admit admit;
    uint64_t latch, verdict; /* what admit saw */
};

/*
 * The one question of every request (request and len name it in
 * errors).  After a RETEST or RECOVER that passed, the request is served
 * only if rdrand_fault_answered returns 1.
 */
enum rdrand_admit rdrand_fault_admit(struct rdrand_prov *prov,
                                     struct rdrand_ticket *t,
                                     const char *request, size_t len);
int rdrand_fault_answered(struct rdrand_prov *prov,
                          const struct rdrand_ticket *t, const char *request,
                          size_t len);

/*
 * A hardware fault (a CF=0, a health-test trip, a failed self-test or
 * recovery): latch the instance (the first fault is kept), count a trip
 * for the process, raise it with detail what (unless what is NULL:
 * nobody is waiting for an answer), and warn once.
 */
void rdrand_fault_report(struct rdrand_prov *prov, int reason,
                         const char *what);
/*
 * The same without the warning, for the load, which writes one line for
 * all it met (rdrand_fault_warn, or a line of its own that claims it).
 */
void rdrand_fault_record(struct rdrand_prov *prov, int reason,
                         const char *what);
/*
 * The process's warning for reason: the one-shot line, or, once the
 * verdict is permanent, the permanent one.  The claim takes it without
 * writing, for a caller whose own line names the fault: 1 if it did.
 */
void rdrand_fault_warn(const struct rdrand_prov *prov, int reason);
int rdrand_fault_warn_claim(const struct rdrand_prov *prov);

/*
 * Refuse every request of this instance for its life (the first refusal
 * is kept): a configuration value refused, or a mode that cannot run on
 * this machine.  reason is what requests raise; why says what failed and
 * what the operator can do.  Nothing clears it: a passing self-test says
 * the CPU is fine, not the configuration.
 */
void rdrand_fault_refuse(struct rdrand_prov *prov, int reason, const char *why);
/* The refusal's reason, or 0. */
int rdrand_fault_refused(const struct rdrand_prov *prov);

/*
 * mix = os: the OS's entropy could not be read.  Its own line, once per
 * process (a fork()ed child is a new one): not the hardware's one
 * warning, which a later RDRAND fault must still get.
 */
void rdrand_fault_warn_os(const struct rdrand_prov *prov, const char *detail);

/*
 * CoCo rules: from now on they are the process's (a detected guest, or
 * coco = require in any instance), and every trip, past or future, is
 * permanent.  There is no way back.
 */
void rdrand_fault_enforce_coco(struct rdrand_prov *prov);
/* Whether CoCo rules apply to this instance (its own, or the process's). */
int rdrand_fault_coco_enforced(const struct rdrand_prov *prov);
/*
 * The CoCo check at load failed with cause: latch the instance with the
 * CoCo reason that says so, over any fault that caused it, and return it.
 * It takes the process's permanent warning: the caller's own line names
 * the fault and what follows.
 */
int rdrand_fault_coco_failed(struct rdrand_prov *prov, int cause);

/* The reason requests fail with now (a latch, or the verdict), or OK. */
int rdrand_fault_latched(const struct rdrand_prov *prov);
/* 1 when a request would be attempted (no refusal, RDRAND, no fault). */
int rdrand_fault_usable(const struct rdrand_prov *prov);
/* RDRAND_PARAM_HEALTH_STATE: "ok", or why requests fail (static text). */
const char *rdrand_fault_state_text(const struct rdrand_prov *prov);

#endif

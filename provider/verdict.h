/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's verdict on the CPU's random number generator: one owner
 * (verdict.c) for what every provider instance, every library context
 * and every later load of this module in the process must obey.
 */
#ifndef RDRAND_VERDICT_H
#define RDRAND_VERDICT_H

#include <stdint.h>

/*
 * A snapshot of the verdict, one relaxed load (rdrand_verdict_load): the
 * count of trips so far in the low bits, and two flags.
 */
#define RDRAND_VERDICT_PERMANENT ((uint64_t)1 << 63) /* never served again */
#define RDRAND_VERDICT_ENFORCED ((uint64_t)1 << 62)  /* CoCo rules apply */
#define RDRAND_VERDICT_TRIPS(v) ((v) & (RDRAND_VERDICT_ENFORCED - 1))

/*
 * Two trips less than this many RDRAND words apart (drawn anywhere in
 * the process) make the verdict permanent: verdict.c derives it.
 */
#define RDRAND_VERDICT_HORIZON_WORDS ((uint64_t)1 << 20)

uint64_t rdrand_verdict_load(void);

/*
 * A fault anywhere in the process (a CF=0, a health-test trip, a failed
 * self-test or recovery): count it and decide whether it is permanent.
 * Returns 1 when the verdict is (now) permanent.
 */
int rdrand_verdict_trip(int reason);

/*
 * From now on the process is under CoCo rules (a detected guest, or
 * coco = require in any instance): every trip, past or future, is
 * permanent.  There is no way back.
 */
void rdrand_verdict_enforce(void);

/*
 * Whether a trip counted in v has not been answered yet by a recovery
 * that passed (any thread's): then the next request recovers first.
 */
int rdrand_verdict_unanswered(uint64_t v);

/* A recovery that began after the trips counted in v passed. */
void rdrand_verdict_answer(uint64_t v);

/* The reason of the permanent verdict, or RDRAND_R_OK. */
int rdrand_verdict_reason(void);

/* "ok", "intermittent" (trips, none permanent) or "permanent". */
const char *rdrand_verdict_text(uint64_t v);

/* Tests only (rdrand_source_forget): a new simulated CPU, no verdict. */
void rdrand_verdict_forget(void);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tables of words seen (seen.h): their layout and the step that
 * looks a word up and enters it, inline for the draw loop.  SSE2: only
 * the files that step words include it (health_step.h, seen.c, tests).
 */
#ifndef RDRAND_SEEN_TABLE_H
#define RDRAND_SEEN_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <emmintrin.h>

#include "seen.h"

/*
 * Recent words: 2^12 buckets of 15 entries, a word's digest's top 12
 * bits picking its bucket, each bucket a FIFO (its own count says which
 * entry the next word overwrites).  A word leaves when 15 later words
 * have fallen into its bucket: within 4,096 words with probability
 * 2^-41.6 (docs/health-tests.md).
 */
#define RDRAND_RECENT_BUCKETS_LOG2 12
#define RDRAND_RECENT_BUCKETS ((size_t)1 << RDRAND_RECENT_BUCKETS_LOG2)
#define RDRAND_RECENT_WAYS 15
/*
 * Long cycles: distinguished points (van Oorschot and Wiener), the words
 * whose digest's low 8 bits are 0 (one in 256), in 2^16 direct-mapped
 * slots picked by the digest's bits 8 to 23.
 */
#define RDRAND_POINT_MASK ((uint64_t)0xff)
#define RDRAND_POINT_SLOTS_LOG2 16
#define RDRAND_POINT_SLOTS ((size_t)1 << RDRAND_POINT_SLOTS_LOG2)

/*
 * The recent buckets as two arrays, so that a word reads one line and
 * writes two: each bucket's 15 tags (the top 16 bits of its entries'
 * checks) and, in the 16th place, its count (which entry the next word
 * overwrites), 32 bytes, two buckets a line, compared at once; the
 * checks themselves (two lines a bucket, the 16th entry unused) are read
 * only when a tag matches (15 * 2^-16 per word) and written one per
 * word.  The count lives beside the tags, not in an array of its own:
 * 4 KiB of counts were 64 lines that every word wrote, so two threads
 * drawing at once bounced them between their cores (2-3 times slower a
 * word, review of round four, 3).
 *
 * What a table holds for a word is its check, not its digest d: the
 * entries of a bucket share d's top 12 bits, and those of a point slot
 * 24 of d's bits, so comparing d would leave 52 or 40 bits to collide.
 * The check is the other half of the digest's output (health.h: AES-MMO's
 * high 64 bits, or without AES-NI the low half of the product d is
 * folded from): two distinct words have equal checks with probability
 * 2^-64, whatever bits of d they share.  An empty entry holds 0, which a
 * word's check is with probability 2^-64.
 *
 * The tags are plain memory, read 16 at once and written 2 bytes at a
 * time while other threads and processes do the same: a tag read torn
 * or stale only decides whether the checks are read, and a match is
 * always an equal check, read whole (relaxed atomics).  So ThreadSanitizer
 * is told not to watch the two functions that touch tags (their races
 * are this design, not a bug), and every other access stays atomic.
 */
#define RDRAND_RECENT_COUNT RDRAND_RECENT_WAYS /* the count's place */
struct rdrand_seen {
    _Alignas(64) uint16_t tag[RDRAND_RECENT_BUCKETS][RDRAND_RECENT_WAYS + 1];
    _Alignas(64) _Atomic uint64_t
        check[RDRAND_RECENT_BUCKETS][RDRAND_RECENT_WAYS + 1];
    _Alignas(64) _Atomic uint64_t point[RDRAND_POINT_SLOTS];
};
_Static_assert(RDRAND_RECENT_WAYS + 1 == 16, "two SSE registers of tags");

/*
 * Only where ThreadSanitizer is on: elsewhere the attribute would keep
 * GCC from inlining the two functions into the draw loop (the sanitize
 * attributes differ), and their calls would save the loop's registers,
 * a delivered word among them, below the frame the draw wipes.
 */
#if defined(__SANITIZE_THREAD__)
#define RDRAND_SEEN_RACY __attribute__((no_sanitize("thread")))
#else
#define RDRAND_SEEN_RACY
#endif

/* Whether check c's tag is one of bucket b's 15, all compared at once. */
RDRAND_SEEN_RACY static inline int rdrand_seen_tagged(struct rdrand_seen *t,
                                                      size_t b, uint64_t c)
{
    const __m128i *tag = (const __m128i *)t->tag[b];
    __m128i want = _mm_set1_epi16((short)(c >> 48));

    /* the count's two bytes (30 and 31) are no tag */
    return (_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi16(_mm_load_si128(tag), want),
                             _mm_cmpeq_epi16(_mm_load_si128(tag + 1), want)))
            & 0x3fffffff)
           != 0;
}

/* Whether check c is in bucket b: after a tag matched, every entry. */
static inline unsigned int rdrand_seen_holds(struct rdrand_seen *t, size_t b,
                                             uint64_t c)
{
    unsigned int hit = 0;

    for (int i = 0; i < RDRAND_RECENT_WAYS; i++)
        hit |= atomic_load_explicit(&t->check[b][i], memory_order_relaxed) == c;
    return hit;
}

/*
 * Check c into bucket b's oldest entry, its tag beside it, the count on.
 * A count out of range (another process of the tree may write anything
 * there) starts the bucket over, never writes outside it.
 */
RDRAND_SEEN_RACY static inline void rdrand_seen_enter(struct rdrand_seen *t,
                                                      size_t b, uint64_t c)
{
    unsigned int i = t->tag[b][RDRAND_RECENT_COUNT];

    i = i < RDRAND_RECENT_WAYS ? i : 0;
    atomic_store_explicit(&t->check[b][i], c, memory_order_relaxed);
    t->tag[b][i] = (uint16_t)(c >> 48);
    t->tag[b][RDRAND_RECENT_COUNT] =
        (uint16_t)(i + 1 < RDRAND_RECENT_WAYS ? i + 1 : 0);
}

/* What rdrand_seen_step found a word in. */
#define RDRAND_SEEN_RECENT 1u
#define RDRAND_SEEN_POINT 2u

/*
 * A word just drawn, by its digest d and check c (health.h computes both
 * under the process's key): where the tables hold it already
 * (RDRAND_SEEN_* bits: the word was drawn before, by any thread or
 * process of the tree, and is still remembered), else 0; then it is
 * entered: into its recent bucket, and into its point slot if it is a
 * distinguished point.  Relaxed atomics: plain loads and stores on
 * x86-64, no lock prefix; two processes entering into one bucket at once
 * may lose an entry (or its tag), and a match is only ever an equal
 * check: a race loses entries, never invents a match.
 */
static inline unsigned int rdrand_seen_step(struct rdrand_seen *t, uint64_t d,
                                            uint64_t c)
{
    size_t b = d >> (64 - RDRAND_RECENT_BUCKETS_LOG2);
    unsigned int seen = 0;

    if (rdrand_seen_tagged(t, b, c))
        seen = rdrand_seen_holds(t, b, c) * RDRAND_SEEN_RECENT;
    rdrand_seen_enter(t, b, c);
    if ((d & RDRAND_POINT_MASK) == 0) {
        _Atomic uint64_t *slot = &t->point[d >> 8 & (RDRAND_POINT_SLOTS - 1)];

        seen |= (atomic_load_explicit(slot, memory_order_relaxed) == c)
                * RDRAND_SEEN_POINT;
        atomic_store_explicit(slot, c, memory_order_relaxed);
    }
    return seen;
}

/*
 * The draw loop's words waiting for their seen step.  A word's two lines
 * are asked for (for writing) when it is drawn, and used RDRAND_SEEN_LAG
 * words later, by when they have come: where another thread or process
 * of the tree draws at the same time they are often in its core's cache,
 * and a lookup at once waited for two transfers a word (two drawers 114-
 * 122 ns a word each, 50-62 with the lag: docs/performance.md).  The
 * price: a repeat is found up to RDRAND_SEEN_LAG words after it was
 * drawn, so a request it fails has executed up to that many words more,
 * never delivered (draw.c).
 */
#define RDRAND_SEEN_LAG 4
struct rdrand_seen_lag {
    uint64_t d[RDRAND_SEEN_LAG], check[RDRAND_SEEN_LAG];
    size_t in, out; /* words put in; words stepped (in - out wait) */
};

/*
 * A word (its digest d and check c) in, its lines asked for; out: the
 * seen step of the word RDRAND_SEEN_LAG before it, if one waits that
 * long (0 else).
 */
static inline unsigned int rdrand_seen_lagged(struct rdrand_seen *t,
                                              struct rdrand_seen_lag *q,
                                              uint64_t d, uint64_t c)
{
    size_t slot = q->in % RDRAND_SEEN_LAG,
           b = d >> (64 - RDRAND_RECENT_BUCKETS_LOG2);
    unsigned int seen = 0;

    if (q->in - q->out == RDRAND_SEEN_LAG) {
        seen = rdrand_seen_step(t, q->d[slot], q->check[slot]);
        q->out++;
    }
    __builtin_prefetch(t->tag[b], 1, 3);
    __builtin_prefetch(&t->check[b][0], 1, 3);
    q->d[slot] = d;
    q->check[slot] = c;
    q->in++;
    return seen;
}

/*
 * The seen steps of the words still waiting, in order, up to the first
 * found in the tables: its RDRAND_SEEN_* bits (q->out is then just past
 * it), else 0.
 */
static inline unsigned int rdrand_seen_drain(struct rdrand_seen *t,
                                             struct rdrand_seen_lag *q)
{
    unsigned int seen = 0;

    while (seen == 0 && q->out < q->in) {
        size_t slot = q->out++ % RDRAND_SEEN_LAG;

        seen = rdrand_seen_step(t, q->d[slot], q->check[slot]);
    }
    return seen;
}

#endif

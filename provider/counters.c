/* SPDX-License-Identifier: Apache-2.0 */
#include "counters.h"

#include <stdatomic.h>
#include <stddef.h>

#include <openssl/crypto.h>

#include "status_block.h"

/*
 * Each thread adds to a slot of its own: a relaxed load and store, no
 * locked instruction on the seed path (a locked add costs ~5 ns next to
 * a 35 ns RDRAND, three or four of them per request; docs/performance.md).
 * One writer per slot at a time, so every slot is exact; a reader sums
 * every slot and the shared fallback with relaxed loads, so each counter
 * is exact and monotonic, as it was with one atomic per counter (each
 * slot only grows, and a reader's second read sees no slot smaller than
 * its first).  No ordering between counters is promised.
 *
 * A thread claims a free slot at its first count (one compare-exchange,
 * once per thread) and frees it at exit (a thread-local key's
 * destructor, as source.c wipes the test state).  The next thread to
 * claim it carries on from its value (the release at exit and the
 * acquire at the claim order the two owners' accesses): nothing is
 * folded anywhere, so no count is ever seen twice or missed.  A thread
 * finding every slot taken, or no destructor to free one, counts in the
 * shared atomics instead.  A child of fork() inherits every slot: those
 * of the parent's other threads stay taken in it (their counts remain
 * summed), the forking thread keeps its own.
 */
#define RDRAND_CTR_SLOTS RDRAND_STATUS_SLOTS

/*
 * The slots and the shared fallback are the status block's (status_block.c):
 * readers outside the process sum them as rdrand_counter_get does.
 */
#define rdrand_ctr_slots (rdrand_status_block.slots)
#define rdrand_ctr_shared (rdrand_status_block.counters_shared)

#define RDRAND_CTR_SAME(c) ((int)RDRAND_CTR_##c == (int)RDRAND_STATUS_##c)
_Static_assert(RDRAND_CTR_SAME(RDRAND_WORDS) && RDRAND_CTR_SAME(RDRAND_FAILURES)
                   && RDRAND_CTR_SAME(SEED_REQUESTS)
                   && RDRAND_CTR_SAME(SEED_FAILURES)
                   && RDRAND_CTR_SAME(SEED_BYTES)
                   && RDRAND_CTR_SAME(HEALTH_FAILURES)
                   && RDRAND_CTR_SAME(GENERATE_REQUESTS)
                   && RDRAND_CTR_SAME(GENERATE_FAILURES)
                   && RDRAND_CTR_SAME(CONDITIONED_BLOCKS)
                   && RDRAND_CTR_SAME(OS_BYTES) && RDRAND_CTR_SAME(OS_FAILURES)
                   && RDRAND_CTR_SAME(DEFAULT_SEED_REQUESTS)
                   && (int)RDRAND_CTR_COUNT == (int)RDRAND_STATUS_COUNTERS,
               "counters.h and rdrand_status.h number the counters alike");

/* The thread's slot; tried: a claim was attempted (it is not retried). */
static _Thread_local struct rdrand_status_slot *rdrand_ctr_mine;
static _Thread_local int rdrand_ctr_tried;

static CRYPTO_ONCE rdrand_ctr_once = CRYPTO_ONCE_STATIC_INIT;
static CRYPTO_THREAD_LOCAL rdrand_ctr_key;
static int rdrand_ctr_key_ok;

static void rdrand_ctr_release(void *slot)
{
    struct rdrand_status_slot *s = slot;

    rdrand_ctr_mine = NULL;
    atomic_store_explicit(&s->taken, 0, memory_order_release);
}

static void rdrand_ctr_key_init(void)
{
    rdrand_ctr_key_ok =
        CRYPTO_THREAD_init_local(&rdrand_ctr_key, rdrand_ctr_release);
}

/* Once per thread: a free slot, registered to be freed at thread exit. */
static struct rdrand_status_slot *rdrand_ctr_claim(void)
{
    rdrand_ctr_tried = 1;
    if (!CRYPTO_THREAD_run_once(&rdrand_ctr_once, rdrand_ctr_key_init)
        || !rdrand_ctr_key_ok)
        return NULL;
    for (size_t i = 0; i < RDRAND_CTR_SLOTS; i++) {
        struct rdrand_status_slot *s = &rdrand_ctr_slots[i];
        int free_slot = 0, won;

        if (atomic_load_explicit(&s->taken, memory_order_relaxed) != 0)
            continue;
        /* Lost only to a thread that claimed the slot since the load. */
        won = atomic_compare_exchange_strong_explicit(&s->taken, &free_slot, 1,
                                                      memory_order_acquire,
                                                      memory_order_relaxed);
        if (!won) /* unreachable: a race in a window no test can time */
            continue;
        if (!CRYPTO_THREAD_set_local(&rdrand_ctr_key, s)) {
            atomic_store_explicit(&s->taken, 0, memory_order_release);
            return NULL;
        }
        return rdrand_ctr_mine = s;
    }
    return NULL;
}

void rdrand_counter_add(enum rdrand_counter c, uint64_t n)
{
    struct rdrand_status_slot *s = rdrand_ctr_mine;

    if (s == NULL && !rdrand_ctr_tried)
        s = rdrand_ctr_claim();
    if (s == NULL) {
        atomic_fetch_add_explicit(&rdrand_ctr_shared[c], n,
                                  memory_order_relaxed);
        return;
    }
    /* Only this thread writes the slot: no read-modify-write needed. */
    atomic_store_explicit(
        &s->v[c], atomic_load_explicit(&s->v[c], memory_order_relaxed) + n,
        memory_order_relaxed);
}

uint64_t rdrand_counter_get(enum rdrand_counter c)
{
    uint64_t sum =
        atomic_load_explicit(&rdrand_ctr_shared[c], memory_order_relaxed);

    for (size_t i = 0; i < RDRAND_CTR_SLOTS; i++)
        sum += atomic_load_explicit(&rdrand_ctr_slots[i].v[c],
                                    memory_order_relaxed);
    return sum;
}

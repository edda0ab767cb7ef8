/* SPDX-License-Identifier: Apache-2.0 */
#include "samples.h"

#include <pthread.h>
#include <sys/mman.h>

#include "seams.h"

/*
 * Why a process-wide table.  A thread's own tests see 32 words back
 * (health.h), and a self-test's samples looked across threads only when
 * a thread self-tests, which a healthy long-lived thread never does
 * again: a cycle of 33 or more words drawn on one context was served for
 * ever.  So every word a thread draws is digested under the process's
 * key, and one in four (chosen by the digest, so a repeated word is
 * sampled exactly when its first occurrence was) is looked up in and
 * entered into this direct-mapped table, by all threads.  A cycle, or a
 * word repeated at any lag, trips the test at the first sampled repeat
 * whose first occurrence is still in the table, whatever the request
 * pattern: the table outlives threads, contexts and instances.
 *
 * Why one in four.  Every word in the table made two threads drawing at
 * once slower than one (each store wrote a line the other core held:
 * 2.3-2.5 million 48-byte generates a second on two threads against
 * 2.4-2.9 on one); one in four brought back the scaling of before
 * (docs/performance.md) and costs 51 instructions per 48-byte seed
 * instead of 109.  Its price: a cycle none of whose p words is sampled,
 * probability (3/4)^p under this process's key: 7.5e-5 for p = 33,
 * 3.2e-13 for p = 100 (the short-cycle test covers p <= 32, and a short
 * cycle skews the bit proportion test's counts).
 *
 * Reach, bound and false positives (a cycle of up to ~630,000 words is
 * caught; with probability 1 - 2^-20 at most 49 to 85 repeated words
 * pass for periods up to 32,768; 2^-63 per sampled word on a working
 * CPU) are derived once, in docs/health-tests.md ("Continuous tests", its
 * "Long cycle" item).  The
 * request holding the caught word fails, and the verdict (fault.c) keeps
 * a cycle out: its recovery's words repeat too and trip again.  The
 * check stored is a second digest of the word, not the one that chose
 * the slot, whose bits the slot's entries share (samples.h).
 *
 * Cost.  A test and a branch per word; for one in four a load, a compare
 * and a store in the shared table (docs/performance.md).  The table
 * holds digests of delivered words, 128 KiB of them, for as long as they
 * stay (docs/health-tests.md, "What stays in memory").
 */
/*
 * Why shared with fork()ed descendants.  A server that forks a child per
 * request shares its CPU with the children: each child draws the CPU's
 * next words, and a table of its own (a copy of its parent's at the fork)
 * never sees what its siblings drew, so a cycle no single child sees
 * twice was served child after child (issue 31).  So the table lives in
 * a MAP_SHARED anonymous mapping, made once, in the call that sets the
 * key (the process's first passing self-test: a server's load, before it
 * forks): every process forked from it afterwards, and their children,
 * meet in the one table, as threads do.  A process that loads the module
 * after forking, or execs, has its own.  Excluded from core dumps
 * (MADV_DONTDUMP): it holds digests of delivered words.  Should the
 * mapping fail (a seccomp filter refusing mmap), the table is the
 * process's own, as before: forked children are then not compared with
 * one another (docs/health-tests.md).
 *
 * The key is not in it: it stays in this process's memory, copied into
 * each child at the fork.  Any process of the tree can write the shared
 * page, a child that dropped its privileges too; a key read back from
 * there could be chosen by it (~0 makes every digest 0, and every new
 * thread trips a permanent repeat; {1, 1} makes the digests the words
 * themselves, readable across the tree).  What a process can do to the
 * table is blind the test (overwrite entries), never a false match: it
 * cannot know the words the others will draw.
 */
static struct rdrand_samples rdrand_samples_own;
static struct rdrand_samples *rdrand_samples_table = &rdrand_samples_own;
static pthread_once_t rdrand_samples_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t rdrand_process_key[2];

static void rdrand_samples_map(void)
{
    void *p = mmap(NULL, sizeof(struct rdrand_samples), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return;
    (void)madvise(p, sizeof(struct rdrand_samples), MADV_DONTDUMP);
    rdrand_samples_table = p;
}

/* The key half i: candidate if it is the first, else the first's. */
static uint64_t rdrand_samples_key_half(int i, uint64_t candidate)
{
    uint64_t expected = 0;

    /*
     * The top bit set: never 0 (unset) nor 1, so no key makes a fold the
     * identity (k | 1 == 1), whatever words a CPU crafts.
     */
    candidate |= (uint64_t)1 << 63;
    /* Nor ~0 (k | 1 == ~0): a fold by ~0 maps every nonzero word to ~0. */
    if ((candidate | 1) == ~(uint64_t)0)
        candidate ^= 2;
    if (atomic_compare_exchange_strong_explicit(
            &rdrand_process_key[i], &expected, candidate, memory_order_relaxed,
            memory_order_relaxed))
        return candidate;
    return expected;
}

/* Two words folded into one: not an XOR, which two equal words make 0. */
static uint64_t rdrand_samples_mix(uint64_t a, uint64_t b)
{
    unsigned __int128 p = (unsigned __int128)a * (b | 1);

    return (uint64_t)(p >> 64) ^ (uint64_t)p ^ b;
}

/*
 * Only from a sample that passed the sample rules (the caller's check):
 * 64 distinct words, every bit varying.  An XOR of two words was the key
 * before, set before the sample was judged: a CPU that repeats a word at
 * the sample's ends gave the key {1, 1}, under which the digest is the
 * word itself, and the table and every history held delivered words in
 * plain (review of round three, D2).
 */
struct rdrand_samples *rdrand_samples_process(uint64_t key[2],
                                              const uint64_t *words, size_t n)
{
    pthread_once(&rdrand_samples_once, rdrand_samples_map);
    key[0] = rdrand_samples_key_half(
        0, rdrand_samples_mix(words[0], words[n - 1]) ^ words[n / 2]);
    key[1] = rdrand_samples_key_half(
        1, rdrand_samples_mix(words[1], words[n - 2]) ^ words[n / 2 + 1]);
    return rdrand_samples_table;
}

void rdrand_samples_forget(void)
{
    for (size_t i = 0; i < RDRAND_SAMPLE_SLOTS; i++)
        atomic_store_explicit(&rdrand_samples_table->slot[i], 0,
                              memory_order_relaxed);
    atomic_store_explicit(&rdrand_process_key[0], 0, memory_order_relaxed);
    atomic_store_explicit(&rdrand_process_key[1], 0, memory_order_relaxed);
}

/* SPDX-License-Identifier: Apache-2.0 */
#include "seen.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "aes.h"
#include "health_state.h"
#include "seen_table.h"
#include "sha256.h"

/*
 * Why every word, and why shared.  A thread's own tests once remembered
 * its last 32 words, and a process-wide table one word in four: a
 * constant every 64th or 1,000th word was caught only when that table
 * happened to sample it, and a cycle of more than ~630,000 words, or one
 * drawn by several threads, or by forked children each drawing a few
 * words, was served (issue 31's review).  A repeated 64-bit word is a
 * proof of a defect, not a statistic (fault.c), so every word is now
 * compared with the tree's recent words exactly, and long cycles are
 * caught through distinguished points:
 *  - the recent buckets hold every word until 15 later words have fallen
 *    into its bucket: a repeat within 4,096 words of the tree (any
 *    thread, any process) is caught at its second occurrence except with
 *    probability 2^-41.6 (8,192 words: 2^-27.9);
 *  - one word in 256 (a distinguished point, chosen by the keyed digest,
 *    so a repeated word is one exactly when its first occurrence was)
 *    also goes into a direct-mapped table of 2^16 slots: a cycle of up
 *    to 2^24 words (and beyond, with a longer delay) is caught within one
 *    period plus 9,640 words with probability 1 - 2^-20.
 * The derivations are in docs/health-tests.md ("Recent words and long
 * cycles"); the request holding the repeated word fails, and the verdict
 * (fault.c) is permanent at once.
 *
 * Cost.  Per word: the bucket's 32 bytes of tags and count read and
 * compared, one entry, its tag and the count written, a branch for the
 * point, the lines asked for RDRAND_SEEN_LAG words ahead (seen.h;
 * docs/performance.md).  Memory: 1,152 KiB of address space (128 KiB of
 * tags and counts, 512 KiB of checks, 512 KiB of points;
 * docs/health-tests.md, "What stays in memory"), touched only as words
 * fall into it, once per process tree.
 *
 * Why shared with fork()ed descendants.  A server that forks a child per
 * request shares its CPU with the children: each child draws the CPU's
 * next words, and tables of its own (a copy of its parent's at the fork)
 * never see what its siblings drew, so a cycle no single child sees
 * twice was served child after child (issue 31).  So the tables live in
 * a MAP_SHARED anonymous mapping, made once, at the first load (before
 * a server forks): every process forked from it afterwards, and their
 * children, meet in the one mapping, as threads do.  Only where the
 * digest is AES's, one-way to whoever holds the key (rdrand_seen_map).  A
 * process that loads the module after forking, or execs, has its own.  Excluded
 * from core dumps (MADV_DONTDUMP): it holds checks of delivered words.  Should
 * the mapping fail (a seccomp filter refusing mmap), the tables are the
 * process's own: forked children are then not compared with one another,
 * and the load warns (provider.c).
 *
 * The key is not in it: it stays in this process's memory, copied into
 * each child at the fork.  Any process of the tree can write the shared
 * mapping, a child that dropped its privileges too; a key read back from
 * there could be chosen by it (~0 makes every digest 0, and every new
 * thread trips a permanent repeat; {1, 1} makes the digests the words
 * themselves, readable across the tree).  What a process can do to the
 * tables is blind the tests (overwrite entries), never a false match: it
 * cannot know the words the others will draw.
 */
/*
 * NULL until the load maps the tables, and where no mapping could be
 * made at all.  Not a static table as a fallback: 1,152 KiB of .bss in
 * every process and every copy of the module, which made the module
 * fail to load under a tight RLIMIT_AS (review of round four, 5).
 */
_Static_assert(RDRAND_RECENT_REACH == RDRAND_RECENT_BUCKETS,
               "the reach health_state.h states is the buckets' count");
static struct rdrand_seen *rdrand_seen_table;
static pthread_once_t rdrand_seen_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t rdrand_process_key[2];

/* Why the mapping failed (an errno), 0 if it did not or was not tried. */
static int rdrand_seen_map_errno;
/* Whether the digest is AES's (one-way), decided once, at the mapping. */
static int rdrand_seen_aes;

static uint64_t rdrand_seen_key_half(int i, uint64_t candidate);

/*
 * The mapping, and the key from the OS, both at load: a server that
 * forks after a load whose self-test failed must still give its children
 * one key (each child keyed the tables from its own sample before, and
 * siblings' checks never met: review of round four, 2).
 */
/*
 * The system call itself, not the seam's rdrand_hw_getrandom: the key is
 * no entropy this provider hands out, and a simulated OS (the tests'
 * os-value=) must not see its reads.  GRND_NONBLOCK: a load early in
 * boot takes the sample's key instead of waiting.
 */
static void rdrand_seen_key_from_os(void)
{
    uint64_t k[2];

    if (syscall(SYS_getrandom, k, sizeof(k), 0x0001) == (long)sizeof(k)) {
        (void)rdrand_seen_key_half(0, k[0]);
        (void)rdrand_seen_key_half(1, k[1]);
    }
    OPENSSL_cleanse(k, sizeof(k));
}

/*
 * Shared only where the check is one-way (AES-NI, health.h): any process
 * of the tree holds the key, and the multiplications' checks give a word
 * back in about 2^32 steps (a forked child recovered a sibling's word in
 * 221 s: review of round four).  Without AES-NI the tables are the
 * process's own, as where the shared mapping is refused.
 */
static void rdrand_seen_map(void)
{
    void *p = MAP_FAILED;

    rdrand_seen_key_from_os();
    rdrand_seen_aes = rdrand_aes_present();
    if (rdrand_seen_aes) {
        p = mmap(NULL, sizeof(struct rdrand_seen), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            rdrand_seen_map_errno =
                errno != 0 ? errno : ENOMEM; /* unreachable: mmap sets errno */
    }
    if (p == MAP_FAILED)
        p = mmap(NULL, sizeof(struct rdrand_seen), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    (void)madvise(p, sizeof(struct rdrand_seen), MADV_DONTDUMP);
    rdrand_seen_table = p;
}

enum rdrand_seen_unshared rdrand_seen_share(int *own, int *map_errno)
{
    pthread_once(&rdrand_seen_once, rdrand_seen_map);
    *own = rdrand_seen_table != NULL;
    *map_errno = rdrand_seen_map_errno;
    if (!rdrand_seen_aes)
        return RDRAND_SEEN_NO_AESNI;
    return rdrand_seen_map_errno != 0 ? RDRAND_SEEN_NO_MAPPING
                                      : RDRAND_SEEN_SHARED;
}

/* The key half i: candidate if it is the first, else the first's. */
static uint64_t rdrand_seen_key_half(int i, uint64_t candidate)
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

/*
 * The key is the OS's, set at load.  Only where the OS gave none is it
 * taken from a self-test sample, and only from one that passed the
 * sample rules (sample_ok): 64 distinct words, every bit varying.  An XOR
 * of two words was the key before, set before the sample was judged: a
 * CPU that repeats a word at the sample's ends gave the key {1, 1},
 * under which the digest is the word itself, and the table and every
 * history held delivered words in plain (review of round three, D2).
 * Then a fold of four of the sample's words, which a CPU could still
 * choose (both halves 2^63 + 1 make each multiplication a shift and an
 * XOR, undone at once: review of the round-four fix): now SHA-256 of
 * the whole sample, through which no CPU chooses a key.
 */
static void rdrand_seen_sample_key(const uint64_t *words, size_t n,
                                   uint64_t key[2])
{
    struct rdrand_sha256 c;
    unsigned char d[RDRAND_SHA256_LEN];

    rdrand_sha256_init(&c);
    rdrand_sha256_update(&c, words, n * sizeof(words[0]));
    rdrand_sha256_final(&c, d);
    memcpy(key, d, 2 * sizeof(key[0]));
    OPENSSL_cleanse(d, sizeof(d));
}

int rdrand_seen_process(uint64_t key[2], int *aes, struct rdrand_seen **table,
                        const uint64_t *words, size_t n, int sample_ok)
{
    pthread_once(&rdrand_seen_once, rdrand_seen_map);
    *aes = rdrand_seen_aes;
    *table = rdrand_seen_table;
    if (!sample_ok
        && (atomic_load_explicit(&rdrand_process_key[0], memory_order_relaxed)
                == 0
            || atomic_load_explicit(&rdrand_process_key[1],
                                    memory_order_relaxed)
                   == 0))
        return 0;
    rdrand_seen_sample_key(words, n, key);
    key[0] = rdrand_seen_key_half(0, key[0]);
    key[1] = rdrand_seen_key_half(1, key[1]);
    return 1;
}

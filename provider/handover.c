/* SPDX-License-Identifier: Apache-2.0 */
#include "handover.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/crypto.h>

/*
 * Why.  The bit proportion test and the APT judge a thread's words in
 * windows of 512, the stuck-bit test in blocks of 64, and a thread's
 * state starts empty.  A process that serves each request on a new
 * thread (64 self-test words and a seed or two each) never fills a
 * window: a biased bit, even at 0.75, was served for ever.  So a thread
 * that exits hands its open windows to the next thread that starts, whose
 * self-test and requests continue them: the windows span the process's
 * stream, as the long-cycle table does (seen.c).  The counts do not
 * depend on the order of the words, and every window still holds 512
 * words of the stream, so the cutoffs and false-positive rates of
 * health.c are unchanged.
 *
 * What moves: the 512-word windows (the bit counts and the APT counts
 * and reference, a word never delivered), not the 64-word stuck-bit
 * block, the key, the last digest or the warm flag, which stay the
 * new thread's.  The block is not worth its risk: its two ORs are a word
 * in plain when it holds one (a review found them so in 7 of 3000
 * exits), and a stuck bit is caught in a new thread's 64-word self-test
 * anyway.  The window counts are the residue docs/health-tests.md
 * describes ("What stays in memory"), kept here until the next thread
 * takes them.
 *
 * One set waits at a time, taken and left with a compare-and-swap on
 * its state (empty, busy, full): both run on the cold path (thread exit,
 * a thread's first self-test) and never wait.  A fork() while another
 * thread holds it busy would leave the child's copy busy for ever: the
 * child starts empty (an atfork handler).  A thread that exits while
 * another's windows wait, or while one is being taken, wipes its own
 * (docs/health-tests.md, "What the tests do not see"): threads that run
 * one request each but many at once hand over only some of their words.
 */
enum { RDRAND_HANDOVER_EMPTY, RDRAND_HANDOVER_BUSY, RDRAND_HANDOVER_FULL };

static _Atomic int rdrand_handover_state;
static struct {
    uint64_t apt_reference, apt_counts;
    uint32_t apt_seen;
    uint64_t ones[RDRAND_BIT_PLANES];
} rdrand_handover_windows;

static int rdrand_handover_claim(int from)
{
    int expected = from;

    return atomic_compare_exchange_strong(&rdrand_handover_state, &expected,
                                          RDRAND_HANDOVER_BUSY);
}

static void rdrand_handover_child(void)
{
    OPENSSL_cleanse(&rdrand_handover_windows, sizeof(rdrand_handover_windows));
    atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_EMPTY);
}

__attribute__((constructor)) static void rdrand_handover_at_load(void)
{
    /* Fails only out of memory: then a child may hand over nothing. */
    (void)pthread_atfork(NULL, NULL, rdrand_handover_child);
}

void rdrand_handover_put(const struct rdrand_health *h)
{
    /* Nothing open: a fresh state, or one whose window just closed. */
    if (!h->keyed || h->s.apt_seen == 0)
        return;
    if (!rdrand_handover_claim(RDRAND_HANDOVER_EMPTY))
        return;
    rdrand_handover_windows.apt_reference = h->s.apt_reference;
    rdrand_handover_windows.apt_counts = h->s.apt_counts;
    rdrand_handover_windows.apt_seen = h->s.apt_seen;
    memcpy(rdrand_handover_windows.ones, h->ones, sizeof(h->ones));
    atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_FULL);
}

/* Between requests a group's counts are in the window's: group[] is 0. */
void rdrand_handover_take(struct rdrand_health *h)
{
    if (!rdrand_handover_claim(RDRAND_HANDOVER_FULL))
        return;
    h->s.apt_reference = rdrand_handover_windows.apt_reference;
    h->s.apt_counts = rdrand_handover_windows.apt_counts;
    h->s.apt_seen = rdrand_handover_windows.apt_seen;
    memset(h->s.group, 0, sizeof(h->s.group));
    memcpy(h->ones, rdrand_handover_windows.ones, sizeof(h->ones));
    OPENSSL_cleanse(&rdrand_handover_windows, sizeof(rdrand_handover_windows));
    atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_EMPTY);
}

/* SPDX-License-Identifier: Apache-2.0 */
#include "handover.h"

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
 * stream, as the long-cycle table does (samples.c).  The counts do not
 * depend on the order of the words, and every window still holds 512
 * words of the stream, so the cutoffs and false-positive rates of
 * health.c are unchanged.
 *
 * What moves: the window and block state (counts, the APT reference,
 * a word never delivered, and the block's ORs), not the key, the
 * history, the tags or the warm flag, which stay the new thread's.  The
 * history slot follows the block count; a new thread's history is zeros,
 * so any starting slot keeps the tags in step with it (health.h).
 *
 * One set waits at a time, taken and left with a compare-and-swap on
 * its state (empty, busy, full): both run on the cold path (thread exit,
 * a thread's first self-test) and never wait.  A thread that exits while
 * another's windows wait, or while one is being taken, wipes its own
 * (docs/health-tests.md, "What the tests do not see"): threads that run
 * one request each but many at once hand over only some of their words.
 */
enum { RDRAND_HANDOVER_EMPTY, RDRAND_HANDOVER_BUSY, RDRAND_HANDOVER_FULL };

static _Atomic int rdrand_handover_state;
static struct {
    struct rdrand_health_scalars s;
    uint64_t ones[RDRAND_BIT_PLANES];
} rdrand_handover_windows;

static int rdrand_handover_claim(int from)
{
    int expected = from;

    return atomic_compare_exchange_strong(&rdrand_handover_state, &expected,
                                          RDRAND_HANDOVER_BUSY);
}

void rdrand_handover_put(const struct rdrand_health *h)
{
    /* Nothing open: a fresh state, or one whose window just closed. */
    if (!h->keyed || (h->s.apt_seen == 0 && h->s.block_seen == 0))
        return;
    if (!rdrand_handover_claim(RDRAND_HANDOVER_EMPTY))
        return;
    rdrand_handover_windows.s = h->s;
    memset(rdrand_handover_windows.s.key, 0,
           sizeof(rdrand_handover_windows.s.key));
    memcpy(rdrand_handover_windows.ones, h->ones, sizeof(h->ones));
    atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_FULL);
}

void rdrand_handover_take(struct rdrand_health *h)
{
    uint64_t key[2];

    if (!rdrand_handover_claim(RDRAND_HANDOVER_FULL))
        return;
    memcpy(key, h->s.key, sizeof(key));
    h->s = rdrand_handover_windows.s;
    memcpy(h->s.key, key, sizeof(key));
    memcpy(h->ones, rdrand_handover_windows.ones, sizeof(h->ones));
    OPENSSL_cleanse(&rdrand_handover_windows, sizeof(rdrand_handover_windows));
    OPENSSL_cleanse(key, sizeof(key));
    atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_EMPTY);
}

void rdrand_handover_forget(void)
{
    if (rdrand_handover_claim(RDRAND_HANDOVER_FULL)) {
        OPENSSL_cleanse(&rdrand_handover_windows,
                        sizeof(rdrand_handover_windows));
        atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_EMPTY);
    }
}

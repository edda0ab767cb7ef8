/* SPDX-License-Identifier: Apache-2.0 */
#include "draw.h"

#include <stdint.h>
#include <string.h>

#include <openssl/crypto.h>

#include "counters.h"
#include "errors.h"
#include "hw.h"

/* n <= 8 bytes of word to out: a whole word is one fixed-size store. */
static inline void rdrand_copy_word(unsigned char *out, uint64_t word, size_t n)
{
    if (n == sizeof(word))
        memcpy(out, &word, sizeof(word));
    else
        memcpy(out, &word, n);
}

/* What a request's drawing did: RDRAND executions, and one with CF=0. */
struct rdrand_tally {
    uint64_t executed;
    int failed;
};

/* One RDRAND into *word, tallied. */
static inline int rdrand_next(uint64_t *word, struct rdrand_tally *t)
{
    t->executed++;
    if (rdrand_hw_rdrand64(word))
        return 1;
    t->failed = 1;
    return 0;
}

static int rdrand_draw_unchecked(unsigned char *out, size_t len,
                                 struct rdrand_tally *t)
{
    uint64_t word = 0;
    size_t done = 0;

    while (done < len) {
        size_t n = len - done < sizeof(word) ? len - done : sizeof(word);

        ++t->executed;
        if (!rdrand_hw_rdrand64(&word))
            break;
        rdrand_copy_word(out + done, word, n);
        done += n;
    }
    OPENSSL_cleanse(&word, sizeof(word));
    t->failed = done < len;
    return done == len ? RDRAND_R_OK : RDRAND_R_RDRAND_FAILED;
}

/*
 * Each word's RDRAND is issued before the previous word is judged: an
 * RDRAND waits for the instructions before it, so tests placed after the
 * next RDRAND overlap it instead of adding to it (docs/health-tests.md,
 * "What it costs").  A request that passes executes exactly the RDRANDs
 * it needs: the next one is issued only when another word is needed.  One
 * that trips a test has executed at most one word more, counted (and its
 * CF=0, if any) and never delivered.  A CF=0 stops the drawing at once;
 * the reason is that of the first bad word in stream order.
 *
 * The tests' scalars are copied into a local for the request and written
 * back at the end: out may alias anything, so tests working through h
 * would reload them after every copy; a local can stay in registers.
 * The history (digests, tags) stays in h.
 */
static int rdrand_draw_checked(struct rdrand_health *h, unsigned char *out,
                               size_t len, struct rdrand_tally *t)
{
    struct rdrand_health_scalars c = h->s;
    uint64_t word = 0, next = 0;
    unsigned int verdict = 0;
    size_t done = 0, drawn = 0;
    /* Words to draw: one per 8 bytes, and the references on the way. */
    size_t total = (len + sizeof(word) - 1) / sizeof(word);
    size_t ref = (RDRAND_APT_WINDOW - c.apt_seen) % RDRAND_APT_WINDOW;
    int ok = total > 0 && rdrand_next(&next, t);

    for (; ref < total; ref += RDRAND_APT_WINDOW)
        total++;
    while (ok) {
        /* A word that opens an APT window is its reference: not delivered. */
        int reference = c.apt_seen == 0;

        word = next;
        ok = ++drawn < total && rdrand_next(&next, t);
        if ((verdict = rdrand_health_verdict(h, &c, word)) != 0)
            break;
        if (reference)
            continue;
        if (len - done >= sizeof(word)) {
            memcpy(out + done, &word, sizeof(word));
            done += sizeof(word);
        } else {
            memcpy(out + done, &word, len - done);
            done = len;
        }
    }
    h->s = c;
    /*
     * The current group's counts go into the window's now: right after a
     * group's first word they are that word, and no delivered word is to
     * stay in the state.
     */
    rdrand_health_close_group(h, h->s.group, 0);
    memset(h->s.group, 0, sizeof(h->s.group));
    /*
     * The copy says what h says about the words just delivered: not left
     * on the stack.  Stores the compiler must keep (the barrier reads c),
     * ~20 instructions; OPENSSL_cleanse took ~104 per request.
     */
    c = (struct rdrand_health_scalars){0};
    __asm__ __volatile__("" : : "r"(&c) : "memory");
    OPENSSL_cleanse(&word, sizeof(word));
    OPENSSL_cleanse(&next, sizeof(next));
    if (verdict != 0)
        return rdrand_health_reason(verdict);
    return done == len ? RDRAND_R_OK : RDRAND_R_RDRAND_FAILED;
}

/*
 * One RDRAND per word and no retry.  Intel and AMD state that RDRAND on
 * working hardware does not fail; a word that comes back with CF=0 means
 * the CPU's RNG is defective, and retrying would only hide that (Linux
 * reached the same conclusion in 2024).  So the first bad word, by carry
 * flag or by health test, ends the request: it is judged before anything
 * is copied out, at most the one word already requested after it is
 * drawn (never delivered), everything already written is wiped, and the
 * caller delivers nothing.  A partial seed is never handed out.
 */
int rdrand_draw(struct rdrand_health *h, unsigned char *out, size_t len)
{
    struct rdrand_tally t = {0, 0};
    int reason = h != NULL ? rdrand_draw_checked(h, out, len, &t)
                           : rdrand_draw_unchecked(out, len, &t);

    rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, t.executed);
    if (t.failed)
        rdrand_counter_add(RDRAND_CTR_RDRAND_FAILURES, 1);
    if (reason != RDRAND_R_OK)
        OPENSSL_cleanse(out, len);
    return reason;
}

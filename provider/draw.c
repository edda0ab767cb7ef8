/* SPDX-License-Identifier: Apache-2.0 */
#include "draw.h"

#include <stdint.h>
#include <string.h>

#include <openssl/crypto.h>

#include "counters.h"
#include "errors.h"
#include "health_step.h"
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

__attribute__((noinline)) static int
rdrand_draw_unchecked(unsigned char *out, size_t len, struct rdrand_tally *t)
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
 * CF=0, if any) and never delivered; where the tables of words seen find
 * the bad word, up to RDRAND_SEEN_LAG + 1 more, since a word's lookup
 * waits that many words for its lines (seen_table.h).  A CF=0 stops the drawing
 * at once; the reason is that of the first bad word in stream order
 * (rdrand_draw_trip).
 *
 * The tests are health_step.h's rdrand_health_tests, as in
 * rdrand_health_verdict (the self-test's and the recovery's); only the
 * tables are met later here, for the lag.  test_draw checks that both
 * leave the same state and reason (after a repeat the tables found late,
 * the reason: the verdict is permanent, and the state is not used again).
 * The tests' state lives in locals for the request (out may alias
 * anything, so through h it would be reloaded after every copy, and a
 * copy on the stack would be loaded and stored every word), the APT's in
 * SSE registers, and the tests' findings are judged by one branch per
 * word.  What is left costs by its instruction count more than by its
 * dependencies: docs/performance.md.
 */
/*
 * The verdict of a request whose current word failed a test: the first
 * bad word's, in stream order.  The words still waiting for their seen
 * step are stepped: one found before the current word is the bad one;
 * else the current word is, with its own seen step's finding.
 */
static inline unsigned int rdrand_draw_trip(struct rdrand_health_scalars *c,
                                            struct rdrand_seen *seen,
                                            struct rdrand_seen_lag *lag,
                                            struct rdrand_health_findings *f,
                                            uint64_t word)
{
    if (seen != NULL) {
        unsigned int found = rdrand_seen_drain(seen, lag);

        if (found != 0 && lag->out != lag->in)
            return rdrand_health_seen_verdict(found);
        f->seen |= found;
    }
    return rdrand_health_failed(c, f, word);
}

__attribute__((noinline)) RDRAND_AESNI static int
rdrand_draw_checked(struct rdrand_health *h, unsigned char *out, size_t len,
                    struct rdrand_tally *t)
{
    struct rdrand_health_scalars c = h->s;
    struct rdrand_seen *seen = h->seen;
    struct rdrand_apt apt = rdrand_apt_load(&c);
    /* Delivered words; their frame is wiped after the return (see there). */
    uint64_t fresh = 0, tail = 0, word = 0, next = 0, executed = 0;
    /* The word's check: a local of this frame (the wipe covers it). */
    uint64_t check = 0;
    /* Digests and checks waiting for their seen step (seen_table.h). */
    struct rdrand_seen_lag lag = {{0}, {0}, 0, 0};
    unsigned int verdict = 0;
    size_t done = 0, drawn = 0, whole = len - len % sizeof(word);
    /* Words to draw: one per 8 bytes, and the references on the way. */
    size_t total = (len + sizeof(word) - 1) / sizeof(word);
    size_t ref = (RDRAND_APT_WINDOW - c.apt_seen) % RDRAND_APT_WINDOW;
    int ok = total > 0 && (++executed, rdrand_hw_rdrand64(&fresh));

    next = fresh;

    for (; ref < total; ref += RDRAND_APT_WINDOW)
        total++;
    while (ok) {
        struct rdrand_health_findings f = {0};
        uint64_t d;
        int reference;

        word = next;
        ok = ++drawn < total && (++executed, rdrand_hw_rdrand64(&fresh));
        next = fresh;
        d = rdrand_health_digest(h, c.key, word, &check);
        if (seen != NULL) {
            /*
             * The word waits for its lines (seen_table.h); one that
             * waited long enough is found there: drawn before this one,
             * it is the first bad one.
             */
            unsigned int earlier = rdrand_seen_lagged(seen, &lag, d, check);

            if (earlier != 0) {
                verdict = rdrand_health_seen_verdict(earlier);
                break;
            }
        }
        reference = rdrand_health_tests(h, &c, &apt, word, d, &f);
        if (rdrand_health_any(&f, word)) {
            verdict = rdrand_draw_trip(&c, seen, &lag, &f, word);
            break;
        }
        if (reference)
            continue;
        if (done < whole) {
            memcpy(out + done, &word, sizeof(word));
            done += sizeof(word);
        } else {
            tail = word;
            done = len;
        }
    }
    if (verdict == 0 && seen != NULL) /* the words still waiting */
        verdict = rdrand_health_seen_verdict(rdrand_seen_drain(seen, &lag));
    if (verdict == 0 && done == len && len > whole)
        memcpy(out + whole, &tail, len - whole);
    t->executed = executed;
    /* Not a CF=0 only when the last word executed was needed and judged. */
    t->failed = !ok && drawn < total;
    rdrand_apt_store(&c, &apt);
    h->s = c;
    /*
     * The current group's counts go into the window's now: right after a
     * group's first word they are that word, and no delivered word is to
     * stay in the state.
     */
    rdrand_health_close_group(h, h->s.group, 0);
    memset(h->s.group, 0, sizeof(h->s.group));
    if (verdict != 0)
        return rdrand_health_reason(verdict);
    return done == len ? RDRAND_R_OK : RDRAND_R_RDRAND_FAILED;
}

/*
 * The drawing functions' frames held delivered words: in their variables
 * (the tests' copy c, word, next, the tail) and in whatever registers the
 * compiler spilled there, which no wipe of a named variable reaches (GCC
 * with LTO keeps c on the stack, updated every word, and spills next).
 * So once a draw has returned, this frame, called from the same place,
 * overwrites where its frame was (both drawing functions are noinline
 * for that).  1 KiB covers the largest frame seen: 0x1b0 bytes (GCC,
 * Release), where everything the loop calls is inlined into it.  An
 * unoptimized build calls the digest (health.h) out of line, with the
 * word, below the loop's frame (0x3c0 under ASan): 4 KiB there.  Not
 * instrumented by ASan: its redzones around the array left the top of the old
 * frame unwritten, where an unoptimized draw keeps its locals (a delivered word
 * was found there, 0x98 bytes below the caller's frame).  test_zeroize_module
 * scans the dead stack after requests through the LTO-built module and fails if
 * a delivered word is left.  It costs ~110 instructions, ~4-5 ns, per request
 * (docs/performance.md).
 */
__attribute__((noinline, no_sanitize("address"))) void
rdrand_wipe_draw_frame(void)
{
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
    __m128i area[64];
#else
    __m128i area[256];
#endif
    /*
     * Volatile stores, kept and not turned into a memset call or a rep
     * stos (~70 cycles to start); OPENSSL_cleanse's loop costs ~500
     * instructions for 1 KiB.
     */
    volatile __m128i *p = area;

    for (size_t i = 0; i < sizeof(area) / sizeof(area[0]); i += 4) {
        p[i] = _mm_setzero_si128();
        p[i + 1] = _mm_setzero_si128();
        p[i + 2] = _mm_setzero_si128();
        p[i + 3] = _mm_setzero_si128();
    }
}

/*
 * One RDRAND per word and no retry.  Intel and AMD state that RDRAND on
 * working hardware does not fail; a word that comes back with CF=0 means
 * the CPU's RNG is defective, and retrying would only hide that.  (Linux
 * does not go this far: its no-retry patch was not merged, and mainline
 * still tries each word 10 times; docs/operations.md.)  So the first bad
 * word, by carry flag or by health test, ends the request: whatever was
 * drawn after it (never delivered: one word, or up to RDRAND_SEEN_LAG + 1
 * for a repeat found in the tables) is counted, everything already
 * written is wiped, and the caller delivers nothing.  A partial seed is never
 * handed out.
 */
int rdrand_draw(struct rdrand_health *h, unsigned char *out, size_t len)
{
    struct rdrand_tally t = {0, 0};
    int reason = h != NULL ? rdrand_draw_checked(h, out, len, &t)
                           : rdrand_draw_unchecked(out, len, &t);

    rdrand_wipe_draw_frame();
    /*
     * And the XMM registers, where the loop kept words (the APT's) and
     * digests: a signal frame or a lazy-binding trampoline would copy
     * them to the stack (aes.h).
     */
    RDRAND_CLEAR_XMM();
    rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, t.executed);
    if (t.failed)
        rdrand_counter_add(RDRAND_CTR_RDRAND_FAILURES, 1);
    if (reason != RDRAND_R_OK)
        OPENSSL_cleanse(out, len);
    return reason;
}

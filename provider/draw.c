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

static int rdrand_draw_unchecked(unsigned char *out, size_t len,
                                 uint64_t *executed)
{
    uint64_t word = 0;
    size_t done = 0;

    while (done < len) {
        size_t n = len - done < sizeof(word) ? len - done : sizeof(word);

        ++*executed;
        if (!rdrand_hw_rdrand64(&word))
            break;
        rdrand_copy_word(out + done, word, n);
        done += n;
    }
    OPENSSL_cleanse(&word, sizeof(word));
    return done == len ? RDRAND_R_OK : RDRAND_R_RDRAND_FAILED;
}

/*
 * The tests' scalars are copied into a local for the request and written
 * back at the end: out may alias anything, so tests working through h
 * would reload them after every copy; a local can stay in registers.
 * The history (digests, tags) stays in h.
 */
static int rdrand_draw_checked(struct rdrand_health *h, unsigned char *out,
                               size_t len, uint64_t *executed)
{
    struct rdrand_health_scalars c = h->s;
    uint64_t word = 0;
    unsigned int verdict = 0;
    size_t done = 0;

    while (done < len) {
        /* A word that opens an APT window is its reference: not delivered. */
        int reference = c.apt_seen == 0;

        ++*executed;
        if (!rdrand_hw_rdrand64(&word))
            break;
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
    h->s = c; /* the copy holds nothing h does not: no wipe needed */
    OPENSSL_cleanse(&word, sizeof(word));
    if (verdict != 0)
        return rdrand_health_reason(verdict);
    return done == len ? RDRAND_R_OK : RDRAND_R_RDRAND_FAILED;
}

/*
 * One RDRAND per word and no retry.  Intel and AMD state that RDRAND on
 * working hardware does not fail; a word that comes back with CF=0 means
 * the CPU's RNG is defective, and retrying would only hide that (Linux
 * reached the same conclusion in 2024).  So the first bad word, by carry
 * flag or by health test, ends the request: it is judged before it is
 * copied out, no further instruction is issued, everything already written
 * is wiped, and the caller delivers nothing.  A partial seed is never
 * handed out.
 */
int rdrand_draw(struct rdrand_health *h, unsigned char *out, size_t len)
{
    uint64_t executed = 0;
    int reason = h != NULL ? rdrand_draw_checked(h, out, len, &executed)
                           : rdrand_draw_unchecked(out, len, &executed);

    rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, executed);
    if (reason == RDRAND_R_RDRAND_FAILED)
        rdrand_counter_add(RDRAND_CTR_RDRAND_FAILURES, 1);
    if (reason != RDRAND_R_OK)
        OPENSSL_cleanse(out, len);
    return reason;
}

/* SPDX-License-Identifier: Apache-2.0 */
#include "draw.h"

#include <stdint.h>
#include <string.h>

#include <openssl/crypto.h>

#include "counters.h"
#include "errors.h"
#include "hw.h"

/*
 * One RDRAND per word and no retry.  Intel and AMD state that RDRAND on
 * working hardware does not fail; a word that comes back with CF=0 means
 * the CPU's RNG is defective, and retrying would only hide that (Linux
 * reached the same conclusion in 2024).  So the first bad word, by carry
 * flag or by health test, ends the request: no further instruction is
 * issued, everything already written is wiped, and the caller delivers
 * nothing.  A partial seed is never handed out.
 */
int rdrand_draw(struct rdrand_health *h, unsigned char *out, size_t len)
{
    uint64_t word = 0, executed = 0;
    size_t done = 0;
    int reason = RDRAND_R_OK;

    while (done < len) {
        executed++;
        if (!rdrand_hw_rdrand64(&word)) {
            rdrand_counter_add(RDRAND_CTR_RDRAND_FAILURES, 1);
            reason = RDRAND_R_RDRAND_FAILED;
            break;
        }
        if (h != NULL && (reason = rdrand_health_check_word(h, word)) != 0)
            break;
        size_t n = len - done < sizeof(word) ? len - done : sizeof(word);
        memcpy(out + done, &word, n);
        done += n;
    }
    rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, executed);
    OPENSSL_cleanse(&word, sizeof(word));
    if (reason != RDRAND_R_OK)
        OPENSSL_cleanse(out, len);
    return reason;
}

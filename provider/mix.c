/* SPDX-License-Identifier: Apache-2.0 */
#include "mix.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "counters.h"
#include "draw.h"
#include "errors.h"
#include "fault.h"
#include "hw.h"
#include "sha256.h"

_Static_assert(RDRAND_MIX_BLOCK == RDRAND_SHA256_LEN, "one digest per block");
/* SP 800-90C's full-entropy rule for a vetted function: n_in >= n_out + 64. */
_Static_assert(RDRAND_MIX_RDRAND_BYTES * 8 >= RDRAND_MIX_BLOCK * 8 + 64,
               "RDRAND alone carries every output block's entropy");
_Static_assert(RDRAND_MIX_READ_BLOCKS *RDRAND_MIX_OS_BYTES <= 256,
               "getrandom returns up to 256 bytes whole, uninterrupted");

/* What the operator reads: the errno's name and its usual cause here. */
static const char *rdrand_mix_errno_text(int err)
{
    switch (err) {
    case EAGAIN:
        return "EAGAIN: the kernel's pool is not initialised yet";
    case ENOSYS:
        return "ENOSYS: the kernel or a seccomp filter has no getrandom";
    case EPERM:
        return "EPERM: a seccomp filter forbids getrandom";
    case EINTR:
        return "EINTR: interrupted by a signal";
    default:
        return NULL;
    }
}

/*
 * One read for up to RDRAND_MIX_READ_BLOCKS blocks, never retried: a
 * failed or short read fails the request, as a CF=0 does.
 */
static int rdrand_mix_read_os(struct rdrand_prov *prov, unsigned char *os,
                              size_t n, const char *request, size_t len)
{
    ssize_t got = rdrand_hw_getrandom(os, n);
    int err = errno;
    const char *named = rdrand_mix_errno_text(err);
    char detail[160];

    if (got >= 0 && (size_t)got == n) {
        rdrand_counter_add(RDRAND_CTR_OS_BYTES, n);
        return 1;
    }
    rdrand_counter_add(RDRAND_CTR_OS_FAILURES, 1);
    if (got < 0 && named != NULL)
        snprintf(detail, sizeof(detail), "getrandom of %zu bytes failed (%s)",
                 n, named);
    else if (got < 0)
        snprintf(detail, sizeof(detail),
                 "getrandom of %zu bytes failed (errno %d)", n, err);
    else
        snprintf(detail, sizeof(detail),
                 "getrandom returned %zd of %zu bytes (short read)", got, n);
    RDRAND_RAISE(prov, RDRAND_R_OS_ENTROPY_FAILED,
                 "%s of %zu bytes failed closed: %s; nothing was delivered",
                 request, len, detail);
    rdrand_fault_warn_os(prov, detail);
    return 0;
}

int rdrand_mix_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                    rdrand_mix_words_fn *words, const char *request)
{
    unsigned char rd[RDRAND_MIX_READ_BLOCKS * RDRAND_MIX_RDRAND_BYTES];
    unsigned char os[RDRAND_MIX_READ_BLOCKS * RDRAND_MIX_OS_BYTES];
    unsigned char digest[RDRAND_SHA256_LEN];
    struct rdrand_sha256 sha;
    int reason = RDRAND_R_OK;
    size_t done = 0, most = 0; /* most: the most blocks a read held */

    while (done < len && reason == RDRAND_R_OK) {
        size_t left = len - done;
        size_t blocks = (left + RDRAND_MIX_BLOCK - 1) / RDRAND_MIX_BLOCK;

        if (blocks > RDRAND_MIX_READ_BLOCKS)
            blocks = RDRAND_MIX_READ_BLOCKS;
        if (blocks > most)
            most = blocks;
        if (!rdrand_mix_read_os(prov, os, blocks * RDRAND_MIX_OS_BYTES, request,
                                len)) {
            reason = RDRAND_R_OS_ENTROPY_FAILED;
            break;
        }
        reason = words(prov, rd, blocks * RDRAND_MIX_RDRAND_BYTES);
        for (size_t b = 0; b < blocks && reason == RDRAND_R_OK; b++) {
            size_t n = left < RDRAND_MIX_BLOCK ? left : RDRAND_MIX_BLOCK;

            rdrand_sha256_init(&sha);
            rdrand_sha256_update(&sha, rd + b * RDRAND_MIX_RDRAND_BYTES,
                                 RDRAND_MIX_RDRAND_BYTES);
            rdrand_sha256_update(&sha, os + b * RDRAND_MIX_OS_BYTES,
                                 RDRAND_MIX_OS_BYTES);
            rdrand_sha256_final(&sha, digest); /* wipes sha */
            memcpy(out + done, digest, n);
            done += n;
            left -= n;
        }
    }
    /*
     * SHA-256's working variables (state derived from R and O, one add
     * from a digest) may be spilled in the frames below this one, as the
     * draw's words are: the draw's frame wipe, called from here, covers
     * them (sha256.c's deepest frame is ~350 bytes of its 1 KiB).
     */
    rdrand_wipe_draw_frame();
    /* Only what was written: a 48-byte seed uses 160 of the 640 bytes. */
    OPENSSL_cleanse(rd, most * RDRAND_MIX_RDRAND_BYTES);
    OPENSSL_cleanse(os, most * RDRAND_MIX_OS_BYTES);
    OPENSSL_cleanse(digest, sizeof(digest));
    if (reason != RDRAND_R_OK)
        OPENSSL_cleanse(out, len);
    return reason;
}

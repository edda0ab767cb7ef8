/* SPDX-License-Identifier: Apache-2.0 */
/*
 * No delivered word on the dead stack after a request through the module
 * as it ships: loaded by libcrypto (dlopen), built like rdrand.so (LTO
 * where rdrand.so has it), asked through EVP_RAND_generate.  test_zeroize
 * scans for runs of known words after init; this scans, after every
 * request, for any single copy of any word the request delivered: a
 * spilled register is a copy too.
 * argv[1]: the module's provider name (rdrand-sim; rdrand on a real CPU).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"
#include "stack_scan.h"

#define SCAN_BYTES (24 * 1024) /* deeper than libcrypto's and the module's */

static const char *module = "rdrand-sim";
static unsigned char out[64];

/*
 * Copies, at any byte offset in the dead stack below this frame, of any
 * whole word of out[0..len) (a partial last word is not known whole).
 */
__attribute__((noinline, no_sanitize("address", "thread"))) static int
stack_copies(size_t len)
{
    const volatile unsigned char *sp = __builtin_frame_address(0);
    int copies = 0;

    for (size_t off = 16; off <= SCAN_BYTES; off++) {
        uint64_t v = load64(sp - off);

        for (size_t i = 0; i + 8 <= len; i += 8)
            copies += v == load64(out + i);
    }
    return copies;
}

/* Zero the dead stack the scan looks at, so it starts from nothing. */
__attribute__((noinline)) static void wipe_dead_stack(void)
{
    unsigned char area[SCAN_BYTES + 8 * 1024];

    OPENSSL_cleanse(area, sizeof(area));
}

/*
 * The scanner's positive control: one word left in a dead frame, at its
 * far end (below what the scanner's own frame overwrites).
 */
__attribute__((noinline)) static void leave_word_on_stack(void)
{
    volatile uint64_t frame[64] = {0};

    frame[0] = load64(out);
    (void)frame[0];
}

__attribute__((noinline)) static int generate(EVP_RAND_CTX *ctx, size_t len)
{
    return EVP_RAND_generate(ctx, out, len, 0, 0, NULL, 0);
}

static void test_no_delivered_word_on_stack(void **state)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov;
    EVP_RAND *rand;
    EVP_RAND_CTX *ctx;

    (void)state;
    assert_non_null(libctx);
    assert_non_null(prov = OSSL_PROVIDER_load(libctx, module));
    assert_non_null(rand = EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME, NULL));
    assert_non_null(ctx = EVP_RAND_CTX_new(rand, NULL));
    assert_int_equal(EVP_RAND_instantiate(ctx, 0, 0, NULL, 0, NULL), 1);

    assert_int_equal(generate(ctx, 8), 1);
    wipe_dead_stack();
    leave_word_on_stack();
    assert_true(stack_copies(8) > 0); /* the scan finds a left word */

    /*
     * Every length up to 64 bytes (whole words and a partial last one),
     * several times each: the health tests' state differs from one
     * request to the next (window and group positions).
     */
    for (int rep = 0; rep < 20; rep++)
        for (size_t len = 1; len <= sizeof(out); len++) {
            wipe_dead_stack();
            assert_int_equal(generate(ctx, len), 1);
            if (stack_copies(len) != 0)
                fail_msg("a word of a %zu-byte request (repetition %d) is "
                         "left on the dead stack",
                         len, rep);
        }
    OPENSSL_cleanse(out, sizeof(out));
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_delivered_word_on_stack),
    };

    if (argc > 1)
        module = argv[1];
    return cmocka_run_group_tests(tests, NULL, NULL);
}

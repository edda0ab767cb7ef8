/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The counters are process-wide and only grow, even when OpenSSL unloads
 * the module (dlclose) with its last provider and loads it again.
 * argv[1]: the module's provider name (rdrand or rdrand-sim).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

static const char *module = RDRAND_PROVIDER_NAME;

/* Load the module into a fresh library context, read a counter, unload. */
static uint64_t words_after_fresh_load(void)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov;
    uint64_t words = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(RDRAND_PARAM_RDRAND_WORDS, &words),
                      OSSL_PARAM_END};

    assert_non_null(libctx);
    prov = OSSL_PROVIDER_load(libctx, module);
    assert_non_null(prov);
    assert_int_equal(OSSL_PROVIDER_get_params(prov, p), 1);
    assert_int_equal(OSSL_PROVIDER_unload(prov), 1);
    OSSL_LIB_CTX_free(libctx);
    return words;
}

static void test_counters_survive_reload(void **state)
{
    uint64_t first, second;

    (void)state;
    first = words_after_fresh_load(); /* the load's self-test drew words */
    second = words_after_fresh_load();
    assert_true(first > 0);
    assert_true(second > first);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_survive_reload),
    };

    if (argc > 1)
        module = argv[1];
    return cmocka_run_group_tests(tests, NULL, NULL);
}

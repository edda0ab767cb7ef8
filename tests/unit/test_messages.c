/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every refusal says exactly what was wrong: a zero-length seed request,
 * an integer parameter too small for its value, a parameter of another
 * type altogether.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "rdrand_provider.h"

#include "counters.h"
#include "errors.h"
#include "fake_core.h"
#include "rand.h"

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

static void *provctx;
static const OSSL_DISPATCH *prov;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(fake_provider_init("", NULL, &provctx, &prov), 1);
    fake_core_reset(NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
    return 0;
}

static void assert_last_says(int reason, const char *says)
{
    assert_int_equal(fake_last_reason(), reason);
    if (strstr(fake_last_message(), says) == NULL)
        fail_msg("message \"%s\" does not say \"%s\"", fake_last_message(),
                 says);
}

static void test_zero_length_seed(void **state)
{
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);
    unsigned char *seed = (unsigned char *)1;

    (void)state;
    assert_non_null(ctx);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         ctx, 0, 0, NULL, 0, NULL),
                     1);
    assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                         ctx, &seed, 0, 0, 100, 0, NULL, 0),
                     0);
    assert_null(seed);
    assert_last_says(RDRAND_R_BAD_LENGTH, "zero-length seed");
    assert_null(strstr(fake_last_message(), "does not fit"));
    /* Too long still says so. */
    assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                         ctx, &seed, 256, 0, 16, 0, NULL, 0),
                     0);
    assert_last_says(RDRAND_R_BAD_LENGTH, "does not fit max_len 16");
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
}

static int get_params(OSSL_PARAM *params)
{
    return ((OSSL_FUNC_provider_get_params_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_GET_PARAMS))(provctx, params);
}

static void test_int_too_small_is_out_of_range(void **state)
{
    int32_t small = 0;
    uint32_t usmall = 0;
    uint64_t big = 0;
    OSSL_PARAM as_int32[] = {OSSL_PARAM_int32(RDRAND_PARAM_SEED_BYTES, &small),
                             OSSL_PARAM_END};
    OSSL_PARAM as_uint32[] = {
        OSSL_PARAM_uint32(RDRAND_PARAM_SEED_BYTES, &usmall), OSSL_PARAM_END};
    OSSL_PARAM as_uint64[] = {OSSL_PARAM_uint64(RDRAND_PARAM_SEED_BYTES, &big),
                              OSSL_PARAM_END};

    (void)state;
    /* A counter that fits neither 31 nor 32 bits. */
    rdrand_counter_add(RDRAND_CTR_SEED_BYTES, UINT64_C(1) << 33);
    assert_int_equal(get_params(as_int32), 0);
    assert_last_says(RDRAND_R_BAD_PARAMETER, "out of range");
    assert_last_says(RDRAND_R_BAD_PARAMETER, RDRAND_PARAM_SEED_BYTES);
    assert_last_says(RDRAND_R_BAD_PARAMETER, "4-byte signed integer");
    assert_null(strstr(fake_last_message(), "wrong type"));
    assert_int_equal(get_params(as_uint32), 0);
    assert_last_says(RDRAND_R_BAD_PARAMETER, "4-byte unsigned integer");
    assert_int_equal(get_params(as_uint64), 1);
    assert_true(big >= UINT64_C(1) << 33);
}

static void test_other_type_is_wrong_type(void **state)
{
    char text[32];
    int number = 0;
    OSSL_PARAM counter_as_utf8[] = {
        OSSL_PARAM_utf8_string(RDRAND_PARAM_SEED_REQUESTS, text, sizeof(text)),
        OSSL_PARAM_END};
    OSSL_PARAM platform_as_int[] = {
        OSSL_PARAM_int(RDRAND_PARAM_COCO_PLATFORM, &number), OSSL_PARAM_END};

    (void)state;
    assert_int_equal(get_params(counter_as_utf8), 0);
    assert_last_says(RDRAND_R_BAD_PARAMETER, "wrong type");
    assert_int_equal(get_params(platform_as_int), 0);
    assert_last_says(RDRAND_R_BAD_PARAMETER, "wrong type");
}

/*
 * A size query (NULL data) for a counter or max_request as a double:
 * answered, not a write through NULL (OpenSSL's OSSL_PARAM_set_uint64
 * crashes on it, 3.0 to 3.6 at least; found by tests/fuzz/fuzz_params.c).
 */
static void test_real_size_query(void **state)
{
    OSSL_PARAM counter[] = {{RDRAND_PARAM_SEED_REQUESTS, OSSL_PARAM_REAL, NULL,
                             sizeof(double), OSSL_PARAM_UNMODIFIED},
                            OSSL_PARAM_END};
    OSSL_PARAM max_request[] = {{OSSL_RAND_PARAM_MAX_REQUEST, OSSL_PARAM_REAL,
                                 NULL, sizeof(double), OSSL_PARAM_UNMODIFIED},
                                OSSL_PARAM_END};
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);

    (void)state;
    assert_int_equal(get_params(counter), 1);
    assert_int_equal(counter[0].return_size, sizeof(double));
    assert_non_null(ctx);
    assert_int_equal(RAND_FN(get_ctx_params,
                             OSSL_FUNC_RAND_GET_CTX_PARAMS)(ctx, max_request),
                     1);
    assert_int_equal(max_request[0].return_size, sizeof(double));
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
}

/*
 * A counter asked for as a double: answered while a double holds it
 * exactly, "out of range" (not "wrong type") past 2^53.
 */
static void test_real_past_2_53_is_out_of_range(void **state)
{
    double value = -1;
    OSSL_PARAM as_real[] = {OSSL_PARAM_double(RDRAND_PARAM_SEED_BYTES, &value),
                            OSSL_PARAM_END};

    (void)state;
    assert_int_equal(get_params(as_real), 1);
    assert_true(value >= 0);
    rdrand_counter_add(RDRAND_CTR_SEED_BYTES, UINT64_C(1) << 53);
    assert_int_equal(get_params(as_real), 0);
    assert_last_says(RDRAND_R_BAD_PARAMETER, "out of range");
    assert_last_says(RDRAND_R_BAD_PARAMETER, "2^53");
    assert_last_says(RDRAND_R_BAD_PARAMETER, "OSSL_PARAM_uint64");
    assert_null(strstr(fake_last_message(), "wrong type"));
}

/* A RAND context's parameters say why, as the provider's do. */
static void test_rand_param_wrong_type(void **state)
{
    char text[16];
    OSSL_PARAM state_as_utf8[] = {
        OSSL_PARAM_utf8_string(OSSL_RAND_PARAM_STATE, text, sizeof(text)),
        OSSL_PARAM_END};
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);

    (void)state;
    assert_non_null(ctx);
    assert_int_equal(RAND_FN(get_ctx_params,
                             OSSL_FUNC_RAND_GET_CTX_PARAMS)(ctx, state_as_utf8),
                     0);
    assert_last_says(RDRAND_R_BAD_PARAMETER,
                     "RAND parameter \"state\" has the wrong type");
    assert_last_says(RDRAND_R_BAD_PARAMETER, "EVP_RAND_gettable_ctx_params");
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_zero_length_seed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_int_too_small_is_out_of_range,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_type_is_wrong_type, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_real_size_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real_past_2_53_is_out_of_range,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rand_param_wrong_type, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

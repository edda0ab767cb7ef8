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
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "rdrand_provider.h"

#include "counters.h"
#include "errors.h"
#include "fake_core.h"
#include "params.h"
#include "prov.h"
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

/*
 * Every provider and RAND parameter asked for with a type it cannot be
 * written as: refused, naming the parameter and where its type is listed
 * (a gettable table's lister), nothing written.
 */
static void test_every_parameter_of_the_wrong_type(void **state)
{
    static const char *const provider_ints[] = {
        OSSL_PROV_PARAM_STATUS,      RDRAND_PARAM_RDRAND_AVAILABLE,
        RDRAND_PARAM_COCO_ENFORCED,  RDRAND_PARAM_CPU_FAMILY,
        RDRAND_PARAM_CPU_MODEL,      RDRAND_PARAM_CPU_STEPPING,
        RDRAND_PARAM_COCO_SEED_BITS, RDRAND_PARAM_HEALTH_TRIPS,
    };
    static const char *const rand_ints[] = {OSSL_RAND_PARAM_STRENGTH,
                                            OSSL_RAND_PARAM_MAX_REQUEST};
    char text[32];
    int number = -7;
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);
    OSSL_FUNC_rand_get_ctx_params_fn *get_ctx_params =
        RAND_FN(get_ctx_params, OSSL_FUNC_RAND_GET_CTX_PARAMS);

    (void)state;
    assert_non_null(ctx);
    for (size_t i = 0; i < sizeof(provider_ints) / sizeof(provider_ints[0]);
         i++) {
        OSSL_PARAM as_utf8[] = {
            OSSL_PARAM_utf8_string(provider_ints[i], text, sizeof(text)),
            OSSL_PARAM_END};

        strcpy(text, "untouched");
        assert_int_equal(get_params(as_utf8), 0);
        assert_last_says(RDRAND_R_BAD_PARAMETER, "has the wrong type");
        assert_last_says(RDRAND_R_BAD_PARAMETER, provider_ints[i]);
        assert_last_says(RDRAND_R_BAD_PARAMETER,
                         "OSSL_PROVIDER_gettable_params");
        assert_string_equal(text, "untouched");
    }
    {
        OSSL_PARAM state_as_int[] = {
            OSSL_PARAM_int(RDRAND_PARAM_HEALTH_STATE, &number), OSSL_PARAM_END};

        assert_int_equal(get_params(state_as_int), 0);
        assert_last_says(RDRAND_R_BAD_PARAMETER, "has the wrong type");
        assert_last_says(RDRAND_R_BAD_PARAMETER, RDRAND_PARAM_HEALTH_STATE);
        assert_int_equal(number, -7);
    }
    for (size_t i = 0; i < sizeof(rand_ints) / sizeof(rand_ints[0]); i++) {
        OSSL_PARAM as_utf8[] = {
            OSSL_PARAM_utf8_string(rand_ints[i], text, sizeof(text)),
            OSSL_PARAM_END};

        strcpy(text, "untouched");
        assert_int_equal(get_ctx_params(ctx, as_utf8), 0);
        assert_last_says(RDRAND_R_BAD_PARAMETER, "has the wrong type");
        assert_last_says(RDRAND_R_BAD_PARAMETER, rand_ints[i]);
        assert_last_says(RDRAND_R_BAD_PARAMETER,
                         "EVP_RAND_gettable_ctx_params");
        assert_string_equal(text, "untouched");
    }
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
}

/*
 * An int or unsigned int served, asked for too small: "out of range", and
 * the constructor that fits named for the type served ("int", "uint"),
 * as for the 64-bit counters.
 */
static void test_small_int_and_uint_are_out_of_range(void **state)
{
    float real4 = -1;
    uint8_t u8 = 7;
    OSSL_PARAM status_as_float[] = {
        {OSSL_PROV_PARAM_STATUS, OSSL_PARAM_REAL, &real4, sizeof(real4), 0},
        OSSL_PARAM_END};
    OSSL_PARAM strength_as_u8[] = {{OSSL_RAND_PARAM_STRENGTH,
                                    OSSL_PARAM_UNSIGNED_INTEGER, &u8,
                                    sizeof(u8), 0},
                                   OSSL_PARAM_END};
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);

    (void)state;
    assert_non_null(ctx);
    assert_int_equal(get_params(status_as_float), 0);
    assert_last_says(RDRAND_R_BAD_PARAMETER,
                     "out of range for the 4-byte real");
    assert_last_says(RDRAND_R_BAD_PARAMETER, "ask for it as OSSL_PARAM_int");
    assert_null(strstr(fake_last_message(), "OSSL_PARAM_int64"));
    /* 256 bits does not fit a byte. */
    assert_int_equal(RAND_FN(get_ctx_params, OSSL_FUNC_RAND_GET_CTX_PARAMS)(
                         ctx, strength_as_u8),
                     0);
    assert_last_says(RDRAND_R_BAD_PARAMETER,
                     "out of range for the 1-byte unsigned integer");
    assert_last_says(RDRAND_R_BAD_PARAMETER, "ask for it as OSSL_PARAM_uint");
    assert_null(strstr(fake_last_message(), "OSSL_PARAM_uint64"));
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
}

/*
 * rdrand_bad_param on what no table of the module serves today: an
 * int64 (the constructor named is OSSL_PARAM_int64), and a parameter the
 * gettable table does not list (the wrong type: see the lister).
 */
static void test_bad_param_on_other_tables(void **state)
{
    int32_t small = 0;
    const OSSL_PARAM served[] = {OSSL_PARAM_int64("wide", NULL),
                                 OSSL_PARAM_END};
    const OSSL_PARAM as_int32[] = {OSSL_PARAM_int32("wide", &small),
                                   OSSL_PARAM_END};
    const OSSL_PARAM unlisted[] = {OSSL_PARAM_int32("unlisted", &small),
                                   OSSL_PARAM_END};

    (void)state;
    rdrand_bad_param(provctx, "test parameter", "the lister", served, as_int32);
    assert_last_says(RDRAND_R_BAD_PARAMETER,
                     "test parameter \"wide\" is out of range for the 4-byte "
                     "signed integer asked for: ask for it as "
                     "OSSL_PARAM_int64");
    rdrand_bad_param(provctx, "test parameter", "the lister", served, unlisted);
    assert_last_says(RDRAND_R_BAD_PARAMETER,
                     "test parameter \"unlisted\" has the wrong type: see "
                     "the lister");
}

/* A size query (NULL data) for an integer: its size, and success. */
static void test_integer_size_query(void **state)
{
    OSSL_PARAM counter[] = {{RDRAND_PARAM_SEED_REQUESTS,
                             OSSL_PARAM_UNSIGNED_INTEGER, NULL,
                             sizeof(uint64_t), OSSL_PARAM_UNMODIFIED},
                            OSSL_PARAM_END};

    (void)state;
    assert_int_equal(get_params(counter), 1);
    assert_int_equal(counter[0].return_size, sizeof(uint64_t));
    assert_int_equal(fake_last_reason(), 0);
}

/*
 * A core without one of the three error functions: nothing is raised
 * (the provider never calls the other two either, nor a NULL one), and
 * the provider works; with all three, the same refusal is raised.
 */
static void test_core_without_error_functions(void **state)
{
    static const int ids[] = {0, OSSL_FUNC_CORE_NEW_ERROR,
                              OSSL_FUNC_CORE_SET_ERROR_DEBUG,
                              OSSL_FUNC_CORE_VSET_ERROR};
    static int handle;
    int parent;

    (void)state;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        void *ctx2 = NULL;
        const OSSL_DISPATCH *out = NULL;

        fake_core_reset(NULL);
        assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                            fake_core_dispatch_without(ids[i]),
                                            &out, &ctx2),
                         1);
        assert_int_equal(fake_get_int(out, ctx2, OSSL_PROV_PARAM_STATUS), 1);
        assert_null(
            RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(ctx2, &parent, NULL));
        if (ids[i] == 0)
            assert_last_says(RDRAND_R_PARENT_REFUSED, "reads the CPU directly");
        else
            assert_int_equal(fake_error_count, 0);
        ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
            out, OSSL_FUNC_PROVIDER_TEARDOWN))(ctx2);
    }
}

/* No provider context: an error raised with none is dropped, not a crash. */
static void test_raise_without_provider(void **state)
{
    (void)state;
    fake_core_reset(NULL);
    rdrand_raise(NULL, __FILE__, __LINE__, __func__, RDRAND_R_INTERNAL, "%s",
                 "nowhere to go");
    assert_int_equal(fake_error_count, 0);
    rdrand_raise(provctx, __FILE__, __LINE__, __func__, RDRAND_R_INTERNAL, "%s",
                 "through the core");
    assert_last_says(RDRAND_R_INTERNAL, "through the core");
}

/* A reason the table lacks has a text all the same. */
static void test_unknown_reason_text(void **state)
{
    (void)state;
    assert_string_equal(rdrand_reason_text(RDRAND_R_MAX), "unknown reason");
    assert_string_equal(rdrand_reason_text(RDRAND_R_OK), "unknown reason");
    assert_string_equal(rdrand_reason_text(RDRAND_R_INTERNAL),
                        "internal error");
}

/*
 * What rdrand_warn writes to stderr (warn = stderr) for fmt and a wide
 * string, read back from a temporary file standing in for fd 2.
 */
static size_t warned_bytes(const wchar_t *wide)
{
    struct rdrand_prov p = {0};
    char path[] = "/tmp/rdrand-warn-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    off_t size;

    assert_true(fd >= 0 && saved >= 0);
    unlink(path);
    p.config.warn = RDRAND_WARN_STDERR;
    fflush(stderr);
    assert_int_equal(dup2(fd, 2), 2);
    rdrand_warn(&p, "wide text: %ls", wide);
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    size = lseek(fd, 0, SEEK_END);
    close(fd);
    close(saved);
    assert_true(size >= 0);
    return (size_t)size;
}

/*
 * A warning whose text cannot be formatted (a wide character the locale
 * cannot encode: vsnprintf fails) is not written at all, rather than a
 * cut or empty one; the control, an ASCII one, is.
 */
static void test_warn_unformattable_is_dropped(void **state)
{
    (void)state;
    assert_true(warned_bytes(L"ascii") > strlen("wide text: ascii"));
    assert_int_equal(warned_bytes(L"\x100"), 0);
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
        cmocka_unit_test_setup_teardown(test_every_parameter_of_the_wrong_type,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_small_int_and_uint_are_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_param_on_other_tables, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_integer_size_query, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_core_without_error_functions,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_raise_without_provider, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unknown_reason_text, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_warn_unformattable_is_dropped,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

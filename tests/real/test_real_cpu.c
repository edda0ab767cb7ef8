/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shipped rdrand.so on this machine's real CPU, loaded by the real
 * libcrypto.  Exits 77 (a skip for ctest) where CPUID has no RDRAND.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *rdrand, *deflt;

static uint64_t u64(const char *name)
{
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(rdrand, p), 1);
    return v;
}

static int i32(const char *name)
{
    int v = -1;
    OSSL_PARAM p[] = {OSSL_PARAM_int(name, &v), OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(rdrand, p), 1);
    return v;
}

static const char *utf8(const char *name)
{
    const char *v = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_ptr(name, (char **)&v, 0),
                      OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(rdrand, p), 1);
    assert_non_null(v);
    return v;
}

static void test_status(void **state)
{
    (void)state;
    assert_int_equal(i32(RDRAND_PARAM_RDRAND_AVAILABLE), 1);
    assert_int_equal(i32("status"), 1);
    assert_string_equal(utf8(RDRAND_PARAM_HEALTH_STATE), "ok");
}

/*
 * The machines this project runs its CI on are ordinary KVM guests: the
 * real detection must see no confidential guest there and draw nothing.
 * (RDRAND_EXPECT_COCO names the platform on a machine that is one.)
 */
static void test_coco_platform_of_this_machine(void **state)
{
    const char *expect = getenv("RDRAND_EXPECT_COCO");

    (void)state;
    assert_string_equal(utf8(RDRAND_PARAM_COCO_PLATFORM),
                        expect != NULL ? expect : "none");
    if (expect == NULL)
        assert_int_equal(u64(RDRAND_PARAM_COCO_SEED_BITS), 0);
}

/* 2000 prediction-resistant requests: each one a get_seed from RDRAND. */
static void test_seed_requests(void **state)
{
    unsigned char buf[64];
    uint64_t req, fail, hw_fail, bytes;
    EVP_RAND_CTX *pub;

    (void)state;
    assert_int_equal(RAND_bytes_ex(libctx, buf, sizeof(buf), 0), 1);
    req = u64(RDRAND_PARAM_SEED_REQUESTS);
    fail = u64(RDRAND_PARAM_SEED_FAILURES);
    hw_fail = u64(RDRAND_PARAM_RDRAND_FAILURES);
    bytes = u64(RDRAND_PARAM_SEED_BYTES);
    assert_true(req >= 1);
    pub = RAND_get0_public(libctx);
    for (int i = 0; i < 2000; i++)
        assert_int_equal(
            EVP_RAND_generate(pub, buf, sizeof(buf), 0, 1, NULL, 0), 1);
    assert_int_equal(u64(RDRAND_PARAM_SEED_REQUESTS) - req, 2000);
    assert_int_equal(u64(RDRAND_PARAM_SEED_FAILURES), fail);
    assert_int_equal(u64(RDRAND_PARAM_RDRAND_FAILURES), hw_fail);
    assert_true(u64(RDRAND_PARAM_SEED_BYTES) - bytes >= 2000 * 32);
}

/* Raw output of the real instruction through EVP_RAND_generate. */
static void test_generate(void **state)
{
    EVP_RAND *rand =
        EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME, RDRAND_PROPERTY_QUERY);
    EVP_RAND_CTX *ctx;
    unsigned char a[4096], b[4096];

    (void)state;
    assert_non_null(rand);
    ctx = EVP_RAND_CTX_new(rand, NULL);
    assert_non_null(ctx);
    assert_int_equal(EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL), 1);
    assert_int_equal(EVP_RAND_generate(ctx, a, sizeof(a), 256, 0, NULL, 0), 1);
    assert_int_equal(EVP_RAND_generate(ctx, b, sizeof(b), 256, 0, NULL, 0), 1);
    assert_memory_not_equal(a, b, sizeof(a));
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
}

/*
 * After fork() the child's DRBGs reseed from us: its seed-requests moves
 * and its output differs from the parent's.
 */
static void test_fork(void **state)
{
    unsigned char parent[32], child[32];
    int fds[2], status;
    pid_t pid;

    (void)state;
    assert_int_equal(RAND_bytes_ex(libctx, parent, sizeof(parent), 0), 1);
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        uint64_t before = u64(RDRAND_PARAM_SEED_REQUESTS);

        if (RAND_bytes_ex(libctx, child, sizeof(child), 0) != 1)
            _exit(2);
        if (u64(RDRAND_PARAM_SEED_REQUESTS) <= before)
            _exit(3);
        _exit(write(fds[1], child, sizeof(child)) == sizeof(child) ? 0 : 4);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], child, sizeof(child)), sizeof(child));
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(RAND_bytes_ex(libctx, parent, sizeof(parent), 0), 1);
    assert_memory_not_equal(parent, child, sizeof(child));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_coco_platform_of_this_machine),
        cmocka_unit_test(test_seed_requests),
        cmocka_unit_test(test_generate),
        cmocka_unit_test(test_fork),
    };
    int available = 0, rc;
    OSSL_PARAM p[] = {OSSL_PARAM_int(RDRAND_PARAM_RDRAND_AVAILABLE, &available),
                      OSSL_PARAM_END};

    libctx = OSSL_LIB_CTX_new();
    rdrand = OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME);
    deflt = OSSL_PROVIDER_load(libctx, "default");
    /* Before the first random byte: OpenSSL creates the seed ctx once. */
    if (rdrand == NULL || deflt == NULL
        || !RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME,
                                      RDRAND_PROPERTY_QUERY)) {
        fprintf(stderr, "cannot load rdrand.so (OPENSSL_MODULES?)\n");
        return 1;
    }
    if (!OSSL_PROVIDER_get_params(rdrand, p) || available != 1) {
        printf("SKIP: CPUID reports no RDRAND on this machine\n");
        return 77;
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    OSSL_PROVIDER_unload(deflt);
    OSSL_PROVIDER_unload(rdrand);
    OSSL_LIB_CTX_free(libctx);
    return rc;
}

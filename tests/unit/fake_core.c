/* SPDX-License-Identifier: Apache-2.0 */
#include "fake_core.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/params.h>

#include "health.h"
#include "seams.h"
#include "sim.h"
#include "source.h"

#ifdef RDRAND_COVERAGE
void __gcov_dump(void);
#endif

struct fake_error fake_errors[16];
size_t fake_error_count;
int fake_core_get_params_fails;
static const char *const *fake_config;

void fake_core_reset(const char *const *config)
{
    fake_config = config;
    fake_error_count = 0;
    fake_core_get_params_fails = 0;
    memset(fake_errors, 0, sizeof(fake_errors));
}

static int fake_get_params(const OSSL_CORE_HANDLE *handle, OSSL_PARAM params[])
{
    (void)handle;
    if (fake_core_get_params_fails)
        return 0;
    for (OSSL_PARAM *p = params; p->key != NULL; p++)
        for (const char *const *kv = fake_config; kv && kv[0]; kv += 2)
            if (strcmp(p->key, kv[0]) == 0
                && !OSSL_PARAM_set_utf8_ptr(p, kv[1]))
                return 0;
    return 1;
}

static void fake_new_error(const OSSL_CORE_HANDLE *handle)
{
    (void)handle;
    if (fake_error_count < 16)
        fake_error_count++;
    memset(&fake_errors[fake_error_count - 1], 0, sizeof(fake_errors[0]));
}

static void fake_set_error_debug(const OSSL_CORE_HANDLE *handle,
                                 const char *file, int line, const char *func)
{
    (void)handle, (void)file, (void)line, (void)func;
}

__attribute__((format(printf, 3, 0))) static void
fake_vset_error(const OSSL_CORE_HANDLE *handle, uint32_t reason,
                const char *fmt, va_list args)
{
    struct fake_error *e = &fake_errors[fake_error_count - 1];

    (void)handle;
    e->reason = (int)reason;
    vsnprintf(e->message, sizeof(e->message), fmt, args);
}

static const OSSL_DISPATCH fake_core[] = {
    {OSSL_FUNC_CORE_GET_PARAMS, (void (*)(void))fake_get_params},
    {OSSL_FUNC_CORE_NEW_ERROR, (void (*)(void))fake_new_error},
    {OSSL_FUNC_CORE_SET_ERROR_DEBUG, (void (*)(void))fake_set_error_debug},
    {OSSL_FUNC_CORE_VSET_ERROR, (void (*)(void))fake_vset_error},
    {0, NULL}};

const OSSL_DISPATCH *fake_core_dispatch(void)
{
    return fake_core;
}

const OSSL_DISPATCH *fake_core_dispatch_without(int id)
{
    static OSSL_DISPATCH lacking[sizeof(fake_core) / sizeof(fake_core[0])];
    size_t n = 0;

    for (const OSSL_DISPATCH *d = fake_core; d->function_id != 0; d++)
        if (d->function_id != id)
            lacking[n++] = *d;
    lacking[n] = (OSSL_DISPATCH){0, NULL};
    return lacking;
}

int fake_last_reason(void)
{
    return fake_error_count ? fake_errors[fake_error_count - 1].reason : 0;
}

const char *fake_last_message(void)
{
    return fake_error_count ? fake_errors[fake_error_count - 1].message : "";
}

void sim_or_fail(const char *spec)
{
    char err[256];

    if (!rdrand_sim_configure(spec, err, sizeof(err)))
        fail_msg("RDRAND_SIM \"%s\": %s", spec, err);
}

int fake_provider_init(const char *sim_spec, const char *const *config,
                       void **provctx, const OSSL_DISPATCH **prov_out)
{
    static int handle;

    sim_or_fail(sim_spec);
    /* A new simulated CPU: the health tests start over. */
    rdrand_source_forget();
    fake_core_reset(config);
    *provctx = NULL;
    *prov_out = NULL;
    return OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                              fake_core_dispatch(), prov_out, provctx);
}

void fake_in_child(void (*fn)(void *), void *arg)
{
    int status;
    pid_t pid;

    fflush(NULL);
    assert_true((pid = fork()) >= 0);
    if (pid == 0) {
        setenv("CMOCKA_TEST_ABORT", "1", 1);
        fn(arg);
        fflush(NULL);
        fake_child_exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the forked scenario failed (status 0x%x)", status);
}

void fake_coverage_dump(void)
{
#ifdef RDRAND_COVERAGE
    __gcov_dump();
#endif
}

void fake_child_exit(int code)
{
    fake_coverage_dump();
    _exit(code);
}

void (*fake_dispatch_fn(const OSSL_DISPATCH *d, int id))(void)
{
    for (; d->function_id != 0; d++)
        if (d->function_id == id)
            return d->function;
    fail_msg("dispatch function %d missing", id);
    return NULL;
}

static int fake_get_params_call(const OSSL_DISPATCH *prov_out, void *provctx,
                                OSSL_PARAM *params)
{
    OSSL_FUNC_provider_get_params_fn *get_params =
        (OSSL_FUNC_provider_get_params_fn *)fake_dispatch_fn(
            prov_out, OSSL_FUNC_PROVIDER_GET_PARAMS);

    return get_params(provctx, params);
}

uint64_t fake_get_u64(const OSSL_DISPATCH *prov_out, void *provctx,
                      const char *name)
{
    uint64_t v = UINT64_MAX;
    OSSL_PARAM params[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};

    assert_true(fake_get_params_call(prov_out, provctx, params));
    assert_true(OSSL_PARAM_modified(params));
    return v;
}

int fake_get_int(const OSSL_DISPATCH *prov_out, void *provctx, const char *name)
{
    int v = -1;
    OSSL_PARAM params[] = {OSSL_PARAM_int(name, &v), OSSL_PARAM_END};

    assert_true(fake_get_params_call(prov_out, provctx, params));
    assert_true(OSSL_PARAM_modified(params));
    return v;
}

const char *fake_get_utf8(const OSSL_DISPATCH *prov_out, void *provctx,
                          const char *name)
{
    const char *v = NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(name, &v, 0), OSSL_PARAM_END};

    assert_true(fake_get_params_call(prov_out, provctx, params));
    assert_true(OSSL_PARAM_modified(params));
    return v;
}

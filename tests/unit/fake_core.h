/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A stand-in for libcrypto's core, for unit tests that call
 * OSSL_provider_init and the dispatch functions directly: it answers
 * config keys from a table and records every error the provider raises.
 */
#ifndef RDRAND_FAKE_CORE_H
#define RDRAND_FAKE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

struct fake_error {
    int reason;
    char message[512];
};

/* Errors raised since fake_core_reset(). */
extern struct fake_error fake_errors[16];
extern size_t fake_error_count;
/* Make the next core_get_params call fail. */
extern int fake_core_get_params_fails;

/* Set the provider's config section: NULL-terminated key, value pairs. */
void fake_core_reset(const char *const *config);
const OSSL_DISPATCH *fake_core_dispatch(void);
/* The same table without the entry for function id (a core lacking it). */
const OSSL_DISPATCH *fake_core_dispatch_without(int id);

/* The last error's reason (0 if none) and message. */
int fake_last_reason(void);
const char *fake_last_message(void);

/* Configure the simulated CPU or fail the test. */
void sim_or_fail(const char *spec);

/*
 * Run OSSL_provider_init against the fake core with this config and CPU.
 * Returns its result; on success *provctx and the provider dispatch.
 */
int fake_provider_init(const char *sim_spec, const char *const *config,
                       void **provctx, const OSSL_DISPATCH **prov_out);

/*
 * Run fn(arg) in a forked child and fail unless it returns normally: for
 * scenarios that leave process-wide state behind (the CoCo verdict).  A
 * failed assertion in the child aborts it (CMOCKA_TEST_ABORT).
 */
void fake_in_child(void (*fn)(void *), void *arg);

/*
 * How a forked child of a unit test ends: _exit(code), after writing its
 * coverage counts in a coverage build (scripts/coverage.sh defines
 * RDRAND_COVERAGE), which _exit would drop: the code only children run
 * (a process's one-shot warnings, the CoCo verdict) would count as never
 * run (tools/check_child.c does the same).
 */
_Noreturn void fake_child_exit(int code);
/* The counts alone (a no-op outside a coverage build): before abort(). */
void fake_coverage_dump(void);

/* Look a function up in a dispatch table (fails the test if absent). */
void (*fake_dispatch_fn(const OSSL_DISPATCH *d, int id))(void);

/* A uint64 / int / utf8 provider parameter through get_params. */
uint64_t fake_get_u64(const OSSL_DISPATCH *prov_out, void *provctx,
                      const char *name);
int fake_get_int(const OSSL_DISPATCH *prov_out, void *provctx,
                 const char *name);
const char *fake_get_utf8(const OSSL_DISPATCH *prov_out, void *provctx,
                          const char *name);

#endif

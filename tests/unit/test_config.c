/* SPDX-License-Identifier: Apache-2.0 */
/* Every config key: each accepted value loads, each refused one does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "errors.h"
#include "fake_core.h"

static const struct {
    const char *key, *value;
    int accepted;
} cases[] = {
    {"warn", "syslog", 1},
    {"warn", "stderr", 1},
    {"warn", "none", 1},
    {"warn", "", 0},
    {"warn", "Syslog", 0},
    {"warn", "yes", 0},
    {"coco", "auto", 1},
    {"coco", "require", 1},
    {"coco", "off", 0},
    {"coco", "none", 0},
    {"coco", "0", 0},
    {"coco", "", 0},
    {"coco_seed_bits", "256", 1},
    {"coco_seed_bits", "320", 1},
    {"coco_seed_bits", "4096", 1},
    {"coco_seed_bits", "192", 0},
    {"coco_seed_bits", "0", 0},
    {"coco_seed_bits", "300", 0},
    {"coco_seed_bits", "4160", 0},
    {"coco_seed_bits", "-256", 0},
    {"coco_seed_bits", "+256", 0},
    {"coco_seed_bits", " 256", 0},
    {"coco_seed_bits", "256 ", 0},
    {"coco_seed_bits", "0x100", 0},
    {"coco_seed_bits", "18446744073709551872", 0},
    {"coco_seed_bits", "", 0},
    {"on_coco_failure", "refuse", 1},
    {"on_coco_failure", "fail-closed", 1},
    {"on_coco_failure", "abort", 1},
    {"on_coco_failure", "ignore", 0},
    {"on_coco_failure", "fail_closed", 0},
};

static void test_each_value(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *config[] = {cases[i].key, cases[i].value, NULL};
        void *provctx;
        const OSSL_DISPATCH *prov;
        int ok = fake_provider_init("", config, &provctx, &prov);

        if (ok != cases[i].accepted)
            fail_msg("%s = \"%s\": init returned %d", cases[i].key,
                     cases[i].value, ok);
        if (ok) {
            assert_int_equal(fake_error_count, 0);
            ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
                prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
            continue;
        }
        assert_null(provctx);
        assert_int_equal(fake_last_reason(), RDRAND_R_BAD_CONFIG);
        /* The message names the key, the value and what is accepted. */
        assert_non_null(strstr(fake_last_message(), cases[i].key));
        assert_non_null(strstr(fake_last_message(), "use "));
        {
            char quoted[64];

            snprintf(quoted, sizeof(quoted), "\"%s\"", cases[i].value);
            assert_non_null(strstr(fake_last_message(), quoted));
        }
    }
}

static void test_core_get_params_failure_refuses(void **state)
{
    static int handle;
    void *provctx = NULL;
    const OSSL_DISPATCH *prov = NULL;

    (void)state;
    sim_or_fail("");
    fake_core_reset(NULL);
    fake_core_get_params_fails = 1;
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &prov, &provctx),
                     0);
    assert_int_equal(fake_last_reason(), RDRAND_R_CONFIG_UNREADABLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_value),
        cmocka_unit_test(test_core_get_params_failure_refuses),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

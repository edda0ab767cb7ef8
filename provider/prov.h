/* SPDX-License-Identifier: Apache-2.0 */
/* The provider context shared by every file of the module. */
#ifndef RDRAND_PROV_H
#define RDRAND_PROV_H

#include <stdatomic.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include "coco.h"
#include "conditioning.h"
#include "cpu_errata.h"
#include "cpu_info.h"
#include "fault.h"

enum rdrand_warn_mode {
    RDRAND_WARN_SYSLOG,
    RDRAND_WARN_STDERR,
    RDRAND_WARN_NONE
};
enum rdrand_coco_mode { RDRAND_COCO_AUTO, RDRAND_COCO_REQUIRE };
/* docs/conditioning.md */
enum rdrand_conditioning {
    RDRAND_CONDITIONING_NONE,
    RDRAND_CONDITIONING_REDUCE512,
    RDRAND_CONDITIONING_REFUSED /* the value written was refused */
};
enum rdrand_coco_failure {
    RDRAND_ON_COCO_FAILURE_REFUSE,
    RDRAND_ON_COCO_FAILURE_FAIL_CLOSED,
    RDRAND_ON_COCO_FAILURE_ABORT
};

/* Values of the provider's config section (see docs/configuration.md). */
struct rdrand_config {
    enum rdrand_warn_mode warn;
    enum rdrand_coco_mode coco;
    unsigned int coco_seed_bits;
    enum rdrand_coco_failure on_coco_failure;
    enum rdrand_conditioning conditioning;
    /*
     * The section's first refused value was warn's: the load's warning
     * went to syslog.  A refused section refuses the instance (fault.c).
     */
    int warn_invalid;
};

struct rdrand_prov {
    const OSSL_CORE_HANDLE *handle;
    OSSL_FUNC_core_get_params_fn *core_get_params;
    OSSL_FUNC_core_new_error_fn *core_new_error;
    OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
    OSSL_FUNC_core_vset_error_fn *core_vset_error;

    struct rdrand_config config;
    int rdrand_available; /* CPUID leaf 1 ECX bit 30 */

    struct rdrand_coco_result coco; /* what detection saw */
    uint64_t coco_seed_bits;        /* bits drawn and checked at init */

    /* CPUID leaf 0's vendor string ("" without CPUID): which vendor's
     * reseed claim conditioning rests on (docs/conditioning.md). */
    char cpu_vendor[13];
    /* Family, model, stepping, microcode; the errata table's entries for
     * them, "none" or ids (cpu_errata.c, docs/health-tests.md). */
    struct rdrand_cpu_info cpu;
    char cpu_errata[RDRAND_CPU_ERRATA_LEN];

    /* conditioning = reduce512: the CBC-MAC key, drawn at load. */
    struct rdrand_cond_key cond_key;

    /* Whether a request may be served: fault.c's alone. */
    struct rdrand_fault fault;
};

/* The module's identity: provider/module_rdrand.c or the test module's. */
extern const char rdrand_module_property[];
extern const char rdrand_module_description[];

#endif

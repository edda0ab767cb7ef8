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

enum rdrand_warn_mode {
    RDRAND_WARN_SYSLOG,
    RDRAND_WARN_STDERR,
    RDRAND_WARN_NONE
};
enum rdrand_coco_mode { RDRAND_COCO_AUTO, RDRAND_COCO_REQUIRE };
/* docs/conditioning.md */
enum rdrand_conditioning {
    RDRAND_CONDITIONING_NONE,
    RDRAND_CONDITIONING_REDUCE512
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
    /* The conditioning value itself was refused: the param says so. */
    int conditioning_refused;

    /*
     * A section the provider could not accept (config.c): every request
     * fails with this, for the life of the provider.  reason is 0 when
     * the section is good; error says what was wrong (key, value, what is
     * accepted); state is what health-state shows.
     */
    int reason;
    int warn_invalid; /* warn itself was refused: the warning used syslog */
    char error[224];
    char state[320];
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
    int coco_enforced;              /* CoCo rules apply: faults never clear */
    int coco_cause;          /* why the check at load failed (a reason), or 0 */
    uint64_t coco_seed_bits; /* bits drawn and checked at init */

    /* CPUID leaf 0's vendor string ("" without CPUID): which vendor's
     * reseed claim conditioning rests on (docs/conditioning.md). */
    char cpu_vendor[13];
    /* Family, model, stepping, microcode; the errata table's entries for
     * them, "none" or ids (cpu_errata.c, docs/health-tests.md). */
    struct rdrand_cpu_info cpu;
    char cpu_errata[RDRAND_CPU_ERRATA_LEN];

    /* conditioning = reduce512: the CBC-MAC key, drawn at load. */
    struct rdrand_cond_key cond_key;

    /*
     * The latch, owned by source.c: the reason the source is in error
     * (RDRAND_R_OK if it is not) in the low 32 bits, and in the high 32 a
     * generation that every fault bumps, so that a recovery clears only
     * the fault its self-test answered, never one that came meanwhile.
     */
    _Atomic uint64_t fault_state;
};

/* The module's identity: provider/module_rdrand.c or the test module's. */
extern const char rdrand_module_property[];
extern const char rdrand_module_description[];

#endif

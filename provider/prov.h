/* SPDX-License-Identifier: Apache-2.0 */
/* The provider context shared by every file of the module. */
#ifndef RDRAND_PROV_H
#define RDRAND_PROV_H

#include <stdatomic.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include "aes.h" /* struct rdrand_aes_key: an instance holds one */
#include "fault.h"
#include "status_block.h" /* the config values are numbered as it counts */

/*
 * What an instance holds of the other files' results, defined here so
 * that this header, which every file includes, includes none of them.
 */
/* CoCo detection's verdict (coco_detect.c, docs/coco.md). */
enum rdrand_coco_platform {
    RDRAND_COCO_NONE = 0,
    RDRAND_COCO_SEV,
    RDRAND_COCO_SEV_ES,
    RDRAND_COCO_SEV_SNP,
    RDRAND_COCO_TDX,
    RDRAND_COCO_HYPERV_SNP,
    RDRAND_COCO_HYPERV_TDX,
    RDRAND_COCO_HYPERV_VBS,
    RDRAND_COCO_UNKNOWN_CVM
};
struct rdrand_coco_result {
    enum rdrand_coco_platform platform;
    /* Static string naming the signal that decided, e.g. "cpuid:0x21". */
    const char *signal;
};
/* The CPU's identity (cpu_info.c). */
struct rdrand_cpu_info {
    char vendor[13]; /* CPUID leaf 0's vendor string; "" without CPUID */
    /* CPUID leaf 1 was read: family, model and stepping hold (else 0). */
    int have_signature;
    unsigned int family, model, stepping;
    /*
     * The kernel's microcode revision: most virtual machines show none
     * (the kernel's loader is off under a hypervisor), and a file not in
     * the kernel's format counts as none.  microcode_text is "0x" and
     * lower-case hex as the kernel writes it, or "" without one.
     */
    int have_microcode;
    uint32_t microcode;
    char microcode_text[11];
};
/* Room for every id of the errata table, comma-separated (cpu_errata.c;
 * the unit test checks). */
#define RDRAND_CPU_ERRATA_LEN 64

enum rdrand_warn_mode {
    RDRAND_WARN_SYSLOG,
    RDRAND_WARN_STDERR,
    RDRAND_WARN_NONE
};
enum rdrand_coco_mode { RDRAND_COCO_AUTO, RDRAND_COCO_REQUIRE };
/* docs/conditioning.md; numbered as the status block counts them */
enum rdrand_conditioning {
    RDRAND_CONDITIONING_NONE = RDRAND_STATUS_COND_NONE,
    RDRAND_CONDITIONING_REDUCE512 = RDRAND_STATUS_COND_REDUCE512,
    /* the value written was refused */
    RDRAND_CONDITIONING_REFUSED = RDRAND_STATUS_COND_REFUSED
};
/* docs/mix.md; numbered as the status block counts them */
enum rdrand_mix {
    RDRAND_MIX_NONE = RDRAND_STATUS_MIX_NONE,
    RDRAND_MIX_OS = RDRAND_STATUS_MIX_OS,
    RDRAND_MIX_REFUSED = RDRAND_STATUS_MIX_REFUSED /* the value was refused */
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
    enum rdrand_mix mix;
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
    /* Loaded into the process's default library context (provider.c):
     * counted by status.c and, per seed request, by rand.c. */
    int default_ctx;

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
    struct rdrand_aes_key cond_key; /* conditioning = reduce512 */

    /* Whether a request may be served: fault.c's alone. */
    struct rdrand_fault fault;
};

/* The module's identity: provider/module_rdrand.c or the test module's. */
extern const char rdrand_module_property[];
extern const char rdrand_module_description[];

#endif

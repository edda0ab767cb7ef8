/* SPDX-License-Identifier: Apache-2.0 */
#include "cpu_errata.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "errors.h"
#include "prov.h"

/*
 * Each entry: a defect that makes RDRAND return bad data with CF=1 on
 * every CPU of its range, as the sources name the range.  Only RDRAND's
 * defects: RDSEED's (AMD-SB-7055 on Zen 5, Cyan Skillfish) are not ours,
 * and neither are defects of one machine or one firmware (systemd issue
 * 18184) or the microcode loader's (AMD-SB-7033): docs/health-tests.md
 * says why.  Ids are public (the cpu-errata parameter): never renamed.
 */
const struct rdrand_erratum rdrand_errata[] = {
    {
        .id = "amd-15h-16h",
        .vendor = "AuthenticAMD",
        .family_min = 0x15,
        .family_max = 0x16,
        .model_min = 0x00,
        .model_max = 0xFF,
        .what = "RDRAND can return all ones with CF=1 after a suspend and "
                "resume whose firmware does not restore it",
        .action = "update the firmware or do not suspend; Linux hides RDRAND "
                  "on these families unless booted with rdrand=force",
        /*
         * BoringSSL, AWS-LC and getrandom refuse every AMD family below
         * 17h for it; no AMD CPU before family 15h has RDRAND.
         */
        .source = "Linux commit c49a0a80137c (arch/x86/kernel/cpu/amd.c, "
                  "clear_rdrand_cpuid_bit); "
                  "https://bugzilla.redhat.com/show_bug.cgi?id=1150286; "
                  "systemd issue 11810; BoringSSL crypto/cpu_intel.c, "
                  "AWS-LC crypto/fipsmodule/cpucap/cpu_intel.c, "
                  "getrandom src/backends/rdrand.rs",
    },
    {
        .id = "amd-17h-70h-7fh",
        .vendor = "AuthenticAMD",
        .family_min = 0x17,
        .family_max = 0x17,
        .model_min = 0x70,
        .model_max = 0x7F,
        .what = "RDRAND on Zen 2 (Ryzen 3000, Matisse) returned all ones "
                "with CF=1 under firmware older than AMD's 2019 AGESA fix",
        .action = "update the board's firmware (BIOS with a newer AGESA)",
        .source = "BoringSSL crypto/cpu_intel.c and AWS-LC "
                  "crypto/fipsmodule/cpucap/cpu_intel.c (RDRAND off for "
                  "family 17h models 70h-7Fh); systemd commit 1c53d4a070ed "
                  "(PR 12536, 2019)",
    },
};

const size_t rdrand_errata_count =
    sizeof(rdrand_errata) / sizeof(*rdrand_errata);

int rdrand_erratum_matches(const struct rdrand_erratum *e,
                           const struct rdrand_cpu_info *cpu)
{
    return cpu->have_signature && strcmp(cpu->vendor, e->vendor) == 0
           && cpu->family >= e->family_min && cpu->family <= e->family_max
           && cpu->model >= e->model_min && cpu->model <= e->model_max;
}

void rdrand_errata_ids(const struct rdrand_cpu_info *cpu, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < rdrand_errata_count && used + 1 < len; i++) {
        const char *sep;
        int n;

        if (!rdrand_erratum_matches(&rdrand_errata[i], cpu))
            continue;
        sep = used ? "," : ""; /* unreachable: entries' ranges are disjoint */
        n = snprintf(buf + used, len - used, "%s%s", sep, rdrand_errata[i].id);
        /* Cut, or failed: a negative n converts to above any length. */
        used = (size_t)n >= len - used ? len - 1 : used + (size_t)n;
    }
    if (used == 0)
        snprintf(buf, len, "none");
}

int rdrand_erratum_message(const struct rdrand_erratum *e,
                           const struct rdrand_cpu_info *cpu, char *buf,
                           size_t len)
{
    return snprintf(buf, len,
                    "CPU erratum %s (%s family %02Xh model %02Xh stepping %u, "
                    "microcode %s): %s; %s. A warning, not a refusal: RDRAND "
                    "stays in use while the health tests pass, and they fail "
                    "closed on the constant this defect returns "
                    "(docs/health-tests.md lists the errata)",
                    e->id, cpu->vendor, cpu->family, cpu->model, cpu->stepping,
                    cpu->have_microcode ? cpu->microcode_text : "unknown",
                    e->what, e->action);
}

void rdrand_errata_check(struct rdrand_prov *prov)
{
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    char msg[512];

    rdrand_cpu_info_gather(&prov->cpu);
    rdrand_errata_ids(&prov->cpu, prov->cpu_errata, sizeof(prov->cpu_errata));
    /* The CPU is the process's: so is the warning, as fault.c's are. */
    if (strcmp(prov->cpu_errata, "none") == 0 || !prov->rdrand_available
        || prov->config.warn == RDRAND_WARN_NONE
        || atomic_flag_test_and_set(&warned))
        return;
    for (size_t i = 0; i < rdrand_errata_count; i++) {
        if (!rdrand_erratum_matches(&rdrand_errata[i], &prov->cpu))
            continue;
        rdrand_erratum_message(&rdrand_errata[i], &prov->cpu, msg, sizeof(msg));
        rdrand_warn(prov, "%s", msg);
    }
}

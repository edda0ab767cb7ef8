/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Known CPU defects of RDRAND, by vendor, family and model.
 *
 * A CPU in the table gets one warning per process at load and its
 * entries' ids in the provider parameter cpu-errata; nothing is refused
 * or latched on that account.  Whether RDRAND is used stays with the
 * health tests: every defect listed returns a constant, which they fail
 * closed on at the first word (all ones), while the same model with fixed
 * firmware works, and refusing it would cost those machines their seed
 * source for nothing.  The table and its sources are in cpu_errata.c;
 * docs/health-tests.md ("Threat model and known CPU errata") explains
 * what is and is not in it.
 */
#ifndef RDRAND_CPU_ERRATA_H
#define RDRAND_CPU_ERRATA_H

#include <stddef.h>

#include "cpu_info.h"
#include "prov.h" /* RDRAND_CPU_ERRATA_LEN: an instance holds the text */

struct rdrand_erratum {
    const char *id;     /* stable: served in cpu-errata */
    const char *vendor; /* CPUID leaf 0's vendor string */
    unsigned int family_min, family_max, model_min, model_max;
    const char *what;   /* what goes wrong, one line */
    const char *action; /* what the operator can do */
    const char *source; /* public sources */
};

extern const struct rdrand_erratum rdrand_errata[];
extern const size_t rdrand_errata_count;

/* 1 if cpu is one e lists (a CPU without leaf 1 is in no entry). */
int rdrand_erratum_matches(const struct rdrand_erratum *e,
                           const struct rdrand_cpu_info *cpu);

/* The ids of the entries cpu is in, comma-separated, or "none". */
void rdrand_errata_ids(const struct rdrand_cpu_info *cpu, char *buf,
                       size_t len);

/* The warning for cpu in e, as rdrand_warn writes it; returns snprintf's. */
int rdrand_erratum_message(const struct rdrand_erratum *e,
                           const struct rdrand_cpu_info *cpu, char *buf,
                           size_t len);

struct rdrand_prov;
/*
 * At load, after rdrand_available is known: read this CPU into prov->cpu
 * and its entries into prov->cpu_errata, and warn once per process for
 * each entry where RDRAND is in use (without it the provider already
 * warns that it has none).
 */
void rdrand_errata_check(struct rdrand_prov *prov);

#endif

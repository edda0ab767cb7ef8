/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the status block (status_block.c) says of the instances: written
 * at a load, a CoCo refusal or a teardown, never on the seed path.
 */
#include "status.h"

#include <stdio.h>

#include "coco.h"
#include "errors.h"
#include "fault.h"
#include "prov.h"

static void rdrand_status_text(char *to, size_t len, const char *s)
{
    snprintf(to, len, "%s", s != NULL ? s : "");
}

/* What every instance of the process sees alike: written by the first. */
static void rdrand_status_identity(const struct rdrand_prov *prov)
{
    struct rdrand_status *b = &rdrand_status_block;
    uint32_t none = 0;

    if (!atomic_compare_exchange_strong(&b->identity_written, &none, 1))
        return;
    rdrand_status_text(b->module, sizeof(b->module), rdrand_module_description);
    rdrand_status_text(b->coco_platform, sizeof(b->coco_platform),
                       rdrand_coco_platform_name(prov->coco.platform));
    rdrand_status_text(b->coco_signal, sizeof(b->coco_signal),
                       prov->coco.signal);
    rdrand_status_text(b->cpu_vendor, sizeof(b->cpu_vendor), prov->cpu_vendor);
    rdrand_status_text(b->cpu_microcode, sizeof(b->cpu_microcode),
                       prov->cpu.microcode_text);
    rdrand_status_text(b->cpu_errata, sizeof(b->cpu_errata), prov->cpu_errata);
    atomic_store_explicit(&b->cpu_family, prov->cpu.family,
                          memory_order_relaxed);
    atomic_store_explicit(&b->cpu_model, prov->cpu.model, memory_order_relaxed);
    atomic_store_explicit(&b->cpu_stepping, prov->cpu.stepping,
                          memory_order_relaxed);
}

/* The CoCo check's outcome, for loaded and refused instances alike. */
static void rdrand_status_coco(const struct rdrand_prov *prov)
{
    struct rdrand_status *b = &rdrand_status_block;

    atomic_store_explicit(&b->rdrand_available, prov->rdrand_available,
                          memory_order_relaxed);
    if (prov->fault.coco_cause != 0)
        atomic_store_explicit(&b->coco_cause, prov->fault.coco_cause,
                              memory_order_relaxed);
    if (prov->fault.coco_enforced)
        atomic_store_explicit(&b->coco_seed_bits, prov->coco_seed_bits,
                              memory_order_relaxed);
}

static void rdrand_status_count(const struct rdrand_prov *prov, int delta)
{
    struct rdrand_status *b = &rdrand_status_block;

    atomic_fetch_add_explicit(&b->live_instances, (uint32_t)delta,
                              memory_order_relaxed);
    if (prov->default_ctx)
        atomic_fetch_add_explicit(&b->live_default_instances, (uint32_t)delta,
                                  memory_order_relaxed);
    atomic_fetch_add_explicit(&b->live_conditioning[prov->config.conditioning],
                              (uint32_t)delta, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->live_mix[prov->config.mix], (uint32_t)delta,
                              memory_order_relaxed);
    /*
     * Only a refusal whose remedy is the section: a reduce512 key that
     * RDRAND failed to deliver is the CPU's fault (its trip says so), not
     * the configuration's; no AES-NI is the section's (conditioning = none).
     */
    if (rdrand_reason_has(rdrand_fault_refused(prov), RDRAND_REASON_CONFIG)
        || rdrand_fault_refused(prov) == RDRAND_R_NO_AESNI)
        atomic_fetch_add_explicit(&b->live_config_refused, (uint32_t)delta,
                                  memory_order_relaxed);
}

void rdrand_status_loaded(const struct rdrand_prov *prov)
{
    rdrand_status_begin();
    rdrand_status_identity(prov);
    rdrand_status_coco(prov);
    rdrand_status_count(prov, 1);
    rdrand_status_end();
}

void rdrand_status_coco_refused(const struct rdrand_prov *prov)
{
    rdrand_status_begin();
    rdrand_status_identity(prov);
    rdrand_status_coco(prov);
    atomic_fetch_add_explicit(&rdrand_status_block.coco_refusals, 1,
                              memory_order_relaxed);
    rdrand_status_end();
}

void rdrand_status_unloaded(const struct rdrand_prov *prov)
{
    rdrand_status_begin();
    rdrand_status_count(prov, -1);
    rdrand_status_end();
}

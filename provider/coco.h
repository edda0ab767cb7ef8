/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Confidential-computing guest detection.
 *
 * rdrand_coco_gather() takes a snapshot of every signal through the hw
 * seam; rdrand_coco_detect() is a pure function of that snapshot, so the
 * tests can feed it every platform and every contradiction.
 * Rule: any positive or conflicting signal means CoCo; what could not
 * be seen means CoCo only where it hides the one carrier that nothing
 * readable covers (the kernel's sysfs view of sev-guest), because a CoCo
 * verdict is not free: every later fault is permanent.
 * docs/coco.md ("What is detected, and how") argues each signal once.
 */
#ifndef RDRAND_COCO_H
#define RDRAND_COCO_H

#include <stdint.h>

#include "hw.h"
#include "prov.h" /* the platform and the result: an instance holds them */

/* Tri-state for file signals. */
#define RDRAND_SIGNAL_ABSENT 0
#define RDRAND_SIGNAL_PRESENT 1
#define RDRAND_SIGNAL_UNKNOWN (-1)

/* statfs f_type of the kernel's sysfs (SYSFS_MAGIC in linux/magic.h). */
#define RDRAND_SYSFS_MAGIC UINT64_C(0x62656572)

struct rdrand_coco_inputs {
    /*
     * CPUID; a leaf beyond the reported maximum is left zeroed, except
     * 0x21, read always as the kernel does (a TDX module answers it
     * whatever leaf 0 says).
     */
    int have_cpuid;
    struct rdrand_cpuid leaf0, leaf1, leaf21;
    struct rdrand_cpuid ext0, ext1f;   /* 0x80000000, ..1F */
    struct rdrand_cpuid hv0, hv3, hvc; /* 0x400000{00,03,0C} */
    /*
     * The kernel's view (RDRAND_SIGNAL_*).  cpuinfo_tdx_guest is 1 when
     * the word "tdx_guest" was seen whole (ended by a blank or a newline)
     * on the first flags line of /proc/cpuinfo.  sysfs_platform is
     * rdrand_hw_fs_type's answer for /sys/devices/platform and
     * sysfs_platform_magic the filesystem's type when it is PRESENT.
     */
    int cpuinfo_tdx_guest;
    int sysfs_platform;
    uint64_t sysfs_platform_magic;
    int sysfs_sev_guest; /* /sys/devices/platform/sev-guest */
    int dev_sev_guest;   /* /dev/sev-guest */
    int dev_tdx_guest;   /* /dev/tdx_guest */
    int configfs_tsm;    /* /sys/kernel/config/tsm/report */
    int sysfs_cpu_sev;   /* /sys/devices/system/cpu/sev */
    /* SEV_STATUS MSR 0xC0010131, only where /dev/cpu/0/msr is readable. */
    int have_sev_status;
    uint64_t sev_status;
};

void rdrand_coco_gather(struct rdrand_coco_inputs *in);
void rdrand_coco_detect(const struct rdrand_coco_inputs *in,
                        struct rdrand_coco_result *out);
/* "none", "sev", "sev-es", "sev-snp", "tdx", "hyperv-snp", "hyperv-tdx",
 * "hyperv-vbs", "unknown-cvm" */
const char *rdrand_coco_platform_name(enum rdrand_coco_platform p);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CoCo detection: rdrand_coco_detect() on hand-built snapshots, a sweep
 * over every combination of inputs against the fail-safe rule, and
 * rdrand_coco_gather() over every guest of tests/sim/sim_coco.c through a
 * local stand-in for provider/hw.h that watches how it is used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "coco.h"
#include "sim.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define R4(a, b, c, d)                                                         \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16                  \
     | (uint32_t)(d) << 24)
#define HV_BIT (UINT32_C(1) << 31)
#define RDRAND_BIT (UINT32_C(1) << 30)
#define CPUINFO_LIMIT (64 * 1024)
#define TMPFS_MAGIC UINT64_C(0x01021994)

/* ---------------------------------------------------------------------- */
/* A stand-in for provider/hw.h: the sim's platform over a KVM guest      */

/* As tests/sim/hw_sim.c: a KVM guest on an AMD host. */
static const struct rdrand_cpuid kvm_leaf0 = {0x16, R4('A', 'u', 't', 'h'),
                                              R4('c', 'A', 'M', 'D'),
                                              R4('e', 'n', 't', 'i')};
static const struct rdrand_cpuid kvm_leaf1 = {0, 0, HV_BIT, 0};
static const struct rdrand_cpuid kvm_hv0 = {0x40000001, R4('K', 'V', 'M', 'K'),
                                            R4('V', 'M', 'K', 'V'),
                                            R4('M', 0, 0, 0)};
static const struct rdrand_cpuid kvm_ext0 = {0x80000008, 0, 0, 0};

static const char kvm_cpuinfo[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
    "flags\t\t: fpu vme de pse tsc msr pae sse2 rdrand hypervisor\n\n";

static struct {
    /* What the code under test has been told so far. */
    int seen_leaf0, seen_leaf1, seen_ext0, seen_hv0;
    uint32_t max_basic, max_ext, max_hv;
    int hv_bit;
    unsigned violations; /* CPUID leaves read that were not announced */
    size_t cpuinfo_reach;
    int eof_past_zero; /* cpuinfo reads at an offset other than 0 see EOF */
    /* Knobs. */
    int no_cpuid;
    int basic_max_zero;   /* leaf 0 announces no leaf above it */
    int cpuinfo_overlong; /* cpuinfo reads claim a byte more than asked */
    size_t chunk;         /* 0: whole reads; else at most this per read */
    const char *cpuinfo;  /* replaces the platform's */
    size_t cpuinfo_len;
    int cpuinfo_fail_after; /* fail reads once this many succeeded; 0: no */
    int cpuinfo_reads;
    ssize_t msr_result; /* 0: the platform's answer */
} fake;

static void fake_reset(size_t chunk)
{
    memset(&fake, 0, sizeof(fake));
    fake.chunk = chunk;
}

static int fake_leaf_announced(uint32_t leaf)
{
    /* 0x21 is read whatever the maximum, as the kernel does. */
    if (leaf == 0 || leaf == 0x80000000 || leaf == 0x21)
        return 1;
    if (leaf < 0x40000000)
        return fake.seen_leaf0 && leaf <= fake.max_basic;
    if (leaf < 0x80000000) {
        if (!fake.seen_leaf1 || !fake.hv_bit)
            return 0;
        return leaf == 0x40000000 || (fake.seen_hv0 && leaf <= fake.max_hv);
    }
    return fake.seen_ext0 && leaf <= fake.max_ext;
}

static void fake_base_cpuid(uint32_t leaf, struct rdrand_cpuid *out)
{
    static const struct rdrand_cpuid zero;

    switch (leaf) {
    case 0:
        *out = kvm_leaf0;
        break;
    case 1:
        *out = kvm_leaf1;
        break;
    case 0x40000000:
        *out = kvm_hv0;
        break;
    case 0x80000000:
        *out = kvm_ext0;
        break;
    default:
        *out = zero;
        break;
    }
}

int rdrand_hw_cpuid(uint32_t leaf, uint32_t subleaf, struct rdrand_cpuid *out)
{
    if (fake.no_cpuid)
        return 0;
    if (!fake_leaf_announced(leaf))
        fake.violations++;
    if (!rdrand_sim_coco_cpuid(leaf, subleaf, out))
        fake_base_cpuid(leaf, out);
    if (leaf == 1)
        out->ecx |= RDRAND_BIT; /* as the base sim does for rdrand=present */
    if (leaf == 0 && fake.basic_max_zero)
        out->eax = 0;
    switch (leaf) {
    case 0:
        fake.seen_leaf0 = 1;
        fake.max_basic = out->eax;
        break;
    case 1:
        fake.seen_leaf1 = 1;
        fake.hv_bit = (out->ecx & HV_BIT) != 0;
        break;
    case 0x40000000:
        fake.seen_hv0 = 1;
        fake.max_hv = out->eax;
        break;
    case 0x80000000:
        fake.seen_ext0 = 1;
        fake.max_ext = out->eax;
        break;
    }
    return 1;
}

int rdrand_hw_rdrand64(uint64_t *out)
{
    *out = 0;
    fail_msg("CoCo detection executed RDRAND");
    return 0;
}

int rdrand_hw_path_exists(const char *path)
{
    int r = rdrand_sim_coco_path_exists(path);

    return r == -2 ? 0 : r;
}

int rdrand_hw_fs_type(const char *path, uint64_t *type)
{
    int r = rdrand_sim_coco_fs_type(path, type);

    return r == -2 ? 0 : r;
}

static ssize_t fake_pread(const char *data, size_t size, void *buf, size_t len,
                          off_t offset)
{
    if (offset < 0)
        return -1;
    if ((size_t)offset >= size)
        return 0;
    if (len > size - (size_t)offset)
        len = size - (size_t)offset;
    memcpy(buf, data + offset, len);
    return (ssize_t)len;
}

ssize_t rdrand_hw_read_file(const char *path, void *buf, size_t len,
                            off_t offset)
{
    ssize_t r;

    if (strcmp(path, "/proc/cpuinfo") == 0) {
        if ((size_t)offset + len > fake.cpuinfo_reach)
            fake.cpuinfo_reach = (size_t)offset + len;
        if (fake.cpuinfo_fail_after > 0
            && fake.cpuinfo_reads >= fake.cpuinfo_fail_after)
            return -1;
        fake.cpuinfo_reads++;
        if (fake.chunk != 0 && len > fake.chunk)
            len = fake.chunk;
        if (fake.eof_past_zero && offset != 0)
            return 0;
    }
    if (strcmp(path, "/dev/cpu/0/msr") == 0 && fake.msr_result != 0)
        return fake.msr_result;
    if (strcmp(path, "/proc/cpuinfo") == 0 && fake.cpuinfo != NULL) {
        r = fake_pread(fake.cpuinfo, fake.cpuinfo_len, buf, len, offset);
        return r > 0 && fake.cpuinfo_overlong ? (ssize_t)len + 1 : r;
    }
    r = rdrand_sim_coco_read_file(path, buf, len, offset);
    if (r != -2)
        return r;
    if (strcmp(path, "/proc/cpuinfo") == 0)
        return fake_pread(kvm_cpuinfo, sizeof(kvm_cpuinfo) - 1, buf, len,
                          offset);
    return -1; /* no msr module, no privilege */
}

/* ---------------------------------------------------------------------- */
/* Hand-built snapshots                                                   */

enum {
    S_TDX_FLAG = 1u << 0,
    S_DEV_TDX = 1u << 1,
    S_SYSFS_SEV = 1u << 2,
    S_DEV_SEV = 1u << 3,
    S_CPU_SEV = 1u << 4,
    S_TSM = 1u << 5,
    S_MASKED = 1u << 6,    /* kernel files not present are UNKNOWN */
    S_CPUID_TDX = 1u << 7, /* leaf0.eax 0x23, leaf 0x21 signature */
    S_CPUID_SEV = 1u << 8, /* ext0.eax 0x80000021, 0x8000001F bit 1 */
    S_NO_HV_BIT = 1u << 9,
    S_NO_CPUID = 1u << 10,     /* have_cpuid 0, leaves left as built */
    S_LOW_BASIC = 1u << 11,    /* leaf0.eax 0x20 */
    S_LOW_EXT = 1u << 12,      /* ext0.eax 0x8000001E */
    S_TDX_BAD_SIG = 1u << 13,  /* "IntelTDX    " in EBX, ECX, EDX order */
    S_HV_BAD_SIG = 1u << 14,   /* "Microsoft XX" */
    S_HV_ROOT = 1u << 15,      /* 0x40000003 EBX bit 12 */
    S_HV_NO_ISO = 1u << 16,    /* 0x40000003 EBX bit 22 clear */
    S_HV_MAX_LOW = 1u << 17,   /* hv0.eax 0x40000004 */
    S_HV_MAX_HIGH = 1u << 18,  /* hv0.eax 0x40010000 */
    S_HV_MAX_SHORT = 1u << 19, /* hv0.eax 0x4000000A: 0x4000000C unread */
    S_STANDIN = 1u << 20,      /* a tmpfs over /sys/devices/platform */
    S_NO_SYS = 1u << 21,       /* /sys/devices/platform does not exist */
};

#define HV_NONE (-1)
#define MSR_NONE (-1)

struct detect_case {
    const char *name;
    unsigned signals;
    int hv_type; /* 0x4000000C EBX[3:0], or HV_NONE: a KVM guest */
    int64_t msr; /* SEV_STATUS, or MSR_NONE: unreadable */
    enum rdrand_coco_platform want;
    const char *signal;
};

static void kernel_file(int *field, unsigned signals, unsigned bit)
{
    if (signals & bit)
        *field = RDRAND_SIGNAL_PRESENT;
    else if (signals & S_MASKED)
        *field = RDRAND_SIGNAL_UNKNOWN;
    else
        *field = RDRAND_SIGNAL_ABSENT;
}

static void build_inputs(unsigned s, int hv_type, int64_t msr,
                         struct rdrand_coco_inputs *in)
{
    memset(in, 0, sizeof(*in));
    in->cpuinfo_tdx_guest = (s & S_TDX_FLAG) != 0;
    /* The sysfs platform bus: real, unreadable, missing or a stand-in. */
    in->sysfs_platform =
        (s & S_MASKED) ? RDRAND_SIGNAL_UNKNOWN : RDRAND_SIGNAL_PRESENT;
    if (in->sysfs_platform == RDRAND_SIGNAL_PRESENT)
        in->sysfs_platform_magic = RDRAND_SYSFS_MAGIC;
    if (s & S_STANDIN)
        in->sysfs_platform_magic = TMPFS_MAGIC;
    if (s & S_NO_SYS) {
        in->sysfs_platform = RDRAND_SIGNAL_ABSENT;
        in->sysfs_platform_magic = 0;
    }
    kernel_file(&in->dev_tdx_guest, s, S_DEV_TDX);
    kernel_file(&in->sysfs_sev_guest, s, S_SYSFS_SEV);
    kernel_file(&in->dev_sev_guest, s, S_DEV_SEV);
    kernel_file(&in->sysfs_cpu_sev, s, S_CPU_SEV);
    kernel_file(&in->configfs_tsm, s, S_TSM);

    in->have_cpuid = !(s & S_NO_CPUID);
    in->leaf0 = kvm_leaf0;
    in->leaf1 = kvm_leaf1;
    in->leaf1.ecx |= RDRAND_BIT;
    if (s & S_NO_HV_BIT)
        in->leaf1.ecx &= ~HV_BIT;
    in->ext0 = kvm_ext0;
    if (!(s & S_NO_HV_BIT))
        in->hv0 = kvm_hv0;
    if (s & S_CPUID_TDX) {
        in->leaf0.eax = (s & S_LOW_BASIC) ? 0x20 : 0x23;
        in->leaf21.ebx = R4('I', 'n', 't', 'e');
        in->leaf21.edx = R4('l', 'T', 'D', 'X');
        in->leaf21.ecx = R4(' ', ' ', ' ', ' ');
        if (s & S_TDX_BAD_SIG) {
            in->leaf21.ecx = R4('l', 'T', 'D', 'X');
            in->leaf21.edx = R4(' ', ' ', ' ', ' ');
        }
    }
    if (s & S_CPUID_SEV) {
        in->ext0.eax = (s & S_LOW_EXT) ? 0x8000001E : 0x80000021;
        in->ext1f.eax = 0x1A;
        in->ext1f.ebx = 51;
    }
    if (hv_type != HV_NONE) {
        in->hv0.eax = 0x4000000C;
        if (s & S_HV_MAX_LOW)
            in->hv0.eax = 0x40000004;
        if (s & S_HV_MAX_HIGH)
            in->hv0.eax = 0x40010000;
        if (s & S_HV_MAX_SHORT)
            in->hv0.eax = 0x4000000A;
        in->hv0.ebx = R4('M', 'i', 'c', 'r');
        in->hv0.ecx = R4('o', 's', 'o', 'f');
        in->hv0.edx = R4('t', ' ', 'H', 'v');
        if (s & S_HV_BAD_SIG)
            in->hv0.edx = R4('t', ' ', 'X', 'X');
        in->hv3.ebx = (s & S_HV_NO_ISO) ? 0 : UINT32_C(1) << 22;
        if (s & S_HV_ROOT)
            in->hv3.ebx |= UINT32_C(1) << 12;
        /* As gather: a leaf beyond the maximum stays zeroed. */
        if (in->hv0.eax >= 0x4000000C)
            in->hvc.ebx = (uint32_t)hv_type;
        in->hvc.eax = 1;
    }
    if (msr != MSR_NONE) {
        in->have_sev_status = 1;
        in->sev_status = (uint64_t)msr;
    }
}

#define COCO_NONE RDRAND_COCO_NONE
#define COCO_SEV RDRAND_COCO_SEV
#define COCO_SEV_ES RDRAND_COCO_SEV_ES
#define COCO_SNP RDRAND_COCO_SEV_SNP
#define COCO_TDX RDRAND_COCO_TDX
#define COCO_HV_SNP RDRAND_COCO_HYPERV_SNP
#define COCO_HV_TDX RDRAND_COCO_HYPERV_TDX
#define COCO_HV_VBS RDRAND_COCO_HYPERV_VBS
#define COCO_UNKNOWN RDRAND_COCO_UNKNOWN_CVM

#define CONFLICT "conflict:tdx+sev"
#define HV_LEAF "cpuid:0x4000000c"
#define SEV_LEAF "cpuid:0x8000001f"
#define MSR "msr:sev_status"
#define PLATFORM_UNREADABLE "unreadable:/sys/devices/platform"
#define PLATFORM_UNMOUNTED "unmounted:/sys/devices/platform"
#define SEV_GUEST_UNREADABLE "unreadable:/sys/devices/platform/sev-guest"

static const struct detect_case detect_cases[] = {
    /* Nothing positive. */
    {"kvm", 0, HV_NONE, MSR_NONE, COCO_NONE, "none"},
    {"no-cpuid", S_NO_CPUID, HV_NONE, MSR_NONE, COCO_NONE, "none"},
    {"no-cpuid-stale-leaves", S_NO_CPUID | S_CPUID_TDX | S_CPUID_SEV, HV_NONE,
     MSR_NONE, COCO_NONE, "none"},
    /* No CPUID, no x86: nothing unseen or even seen names an x86 guest. */
    {"no-cpuid-masked", S_NO_CPUID | S_MASKED, HV_NONE, MSR_NONE, COCO_NONE,
     "none"},
    {"no-cpuid-no-sys", S_NO_CPUID | S_NO_SYS, HV_NONE, MSR_NONE, COCO_NONE,
     "none"},
    {"no-cpuid-tdx-flag", S_NO_CPUID | S_TDX_FLAG, HV_NONE, MSR_NONE, COCO_NONE,
     "none"},
    {"no-cpuid-hyperv", S_NO_CPUID, 2, MSR_NONE, COCO_NONE, "none"},
    {"msr-zero", 0, HV_NONE, 0, COCO_NONE, "none"},
    {"bare-metal", S_NO_HV_BIT, HV_NONE, MSR_NONE, COCO_NONE, "none"},
    /* No real sysfs platform bus: unknown-cvm (SNP could hide there). */
    {"masked", S_MASKED, HV_NONE, MSR_NONE, COCO_UNKNOWN, PLATFORM_UNREADABLE},
    {"masked-msr-zero", S_MASKED, HV_NONE, 0, COCO_UNKNOWN,
     PLATFORM_UNREADABLE},
    {"no-sys", S_NO_SYS, HV_NONE, MSR_NONE, COCO_UNKNOWN, PLATFORM_UNMOUNTED},
    {"standin", S_STANDIN, HV_NONE, MSR_NONE, COCO_UNKNOWN, PLATFORM_UNMOUNTED},
    {"standin-no-hv-bit", S_STANDIN | S_NO_HV_BIT, HV_NONE, MSR_NONE,
     COCO_UNKNOWN, PLATFORM_UNMOUNTED},
    {"no-sys-tdx-cpuid", S_NO_SYS | S_CPUID_TDX, HV_NONE, MSR_NONE, COCO_TDX,
     "cpuid:0x21"},
    {"standin-tsm", S_STANDIN | S_TSM, HV_NONE, MSR_NONE, COCO_UNKNOWN,
     "configfs:tsm"},
    {"standin-sev-cpuid", S_STANDIN | S_CPUID_SEV, HV_NONE, MSR_NONE, COCO_SEV,
     SEV_LEAF},
    /* TDX. */
    {"tdx-flag", S_TDX_FLAG, HV_NONE, MSR_NONE, COCO_TDX, "cpuinfo:tdx_guest"},
    {"tdx-dev", S_DEV_TDX, HV_NONE, MSR_NONE, COCO_TDX, "dev:tdx_guest"},
    {"tdx-cpuid", S_CPUID_TDX, HV_NONE, MSR_NONE, COCO_TDX, "cpuid:0x21"},
    {"tdx-all", S_TDX_FLAG | S_DEV_TDX | S_TSM | S_CPUID_TDX, HV_NONE, MSR_NONE,
     COCO_TDX, "cpuinfo:tdx_guest"},
    {"tdx-cpuid-masked", S_CPUID_TDX | S_MASKED, HV_NONE, MSR_NONE, COCO_TDX,
     "cpuid:0x21"},
    {"tdx-cpuid-no-hv-bit", S_CPUID_TDX | S_NO_HV_BIT, HV_NONE, MSR_NONE,
     COCO_TDX, "cpuid:0x21"},
    {"tdx-leaf-beyond-max", S_CPUID_TDX | S_LOW_BASIC, HV_NONE, MSR_NONE,
     COCO_TDX, "cpuid:0x21"},
    {"tdx-sig-wrong-order", S_CPUID_TDX | S_TDX_BAD_SIG, HV_NONE, MSR_NONE,
     COCO_NONE, "none"},
    {"tdx-cpuid-msr-zero", S_CPUID_TDX, HV_NONE, 0, COCO_TDX, "cpuid:0x21"},
    /* SEV family. */
    {"snp-sysfs", S_SYSFS_SEV, HV_NONE, MSR_NONE, COCO_SNP, "sysfs:sev-guest"},
    {"snp-dev", S_DEV_SEV, HV_NONE, MSR_NONE, COCO_SNP, "dev:sev-guest"},
    {"snp-cpu-sev", S_CPU_SEV, HV_NONE, MSR_NONE, COCO_SNP, "sysfs:cpu/sev"},
    {"sev-cpuid", S_CPUID_SEV, HV_NONE, MSR_NONE, COCO_SEV, SEV_LEAF},
    {"sev-cpuid-masked", S_CPUID_SEV | S_MASKED, HV_NONE, MSR_NONE, COCO_SEV,
     SEV_LEAF},
    {"sev-leaf-beyond-max", S_CPUID_SEV | S_LOW_EXT, HV_NONE, MSR_NONE,
     COCO_NONE, "none"},
    {"sev-cpuid-bare-metal", S_CPUID_SEV | S_NO_HV_BIT, HV_NONE, MSR_NONE,
     COCO_NONE, "none"},
    {"sev-cpuid-msr-zero", S_CPUID_SEV, HV_NONE, 0, COCO_SEV, SEV_LEAF},
    {"sev-cpuid-msr-sev", S_CPUID_SEV, HV_NONE, 0x1, COCO_SEV, MSR},
    {"sev-cpuid-msr-es", S_CPUID_SEV, HV_NONE, 0x3, COCO_SEV_ES, MSR},
    {"sev-cpuid-msr-snp", S_CPUID_SEV, HV_NONE, 0x7, COCO_SNP, MSR},
    {"msr-snp-alone", 0, HV_NONE, 0x7, COCO_SNP, MSR},
    {"msr-snp-bare-metal", S_NO_HV_BIT, HV_NONE, 0x7, COCO_SNP, MSR},
    {"msr-vtom-alone", 0, HV_NONE, 0x8, COCO_SEV, MSR},
    {"msr-es-alone-masked", S_MASKED, HV_NONE, 0x3, COCO_SEV_ES, MSR},
    {"snp-everything",
     S_SYSFS_SEV | S_DEV_SEV | S_CPU_SEV | S_TSM | S_CPUID_SEV, HV_NONE, 0x7,
     COCO_SNP, "sysfs:sev-guest"},
    {"snp-dev-msr-es", S_DEV_SEV, HV_NONE, 0x3, COCO_SNP, "dev:sev-guest"},
    /* configfs-tsm names no platform; anything else may refine it. */
    {"tsm-only", S_TSM, HV_NONE, MSR_NONE, COCO_UNKNOWN, "configfs:tsm"},
    {"tsm-masked-rest", S_TSM | S_MASKED, HV_NONE, MSR_NONE, COCO_UNKNOWN,
     "configfs:tsm"},
    {"tsm-tdx-cpuid", S_TSM | S_CPUID_TDX, HV_NONE, MSR_NONE, COCO_TDX,
     "cpuid:0x21"},
    {"tsm-sev-cpuid", S_TSM | S_CPUID_SEV, HV_NONE, MSR_NONE, COCO_SEV,
     SEV_LEAF},
    {"tsm-sev-cpuid-msr-es", S_TSM | S_CPUID_SEV, HV_NONE, 0x3, COCO_SEV_ES,
     MSR},
    /* Hyper-V. */
    {"hyperv-snp", 0, 2, MSR_NONE, COCO_HV_SNP, HV_LEAF},
    {"hyperv-tdx", 0, 3, MSR_NONE, COCO_HV_TDX, HV_LEAF},
    {"hyperv-vbs", 0, 1, MSR_NONE, COCO_HV_VBS, HV_LEAF},
    {"hyperv-vbs-masked", S_MASKED, 1, MSR_NONE, COCO_HV_VBS, HV_LEAF},
    {"hyperv-vbs-tsm", S_TSM, 1, MSR_NONE, COCO_HV_VBS, HV_LEAF},
    {"hyperv-vbs-sev-cpuid", S_CPUID_SEV, 1, MSR_NONE, COCO_SEV, SEV_LEAF},
    {"hyperv-vbs-no-hv-bit", S_NO_HV_BIT, 1, MSR_NONE, COCO_NONE, "none"},
    {"hyperv-type-none", 0, 0, MSR_NONE, COCO_NONE, "none"},
    {"hyperv-type-unknown", 0, 5, MSR_NONE, COCO_UNKNOWN, HV_LEAF},
    {"hyperv-type-15", 0, 15, MSR_NONE, COCO_UNKNOWN, HV_LEAF},
    {"hyperv-bad-signature", S_HV_BAD_SIG, 2, MSR_NONE, COCO_NONE, "none"},
    /* As Linux: isolation wins over the root-partition bit. */
    {"hyperv-root-partition", S_HV_ROOT, 2, MSR_NONE, COCO_HV_SNP, HV_LEAF},
    {"hyperv-root-vbs", S_HV_ROOT, 1, MSR_NONE, COCO_HV_VBS, HV_LEAF},
    {"hyperv-root-not-isolated", S_HV_ROOT | S_HV_NO_ISO, 2, MSR_NONE,
     COCO_NONE, "none"},
    {"hyperv-not-isolated", S_HV_NO_ISO, 2, MSR_NONE, COCO_NONE, "none"},
    {"hyperv-max-too-low", S_HV_MAX_LOW, 2, MSR_NONE, COCO_NONE, "none"},
    {"hyperv-max-too-high", S_HV_MAX_HIGH, 2, MSR_NONE, COCO_NONE, "none"},
    {"hyperv-max-short", S_HV_MAX_SHORT, 2, MSR_NONE, COCO_UNKNOWN,
     "cpuid:0x40000003"},
    {"hyperv-no-hv-bit", S_NO_HV_BIT, 2, MSR_NONE, COCO_NONE, "none"},
    {"hyperv-snp-masked", S_MASKED, 2, MSR_NONE, COCO_HV_SNP, HV_LEAF},
    {"hyperv-snp-msr-vtom", 0, 2, 0xF, COCO_HV_SNP, HV_LEAF},
    {"hyperv-snp-sysfs", S_SYSFS_SEV, 2, MSR_NONE, COCO_HV_SNP, HV_LEAF},
    {"hyperv-tdx-cpuid", S_CPUID_TDX, 3, MSR_NONE, COCO_HV_TDX, HV_LEAF},
    {"hyperv-tdx-flag", S_TDX_FLAG, 3, MSR_NONE, COCO_HV_TDX, HV_LEAF},
    {"hyperv-vbs-tdx-cpuid", S_CPUID_TDX, 1, MSR_NONE, COCO_TDX, "cpuid:0x21"},
    {"hyperv-unknown-sev-cpuid", S_CPUID_SEV, 5, MSR_NONE, COCO_SEV, SEV_LEAF},
    /* Inputs naming different hardware. */
    {"conflict-tdx-cpuid-sev-dev", S_CPUID_TDX | S_DEV_SEV, HV_NONE, MSR_NONE,
     COCO_UNKNOWN, CONFLICT},
    {"conflict-tdx-flag-sev-sysfs", S_TDX_FLAG | S_SYSFS_SEV, HV_NONE, MSR_NONE,
     COCO_UNKNOWN, CONFLICT},
    {"conflict-tdx-dev-cpu-sev", S_DEV_TDX | S_CPU_SEV, HV_NONE, MSR_NONE,
     COCO_UNKNOWN, CONFLICT},
    {"conflict-cpuid-tdx-sev", S_CPUID_TDX | S_CPUID_SEV, HV_NONE, MSR_NONE,
     COCO_UNKNOWN, CONFLICT},
    {"conflict-tdx-cpuid-msr", S_CPUID_TDX, HV_NONE, 0x1, COCO_UNKNOWN,
     CONFLICT},
    {"conflict-tdx-flag-msr-snp", S_TDX_FLAG, HV_NONE, 0x7, COCO_UNKNOWN,
     CONFLICT},
    {"conflict-hyperv-snp-tdx-cpuid", S_CPUID_TDX, 2, MSR_NONE, COCO_UNKNOWN,
     CONFLICT},
    {"conflict-hyperv-tdx-sev-cpuid", S_CPUID_SEV, 3, MSR_NONE, COCO_UNKNOWN,
     CONFLICT},
    {"conflict-with-tsm", S_TSM | S_TDX_FLAG | S_DEV_SEV, HV_NONE, MSR_NONE,
     COCO_UNKNOWN, CONFLICT},
    {"conflict-masked", S_MASKED | S_CPUID_TDX, HV_NONE, 0x7, COCO_UNKNOWN,
     CONFLICT},
};

static void test_detect_case(void **state)
{
    const struct detect_case *c = *state;
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out = {RDRAND_COCO_UNKNOWN_CVM, NULL};

    build_inputs(c->signals, c->hv_type, c->msr, &in);
    rdrand_coco_detect(&in, &out);
    assert_string_equal(rdrand_coco_platform_name(out.platform),
                        rdrand_coco_platform_name(c->want));
    assert_int_equal(out.platform, c->want);
    assert_non_null(out.signal);
    assert_string_equal(out.signal, c->signal);
}

/*
 * Every combination of inputs against the rule itself, computed here
 * independently: without CPUID the verdict is "none"; otherwise a
 * positive input gives a CoCo platform of its family, both families give
 * a conflict, and when nothing names a platform, a platform bus that is
 * not a readable sysfs directory or a sev-guest entry we could not stat
 * gives unknown-cvm; any other input we could not see says nothing.
 */
static void test_detect_sweep(void **state)
{
    static const int tri[] = {RDRAND_SIGNAL_ABSENT, RDRAND_SIGNAL_PRESENT,
                              RDRAND_SIGNAL_UNKNOWN};
    /* The platform bus: real sysfs, a tmpfs stand-in, missing, unreadable. */
    static const struct {
        int state;
        uint64_t magic;
    } bus[] = {
        {RDRAND_SIGNAL_PRESENT, RDRAND_SYSFS_MAGIC},
        {RDRAND_SIGNAL_PRESENT, TMPFS_MAGIC},
        {RDRAND_SIGNAL_ABSENT, 0},
        {RDRAND_SIGNAL_UNKNOWN, 0},
    };
    static const int hv_types[] = {HV_NONE, 0, 1, 2, 3, 5};
    static const int64_t msrs[] = {MSR_NONE, 0, 0x1, 0x3, 0x7, 0x8};
    unsigned long checked = 0;

    (void)state;
    for (unsigned k = 0; k < 729 * ARRAY_SIZE(bus); k++) {
        int f[6];
        size_t b = k / 729;

        for (unsigned i = 0, v = k % 729; i < 6; i++, v /= 3)
            f[i] = tri[v % 3];
        /* cpu & 8: no CPUID at all, with stale TDX and SEV leaves. */
        for (unsigned cpu = 0; cpu < 9; cpu++) {
            for (size_t h = 0; h < ARRAY_SIZE(hv_types); h++) {
                for (size_t m = 0; m < ARRAY_SIZE(msrs); m++) {
                    unsigned s = 0;
                    struct rdrand_coco_inputs in;
                    struct rdrand_coco_result out = {COCO_NONE, NULL};
                    int tdx, sev, vbs, any, unseen, hv = !(cpu & 4);

                    if (cpu & 1 || cpu == 8)
                        s |= S_CPUID_TDX;
                    if (cpu & 2 || cpu == 8)
                        s |= S_CPUID_SEV;
                    if (cpu & 4)
                        s |= S_NO_HV_BIT;
                    if (cpu == 8)
                        s |= S_NO_CPUID;
                    build_inputs(s, hv_types[h], msrs[m], &in);
                    /* cpuinfo: tdx_guest seen whole, or not. */
                    in.cpuinfo_tdx_guest = f[0] == RDRAND_SIGNAL_PRESENT;
                    in.dev_tdx_guest = f[1];
                    in.sysfs_sev_guest = f[2];
                    in.dev_sev_guest = f[3];
                    in.sysfs_cpu_sev = f[4];
                    in.configfs_tsm = f[5];
                    in.sysfs_platform = bus[b].state;
                    in.sysfs_platform_magic = bus[b].magic;
                    rdrand_coco_detect(&in, &out);
                    checked++;

                    assert_non_null(out.signal);
                    if (cpu == 8) {
                        assert_int_equal(out.platform, COCO_NONE);
                        assert_string_equal(out.signal, "none");
                        continue;
                    }
                    tdx = f[0] == RDRAND_SIGNAL_PRESENT
                          || f[1] == RDRAND_SIGNAL_PRESENT || (cpu & 1)
                          || (hv && hv_types[h] == 3);
                    sev = f[2] == RDRAND_SIGNAL_PRESENT
                          || f[3] == RDRAND_SIGNAL_PRESENT
                          || f[4] == RDRAND_SIGNAL_PRESENT || ((cpu & 2) && hv)
                          || (hv && hv_types[h] == 2) || msrs[m] > 0;
                    vbs = hv && hv_types[h] == 1;
                    any = f[5] == RDRAND_SIGNAL_PRESENT
                          || (hv && hv_types[h] == 5);
                    unseen = b != 0 || f[2] == RDRAND_SIGNAL_UNKNOWN;

                    if (tdx && sev) {
                        assert_int_equal(out.platform, COCO_UNKNOWN);
                        assert_string_equal(out.signal, CONFLICT);
                    } else if (tdx) {
                        assert_true(out.platform == COCO_TDX
                                    || out.platform == COCO_HV_TDX);
                    } else if (sev) {
                        assert_true(out.platform == COCO_SEV
                                    || out.platform == COCO_SEV_ES
                                    || out.platform == COCO_SNP
                                    || out.platform == COCO_HV_SNP);
                    } else if (vbs) {
                        assert_int_equal(out.platform, COCO_HV_VBS);
                    } else if (any) {
                        assert_int_equal(out.platform, COCO_UNKNOWN);
                    } else if (unseen) {
                        assert_int_equal(out.platform, COCO_UNKNOWN);
                        assert_true(strncmp(out.signal, "un", 2) == 0);
                    } else {
                        assert_int_equal(out.platform, COCO_NONE);
                        assert_string_equal(out.signal, "none");
                    }
                }
            }
        }
    }
    assert_int_equal(checked, 729UL * ARRAY_SIZE(bus) * 9 * 6 * 6);
}

/*
 * Each kernel input alone unseen: only the platform bus and its
 * sev-guest entry vote, naming themselves; the rest say nothing.
 */
static void test_detect_unreadable_each(void **state)
{
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;
    static const struct {
        size_t field;
        int value;
        enum rdrand_coco_platform want;
        const char *signal;
    } rows[] = {
        {offsetof(struct rdrand_coco_inputs, sysfs_platform),
         RDRAND_SIGNAL_UNKNOWN, COCO_UNKNOWN, PLATFORM_UNREADABLE},
        {offsetof(struct rdrand_coco_inputs, sysfs_platform),
         RDRAND_SIGNAL_ABSENT, COCO_UNKNOWN, PLATFORM_UNMOUNTED},
        {offsetof(struct rdrand_coco_inputs, sysfs_sev_guest),
         RDRAND_SIGNAL_UNKNOWN, COCO_UNKNOWN, SEV_GUEST_UNREADABLE},
        {offsetof(struct rdrand_coco_inputs, dev_tdx_guest),
         RDRAND_SIGNAL_UNKNOWN, COCO_NONE, "none"},
        {offsetof(struct rdrand_coco_inputs, dev_sev_guest),
         RDRAND_SIGNAL_UNKNOWN, COCO_NONE, "none"},
        {offsetof(struct rdrand_coco_inputs, sysfs_cpu_sev),
         RDRAND_SIGNAL_UNKNOWN, COCO_NONE, "none"},
        {offsetof(struct rdrand_coco_inputs, configfs_tsm),
         RDRAND_SIGNAL_UNKNOWN, COCO_NONE, "none"},
    };

    (void)state;
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        build_inputs(0, HV_NONE, MSR_NONE, &in);
        *(int *)((char *)&in + rows[i].field) = rows[i].value;
        rdrand_coco_detect(&in, &out);
        assert_int_equal(out.platform, rows[i].want);
        assert_string_equal(out.signal, rows[i].signal);
        /* Any specific vote still names its platform. */
        build_inputs(S_CPUID_SEV, HV_NONE, MSR_NONE, &in);
        *(int *)((char *)&in + rows[i].field) = rows[i].value;
        rdrand_coco_detect(&in, &out);
        assert_int_equal(out.platform, COCO_SEV);
    }
    /* A directory there that is not sysfs is no view of the kernel's. */
    build_inputs(0, HV_NONE, MSR_NONE, &in);
    in.sysfs_platform_magic = UINT64_C(0x9fa0); /* procfs */
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_UNKNOWN);
    assert_string_equal(out.signal, PLATFORM_UNMOUNTED);
    /* The MSR is unreadable on every unprivileged run. */
    build_inputs(0, HV_NONE, MSR_NONE, &in);
    assert_int_equal(in.have_sev_status, 0);
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_NONE);
}

static void test_platform_names(void **state)
{
    static const char *const want[] = {
        "none",       "sev",        "sev-es",     "sev-snp",     "tdx",
        "hyperv-snp", "hyperv-tdx", "hyperv-vbs", "unknown-cvm",
    };

    (void)state;
    assert_int_equal(ARRAY_SIZE(want), RDRAND_COCO_UNKNOWN_CVM + 1);
    for (int p = RDRAND_COCO_NONE; p <= RDRAND_COCO_UNKNOWN_CVM; p++)
        assert_string_equal(
            rdrand_coco_platform_name((enum rdrand_coco_platform)p), want[p]);
    assert_string_equal(
        rdrand_coco_platform_name((enum rdrand_coco_platform)99),
        "unknown-cvm");
}

/* ---------------------------------------------------------------------- */
/* gather + detect over the simulated guests                              */

struct sim_case {
    const char *platform;
    enum rdrand_coco_platform want;
    const char *signal;
};

/* What each sim guest must be detected as; every sim name appears once. */
static const struct sim_case sim_cases[] = {
    {"none", COCO_NONE, "none"},
    {"sev", COCO_SEV, SEV_LEAF},
    {"sev-es", COCO_SEV, SEV_LEAF},
    {"sev-es-msr", COCO_SEV_ES, MSR},
    {"sev-snp", COCO_SNP, "sysfs:sev-guest"},
    {"sev-snp-msr", COCO_SNP, "sysfs:sev-guest"},
    {"sev-snp-masked", COCO_SEV, SEV_LEAF},
    {"sev-leaf-hidden", COCO_NONE, "none"},
    {"epyc-host", COCO_NONE, "none"},
    {"tdx", COCO_TDX, "cpuinfo:tdx_guest"},
    {"tdx-masked", COCO_TDX, "cpuid:0x21"},
    {"tdx-leaf-hidden", COCO_TDX, "cpuid:0x21"},
    {"tdx-lookalike", COCO_NONE, "none"},
    {"intel-vm", COCO_NONE, "none"},
    {"hyperv-snp", COCO_HV_SNP, HV_LEAF},
    {"hyperv-tdx", COCO_HV_TDX, HV_LEAF},
    {"hyperv-vbs", COCO_HV_VBS, HV_LEAF},
    {"hyperv-vm", COCO_NONE, "none"},
    {"hyperv-short-max", COCO_UNKNOWN, "cpuid:0x40000003"},
    {"hv-bit-clear", COCO_NONE, "none"},
    {"tsm-only", COCO_UNKNOWN, "configfs:tsm"},
    {"tsm-unreadable", COCO_NONE, "none"},
    {"masked", COCO_UNKNOWN, PLATFORM_UNREADABLE},
    {"unmounted", COCO_UNKNOWN, PLATFORM_UNMOUNTED},
    {"conflict-tdx-sev", COCO_UNKNOWN, CONFLICT},
    {"hyperv-root-isolated", COCO_HV_SNP, HV_LEAF},
    {"proc-subset-pid", COCO_NONE, "none"},
    {"cpuinfo-cut", COCO_NONE, "none"},
    {"dev-unreadable", COCO_NONE, "none"},
    {"snp-sysfs-standin", COCO_UNKNOWN, PLATFORM_UNMOUNTED},
    {"snp-no-platform", COCO_UNKNOWN, PLATFORM_UNMOUNTED},
    {"snp-sev-guest-unreadable", COCO_UNKNOWN, SEV_GUEST_UNREADABLE},
};

static int sim_teardown(void **state)
{
    (void)state;
    assert_true(rdrand_sim_coco_select("none"));
    return 0;
}

static void test_sim_case(void **state)
{
    /* Whole reads, and reads cut short at awkward places. */
    static const size_t chunks[] = {0, 1, 7, 1000};
    const struct sim_case *c = *state;

    for (size_t i = 0; i < ARRAY_SIZE(chunks); i++) {
        struct rdrand_coco_inputs in;
        struct rdrand_coco_result out = {RDRAND_COCO_UNKNOWN_CVM, NULL};

        fake_reset(chunks[i]);
        assert_true(rdrand_sim_coco_select(c->platform));
        rdrand_coco_gather(&in);
        rdrand_coco_detect(&in, &out);
        assert_int_equal(fake.violations, 0);
        assert_true(fake.cpuinfo_reach <= CPUINFO_LIMIT);
        assert_int_equal(in.have_cpuid, 1);
        assert_string_equal(rdrand_coco_platform_name(out.platform),
                            rdrand_coco_platform_name(c->want));
        assert_int_equal(out.platform, c->want);
        assert_non_null(out.signal);
        assert_string_equal(out.signal, c->signal);
    }
}

/* The sim's list and ours must name the same guests, so none goes untested. */
static void test_sim_names(void **state)
{
    const char *p = rdrand_sim_coco_names();
    size_t listed = 0;

    (void)state;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        char name[64];
        size_t i;

        assert_true(n > 0 && n < sizeof(name));
        memcpy(name, p, n);
        name[n] = '\0';
        for (i = 0; i < ARRAY_SIZE(sim_cases); i++) {
            if (strcmp(sim_cases[i].platform, name) == 0)
                break;
        }
        if (i == ARRAY_SIZE(sim_cases))
            fail_msg("sim platform '%s' has no expected verdict", name);
        assert_true(rdrand_sim_coco_select(name));
        listed++;
        p += n;
        p += strspn(p, ", ");
    }
    assert_int_equal(listed, ARRAY_SIZE(sim_cases));
}

/* An unknown name is refused and leaves the selection alone. */
static void test_sim_select_unknown(void **state)
{
    struct rdrand_cpuid r;

    (void)state;
    assert_true(rdrand_sim_coco_select("tdx"));
    assert_false(rdrand_sim_coco_select("tdx2"));
    assert_false(rdrand_sim_coco_select(""));
    assert_false(rdrand_sim_coco_select(NULL));
    assert_true(rdrand_sim_coco_cpuid(0x21, 0, &r));
    assert_int_equal(r.ebx, R4('I', 'n', 't', 'e'));
    assert_false(rdrand_sim_coco_cpuid(0x21, 1, &r));
    assert_int_equal(rdrand_sim_coco_path_exists("/dev/tdx_guest"), 1);
    assert_int_equal(rdrand_sim_coco_path_exists("/dev/tdx_guestx"), -2);
    assert_int_equal(rdrand_sim_coco_path_exists("/dev/sev-guest"), -2);
    assert_true(rdrand_sim_coco_select("none"));
    assert_false(rdrand_sim_coco_cpuid(0, 0, &r));
    assert_int_equal(rdrand_sim_coco_path_exists("/dev/tdx_guest"), -2);
}

/* ---------------------------------------------------------------------- */
/* gather's edges                                                         */

static void test_gather_no_cpuid(void **state)
{
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;

    (void)state;
    fake_reset(0);
    fake.no_cpuid = 1;
    assert_true(rdrand_sim_coco_select("tdx"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.have_cpuid, 0);
    assert_int_equal(in.leaf0.eax, 0);
    assert_int_equal(in.cpuinfo_tdx_guest, 1);
    /* Not x86 (aarch64 has no flags line): no x86 guest, no RDRAND. */
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_NONE);
    assert_string_equal(out.signal, "none");
    fake_reset(0);
    fake.no_cpuid = 1;
    assert_true(rdrand_sim_coco_select("masked"));
    rdrand_coco_gather(&in);
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_NONE);
}

/* A CPU whose leaf 0 announces no leaf 1: leaf 1 is not read. */
static void test_gather_no_leaf1(void **state)
{
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;
    static const struct rdrand_cpuid zero;

    (void)state;
    fake_reset(0);
    fake.basic_max_zero = 1;
    assert_true(rdrand_sim_coco_select("none"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.have_cpuid, 1);
    assert_int_equal(in.leaf0.eax, 0);
    assert_int_equal(fake.seen_leaf1, 0);
    assert_memory_equal(&in.leaf1, &zero, sizeof(zero));
    assert_int_equal(fake.seen_hv0, 0); /* no hypervisor bit read either */
    assert_int_equal(fake.violations, 0);
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_NONE);
}

static void test_gather_msr(void **state)
{
    struct rdrand_coco_inputs in;

    (void)state;
    fake_reset(0);
    assert_true(rdrand_sim_coco_select("sev-snp-msr"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.have_sev_status, 1);
    assert_int_equal(in.sev_status, 0x7);
    assert_int_equal(in.sysfs_sev_guest, RDRAND_SIGNAL_PRESENT);
    assert_int_equal(in.dev_sev_guest, RDRAND_SIGNAL_PRESENT);
    assert_int_equal(in.configfs_tsm, RDRAND_SIGNAL_PRESENT);
    assert_int_equal(in.sysfs_cpu_sev, RDRAND_SIGNAL_PRESENT);
    assert_int_equal(in.dev_tdx_guest, RDRAND_SIGNAL_ABSENT);
    assert_int_equal(in.cpuinfo_tdx_guest, 0);
    assert_int_equal(in.sysfs_platform, RDRAND_SIGNAL_PRESENT);
    assert_true(in.sysfs_platform_magic == RDRAND_SYSFS_MAGIC);

    /* A short read is no reading at all. */
    fake_reset(0);
    fake.msr_result = 4;
    rdrand_coco_gather(&in);
    assert_int_equal(in.have_sev_status, 0);
    assert_int_equal(in.sev_status, 0);

    fake_reset(0);
    assert_true(rdrand_sim_coco_select("sev-snp"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.have_sev_status, 0);
}

/* gather on a sim platform whose kernel inputs all read as state. */
static void gather_all_kernel_inputs(const char *platform, int state)
{
    struct rdrand_coco_inputs in;

    fake_reset(0);
    assert_true(rdrand_sim_coco_select(platform));
    rdrand_coco_gather(&in);
    assert_int_equal(in.cpuinfo_tdx_guest, 0);
    assert_int_equal(in.sysfs_platform, state);
    assert_int_equal(in.sysfs_sev_guest, state);
    assert_int_equal(in.dev_sev_guest, state);
    assert_int_equal(in.dev_tdx_guest, state);
    assert_int_equal(in.configfs_tsm, state);
    assert_int_equal(in.sysfs_cpu_sev, state);
    assert_int_equal(in.have_sev_status, 0);
}

static void test_gather_masked(void **state)
{
    (void)state;
    gather_all_kernel_inputs("masked", RDRAND_SIGNAL_UNKNOWN);
}

/* A chroot without /proc or /sys: ENOENT everywhere, no file readable. */
static void test_gather_unmounted(void **state)
{
    struct rdrand_coco_inputs in;

    (void)state;
    gather_all_kernel_inputs("unmounted", RDRAND_SIGNAL_ABSENT);

    /* One unreadable directory: only what lies below it. */
    fake_reset(0);
    assert_true(rdrand_sim_coco_select("tsm-unreadable"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.sysfs_platform, RDRAND_SIGNAL_PRESENT);
    assert_int_equal(in.configfs_tsm, RDRAND_SIGNAL_UNKNOWN);
    assert_int_equal(in.sysfs_sev_guest, RDRAND_SIGNAL_ABSENT);

    /* A stand-in: there, but not sysfs. */
    fake_reset(0);
    assert_true(rdrand_sim_coco_select("snp-sysfs-standin"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.sysfs_platform, RDRAND_SIGNAL_PRESENT);
    assert_true(in.sysfs_platform_magic == TMPFS_MAGIC);
    assert_int_equal(in.sysfs_sev_guest, RDRAND_SIGNAL_ABSENT);
    fake_reset(0);
    assert_true(rdrand_sim_coco_select("snp-no-platform"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.sysfs_platform, RDRAND_SIGNAL_ABSENT);
}

/*
 * Leaf 0x21 is read on every CPU; beyond the maximum the sim answers as
 * real CPUs do, and neither answer is taken for TDX.
 */
static void test_sim_leaf_beyond_max(void **state)
{
    struct rdrand_cpuid r, top;
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;

    (void)state;
    /* Intel: the highest basic leaf's answer. */
    assert_true(rdrand_sim_coco_select("intel-vm"));
    assert_true(rdrand_sim_coco_cpuid(0x21, 0, &r));
    assert_true(rdrand_sim_coco_cpuid(0x1F, 0, &top));
    assert_int_not_equal(top.eax | top.ebx | top.ecx | top.edx, 0);
    assert_memory_equal(&r, &top, sizeof(r));
    assert_true(rdrand_sim_coco_cpuid(0x80000021, 0, &r));
    assert_memory_equal(&r, &top, sizeof(r));
    fake_reset(0);
    rdrand_coco_gather(&in);
    assert_memory_equal(&in.leaf21, &top, sizeof(top));
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_NONE);
    /* AMD: zeros. */
    assert_true(rdrand_sim_coco_select("sev"));
    memset(&r, 0xA5, sizeof(r));
    assert_true(rdrand_sim_coco_cpuid(0x21, 0, &r));
    assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
    /* A listed leaf answers beyond the maximum (the TDX module). */
    assert_true(rdrand_sim_coco_select("tdx-leaf-hidden"));
    assert_true(rdrand_sim_coco_cpuid(0, 0, &r));
    assert_true(r.eax < 0x21);
    fake_reset(0);
    rdrand_coco_gather(&in);
    assert_int_equal(in.leaf0.eax, 0x20);
    assert_int_equal(in.leaf21.ebx, R4('I', 'n', 't', 'e'));
    /* Within the maximum nothing changes: not the sim's concern. */
    assert_true(rdrand_sim_coco_select("intel-vm"));
    assert_false(rdrand_sim_coco_cpuid(0x1E, 0, &r));
    assert_false(rdrand_sim_coco_cpuid(0x40000000, 0, &r));
}

/* ---------------------------------------------------------------------- */
/* /proc/cpuinfo                                                          */

struct cpuinfo_case {
    const char *name;
    const char *text;
    int found; /* tdx_guest seen whole on the first flags line */
};

static const struct cpuinfo_case cpuinfo_cases[] = {
    {"middle", "processor\t: 0\nflags\t\t: fpu tdx_guest rdrand\n", 1},
    {"last", "flags\t\t: fpu rdrand tdx_guest\nbugs\t\t: x\n", 1},
    {"first", "flags\t\t: tdx_guest fpu\n", 1},
    /* The kernel ends every line: EOF inside one is a read cut short. */
    {"no-final-newline", "flags\t\t: fpu tdx_guest", 0},
    {"no-final-newline-blank", "flags\t\t: fpu tdx_guest ", 1},
    {"tight", "flags:tdx_guest\n", 1},
    {"tabs", "flags\t:\ttdx_guest\tfpu\n", 1},
    {"long-key-first",
     "a key much longer than the buffer : tdx_guest\n"
     "flags\t\t: tdx_guest\n",
     1},
    {"absent", "processor\t: 0\nflags\t\t: fpu rdrand hypervisor\n", 0},
    {"absent-no-newline", "flags\t\t: fpu rdrand", 0},
    {"longer-word", "flags\t\t: tdx_guestx\n", 0},
    {"long-word-ending-in-it", "flags\t\t: averyveryverylongtdx_guest\n", 0},
    {"after-a-long-word", "flags\t\t: averyveryverylongword tdx_guest\n", 1},
    {"prefixed-word", "flags\t\t: xtdx_guest\n", 0},
    {"shorter-word", "flags\t\t: tdx_gues\n", 0},
    {"empty-flags", "flags\t\t:\n", 0},
    {"vmx-flags-first", "vmx flags\t: tdx_guest\nflags\t\t: fpu\n", 0},
    {"second-flags-only", "flags\t\t: fpu\n\nflags\t\t: tdx_guest\n", 0},
    {"other-key", "bugs\t\t: tdx_guest\n", 0},
    {"flagsx-key", "flagsx\t: tdx_guest\n", 0},
    {"long-key", "flagsflagsflagsflags\t: tdx_guest\n", 0},
    {"no-colon", "flags tdx_guest\n", 0},
    /* A key of blanks alone, or none, is no flags key. */
    {"blank-key", " \t : tdx_guest\nflags\t\t: tdx_guest\n", 1},
    {"blank-key-only", " \t : tdx_guest\n", 0},
    {"empty-key", ": tdx_guest\n", 0},
    {"empty", "", 0},
};

/*
 * /proc/cpuinfo only ever adds a tdx vote; whatever it lacks or hides,
 * the rest of a plain KVM guest stays "none".
 */
static void run_cpuinfo(const char *text, size_t len, size_t chunk,
                        int fail_after, int found)
{
    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;

    fake_reset(chunk);
    fake.cpuinfo = text;
    fake.cpuinfo_len = len;
    fake.cpuinfo_fail_after = fail_after;
    assert_true(rdrand_sim_coco_select("none"));
    rdrand_coco_gather(&in);
    assert_true(fake.cpuinfo_reach <= CPUINFO_LIMIT);
    rdrand_coco_detect(&in, &out);
    assert_int_equal(in.cpuinfo_tdx_guest, found);
    assert_int_equal(out.platform, found ? COCO_TDX : COCO_NONE);
    assert_string_equal(out.signal, found ? "cpuinfo:tdx_guest" : "none");
}

static void test_cpuinfo_case(void **state)
{
    static const size_t chunks[] = {0, 1, 2, 3, 5, 1024};
    const struct cpuinfo_case *c = *state;

    for (size_t i = 0; i < ARRAY_SIZE(chunks); i++)
        run_cpuinfo(c->text, strlen(c->text), chunks[i], 0, c->found);
}

static void test_cpuinfo_unreadable(void **state)
{
    static const char text[] = "processor\t: 0\nflags\t\t: fpu tdx_guest\n";
    static const char more[] = "flags\t\t: tdx_guest fpu rdrand\nbugs\t: x\n";

    struct rdrand_coco_inputs in;
    struct rdrand_coco_result out;

    (void)state;
    /* Hidden (ProcSubset=pid) or unreadable: no vote at all. */
    fake_reset(0);
    assert_true(rdrand_sim_coco_select("proc-subset-pid"));
    rdrand_coco_gather(&in);
    assert_int_equal(in.cpuinfo_tdx_guest, 0);
    rdrand_coco_detect(&in, &out);
    assert_int_equal(out.platform, COCO_NONE);
    /* Failing before the flags line. */
    run_cpuinfo(text, strlen(text), 4, 1, 0);
    /* Failing inside the word: it might have gone on, "tdx_guestx". */
    run_cpuinfo(text, strlen(text), 1, (int)strlen(text) - 1, 0);
    /* Failing after the whole word was seen changes nothing. */
    run_cpuinfo(more, strlen(more), 1, (int)(strstr(more, " fpu") - more) + 1,
                1);
    /* The first flags line decides; the rest is never read. */
    run_cpuinfo(more, strlen(more), 1, (int)(strchr(more, 'b') - more), 1);
    /* A read claiming more than was asked is not believed: no vote. */
    fake_reset(0);
    fake.cpuinfo = more;
    fake.cpuinfo_len = strlen(more);
    fake.cpuinfo_overlong = 1;
    rdrand_coco_gather(&in);
    assert_int_equal(in.cpuinfo_tdx_guest, 0);
    assert_int_equal(fake.cpuinfo_reads, 1);
}

static char big_cpuinfo[CPUINFO_LIMIT + 4096];

/* Lines of filler up to offset at, then text, then more filler. */
static size_t build_big(size_t at, const char *text)
{
    size_t len = strlen(text);

    memset(big_cpuinfo, 'x', sizeof(big_cpuinfo));
    for (size_t i = 63; i < sizeof(big_cpuinfo); i += 64) {
        big_cpuinfo[i - 2] = ':';
        big_cpuinfo[i] = '\n';
    }
    assert_true(at + len <= sizeof(big_cpuinfo));
    big_cpuinfo[at - 1] = '\n';
    memcpy(big_cpuinfo + at, text, len);
    return sizeof(big_cpuinfo);
}

static void test_cpuinfo_limit(void **state)
{
    static const char last[] = "flags\t\t: tdx_guest fpu\n";
    size_t len;

    (void)state;
    /* A flags line that begins past 64 KiB is never read. */
    len = build_big(CPUINFO_LIMIT + 64, "flags\t\t: tdx_guest\n");
    run_cpuinfo(big_cpuinfo, len, 0, 0, 0);
    run_cpuinfo(big_cpuinfo, len, 4000, 0, 0);
    /* One cut by the limit before the word: nothing can be said. */
    len = build_big(CPUINFO_LIMIT - 20, "flags\t\t: fpu rdrand tdx_guest\n");
    run_cpuinfo(big_cpuinfo, len, 0, 0, 0);
    /* One cut by the limit after the word: the word was seen. */
    len = build_big(CPUINFO_LIMIT - 30, "flags\t\t: tdx_guest fpu rdrand\n");
    run_cpuinfo(big_cpuinfo, len, 0, 0, 1);
    /* The blank that ends the word is the limit's last byte: read. */
    len = build_big(CPUINFO_LIMIT - strlen("flags\t\t: tdx_guest "), last);
    run_cpuinfo(big_cpuinfo, len, 0, 0, 1);
    run_cpuinfo(big_cpuinfo, len, 7, 0, 1);
    /* One byte further, and the word is cut by the limit. */
    len = build_big(CPUINFO_LIMIT - strlen("flags\t\t: tdx_guest"), last);
    run_cpuinfo(big_cpuinfo, len, 0, 0, 0);
    /* Far down, but within the limit. */
    len = build_big(CPUINFO_LIMIT - 200, "flags\t\t: fpu tdx_guest\n");
    run_cpuinfo(big_cpuinfo, len, 3, 0, 1);
    len = build_big(CPUINFO_LIMIT - 200, "flags\t\t: fpu tdx_guests\n");
    run_cpuinfo(big_cpuinfo, len, 0, 0, 0);
}

/*
 * A FUSE /proc (lxcfs, direct_io) answers a fresh open at an offset other
 * than 0 with EOF: only the first read counts.  It is 4 KiB, enough for
 * the first flags line of real machines, which may end past 1 KiB.
 */
static int first_read_finds(size_t at, int eof_past_zero)
{
    struct rdrand_coco_inputs in;

    fake_reset(0);
    fake.cpuinfo = big_cpuinfo;
    fake.cpuinfo_len = build_big(at, "flags\t\t: fpu tdx_guest rdrand\n");
    fake.eof_past_zero = eof_past_zero;
    assert_true(rdrand_sim_coco_select("none"));
    rdrand_coco_gather(&in);
    return in.cpuinfo_tdx_guest;
}

static void test_cpuinfo_first_read(void **state)
{
    (void)state;
    assert_int_equal(first_read_finds(1100, 1), 1);
    assert_int_equal(first_read_finds(4000, 1), 1);
    /* Beyond the first read only a real file shows it. */
    assert_int_equal(first_read_finds(4200, 1), 0);
    assert_int_equal(first_read_finds(4200, 0), 1);
}

/* ---------------------------------------------------------------------- */

static const struct CMUnitTest fixed_tests[] = {
    cmocka_unit_test(test_detect_sweep),
    cmocka_unit_test(test_detect_unreadable_each),
    cmocka_unit_test(test_platform_names),
    cmocka_unit_test(test_sim_names),
    cmocka_unit_test(test_sim_select_unknown),
    cmocka_unit_test(test_gather_no_cpuid),
    cmocka_unit_test(test_gather_no_leaf1),
    cmocka_unit_test(test_gather_msr),
    cmocka_unit_test(test_gather_masked),
    cmocka_unit_test(test_gather_unmounted),
    cmocka_unit_test(test_sim_leaf_beyond_max),
    cmocka_unit_test(test_cpuinfo_unreadable),
    cmocka_unit_test(test_cpuinfo_limit),
    cmocka_unit_test(test_cpuinfo_first_read),
};

static struct CMUnitTest
    tests[ARRAY_SIZE(fixed_tests) + ARRAY_SIZE(detect_cases)
          + ARRAY_SIZE(sim_cases) + ARRAY_SIZE(cpuinfo_cases)];
static char test_names[ARRAY_SIZE(tests)][64];

/* One named test per table row, so a failure names its row. */
static size_t add_rows(size_t n, const char *prefix, CMUnitTestFunction fn,
                       CMFixtureFunction teardown, const void *rows,
                       size_t size, size_t count)
{
    for (size_t i = 0; i < count; i++, n++) {
        const void *row = (const char *)rows + i * size;

        /* Every row struct starts with its name. */
        snprintf(test_names[n], sizeof(test_names[n]), "%s/%s", prefix,
                 *(const char *const *)row);
        tests[n] =
            (struct CMUnitTest){test_names[n], fn, NULL, teardown, (void *)row};
    }
    return n;
}

#define ADD_ROWS(n, prefix, fn, teardown, rows)                                \
    add_rows(n, prefix, fn, teardown, rows, sizeof((rows)[0]), ARRAY_SIZE(rows))

int main(void)
{
    size_t n = 0;

    for (size_t i = 0; i < ARRAY_SIZE(fixed_tests); i++)
        tests[n++] = fixed_tests[i];
    n = ADD_ROWS(n, "detect", test_detect_case, NULL, detect_cases);
    n = ADD_ROWS(n, "sim", test_sim_case, sim_teardown, sim_cases);
    n = ADD_ROWS(n, "cpuinfo", test_cpuinfo_case, NULL, cpuinfo_cases);
    if (n != ARRAY_SIZE(tests))
        return 1;
    return cmocka_run_group_tests_name("coco_detect", tests, NULL,
                                       sim_teardown);
}

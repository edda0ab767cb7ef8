/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What each kind of guest shows an unprivileged process: CPUID leaves and
 * the kernel's files.  Entries describe the guest, never the verdict we
 * expect from it; tests/unit/test_coco_detect.c holds the verdicts.
 * Whatever an entry leaves out is answered by the base sim (a KVM guest on
 * an AMD host), except a CPUID leaf beyond the maximum that leaf 0 or
 * 0x80000000 states: that one is answered as real CPUs do, with zeros on
 * AMD and with the highest basic leaf's answer on Intel.  A leaf an entry
 * lists answers even beyond the maximum, as the TDX module answers 0x21.
 */
#include "sim.h"

#include <string.h>

#define R4(a, b, c, d)                                                         \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16                  \
     | (uint32_t)(d) << 24)

/* Signatures as CPUID spreads them over EBX, ECX, EDX. */
#define INTEL                                                                  \
    R4('G', 'e', 'n', 'u'), R4('n', 't', 'e', 'l'), R4('i', 'n', 'e', 'I')
#define AMD                                                                    \
    R4('A', 'u', 't', 'h'), R4('c', 'A', 'M', 'D'), R4('e', 'n', 't', 'i')
#define MSHV                                                                   \
    R4('M', 'i', 'c', 'r'), R4('o', 's', 'o', 'f'), R4('t', ' ', 'H', 'v')
/* "IntelTDX    " is read EBX, EDX, ECX. */
#define TDX                                                                    \
    R4('I', 'n', 't', 'e'), R4(' ', ' ', ' ', ' '), R4('l', 'T', 'D', 'X')

#define SEV_BIT (UINT32_C(1) << 1)
#define SEV_ES_BIT (UINT32_C(1) << 3)
#define SEV_SNP_BIT (UINT32_C(1) << 4)
#define SNP_EAX (SEV_BIT | SEV_ES_BIT | SEV_SNP_BIT)
#define HV_ISOLATION (UINT32_C(1) << 22)
#define HV_PARAVISOR UINT32_C(1)
#define HV_ROOT (UINT32_C(1) << 12)

#define ANY_SUBLEAF (-1L)
/* The base sim's maxima (tests/sim/hw_sim.c). */
#define BASE_MAX_BASIC UINT32_C(0x16)
#define BASE_MAX_EXT UINT32_C(0x80000008)
#define SEV_STATUS_MSR 0xC0010131u
#define MSR_PATH "/dev/cpu/0/msr"
#define CPUINFO_PATH "/proc/cpuinfo"
/* statfs f_type values (linux/magic.h) */
#define SYSFS_MAGIC UINT64_C(0x62656572)
#define CONFIGFS_MAGIC UINT64_C(0x62656570)
#define PROC_MAGIC UINT64_C(0x9fa0)
#define TMPFS_MAGIC UINT64_C(0x01021994)

struct sim_leaf {
    uint32_t leaf;
    long subleaf; /* or ANY_SUBLEAF where the leaf ignores ECX */
    struct rdrand_cpuid r;
};

struct sim_coco_platform {
    const char *name;
    const struct sim_leaf *leaves;
    size_t nleaves;
    const char *const *paths;      /* present, NULL-terminated; may be NULL */
    const char *const *unreadable; /* stat fails with EACCES; may be NULL */
    const char *const *missing;    /* hidden: ENOENT, even base paths */
    const char *standin;           /* a tmpfs mounted over this directory */
    const char *cpuinfo;           /* NULL: the base sim's */
    int masked;    /* a container: /sys, /dev, /proc/cpuinfo unreadable */
    int unmounted; /* a chroot: no /sys, no /proc (ENOENT), no guest nodes */
    int have_msr;  /* SEV_STATUS readable (CAP_SYS_RAWIO) */
    uint64_t sev_status;
};

#define LEAVES(a) (a), sizeof(a) / sizeof((a)[0])

/* 0x8000001F EBX: C-bit at 51, one bit of physical address lost. */
#define SEV_EBX (51u | 1u << 6)

static const struct sim_leaf sev_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x80000000, ANY_SUBLEAF, {0x80000021, AMD}},
    {0x8000001F, ANY_SUBLEAF, {SEV_BIT, SEV_EBX, 0, 0}},
};

static const struct sim_leaf sev_es_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x80000000, ANY_SUBLEAF, {0x80000021, AMD}},
    {0x8000001F, ANY_SUBLEAF, {SEV_BIT | SEV_ES_BIT, SEV_EBX, 0, 0}},
};

static const struct sim_leaf sev_snp_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x80000000, ANY_SUBLEAF, {0x80000021, AMD}},
    {0x8000001F, ANY_SUBLEAF, {SNP_EAX, SEV_EBX, 0, 0}},
};

/* The SEV bit is there, but beyond the extended maximum (0x80000008). */
static const struct sim_leaf sev_hidden_leaves[] = {
    {0x8000001F, ANY_SUBLEAF, {SEV_BIT, SEV_EBX, 0, 0}},
};

/* Bare metal: 0x8000001F lists what the host offers, not what we are. */
static const struct sim_leaf epyc_host_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x00000001, ANY_SUBLEAF, {0x00A00F11, 0x00800800, 0x7EF8320B, 0x178BFBFF}},
    {0x80000000, ANY_SUBLEAF, {0x80000028, AMD}},
    /* Bit 0 is SME, for the host's own memory. */
    {0x8000001F, ANY_SUBLEAF, {1 | SNP_EAX, SEV_EBX, 509, 100}},
};

static const struct sim_leaf tdx_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x23, INTEL}},
    {0x00000021, 0, {0, TDX}},
};

/* Leaf 0x21 answers (the TDX module), but leaf 0 stops before it. */
static const struct sim_leaf tdx_hidden_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x20, INTEL}},
    {0x00000021, 0, {0, TDX}},
};

static const struct sim_leaf hyperv_snp_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x80000000, ANY_SUBLEAF, {0x80000021, AMD}},
    /* Azure blocks 0x8000001F from its SNP guests. */
    {0x8000001F, ANY_SUBLEAF, {0, 0, 0, 0}},
    {0x40000000, ANY_SUBLEAF, {0x4000000C, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, HV_ISOLATION, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {HV_PARAVISOR, 2, 0, 0}},
};

/*
 * Leaf 0x1F (V2 extended topology) as an Intel CPU answers it: what an
 * Intel CPU returns for any basic leaf beyond 0x1F, such as 0x21.
 */
#define INTEL_1F_ANSWER 1, 2, 0x100, 0x2A

/* An ordinary KVM guest on an Intel host. */
static const struct sim_leaf intel_vm_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x1F, INTEL}},
    {0x0000001F, ANY_SUBLEAF, {INTEL_1F_ANSWER}},
};

/* Under a paravisor leaf 0x21 is not passed to the guest. */
static const struct sim_leaf hyperv_tdx_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x1F, INTEL}},
    {0x0000001F, ANY_SUBLEAF, {INTEL_1F_ANSWER}},
    {0x40000000, ANY_SUBLEAF, {0x4000000C, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, HV_ISOLATION, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {HV_PARAVISOR, 3, 0, 0}},
};

/* Virtualization-based security: isolation by the hypervisor, not the CPU. */
static const struct sim_leaf hyperv_vbs_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x1F, INTEL}},
    {0x0000001F, ANY_SUBLEAF, {INTEL_1F_ANSWER}},
    {0x40000000, ANY_SUBLEAF, {0x4000000C, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, HV_ISOLATION, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {0, 1, 0, 0}},
};

static const struct sim_leaf hyperv_vm_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x1F, INTEL}},
    {0x0000001F, ANY_SUBLEAF, {INTEL_1F_ANSWER}},
    {0x40000000, ANY_SUBLEAF, {0x4000000C, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, 0, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {0, 0, 0, 0}},
};

/* Isolated, but the maximum stops short of the leaf naming the kind. */
static const struct sim_leaf hyperv_short_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x1F, INTEL}},
    {0x0000001F, ANY_SUBLEAF, {INTEL_1F_ANSWER}},
    {0x40000000, ANY_SUBLEAF, {0x4000000A, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, HV_ISOLATION, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {HV_PARAVISOR, 2, 0, 0}},
};

/* Hyper-V reports the root partition too; isolation wins, as in Linux. */
static const struct sim_leaf hyperv_root_isolated_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x80000000, ANY_SUBLEAF, {0x80000021, AMD}},
    {0x8000001F, ANY_SUBLEAF, {0, 0, 0, 0}},
    {0x40000000, ANY_SUBLEAF, {0x4000000C, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, HV_ISOLATION | HV_ROOT, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {HV_PARAVISOR, 2, 0, 0}},
};

/* An SNP guest whose host clears 0x8000001F bit 1, as Azure does. */
static const struct sim_leaf snp_leaf_cleared_leaves[] = {
    {0x00000000, ANY_SUBLEAF, {0x10, AMD}},
    {0x80000000, ANY_SUBLEAF, {0x80000021, AMD}},
    {0x8000001F, ANY_SUBLEAF, {0, 0, 0, 0}},
};

/* Hyper-V SNP leaves, but without the hypervisor bit they are not ours. */
static const struct sim_leaf hv_bit_clear_leaves[] = {
    {0x00000001, ANY_SUBLEAF, {0x000806F8, 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF}},
    {0x40000000, ANY_SUBLEAF, {0x4000000C, MSHV}},
    {0x40000003, ANY_SUBLEAF, {0, HV_ISOLATION, 0, 0}},
    {0x4000000C, ANY_SUBLEAF, {HV_PARAVISOR, 2, 0, 0}},
};

static const char *const snp_paths[] = {
    "/sys/devices/platform/sev-guest",
    "/dev/sev-guest",
    "/sys/kernel/config/tsm/report",
    "/sys/devices/system/cpu/sev",
    NULL,
};

static const char *const tdx_paths[] = {
    "/dev/tdx_guest",
    "/sys/kernel/config/tsm/report",
    NULL,
};

static const char *const tsm_paths[] = {
    "/sys/kernel/config/tsm/report",
    NULL,
};

/* configfs behind an LSM rule: stat answers EACCES. */
static const char *const configfs_paths[] = {
    "/sys/kernel/config",
    NULL,
};

/* A confined domain that may not look up the SNP device. */
static const char *const sev_guest_node[] = {
    "/sys/devices/platform/sev-guest",
    NULL,
};

static const char *const dev_dir[] = {
    "/dev",
    NULL,
};

/* systemd ProcSubset=pid: /proc holds only processes. */
static const char *const cpuinfo_path[] = {
    CPUINFO_PATH,
    NULL,
};

/* gVisor's synthetic sysfs has no platform bus. */
static const char *const platform_dir[] = {
    "/sys/devices/platform",
    NULL,
};

static const char *const sev_guest_paths[] = {
    "/dev/sev-guest",
    NULL,
};

static const char tdx_cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 143\n"
    "model name\t: Intel(R) Xeon(R) Platinum\n"
    "stepping\t: 8\n"
    "microcode\t: 0xffffffff\n"
    "cpu MHz\t\t: 2100.000\n"
    "cache size\t: 107520 KB\n"
    "physical id\t: 0\n"
    "siblings\t: 2\n"
    "core id\t\t: 0\n"
    "cpu cores\t: 2\n"
    "fpu\t\t: yes\n"
    "cpuid level\t: 35\n"
    "wp\t\t: yes\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca "
    "cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb "
    "rdtscp lm constant_tsc rep_good nopl xtopology tsc_reliable "
    "nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pdcm "
    "pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave "
    "avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch cpuid_fault ssbd "
    "ibrs ibpb stibp ibrs_enhanced tdx_guest fsgsbase tsc_adjust bmi1 hle "
    "avx2 smep bmi2 erms invpcid rtm avx512f avx512dq rdseed adx smap "
    "avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt "
    "xsavec xgetbv1 xsaves avx_vnni avx512_bf16 wbnoinvd avx512vbmi umip "
    "pku ospke waitpkg avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni "
    "avx512_bitalg avx512_vpopcntdq la57 rdpid bus_lock_detect cldemote "
    "movdiri movdir64b fsrm md_clear serialize tsxldtrk amx_bf16 "
    "avx512_fp16 amx_tile amx_int8 flush_l1d arch_capabilities\n"
    "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs eibrs_pbrsb\n"
    "bogomips\t: 4200.00\n"
    "address sizes\t: 52 bits physical, 57 bits virtual\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "flags\t\t: fpu vme de pse tsc rdrand hypervisor tdx_guest\n"
    "\n";

/* Host-capability words that must not be mistaken for a guest flag. */
static const char sev_cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 25\n"
    "model\t\t: 17\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca "
    "cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext "
    "fxsr_opt pdpe1gb rdtscp lm rep_good nopl cpuid extd_apicid pni "
    "pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave "
    "avx f16c rdrand hypervisor lahf_lm cmp_legacy svm cr8_legacy abm "
    "sse4a misalignsse 3dnowprefetch osvw topoext rdseed sme sev sev_es "
    "sev_snp\n"
    "bugs\t\t: sysret_ss_attrs null_seg spectre_v1 spectre_v2\n"
    "\n";

/* Bare metal: the host's own capabilities, and no "hypervisor". */
static const char epyc_host_cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 25\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca "
    "cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx rdrand lahf_lm "
    "svm sme sev sev_es sev_snp\n"
    "\n";

/* A flags line cut off by EOF (a truncated copy bound over cpuinfo). */
static const char cut_cpuinfo[] = "processor\t: 0\n"
                                  "vendor_id\t: GenuineIntel\n"
                                  "flags\t\t: fpu rdrand hypervisor tdx_guest";

/* Near misses only: wrong key, longer words, a later processor. */
static const char lookalike_cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "vmx flags\t: tdx_guest ept vpid\n"
    "flags\t\t: fpu rdrand hypervisor tdx_guestx xtdx_guest tdx_guest_ "
    "tdx_gues tdx_host_platform\n"
    "bugs\t\t: tdx_guest\n"
    "\n"
    "processor\t: 1\n"
    "flags\t\t: fpu rdrand hypervisor tdx_guest\n"
    "\n";

static const struct sim_coco_platform sim_coco_platforms[] = {
    {.name = "none"},
    {.name = "sev", LEAVES(sev_leaves)},
    {.name = "sev-es", LEAVES(sev_es_leaves)},
    {.name = "sev-es-msr",
     LEAVES(sev_es_leaves),
     .have_msr = 1,
     .sev_status = 0x3},
    {.name = "sev-snp",
     LEAVES(sev_snp_leaves),
     .paths = snp_paths,
     .cpuinfo = sev_cpuinfo},
    {.name = "sev-snp-msr",
     LEAVES(sev_snp_leaves),
     .paths = snp_paths,
     .cpuinfo = sev_cpuinfo,
     .have_msr = 1,
     .sev_status = 0x7},
    {.name = "sev-snp-masked", LEAVES(sev_snp_leaves), .masked = 1},
    {.name = "sev-leaf-hidden", LEAVES(sev_hidden_leaves)},
    {.name = "epyc-host",
     LEAVES(epyc_host_leaves),
     .cpuinfo = epyc_host_cpuinfo},
    {.name = "tdx",
     LEAVES(tdx_leaves),
     .paths = tdx_paths,
     .cpuinfo = tdx_cpuinfo},
    {.name = "tdx-masked", LEAVES(tdx_leaves), .masked = 1},
    {.name = "tdx-leaf-hidden", LEAVES(tdx_hidden_leaves)},
    {.name = "tdx-lookalike", .cpuinfo = lookalike_cpuinfo},
    {.name = "intel-vm", LEAVES(intel_vm_leaves)},
    {.name = "hyperv-snp", LEAVES(hyperv_snp_leaves)},
    {.name = "hyperv-tdx", LEAVES(hyperv_tdx_leaves)},
    {.name = "hyperv-vbs", LEAVES(hyperv_vbs_leaves)},
    {.name = "hyperv-vm", LEAVES(hyperv_vm_leaves)},
    {.name = "hyperv-short-max", LEAVES(hyperv_short_leaves)},
    {.name = "hv-bit-clear", LEAVES(hv_bit_clear_leaves)},
    {.name = "tsm-only", .paths = tsm_paths},
    {.name = "tsm-unreadable", .unreadable = configfs_paths},
    {.name = "masked", .masked = 1},
    {.name = "unmounted", .unmounted = 1},
    {.name = "conflict-tdx-sev", LEAVES(tdx_leaves), .paths = sev_guest_paths},
    {.name = "hyperv-root-isolated", LEAVES(hyperv_root_isolated_leaves)},
    {.name = "proc-subset-pid", .missing = cpuinfo_path},
    {.name = "cpuinfo-cut", LEAVES(intel_vm_leaves), .cpuinfo = cut_cpuinfo},
    {.name = "dev-unreadable", .unreadable = dev_dir},
    {.name = "snp-sysfs-standin",
     LEAVES(snp_leaf_cleared_leaves),
     .standin = "/sys/devices/platform"},
    {.name = "snp-no-platform",
     LEAVES(snp_leaf_cleared_leaves),
     .missing = platform_dir},
    {.name = "snp-sev-guest-unreadable",
     LEAVES(snp_leaf_cleared_leaves),
     .unreadable = sev_guest_node},
};

/* Keep in the order of sim_coco_platforms; the unit test checks both. */
static const char sim_coco_names[] =
    "none, sev, sev-es, sev-es-msr, sev-snp, sev-snp-msr, sev-snp-masked, "
    "sev-leaf-hidden, epyc-host, tdx, tdx-masked, tdx-leaf-hidden, "
    "tdx-lookalike, intel-vm, hyperv-snp, hyperv-tdx, hyperv-vbs, hyperv-vm, "
    "hyperv-short-max, hv-bit-clear, tsm-only, tsm-unreadable, masked, "
    "unmounted, conflict-tdx-sev, hyperv-root-isolated, proc-subset-pid, "
    "cpuinfo-cut, dev-unreadable, snp-sysfs-standin, snp-no-platform, "
    "snp-sev-guest-unreadable";

/* Set only by rdrand_sim_coco_select, while tests are single-threaded. */
static const struct sim_coco_platform *sim_coco_selected =
    &sim_coco_platforms[0];

int rdrand_sim_coco_select(const char *name)
{
    size_t n = sizeof(sim_coco_platforms) / sizeof(sim_coco_platforms[0]);

    if (name == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(name, sim_coco_platforms[i].name) == 0) {
            sim_coco_selected = &sim_coco_platforms[i];
            return 1;
        }
    }
    return 0;
}

const char *rdrand_sim_coco_names(void)
{
    return sim_coco_names;
}

static const struct sim_leaf *sim_coco_leaf(uint32_t leaf, uint32_t subleaf)
{
    const struct sim_coco_platform *p = sim_coco_selected;

    for (size_t i = 0; i < p->nleaves; i++) {
        const struct sim_leaf *l = &p->leaves[i];

        if (l->leaf == leaf
            && (l->subleaf == ANY_SUBLEAF || (uint32_t)l->subleaf == subleaf))
            return l;
    }
    return NULL;
}

int rdrand_sim_coco_cpuid(uint32_t leaf, uint32_t subleaf,
                          struct rdrand_cpuid *out)
{
    const struct sim_leaf *l = sim_coco_leaf(leaf, subleaf);
    const struct sim_leaf *l0 = sim_coco_leaf(0, 0);
    const struct sim_leaf *e0 = sim_coco_leaf(0x80000000, 0);
    uint32_t max_basic = l0 != NULL ? l0->r.eax : BASE_MAX_BASIC;
    uint32_t max_ext = e0 != NULL ? e0->r.eax : BASE_MAX_EXT;
    const struct rdrand_cpuid intel = {0, INTEL};
    int is_intel = l0 != NULL && l0->r.ebx == intel.ebx
                   && l0->r.ecx == intel.ecx && l0->r.edx == intel.edx;

    if (l != NULL) {
        *out = l->r;
        return 1;
    }
    if ((leaf < 0x40000000 && leaf > max_basic)
        || (leaf >= 0x80000000 && leaf < 0xC0000000 && leaf > max_ext)) {
        const struct sim_leaf *top = sim_coco_leaf(max_basic, subleaf);

        memset(out, 0, sizeof(*out)); /* AMD */
        if (is_intel && top != NULL)
            *out = top->r;
        return 1;
    }
    return 0;
}

/* path itself or anything below it, as a directory would answer. */
static int sim_coco_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);

    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The kernel's view that every platform shows unless it hides it. */
static const char *const sim_coco_base_paths[] = {
    "/sys/devices/platform",
    "/sys/devices/system/cpu",
    "/proc/cpuinfo",
    NULL,
};

static int sim_coco_listed(const char *path, const char *const *list)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++) {
        if (sim_coco_under(path, list[i]))
            return 1;
    }
    return 0;
}

int rdrand_sim_coco_path_exists(const char *path)
{
    const struct sim_coco_platform *p = sim_coco_selected;

    if (p->masked
        && (sim_coco_under(path, "/sys") || sim_coco_under(path, "/dev")
            || sim_coco_under(path, CPUINFO_PATH)))
        return -1;
    if (p->unmounted
        && (sim_coco_under(path, "/sys") || sim_coco_under(path, "/proc")))
        return 0;
    if (sim_coco_listed(path, p->missing))
        return 0;
    if (sim_coco_listed(path, p->unreadable))
        return -1;
    /* A fresh tmpfs holds nothing, but is there itself. */
    if (p->standin != NULL && sim_coco_under(path, p->standin))
        return sim_coco_under(p->standin, path) ? 1 : 0;
    if (sim_coco_listed(path, p->paths))
        return 1;
    /* Those paths and the directories above them, nothing below. */
    for (size_t i = 0; sim_coco_base_paths[i] != NULL; i++) {
        if (sim_coco_under(sim_coco_base_paths[i], path))
            return 1;
    }
    return -2;
}

int rdrand_sim_coco_fs_type(const char *path, uint64_t *type)
{
    const struct sim_coco_platform *p = sim_coco_selected;
    int exists = rdrand_sim_coco_path_exists(path);

    if (exists != 1)
        return exists;
    if (p->standin != NULL && sim_coco_under(path, p->standin))
        *type = TMPFS_MAGIC;
    else if (sim_coco_under(path, "/sys/kernel/config"))
        *type = CONFIGFS_MAGIC;
    else if (sim_coco_under(path, "/sys"))
        *type = SYSFS_MAGIC;
    else if (sim_coco_under(path, "/proc"))
        *type = PROC_MAGIC;
    else
        *type = TMPFS_MAGIC; /* /dev */
    return 1;
}

static ssize_t sim_coco_pread(const void *data, size_t size, void *buf,
                              size_t len, off_t offset)
{
    if (offset < 0)
        return -1;
    if ((uint64_t)offset >= size)
        return 0;
    if (len > size - (size_t)offset)
        len = size - (size_t)offset;
    memcpy(buf, (const char *)data + offset, len);
    return (ssize_t)len;
}

ssize_t rdrand_sim_coco_read_file(const char *path, void *buf, size_t len,
                                  off_t offset)
{
    const struct sim_coco_platform *p = sim_coco_selected;

    if (strcmp(path, CPUINFO_PATH) == 0) {
        if (p->masked || p->unmounted || sim_coco_listed(path, p->missing))
            return -1;
        if (p->cpuinfo == NULL)
            return -2;
        return sim_coco_pread(p->cpuinfo, strlen(p->cpuinfo), buf, len, offset);
    }
    if (strcmp(path, MSR_PATH) == 0 && p->have_msr) {
        /* As the msr driver: whole registers only, unknown ones fault. */
        if ((uint64_t)offset != SEV_STATUS_MSR || len != 8)
            return -1;
        memcpy(buf, &p->sev_status, 8);
        return 8;
    }
    return -2;
}

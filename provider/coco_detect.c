/* SPDX-License-Identifier: Apache-2.0 */
#include "coco.h"

#include <string.h>

#define COCO_HV_BIT (UINT32_C(1) << 31)       /* leaf 1 ECX */
#define COCO_SEV_BIT (UINT32_C(1) << 1)       /* 0x8000001F EAX */
#define COCO_HV_ISOLATION (UINT32_C(1) << 22) /* 0x40000003 EBX */
#define COCO_HV_ISOLATION_TYPE UINT32_C(0xF)  /* 0x4000000C EBX */
#define COCO_HV_MIN_MAX UINT32_C(0x40000005)
#define COCO_HV_MAX_MAX UINT32_C(0x4000FFFF)

#define COCO_MSR_PATH "/dev/cpu/0/msr"
#define COCO_MSR_SEV_STATUS 0xC0010131u
#define COCO_CPUINFO_PATH "/proc/cpuinfo"
#define COCO_CPUINFO_MAX ((size_t)64 * 1024)
#define COCO_SYSFS_PLATFORM "/sys/devices/platform"
#define COCO_TDX_FLAG "tdx_guest"

/* ---------------------------------------------------------------------- */
/* Gathering                                                              */

static int coco_signal(int exists)
{
    if (exists == 1)
        return RDRAND_SIGNAL_PRESENT;
    if (exists == 0)
        return RDRAND_SIGNAL_ABSENT;
    return RDRAND_SIGNAL_UNKNOWN;
}

/*
 * A byte-at-a-time scan for a whole word on the first "flags" line, so a
 * small buffer can walk a /proc/cpuinfo that is read in pieces: a flags
 * line is well over a kilobyte and may straddle any read boundary.
 */
enum coco_scan_state { SCAN_KEY, SCAN_SKIP, SCAN_FLAGS, SCAN_DONE };

struct coco_flags_scan {
    enum coco_scan_state state;
    char key[16];
    size_t keylen;  /* > sizeof(key) once the key is known not to fit */
    size_t matched; /* prefix of COCO_TDX_FLAG matched by this word */
    int word_ok;    /* 0 once this word has differed from it */
    int found;
};

static int coco_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int coco_key_is_flags(const struct coco_flags_scan *s)
{
    size_t n = s->keylen;

    if (n > sizeof(s->key))
        return 0;
    while (n > 0 && coco_is_blank(s->key[n - 1]))
        n--;
    return n == 5 && memcmp(s->key, "flags", 5) == 0;
}

static void coco_end_word(struct coco_flags_scan *s)
{
    if (s->word_ok && s->matched == sizeof(COCO_TDX_FLAG) - 1)
        s->found = 1;
    s->matched = 0;
    s->word_ok = 1;
}

static void coco_scan_byte(struct coco_flags_scan *s, char c)
{
    switch (s->state) { /* unreachable: a state not of the enum's four */
    case SCAN_KEY:
        if (c == '\n') {
            s->keylen = 0;
        } else if (c == ':') {
            s->state = coco_key_is_flags(s) ? SCAN_FLAGS : SCAN_SKIP;
            s->matched = 0;
            s->word_ok = 1;
        } else if (s->keylen < sizeof(s->key)) {
            s->key[s->keylen++] = c;
        } else {
            s->keylen = sizeof(s->key) + 1;
        }
        break;
    case SCAN_SKIP:
        if (c == '\n') {
            s->state = SCAN_KEY;
            s->keylen = 0;
        }
        break;
    case SCAN_FLAGS:
        if (c == '\n' || coco_is_blank(c)) {
            coco_end_word(s);
            if (c == '\n')
                s->state = SCAN_DONE;
        } else if (s->word_ok && s->matched < sizeof(COCO_TDX_FLAG) - 1
                   && c == COCO_TDX_FLAG[s->matched]) {
            s->matched++;
        } else {
            s->word_ok = 0;
        }
        break;
    case SCAN_DONE:
        break;
    }
}

/*
 * Only a word ended by a blank or a newline counts: a read cut short by
 * an error, by EOF (the kernel ends every line with \n) or by the limit
 * may have stopped inside "tdx_guestx".  Reads are 4 KiB so that the
 * first, at offset 0, holds the first flags line on real machines: a
 * FUSE /proc (lxcfs, direct_io) answers a fresh handle at an offset
 * other than 0 with EOF.
 */
static void coco_gather_cpuinfo(struct rdrand_coco_inputs *in)
{
    struct coco_flags_scan s = {.state = SCAN_KEY};
    char buf[4096];
    size_t total = 0;

    while (total < COCO_CPUINFO_MAX && s.state != SCAN_DONE) {
        size_t want = COCO_CPUINFO_MAX - total;
        ssize_t n;

        if (want > sizeof(buf))
            want = sizeof(buf);
        n = rdrand_hw_read_file(COCO_CPUINFO_PATH, buf, want, (off_t)total);
        if (n <= 0 || (size_t)n > want)
            break;
        for (ssize_t i = 0; i < n; i++) /* SCAN_DONE takes the rest */
            coco_scan_byte(&s, buf[i]);
        total += (size_t)n;
    }
    in->cpuinfo_tdx_guest = s.found;
}

static void coco_read_sev_status(struct rdrand_coco_inputs *in)
{
    unsigned char raw[8];
    ssize_t n;

    /* A 32-bit off_t cannot address the MSR; leave it unread. */
    if ((uint64_t)(off_t)COCO_MSR_SEV_STATUS != COCO_MSR_SEV_STATUS)
        return;
    n = rdrand_hw_read_file(COCO_MSR_PATH, raw, sizeof(raw),
                            (off_t)COCO_MSR_SEV_STATUS);
    if (n != (ssize_t)sizeof(raw))
        return;
    /* The msr driver hands back the register in host byte order. */
    memcpy(&in->sev_status, raw, sizeof(raw));
    in->have_sev_status = 1;
}

static void coco_gather_cpuid(struct rdrand_coco_inputs *in)
{
    if (!rdrand_hw_cpuid(0, 0, &in->leaf0)) {
        memset(&in->leaf0, 0, sizeof(in->leaf0));
        return;
    }
    in->have_cpuid = 1;
    if (in->leaf0.eax >= 1)
        rdrand_hw_cpuid(1, 0, &in->leaf1);
    /*
     * Always, as tdx_early_init() does: inside a TD the TDX module answers
     * 0x21 whatever maximum leaf 0 states, and beyond the maximum other
     * CPUs answer zeros (AMD) or the highest basic leaf (Intel), neither
     * of which spells "IntelTDX    ".
     */
    rdrand_hw_cpuid(0x21, 0, &in->leaf21);
    rdrand_hw_cpuid(0x80000000, 0, &in->ext0);
    if (in->ext0.eax >= 0x8000001F)
        rdrand_hw_cpuid(0x8000001F, 0, &in->ext1f);
    /* Without the hypervisor bit these leaves are not defined. */
    if (!(in->leaf1.ecx & COCO_HV_BIT))
        return;
    rdrand_hw_cpuid(0x40000000, 0, &in->hv0);
    if (in->hv0.eax >= 0x40000003)
        rdrand_hw_cpuid(0x40000003, 0, &in->hv3);
    if (in->hv0.eax >= 0x4000000C)
        rdrand_hw_cpuid(0x4000000C, 0, &in->hvc);
}

void rdrand_coco_gather(struct rdrand_coco_inputs *in)
{
    memset(in, 0, sizeof(*in));
    coco_gather_cpuid(in);
    coco_gather_cpuinfo(in);
    in->sysfs_platform = coco_signal(
        rdrand_hw_fs_type(COCO_SYSFS_PLATFORM, &in->sysfs_platform_magic));
    in->sysfs_sev_guest =
        coco_signal(rdrand_hw_path_exists("/sys/devices/platform/sev-guest"));
    in->dev_sev_guest = coco_signal(rdrand_hw_path_exists("/dev/sev-guest"));
    in->dev_tdx_guest = coco_signal(rdrand_hw_path_exists("/dev/tdx_guest"));
    in->configfs_tsm =
        coco_signal(rdrand_hw_path_exists("/sys/kernel/config/tsm/report"));
    in->sysfs_cpu_sev =
        coco_signal(rdrand_hw_path_exists("/sys/devices/system/cpu/sev"));
    coco_read_sev_status(in);
}

/* ---------------------------------------------------------------------- */
/* Deciding                                                               */

/* Store a CPUID signature's bytes in the order the vendor spells it. */
static void coco_sig(char out[12], uint32_t a, uint32_t b, uint32_t c)
{
    const uint32_t r[3] = {a, b, c};

    for (int i = 0; i < 12; i++)
        out[i] = (char)(r[i / 4] >> (8 * (i % 4)) & 0xFF);
}

static int coco_cpuid_tdx(const struct rdrand_coco_inputs *in)
{
    char sig[12];

    coco_sig(sig, in->leaf21.ebx, in->leaf21.edx, in->leaf21.ecx);
    return memcmp(sig, "IntelTDX    ", 12) == 0;
}

/*
 * On bare metal 0x8000001F advertises what the host can offer its guests,
 * so the bit only speaks about us under a hypervisor.  A host that lies
 * about the hypervisor bit could as well clear the SEV bit: nothing lost.
 */
static int coco_cpuid_sev(const struct rdrand_coco_inputs *in)
{
    return (in->leaf1.ecx & COCO_HV_BIT) && in->ext0.eax >= 0x8000001F
           && (in->ext1f.eax & COCO_SEV_BIT);
}

static enum rdrand_coco_platform
coco_hyperv(const struct rdrand_coco_inputs *in, const char **signal)
{
    char sig[12];

    *signal = "cpuid:0x4000000c";
    if (!(in->leaf1.ecx & COCO_HV_BIT) || in->hv0.eax < COCO_HV_MIN_MAX
        || in->hv0.eax > COCO_HV_MAX_MAX)
        return RDRAND_COCO_NONE;
    coco_sig(sig, in->hv0.ebx, in->hv0.ecx, in->hv0.edx);
    /*
     * The root-partition bit is no veto: as Linux does
     * (hv_identify_partition_type), isolation wins, since a malicious
     * Hyper-V could set it to switch a confidential guest's checks off.
     */
    if (memcmp(sig, "Microsoft Hv", 12) != 0
        || !(in->hv3.ebx & COCO_HV_ISOLATION))
        return RDRAND_COCO_NONE;
    /* Isolated, of a kind stated beyond the maximum: still isolated. */
    if (in->hv0.eax < 0x4000000C) {
        *signal = "cpuid:0x40000003";
        return RDRAND_COCO_UNKNOWN_CVM;
    }
    switch (in->hvc.ebx & COCO_HV_ISOLATION_TYPE) {
    case 0: /* none */
        return RDRAND_COCO_NONE;
    case 1: /* VBS: the kernel treats it as a vTOM guest (hv_vtom_init) */
        return RDRAND_COCO_HYPERV_VBS;
    case 2:
        return RDRAND_COCO_HYPERV_SNP;
    case 3:
        return RDRAND_COCO_HYPERV_TDX;
    default:
        return RDRAND_COCO_UNKNOWN_CVM;
    }
}

static enum rdrand_coco_platform coco_msr(const struct rdrand_coco_inputs *in)
{
    if (!in->have_sev_status || in->sev_status == 0)
        return RDRAND_COCO_NONE;
    if (in->sev_status & 4)
        return RDRAND_COCO_SEV_SNP;
    if (in->sev_status & 2)
        return RDRAND_COCO_SEV_ES;
    /* Bit 0, or only bits (vTOM, ...) that exist solely under SEV. */
    return RDRAND_COCO_SEV;
}

#define COCO_FAMILY_TDX 1u
#define COCO_FAMILY_SEV 2u

static unsigned coco_family(enum rdrand_coco_platform p)
{
    switch (p) {
    case RDRAND_COCO_TDX:
    case RDRAND_COCO_HYPERV_TDX:
        return COCO_FAMILY_TDX;
    case RDRAND_COCO_SEV:
    case RDRAND_COCO_SEV_ES:
    case RDRAND_COCO_SEV_SNP:
    case RDRAND_COCO_HYPERV_SNP:
        return COCO_FAMILY_SEV;
    default:
        return 0;
    }
}

/* How much a platform name says; a weaker input may refine a stronger. */
static int coco_specificity(enum rdrand_coco_platform p)
{
    switch (p) {
    case RDRAND_COCO_SEV:
    case RDRAND_COCO_HYPERV_VBS:
        return 1;
    case RDRAND_COCO_SEV_ES:
        return 2;
    case RDRAND_COCO_SEV_SNP:
    case RDRAND_COCO_TDX:
        return 3;
    case RDRAND_COCO_HYPERV_SNP:
    case RDRAND_COCO_HYPERV_TDX:
        return 4;
    default:
        return 0;
    }
}

struct coco_tally {
    unsigned families;
    int voted;
    struct rdrand_coco_result best;
};

/* Votes come strongest first, so on a tie the stronger input keeps it. */
static void coco_vote(struct coco_tally *t, enum rdrand_coco_platform p,
                      const char *signal)
{
    if (p == RDRAND_COCO_NONE)
        return;
    t->families |= coco_family(p);
    if (!t->voted || coco_specificity(p) > coco_specificity(t->best.platform)) {
        t->best.platform = p;
        t->best.signal = signal;
    }
    t->voted = 1;
}

static void coco_file_vote(struct coco_tally *t, int state,
                           enum rdrand_coco_platform p, const char *signal)
{
    if (state == RDRAND_SIGNAL_PRESENT)
        coco_vote(t, p, signal);
}

/*
 * The one thing unseen that votes: the kernel's sysfs view of the
 * platform bus, where every SNP guest kernel registers "sev-guest".
 * Only a real sysfs there whose ENOENT we read says "no SNP".
 */
static const char *coco_sysfs_unseen(const struct rdrand_coco_inputs *in)
{
    if (in->sysfs_platform == RDRAND_SIGNAL_UNKNOWN)
        return "unreadable:" COCO_SYSFS_PLATFORM;
    if (in->sysfs_platform != RDRAND_SIGNAL_PRESENT
        || in->sysfs_platform_magic != RDRAND_SYSFS_MAGIC)
        return "unmounted:" COCO_SYSFS_PLATFORM; /* missing, or a stand-in */
    if (in->sysfs_sev_guest == RDRAND_SIGNAL_UNKNOWN)
        return "unreadable:" COCO_SYSFS_PLATFORM "/sev-guest";
    return NULL;
}

void rdrand_coco_detect(const struct rdrand_coco_inputs *in,
                        struct rdrand_coco_result *out)
{
    struct coco_tally t = {0};
    enum rdrand_coco_platform hv;
    const char *hv_signal, *unseen;

    /*
     * Missing a confidential guest is the costly mistake: it would skip
     * the RDRAND check exactly where the host is the adversary.  Calling
     * an ordinary VM confidential costs that check (four RDRANDs) and
     * makes every later fault latch for the life of the process.  So
     * every positive input votes for CoCo and none can veto another;
     * inputs that name different hardware still mean CoCo, of an unknown
     * kind.  What we could not see votes unknown-cvm only where it hides
     * the sole carrier of a signal nothing readable covers: the sysfs
     * platform bus and its sev-guest device (coco_sysfs_unseen; SNP's
     * CPUID bit is the host's to clear, and /dev is the sandbox's).  A
     * hidden /proc/cpuinfo adds nothing to leaf 0x21, which the TDX
     * module answers; /dev nodes, configfs-tsm and cpu/sev add nothing
     * to leaf 0x21 and the sev-guest device.  Without CPUID this is no
     * x86 machine: no x86 guest, and no RDRAND to check.  Among agreeing
     * votes the most specific name wins, the stronger input on a tie:
     * the kernel's view, then SEV_STATUS (out of the host's reach in
     * SEV-ES and SNP guests only), then CPUID, of which only leaf 0x21
     * is out of its reach, then what we could not see.
     */
    if (!in->have_cpuid) {
        out->platform = RDRAND_COCO_NONE;
        out->signal = "none";
        return;
    }
    if (in->cpuinfo_tdx_guest)
        coco_vote(&t, RDRAND_COCO_TDX, "cpuinfo:tdx_guest");
    coco_file_vote(&t, in->dev_tdx_guest, RDRAND_COCO_TDX, "dev:tdx_guest");
    coco_file_vote(&t, in->sysfs_sev_guest, RDRAND_COCO_SEV_SNP,
                   "sysfs:sev-guest");
    coco_file_vote(&t, in->dev_sev_guest, RDRAND_COCO_SEV_SNP, "dev:sev-guest");
    coco_file_vote(&t, in->sysfs_cpu_sev, RDRAND_COCO_SEV_SNP, "sysfs:cpu/sev");
    coco_file_vote(&t, in->configfs_tsm, RDRAND_COCO_UNKNOWN_CVM,
                   "configfs:tsm");
    coco_vote(&t, coco_msr(in), "msr:sev_status");
    coco_vote(&t, coco_cpuid_tdx(in) ? RDRAND_COCO_TDX : RDRAND_COCO_NONE,
              "cpuid:0x21");
    coco_vote(&t, coco_cpuid_sev(in) ? RDRAND_COCO_SEV : RDRAND_COCO_NONE,
              "cpuid:0x8000001f");
    hv = coco_hyperv(in, &hv_signal);
    coco_vote(&t, hv, hv_signal);
    unseen = coco_sysfs_unseen(in);
    coco_vote(&t, unseen ? RDRAND_COCO_UNKNOWN_CVM : RDRAND_COCO_NONE, unseen);

    if (t.families == (COCO_FAMILY_TDX | COCO_FAMILY_SEV)) {
        out->platform = RDRAND_COCO_UNKNOWN_CVM;
        out->signal = "conflict:tdx+sev";
    } else if (t.voted) {
        *out = t.best;
    } else {
        out->platform = RDRAND_COCO_NONE;
        out->signal = "none";
    }
}

const char *rdrand_coco_platform_name(enum rdrand_coco_platform p)
{
    static const char *const names[] = {
        [RDRAND_COCO_NONE] = "none",
        [RDRAND_COCO_SEV] = "sev",
        [RDRAND_COCO_SEV_ES] = "sev-es",
        [RDRAND_COCO_SEV_SNP] = "sev-snp",
        [RDRAND_COCO_TDX] = "tdx",
        [RDRAND_COCO_HYPERV_SNP] = "hyperv-snp",
        [RDRAND_COCO_HYPERV_TDX] = "hyperv-tdx",
        [RDRAND_COCO_HYPERV_VBS] = "hyperv-vbs",
        [RDRAND_COCO_UNKNOWN_CVM] = "unknown-cvm",
    };

    /* An out-of-range value is a bug; never let it read as "none". */
    if ((unsigned)p >= sizeof(names) / sizeof(names[0]))
        return "unknown-cvm";
    return names[p];
}

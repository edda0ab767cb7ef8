/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check --pid PID: the status block (include/rdrand_status.h) of
 * a running process, read from its memory.
 *
 * The module is found by what it exports, not by its name: every file
 * mapped at offset 0 that is an ELF object is looked up for the block's
 * symbol through its own dynamic section, read from the process's
 * memory (process_vm_readv), not from the file on disk.  So a module
 * that an upgrade replaced on disk ("(deleted)" in maps) is still read
 * as it runs, a copy under another name is found, and a file of that
 * name that is not the module is not taken for it.
 *
 * process_vm_readv needs the kernel's ptrace access (PTRACE_MODE_ATTACH):
 * the same user and a dumpable process, or CAP_SYS_PTRACE; Yama, where
 * it is built in, can narrow that further.  Reading /proc/PID/maps needs
 * only the weaker read access, so the two can disagree: each failure is
 * reported where it happens.
 */
/* process_vm_readv */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rdrand_provider.h"
#include "rdrand_status.h"

#include "check.h"
#include "errors.h"

#ifndef RDRAND_PROVIDER_VERSION
#define RDRAND_PROVIDER_VERSION "0.0.0"
#endif

/* Bounds on what a process's memory may claim (it is not trusted). */
#define PID_MAX_DYN 1024
#define PID_MAX_CHAIN (1u << 20)
#define PID_MAX_FOUND 4

static int check_pid_fail(struct check_pid *p, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int check_pid_fail(struct check_pid *p, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->error, sizeof(p->error), fmt, ap);
    va_end(ap);
    return code;
}

/* len bytes at addr in the process: 0, or an errno (EFAULT if short). */
static int pid_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    struct iovec local = {buf, len};
    struct iovec remote = {(void *)(uintptr_t)addr, len};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

    if (n < 0)
        return errno;
    return (size_t)n == len ? 0 : EFAULT;
}

/* The running process, for messages: "1234 (nginx)". */
static void pid_name(struct check_pid *p)
{
    char path[64];
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/comm", (long)p->pid);
    p->comm[0] = '\0';
    if ((f = fopen(path, "r")) == NULL)
        return;
    if (fgets(p->comm, sizeof(p->comm), f) != NULL)
        p->comm[strcspn(p->comm, "\n")] = '\0';
    fclose(f);
}

/* Still there, and not a zombie whose memory is gone? */
static int pid_alive(pid_t pid)
{
    char path[64], buf[512], *close_paren;
    FILE *f;
    int alive = 0;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    /* The state follows the last ')': comm may hold one itself. */
    if (fgets(buf, sizeof(buf), f) != NULL
        && (close_paren = strrchr(buf, ')')) != NULL)
        alive = close_paren[1] == ' ' && close_paren[2] != 'Z'
                && close_paren[2] != 'X';
    fclose(f);
    return alive;
}

static int not_permitted(struct check_pid *p, const char *what)
{
    char yama[16] = "";
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");

    if (f != NULL) {
        if (fgets(yama, sizeof(yama), f) == NULL)
            yama[0] = '\0';
        yama[strcspn(yama, "\n")] = '\0';
        fclose(f);
    }
    return check_pid_fail(
        p, CHECK_UNREADABLE,
        "not permitted to read process %ld (%s): %s: run as root or as the "
        "process's user; a process that is not dumpable (setuid, prctl "
        "PR_SET_DUMPABLE 0) needs CAP_SYS_PTRACE%s%s%s",
        (long)p->pid, p->comm, what,
        yama[0] != '\0' && strcmp(yama, "0") != 0 ? "; Yama's ptrace_scope is "
                                                  : "",
        yama[0] != '\0' && strcmp(yama, "0") != 0 ? yama : "",
        yama[0] != '\0' && strcmp(yama, "0") != 0
            ? " (/proc/sys/kernel/yama/ptrace_scope): 1 and 2 leave it to "
              "CAP_SYS_PTRACE, 3 to nobody"
            : "");
}

static int vanished(struct check_pid *p)
{
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "process %ld%s%s%s exited while it was being read: "
                          "nothing to report",
                          (long)p->pid, p->comm[0] ? " (" : "", p->comm,
                          p->comm[0] ? ")" : "");
}

/* A failed read of the process: what it means for the report. */
static int read_failed(struct check_pid *p, int err)
{
    if (err == ESRCH || !pid_alive(p->pid))
        return vanished(p);
    if (err == EPERM || err == EACCES)
        return not_permitted(p, "process_vm_readv refused");
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "reading the memory of process %ld (%s): %s",
                          (long)p->pid, p->comm, strerror(err));
}

/*
 * The dynamic section's address entries.  glibc's loader rewrites
 * DT_SYMTAB, DT_STRTAB, DT_HASH and DT_GNU_HASH in memory to absolute
 * addresses (load bias added; elf_get_dynamic_info), where other loaders
 * (musl; glibc on targets with a read-only dynamic section) leave the
 * link-time value, relative to the bias.  An absolute value lies inside
 * the object's own span; a relative one is below its size.
 */
static uint64_t dyn_addr(uint64_t d_ptr, uint64_t bias, uint64_t span)
{
    if (d_ptr >= bias && d_ptr - bias < span)
        return d_ptr;
    return d_ptr + bias;
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;

    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

static uint32_t sysv_hash(const char *s)
{
    uint32_t h = 0;

    for (; *s; s++) {
        uint32_t g;

        h = (h << 4) + (unsigned char)*s;
        g = h & 0xf0000000u;
        h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

struct elf_view {
    pid_t pid;
    uint64_t bias, symtab, strtab, strsz, gnu_hash, hash;
};

/* Symbol idx, if it is name: 1 and *sym, 0 if another, -1 on a fault. */
static int sym_is(const struct elf_view *e, uint32_t idx, const char *name,
                  Elf64_Sym *sym)
{
    char got[sizeof(RDRAND_STATUS_SYMBOL) + 1];
    size_t len = strlen(name) + 1;

    if (pid_read(e->pid, e->symtab + (uint64_t)idx * sizeof(*sym), sym,
                 sizeof(*sym))
        != 0)
        return -1;
    if (e->strsz != 0 && sym->st_name + len > e->strsz)
        return 0;
    if (len > sizeof(got)
        || pid_read(e->pid, e->strtab + sym->st_name, got, len) != 0)
        return 0; /* a name at the end of the mapping: not ours */
    return memcmp(got, name, len) == 0;
}

static int lookup_gnu(const struct elf_view *e, const char *name,
                      Elf64_Sym *sym)
{
    uint32_t hdr[4], h = gnu_hash(name), idx, chain;
    uint64_t buckets, chains;

    if (pid_read(e->pid, e->gnu_hash, hdr, sizeof(hdr)) != 0 || hdr[0] == 0)
        return -1;
    buckets = e->gnu_hash + sizeof(hdr) + (uint64_t)hdr[2] * 8;
    chains = buckets + (uint64_t)hdr[0] * 4;
    if (pid_read(e->pid, buckets + (uint64_t)(h % hdr[0]) * 4, &idx,
                 sizeof(idx))
        != 0)
        return -1;
    if (idx == 0 || idx < hdr[1])
        return 0;
    for (uint32_t n = 0; n < PID_MAX_CHAIN; n++, idx++) {
        int is;

        if (pid_read(e->pid, chains + (uint64_t)(idx - hdr[1]) * 4, &chain,
                     sizeof(chain))
            != 0)
            return -1;
        if ((chain | 1) == (h | 1) && (is = sym_is(e, idx, name, sym)) != 0)
            return is;
        if (chain & 1)
            break;
    }
    return 0;
}

static int lookup_sysv(const struct elf_view *e, const char *name,
                       Elf64_Sym *sym)
{
    uint32_t hdr[2], h = sysv_hash(name), idx;

    if (pid_read(e->pid, e->hash, hdr, sizeof(hdr)) != 0 || hdr[0] == 0)
        return -1;
    if (pid_read(e->pid, e->hash + 8 + (uint64_t)(h % hdr[0]) * 4, &idx,
                 sizeof(idx))
        != 0)
        return -1;
    for (uint32_t n = 0; idx != STN_UNDEF && idx < hdr[1] && n < PID_MAX_CHAIN;
         n++) {
        int is = sym_is(e, idx, name, sym);

        if (is != 0)
            return is;
        if (pid_read(e->pid, e->hash + 8 + ((uint64_t)hdr[0] + idx) * 4, &idx,
                     sizeof(idx))
            != 0)
            return -1;
    }
    return 0;
}

/*
 * The object mapped at base: the address of its defined data symbol
 * RDRAND_STATUS_SYMBOL, or 0 (not ELF, no such symbol, unreadable).
 * EPERM and ESRCH are passed up in *err: they are about the process.
 */
static uint64_t find_block(pid_t pid, uint64_t base, int *err)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;
    Elf64_Dyn dyn;
    Elf64_Sym sym;
    struct elf_view e = {.pid = pid};
    uint64_t dyn_at = 0, dyn_n = 0, span = 0, first = UINT64_MAX;
    int found;

    if ((*err = pid_read(pid, base, &eh, sizeof(eh))) != 0)
        return 0;
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0
        || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN
        || eh.e_phentsize != sizeof(ph) || eh.e_phnum > 64)
        return 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if ((*err = pid_read(pid, base + eh.e_phoff + i * sizeof(ph), &ph,
                             sizeof(ph)))
            != 0)
            return 0;
        if (ph.p_type == PT_LOAD) {
            /* The lowest segment is the one mapped at base. */
            if (ph.p_vaddr < first)
                first =
                    ph.p_vaddr & ~(uint64_t)(ph.p_align ? ph.p_align - 1 : 0);
            if (ph.p_vaddr + ph.p_memsz > span)
                span = ph.p_vaddr + ph.p_memsz;
        } else if (ph.p_type == PT_DYNAMIC) {
            dyn_at = ph.p_vaddr;
            dyn_n = ph.p_memsz / sizeof(dyn);
        }
    }
    if (first == UINT64_MAX || dyn_n == 0 || base < first)
        return 0;
    e.bias = base - first;
    for (uint64_t i = 0; i < dyn_n && i < PID_MAX_DYN; i++) {
        if ((*err = pid_read(pid, e.bias + dyn_at + i * sizeof(dyn), &dyn,
                             sizeof(dyn)))
            != 0)
            return 0;
        if (dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag == DT_SYMTAB)
            e.symtab = dyn_addr(dyn.d_un.d_ptr, e.bias, span);
        else if (dyn.d_tag == DT_STRTAB)
            e.strtab = dyn_addr(dyn.d_un.d_ptr, e.bias, span);
        else if (dyn.d_tag == DT_STRSZ)
            e.strsz = dyn.d_un.d_val;
        else if (dyn.d_tag == DT_GNU_HASH)
            e.gnu_hash = dyn_addr(dyn.d_un.d_ptr, e.bias, span);
        else if (dyn.d_tag == DT_HASH)
            e.hash = dyn_addr(dyn.d_un.d_ptr, e.bias, span);
    }
    if (e.symtab == 0 || e.strtab == 0)
        return 0;
    found = e.gnu_hash != 0 ? lookup_gnu(&e, RDRAND_STATUS_SYMBOL, &sym)
            : e.hash != 0   ? lookup_sysv(&e, RDRAND_STATUS_SYMBOL, &sym)
                            : 0;
    if (found != 1 || sym.st_shndx == SHN_UNDEF
        || ELF64_ST_TYPE(sym.st_info) != STT_OBJECT
        || sym.st_size < RDRAND_STATUS_HEADER_SIZE)
        return 0;
    return e.bias + sym.st_value;
}

/* The path maps shows, without the " (deleted)" of a replaced file. */
static int map_path(const char *line, char *path, size_t len, int *deleted)
{
    const char *slash = strchr(line, '/');
    size_t n;

    if (slash == NULL)
        return 0;
    n = strcspn(slash, "\n");
    *deleted = n >= 10 && memcmp(slash + n - 10, " (deleted)", 10) == 0;
    if (*deleted)
        n -= 10;
    snprintf(path, len, "%.*s", (int)n, slash);
    return 1;
}

/*
 * A copy in which no state change was under way: writers read before
 * generation here, in the opposite order to the writer's end (generation
 * then writers), so a change that finished between the two reads shows
 * as a new generation (include/rdrand_status.h).
 */
static int read_snapshot(struct check_pid *p)
{
    struct rdrand_status *b = &p->block;
    uint64_t addr = p->address, generation;
    uint32_t writers;

    for (int tries = 0; tries < 1000; tries++) {
        int err;

        if ((err = pid_read(p->pid, addr, b, sizeof(*b))) != 0
            || (err = pid_read(p->pid,
                               addr + offsetof(struct rdrand_status, writers),
                               &writers, sizeof(writers)))
                   != 0
            || (err = pid_read(
                    p->pid, addr + offsetof(struct rdrand_status, generation),
                    &generation, sizeof(generation)))
                   != 0)
            return read_failed(p, err);
        if (b->writers == 0 && writers == 0 && b->generation == generation) {
            /* Another process's bytes: terminate every text. */
            b->module[sizeof(b->module) - 1] = '\0';
            b->coco_platform[sizeof(b->coco_platform) - 1] = '\0';
            b->coco_signal[sizeof(b->coco_signal) - 1] = '\0';
            b->cpu_vendor[sizeof(b->cpu_vendor) - 1] = '\0';
            b->cpu_microcode[sizeof(b->cpu_microcode) - 1] = '\0';
            b->cpu_errata[sizeof(b->cpu_errata) - 1] = '\0';
            b->version[sizeof(b->version) - 1] = '\0';
            return CHECK_LIVE;
        }
        usleep(1000);
    }
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "process %ld (%s): the provider's state kept "
                          "changing for a second (loads and unloads under "
                          "way): try again",
                          (long)p->pid, p->comm);
}

/* The header says what the rest is; only this layout and version are read. */
static int check_header(struct check_pid *p)
{
    struct rdrand_status h;
    char version[RDRAND_STATUS_VERSION_LEN + 1];
    int err;

    if ((err = pid_read(p->pid, p->address, &h, RDRAND_STATUS_HEADER_SIZE))
        != 0)
        return read_failed(p, err);
    if (h.magic != RDRAND_STATUS_MAGIC)
        return check_pid_fail(p, CHECK_UNREADABLE,
                              "process %ld (%s): %s exports %s but it is not "
                              "a status block this rdrand-check knows (magic "
                              "%#" PRIx64 ")",
                              (long)p->pid, p->comm, p->path,
                              RDRAND_STATUS_SYMBOL, h.magic);
    memcpy(version, h.version, sizeof(h.version));
    version[sizeof(h.version)] = '\0';
    for (char *c = version; *c; c++)
        if (*c < 0x20 || *c > 0x7e)
            *c = '?';
    if (h.layout != RDRAND_STATUS_LAYOUT || h.size != sizeof(p->block)
        || strcmp(version, RDRAND_PROVIDER_VERSION) != 0)
        return check_pid_fail(
            p, CHECK_UNREADABLE,
            "process %ld (%s) runs %s version %s (status layout %" PRIu32
            ", %" PRIu32 " bytes); this rdrand-check is version %s (layout "
            "%u, %zu bytes) and reads only its own: use the rdrand-check of "
            "version %s",
            (long)p->pid, p->comm, p->path, version, h.layout, h.size,
            RDRAND_PROVIDER_VERSION, RDRAND_STATUS_LAYOUT, sizeof(p->block),
            version);
    return CHECK_LIVE;
}

int check_pid_read(pid_t pid, struct check_pid *p)
{
    char maps[64], line[4096 + 128];
    struct {
        uint64_t address;
        char path[sizeof(p->path)];
        int deleted;
    } found[PID_MAX_FOUND];
    size_t nfound = 0;
    FILE *f;
    int err = 0;

    memset(p, 0, sizeof(*p));
    p->pid = pid;
    snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)pid);
    pid_name(p);
    if ((f = fopen(maps, "r")) == NULL) {
        if (errno == ENOENT || errno == ESRCH)
            return check_pid_fail(p, CHECK_UNREADABLE,
                                  "no process %ld (no /proc/%ld)", (long)pid,
                                  (long)pid);
        if (errno == EACCES || errno == EPERM)
            return not_permitted(p, "cannot open its /proc/PID/maps");
        return check_pid_fail(p, CHECK_UNREADABLE, "%s: %s", maps,
                              strerror(errno));
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long long start, end, offset, inode;
        char path[sizeof(p->path)];
        int deleted, seen = 0;
        uint64_t at;

        if (sscanf(line, "%llx-%llx %*s %llx %*s %llu", &start, &end, &offset,
                   &inode)
                != 4
            || offset != 0 || inode == 0
            || !map_path(line, path, sizeof(path), &deleted))
            continue;
        if ((at = find_block(pid, start, &err)) == 0) {
            if (err == EPERM || err == ESRCH)
                break;
            err = 0; /* not ELF, or a mapping gone meanwhile: not ours */
            continue;
        }
        for (size_t i = 0; i < nfound; i++)
            seen |= found[i].address == at;
        if (!seen && nfound < PID_MAX_FOUND) {
            found[nfound].address = at;
            found[nfound].deleted = deleted;
            snprintf(found[nfound].path, sizeof(found[nfound].path), "%s",
                     path);
            nfound++;
        }
    }
    fclose(f);
    if (err != 0)
        return read_failed(p, err);
    if (nfound == 0 && !pid_alive(pid))
        return vanished(p);
    if (nfound == 0)
        return check_pid_fail(
            p, CHECK_MISCONFIGURED,
            "the provider module is not loaded in process %ld (%s): no file "
            "mapped there exports %s, so its seeds do not come from this "
            "provider",
            (long)pid, p->comm, RDRAND_STATUS_SYMBOL);
    if (nfound > 1)
        return check_pid_fail(
            p, CHECK_UNREADABLE,
            "process %ld (%s) has %zu instances of the provider module "
            "loaded, each with its own counters: %s%s and %s%s%s; which one "
            "seeds depends on the configuration each library context "
            "loaded: load one module, from one path",
            (long)pid, p->comm, nfound, found[0].path,
            found[0].deleted ? " (deleted)" : "", found[1].path,
            found[1].deleted ? " (deleted)" : "",
            nfound > 2 ? " (and more)" : "");
    p->address = found[0].address;
    p->deleted = found[0].deleted;
    snprintf(p->path, sizeof(p->path), "%s", found[0].path);
    if ((err = check_header(p)) != CHECK_LIVE)
        return err;
    return read_snapshot(p);
}

uint64_t check_pid_counter(const struct rdrand_status *b,
                           enum rdrand_status_counter c)
{
    uint64_t sum = b->counters_shared[c];

    for (size_t i = 0; i < RDRAND_STATUS_SLOTS; i++)
        sum += b->slots[i].v[c];
    return sum;
}

/* ---- the block as the report's parameters and problems ---- */

static struct check_value *add(struct check_value *params, size_t max,
                               size_t *n, const char *key, int type)
{
    static struct check_value spare;

    if (*n == max)
        return memset(&spare, 0, sizeof(spare)); /* dropped, as -n's are */
    memset(&params[*n], 0, sizeof(params[*n]));
    params[*n].key = key;
    params[*n].type = type;
    return &params[(*n)++];
}

static void add_u(struct check_value *params, size_t max, size_t *n,
                  const char *key, uint64_t u)
{
    add(params, max, n, key, OSSL_PARAM_UNSIGNED_INTEGER)->u = u;
}

static void add_i(struct check_value *params, size_t max, size_t *n,
                  const char *key, int64_t i)
{
    add(params, max, n, key, OSSL_PARAM_INTEGER)->i = i;
}

static void add_s(struct check_value *params, size_t max, size_t *n,
                  const char *key, const char *s)
{
    add(params, max, n, key, OSSL_PARAM_UTF8_PTR)->s = s;
}

/*
 * The values the live instances hold, as the parameter names them
 * (comma-separated where instances differ).
 */
static void live_text(char *to, size_t size, const uint32_t *live,
                      const char *const *names, size_t n)
{
    size_t len = 0;

    to[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (live[i] != 0 && len < size)
            len += (size_t)snprintf(to + len, size - len, "%s%s",
                                    len ? "," : "", names[i]);
}

static void conditioning_text(struct check_pid *p)
{
    static const char *const conds[RDRAND_STATUS_CONDS] = {"none", "reduce512",
                                                           "refused"};
    static const char *const mixes[RDRAND_STATUS_MIXES] = {"none", "os",
                                                           "refused"};

    live_text(p->conditioning, sizeof(p->conditioning),
              p->block.live_conditioning, conds, RDRAND_STATUS_CONDS);
    live_text(p->mix, sizeof(p->mix), p->block.live_mix, mixes,
              RDRAND_STATUS_MIXES);
}

/*
 * What the next request would meet, as health-state says in one
 * instance; here for the process (instances may differ: the worst).
 */
static const char *health_state(struct check_pid *p)
{
    const struct rdrand_status *b = &p->block;

    if (b->verdict & RDRAND_STATUS_VERDICT_PERMANENT)
        return rdrand_reason_text(b->verdict_reason);
    if (b->coco_cause != 0)
        return rdrand_reason_text(b->coco_cause == RDRAND_R_NO_RDRAND
                                      ? RDRAND_R_COCO_NO_RDRAND
                                      : RDRAND_R_COCO_SEED_FAILED);
    if (b->rdrand_available == 0)
        return rdrand_reason_text(RDRAND_R_NO_RDRAND);
    if (b->live_instances == 0)
        return "no provider instance is loaded now: nothing is served from "
               "this module";
    if (b->live_config_refused != 0) {
        snprintf(p->health_state, sizeof(p->health_state),
                 "%" PRIu32 " of %" PRIu32 " provider instances refused "
                 "their config section: every request of theirs fails "
                 "(rdrand-check -c on the process's configuration names the "
                 "key)",
                 b->live_config_refused, b->live_instances);
        return p->health_state;
    }
    return "ok";
}

static const char *verdict_text(uint64_t v)
{
    if (v & RDRAND_STATUS_VERDICT_PERMANENT)
        return "permanent";
    return RDRAND_STATUS_VERDICT_TRIPS(v) > 0 ? "intermittent" : "ok";
}

size_t check_pid_report(struct check_pid *p, struct check_report *r,
                        struct check_value *params, size_t max, int *live)
{
    static const struct {
        const char *key;
        enum rdrand_status_counter c;
    } counters[] = {
        {RDRAND_PARAM_RDRAND_WORDS, RDRAND_STATUS_RDRAND_WORDS},
        {RDRAND_PARAM_RDRAND_FAILURES, RDRAND_STATUS_RDRAND_FAILURES},
        {RDRAND_PARAM_SEED_REQUESTS, RDRAND_STATUS_SEED_REQUESTS},
        {RDRAND_PARAM_SEED_FAILURES, RDRAND_STATUS_SEED_FAILURES},
        {RDRAND_PARAM_SEED_BYTES, RDRAND_STATUS_SEED_BYTES},
        {RDRAND_PARAM_GENERATE_REQUESTS, RDRAND_STATUS_GENERATE_REQUESTS},
        {RDRAND_PARAM_GENERATE_FAILURES, RDRAND_STATUS_GENERATE_FAILURES},
        {RDRAND_PARAM_CONDITIONED_BLOCKS, RDRAND_STATUS_CONDITIONED_BLOCKS},
        {RDRAND_PARAM_OS_BYTES, RDRAND_STATUS_OS_BYTES},
        {RDRAND_PARAM_OS_FAILURES, RDRAND_STATUS_OS_FAILURES},
        {RDRAND_PARAM_HEALTH_FAILURES, RDRAND_STATUS_HEALTH_FAILURES},
    };
    const struct rdrand_status *b = &p->block;
    uint64_t v = b->verdict, trips = RDRAND_STATUS_VERDICT_TRIPS(v);
    uint64_t seeds = check_pid_counter(b, RDRAND_STATUS_SEED_REQUESTS);
    uint64_t seed_failures = check_pid_counter(b, RDRAND_STATUS_SEED_FAILURES);
    uint64_t rdrand_failures =
        check_pid_counter(b, RDRAND_STATUS_RDRAND_FAILURES);
    const char *state = health_state(p);
    int usable = strcmp(state, "ok") == 0;
    size_t n = 0;

    conditioning_text(p);
    add_s(params, max, &n, "version", b->version);
    add_s(params, max, &n, "buildinfo", b->module);
    add_s(params, max, &n, "module-path", p->path);
    add_u(params, max, &n, "provider-instances", b->live_instances);
    add_i(params, max, &n, "status", usable);
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
        add_u(params, max, &n, counters[i].key,
              check_pid_counter(b, counters[i].c));
    add_s(params, max, &n, RDRAND_PARAM_CONDITIONING, p->conditioning);
    add_s(params, max, &n, RDRAND_PARAM_MIX, p->mix);
    add_s(params, max, &n, RDRAND_PARAM_CPU_VENDOR, b->cpu_vendor);
    add_u(params, max, &n, RDRAND_PARAM_CPU_FAMILY, b->cpu_family);
    add_u(params, max, &n, RDRAND_PARAM_CPU_MODEL, b->cpu_model);
    add_u(params, max, &n, RDRAND_PARAM_CPU_STEPPING, b->cpu_stepping);
    add_s(params, max, &n, RDRAND_PARAM_CPU_MICROCODE, b->cpu_microcode);
    add_s(params, max, &n, RDRAND_PARAM_CPU_ERRATA, b->cpu_errata);
    add_i(params, max, &n, RDRAND_PARAM_RDRAND_AVAILABLE,
          b->rdrand_available > 0);
    add_s(params, max, &n, RDRAND_PARAM_COCO_PLATFORM, b->coco_platform);
    add_s(params, max, &n, RDRAND_PARAM_COCO_SIGNAL, b->coco_signal);
    add_u(params, max, &n, RDRAND_PARAM_COCO_SEED_BITS, b->coco_seed_bits);
    add_u(params, max, &n, "coco-refusals", b->coco_refusals);
    add_s(params, max, &n, RDRAND_PARAM_HEALTH_STATE, state);
    add_s(params, max, &n, RDRAND_PARAM_HEALTH_VERDICT, verdict_text(v));
    add_u(params, max, &n, RDRAND_PARAM_HEALTH_TRIPS, trips);
    add_i(params, max, &n, RDRAND_PARAM_COCO_ENFORCED,
          (v & RDRAND_STATUS_VERDICT_ENFORCED) != 0);

    if (p->deleted)
        check_problem(r, SEV_WARNING, 0, NULL, NULL,
                      "%s was replaced or removed on disk since process %ld "
                      "loaded it: it runs the old module until it restarts",
                      p->path, r->pid);
    /* Seeds served once prove nothing about where the next come from. */
    if (b->live_instances == 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "no provider instance is loaded in process %ld now: "
                      "the counters are those of instances since unloaded, "
                      "and its seeds come from elsewhere from now on",
                      r->pid);
    if (seed_failures > 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "%" PRIu64 " of the %" PRIu64 " seed requests process "
                      "%ld made failed",
                      seed_failures, seeds, r->pid);
    if (rdrand_failures > 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "RDRAND reported failure (CF=0) %" PRIu64 " time%s in "
                      "process %ld",
                      rdrand_failures, rdrand_failures == 1 ? "" : "s", r->pid);
    if (trips > 0 || (v & RDRAND_STATUS_VERDICT_PERMANENT))
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "the process's verdict on RDRAND is %s after %" PRIu64
                      " fault%s%s%s",
                      verdict_text(v), trips, trips == 1 ? "" : "s",
                      (v & RDRAND_STATUS_VERDICT_PERMANENT)
                          ? ": no request is served again until it restarts: "
                          : "",
                      (v & RDRAND_STATUS_VERDICT_PERMANENT)
                          ? rdrand_reason_text(b->verdict_reason)
                          : "");
    if (b->coco_refusals > 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "the provider refused to load %" PRIu32 " time%s in "
                      "process %ld: the confidential-computing check failed "
                      "(%s)",
                      b->coco_refusals, b->coco_refusals == 1 ? "" : "s",
                      r->pid, rdrand_reason_text(b->coco_cause));
    else if (b->coco_cause != 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "the confidential-computing check at load failed in "
                      "process %ld (%s): every seed request fails",
                      r->pid, rdrand_reason_text(b->coco_cause));
    if (b->rdrand_available == 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL, "%s",
                      rdrand_reason_text(RDRAND_R_NO_RDRAND));
    if (b->live_config_refused != 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL, "%s", state);
    if (seeds == 0 && b->live_instances > 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "the provider module is loaded in process %ld but has "
                      "served no seed: the process has not seeded yet "
                      "(OpenSSL asks at its first random draw, and at "
                      "reseeds), or its seeds come from elsewhere ([random] "
                      "seed does not name this provider)",
                      r->pid);
    *live = seeds > 0 && b->live_instances > 0 && seed_failures == 0 && usable
            && !(v & RDRAND_STATUS_VERDICT_PERMANENT) && trips == 0;
    return n;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check --pid: which file mapped in a process is the provider
 * module, and where its status block lies.
 *
 * Nothing the process controls is believed.  Its memory (its symbol
 * tables, its dynamic section) could say anything, and a library of its
 * own could export a block of the same name.  So a mapped file is the
 * module only when it is byte for byte a module this rdrand-check trusts
 * (the one OpenSSL would load for "module = rdrand.so" in this tool's
 * environment, or one named by --module), the file is opened through the
 * kernel (/proc/PID/map_files, or by its path and checked to be the
 * mapped device and inode), and the block's address comes from that file's
 * own symbol table plus the load address the kernel shows in maps.  The
 * whole block must then lie in memory mapped from that file or in the
 * anonymous pages after it (its .bss).
 *
 * Bounded work: maps is read line by line at any length; every file is
 * examined once, within caps on what is read of it; a deadline covers
 * the whole reading of the process.
 */
/* process_vm_readv, O_NOFOLLOW */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "rdrand_status.h"

#include "check.h"
#include "pid_module.h"

/* Caps on what is read of one file, and on the whole process. */
#define ELF_MAX_SECTIONS 4096
#define ELF_MAX_TABLE                                                          \
    (16u << 20)                     /* .dynsym or .dynstr (libcrypto: 0.2 MiB) \
                                     */
#define MODULE_MAX_SIZE (64u << 20) /* a trusted module file */
#define PID_MAX_FILES 8192          /* distinct files examined */
#define PID_MAX_MAPS (1u << 20)     /* maps lines kept */

#define MAX_SEGMENTS 8

struct segment {
    uint64_t vaddr, memsz, offset;
    int writable, executable;
};

struct region {
    uint64_t start, end, offset;
    int executable; /* maps says x */
    dev_t dev;
    ino_t ino;
};

struct seen {
    dev_t dev;
    ino_t ino;
};

uint64_t pid_now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

int pid_module_trust(struct pid_trusted *t, const char *path, char *error,
                     size_t len)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t got = 0;

    memset(t, 0, sizeof(*t));
    snprintf(t->path, sizeof(t->path), "%s", path);
    /* fstat of a descriptor open just gave cannot fail. */
    if (fd < 0 || fstat(fd, &st) != 0 /* unreachable: fd is open */
        || !S_ISREG(st.st_mode) || st.st_size <= 0
        || (uint64_t)st.st_size > MODULE_MAX_SIZE
        || (t->bytes = malloc((size_t)st.st_size)) /* unreachable: OOM */
               == NULL
        || (got = pread(fd, t->bytes, (size_t)st.st_size, 0)) != st.st_size) {
        snprintf(error, len,
                 "cannot read the module this rdrand-check trusts, %s: %s "
                 "(--module FILE names the module file the process loads)",
                 path,
                 /* got < 0: pread of a regular file: an I/O error */
                 fd < 0 || got < 0 ? strerror(errno) /* unreachable: EIO */
                 : got > 0         ? "it changed while it was read"
                                   : "not a regular file of a module's size");
        free(t->bytes);
        t->bytes = NULL;
        if (fd >= 0)
            close(fd);
        return 0;
    }
    close(fd);
    t->size = (size_t)st.st_size;
    return 1;
}

void pid_module_untrust(struct pid_trusted *t)
{
    free(t->bytes);
    t->bytes = NULL;
}

/* len bytes at off of a file of size bytes: 1 if all were read. */
static int read_at(int fd, uint64_t size, uint64_t off, void *buf, size_t len)
{
    return off <= size && len <= size - off
           && pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

static void *read_table(int fd, uint64_t size, const Elf64_Shdr *s)
{
    void *buf;

    if (s->sh_size == 0 || s->sh_size > ELF_MAX_TABLE
        || (buf = malloc(s->sh_size)) == NULL) /* unreachable: OOM */
        return NULL;
    if (!read_at(fd, size, s->sh_offset, buf, s->sh_size)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/*
 * The defined data symbol RDRAND_STATUS_SYMBOL in the dynamic symbol
 * table of the ELF file fd: 1 and its value and size, 0 if the file is
 * not such an object or does not export it.
 */
static int file_symbol(int fd, uint64_t size, uint64_t *value, uint64_t *sz)
{
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    Elf64_Sym *syms = NULL;
    char *names = NULL;
    int found = 0;

    if (!read_at(fd, size, 0, &eh, sizeof(eh))
        || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0
        || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN
        || eh.e_shentsize != sizeof(*sh) || eh.e_shnum == 0
        || eh.e_shnum > ELF_MAX_SECTIONS
        || (sh = calloc(eh.e_shnum, sizeof(*sh))) == NULL /* unreachable: OOM */
        || !read_at(fd, size, eh.e_shoff, sh, eh.e_shnum * sizeof(*sh)))
        goto done;
    /* The first SHT_DYNSYM is the loader's: one table read, at most. */
    for (unsigned i = 0; i < eh.e_shnum && syms == NULL; i++) {
        const Elf64_Shdr *strs = &sh[sh[i].sh_link % eh.e_shnum];
        size_t n = sh[i].sh_size / sizeof(*syms);

        if (sh[i].sh_type != SHT_DYNSYM)
            continue;
        if (sh[i].sh_entsize != sizeof(*syms) || strs->sh_type != SHT_STRTAB
            || (syms = read_table(fd, size, &sh[i])) == NULL
            || (names = read_table(fd, size, strs)) == NULL)
            goto done;
        names[strs->sh_size - 1] = '\0';
        for (size_t k = 0; k < n && !found; k++)
            if (syms[k].st_name < strs->sh_size
                && strcmp(names + syms[k].st_name, RDRAND_STATUS_SYMBOL) == 0
                && syms[k].st_shndx != SHN_UNDEF
                && ELF64_ST_TYPE(syms[k].st_info) == STT_OBJECT) {
                *value = syms[k].st_value;
                *sz = syms[k].st_size;
                found = 1;
            }
    }
done:
    free(names);
    free(syms);
    free(sh);
    return found;
}

/* The file's PT_LOAD segments, as the loader maps them. */
static int file_segments(int fd, uint64_t size, struct segment *seg,
                         size_t *nseg)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;

    *nseg = 0;
    if (!read_at(fd, size, 0, &eh, sizeof(eh)) || eh.e_phentsize != sizeof(ph)
        || eh.e_phnum > 64)
        return 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (!read_at(fd, size, eh.e_phoff + (uint64_t)i * sizeof(ph), &ph,
                     sizeof(ph)))
            return 0;
        if (ph.p_type != PT_LOAD)
            continue;
        if (*nseg == MAX_SEGMENTS)
            return 0;
        seg[(*nseg)++] = (struct segment){ph.p_vaddr, ph.p_memsz, ph.p_offset,
                                          (ph.p_flags & PF_W) != 0,
                                          (ph.p_flags & PF_X) != 0};
    }
    /* The first maps at the lowest address, from offset 0 (ld.so's rule). */
    return *nseg > 0 && seg[0].offset == 0;
}

/* Is the open file byte for byte one of the trusted modules? */
static const struct pid_trusted *
trusted_copy(int fd, uint64_t size, const struct pid_trusted *t, size_t nt)
{
    static unsigned char chunk[65536];

    for (size_t i = 0; i < nt; i++) {
        uint64_t off = 0;

        if (t[i].size != size)
            continue;
        while (off < size) {
            size_t n = size - off < sizeof(chunk) ? (size_t)(size - off)
                                                  : sizeof(chunk);

            if (!read_at(fd, size, off, chunk, n)
                || memcmp(chunk, t[i].bytes + off, n) != 0)
                break;
            off += n;
        }
        if (off == size)
            return &t[i];
    }
    return NULL;
}

/*
 * The file a maps line names, opened as the kernel mapped it: through
 * map_files (root: the very file, even if removed or renamed since), else
 * by its path when that is still the same device and inode.  Never a
 * FIFO or device: the path is the process's to change meanwhile.
 */
static int open_mapped(pid_t pid, const struct region *m, const char *path,
                       int deleted, struct stat *st)
{
    char link[96];
    int fd;

    snprintf(link, sizeof(link), "/proc/%ld/map_files/%llx-%llx", (long)pid,
             (unsigned long long)m->start, (unsigned long long)m->end);
    fd = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && !deleted && lstat(path, st) == 0 && S_ISREG(st->st_mode)
        && st->st_dev == m->dev && st->st_ino == m->ino)
        fd = open(path,
                  O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 /* unreachable: fd is open */
        || !S_ISREG(st->st_mode) || st->st_dev != m->dev
        || st->st_ino != m->ino) {
        close(fd);
        return -1;
    }
    return fd;
}

struct candidate {
    uint64_t value, size;
    struct segment seg[MAX_SEGMENTS];
    size_t nseg;
    dev_t dev;
    ino_t ino;
    int deleted, trusted;
    char path[PID_PATH_MAX];
};

/* The region holding address a, or NULL. */
static const struct region *region_at(const struct region *r, size_t n,
                                      uint64_t a)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].start <= a && a < r[i].end)
            return &r[i];
    return NULL;
}

/*
 * Is the module loaded at base as ld.so loads it: each segment's first
 * page mapped from the file at that segment's offset, and every page of
 * [lo, hi) from the file or, within a writable segment's memsz, the
 * anonymous pages of its .bss?  A process can still write its own block:
 * what --pid reads is what the process's module says of itself.
 */
static int loaded_at(const struct region *r, size_t n,
                     const struct candidate *c, uint64_t base, uint64_t lo,
                     uint64_t hi)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

    for (size_t i = 0; i < c->nseg; i++) {
        uint64_t at = base + (c->seg[i].vaddr & ~(page - 1));
        const struct region *m = region_at(r, n, at);

        /* ld.so maps code executable; a plain mmap of the file is not. */
        if (m == NULL || m->dev != c->dev || m->ino != c->ino
            || m->offset + (at - m->start) != (c->seg[i].offset & ~(page - 1))
            || (c->seg[i].executable && !m->executable))
            return 0;
    }
    while (lo < hi) {
        const struct region *m = region_at(r, n, lo);
        int ok = m != NULL && m->dev == c->dev && m->ino == c->ino;

        for (size_t i = 0; m != NULL && !ok && i < c->nseg; i++)
            ok = m->ino == 0 && c->seg[i].writable
                 && m->start >= base + (c->seg[i].vaddr & ~(page - 1))
                 && m->end - base <= c->seg[i].vaddr + c->seg[i].memsz + page;
        if (!ok)
            return 0;
        lo = m->end;
    }
    return 1;
}

/* One maps line: its region, offset and path ("" if none). */
static int parse_line(char *line, struct region *r, uint64_t *offset,
                      char **path, int *deleted)
{
    unsigned long long start, end, off, inode;
    unsigned major, minor;
    char perms[8];
    int at = 0;
    size_t n;

    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
               &off, &major, &minor, &inode, &at)
            != 7
        || at == 0) /* unreachable: %n follows the 7th conversion */
        return 0;
    r->start = start;
    r->end = end;
    r->offset = off;
    r->executable = strchr(perms, 'x') != NULL;
    r->dev = makedev(major, minor);
    r->ino = (ino_t)inode;
    *offset = off;
    *path = line + at;
    n = strcspn(*path, "\n");
    (*path)[n] = '\0';
    *deleted = n >= 10 && strcmp(*path + n - 10, " (deleted)") == 0;
    if (*deleted)
        (*path)[n - 10] = '\0';
    return 1;
}

/* Examine the file mapped at offset 0 by r: 1 if it exports the block. */
static int examine(struct pid_find *f, const struct region *r, const char *path,
                   int deleted, struct candidate *c)
{
    struct stat st;
    int fd = open_mapped(f->pid, r, path, deleted, &st);

    if (fd < 0) {
        if (f->unopened++ == 0)
            snprintf(f->unopened_path, sizeof(f->unopened_path), "%s%s", path,
                     deleted ? " (deleted)" : "");
        return 0;
    }
    memset(c, 0, sizeof(*c));
    if (!file_symbol(fd, (uint64_t)st.st_size, &c->value, &c->size)) {
        close(fd);
        return 0;
    }
    c->trusted =
        trusted_copy(fd, (uint64_t)st.st_size, f->trusted, f->ntrusted) != NULL
        && file_segments(fd, (uint64_t)st.st_size, c->seg, &c->nseg);
    close(fd);
    c->dev = r->dev;
    c->ino = r->ino;
    c->deleted = deleted;
    snprintf(c->path, sizeof(c->path), "%s", path);
    return 1;
}

static int seen_before(struct seen *seen, size_t *nseen, dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < *nseen; i++)
        if (seen[i].dev == dev && seen[i].ino == ino)
            return 1;
    if (*nseen < PID_MAX_FILES)
        seen[(*nseen)++] = (struct seen){dev, ino};
    return 0;
}

static void add_found(struct pid_find *f, const struct candidate *c,
                      uint64_t at)
{
    for (size_t i = 0; i < f->nfound && i < PID_MAX_FOUND; i++)
        if (f->found[i].address == at)
            return;
    if (f->nfound < PID_MAX_FOUND) {
        f->found[f->nfound].address = at;
        f->found[f->nfound].size = c->size;
        f->found[f->nfound].deleted = c->deleted;
        snprintf(f->found[f->nfound].path, sizeof(f->found[0].path), "%s",
                 c->path);
    }
    f->nfound++;
}

/*
 * What one exporting file says: a block in found[] for each place the
 * loader mapped the trusted module (any offset-0 mapping of it can be the
 * base: another mmap of the file is not), else untrusted or misplaced.
 */
static void record(struct pid_find *f, const struct candidate *c,
                   const struct region *r, size_t n)
{
    size_t before = f->nfound;

    for (size_t i = 0;
         c->trusted && c->size >= RDRAND_STATUS_HEADER_SIZE && i < n; i++) {
        uint64_t base = r[i].start - c->seg[0].vaddr, at = base + c->value;

        if (r[i].offset == 0 && r[i].dev == c->dev && r[i].ino == c->ino
            && r[i].start >= c->seg[0].vaddr && at >= base && at + c->size > at
            && loaded_at(r, n, c, base, at, at + c->size))
            add_found(f, c, at);
    }
    if (f->nfound > before)
        return;
    if (c->trusted)
        f->misplaced++;
    else
        f->untrusted++;
    if (f->untrusted + f->misplaced == 1) {
        snprintf(f->untrusted_path, sizeof(f->untrusted_path), "%s", c->path);
        f->untrusted_deleted = c->deleted;
    }
}

int pid_module_find(struct pid_find *f)
{
    char maps[64], *line = NULL, *path;
    size_t cap = 0, nregions = 0, nseen = 0, ncand = 0;
    struct region *regions = NULL, r;
    /* One allocation, so that one test says whether it failed. */
    struct work {
        struct seen seen[PID_MAX_FILES];
        /* Past two exporting files the report is "too many" anyway. */
        struct candidate cand[PID_MAX_FOUND * 2];
    } *w = calloc(1, sizeof(*w));
    struct seen *seen;
    struct candidate *cand;
    uint64_t offset;
    int deleted, status = PID_FIND_OK;
    FILE *in;

    snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)f->pid);
    if (w == NULL) /* unreachable: calloc of 260 KiB failed */
        return PID_FIND_NOMEM;
    seen = w->seen;
    cand = w->cand;
    if ((in = fopen(maps, "re")) == NULL) {
        f->err = errno;
        free(w);
        return PID_FIND_NO_MAPS;
    }
    while (getline(&line, &cap, in) > 0) {
        if (pid_now_ms() > f->deadline_ms) {
            status = PID_FIND_TIMEOUT;
            break;
        }
        int parsed = parse_line(line, &r, &offset, &path, &deleted);

        if (!parsed) /* unreachable: every line the kernel writes parses */
            continue;
        if (nregions % 1024 == 0) {
            struct region *more;
            size_t grow = (nregions + 1024) * sizeof(r);

            if (nregions >= PID_MAX_MAPS
                || !(more = realloc(regions, grow))) { /* unreachable: OOM */
                status = PID_FIND_TOO_BIG;
                break;
            }
            regions = more;
        }
        regions[nregions++] = r;
        if (offset != 0 || r.ino == 0 || path[0] != '/'
            || seen_before(seen, &nseen, r.dev, r.ino))
            continue;
        if (nseen == PID_MAX_FILES) {
            status = PID_FIND_TOO_BIG;
            break;
        }
        if (ncand < PID_MAX_FOUND * 2
            && examine(f, &r, path, deleted, &cand[ncand]))
            ncand++;
    }
    fclose(in);
    free(line);
    /* The block's pages are known only once all of maps is read. */
    for (size_t i = 0; status == PID_FIND_OK && i < ncand; i++)
        record(f, &cand[i], regions, nregions);
    free(regions);
    free(w);
    return status;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check --pid's reading of mapped files (tools/pid_module.c),
 * included whole so that its parts are tested one by one on what a
 * process could map: ELF files forged every way a check of
 * file_symbol and file_segments refuses, a file that reads short, a
 * path that is no longer the mapped file, maps lines and memory layouts
 * no loader makes.  tests/cli/test_pid.sh shows the same refusals
 * through the tool against running processes.
 */
#include "pid_module.c"

#include <linux/io_uring.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cmocka.h>

/* ---- a small ELF shared object exporting rdrand_status ---- */

#define IMG_SIZE 0x800u
#define PH_OFF 64u
#define SH_OFF 0x400u
#define SYM_OFF 0x600u
#define STR_OFF 0x700u

static unsigned char img[IMG_SIZE];
static const char strtab[] = "\0rdrand_status";

static Elf64_Ehdr *eh(void)
{
    return (Elf64_Ehdr *)img;
}
static Elf64_Phdr *ph(unsigned i)
{
    return (Elf64_Phdr *)(img + PH_OFF) + i;
}
static Elf64_Shdr *sh(unsigned i)
{
    return (Elf64_Shdr *)(img + SH_OFF) + i;
}
static Elf64_Sym *sym(void)
{
    return (Elf64_Sym *)(img + SYM_OFF) + 1;
}

/* Two PT_LOAD segments (code, then data with .bss), three sections
 * (none, .dynsym, .dynstr), the symbol at 0x3000, 8704 bytes. */
static void img_reset(void)
{
    memset(img, 0, sizeof(img));
    memcpy(eh()->e_ident, ELFMAG, SELFMAG);
    eh()->e_ident[EI_CLASS] = ELFCLASS64;
    eh()->e_type = ET_DYN;
    eh()->e_phoff = PH_OFF;
    eh()->e_phentsize = sizeof(Elf64_Phdr);
    eh()->e_phnum = 2;
    eh()->e_shoff = SH_OFF;
    eh()->e_shentsize = sizeof(Elf64_Shdr);
    eh()->e_shnum = 3;
    *ph(0) = (Elf64_Phdr){.p_type = PT_LOAD,
                          .p_flags = PF_R | PF_X,
                          .p_offset = 0,
                          .p_vaddr = 0,
                          .p_memsz = 0x1000};
    *ph(1) = (Elf64_Phdr){.p_type = PT_LOAD,
                          .p_flags = PF_R | PF_W,
                          .p_offset = 0x1000,
                          .p_vaddr = 0x2000,
                          .p_memsz = 0x4000};
    *sh(1) = (Elf64_Shdr){.sh_type = SHT_DYNSYM,
                          .sh_offset = SYM_OFF,
                          .sh_size = 2 * sizeof(Elf64_Sym),
                          .sh_link = 2,
                          .sh_entsize = sizeof(Elf64_Sym)};
    *sh(2) = (Elf64_Shdr){
        .sh_type = SHT_STRTAB, .sh_offset = STR_OFF, .sh_size = sizeof(strtab)};
    *sym() = (Elf64_Sym){.st_name = 1,
                         .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
                         .st_shndx = 5,
                         .st_value = 0x3000,
                         .st_size = RDRAND_STATUS_SIZE};
    memcpy(img + STR_OFF, strtab, sizeof(strtab));
}

/* The image (its first len bytes) as an open file. */
static int img_file(size_t len)
{
    int fd = memfd_create("elf", MFD_CLOEXEC);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, len), (ssize_t)len);
    return fd;
}

/* file_symbol on the image as it is now: 1 if it exports the block. */
static int img_symbol(void)
{
    uint64_t value = 0, size = 0;
    int fd = img_file(IMG_SIZE),
        found = file_symbol(fd, IMG_SIZE, &value, &size);

    close(fd);
    if (found) {
        assert_int_equal(value, 0x3000);
        assert_int_equal(size, RDRAND_STATUS_SIZE);
    }
    return found;
}

static void test_symbol(void **state)
{
    (void)state;
    img_reset();
    assert_true(img_symbol());

    /* The header: not ELF, 32-bit, an executable, odd sections. */
    img[0] = 'X';
    assert_false(img_symbol());
    img_reset();
    eh()->e_ident[EI_CLASS] = ELFCLASS32;
    assert_false(img_symbol());
    img_reset();
    eh()->e_type = ET_EXEC;
    assert_false(img_symbol());
    img_reset();
    eh()->e_shentsize = 1;
    assert_false(img_symbol());
    img_reset();
    eh()->e_shnum = 0;
    assert_false(img_symbol());
    img_reset();
    eh()->e_shnum = ELF_MAX_SECTIONS + 1;
    assert_false(img_symbol());
    img_reset();
    eh()->e_shoff = IMG_SIZE - 8; /* the table past the file's end */
    assert_false(img_symbol());
    img_reset();
    eh()->e_shoff = UINT64_MAX; /* an offset past any file */
    assert_false(img_symbol());

    /* The tables: no .dynsym at all, odd entries, a link to no strings,
     * empty, huge or past the end. */
    img_reset();
    sh(1)->sh_type = SHT_SYMTAB;
    assert_false(img_symbol());
    img_reset();
    sh(1)->sh_entsize = 1;
    assert_false(img_symbol());
    img_reset();
    sh(1)->sh_link = 0;
    assert_false(img_symbol());
    img_reset();
    sh(1)->sh_link = 1 + 3 * 1000; /* wraps to the table itself */
    assert_false(img_symbol());
    img_reset();
    sh(1)->sh_size = 0;
    assert_false(img_symbol());
    img_reset();
    sh(1)->sh_size = ELF_MAX_TABLE + sizeof(Elf64_Sym);
    assert_false(img_symbol());
    img_reset();
    sh(1)->sh_offset = IMG_SIZE;
    assert_false(img_symbol());
    img_reset();
    sh(2)->sh_offset = IMG_SIZE - 4; /* the strings cut by the end */
    assert_false(img_symbol());

    /* The symbol: its name past the strings, another name, undefined,
     * a function. */
    img_reset();
    sym()->st_name = sizeof(strtab);
    assert_false(img_symbol());
    img_reset();
    sym()->st_name = 2; /* "drand_status" */
    assert_false(img_symbol());
    img_reset();
    sym()->st_shndx = SHN_UNDEF;
    assert_false(img_symbol());
    img_reset();
    sym()->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    assert_false(img_symbol());

    /* Strings that do not end in NUL are cut, not read past. */
    img_reset();
    sh(2)->sh_size = sizeof(strtab) - 1;
    assert_false(img_symbol()); /* "rdrand_statu" */
}

/* file_segments on the image as it is now: the number, or -1 if refused. */
static int img_segments(struct segment *seg)
{
    size_t nseg = 99;
    int fd = img_file(IMG_SIZE), ok = file_segments(fd, IMG_SIZE, seg, &nseg);

    close(fd);
    return ok ? (int)nseg : -1;
}

static void test_segments(void **state)
{
    struct segment seg[MAX_SEGMENTS];

    (void)state;
    img_reset();
    assert_int_equal(img_segments(seg), 2);
    assert_int_equal(seg[1].vaddr, 0x2000);
    assert_true(seg[1].writable && !seg[1].executable);
    assert_true(seg[0].executable && !seg[0].writable);

    /* A file cut short since file_symbol read it (its process's to
     * truncate). */
    img_reset();
    {
        size_t nseg = 99;
        int fd = img_file(sizeof(Elf64_Ehdr) - 1);

        assert_false(file_segments(fd, sizeof(Elf64_Ehdr) - 1, seg, &nseg));
        assert_int_equal(nseg, 0);
        close(fd);
    }
    img_reset();
    eh()->e_phentsize = 1;
    assert_int_equal(img_segments(seg), -1);
    img_reset();
    eh()->e_phnum = 65;
    assert_int_equal(img_segments(seg), -1);
    img_reset();
    eh()->e_phoff = IMG_SIZE - sizeof(Elf64_Phdr) / 2;
    assert_int_equal(img_segments(seg), -1);
    /* No PT_LOAD; the first not from offset 0; more than kept. */
    img_reset();
    ph(0)->p_type = PT_NOTE;
    ph(1)->p_type = PT_DYNAMIC;
    assert_int_equal(img_segments(seg), -1);
    img_reset();
    ph(0)->p_offset = 0x1000;
    assert_int_equal(img_segments(seg), -1);
    img_reset();
    eh()->e_phnum = MAX_SEGMENTS + 1;
    for (unsigned i = 0; i < MAX_SEGMENTS + 1; i++)
        *ph(i) = (Elf64_Phdr){.p_type = PT_LOAD, .p_vaddr = i * 0x1000ull};
    assert_int_equal(img_segments(seg), -1);
    /* Other program headers are passed over. */
    img_reset();
    eh()->e_phnum = 3;
    *ph(2) = (Elf64_Phdr){.p_type = PT_GNU_STACK};
    assert_int_equal(img_segments(seg), 2);
}

static void test_read_at(void **state)
{
    char buf[16];
    int fd;

    (void)state;
    img_reset();
    fd = img_file(8);
    assert_true(read_at(fd, 8, 0, buf, 8));
    assert_false(read_at(fd, 8, 9, buf, 0));           /* past the end */
    assert_false(read_at(fd, 8, 4, buf, 5));           /* across it */
    assert_false(read_at(fd, 16, 4, buf, 8));          /* shrunk since */
    assert_false(read_at(fd, UINT64_MAX, 0, buf, 16)); /* said bigger */
    close(fd);
}

static void test_trusted_copy(void **state)
{
    static struct pid_trusted t[2];
    int fd;

    (void)state;
    img_reset();
    t[0].bytes = malloc(IMG_SIZE);
    t[1].bytes = malloc(IMG_SIZE);
    assert_non_null(t[0].bytes);
    assert_non_null(t[1].bytes);
    memcpy(t[0].bytes, img, IMG_SIZE);
    memcpy(t[1].bytes, img, IMG_SIZE);
    t[0].size = IMG_SIZE - 1; /* another size: not compared */
    t[1].size = IMG_SIZE;
    t[1].bytes[IMG_SIZE - 1] ^= 1; /* one byte off */
    fd = img_file(IMG_SIZE);
    assert_null(trusted_copy(fd, IMG_SIZE, t, 2));
    t[1].bytes[IMG_SIZE - 1] ^= 1;
    assert_ptr_equal(trusted_copy(fd, IMG_SIZE, t, 2), &t[1]);
    close(fd);
    /* A file shrunk since its size was taken: not the module. */
    fd = img_file(IMG_SIZE / 2);
    assert_null(trusted_copy(fd, IMG_SIZE, t, 2));
    close(fd);
    free(t[0].bytes);
    free(t[1].bytes);
}

static void test_trust(void **state)
{
    static struct pid_trusted t;
    char error[512], path[64];
    int fd;

    (void)state;
    /* A directory, an empty file, one bigger than a module can be. */
    assert_false(pid_module_trust(&t, "/", error, sizeof(error)));
    assert_non_null(strstr(error, "not a regular file of a module's size"));
    assert_null(t.bytes);
    fd = memfd_create("empty", MFD_CLOEXEC);
    assert_true(fd >= 0);
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    assert_false(pid_module_trust(&t, path, error, sizeof(error)));
    assert_non_null(strstr(error, "not a regular file of a module's size"));
    assert_int_equal(ftruncate(fd, MODULE_MAX_SIZE + 1), 0);
    assert_false(pid_module_trust(&t, path, error, sizeof(error)));
    assert_non_null(strstr(error, "not a regular file of a module's size"));
    close(fd);
    /* A file whose size is not what it reads (sysfs: 4096, a line). */
    if (pid_module_trust(&t, "/sys/devices/system/cpu/online", error,
                         sizeof(error)))
        fail_msg("a sysfs file read whole as 4096 bytes");
    else if (access("/sys/devices/system/cpu/online", R_OK) == 0)
        assert_non_null(strstr(error, "it changed while it was read"));
}

/* A region and candidate of one file at base 0x10000, as ld.so maps
 * the image: code, data, then the .bss's anonymous pages. */
static struct region regs[4];
static struct candidate cand;
static const uint64_t base = 0x10000;

static void layout_reset(void)
{
    memset(&cand, 0, sizeof(cand));
    cand.value = 0x3000;
    cand.size = RDRAND_STATUS_SIZE;
    cand.nseg = 2;
    cand.seg[0] = (struct segment){0, 0x1000, 0, 0, 1};
    cand.seg[1] = (struct segment){0x2000, 0x4000, 0x1000, 1, 0};
    cand.dev = 7;
    cand.ino = 42;
    cand.trusted = 1;
    snprintf(cand.path, sizeof(cand.path), "/lib/x.so");
    regs[0] = (struct region){base, base + 0x1000, 0, 1, 7, 42};
    regs[1] = (struct region){base + 0x1000, base + 0x2000, 0, 0, 0, 0};
    regs[2] = (struct region){base + 0x2000, base + 0x3000, 0x1000, 0, 7, 42};
    regs[3] = (struct region){base + 0x3000, base + 0x6000, 0, 0, 0, 0};
}

static int loaded(void)
{
    return loaded_at(regs, 4, &cand, base, base + cand.value,
                     base + cand.value + cand.size);
}

static void test_loaded_at(void **state)
{
    (void)state;
    layout_reset();
    assert_true(loaded());
    /* A segment's first page: not mapped, another file, another
     * offset, code not executable. */
    layout_reset();
    regs[2].start = base + 0x2800;
    assert_false(loaded());
    layout_reset();
    regs[2].dev = 8;
    assert_false(loaded());
    layout_reset();
    regs[2].ino = 43;
    assert_false(loaded());
    layout_reset();
    regs[2].offset = 0;
    assert_false(loaded());
    layout_reset();
    regs[0].executable = 0;
    assert_false(loaded());
    /* The block's pages: a hole, another file's, anonymous but beyond
     * the data segment's memsz, or beside a segment that is not
     * writable. */
    layout_reset();
    regs[3].start = base + 0x4000;
    assert_false(loaded());
    layout_reset();
    regs[3].ino = 99;
    assert_false(loaded());
    layout_reset();
    regs[3].dev = 7; /* the file's device, another inode */
    regs[3].ino = 99;
    assert_false(loaded());
    layout_reset();
    regs[3].end = base + 0x9000;
    cand.size = 0x5000;
    assert_false(loaded());
    layout_reset();
    cand.seg[1].writable = 0;
    assert_false(loaded());
    /* The block in pages before the data segment: not its .bss. */
    layout_reset();
    assert_false(loaded_at(regs, 4, &cand, base, base + 0x1000, base + 0x1800));
}

static struct pid_find find;

static void test_record(void **state)
{
    (void)state;
    memset(&find, 0, sizeof(find));
    layout_reset();
    record(&find, &cand, regs, 4);
    assert_int_equal(find.nfound, 1);
    assert_int_equal(find.found[0].address, base + 0x3000);

    /* The same base twice (maps never lists one twice): one block. */
    memset(&find, 0, sizeof(find));
    regs[1] = regs[0];
    record(&find, &cand, regs, 4);
    assert_int_equal(find.nfound, 1);

    /* A mapping below the first segment's address; a block address or
     * size that wraps: misplaced. */
    memset(&find, 0, sizeof(find));
    layout_reset();
    cand.seg[0].vaddr = base + 0x1000;
    record(&find, &cand, regs, 4);
    assert_int_equal(find.nfound, 0);
    assert_int_equal(find.misplaced, 1);
    layout_reset();
    cand.value = UINT64_MAX - 0x100; /* base + value wraps below base */
    record(&find, &cand, regs, 4);
    layout_reset();
    cand.size = UINT64_MAX - base;
    record(&find, &cand, regs, 4);
    assert_int_equal(find.nfound, 0);
    assert_int_equal(find.misplaced, 3);
    assert_string_equal(find.untrusted_path, "/lib/x.so");

    /* More than PID_MAX_FOUND: counted, the first kept. */
    memset(&find, 0, sizeof(find));
    layout_reset();
    for (uint64_t i = 0; i < PID_MAX_FOUND + 2; i++)
        add_found(&find, &cand, base + i * 0x10000);
    assert_int_equal(find.nfound, PID_MAX_FOUND + 2);
    assert_int_equal(find.found[PID_MAX_FOUND - 1].address,
                     base + (PID_MAX_FOUND - 1) * 0x10000);
}

static void test_parse_line(void **state)
{
    char line[256];
    struct region r;
    uint64_t offset;
    char *path;
    int deleted;

    (void)state;
    snprintf(line, sizeof(line),
             "7f00-7f10 r-xp 00001000 08:01 1234   /lib/a.so (deleted)\n");
    assert_true(parse_line(line, &r, &offset, &path, &deleted));
    assert_string_equal(path, "/lib/a.so");
    assert_true(deleted && r.executable && offset == 0x1000);
    snprintf(line, sizeof(line), "7f00-7f10 rw-p 00000000 00:00 0\n");
    assert_true(parse_line(line, &r, &offset, &path, &deleted));
    assert_string_equal(path, "");
    assert_false(deleted || r.executable);
    /* Not a maps line; one that ends at its inode. */
    snprintf(line, sizeof(line), "garbage\n");
    assert_false(parse_line(line, &r, &offset, &path, &deleted));
    snprintf(line, sizeof(line), "7f00-7f10 rw-p 00000000 00:00 0");
    assert_true(parse_line(line, &r, &offset, &path, &deleted));
    assert_string_equal(path, "");
}

static void test_seen(void **state)
{
    static struct seen seen[PID_MAX_FILES];
    size_t n = PID_MAX_FILES - 1;

    (void)state;
    assert_false(seen_before(seen, &n, 1, 1));
    assert_int_equal(n, PID_MAX_FILES);
    assert_false(seen_before(seen, &n, 1, 2)); /* full: not kept */
    assert_int_equal(n, PID_MAX_FILES);
    assert_true(seen_before(seen, &n, 1, 1));
}

/* open_mapped where map_files has no such mapping: by its path, when
 * that is still the mapped regular file. */
static void test_open_mapped(void **state)
{
    char path[] = "/tmp/test_pid_module.XXXXXX";
    struct stat st, got;
    struct region r = {0x1000, 0x2000, 0, 0, 0, 0};
    int fd = mkstemp(path), in;

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    r.dev = st.st_dev;
    r.ino = st.st_ino;
    assert_true((in = open_mapped(getpid(), &r, path, 0, &got)) >= 0);
    close(in);
    assert_int_equal(open_mapped(getpid(), &r, path, 1, &got), -1);
    r.ino++;
    assert_int_equal(open_mapped(getpid(), &r, path, 0, &got), -1);
    r.ino--;
    r.dev++;
    assert_int_equal(open_mapped(getpid(), &r, path, 0, &got), -1);
    r.dev--;
    assert_int_equal(open_mapped(getpid(), &r, "/dev/null", 0, &got), -1);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(open_mapped(getpid(), &r, path, 0, &got), -1);
    close(fd);
}

/* open_mapped through map_files (root), the mapping's dev and inode not
 * the file's: refused after it was opened. */
static void test_open_mapped_files(void **state)
{
    char path[] = "/tmp/test_pid_module.XXXXXX";
    struct stat st, got;
    struct region r;
    int fd = mkstemp(path), in;
    void *map;

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(unlink(path), 0);
    r = (struct region){(uintptr_t)map, (uintptr_t)map + 4096, 0, 0, st.st_dev,
                        st.st_ino};
    in = open_mapped(getpid(), &r, path, 1, &got);
    if (in < 0) {
        munmap(map, 4096);
        close(fd);
        skip(); /* map_files needs CAP_SYS_ADMIN */
    }
    close(in);
    r.ino++;
    assert_int_equal(open_mapped(getpid(), &r, path, 1, &got), -1);
    r.ino--;
    r.dev++;
    assert_int_equal(open_mapped(getpid(), &r, path, 1, &got), -1);
    munmap(map, 4096);
    close(fd);
}

/* examine: a mapped file that cannot be opened is counted, the first
 * named; one that can is a candidate if it exports the block, trusted
 * if it is a trusted module's copy whose segments ld.so could map. */
static void test_examine(void **state)
{
    char path[] = "/tmp/test_pid_module.XXXXXX";
    static struct pid_trusted t;
    struct stat st;
    struct region r = {0x1000, 0x2000, 0, 0, 0, 0};
    int fd = mkstemp(path);

    (void)state;
    memset(&find, 0, sizeof(find));
    find.pid = getpid();
    assert_false(examine(&find, &r, "/gone/a.so", 0, &cand));
    assert_false(examine(&find, &r, "/gone/b.so", 1, &cand));
    assert_int_equal(find.unopened, 2);
    assert_string_equal(find.unopened_path, "/gone/a.so");
    memset(&find, 0, sizeof(find));
    find.pid = getpid();
    assert_false(examine(&find, &r, "/gone/b.so", 1, &cand));
    assert_string_equal(find.unopened_path, "/gone/b.so (deleted)");
    find.unopened = 2;

    img_reset();
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, IMG_SIZE), (ssize_t)IMG_SIZE);
    assert_int_equal(fstat(fd, &st), 0);
    r.dev = st.st_dev;
    r.ino = st.st_ino;
    t.bytes = img;
    t.size = IMG_SIZE;
    find.trusted = &t;
    find.ntrusted = 1;
    assert_true(examine(&find, &r, path, 0, &cand));
    assert_true(cand.trusted);
    assert_int_equal(cand.nseg, 2);
    assert_int_equal(cand.value, 0x3000);
    /* Not a copy of it: untrusted. */
    find.ntrusted = 0;
    assert_true(examine(&find, &r, path, 0, &cand));
    assert_false(cand.trusted);
    /* A copy whose program headers ld.so would refuse: untrusted. */
    eh()->e_phnum = 65;
    assert_int_equal(pwrite(fd, img, IMG_SIZE, 0), (ssize_t)IMG_SIZE);
    find.ntrusted = 1;
    assert_true(examine(&find, &r, path, 0, &cand));
    assert_false(cand.trusted);
    /* Not exporting the block: no candidate. */
    sym()->st_shndx = SHN_UNDEF;
    assert_int_equal(pwrite(fd, img, IMG_SIZE, 0), (ssize_t)IMG_SIZE);
    assert_false(examine(&find, &r, path, 0, &cand));
    assert_int_equal(find.unopened, 2);
    assert_int_equal(unlink(path), 0);
    close(fd);
}

/* A mapping of a file that is no file: an io_uring's rings, from offset
 * 0, an inode of the kernel's own and "anon_inode:[io_uring]" for a
 * path.  pid_module_find passes it over (not examined, so not counted
 * as unopened); opened through map_files, it is refused as not a
 * regular file. */
static void test_anon_inode(void **state)
{
    struct io_uring_params params;
    struct stat st, got;
    struct region r;
    int ring, in;
    void *map;

    (void)state;
    memset(&params, 0, sizeof(params));
    ring = (int)syscall(SYS_io_uring_setup, 1, &params);
    if (ring < 0)
        skip(); /* io_uring disabled here */
    map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
               ring, IORING_OFF_SQ_RING);
    assert_true(map != MAP_FAILED);
    assert_int_equal(fstat(ring, &st), 0);
    assert_true(st.st_ino != 0);

    memset(&find, 0, sizeof(find));
    find.pid = getpid();
    find.deadline_ms = pid_now_ms() + 5000;
    assert_int_equal(pid_module_find(&find), PID_FIND_OK);
    assert_int_equal(find.nfound, 0);
    assert_int_equal(find.untrusted, 0);
    assert_null(strstr(find.unopened_path, "anon_inode"));

    r = (struct region){(uintptr_t)map, (uintptr_t)map + 4096, 0, 0, st.st_dev,
                        st.st_ino};
    in = open_mapped(getpid(), &r, "anon_inode:[io_uring]", 0, &got);
    if (in >= 0)
        close(in);
    assert_int_equal(in, -1);
    munmap(map, 4096);
    close(ring);
}

/* The deadline, already passed: timed out at the first line. */
static void test_find_deadline(void **state)
{
    (void)state;
    memset(&find, 0, sizeof(find));
    find.pid = getpid();
    find.deadline_ms = 0;
    assert_int_equal(pid_module_find(&find), PID_FIND_TIMEOUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbol),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_read_at),
        cmocka_unit_test(test_trusted_copy),
        cmocka_unit_test(test_trust),
        cmocka_unit_test(test_loaded_at),
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_parse_line),
        cmocka_unit_test(test_seen),
        cmocka_unit_test(test_open_mapped),
        cmocka_unit_test(test_open_mapped_files),
        cmocka_unit_test(test_examine),
        cmocka_unit_test(test_anon_inode),
        cmocka_unit_test(test_find_deadline),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

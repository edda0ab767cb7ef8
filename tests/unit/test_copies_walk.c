/* SPDX-License-Identifier: Apache-2.0 */
/*
 * copies.c's reading of the loader's objects (tests/seams/copies_seams.c),
 * on objects described here: a segment's bounds, RELRO over a block,
 * notes cut short or not a build id, an object that is not a copy, a copy
 * whose mark or block is not mapped writable, one not the holder, and the
 * search itself through a dl_iterate_phdr this test answers (linked with
 * --wrap=dl_iterate_phdr): no object holds this copy, no build id, the
 * holder found.
 */
#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "seams.h"
#include "status_block.h"

/* An object: up to 4 segments. */
struct object {
    struct dl_phdr_info info;
    ElfW(Phdr) ph[4];
};

static void object_init(struct object *o, uintptr_t addr)
{
    memset(o, 0, sizeof(*o));
    o->info.dlpi_addr = addr;
    o->info.dlpi_phdr = o->ph;
}

static void segment(struct object *o, uint32_t type, uint32_t flags,
                    uintptr_t vaddr, size_t memsz, size_t align)
{
    ElfW(Phdr) *ph = &o->ph[o->info.dlpi_phnum++];

    ph->p_type = type;
    ph->p_flags = flags;
    ph->p_vaddr = vaddr;
    ph->p_memsz = memsz;
    ph->p_align = align;
}

/* A note: header, name (padded to 4), desc (padded to 4); its size. */
static size_t note(unsigned char *at, uint32_t type, const char *name,
                   uint32_t namesz, const void *desc, uint32_t descsz)
{
    ElfW(Nhdr) n = {namesz, descsz, type};
    size_t name4 = (namesz + 3u) & ~3u, desc4 = (descsz + 3u) & ~3u;

    memcpy(at, &n, sizeof(n));
    memset(at + sizeof(n), 0, name4 + desc4);
    memcpy(at + sizeof(n), name, namesz);
    memcpy(at + sizeof(n) + name4, desc, descsz);
    return sizeof(n) + name4 + desc4;
}

static const unsigned char test_id[4] = {0xb1, 0xd0, 0x1d, 0x42};

/* [off, off + len) against one segment [0x1000, 0x2000). */
static void test_maps_bounds(void **state)
{
    struct object o;

    (void)state;
    object_init(&o, 0);
    segment(&o, PT_LOAD, PF_R | PF_W, 0x1000, 0x1000, 8);
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x1ff8, 8, 1), 1);
    /* starts inside, ends past the segment */
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x1ffc, 8, 1), 0);
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x2000, 8, 0), 0);
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0xff8, 8, 0), 0);
}

/* Writable asked: a RELRO range over any byte of it refuses. */
static void test_maps_relro(void **state)
{
    struct object o;

    (void)state;
    object_init(&o, 0);
    segment(&o, PT_LOAD, PF_R | PF_W, 0x1000, 0x1000, 8);
    segment(&o, PT_GNU_RELRO, PF_R, 0x1800, 0x100, 1);
    /* before RELRO, apart from it */
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x1000, 8, 1), 1);
    /* before RELRO, its end inside it */
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x17fc, 8, 1), 0);
    /* inside RELRO */
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x1810, 8, 1), 0);
    /* after it */
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x1900, 8, 1), 1);
    /* read-only asked: RELRO does not matter */
    assert_int_equal(rdrand_copies_seam_maps(&o.info, 0x1810, 8, 0), 1);
}

/* Notes at notes[] (an object at load address 0). */
static void notes_object(struct object *o, const unsigned char *notes,
                         size_t len, size_t align)
{
    object_init(o, 0);
    segment(o, PT_LOAD, PF_R, (uintptr_t)notes, len, 8);
    segment(o, PT_NOTE, PF_R, (uintptr_t)notes, len, align);
}

static void test_build_id_notes(void **state)
{
    _Alignas(8) unsigned char notes[256];
    const unsigned char *id = NULL;
    size_t id_len = 0, n;
    struct object o;

    (void)state;
    /* no note segment at all */
    object_init(&o, 0);
    segment(&o, PT_LOAD, PF_R, 0x1000, 0x1000, 8);
    assert_int_equal(rdrand_copies_seam_build_id(&o.info, &id, &id_len), 0);

    /* a note segment no loaded segment maps */
    n = note(notes, NT_GNU_BUILD_ID, "GNU", 4, test_id, 4);
    object_init(&o, 0);
    segment(&o, PT_NOTE, PF_R, (uintptr_t)notes, n, 4);
    assert_int_equal(rdrand_copies_seam_build_id(&o.info, &id, &id_len), 0);

    /* another note, filling its segment: the walk ends there */
    n = note(notes, NT_GNU_ABI_TAG, "GNU", 4, test_id, 4);
    notes_object(&o, notes, n, 4);
    assert_int_equal(rdrand_copies_seam_build_id(&o.info, &id, &id_len), 0);

    /* a name past the segment's end */
    n = note(notes, NT_GNU_BUILD_ID, "GNU", 4, test_id, 4);
    ((ElfW(Nhdr) *)(void *)notes)->n_namesz = 0x1000;
    notes_object(&o, notes, n, 4);
    assert_int_equal(rdrand_copies_seam_build_id(&o.info, &id, &id_len), 0);

    /* the build id's type under another name length, or another name,
     * or with no bytes; then a real one, 8-aligned, is found after them */
    n = note(notes, NT_GNU_BUILD_ID, "GNUX", 5, test_id, 4);
    n += note(notes + n, NT_GNU_BUILD_ID, "XYZ", 4, test_id, 4);
    n += note(notes + n, NT_GNU_BUILD_ID, "GNU", 4, test_id, 0);
    notes_object(&o, notes, n, 4);
    assert_int_equal(rdrand_copies_seam_build_id(&o.info, &id, &id_len), 0);
    n += note(notes + n, NT_GNU_BUILD_ID, "GNU", 4, test_id, 4);
    notes_object(&o, notes, n, 4);
    assert_int_equal(rdrand_copies_seam_build_id(&o.info, &id, &id_len), 1);
    assert_int_equal(id_len, 4);
    assert_memory_equal(id, test_id, 4);
}

/* The first walk meets this copy, without a build id. */
static void test_self_without_build_id(void **state)
{
    uintptr_t mark, block, base = 1;
    const unsigned char *id;
    size_t id_len;
    struct object o;

    (void)state;
    rdrand_copies_seam_layout(&mark, &block);
    object_init(&o, 0);
    segment(&o, PT_LOAD, PF_R | PF_W, block, sizeof(rdrand_status_block), 8);
    assert_int_equal(rdrand_copies_seam_self(&o.info, &base, &id, &id_len), 1);
    assert_int_equal(base, 0);
    assert_null(id);
    /* not this copy */
    object_init(&o, 0);
    segment(&o, PT_LOAD, PF_R | PF_W, block + 4096, 4096, 8);
    assert_int_equal(rdrand_copies_seam_self(&o.info, &base, &id, &id_len), 0);
}

/*
 * Another object, its mark and block at the offsets of this copy's (this
 * copy at load address 0), in mem, its build id's note after them.
 */
struct other {
    struct object o;
    unsigned char *mem;
    uintptr_t lower;
    size_t span, notes;
};

static void other_init(struct other *x, const unsigned char *id, size_t id_len,
                       int mark_value, int same_header)
{
    uintptr_t mark, block;

    rdrand_copies_seam_layout(&mark, &block);
    x->lower = mark < block ? mark : block;
    x->span = (mark > block ? mark + sizeof(int)
                            : block + sizeof(rdrand_status_block))
              - x->lower;
    x->span = (x->span + 7) & ~(size_t)7;
    x->mem = calloc(1, x->span + 64);
    assert_non_null(x->mem);
    memcpy(x->mem + (mark - x->lower), &mark_value, sizeof(int));
    memcpy(x->mem + (block - x->lower), &rdrand_status_block,
           RDRAND_STATUS_HEADER_SIZE);
    if (!same_header)
        x->mem[block - x->lower] ^= 1;
    x->notes =
        note(x->mem + x->span, NT_GNU_BUILD_ID, "GNU", 4, id, (uint32_t)id_len);
    /* load address: mem where this copy has lower */
    object_init(&x->o, (uintptr_t)x->mem - x->lower);
    segment(&x->o, PT_LOAD, PF_R | PF_W, x->lower, x->span + x->notes, 8);
    segment(&x->o, PT_NOTE, PF_R, x->lower + x->span, x->notes, 4);
}

static struct rdrand_status *other_block(const struct other *x)
{
    uintptr_t mark, block;

    rdrand_copies_seam_layout(&mark, &block);
    return (struct rdrand_status *)(void *)(x->mem + (block - x->lower));
}

static void test_visit_not_holder(void **state)
{
    static const unsigned char other_id[4] = {1, 2, 3, 4};
    struct rdrand_status *home = NULL;
    uintptr_t mark, block;
    struct other x;
    struct object bare;
    int holder;

    (void)state;
    rdrand_copies_seam_layout(&mark, &block);
    /* an object with no build id */
    object_init(&bare, 0x10000);
    segment(&bare, PT_LOAD, PF_R | PF_W, 0, 0x1000, 8);
    assert_int_equal(
        rdrand_copies_seam_visit(&bare.info, test_id, 4, &home, &holder), 0);
    assert_null(home);
    assert_int_equal(holder, 1);

    /* a build id of another length, another build id */
    other_init(&x, test_id, 3, 1, 1);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 0);
    free(x.mem);
    other_init(&x, other_id, 4, 1, 1);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 0);
    free(x.mem);

    /* the same build, but its mark's page read-only (RELRO) */
    other_init(&x, test_id, 4, 1, 1);
    segment(&x.o, PT_GNU_RELRO, PF_R, mark, sizeof(int), 1);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 0);
    /* ... its block's, not its mark's */
    x.o.info.dlpi_phnum--;
    segment(&x.o, PT_GNU_RELRO, PF_R, block, sizeof(rdrand_status_block), 1);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 0);
    assert_null(home);
    assert_int_equal(holder, 1);
    free(x.mem);

    /* not marked the holder; marked, but another layout of the block */
    other_init(&x, test_id, 4, 0, 1);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 0);
    free(x.mem);
    other_init(&x, test_id, 4, 1, 0);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 0);
    assert_null(home);
    assert_int_equal(holder, 1);
    free(x.mem);
}

static void test_visit_holder(void **state)
{
    struct rdrand_status *home = NULL;
    struct other x;
    int holder;

    (void)state;
    other_init(&x, test_id, 4, 1, 1);
    assert_int_equal(
        rdrand_copies_seam_visit(&x.o.info, test_id, 4, &home, &holder), 1);
    assert_ptr_equal(home, other_block(&x));
    assert_int_equal(holder, 0); /* not this copy */
    free(x.mem);
}

/* The objects the wrapped dl_iterate_phdr walks; -1: the real walk. */
static struct dl_phdr_info *walk[4];
static int walk_n = -1;

int __real_dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
                           void *data);
int __wrap_dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
                           void *data);
int __wrap_dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
                           void *data)
{
    int r = 0;

    if (walk_n < 0)
        return __real_dl_iterate_phdr(cb, data);
    for (int i = 0; i < walk_n && r == 0; i++)
        r = cb(walk[i], sizeof(*walk[i]), data);
    return r;
}

/* This copy at load address 0: its block, and its build id's note. */
static void self_object(struct object *o, unsigned char *notes, int with_id)
{
    uintptr_t mark, block, lower, upper;
    size_t n = note(notes, NT_GNU_BUILD_ID, "GNU", 4, test_id, 4);

    rdrand_copies_seam_layout(&mark, &block);
    lower = mark < block ? mark : block;
    upper =
        mark > block ? mark + sizeof(int) : block + sizeof(rdrand_status_block);
    object_init(o, 0);
    segment(o, PT_LOAD, PF_R | PF_W, lower, upper - lower, 8);
    if (with_id) {
        segment(o, PT_LOAD, PF_R, (uintptr_t)notes, n, 8);
        segment(o, PT_NOTE, PF_R, (uintptr_t)notes, n, 4);
    }
}

static void test_find(void **state)
{
    _Alignas(8) unsigned char notes[64];
    struct object self;
    struct other x;
    int holder;

    (void)state;
    /* the real walk: this test's executable is the only copy */
    walk_n = -1;
    assert_ptr_equal(rdrand_copies_seam_find(&holder), &rdrand_status_block);

    /* no object holds this copy's block: its own, not the holder */
    other_init(&x, test_id, 4, 1, 1);
    walk[0] = &x.o.info;
    walk_n = 1;
    assert_ptr_equal(rdrand_copies_seam_find(&holder), &rdrand_status_block);
    assert_int_equal(holder, 0);

    /* this copy without a build id: its own, never compared */
    self_object(&self, notes, 0);
    walk[0] = &x.o.info;
    walk[1] = &self.info;
    walk_n = 2;
    assert_ptr_equal(rdrand_copies_seam_find(&holder), &rdrand_status_block);
    assert_int_equal(holder, 0);

    /* with its build id: the holder before it in the map is found */
    self_object(&self, notes, 1);
    assert_ptr_equal(rdrand_copies_seam_find(&holder), other_block(&x));
    assert_int_equal(holder, 0);
    /* ... and after it */
    walk[0] = &self.info;
    walk[1] = &x.o.info;
    assert_ptr_equal(rdrand_copies_seam_find(&holder), other_block(&x));
    assert_int_equal(holder, 0);
    /* no holder: this copy is */
    walk_n = 1;
    assert_ptr_equal(rdrand_copies_seam_find(&holder), &rdrand_status_block);
    assert_int_equal(holder, 1);
    walk_n = -1;
    free(x.mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps_bounds),
        cmocka_unit_test(test_maps_relro),
        cmocka_unit_test(test_build_id_notes),
        cmocka_unit_test(test_self_without_build_id),
        cmocka_unit_test(test_visit_not_holder),
        cmocka_unit_test(test_visit_holder),
        cmocka_unit_test(test_find),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

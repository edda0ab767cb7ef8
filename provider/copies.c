/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copies of the module in one process.  The same build under another
 * path (a second installation, a bind mount, a copy) is another object
 * to the dynamic loader, loaded under another provider name, with
 * static data of its own: its own status block, so its own verdict.  An
 * outside review (issue 31) found such a copy, loaded into a process
 * whose first copy had reached a permanent verdict, starting clean and
 * serving from the same defective CPU.  A verdict is a fact about the
 * CPU: the process has one, whatever the copy.
 *
 * So the first copy of a build to load holds the process's verdict, and
 * every later copy finds its block here, once, at its first load;
 * fault.c reads and sets the verdict's flags there as well as in the
 * copy's own block.  A copy is an object whose GNU build id
 * (NT_GNU_BUILD_ID; linked --build-id=sha1, a hash of the linked bytes)
 * is this one's: the same bytes, so the same offsets from the load
 * address, of the block and of the mark below, each checked to lie in
 * that object's writable mapping.  Another build (another version, or
 * rdrand.so beside the test module rdrand-sim.so) is not a copy: its
 * block may be laid out otherwise, and it keeps a verdict of its own.
 *
 * The holder is the first copy to load, not the first in the link map:
 * the map may hold an object another thread's dlopen is still
 * relocating, unmapped again if that fails, while a copy that has
 * loaded stays mapped for good (-z nodelete).  glibc's dl_iterate_phdr
 * holds the loader's write lock for the whole walk, so no two walks
 * overlap, and a copy that finds no holder marks itself in the same
 * walk: there is one holder.  (Under a C library whose walk takes no
 * such lock, two copies loading at the same moment could each become a
 * holder, each keeping its own verdict, as before.)  A copy without a
 * build id keeps its own block.  Objects of another link-map namespace
 * (dlmopen) are not walked.  dl_iterate_phdr is a GNU extension:
 * CMakeLists.txt defines _GNU_SOURCE for this file.
 */
#include "copies.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* This copy holds the process's verdict (written in a walk only). */
static _Atomic int rdrand_copies_holder;

static struct rdrand_status *rdrand_copies_found = &rdrand_status_block;
static pthread_once_t rdrand_copies_once = PTHREAD_ONCE_INIT;

struct rdrand_copies_walk {
    uintptr_t base;          /* this copy's load address */
    const unsigned char *id; /* its build id, in its own notes */
    size_t id_len;
    struct rdrand_status *home; /* the holder's block, once found */
};

/* What the object maps at off from its load address. */
static void *rdrand_copies_at(const struct dl_phdr_info *info, uintptr_t off)
{
    /* NOLINTNEXTLINE(performance-no-int-to-ptr): the loader's addresses */
    return (void *)(info->dlpi_addr + off);
}

/* [off, off + len) from the load address lies in the segment ph. */
static int rdrand_copies_within(const ElfW(Phdr) * ph, uintptr_t off,
                                size_t len)
{
    return off >= ph->p_vaddr && off - ph->p_vaddr <= ph->p_memsz
           && len <= ph->p_memsz - (off - ph->p_vaddr);
}

/*
 * The object maps [off, off + len) from its load address: writable
 * (and never made read-only, RELRO) if writable is asked.
 */
static int rdrand_copies_maps(const struct dl_phdr_info *info, uintptr_t off,
                              size_t len, int writable)
{
    int inside = 0;

    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_LOAD && (!writable || (ph->p_flags & PF_W))
            && rdrand_copies_within(ph, off, len))
            inside = 1;
        else if (writable && ph->p_type == PT_GNU_RELRO
                 && (off >= ph->p_vaddr ? off - ph->p_vaddr < ph->p_memsz
                                        : ph->p_vaddr - off < len))
            return 0;
    }
    return inside;
}

/* The object's GNU build id, read within its mapped notes: 1 if found. */
static int rdrand_copies_build_id(const struct dl_phdr_info *info,
                                  const unsigned char **id, size_t *id_len)
{
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        size_t align = ph->p_align == 8 ? 8 : 4, left = ph->p_memsz;
        const unsigned char *p;

        if (ph->p_type != PT_NOTE
            || !rdrand_copies_maps(info, ph->p_vaddr, ph->p_memsz, 0))
            continue;
        p = rdrand_copies_at(info, ph->p_vaddr);
        while (left >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) n;
            size_t name, desc;

            memcpy(&n, p, sizeof(n));
            p += sizeof(n);
            left -= sizeof(n);
            name = ((size_t)n.n_namesz + align - 1) & ~(align - 1);
            desc = ((size_t)n.n_descsz + align - 1) & ~(align - 1);
            if (name > left || desc > left - name)
                break;
            if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4
                && memcmp(p, "GNU", 4) == 0 && n.n_descsz > 0) {
                *id = p + name;
                *id_len = n.n_descsz;
                return 1;
            }
            p += name + desc;
            left -= name + desc;
        }
    }
    return 0;
}

static int rdrand_copies_is_self(const struct dl_phdr_info *info)
{
    return rdrand_copies_maps(info,
                              (uintptr_t)&rdrand_status_block - info->dlpi_addr,
                              sizeof(rdrand_status_block), 1);
}

/* The first walk: this copy's load address and build id. */
static int rdrand_copies_self(struct dl_phdr_info *info, size_t size,
                              void *data)
{
    struct rdrand_copies_walk *w = data;

    (void)size;
    if (!rdrand_copies_is_self(info))
        return 0;
    w->base = info->dlpi_addr;
    if (!rdrand_copies_build_id(info, &w->id, &w->id_len))
        w->id = NULL;
    return 1;
}

/*
 * The second walk, under the loader's lock from first object to last:
 * this copy marks itself the holder, unless another copy of its build
 * is the holder, wherever it is in the map.
 */
static int rdrand_copies_visit(struct dl_phdr_info *info, size_t size,
                               void *data)
{
    struct rdrand_copies_walk *w = data;
    uintptr_t mark = (uintptr_t)&rdrand_copies_holder - w->base;
    uintptr_t block = (uintptr_t)&rdrand_status_block - w->base;
    const unsigned char *id;
    size_t id_len;
    _Atomic int *other_mark;
    struct rdrand_status *other;

    (void)size;
    if (rdrand_copies_is_self(info)) {
        atomic_store_explicit(&rdrand_copies_holder, 1, memory_order_relaxed);
        return 0;
    }
    if (!rdrand_copies_build_id(info, &id, &id_len) || id_len != w->id_len
        || memcmp(id, w->id, id_len) != 0
        || !rdrand_copies_maps(info, mark, sizeof(rdrand_copies_holder), 1)
        || !rdrand_copies_maps(info, block, sizeof(rdrand_status_block), 1))
        return 0;
    other_mark = rdrand_copies_at(info, mark);
    other = rdrand_copies_at(info, block);
    if (!atomic_load_explicit(other_mark, memory_order_relaxed)
        || memcmp(other, &rdrand_status_block, RDRAND_STATUS_HEADER_SIZE) != 0)
        return 0;
    w->home = other;
    /* Marked above if this copy came first in the map: it is not. */
    atomic_store_explicit(&rdrand_copies_holder, 0, memory_order_relaxed);
    return 1;
}

static void rdrand_copies_find(void)
{
    struct rdrand_copies_walk w = {0};

    if (dl_iterate_phdr(rdrand_copies_self, &w) == 0 || w.id == NULL)
        return; /* not found, or no build id: this copy's own block */
    (void)dl_iterate_phdr(rdrand_copies_visit, &w);
    if (w.home != NULL)
        rdrand_copies_found = w.home;
}

struct rdrand_status *rdrand_copies_home(void)
{
    (void)pthread_once(&rdrand_copies_once, rdrand_copies_find);
    return rdrand_copies_found;
}

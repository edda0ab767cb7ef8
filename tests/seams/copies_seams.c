/* SPDX-License-Identifier: Apache-2.0 */
/* provider/copies.c as the module has it, and seams that run its walks'
 * steps on objects a test describes (crafted struct dl_phdr_info). */
#include "copies.c"

#include "seams.h"

int rdrand_copies_seam_maps(const struct dl_phdr_info *info, uintptr_t off,
                            size_t len, int writable)
{
    return rdrand_copies_maps(info, off, len, writable);
}

int rdrand_copies_seam_build_id(const struct dl_phdr_info *info,
                                const unsigned char **id, size_t *id_len)
{
    return rdrand_copies_build_id(info, id, id_len);
}

void rdrand_copies_seam_layout(uintptr_t *mark, uintptr_t *block)
{
    *mark = (uintptr_t)&rdrand_copies_holder;
    *block = (uintptr_t)&rdrand_status_block;
}

int rdrand_copies_seam_self(struct dl_phdr_info *info, uintptr_t *base,
                            const unsigned char **id, size_t *id_len)
{
    struct rdrand_copies_walk w = {0};
    int r;

    w.id = (const unsigned char *)"unset";
    r = rdrand_copies_self(info, sizeof(*info), &w);
    *base = w.base;
    *id = w.id;
    *id_len = w.id_len;
    return r;
}

int rdrand_copies_seam_visit(struct dl_phdr_info *info, const unsigned char *id,
                             size_t id_len, struct rdrand_status **home,
                             int *holder)
{
    struct rdrand_copies_walk w = {0};
    int saved = atomic_load(&rdrand_copies_holder), r;

    w.id = id;
    w.id_len = id_len;
    atomic_store(&rdrand_copies_holder, 1);
    r = rdrand_copies_visit(info, sizeof(*info), &w);
    *home = w.home;
    *holder = atomic_load(&rdrand_copies_holder);
    atomic_store(&rdrand_copies_holder, saved);
    return r;
}

struct rdrand_status *rdrand_copies_seam_find(int *holder)
{
    struct rdrand_status *found;
    int saved = atomic_load(&rdrand_copies_holder);

    rdrand_copies_found = &rdrand_status_block;
    atomic_store(&rdrand_copies_holder, 0);
    rdrand_copies_find();
    found = rdrand_copies_found;
    *holder = atomic_load(&rdrand_copies_holder);
    rdrand_copies_found = &rdrand_status_block;
    atomic_store(&rdrand_copies_holder, saved);
    return found;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a shared object exporting a status block of another layout
 * and version, as a future rdrand.so would, so that rdrand-check --pid
 * can be shown to refuse it by name (tests/cli/test_pid.sh).  Nothing of
 * it is in the shipped module.
 */
#include "rdrand_status.h"

__attribute__((visibility("default"))) struct rdrand_status rdrand_status = {
    .magic = RDRAND_STATUS_MAGIC,
    .layout = RDRAND_STATUS_LAYOUT + 1,
    .size = sizeof(struct rdrand_status),
    .version = "99.0.0",
};

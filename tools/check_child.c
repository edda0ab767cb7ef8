/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How rdrand-check's forked children end: _exit, so that nothing of the
 * parent's (stdio buffers, OpenSSL's atexit cleanup) runs twice.  A
 * coverage build (scripts/coverage.sh defines RDRAND_COVERAGE) first
 * writes the child's counts, which _exit would drop: otherwise the code
 * that only children run (--pid's reader, the service draw) would count
 * as never run.
 */
#include <unistd.h>

#include "check.h"

#ifdef RDRAND_COVERAGE
void __gcov_dump(void);
#endif

void check_child_exit(int code)
{
#ifdef RDRAND_COVERAGE
    __gcov_dump();
#endif
    _exit(code);
}

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
void __gcov_reset(void);
#endif

/*
 * Before a child execs: a coverage build writes its counts (the exec
 * drops them, as _exit does) and starts them from zero, so that a failed
 * exec's check_child_exit does not count them twice.
 */
void check_child_flush(void)
{
#ifdef RDRAND_COVERAGE
    __gcov_dump();
    __gcov_reset();
#endif
}

void check_child_exit(int code)
{
#ifdef RDRAND_COVERAGE
    __gcov_dump();
#endif
    _exit(code);
}

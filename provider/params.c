/* SPDX-License-Identifier: Apache-2.0 */
#include "params.h"

/*
 * The build asks for _FORTIFY_SOURCE in every non-Debug, uninstrumented
 * configuration (CMakeLists.txt).  Without optimisation it is accepted
 * and does nothing: refuse that build here rather than ship a module that
 * only looks hardened (tests/check_module.sh checks the result).
 */
#if defined(_FORTIFY_SOURCE) && _FORTIFY_SOURCE > 0 && !defined(__OPTIMIZE__)
#error                                                                         \
    "_FORTIFY_SOURCE without optimisation: add -O2 to CFLAGS or use CMAKE_BUILD_TYPE=Release/RelWithDebInfo"
#endif

int rdrand_param_set_uint64(OSSL_PARAM *p, uint64_t val)
{
    if (p->data == NULL && p->data_type == OSSL_PARAM_REAL) {
        p->return_size = sizeof(double); /* what a size query gets */
        return 1;
    }
    return OSSL_PARAM_set_uint64(p, val);
}

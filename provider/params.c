/* SPDX-License-Identifier: Apache-2.0 */
#include "params.h"

#include "errors.h"

/*
 * The build asks for _FORTIFY_SOURCE in every non-Debug, uninstrumented
 * configuration (CMakeLists.txt).  Without optimisation it is accepted
 * and does nothing: refuse that build here rather than ship a module that
 * only looks hardened (tests/check_module.sh checks the result).
 */
#if defined(_FORTIFY_SOURCE) && _FORTIFY_SOURCE > 0 && !defined(__OPTIMIZE__)
#error "_FORTIFY_SOURCE without optimisation: add -O2 or build RelWithDebInfo"
#endif

int rdrand_param_set_uint64(OSSL_PARAM *p, uint64_t val)
{
    if (p->data == NULL && p->data_type == OSSL_PARAM_REAL) {
        p->return_size = sizeof(double); /* what a size query gets */
        return 1;
    }
    return OSSL_PARAM_set_uint64(p, val);
}

static int rdrand_param_is_integer(const OSSL_PARAM *p)
{
    return p->data_type == OSSL_PARAM_INTEGER
           || p->data_type == OSSL_PARAM_UNSIGNED_INTEGER;
}

/* The OSSL_PARAM_<type> constructor that asks for what served serves. */
static const char *rdrand_param_type_name(const OSSL_PARAM *served)
{
    if (served->data_type == OSSL_PARAM_INTEGER)
        return served->data_size == sizeof(int) ? "int" : "int64";
    return served->data_size == sizeof(unsigned int) ? "uint" : "uint64";
}

void rdrand_bad_param(const struct rdrand_prov *prov, const char *what,
                      const char *lister, const OSSL_PARAM *gettable,
                      const OSSL_PARAM *p)
{
    const OSSL_PARAM *served = OSSL_PARAM_locate_const(gettable, p->key);

    /* Only an integer served can be out of range; else the type is wrong. */
    if (served != NULL && !rdrand_param_is_integer(served))
        served = NULL;
    if (served != NULL && rdrand_param_is_integer(p))
        RDRAND_RAISE(prov, RDRAND_R_BAD_PARAMETER,
                     "%s \"%s\" is out of range for the %zu-byte %s integer "
                     "asked for: ask for it as OSSL_PARAM_%s",
                     what, p->key, p->data_size,
                     p->data_type == OSSL_PARAM_INTEGER ? "signed" : "unsigned",
                     rdrand_param_type_name(served));
    else if (served != NULL && p->data_type == OSSL_PARAM_REAL)
        RDRAND_RAISE(prov, RDRAND_R_BAD_PARAMETER,
                     "%s \"%s\" is out of range for the %zu-byte real asked "
                     "for (a double holds integers exactly up to 2^53): ask "
                     "for it as OSSL_PARAM_%s",
                     what, p->key, p->data_size,
                     rdrand_param_type_name(served));
    else
        RDRAND_RAISE(prov, RDRAND_R_BAD_PARAMETER,
                     "%s \"%s\" has the wrong type: see %s", what, p->key,
                     lister);
}

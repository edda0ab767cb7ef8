/* SPDX-License-Identifier: Apache-2.0 */
#include "params.h"

int rdrand_param_set_uint64(OSSL_PARAM *p, uint64_t val)
{
    if (p->data == NULL && p->data_type == OSSL_PARAM_REAL) {
        p->return_size = sizeof(double); /* what a size query gets */
        return 1;
    }
    return OSSL_PARAM_set_uint64(p, val);
}

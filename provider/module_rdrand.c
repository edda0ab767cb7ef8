/* SPDX-License-Identifier: Apache-2.0 */
/* Identity of the shipped module, rdrand.so. */
#include "prov.h"

const char rdrand_module_property[] = "provider=rdrand";
const char rdrand_module_description[] = "RDRAND seed source";

/* SPDX-License-Identifier: Apache-2.0 */
/* Identity of the test-only module, rdrand-sim.so (simulated CPU). */
#include "prov.h"

const char rdrand_module_property[] = "provider=rdrand-sim";
const char rdrand_module_description[] =
    "RDRAND seed source on a simulated CPU (test only)";

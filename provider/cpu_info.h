/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which CPU this is: CPUID's vendor, family, model and stepping, and the
 * microcode revision the kernel shows, read through the hw seam at load
 * for the errata table (cpu_errata.h) and the provider parameters.
 * rdrand_cpu_info_gather() reads; the decoding and the parsing are pure
 * functions of what it read, so the tests can feed them any CPU.
 */
#ifndef RDRAND_CPU_INFO_H
#define RDRAND_CPU_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "prov.h" /* struct rdrand_cpu_info: an instance holds it */

/* Where Linux shows CPU 0's running microcode revision ("0x%x\n"). */
#define RDRAND_CPU_MICROCODE_PATH                                              \
    "/sys/devices/system/cpu/cpu0/microcode/version"

/* Read everything through the hw seam (provider/hw.h). */
void rdrand_cpu_info_gather(struct rdrand_cpu_info *out);

/*
 * Family, model and stepping from CPUID leaf 1 EAX, by the vendor's rules
 * (Intel SDM vol. 2A, CPUID; AMD APM vol. 3, CPUID Fn0000_0001_EAX):
 * the extended family adds to a base family of 0Fh; the extended model
 * is the model's high nibble where the base family is 0Fh, and on
 * Intel (and every vendor but AMD and Hygon) also where it is 6.
 */
void rdrand_cpu_decode_signature(const char *vendor, uint32_t eax,
                                 unsigned int *family, unsigned int *model,
                                 unsigned int *stepping);

/*
 * The revision in len bytes of the kernel's microcode/version file:
 * exactly "0x", 1 to 8 hex digits and an optional newline.  Returns 1
 * and *rev, or 0 for anything else.
 */
int rdrand_cpu_parse_microcode(const char *text, size_t len, uint32_t *rev);

#endif

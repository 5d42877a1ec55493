/* fuzz.h: the entry point every fuzz target defines and libFuzzer (or replay.c) calls; the
 * Makefile puts it before each target's source (-include), so -Wmissing-prototypes sees it
 * declared. */
#ifndef TARE_FUZZ_H
#define TARE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

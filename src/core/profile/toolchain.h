/* toolchain.h: which compiler built a program, from the ELF `.comment` section the compiler
 * and linker leave in it ("GCC: (Debian 12.2.0-14) 12.2.0" -> "gcc 12.2.0"). */
#ifndef TARE_TOOLCHAIN_H
#define TARE_TOOLCHAIN_H

#include <stddef.h>

#include "core/util/err.h"

/*
 * The toolchain named in an ELF image (len bytes at buf): "clang 14.0.6", "gcc 12.2.0" or
 * "rustc 1.63.0". A clang or rustc string wins over gcc's (their programs also hold the C
 * library's start files, built by gcc). Returns 1 with out filled, 0 when the image is not
 * ELF or names no compiler (out is ""). Any bytes at all are safe to pass.
 */
int toolchain_from_elf(const unsigned char *buf, size_t len, char *out, size_t n);

/*
 * The toolchain of the program a command runs: cmd found on PATH (a name with a '/' is taken
 * relative to dir, or tare's directory when dir is NULL), read as ELF. Returns 1 when known,
 * 0 when it cannot be known (a script, no .comment: out is ""), -1 when the file cannot be
 * found or read.
 */
int toolchain_of_command(const char *cmd, const char *dir, char *out, size_t n, struct err *e);

#endif

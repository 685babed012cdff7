// PCRE2 for Swift: the 8-bit library, with the cast macros Swift cannot import exposed as functions.
#ifndef BLOCKBENCH_CPCRE2_SHIM_H
#define BLOCKBENCH_CPCRE2_SHIM_H
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

static inline PCRE2_SIZE blockbench_pcre2_unset(void) { return PCRE2_UNSET; }
static inline PCRE2_SIZE blockbench_pcre2_zero_terminated(void) { return PCRE2_ZERO_TERMINATED; }
#endif

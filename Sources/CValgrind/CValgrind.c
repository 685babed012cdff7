#include "CValgrind.h"

#include <stdio.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>
#define BB_HAVE_VALGRIND 1
#endif
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
const char *bb_libc_version(void) { return gnu_get_libc_version(); }
#else
const char *bb_libc_version(void) { return "unknown"; }
#endif

#ifdef BB_HAVE_VALGRIND
int bb_markers_built(void) { return 1; }
int bb_running_on_valgrind(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
// Nothing is counted while nothing is instrumented (--instr-atstart=no), and each region ends
// with a mark, which zeroes the counts: a region starts from zero without CALLGRIND_ZERO_STATS
// (after a mark it would make the next part's count negative).
void bb_callgrind_begin(void) { CALLGRIND_START_INSTRUMENTATION; }
void bb_callgrind_mark(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
void bb_callgrind_end(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void bb_callgrind_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
#else
int bb_markers_built(void) { return 0; }
int bb_running_on_valgrind(void) { return 0; }
void bb_callgrind_begin(void) {}
void bb_callgrind_mark(const char *label) { (void)label; }
void bb_callgrind_end(void) {}
void bb_callgrind_toggle(void) {}
#endif

static void append(char *buffer, unsigned long size, const char *name) {
    size_t used = strlen(buffer);
    snprintf(buffer + used, size - used, "%s%s", used ? " " : "", name);
}

void bb_cpu_features(char *buffer, unsigned long size) {
    if (size == 0) return;
    buffer[0] = 0;
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0, &a, &b, &c, &d) == 0) return;
    unsigned highest = a;
    __get_cpuid(1, &a, &b, &c, &d);
    if (d & (1u << 26)) append(buffer, size, "sse2");
    if (c & (1u << 9)) append(buffer, size, "ssse3");
    if (c & (1u << 19)) append(buffer, size, "sse4.1");
    if (c & (1u << 20)) append(buffer, size, "sse4.2");
    if (c & (1u << 23)) append(buffer, size, "popcnt");
    if (c & (1u << 28)) append(buffer, size, "avx");
    if (highest >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (b & (1u << 3)) append(buffer, size, "bmi1");
        if (b & (1u << 5)) append(buffer, size, "avx2");
        if (b & (1u << 8)) append(buffer, size, "bmi2");
        if (b & (1u << 9)) append(buffer, size, "erms");
        if (b & (1u << 16)) append(buffer, size, "avx512f");
        if (b & (1u << 30)) append(buffer, size, "avx512bw");
        if (b & (1u << 31)) append(buffer, size, "avx512vl");
        if (c & (1u << 10)) append(buffer, size, "vpclmulqdq");
        if (d & (1u << 4)) append(buffer, size, "fsrm");
        if (d & (1u << 14)) append(buffer, size, "serialize");
    }
    if (__get_cpuid(0x80000001, &a, &b, &c, &d)) {
        if (c & (1u << 5)) append(buffer, size, "lzcnt");
    }
#else
    append(buffer, size, "unknown-architecture");
#endif
}

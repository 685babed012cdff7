// zlib, to read the gzip-compressed corpora. Harness side only; the engine never imports it.
#ifndef BLOCKBENCH_CZLIB_SHIM_H
#define BLOCKBENCH_CZLIB_SHIM_H
#include <zlib.h>
#endif

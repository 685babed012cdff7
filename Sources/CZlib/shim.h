// zlib: the compiled file's CRC-32 (Bytecode) and the gzip-compressed corpora (Corpus).
#ifndef BLOCKBENCH_CZLIB_SHIM_H
#define BLOCKBENCH_CZLIB_SHIM_H
#include <zlib.h>
#endif

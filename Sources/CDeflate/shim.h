// libdeflate: the compiled file's CRC-32 (Bytecode).
#ifndef BLOCKBENCH_CDEFLATE_SHIM_H
#define BLOCKBENCH_CDEFLATE_SHIM_H
#include <libdeflate.h>
#endif

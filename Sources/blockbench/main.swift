// main.swift — blockbench: the executable, BlockBenchCommand (BlockBenchCLI) with standard output
// line-buffered. Tested through BlockBenchCLITests, which run the commands in process.

import BlockBenchCLI
@preconcurrency import Glibc

// Line by line even into a pipe or a file (a CI log shows each stage as it finishes).
setvbuf(stdout, nil, _IOLBF, 0)
BlockBenchCommand.main()

import BlockBenchCLI
@preconcurrency import Glibc

// Line by line even into a pipe or a file (a CI log shows each stage as it finishes).
setvbuf(stdout, nil, _IOLBF, 0)
BlockBenchCommand.main()

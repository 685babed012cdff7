import BlockBenchCLI
BlockBenchCommand.main()

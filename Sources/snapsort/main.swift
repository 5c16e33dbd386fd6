import SnapSortCLI

Dispatcher.exit(Dispatcher.main())

from swr.cli.main import main

raise SystemExit(main())

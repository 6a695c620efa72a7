from gitmem.entry import main

raise SystemExit(main())

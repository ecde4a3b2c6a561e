"""`python -m mindinsight_profiler` is the same as the `mindinsight` command."""

from mindinsight_profiler.cli.main import main

raise SystemExit(main())

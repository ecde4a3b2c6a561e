"""`python -m mindinsight_profiler` is the same as the `mindinsight` command."""

from mindinsight_profiler.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())

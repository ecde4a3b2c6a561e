"""The `mindinsight` command line: drives the same pipeline as the server."""

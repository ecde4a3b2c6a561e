"""Reports to share and archive, built from the same cached analysis as the dashboard.

`bundle.gather` collects what every format shows (the report, the advice, the tables the
dashboard pages ask for); `html`, `xlsx` and `markdown` each render a bundle, and
`perfetto` writes several ranks onto one timeline. This layer sits above the pipeline and
below the CLI and the server: both offer the same files.
"""

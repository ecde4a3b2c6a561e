"""The REST service: a Flask app over the pipeline and the workspace cache (see app.py)."""

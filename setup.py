"""Packaging for mindinsight_profiler (tool settings live in pyproject.toml)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


def _version() -> str:
    """Read the version without importing the package (its dependencies may be missing)."""
    for line in (ROOT / "mindinsight_profiler" / "_version.py").read_text().splitlines():
        if line.startswith("__version__"):
            return line.split("=")[1].strip().strip("\"'")
    raise RuntimeError("no __version__ in mindinsight_profiler/_version.py")


def _build_dashboard() -> None:
    """Build the dashboard into mindinsight_profiler/_ui when a source install lacks it.

    `pip install -e .` then `mindinsight start` served "the dashboard is not built" (issue
    19): a source install now builds it when Node's npm is present (scripts/build_ui.sh,
    which skips an up-to-date bundle). Without npm, or with MI_SKIP_UI_BUILD=1, or when the
    build fails, the install goes on without a dashboard, saying so and how to build it.
    """
    if (ROOT / "mindinsight_profiler" / "_ui" / "index.html").is_file():
        return
    script = ROOT / "scripts" / "build_ui.sh"
    why = None
    if os.environ.get("MI_SKIP_UI_BUILD") == "1":
        why = "MI_SKIP_UI_BUILD=1"
    elif not script.is_file() or not (ROOT / "ui" / "package.json").is_file():
        why = "no ui/ sources here"
    elif shutil.which("npm") is None or shutil.which("bash") is None:
        why = "npm not found (install Node.js 20 or newer)"
    else:
        print("building the dashboard (scripts/build_ui.sh)...", file=sys.stderr)
        if subprocess.run(["bash", str(script)], check=False).returncode != 0:
            why = "scripts/build_ui.sh failed (its output is above)"
    if why is not None:
        print(f"warning: mindinsight_profiler/_ui is not built ({why}): this install has no "
              "dashboard; build it with: bash scripts/build_ui.sh", file=sys.stderr)  # fmt: skip


class BuildWithRules(build_py):
    """Put the advisor's rule files (`rules/`) into the package as `mindinsight_profiler/_rules`.

    The rules live at the top of the repository so that people find and edit them as data;
    a wheel must still carry them (the advisor looks for `_rules` first).
    """

    def run(self) -> None:
        _build_dashboard()
        super().run()
        target = Path(self.build_lib) / "mindinsight_profiler" / "_rules"
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted((ROOT / "rules").iterdir()):
            if path.suffix in (".toml", ".json", ".md"):
                self.copy_file(str(path), str(target / path.name))


#: Summary dirs in object storage (s3://, and any fsspec URL whose package is installed);
#: see docs/remote.md.
REMOTE = ["fsspec>=2023.6", "s3fs>=2023.6"]
#: The object-storage tests run against moto's S3 server.
TEST_REMOTE = [*REMOTE, "moto[server]>=5.0"]

#: The native Kineto scanner (formats/kineto/native.py). Optional: without a C compiler the
#: install goes on and traces are read by the Python path, which gives the same results.
SCAN = Extension(
    "mindinsight_profiler.formats.kineto._scan",
    sources=["mindinsight_profiler/formats/kineto/_scan.c"],
    extra_compile_args=["-O2"],
    optional=True,
)

NOTEBOOK = ["pandas>=2.0"]
AGENTS = ["mcp>=2.3,<3", "uvicorn>=0.30"]

setup(
    cmdclass={"build_py": BuildWithRules},
    ext_modules=[SCAN],
    name="mindinsight_profiler",
    version=_version(),
    description="Training-performance dashboard and advisor for PyTorch and MindSpore profiles",
    long_description=(ROOT / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.11",
    packages=find_packages(include=["mindinsight_profiler", "mindinsight_profiler.*"]),
    include_package_data=True,
    # The dashboard, built by scripts/build_ui.sh (git-ignored, so listed here explicitly).
    package_data={
        "mindinsight_profiler": [
            "_ui/*.html",
            "_ui/assets/*",
            "analysis/operators/*.toml",
            "analysis/perf/*.toml",
            "export/html/templates/*",
        ]
    },
    install_requires=[
        "numpy>=1.24",
        "msgspec>=0.18",
        "flask>=3.0",
        "marshmallow>=3.20",
        "apispec>=6.0",
        # server/worker.py extends gunicorn 27's gthread worker (its event loop's internals)
        "gunicorn>=27.0,<28",
        "apscheduler>=3.10,<4",
        # `mindinsight report --format html`: the report's template, autoescaped
        "jinja2>=3.1",
        # `mindinsight report --format xlsx` (streams large sheets: constant_memory mode)
        "xlsxwriter>=3.1",
        # `mindinsight export-timeline`: Perfetto's own trace protos (perfetto_trace_pb2)
        "perfetto>=0.50",
        "isal>=1.5; platform_machine == 'x86_64' or platform_machine == 'aarch64'",
    ],
    extras_require={
        "dev": [
            "pytest>=7",
            "ruff>=0.5",
            "mypy>=1.8",
            "import-linter>=2.0",
            "jsonschema>=4",
            "openpyxl>=3.1",  # the workbook tests read `mindinsight report` xlsx back
            "playwright>=1.40",
            *TEST_REMOTE,
            "dask[distributed]>=2024.1",
            *NOTEBOOK,
            "pandas-stubs>=2.0",  # mypy checks the Python API's use of pandas
            # the example notebook is executed by the tests (docs/examples/python_api.ipynb)
            "nbclient>=0.9",
            "nbformat>=5.9",
            "ipykernel>=6.25",
            *AGENTS,
        ],
        # the Python API (`from mindinsight_profiler import open_run`): DataFrames
        "notebook": NOTEBOOK,
        # `mindinsight mcp`: the MCP server for coding agents (the 2.x SDK: MCPServer)
        "agents": AGENTS,
        "remote": REMOTE,
        "remote-all": [*REMOTE, "gcsfs>=2023.6", "adlfs>=2023.4"],  # gs://, az:// (untested)
        "torch": ["torch>=2.0"],
        "mindspore": ["mindspore>=2.3"],
        # many ranks on a Dask cluster: `mindinsight cluster/start --scheduler tcp://...`
        "dask": ["dask[distributed]>=2024.1"],
    },
    entry_points={"console_scripts": ["mindinsight=mindinsight_profiler.cli.main:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)

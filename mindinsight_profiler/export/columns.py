"""What each exported table is: its columns (key, header in English and Chinese with the
unit, number format), declared once so the workbook and the Markdown summary agree.

A column's `fmt` says what its cells hold, and so how a format shows them:
`text`, `int` (a count), `bytes`, `us` (microseconds), `ms`, `mb` (megabytes),
`float`, `ratio` (0-1, shown as a percentage), `percent` (already 0-100), `bool`.
Headers carry the unit ("Duration (us)", "Share (%)"); a ratio's header has no unit, its
cells are formatted as percentages.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindinsight_profiler.analysis.steps.breakdown import CATEGORIES

FORMATS = ("text", "int", "bytes", "us", "ms", "mb", "float", "ratio", "percent", "bool")


@dataclass(frozen=True)
class Column:
    """One column: the row key it reads, its headers, and what its cells hold."""

    key: str
    en: str
    zh: str
    fmt: str = "text"

    def header(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def col(key: str, en: str, zh: str, fmt: str = "text") -> Column:
    assert fmt in FORMATS, fmt
    return Column(key, en, zh, fmt)


@dataclass(frozen=True)
class TableSpec:
    """A table's identity: its key, its title (a sheet name: at most 31 characters) and
    its columns."""

    key: str
    en: str
    zh: str
    columns: tuple[Column, ...]

    def title(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


STEP = col("step", "Step", "迭代")

STEPS = TableSpec("steps", "Steps", "迭代", (
    STEP,
    col("start_us", "Start (us)", "开始 (us)", "us"),
    col("duration_us", "Duration (us)", "耗时 (us)", "us"),
))  # fmt: skip

#: Breakdown categories' headers (the dashboard's names for `CATEGORIES`).
#: The breakdown's categories as the dashboard names them (ui/src/i18n common.breakdown);
#: the HTML report, the workbook and the summary all read this one table.
CATEGORY_NAMES = {
    "kernel": ("Kernel", "内核"),
    "memcpy": ("Memcpy", "内存拷贝"),
    "memset": ("Memset", "内存置位"),
    "communication": ("Communication", "通信"),
    "runtime": ("Runtime", "运行时"),
    "dataloader": ("DataLoader", "数据加载"),
    "cpu_exec": ("CPU exec", "CPU 执行"),
    "other": ("Other", "其他"),
}
assert tuple(CATEGORY_NAMES) == tuple(CATEGORIES)

BREAKDOWN = TableSpec("breakdown", "Breakdown per step", "每迭代耗时分解", (
    STEP,
    *(col(c, f"{en} (us)", f"{zh} (us)", "us") for c, (en, zh) in CATEGORY_NAMES.items()),
    col("total_us", "Total (us)", "合计 (us)", "us"),
))  # fmt: skip

STEP_TRACE = TableSpec("step_trace", "Step trace", "迭代轨迹", (
    STEP,
    col("start_us", "Start (us from first step)", "开始 (us，自首个迭代)", "us"),
    col("iteration_interval_us", "Iteration interval (us)", "迭代间隙 (us)", "us"),
    col("fp_and_bp_us", "Forward and backward (us)", "前向和反向 (us)", "us"),
    col("tail_us", "Tail (us)", "迭代拖尾 (us)", "us"),
    col("total_us", "Total (us)", "合计 (us)", "us"),
    col("fp_op", "FP start operator", "前向起始算子"),
    col("bp_op", "BP end operator", "反向结束算子"),
))  # fmt: skip

_OPERATOR_TIMES = (
    col("calls", "Calls", "调用次数", "int"),
    col("host_self_us", "Host self (us)", "主机自身耗时 (us)", "us"),
    col("host_total_us", "Host total (us)", "主机总耗时 (us)", "us"),
    col("device_self_us", "Device self (us)", "设备自身耗时 (us)", "us"),
    col("device_total_us", "Device total (us)", "设备总耗时 (us)", "us"),
    col("tc_eligible", "Tensor Core eligible", "可用 Tensor Core", "bool"),
    col("tc_self_ratio", "Tensor Core self share", "Tensor Core 自身占比", "ratio"),
    col("tc_total_ratio", "Tensor Core total share", "Tensor Core 总占比", "ratio"),
)

OPERATORS = TableSpec("operators", "Operators", "算子", (
    col("name", "Operator", "算子"), *_OPERATOR_TIMES,
))  # fmt: skip

OPERATORS_BY_SHAPE = TableSpec("operators_by_shape", "Operators by input shape",
                               "算子 (按输入形状)", (
    col("name", "Operator", "算子"),
    col("input_shape", "Input shapes", "输入形状"),
    *_OPERATOR_TIMES,
))  # fmt: skip

KERNELS = TableSpec("kernels", "Kernels", "计算核", (
    col("name", "Kernel", "计算核"),
    col("calls", "Calls", "调用次数", "int"),
    col("total_us", "Total (us)", "总耗时 (us)", "us"),
    col("mean_us", "Mean (us)", "平均耗时 (us)", "us"),
    col("min_us", "Min (us)", "最短耗时 (us)", "us"),
    col("max_us", "Max (us)", "最长耗时 (us)", "us"),
    col("tc_used", "Tensor Core", "使用 Tensor Core", "bool"),
    col("blocks_per_sm", "Blocks per SM", "每 SM 线程块数", "float"),
    col("occupancy", "Achieved occupancy (%)", "达到的占用率 (%)", "percent"),
    # Ascend kernel_details (absent from other inputs' rows: the columns are dropped)
    col("accelerator_core", "Accelerator core", "加速核"),
    col("op_type", "Op type", "算子类型"),
    col("input_shapes", "Input shapes", "输入形状"),
    col("input_dtypes", "Input dtypes", "输入数据类型"),
    col("input_formats", "Input formats", "输入格式"),
    col("block_dim", "Block dim", "Block dim", "int"),
    col("cube_utilization", "Cube utilisation (%)", "Cube 利用率 (%)", "percent"),
))  # fmt: skip

#: Kernel columns left out when no row has them (launch figures, Ascend kernel details).
KERNEL_OPTIONAL = frozenset({"blocks_per_sm", "occupancy", "accelerator_core", "op_type",
                             "input_shapes", "input_dtypes", "input_formats", "block_dim",
                             "cube_utilization"})  # fmt: skip

OP_TYPES = TableSpec("op_types", "Operator types", "算子类型", (
    col("type", "Type", "类型"),
    col("calls", "Calls", "调用次数", "int"),
    col("total_us", "Total (us)", "总耗时 (us)", "us"),
    col("mean_us", "Mean (us)", "平均耗时 (us)", "us"),
    col("percent", "Share (%)", "占比 (%)", "percent"),
))  # fmt: skip

MEMORY_DEVICES = TableSpec("memory_devices", "Memory peaks", "内存峰值", (
    col("device", "Device", "设备"),
    col("source", "Source", "来源"),
    col("samples", "Samples", "采样数", "int"),
    col("peak_allocated_bytes", "Peak allocated (bytes)", "已分配峰值 (bytes)", "bytes"),
    col("peak_allocated_us", "Peak allocated at (us)", "已分配峰值时间 (us)", "us"),
    col("peak_operator", "Operator at peak", "峰值时的算子"),
    col("peak_reserved_bytes", "Peak reserved (bytes)", "已预留峰值 (bytes)", "bytes"),
    col("allocations", "Allocations", "分配次数", "int"),
    col("live", "Never freed", "未释放", "int"),
))  # fmt: skip

MEMORY_EVENTS = TableSpec("memory_events", "Memory allocations", "内存分配", (
    col("device", "Device", "设备"),
    col("operator", "Operator", "算子"),
    col("bytes", "Size (bytes)", "大小 (bytes)", "bytes"),
    col("alloc_us", "Allocated at (us)", "分配时间 (us)", "us"),
    col("release_us", "Released at (us)", "释放时间 (us)", "us"),
    col("duration_us", "Held for (us)", "持有时长 (us)", "us"),
    col("state", "State", "状态"),
    col("addr", "Address", "地址"),
))  # fmt: skip

COMM_STEPS = TableSpec("comm_steps", "Communication per step", "每迭代通信", (
    STEP,
    col("step_us", "Step (us)", "迭代 (us)", "us"),
    col("computation_us", "Computation (us)", "计算 (us)", "us"),
    col("overlapped_us", "Overlapped (us)", "被掩盖 (us)", "us"),
    col("exposed_communication_us", "Exposed communication (us)", "未掩盖通信 (us)", "us"),
    col("other_us", "Other (us)", "其他 (us)", "us"),
    col("communication_us", "Communication (us)", "通信 (us)", "us"),
    col("tool_wait_us", "Wait (us, the tool's)", "等待 (us，工具统计)", "us"),
))  # fmt: skip

COLLECTIVES = TableSpec("collectives", "Collectives", "集合通信", (
    col("name", "Collective", "集合通信"),
    col("calls", "Calls", "调用次数", "int"),
    col("total_us", "Total (us)", "总耗时 (us)", "us"),
    col("mean_us", "Mean (us)", "平均耗时 (us)", "us"),
    col("max_us", "Longest call (us)", "最长调用 (us)", "us"),
    col("bytes", "Sent (bytes)", "发送 (bytes)", "bytes"),
    col("tool_wait_us", "Wait (us, the tool's)", "等待 (us，工具统计)", "us"),
))  # fmt: skip

LINKS = TableSpec("links", "Communication links", "通信链路", (
    col("link", "Link", "链路"),
    col("src", "Source rank", "源 rank", "int"),
    col("dst", "Destination rank", "目的 rank", "int"),
    col("transport", "Transport", "传输类型"),
    col("bandwidth", "Bandwidth", "带宽", "float"),
    col("unit", "Bandwidth unit", "带宽单位"),
    col("steps", "Steps", "迭代数", "int"),
    col("mean_transfer_mb", "Mean transfer (MB)", "平均传输量 (MB)", "mb"),
))  # fmt: skip

FINDINGS = TableSpec("findings", "Findings", "发现", (
    col("rank", "#", "#", "int"),
    col("id", "Rule", "规则"),
    col("severity", "Severity", "严重程度"),
    col("category", "Category", "类别"),
    col("title", "Finding", "发现"),
    col("saving_ms", "Saving (ms per step)", "可节省 (ms/迭代)", "ms"),
    col("saving_share", "Saving share of the step", "可节省占迭代比例", "ratio"),
    col("message", "Why", "原因"),
    col("actions", "Actions", "建议"),
    col("docs", "Documentation", "文档"),
))  # fmt: skip

EVIDENCE = TableSpec("evidence", "Evidence", "证据", (
    col("finding", "Finding #", "发现 #", "int"),
    col("id", "Rule", "规则"),
    col("kind", "Kind", "类型"),
    col("label", "Evidence", "证据"),
    col("value", "Value", "数值", "float"),
    col("unit", "Unit", "单位"),
    col("page", "Dashboard page", "看板页面"),
    col("step", "Step", "迭代"),
    col("name", "Name", "名称"),
    col("evidence_rank", "Rank", "Rank", "int"),
    col("start_us", "Start (us)", "开始 (us)", "us"),
    col("end_us", "End (us)", "结束 (us)", "us"),
))  # fmt: skip

#: Every table, in the workbook's order.
ALL = (STEPS, BREAKDOWN, STEP_TRACE, OPERATORS, OPERATORS_BY_SHAPE, KERNELS, OP_TYPES,
       MEMORY_DEVICES, MEMORY_EVENTS, COMM_STEPS, COLLECTIVES, LINKS, FINDINGS,
       EVIDENCE)  # fmt: skip
assert all(len(t.en) <= 31 and len(t.zh) <= 31 for t in ALL)  # Excel's sheet-name limit

"""The report's words in English and Simplified Chinese.

Where the dashboard has the same label its text is copied from `ui/src/i18n/messages/` (so a
reader who knows the dashboard recognises every heading); texts the report and the advice
already carry in both languages (`Text {en, zh}`: verdict rules, findings, evidence labels)
are taken from them, not from here.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.export.columns import CATEGORY_NAMES

EN: dict[str, str] = {
    "title": "Performance report",
    "run": "Run", "worker": "Worker", "span": "Span", "source": "Source",
    "framework": "Framework", "device": "Device", "format": "Input format",
    "generated": "Generated", "tool": "Tool version", "report_version": "Report version",
    "contents": "Contents",
    "missing": "Not in this input.",
    "more_rows": "{n} more rows in the workbook and on the dashboard.",
    # sections
    "s_overview": "Overview", "s_ledger": "Where the step time goes",
    "s_step_trace": "Step trace", "s_operators": "Top operators", "s_kernels": "Top kernels",
    "s_data_pipeline": "Data pipeline", "s_memory": "Memory peak",
    "s_communication": "Communication", "s_roofline": "Roofline and MFU",
    "s_window": "Window and input warnings", "s_advice": "Advisor",
    # overview
    "steps": "Steps", "avg_step": "Average step time", "utilization": "Device utilization",
    "data_wait": "Data wait", "memory_peak": "Memory peak", "mfu": "MFU",
    "breakdown": "Step-time breakdown", "breakdown_per_step": "Per step",
    "breakdown_hint": "Where each step’s wall time goes, by what the host or device is doing "
    "(the PyTorch profiler plugin’s categories).",
    "name": "Name", "average": "Average", "percent": "Percent", "step": "Step",
    "time_axis": "time per step",
    "chart_cap": "The first {n} of {total} steps; all of them in the workbook.",
    # ledger
    "ledger_hint": "The average step cut into parts that add up to it, in the advisor’s "
    "order; the findings’ savings come from these parts.",
    "part": "Part", "of_step": "Share of the step",
    # step trace
    "fp_point": "Forward starts at", "bp_point": "Backward ends at",
    "total": "Total", "iteration_interval": "Iteration interval",
    "fp_and_bp": "Forward + backward", "tail": "Tail",
    # tables
    "calls": "Calls", "host_self": "Host self", "host_total": "Host total",
    "device_self": "Device self", "device_total": "Device total",
    "tensor_cores": "Tensor Cores", "mean": "Mean", "min": "Min", "max": "Max",
    "tc_used": "Uses Tensor Cores", "blocks_per_sm": "Blocks/SM", "occupancy": "Occupancy",
    "core": "Accelerator core", "op_type": "OP Type", "sorted_by": "sorted by {key}",
    # data pipeline
    "verdict": "Verdict", "wait_per_step": "Data loading per step",
    "wait_share": "Step time spent waiting", "queues": "Queues", "queue": "Queue",
    "capacity": "Capacity", "samples": "Samples", "empty_rate": "Empty", "full_rate": "Full",
    "average_size": "Average size", "no_verdict": "No verdict (the input has no "
    "data-pipeline figures to judge)",
    # memory
    "peak_allocated": "Peak allocated", "peak_reserved": "Peak reserved",
    "at_operator": "Operator at the peak",
    # communication
    "collectives": "Collectives", "comm_time": "Time", "bytes": "Bytes",
    "tool_wait": "Waiting", "links": "Links", "link": "Link", "transport": "Transport",
    "bandwidth": "Bandwidth", "comm_total": "Communication per step",
    "rank": "Rank", "backend": "Backend", "world_size": "World size",
    "exposed": "Exposed communication per step", "overlapped": "Overlapped per step",
    # roofline
    "roof_device": "Measured against", "hfu": "HFU", "covered_share": "Time with a model",
    "low_roof": "Time below 10 % of the roof", "memory_bound": "Memory-bound time",
    "gflops": "GFLOPs", "gflops_call": "GFLOPs per call",
    "intensity": "Arithmetic intensity (FLOP/byte)",
    "achieved": "Achieved TFLOP/s", "pct_of_roof": "% of roof", "bound": "Bound",
    "category": "Category", "roof_unavailable": "MFU not available: {reason}",
    "mfu_per_step": "MFU per step",
    # window
    "window_share": "One-off work in the window", "warnings": "Input warnings",
    "no_warnings": "No input warnings.", "left_out": "Steps left out of the averages",
    "none": "none", "compile": "Compilation", "initialisation": "Initialisation",
    "capture": "Graph capture", "warmup": "Warm-up", "file": "File",
    # advice
    "severity": "Severity", "saving": "about {time} per step ({share})",
    "saving_label": "Estimated saving", "actions": "What to do", "evidence": "Evidence",
    "combined": "Together: about {time} per step ({share})",
    "no_findings": "No findings: every rule that could be evaluated passed.",
    "checked": "{checked} rules checked and fine, {missing} not evaluated.",
    "high": "High", "medium": "Medium", "low": "Low",
}  # fmt: skip

ZH: dict[str, str] = {
    "title": "性能报告",
    "run": "运行", "worker": "Worker", "span": "采集段", "source": "来源",
    "framework": "框架", "device": "设备", "format": "输入格式",
    "generated": "生成时间", "tool": "工具版本", "report_version": "报告版本",
    "contents": "目录",
    "missing": "此输入中没有该数据。",
    "more_rows": "另有 {n} 行，见 Excel 工作簿和仪表盘。",
    "s_overview": "概览", "s_ledger": "迭代时间去向",
    "s_step_trace": "迭代轨迹", "s_operators": "耗时最多的算子", "s_kernels": "耗时最多的内核",
    "s_data_pipeline": "数据处理", "s_memory": "内存峰值",
    "s_communication": "通信", "s_roofline": "Roofline 与 MFU",
    "s_window": "采集窗口与输入警告", "s_advice": "性能建议",
    "steps": "迭代数", "avg_step": "平均迭代时间", "utilization": "设备利用率",
    "data_wait": "数据等待", "memory_peak": "内存峰值", "mfu": "MFU",
    "breakdown": "迭代时间分解", "breakdown_per_step": "每个迭代",
    "breakdown_hint": "每个迭代的墙钟时间按主机或设备正在做的事情分解"
    "（与 PyTorch profiler 插件的分类一致）。",
    "name": "名称", "average": "平均", "percent": "占比", "step": "迭代",
    "time_axis": "每个迭代的时间",
    "chart_cap": "仅显示 {total} 个迭代中的前 {n} 个；全部迭代见 Excel 工作簿。",
    "ledger_hint": "平均迭代按建议器的顺序切分为相加等于迭代时长的各部分；"
    "各建议的收益来自这些部分。",
    "part": "部分", "of_step": "占迭代",
    "fp_point": "前向起点", "bp_point": "反向终点",
    "total": "总计", "iteration_interval": "迭代间隙",
    "fp_and_bp": "前向 + 反向", "tail": "迭代拖尾",
    "calls": "调用次数", "host_self": "主机自身", "host_total": "主机总计",
    "device_self": "设备自身", "device_total": "设备总计",
    "tensor_cores": "Tensor Core", "mean": "平均", "min": "最小", "max": "最大",
    "tc_used": "使用 Tensor Core", "blocks_per_sm": "每 SM 块数", "occupancy": "占用率",
    "core": "加速核", "op_type": "算子类型", "sorted_by": "按 {key} 排序",
    "verdict": "结论", "wait_per_step": "每迭代数据加载时间",
    "wait_share": "迭代中等待数据的时间占比", "queues": "队列", "queue": "队列",
    "capacity": "容量", "samples": "采样数", "empty_rate": "空队列", "full_rate": "满队列",
    "average_size": "平均长度", "no_verdict": "无结论（输入没有可判断的数据处理数据）",
    "peak_allocated": "分配峰值", "peak_reserved": "预留峰值",
    "at_operator": "峰值时的算子",
    "collectives": "集合通信", "comm_time": "时间", "bytes": "字节数",
    "tool_wait": "等待", "links": "链路", "link": "链路", "transport": "传输方式",
    "bandwidth": "带宽", "comm_total": "每迭代通信时间",
    "rank": "Rank", "backend": "后端", "world_size": "总卡数",
    "exposed": "每迭代未掩盖的通信", "overlapped": "每迭代被掩盖的通信",
    "roof_device": "对照设备", "hfu": "HFU", "covered_share": "有模型的时间占比",
    "low_roof": "低于屋顶 10 % 的时间", "memory_bound": "访存受限的时间",
    "gflops": "GFLOPs", "gflops_call": "每次调用 GFLOPs", "intensity": "计算强度（FLOP/字节）",
    "achieved": "实际 TFLOP/s", "pct_of_roof": "屋顶占比", "bound": "受限于",
    "category": "类别", "roof_unavailable": "无法计算 MFU：{reason}",
    "mfu_per_step": "每个迭代的 MFU",
    "window_share": "窗口中的一次性开销", "warnings": "输入警告",
    "no_warnings": "没有输入警告。", "left_out": "未计入平均值的迭代",
    "none": "无", "compile": "编译", "initialisation": "初始化",
    "capture": "图捕获", "warmup": "预热", "file": "文件",
    "severity": "严重程度", "saving": "每个迭代约 {time}（{share}）",
    "saving_label": "预计收益", "actions": "建议操作", "evidence": "证据",
    "combined": "合计：每个迭代约 {time}（{share}）",
    "no_findings": "没有发现问题：所有可评估的规则均已通过。",
    "checked": "{checked} 条规则已检查且正常，{missing} 条未评估。",
    "high": "高", "medium": "中", "low": "低",
}  # fmt: skip

#: the overview's breakdown categories, in the PyTorch plugin's order (`BREAKDOWN_KEYS`):
#: the names the workbook and the summary use too
BREAKDOWN = {
    lang: {key: names[i] for key, names in CATEGORY_NAMES.items()}
    for i, lang in enumerate(("en", "zh"))
}

#: the ledger's parts (`advisor.ledger.part`)
PARTS = {
    "en": {"device_compute": "Device compute", "exposed_copies": "Exposed copies",
           "exposed_communication": "Exposed communication", "data_wait": "Data wait",
           "sync_wait": "Sync wait", "host_launch": "Host launch",
           "host_compute": "Host compute", "untracked": "Untracked"},
    "zh": {"device_compute": "设备计算", "exposed_copies": "未掩盖的拷贝",
           "exposed_communication": "未掩盖的通信", "data_wait": "等待数据",
           "sync_wait": "同步等待", "host_launch": "主机下发", "host_compute": "主机计算",
           "untracked": "未追踪"},
}  # fmt: skip

#: the data pipeline's verdicts (`overview.bottleneck`)
BOTTLENECK = {
    "en": {"none": "No data-side bottleneck", "data_processing": "Data processing is the "
           "bottleneck", "data_transmission": "Data transmission is the bottleneck",
           "ops": "Some pipeline operators are slow",
           "consumer": "The consumer (training) is the bottleneck"},
    "zh": {"none": "数据侧没有瓶颈", "data_processing": "数据处理是瓶颈",
           "data_transmission": "数据传输是瓶颈", "ops": "部分数据处理算子较慢",
           "consumer": "训练（消费者）是瓶颈"},
}  # fmt: skip

#: Ascend's step view (`overview.npu`: step_trace_time.csv's columns)
NPU = {
    "en": {"computing_us": "Computing", "comm_not_overlapped_us": "Communication (not overlapped)",
           "overlapped_us": "Overlapped", "communication_us": "Communication", "free_us": "Free",
           "stage_us": "Stage", "bubble_us": "Bubble", "preparing_us": "Preparing",
           "title": "Ascend step view", "of_stage": "of stage"},
    "zh": {"computing_us": "计算（Computing）", "comm_not_overlapped_us": "未被掩盖的通信",
           "overlapped_us": "被掩盖的通信（Overlapped）",
           "communication_us": "通信（Communication）",
           "free_us": "空闲（Free）", "stage_us": "Stage", "bubble_us": "流水线气泡（Bubble）",
           "preparing_us": "准备（Preparing）", "title": "Ascend 迭代视图", "of_stage": "占 Stage"},
}  # fmt: skip

#: the advisor's categories (`advisor.category`)
CATEGORY = {
    "en": {"data_pipeline": "Data pipeline", "host_overhead": "Host overhead",
           "device_compute": "Device compute", "memory": "Memory",
           "communication": "Communication", "synchronization": "Synchronization",
           "operator": "Operator", "optimizer": "Optimizer", "precision": "Precision",
           "step_stability": "Step stability", "configuration": "Configuration"},
    "zh": {"data_pipeline": "数据处理", "host_overhead": "主机开销", "device_compute": "设备计算",
           "memory": "内存", "communication": "通信", "synchronization": "同步", "operator": "算子",
           "optimizer": "优化器", "precision": "精度", "step_stability": "迭代稳定性",
           "configuration": "配置"},
}  # fmt: skip

#: which steps an average covers (`averages`, ui/src/i18n/messages/averages.ts)
AVERAGES = {
    "en": {"all": "mean of all {n} steps", "only": "step {first} only",
           "single": "the one step", "range": "mean of {n} steps ({first}–{last})",
           "left_out": "{steps} left out: {reason}", "step": "step {list}",
           "steps": "steps {list}", "compile": "graph compilation",
           "no_data": "not in this page’s files"},
    "zh": {"all": "全部 {n} 个迭代的平均", "only": "仅迭代 {first}", "single": "仅一个迭代",
           "range": "{n} 个迭代（{first}–{last}）的平均", "left_out": "不含{steps}：{reason}",
           "step": "迭代 {list}", "steps": "迭代 {list}", "compile": "图编译",
           "no_data": "本页的数据文件中没有"},
}  # fmt: skip


def lang_key(lang: str) -> str:
    """`lang` as the key of the texts: "zh", "zh-CN" or "zh_CN" give "zh", the rest "en"."""
    return "zh" if lang.lower().replace("_", "-").split("-")[0] == "zh" else "en"


def words(lang: str) -> dict[str, str]:
    return ZH if lang_key(lang) == "zh" else EN


def pick(text: Any, lang: str) -> str:
    """A `Text {en, zh}` (struct or dict) in `lang`, English when the Chinese is empty."""
    if text is None:
        return ""
    en = text["en"] if isinstance(text, dict) else text.en
    zh = text["zh"] if isinstance(text, dict) else text.zh
    return str(zh or en) if lang_key(lang) == "zh" else str(en)


def step_runs(steps: list[str]) -> str:
    """Steps as short runs: ['2','3','4','7'] -> '2–4, 7' (the UI's `stepRuns`)."""
    out: list[str] = []
    start: int | None = None
    prev: int | None = None
    for s in [*steps, None]:
        n = int(s) if s is not None and s.isdigit() else None
        if n is not None and prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None and prev is not None:
            out.append(str(start) if start == prev else f"{start}–{prev}")
        start = prev = n
        if n is None and s is not None:
            out.append(s)
    return ", ".join(out)


def covered_text(c: dict[str, Any] | None, lang: str) -> str:
    """What an average covers, as the dashboard prints it beside the figure (`coveredText`):
    "mean of 9 steps (2–10); step 1 left out: graph compilation"."""
    if not c:
        return ""
    t = AVERAGES[lang_key(lang)]

    def listed(names: list[str]) -> str:
        return t["step" if len(names) == 1 else "steps"].format(list=step_runs(names))

    over = ""
    if c["count"] and c["first"] is not None:
        if c["count"] == 1:
            over = t["only"].format(first=c["first"]) if c["left_out"] else t["single"]
        elif not c["left_out"]:
            over = t["all"].format(n=c["count"])
        else:
            over = t["range"].format(n=c["count"], first=c["first"], last=c["last"] or c["first"])
    compiled = set(c.get("compile") or [])
    tails = [
        t["left_out"].format(steps=listed(group), reason=t[reason])
        for group, reason in (
            ([s for s in c["left_out"] if s in compiled], "compile"),
            ([s for s in c["left_out"] if s not in compiled], "no_data"),
        )
        if group
    ]
    return "; ".join(x for x in (over, *tails) if x)

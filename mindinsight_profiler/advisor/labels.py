"""Evidence labels in English and Chinese, as templates in one table.

A finding's title, message and actions come from its rule file in both languages; the
evidence is built by facts in code, so its words live here, next to each other, and a
fact asks for a label by key: `Evidence(kind=..., **label("device_idle", us=.., step=..))`.
Placeholders use Python's format syntax (`{us:,.0f}`); both languages of a template take
the same placeholders, where the Chinese one may take `<name>_zh` for a word that must be
translated itself (checked by the tests).
"""

from __future__ import annotations

from typing import Any, TypedDict


class Label(TypedDict):
    label: str
    label_zh: str


#: key -> (English, Chinese)
TEMPLATES: dict[str, tuple[str, str]] = {
    # steps
    "step": ("step {step}", "迭代 {step}"),
    "breakdown_step": ("{category} in step {step}", "迭代 {step} 的{category_zh}"),
    "data_wait_step": ("data wait in step {step}", "迭代 {step} 的数据等待"),
    "exposed_comm_step": (
        "exposed communication in step {step}",
        "迭代 {step} 中未被计算掩盖的通信",
    ),
    "comm_message": (
        "{name}: {calls} call(s) of {kib:,.1f} KiB",
        "{name}：{calls} 次，每次 {kib:,.1f} KiB",
    ),
    "ddp_bursts": (
        "{bursts} gradient all-reduce bursts for {micro} micro-batches before one optimizer step",
        "一次优化器更新前 {micro} 个微批次产生了 {bursts} 轮梯度 AllReduce",
    ),
    "free_time_step": ("device free time in step {step}", "迭代 {step} 中的设备空闲时间"),
    "interval_step": ("iteration interval of step {step}", "迭代 {step} 的迭代间隙"),
    "device_idle": (
        "device idle {us:,.0f} us in step {step}",
        "迭代 {step} 中设备空闲 {us:,.0f} us",
    ),
    "unprofiled_gap": (
        "nothing profiled for {ms:.1f} ms in step {step}",
        "迭代 {step} 中有 {ms:.1f} ms 没有记录任何事件",
    ),
    "allocated_at_step": ("allocated at the start of step {step}", "迭代 {step} 开始时已分配"),
    "allocated_at_end": ("allocated at the end", "结束时已分配"),
    # events and operators
    "event": ("{name} {us:,.0f} us", "{name} {us:,.0f} us"),
    "optimizer_calls": ("{name}: {calls} operator calls", "{name}：{calls} 次算子调用"),
    "zero_grad_memsets": (
        "zero_grad memsets {count} gradients",
        "zero_grad 用 memset 清零 {count} 个梯度",
    ),
    "data_parallel": ("nn.DataParallel forward", "nn.DataParallel 前向"),
    "loader_iterator": (
        "DataLoader iterator {name} ({calls} calls)",
        "DataLoader 迭代器 {name}（{calls} 次调用）",
    ),
    "loader_next": ("DataLoader __next__ {us:,.0f} us", "DataLoader __next__ 耗时 {us:,.0f} us"),
    "loader_next_step": (
        "DataLoader __next__ {us:,.0f} us in step {step}",
        "迭代 {step} 中 DataLoader __next__ 耗时 {us:,.0f} us",
    ),
    "api_calls": (
        "{api} from {where}: {calls} calls, {us:,.0f} us",
        "{where} 调用 {api}：{calls} 次，{us:,.0f} us",
    ),
    "api_calls_in": (
        "{api} from {inner} in {outer}: {calls} calls, {us:,.0f} us",
        "{outer} 中的 {inner} 调用 {api}：{calls} 次，{us:,.0f} us",
    ),
    "d2h_sync": (
        "{name} at {line}: {calls} blocking waits for device values, {us:,.0f} us",
        "{line} 处的 {name}：{calls} 次等待设备数值的阻塞，{us:,.0f} us",
    ),
    "python_function": (
        "{name}: {calls:,.1f} calls, {us:,.0f} us per step with no operator running",
        "{name}：每个迭代 {calls:,.1f} 次调用，{us:,.0f} us 期间没有算子运行",
    ),
    "step_logging": (
        "{line}: {ops:,.0f} operators and {reads:,.0f} value reads per step, {us:,.0f} us",
        "{line}：每个迭代 {ops:,.0f} 个算子、{reads:,.0f} 次数值读取，{us:,.0f} us",
    ),
    "dtod_copies": (
        "{name}: {calls} device-to-device copies, {us:,.0f} us",
        "{name}：{calls} 次设备到设备拷贝，{us:,.0f} us",
    ),
    "memory_peak": (
        "{device}: peak {what} {gib:,.2f} GiB of {total:,.2f} GiB",
        "{device}：{what_zh}峰值 {gib:,.2f} GiB / {total:,.2f} GiB",
    ),
    "memory_peak_at": (
        "{device}: peak {what} {gib:,.2f} GiB of {total:,.2f} GiB (at {name})",
        "{device}：{what_zh}峰值 {gib:,.2f} GiB / {total:,.2f} GiB（{name}）",
    ),
    "recompiled_frame": (
        "compiled frame {frame}: recompilation {count}",
        "编译帧 {frame}：第 {count} 次重新编译",
    ),
    "compile_in_step": (
        "compilation {ms:,.1f} ms in step {step}",
        "迭代 {step} 中编译 {ms:,.1f} ms",
    ),
    "pageable_copies": (
        "{name}: {calls} pageable host-to-device copies, {us:,.0f} us",
        "{name}：{calls} 次从可分页内存到设备的拷贝，{us:,.0f} us",
    ),
    "op_type_share": (
        "operator type {type}: {pct:.1f} % of operator time",
        "算子类型 {type}：占算子时间的 {pct:.1f} %",
    ),
    "float64_inputs": ("{name} with float64 inputs", "{name}（float64 输入）"),
    # the profiled window (facts/window.py)
    "window_event": ("{kind}: {name} ({ms:,.1f} ms)", "{kind}：{name}（{ms:,.1f} ms）"),
    # performance model (facts/perf.py)
    "mfu": ("MFU {pct:.1f} % on {device}", "{device} 上的 MFU 为 {pct:.1f} %"),
    "gemm_roof": (
        "{name} {shapes}: {pct:.1f} % of its roof",
        "{name} {shapes}：达到其屋顶的 {pct:.1f} %",
    ),
    "low_roof": (
        "{name} {shapes}: {pct:.1f} % of its roof",
        "{name} {shapes}：仅达到其屋顶的 {pct:.1f} %",
    ),
    "unaligned_gemm": (
        "{name} {shapes}: dimensions {dims} not tile-aligned",
        "{name} {shapes}：维度 {dims} 未按 Tensor Core 分块对齐",
    ),
    "fp32_matrix": ("{name} {shapes} in FP32", "{name} {shapes} 以 FP32 计算"),
    "slow_gemm_small": (
        "{name} {shapes}: {pct:.1f} % of its roof, small ({intensity:,.1f} FLOP/byte)",
        "{name} {shapes}：仅达到其屋顶的 {pct:.1f} %，规模过小（{intensity:,.1f} FLOP/字节）",
    ),
    "slow_gemm_tiled": (
        "{name} {shapes}: {pct:.1f} % of its roof, compute-bound (tiling or shape)",
        "{name} {shapes}：仅达到其屋顶的 {pct:.1f} %，计算受限（分块或形状问题）",
    ),
    "layout_kernel": (
        "{name}: {us:,.0f} us, {calls} calls",
        "{name}：{us:,.0f} us，{calls} 次调用",
    ),
    "sdpa_math": (
        "{name} {shapes}: {us:,.0f} us on the math path",
        "{name} {shapes}：{us:,.0f} us 走 math 实现",
    ),
    "create_then_copy": (
        "{name} on the host, then {copy}: {us:,.0f} us",
        "{name} 在主机上创建，随后 {copy}：{us:,.0f} us",
    ),
    "fusible_pattern": (
        "{pattern} written by hand: {names} ({us:,.0f} us)",
        "手写的 {pattern_zh}：{names}（{us:,.0f} us）",
    ),
    "elementwise_chain": (
        "{length} element-wise calls in a row: {names} ({us:,.0f} us)",
        "连续 {length} 个逐元素调用：{names}（{us:,.0f} us）",
    ),
    "attention_sequence": ("matmul -> softmax -> matmul", "matmul -> softmax -> matmul 序列"),
    "kernel_occupancy": (
        "{name}: {occupancy:.1f} % occupancy, {us:,.0f} us",
        "{name}：占用率 {occupancy:.1f} %，{us:,.0f} us",
    ),
    "tc_operator": (
        "{name}: {us:,.0f} us on the device, {ratio:.0%} on tensor cores",
        "{name}：设备上 {us:,.0f} us，其中 {ratio:.0%} 使用 Tensor Core",
    ),
    "aicpu_op": ("AI CPU {name}", "AI CPU 算子 {name}"),
    # data pipeline
    "host_queue_empty": (
        "host queue: empty in {empty} of {samples} batches",
        "主机队列：{samples} 个批次中有 {empty} 个为空",
    ),
    "chip_queue_empty": (
        "chip (GetNext) queue: empty in {empty} of {samples} batches",
        "芯片（GetNext）队列：{samples} 个批次中有 {empty} 个为空",
    ),
    "pipeline_op": ("{name}: {advice}", "{name}：{advice_zh}"),
    "machine_cpu": (
        "machine CPU {active:.0f} % busy over {samples} samples (user {user:.0f}, sys {sys:.0f}, "
        "iowait {io:.0f}, idle {idle:.0f} %)",
        "{samples} 个采样中整机 CPU 平均繁忙 {active:.0f} %（user {user:.0f}，sys {sys:.0f}，"
        "iowait {io:.0f}，idle {idle:.0f} %）",
    ),
    # ranks and links
    "rank_mean_step": ("rank {rank}: mean step", "rank {rank}：平均迭代时间"),
    "rank_compute": ("rank {rank}: compute per step", "rank {rank}：每迭代计算时间"),
    "rank_interval": ("rank {rank}: average iteration interval", "rank {rank}：平均迭代间隙"),
    "rank_flops_rate": ("rank {rank}: FLOPS", "rank {rank}：FLOPS"),
    "rank_flops": ("rank {rank}: FLOPs", "rank {rank}：FLOPs"),
    "rank_comm_alone": ("rank {rank}: communication alone", "rank {rank}：纯通信时间"),
    "rank_receive": ("rank {rank}: receive alone per step", "rank {rank}：每迭代纯接收时间"),
    "rank_stage_comm": (
        "rank {rank} (stage {stage}): collective communication alone",
        "rank {rank}（stage {stage}）：纯集合通信时间",
    ),
    "rank_wait": ("rank {rank}: collectives wait per step", "rank {rank}：每迭代集合通信等待时间"),
    "comm_op_waiting": (
        "{op}: {wait_ms:,.1f} ms of {elapse_ms:,.1f} ms not transferring "
        "(transit {transit_ms:,.2f} ms)",
        "{op}：{elapse_ms:,.1f} ms 中有 {wait_ms:,.1f} ms 未在传输（传输 {transit_ms:,.2f} ms）",
    ),
    "kernel_clock": (
        "{name}: {mhz:,.0f} MHz (fastest {top:,.0f} MHz)",
        "{name}：{mhz:,.0f} MHz（最快 {top:,.0f} MHz）",
    ),
    "single_core_op": (
        "{op} on one AI Core: {us:,.0f} us per step",
        "{op} 仅使用一个 AI Core：每个迭代 {us:,.0f} us",
    ),
    "env_setting": ("{name}={value}", "{name}={value}"),
    "packet_size": (
        "{count} packets of {bytes:,} B, {ms:.2f} ms",
        "{count} 个 {bytes:,} B 的数据包，{ms:.2f} ms",
    ),
    "packet_bandwidth": (
        "{count} packets of {bytes:,} B at {gbps:.1f} GB/s",
        "{count} 个 {bytes:,} B 的数据包，带宽 {gbps:.1f} GB/s",
    ),
    "link_gap": (
        "rank {rank} link {link} {transport}: {gap:.0%} below the mean",
        "rank {rank} 链路 {link} {transport}：比同类均值低 {gap:.0%}",
    ),
}

#: The step-time breakdown's categories in Chinese (as the dashboard names them).
CATEGORIES_ZH = {
    "kernel": "内核时间",
    "memcpy": "内存拷贝时间",
    "memset": "内存置位时间",
    "communication": "通信时间",
    "runtime": "运行时（kernel 启动）时间",
    "dataloader": "数据加载时间",
    "cpu_exec": "CPU 执行时间",
    "other": "其他时间",
}

#: MindData pipeline flags (minddata_rules reasons) in Chinese, for `pipeline_op` labels.
PIPELINE_REASONS_ZH = {
    "source_slow": "数据读取较慢，可增大数据集的 num_parallel_workers",
    "children_fill_faster": "子算子产出快于本算子消费，可增大本算子的 num_parallel_workers",
    "consumer_bound": "训练（消费者）是瓶颈",
}


def label(key: str, **params: Any) -> Label:
    """Both languages of the label `key` with `params` filled in."""
    en, zh = TEMPLATES[key]
    return {"label": en.format(**params), "label_zh": zh.format(**params)}

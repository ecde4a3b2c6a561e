"""Ascend PyTorch (torch_npu) profiler output: trace_view.json and the CSV tables."""

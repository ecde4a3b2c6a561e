"""MindSpore profiler output: 2.x `*_ascend_ms` folders and legacy profiler dirs."""

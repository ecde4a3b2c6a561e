"""Performance model: what the hardware could do, to set against what a trace did.

`specs` holds the device table (peak dense throughput per dtype and memory bandwidth, each
figure with its source, `device_specs.toml`); `devices` recognises a trace's accelerator in
it, or takes the one a user names.
"""

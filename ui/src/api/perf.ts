/**
 * The performance model (`/runs/<run>/perf-model`, and the overview's `perf`): FLOPs and
 * bytes per operator, the roofline against the device, MFU per step. Shares, `mfu`, `hfu`
 * and `pct_of_roof` are fractions (0-1); `longest_call_ns` is relative to the timeline's
 * origin. MindSpore's own FLOPs files (`/runs/<run>/mindspore-flops`) keep MindInsight's
 * units (MFLOPs, GFLOPS, percentages 0-100). Generated from
 * `mindinsight_profiler/analysis/schema/perf.py`, `perf_mindspore.py` and
 * `server/answers/sections.py`: re-exports only.
 */
export type {
  MindSporeFlops,
  MindSporeFlopsAnswer,
  MindSporeFlopsOp,
  MindSporeFlopsScope,
  MindSporeFlopsSummary,
  MindSporeScopeLink,
  OverviewPerf,
  PerfCategory,
  PerfDevice,
  PerfModel,
  PerfModelAnswer,
  PerfRow,
  PerfSource,
  PerfStep,
  PerfTotals,
  PerfUnknown,
} from './generated/api'

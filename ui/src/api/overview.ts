/** The overview answer (`/runs/<run>/overview`): the report's summary sections. */
import type { Where } from './types'

export type Breakdown = Record<string, number>

// Rows the report declares in Python (`mindinsight_profiler/analysis/schema/`), generated.
export type { GpuDevice, OpTypeRow } from './generated/report'
import type { GpuSummary, OpTypes, Steps } from './generated/report'

export interface Overview extends Where {
  format: string
  steps: Steps
  breakdown_us: Breakdown
  breakdown_per_step_us: Breakdown[]
  gpu: GpuSummary | null
  op_types: OpTypes | null
  data_pipeline: {
    framework: string
    data_wait: { average_us: number | null; share: number | null; loader_share: number | null }
    verdict: { bottleneck: string; rule: string } | null
  } | null
  memory: {
    devices: {
      device: string
      peak_allocated: { bytes: number } | null
      peak_reserved: { bytes: number } | null
    }[]
  } | null
  distributed: { rank: number | null; world_size: number | null; backend: string | null } | null
  parallel: { mode?: string; stage_num?: number; rank_size?: number } | null
}

/** The breakdown categories in the PyTorch plugin's order. */
export const BREAKDOWN_KEYS = ['kernel', 'memcpy', 'memset', 'communication', 'runtime', 'dataloader', 'cpu_exec', 'other']

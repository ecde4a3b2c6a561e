/** The overview answer (`/runs/<run>/overview`): the report's summary sections. */
import type { Where } from './types'

export type Breakdown = Record<string, number>

export interface GpuDevice {
  device: number | string
  name: string | null
  memory_bytes: number | null
  compute_capability: string | null
  utilization: number | null
  sm_efficiency: number | null
  occupancy: number | null
  kernel_us: number | null
}

export interface OpTypeRow {
  type: string
  calls: number
  total_us: number
  mean_us: number
  percent: number
}

export interface Overview extends Where {
  format: string
  steps: {
    count: number
    names: string[]
    durations_us: number[]
    average_us: number | null
    /** Index of the first step the averages cover (1: MindSpore leaves out the compiling step). */
    averaged_from?: number
  }
  breakdown_us: Breakdown
  breakdown_per_step_us: Breakdown[]
  gpu: { utilization: number | null; sm_efficiency: number | null; occupancy: number | null; devices: GpuDevice[] } | null
  op_types: { by: string; types: OpTypeRow[] } | null
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

/**
 * Answers of the stage pages: step trace, data pipeline, communication and cluster
 * (`/runs/<run>/{step-trace,data-pipeline,communication,cluster}`, docs/service.md). Times
 * are microseconds; per-step lists are aligned with their `steps`.
 */
import type { Section } from './types'

// Step trace -----------------------------------------------------------------------------

export type PointSource = 'auto' | 'profiler' | 'argument' | 'env'

export interface StepPoint {
  name: string | null
  source: PointSource
  steps_found: number
}

export interface StepCollective {
  name: string
  start_us: number
  end_us: number
  duration_us: number
}

export interface StepTraceRow {
  step: string
  start_us: number
  fp_us: number
  bp_us: number
  end_us: number
  total_us: number
  iteration_interval_us: number
  fp_and_bp_us: number
  tail_us: number
  fp_op: string
  bp_op: string
  collectives: StepCollective[]
}

export interface StepTraceAverage {
  steps: number
  excludes_first_step: boolean
  total_us: number
  iteration_interval_us: number
  fp_and_bp_us: number
  tail_us: number
  collectives: { name: string; index: number; duration_us: number }[]
}

export interface StepTrace {
  source: 'operator_tree' | 'step_trace_table'
  fp_point: StepPoint
  bp_point: StepPoint
  origin_ns: number
  stages: string[]
  steps: StepTraceRow[]
  average: StepTraceAverage
}

export type StepTraceAnswer = Section<StepTrace>

// Data pipeline --------------------------------------------------------------------------

export interface DataWait {
  steps: string[]
  per_step_us: number[]
  exposed_per_step_us: number[] | null
  average_us: number
  share: number | null
  loader_share: number | null
  probe_average_us?: number
}

export interface QueueSummary {
  name: string
  capacity: number | null
  samples: number
  empty: number
  full: number | null
  empty_rate: number | null
  full_rate: number | null
  average_size: number | null
}

export interface PipelineOp {
  op_id: number
  op_type: string
  num_workers: number
  parent_id: number | null
  queue_capacity: number | null
  queue_usage: number | null
  flagged: boolean
  reason: string | null
}

export interface Verdict {
  bottleneck: string
  rule: string
}

export interface DataPipeline {
  framework: 'pytorch' | 'mindspore'
  data_wait: DataWait | null
  queues: QueueSummary[]
  workers: {
    num_workers: number | null
    prefetch: number | null
    queue_capacity: number | null
    by_op: Record<string, number> | null
    config: Record<string, unknown> | null
  } | null
  ops: PipelineOp[] | null
  pipeline_verdict: { bottleneck: string; ops: number[]; suggestions: string[] } | null
  cpu: { device_pct: number | null; process_pct: number | null; per_op_pct: Record<string, number | null> } | null
  verdict: Verdict | null
}

export interface HostQueueSteps {
  source: string
  used_for_verdict: boolean
  capacity: number | null
  steps: string[]
  size: number[]
}

export interface QueueSteps {
  host: HostQueueSteps[]
  chip: { steps: string[]; size: number[]; wait_us: number[] } | null
  times: { source: string; steps: string[]; get_us: (number | null)[]; push_us: (number | null)[]; total_us: (number | null)[] }[]
}

export interface DataPipelineAnswer extends Section<DataPipeline> {
  queue_steps: QueueSteps | null
}

// Communication --------------------------------------------------------------------------

export interface CommStep {
  step: string
  step_us: number | null
  computation_us: number | null
  overlapped_us: number | null
  exposed_communication_us: number | null
  other_us: number | null
  communication_us: number | null
  tool_wait_us?: number | null
}

export interface Collective {
  name: string
  calls: number
  total_us: number
  bytes: number | null
  tool_wait_us: number | null
  durations_us: number[]
}

export interface Link {
  link: string
  src: number | null
  dst: number | null
  transport: string
  bandwidth: number
  unit: string | null
  steps: number
}

export interface Communication {
  source: 'kernels' | 'hccl_raw'
  steps: CommStep[]
  collectives: Collective[]
  rank: number | null
  links: Link[]
  average: Record<string, number | null>
  /** The steps `average` covers (MindSpore: after the first, and only step-traced ones). */
  average_steps: string[]
}

export type CommunicationAnswer = Section<Communication>

// Cluster --------------------------------------------------------------------------------

export interface ClusterRank {
  rank: number
  steps: number
  step_us: number | null
  computation_us: number | null
  overlapped_us: number | null
  exposed_communication_us: number | null
  other_us: number | null
  communication_us: number | null
  tool_wait_us: number | null
}

export interface WorkerStages {
  worker: string
  rank: number
  steps: number | null
  total_us: number | null
  iteration_interval_us: number | null
  fp_and_bp_us: number | null
  tail_us: number | null
  computation_us: number | null
  communication_alone_us: number | null
  stage_us: number | null
  receive_alone_us: number | null
  collective_communication_alone_us: number | null
}

export interface ClusterCollective {
  name: string
  ranks: number[]
  calls: number[]
  matched_calls: number
  transfer_us: number | null
  waiting_us: number[] | null
}

export interface Cluster {
  run: string
  workers: string[]
  ranks: ClusterRank[]
  slowest: {
    rank: number
    step_us: number
    over_others_us: number
    over_others_pct: number | null
    fastest_rank: number
    over_fastest_us: number
  } | null
  collectives: ClusterCollective[]
  stages: WorkerStages[]
  outliers: ClusterOutlier[]
  comm_matrix: CommMatrix
}

/** A rank far from the median of one figure (median and MAD; see analysis/cluster/view.py). */
export interface ClusterOutlier {
  rank: number
  key: string
  value: number
  median: number
  /** Modified z-score; null when every other rank equals the median. */
  z: number | null
  over_median_pct: number | null
}

/** Link bandwidth between devices, sparse, per transport. */
export interface CommMatrix {
  devices: number[]
  transports: {
    transport: string
    unit: string | null
    src: number[]
    dst: number[]
    bandwidth: number[]
    reported_by: number[][]
  }[]
}


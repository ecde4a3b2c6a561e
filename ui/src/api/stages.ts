/**
 * Answers of the stage pages: step trace, data pipeline, communication and cluster
 * (`/runs/<run>/{step-trace,data-pipeline,communication,cluster}`, docs/service.md). Times
 * are microseconds; per-step lists are aligned with their `steps`. Generated from
 * `mindinsight_profiler/server/answers/` (the report's sections inside): re-exports only.
 */
import type { StepPoint } from './generated/api'

// Step trace
export type {
  AverageCollective,
  StepCollective,
  StepPoint,
  StepTrace,
  StepTraceAnswer,
  StepTraceAverage,
  StepTraceStep as StepTraceRow,
} from './generated/api'
export type PointSource = StepPoint['source']

// Data pipeline
export type {
  DataPipeline,
  DataPipelineAnswer,
  DataVerdict as Verdict,
  CpuCurves,
  DataWait,
  HostQueueSteps,
  PipelineOp,
  Queue as QueueSummary,
  QueueSteps,
} from './generated/api'

// Communication
export type { Collective, CommStep, Communication, CommunicationAnswer, Link } from './generated/api'

// Cluster
export type {
  ClusterCollective,
  ClusterOutlier,
  ClusterRank,
  ClusterView as Cluster,
  CommMatrix,
  WorkerStages,
} from './generated/api'

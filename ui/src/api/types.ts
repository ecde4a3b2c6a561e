/** Shapes of the API answers the shell uses; each page types its own section. */
import type { LocalText } from '@/i18n'

export type RunState = 'queued' | 'analysing' | 'ready' | 'failed'

export interface RunSummary {
  framework?: string
  device?: string
  steps?: number
  step_us?: number | null
}

export interface Run {
  id: string
  name: string
  workers: string[]
  formats: string[]
  /** The dashboard pages its formats can have, in menu order (`analysis/sections.py`). */
  pages: string[]
  state: RunState
  progress?: number
  error?: string
  summary?: RunSummary
}

export interface RunInput {
  worker: string
  span: string
  state: RunState
  progress?: number
  error?: string
}

export interface RunDetail extends Run {
  inputs: RunInput[]
}

/** Every per-worker answer says which input it describes. */
export interface Where {
  run: string
  worker: string
  span: string
}

export interface Section<T> extends Where {
  data: T | null
}

export interface Page<Row> extends Where {
  group_by?: string
  sort: string
  order: 'asc' | 'desc'
  total: number
  offset: number
  limit: number
  rows: Row[]
}

export type Severity = 'high' | 'medium' | 'low'

export interface Evidence {
  kind: 'step' | 'operator' | 'operator_type' | 'kernel' | 'rank' | 'time_range' | 'queue' | 'pipeline_op' | 'metric'
  label: string
  /** The label in Chinese, when the advisor has it. */
  label_zh?: string
  page?: string
  value?: number
  unit?: string
  step?: string
  name?: string
  rank?: number | string
  start_ns?: number
  end_ns?: number
  /** The range relative to the timeline's origin (added by the server). */
  window_ns?: [number, number]
}

export interface Finding {
  id: string
  category: string
  severity: Severity
  title: LocalText
  message: LocalText
  actions: LocalText[]
  estimated_saving_us: number | null
  saving_share: number | null
  evidence: Evidence[]
  facts: Record<string, unknown>
  docs?: string | null
}

export interface RuleRef {
  id: string
  category?: string
  title?: LocalText
  facts?: Record<string, unknown>
  missing?: string[]
  reason?: string
  by?: string
}

export interface Advice {
  advice_version: number
  source: string
  worker: string
  rules: number
  findings: Finding[]
  checked: RuleRef[]
  not_evaluated: RuleRef[]
  suppressed: RuleRef[]
}

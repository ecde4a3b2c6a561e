/**
 * The step trace section turned into what the page draws: per-step stage series, the
 * collectives worth a line of their own, one step (or the average) as a bar with its
 * collectives packed into lanes. Pure, so the numbers are unit-tested against sections.
 */
import type { StepTrace, StepTraceRow } from '@/api/stages'

/** The three stages of a step, in time order (MindInsight's). */
export const STEP_STAGES = ['iteration_interval', 'fp_and_bp', 'tail'] as const
export type StepStage = (typeof STEP_STAGES)[number]

export interface StageSeries {
  steps: string[]
  stages: Record<StepStage, number[]>
  total: number[]
}

export function stageSeries(st: StepTrace): StageSeries {
  const stages = {} as Record<StepStage, number[]>
  for (const s of STEP_STAGES) stages[s] = st.steps.map((r) => r[`${s}_us`])
  return { steps: st.steps.map((r) => r.step), stages, total: st.steps.map((r) => r.total_us) }
}

export interface CollectiveLine {
  /** `name` or `name #k` when a step runs the same collective several times. */
  label: string
  name: string
  index: number
  average_us: number
  /** Duration of this call in each step; null where the step has no such call. */
  values: (number | null)[]
}

/** Durations by (name, k-th call of that name in the step), in start order. */
function callsOf(row: StepTraceRow): Map<string, number> {
  const seen = new Map<string, number>()
  const out = new Map<string, number>()
  for (const c of [...row.collectives].sort((a, b) => a.start_us - b.start_us)) {
    const k = seen.get(c.name) ?? 0
    seen.set(c.name, k + 1)
    out.set(`${c.name}\u0000${k}`, c.duration_us)
  }
  return out
}

/**
 * The `limit` longest collectives on average (as the section keys them: name and call
 * index), each with its duration per step; the lines of the per-step chart.
 */
export function collectiveLines(st: StepTrace, limit: number): CollectiveLine[] {
  const top = [...st.average.collectives].sort((a, b) => b.duration_us - a.duration_us).slice(0, limit)
  const multi = new Set(
    st.average.collectives.filter((c) => c.index > 0).map((c) => c.name),
  )
  const perStep = st.steps.map(callsOf)
  return top.map((c) => ({
    label: multi.has(c.name) ? `${c.name} #${c.index + 1}` : c.name,
    name: c.name,
    index: c.index,
    average_us: c.duration_us,
    values: perStep.map((m) => m.get(`${c.name}\u0000${c.index}`) ?? null),
  }))
}

/**
 * Time in each step during which some collective runs (the union of the calls, clipped to
 * the step): overlapping calls on parallel streams count once, so it never exceeds the step.
 */
export function collectiveSums(st: StepTrace): number[] {
  return st.steps.map((r) => {
    const calls = r.collectives
      .map((c) => [Math.max(c.start_us, r.start_us), Math.min(c.end_us, r.end_us)] as const)
      .filter(([a, b]) => b > a)
      .sort((x, y) => x[0] - y[0])
    let total = 0
    let end = -Infinity
    for (const [a, b] of calls) {
      if (b <= end) continue
      total += b - Math.max(a, end)
      end = b
    }
    return total
  })
}

export interface StepView {
  /** The step's name, or null for the average. */
  step: string | null
  total_us: number
  stages: Record<StepStage, number>
  fp_op: string | null
  bp_op: string | null
  /** Collectives relative to the step start (us), packed into lanes; empty for the average. */
  lanes: { name: string; start_us: number; end_us: number; duration_us: number }[][]
  /** The average: each collective's mean duration (no positions). */
  averages: { name: string; index: number; duration_us: number }[]
}

/** One step by name, or the average when `step` is empty or unknown. */
export function stepView(st: StepTrace, step: string, maxLanes = 6): StepView {
  const row = step ? st.steps.find((r) => r.step === step) : undefined
  if (!row) {
    const a = st.average
    return {
      step: null,
      total_us: a.total_us,
      stages: { iteration_interval: a.iteration_interval_us, fp_and_bp: a.fp_and_bp_us, tail: a.tail_us },
      fp_op: st.fp_point.name,
      bp_op: st.bp_point.name,
      lanes: [],
      averages: a.collectives,
    }
  }
  const rel = row.collectives.map((c) => ({
    name: c.name,
    start_us: c.start_us - row.start_us,
    end_us: c.end_us - row.start_us,
    duration_us: c.duration_us,
  }))
  return {
    step: row.step,
    total_us: row.total_us,
    stages: { iteration_interval: row.iteration_interval_us, fp_and_bp: row.fp_and_bp_us, tail: row.tail_us },
    fp_op: row.fp_op || null,
    bp_op: row.bp_op || null,
    lanes: packLanes(rel, maxLanes),
    averages: [],
  }
}

/**
 * Intervals into as few lanes as possible (first lane they fit in, by start); those that
 * fit in none of `maxLanes` lanes go to the last one, overlapping.
 */
export function packLanes<T extends { start_us: number; end_us: number }>(items: T[], maxLanes: number): T[][] {
  const lanes: T[][] = []
  const ends: number[] = []
  for (const it of [...items].sort((a, b) => a.start_us - b.start_us || a.end_us - b.end_us)) {
    let k = ends.findIndex((e) => e <= it.start_us)
    if (k < 0 && lanes.length < maxLanes) {
      lanes.push([])
      ends.push(-Infinity)
      k = lanes.length - 1
    }
    if (k < 0) k = lanes.length - 1
    lanes[k].push(it)
    ends[k] = Math.max(ends[k], it.end_us)
  }
  return lanes
}

/** Whether every step split at the same FP and BP operators (else the table shows them). */
export function pointsVary(st: StepTrace): boolean {
  const fp = new Set(st.steps.map((r) => r.fp_op))
  const bp = new Set(st.steps.map((r) => r.bp_op))
  return fp.size > 1 || bp.size > 1
}

/** Event kinds of host operator-tree ranges (model/kinds.py OP_TREE_KINDS): CPU op, user annotation, Python. */
export const HOST_OP_KINDS = [1, 2, 4]

/** What `timeline/search` answers, as far as the point picker needs it. */
export interface NameSearch {
  names: string[]
  events: { name: number[]; kind: number[] }
}

/**
 * Type-ahead names for a point: operator names first (the operators API, by host time), then
 * host ranges found by the timeline search (annotations such as `forward` or
 * `Optimizer.step#...` that the operator table leaves out); device work is not a point.
 */
export function pointSuggestions(operators: string[], search: NameSearch | null, limit = 30): string[] {
  const out = new Set(operators)
  if (search) {
    search.events.name.forEach((code, i) => {
      if (HOST_OP_KINDS.includes(search.events.kind[i]) && search.names[code] !== undefined) out.add(search.names[code])
    })
  }
  return [...out].slice(0, limit)
}

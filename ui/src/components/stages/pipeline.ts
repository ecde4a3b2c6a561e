/**
 * The data pipeline section as the page shows it: MindInsight's flow (processing -> host
 * queue -> transmission -> chip queue -> GetNext) with empty-queue ratios, the MindData
 * op graph laid out source-to-root, what a `focus` names, and the DataLoader wait per step
 * against the step time. Pure, for unit tests.
 */
import type { DataPipeline, DataWait, PipelineOp, QueueSteps, QueueSummary } from '@/api/stages'

/** MindInsight's rule: a host queue empty in more than this share of steps starves. */
export const HOST_EMPTY_LIMIT = 0.3

export type FlowKey = 'processing' | 'host_queue' | 'transmission' | 'chip_queue' | 'getnext'
/** `warn`: the queues are fed but some pipeline ops are flagged slow. */
export type FlowStatus = 'ok' | 'warn' | 'bad' | 'missing'

export interface FlowNode {
  key: FlowKey
  kind: 'stage' | 'queue'
  status: FlowStatus
  /** Queues: empty steps, samples and the rates (null when unknown). */
  empty?: number
  samples?: number
  emptyRate?: number | null
  fullRate?: number | null
  /** Stages: a mean time per step (transmission: push; GetNext: its wait). */
  value_us?: number | null
}

function mean(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x))
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null
}

function queueNode(key: 'host_queue' | 'chip_queue', q: QueueSummary | undefined): FlowNode {
  if (!q || !q.samples) return { key, kind: 'queue', status: 'missing' }
  const bad = key === 'host_queue' ? q.empty > q.samples * HOST_EMPTY_LIMIT : q.empty > 0
  return {
    key, kind: 'queue', status: bad ? 'bad' : 'ok', empty: q.empty, samples: q.samples,
    emptyRate: q.empty_rate, fullRate: q.full_rate,
  }
}

/** The five boxes of the flow; the verdict's bottleneck stage is `bad`. */
export function flowNodes(dp: DataPipeline, qs: QueueSteps | null): FlowNode[] {
  const by = new Map(dp.queues.map((q) => [q.name, q]))
  const bottleneck = dp.verdict?.bottleneck
  const slowOps = (dp.pipeline_verdict?.ops.length ?? 0) > 0
  const push = qs?.times[0] ? mean(qs.times[0].push_us) : null
  const stage = (key: FlowKey, has: boolean, bad: boolean, value_us?: number | null): FlowNode => ({
    key, kind: 'stage', status: !has ? 'missing' : bad ? 'bad' : 'ok', value_us,
  })
  const processing = stage('processing', !!dp.ops?.length || by.has('host_queue'), bottleneck === 'data_processing')
  if (processing.status === 'ok' && slowOps) processing.status = 'warn'
  return [
    processing,
    queueNode('host_queue', by.get('host_queue')),
    stage('transmission', !!qs?.times.length, bottleneck === 'data_transmission', push),
    queueNode('chip_queue', by.get('chip_queue')),
    stage('getnext', !!qs?.chip || !!dp.data_wait, false, dp.data_wait?.average_us ?? null),
  ]
}

/** `MapOp_2`: how the advisor and MindInsight name a pipeline op. */
export function opName(op: Pick<PipelineOp, 'op_type' | 'op_id'>): string {
  return `${op.op_type}_${op.op_id}`
}

export interface GraphNode {
  op: PipelineOp
  name: string
  /** Column: sources (leaves) on the left, the root on the right. */
  x: number
  /** Row: leaves one per row in depth-first order; a parent centred on its children. */
  y: number
}

export interface PipelineLayout {
  nodes: GraphNode[]
  edges: { source: string; target: string }[]
  columns: number
  rows: number
}

/** Positions of the op tree (children point at parents; unknown parents make roots). */
export function layoutPipeline(ops: PipelineOp[]): PipelineLayout {
  const byId = new Map(ops.map((o) => [o.op_id, o]))
  const children = new Map<number, PipelineOp[]>()
  const roots: PipelineOp[] = []
  for (const o of ops) {
    if (o.parent_id === null || !byId.has(o.parent_id) || o.parent_id === o.op_id) roots.push(o)
    else children.set(o.parent_id, [...(children.get(o.parent_id) ?? []), o])
  }
  const depth = new Map<number, number>()
  const row = new Map<number, number>()
  let nextRow = 0
  const visit = (o: PipelineOp, d: number): number => {
    depth.set(o.op_id, d)
    const kids = (children.get(o.op_id) ?? []).filter((k) => !depth.has(k.op_id))
    const y = kids.length ? kids.map((k) => visit(k, d + 1)).reduce((s, v) => s + v, 0) / kids.length : nextRow++
    row.set(o.op_id, y)
    return y
  }
  for (const r of roots) visit(r, 0)
  for (const o of ops) if (!depth.has(o.op_id)) visit(o, 0) // cycles: laid out as roots
  const maxDepth = Math.max(0, ...depth.values())
  const nodes = ops.map((op) => ({ op, name: opName(op), x: maxDepth - depth.get(op.op_id)!, y: row.get(op.op_id)! }))
  const edges = ops
    .filter((o) => o.parent_id !== null && byId.has(o.parent_id) && o.parent_id !== o.op_id)
    .map((o) => ({ source: opName(o), target: opName(byId.get(o.parent_id!)!) }))
  return { nodes, edges, columns: maxDepth + 1, rows: Math.max(nextRow, 1) }
}

export type Focus = { kind: 'op'; id: number } | { kind: 'queue'; name: 'host_queue' | 'chip_queue' } | null

/** What a `focus` query names: a pipeline op (`MapOp_2`, or its id) or a queue. */
export function focusTarget(focus: string, ops: PipelineOp[] | null): Focus {
  if (focus === 'host_queue' || focus === 'chip_queue') return { kind: 'queue', name: focus }
  const op = (ops ?? []).find((o) => opName(o) === focus || String(o.op_id) === focus)
  return op ? { kind: 'op', id: op.op_id } : null
}

export interface WaitRow {
  step: string
  wait_us: number
  exposed_us: number | null
  step_us: number | null
  /** Exposed wait (else the raw wait) over the step time. */
  share: number | null
}

/** DataLoader wait per step with the step's duration (from the overview's step list). */
export function waitRows(dw: DataWait, steps: { names: string[]; durations_us: number[] } | null): WaitRow[] {
  const dur = new Map((steps?.names ?? []).map((n, i) => [n, steps!.durations_us[i]]))
  return dw.steps.map((step, i) => {
    const exposed = dw.exposed_per_step_us ? dw.exposed_per_step_us[i] : null
    const stepUs = dur.get(step) ?? null
    const part = exposed ?? dw.per_step_us[i]
    return { step, wait_us: dw.per_step_us[i], exposed_us: exposed, step_us: stepUs, share: stepUs ? part / stepUs : null }
  })
}

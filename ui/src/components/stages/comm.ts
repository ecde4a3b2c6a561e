/**
 * The communication section as the page shows it: which per-step series exist (kernel
 * traces split each step four ways; MindSpore's hccl_raw gives communication and wait
 * only), collectives with their mean and achieved bandwidth, and links as a src x dst
 * matrix. Pure, for unit tests.
 */
import type { Collective, CommStep, Communication, Link } from '@/api/stages'

/** Kernel traces: the four parts that sum to the step (the PyTorch plugin's). */
export const SPLIT_KEYS = ['computation_us', 'overlapped_us', 'exposed_communication_us', 'other_us'] as const
/** hccl_raw: what MindSpore wrote per step. */
export const HCCL_KEYS = ['communication_us', 'tool_wait_us'] as const
export type CommKey = (typeof SPLIT_KEYS)[number] | (typeof HCCL_KEYS)[number]

export interface StepSeries {
  steps: string[]
  /** True when the series stack to the step time. */
  stacked: boolean
  series: { key: CommKey; values: (number | null)[] }[]
  step_us: (number | null)[]
}

function value(row: CommStep, key: CommKey): number | null {
  const v = row[key]
  return v === undefined ? null : v
}

export function commStepSeries(c: Communication): StepSeries {
  const split = c.source === 'kernels' || c.steps.some((r) => r.computation_us !== null)
  const keys: readonly CommKey[] = split ? SPLIT_KEYS : HCCL_KEYS
  return {
    steps: c.steps.map((r) => r.step),
    stacked: split,
    series: keys
      .map((key) => ({ key, values: c.steps.map((r) => value(r, key)) }))
      .filter((s) => s.values.some((v) => v !== null)),
    step_us: c.steps.map((r) => r.step_us),
  }
}

export interface CollectiveRow extends Collective {
  mean_us: number | null
  max_us: number | null
  /** Bytes over the calls' total time, GB/s (1e9 bytes per second); null without bytes. */
  bandwidth_gbps: number | null
}

export function collectiveRows(c: Communication): CollectiveRow[] {
  return c.collectives.map((k) => ({
    ...k,
    mean_us: k.calls ? k.total_us / k.calls : null,
    max_us: k.durations_us.length ? Math.max(...k.durations_us) : null,
    bandwidth_gbps: k.bytes !== null && k.total_us > 0 ? k.bytes / (k.total_us * 1e-6) / 1e9 : null,
  }))
}

export interface LinkMatrix {
  /** Ranks on both axes, ascending. */
  ranks: number[]
  /** [dst index, src index, bandwidth] for the heat map. */
  cells: [number, number, number][]
  transports: Map<string, string>
  unit: string | null
  max: number
}

/**
 * Links with numeric ends as a src x dst matrix; null unless two or more ranks send (one
 * rank's links are a single row: the bar chart of `linkBars` reads better).
 */
export function linkMatrix(links: Link[]): LinkMatrix | null {
  const numeric = links.filter((l) => l.src !== null && l.dst !== null)
  const ranks = [...new Set(numeric.flatMap((l) => [l.src!, l.dst!]))].sort((a, b) => a - b)
  if (new Set(numeric.map((l) => l.src)).size < 2) return null
  const pos = new Map(ranks.map((r, i) => [r, i]))
  const cells: [number, number, number][] = []
  const transports = new Map<string, string>()
  for (const l of numeric) {
    cells.push([pos.get(l.dst!)!, pos.get(l.src!)!, l.bandwidth])
    transports.set(`${l.src}-${l.dst}`, l.transport)
  }
  return { ranks, cells, transports, unit: numeric[0]?.unit ?? null, max: Math.max(...cells.map((c) => c[2])) }
}

/** Communication's share of the step on average (null when unknown). */
export function commShare(c: Communication): number | null {
  const comm = c.average.communication_us
  const step = c.average.step_us
  return comm !== null && comm !== undefined && step ? comm / step : null
}

export interface LinkBars {
  links: string[]
  /** One series per transport, aligned with `links` (null where the link is another kind). */
  series: { transport: string; values: (number | null)[] }[]
  /** A log axis when bandwidths span more than 20x (local copies next to the network). */
  log: boolean
}

export function linkBars(links: Link[]): LinkBars {
  const transports = [...new Set(links.map((l) => l.transport))]
  const values = links.map((l) => l.bandwidth).filter((v) => v > 0)
  const log = values.length > 1 && Math.max(...values) / Math.min(...values) > 20
  return {
    links: links.map((l) => l.link),
    series: transports.map((transport) => ({
      transport,
      values: links.map((l) => (l.transport === transport ? l.bandwidth : null)),
    })),
    log,
  }
}

/** A link as the advisor's evidence names it: `src-dst transport`. */
export function linkKey(l: Link): string {
  return `${l.link} ${l.transport}`
}

/** The links with the one named `focus` (a `linkKey`) first; the order is kept otherwise. */
export function focusFirst(links: Link[], focus: string): Link[] {
  const at = focus ? links.findIndex((l) => linkKey(l) === focus) : -1
  return at < 0 ? links : [links[at], ...links.slice(0, at), ...links.slice(at + 1)]
}

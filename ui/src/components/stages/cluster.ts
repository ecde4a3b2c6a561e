/**
 * The cluster answer as the page shows it: one row per rank joining the communication
 * summary (`ranks`) with each worker's step-trace and parallel stages (`stages`), the
 * slowest rank with its gap to the mean, a heat map of ranks x stages relative to each
 * stage's mean, and the collectives' waiting per rank. Pure, for unit tests.
 */
import type { Cluster, ClusterRank, WorkerStages } from '@/api/stages'
import type { StepsCovered } from '@/covered'

/** Step-trace stages (every framework). */
export const TRACE_KEYS = ['iteration_interval_us', 'fp_and_bp_us', 'tail_us'] as const
/** Communication split (kernel traces) or hccl figures, from `ranks`. */
export const COMM_KEYS = ['computation_us', 'overlapped_us', 'exposed_communication_us', 'other_us', 'communication_us', 'tool_wait_us'] as const
/** MindSpore's pipeline-parallel times (ascend_cluster_analyse files). */
export const PARALLEL_KEYS = ['computation_us', 'communication_alone_us', 'stage_us', 'receive_alone_us', 'collective_communication_alone_us'] as const

export interface RankRow {
  rank: number
  worker: string | null
  /** The rank's mean step, its overview's (`stages[].step_us` = `steps.average_us`). */
  step_us: number | null
  /** Which steps that mean covers. */
  step_covered: StepsCovered | null
  gap_us: number | null
  gap_pct: number | null
  trace: WorkerStages | null
  comm: ClusterRank | null
}

function mean(values: number[]): number | null {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null
}

export function rankRows(c: Cluster): RankRow[] {
  // maps, not find(): a run can have a thousand ranks
  const comms = new Map(c.ranks.map((r) => [r.rank, r]))
  const traces = new Map<number, WorkerStages>()
  for (const s of c.stages) if (!traces.has(s.rank)) traces.set(s.rank, s)
  const ranks = new Set<number>([...comms.keys(), ...traces.keys()])
  const rows = [...ranks].sort((a, b) => a - b).map((rank) => {
    const comm = comms.get(rank) ?? null
    const trace = traces.get(rank) ?? null
    return {
      rank, worker: trace?.worker ?? null, step_us: trace?.step_us ?? null, step_covered: trace?.step_covered ?? null,
      gap_us: null as number | null, gap_pct: null as number | null, trace, comm,
    }
  })
  const m = mean(rows.map((r) => r.step_us).filter((v): v is number => v !== null))
  for (const r of rows) {
    if (m !== null && r.step_us !== null) {
      r.gap_us = r.step_us - m
      r.gap_pct = m > 0 ? (100 * r.gap_us) / m : null
    }
  }
  return rows
}

export interface Slowest {
  rank: number
  worker: string | null
  /** The rank's mean step over `compared` (the server's figure when it chose the rank). */
  step_us: number
  /** Against the mean of the other ranks over the same steps (the server's), or of all
   * ranks' averages (the step-trace fallback). */
  gap_us: number
  gap_pct: number | null
  /** The steps every rank has, over which the server compared them ([]: each rank's own
   * average). A rank's own average can cover other steps, so its row may show a shorter
   * step than a rank it beats on the compared steps: the alert says which steps. */
  compared: string[]
  /** The server's figures when it chose the rank (communication), else null. */
  over_fastest_us: number | null
  fastest_rank: number | null
  /** The server's verdict: false when the longer step is time spent waiting in
   * communication (the rank arrived early), null when it could not judge. */
  slow: boolean | null
}

/** Share above the mean (%) from which the slowest rank is a warning, not a plain fact: the
 * outlier test's 5 %; below it, a "slowest" rank is within run-to-run noise. */
export const SLOW_RANK_WARN_PCT = 5

export function slowestTone(s: Slowest): 'warning' | 'info' {
  if (s.slow === false) return 'info'
  return s.gap_pct !== null && s.gap_pct >= SLOW_RANK_WARN_PCT ? 'warning' : 'info'
}

/**
 * The server's slowest rank (by communication's step over the steps all ranks have), with
 * the server's own figures; else the longest step-trace step against the mean of all.
 * The server's figures, never the row's: the row averages the rank's own steps, which can
 * differ from the compared ones (MindSpore cluster_propose: rank 0 is slowest on step 2,
 * the only step all four ranks have, but its own 4-step average is below ranks 2 and 3's).
 */
export function slowestRank(c: Cluster, rows: RankRow[]): Slowest | null {
  if (rows.length < 2) return null
  const s = c.slowest
  if (s) {
    const row = rows.find((r) => r.rank === s.rank)
    return {
      rank: s.rank, worker: row?.worker ?? null, step_us: s.step_us, gap_us: s.over_others_us,
      gap_pct: s.over_others_pct, compared: s.steps_compared, over_fastest_us: s.over_fastest_us,
      fastest_rank: s.fastest_rank, slow: s.slow,
    }
  }
  const pick = [...rows].filter((r) => r.step_us !== null).sort((a, b) => b.step_us! - a.step_us!)[0]
  if (!pick || pick.step_us === null || pick.gap_us === null) return null
  return {
    rank: pick.rank, worker: pick.worker, step_us: pick.step_us, gap_us: pick.gap_us, gap_pct: pick.gap_pct,
    compared: [], over_fastest_us: null, fastest_rank: null, slow: null,
  }
}

/** Keys of `group` that some rank has a value for, in order. */
export function presentKeys<K extends string>(rows: RankRow[], keys: readonly K[], from: 'trace' | 'comm'): K[] {
  return keys.filter((k) => rows.some((r) => {
    const src = r[from] as Record<string, unknown> | null
    return src !== null && typeof src[k] === 'number'
  }))
}

export function valueOf(r: RankRow, key: string, from: 'trace' | 'comm'): number | null {
  const src = r[from] as Record<string, unknown> | null
  const v = src?.[key]
  return typeof v === 'number' ? v : null
}

/**
 * Heat map cells [stage index, rank index, value relative to the stage's mean across
 * ranks (1 = the mean)], with the raw values for labels; stages without values are left out.
 */
export function heatCells(rows: RankRow[], keys: { key: string; from: 'trace' | 'comm' }[]): {
  cells: [number, number, number][]
  raw: Map<string, number>
} {
  const cells: [number, number, number][] = []
  const raw = new Map<string, number>()
  keys.forEach(({ key, from }, x) => {
    const vals = rows.map((r) => valueOf(r, key, from))
    const m = mean(vals.filter((v): v is number => v !== null))
    vals.forEach((v, y) => {
      if (v === null) return
      raw.set(`${x},${y}`, v)
      cells.push([x, y, m ? v / m : 1])
    })
  })
  return { cells, raw }
}

/** Per rank: total waiting over all matched collectives, and the transfer time they share. */
export function waitingByRank(c: Cluster): { rank: number; waiting_us: number; transfer_us: number }[] {
  const out = new Map<number, { waiting_us: number; transfer_us: number }>()
  for (const k of c.collectives) {
    if (!k.waiting_us) continue
    k.ranks.forEach((rank, i) => {
      const e = out.get(rank) ?? { waiting_us: 0, transfer_us: 0 }
      e.waiting_us += k.waiting_us![i]
      e.transfer_us += k.transfer_us ?? 0
      out.set(rank, e)
    })
  }
  return [...out.entries()].sort((a, b) => a[0] - b[0]).map(([rank, e]) => ({ rank, ...e }))
}

/** The page (1-based) of the rank table that holds `rank`, `perPage` rows a page; 1 if none. */
export function rankPageOf(rows: RankRow[], rank: number, perPage: number): number {
  const at = rows.findIndex((r) => r.rank === rank)
  return at < 0 ? 1 : Math.floor(at / perPage) + 1
}

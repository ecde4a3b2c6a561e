/**
 * Reading a diff (this run = before, the other = after): the change of each row in
 * percent, whether it got slower or faster, the breakdown categories worth drawing, and
 * the other run's workers. Pure, unit-tested.
 */
import type { Change } from '@/api/tables'
import type { Run } from '@/api/types'

export type Trend = 'slower' | 'faster' | 'same'

/** The change in percent of the before value; null when there was nothing before. */
export function changePct(c: Change): number | null {
  return c.before_us ? (100 * c.delta_us) / c.before_us : null
}

/** More time is slower. Changes under `tolerance` (share of before) or 1 µs are the same. */
export function trend(c: Change, tolerance = 0.005): Trend {
  const limit = Math.max(1, Math.abs(c.before_us) * tolerance)
  if (Math.abs(c.delta_us) < limit) return 'same'
  return c.delta_us > 0 ? 'slower' : 'faster'
}

/** Where a row exists: in both runs, only in this one (gone), only in the other (new). */
export function presence(c: Change): 'both' | 'gone' | 'new' {
  if (c.before_us && !c.after_us) return 'gone'
  if (!c.before_us && c.after_us) return 'new'
  return 'both'
}

export interface BreakdownBars {
  names: string[]
  before: number[]
  after: number[]
  delta: number[]
}

/** Categories with time in either run, in `order` (others after, as given). */
export function breakdownBars(changes: Change[], order: readonly string[]): BreakdownBars {
  const rank = (name: string) => {
    const i = order.indexOf(name)
    return i === -1 ? order.length : i
  }
  const kept = changes
    .filter((c) => c.before_us > 0 || c.after_us > 0)
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c.name) - rank(b.c.name) || a.i - b.i)
    .map(({ c }) => c)
  return {
    names: kept.map((c) => c.name),
    before: kept.map((c) => c.before_us),
    after: kept.map((c) => c.after_us),
    delta: kept.map((c) => c.delta_us),
  }
}

/** The runs one can compare with (analysed ones), this run first. */
export function comparableRuns(runs: Run[], current: string): Run[] {
  const ready = runs.filter((r) => r.state === 'ready' || r.id === current)
  return [...ready.filter((r) => r.id === current), ...ready.filter((r) => r.id !== current)]
}

/**
 * The worker to compare with when none is chosen: in this same run, the first other
 * worker; in another run, its worker of the same name if it has one, else its first.
 */
export function defaultOtherWorker(other: Run | undefined, current: string, worker: string | undefined): string | undefined {
  if (!other) return undefined
  if (other.id === current) return other.workers.find((w) => w !== worker) ?? other.workers[0]
  return worker && other.workers.includes(worker) ? worker : other.workers[0]
}

/**
 * Counter tracks (memory, device busy share) as the track view shows them: one per series
 * of the whole-trace answer, under the threads of its process group, each a step chart
 * whose value holds from one point to the next (analysis/timeline/counters.py: memory
 * points are each bucket's maximum, so a peak is never averaged away). Pure: the label,
 * the value under the cursor and the maximum in view are unit-tested without a canvas.
 */
import { formatBytes, formatShare } from '@/format'
import type { CounterSeries } from './types'

/** What identifies a series across windows (the values change, the series do not). */
export function counterKey(s: Pick<CounterSeries, 'group' | 'name' | 'device'>): string {
  return `${s.group}\u0000${s.name}\u0000${s.device}`
}

/** The track's name in the page's language: "Memory allocated (CUDA:0)", "Device busy". */
export function counterLabel(s: Pick<CounterSeries, 'name' | 'device'>, word: (name: string) => string): string {
  const name = word(s.name)
  return s.device ? `${name} (${s.device})` : name
}

/** A value in its unit: bytes as KiB/MiB/GiB, a ratio as a percentage. */
export function formatCounter(unit: string, value: number): string {
  if (unit === 'bytes') return formatBytes(value)
  if (unit === 'ratio') return formatShare(value, value > 0 && value < 0.001 ? 2 : 1)
  return String(value)
}

/** Index of the point in force at `ns` (the last at or before it); -1 before the first. */
export function pointAt(times: readonly number[], ns: number): number {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (times[mid] <= ns) lo = mid + 1
    else hi = mid
  }
  return lo - 1
}

/** The value in force at `ns`, or null before the series starts. */
export function valueAt(s: Pick<CounterSeries, 'times' | 'values'>, ns: number): number | null {
  const i = pointAt(s.times, ns)
  return i >= 0 ? s.values[i] : null
}

/** The largest value the curve takes in [t0, t1) (the one in force at t0 included); null if none. */
export function maxIn(s: Pick<CounterSeries, 'times' | 'values'>, t0: number, t1: number): number | null {
  let i = Math.max(0, pointAt(s.times, t0))
  let top: number | null = null
  for (; i < s.times.length && s.times[i] < t1; i++) {
    if (s.times[i + 1] !== undefined && s.times[i + 1] <= t0) continue
    if (top === null || s.values[i] > top) top = s.values[i]
  }
  return top
}

/** The series of each counter key in an answer (a lookup built once per scene). */
export function seriesByKey(series: readonly CounterSeries[]): Map<string, CounterSeries> {
  return new Map(series.map((s) => [counterKey(s), s]))
}

/** The counters of an answer as the layout places them, labelled with `word` (the page's language). */
export function counterSpecs(series: readonly CounterSeries[] | undefined, word: (name: string) => string) {
  return (series ?? []).map((s) => ({
    key: counterKey(s),
    series: { group: s.group, name: s.name, device: s.device, unit: s.unit },
    label: counterLabel(s, word),
    title: word(s.name),
  }))
}

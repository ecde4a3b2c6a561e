/**
 * The time axis: tick spacing of 1, 2 or 5 x 10^k ns with labels that never overlap, and
 * labels that stay exact at any zoom ("12 s 340 ms 5 µs"), the way Perfetto writes them:
 * a 1 µs step at 12 s into a trace cannot be written in seconds with a few decimals.
 */
import type { Viewport } from './viewport'
import { nsToPx } from './viewport'

export interface Tick {
  ns: number
  px: number
  label: string
}

const UNITS: [number, string][] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
]

/** The smallest 1/2/5 x 10^k ns step at least `minNs` long. */
export function niceStep(minNs: number): number {
  if (!(minNs > 1)) return 1
  const pow = 10 ** Math.floor(Math.log10(minNs))
  for (const m of [1, 2, 5, 10]) if (m * pow >= minNs) return m * pow
  return 10 * pow
}

/**
 * `ns` written in whole units down to the unit of `stepNs`, zero parts left out:
 * `formatTick(12_340_005_000, 1000)` is "12 s 340 ms 5 µs"; 0 is "0".
 */
export function formatTick(ns: number, stepNs: number): string {
  const rounded = Math.round(ns)
  if (rounded === 0) return '0'
  const sign = rounded < 0 ? '-' : ''
  let rest = Math.abs(rounded)
  const smallest = UNITS.find(([size]) => stepNs >= size)?.[0] ?? 1
  const parts: string[] = []
  for (const [size, unit] of UNITS) {
    if (size < smallest) break
    const whole = Math.floor(rest / size)
    rest -= whole * size
    if (whole) parts.push(`${whole} ${unit}`)
  }
  return sign + (parts.length ? parts.join(' ') : '0')
}

/** Rough label width in px at the axis font (11 px sans-serif), for spacing ticks. */
export function labelWidth(label: string): number {
  return label.length * 6.4 + 12
}

/**
 * Ticks of the view over `widthPx`: the step grows until the longest label fits between
 * two ticks, so labels never overlap at any zoom.
 */
export function ticks(v: Viewport, widthPx: number, minPx = 60): Tick[] {
  const span = v.t1 - v.t0
  if (!(span > 0) || !(widthPx > 0)) return []
  let step = niceStep((span * minPx) / widthPx)
  for (let guard = 0; guard < 40; guard++) {
    const longest = Math.max(labelWidth(formatTick(v.t0, step)), labelWidth(formatTick(v.t1, step)))
    if ((step * widthPx) / span >= longest) break
    step = niceStep(step * 1.5)
  }
  const out: Tick[] = []
  for (let ns = Math.ceil(v.t0 / step) * step; ns <= v.t1; ns += step) {
    out.push({ ns, px: nsToPx(v, widthPx, ns), label: formatTick(ns, step) })
  }
  return out
}

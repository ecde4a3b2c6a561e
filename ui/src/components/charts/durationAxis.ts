/**
 * A value axis of durations (µs) whose tick labels always differ: the unit comes from the
 * axis' largest tick and the decimals from its interval, so 1.0 s, 1.2 s, 1.4 s (never
 * "1 s, 1 s", as a per-label rounding to whole units gave on an H100 run's second-long
 * steps), 0.5 ms ... 3.0 ms, 10 µs ... 50 µs. The ticks are computed here (ECharts'
 * formatter is not told the interval): from 0 to a nice bound in about five steps.
 */

const UNITS: [scale: number, name: string][] = [
  [1e6, 's'],
  [1e3, 'ms'],
  [1, 'µs'],
]

/** A step of 1, 2, 2.5 or 5 times a power of ten that splits [0, max] in about `splits`. */
export function niceStep(max: number, splits = 5): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1
  const raw = max / splits
  const mag = 10 ** Math.floor(Math.log10(raw))
  const n = raw / mag
  const m = n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10
  return m * mag
}

/** The unit of an axis whose largest tick is `top` (µs). */
export function axisUnit(top: number): [scale: number, name: string] {
  const a = Math.abs(top)
  return UNITS.find(([scale]) => a >= scale) ?? UNITS[UNITS.length - 1]
}

/** The fewest decimals that write every multiple of `step` (in the unit) exactly. */
export function stepDecimals(step: number): number {
  for (let d = 0; d < 6; d++) {
    const scaled = step * 10 ** d
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d
  }
  return 6
}

/** One tick's label on an axis of this interval and largest tick (all µs). */
export function durationTick(us: number, interval: number, top: number): string {
  if (us === 0) return '0'
  const [scale, name] = axisUnit(top)
  return `${(us / scale).toFixed(stepDecimals(interval / scale))} ${name}`
}

/** The labels of the ticks 0, interval, ... up to `top`. */
export function durationTicks(interval: number, top: number): string[] {
  const n = Math.round(top / interval)
  return Array.from({ length: n + 1 }, (_, k) => durationTick(k * interval, interval, top))
}

/** An ECharts value axis over [0, max] µs (max: the largest value drawn, stacks summed). */
export function durationAxis(max: number, splits = 5): Record<string, unknown> {
  const interval = niceStep(max, splits)
  const top = Math.max(interval, Math.ceil(max / interval - 1e-9) * interval)
  return {
    type: 'value',
    min: 0,
    max: top,
    interval,
    axisLabel: { formatter: (v: number) => durationTick(v, interval, top) },
  }
}

/** The largest total of stacked series at any index (each series one value per category). */
export function stackedMax(series: ArrayLike<number | null | undefined>[]): number {
  let best = 0
  const n = Math.max(0, ...series.map((s) => s.length))
  for (let i = 0; i < n; i++) {
    let sum = 0
    for (const s of series) sum += Math.max(0, s[i] ?? 0)
    best = Math.max(best, sum)
  }
  return best
}

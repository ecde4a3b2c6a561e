/**
 * The MindData CPU sampling as chart data: one line per series (percent per sample), the
 * x axis the samples labelled with their step where the host queue log placed them, and
 * the per-step means as bars. Pure, unit-tested.
 */
import type { CpuCurves } from '@/api/stages'

export const SERIES_ORDER = ['device_user', 'device_sys', 'device_io', 'device_idle', 'process_user', 'process_sys'] as const

export interface CpuLines {
  /** x labels: "#1" or "#1 · step 3" (value i belongs to time stamp i + 1). */
  labels: string[]
  lines: { key: string; values: (number | null)[] }[]
}

export function cpuLines(c: CpuCurves): CpuLines {
  const n = c.samples
  const labels = Array.from({ length: n }, (_, i) => {
    const step = c.sample_steps?.[i]
    return step === undefined ? `#${i + 1}` : `#${i + 1} · ${step}`
  })
  const lines = SERIES_ORDER.filter((k) => k in c.series).map((key) => {
    const v = c.series[key]
    return { key, values: Array.from({ length: n }, (_, i) => (i < v.length ? v[i] : null)) }
  })
  return { labels, lines }
}

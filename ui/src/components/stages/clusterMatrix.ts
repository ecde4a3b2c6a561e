/**
 * The cluster page's views that must stay readable with hundreds of ranks: the
 * communication matrix as heat-map cells (only links that exist, so its size follows the
 * links, not ranks squared), the outlier rows, and how much of a long rank axis to show.
 * Pure, for unit tests.
 */
import type { CommMatrix } from '@/api/stages'

/** Ranks shown at once on a rank axis before it scrolls (with a zoom slider). */
export const RANKS_IN_VIEW = 24

export interface MatrixCells {
  devices: number[]
  /** [x = dst index, y = src index, bandwidth] */
  cells: [number, number, number][]
  min: number
  max: number
  unit: string | null
}

export function matrixCells(matrix: CommMatrix, transport: string): MatrixCells | null {
  const t = matrix.transports.find((x) => x.transport === transport)
  if (!t || t.src.length === 0) return null
  const devices = [...new Set([...t.src, ...t.dst])].sort((a, b) => a - b)
  const at = new Map(devices.map((d, i) => [d, i]))
  const cells = t.src.map((s, i): [number, number, number] => [at.get(t.dst[i])!, at.get(s)!, t.bandwidth[i]])
  const values = t.bandwidth
  return { devices, cells, min: Math.min(...values), max: Math.max(...values), unit: t.unit }
}

/** The transport to show first: the one with most links (the interconnect, not LOCAL). */
export function defaultTransport(matrix: CommMatrix): string | null {
  const ranked = [...matrix.transports].sort((a, b) => b.src.length - a.src.length ||
    Number(a.transport === 'LOCAL') - Number(b.transport === 'LOCAL'))
  return ranked[0]?.transport ?? null
}

/** ECharts dataZoom for a category axis of `n` entries: none when they fit, else a window. */
export function axisZoom(n: number, axis: 'x' | 'y'): Record<string, unknown>[] {
  if (n <= RANKS_IN_VIEW) return []
  const end = Math.min(100, (100 * RANKS_IN_VIEW) / n)
  const which = axis === 'y' ? { yAxisIndex: 0 } : { xAxisIndex: 0 }
  return [
    { type: 'inside', ...which, start: 0, end, zoomOnMouseWheel: false, moveOnMouseWheel: true },
    { type: 'slider', ...which, start: 0, end, width: axis === 'y' ? 14 : undefined, height: axis === 'x' ? 14 : undefined,
      ...(axis === 'y' ? { right: 4 } : { bottom: 4 }) },
  ]
}

/** Height of a chart with one row per rank, capped so a thousand ranks scroll instead. */
export function rankChartHeight(n: number, rowPx = 28, extraPx = 140): string {
  return `${Math.max(240, Math.min(n, RANKS_IN_VIEW) * rowPx + extraPx)}px`
}

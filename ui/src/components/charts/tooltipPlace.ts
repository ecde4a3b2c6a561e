/**
 * Where a chart's tooltip goes so that all of it is on screen: beside the pointer (right,
 * or left when the right has no room), vertically centred on it, then pushed inside the
 * viewport. A step's stacked bar lists a dozen rows; near the top of the page ECharts'
 * default placement put the first rows above the window (and the card clipped them).
 * Coordinates are the chart's (what ECharts' `tooltip.position` returns); `chart` is where
 * the chart's box starts in the viewport.
 */

export type Pair = [number, number]

const GAP = 14
const MARGIN = 4

export function tooltipPlace(pointer: Pair, content: Pair, chart: Pair, viewport: Pair): Pair {
  const [px, py] = pointer
  const [w, h] = content
  const [cx, cy] = chart
  const [vw, vh] = viewport
  // in viewport coordinates first
  const x0 = cx + px
  let x = x0 + GAP
  if (x + w > vw - MARGIN) x = x0 - GAP - w // no room on the right: the left
  x = clamp(x, MARGIN, vw - MARGIN - w)
  const y = clamp(cy + py - h / 2, MARGIN, vh - MARGIN - h)
  return [Math.round(x - cx), Math.round(y - cy)]
}

/** `v` within [lo, hi]; `lo` when the range is empty (a tooltip taller than the window keeps its top). */
function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(v, hi))
}

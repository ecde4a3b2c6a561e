/**
 * Finding an item in one row: the row's items are sorted by start and do not overlap
 * (nested ranges of one depth, or merged buckets), so the item at a time is a binary
 * search away, whatever the number of items.
 */

/** Last position in `order` whose start is <= ns (-1 when none). */
export function predecessor(order: number[], start: number[], ns: number): number {
  let lo = 0
  let hi = order.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (start[order[mid]] <= ns) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** Distance in ns from `ns` to [start, start + dur] (0 inside). */
function distance(start: number, dur: number, ns: number): number {
  return Math.max(0, start - ns, ns - (start + Math.max(dur, 0)))
}

/** The item of `order` nearest to `ns` within `tolNs`, as [position, distance]. */
export function nearestInRow(order: number[], start: number[], dur: number[], ns: number,
  tolNs: number): [number, number] | null {
  const p = predecessor(order, start, ns)
  let best: [number, number] | null = null
  for (const k of [p - 1, p, p + 1]) {
    if (k < 0 || k >= order.length) continue
    const i = order[k]
    const d = distance(start[i], dur[i], ns)
    if (d <= tolNs && (!best || d < best[1])) best = [i, d]
  }
  return best
}

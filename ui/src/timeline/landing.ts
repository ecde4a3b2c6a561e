/**
 * Landing on an evidence link: which vertical scroll brings its tracks into view, and which
 * tracks a frame shows whole. The link names the tracks that hold the evidence's work, the
 * device's first (the server's `tracks`, see analysis/timeline/locate.py): all of them when
 * they fit one screen, else the first at the top. Pure, so it is unit-tested on layouts.
 */
import type { Layout } from './layout'

/** Content px [top, bottom) of a track as drawn: with its group's header (which names the
 * device), or the header alone when the group is folded. */
function trackSpan(layout: Layout, track: number): [number, number] | null {
  const found = layout.byTrack.get(track)
  if (!found) return null
  const { group, box } = found
  if (group.collapsed) return [group.y, group.y + layout.geometry.headerH]
  const top = group.tracks[0] === box ? group.y : box.y
  return [top, box.y + box.height]
}

/**
 * The scroll (content px at the top of the visible rows) that shows `tracks` in a view
 * `visibleH` px high: unchanged when they are already in view, else all of them from the
 * topmost when they fit, else the first one (the device's) at the top; null when the layout
 * has none of them.
 */
export function scrollToShow(layout: Layout, tracks: number[], visibleH: number, current: number): number | null {
  const spans = tracks.map((t) => trackSpan(layout, t)).filter((s): s is [number, number] => s !== null)
  if (!spans.length) return null
  const lo = Math.min(...spans.map((s) => s[0]))
  const hi = Math.max(...spans.map((s) => s[1]))
  const [want0, want1] = hi - lo <= visibleH ? [lo, hi] : spans[0]
  if (want0 >= current && want1 <= current + visibleH) return current
  const most = Math.max(0, layout.height - visibleH)
  return Math.min(most, Math.max(0, want0))
}

/** The tracks whose rows are wholly in view at `scrollTop` (folded groups show none). */
export function tracksInView(layout: Layout, scrollTop: number, visibleH: number): number[] {
  const out: number[] = []
  for (const group of layout.groups) {
    if (group.collapsed) continue
    for (const box of group.tracks) {
      if (box.y >= scrollTop && box.y + box.height <= scrollTop + visibleH) out.push(box.track.id)
    }
  }
  return out
}

/**
 * The evidence's mark on the track view: its time range as a tinted band over every row
 * with a strong edge on each side and a strip on the time axis, and its tracks' labels
 * tinted with an accent bar, so the eye finds the range and the rows that hold its work.
 */
import type { Frame } from './drawItems'
import { nsToPx, type Viewport } from './viewport'

export const MARK_COLORS = {
  band: 'rgba(255, 196, 0, 0.16)',
  edge: 'rgba(214, 140, 0, 0.95)',
  label: 'rgba(255, 196, 0, 0.28)',
  accent: '#d68c00',
}

/** The range's x extent in canvas px, clipped to the time area; null when out of view. */
export function markSpan(f: Frame, mark: Viewport): [number, number] | null {
  const a = f.x0 + nsToPx(f.view, f.timeW, mark.t0)
  const b = f.x0 + nsToPx(f.view, f.timeW, mark.t1)
  const end = f.x0 + f.timeW
  if (b < f.x0 || a > end) return null
  return [Math.max(f.x0, a), Math.min(end, Math.max(b, a + 1))]
}

/** The band behind the items (drawn before them). */
export function drawMarkBand(ctx: CanvasRenderingContext2D, f: Frame, mark: Viewport): void {
  const span = markSpan(f, mark)
  if (!span) return
  ctx.fillStyle = MARK_COLORS.band
  ctx.fillRect(span[0], f.top, span[1] - span[0], f.s.height - f.top)
}

/** The edges, the axis strip and the tracks' labels (drawn after the labels and axis). */
export function drawMarkEdges(ctx: CanvasRenderingContext2D, f: Frame, mark: Viewport | null,
  tracks: ReadonlySet<number>): void {
  const g = f.layout.geometry
  for (const id of tracks) {
    const found = f.layout.byTrack.get(id)
    if (!found || found.group.collapsed) continue
    // clipped under the axis strip: a track scrolled half out of view must not tint it
    const y = Math.max(f.top, f.top + found.box.y - f.s.scrollTop)
    const h = f.top + found.box.y - f.s.scrollTop + found.box.height - 1 - y
    if (y > f.s.height || h <= 0) continue
    ctx.fillStyle = MARK_COLORS.label
    ctx.fillRect(0, y, g.labelW - 1, h)
    ctx.fillStyle = MARK_COLORS.accent
    ctx.fillRect(0, y, 4, h)
  }
  const span = mark && markSpan(f, mark)
  if (!span) return
  ctx.fillStyle = MARK_COLORS.edge
  const left = mark!.t0 >= f.view.t0
  const right = mark!.t1 <= f.view.t1
  if (left) ctx.fillRect(Math.round(span[0]) - 1, f.top, 2, f.s.height - f.top)
  if (right) ctx.fillRect(Math.round(span[1]) - 1, f.top, 2, f.s.height - f.top)
  ctx.fillRect(span[0], g.axisH - 4, span[1] - span[0], 4)
}

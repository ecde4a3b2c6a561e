/**
 * The visible time window and the mouse/key gestures that move it. Pure arithmetic on
 * ns relative to the trace's origin, so zoom-around-the-cursor and clamping are unit-tested
 * without a canvas.
 */

/** The visible window [t0, t1) in ns from the trace's origin. */
export interface Viewport {
  t0: number
  t1: number
}

/** How far the view may go: the trace (and any window a link opened). */
export interface Bounds {
  lo: number
  hi: number
}

/** The narrowest window: a few ns per pixel is finer than any profiler's clock. */
export const MIN_SPAN_NS = 100
/** One W/S press zooms by this factor; one A/D press pans by this share of the window. */
export const KEY_ZOOM = 1.35
export const KEY_PAN = 0.2

export function spanOf(v: Viewport): number {
  return v.t1 - v.t0
}

export function nsToPx(v: Viewport, widthPx: number, ns: number): number {
  return ((ns - v.t0) * widthPx) / (v.t1 - v.t0)
}

export function pxToNs(v: Viewport, widthPx: number, px: number): number {
  return v.t0 + (px * (v.t1 - v.t0)) / widthPx
}

/** `v` moved (not resized) into `bounds`, and no narrower than `minSpan` nor wider than them. */
export function clampView(v: Viewport, bounds: Bounds, minSpan = MIN_SPAN_NS): Viewport {
  const full = bounds.hi - bounds.lo
  let span = Math.min(Math.max(spanOf(v), minSpan), full)
  if (!(span > 0)) span = Math.max(full, minSpan)
  let t0 = v.t0 + (spanOf(v) - span) / 2
  if (t0 < bounds.lo) t0 = bounds.lo
  if (t0 + span > bounds.hi) t0 = Math.max(bounds.lo, bounds.hi - span)
  return { t0, t1: t0 + span }
}

/**
 * Zoom by `factor` (< 1 zooms in) keeping the time under `anchor` (a fraction of the
 * width, 0 = left edge) under it, as far as the bounds allow.
 */
export function zoomAt(v: Viewport, factor: number, anchor: number, bounds: Bounds,
  minSpan = MIN_SPAN_NS): Viewport {
  const full = bounds.hi - bounds.lo
  const span = Math.min(Math.max(spanOf(v) * factor, minSpan), full)
  const at = v.t0 + anchor * spanOf(v)
  return clampView({ t0: at - anchor * span, t1: at - anchor * span + span }, bounds, minSpan)
}

/** Pan by `deltaNs` (positive: later), stopping at the bounds. */
export function panBy(v: Viewport, deltaNs: number, bounds: Bounds): Viewport {
  const span = spanOf(v)
  let t0 = v.t0 + deltaNs
  t0 = Math.min(Math.max(t0, bounds.lo), Math.max(bounds.lo, bounds.hi - span))
  return { t0, t1: t0 + span }
}

export type KeyAction = 'zoomIn' | 'zoomOut' | 'panLeft' | 'panRight'

/** Perfetto's keys: W/S zoom in/out, A/D pan left/right (any case; by key position on layouts without those letters). */
export function keyAction(key: string, code = ''): KeyAction | null {
  const typed = key.toLowerCase()
  const k = 'wasd'.includes(typed) && typed.length === 1 ? typed : code.replace(/^Key/, '').toLowerCase()
  switch (k) {
    case 'w': return 'zoomIn'
    case 's': return 'zoomOut'
    case 'a': return 'panLeft'
    case 'd': return 'panRight'
    default: return null
  }
}

/** The view after one key press, zooming around `anchor` (fraction of the width). */
export function applyKey(v: Viewport, action: KeyAction, anchor: number, bounds: Bounds,
  strong = false): Viewport {
  const zoom = strong ? KEY_ZOOM * KEY_ZOOM : KEY_ZOOM
  const pan = (strong ? 2 : 1) * KEY_PAN * spanOf(v)
  switch (action) {
    case 'zoomIn': return zoomAt(v, 1 / zoom, anchor, bounds)
    case 'zoomOut': return zoomAt(v, zoom, anchor, bounds)
    case 'panLeft': return panBy(v, -pan, bounds)
    case 'panRight': return panBy(v, pan, bounds)
  }
}

/** Zoom factor of one wheel event: a notch (100 px) zooms by about 1.2x, fast flicks capped. */
export function wheelFactor(deltaY: number, deltaMode = 0): number {
  const px = deltaMode === 1 ? deltaY * 40 : deltaMode === 2 ? deltaY * 800 : deltaY
  return Math.exp(Math.max(-300, Math.min(300, px)) * 0.0018)
}

/**
 * A window that shows an event: the view itself when the event is already comfortably
 * visible, else the event in the middle third (or a window of `minSpan` around it).
 */
export function focusWindow(startNs: number, durNs: number, v: Viewport | null, bounds: Bounds,
  minSpan = MIN_SPAN_NS): Viewport {
  const end = startNs + Math.max(durNs, 0)
  if (v && startNs >= v.t0 && end <= v.t1 && durNs * 200 >= spanOf(v)) return v
  const span = Math.max(durNs * 3, minSpan * 10)
  const mid = (startNs + end) / 2
  return clampView({ t0: mid - span / 2, t1: mid + span / 2 }, bounds, minSpan)
}

/** Whether two windows are the same to within a hundredth of a pixel. */
export function sameView(a: Viewport | null, b: Viewport | null, widthPx = 1000): boolean {
  if (!a || !b) return a === b
  const tol = (spanOf(a) / Math.max(widthPx, 1)) * 0.01
  return Math.abs(a.t0 - b.t0) <= tol && Math.abs(a.t1 - b.t1) <= tol
}

/** The window in whole ns, as the API and the URL take it (never empty, never before 0). */
export function wholeNs(v: Viewport): Viewport {
  const t0 = Math.max(0, Math.floor(v.t0))
  return { t0, t1: Math.max(t0 + 1, Math.ceil(v.t1)) }
}

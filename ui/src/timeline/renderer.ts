/**
 * Draws the track view on one canvas: the time axis (fixed at the top), the label column
 * (group headers with caret and device mark, thread/stream names), and the items of at most
 * two cached answers (the best one over its window, the whole-trace one around it), and the
 * groups' counter tracks under their threads (drawCounters.ts), so a
 * frame costs the same on a thousand-event trace and on a million-event one. Device pixel
 * ratio scaling keeps lines and text crisp.
 */
import { ticks } from './axis'
import { CANVAS } from './canvasTheme'
import { drawCounterLabels, drawCounters } from './drawCounters'
import { drawLinks, drawScene, fitText, FONT, outline, sceneLinks, type Frame, type Link } from './drawItems'
import { drawMarkBand, drawMarkEdges } from './drawMark'
import type { Layout } from './layout'
import type { Scene } from './scene'
import type { Hit } from './hitTest'
import type { Selection } from './types'
import { nsToPx, type Viewport } from './viewport'

export type { Link } from './drawItems'

export interface DrawState {
  width: number
  height: number
  dpr: number
  layout: Layout | null
  scrollTop: number
  view: Viewport | null
  primary: Scene | null
  fill: Scene | null
  selected: Selection | null
  hover: Hit | null
  /** Search text: events whose name holds it are drawn strong, the rest faded. */
  highlight: string
  showFlows: boolean
  /** The selected event's own launch links, drawn strong whatever `showFlows` says. */
  links: Link[]
  /** An evidence link's range (highlighted) and tracks (labels marked); see drawMark.ts. */
  mark?: Viewport | null
  markTracks?: ReadonlySet<number>
  text: { device: string; empty: string }
}

const BOLD = '600 12px -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif'
const linkCache = new WeakMap<Scene, Link[]>()

/** Read at each frame: the theme's colours (canvasTheme.ts). */
const COLORS = CANVAS

function drawLabels(ctx: CanvasRenderingContext2D, f: Frame): void {
  const { s, layout, top } = f
  const g = layout.geometry
  ctx.fillStyle = COLORS.labelBg
  ctx.fillRect(0, top, g.labelW, s.height - top)
  for (const group of layout.groups) {
    const y = top + group.y - s.scrollTop
    if (y > s.height || y + group.height < top) continue
    ctx.fillStyle = group.isDevice ? COLORS.deviceHeader : COLORS.header
    ctx.fillRect(0, y, g.labelW, g.headerH)
    ctx.fillStyle = COLORS.labelText
    ctx.font = BOLD
    ctx.textBaseline = 'middle'
    ctx.fillText(group.collapsed ? '▸' : '▾', 6, y + g.headerH / 2)
    let right = g.labelW - 6
    if (group.isDevice) {
      ctx.font = FONT
      const tw = ctx.measureText(s.text.device).width + 8
      right -= tw
      ctx.fillStyle = COLORS.device
      ctx.fillRect(right, y + 5, tw, g.headerH - 10)
      ctx.fillStyle = COLORS.deviceText
      ctx.fillText(s.text.device, right + 4, y + g.headerH / 2 + 0.5)
      right -= 4
      ctx.font = BOLD
    }
    ctx.fillStyle = COLORS.labelText
    ctx.fillText(fitText(ctx, group.label, right - 20), 20, y + g.headerH / 2 + 0.5)
    if (group.collapsed) continue
    ctx.font = FONT
    for (const box of group.tracks) {
      const ty = top + box.y - s.scrollTop
      if (ty > s.height || ty + box.height < top) continue
      ctx.fillStyle = COLORS.dimText
      ctx.fillText(fitText(ctx, box.label, g.labelW - 26), 20, ty + g.rowH / 2 + 0.5)
    }
  }
  ctx.fillStyle = COLORS.line
  ctx.fillRect(g.labelW - 1, top, 1, s.height - top)
}

function drawBands(ctx: CanvasRenderingContext2D, f: Frame): void {
  const { s, layout, top } = f
  const g = layout.geometry
  for (const group of layout.groups) {
    const y = top + group.y - s.scrollTop
    if (y > s.height || y + group.height < top) continue
    ctx.fillStyle = group.isDevice ? COLORS.deviceHeader : COLORS.header
    ctx.globalAlpha = group.collapsed ? 1 : 0.55
    ctx.fillRect(g.labelW, y, s.width - g.labelW, g.headerH)
    ctx.globalAlpha = 1
    if (group.collapsed) continue
    group.tracks.forEach((box, k) => {
      const ty = top + box.y - s.scrollTop
      if (ty > s.height || ty + box.height < top) return
      if (k % 2 === 1) {
        ctx.fillStyle = COLORS.stripe
        ctx.fillRect(g.labelW, ty, s.width - g.labelW, box.height)
      }
      ctx.fillStyle = COLORS.line
      ctx.fillRect(0, ty + box.height - 1, s.width, 1)
    })
  }
}

function drawAxis(ctx: CanvasRenderingContext2D, f: Frame, spanText: string): void {
  const { s, x0, timeW, view } = f
  const g = f.layout.geometry
  ctx.fillStyle = COLORS.bg
  ctx.fillRect(0, 0, s.width, g.axisH)
  ctx.fillStyle = COLORS.line
  ctx.fillRect(0, g.axisH - 1, s.width, 1)
  ctx.font = FONT
  ctx.textBaseline = 'middle'
  ctx.fillStyle = COLORS.dimText
  ctx.fillText(spanText, 8, g.axisH / 2)
  ctx.save()
  ctx.beginPath()
  ctx.rect(x0, 0, timeW, s.height)
  ctx.clip()
  for (const tick of ticks(view, timeW)) {
    const tx = Math.round(x0 + tick.px) + 0.5
    ctx.fillStyle = COLORS.grid
    ctx.fillRect(tx - 0.5, g.axisH, 1, s.height - g.axisH)
    ctx.fillStyle = COLORS.axisText
    ctx.fillRect(tx - 0.5, g.axisH - 7, 1, 6)
    ctx.fillText(tick.label, tx + 3, g.axisH / 2 - 2)
  }
  ctx.restore()
}

/** What a frame drew: the items the drawn answers hold (its cost), the arrows drawn and each
 * counter's maximum in view (formatted, by counterKey). */
export interface Drawn {
  items: number
  flows: number
  counters: Map<string, string>
}

/** One frame. */
export function draw(ctx: CanvasRenderingContext2D, s: DrawState, spanText: string): Drawn {
  ctx.setTransform(s.dpr, 0, 0, s.dpr, 0, 0)
  ctx.fillStyle = COLORS.bg
  ctx.fillRect(0, 0, s.width, s.height)
  if (!s.layout || !s.view) {
    ctx.fillStyle = COLORS.dimText
    ctx.font = FONT
    ctx.textBaseline = 'middle'
    ctx.fillText(s.text.empty, 12, 20)
    return { items: 0, flows: 0, counters: new Map() }
  }
  const g = s.layout.geometry
  const f: Frame = { s, layout: s.layout, view: s.view, x0: g.labelW, timeW: s.width - g.labelW, top: g.axisH }
  if (f.timeW <= 0) return { items: 0, flows: 0, counters: new Map() }
  drawBands(ctx, f)
  if (s.mark) drawMarkBand(ctx, f, s.mark)
  let items = 0
  let flows = 0
  const end = f.x0 + f.timeW
  if (s.primary) {
    const a = Math.max(f.x0, f.x0 + nsToPx(s.view, f.timeW, s.primary.t0))
    const b = Math.min(end, f.x0 + nsToPx(s.view, f.timeW, s.primary.t1))
    if (s.fill) {
      drawScene(ctx, f, s.fill, f.x0, a)
      drawScene(ctx, f, s.fill, b, end)
      items += s.fill.items
    }
    drawScene(ctx, f, s.primary, a, b)
    items += s.primary.items
    if (s.showFlows) {
      let links = linkCache.get(s.primary)
      if (!links) linkCache.set(s.primary, (links = sceneLinks(s.primary)))
      flows += drawLinks(ctx, f, links, s.primary, COLORS.flow, 1)
    }
  }
  const counters = drawCounters(ctx, f, s.primary, s.fill)
  if (s.hover) {
    const h = s.hover
    const src = h.type === 'event' ? h.scene.answer.events : h.scene.answer.blocks
    outline(ctx, f, src.track[h.i], src.depth[h.i], src.start_ns[h.i], src.dur_ns[h.i], COLORS.hover, 1)
  }
  const sel = s.selected
  if (sel) {
    flows += drawLinks(ctx, f, s.links, s.primary, COLORS.selectedFlow, 1.5)
    outline(ctx, f, sel.track, sel.depth, sel.start_ns, sel.dur_ns, COLORS.selected, 2)
  }
  drawLabels(ctx, f)
  drawCounterLabels(ctx, f, counters)
  drawAxis(ctx, f, spanText)
  if (s.mark || s.markTracks?.size) drawMarkEdges(ctx, f, s.mark ?? null, s.markTracks ?? new Set())
  if (!s.primary || s.layout.groups.length === 0) {
    ctx.fillStyle = COLORS.dimText
    ctx.font = FONT
    ctx.fillText(s.text.empty, f.x0 + 12, g.axisH + 20)
  }
  return { items, flows, counters }
}

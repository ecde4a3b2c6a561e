/**
 * Draws the track view on one canvas: the time axis (fixed at the top), the label column
 * (group headers with caret and device mark, thread/stream names), and the items of at most
 * two cached answers (the best one over its window, the whole-trace one around it), so a
 * frame costs the same on a thousand-event trace and on a million-event one. Device pixel
 * ratio scaling keeps lines and text crisp.
 */
import { ticks } from './axis'
import { blockFill, FLOW_COLOR, nameColor, SELECTED_FLOW_COLOR, SELECTED_OUTLINE } from './colors'
import { rowBox, trackLabel, type Layout } from './layout'
import { matchingNames, rowCovering, type Scene } from './scene'
import type { Hit } from './hitTest'
import type { Selection } from './types'
import { nsToPx, type Viewport } from './viewport'

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
  text: { device: string; empty: string }
}

const FONT = '11px -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif'
const BOLD = '600 12px -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif'
const COLORS = {
  bg: '#ffffff',
  labelBg: '#f6f7f9',
  header: '#eceff3',
  deviceHeader: '#e4edf9',
  stripe: '#fafbfc',
  line: '#e1e5ea',
  grid: 'rgba(0, 0, 0, 0.06)',
  axisText: '#4a5565',
  labelText: '#2c3642',
  dimText: '#66707c',
  device: '#3a7bd5',
}

/** Widths of names in the item font, per character, measured once per name. */
const charWidths = new Map<string, number>()

function fitText(ctx: CanvasRenderingContext2D, text: string, maxW: number): string {
  if (maxW < 14 || !text) return ''
  let per = charWidths.get(text)
  if (per === undefined) {
    per = ctx.measureText(text).width / text.length
    if (charWidths.size > 20000) charWidths.clear()
    charWidths.set(text, per)
  }
  if (per * text.length <= maxW) return text
  const n = Math.floor(maxW / per) - 1
  return n >= 2 ? `${text.slice(0, n)}…` : ''
}

interface Frame {
  s: DrawState
  layout: Layout
  view: Viewport
  x0: number
  timeW: number
  top: number
}

function itemY(f: Frame, track: number, depth: number): { y: number; h: number } | null {
  const box = rowBox(f.layout, track, depth)
  if (!box) return null
  const y = f.top + box.y - f.s.scrollTop
  if (y + box.h < f.top || y > f.s.height) return null
  return { y, h: box.h }
}

const matchCache = new WeakMap<Scene, { q: string; set: Set<number> | null }>()

function matchesOf(scene: Scene, q: string): Set<number> | null {
  const hit = matchCache.get(scene)
  if (hit && hit.q === q) return hit.set
  const set = matchingNames(scene.answer.names, q)
  matchCache.set(scene, { q, set })
  return set
}

/** The items of `scene` between x = lo and hi (canvas px). */
function drawScene(ctx: CanvasRenderingContext2D, f: Frame, scene: Scene, lo: number, hi: number): void {
  if (hi <= lo) return
  ctx.save()
  ctx.beginPath()
  ctx.rect(lo, f.top, hi - lo, f.s.height - f.top)
  ctx.clip()
  const x = (ns: number) => f.x0 + nsToPx(f.view, f.timeW, ns)
  const bl = scene.answer.blocks
  for (let i = 0; i < bl.track.length; i++) {
    const row = itemY(f, bl.track[i], bl.depth[i])
    if (!row) continue
    const a = x(bl.start_ns[i])
    const b = x(bl.start_ns[i] + bl.dur_ns[i])
    if (b < lo || a > hi) continue
    const left = Math.max(a, lo - 2)
    const w = Math.max(1, Math.min(b, hi + 2) - left)
    ctx.fillStyle = blockFill(bl.busy_ns[i] / Math.max(bl.dur_ns[i], 1))
    ctx.fillRect(left, row.y + 2, w, row.h - 4)
  }
  const ev = scene.answer.events
  const names = scene.answer.names
  const matches = matchesOf(scene, f.s.highlight)
  ctx.font = FONT
  ctx.textBaseline = 'middle'
  for (let i = 0; i < ev.index.length; i++) {
    const row = itemY(f, ev.track[i], ev.depth[i])
    if (!row) continue
    const a = x(ev.start_ns[i])
    const b = x(ev.start_ns[i] + ev.dur_ns[i])
    if (b < lo || a > hi) continue
    const left = Math.max(a, lo - 2)
    const right = Math.min(b, hi + 2)
    const w = Math.max(1, right - left)
    const name = names[ev.name[i]] ?? ''
    const color = nameColor(name)
    ctx.globalAlpha = matches && !matches.has(ev.name[i]) ? 0.2 : 1
    ctx.fillStyle = color.fill
    ctx.fillRect(left, row.y + 1, w, row.h - 2)
    if (w > 20 && row.h >= 14) {
      const tl = Math.max(left, lo)
      const label = fitText(ctx, name, Math.min(right, hi) - tl - 6)
      if (label) {
        ctx.fillStyle = color.text
        ctx.fillText(label, tl + 3, row.y + row.h / 2 + 0.5)
      }
    }
  }
  ctx.globalAlpha = 1
  ctx.restore()
}

/** An arrow between two points of the timeline; a missing depth is found in the scene. */
export interface Link {
  srcTrack: number
  srcNs: number
  srcDepth?: number
  dstTrack: number
  dstNs: number
  dstDepth?: number
}

/** The scene's flows (launch -> device work, and the trace's flow pairs) as links. */
function sceneLinks(scene: Scene): Link[] {
  const fl = scene.answer.flows
  return fl.src_ns.map((srcNs, i) => ({
    srcTrack: fl.src_track[i], srcNs, srcDepth: scene.flowSrcDepth[i],
    dstTrack: fl.dst_track[i], dstNs: fl.dst_ns[i], dstDepth: scene.flowDstDepth[i],
  }))
}

const linkCache = new WeakMap<Scene, Link[]>()

function drawLinks(ctx: CanvasRenderingContext2D, f: Frame, links: Link[], scene: Scene | null,
  color: string, width: number): void {
  if (!links.length) return
  const x = (ns: number) => f.x0 + nsToPx(f.view, f.timeW, ns)
  const depth = (track: number, ns: number, known?: number) =>
    known ?? (scene ? rowCovering(scene, track, ns) : 0)
  ctx.save()
  ctx.beginPath()
  ctx.rect(f.x0, f.top, f.timeW, f.s.height - f.top)
  ctx.clip()
  ctx.strokeStyle = color
  ctx.fillStyle = color
  ctx.lineWidth = width
  const heads: [number, number, number][] = []
  ctx.beginPath()
  for (const link of links) {
    const sx = x(link.srcNs)
    const dx = x(link.dstNs)
    if ((sx < f.x0 && dx < f.x0) || (sx > f.x0 + f.timeW && dx > f.x0 + f.timeW)) continue
    const s = rowBox(f.layout, link.srcTrack, depth(link.srcTrack, link.srcNs, link.srcDepth))
    const d = rowBox(f.layout, link.dstTrack, depth(link.dstTrack, link.dstNs, link.dstDepth))
    if (!s || !d) continue
    const down = d.y >= s.y ? 1 : -1
    const sy = f.top + s.y - f.s.scrollTop + (down > 0 ? s.h - 2 : 2)
    const dy = f.top + d.y - f.s.scrollTop + (down > 0 ? 2 : d.h - 2)
    if ((sy < f.top && dy < f.top) || (sy > f.s.height && dy > f.s.height)) continue
    const bend = Math.max(10, Math.min(50, Math.abs(dy - sy) / 2))
    ctx.moveTo(sx, sy)
    ctx.bezierCurveTo(sx, sy + down * bend, dx, dy - down * bend, dx, dy)
    heads.push([dx, dy, down])
  }
  ctx.stroke()
  ctx.beginPath()
  for (const [hx, hy, down] of heads) {
    ctx.moveTo(hx, hy)
    ctx.lineTo(hx - 3, hy - down * 5)
    ctx.lineTo(hx + 3, hy - down * 5)
    ctx.closePath()
  }
  ctx.fill()
  ctx.restore()
}

function outline(ctx: CanvasRenderingContext2D, f: Frame, track: number, depth: number, start: number,
  dur: number, color: string, width: number): void {
  const row = itemY(f, track, depth)
  if (!row) return
  const a = f.x0 + nsToPx(f.view, f.timeW, start)
  const b = f.x0 + nsToPx(f.view, f.timeW, start + dur)
  if (b < f.x0 || a > f.x0 + f.timeW) return
  const left = Math.max(a, f.x0 - 4)
  const w = Math.max(2, Math.min(b, f.x0 + f.timeW + 4) - left)
  ctx.save()
  ctx.beginPath()
  ctx.rect(f.x0, f.top, f.timeW, f.s.height - f.top)
  ctx.clip()
  ctx.strokeStyle = color
  ctx.lineWidth = width
  ctx.strokeRect(left - width / 2, row.y + 0.5 - width / 2, w + width, row.h - 1 + width)
  if (w < 6) {
    // A thin event: a marker above it, so the selection is found at any zoom.
    ctx.fillStyle = color
    ctx.beginPath()
    ctx.moveTo(left + w / 2, row.y)
    ctx.lineTo(left + w / 2 - 5, row.y - 7)
    ctx.lineTo(left + w / 2 + 5, row.y - 7)
    ctx.fill()
  }
  ctx.restore()
}

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
      ctx.fillStyle = '#fff'
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
      ctx.fillText(fitText(ctx, trackLabel(box.track), g.labelW - 26), 20, ty + g.rowH / 2 + 0.5)
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

/** One frame. Returns the number of items the drawn answers hold (the cost of the frame). */
export function draw(ctx: CanvasRenderingContext2D, s: DrawState, spanText: string): number {
  ctx.setTransform(s.dpr, 0, 0, s.dpr, 0, 0)
  ctx.fillStyle = COLORS.bg
  ctx.fillRect(0, 0, s.width, s.height)
  if (!s.layout || !s.view) {
    ctx.fillStyle = COLORS.dimText
    ctx.font = FONT
    ctx.textBaseline = 'middle'
    ctx.fillText(s.text.empty, 12, 20)
    return 0
  }
  const g = s.layout.geometry
  const f: Frame = { s, layout: s.layout, view: s.view, x0: g.labelW, timeW: s.width - g.labelW, top: g.axisH }
  if (f.timeW <= 0) return 0
  drawBands(ctx, f)
  let items = 0
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
      drawLinks(ctx, f, links, s.primary, FLOW_COLOR, 1)
    }
  }
  if (s.hover) {
    const h = s.hover
    const src = h.type === 'event' ? h.scene.answer.events : h.scene.answer.blocks
    outline(ctx, f, src.track[h.i], src.depth[h.i], src.start_ns[h.i], src.dur_ns[h.i], '#1d2733', 1)
  }
  const sel = s.selected
  if (sel) {
    drawLinks(ctx, f, s.links, s.primary, SELECTED_FLOW_COLOR, 1.5)
    outline(ctx, f, sel.track, sel.depth, sel.start_ns, sel.dur_ns, SELECTED_OUTLINE, 2)
  }
  drawLabels(ctx, f)
  drawAxis(ctx, f, spanText)
  if (!s.primary || s.layout.groups.length === 0) {
    ctx.fillStyle = COLORS.dimText
    ctx.font = FONT
    ctx.fillText(s.text.empty, f.x0 + 12, g.axisH + 20)
  }
  return items
}

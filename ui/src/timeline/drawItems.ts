/**
 * The items of the track view: events (coloured by name, labelled when wide enough, faded
 * when a search does not match them), merged busy blocks (grey, darker when busier),
 * arrows between events, and outlines for the hovered and selected items. Each function
 * draws only what lies inside its clip, so a frame costs the items of the answers drawn.
 */
import { CANVAS } from './canvasTheme'
import { blockFill, nameColor } from './colors'
import { rowBox, type Layout } from './layout'
import { matchingNames, rowCovering, type Scene } from './scene'
import type { DrawState } from './renderer'
import { nsToPx, type Viewport } from './viewport'

export const FONT = '11px -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif'

/** Widths of names in the item font, per character, measured once per name. */
const charWidths = new Map<string, number>()

export function fitText(ctx: CanvasRenderingContext2D, text: string, maxW: number): string {
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

export interface Frame {
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
export function drawScene(ctx: CanvasRenderingContext2D, f: Frame, scene: Scene, lo: number, hi: number): void {
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
    ctx.fillStyle = blockFill(bl.busy_ns[i] / Math.max(bl.dur_ns[i], 1), CANVAS.block)
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
export function sceneLinks(scene: Scene): Link[] {
  const fl = scene.answer.flows
  return fl.src_ns.map((srcNs, i) => ({
    srcTrack: fl.src_track[i], srcNs, srcDepth: scene.flowSrcDepth[i],
    dstTrack: fl.dst_track[i], dstNs: fl.dst_ns[i], dstDepth: scene.flowDstDepth[i],
  }))
}

/** Draws the arrows of `links` that are in view; returns how many it drew. */
export function drawLinks(ctx: CanvasRenderingContext2D, f: Frame, links: Link[], scene: Scene | null,
  color: string, width: number): number {
  if (!links.length) return 0
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
  return heads.length
}

export function outline(ctx: CanvasRenderingContext2D, f: Frame, track: number, depth: number, start: number,
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

/**
 * Counter tracks on the canvas: each a filled step chart (memory, device busy and queue
 * depth each in its colour of canvasTheme.ts) scaled to its maximum in view (busy share:
 * to 100 %), drawn from the same answers as the events (the primary over its
 * window, the whole-trace one around it), and its label: the counter's word with that
 * maximum ("Memory allocated · 2.6 GiB") over the device's name. The value under the
 * pointer comes from the answer drawn there (`counterValue`), as the eye sees it.
 */
import { CANVAS } from './canvasTheme'
import { formatCounter, maxIn, pointAt, valueAt } from './counters'
import { fitText, FONT, type Frame } from './drawItems'
import type { CounterBox, Layout } from './layout'
import type { Scene } from './scene'
import { nsToPx, type Viewport } from './viewport'

const PAD_TOP = 4
const PAD_BOTTOM = 3

/** A counter's colour by unit: bytes (memory), ratio (device busy), count (queue depth). */
function colorOf(unit: string): string {
  return unit === 'ratio' ? CANVAS.busy : unit === 'bytes' ? CANVAS.memory : CANVAS.queue
}

/** The parts of the view each drawn answer covers: [scene, t0, t1]. */
function pieces(view: Viewport, primary: Scene | null, fill: Scene | null): [Scene, number, number][] {
  if (!primary) return fill ? [[fill, view.t0, view.t1]] : []
  const a = Math.max(view.t0, primary.t0)
  const b = Math.min(view.t1, primary.t1)
  const out: [Scene, number, number][] = []
  if (a < b) out.push([primary, a, b])
  if (fill) {
    if (view.t0 < Math.min(a, view.t1)) out.push([fill, view.t0, Math.min(a, view.t1)])
    if (Math.max(b, view.t0) < view.t1) out.push([fill, Math.max(b, view.t0), view.t1])
  }
  return out
}

/** The counter's largest value in view (null: no value there). */
export function counterMax(key: string, view: Viewport, primary: Scene | null, fill: Scene | null): number | null {
  let top: number | null = null
  for (const [scene, t0, t1] of pieces(view, primary, fill)) {
    const s = scene.counters.get(key)
    const m = s ? maxIn(s, t0, t1) : null
    if (m !== null && (top === null || m > top)) top = m
  }
  return top
}

/** The counter's value at `ns`, from the answer drawn there (null: none). */
export function counterValue(key: string, ns: number, primary: Scene | null, fill: Scene | null): number | null {
  const inPrimary = primary && ns >= primary.t0 && ns <= primary.t1
  const scene = inPrimary ? primary : fill ?? primary
  const s = scene?.counters.get(key)
  return s ? valueAt(s, ns) : null
}

function drawSeries(ctx: CanvasRenderingContext2D, f: Frame, scene: Scene, box: CounterBox, t0: number, t1: number,
  y: number, scale: number, rgb: string): void {
  const s = scene.counters.get(box.key)
  if (!s || !s.times.length || !(scale > 0)) return
  const bottom = y + box.height - PAD_BOTTOM
  const h = box.height - PAD_TOP - PAD_BOTTOM
  const px = (ns: number) => f.x0 + nsToPx(f.view, f.timeW, ns)
  const xa = px(t0)
  const xb = px(t1)
  ctx.save()
  ctx.beginPath()
  ctx.rect(xa, y, xb - xa, box.height)
  ctx.clip()
  const outline = new Path2D()
  const area = new Path2D()
  let i = Math.max(0, pointAt(s.times, t0))
  let started = false
  let x = xa
  for (; i < s.times.length && s.times[i] < t1; i++) {
    const next = i + 1 < s.times.length ? s.times[i + 1] : scene.t1
    if (next <= t0) continue
    x = Math.max(xa, px(s.times[i]))
    const xn = Math.min(xb, px(next))
    const vy = bottom - Math.min(1, Math.max(0, s.values[i] / scale)) * h
    if (!started) {
      area.moveTo(x, bottom)
      outline.moveTo(x, vy)
      started = true
    }
    area.lineTo(x, vy)
    area.lineTo(xn, vy)
    outline.lineTo(x, vy)
    outline.lineTo(xn, vy)
    x = xn
  }
  if (started) {
    area.lineTo(x, bottom)
    area.closePath()
    ctx.fillStyle = `rgba(${rgb}, 0.32)`
    ctx.fill(area)
    ctx.strokeStyle = `rgb(${rgb})`
    ctx.lineWidth = 1
    ctx.stroke(outline)
  }
  ctx.restore()
}

/** Each visible counter's chart and its band; returns each counter's maximum in view, formatted. */
export function drawCounters(ctx: CanvasRenderingContext2D, f: Frame, primary: Scene | null,
  fill: Scene | null): Map<string, string> {
  const { s, layout, top, view } = f
  const out = new Map<string, string>()
  for (const group of layout.groups) {
    if (group.collapsed) continue
    for (const box of group.counters) {
      const top_ = counterMax(box.key, view, primary, fill)
      out.set(box.key, top_ === null ? '–' : formatCounter(box.series.unit, top_))
      const y = top + box.y - s.scrollTop
      if (y > s.height || y + box.height < top) continue
      ctx.fillStyle = CANVAS.line
      ctx.fillRect(0, y + box.height - 1, s.width, 1)
      const ratio = box.series.unit === 'ratio'
      const scale = ratio ? 1 : top_ ?? 0
      const rgb = colorOf(box.series.unit)
      for (const [scene, t0, t1] of pieces(view, primary, fill)) {
        drawSeries(ctx, f, scene, box, t0, t1, y, scale, rgb)
      }
    }
  }
  return out
}

/** The counters' labels in the label column: the word and its maximum in view, the device under it. */
export function drawCounterLabels(ctx: CanvasRenderingContext2D, f: Frame, maxes: Map<string, string>): void {
  const { s, layout, top } = f
  const g = layout.geometry
  ctx.font = FONT
  ctx.textBaseline = 'middle'
  for (const group of layout.groups) {
    if (group.collapsed) continue
    for (const box of group.counters) {
      const y = top + box.y - s.scrollTop
      if (y > s.height || y + box.height < top) continue
      ctx.fillStyle = `rgb(${colorOf(box.series.unit)})`
      ctx.fillRect(8, y + 6, 3, box.height - 12)
      ctx.fillStyle = CANVAS.labelText
      ctx.fillText(fitText(ctx, `${box.title} · ${maxes.get(box.key) ?? '–'}`, g.labelW - 26), 20, y + 11)
      if (box.series.device) {
        ctx.fillStyle = CANVAS.dimText
        ctx.fillText(fitText(ctx, box.series.device, g.labelW - 26), 20, y + 25)
      }
    }
  }
}

/** What a test reads of the counters drawn (`data-counters`): label, group, max in view, canvas y. */
export function describeCounters(layout: Layout, maxes: Map<string, string>, scrollTop: number): string {
  const out = []
  for (const group of layout.groups) {
    for (const box of group.counters) {
      out.push({ label: box.label, group: group.label, max: maxes.get(box.key) ?? '',
        y: layout.geometry.axisH + box.y - scrollTop + box.height / 2 })
    }
  }
  return JSON.stringify(out)
}

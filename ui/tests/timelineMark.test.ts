import { describe, expect, it } from 'vitest'
import { drawMarkEdges, MARK_COLORS } from '@/timeline/drawMark'
import type { Frame } from '@/timeline/drawItems'
import { GEOMETRY, layoutTracks } from '@/timeline/layout'
import type { DrawState } from '@/timeline/renderer'
import { answer } from './timelineFixtures'

/** A 2D context that records its rectangles with the fill they were drawn in. */
function recorder() {
  const rects: { fill: string; x: number; y: number; w: number; h: number }[] = []
  const ctx = { fillStyle: '', fillRect(x: number, y: number, w: number, h: number) { rects.push({ fill: String(this.fillStyle), x, y, w, h }) } }
  return { ctx: ctx as unknown as CanvasRenderingContext2D, rects }
}

describe('evidence mark', () => {
  const layout = layoutTracks(answer(0, 1000, 500, 2).tracks, new Set())
  const frame = (scrollTop: number): Frame => ({
    s: { width: 800, height: 400, scrollTop } as DrawState, layout, view: { t0: 0, t1: 1000 },
    x0: GEOMETRY.labelW, timeW: 630, top: GEOMETRY.axisH,
  })

  it('tints a marked track scrolled half out of view only under the axis strip', () => {
    const { ctx, rects } = recorder()
    const box = layout.byTrack.get(0)!.box
    drawMarkEdges(ctx, frame(box.y + 20), null, new Set([0])) // its top 20 px scrolled away
    const accent = rects.filter((r) => r.fill === MARK_COLORS.accent)
    expect(accent).toHaveLength(1)
    expect(accent[0].y).toBe(GEOMETRY.axisH)
    expect(accent[0].y + accent[0].h).toBe(GEOMETRY.axisH + box.height - 1 - 20)
  })

  it('leaves a track scrolled wholly out of view alone', () => {
    const { ctx, rects } = recorder()
    const box = layout.byTrack.get(0)!.box
    drawMarkEdges(ctx, frame(box.y + box.height), null, new Set([0]))
    expect(rects).toHaveLength(0)
  })
})

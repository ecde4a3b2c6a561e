import { describe, expect, it } from 'vitest'
import { blockFill, colorKey, hashString, nameColor, textOn } from '@/timeline/colors'
import { hitScenes, hitTest } from '@/timeline/hitTest'
import { coverage, makeScene, matchingNames, rowCovering, sceneKey, sharpness } from '@/timeline/scene'
import { tooltipText } from '@/timeline/tooltip'
import { WindowCache } from '@/timeline/windowCache'
import { answer } from './timelineFixtures'

describe('scene', () => {
  it('indexes items per row in start order and places flow ends on rows', () => {
    const s = makeScene(answer(0, 1000, 500, 2))
    expect(s.key).toBe(sceneKey(0, 1000, 500))
    expect(s.items).toBe(8)
    expect(s.rows.get(0 * 65536 + 1)!.events.map((i) => s.answer.events.start_ns[i])).toEqual([100, 400, 600])
    // the launch starts where a drawn runtime call starts (depth 2); the second in a block
    expect(s.flowSrcDepth).toEqual([2, 2])
    expect(s.flowDstDepth).toEqual([0, 0])
    expect(rowCovering(s, 0, 250)).toBe(1)
    expect(rowCovering(s, 0, 160)).toBe(2)
    expect(rowCovering(s, 0, 530)).toBe(2)
    expect(rowCovering(s, 0, 950)).toBe(0)
    expect(rowCovering(s, 5, 10)).toBe(0)
  })

  it('measures coverage and sharpness of a cached answer for a view', () => {
    const s = makeScene(answer(0, 1000, 500, 2))
    expect(coverage(s, { t0: 0, t1: 1000 })).toBe(1)
    expect(coverage(s, { t0: 500, t1: 1500 })).toBe(0.5)
    expect(coverage(s, { t0: 2000, t1: 3000 })).toBe(0)
    expect(sharpness(s, { t0: 0, t1: 1000 }, 500)).toBe(1)
    // zoomed in 10x: 0.2 ns per pixel against 2 ns buckets
    expect(sharpness(s, { t0: 0, t1: 100 }, 500)).toBeCloseTo(0.2, 9)
  })

  it('matches names case-insensitively for highlighting', () => {
    expect(matchingNames(['aten::Conv2d', 'aten::mm', 'CONV'], 'conv')).toEqual(new Set([0, 2]))
    expect(matchingNames(['x'], '  ')).toBeNull()
  })
})

describe('hit-testing', () => {
  const s = makeScene(answer(0, 1000, 500, 2))
  const ev = s.answer.events

  it('finds the event under the pointer in its row', () => {
    const hit = hitTest(s, 0, 1, 250, 0)
    expect(hit?.type).toBe('event')
    expect(ev.index[hit!.i]).toBe(11)
    expect(ev.index[hitTest(s, 0, 0, 999, 0)!.i]).toBe(10)
    expect(hitTest(s, 0, 1, 450, 0)).toBeNull()
    expect(hitTest(s, 1, 0, 100, 0)).toBeNull()
  })

  it('hits thin items within the tolerance, the nearest first', () => {
    expect(ev.index[hitTest(s, 0, 1, 405, 4)!.i]).toBe(15)
    expect(hitTest(s, 0, 1, 410, 4)).toBeNull()
    expect(ev.index[hitTest(s, 0, 1, 401, 200)!.i]).toBe(15)
  })

  it('hits merged blocks, events first where both are in reach', () => {
    const block = hitTest(s, 0, 2, 530, 0)
    expect(block).toMatchObject({ type: 'block' })
    expect(s.answer.blocks.count[block!.i]).toBe(7)
    expect(hitTest(s, 0, 2, 172, 5)).toMatchObject({ type: 'event' })
    expect(hitTest(s, 2, 0, 200, 0)).toMatchObject({ type: 'event' })
    expect(hitTest(s, 2, 0, 245, 60)).toMatchObject({ type: 'event' })
    expect(hitTest(s, 2, 0, 350, 0)).toMatchObject({ type: 'block' })
  })

  it('hit-tests the primary answer inside its window and the fill answer outside', () => {
    const fine = makeScene(answer(0, 500, 500, 1))
    const base = makeScene(answer(0, 1000, 500, 2, 0))
    expect(hitScenes(fine, base, 0, 1, 150, 0)!.scene).toBe(fine)
    expect(hitScenes(fine, base, 0, 1, 650, 0)!.scene).toBe(base)
    expect(hitScenes(null, null, 0, 1, 650, 0)).toBeNull()
  })
})

describe('window cache', () => {
  it('draws a view from the exact answer when it has one', () => {
    const cache = new WindowCache(3)
    const base = makeScene(answer(0, 1000, 500, 2))
    cache.put(base, true)
    expect(cache.choose({ t0: 0, t1: 1000 }, 500, base.key)).toEqual({ primary: base, fill: null, exact: true })
    const win = makeScene(answer(200, 400, 500, 1))
    cache.put(win)
    expect(cache.choose({ t0: 200, t1: 400 }, 500, win.key)).toEqual({ primary: win, fill: base, exact: true })
  })

  it('approximates a new view with the sharpest answer covering it, the base around it', () => {
    const cache = new WindowCache(3)
    const base = makeScene(answer(0, 1_000_000, 500, 2048))
    cache.put(base, true)
    const near = makeScene(answer(1000, 2000, 500, 2))
    cache.put(near)
    // panned a little: the recent fine answer, with the base filling the uncovered part
    const panned = cache.choose({ t0: 1200, t1: 2200 }, 500, 'none')
    expect(panned).toEqual({ primary: near, fill: base, exact: false })
    // zoomed far out: the base covers it all and is sharp enough
    expect(cache.choose({ t0: 0, t1: 900_000 }, 500, 'none').primary).toBe(base)
    // nowhere near the recent answers
    expect(cache.choose({ t0: 500_000, t1: 501_000 }, 500, 'none')).toEqual({ primary: base, fill: null, exact: false })
  })

  it('keeps only the most recent answers, never the base twice', () => {
    const cache = new WindowCache(2)
    cache.put(makeScene(answer(0, 1000, 500, 2)), true)
    const scenes = [1, 2, 3].map((k) => makeScene(answer(k * 1000, k * 1000 + 500, 500, 1)))
    scenes.forEach((s) => cache.put(s))
    cache.put(scenes[2])
    expect(cache.size).toBe(3)
    expect(cache.get(scenes[0].key)).toBeNull()
    expect(cache.get(scenes[1].key)).toBe(scenes[1])
    cache.clear()
    expect(cache.size).toBe(0)
  })
})

describe('colours', () => {
  it('hashes names stably (FNV-1a) and spreads them over the hues', () => {
    expect(hashString('')).toBe(0x811c9dc5)
    expect(hashString('a')).toBe(0xe40c292c)
    expect(hashString('foobar')).toBe(0xbf9cf968)
    const names = ['aten::conv2d', 'aten::mm', 'aten::add_', 'cudaLaunchKernel', 'aten::relu', 'Optimizer.step#SGD.step']
    expect(new Set(names.map((n) => nameColor(n).hue)).size).toBe(names.length)
    expect(nameColor('aten::mm')).toEqual(nameColor('aten::mm'))
  })

  it('gives numbered members of a family one colour', () => {
    expect(colorKey('ProfilerStep#12')).toBe('ProfilerStep')
    expect(nameColor('ProfilerStep#5').fill).toBe(nameColor('ProfilerStep#6').fill)
    expect(colorKey('aten::conv2d')).toBe('aten::conv2d')
  })

  it('picks readable text and darker blocks for busier merges', () => {
    expect(textOn(60, 65)).toBe('#1d2733')
    expect(textOn(240, 55)).toBe('#ffffff')
    const alpha = (s: string) => Number(s.match(/([\d.]+)\)$/)![1])
    expect(alpha(blockFill(0.9))).toBeGreaterThan(alpha(blockFill(0.1)))
    expect(alpha(blockFill(Number.NaN))).toBeCloseTo(0.85, 9)
  })
})

describe('tooltip', () => {
  const words = {
    kind: (k: string) => `<${k}>`, duration: 'Duration', start: 'Start',
    merged: (n: string) => `${n} merged`, busy: (b: string, s: string) => `busy ${b} of ${s}`,
    track: (id: number) => (id === 0 ? 'main' : ''), at: 'At',
  }
  const s = makeScene(answer(0, 1_000_000, 500, 2))

  it('names an event, its kind, duration, start and track', () => {
    const hit = hitTest(s, 0, 1, 150, 0)!
    expect(tooltipText(hit, words)).toEqual({
      title: 'aten::conv2d', zoom: false,
      lines: ['<cpu_op>', 'Duration: 300 ns', 'Start: 100 ns', 'main'],
    })
    // no track label: the line is left out
    expect(tooltipText(hitTest(s, 2, 0, 200, 0)!, words).lines).toEqual(['<kernel>', 'Duration: 50 ns', 'Start: 190 ns'])
  })

  it('counts the events of a merged block and offers to zoom', () => {
    expect(tooltipText(hitTest(s, 0, 2, 530, 0)!, words)).toEqual({
      title: '7 merged', zoom: true, lines: ['busy 40 ns of 64 ns', 'Start: 500 ns'],
    })
  })
})

import { describe, expect, it } from 'vitest'
import { counterKey, counterLabel, counterSpecs, formatCounter, maxIn, valueAt } from '@/timeline/counters'
import { counterMax, counterValue, describeCounters } from '@/timeline/drawCounters'
import { describeLayout, GEOMETRY, layoutTracks, rowAt } from '@/timeline/layout'
import { counterTip } from '@/timeline/pointer'
import { makeScene } from '@/timeline/scene'
import { answer } from './timelineFixtures'

const WORDS: Record<string, string> = { memory_allocated: 'Memory allocated', device_busy: 'Device busy' }
const word = (name: string) => WORDS[name] ?? name
const { headerH: H, rowH: R, trackPad: P, counterH: C } = GEOMETRY

describe('counter values', () => {
  const s = { times: [0, 300, 700], values: [1024, 3 * 1024 ** 3, 2048] }

  it('holds each value until the next point', () => {
    expect(valueAt(s, -1)).toBeNull()
    expect(valueAt(s, 0)).toBe(1024)
    expect(valueAt(s, 299)).toBe(1024)
    expect(valueAt(s, 300)).toBe(3 * 1024 ** 3)
    expect(valueAt(s, 10_000)).toBe(2048)
  })

  it('takes the maximum in view, the value in force at its start included', () => {
    expect(maxIn(s, 0, 300)).toBe(1024)
    expect(maxIn(s, 0, 301)).toBe(3 * 1024 ** 3)
    expect(maxIn(s, 500, 600)).toBe(3 * 1024 ** 3) // opened at 300, holds until 700
    expect(maxIn(s, 700, 900)).toBe(2048)
    expect(maxIn({ times: [], values: [] }, 0, 10)).toBeNull()
  })

  it('formats bytes and shares and names the device', () => {
    expect(formatCounter('bytes', 3 * 1024 ** 3)).toBe('3.0 GiB')
    expect(formatCounter('ratio', 0.5)).toBe('50.0 %')
    expect(formatCounter('ratio', 1)).toBe('100.0 %')
    expect(formatCounter('count', 3)).toBe('3')
    expect(counterLabel({ name: 'memory_allocated', device: 'CUDA:0' }, word)).toBe('Memory allocated (CUDA:0)')
    expect(counterLabel({ name: 'device_busy', device: '' }, word)).toBe('Device busy')
  })
})

describe('counter tracks', () => {
  const a = answer(0, 1000, 500, 2)
  const specs = counterSpecs(a.counters, word)
  const layout = layoutTracks(a.tracks, new Set(), GEOMETRY, undefined, specs)

  it('come after the threads of their group', () => {
    expect(describeLayout(layout)).toBe('CPU · 1: main\nGPU 0 · 0: stream 7 | Device busy | Memory allocated (CUDA:0)')
    const gpu = layout.groups[1]
    const streamEnd = gpu.y + H + R + P
    expect(gpu.counters.map((c) => c.y)).toEqual([streamEnd, streamEnd + C])
    expect(gpu.height).toBe(H + R + P + 2 * C)
    const hit = rowAt(layout, streamEnd + C + 5)
    expect(hit?.type === 'counter' && hit.counter.label).toBe('Memory allocated (CUDA:0)')
    expect(rowAt(layout, streamEnd - P - 1)?.type).toBe('row')
  })

  it('fold with their group', () => {
    const folded = layoutTracks(a.tracks, new Set([1]), GEOMETRY, undefined, specs)
    expect(folded.groups[1].height).toBe(H)
    expect(folded.groups[1].counters.every((c) => c.height === 0)).toBe(true)
  })

  it('show the value under the pointer and the maximum in view from the drawn answers', () => {
    const scene = makeScene(a)
    const key = counterKey(a.counters[1])
    expect(counterMax(key, { t0: 0, t1: 299 }, scene, null)).toBe(1024)
    expect(counterMax(key, { t0: 0, t1: 1000 }, scene, null)).toBe(3 * 1024 ** 3)
    // a wider view: the whole-trace answer fills in around the primary one
    const fill = makeScene(answer(0, 100_000, 500, 256, 5000))
    expect(counterMax(key, { t0: 0, t1: 6000 }, scene, fill)).toBe(3 * 1024 ** 3)
    expect(counterValue(key, 800, scene, fill)).toBe(2048)
    expect(counterValue(key, 5100, scene, fill)).toBe(1024) // the fill's, shifted by 5000
    const mem = layout.groups[1].counters[1]
    const y = GEOMETRY.axisH + mem.y + 10
    const sight = { layout, view: { t0: 0, t1: 1000 }, scrollTop: 0, timeW: 1000, drawn: { primary: scene, fill: null } }
    const found = { row: rowAt(layout, mem.y + 10), hit: null }
    const tip = counterTip(sight, found, { x: GEOMETRY.labelW + 400, y }, { at: 'At' })
    expect(tip).toMatchObject({ title: 'Memory allocated (CUDA:0)', lines: ['3.0 GiB', 'At: 400 ns'] })
    expect(counterTip(sight, found, { x: 10, y }, { at: 'At' })).toBeNull() // on the label
    const told = JSON.parse(describeCounters(layout, new Map([[key, '3.0 GiB']]), 0))
    expect(told[1]).toEqual({ label: 'Memory allocated (CUDA:0)', group: 'GPU 0 · 0', max: '3.0 GiB',
      y: GEOMETRY.axisH + mem.y + C / 2 })
  })
})

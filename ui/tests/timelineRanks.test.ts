import { describe, expect, it } from 'vitest'
import { counterSpecs } from '@/timeline/counters'
import { describeLayout, layoutTracks } from '@/timeline/layout'
import { stackCodec } from '@/timeline/rankEvents'
import {
  INDEX_STRIDE, mergeRanks, parseRanks, rankParams, splitIndex, stackEnd, stackedIndex, TRACK_STRIDE,
} from '@/timeline/ranks'
import { makeScene } from '@/timeline/scene'
import type { EventResponse, SearchResponse } from '@/timeline/types'
import { answer } from './timelineFixtures'

const STACK = [{ worker: 'rank0', shift: 0 }, { worker: 'rank1', shift: 1000 }]

describe('ranks in the URL', () => {
  it('keeps known positions, sorted and unique, ignoring anything else', () => {
    expect(parseRanks('1,0,1', 2)).toEqual([0, 1])
    expect(parseRanks('0,2,x,-1,', 2)).toEqual([0])
    expect(parseRanks(['3,1'], 4)).toEqual([1, 3])
    expect(parseRanks(undefined, 4)).toEqual([])
    expect(parseRanks('0,1,2,3,4,5,6,7,8,9', 10)).toHaveLength(8)
  })
})

describe("each rank's own window", () => {
  it('is the shared window less its shift, clipped at its zero, its width in proportion', () => {
    expect(rankParams({ start_ns: 2000, end_ns: 3000, width_px: 800 }, 1000)).toEqual({ start_ns: 1000, end_ns: 2000, width_px: 800 })
    expect(rankParams({ start_ns: 500, end_ns: 1500, width_px: 800 }, 1000)).toEqual({ start_ns: 0, end_ns: 500, width_px: 400 })
    expect(rankParams({ start_ns: 0, end_ns: 1000, width_px: 800 }, 1000)).toBeNull() // before its first event
    expect(rankParams({ width_px: 640 }, 1000)).toEqual({ width_px: 640 }) // the whole trace
  })
})

describe('merged answers', () => {
  const a = answer(0, 2000, 800, 4)
  const b = answer(0, 2000, 400, 8)
  const merged = mergeRanks([{ ...STACK[0], answer: a }, { ...STACK[1], answer: b }], 0, 3000, 800)

  it('answers the shared window asked for, rank after rank', () => {
    expect([merged.t0_ns, merged.t1_ns, merged.width_px, merged.bucket_ns]).toEqual([0, 3000, 800, 8])
    expect(merged.tracks.map((t) => t.id)).toEqual([0, 2, TRACK_STRIDE, TRACK_STRIDE + 2])
    expect(merged.events.index.length).toBe(2 * a.events.index.length)
    expect(stackEnd([{ ...STACK[0], answer: a }, { ...STACK[1], answer: b }])).toBe(3000)
  })

  it("shifts rank 1's times and renumbers its tracks, events and names", () => {
    const n = a.events.index.length
    const i = n + 1 // rank 1's second event
    expect(merged.events.start_ns[i]).toBe(b.events.start_ns[1] + 1000)
    expect(merged.events.track[i]).toBe(TRACK_STRIDE + b.events.track[1])
    expect(merged.events.index[i]).toBe(INDEX_STRIDE + b.events.index[1])
    expect(merged.names[merged.events.name[i]]).toBe(b.names[b.events.name[1]])
    expect(merged.kinds[merged.events.kind[i]]).toBe(b.kinds[b.events.kind[1]])
    expect(merged.blocks.start_ns.slice(2)).toEqual(b.blocks.start_ns.map((s) => s + 1000))
    expect(merged.flows.dst_track.slice(2)).toEqual(b.flows.dst_track.map((t) => t + TRACK_STRIDE))
    expect(merged.counters[2].times).toEqual(b.counters[0].times.map((s) => s + 1000))
    expect(splitIndex(merged.events.index[i])).toEqual({ k: 1, index: b.events.index[1] })
  })

  it('lays out each rank as groups of its own, labelled with it, counters under their own rank', () => {
    const specs = counterSpecs(merged.counters, (name) => name)
    const layout = layoutTracks(merged.tracks, new Set(), undefined, undefined, specs)
    expect(describeLayout(layout).split('\n')).toEqual([
      'rank0 · CPU · 1: main',
      'rank0 · GPU 0 · 0: stream 7 | device_busy | memory_allocated (CUDA:0)',
      'rank1 · CPU · 1: main',
      'rank1 · GPU 0 · 0: stream 7 | device_busy | memory_allocated (CUDA:0)',
    ])
    // a scene of the merged answer finds rank 1's rows by their renumbered tracks
    const scene = makeScene(merged)
    expect(scene.rows.get((TRACK_STRIDE + 2) * 65536)?.events.length).toBe(1)
  })

  it('leaves out a rank with nothing in the window', () => {
    const only = mergeRanks([{ ...STACK[0], answer: a }, { ...STACK[1], answer: null }], 0, 500, 800)
    expect(only.events.index).toEqual(a.events.index)
    expect(only.tracks).toHaveLength(2)
  })
})

describe('the selected event and the search, stacked', () => {
  const codec = stackCodec(() => STACK, () => 1)
  const brief = { index: 7, name: 'aten::mm', kind: 'cpu_op', track: 2, start_ns: 50, dur_ns: 10 }

  it("asks the rank's own worker for its own index", () => {
    expect(codec.details(stackedIndex(1, 7))).toEqual({ index: 7, worker: 'rank1' })
    expect(codec.details(stackedIndex(5, 7))).toBeNull()
    expect(codec.search()).toEqual({ worker: 'rank1' })
  })

  it("puts the answers on the shared axis, the worker's shift and numbering", () => {
    const event = { ...brief, parents: [brief], callers: [], launched: [brief] }
    const res = { run: 'r', worker: 'rank1', span: '', event } as unknown as EventResponse
    const got = codec.event(res).event
    expect([got.index, got.track, got.start_ns]).toEqual([stackedIndex(1, 7), TRACK_STRIDE + 2, 1050])
    expect(got.launched[0].start_ns).toBe(1050)
    const hits = { run: 'r', worker: 'rank1', span: '', window: { version: 1, origin_ns: 0, total: 1, kinds: [], names: [],
      events: { index: [7], track: [2], start_ns: [50], dur_ns: [10], name: [0], kind: [0] } } } as SearchResponse
    expect(codec.hits(hits).window.events.start_ns).toEqual([1050])
    // another worker's answer (not stacked) is left as it is
    expect(codec.event({ ...res, worker: 'rank9' }).event.start_ns).toBe(50)
  })
})

import { describe, expect, it } from 'vitest'
import { launchLinks } from '@/timeline/launchLinks'
import { changesNothing, QueryWriter, windowKey } from '@/timeline/queryWriter'
import type { EventBrief, EventDetails } from '@/timeline/types'

describe('QueryWriter', () => {
  it('merges queued changes, the later value of a key winning, and empties the queue', () => {
    const w = new QueryWriter({})
    w.add({ t0: '1', t1: '9' })
    w.add({ event: '4' })
    w.add({ t0: '2', t1: '8' })
    expect(w.waiting('event')).toBe(true)
    expect(w.take()).toEqual({ t0: '2', t1: '8', event: '4' })
    expect(w.waiting('event')).toBe(false)
    expect(w.take()).toEqual({})
  })

  it('tells its own window writes from a link to another window', () => {
    const w = new QueryWriter({ t0: '10', t1: '20' })
    expect(w.takeForeignWindow({ t0: '10', t1: '20' })).toBe(false)
    w.add({ t0: '30', t1: '40' })
    w.take()
    // the route now shows what was written: ours
    expect(w.takeForeignWindow({ t0: '30', t1: '40', event: '3' })).toBe(false)
    // a link elsewhere: adopted once
    expect(w.takeForeignWindow({ t0: '50', t1: '60' })).toBe(true)
    expect(w.takeForeignWindow({ t0: '50', t1: '60' })).toBe(false)
  })

  it('drops a waiting window write when a link moves the view, keeping other changes', () => {
    const w = new QueryWriter({})
    w.add({ t0: '1', t1: '2', fold: '0' })
    expect(w.takeForeignWindow({ t0: '5', t1: '6' })).toBe(true)
    expect(w.take()).toEqual({ fold: '0' })
  })

  it('remembers the whole trace (no t0/t1) as a window of its own', () => {
    const w = new QueryWriter({ t0: '1', t1: '2' })
    w.add({ t0: undefined, t1: undefined })
    w.take()
    expect(windowKey({})).toBe('-')
    expect(w.takeForeignWindow({})).toBe(false)
  })
})

describe('changesNothing', () => {
  it('counts empty and absent as the same', () => {
    expect(changesNothing({ q: 'a' }, { q: 'a' })).toBe(true)
    expect(changesNothing({}, { q: undefined, event: '' })).toBe(true)
    expect(changesNothing({ q: 'a' }, { q: undefined })).toBe(false)
    expect(changesNothing({}, { event: '3' })).toBe(false)
  })
})

function brief(index: number, track: number, start: number): EventBrief {
  return { index, name: `e${index}`, kind: 'kernel', track, start_ns: start, dur_ns: 5 }
}

function details(callers: EventBrief[], launched: EventBrief[]): EventDetails {
  return {
    ...brief(7, 1, 100), category: '', depth: 2, track_info: null, args: {}, parents: [],
    callers, launched, launched_total: launched.length, origin_ns: 0, version: 1,
  }
}

describe('launchLinks', () => {
  const sel = { index: 7, track: 1, depth: 2, start_ns: 100, dur_ns: 5, name: 'e7' }

  it('draws launcher -> event and event -> launched, across tracks only', () => {
    const d = details([brief(3, 0, 90), brief(2, 0, 80)], [brief(8, 2, 120), brief(9, 1, 130)])
    expect(launchLinks(d, sel)).toEqual([
      { srcTrack: 0, srcNs: 90, dstTrack: 1, dstNs: 100, dstDepth: 2 },
      { srcTrack: 1, srcNs: 100, srcDepth: 2, dstTrack: 2, dstNs: 120 },
    ])
  })

  it('draws nothing for details of another event or without a selection', () => {
    const d = details([brief(3, 0, 90)], [])
    expect(launchLinks(d, { ...sel, index: 8 })).toEqual([])
    expect(launchLinks(d, null)).toEqual([])
    expect(launchLinks(undefined, sel)).toEqual([])
  })
})

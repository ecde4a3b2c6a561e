import { describe, expect, it } from 'vitest'
import {
  describeLayout, GEOMETRY, groupTracks, layoutTracks, processLabel, rowAt, rowBox, trackLabel,
} from '@/timeline/layout'
import type { TrackInfo } from '@/timeline/types'

function track(id: number, pid: string, tid: string, depth: number, extra: Partial<TrackInfo> = {}): TrackInfo {
  return { id, pid, tid, process_name: '', thread_name: '', is_device: false, depth, events: 10, ...extra }
}

// The shape of the Kineto GPU sample: two host threads of one process, a device stream, the
// profiler's own tracks, in the order the trace lists them.
const TRACKS = [
  track(0, '25738', '25738', 8, { process_name: 'CPU', thread_name: 'thread 25738 (python)' }),
  track(1, '25738', '25772', 5, { process_name: 'CPU', thread_name: 'thread 25772 (python)' }),
  track(2, '0', 'stream 7', 1, { process_name: 'GPU 0', is_device: true }),
  track(3, 'Traces', 'PyTorch Profiler', 1),
  track(4, 'Traces', 'Trace PyTorch Profiler', 0),
]
const { headerH: H, rowH: R, trackPad: P } = GEOMETRY

describe('track layout', () => {
  it('groups tracks by process in trace order and labels them', () => {
    const groups = groupTracks(TRACKS)
    expect(groups.map((g) => [g.pid, g.tracks.map((t) => t.id)])).toEqual([
      ['25738', [0, 1]], ['0', [2]], ['Traces', [3, 4]],
    ])
    expect(processLabel(TRACKS[0])).toBe('CPU · 25738')
    expect(processLabel(TRACKS[3])).toBe('Traces')
    expect(processLabel({ pid: '', process_name: '' })).toBe('Trace-wide events')
    expect(processLabel({ pid: '', process_name: '' }, '全局事件')).toBe('全局事件')
    expect(trackLabel({ tid: ' ', thread_name: '' })).toBe('(no thread)')
    expect(trackLabel(TRACKS[0])).toBe('thread 25738 (python)')
    expect(trackLabel(TRACKS[2])).toBe('stream 7')
  })

  it('names what the trace leaves unnamed and leaves out tracks without events', () => {
    // Kineto's trace-wide instant events ("Record Window End": no pid, no tid) come last;
    // a MindSpore `memory` track holds allocation samples only (no events); an Ascend
    // process whose only thread has no events is no group at all
    const tracks = [
      ...TRACKS,
      track(5, '25738', 'memory', 0, { process_name: 'CPU', thread_name: 'memory', events: 0 }),
      track(6, '3089232096', '3020403', 0, { thread_name: 'Thread 3020403', events: 0 }),
      track(7, '', '', 1),
    ]
    expect(groupTracks(tracks).map((g) => [g.pid, g.tracks.map((t) => t.id)])).toEqual([
      ['25738', [0, 1]], ['0', [2]], ['Traces', [3, 4]], ['', [7]],
    ])
    const layout = layoutTracks(tracks, new Set(), GEOMETRY, { process: 'Global', track: 'none' })
    expect(describeLayout(layout).split('\n')).toEqual([
      'CPU · 25738: thread 25738 (python) | thread 25772 (python)',
      'GPU 0 · 0: stream 7',
      'Traces: PyTorch Profiler | Trace PyTorch Profiler',
      'Global: none',
    ])
    expect(layout.byTrack.has(5)).toBe(false)
    expect(rowBox(layout, 6, 0)).toBeNull()
    expect(layout.groups.every((g) => g.tracks.length > 0 && g.label.trim() !== '' && g.label !== '–')).toBe(true)
  })

  it('stacks headers and rows; a track gets a row per nesting level', () => {
    const layout = layoutTracks(TRACKS, new Set())
    const [cpu, gpu, traces] = layout.groups
    expect(cpu.y).toBe(0)
    expect(cpu.tracks.map((b) => [b.y, b.rows])).toEqual([[H, 8], [H + 8 * R + P, 5]])
    expect(cpu.height).toBe(H + 13 * R + 2 * P)
    expect(gpu.y).toBe(cpu.height)
    expect(gpu.isDevice).toBe(true)
    expect(cpu.isDevice).toBe(false)
    expect(traces.tracks[1].rows).toBe(1)
    expect(layout.height).toBe(traces.y + traces.height)
    expect(rowBox(layout, 1, 2)).toEqual({ y: H + 8 * R + P + 2 * R, h: R })
    expect(rowBox(layout, 1, 5)).toBeNull()
    expect(rowBox(layout, 99, 0)).toBeNull()
  })

  it('collapses a group to its header, with top rows drawn inside it', () => {
    const open = layoutTracks(TRACKS, new Set())
    const folded = layoutTracks(TRACKS, new Set([0]))
    expect(folded.groups[0].collapsed).toBe(true)
    expect(folded.groups[0].height).toBe(H)
    expect(folded.groups[1].y).toBe(H)
    expect(folded.height).toBe(open.height - (open.groups[0].height - H))
    expect(rowBox(folded, 0, 0)).toEqual({ y: 4, h: H - 8 })
    expect(rowBox(folded, 1, 0)).toEqual({ y: 4, h: H - 8 })
    expect(rowBox(folded, 0, 3)).toBeNull()
  })

  it('finds the header or row at a height', () => {
    const layout = layoutTracks(TRACKS, new Set([1]))
    expect(rowAt(layout, 3)).toMatchObject({ type: 'header', group: { index: 0 } })
    expect(rowAt(layout, H + 2.5 * R)).toMatchObject({ type: 'row', depth: 2, box: { track: { id: 0 } } })
    expect(rowAt(layout, H + 8 * R + P + 1)).toMatchObject({ type: 'row', depth: 0, box: { track: { id: 1 } } })
    // the padding under a track's last row is no row
    expect(rowAt(layout, H + 8 * R + 1)).toBeNull()
    const gpu = layout.groups[1]
    expect(rowAt(layout, gpu.y + 1)).toMatchObject({ type: 'header', group: { index: 1, collapsed: true } })
    expect(rowAt(layout, gpu.y + H + 1)).toMatchObject({ type: 'header', group: { index: 2 } })
    expect(rowAt(layout, -1)).toBeNull()
    expect(rowAt(layout, layout.height + 1)).toBeNull()
  })
})

import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SIZE, DEFAULT_TOP, fromElSort, lastPage, pageRequest, readTableState, tableQueryChanges,
  type TableDefaults,
} from '@/components/tables/tableState'
import {
  compactShape, shapeText, formatCell, frameLabel, isAdditive, kernelLabel, pieMetric, shorten, stackFrames, topSlices, userFrame,
} from '@/components/tables/columns'

const d: TableDefaults = { sort: 'device_self_us', sortable: ['name', 'calls', 'device_self_us', 'host_self_us'] }

describe('table state in the URL query', () => {
  it('reads defaults from an empty query', () => {
    expect(readTableState({}, d)).toEqual({
      sort: 'device_self_us', order: 'desc', page: 1, size: DEFAULT_SIZE, search: '', top: DEFAULT_TOP,
    })
  })

  it('reads every key, and falls back on what is invalid', () => {
    const s = readTableState({ sort: 'calls', order: 'asc', page: '3', size: '50', search: 'conv', top: '5' }, d)
    expect(s).toEqual({ sort: 'calls', order: 'asc', page: 3, size: 50, search: 'conv', top: 5 })
    const bad = readTableState({ sort: 'nope', order: 'up', page: '0', size: '33', top: '7', search: '' }, d)
    expect(bad).toEqual(readTableState({}, d))
    expect(readTableState({ page: '-2' }, d).page).toBe(1)
    expect(readTableState({ page: ['4', '5'] }, d).page).toBe(4)
  })

  it('writes only what differs from the defaults, and round-trips', () => {
    const start = readTableState({}, d)
    const q = tableQueryChanges({ sort: 'host_self_us', order: 'asc', size: 100, top: 20, search: ' add ' }, start, d)
    expect(q).toEqual({ sort: 'host_self_us', order: 'asc', page: undefined, size: '100', search: 'add', top: '20' })
    const defined = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Record<string, string>
    expect(readTableState(defined, d)).toEqual({ ...start, sort: 'host_self_us', order: 'asc', size: 100, top: 20, search: 'add' })
    expect(Object.values(tableQueryChanges({}, start, d)).every((v) => v === undefined)).toBe(true)
  })

  it('goes back to page 1 when the rows change, not when only the page or pie does', () => {
    const on3 = readTableState({ page: '3' }, d)
    for (const change of [{ search: 'x' }, { sort: 'calls' }, { order: 'asc' as const }, { size: 50 }]) {
      expect(tableQueryChanges(change, on3, d).page, JSON.stringify(change)).toBeUndefined()
    }
    expect(tableQueryChanges({ top: 5 }, on3, d).page).toBe('3')
    expect(tableQueryChanges({ page: 4 }, on3, d).page).toBe('4')
    expect(tableQueryChanges({ search: 'x', page: 2 }, on3, d).page).toBe('2')
  })

  it('asks the API for the page shown', () => {
    const s = readTableState({ page: '3', size: '50', search: 'mm', sort: 'calls', order: 'asc' }, d)
    expect(pageRequest(s)).toEqual({ sort: 'calls', order: 'asc', search: 'mm', offset: 100, limit: 50 })
    expect(pageRequest(readTableState({}, d)).search).toBeUndefined()
    expect(lastPage(101, 50)).toBe(3)
    expect(lastPage(0, 20)).toBe(1)
  })

  it('maps Element Plus sort events, a cleared sort to the default', () => {
    expect(fromElSort('calls', 'ascending', d)).toEqual({ sort: 'calls', order: 'asc' })
    expect(fromElSort('calls', 'descending', d)).toEqual({ sort: 'calls', order: 'desc' })
    expect(fromElSort('calls', null, d)).toEqual({ sort: 'device_self_us', order: 'desc' })
  })
})

describe('columns and the pie', () => {
  it('sums only times and counts', () => {
    for (const k of ['calls', 'total_us', 'host_self_us', 'device_total_us']) expect(isAdditive(k), k).toBe(true)
    for (const k of ['mean_us', 'min_us', 'max_us', 'start_us', 'occupancy', 'tc_self_ratio', 'name', 'percent']) {
      expect(isAdditive(k), k).toBe(false)
    }
    expect(pieMetric('occupancy', 'total_us')).toBe('total_us')
    expect(pieMetric('calls', 'total_us')).toBe('calls')
  })

  it('draws the top N and the rest of the sum over every matching row', () => {
    const rows = [3, 10, 0, 5, 1].map((v, i) => ({ name: `op${i}`, t: v }))
    const slices = topSlices(rows, (r) => r.name, 't', 100, 2, 'rest')
    expect(slices).toEqual([{ name: 'op1', value: 10 }, { name: 'op3', value: 5 }, { name: 'rest', value: 85 }])
    // no rest when the top rows are all there is; rows without time are left out
    expect(topSlices(rows, (r) => r.name, 't', 19, 10, 'rest').map((s) => s.name)).toEqual(['op1', 'op3', 'op0', 'op4'])
    expect(topSlices(rows, (r) => r.name, 't', undefined, 1, 'rest')).toEqual([{ name: 'op1', value: 10 }])
  })

  it('formats cells by kind', () => {
    expect(formatCell('us', 1500)).toBe('1.50 ms')
    expect(formatCell('count', 23616)).toBe('23,616')
    expect(formatCell('share', 0.25)).toBe('25.0 %')
    expect(formatCell('pct', 49.13)).toBe('49.1 %')
    expect(formatCell('bytes', 6400)).toBe('6.3 KiB')
    expect(formatCell('us', null)).toBe('–')
    expect(formatCell('text', '')).toBe('–')
  })

  it('shortens names in the middle and kernels to their name', () => {
    const long = 'a'.repeat(30) + 'MIDDLE' + 'z'.repeat(30)
    const s = shorten(long, 20)
    expect(s).toHaveLength(20)
    expect(s.startsWith('aaaa') && s.endsWith('zzzz') && s.includes('…')).toBe(true)
    expect(shorten('short', 20)).toBe('short')
    expect(kernelLabel('void cudnn::detail::dgrad_engine<float, 512>(int, float const*, kernel_grad_params)'))
      .toBe('cudnn::detail::dgrad_engine<float, 512>')
    expect(kernelLabel('void f<(anonymous namespace)::K>(int (*)(int))')).toBe('f<(anonymous namespace)::K>')
    expect(kernelLabel('hcom_allReduce__586_0_1')).toBe('hcom_allReduce__586_0_1')
  })

  it('drops empty entries from input shapes', () => {
    expect(compactShape([[], [32, 1024, 14, 14], [1024, 256, 1, 1], [], []])).toBe('[32,1024,14,14] [1024,256,1,1]')
    expect(compactShape([[32, 3, 224, 224], [0]])).toBe('[32,3,224,224] [0]')
    expect(compactShape([[[2, 3], [2, 3]], []])).toBe('[[2,3],[2,3]]') // a tensor list
    expect(compactShape(['4097000'])).toBe('"4097000"')
    expect(compactShape([[], []])).toBe('')
    expect(compactShape('[[], [32, 64]]')).toBe('[32,64]') // JSON text, as older answers had
    expect(shapeText([[32, 64], [], [64]])).toBe('[[32,64],[],[64]]')
    expect(compactShape(undefined)).toBe('')
  })

  it('splits call stacks and picks the user frame', () => {
    const stack = '/usr/lib/python3.9/site-packages/torch/nn/modules/conv.py(456): _conv_forward;\r\n'
      + '/usr/lib/python3.9/site-packages/torch/nn/modules/conv.py(460): forward;/home/me/train.py(354): train;/home/me/main.py(9): <module>'
    const frames = stackFrames(stack)
    expect(frames).toHaveLength(4)
    expect(userFrame(frames)).toBe('/home/me/train.py(354): train')
    expect(frameLabel(userFrame(frames))).toBe('train.py(354): train')
    expect(userFrame(frames.slice(0, 2))).toBe(frames[0])
    expect(stackFrames('')).toEqual([])
  })
})

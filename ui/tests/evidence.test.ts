import { describe, expect, it } from 'vitest'
import { evidenceRoute } from '@/evidence'

const carry = { worker: 'rank1' }

describe('evidenceRoute', () => {
  it('opens the timeline on a time range with a margin, in ns from the origin', () => {
    const route = evidenceRoute(
      { kind: 'time_range', label: 'gap', page: 'timeline', start_ns: 5e18, end_ns: 5e18 + 1e6, window_ns: [2_000_000, 3_000_000] },
      'abc', carry,
    )
    expect(route).toEqual({
      name: 'timeline', params: { run: 'abc' },
      query: { worker: 'rank1', t0: '1950000', t1: '3050000', mark: '2000000-3000000' },
    })
  })

  it('searches the module it names', () => {
    expect(evidenceRoute({ kind: 'kernel', label: 'x', page: 'modules', name: 'Linear' }, 'r')).toEqual({
      name: 'modules', params: { run: 'r' }, query: { search: 'Linear' },
    })
  })

  it('opens an operator on its row by name, and an operator type in the type view', () => {
    expect(evidenceRoute({ kind: 'operator', label: 'x', page: 'operators', name: 'aten::add' }, 'r')).toEqual({
      name: 'operators', params: { run: 'r' }, query: { select: 'aten::add' },
    })
    expect(evidenceRoute({ kind: 'operator_type', label: 'x', page: 'operators', name: 'MatMul' }, 'r')).toEqual({
      name: 'operators', params: { run: 'r' }, query: { group: 'type', select: 'MatMul' },
    })
  })

  it('marks a collective kind (no rank) on the communication page', () => {
    expect(evidenceRoute({ kind: 'metric', label: 'l', page: 'communication', name: 'AllReduce' }, 'r'))
      .toEqual({ name: 'communication', params: { run: 'r' }, query: { collective: 'AllReduce' } })
  })

  it('names the slow link on the communication page', () => {
    expect(evidenceRoute({ kind: 'metric', label: 'l', page: 'communication', name: '0-1 HCCS', rank: 0 }, 'r', carry))
      .toEqual({ name: 'communication', params: { run: 'r' }, query: { worker: 'rank1', link: '0-1 HCCS' } })
  })

  it('chooses the step on the step trace and the rank on the cluster page', () => {
    expect(evidenceRoute({ kind: 'step', label: 's', page: 'step_trace', step: '7' }, 'r', carry))
      .toMatchObject({ name: 'step-trace', query: { step: '7', worker: 'rank1' } })
    expect(evidenceRoute({ kind: 'rank', label: 'r', page: 'cluster', rank: 2 }, 'r'))
      .toMatchObject({ name: 'cluster', query: { rank: '2' } })
  })

  it('links nowhere for a metric without a page or a timeline range without a window', () => {
    expect(evidenceRoute({ kind: 'metric', label: 'm', page: '' }, 'r')).toBeNull()
    expect(evidenceRoute({ kind: 'time_range', label: 't', page: 'timeline', start_ns: 1, end_ns: 2 }, 'r')).toBeNull()
    expect(evidenceRoute({ kind: 'metric', label: 'm', page: 'nowhere', name: 'x' }, 'r')).toBeNull()
  })

  it('sends a bare time range to the timeline', () => {
    expect(evidenceRoute({ kind: 'time_range', label: 't', page: '', window_ns: [0, 10] }, 'r'))
      .toMatchObject({ name: 'timeline', query: { t0: '0', t1: '1010' } })
  })
})

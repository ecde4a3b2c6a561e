import { describe, expect, it } from 'vitest'
import {
  combinedSaving, findingsOn, legendShare, ledgerView, orderedParts, partsOf, partsOfFinding, spread, LEDGER_PARTS,
} from '@/components/advisor/ledger'

/** A ledger of 100 us: 60 device compute, 30 data wait, 10 host compute, the rest empty. */
const LEDGER: Record<string, number> = {
  device_compute: 60, exposed_copies: 0, exposed_communication: 0, data_wait: 30, sync_wait: 0,
  host_launch: 0, host_compute: 10, untracked: 0,
}
/**
 * Worked by hand (and by `advisor.ledger.combined`, which gives 70.0 for it): A takes 30 of
 * data wait; B spreads 20 over data wait and host compute by size (15 + 5); C claims the
 * step and spreads 50 over every part (30 + 15 + 5). Data wait is claimed 60 but gives 30,
 * host compute 10 of 10, device compute 30: together 70.
 */
const FINDINGS = [
  { id: 'a', estimated_saving_us: 30, claims: ['data_wait'] },
  { id: 'b', estimated_saving_us: 20, claims: ['data_wait', 'host_compute'] },
  { id: 'c', estimated_saving_us: 50, claims: ['step'] },
  { id: 'none', estimated_saving_us: null, claims: [] },
]

describe('the advisor ledger bar', () => {
  it('spreads a saving over its parts in proportion to their sizes', () => {
    const s = spread(FINDINGS, LEDGER)
    expect([...s.keys()]).toEqual(['a', 'b', 'c']) // no saving: no claim
    expect(Object.fromEntries(s.get('b')!)).toEqual({ data_wait: 15, host_compute: 5 })
    expect(Object.fromEntries(s.get('c')!)).toEqual({ device_compute: 30, data_wait: 15, host_compute: 5 })
  })

  it('counts each part once, as the backend does', () => {
    expect(combinedSaving(FINDINGS, LEDGER)).toBeCloseTo(70, 9)
    // two findings on the same part: the part, not their sum (backend: 30.0)
    const same = [
      { id: 'x', estimated_saving_us: 30, claims: ['data_wait'] },
      { id: 'y', estimated_saving_us: 25, claims: ['data_wait'] },
    ]
    expect(combinedSaving(same, LEDGER)).toBeCloseTo(30, 9)
    // a claim on an empty part saves nothing (backend: 0.0)
    expect(combinedSaving([{ id: 'z', estimated_saving_us: 5, claims: ['exposed_copies'] }], LEDGER)).toBe(0)
    // without a ledger: the plain sum, capped at the step
    expect(combinedSaving(same, null, 40)).toBe(40)
    expect(combinedSaving(same, {}, null)).toBe(55)
  })

  it('scales the claims on an over-claimed part so they fill it at most', () => {
    const view = ledgerView(LEDGER, FINDINGS)!
    expect(view.step_us).toBe(100)
    expect(view.combined_us).toBeCloseTo(70, 9)
    const wait = view.segments.find((s) => s.part === 'data_wait')!
    expect(wait.start_us).toBe(60)
    expect(wait.claimed_us).toBe(60)
    expect(wait.counted_us).toBe(30)
    expect(wait.claims.map((c) => [c.finding, c.alone_us, c.us, c.offset_us])).toEqual([
      ['a', 30, 15, 0], ['b', 15, 7.5, 15], ['c', 15, 7.5, 22.5],
    ])
    const host = view.segments.find((s) => s.part === 'host_compute')!
    expect(host.claims.map((c) => c.us)).toEqual([5, 5]) // exactly full: not scaled
    for (const seg of view.segments) {
      expect(seg.claims.reduce((s, c) => s + c.us, 0)).toBeLessThanOrEqual(seg.us + 1e-9)
    }
    expect(findingsOn(view, 'data_wait')).toEqual(new Set(['a', 'b', 'c']))
    expect(findingsOn(view, 'device_compute')).toEqual(new Set(['c']))
    expect(partsOfFinding(view, 'b')).toEqual(['data_wait', 'host_compute'])
  })

  it('matches the advisor on the kineto resnet50 run', () => {
    // `mindinsight advise --format json kineto/resnet50_num_workers_0`: the backend's
    // combined_saving_us is 78393.316 for these ledger parts, savings and claims
    const ledger = {
      device_compute: 98588.667, exposed_copies: 2004.333, exposed_communication: 0.0, data_wait: 59261.833,
      sync_wait: 122.333, host_launch: 2785.167, host_compute: 13674.167, untracked: 1155.667,
    }
    const findings = [
      { id: 'gpu_idle_gaps', estimated_saving_us: 59390.0,
        claims: ['data_wait', 'sync_wait', 'host_launch', 'host_compute', 'untracked'] },
      { id: 'dataloader_single_process', estimated_saving_us: 59261.833, claims: ['data_wait'] },
      { id: 'dataloader_wait', estimated_saving_us: 59261.833, claims: ['data_wait'] },
      { id: 'host_bound_cpu', estimated_saving_us: 13674.167, claims: ['host_compute'] },
      { id: 'short_kernels', estimated_saving_us: 2246.0, claims: ['host_launch', 'host_compute'] },
      { id: 'pageable_memcpy', estimated_saving_us: 1915.333, claims: ['exposed_copies'] },
      { id: 'blocking_sync', estimated_saving_us: 91.833, claims: ['sync_wait'] },
      { id: 'slow_dataloader_call', estimated_saving_us: null, claims: [] },
    ]
    expect(combinedSaving(findings, ledger)).toBeCloseTo(78393.316, 2)
    // the plain sum is what the ledger prevents
    expect(findings.reduce((s, f) => s + (f.estimated_saving_us ?? 0), 0)).toBeGreaterThan(195_000)
  })

  it('orders parts as the backend does and keeps unknown ones last', () => {
    const shuffled = { untracked: 1, future_part: 2, device_compute: 3 }
    expect(orderedParts(shuffled)).toEqual(['device_compute', 'untracked', 'future_part'])
    expect(partsOf(['step'], LEDGER_PARTS)).toEqual([...LEDGER_PARTS])
    expect(partsOf([], ['a', 'b'])).toEqual(['a', 'b'])
    expect(partsOf(['host_compute', 'data_wait'], LEDGER_PARTS)).toEqual(['data_wait', 'host_compute'])
    expect(ledgerView({ device_compute: 0 }, FINDINGS)).toBeNull()
    expect(ledgerView(null, FINDINGS)).toBeNull()
    expect([0.0007, 0, 0.0049, 0.005, 0.334].map(legendShare)).toEqual(['<1 %', '0 %', '<1 %', '1 %', '33 %'])
  })
})

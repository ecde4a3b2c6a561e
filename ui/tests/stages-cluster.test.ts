import { describe, expect, it } from 'vitest'
import type { Cluster, ClusterRank, Communication, WorkerStages } from '@/api/stages'
import { heatCells, presentKeys, rankRows, slowestRank, slowestTone, TRACE_KEYS, waitingByRank } from '@/components/stages/cluster'
import { collectiveRows, commShare, commStepSeries, focusFirst, linkBars, linkKey, linkMatrix } from '@/components/stages/comm'
import { stepRuns } from '@/covered'

function stages(rank: number, total: number): WorkerStages {
  return {
    worker: `rank${rank}`, rank, steps: 4, step_us: total, step_covered: null, total_us: total, iteration_interval_us: total * 0.1, fp_and_bp_us: total * 0.8,
    tail_us: total * 0.1, computation_us: null, communication_alone_us: null, stage_us: null, receive_alone_us: null,
    collective_communication_alone_us: null,
  }
}
function comm(rank: number, step: number): ClusterRank {
  return {
    rank, steps: 4, step_us: step, computation_us: null, overlapped_us: null, exposed_communication_us: null,
    other_us: null, communication_us: step / 10, tool_wait_us: step / 2,
  }
}

describe('cluster rows', () => {
  const cluster: Cluster = {
    run: 'r', workers: ['rank0', 'rank1', 'rank2'],
    ranks: [comm(0, 100), comm(1, 100), comm(2, 400)],
    slowest: { rank: 2, step_us: 400, over_others_us: 300, over_others_pct: 300, fastest_rank: 0, over_fastest_us: 300,
      steps_compared: ['1'], own_us: 390, others_own_us: 90, slow: true },
    collectives: [
      { name: 'AllReduce', ranks: [0, 1, 2], calls: [3, 3, 3], matched_calls: 3, transfer_us: 10, waiting_us: [5, 0, 20] },
      { name: 'Send', ranks: [0, 1, 2], calls: [1, 1, 2], matched_calls: 1, transfer_us: 2, waiting_us: [1, 1, 0] },
      { name: 'Solo', ranks: [0], calls: [1], matched_calls: 0, transfer_us: null, waiting_us: null },
    ],
    stages: [stages(2, 90), stages(0, 100), stages(1, 110)],
    outliers: [],
    comm_matrix: { devices: [], transports: [] },
  }

  it('joins communication and stages on the rank, with the gap to the mean step', () => {
    const rows = rankRows(cluster)
    expect(rows.map((r) => [r.rank, r.worker])).toEqual([[0, 'rank0'], [1, 'rank1'], [2, 'rank2']])
    // each row's step is the worker's overview average (stages), never communication's
    expect(rows.map((r) => r.step_us)).toEqual([100, 110, 90])
    expect(rows.map((r) => r.gap_us)).toEqual([0, 10, -10]) // mean 100
    expect(rows[2].gap_pct).toBe(-10)
    const slow = slowestRank(cluster, rows)
    // the server's figures (against the others, over the compared steps), not the row's
    expect(slow).toMatchObject({ rank: 2, worker: 'rank2', step_us: 400, gap_us: 300, gap_pct: 300, fastest_rank: 0, compared: ['1'] })
    expect(slowestTone(slow!)).toBe('warning') // 100 % above the mean
    expect(slowestTone({ ...slow!, gap_pct: 0.3 })).toBe('info') // within noise: a plain fact
    expect(slowestTone({ ...slow!, slow: false })).toBe('info') // it waited: no straggler
  })

  it('states the server’s figures when the rows average other steps (cluster_propose)', () => {
    // MindSpore cluster_propose: ranks 2 and 3 have only steps 1-2, so the server compares
    // step 2, where rank 0 is slowest; rank 0's own 4-step average is below ranks 2 and 3's.
    const propose: Cluster = {
      ...cluster, workers: ['rank0', 'rank1', 'rank2', 'rank3'],
      ranks: [comm(0, 179413.86), comm(1, 179372.43), comm(2, 180938.72), comm(3, 180997.04)],
      slowest: { rank: 0, step_us: 181012.69, over_others_us: 66.54, over_others_pct: 0.0368, fastest_rank: 1,
        over_fastest_us: 110, steps_compared: ['2'], own_us: 178416.19, others_own_us: 178992.89, slow: false },
      stages: [stages(0, 179413.86), stages(1, 179372.43), stages(2, 179364.29), stages(3, 179380.47)],
    }
    const rows = rankRows(propose)
    // each row's step is the rank's overview average (steps 2-5), not communication's (step 2)
    expect(rows.map((r) => r.step_us)).toEqual([179413.86, 179372.43, 179364.29, 179380.47])
    expect(rows[0].gap_us).toBeGreaterThan(0) // on its overview average too, rank 0 is above the mean
    const slow = slowestRank(propose, rows)!
    expect(slow).toMatchObject({ rank: 0, step_us: 181012.69, gap_us: 66.54, compared: ['2'], slow: false })
    expect(slow.gap_us).toBeGreaterThan(0) // never "slowest" with a negative gap
    expect(slowestTone(slow)).toBe('info')
  })

  it('falls back to the step trace when there is no communication', () => {
    const bare = { ...cluster, ranks: [], slowest: null, collectives: [] }
    const rows = rankRows(bare)
    expect(rows.map((r) => r.step_us)).toEqual([100, 110, 90])
    expect(slowestRank(bare, rows)).toMatchObject({ rank: 1, gap_us: 10 })
    expect(slowestRank({ ...bare, stages: [stages(0, 5)] }, rankRows({ ...bare, stages: [stages(0, 5)] }))).toBeNull()
  })

  it('keeps the stages some rank has, and relates each cell to its stage mean', () => {
    const rows = rankRows(cluster)
    expect(presentKeys(rows, TRACE_KEYS, 'trace')).toEqual([...TRACE_KEYS])
    expect(presentKeys(rows, ['computation_us', 'communication_us'], 'comm')).toEqual(['communication_us'])
    const { cells, raw } = heatCells(rows, [{ key: 'total_us', from: 'trace' }])
    expect(cells.map((c) => c[2])).toEqual([100 / 100, 110 / 100, 90 / 100])
    expect(raw.get('0,1')).toBe(110)
  })

  it('sums each rank’s waiting over the matched collectives', () => {
    expect(waitingByRank(cluster)).toEqual([
      { rank: 0, waiting_us: 6, transfer_us: 12 }, { rank: 1, waiting_us: 1, transfer_us: 12 },
      { rank: 2, waiting_us: 20, transfer_us: 12 },
    ])
  })
})

describe('communication', () => {
  const kernels: Communication = {
    source: 'kernels', rank: 0,
    steps: [{ step: '1', step_us: 100, computation_us: 50, overlapped_us: 10, exposed_communication_us: 30, other_us: 10, communication_us: 40 }],
    collectives: [{ name: 'AllReduce', calls: 4, total_us: 2000, bytes: 4e6, tool_wait_us: null, durations_us: [100, 900, 500, 500] }],
    links: [
      { link: '0-0', src: 0, dst: 0, transport: 'LOCAL', bandwidth: 400, unit: 'GB/s', steps: 1, mean_transfer_mb: null },
      { link: '0-1', src: 0, dst: 1, transport: 'HCCS', bandwidth: 15, unit: 'GB/s', steps: 1, mean_transfer_mb: null },
    ],
    average: { step_us: 100, computation_us: 50, overlapped_us: 10, exposed_communication_us: 30, other_us: 10, communication_us: 40, tool_wait_us: null },
    average_steps: ['1'],
    covered: { count: 1, first: '1', last: '1', left_out: [], compile: [] },
  }

  it('splits kernel traces four ways and hccl_raw steps into communication and wait', () => {
    const s = commStepSeries(kernels)
    expect(s.stacked).toBe(true)
    expect(s.series.map((x) => x.key)).toEqual(['computation_us', 'overlapped_us', 'exposed_communication_us', 'other_us'])
    const hccl = commStepSeries({
      ...kernels, source: 'hccl_raw',
      steps: [{ step: '1', step_us: null, computation_us: null, overlapped_us: null, exposed_communication_us: null, other_us: null, communication_us: 3, tool_wait_us: 9 }],
    })
    expect(hccl.stacked).toBe(false)
    expect(hccl.series.map((x) => [x.key, x.values])).toEqual([['communication_us', [3]], ['tool_wait_us', [9]]])
    expect(commShare(kernels)).toBe(0.4)
  })

  it('says which steps an average covers when it leaves some out', () => {
    expect(stepRuns(['2', '3', '4', '7', '9', '10'])).toBe('2–4, 7, 9–10')
    expect(stepRuns(['a', '1', '2'])).toBe('a, 1–2')
  })

  it('lists the link the advisor names first', () => {
    const keys = (ls: typeof kernels.links) => ls.map(linkKey)
    expect(keys(focusFirst(kernels.links, '0-1 HCCS'))).toEqual(['0-1 HCCS', '0-0 LOCAL'])
    expect(keys(focusFirst(kernels.links, '9-9 RDMA'))).toEqual(['0-0 LOCAL', '0-1 HCCS'])
    expect(keys(focusFirst(kernels.links, ''))).toEqual(['0-0 LOCAL', '0-1 HCCS'])
  })

  it('gives each collective its mean, max and bandwidth', () => {
    const [r] = collectiveRows(kernels)
    expect(r.mean_us).toBe(500)
    expect(r.max_us).toBe(900)
    expect(r.bandwidth_gbps).toBeCloseTo(4e6 / 2e-3 / 1e9) // 2 GB/s
    expect(collectiveRows({ ...kernels, collectives: [{ ...kernels.collectives[0], bytes: null }] })[0].bandwidth_gbps).toBeNull()
  })

  it('draws one sender’s links as bars (log when they span > 20x), several as a matrix', () => {
    expect(linkMatrix(kernels.links)).toBeNull()
    const bars = linkBars(kernels.links)
    expect(bars.log).toBe(true)
    expect(bars.series).toEqual([{ transport: 'LOCAL', values: [400, null] }, { transport: 'HCCS', values: [null, 15] }])
    const m = linkMatrix([...kernels.links, { link: '1-0', src: 1, dst: 0, transport: 'HCCS', bandwidth: 12, unit: 'GB/s', steps: 1, mean_transfer_mb: null }])!
    expect(m.ranks).toEqual([0, 1])
    expect(m.cells).toContainEqual([0, 1, 12]) // dst 0, src 1
    expect(m.max).toBe(400)
    expect(m.transports.get('1-0')).toBe('HCCS')
  })
})

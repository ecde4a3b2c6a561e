import { describe, expect, it } from 'vitest'
import type { DataPipeline, PipelineOp, QueueSummary, Verdict } from '@/api/stages'
import { flowNodes, focusTarget, layoutPipeline, opName, waitRows } from '@/components/stages/pipeline'

function queue(name: QueueSummary['name'], sizes: number[], capacity: number | null): QueueSummary {
  const empty = sizes.filter((s) => s === 0).length
  const full = capacity === null ? null : sizes.filter((s) => s === capacity).length
  return {
    name, capacity, samples: sizes.length, empty, full, empty_rate: empty / sizes.length,
    full_rate: full === null ? null : full / sizes.length, average_size: sizes.reduce((a, b) => a + b, 0) / sizes.length,
    steady_empty: empty, steady_samples: sizes.length,
  }
}

function op(op_id: number, parent_id: number | null, op_type = 'MapOp', flagged = false): PipelineOp {
  return { op_id, op_type, num_workers: 2, parent_id, queue_capacity: 16, queue_usage: 0.5, flagged, reason: flagged ? 'source_slow' : null }
}

function pipeline(queues: QueueSummary[], bottleneck: Verdict['bottleneck'], ops: PipelineOp[] | null = null): DataPipeline {
  return {
    framework: 'mindspore', data_wait: null, queues, workers: null, ops,
    pipeline_verdict: ops ? { bottleneck: 'ops', ops: ops.filter((o) => o.flagged).map((o) => o.op_id), suggestions: [] } : null,
    cpu: null, verdict: { bottleneck, rule: { en: '', zh: '' } },
  }
}

describe('flowNodes', () => {
  it('marks a host queue empty in more than 30 % of steps, and the stage the verdict names', () => {
    const dp = pipeline([queue('host_queue', [0, 0, 5, 5, 5], 64), queue('chip_queue', [3, 2, 1], null)], 'data_processing')
    const nodes = flowNodes(dp, null)
    expect(nodes.map((n) => n.key)).toEqual(['processing', 'host_queue', 'transmission', 'chip_queue', 'getnext'])
    const by = Object.fromEntries(nodes.map((n) => [n.key, n]))
    expect(by.host_queue).toMatchObject({ status: 'bad', empty: 2, samples: 5, emptyRate: 0.4, fullRate: 0 })
    expect(by.processing.status).toBe('bad')
    expect(by.chip_queue).toMatchObject({ status: 'ok', empty: 0, samples: 3 })
    expect(by.transmission.status).toBe('missing') // no per-step times
  })

  it('blames transmission when the chip queue empties and the host queue is fed', () => {
    const dp = pipeline([queue('host_queue', [0, 5, 5, 5], 64), queue('chip_queue', [0, 2], null)], 'data_transmission')
    const qs = { host: [], chip: null, times: [{ source: 'device_queue', steps: ['1', '2'], get_us: [1, 1], push_us: [4, 8], total_us: [5, 9] }] }
    const by = Object.fromEntries(flowNodes(dp, qs).map((n) => [n.key, n]))
    expect(by.host_queue.status).toBe('ok') // 25 % empty
    expect(by.chip_queue.status).toBe('bad')
    expect(by.transmission).toMatchObject({ status: 'bad', value_us: 6 })
  })

  it('warns on processing when ops are flagged but the queues are fed', () => {
    const dp = pipeline([queue('host_queue', [5, 5], 16)], 'none', [op(0, null, 'BatchOp'), op(1, 0, 'GeneratorOp', true)])
    expect(flowNodes(dp, null)[0].status).toBe('warn')
  })
})

describe('layoutPipeline', () => {
  it('puts sources left of the root, a parent between its children', () => {
    // 0 Batch <- 1 Map <- {2 Zip <- (3 Gen, 4 Gen)}
    const ops = [op(0, null, 'BatchOp'), op(1, 0), op(2, 1, 'ZipOp'), op(3, 2, 'GeneratorOp'), op(4, 2, 'GeneratorOp')]
    const l = layoutPipeline(ops)
    const at = Object.fromEntries(l.nodes.map((n) => [n.name, n]))
    expect(l.columns).toBe(4)
    expect(l.rows).toBe(2)
    expect(at.BatchOp_0.x).toBe(3)
    expect(at.GeneratorOp_3.x).toBe(0)
    expect(at.GeneratorOp_4.x).toBe(0)
    expect([at.GeneratorOp_3.y, at.GeneratorOp_4.y].sort()).toEqual([0, 1])
    expect(at.ZipOp_2.y).toBe(0.5)
    expect(at.BatchOp_0.y).toBe(0.5)
    expect(l.edges).toContainEqual({ source: 'GeneratorOp_3', target: 'ZipOp_2' })
    expect(l.edges.length).toBe(4)
  })

  it('survives unknown parents and cycles', () => {
    const l = layoutPipeline([op(1, 9), op(2, 3), op(3, 2)])
    expect(l.nodes.length).toBe(3)
    for (const n of l.nodes) expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true)
  })
})

describe('focus', () => {
  it('names an op as the advisor does, by id, or a queue', () => {
    const ops = [op(0, null, 'BatchOp'), op(3, 0, 'ImageFolderOp', true)]
    expect(opName(ops[1])).toBe('ImageFolderOp_3')
    expect(focusTarget('ImageFolderOp_3', ops)).toEqual({ kind: 'op', id: 3 })
    expect(focusTarget('0', ops)).toEqual({ kind: 'op', id: 0 })
    expect(focusTarget('chip_queue', ops)).toEqual({ kind: 'queue', name: 'chip_queue' })
    expect(focusTarget('MapOp_7', ops)).toBeNull()
  })
})

describe('waitRows', () => {
  it('divides the exposed wait (else the wait) by the step time', () => {
    const dw = { steps: ['5', '6'], per_step_us: [60, 30], exposed_per_step_us: [40, null as unknown as number], average_us: 45,
      covered: { count: 2, first: '5', last: '6', left_out: [], compile: [] }, share: null, loader_share: null }
    const rows = waitRows(dw, { names: ['5', '6'], durations_us: [200, 100] })
    expect(rows.map((r) => r.share)).toEqual([0.2, 0.3])
    expect(waitRows({ ...dw, exposed_per_step_us: null }, null).map((r) => r.share)).toEqual([null, null])
  })
})

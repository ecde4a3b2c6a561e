import { describe, expect, it } from 'vitest'
import type { CommMatrix } from '@/api/stages'
import { axisZoom, defaultTransport, matrixCells, rankChartHeight, RANKS_IN_VIEW } from '@/components/stages/clusterMatrix'

const matrix: CommMatrix = {
  devices: [0, 1, 2, 7],
  transports: [
    { transport: 'LOCAL', unit: 'GB/s', src: [0, 1, 2], dst: [0, 1, 2], bandwidth: [400, 410, 420], reported_by: [[0], [1], [2]] },
    { transport: 'HCCS', unit: 'GB/s', src: [0, 0, 1, 2], dst: [1, 7, 0, 7], bandwidth: [15, 16, 14, 3], reported_by: [[0], [0], [1], [2]] },
  ],
}

describe('communication matrix', () => {
  it('places only the measured links, sender rows and receiver columns', () => {
    const m = matrixCells(matrix, 'HCCS')!
    expect(m.devices).toEqual([0, 1, 2, 7])
    expect(m.cells).toEqual([[1, 0, 15], [3, 0, 16], [0, 1, 14], [3, 2, 3]])
    expect([m.min, m.max, m.unit]).toEqual([3, 16, 'GB/s'])
    expect(matrixCells(matrix, 'RDMA')).toBeNull()
  })

  it('shows the interconnect with most links first, not the local copies', () => {
    expect(defaultTransport(matrix)).toBe('HCCS')
    expect(defaultTransport({ devices: [], transports: [] })).toBeNull()
  })
})

describe('long rank axes', () => {
  it('scroll beyond what fits, and charts stop growing', () => {
    expect(axisZoom(RANKS_IN_VIEW, 'y')).toEqual([])
    const zoom = axisZoom(1000, 'y')
    expect(zoom).toHaveLength(2)
    expect(zoom[0]).toMatchObject({ type: 'inside', yAxisIndex: 0, start: 0, end: (100 * RANKS_IN_VIEW) / 1000 })
    expect(rankChartHeight(1000)).toBe(rankChartHeight(RANKS_IN_VIEW))
    expect(rankChartHeight(2)).toBe('240px')
  })
})

import { describe, expect, it } from 'vitest'
import { flatColumns, formatCell, formatPipes } from '@/components/tables/columns'
import {
  capabilities, kernelColumns, kernelDefaults, operatorColumns, operatorDefaults, viewOf, OPERATOR_GROUPS,
} from '@/components/tables/operatorViews'

const gpu = capabilities('gpu')
const npu = capabilities('npu')
const cpu = capabilities('cpu')
const keys = (specs: ReturnType<typeof operatorColumns>) => flatColumns(specs).map((c) => c.key)

describe('operator and kernel views', () => {
  it('maps each group to its view', () => {
    expect(OPERATOR_GROUPS.map(viewOf)).toEqual(['type', 'name', 'name', 'name', 'instance'])
  })

  it('ranks by device time, or host time when the input has none', () => {
    expect(operatorDefaults('name', gpu).sort).toBe('device_self_us')
    expect(operatorDefaults('instance', npu).sort).toBe('device_self_us')
    expect(operatorDefaults('name_stack', cpu).sort).toBe('host_self_us')
    expect(operatorDefaults('type', cpu).sort).toBe('total_us')
  })

  it('lets every sortable column be sorted by the server, and no other', () => {
    for (const group of OPERATOR_GROUPS) {
      for (const caps of [gpu, npu, cpu]) {
        const d = operatorDefaults(group, caps)
        const sortable = flatColumns(operatorColumns(group, caps)).filter((c) => c.sortable).map((c) => c.key)
        expect(sortable.every((k) => d.sortable.includes(k)), `${group}`).toBe(true)
        expect(d.sortable).toContain(d.sort)
      }
    }
    // instances are sorted by time or start only (the server's columns)
    expect(operatorDefaults('instance', gpu).sortable).not.toContain('name')
  })

  it('shows device and Tensor-Core columns only where the input has them', () => {
    expect(keys(operatorColumns('name', gpu))).toContain('tc_self_ratio')
    expect(keys(operatorColumns('name', npu))).not.toContain('tc_self_ratio')
    expect(keys(operatorColumns('name', npu))).toContain('device_self_us')
    expect(keys(operatorColumns('name', cpu)).filter((k) => k.startsWith('device'))).toEqual([])
    expect(keys(operatorColumns('name_input', npu))).toContain('input_shape')
    expect(keys(operatorColumns('name_stack', npu))).toContain('call_stack')
    const launch = keys(kernelColumns('name_op_launch', gpu))
    expect(launch).toEqual(expect.arrayContaining(['operator', 'grid', 'block', 'registers_per_thread', 'occupancy']))
    expect(keys(kernelColumns('name', npu))).not.toContain('occupancy')
    expect(kernelDefaults().sortable).toContain(kernelDefaults().sort)
  })

  it('shows the AI Core facts of kernel_details on NPU inputs only', () => {
    const ascend = keys(kernelColumns('name', npu))
    expect(ascend).toEqual(expect.arrayContaining(['accelerator_core', 'op_type', 'block_dim', 'input_shapes', 'pmu', 'cube_utilization']))
    for (const caps of [gpu, cpu]) expect(keys(kernelColumns('name', caps))).not.toContain('pmu')
  })

  it('reads PMU pipe ratios as the three busiest pipes', () => {
    const pmu = { aiv_mte2_ratio: 0.9796, aiv_vec_ratio: 0.0585, aiv_mte3_ratio: 0.3349, aiv_scalar_ratio: 0.089 }
    expect(formatPipes(pmu)).toBe('mte2 98 % · mte3 33 % · scalar 9 %')
    expect(formatCell('pipes', { aic_mac_ratio: 0.5 })).toBe('mac 50 %')
    expect(formatCell('pipes', {})).toBe('–')
    expect(formatCell('pipes', undefined)).toBe('–')
  })
})

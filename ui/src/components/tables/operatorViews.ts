/**
 * The operator page's views (by type, by name with an optional second key, per call) and
 * the kernel page's groupings: for each, its API `group_by`, default and sortable columns,
 * and the columns shown for what the input has (host-only inputs have no device time;
 * Tensor-Core and occupancy columns exist on GPUs only). Pure, unit-tested.
 */
import type { ColumnSpec } from './columns'
import type { TableDefaults } from './tableState'

export const OPERATOR_GROUPS = ['type', 'name', 'name_input', 'name_stack', 'instance'] as const
export type OperatorGroup = (typeof OPERATOR_GROUPS)[number]
export type OperatorView = 'type' | 'name' | 'instance'
export const NAME_GROUPS = ['name', 'name_input', 'name_stack'] as const

export function viewOf(group: OperatorGroup): OperatorView {
  return group === 'type' || group === 'instance' ? group : 'name'
}

/** What the input records, from the run's summary (`device`: gpu, npu, cpu). */
export interface Capabilities {
  device: boolean
  gpu: boolean
  npu?: boolean
}

export function capabilities(device: string | undefined): Capabilities {
  return { device: device !== 'cpu', gpu: device === 'gpu', npu: device === 'npu' }
}

/** The time a table ranks by when nothing is chosen: device self time, host self time on a CPU. */
export function defaultTime(c: Capabilities): string {
  return c.device ? 'device_self_us' : 'host_self_us'
}

const TIMES = ['host_self_us', 'host_total_us', 'device_self_us', 'device_total_us']

export function operatorDefaults(group: OperatorGroup, c: Capabilities): TableDefaults {
  if (group === 'type') return { sort: 'total_us', sortable: ['type', 'calls', 'total_us', 'mean_us', 'percent'] }
  if (group === 'instance') return { sort: defaultTime(c), sortable: ['start_us', ...TIMES] }
  return { sort: defaultTime(c), sortable: ['name', 'calls', ...TIMES, 'tc_self_ratio', 'tc_total_ratio'] }
}

function timeGroups(c: Capabilities): ColumnSpec[] {
  const host: ColumnSpec = {
    label: 'operators.col.host',
    children: [
      { key: 'host_self_us', label: 'operators.col.self', kind: 'us', sortable: true, width: 90, hint: 'operators.hint.hostSelf' },
      { key: 'host_total_us', label: 'operators.col.total', kind: 'us', sortable: true, width: 90, hint: 'operators.hint.hostTotal' },
    ],
  }
  const device: ColumnSpec = {
    label: 'operators.col.device',
    children: [
      { key: 'device_self_us', label: 'operators.col.self', kind: 'us', sortable: true, width: 90, hint: 'operators.hint.deviceSelf' },
      { key: 'device_total_us', label: 'operators.col.total', kind: 'us', sortable: true, width: 90, hint: 'operators.hint.deviceTotal' },
    ],
  }
  return c.device ? [host, device] : [host]
}

/**
 * `asTable`: the input records operator instances only as a table (legacy MindSpore: each
 * with its calls and device time, no start and no host time).
 */
export function operatorColumns(group: OperatorGroup, c: Capabilities, asTable = false): ColumnSpec[] {
  if (group === 'type') {
    return [
      { key: 'type', label: 'operators.col.type', kind: 'text', sortable: true, minWidth: 180 },
      { key: 'calls', label: 'operators.col.calls', kind: 'count', sortable: true, width: 90 },
      { key: 'total_us', label: 'operators.col.totalTime', kind: 'us', sortable: true, width: 110 },
      { key: 'mean_us', label: 'operators.col.mean', kind: 'us', sortable: true, width: 100 },
      { key: 'percent', label: 'operators.col.percent', kind: 'pct', sortable: true, width: 90 },
    ]
  }
  if (group === 'instance' && asTable) {
    return [
      { key: 'name', label: 'operators.col.name', kind: 'text', minWidth: 200, fixed: true },
      { key: 'type', label: 'operators.col.type', kind: 'text', width: 130 },
      { key: 'calls', label: 'operators.col.calls', kind: 'count', width: 80 },
      { key: 'device_self_us', label: 'operators.col.deviceTime', kind: 'us', sortable: true, width: 110 },
    ]
  }
  if (group === 'instance') {
    return [
      { key: 'name', label: 'operators.col.name', kind: 'text', minWidth: 160, fixed: true },
      { key: 'type', label: 'operators.col.type', kind: 'text', width: 110 },
      { key: 'start_us', label: 'operators.col.start', kind: 'us', sortable: true, width: 92, hint: 'operators.hint.start' },
      ...timeGroups(c),
    ]
  }
  const second: ColumnSpec[] = group === 'name_input'
    ? [{ key: 'input_shape', label: 'operators.col.inputShape', kind: 'text', minWidth: 140 }]
    : group === 'name_stack'
      ? [{ key: 'call_stack', label: 'operators.col.callStack', kind: 'text', minWidth: 160 }]
      : []
  const tc: ColumnSpec[] = c.gpu
    ? [{ key: 'tc_self_ratio', label: 'operators.col.tensorCores', kind: 'share', sortable: true, width: 100, hint: 'operators.hint.tcSelf' }]
    : []
  return [
    { key: 'name', label: 'operators.col.name', kind: 'text', sortable: true, minWidth: 190, fixed: true },
    ...second,
    { key: 'calls', label: 'operators.col.calls', kind: 'count', sortable: true, width: 76, hint: 'operators.showCallsHint' },
    ...timeGroups(c),
    ...tc,
  ]
}

export const KERNEL_GROUPS = ['name', 'name_op_launch'] as const
export type KernelGroup = (typeof KERNEL_GROUPS)[number]

export function kernelDefaults(): TableDefaults {
  return { sort: 'total_us', sortable: ['name', 'calls', 'total_us', 'mean_us', 'min_us', 'max_us', 'blocks_per_sm', 'occupancy'] }
}

export function kernelColumns(group: KernelGroup, c: Capabilities): ColumnSpec[] {
  const launch: ColumnSpec[] = group === 'name_op_launch'
    ? [
        { key: 'operator', label: 'kernels.col.operator', kind: 'text', minWidth: 150 },
        { key: 'grid', label: 'kernels.col.grid', kind: 'text', width: 96 },
        { key: 'block', label: 'kernels.col.block', kind: 'text', width: 96 },
        ...(c.gpu
          ? [
              { key: 'registers_per_thread', label: 'kernels.col.registers', kind: 'count', width: 70, hint: 'kernels.hint.registers' } as const,
              { key: 'shared_memory', label: 'kernels.col.sharedMemory', kind: 'bytes', width: 100, hint: 'kernels.hint.sharedMemory' } as const,
            ]
          : []),
      ]
    : []
  const gpu: ColumnSpec[] = c.gpu
    ? [
        { key: 'tc_used', label: 'kernels.col.tcUsed', kind: 'bool', width: 80, hint: 'kernels.hint.tcUsed' },
        { key: 'blocks_per_sm', label: 'kernels.col.blocksPerSm', kind: 'number', sortable: true, width: 86, hint: 'kernels.hint.blocksPerSm' },
        { key: 'occupancy', label: 'kernels.col.occupancy', kind: 'pct', sortable: true, width: 86, hint: 'kernels.hint.occupancy' },
      ]
    : []
  // Ascend: the AI Core facts of kernel_details (most frequent value of the group's calls)
  const npu: ColumnSpec[] = c.npu
    ? [
        { key: 'accelerator_core', label: 'kernels.col.core', kind: 'text', width: 120 },
        { key: 'op_type', label: 'kernels.col.opType', kind: 'text', width: 120 },
        { key: 'block_dim', label: 'kernels.col.blockDim', kind: 'count', width: 76, hint: 'kernels.hint.blockDim' },
        {
          label: 'kernels.col.inputs',
          children: [
            { key: 'input_shapes', label: 'kernels.col.shapes', kind: 'text', width: 150 },
            { key: 'input_dtypes', label: 'kernels.col.dtypes', kind: 'text', width: 110 },
            { key: 'input_formats', label: 'kernels.col.formats', kind: 'text', width: 110 },
          ],
        },
        { key: 'pmu', label: 'kernels.col.pipes', kind: 'pipes', width: 250, hint: 'kernels.hint.pipes' },
        { key: 'cube_utilization', label: 'kernels.col.cube', kind: 'pct', width: 86, hint: 'kernels.hint.cube' },
      ]
    : []
  // compact widths: by name on a GPU the table fits 1050 px (1280 px with the advisor collapsed)
  return [
    { key: 'name', label: 'kernels.col.name', kind: 'text', sortable: true, minWidth: 160, fixed: true, tooltip: false },
    ...launch,
    ...npu,
    { key: 'calls', label: 'kernels.col.calls', kind: 'count', sortable: true, width: 66 },
    {
      label: 'kernels.col.duration',
      children: [
        { key: 'total_us', label: 'kernels.col.total', kind: 'us', sortable: true, width: 86 },
        { key: 'mean_us', label: 'kernels.col.mean', kind: 'us', sortable: true, width: 82 },
        { key: 'min_us', label: 'kernels.col.min', kind: 'us', sortable: true, width: 76 },
        { key: 'max_us', label: 'kernels.col.max', kind: 'us', sortable: true, width: 76 },
      ],
    },
    ...gpu,
  ]
}

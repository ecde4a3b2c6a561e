/**
 * The Operators page's pie: the top N rows by the sorted column when it adds up (else the
 * default time), with the rest of the column's sum over every matching row as one slice,
 * asked of the server beside the table's page. A slice's label finds its row again.
 */
import { computed, type ComputedRef, type Ref } from 'vue'
import type { InstanceRow, OperatorRow, OperatorTypeRow, TablePage } from '@/api/tables'
import { useRunResource } from '@/composables/useRunContext'
import { t } from '@/i18n'
import {
  compactShape, flatColumns, frameLabel, pieMetric, shorten, stackFrames, topSlices, userFrame,
  type ColumnSpec, type Slice,
} from './columns'
import type { OperatorGroup, OperatorView } from './operatorViews'
import type { TableDefaults, TableState } from './tableState'

export type AnyRow = OperatorRow | OperatorTypeRow | InstanceRow

export interface OperatorPieInputs {
  known: Ref<boolean>
  group: Ref<OperatorGroup>
  view: Ref<OperatorView>
  state: Ref<TableState>
  defaults: Ref<TableDefaults>
  columns: Ref<ColumnSpec[]>
}

export interface OperatorPie {
  metric: ComputedRef<string>
  metricLabel: ComputedRef<string>
  slices: ComputedRef<Slice[]>
  /** The row a slice stands for (undefined for "others"). */
  rowOf: (label: string) => AnyRow | undefined
}

export function useOperatorPie(x: OperatorPieInputs): OperatorPie {
  const metric = computed(() => pieMetric(x.state.value.sort, x.defaults.value.sort))
  const pie = useRunResource<TablePage<AnyRow>>('operators', () => x.known.value && x.view.value !== 'instance'
    ? { group_by: x.group.value, sort: metric.value, order: 'desc', limit: x.state.value.top, search: x.state.value.search || undefined }
    : null)
  const metricLabel = computed(() => {
    const c = flatColumns(x.columns.value).find((col) => col.key === metric.value)
    if (!c) return metric.value
    const side = metric.value.startsWith('host_') ? t('operators.col.host') : metric.value.startsWith('device_') ? t('operators.col.device') : ''
    return side ? `${side} · ${t(c.label)}` : t(c.label)
  })
  function label(row: AnyRow): string {
    if ('type' in row && !('name' in row)) return row.type
    const r = row as OperatorRow
    if (x.group.value === 'name_input') return `${r.name} ${compactShape(r.input_shape) || '–'}`
    if (x.group.value === 'name_stack') {
      const frame = frameLabel(userFrame(stackFrames(r.call_stack)))
      return frame ? `${r.name} @ ${shorten(frame, 40)}` : r.name
    }
    return r.name
  }
  const slices = computed(() => {
    const p = pie.data.value
    if (!p) return []
    return topSlices(p.rows, label, metric.value, p.sums?.[metric.value], x.state.value.top, t('operators.table.others'))
  })
  return { metric, metricLabel, slices, rowOf: (name) => pie.data.value?.rows.find((r) => label(r) === name) }
}

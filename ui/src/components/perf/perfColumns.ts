/**
 * The FLOPs columns of the Operators and Kernels pages (by-name grouping): GFLOPs per call,
 * achieved TFLOPS and % of roof, joined by name from the performance model's `operators`
 * or `kernels` rows (fetched once per worker), '–' where the name has no row (a kernel has
 * one only where it is the only kernel of counted operator calls). Pure parts unit-tested.
 */
import { computed, type ComputedRef } from 'vue'
import type { PerfModelAnswer, PerfRow } from '@/api/perf'
import type { ColumnSpec } from '@/components/tables/columns'
import { useRunResource } from '@/composables/useRunContext'

export interface PerfFields {
  gflops_per_call: number | null
  achieved_tflops: number | null
  pct_of_roof: number | null
}

/** Which of the model's row lists a page joins. */
export type PerfRows = 'operators' | 'kernels'

export function perfColumns(rows: PerfRows = 'operators'): ColumnSpec[] {
  const kernels = rows === 'kernels'
  const narrow = kernels ? 10 : 0 // the Kernels table is wide already (see kernelColumns)
  return [{
    label: 'roofline.opCols.group',
    children: [
      {
        key: 'gflops_per_call', label: 'roofline.opCols.gflops', kind: 'sig', width: 96,
        hint: kernels ? 'roofline.kernelCols.gflopsHint' : 'roofline.opCols.gflopsHint',
      },
      {
        key: 'achieved_tflops', label: 'roofline.opCols.tflops', kind: 'sig', width: 80 - narrow,
        hint: kernels ? 'roofline.kernelCols.tflopsHint' : 'roofline.opCols.tflopsHint',
      },
      { key: 'pct_of_roof', label: 'roofline.opCols.pctOfRoof', kind: 'share', width: 84 - narrow, hint: 'roofline.opCols.pctOfRoofHint' },
    ],
  }]
}

export function byName(rows: PerfRow[]): Map<string, PerfRow> {
  return new Map(rows.map((r) => [r.name, r]))
}

/** Each row with the model's figures of its name (null where there are none). */
export function joinPerf<Row extends object>(rows: Row[], model: Map<string, PerfRow>): (Row & PerfFields)[] {
  return rows.map((row) => {
    const name = (row as { name?: unknown }).name
    const p = typeof name === 'string' ? model.get(name) : undefined
    return {
      ...row,
      gflops_per_call: p?.gflops_per_call ?? null,
      achieved_tflops: p?.achieved_tflops ?? null,
      pct_of_roof: p?.pct_of_roof ?? null,
    }
  })
}

/** The model's rows (operators or kernels) by name for the page's worker (empty until and unless known). */
export function usePerfByName(enabled: () => boolean, rows: PerfRows = 'operators'): ComputedRef<Map<string, PerfRow>> {
  const answer = useRunResource<PerfModelAnswer>('perf-model', () => (enabled() ? {} : null))
  return computed(() => byName(answer.data.value?.data?.[rows] ?? []))
}

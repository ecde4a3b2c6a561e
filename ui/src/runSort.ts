/**
 * The run list's sort: by any column, ascending or descending, runs without the value (a
 * run still being analysed has no steps yet) last either way, ties in name order, so the
 * list a link opens is the one its sender saw.
 */
import type { Run } from '@/api/types'
import { deviceOf, frameworkOf } from '@/runInfo'

export const RUN_SORT_KEYS = ['name', 'framework', 'device', 'formats', 'workers', 'steps', 'step', 'state'] as const
export type RunSortKey = (typeof RUN_SORT_KEYS)[number]
export type SortOrder = 'asc' | 'desc'

/** Analysis states in their natural order (done first). */
const STATE_ORDER = ['ready', 'analysing', 'queued', 'failed']

const VALUES: Record<RunSortKey, (r: Run) => string | number | undefined> = {
  name: (r) => r.name,
  framework: (r) => frameworkOf(r) || undefined,
  device: (r) => deviceOf(r) || undefined,
  formats: (r) => r.formats.join(', ') || undefined,
  workers: (r) => r.workers.length,
  steps: (r) => r.summary?.steps,
  step: (r) => r.summary?.step_us,
  state: (r) => STATE_ORDER.indexOf(r.state),
}

function compare(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a).localeCompare(String(b))
}

/** `runs` sorted by `key` (null: as the server lists them). */
export function sortRuns(runs: readonly Run[], key: RunSortKey | null, order: SortOrder): Run[] {
  if (!key) return [...runs]
  const value = VALUES[key]
  const sign = order === 'asc' ? 1 : -1
  return [...runs].sort((a, b) => {
    const va = value(a)
    const vb = value(b)
    if (va === undefined || vb === undefined) {
      if (va !== vb) return va === undefined ? 1 : -1
    } else {
      const c = compare(va, vb)
      if (c !== 0) return sign * c
    }
    return a.name.localeCompare(b.name)
  })
}

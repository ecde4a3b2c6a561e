/**
 * The overview answer (`/runs/<run>/overview`): the report's summary sections. Generated
 * from `mindinsight_profiler/server/answers/sections.py` (the report's structs inside).
 */
export type { Breakdown, GpuDevice, OpTypeRow } from './generated/api'
import type { Breakdown, Overview as ServedOverview } from './generated/api'

/**
 * The served overview. `breakdown_us` is always sent; it is typed `Partial` only so that the
 * page's `o?.breakdown_us ?? {}` fallback (OverviewPage.vue) stays indexable by BREAKDOWN_KEYS.
 */
export type Overview = Omit<ServedOverview, 'breakdown_us'> & { breakdown_us: Partial<Breakdown> }

/** The breakdown categories in the PyTorch plugin's order (the fields of `Breakdown`). */
export const BREAKDOWN_KEYS: (keyof Breakdown)[] = [
  'kernel', 'memcpy', 'memset', 'communication', 'runtime', 'dataloader', 'cpu_exec', 'other',
]

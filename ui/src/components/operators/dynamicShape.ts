/**
 * The dynamic-shape card's views of the `dynamic_shape` section (MindSpore's
 * dynamic_shape_info file): the op types' curves over the steps and how much an op type's
 * time per call moves from step to step (a sign that its shapes change). Pure, for unit tests.
 */
import type { DynamicShape, DynamicShapeType } from '@/api/tables'

/** MindInsight's curve (mean time of one call in the step) or the type's time in the step. */
export type StepMetric = 'mean' | 'total'

/** Op types drawn (legend entries), and how many of them are switched on at first. */
export const MAX_LINES = 10
export const SHOWN_LINES = 5

export interface TypeLine {
  name: string
  /** One value per step; null where the type did not run (a gap, not a 0). */
  values: (number | null)[]
}

/** The curves of the `max` op types of most total time (the section lists them so). */
export function typeLines(ds: DynamicShape, metric: StepMetric, max = MAX_LINES): TypeLine[] {
  return ds.types.slice(0, max).map((t) => ({
    name: t.type,
    values: metric === 'mean' ? t.step_mean_us : t.step_calls.map((c, i) => (c ? t.step_us[i] : null)),
  }))
}

/** ECharts' legend `selected`: the first `shown` lines on, the others off (a click adds them). */
export function legendSelected(lines: TypeLine[], shown = SHOWN_LINES): Record<string, boolean> {
  return Object.fromEntries(lines.map((l, i) => [l.name, i < shown]))
}

export interface StepSpread {
  /** Smallest and largest time per call over the steps the type ran in. */
  min: number
  max: number
  /** max / min (1: the same in every step); null when min is 0. */
  ratio: number | null
  /** Steps the type ran in. */
  steps: number
}

/** How much the type's time per call moves over the steps; null when it never ran. */
export function stepSpread(t: DynamicShapeType): StepSpread | null {
  const ran = t.step_mean_us.filter((v): v is number => v !== null)
  if (ran.length === 0) return null
  const min = Math.min(...ran)
  const max = Math.max(...ran)
  return { min, max, ratio: min > 0 ? max / min : null, steps: ran.length }
}

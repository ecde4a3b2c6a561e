/**
 * The text of `covered` (`analysis/steps/covered.py`): which steps an average covers, e.g.
 * "mean of 9 steps (2–10); step 1 left out: graph compilation". Every page that shows an
 * average prints it beside the figure (`AverageNote.vue`), so the same figure on two pages
 * visibly describes the same steps, and a different one says why.
 */
import type { StepsCovered } from '@/api/generated/api'
import { t } from '@/i18n'

export type { StepsCovered }

/** Steps as short runs: ['2','3','4','7'] -> '2–4, 7' (non-numeric names listed as they are). */
export function stepRuns(steps: string[]): string {
  const out: string[] = []
  let start: number | null = null
  let prev: number | null = null
  const flush = () => {
    if (start !== null && prev !== null) out.push(start === prev ? `${start}` : `${start}–${prev}`)
  }
  for (const s of steps) {
    const n = /^\d+$/.test(s) ? Number(s) : null
    if (n !== null && prev !== null && n === prev + 1) {
      prev = n
      continue
    }
    flush()
    start = prev = n
    if (n === null) out.push(s)
  }
  flush()
  return out.join(', ')
}

function stepList(names: string[]): string {
  return t(names.length === 1 ? 'averages.step' : 'averages.steps', { list: stepRuns(names) })
}

/** What the average is over: all steps, a range, or one step. */
function over(c: StepsCovered): string {
  if (c.count === 0 || c.first === null) return ''
  if (c.count === 1) return c.left_out.length ? t('averages.only', { first: c.first }) : t('averages.single')
  if (!c.left_out.length) return t('averages.all', { n: c.count })
  return t('averages.range', { n: c.count, first: c.first, last: c.last ?? c.first })
}

/** The full note: "mean of 9 steps (2–10); step 1 left out: graph compilation". */
export function coveredText(c: StepsCovered | null | undefined): string {
  if (!c) return ''
  const compiled = new Set(c.compile)
  const groups: [string[], 'compile' | 'no_data'][] = [
    [c.left_out.filter((s) => compiled.has(s)), 'compile'],
    [c.left_out.filter((s) => !compiled.has(s)), 'no_data'],
  ]
  const tails = groups.filter(([steps]) => steps.length).map(([steps, reason]) =>
    t('averages.leftOut', { steps: stepList(steps), reason: t(`averages.reason.${reason}`) }))
  return [over(c), ...tails].filter(Boolean).join('; ')
}

/** The short note for a table cell: "excl. step 1" (empty when no step is left out). */
export function coveredShort(c: StepsCovered | null | undefined): string {
  return c && c.left_out.length ? t('averages.excl', { steps: stepList(c.left_out) }) : ''
}

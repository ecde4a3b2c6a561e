/**
 * Which pages of the run have anything for the input on screen (the overview answer's
 * `pages`, decided on the server by analysis/pages.py), for the menu and the pages'
 * banner. Until the answer is there (or when it fails) every page counts as available:
 * the menu never greys out a page on a guess.
 */
import { computed, type ComputedRef } from 'vue'
import type { Overview } from '@/api/overview'
import type { RunContext } from '@/composables/useRunContext'
import { useResource } from '@/composables/useResource'
import type { LocalText } from '@/i18n'
import { currentInput } from '@/runInfo'

export type Availability = Record<string, { available: boolean; reason: LocalText | null }>

export function usePageAvailability(ctx: RunContext): ComputedRef<Availability> {
  // asked once the run detail says the input did not fail: a failed input has no overview
  // (its answer is a 422 the console would show), and its pages say why anyway
  const overview = useResource<Overview>(() => {
    const run = ctx.run.data.value
    if (!ctx.runId.value || !run) return null
    if (currentInput(run.inputs, ctx.worker.value, ctx.span.value)?.state === 'failed') return null
    return { path: `runs/${ctx.runId.value}/overview`, params: ctx.where.value }
  })
  return computed(() => overview.data.value?.pages ?? {})
}

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

export type Availability = Record<string, { available: boolean; reason: LocalText | null }>

export function usePageAvailability(ctx: RunContext): ComputedRef<Availability> {
  const overview = useResource<Overview>(() =>
    ctx.runId.value ? { path: `runs/${ctx.runId.value}/overview`, params: ctx.where.value } : null)
  return computed(() => overview.data.value?.pages ?? {})
}

/**
 * A table's state bound to the route's query: read on every navigation, written with one
 * `router.replace` (no history entry per click), other query keys (worker, span, the page's
 * own filters) kept.
 */
import { computed, type ComputedRef } from 'vue'
import { useRoute } from 'vue-router'
import { useQueryUpdate } from '@/composables/useQueryParam'
import { readTableState, tableQueryChanges, type TableDefaults, type TableState } from './tableState'

export interface TableQuery {
  state: ComputedRef<TableState>
  /** Change part of the state, and optionally other query keys in the same navigation. */
  set: (next: Partial<TableState>, extra?: Record<string, string | undefined>) => void
}

/** `prefix` keeps apart the query keys of several tables on one page. */
export function useTableQuery(defaults: () => TableDefaults, prefix = ''): TableQuery {
  const route = useRoute()
  const update = useQueryUpdate()
  const state = computed(() => readTableState(route.query, defaults(), prefix))
  return {
    state,
    set(next, extra = {}) {
      update({ ...tableQueryChanges(next, state.value, defaults(), prefix), ...extra })
    },
  }
}

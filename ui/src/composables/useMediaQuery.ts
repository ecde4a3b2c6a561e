/**
 * Whether a CSS media query matches, kept up to date: the layout's JavaScript half (the
 * advisor is a column from 1280 px, a drawer below) must agree with its CSS half.
 */
import { onScopeDispose, ref, type Ref } from 'vue'

/** The width from which the advisor sits beside the page as a column (below: a drawer). */
export const WIDE_QUERY = '(min-width: 1280px)'

export function useMediaQuery(query: string): Ref<boolean> {
  const list = globalThis.matchMedia?.(query)
  const matches = ref(list?.matches ?? true)
  const onChange = (e: MediaQueryListEvent) => {
    matches.value = e.matches
  }
  list?.addEventListener('change', onChange)
  onScopeDispose(() => list?.removeEventListener('change', onChange))
  return matches
}

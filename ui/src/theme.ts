/**
 * Light or dark: the person's choice in the header (system, light, dark; remembered in
 * localStorage, system by default), with "system" following `prefers-color-scheme` live.
 * The mode is applied as the `dark` class on <html> (Element Plus's dark variables and our
 * own in style.css key on it) before the app mounts, so a dark page never flashes white.
 * Charts (EChart.vue) and the timeline canvas read `themeMode` and redraw when it changes.
 */
import { computed, ref, watch, type ComputedRef, type Ref } from 'vue'

export type ThemeChoice = 'system' | 'light' | 'dark'
export type ThemeMode = 'light' | 'dark'
export const THEME_CHOICES: ThemeChoice[] = ['system', 'light', 'dark']
export const THEME_KEY = 'mindinsight.theme'
const QUERY = '(prefers-color-scheme: dark)'

/** What the theme needs of the window (a fake one in unit tests). */
export interface ThemeEnv {
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null
  matchMedia?: ((query: string) => MediaQueryList) | null
  root?: HTMLElement | null
}

export interface Theme {
  choice: Ref<ThemeChoice>
  mode: ComputedRef<ThemeMode>
  setChoice: (choice: ThemeChoice) => void
}

/** A stored choice, or 'system' for anything else (absent, old, hand-edited). */
export function parseChoice(value: string | null | undefined): ThemeChoice {
  return THEME_CHOICES.includes(value as ThemeChoice) ? (value as ThemeChoice) : 'system'
}

export function resolveMode(choice: ThemeChoice, systemDark: boolean): ThemeMode {
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice
}

function readStorage(env: ThemeEnv): string | null {
  try {
    return env.storage?.getItem(THEME_KEY) ?? null
  } catch {
    return null // storage refused (privacy mode): the default
  }
}

/** The theme over `env`: reads the stored choice, follows the system query, applies the
 * class to `env.root` now and on every change, and stores the choice when it is set. */
export function createTheme(env: ThemeEnv): Theme {
  const choice = ref<ThemeChoice>(parseChoice(readStorage(env)))
  const query = env.matchMedia?.(QUERY) ?? null
  const systemDark = ref(query?.matches ?? false)
  query?.addEventListener?.('change', (e) => {
    systemDark.value = e.matches
  })
  const mode = computed(() => resolveMode(choice.value, systemDark.value))
  const apply = (m: ThemeMode): void => {
    if (!env.root) return
    env.root.classList.toggle('dark', m === 'dark')
    env.root.style.colorScheme = m
  }
  apply(mode.value)
  watch(mode, apply, { flush: 'sync' })
  function setChoice(next: ThemeChoice): void {
    choice.value = next
    try {
      env.storage?.setItem(THEME_KEY, next)
    } catch {
      // not remembered, still applied
    }
  }
  return { choice, mode, setChoice }
}

let shared: Theme | null = null

/** The app's theme (created over the real window on first use; main.ts does so first). */
export function useTheme(): Theme {
  if (!shared) {
    const w = globalThis as unknown as Partial<Window>
    shared = createTheme({
      storage: w.localStorage ?? null,
      matchMedia: w.matchMedia ? (q) => w.matchMedia!(q) : null,
      root: w.document?.documentElement ?? null,
    })
  }
  return shared
}

/** The current mode, for charts and canvases that must redraw on a change. */
export const themeMode = computed<ThemeMode>(() => useTheme().mode.value)

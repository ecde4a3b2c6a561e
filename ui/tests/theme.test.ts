import { describe, expect, it } from 'vitest'
import { nextTick } from 'vue'
import { createTheme, parseChoice, resolveMode, THEME_KEY } from '@/theme'
import { CANVAS, CANVAS_THEMES, setCanvasTheme } from '@/timeline/canvasTheme'
import { INK } from '@/components/echarts'

/** A matchMedia whose answer the test flips, firing 'change' like a browser does. */
function fakeSystem(dark: boolean) {
  const listeners: ((e: { matches: boolean }) => void)[] = []
  const list = {
    matches: dark,
    addEventListener: (_: string, fn: (e: { matches: boolean }) => void) => listeners.push(fn),
  }
  return {
    matchMedia: (query: string) => {
      expect(query).toBe('(prefers-color-scheme: dark)')
      return list as unknown as MediaQueryList
    },
    set(next: boolean) {
      list.matches = next
      for (const fn of listeners) fn({ matches: next })
    },
  }
}

function fakeStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial))
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
  }
}

describe('theme', () => {
  it('defaults to the system setting and follows it when it changes', () => {
    const system = fakeSystem(true)
    const root = document.createElement('html')
    const theme = createTheme({ storage: fakeStorage(), matchMedia: system.matchMedia, root })
    expect(theme.choice.value).toBe('system')
    expect(theme.mode.value).toBe('dark')
    expect(root.classList.contains('dark')).toBe(true)
    system.set(false)
    expect(theme.mode.value).toBe('light')
    expect(root.classList.contains('dark')).toBe(false)
    expect(root.style.colorScheme).toBe('light')
  })

  it('a chosen mode overrides the system, is stored, and is read back next time', async () => {
    const system = fakeSystem(true)
    const storage = fakeStorage()
    const root = document.createElement('html')
    const theme = createTheme({ storage, matchMedia: system.matchMedia, root })
    theme.setChoice('light')
    await nextTick()
    expect(storage.data.get(THEME_KEY)).toBe('light')
    expect(root.classList.contains('dark')).toBe(false)
    system.set(true) // the system changing does not undo a choice
    expect(theme.mode.value).toBe('light')
    // a reload: a new theme over the same storage
    const again = createTheme({ storage, matchMedia: system.matchMedia, root: document.createElement('html') })
    expect(again.choice.value).toBe('light')
    expect(again.mode.value).toBe('light')
    again.setChoice('system')
    expect(again.mode.value).toBe('dark')
    expect(storage.data.get(THEME_KEY)).toBe('system')
  })

  it('applies the stored dark choice at creation (before the app mounts)', () => {
    const root = document.createElement('html')
    createTheme({ storage: fakeStorage({ [THEME_KEY]: 'dark' }), matchMedia: fakeSystem(false).matchMedia, root })
    expect(root.classList.contains('dark')).toBe(true)
  })

  it('survives a storage that throws and a browser without matchMedia', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied')
      },
      setItem: () => {
        throw new Error('denied')
      },
    }
    const theme = createTheme({ storage: broken, matchMedia: null, root: null })
    expect(theme.mode.value).toBe('light')
    theme.setChoice('dark')
    expect(theme.mode.value).toBe('dark')
  })

  it('reads anything unknown as system', () => {
    expect(parseChoice('dark')).toBe('dark')
    expect(parseChoice('Dark')).toBe('system')
    expect(parseChoice(null)).toBe('system')
    expect(resolveMode('system', true)).toBe('dark')
    expect(resolveMode('light', true)).toBe('light')
  })

  it('gives the canvas and the charts light ink on dark', () => {
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      return 0.2126 * r + 0.7152 * g + 0.0722 * b
    }
    setCanvasTheme('dark')
    expect(luminance(CANVAS.bg)).toBeLessThan(0.2)
    expect(luminance(CANVAS.labelText)).toBeGreaterThan(0.7)
    expect(luminance(CANVAS.axisText)).toBeGreaterThan(0.5)
    setCanvasTheme('light')
    expect(CANVAS).toEqual(CANVAS_THEMES.light)
    expect(luminance(INK.dark.text)).toBeGreaterThan(0.7)
    expect(luminance(INK.light.text)).toBeLessThan(0.3)
  })
})

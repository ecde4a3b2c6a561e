import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { flatKeys, hasMessage, interpolate, locale, pick, t } from '@/i18n'

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.(ts|vue)$/.test(name) ? [path] : []
  })
}

describe('i18n', () => {
  it('has the same keys in English and Chinese', () => {
    expect(flatKeys('zh')).toEqual(flatKeys('en'))
    expect(flatKeys('en').length).toBeGreaterThan(50)
  })

  it('has no empty text and no English text left in Chinese', () => {
    const same: string[] = []
    for (const key of flatKeys('en')) {
      locale.value = 'en'
      const en = t(key as never)
      locale.value = 'zh'
      const zh = t(key as never)
      expect(en.trim(), key).not.toBe('')
      expect(zh.trim(), key).not.toBe('')
      if (en === zh && /[a-z]{4,}/.test(en)) same.push(key)
    }
    locale.value = 'en'
    // Names that stay English in Chinese UIs (framework terms).
    // Also the Ascend tools' own file and column names, which Chinese users see in English.
    const allowed = new Set(['common.worker', 'common.span', 'common.rank', 'overview.npu.figure', 'overview.npu.stage_us'])
    expect(same.filter((k) => !allowed.has(k))).toEqual([])
  })

  it('knows every literal key the source code uses', () => {
    const root = join(__dirname, '..', 'src')
    const missing: string[] = []
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) {
        if (!hasMessage(m[1], 'en')) missing.push(`${file.slice(root.length)}: ${m[1]}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('interpolates named parameters and leaves unknown ones', () => {
    expect(interpolate('{a} of {b} {c}', { a: 1, b: 'x' })).toBe('1 of x {c}')
  })

  it('picks the server text in the current language, English as the fallback', () => {
    locale.value = 'zh'
    expect(pick({ en: 'slow', zh: '慢' })).toBe('慢')
    expect(pick({ en: 'slow', zh: '' })).toBe('slow')
    locale.value = 'en'
    expect(pick({ en: 'slow', zh: '慢' })).toBe('slow')
  })
})

import { afterEach, describe, expect, it } from 'vitest'
import { perfText } from '@/components/perf/perfText'
import { locale } from '@/i18n'

describe('perfText', () => {
  afterEach(() => { locale.value = 'en' })

  it('shows the Chinese reason, marked zh-CN, in the zh UI', () => {
    locale.value = 'zh'
    expect(perfText('no device', '没有设备')).toEqual({ text: '没有设备', lang: 'zh-CN' })
  })

  it('shows the English reason, marked en, in the en UI or when there is no Chinese', () => {
    expect(perfText('no device', '没有设备')).toEqual({ text: 'no device', lang: 'en' })
    locale.value = 'zh'
    expect(perfText('no device', null)).toEqual({ text: 'no device', lang: 'en' })
    expect(perfText('no device', '')).toEqual({ text: 'no device', lang: 'en' })
  })
})

/**
 * The performance model's own explanations (why no device, how it was found, caveats):
 * the server writes each in English and Chinese with the same names and figures. Shown in
 * the UI's language, and marked with that language (`lang`), so that a zh page reads
 * Chinese and assistive tools read each text in its own language.
 */
import { locale } from '@/i18n'

export interface ServerText {
  text: string
  lang: 'en' | 'zh-CN'
}

/** `en` or, in the zh UI, `zh` (English when the server gave no Chinese). */
export function perfText(en: string, zh: string | null | undefined): ServerText {
  return locale.value === 'zh' && zh ? { text: zh, lang: 'zh-CN' } : { text: en, lang: 'en' }
}

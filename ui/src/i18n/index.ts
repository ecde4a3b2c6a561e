/**
 * English / Chinese text. Each area of the UI keeps its messages in `messages/<area>.ts`
 * with both languages side by side; the Chinese object is typed as the English one, so a
 * key missing in either language is a type error, not a blank label at run time.
 */
import { computed, ref } from 'vue'
import { common } from './messages/common'
import { runs } from './messages/runs'
import { overview } from './messages/overview'
import { advisor } from './messages/advisor'
import { stepTrace } from './messages/stepTrace'
import { operators } from './messages/operators'
import { kernels } from './messages/kernels'
import { dataPipeline } from './messages/dataPipeline'
import { memory } from './messages/memory'
import { communication } from './messages/communication'
import { modules } from './messages/modules'
import { diff } from './messages/diff'
import { timeline } from './messages/timeline'
import { roofline } from './messages/roofline'
import { averages } from './messages/averages'
import { downloads } from './messages/downloads'

export type Locale = 'en' | 'zh'
export const LOCALES: Locale[] = ['en', 'zh']

const areas = {
  common, runs, overview, advisor, stepTrace, operators, kernels, dataPipeline, memory,
  communication, modules, diff, timeline, roofline, averages, downloads,
}
type Areas = typeof areas
type Tree = { [key: string]: string | Tree }
type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>
}[keyof T & string]

/** Every message key, e.g. `operators.title`. */
export type MessageKey = { [A in keyof Areas & string]: Leaves<Areas[A]['en'], `${A}.`> }[keyof Areas & string]

function tree(locale: Locale): Tree {
  const out: Tree = {}
  for (const [name, area] of Object.entries(areas)) out[name] = area[locale] as Tree
  return out
}
const trees: Record<Locale, Tree> = { en: tree('en'), zh: tree('zh') }

const STORAGE_KEY = 'mindinsight.locale'

function initialLocale(): Locale {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY)
  if (stored === 'en' || stored === 'zh') return stored
  return globalThis.navigator?.language?.toLowerCase().startsWith('zh') ? 'zh' : 'en'
}

export const locale = ref<Locale>(initialLocale())

/** The page's `lang` follows the language shown (screen readers, fonts, hyphenation). */
function markDocument(loc: Locale): void {
  if (globalThis.document) document.documentElement.lang = loc === 'zh' ? 'zh-CN' : 'en'
}
markDocument(locale.value)

export function setLocale(next: Locale): void {
  locale.value = next
  globalThis.localStorage?.setItem(STORAGE_KEY, next)
  markDocument(next)
}

function lookup(key: string, loc: Locale): string | undefined {
  let node: string | Tree | undefined = trees[loc]
  for (const part of key.split('.')) {
    if (node === undefined || typeof node === 'string') return undefined
    node = node[part]
  }
  return typeof node === 'string' ? node : undefined
}

/** The text of `key` in the current language, with `{name}` replaced from `params`. */
export function t(key: MessageKey, params?: Record<string, string | number>): string {
  return interpolate(lookup(key, locale.value) ?? key, params)
}

/** For keys built at run time (e.g. a breakdown category): the key itself when unknown. */
export function tDynamic(key: string, fallback?: string, params?: Record<string, string | number>): string {
  return interpolate(lookup(key, locale.value) ?? fallback ?? key, params)
}

export function hasMessage(key: string, loc: Locale = locale.value): boolean {
  return lookup(key, loc) !== undefined
}

export function interpolate(text: string, params?: Record<string, string | number>): string {
  if (!params) return text
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  )
}

/** A server text in both languages (rule titles, messages, actions). */
export interface LocalText {
  en: string
  zh: string
}

export function pick(text: LocalText | null | undefined): string {
  if (!text) return ''
  return text[locale.value] || text.en
}

export const isZh = computed(() => locale.value === 'zh')

/** All keys of one language, flattened (for the parity test). */
export function flatKeys(loc: Locale): string[] {
  const out: string[] = []
  const walk = (node: Tree, prefix: string) => {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string') out.push(prefix + k)
      else walk(v, `${prefix}${k}.`)
    }
  }
  walk(trees[loc], '')
  return out.sort()
}

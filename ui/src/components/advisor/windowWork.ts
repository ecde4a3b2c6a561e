/**
 * What the profiled window is, for the views that must say so before any figure is read:
 * the advice sidebar's notice when the window cannot be judged in steady state (sampled, a
 * fragment, a toy workload: the advice's `window_limit`, analysis/steps/window_limits.py),
 * and the overview's marker of one-off work in the window (compilation, initialisation,
 * graph capture, warm-up: the overview's `window`, analysis/steps/window.py).
 */
import type { RouteLocationRaw } from 'vue-router'
import type { OverviewWindow, Text } from '@/api/generated/api'

/** The advisor's opening of the notice (advisor/engine.py `_limit_text`), which the
 * sidebar's own title already says: left out of the body so the reason comes first. */
const LEAD = { en: 'The profiled window cannot be judged in steady state: ', zh: '无法按稳态评判该采集窗口：' }

/** The advice's notice in the language shown (English where the other is missing), or
 * null when the window can be judged: why, and what to do (the advisor's text). */
export function windowNotice(limit: Text | null | undefined, lang: 'en' | 'zh'): string | null {
  if (!limit) return null
  const zh = lang === 'zh' && !!limit.zh
  const text = zh ? limit.zh : limit.en
  if (!text) return null
  const lead = zh ? LEAD.zh : LEAD.en
  const rest = text.startsWith(lead) ? text.slice(lead.length) : text
  return rest && !zh ? rest[0].toUpperCase() + rest.slice(1) : rest || text
}

/** One-off kinds in the order the marker lists them (the window model's kinds). */
export const ONE_OFF_KINDS = ['compile', 'initialisation', 'capture', 'warmup'] as const
/** A kind under this share of the steps' time is not marked: the window model's own bar for
 * a steady step (under 1 % of its time in one-off work). */
export const ONE_OFF_MIN_SHARE = 0.01

export interface OneOffPart {
  kind: string
  share: number // of the profiled steps' time, 0-1
  us: number
  /** The longest event of the kind, from the timeline's origin (null: none recorded). */
  longest: { name: string; start_ns: number; end_ns: number } | null
}

/** The one-off kinds the window holds at or above `ONE_OFF_MIN_SHARE`, largest first. */
export function oneOffParts(w: OverviewWindow | null | undefined): OneOffPart[] {
  if (!w) return []
  const parts: OneOffPart[] = []
  for (const kind of ONE_OFF_KINDS) {
    const share = w.share[kind] ?? 0
    if (!(share >= ONE_OFF_MIN_SHARE)) continue
    const e = w.longest[kind]
    parts.push({
      kind, share, us: w.total_us[kind] ?? 0,
      longest: e ? { name: e.name, start_ns: e.start_ns, end_ns: e.end_ns } : null,
    })
  }
  return parts.sort((a, b) => b.share - a.share)
}

/** The timeline on a part's longest event, marked, with a margin (as evidence opens). */
export function oneOffRoute(
  part: OneOffPart,
  runId: string,
  carry: Record<string, string> = {},
): RouteLocationRaw | null {
  if (!part.longest) return null
  const { start_ns: a, end_ns: b } = part.longest
  const pad = Math.max(Math.round((b - a) * 0.05), 1000)
  const query = {
    ...carry,
    t0: String(Math.max(0, Math.floor(a - pad))),
    t1: String(Math.ceil(b + pad)),
    mark: `${Math.max(0, Math.floor(a))}-${Math.max(0, Math.ceil(b))}`,
  }
  return { name: 'timeline', params: { run: runId }, query }
}

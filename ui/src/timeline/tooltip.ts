/**
 * What the hover tooltip says about an item: an event's name, kind, duration, start and
 * track; a merged block's count of events, busy time and start (and that a click zooms
 * into it); a counter track's value at the pointer and when. Pure, with the translation
 * injected, so it is unit-tested without Vue.
 */
import { formatCount, formatNs } from '@/format'
import { formatCounter } from './counters'
import type { Hit } from './hitTest'
import type { CounterBox } from './layout'

export interface TooltipText {
  title: string
  lines: string[]
  /** A merged block: a click zooms into it. */
  zoom: boolean
}

export interface TooltipWords {
  kind: (kind: string) => string
  duration: string
  start: string
  merged: (count: string) => string
  busy: (busy: string, span: string) => string
  track: (track: number) => string
  /** "At": when a counter's value holds. */
  at: string
}

/** A counter's tooltip: its name, its value at `ns` (null: none there) and the time. */
export function counterTooltipText(box: Pick<CounterBox, 'label' | 'series'>, value: number | null, ns: number,
  w: Pick<TooltipWords, 'at'>): TooltipText {
  return {
    title: box.label,
    lines: [value === null ? '–' : formatCounter(box.series.unit, value), `${w.at}: ${formatNs(ns, 3)}`],
    zoom: false,
  }
}

export function tooltipText(hit: Hit, w: TooltipWords): TooltipText {
  const a = hit.scene.answer
  const i = hit.i
  if (hit.type === 'event') {
    const ev = a.events
    return {
      title: a.names[ev.name[i]] ?? '',
      lines: [
        w.kind(a.kinds[ev.kind[i]] ?? ''),
        `${w.duration}: ${formatNs(ev.dur_ns[i])}`,
        `${w.start}: ${formatNs(ev.start_ns[i], 3)}`,
        w.track(ev.track[i]),
      ].filter(Boolean),
      zoom: false,
    }
  }
  const bl = a.blocks
  return {
    title: w.merged(formatCount(bl.count[i])),
    lines: [w.busy(formatNs(bl.busy_ns[i]), formatNs(bl.dur_ns[i])), `${w.start}: ${formatNs(bl.start_ns[i], 3)}`],
    zoom: true,
  }
}

/** The tooltip as the track view shows it: the text, at the pointer (canvas px). */
export interface TooltipBox extends TooltipText {
  x: number
  y: number
}

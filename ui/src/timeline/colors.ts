/**
 * Event colours: a stable hash of the name picks the hue, so an operator keeps its colour
 * across windows, zooms, runs and reloads. Numbered names (`ProfilerStep#7`) share the
 * colour of their family. Merged busy blocks are grey, so they never pass for one event.
 */

/** 32-bit FNV-1a of a string (stable across browsers; no crypto needed). */
export function hashString(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** The part of a name that picks its colour: trailing numbers dropped. */
export function colorKey(name: string): string {
  return name.replace(/[#_\s-]*\d+$/, '')
}

export interface NameColor {
  fill: string
  /** Text drawn on the fill: dark on light colours, white on dark ones. */
  text: string
  hue: number
  lightness: number
}

const cache = new Map<string, NameColor>()

export function nameColor(name: string): NameColor {
  const found = cache.get(name)
  if (found) return found
  const h = hashString(colorKey(name))
  const hue = h % 360
  const saturation = 45 + ((h >>> 9) % 25)
  const lightness = 52 + ((h >>> 17) % 18)
  const color = {
    fill: `hsl(${hue} ${saturation}% ${lightness}%)`,
    text: textOn(hue, lightness),
    hue,
    lightness,
  }
  if (cache.size > 5000) cache.clear()
  cache.set(name, color)
  return color
}

/** Yellows and greens look light at the same HSL lightness; blues and purples dark. */
export function textOn(hue: number, lightness: number): string {
  const bright = lightness + (hue > 40 && hue < 200 ? 12 : 0) - (hue > 210 && hue < 300 ? 8 : 0)
  return bright >= 60 ? '#1d2733' : '#ffffff'
}

/** Fill of a merged block; the busier (busy / length), the stronger. `rgb` is the theme's
 * grey (canvasTheme.ts: darker on light ground, lighter on dark). */
export function blockFill(busyShare: number, rgb = '96, 108, 124'): string {
  const share = Math.min(Math.max(Number.isFinite(busyShare) ? busyShare : 1, 0), 1)
  return `rgba(${rgb}, ${(0.3 + 0.55 * share).toFixed(3)})`
}

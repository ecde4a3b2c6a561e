/**
 * The last window answers, so that any view change is drawn at once from what is already
 * here (scaled and shifted) while the exact answer is on its way. The whole-trace answer
 * stays pinned: it fills whatever the best recent answer does not cover (after a pan or a
 * zoom out), so the view is never blank and never draws more than two answers' items.
 */
import { coverage, sharpness, type Scene } from './scene'
import type { Viewport } from './viewport'

export interface Choice {
  /** Drawn over its own window. */
  primary: Scene | null
  /** Drawn outside the primary's window (the pinned whole-trace answer). */
  fill: Scene | null
  /** Whether `primary` is the answer to exactly this view and width. */
  exact: boolean
}

export class WindowCache {
  private recent: Scene[] = []
  base: Scene | null = null

  constructor(readonly capacity = 8) {}

  get size(): number {
    return this.recent.length + (this.base ? 1 : 0)
  }

  /** Keep `scene` (most recent first); `asBase` pins it as the whole-trace answer. */
  put(scene: Scene, asBase = false): void {
    if (asBase) {
      this.base = scene
      return
    }
    this.recent = [scene, ...this.recent.filter((s) => s.key !== scene.key)].slice(0, this.capacity)
  }

  get(key: string): Scene | null {
    if (this.base?.key === key) return this.base
    return this.recent.find((s) => s.key === key) ?? null
  }

  clear(): void {
    this.recent = []
    this.base = null
  }

  /**
   * The scenes to draw `view` at `widthPx` with: the exact answer when cached, else the one
   * that covers most of the view sharply enough (coverage x sharpness; ties go to the most
   * recent), with the base filling the rest.
   */
  choose(view: Viewport, widthPx: number, exactKey: string): Choice {
    const exact = this.get(exactKey)
    if (exact) return { primary: exact, fill: exact === this.base ? null : this.base, exact: true }
    let best: Scene | null = null
    let bestScore = 0
    for (const s of this.base ? [...this.recent, this.base] : this.recent) {
      const score = coverage(s, view) * sharpness(s, view, widthPx)
      if (score > bestScore + 1e-9) {
        best = s
        bestScore = score
      }
    }
    if (!best) best = this.base
    return { primary: best, fill: best === this.base ? null : this.base, exact: false }
  }
}

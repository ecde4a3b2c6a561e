/**
 * The timing marks the performance checks read: `timeline-first-paint` (navigation start
 * to the first frame drawn with the view's own answer) and, per pan or zoom,
 * `timeline-redraw` (the input event to the frame drawn with that view's own answer) and
 * `timeline-redraw-cached` (the input event to the first frame drawn from cache). The
 * Performance API is injected, so when a mark is taken is unit-tested.
 */
export type MarkSink = Pick<Performance, 'measure' | 'clearMeasures'>

/** Frames between clearing the per-gesture marks (a long session must not fill the buffer). */
const CLEAR_EVERY = 2000

export class PaintMarks {
  /** Whether a frame with the view's own answer has been drawn yet. */
  firstPaint = false
  private pendingInput: number | null = null
  private pendingCached: number | null = null
  private paints = 0

  constructor(private readonly sink: MarkSink = performance) {}

  /** A person moved the view; `at` is the input event's time stamp (the first one waiting counts). */
  input(at: number): void {
    this.pendingInput ??= at
    this.pendingCached ??= at
  }

  /** A frame was drawn at `now`: from some answer (`drawn`), maybe the view's own (`exact`). */
  painted(drawn: boolean, exact: boolean, now: number): void {
    if (++this.paints % CLEAR_EVERY === 0) {
      // Readers look at the latest marks only.
      this.sink.clearMeasures('timeline-redraw')
      this.sink.clearMeasures('timeline-redraw-cached')
    }
    if (drawn && this.pendingCached !== null) {
      this.sink.measure('timeline-redraw-cached', { start: this.pendingCached, end: now })
      this.pendingCached = null
    }
    if (!exact) return
    if (this.pendingInput !== null) {
      this.sink.measure('timeline-redraw', { start: this.pendingInput, end: now })
      this.pendingInput = null
    }
    if (!this.firstPaint) {
      this.firstPaint = true
      this.sink.measure('timeline-first-paint', { start: 0, end: now })
    }
  }
}

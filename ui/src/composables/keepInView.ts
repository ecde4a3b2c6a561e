/**
 * Landing on an element a link names (a table row, a card): scroll it into view and keep it
 * there while the page settles. A page draws its tables a frame or more after their data,
 * and what loads above the element (charts, a pie) can push it down after the first scroll;
 * so for a while each frame checks it and scrolls again if it left the window. A person's
 * own scroll, click or key ends it at once.
 */
import { onBeforeUnmount } from 'vue'

/** About three seconds of frames. */
export const LANDING_FRAMES = 180
const PERSON = ['wheel', 'touchmove', 'keydown', 'pointerdown'] as const

/** `land(find)`: keep `find()` (null until drawn) in view, `block` aligned, for a while. */
export function useKeepInView(block: ScrollLogicalPosition = 'center'): (find: () => Element | null | undefined) => void {
  let frames = 0
  let target: () => Element | null | undefined = () => null
  const stop = () => {
    frames = 0
  }
  function tick(): void {
    if (frames <= 0) return
    frames -= 1
    const el = target()
    const box = el?.getBoundingClientRect()
    if (el && box && (box.top < 0 || box.bottom > window.innerHeight)) el.scrollIntoView({ block })
    requestAnimationFrame(tick)
  }
  onBeforeUnmount(stop)
  return (find) => {
    target = find
    const running = frames > 0
    frames = LANDING_FRAMES
    if (running) return
    for (const type of PERSON) window.addEventListener(type, stop, { once: true, passive: true })
    tick()
  }
}

/**
 * A canvas that fills its scroll box: sized in CSS px to the box and in device pixels to
 * the screen (sharp on a HiDPI screen), again whenever the box changes size. The size is a
 * plain object, read by the frame callback without making anything reactive.
 */
import { onBeforeUnmount, onMounted, type Ref } from 'vue'

export interface CanvasSize {
  /** CSS px. */
  w: number
  h: number
  /** Device pixels per CSS px. */
  dpr: number
}

/** Follow the size of `box` with `canvas`; `resized` hears of each change (and whether the width changed). */
export function useCanvasSize(box: Ref<HTMLElement | null>, canvas: Ref<HTMLCanvasElement | null>,
  resized: (widthChanged: boolean) => void): CanvasSize {
  const size: CanvasSize = { w: 0, h: 0, dpr: 1 }
  let observer: ResizeObserver | null = null

  function resize(): void {
    const el = canvas.value
    if (!box.value || !el) return
    const w = box.value.clientWidth
    const h = box.value.clientHeight
    size.dpr = Math.max(1, window.devicePixelRatio || 1)
    if (w === size.w && h === size.h && el.width === Math.round(w * size.dpr)) return
    const widthChanged = w !== size.w
    size.w = w
    size.h = h
    el.style.width = `${w}px`
    el.style.height = `${h}px`
    el.width = Math.round(w * size.dpr)
    el.height = Math.round(h * size.dpr)
    resized(widthChanged)
  }

  onMounted(() => {
    resize()
    observer = new ResizeObserver(resize)
    if (box.value) observer.observe(box.value)
  })
  onBeforeUnmount(() => observer?.disconnect())
  return size
}

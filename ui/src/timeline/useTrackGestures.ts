/**
 * The track view's gestures: drag to pan (and to scroll the rows), the wheel to zoom at the
 * cursor (sideways: pan; with shift: scroll the rows), Perfetto's W/A/S/D keys around the
 * mouse, hover for the tooltip, and a click (pointer.ts says what it does). The state of a
 * gesture lives in plain variables: a pointer move must not render anything but the canvas.
 */
import { onBeforeUnmount, onMounted, ref, type Ref } from 'vue'
import type { Hit } from './hitTest'
import { GEOMETRY } from './layout'
import { anchorOf, clickable, counterTip, hitAt, type Found, type Point, type Sight } from './pointer'
import { tooltipText, type TooltipBox, type TooltipWords } from './tooltip'
import { applyKey, keyAction, panBy, spanOf, wheelFactor, zoomAt, type Bounds, type Viewport } from './viewport'

export interface GestureHost {
  canvas: Ref<HTMLCanvasElement | null>
  scroller: Ref<HTMLDivElement | null>
  /** What the view shows now. */
  sight: () => Sight
  bounds: () => Bounds
  /** Move the view; `at` is the input event's time stamp. */
  setView: (next: Viewport, at: number) => void
  /** Draw again (the item under the pointer changed). */
  schedule: () => void
  /** A click that was not a drag. */
  click: (found: Found, p: Point, at: number) => void
  words: TooltipWords
}

/** A drag moves the view once the pointer went this far (px): less is a click. */
const DRAG_PX = 4

export function useTrackGestures(host: GestureHost) {
  const tooltip = ref<TooltipBox | null>(null)
  let hover: Hit | null = null
  let mouse: Point | null = null
  let drag: { x: number; y: number; view: Viewport; scrollTop: number; moved: boolean; inTime: boolean } | null = null

  function local(e: MouseEvent): Point {
    const r = host.canvas.value!.getBoundingClientRect()
    return { x: e.clientX - r.left, y: e.clientY - r.top }
  }

  function onPointerDown(e: PointerEvent): void {
    const { view, scrollTop } = host.sight()
    if (e.button !== 0 || !view) return
    const p = local(e)
    drag = { ...p, view: { ...view }, scrollTop, moved: false, inTime: p.x >= GEOMETRY.labelW }
    host.canvas.value?.setPointerCapture(e.pointerId)
  }

  function onPointerMove(e: PointerEvent): void {
    const p = local(e)
    mouse = p
    const sight = host.sight()
    if (drag && sight.view) {
      const dx = p.x - drag.x
      const dy = p.y - drag.y
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < DRAG_PX) return
      drag.moved = true
      tooltip.value = null
      hover = null
      if (drag.inTime && dx) host.setView(panBy(drag.view, (-dx * spanOf(drag.view)) / sight.timeW, host.bounds()), e.timeStamp)
      if (dy && host.scroller.value) host.scroller.value.scrollTop = drag.scrollTop - dy
      return
    }
    const found = hitAt(sight, p.x, p.y)
    const hit = found.hit
    const changed = hit?.i !== hover?.i || hit?.type !== hover?.type || hit?.scene !== hover?.scene
    hover = hit
    tooltip.value = hit ? { ...p, ...tooltipText(hit, host.words) } : counterTip(sight, found, p, host.words)
    if (host.canvas.value) host.canvas.value.style.cursor = clickable(found, p) ? 'pointer' : 'default'
    if (changed) host.schedule()
  }

  function onPointerUp(e: PointerEvent): void {
    const d = drag
    drag = null
    host.canvas.value?.releasePointerCapture(e.pointerId)
    if (!d || d.moved) return
    const p = local(e)
    host.click(hitAt(host.sight(), p.x, p.y), p, e.timeStamp)
  }

  function onPointerCancel(): void {
    drag = null
  }

  function onLeave(): void {
    mouse = null
    if (!drag) {
      hover = null
      tooltip.value = null
      host.schedule()
    }
  }

  function onWheel(e: WheelEvent): void {
    const { view, timeW } = host.sight()
    if (!view) return
    e.preventDefault()
    const scroller = host.scroller.value
    if (e.shiftKey) {
      if (scroller) scroller.scrollTop += e.deltaY || e.deltaX
      return
    }
    const p = local(e)
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      host.setView(panBy(view, (e.deltaX * spanOf(view)) / timeW, host.bounds()), e.timeStamp)
    } else if (e.deltaY) {
      host.setView(zoomAt(view, wheelFactor(e.deltaY, e.deltaMode), anchorOf(p.x, timeW), host.bounds()), e.timeStamp)
    }
    tooltip.value = null
  }

  function onKey(e: KeyboardEvent): void {
    const { view, timeW } = host.sight()
    if (!view || e.ctrlKey || e.metaKey || e.altKey) return
    const target = e.target
    if (target instanceof Element && target.closest('input, textarea, select, [contenteditable=true]')) return
    const action = keyAction(e.key, e.code)
    if (!action) return
    e.preventDefault()
    host.setView(applyKey(view, action, anchorOf(mouse?.x, timeW), host.bounds(), e.shiftKey), e.timeStamp)
  }

  onMounted(() => {
    window.addEventListener('keydown', onKey)
    host.canvas.value?.addEventListener('wheel', onWheel, { passive: false })
  })
  onBeforeUnmount(() => {
    window.removeEventListener('keydown', onKey)
    host.canvas.value?.removeEventListener('wheel', onWheel)
  })

  return {
    /** What the hover tooltip shows (null: none). */
    tooltip,
    /** The item under the pointer (drawn highlighted). */
    hover: () => hover,
    onPointerDown, onPointerMove, onPointerUp, onPointerCancel, onLeave,
  }
}

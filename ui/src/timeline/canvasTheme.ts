/**
 * The track view's canvas colours in the light and the dark theme: ground, label column,
 * group headers, rules, grid, axis and label text, hover and selection marks. `CANVAS` is
 * the live set the renderer reads at each frame; TrackView switches it with the theme and
 * redraws. Event fills keep their colours (each carries its own text colour, colors.ts).
 */
import type { ThemeMode } from '@/theme'

export interface CanvasColors {
  bg: string
  labelBg: string
  header: string
  deviceHeader: string
  stripe: string
  line: string
  grid: string
  axisText: string
  labelText: string
  dimText: string
  device: string
  deviceText: string
  hover: string
  flow: string
  selectedFlow: string
  selected: string
  /** the grey of merged short events, as 'r, g, b' (blockFill adds the alpha) */
  block: string
  /** counter charts, as 'r, g, b' (filled translucent, outlined solid): memory, device
   * busy, queue depth */
  memory: string
  busy: string
  queue: string
}

export const CANVAS_THEMES: Record<ThemeMode, CanvasColors> = {
  light: {
    bg: '#ffffff', labelBg: '#f6f7f9', header: '#eceff3', deviceHeader: '#e4edf9', stripe: '#fafbfc',
    line: '#e1e5ea', grid: 'rgba(0, 0, 0, 0.06)', axisText: '#4a5565', labelText: '#2c3642',
    dimText: '#66707c', device: '#3a7bd5', deviceText: '#ffffff', hover: '#1d2733',
    flow: 'rgba(40, 60, 90, 0.3)', selectedFlow: '#d93025', selected: '#0b57d0', block: '96, 108, 124',
    memory: '124, 77, 220', busy: '30, 140, 70', queue: '200, 110, 10',
  },
  dark: {
    bg: '#141414', labelBg: '#1b1d20', header: '#25282d', deviceHeader: '#1f2c3d', stripe: '#181a1d',
    line: '#33373d', grid: 'rgba(255, 255, 255, 0.07)', axisText: '#b4bbc5', labelText: '#e1e5eb',
    dimText: '#9aa3ae', device: '#4a8be0', deviceText: '#ffffff', hover: '#f2f4f7',
    flow: 'rgba(190, 205, 225, 0.35)', selectedFlow: '#ff6b5e', selected: '#8ab4f8', block: '150, 162, 178',
    memory: '186, 160, 255', busy: '96, 205, 125', queue: '240, 165, 80',
  },
}

/** The colours the next frame is drawn with. */
export const CANVAS: CanvasColors = { ...CANVAS_THEMES.light }

export function setCanvasTheme(mode: ThemeMode): void {
  Object.assign(CANVAS, CANVAS_THEMES[mode])
}

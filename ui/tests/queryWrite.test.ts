import { describe, expect, it } from 'vitest'
import { createMemoryHistory, createRouter, type Router } from 'vue-router'
import { trackNavigation, writeQuery } from '@/composables/useQueryParam'

/** A router whose `slow` page loads only when `release` is called (a lazy chunk in flight). */
function makeRouter(): { router: Router; release: () => void } {
  let release = () => {}
  const slow = new Promise<{ default: object }>((resolve) => {
    release = () => resolve({ default: {} })
  })
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: '/memory', name: 'memory', component: {} },
      { path: '/timeline', name: 'timeline', component: () => slow },
    ],
  })
  trackNavigation(router)
  return { router, release: () => release() }
}

describe('writeQuery', () => {
  it('writes the page\'s query while the page shows', async () => {
    const { router } = makeRouter()
    await router.push('/memory?device=a')
    await writeQuery(router, '/memory', { t0: '5', t1: '9' })
    expect(router.currentRoute.value.fullPath).toBe('/memory?device=a&t0=5&t1=9')
    await writeQuery(router, '/memory', { t0: undefined, t1: '' })
    expect(router.currentRoute.value.fullPath).toBe('/memory?device=a')
  })

  it('never cancels a navigation away from the page (a late write of a leaving page)', async () => {
    const { router, release } = makeRouter()
    await router.push('/memory')
    const leaving = router.push('/timeline?t0=1&t1=2')
    await Promise.resolve()
    await writeQuery(router, '/memory', { t0: '5', t1: '9' }) // the settling zoom
    release()
    await leaving
    expect(router.currentRoute.value.fullPath).toBe('/timeline?t0=1&t1=2')
    // and once the page is gone its writer writes nothing on the new page either
    await writeQuery(router, '/memory', { t0: '7' })
    expect(router.currentRoute.value.fullPath).toBe('/timeline?t0=1&t1=2')
  })

  it('builds on the page\'s own write under way, so quick writes both stay', async () => {
    const { router } = makeRouter()
    await router.push('/memory')
    const first = writeQuery(router, '/memory', { device: 'b' })
    const second = writeQuery(router, '/memory', { emode: 'live' })
    await Promise.all([first, second])
    expect(router.currentRoute.value.query).toEqual({ device: 'b', emode: 'live' })
  })
})

/**
 * Page state kept in the URL query, so a link reproduces what the user sees (filters,
 * sort, step, time window). Default values are left out of the URL to keep links short.
 */
import { computed, type WritableComputedRef } from 'vue'
import { useRoute, useRouter, type LocationQuery, type RouteLocationRaw, type Router } from 'vue-router'

type Codec<T> = { parse: (raw: string) => T | undefined; format: (value: T) => string }

export const asString: Codec<string> = { parse: (raw) => raw, format: (v) => v }
export const asInt: Codec<number> = {
  parse: (raw) => (/^-?\d+$/.test(raw) ? Number(raw) : undefined),
  format: (v) => String(Math.round(v)),
}
export const asBool: Codec<boolean> = {
  parse: (raw) => (raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : undefined),
  format: (v) => (v ? '1' : '0'),
}
export function asOneOf<T extends string>(values: readonly T[]): Codec<T> {
  return { parse: (raw) => (values.includes(raw as T) ? (raw as T) : undefined), format: (v) => v }
}

/** Where each router's navigation under way goes (absent: none), see `trackNavigation`. */
const underway = new WeakMap<Router, { path: string; fullPath: string; query: LocationQuery }>()
const tracked = new WeakSet<Router>()

/**
 * Follow `router`'s navigations, so that a page's writer knows when its page is being left.
 * `push` and `replace` record their target at once (the router's guards only run a few
 * microtasks later: a write in between would not see the navigation); the guards record
 * the navigations that do not come through them (Back, Forward).
 */
export function trackNavigation(router: Router): void {
  if (tracked.has(router)) return
  tracked.add(router)
  for (const method of ['push', 'replace'] as const) {
    const original = router[method].bind(router)
    router[method] = (to: RouteLocationRaw) => {
      const target = router.resolve(to)
      underway.set(router, target)
      return original(to).finally(() => {
        if (underway.get(router) === target) underway.delete(router)
      })
    }
  }
  router.beforeEach((to) => {
    if (underway.get(router)?.fullPath !== to.fullPath) underway.set(router, to)
  })
  router.afterEach((to) => {
    // a navigation superseded by a newer one ends too, while the newer is still under way
    if (underway.get(router)?.fullPath === to.fullPath) underway.delete(router)
  })
}

/**
 * Write query changes for the page at `ownPath` (one `router.replace`). Nothing is written
 * once a navigation away from the page has begun or ended: a replace would cancel a
 * navigation under way (the page's late write, e.g. a settling zoom, would pull the user
 * back from the page they were opening) or land on another page. A write while one of the
 * page's own writes is under way builds on that one, so two quick writes both stay.
 */
export function writeQuery(router: Router, ownPath: string, changes: Record<string, string | undefined>): Promise<void> {
  const going = underway.get(router)
  const now = router.currentRoute.value
  if ((going && going.path !== ownPath) || now.path !== ownPath) return Promise.resolve()
  const query = { ...(going ?? now).query }
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') delete query[k]
    else query[k] = v
  }
  return router.replace({ path: ownPath, query, hash: now.hash }).then(() => undefined)
}

/**
 * Read and write several query parameters in one navigation (e.g. a time window). The
 * writer belongs to the page showing when it was made, and never writes once that page
 * is being left (see `writeQuery`); it resolves once the URL holds the changes.
 */
export function useQueryUpdate(): (changes: Record<string, string | undefined>) => Promise<void> {
  const router = useRouter()
  trackNavigation(router)
  const ownPath = useRoute().path
  return (changes) => writeQuery(router, ownPath, changes)
}

export function useQueryParam<T>(name: string, fallback: T, codec: Codec<T>): WritableComputedRef<T> {
  const route = useRoute()
  const update = useQueryUpdate()
  return computed({
    get() {
      const raw = route.query[name]
      const text = Array.isArray(raw) ? raw[0] : raw
      if (typeof text !== 'string') return fallback
      const value = codec.parse(text)
      return value === undefined ? fallback : value
    },
    set(value: T) {
      const text = codec.format(value)
      void update({ [name]: value === fallback || text === codec.format(fallback) ? undefined : text })
    },
  })
}

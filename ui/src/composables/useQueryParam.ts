/**
 * Page state kept in the URL query, so a link reproduces what the user sees (filters,
 * sort, step, time window). Default values are left out of the URL to keep links short.
 */
import { computed, type WritableComputedRef } from 'vue'
import { useRoute, useRouter } from 'vue-router'

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

/** Read and write several query parameters in one navigation (e.g. a time window). */
export function useQueryUpdate(): (changes: Record<string, string | undefined>) => void {
  const route = useRoute()
  const router = useRouter()
  return (changes) => {
    const query = { ...route.query }
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === '') delete query[k]
      else query[k] = v
    }
    void router.replace({ query })
  }
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
      update({ [name]: value === fallback || text === codec.format(fallback) ? undefined : text })
    },
  })
}

/**
 * The REST API (`/api/v1`, see docs/service.md): URLs relative to the page's <base href>, so
 * the dashboard works under `--url-path-prefix`; errors as `ApiError` carrying the server's
 * code and message (`not_ready` is a 409 while the input is still analysed, or while a
 * stage after its overview, named by `stage`, is still being built).
 */

export type Params = Record<string, string | number | boolean | null | undefined>

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly parameter?: string,
    /** The stage after the overview (`advice`, `timeline`) a 409 waits for or a 422 lost. */
    readonly stage?: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  get notReady(): boolean {
    return this.status === 409 && this.code === 'not_ready'
  }
}

/** The folder the app is served from (ends with '/'), from <base href>. */
export function appBase(): string {
  return new URL(document.baseURI).pathname.replace(/[^/]*$/, '')
}

/** Absolute URL of an API path (`runs/abc/overview`) with the non-empty params. */
export function apiUrl(path: string, params?: Params): string {
  const url = new URL(`api/v1/${path.replace(/^\/+/, '')}`, new URL(appBase(), location.origin))
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v))
  }
  return url.toString()
}

export async function getJson<T>(path: string, params?: Params, signal?: AbortSignal): Promise<T> {
  let response: Response
  try {
    response = await fetch(apiUrl(path, params), { signal, headers: { Accept: 'application/json' } })
  } catch (exc) {
    if ((exc as Error).name === 'AbortError') throw exc
    throw new ApiError(0, 'network', `the server did not answer (${(exc as Error).message})`)
  }
  const text = await response.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    throw new ApiError(response.status, 'bad_response', `not JSON from ${path} (HTTP ${response.status})`)
  }
  if (!response.ok) {
    const err = (body as { error?: { code?: string; message?: string; parameter?: string; stage?: string } })?.error
    throw new ApiError(response.status, err?.code ?? 'http_error',
      err?.message ?? `HTTP ${response.status} from ${path}`, err?.parameter, err?.stage)
  }
  return body as T
}

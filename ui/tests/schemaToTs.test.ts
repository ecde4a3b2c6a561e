import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script, without type declarations
import { toTypeScript, typeOf } from '../scripts/schema-to-ts.mjs'

describe('schema-to-ts', () => {
  it('turns what msgspec emits into TypeScript', () => {
    expect(typeOf({ anyOf: [{ type: 'integer' }, { type: 'number' }] })).toBe('number')
    expect(typeOf({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null')
    expect(typeOf({ type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'null' }] } })).toBe('(number | null)[]')
    expect(typeOf({ type: 'object', additionalProperties: { type: 'number' } })).toBe('Record<string, number>')
    expect(typeOf({ $ref: '#/$defs/Steps' })).toBe('Steps')
    expect(typeOf({ enum: ['auto', 'env'] })).toBe('"auto" | "env"')
    expect(typeOf({})).toBe('unknown')
  })

  it('marks fields that may be absent as optional and keeps descriptions', () => {
    const ts = toTypeScript({
      $ref: '#/$defs/Report',
      $defs: {
        Report: {
          type: 'object', title: 'Report', description: 'One worker.',
          properties: { steps: { $ref: '#/$defs/Steps' }, parallel: { type: 'string' } },
          required: ['steps'],
        },
        Steps: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      },
    }, 'Report')
    expect(ts).toContain('/** One worker. */\nexport interface Report {\n  steps: Steps\n  parallel?: string\n}')
    expect(ts).toContain('export interface Steps {\n  count: number\n}')
  })

  it('writes a schema of definitions only (the API answers) without a root alias', () => {
    const ts = toTypeScript({
      'x-routes': { '/runs': { $ref: '#/$defs/RunList' } },
      $defs: { RunList: { type: 'object', properties: { runs: { type: 'array', items: { type: 'string' } } }, required: ['runs'] } },
    }, null, 'docs/schema/api.schema.json')
    expect(ts).toContain('from docs/schema/api.schema.json: do not edit.')
    expect(ts).toContain('export interface RunList {\n  runs: string[]\n}')
    expect(ts).not.toContain('export type Root')
  })

  it('refuses what it does not know instead of guessing', () => {
    expect(() => typeOf({ type: 'mystery' })).toThrow(/unsupported/)
  })
})

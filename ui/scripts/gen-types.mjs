/**
 * Writes src/api/generated/{report,api}.ts from ../docs/schema/{report,api}.schema.json
 * (see schema-to-ts.mjs); a file is rewritten only when its text changes.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toTypeScript } from './schema-to-ts.mjs'

const here = dirname(fileURLToPath(import.meta.url))
// schema file -> generated module, and the root type's name (null: definitions only)
const FILES = [
  ['report', 'Report'],
  ['api', null],
]
for (const [name, root] of FILES) {
  const source = `docs/schema/${name}.schema.json`
  const input = resolve(here, '../..', source)
  const output = resolve(here, `../src/api/generated/${name}.ts`)
  const text = toTypeScript(JSON.parse(readFileSync(input, 'utf8')), root, source)
  mkdirSync(dirname(output), { recursive: true })
  if (!existsSync(output) || readFileSync(output, 'utf8') !== text) writeFileSync(output, text)
}

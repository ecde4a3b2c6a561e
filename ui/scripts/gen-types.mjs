/** Writes src/api/generated/report.ts from ../docs/schema/report.schema.json (see schema-to-ts.mjs). */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toTypeScript } from './schema-to-ts.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const input = resolve(here, '../../docs/schema/report.schema.json')
const output = resolve(here, '../src/api/generated/report.ts')
const text = toTypeScript(JSON.parse(readFileSync(input, 'utf8')), 'Report')
mkdirSync(dirname(output), { recursive: true })
if (!existsSync(output) || readFileSync(output, 'utf8') !== text) writeFileSync(output, text)

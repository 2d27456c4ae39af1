// Measures the ways to turn X12 into the parse result objects.
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
const require = createRequire(import.meta.url)
const x = require('../index.js')
const n = x.__native
const file = process.argv[2]
const b = readFileSync(file)
const mb = b.length / 1e6
function time(name, f, reps = 5) {
  f()
  let best = Infinity
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint()
    f()
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9)
  }
  console.log(`${name.padEnd(48)} ${(mb / best).toFixed(1).padStart(8)} MB/s  ${(best * 1000).toFixed(0)} ms`)
}
time('parseToJson (bytes only)', () => n.parseToJson(b))
time('JSON.parse(native string)', () => JSON.parse(n.parseToString(b)))
time('JSON.parse(buffer.toString())', () => JSON.parse(n.parseToJson(b).toString()))
const { isAscii } = require('node:buffer')
if (isAscii) time('JSON.parse(isAscii ? latin1 : utf8)', () => { const j = n.parseToJson(b); return JSON.parse(isAscii(j) ? j.latin1Slice() : j.toString()) })
time('JSON.parse(buffer.toString()) again', () => JSON.parse(n.parseToJson(b).toString()))
time('JSON.parse(native string) again', () => JSON.parse(n.parseToString(b)))

// Measures the ways to turn X12 into the parse result objects, in one
// process, best of 5 after a warm-up: the core's JSON bytes handed to
// JSON.parse (what parse() does) against objects built natively with
// Node-API calls (parseToObjects). Usage: node bench/parse-paths.mjs FILE
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
time('parseToObjects (napi builder over the JSON bytes)', () => n.parseToObjects(b))
const json = n.parseToJson(b)
const text = json.toString()
time('  its builder alone: jsonToObjects(bytes)', () => n.jsonToObjects(json))
time('  JSON.parse alone: JSON.parse(string)', () => JSON.parse(text))
time('JSON.parse(buffer.toString()) again', () => JSON.parse(n.parseToJson(b).toString()))
time('JSON.parse(native string) again', () => JSON.parse(n.parseToString(b)))

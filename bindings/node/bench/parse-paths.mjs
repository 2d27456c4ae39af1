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
// Wall time and the process's CPU time (user + system, all threads), best
// of `reps`: on a loaded machine CPU time is the steadier of the two.
async function time(name, f, reps = 5) {
  await f()
  let wall = Infinity
  let cpu = Infinity
  for (let i = 0; i < reps; i++) {
    const c = process.cpuUsage()
    const t = process.hrtime.bigint()
    await f()
    wall = Math.min(wall, Number(process.hrtime.bigint() - t) / 1e9)
    const u = process.cpuUsage(c)
    cpu = Math.min(cpu, (u.user + u.system) / 1e6)
  }
  console.log(`| ${name} | ${(mb / wall).toFixed(1)} | ${(mb / cpu).toFixed(1)} |`)
}
console.log('| path | MB/s of X12 (wall) | MB/s of X12 (CPU time) |\n|---|---|---|')
await time('parseToJson (bytes only)', () => n.parseToJson(b))
await time('parseToJson (bytes only), documents: false', () => n.parseToJson(b, { documents: false }))
await time('JSON.parse(native string)', () => JSON.parse(n.parseToString(b)))
await time('JSON.parse(buffer.toString())', () => JSON.parse(n.parseToJson(b).toString()))
const { isAscii } = require('node:buffer')
if (isAscii) await time('JSON.parse(isAscii ? latin1 : utf8)', () => { const j = n.parseToJson(b); return JSON.parse(isAscii(j) ? j.latin1Slice() : j.toString()) })
await time('parse() = JSON.parse(parseToJson(x))', () => x.parse(b))
await time('parseAsync (objects built in slices, loop free between)', () => x.parseAsync(b))
await time('parseToObjects (napi builder over the JSON bytes)', () => n.parseToObjects(b))
const json = n.parseToJson(b)
const text = json.toString()
await time('  its builder alone: jsonToObjects(bytes)', () => n.jsonToObjects(json))
await time('  JSON.parse alone: JSON.parse(string)', () => JSON.parse(text))
await time('JSON.parse(buffer.toString()) again', () => JSON.parse(n.parseToJson(b).toString()))
await time('JSON.parse(native string) again', () => JSON.parse(n.parseToString(b)))

// What copying results into V8-allocated memory costs: the same calls on
// two builds of the addon in one process, taking turns, best of N (wall and
// CPU time). BEFORE is a build whose results are external buffers (main
// before issue 34: `cargo build -p x12kit-node --release` there, the .so
// copied to a .node file); AFTER is this folder's build. One event-loop turn
// after each call lets the BEFORE build's finalizers run, so that neither
// side pays for the other's garbage.
//
//   node bench/copy-cost.mjs BEFORE.node [MB=1] [reps=15]
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generate850 } from './gen.mjs'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const before = require(process.argv[2])
const after = require('../index.js').__native
const mb = Number(process.argv[3] || 1)
const reps = Number(process.argv[4] || 15)
const input = generate850(mb * 1e6)
const partner = readFileSync(join(here, '../../../examples/partners/acme-retail.json'), 'utf8')
const payload = JSON.stringify({
  purchaseOrderNumber: 'PO-10045',
  shipTo: { id: '0003947268292', name: 'ACME Distribution Center' },
  lines: Array.from({ length: Math.ceil(input.length / 32) }, (_, i) => ({ lineNumber: i + 1, sku: `WID-${100 + (i % 900)}`, quantity: 1 + (i % 50), unitPrice: 9.25 })),
})
const FIXED = { controlNumbers: { interchange: 1, group: 1, transaction: 1 }, date: '20231114', time: '2213' }
const json = after.parseToJson(input, { documents: false })
const turn = () => new Promise((resolve) => setImmediate(resolve))

const cases = [
  ['parseToJson (bytes)', (n) => n.parseToJson(input).length],
  ['parseToJson, documents: false (bytes)', (n) => n.parseToJson(input, { documents: false }).length],
  ['parse = JSON.parse(parseToJson(x).toString())', (n) => JSON.parse(n.parseToJson(input).toString()).interchanges.length],
  ['JSON.parse(parseToString(x)) (a V8 string, no Buffer)', (n) => JSON.parse(n.parseToString(input)).interchanges.length],
  ['write (1 MB of X12 out)', (n) => n.writeJson(json).length],
  ['render (1 MB of X12 out)', (n) => n.renderJson('850', payload, partner, FIXED).x12.length],
]

async function best(f) {
  let wall = Infinity
  let cpu = Infinity
  for (let i = 0; i < reps; i++) {
    await turn()
    const c = process.cpuUsage()
    const t = process.hrtime.bigint()
    f()
    wall = Math.min(wall, Number(process.hrtime.bigint() - t) / 1e6)
    const u = process.cpuUsage(c)
    cpu = Math.min(cpu, (u.user + u.system) / 1e3)
  }
  return { wall, cpu }
}

console.log(`${(input.length / 1e6).toFixed(2)} MB 850, best of ${reps} taking turns; ms per call (wall / CPU); ratio after / before`)
console.log('| call | before (external buffer) | after (V8 buffer, copied) | after / before (wall) | after / before (CPU) |\n|---|---|---|---|---|')
for (const [name, f] of cases) {
  f(before)
  f(after)
  let b = { wall: Infinity, cpu: Infinity }
  let a = { wall: Infinity, cpu: Infinity }
  for (let round = 0; round < 3; round++) {
    const rb = await best(() => f(before))
    const ra = await best(() => f(after))
    b = { wall: Math.min(b.wall, rb.wall), cpu: Math.min(b.cpu, rb.cpu) }
    a = { wall: Math.min(a.wall, ra.wall), cpu: Math.min(a.cpu, ra.cpu) }
  }
  const ms = (x) => `${x.wall.toFixed(2)} / ${x.cpu.toFixed(2)}`
  console.log(`| ${name} | ${ms(b)} | ${ms(a)} | ${(a.wall / b.wall).toFixed(3)} | ${(a.cpu / b.cpu).toFixed(3)} |`)
}

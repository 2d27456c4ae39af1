// Memory while streaming: validateStream over a generated 850 stream of
// 1 GB (never held in memory), RSS sampled every 100 MB fed. Usage:
//   node bench/stream-rss.mjs [MB=1000]
import { createRequire } from 'node:module'
import { Readable } from 'node:stream'
import { stream850 } from './gen.mjs'

const require = createRequire(import.meta.url)
const x12kit = require('../index.js')
const mb = Number(process.argv[2] || 1000)
const rss = () => (process.memoryUsage().rss / 1e6).toFixed(0)
const rows = [[0, rss()]]
let fed = 0
let next = 100e6
async function* counted() {
  for await (const c of stream850(mb * 1e6)) {
    fed += c.length
    if (fed >= next) {
      rows.push([Math.round(fed / 1e6), rss()])
      next += 100e6
    }
    yield c
  }
}
const start = process.hrtime.bigint()
const v = await x12kit.validateStream(Readable.from(counted()))
const s = Number(process.hrtime.bigint() - start) / 1e9
console.log(`validateStream over ${(fed / 1e6).toFixed(0)} MB: valid=${v.valid}, ${s.toFixed(1)} s (generation included)`)
console.log('| MB fed | RSS MB |\n|---|---|')
for (const [m, r] of rows) console.log(`| ${m} | ${r} |`)

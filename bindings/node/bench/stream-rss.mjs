// Memory while streaming: validateStream over a generated 850 stream of
// 1 GB (never held in memory), RSS and the validator's retainedBytes sampled
// every 100 MB fed. Usage:
//   node bench/stream-rss.mjs [MB=1000] [retain=all|errors|counts]
import { createRequire } from 'node:module'
import { Readable } from 'node:stream'
import { stream850 } from './gen.mjs'

const require = createRequire(import.meta.url)
const x12kit = require('../index.js')
const mb = Number(process.argv[2] || 1000)
const retain = process.argv[3] || 'all'
const rss = () => (process.memoryUsage().rss / 1e6).toFixed(0)
const v = new x12kit.StreamValidator({ retain })
const rows = [[0, rss(), 0]]
let fed = 0
let next = 100e6
async function* counted() {
  for await (const c of stream850(mb * 1e6)) {
    fed += c.length
    if (fed >= next) {
      rows.push([Math.round(fed / 1e6), rss(), (v.retainedBytes / 1e6).toFixed(1)])
      next += 100e6
    }
    yield c
  }
}
const start = process.hrtime.bigint()
// What validateStream does, with the validator at hand for its retainedBytes.
for await (const chunk of Readable.from(counted())) v.feed(chunk)
const result = v.finish()
const s = Number(process.hrtime.bigint() - start) / 1e9
console.log(`validateStream over ${(fed / 1e6).toFixed(0)} MB, retain: ${retain}: valid=${result.valid}, ${s.toFixed(1)} s (generation included)`)
console.log('| MB fed | RSS MB | retainedBytes MB |\n|---|---|---|')
for (const [m, r, k] of rows) console.log(`| ${m} | ${r} | ${k} |`)

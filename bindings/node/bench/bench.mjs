// Benchmark: x12kit's Node addon against other Node X12 packages on the same
// generated 850 files (10 MB and 100 MB; bench/gen.mjs). Each case runs in
// its own child process at the default heap size: one warm-up run, then one
// timed run, in-process; the cases take turns for 3 rounds (10 MB) or 1
// (100 MB) and the best round counts. A case that throws or runs out of memory
// is reported as such. Usage (from bindings/node, after `npm run build`):
//
//   (cd bench && npm install) && node bench/bench.mjs [10 100]
//
// Prints a markdown table (MB/s of X12 input, higher is better).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { dataFile } from './gen.mjs'

const require = createRequire(import.meta.url)
const self = fileURLToPath(import.meta.url)

// name -> (buffer, text) => function to time (returns something checked to be non-trivial)
const cases = {
  'x12kit parse (objects)': () => {
    const x = require('../index.js')
    return (b) => x.parse(b).interchanges.length
  },
  'x12kit parse, documents: false': () => {
    const x = require('../index.js')
    return (b) => x.parse(b, { documents: false }).interchanges.length
  },
  'JSON.parse(x12kit parseToJson)': () => {
    const x = require('../index.js')
    return (b) => JSON.parse(x.parseToJson(b).toString('utf8')).interchanges.length
  },
  // The floor of any parse to plain objects of the contract: V8's JSON.parse
  // of the contract's text alone (made by the warm-up call, outside the timed
  // runs), with the core's time and the bytes-to-string copy left out.
  'JSON.parse of the contract text alone (floor)': () => {
    const x = require('../index.js')
    let text
    return (b) => {
      text ??= x.parseToJson(b).toString('utf8')
      return JSON.parse(text).interchanges.length
    }
  },
  'JSON.parse of the contract text alone, documents: false': () => {
    const x = require('../index.js')
    let text
    return (b) => {
      text ??= x.parseToJson(b, { documents: false }).toString('utf8')
      return JSON.parse(text).interchanges.length
    }
  },
  'x12kit parseToObjects (napi builder, not used by parse)': () => {
    const x = require('../index.js')
    return (b) => x.__native.parseToObjects(b).interchanges.length
  },
  'x12kit parseToJson (bytes)': () => {
    const x = require('../index.js')
    return (b) => x.parseToJson(b).length
  },
  'x12kit parseToJson, documents: false (bytes)': () => {
    const x = require('../index.js')
    return (b) => x.parseToJson(b, { documents: false }).length
  },
  'x12kit segments() iteration (id of each)': () => {
    const x = require('../index.js')
    return (b) => {
      let n = 0
      for (const s of x.segments(b)) if (s.id === 'PO1') n++
      return n
    }
  },
  'x12kit validate': () => {
    const x = require('../index.js')
    return (b) => x.validate(b).interchanges.length
  },
  'x12kit validate, retain: counts': () => {
    const x = require('../index.js')
    return (b) => x.validate(b, { retain: 'counts' }).interchanges.length
  },
  'x12kit validate, structure: true': () => {
    const x = require('../index.js')
    return (b) => x.validate(b, { structure: true }).interchanges.length
  },
  '@stedi/x12-tools metadata': () => {
    const s = require('@stedi/x12-tools')
    return (b, t) => JSON.stringify(s.metadata(t)).length
  },
  '@stedi/x12-tools ackAsJson (full parse)': () => {
    const s = require('@stedi/x12-tools')
    return (b, t) => JSON.stringify(s.ackAsJson(t)).length
  },
  'node-x12 X12Parser.parse': () => {
    const { X12Parser } = require('node-x12')
    return (b, t) => new X12Parser(true).parse(t).functionalGroups.length
  },
  'x12-parser (stream of segments)': () => {
    const { X12parser } = require('x12-parser')
    return (b) =>
      new Promise((resolve, reject) => {
        let n = 0
        const p = new X12parser()
        p.on('data', () => n++).on('end', () => resolve(n)).on('error', reject)
        Readable.from([b]).pipe(p)
      })
  },
  'node-x12-edi generateSegments': () => {
    return async (b, t) => {
      const { Transaction } = await import('node-x12-edi')
      const tx = new Transaction()
      tx.generateSegments(t, '~\n', '*')
      return tx.getSegments().length
    }
  },
}

async function child(name, file, reps) {
  const b = readFileSync(file)
  const t = b.toString('latin1')
  const f = cases[name]()
  const check = await f(b, t) // warm-up
  if (!check) throw new Error(`${name}: the warm-up returned ${check}`)
  let best = Infinity
  for (let i = 0; i < reps; i++) {
    const start = process.hrtime.bigint()
    await f(b, t)
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9)
  }
  process.stdout.write(JSON.stringify({ mbps: b.length / 1e6 / best, seconds: best, rss: process.memoryUsage().rss }))
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]))
} else {
  const sizes = process.argv.slice(2).map(Number)
  const mbs = sizes.length ? sizes : [10, 100]
  const names = Object.keys(cases)
  // Rounds interleave the cases (every case once per round; the best round
  // counts), so that a burst of load from other processes hits every case
  // alike and the ratios of one run stay comparable.
  const best = new Map() // `${name}@${mb}` -> result or failure text
  for (const mb of mbs) {
    const file = dataFile(mb)
    const rounds = mb >= 100 ? 1 : 3
    for (let round = 0; round < rounds; round++) {
      for (const name of names) {
        const key = `${name}@${mb}`
        if (typeof best.get(key) === 'string') continue // failed before: do not retry
        let r
        try {
          const out = execFileSync(process.execPath, [self, '--child', name, file, '1'], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
            timeout: 600_000,
          })
          r = JSON.parse(out)
        } catch (e) {
          const err = String(e.stderr || e.message)
          r = /heap out of memory|Allocation failed/.test(err)
            ? 'out of memory'
            : e.signal === 'SIGTERM'
              ? 'timed out (600 s)'
              : `failed: ${err.split('\n').find((l) => /Error/.test(l)) || err.slice(0, 80)}`
        }
        const prev = best.get(key)
        if (typeof r === 'string' || !prev || r.seconds < prev.seconds) best.set(key, r)
        console.error(`${mb} MB round ${round + 1}: ${name} | ${typeof r === 'string' ? r : `${r.mbps.toFixed(1)} MB/s`}`)
      }
    }
  }
  const cell = (r) => (typeof r === 'string' ? r : `${r.mbps.toFixed(1)} MB/s (${r.seconds.toFixed(2)} s)`)
  console.log(`| case | ${mbs.map((m) => `${m} MB 850`).join(' | ')} |`)
  console.log(`|---|${mbs.map(() => '---').join('|')}|`)
  for (const name of names) console.log(`| ${name} | ${mbs.map((mb) => cell(best.get(`${name}@${mb}`))).join(' | ')} |`)
  // The targets of the issue, as ratios within this run.
  const ratio = (a, b, mb) => {
    const x = best.get(`${a}@${mb}`)
    const y = best.get(`${b}@${mb}`)
    return typeof x === 'object' && typeof y === 'object' ? `${(x.mbps / y.mbps).toFixed(2)}x` : 'n/a'
  }
  console.log('')
  for (const mb of mbs) {
    console.log(
      `${mb} MB: parse / @stedi full parse = ${ratio('x12kit parse (objects)', '@stedi/x12-tools ackAsJson (full parse)', mb)}` +
        ` (target 5x); parse / node-x12 = ${ratio('x12kit parse (objects)', 'node-x12 X12Parser.parse', mb)} (target 15x);` +
        ` parse / JSON.parse(parseToJson) = ${ratio('x12kit parse (objects)', 'JSON.parse(x12kit parseToJson)', mb)} (target >= 1x);` +
        ` napi builder / parse = ${ratio('x12kit parseToObjects (napi builder, not used by parse)', 'x12kit parse (objects)', mb)}`,
    )
    const floor = 'JSON.parse of the contract text alone (floor)'
    console.log(
      `${mb} MB floor: JSON.parse of the contract text alone / @stedi full parse = ${ratio(floor, '@stedi/x12-tools ackAsJson (full parse)', mb)}` +
        ` (the most any parse to these objects can reach against the 5x target);` +
        ` parse / floor = ${ratio('x12kit parse (objects)', floor, mb)};` +
        ` parseToJson (the core's share) / @stedi full parse = ${ratio('x12kit parseToJson (bytes)', '@stedi/x12-tools ackAsJson (full parse)', mb)}`,
    )
  }
}

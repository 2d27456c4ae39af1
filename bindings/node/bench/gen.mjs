// Generates large, valid 850 files: one interchange, one group, as many
// transaction sets as it takes to reach the size asked. The set itself is
// rendered by x12kit (200 PO1 lines, ~6.5 KB); only ST02/SE02 and GE01 are
// renumbered here.
import { createRequire } from 'node:module'
import { readFileSync, writeFileSync, mkdirSync, existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const x12kit = require('../index.js')

/**
 * The 850 rendered once and cut into its envelope head, one set and its
 * tail. `lines` PO1 lines per set; `notes` free-form notes (N9 with two MSG
 * of 250 characters each) per set: long segments, as purchase orders with
 * terms and instructions have.
 */
function template({ lines = 200, notes = 0 } = {}) {
  const partner = JSON.parse(readFileSync(join(here, '../../../examples/partners/acme-retail.json'), 'utf8'))
  const payload = {
    purchaseOrderNumber: 'PO-10045',
    shipTo: { id: '0003947268292', name: 'ACME Distribution Center' },
    lines: Array.from({ length: lines }, (_, i) => ({
      lineNumber: i + 1,
      sku: `WID-${100 + i}`,
      quantity: 1 + (i % 50),
      unitPrice: 9.25,
    })),
  }
  if (notes > 0) {
    const text = (i) => `Deliver to dock ${i % 9}; call ahead. `.repeat(8).slice(0, 250)
    payload.notes = Array.from({ length: notes }, (_, i) => ({
      qualifier: 'L1',
      value: `NOTE-${i + 1}`,
      message: text(i),
      additionalMessages: [{ message: text(i + 1) }],
    }))
  }
  const text = x12kit
    .render('850', payload, partner, { controlNumbers: { interchange: 1, group: 1, transaction: 1 }, date: '20231114', time: '2213' })
    .toString('latin1')
  const st = text.indexOf('ST*850*')
  const ge = text.indexOf('GE*')
  return { head: text.slice(0, st), set: text.slice(st, ge), tail: text.slice(ge) }
}

/** A valid 850 interchange of at least `size` bytes, as a Buffer (`shape`: see `template`). */
export function generate850(size, shape) {
  const { head, set, tail } = template(shape)
  const sets = Math.max(1, Math.ceil((size - head.length - tail.length) / set.length))
  const parts = [head]
  for (let i = 1; i <= sets; i++) {
    const cn = String(i).padStart(4, '0')
    parts.push(set.replace('ST*850*0001~', `ST*850*${cn}~`).replace(/SE\*(\d+)\*0001~/, `SE*$1*${cn}~`))
  }
  parts.push(tail.replace('GE*1*1~', `GE*${sets}*1~`))
  return Buffer.from(parts.join(''), 'latin1')
}

/**
 * The same file as a stream of chunks (never held whole): a Readable-compatible
 * async generator of about `size` bytes.
 */
export async function* stream850(size, chunkSize = 1 << 16) {
  const { head, set, tail } = template()
  const sets = Math.max(1, Math.ceil((size - head.length - tail.length) / set.length))
  let pending = head
  for (let i = 1; i <= sets; i++) {
    const cn = String(i).padStart(4, '0')
    pending += set.replace('ST*850*0001~', `ST*850*${cn}~`).replace(/SE\*(\d+)\*0001~/, `SE*$1*${cn}~`)
    if (pending.length >= chunkSize) {
      yield Buffer.from(pending, 'latin1')
      pending = ''
    }
  }
  yield Buffer.from(pending + tail.replace('GE*1*1~', `GE*${sets}*1~`), 'latin1')
}

/** The generated file of `mb` megabytes under bench/data (made once). */
export function dataFile(mb) {
  const dir = join(here, 'data')
  const p = join(dir, `850-${mb}mb.edi`)
  if (!existsSync(p) || statSync(p).size < mb * 1e6) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(p, generate850(mb * 1e6))
  }
  return p
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const mb of process.argv.slice(2).map(Number)) console.log(dataFile(mb))
}

// Shared paths and helpers of the Node suite.
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { appendFileSync, existsSync, readdirSync, statSync } from 'node:fs'

const here = dirname(fileURLToPath(import.meta.url))
export const pkgDir = resolve(here, '..')
export const repoRoot = resolve(pkgDir, '../..')
export const vectorsDir = join(repoRoot, 'tests/vectors')
export const require = createRequire(import.meta.url)
export const x12kit = require('../index.js')

/** The corpus folder (X12KIT_CORPUS or ../shared/corpus beside the repo), or null. */
export function corpusDir() {
  const dir = process.env.X12KIT_CORPUS || resolve(repoRoot, '../shared/corpus')
  return existsSync(dir) ? dir : null
}

/**
 * Why the corpus tests cannot run, or null when the corpus is there. With the
 * corpus absent, a corpus test is skipped with this reason (and named in
 * scripts/test.sh's summary through $X12KIT_SKIP_LOG, see `corpusSkip`) —
 * unless X12KIT_REQUIRE_CORPUS=1 (CI), where it fails instead.
 */
export function corpusMissing() {
  if (corpusDir()) return null
  const dir = process.env.X12KIT_CORPUS || resolve(repoRoot, '../shared/corpus')
  return `the corpus was not found at ${dir} (set X12KIT_CORPUS)`
}

/**
 * The `skip` option of a corpus test: false when the corpus is there or
 * required (the test then fails on its own), else the reason, written once
 * per test to $X12KIT_SKIP_LOG when that is set.
 */
export function corpusSkip(name) {
  const reason = corpusMissing()
  if (!reason || process.env.X12KIT_REQUIRE_CORPUS === '1') return false
  if (process.env.X12KIT_SKIP_LOG) appendFileSync(process.env.X12KIT_SKIP_LOG, `node ${name}: ${reason}\n`)
  return reason
}

/** Every file under `dir`, sorted. */
export function filesUnder(dir) {
  const out = []
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...filesUnder(p))
    else out.push(p)
  }
  return out
}

/** A valid 850 interchange (rendered by the core) with `lines` PO1 lines. */
export function big850(lines, controlNumber = 1) {
  const payload = {
    purchaseOrderNumber: `PO-${controlNumber}`,
    shipTo: { id: '0003947268292', name: 'ACME Distribution Center' },
    lines: Array.from({ length: lines }, (_, i) => ({
      lineNumber: i + 1,
      sku: `WID-${100 + (i % 900)}`,
      quantity: 1 + (i % 50),
      unitPrice: 9.25,
    })),
  }
  const partner = JSON.parse(
    require('node:fs').readFileSync(join(repoRoot, 'examples/partners/acme-retail.json'), 'utf8'),
  )
  return x12kit.render('850', payload, partner, {
    controlNumbers: { interchange: controlNumber, group: controlNumber, transaction: controlNumber },
    date: '20231114',
    time: '2213',
  })
}

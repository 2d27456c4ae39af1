// What the root README promises when the corpus is absent: the corpus tests
// are counted as skipped and named with the reason; with
// X12KIT_REQUIRE_CORPUS=1 (CI) they fail. corpus.test.mjs is run on its own
// with X12KIT_CORPUS pointing nowhere.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pkgDir } from './helpers.mjs'

function runWithoutCorpus(require) {
  const tmp = mkdtempSync(join(tmpdir(), 'x12kit-no-corpus-'))
  const env = { ...process.env, X12KIT_CORPUS: join(tmp, 'no-corpus-here'), X12KIT_SKIP_LOG: join(tmp, 'skips') }
  delete env.X12KIT_REQUIRE_CORPUS
  delete env.NODE_TEST_CONTEXT // the child is a test run of its own, not part of this one
  if (require) env.X12KIT_REQUIRE_CORPUS = '1'
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', '__test__/corpus.test.mjs'], {
    cwd: pkgDir,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  })
  const log = existsSync(env.X12KIT_SKIP_LOG) ? readFileSync(env.X12KIT_SKIP_LOG, 'utf8') : null
  rmSync(tmp, { recursive: true, force: true })
  // The TAP summary's counts (`# skipped N` since Node 20, `# skip N` before, as test.sh reads them).
  const count = (k) => Number((run.stdout.match(new RegExp(`^# ${k === 'skip' ? 'skip(?:ped)?' : k} (\\d+)$`, 'm')) || [])[1])
  return { run, log, reason: `the corpus was not found at ${env.X12KIT_CORPUS} (set X12KIT_CORPUS)`, count }
}

test('without the corpus, its tests are skipped with the reason and named in the skip log', () => {
  const { run, log, reason, count } = runWithoutCorpus(false)
  assert.equal(run.status, 0, run.stdout + run.stderr)
  assert.deepEqual([count('tests'), count('pass'), count('fail'), count('skip')], [1, 0, 0, 1], run.stdout)
  assert.ok(run.stdout.includes(`# SKIP ${reason}`), run.stdout)
  assert.equal(log, `node corpus is present: ${reason}\n`)
})

test('without the corpus and X12KIT_REQUIRE_CORPUS=1, the corpus test fails', () => {
  const { run, log, count } = runWithoutCorpus(true)
  assert.equal(run.status, 1, run.stdout + run.stderr)
  assert.deepEqual([count('tests'), count('fail'), count('skip')], [1, 1, 0], run.stdout)
  assert.ok(run.stdout.includes('the corpus is required (X12KIT_REQUIRE_CORPUS=1)'), run.stdout)
  assert.equal(log, null)
})

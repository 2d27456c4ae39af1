// `npm pack` gives a tarball that installs into an empty project and runs,
// from CommonJS and from ESM.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pkgDir } from './helpers.mjs'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

test('npm pack -> npm install into an empty project -> require and import work', () => {
  const dir = mkdtempSync(join(tmpdir(), 'x12kit-pack-'))
  try {
    const out = execFileSync(npm, ['pack', '--json', '--pack-destination', dir], { cwd: pkgDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const [info] = JSON.parse(out)
    const files = info.files.map((f) => f.path).sort()
    for (const f of ['binding.d.ts', 'binding.js', 'index.d.ts', 'index.js', 'index.mjs', 'package.json', 'x12kit.linux-x64-gnu.node']) {
      assert.ok(files.includes(f), `${f} missing from the tarball: ${files.join(', ')}`)
    }
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('__test__/') || f.startsWith('bench/')), files.join(', '))
    const project = join(dir, 'app')
    execFileSync('mkdir', ['-p', project])
    writeFileSync(join(project, 'package.json'), '{"name":"app","private":true}')
    execFileSync(npm, ['install', '--no-audit', '--no-fund', '--offline', join(dir, info.filename)], { cwd: project, stdio: 'ignore' })
    const x12 = 'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20231114*2213*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20231114~PO1*1*10*EA*9.99**VP*WID-1~CTT*1~SE*5*0001~GE*1*1~IEA*1*000000001~'
    writeFileSync(join(project, 'cjs.cjs'), `const { parse, validate } = require('x12kit'); const d = parse(${JSON.stringify(x12)}); console.log(d.interchanges.length, validate(${JSON.stringify(x12)}).valid)`)
    writeFileSync(join(project, 'esm.mjs'), `import { parse } from 'x12kit'; import x from 'x12kit'; console.log(parse(${JSON.stringify(x12)}).interchanges.length, typeof x.render)`)
    assert.equal(execFileSync(process.execPath, ['cjs.cjs'], { cwd: project, encoding: 'utf8' }).trim(), '1 true')
    assert.equal(execFileSync(process.execPath, ['esm.mjs'], { cwd: project, encoding: 'utf8' }).trim(), '1 function')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

// Post-processes the JS glue wasm-bindgen 0.2.130 generates (build.sh runs
// it on pkg/*.tmp) so that a call after a panic works (README, "Panics"):
//
// 1. Every exported function and method runs wasm-bindgen's call guard
//    first. The guard re-instantiates the module when the panic hook asked
//    for it (`schedule_reinit`), but the generated code copies string
//    arguments into wasm memory (`errorForCode`, `describeSegment` ...) and
//    checks that an object belongs to the current instance before calling
//    it: the new instance then read zeros, and an object of the discarded
//    instance passed the check and reached the new one with a dangling
//    pointer (and its `free()`, which has no check, freed it there).
//    Calling the guard again at its usual place is a no-op.
// 2. A method called on an object of the instance that panicked throws an
//    `X12kitError` with `code: "INTERNAL"` (not wasm-bindgen's plain Error).
// 3. The bundler output cannot re-instantiate (the bundler instantiates the
//    .wasm and keeps the module; wasm-bindgen's reset refers to variables
//    that target does not define): after a panic every call throws the
//    same INTERNAL error, saying so, instead of a ReferenceError.
//
// Fails (exit 1) when a pattern is missing, so a wasm-bindgen upgrade that
// changes the glue stops the build instead of silently dropping a fix.
//   node scripts/patch-glue.mjs <glue.js> [--bundler]
import { readFileSync, writeFileSync } from 'node:fs';

const [file, flag] = process.argv.slice(2);
let js = readFileSync(file, 'utf8');
const fail = (what) => {
  console.error(`patch-glue: ${file}: ${what} (wasm-bindgen's glue changed?)`);
  process.exit(1);
};

// 1. The guard first, in every function and method whose body calls it;
//    `free()` of an object of the discarded instance only forgets it.
let guarded = 0;
js = js.replace(
  /^( *)((?:export )?function \w+|(?:static |get |set )?[\w$]+)\(([^)]*)\) \{\n([\s\S]*?\n)\1\}\n/gm,
  (all, indent, name, args, body) => {
    const guard = `${indent}    __wbg_call_guard();`;
    if (!body.includes('__wbg_call_guard();') || body.startsWith(guard)) return all;
    guarded++;
    if (name === 'free') {
      const destroy = `${indent}    const ptr = this.__destroy_into_raw();\n`;
      if (!body.startsWith(destroy)) fail('free() does not start with __destroy_into_raw');
      body =
        `${indent}    const stale = this.__wbg_inst !== undefined && this.__wbg_inst !== __wbg_instance_id;\n` +
        destroy +
        `${indent}    if (stale) return; // patch-glue.mjs: its memory went with the discarded instance\n` +
        body.slice(destroy.length);
    }
    return `${indent}${name}(${args}) {\n${guard} // patch-glue.mjs: before the stale check and argument copies\n${body}${indent}}\n`;
  },
);
if (guarded === 0) fail('no function calls __wbg_call_guard');
if (!/^ +free\(\) \{\n +__wbg_call_guard\(\);/m.test(js)) fail('free() was not patched');

// 2. Stale objects: the package's INTERNAL error.
const stale = "throw new Error('Invalid stale object from previous Wasm instance');";
if (!js.includes(stale)) fail('no stale-object check');
js = js.split(stale).join(
  "throw Object.assign(new Error('x12kit: this object was made before an internal error (a panic) reset the module; make a new one'), " +
    "{ name: 'X12kitError', code: 'INTERNAL', kind: 'internal', details: [] });",
);

// 3. Bundler: no re-instantiation; a clear INTERNAL error on every later call.
if (flag === '--bundler') {
  const reinst = /    __wbg_reinit_scheduled = false;\n    wasmInstance = new WebAssembly\.Instance\(wasmModule, __wbg_get_imports\(\)\);\n    wasm = wasmInstance\.exports;\n    wasm\.__wbindgen_start\(\);\n/;
  if (!reinst.test(js)) fail('no re-instantiation in __wbg_reset_state');
  js = js.replace(
    reinst,
    "    throw Object.assign(new Error('x12kit: an earlier call hit an internal error (a panic), and the bundler build cannot " +
      "re-instantiate its WebAssembly module (the bundler owns it); reload the page, or use the web or nodejs build, which recover'), " +
      "{ name: 'X12kitError', code: 'INTERNAL', kind: 'internal', details: [] });\n",
  );
}
writeFileSync(file, js);
console.error(`patch-glue: ${file}: guard first in ${guarded} functions`);

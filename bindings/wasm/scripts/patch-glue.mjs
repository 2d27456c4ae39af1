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
//    `X12kitError` with `code: "INTERNAL"` (not wasm-bindgen's plain Error);
//    a stream (`transactions()`, `splitStream()`) that a panic finished
//    answers next() and return() with `{done: true}`.
// 3. A Rust closure of the instance that panicked (a promise reaction of a
//    stream) re-instantiates first and then throws that INTERNAL error.
// 4. The bundler output cannot re-instantiate (the bundler instantiates the
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

// 2. Stale objects: the package's INTERNAL error. A stream of `transactions()`
//    or `splitStream()` is an async iterator that a panic finished (its
//    pending next() rejected with the INTERNAL error): its next() and return()
//    settle as done.
const stale = "throw new Error('Invalid stale object from previous Wasm instance');";
if (!js.includes(stale)) fail('no stale-object check');
{
  const start = js.search(/^(?:export )?class TransactionStream \{$/m);
  const end = start < 0 ? -1 : js.indexOf('\n}\n', start);
  if (end < 0) fail('no class TransactionStream');
  let cls = js.slice(start, end);
  let finished = 0;
  cls = cls.replace(/^( {4})(next|return)\(\) \{\n([\s\S]*?)\n\1\}\n/gm, (all, indent, name, body) => {
    if (!body.includes(stale)) return all;
    finished++;
    return `${indent}${name}() {\n${body.replace(stale, 'return Promise.resolve({ value: undefined, done: true }); // patch-glue.mjs: finished by a panic')}\n${indent}}\n`;
  });
  if (finished !== 2) fail(`TransactionStream: ${finished} of next() and return() have the stale check`);
  js = js.slice(0, start) + cls + js.slice(end);
}
js = js.split(stale).join(
  "throw Object.assign(new Error('x12kit: this object was made before an internal error (a panic) reset the module; make a new one'), " +
    "{ name: 'X12kitError', code: 'INTERNAL', kind: 'internal', details: [] });",
);

// 3. A closure of the instance that panicked (the reaction of a stream's
//    next() waiting on the one that panicked) runs the guard first, so the
//    module is re-instantiated before the instance check: it then throws the
//    INTERNAL error (rejecting its promise) instead of the guard, inside the
//    generated invoke, re-instantiating and calling the new instance with
//    the old instance's closure pointers.
{
  const check = /^( +)const real = \(\.\.\.args\) => \{\n\n\1    if \(state\.instance !== __wbg_instance_id\) \{\n\1        throw new Error\('Cannot invoke closure from previous WASM instance'\);\n/m;
  if (!check.test(js)) fail('no instance check in makeMutClosure');
  js = js.replace(
    check,
    (all, indent) =>
      `${indent}const real = (...args) => {\n${indent}    __wbg_call_guard(); // patch-glue.mjs: re-instantiate before the instance check\n` +
      `${indent}    if (state.instance !== __wbg_instance_id) {\n${indent}        ` +
      "throw Object.assign(new Error('x12kit: this call was under way when an internal error (a panic) reset the module'), " +
      "{ name: 'X12kitError', code: 'INTERNAL', kind: 'internal', details: [] });\n",
  );
}

// 4. Bundler: no re-instantiation; a clear INTERNAL error on every later call.
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

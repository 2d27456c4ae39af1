//! No panic crosses the boundary: on wasm32 a Rust panic aborts (the
//! instance traps with `RuntimeError: unreachable`, and `catch_unwind` does
//! not exist with `panic=abort`), so the hook installed at start-up turns it
//! into the package's `INTERNAL` error instead. It asks wasm-bindgen to
//! re-instantiate the module before the next call (`schedule_reinit`: the
//! panicking call leaves the instance's stack pointer, heap and borrow flags
//! as they were mid-call), then throws the `X12kitError` with
//! `code: "INTERNAL"` from inside the call: a JS exception unwinds the wasm
//! frames without running any Rust code, so the caller's `catch` gets it
//! instead of the trap. Objects the old instance made (a `StreamValidator`,
//! a segment iterator, a validation result kept for `acknowledge`) are then
//! stale: calls on them throw an `INTERNAL` error too (`scripts/patch-glue.mjs`).
//! The steps of a stream (`transactions()`, `splitStream()`) run as promise
//! reactions (`sets::after`), so the error thrown out of a step rejects the
//! promise of its `next()` rather than escaping into the event loop.

/// Installs the hook (the module's start function calls it once per instance).
#[cfg(target_arch = "wasm32")]
pub fn install() {
    std::panic::set_hook(Box::new(hook));
}

/// The message of the `INTERNAL` error of a panic: the Node addon's wording,
/// then where the panic happened.
#[cfg(any(target_arch = "wasm32", test))]
pub fn message(info: &std::panic::PanicHookInfo<'_>) -> String {
    let p = info.payload();
    let what = if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    };
    match info.location() {
        Some(l) => format!(
            "x12kit panicked (a bug; please report it): {what} (at {}:{})",
            l.file(),
            l.line()
        ),
        None => format!("x12kit panicked (a bug; please report it): {what}"),
    }
}

#[cfg(target_arch = "wasm32")]
fn hook(info: &std::panic::PanicHookInfo<'_>) {
    let err = crate::error::to_js(x12kit::Error::new(
        x12kit::error::ErrorCode::Internal,
        message(info),
    ));
    wasm_bindgen::handler::schedule_reinit();
    wasm_bindgen::throw_val(err);
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    #[test]
    fn the_message_names_the_panic_and_where_it_happened() {
        let seen = Arc::new(Mutex::new(String::new()));
        let s = seen.clone();
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            *s.lock().unwrap() = super::message(info)
        }));
        let r = std::panic::catch_unwind(|| panic!("boom {}", 42));
        std::panic::set_hook(before);
        assert!(r.is_err());
        let m = seen.lock().unwrap().clone();
        assert!(
            m.starts_with("x12kit panicked (a bug; please report it): boom 42 (at "),
            "{m}"
        );
        assert!(m.contains("panic.rs:"), "{m}");
    }
}

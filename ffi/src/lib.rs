//! The C ABI of x12kit: `libx12kit.so` / `libx12kit.a` and `include/x12kit.h`.
//!
//! A thin layer: every function converts its arguments, calls the core crate
//! and maps the result or error back, nothing more. Every exported function
//! runs its body inside `catch_unwind` (see `error::call` and
//! `error::guard`), so no panic crosses into C. The header is generated from
//! these sources by cbindgen (`scripts/gen-header.sh`) and checked in; the doc
//! comments here are the header's documentation. docs/c.md is the guide.
//!
//! Modules: [`error`] (status, error object, guards), [`string`] (owned
//! output bytes), [`json`] (parse / write), [`validate`] (validate /
//! acknowledge), [`diagnostics`], [`render`], [`csv`] (CSV intake), [`split`] (split and merge), [`reader`] (the zero-copy
//! reader and element views), [`webhook`] (sign / verify, delivery building).

#![allow(non_camel_case_types)]
// The C API takes its inputs as separate pointer and length arguments.
#![allow(clippy::too_many_arguments)]

// Declaration order is the order of the header (cbindgen follows it), so
// each module stands alone: rustfmt would otherwise sort them.
pub mod error;

pub mod string;

pub mod json;

pub mod validate;

pub mod diagnostics;

pub mod render;

pub mod csv;

pub mod split;

pub mod reader;

pub mod webhook;

#[cfg(test)]
mod json_options_tests;

use std::ffi::c_char;

/// The version of the library, e.g. "0.1.0".
///
/// Ownership: a static, NUL-terminated string that must not be freed.
/// Lifetime: the whole life of the process. Thread safety: callable from any thread.
#[unsafe(no_mangle)]
pub extern "C" fn x12kit_version() -> *const c_char {
    error::guard(c"".as_ptr(), || {
        concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
    })
}

#[cfg(test)]
mod tests {
    /// Every function and type of the committed header documents ownership,
    /// lifetime and thread safety, and every symbol carries the prefix.
    #[test]
    fn header_documents_ownership_lifetime_and_threads() {
        let header = include_str!("../../include/x12kit.h");
        let mut items = 0;
        for chunk in header.split("/**").skip(1) {
            let Some((doc, rest)) = chunk.split_once("*/") else {
                continue;
            };
            let decl = rest.trim_start().lines().next().unwrap_or_default();
            if !(decl.contains('(') || decl.starts_with("typedef")) {
                continue; // a field or an enum value
            }
            items += 1;
            let doc = doc.to_lowercase();
            for word in ["ownership", "lifetime", "thread"] {
                assert!(
                    doc.contains(word),
                    "{decl}: the doc comment does not say {word}"
                );
            }
            assert!(decl.contains("x12kit_"), "{decl}: unprefixed");
        }
        assert!(items > 50, "only {items} documented items found");
    }
}

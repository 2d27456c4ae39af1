//! Fuzzes the writing side: `write_str` on arbitrary text must return bytes or
//! a typed error with a stable code, never panic. Seed the corpus with parse
//! results (see README.md) so the fuzzer starts from the real shape.
#![no_main]

use libfuzzer_sys::fuzz_target;
use x12kit::WriteOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for options in [
        WriteOptions::default(),
        WriteOptions {
            line_break: Some("\r\n".into()),
        },
    ] {
        match x12kit::write_str(text, &options) {
            // What was written reads back without panicking.
            Ok(bytes) => drop(x12kit::to_json(&x12kit::parse(&bytes))),
            Err(e) => {
                // A code of the list every binding maps, by its stable name.
                let code = e.code();
                assert_eq!(x12kit::ErrorCode::from_name(code.as_str()), Some(code));
            }
        }
    }
});

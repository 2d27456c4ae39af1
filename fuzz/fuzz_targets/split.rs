//! Fuzzes the operations on files of any size: the parse JSON written a
//! transaction set at a time (`to_json_stream_holding`, with every
//! interchange held or streamed, on one thread and on two) is the
//! whole-tree writer's, byte for byte; `split` never panics, holds every
//! set in exactly one part, and each part is one interchange; merging the
//! parts of an input that validates clean gives one that validates clean;
//! the sets handed over one at a time (`each_set_json_holding`, what the
//! bindings' set iterators read) are the parse result's, with its diagnostics.
//!
//! The first byte picks the options (hold, maxSets, per, renumbering), the
//! second the cap on one set (`maxSetBytes`: 0 the default, else 8 bytes a
//! unit, so that some sets go over it: `SET_TOO_LARGE` the same through
//! every path, the sets over it in no part); the rest is the X12.
#![no_main]

use libfuzzer_sys::fuzz_target;
use x12kit::json::{JsonOptions, to_json_stream_holding, to_json_stream_threads_holding};
use x12kit::SetCap;
use x12kit::ops::{self, MergeOptions, Per, Renumber, SplitOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some((&unit, input)) = rest.split_first() else {
        return;
    };
    let cap = match unit {
        0 => SetCap::default(),
        n => SetCap::bytes(u64::from(n) * 8),
    };
    let doc = x12kit::parse_capped(input, cap);
    let o = JsonOptions {
        documents: pick & 1 == 1,
        max_set_bytes: cap,
    };
    assert!(ops::parse_json(input, &o) == x12kit::to_json_with(&doc, &o));
    let whole = x12kit::to_json_with(&doc, &o);
    let hold = [0, 1, 3, usize::MAX][usize::from(pick >> 1 & 3)];
    let mut out = Vec::new();
    let d = to_json_stream_holding(input, &mut out, false, &o, hold, &mut |_| {}).unwrap();
    assert!(out == whole, "set by set, hold {hold}");
    assert_eq!(d, doc.diagnostics);
    let mut out = Vec::new();
    to_json_stream_threads_holding(input, &mut out, false, &o, 2, false, hold, &mut |_| {}).unwrap();
    assert!(out == whole, "two threads, hold {hold}");
    let mut out = Vec::new();
    to_json_stream_threads_holding(input, &mut out, false, &o, 2, true, hold, &mut |_| {}).unwrap();
    assert!(out == whole, "automatic threads, hold {hold}");
    let mut handed = 0usize;
    let d = x12kit::json::each_set_json_holding(input, &o, hold, &mut |set| {
        let v: serde_json::Value = serde_json::from_slice(set).expect("a set is JSON");
        assert!(v["transaction"].is_object() && v["diagnostics"].is_array());
        handed += 1;
        true
    });
    assert_eq!(d, doc.diagnostics);

    let renumber = if pick & 0x80 != 0 {
        Renumber {
            interchange: Some(999_999_998),
            group: Some(1),
            set: Some(9999),
        }
    } else {
        Renumber::default()
    };
    let so = SplitOptions {
        per: if pick & 0x40 != 0 { Per::Group } else { Per::Set },
        max_sets: Some(usize::from(pick >> 3 & 3) + 1),
        max_bytes: (pick & 0x20 != 0).then_some(200),
        renumber,
        max_set_bytes: cap,
    };
    let split = ops::split(input, &so).expect("valid options");
    assert_eq!(split.diagnostics, doc.diagnostics);
    let sets: usize = doc
        .interchanges
        .iter()
        .flat_map(|i| &i.groups)
        .flat_map(|g| &g.transactions)
        .filter(|t| !t.is_over_cap())
        .count();
    let over = doc.diagnostics.iter().filter(|d| d.code == x12kit::Code::SetTooLarge).count();
    assert_eq!(split.parts.iter().map(|p| p.sets.len()).sum::<usize>(), sets);
    assert_eq!(handed, sets + over);
    for p in &split.parts {
        assert_eq!(x12kit::parse(&p.x12).interchanges.len(), 1);
    }
    if !split.parts.is_empty() && ops::validate(input, &Default::default()).is_valid() {
        let parts: Vec<&[u8]> = split.parts.iter().map(|p| &p.x12[..]).collect();
        let mo = MergeOptions { renumber };
        if let Ok(merged) = ops::merge(&parts, &mo) {
            assert!(ops::validate(&merged, &Default::default()).is_valid());
        }
    }
});

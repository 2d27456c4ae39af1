//! The cap on one transaction set (`maxSetBytes`, `SetCap`): a set larger
//! than the cap is a `SET_TOO_LARGE` error at its ST, is handed over with
//! no segments and no mapped document, and the sets before and after it
//! are untouched, the same through every path that builds sets: the whole
//! parse, `parse_json` (an interchange at a time), the set-by-set writer
//! (held or streamed, on this thread or on workers), `each_set_json`
//! and `split`. Under the cap nothing changes.

use serde_json::{Value, json};
use x12kit::json::{JsonOptions, each_set_json_holding, to_json_stream_threads_holding};
use x12kit::ops::{self, ParseOptions, SplitOptions};
use x12kit::{Code, MAX_SET_BYTES, SetCap};

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

/// An 850 with `lines` PO1 segments.
fn set(n: u32, lines: usize) -> String {
    let mut s = format!("ST*850*{n:04}~\nBEG*00*SA*PO-{n}**20230101~\n");
    for i in 0..lines {
        s.push_str(&format!("PO1*{i}*2*EA*1.5**VP*SKU{i}~\n"));
    }
    s + &format!("CTT*{lines}~\nSE*{}*{n:04}~\n", lines + 4)
}

/// One interchange: a small set, a large one, a small one (and a second
/// group with one small set).
fn input() -> String {
    format!(
        "{ISA}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n{}{}{}GE*3*1~\nGS*PO*SENDER*RECEIVER*20230101*1200*2*X*004010~\n{}GE*1*2~\nIEA*2*000000001~\n",
        set(1, 1),
        set(2, 40),
        set(3, 2),
        set(4, 1)
    )
}

/// Bytes from the large set's ST to the end of its last body segment (its
/// size as the cap counts it).
fn large_size(x12: &str) -> u64 {
    let st = x12.find("ST*850*0002").unwrap();
    let se = x12.find("SE*44*0002").unwrap();
    // The CTT's terminator and line break are not counted.
    (se - "~\n".len() - st) as u64
}

fn options(cap: SetCap) -> ParseOptions {
    ParseOptions {
        max_set_bytes: cap,
        ..Default::default()
    }
}

fn sets(json: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for i in json["interchanges"].as_array().unwrap() {
        for g in i["groups"].as_array().unwrap() {
            out.extend(g["transactions"].as_array().unwrap().iter().cloned());
        }
    }
    out
}

#[test]
fn a_set_over_the_cap_is_an_error_at_its_st_and_the_others_are_kept() {
    let x12 = input();
    let capped = options(SetCap::bytes(300));
    let got: Value = serde_json::from_slice(&ops::parse_json(x12.as_bytes(), &capped)).unwrap();
    let free: Value =
        serde_json::from_slice(&ops::parse_json(x12.as_bytes(), &options(SetCap::NONE))).unwrap();
    let (got_sets, free_sets) = (sets(&got), sets(&free));
    assert_eq!(got_sets.len(), 4);
    // Before and after: exactly what the parse without a cap gives.
    for k in [0, 2, 3] {
        assert_eq!(got_sets[k], free_sets[k], "set {k}");
        assert!(got_sets[k].get("document").is_some(), "set {k}");
    }
    // The large set: its ST and SE, no segments, no document.
    let big = &got_sets[1];
    assert_eq!(big["controlNumber"], "0002");
    assert_eq!(big["segments"], json!([]));
    assert!(big.get("document").is_none(), "{big}");
    assert_eq!(big["trailer"], free_sets[1]["trailer"]);
    // One diagnostic, at its ST.
    let d = got["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "SET_TOO_LARGE");
    assert_eq!(d[0]["severity"], "error");
    assert_eq!(d[0]["segmentId"], "ST");
    assert_eq!(d[0]["segmentIndex"], 7);
    assert_eq!(d[0]["offset"], x12.find("ST*850*0002").unwrap());
    let m = d[0]["message"].as_str().unwrap();
    assert!(m.contains("0002 (850)") && m.contains("300 bytes"), "{m}");
    // The tree says which set was cut.
    let doc = x12kit::parse_capped(x12.as_bytes(), SetCap::bytes(300));
    let over: Vec<bool> = doc.interchanges[0]
        .groups
        .iter()
        .flat_map(|g| &g.transactions)
        .map(|t| t.is_over_cap())
        .collect();
    assert_eq!(over, [false, true, false, false]);
    assert_eq!(
        doc.body(&doc.interchanges[0].groups[0].transactions[1])
            .count(),
        0
    );
}

#[test]
fn the_cap_counts_from_the_st_to_the_end_of_the_last_body_segment() {
    let x12 = input();
    let size = large_size(&x12);
    let free = ops::parse_json(x12.as_bytes(), &ParseOptions::default());
    for cap in [size, size + 1, MAX_SET_BYTES, 0] {
        assert!(
            ops::parse_json(x12.as_bytes(), &options(SetCap::bytes(cap))) == free,
            "cap {cap}"
        );
    }
    let d = x12kit::parse_capped(x12.as_bytes(), SetCap::bytes(size - 1)).diagnostics;
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::SetTooLarge]
    );
}

#[test]
fn a_set_over_the_cap_without_an_se_ends_at_the_next_envelope_segment() {
    // The large set has no SE: it ends at the next ST (SE_MISSING there),
    // and the set after it is kept.
    let big = set(2, 40);
    let big = &big[..big.find("SE*").unwrap()];
    let x12 = format!(
        "{ISA}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n{}{big}{}GE*3*1~\nIEA*1*000000001~\n",
        set(1, 1),
        set(3, 2)
    );
    let o = options(SetCap::bytes(200));
    let got: Value = serde_json::from_slice(&ops::parse_json(x12.as_bytes(), &o)).unwrap();
    let codes: Vec<&str> = got["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["SET_TOO_LARGE", "SE_MISSING"]);
    let s = sets(&got);
    assert_eq!(s.len(), 3);
    assert_eq!(s[1]["segments"], json!([]));
    assert_eq!(s[2]["controlNumber"], "0003");
    assert_eq!(s[2]["segments"].as_array().unwrap().len(), 4);
}

/// The same JSON and diagnostics through every path, whatever the hold and
/// the number of threads.
#[test]
fn every_path_gives_the_same_result() {
    let x12 = input();
    let input = x12.as_bytes();
    let cap = SetCap::bytes(300);
    let o = options(cap);
    let doc = x12kit::parse_capped(input, cap);
    let whole = x12kit::to_json_with(&doc, &o);
    assert_eq!(ops::parse_json(input, &o), whole);
    let mut out = Vec::new();
    let d = ops::parse_json_to_writer(input, &o, &mut out).unwrap();
    assert_eq!((out, &d), (whole.clone(), &doc.diagnostics));
    for hold in [0, 1, 5, x12kit::sets::HOLD] {
        for (threads, auto) in [(1, false), (2, false), (2, true)] {
            let mut out = Vec::new();
            let d = to_json_stream_threads_holding(
                input,
                &mut out,
                false,
                &o,
                threads,
                auto,
                hold,
                &mut |_| {},
            )
            .unwrap();
            assert!(out == whole, "hold {hold}, {threads} threads, auto {auto}");
            assert_eq!(d, doc.diagnostics);
        }
        // Set by set: the same set objects, the diagnostic with its set.
        let mut got = Vec::new();
        let d = each_set_json_holding(input, &o, hold, &mut |b| {
            got.push(serde_json::from_slice::<Value>(b).unwrap());
            true
        });
        assert_eq!(d, doc.diagnostics);
        let want = sets(&serde_json::from_slice(&whole).unwrap());
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(&g["transaction"], w, "hold {hold}, set {k}");
            let codes: Vec<&str> = g["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["code"].as_str().unwrap())
                .collect();
            assert_eq!(
                codes,
                if k == 1 {
                    vec!["SET_TOO_LARGE"]
                } else {
                    vec![]
                }
            );
        }
    }
    // The mapped document of the cut set: none.
    assert_eq!(ops::transaction_document_json(&doc, 0, 0, 1).unwrap(), None);
    assert!(
        ops::transaction_document_json(&doc, 0, 0, 2)
            .unwrap()
            .is_some()
    );
}

#[test]
fn split_leaves_a_set_over_the_cap_out_of_the_parts() {
    let x12 = input();
    let o: SplitOptions = ops::options(json!({"maxSetBytes": 300})).unwrap();
    let s = ops::split(x12.as_bytes(), &o).unwrap();
    let sets: Vec<&str> = s
        .parts
        .iter()
        .flat_map(|p| &p.sets)
        .map(|s| s.original_control_number.as_str())
        .collect();
    assert_eq!(sets, ["0001", "0003", "0004"]);
    let codes: Vec<Code> = s.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::SetTooLarge]);
    // Every part is a clean interchange.
    for p in &s.parts {
        let v = ops::validate(&p.x12, &Default::default());
        assert!(v.is_valid(), "{:?}", v.diagnostics);
    }
    // Without the cap, the large set is a part of its own.
    let all = ops::split(x12.as_bytes(), &SplitOptions::default()).unwrap();
    assert_eq!(all.parts.len(), 4);
    assert!(all.diagnostics.is_empty());
}

#[test]
fn validation_reads_every_set_whatever_its_size() {
    // `validate` holds no set: no cap, the same result as the stream validator.
    let x12 = input();
    let v = ops::validate(x12.as_bytes(), &Default::default());
    assert!(v.is_valid(), "{:?}", v.diagnostics);
    // A tree parsed with a cap, validated: the cut set is rejected with the cap's code.
    let doc = x12kit::parse_capped(x12.as_bytes(), SetCap::bytes(300));
    let v = x12kit::validate(&doc);
    assert!(v.diagnostics.iter().any(|d| d.code == Code::SetTooLarge));
    let sets = &v.interchanges[0].groups[0].transactions;
    assert_eq!(sets[1].ak5.code, "R", "{:?}", sets[1]);
    assert!(sets[1].ak5.errors.contains(&"5"), "{:?}", sets[1]);
    assert_eq!(sets[0].ak5.code, "A", "{:?}", sets[0]);
}

#[test]
fn the_option_is_read_from_json_and_zero_is_no_cap() {
    let o: JsonOptions = ops::options(json!({"maxSetBytes": 0})).unwrap();
    assert_eq!(o.max_set_bytes, SetCap::NONE);
    assert_eq!(ParseOptions::default().max_set_bytes, SetCap(MAX_SET_BYTES));
    assert_eq!(MAX_SET_BYTES, 64 << 20);
    for bad in [
        json!({"maxSetBytes": -1}),
        json!({"maxSetBytes": "1"}),
        json!({"maxSetBytes": 1.5}),
    ] {
        let e = ops::options::<ParseOptions>(bad.clone()).unwrap_err();
        assert_eq!(e.code().as_str(), "INVALID_OPTIONS", "{bad}");
        assert_eq!(e.pointer(), Some("/maxSetBytes"), "{bad}");
    }
}

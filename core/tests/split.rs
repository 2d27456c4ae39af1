//! Split and merge (`ops::split`, `ops::merge`): every part is a complete
//! interchange that validates clean when the input did, with its counts
//! right and its sets where the positions say; split then merge gives the
//! input back byte for byte without renumbering; renumbering numbers from
//! the starts given; bad options and unmergeable inputs are typed errors;
//! truncated and garbled inputs are split as far as they can be, with the
//! diagnostics, never a panic.

mod common;

use common::{corpus_dir, corpus_files};
use proptest::prelude::*;
use serde_json::json;
use x12kit::ops::{self, MergeOptions, SplitOptions};

fn opts(v: serde_json::Value) -> SplitOptions {
    ops::options(v).unwrap()
}

/// Whether an input is one clean interchange with nothing around it (the
/// inputs a split and merge give back byte for byte).
fn round_trippable(input: &[u8]) -> bool {
    let doc = x12kit::parse(input);
    doc.diagnostics.is_empty()
        && doc.interchanges.len() == 1
        && doc.prefix.is_empty()
        && doc.interchanges[0].segments.is_empty()
        && doc.interchanges[0]
            .groups
            .iter()
            .all(|g| g.segments.is_empty())
        && doc.interchanges[0].iea.is_some_and(|iea| {
            let end = iea.offset() + iea.raw().len() + 1 + iea.suffix().len();
            end == input.len()
        })
        && doc.interchanges[0].groups.iter().all(|g| {
            g.ge.is_some_and(|ge| {
                ge.value(1) == g.transactions.len().to_string().as_bytes()
                    && g.gs.is_some_and(|gs| gs.value(6) == ge.value(2))
            })
        })
        && doc.interchanges[0].iea.is_some_and(|iea| {
            let i = &doc.interchanges[0];
            iea.value(1) == i.groups.len().to_string().as_bytes()
                && *x12kit::envelope::isa_value(&i.isa, 13) == *iea.value(2)
        })
}

/// Whether every GE and IEA of `input` is written as a stream's split
/// builds them when it has not read them yet: `GE*n*ctl` / `IEA*n*ctl`
/// with the terminator and line break of its GS / ISA.
fn regular_trailers(input: &[u8]) -> bool {
    let doc = x12kit::parse(input);
    let like = |t: &x12kit::Segment<'_>, h: &x12kit::Segment<'_>| {
        t.terminated() && t.element_count() == 2 && t.suffix() == h.suffix()
    };
    doc.interchanges.iter().all(|i| {
        i.iea.is_none_or(|iea| like(&iea, &i.isa))
            && i.groups.iter().all(|g| match (&g.gs, &g.ge) {
                (Some(gs), Some(ge)) => like(ge, gs),
                _ => true,
            })
    })
}

/// The split of `input` fed in chunks of the sizes of `cuts`, in turn
/// (`SplitFeeder`).
fn fed(input: &[u8], o: &SplitOptions, cuts: &[usize]) -> ops::Split {
    let mut parts = Vec::new();
    let diagnostics = {
        let mut f = ops::SplitFeeder::new(o, |p| {
            parts.push(p);
            Ok(())
        })
        .unwrap();
        let mut rest = input;
        let mut k = 0;
        while !rest.is_empty() {
            let n = cuts[k % cuts.len()].clamp(1, rest.len());
            k += 1;
            f.feed(&rest[..n]).unwrap();
            rest = &rest[n..];
        }
        f.finish().unwrap()
    };
    ops::Split { parts, diagnostics }
}

/// Every part made again from its recipe and the input's bytes in the
/// recipe's ranges (`rebuild_part`) is the part: bytes, numbers, positions.
fn rebuilds(name: &str, input: &[u8], split: &ops::Split) {
    for (k, p) in split.parts.iter().enumerate() {
        let bytes: Vec<u8> = p
            .recipe
            .ranges
            .iter()
            .flat_map(|&[from, to]| input[from..to].iter().copied())
            .collect();
        let again = ops::rebuild_part(&p.recipe, &bytes)
            .unwrap_or_else(|e| panic!("{name}: part {k}: {e}\n{}", p.text));
        assert!(
            again == *p,
            "{name}: part {k} rebuilt differs\n{}\n{}\n{:?}\n{:?}",
            p.text,
            again.text,
            p.sets,
            again.sets
        );
    }
}

/// A stream's split gives the slice's parts: the same sets, numbers and
/// positions always, the same bytes when the trailers are regular. Each
/// part of either is made again from its recipe.
fn same_as_slice(name: &str, input: &[u8], o: &SplitOptions, cuts: &[usize]) {
    let want = ops::split(input, o).unwrap();
    let got = fed(input, o, cuts);
    rebuilds(name, input, &want);
    rebuilds(name, input, &got);
    assert_eq!(got.diagnostics, want.diagnostics, "{name} {o:?} {cuts:?}");
    assert_eq!(got.parts.len(), want.parts.len(), "{name} {o:?} {cuts:?}");
    let regular = regular_trailers(input);
    for (g, w) in got.parts.iter().zip(&want.parts) {
        assert_eq!(g.sets, w.sets, "{name} {o:?}");
        assert_eq!(g.interchange_control_number, w.interchange_control_number);
        assert_eq!(
            g.original_interchange_control_number,
            w.original_interchange_control_number
        );
        assert_eq!(g.group_control_number, w.group_control_number);
        assert_eq!(g.functional_id, w.functional_id);
        if regular {
            assert!(
                g.x12 == w.x12,
                "{name} {o:?} {cuts:?}\n{}\n{}",
                g.text,
                w.text
            );
        }
    }
}

fn check(name: &str, input: &[u8]) {
    let doc = x12kit::parse(input);
    let sets: usize = doc
        .interchanges
        .iter()
        .flat_map(|i| &i.groups)
        .map(|g| g.transactions.len())
        .sum();
    let valid = ops::validate(input, &ops::options(json!({"structure": true})).unwrap()).is_valid();
    for o in [
        json!({}),
        json!({"maxSets": 3}),
        json!({"per": "group"}),
        json!({"per": "group", "maxBytes": 400}),
        json!({"renumber": {"interchange": 7, "group": 100, "set": 1}}),
    ] {
        let split = ops::split(input, &opts(o.clone())).unwrap();
        assert_eq!(split.diagnostics, doc.diagnostics, "{name} {o}");
        for cuts in [&[1][..], &[5, 64, 3], &[usize::MAX]] {
            same_as_slice(name, input, &opts(o.clone()), cuts);
        }
        let held: usize = split.parts.iter().map(|p| p.sets.len()).sum();
        assert_eq!(held, sets, "{name} {o}: every set in one part");
        for p in &split.parts {
            assert!(!p.sets.is_empty());
            for s in &p.sets {
                assert!(
                    input[s.offset..].starts_with(b"ST"),
                    "{name}: offset of {s:?}"
                );
                assert!(s.offset + s.length <= input.len());
            }
            let part = x12kit::parse(&p.x12);
            assert_eq!(part.interchanges.len(), 1, "{name} {o}");
            if valid {
                let v = ops::validate(&p.x12, &ops::options(json!({"structure": true})).unwrap());
                assert!(
                    v.is_valid(),
                    "{name} {o}: a part of a valid input is invalid: {:?}\n{}",
                    v.diagnostics,
                    p.text
                );
            }
        }
        if o == json!({"maxSets": 3}) {
            assert!(split.parts.iter().all(|p| p.sets.len() <= 3));
        }
        if let Some(r) = o.get("renumber") {
            let first = r["interchange"].as_u64().unwrap();
            for (n, p) in split.parts.iter().enumerate() {
                assert_eq!(
                    p.interchange_control_number,
                    format!("{:09}", first + n as u64)
                );
            }
        }
    }
    if round_trippable(input) {
        for o in [json!({}), json!({"maxSets": 2}), json!({"per": "group"})] {
            let split = ops::split(input, &opts(o.clone())).unwrap();
            let parts: Vec<&[u8]> = split.parts.iter().map(|p| &p.x12[..]).collect();
            let back = ops::merge(&parts, &MergeOptions::default()).unwrap();
            assert!(
                back == input,
                "{name} {o}: split and merge do not give the input back\n{}",
                String::from_utf8_lossy(&back)
            );
        }
    }
}

#[test]
fn committed_inputs_split_and_merge_back() {
    let inputs = common::committed_inputs();
    let mut round = 0;
    for (name, input) in &inputs {
        check(name, input);
        round += usize::from(round_trippable(input));
    }
    assert!(round > 100, "only {round} inputs round trip");
}

#[test]
fn corpus_splits_and_merges_back() {
    let Some(dir) = corpus_dir() else { return };
    for (name, path) in &corpus_files(&dir) {
        check(name, &std::fs::read(path).unwrap());
    }
}

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

fn set(n: usize) -> String {
    format!(
        "ST*850*{n:04}~\nBEG*00*SA*PO-{n}**20230101~\nPO1*1*2*EA*1.5**VP*SKU1~\nCTT*1~\nSE*5*{n:04}~\n"
    )
}

fn interchange(groups: &[(u32, usize)]) -> String {
    let mut s = ISA.to_string();
    let mut n = 0;
    for &(ctl, sets) in groups {
        s.push_str(&format!(
            "GS*PO*SENDER*RECEIVER*20230101*1200*{ctl}*X*004010~\n"
        ));
        for _ in 0..sets {
            n += 1;
            s.push_str(&set(n));
        }
        s.push_str(&format!("GE*{sets}*{ctl}~\n"));
    }
    s.push_str(&format!("IEA*{}*000000001~\n", groups.len()));
    s
}

#[test]
fn parts_renumbered_and_merged_renumbered() {
    let input = interchange(&[(1, 3), (2, 2)]);
    let split = ops::split(
        input.as_bytes(),
        &opts(json!({"renumber": {"interchange": 999999998, "group": 5, "set": 42}})),
    )
    .unwrap();
    assert_eq!(split.parts.len(), 5);
    let numbers: Vec<_> = split
        .parts
        .iter()
        .map(|p| {
            (
                p.interchange_control_number.as_str(),
                p.group_control_number.as_deref().unwrap(),
                p.sets[0].control_number.as_str(),
                p.sets[0].original_control_number.as_str(),
            )
        })
        .collect();
    assert_eq!(
        numbers,
        [
            ("999999998", "5", "0042", "0001"),
            ("999999999", "6", "0043", "0002"),
            ("000000001", "7", "0044", "0003"),
            ("000000002", "8", "0045", "0004"),
            ("000000003", "9", "0046", "0005"),
        ]
    );
    assert!(split.parts[0].text.contains("ST*850*0042~"));
    assert!(split.parts[0].text.contains("SE*5*0042~"));
    assert!(split.parts[0].text.ends_with("GE*1*5~\nIEA*1*999999998~\n"));
    // Merged back with renumbering: one group per functional id and version.
    let parts: Vec<&[u8]> = split.parts.iter().map(|p| &p.x12[..]).collect();
    let o: MergeOptions =
        ops::options(json!({"renumber": {"interchange": 3, "group": 1, "set": 1}})).unwrap();
    let merged = String::from_utf8(ops::merge(&parts, &o).unwrap()).unwrap();
    let expected = interchange(&[(1, 5)])
        .replace("*000000001*0*P*", "*000000003*0*P*")
        .replace("IEA*1*000000001", "IEA*1*000000003");
    assert_eq!(merged, expected);
    assert!(
        ops::validate(
            merged.as_bytes(),
            &ops::options(json!({"structure": true})).unwrap()
        )
        .is_valid()
    );
}

#[test]
fn max_bytes_closes_a_part_before_it_would_grow_past() {
    let input = interchange(&[(1, 6)]);
    let one = set(1).len();
    let split = ops::split(
        input.as_bytes(),
        &opts(json!({"per": "group", "maxBytes": 2 * one + 1})),
    )
    .unwrap();
    assert_eq!(
        split.parts.iter().map(|p| p.sets.len()).collect::<Vec<_>>(),
        [2, 2, 2]
    );
    // A set larger than the limit makes a part of its own.
    let split = ops::split(
        input.as_bytes(),
        &opts(json!({"per": "group", "maxBytes": 10})),
    )
    .unwrap();
    assert_eq!(split.parts.len(), 6);
}

#[test]
fn bad_options_and_unmergeable_inputs_are_typed_errors() {
    let input = interchange(&[(1, 1)]);
    let e = ops::split(input.as_bytes(), &opts(json!({"maxSets": 0}))).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("INVALID_OPTIONS", Some("/maxSets"))
    );
    let e = ops::split(input.as_bytes(), &opts(json!({"renumber": {"set": 0}}))).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("INVALID_CONTROL_NUMBER", Some("/renumber/set"))
    );
    let e = ops::options::<SplitOptions>(json!({"per": "file"})).unwrap_err();
    assert_eq!(e.code().as_str(), "INVALID_OPTIONS");
    let e = ops::merge(&[], &MergeOptions::default()).unwrap_err();
    assert_eq!(e.code().as_str(), "INVALID_ARGUMENT");
    let other = input.replace("*ZZ*RECEIVER       *", "*ZZ*SOMEONE ELSE   *");
    let truncated = &input[..input.len() - 20];
    let e = ops::merge(
        &[
            input.as_bytes(),
            other.as_bytes(),
            b"not x12",
            truncated.as_bytes(),
        ],
        &MergeOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.code().as_str(), "MERGE_REFUSED");
    let pointers: Vec<_> = e.details().iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(pointers, ["/1", "/2", "/3"], "{:?}", e.details());
    assert!(
        e.details()[0].message.contains("receiver id (ISA08)"),
        "{}",
        e.details()[0].message
    );
}

#[test]
fn truncated_inputs_are_split_as_far_as_they_can_be() {
    let input = interchange(&[(1, 3)]);
    // No IEA, no GE, the last set without SE.
    let cut = &input[..input.find("SE*5*0003").unwrap()];
    let split = ops::split(cut.as_bytes(), &SplitOptions::default()).unwrap();
    assert_eq!(split.parts.len(), 3);
    let codes: Vec<_> = split.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(
        codes.contains(&"SE_MISSING") && codes.contains(&"IEA_MISSING"),
        "{codes:?}"
    );
    // The complete sets make valid parts.
    for p in &split.parts[..2] {
        assert!(
            ops::validate(&p.x12, &Default::default()).is_valid(),
            "{}",
            p.text
        );
    }
    // Garbage between interchanges: the sets before and after are there.
    let two = format!("{input}garbage here~\n{input}");
    let split = ops::split(two.as_bytes(), &SplitOptions::default()).unwrap();
    assert_eq!(split.parts.len(), 6);
    assert!(!split.diagnostics.is_empty());
}

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(ISA.as_bytes().to_vec()),
        Just(b"GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n".to_vec()),
        Just(set(1).into_bytes()),
        Just(set(2).replace("SE*5*0002~\n", "").into_bytes()),
        Just(b"REF*DP*1~".to_vec()),
        Just(b"GE*1*1~\n".to_vec()),
        Just(b"IEA*1*000000001~\n".to_vec()),
        Just(b"TA1*000000001*230101*1200*A*000~\n".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_inputs_split_without_losing_a_set(
        pieces in proptest::collection::vec(piece(), 1..30),
        max in 1usize..4,
    ) {
        let input = pieces.concat();
        let doc = x12kit::parse(&input);
        let sets: usize = doc.interchanges.iter().flat_map(|i| &i.groups).map(|g| g.transactions.len()).sum();
        let split = ops::split(&input, &opts(json!({"maxSets": max}))).unwrap();
        prop_assert_eq!(split.parts.iter().map(|p| p.sets.len()).sum::<usize>(), sets);
        prop_assert_eq!(&split.diagnostics, &doc.diagnostics);
        for p in &split.parts {
            prop_assert_eq!(x12kit::parse(&p.x12).interchanges.len(), 1);
        }
    }

    /// Random inputs (garbage, truncations, missing trailers) split from
    /// random chunkings give the slice's parts.
    #[test]
    fn generated_inputs_split_from_a_stream_as_from_the_slice(
        pieces in proptest::collection::vec(piece(), 1..30),
        max in 1usize..4,
        bytes in prop_oneof![Just(None), (20usize..400).prop_map(Some)],
        renumber in any::<bool>(),
        cuts in proptest::collection::vec(1usize..50, 1..6),
    ) {
        let input = pieces.concat();
        let mut o = opts(json!({"maxSets": max}));
        o.max_bytes = bytes;
        if renumber {
            o.renumber.set = Some(9);
            o.renumber.interchange = Some(3);
        }
        same_as_slice("generated", &input, &o, &cuts);
    }

    #[test]
    fn random_set_counts_split_and_merge_back(
        groups in proptest::collection::vec(1usize..6, 1..4),
        max in 1usize..5,
    ) {
        let g: Vec<(u32, usize)> = groups.iter().enumerate().map(|(i, &n)| (i as u32 + 1, n)).collect();
        let input = interchange(&g);
        let split = ops::split(input.as_bytes(), &opts(json!({"maxSets": max}))).unwrap();
        let parts: Vec<&[u8]> = split.parts.iter().map(|p| &p.x12[..]).collect();
        prop_assert_eq!(ops::merge(&parts, &MergeOptions::default()).unwrap(), input.into_bytes());
    }
}

#[test]
fn split_json_says_what_split_gives() {
    let input = interchange(&[(1, 2)]);
    let json: serde_json::Value = serde_json::from_slice(
        &ops::split_json(input.as_bytes(), &SplitOptions::default()).unwrap(),
    )
    .unwrap();
    let parts = json["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(json["diagnostics"], json!([]));
    let p = &parts[1];
    assert_eq!(p["interchangeControlNumber"], "000000001");
    assert_eq!(p["functionalId"], "PO");
    assert_eq!(p["groupControlNumber"], "1");
    let s = &p["sets"][0];
    assert_eq!(
        (s["type"].as_str(), s["controlNumber"].as_str()),
        (Some("850"), Some("0002"))
    );
    let offset = s["offset"].as_u64().unwrap() as usize;
    let length = s["length"].as_u64().unwrap() as usize;
    assert_eq!(&input[offset..offset + length], set(2));
    assert_eq!(s["segment"], 7);
    assert!(p["x12"].as_str().unwrap().starts_with("ISA*"));
}

/// `rebuild_part`: the vector `split/rebuild-part` is what it splits; the
/// bytes of another part, of another length or a recipe that names no run
/// of sets are typed errors.
#[test]
fn a_part_is_rebuilt_from_its_recipe_and_the_ranges_it_names() {
    let vectors = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let input = std::fs::read(vectors.join("inputs/split-850-five-sets.edi")).unwrap();
    let o = opts(json!({"maxSets": 3, "renumber": {"interchange": 100, "group": 200, "set": 300}}));
    let split = fed(&input, &o, &[7]);
    let p = &split.parts[1];
    let bytes_of = |r: &ops::PartRecipe| -> Vec<u8> {
        r.ranges
            .iter()
            .flat_map(|&[a, b]| input[a..b].iter().copied())
            .collect()
    };
    let bytes = bytes_of(&p.recipe);
    // The vector's input is these bytes; its options the recipe's numbers.
    assert_eq!(
        bytes,
        std::fs::read(vectors.join("inputs/split-part-recipe.edi")).unwrap()
    );
    assert_eq!(
        serde_json::to_value(p.recipe.renumber).unwrap(),
        json!({"interchange": 101, "group": 201, "set": 303})
    );
    let expected: serde_json::Value = serde_json::from_slice(
        &std::fs::read(vectors.join("expected/split/rebuild-part.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(expected["parts"][0]["x12"], json!(p.text));
    let again = ops::rebuild_part(&p.recipe, &bytes).unwrap();
    assert!(again == *p);
    assert_eq!(p.sets[0].offset, p.recipe.ranges[p.recipe.sets_range][0]);
    // The recipe as JSON (what the WASM binding hands over and takes back).
    let json = serde_json::to_value(&p.recipe).unwrap();
    assert_eq!(json["setsRange"], json!(2));
    let back: ops::PartRecipe = serde_json::from_value(json).unwrap();
    assert_eq!(back, p.recipe);

    // Another length, another part's bytes of the same length, a bad recipe.
    let e = ops::rebuild_part(&p.recipe, &bytes[1..]).unwrap_err();
    assert_eq!(e.code().as_str(), "INVALID_ARGUMENT");
    let first = &split.parts[0];
    let mut wrong = first.recipe.clone();
    wrong.ranges = p.recipe.ranges.clone();
    let e = ops::rebuild_part(&wrong, &bytes).unwrap_err();
    assert_eq!(e.code().as_str(), "INVALID_ARGUMENT", "{e}");
    let mut shifted = p.recipe.clone();
    let r = &mut shifted.ranges[shifted.sets_range];
    r[0] -= 5; // starts inside the set before: its tail is garbage
    let e = ops::rebuild_part(&shifted, &bytes_of(&shifted)).unwrap_err();
    assert_eq!(e.code().as_str(), "INVALID_ARGUMENT", "{e}");
    let mut none = p.recipe.clone();
    none.sets_range = 9;
    let e = ops::rebuild_part(&none, &bytes).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("INVALID_OPTIONS", Some("/recipe"))
    );
    let mut backwards = p.recipe.clone();
    backwards.ranges[0] = [10, 5];
    let e = ops::rebuild_part(&backwards, &bytes).unwrap_err();
    assert_eq!(e.code().as_str(), "INVALID_OPTIONS");
}

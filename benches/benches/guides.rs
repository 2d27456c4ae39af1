//! The cost of a partner's guide (issue 30): rendering an 850 (20 lines and
//! 2000 lines) with and without `benches/guide-render-850.json`, and
//! validating the X12 written (structure, and structure plus the guide),
//! side by side in one run so that their ratio is what counts on a noisy
//! machine. Every order keeps the guide, so the guided and unguided renders
//! write the same bytes and the guided validation finds nothing (checked
//! before measuring and in every iteration): the difference is the cost of
//! the checks. Figures: `benches/README.md`.

use criterion::{Criterion, Throughput};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;
use x12kit::guide::{Guide, Guides};
use x12kit::{Partner, RenderOptions, ops, render};

fn partner() -> Partner {
    Partner::from_json(
        r#"{"sender": {"qualifier": "ZZ", "id": "WIDGETSUPPLY"}, "receiver": {"qualifier": "01", "id": "123456789", "applicationCode": "ACMERETAIL"},
            "usage": "test", "lineBreak": "\n"}"#,
    )
    .unwrap()
}

fn guides() -> Guides {
    let text = include_bytes!("../guide-render-850.json");
    Guides::new(vec![Guide::from_json(text).unwrap()]).unwrap()
}

fn now() -> x12kit::DateTime {
    x12kit::DateTime::parse("20261122", "0930").unwrap()
}

fn party(n: usize) -> Value {
    json!({"name": format!("ACME STORE {n}"), "id": format!("{:013}", 3_947_268_292u64 + n as u64),
           "address": {"street": format!("{} COMMERCE DR", 100 + n), "city": "COLUMBUS", "state": "OH", "postalCode": "43215", "country": "US"}})
}

/// A purchase order of `n` lines that keeps the benchmark's guide.
fn po850(n: usize) -> Value {
    let lines: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"lineNumber": i, "quantity": 12 * i, "unit": "EA", "unitPrice": 3.25 + i as f64, "sku": format!("WID-{i:04}"),
                   "description": {"text": format!("WIDGET MODEL {i} BLUE")}})
        })
        .collect();
    json!({"purchaseOrderNumber": "PO-10045", "orderDate": "2026-11-20", "currency": "USD",
           "refs": [{"qualifier": "DP", "value": "038"}, {"qualifier": "IA", "value": "0000100183"}],
           "shipTo": party(1), "billTo": party(2), "lines": lines})
}

fn bench(c: &mut Criterion, name: &str, payload: &Value) {
    let p = partner();
    let plain = RenderOptions::default();
    let guided = RenderOptions {
        guides: guides(),
        ..RenderOptions::default()
    };
    let now = now();
    let expected = render("850", payload, &p, &plain, now).unwrap();
    assert_eq!(
        render("850", payload, &p, &guided, now).unwrap().x12,
        expected.x12
    );
    let structure = ops::ValidateOptions {
        structure: true,
        ..Default::default()
    };
    let with_guide = ops::ValidateOptions {
        guides: guides(),
        ..Default::default()
    };
    for o in [&structure, &with_guide] {
        let v = ops::validate(&expected.x12, o);
        assert!(
            v.is_valid() && v.diagnostics.is_empty(),
            "{:?}",
            v.diagnostics
        );
    }
    let mut g = c.benchmark_group(format!("guides/850-{name}"));
    g.sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .throughput(Throughput::Bytes(expected.x12.len() as u64));
    for (label, o) in [("render", &plain), ("render_guided", &guided)] {
        g.bench_function(label, |b| {
            b.iter(|| {
                let r = render("850", black_box(payload), &p, o, now).unwrap();
                assert_eq!(r.x12.len(), expected.x12.len());
                r
            })
        });
    }
    for (label, o) in [
        ("validate_structure", &structure),
        ("validate_guided", &with_guide),
    ] {
        g.bench_function(label, |b| {
            b.iter(|| {
                let v = ops::validate(black_box(&expected.x12), o);
                assert!(v.is_valid());
                v
            })
        });
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, "20-lines", &po850(20));
    bench(&mut c, "2000-lines", &po850(2000));
    c.final_summary();
}

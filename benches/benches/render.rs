//! Rendering outbound documents (payload JSON → complete interchange) for a
//! typical 850 (2 header parties, 20 lines), a large one (2000 lines) and 856 (1 shipment, 2 orders,
//! 3 packs each, 4 items per pack), reported as documents per second and MB/s
//! of X12 written; and the reverse path on the same X12: parse + map back to
//! the payload, and structure validation.
//!
//! Each benchmark checks its answer (the rendered bytes equal a render done
//! once up front, the mapped document equals the normalised payload), so a
//! fast wrong answer fails. Figures: `benches/README.md`.

use criterion::{Criterion, Throughput};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;
use x12kit::{Partner, RenderOptions, render};

fn partner() -> Partner {
    Partner::from_json(
        r#"{"sender": {"qualifier": "ZZ", "id": "WIDGETSUPPLY"}, "receiver": {"qualifier": "01", "id": "123456789", "applicationCode": "ACMERETAIL"},
            "usage": "test", "lineBreak": "\n"}"#,
    )
    .unwrap()
}

/// Control numbers 1, 1, 1, dated "now" (below).
fn options() -> RenderOptions {
    RenderOptions::default()
}

/// The date and time every render is given as "now".
fn now() -> x12kit::DateTime {
    x12kit::DateTime::parse("20261122", "0930").unwrap()
}

fn party(code: &str, n: usize) -> Value {
    json!({"code": code, "name": format!("ACME STORE {n}"), "id": format!("{:013}", 3_947_268_292u64 + n as u64),
           "address": {"street": format!("{} COMMERCE DR", 100 + n), "city": "COLUMBUS", "state": "OH", "postalCode": "43215", "country": "US"},
           "contacts": [{"name": "RECEIVING", "phone": "614-555-0100"}]})
}

/// A typical purchase order: 2 header parties, terms, a carrier, `n` lines.
fn po850(n: usize) -> Value {
    let lines: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"lineNumber": i, "quantity": 12 * i, "unit": "EA", "unitPrice": 3.25 + i as f64, "sku": format!("WID-{i:04}"),
                   "upc": format!("{:012}", 12_345_678_900u64 + i as u64), "description": {"text": format!("WIDGET MODEL {i} BLUE")}})
        })
        .collect();
    json!({"purchaseOrderNumber": "PO-10045", "orderDate": "2026-11-20", "currency": "USD",
           "refs": [{"qualifier": "DP", "value": "038"}, {"qualifier": "IA", "value": "0000100183"}],
           "terms": {"typeCode": "01", "basisDateCode": "3", "netDays": 30},
           "dates": [{"qualifier": "002", "date": "2026-12-01"}],
           "carrier": {"scac": "ABCD", "transportMethod": "M"},
           "shipTo": party("ST", 1), "billTo": party("BT", 2), "lines": lines})
}

/// A typical ship notice: shipment, 2 orders × 3 packs × 4 items.
fn asn856() -> Value {
    let orders: Vec<Value> = (1..=2)
        .map(|o| {
            let packs: Vec<Value> = (1..=3)
                .map(|p| {
                    let items: Vec<Value> = (1..=4)
                        .map(|i| json!({"lineNumber": i, "sku": format!("WID-{o}{p}{i}"), "upc": format!("{:012}", 12_345_678_900u64 + i), "quantity": 6, "unit": "EA"}))
                        .collect();
                    json!({"sscc": format!("000123456700000{o}{p:04}"), "items": items})
                })
                .collect();
            json!({"purchaseOrderNumber": format!("PO-1004{o}"), "purchaseOrderDate": "2026-11-02", "packs": packs})
        })
        .collect();
    json!({"shipmentId": "ASN-88812", "shipDate": "2026-11-09", "shipTime": "14:30",
           "shipment": {"packagingCode": "CTN25", "ladingQuantity": 6, "weight": 412.5, "carrier": {"scac": "ABCD", "transportMethod": "M"},
                        "refs": [{"qualifier": "BM", "value": "BOL-554433"}], "dates": [{"qualifier": "011", "date": "2026-11-09"}],
                        "parties": [party("ST", 1), party("SF", 2)]},
           "orders": orders})
}

fn bench(c: &mut Criterion, name: &str, code: &str, payload: &Value) {
    let p = partner();
    let o = options();
    let now = now();
    let expected = render(code, payload, &p, &o, now).unwrap();
    let mut g = c.benchmark_group(format!("render/{name}"));
    g.sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    // Documents per second (one element per document) …
    g.throughput(Throughput::Elements(1));
    g.bench_function("documents", |b| {
        b.iter(|| {
            let r = render(code, black_box(payload), &p, &o, now).unwrap();
            assert_eq!(r.x12.len(), expected.x12.len());
            r
        })
    });
    // … and MB/s of X12 written.
    g.throughput(Throughput::Bytes(expected.x12.len() as u64));
    g.bench_function("bytes_out", |b| {
        b.iter(|| {
            let r = render(code, black_box(payload), &p, &o, now).unwrap();
            assert_eq!(r.x12.len(), expected.x12.len());
            r
        })
    });
    // The reverse path on the same X12: parse and map back; structure validation.
    g.bench_function("parse_map_back", |b| {
        b.iter(|| {
            let doc = x12kit::parse(black_box(&expected.x12));
            let g = &doc.interchanges[0].groups[0];
            let d = x12kit::documents::map_back(&doc, g, &g.transactions[0]).unwrap();
            assert_eq!(d, expected.document);
        })
    });
    g.bench_function("parse_validate", |b| {
        b.iter(|| {
            let doc = x12kit::parse(black_box(&expected.x12));
            let g = &doc.interchanges[0].groups[0];
            let f = x12kit::documents::validate_transaction(&doc, g, &g.transactions[0]).unwrap();
            assert!(f.is_empty());
        })
    });
    g.finish();
    let out = render(code, payload, &p, &o, now).unwrap();
    assert_eq!(out.x12, expected.x12);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, "850", "850", &po850(20));
    bench(&mut c, "856", "856", &asn856());
    // A large order: the cost per line, without the per-document overhead.
    bench(&mut c, "850-2000-lines", "850", &po850(2000));
    c.final_summary();
}

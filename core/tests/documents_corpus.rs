//! Received sets from the public corpus (`../shared/corpus`, or the
//! directory in `X12KIT_CORPUS`; read in place, never copied): for one file
//! of each type that has samples (none exists for 947), the mapped
//! `document` is checked field by field against the X12, read by hand; and
//! every file of every type folder maps back and validates without a panic.
//! When the corpus is absent the tests say so and pass, unless
//! `X12KIT_REQUIRE_CORPUS=1`.

mod common;

use common::corpus_dir;

use serde_json::{Value, json};
use std::path::Path;
use x12kit::documents;

/// The documents (and finding codes) of every known set in a corpus file.
fn documents_of(dir: &Path, file: &str) -> Vec<(Value, Vec<&'static str>)> {
    let input = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let doc = x12kit::parse(&input);
    let mut out = Vec::new();
    for i in &doc.interchanges {
        for g in &i.groups {
            for t in &g.transactions {
                if let Some(d) = documents::map_back(&doc, g, t) {
                    let f = documents::validate_transaction(&doc, g, t).unwrap();
                    out.push((d, f.iter().map(|f| f.code.as_str()).collect()));
                }
            }
        }
    }
    out
}

/// Checks `pointer → value` pairs in a document.
fn expect(file: &str, doc: &Value, pairs: &[(&str, Value)]) {
    for (ptr, want) in pairs {
        assert_eq!(doc.pointer(ptr), Some(want), "{file}: {ptr} in {doc:#}");
    }
}

#[test]
fn hand_checked_documents() {
    let Some(dir) = corpus_dir() else { return };

    // BEG*00*NE*PO12345**20260709 / PO1**1*EA*10.00**VN*VENDORSKU / CTT*1
    let f = "850/stupidedi__004010_PO850_pass_1.edi";
    let d = documents_of(&dir, f);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].1, Vec::<&str>::new());
    assert_eq!(
        d[0].0,
        json!({"purpose": "00", "orderType": "NE", "purchaseOrderNumber": "PO12345", "orderDate": "2026-07-09",
               "lines": [{"quantity": 1, "unit": "EA", "unitPrice": 10, "productIds": [{"qualifier": "VN", "id": "VENDORSKU"}]}]})
    );

    // BIG*20030310*DO091003TESTINV01*20030910*DO091003***DI*00, CUR*SE*USD, N1*SO / N1*RI loops,
    // IT1*1*2*EA*99.99**VP*ID001 + PID*F****Power Cord, TDS*36596.
    let f = "810/edi.net__x12.810a.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/invoiceDate", json!("2003-03-10")),
            ("/invoiceNumber", json!("DO091003TESTINV01")),
            ("/purchaseOrderDate", json!("2003-09-10")),
            ("/purchaseOrderNumber", json!("DO091003")),
            ("/transactionType", json!("DI")),
            ("/currency", json!("USD")),
            ("/refs/0", json!({"qualifier": "VN", "value": "DO091003"})),
            ("/parties/0/code", json!("SO")),
            ("/parties/0/name2", json!("Aaron Copeland")),
            (
                "/parties/0/address",
                json!({"street": "123 Symphony Street", "city": "San Francisco", "state": "CA", "postalCode": "94107", "country": "US"}),
            ),
            (
                "/parties/0/contacts/1",
                json!({"function": "CN", "name": "work", "phoneQualifier": "TE", "phone": "14151234567"}),
            ),
            (
                "/parties/1/refs/1",
                json!({"qualifier": "RT", "value": "123456789"}),
            ),
            (
                "/terms",
                json!({"typeCode": "52", "basisDateCode": "3", "discountPercent": 10, "discountDaysDue": 10}),
            ),
            (
                "/dates/0",
                json!({"qualifier": "003", "date": "2003-09-10", "time": "10:59:20"}),
            ),
            (
                "/lines/0",
                json!({"lineNumber": "1", "quantity": 2, "unit": "EA", "unitPrice": 99.99, "vendorPartNumber": "ID001", "description": {"text": "Power Cord"}}),
            ),
            ("/total", json!(365.96)),
            // The file's four further ITD segments, each kept (issue 17).
            (
                "/additionalTerms/0",
                json!({"typeCode": "52", "basisDateCode": "3", "discountPercent": 5, "discountDaysDue": 20}),
            ),
            ("/additionalTerms/3/discountPercent", json!(-10)),
        ],
    );
    assert_eq!(d[0].0["additionalTerms"].as_array().map(Vec::len), Some(4));

    // BAK*00*AD*POTEST1112*20201015**60169126***20201015, PO1*1*3*UN*4.5*PE*EN*9780446360265*B6*…,
    // ACK*IA*3*UN, PO1*2 … ACK*IR*0*UN.
    let f = "855/node-x12__855.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/acknowledgmentType", json!("AD")),
            ("/purchaseOrderNumber", json!("POTEST1112")),
            ("/purchaseOrderDate", json!("2020-10-15")),
            ("/acknowledgmentDate", json!("2020-10-15")),
            ("/lines/0/lineNumber", json!("1")),
            ("/lines/0/quantity", json!(3)),
            ("/lines/0/unit", json!("UN")),
            ("/lines/0/unitPrice", json!(4.5)),
            (
                "/lines/0/productIds/0",
                json!({"qualifier": "EN", "id": "9780446360265"}),
            ),
            ("/lines/0/description/text", json!("DIC WEBSTERS NEW WORLD")),
            ("/lines/0/status", json!("IA")),
            ("/lines/0/acknowledgedQuantity", json!(3)),
            ("/lines/1/status", json!("IR")),
            ("/lines/1/acknowledgedQuantity", json!(0)),
        ],
    );

    // BSN*14*829716*20111206*142428*0002; HL*1**S TD1*PCS*2****A3*60.310*LB TD5**2*XXXX**XXXX,
    // REF*BM*999999-001, DTM*011*20111206, N1*SH…; HL*2*1*O PRF*99999817***20111205;
    // HL*3*2*I LIN*1*VP*87787D*UP*999999310145 SN1*1*24*EA PID*F****BLUE WIDGET.
    let f = "856/node-x12__856.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/purpose", json!("14")),
            ("/shipmentId", json!("829716")),
            ("/shipDate", json!("2011-12-06")),
            ("/shipTime", json!("14:24:28")),
            ("/structure", json!("0002")),
            ("/shipment/packagingCode", json!("PCS")),
            ("/shipment/ladingQuantity", json!(2)),
            ("/shipment/weight", json!(60.31)),
            ("/shipment/weightUnit", json!("LB")),
            ("/shipment/carrier/scac", json!("XXXX")),
            (
                "/shipment/refs/0",
                json!({"qualifier": "BM", "value": "999999-001"}),
            ),
            (
                "/shipment/dates/0",
                json!({"qualifier": "011", "date": "2011-12-06"}),
            ),
            ("/shipment/parties/0/name", json!("1 EDI SOURCE")),
            ("/orders/0/purchaseOrderNumber", json!("99999817")),
            ("/orders/0/purchaseOrderDate", json!("2011-12-05")),
            (
                "/orders/0/items/0",
                json!({"lineNumber": "1", "vendorPartNumber": "87787D", "upc": "999999310145", "quantity": 24, "unit": "EA", "description": {"text": "BLUE WIDGET"}}),
            ),
            ("/orders/0/items/1/quantity", json!(6)),
        ],
    );

    // B2****12345678*L*PP*L, B2A*00*LT, L11*RECD*SCA…, G62*64*20220822*1*1120*ET, N7**ZZ*********TL,
    // S5*1*LD*21230.12*L*0*PC*0*E, N1*SF*FAKE_BIZ*93*A9 / N3 / N4 / G61*SH*RECEIVING*TE*256-538-1111.
    let f = "204/stupidedi__004010_SM204_case_1.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/shipmentId", json!("12345678")),
            ("/paymentMethod", json!("PP")),
            ("/purpose", json!("00")),
            ("/applicationType", json!("LT")),
            ("/refs/0", json!({"value": "RECD", "qualifier": "SCA"})),
            (
                "/dates/0",
                json!({"qualifier": "64", "date": "2022-08-22", "timeQualifier": "1", "time": "11:20"}),
            ),
            ("/equipment/0", json!({"number": "ZZ", "type": "TL"})),
            ("/stops/0/stopNumber", json!(1)),
            ("/stops/0/reason", json!("LD")),
            ("/stops/0/weight", json!(21230.12)),
            ("/stops/0/weightUnit", json!("L")),
            ("/stops/0/party/name", json!("FAKE_BIZ")),
            ("/stops/0/party/address/city", json!("ATTALLA")),
            (
                "/stops/0/party/contacts/0",
                json!({"function": "SH", "name": "RECEIVING", "phoneQualifier": "TE", "phone": "256-538-1111"}),
            ),
        ],
    );

    // B3**09851270*75027674*TP**20160707*65940**20160708*035*SCAC; LX*1 L5*1*SKIDS PAPER
    // L0*1***7889*G***3*PCS L1*1*46.09*PH*363604; LX*3 … L1*3*26.27*FR*2627****FUE.
    let f = "210/edi.net__210-MGCTLYST-SAMPLE.EDI";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/invoiceNumber", json!("09851270")),
            ("/shipmentId", json!("75027674")),
            ("/paymentMethod", json!("TP")),
            ("/invoiceDate", json!("2016-07-07")),
            ("/netAmountDue", json!(659.4)),
            ("/deliveryDate", json!("2016-07-08")),
            ("/scac", json!("SCAC")),
            ("/parties/1/name", json!("ST JOSEPHS HOSPITAL")),
            (
                "/lines/0",
                json!({"description": "SKIDS PAPER", "weight": 7889, "weightQualifier": "G", "ladingQuantity": 3, "packagingForm": "PCS", "rate": 46.09, "rateQualifier": "PH", "charge": 3636.04}),
            ),
            ("/lines/2/chargeCode", json!("FUE")),
            ("/lines/2/charge", json!(26.27)),
        ],
    );

    // 005010: BOL*SCAC*PP*BOL123456*20200101, L11*REF001*BM, AT1*1 L11*PO12345*PO AT4*GENERAL MERCHANDISE AT2*10*CTN*G*L*5000.
    let f = "211/xtypes-new__211_full_transmission_211.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/scac", json!("SCAC")),
            ("/billOfLadingNumber", json!("BOL123456")),
            ("/date", json!("2020-01-01")),
            ("/refs/0", json!({"value": "REF001", "qualifier": "BM"})),
            ("/parties/0/contacts/0/name", json!("JOHN SHIPPER")),
            (
                "/lines/0",
                json!({"refs": [{"value": "PO12345", "qualifier": "PO"}], "description": "GENERAL MERCHANDISE", "ladingQuantity": 10, "packagingForm": "CTN", "weightQualifier": "G", "weightUnit": "L", "weight": 5000}),
            ),
            ("/lines/1/description", json!("HAZARDOUS GOODS")),
        ],
    );

    // ATA*SCAC*MANIFEST1*20200101 B2A*00 LX*1 MAN*GM*…: the AT7 loop (mandatory) is missing.
    let f = "212/xtypes-new__212_full_transmission_212.edi";
    let d = documents_of(&dir, f);
    assert_eq!(d[0].1, ["SEGMENT_MISSING"]);
    assert_eq!(
        d[0].0,
        json!({"scac": "SCAC", "manifestNumber": "MANIFEST1", "date": "2020-01-01", "purpose": "00",
               "shipments": [{"marks": [{"qualifier": "GM", "value": "00000000000000000"}]}]})
    );

    // B10*4938*SHIPMENT001*DEMO LX*1 AT7*AF*NS***20260815*1430*LT MS1*ATLANTA*GA*US MS2*DEMO*TRAILER123.
    let f = "214/edi-x12-toolkit__214-4010.edi";
    let d = documents_of(&dir, f);
    assert_eq!(
        d[0].0,
        json!({"proNumber": "4938", "shipmentId": "SHIPMENT001", "scac": "DEMO",
               "events": [{"status": "AF", "reason": "NS", "date": "2026-08-15", "time": "14:30", "timeZone": "LT",
                           "city": "ATLANTA", "state": "GA", "country": "US", "equipmentScac": "DEMO", "equipmentNumber": "TRAILER123"}]})
    );

    // BGN*00*RR123*20200101 N1*SH*SHIPPER LX*1 N1*ST*STORE OID*ORD1.
    let f = "753/xtypes-new__753_full_transmission_753.edi";
    let d = documents_of(&dir, f);
    assert_eq!(
        d[0].0,
        json!({"purpose": "00", "requestNumber": "RR123", "date": "2020-01-01", "shipFrom": {"code": "SH", "name": "SHIPPER"},
               "destinations": [{"code": "ST", "name": "STORE", "orders": [{"referenceNumber": "ORD1"}]}]})
    );

    // BGN*00*RI123*20200101 N1*CA*CARRIER LX*1 BLR*SCAC N1*ST*STORE.
    let f = "754/xtypes-new__754_full_transmission_754.edi";
    let d = documents_of(&dir, f);
    assert_eq!(
        d[0].0,
        json!({"purpose": "00", "referenceNumber": "RI123", "date": "2020-01-01", "parties": [{"code": "CA", "name": "CARRIER"}],
               "routes": [{"scac": "SCAC", "party": {"code": "ST", "name": "STORE"}}]})
    );

    // BX*00*J*PP*8858-2770*BLKW**4, N9*CN*8858-2770-1…, N1*SF*pNmFdtUYUy*10*LKNQ N3*987 Other Avenue*P.O. Box 1234.
    // The file itself is not standard (ISO dates in G62, L3 inside each HL): those are findings.
    let f = "858/mymove__expected_invoice.edi.golden";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/purpose", json!("00")),
            ("/transportMethod", json!("J")),
            ("/paymentMethod", json!("PP")),
            ("/shipmentId", json!("8858-2770")),
            ("/scac", json!("BLKW")),
            (
                "/refs/0",
                json!({"qualifier": "CN", "value": "8858-2770-1"}),
            ),
            (
                "/parties/1/address",
                json!({"street": "987 Other Avenue", "street2": "P.O. Box 1234", "city": "Des Moines", "state": "IA", "postalCode": "50309", "country": "US"}),
            ),
            ("/units/0/description", json!("DLH")),
            ("/units/0/weight", json!(1349)),
        ],
    );
    assert!(
        d[0].1.contains(&"ELEMENT_TOO_LONG") && d[0].1.contains(&"SEGMENT_OUT_OF_ORDER"),
        "{:?}",
        d[0].1
    );

    // W05*N*538686**001001*538686, W66*PP*M***MTEN, LX*1 W01*12*CA*000100011110*VN*000100*UC*DEC0199 G69*11.500 STRUD BLUBRY, W76*56*500*LB.
    let f = "940/xtypes__v004010_test_940__test_940_1_1.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/status", json!("N")),
            ("/depositorOrderNumber", json!("538686")),
            (
                "/carrier",
                json!({"paymentMethod": "PP", "transportMethod": "M", "routing": "MTEN"}),
            ),
            ("/dates/1", json!({"qualifier": "02", "date": "2000-02-07"})),
            (
                "/notes/0",
                json!({"topic": "WHI", "text": "SHIP ON CHEP PALLETS"}),
            ),
            (
                "/lines/0",
                json!({"quantity": 12, "unit": "CA", "upc": "000100011110", "vendorItemNumber": "000100", "productIds": [{"qualifier": "UC", "id": "DEC0199"}], "description": "11.500 STRUD BLUBRY", "refs": [{"qualifier": "PC", "value": "DEC0199"}]}),
            ),
            ("/totalQuantity", json!(56)),
            ("/totalWeight", json!(500)),
            ("/totalWeightUnit", json!("LB")),
        ],
    );

    // W06*F*DO12345*20260714 N1*WH*ACME WAREHOUSE*91*ACME01 G62*11*20260714 W27*M*SCAC*RTE*PP**EQIN*EQNUM W04*100*EA**VN*ITEM123 N9*LI*REF456 W03*100.
    // W2706/W2707 (equipment initial and number) are not mapped: the W27 is listed under `unmapped`.
    let f = "943/stupidedi__004010_AR943_pass_1.edi";
    let d = documents_of(&dir, f);
    assert_eq!(d[0].1, Vec::<&str>::new());
    assert_eq!(
        d[0].0,
        json!({"reportingCode": "F", "depositorOrderNumber": "DO12345", "shipDate": "2026-07-14",
               "parties": [{"code": "WH", "name": "ACME WAREHOUSE", "idQualifier": "91", "id": "ACME01"}],
               "dates": [{"qualifier": "11", "date": "2026-07-14"}],
               "carrier": {"transportMethod": "M", "scac": "SCAC", "routing": "RTE", "paymentMethod": "PP"},
               "lines": [{"quantity": 100, "unit": "EA", "vendorItemNumber": "ITEM123", "refs": [{"qualifier": "LI", "value": "REF456"}]}],
               "totalQuantity": 100,
               "unmapped": [{"position": 5, "id": "W27", "elements": ["M", "SCAC", "RTE", "PP", "", "EQIN", "EQNUM"]}]})
    );

    // W17*F*20260714*WR12345*DO12345 … W07*100*EA**UK*ITEM123***LOT456 N9*PO*REF789 W14*100.
    let f = "944/stupidedi__004010_RE944_pass_1.edi";
    let d = documents_of(&dir, f);
    assert_eq!(d[0].1, Vec::<&str>::new());
    expect(
        f,
        &d[0].0,
        &[
            ("/receiptDate", json!("2026-07-14")),
            ("/receiptNumber", json!("WR12345")),
            ("/depositorOrderNumber", json!("DO12345")),
            (
                "/lines/0",
                json!({"quantity": 100, "unit": "EA", "productIds": [{"qualifier": "UK", "id": "ITEM123"}], "lotNumber": "LOT456", "refs": [{"qualifier": "PO", "value": "REF789"}]}),
            ),
            ("/totalQuantity", json!(100)),
        ],
    );

    // W06*F*IF102*20190604*BOL12345**PO9865, W27*M*NPLT*NORTHPOINT TRANSPOR*PP,
    // LX*10 W12*CC*3000*3000*0*EA**VN*123456789*LOT12314 G69*WIDGETS 100 PER BOX N9*LV*LPN6569, W03*3000*15000*LB.
    let f = "945/xtypes__v004010__945_test__test_945_parse_1_1.edi";
    let d = documents_of(&dir, f);
    expect(
        f,
        &d[0].0,
        &[
            ("/depositorOrderNumber", json!("IF102")),
            ("/shipDate", json!("2019-06-04")),
            ("/shipmentId", json!("BOL12345")),
            ("/purchaseOrderNumber", json!("PO9865")),
            (
                "/carrier",
                json!({"transportMethod": "M", "scac": "NPLT", "routing": "NORTHPOINT TRANSPOR", "paymentMethod": "PP"}),
            ),
            (
                "/lines/0",
                json!({"status": "CC", "quantityOrdered": 3000, "quantity": 3000, "quantityDifference": 0, "unit": "EA", "vendorItemNumber": "123456789", "lotNumber": "LOT12314", "description": "WIDGETS 100 PER BOX", "refs": [{"qualifier": "LV", "value": "LPN6569"}]}),
            ),
            ("/totalQuantity", json!(3000)),
            ("/totalWeight", json!(15000)),
        ],
    );
    // N1*SF***CHI has neither name nor id qualifier: a real syntax error of the sample.
    assert_eq!(
        d[0].1,
        ["ELEMENT_CONDITIONAL_MISSING", "ELEMENT_CONDITIONAL_MISSING"]
    );

    // Three 990s: B1*SCAC*1055337*20150120*A with three N9 (max 1 in 004010), then two more.
    let f = "990/node-x12-edi__990.edi";
    let d = documents_of(&dir, f);
    assert_eq!(d.len(), 3);
    expect(
        f,
        &d[0].0,
        &[
            ("/scac", json!("SCAC")),
            ("/shipmentId", json!("1055337")),
            ("/date", json!("2015-01-20")),
            ("/action", json!("A")),
            (
                "/refs/2",
                json!({"qualifier": "CA", "value": "ABC Hauling STAR USA"}),
            ),
        ],
    );
    assert_eq!(d[0].1, ["SEGMENT_TOO_MANY", "SEGMENT_TOO_MANY"]);
    assert_eq!(d[1].0["action"], "D");
}

/// Every file of the declared types' folders (and the rest of the corpus) maps back
/// and validates without a panic; the count of clean sets is printed.
#[test]
fn whole_corpus_maps_and_validates() {
    let Some(dir) = corpus_dir() else { return };
    let mut sets = 0;
    let mut clean = 0;
    for sub in std::fs::read_dir(&dir).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).unwrap() {
            let f = f.unwrap().path();
            let input = std::fs::read(&f).unwrap();
            let doc = x12kit::parse(&input);
            for i in &doc.interchanges {
                for g in &i.groups {
                    for t in &g.transactions {
                        if let Some(v) = documents::map_back(&doc, g, t) {
                            assert!(v.is_object());
                            sets += 1;
                            if documents::validate_transaction(&doc, g, t)
                                .unwrap()
                                .is_empty()
                            {
                                clean += 1;
                            }
                        }
                    }
                }
            }
            let _ = documents::diagnostics(&doc);
            let _ = x12kit::to_json(&doc);
        }
    }
    eprintln!(
        "corpus: {sets} sets of the declared types mapped, {clean} without structure findings"
    );
    assert!(sets > 80, "{sets}");
}

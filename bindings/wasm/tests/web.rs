//! wasm-bindgen-test unit tests: the exported functions, called from Rust on
//! wasm32 (in Node through wasm-bindgen-test-runner), against the core's own
//! results.
#![cfg(target_arch = "wasm32")]

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;
use x12kit::ops;

const SAMPLE: &str = include_str!("../www/samples/850-valid.x12");
const BAD_SE01: &str = include_str!("../www/samples/850-wrong-se01.x12");

fn js(s: &str) -> JsValue {
    JsValue::from_str(s)
}

fn prop(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

fn options(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

#[wasm_bindgen_test]
fn parse_to_json_is_the_core_bytes() {
    for input in [SAMPLE, BAD_SE01, "", "ISA*garbage~"] {
        let got = x12kit_wasm::parse_to_json(&js(input), &JsValue::UNDEFINED).unwrap();
        assert_eq!(
            got.to_vec(),
            ops::parse_json(input.as_bytes(), &Default::default())
        );
    }
    let no_docs =
        x12kit_wasm::parse_to_json(&js(SAMPLE), &options(r#"{"documents":false}"#)).unwrap();
    let o = ops::ParseOptions {
        documents: false,
        ..Default::default()
    };
    assert_eq!(no_docs.to_vec(), ops::parse_json(SAMPLE.as_bytes(), &o));
}

#[wasm_bindgen_test]
fn bytes_and_strings_are_the_same_input() {
    let bytes = Uint8Array::from(SAMPLE.as_bytes());
    let a = x12kit_wasm::validate_to_json(&bytes.into(), &JsValue::UNDEFINED).unwrap();
    let b = x12kit_wasm::validate_to_json(&js(SAMPLE), &JsValue::UNDEFINED).unwrap();
    assert_eq!(a.to_vec(), b.to_vec());
    assert_eq!(
        a.to_vec(),
        ops::validate_json(SAMPLE.as_bytes(), &Default::default())
    );
}

#[wasm_bindgen_test]
fn errors_carry_code_kind_pointer_and_details() {
    let e = x12kit_wasm::parse(&js(SAMPLE), &options(r#"{"nope":1}"#)).unwrap_err();
    assert!(e.is_instance_of::<js_sys::TypeError>());
    assert_eq!(prop(&e, "name"), js("X12kitTypeError"));
    assert_eq!(prop(&e, "code"), js("INVALID_OPTIONS"));
    assert_eq!(prop(&e, "kind"), js("invalid_input"));
    assert_eq!(prop(&e, "pointer"), js("/nope"));
    assert!(js_sys::Array::is_array(&prop(&e, "details")));

    let e = x12kit_wasm::document_schema(&js("123"), &JsValue::UNDEFINED).unwrap_err();
    assert!(!e.is_instance_of::<js_sys::TypeError>());
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(prop(&e, "name"), js("X12kitError"));
    assert_eq!(prop(&e, "code"), js("UNKNOWN_DOCUMENT_TYPE"));

    let e = x12kit_wasm::parse(&JsValue::from_f64(1.0), &JsValue::UNDEFINED).unwrap_err();
    assert_eq!(prop(&e, "code"), js("INVALID_ARGUMENT"));
}

#[wasm_bindgen_test]
fn every_error_code_converts() {
    for c in x12kit::error::ErrorCode::ALL {
        let e = x12kit_wasm::error_for_code(c.as_str()).unwrap();
        assert_eq!(prop(&e, "code"), js(c.as_str()));
        assert_eq!(prop(&e, "kind"), js(c.kind().as_str()));
        let is_type_error = e.is_instance_of::<js_sys::TypeError>();
        assert_eq!(
            is_type_error,
            c.kind() == x12kit::error::ErrorKind::InvalidInput
        );
    }
}

#[wasm_bindgen_test]
fn stream_validator_equals_validate_for_any_chunking() {
    let whole = ops::validate_json(BAD_SE01.as_bytes(), &Default::default());
    for size in [1, 3, 64, 100_000] {
        let mut v = x12kit_wasm::StreamValidator::new(&JsValue::UNDEFINED).unwrap();
        for chunk in BAD_SE01.as_bytes().chunks(size) {
            v.feed(&Uint8Array::from(chunk).into()).unwrap();
        }
        assert_eq!(v.fed() as usize, BAD_SE01.len());
        assert_eq!(v.finish_to_json().unwrap().to_vec(), whole);
        assert!(v.finish().is_err());
        assert!(v.feed(&js("x")).is_err());
        // The acknowledgement of the streamed validation equals the whole-input one.
        let from_stream = v
            .acknowledge(&options(r#"{"kind":"997","now":1700000000}"#))
            .unwrap();
        let direct = x12kit_wasm::acknowledge(
            &js(BAD_SE01),
            &options(r#"{"kind":"997","structure":false,"now":1700000000}"#),
        )
        .unwrap();
        assert_eq!(from_stream.to_vec(), direct.to_vec());
    }
}

#[wasm_bindgen_test]
fn acknowledge_dates_from_date_now_unless_given() {
    let now = x12kit::time::DateTime::from_unix((js_sys::Date::now() / 1000.0) as u64);
    let o = ops::AcknowledgeOptions::default();
    let expected = ops::acknowledge(BAD_SE01.as_bytes(), &o, now).unwrap();
    let got = x12kit_wasm::acknowledge(&js(BAD_SE01), &JsValue::UNDEFINED).unwrap();
    // Equal unless the minute changed between the two calls.
    let again = ops::acknowledge(
        BAD_SE01.as_bytes(),
        &o,
        x12kit::time::DateTime::from_unix((js_sys::Date::now() / 1000.0) as u64),
    )
    .unwrap();
    assert!(got.to_vec() == expected || got.to_vec() == again);
    let fixed = x12kit_wasm::acknowledge(&js(BAD_SE01), &options(r#"{"now":0}"#)).unwrap();
    assert!(
        String::from_utf8(fixed.to_vec())
            .unwrap()
            .contains("*700101*0000*")
    );
}

#[wasm_bindgen_test]
fn acknowledge_takes_a_validation_result_as_in_node() {
    let o = options(r#"{"kind":"997","now":1700000000}"#);
    let want = ops::acknowledge_validation(
        &ops::validate(BAD_SE01.as_bytes(), &ops::ValidateOptions::default()),
        &ops::options(serde_json::json!({"kind": "997"})).unwrap(),
        x12kit::time::DateTime::from_unix(1_700_000_000),
    )
    .unwrap();
    let v = x12kit_wasm::validate(&js(BAD_SE01), &JsValue::UNDEFINED).unwrap();
    assert_eq!(x12kit_wasm::acknowledge(&v, &o).unwrap().to_vec(), want);
    assert_eq!(x12kit_wasm::acknowledge(&v, &o).unwrap().to_vec(), want);
    // A copy of the object (JSON) did not come from x12kit.
    let copy =
        js_sys::JSON::parse(&js_sys::JSON::stringify(&v).unwrap().as_string().unwrap()).unwrap();
    let e = x12kit_wasm::acknowledge(&copy, &o).unwrap_err();
    assert_eq!(prop(&e, "code"), js("INVALID_ARGUMENT"));
}

#[wasm_bindgen_test]
fn webhook_sign_and_verify() {
    let sig = x12kit_wasm::Webhook::sign(&js("k"), &JsValue::from_f64(1.7e9), &js("body")).unwrap();
    assert_eq!(
        sig,
        ops::webhook_sign(b"k", 1_700_000_000, b"body").unwrap()
    );
    let secrets: JsValue = js_sys::Array::of2(&js("old"), &js("k")).into();
    let v = x12kit_wasm::Webhook::verify(
        &secrets,
        &js(&sig),
        &js("1700000000"),
        &js("body"),
        &options(r#"{"now":1700000000}"#),
    )
    .unwrap();
    assert_eq!(prop(&v, "secretIndex"), JsValue::from_f64(1.0));
    let stale = x12kit_wasm::Webhook::verify(
        &secrets,
        &js(&sig),
        &js("1700000000"),
        &js("body"),
        &JsValue::UNDEFINED,
    )
    .unwrap_err();
    assert_eq!(prop(&stale, "code"), js("TIMESTAMP_OUT_OF_TOLERANCE"));
}

#[wasm_bindgen_test]
fn segments_and_describe() {
    // The lazy iterator yields the core tokenizer's segments, one view per `next()`.
    let it = x12kit_wasm::segments(&js(SAMPLE)).unwrap();
    let iterator = js_sys::Iterator::unchecked_from_js_ref(&it);
    let mut n = 0;
    for core in x12kit::segments(SAMPLE.as_bytes()) {
        let step = iterator.next().unwrap();
        assert!(!step.done());
        let view = step.value();
        assert_eq!(prop(&view, "id"), js(&String::from_utf8_lossy(core.id())));
        assert_eq!(
            prop(&view, "offset"),
            JsValue::from_f64(core.offset() as f64)
        );
        assert_eq!(prop(&view, "raw"), js(&String::from_utf8_lossy(core.raw())));
        n += 1;
    }
    assert!(n > 10);
    assert!(iterator.next().unwrap().done());
    let beg = x12kit_wasm::describe_segment(&js("850"), &js("004010"), &js("BEG")).unwrap();
    assert_eq!(prop(&beg, "setName"), js("Purchase Order"));
    assert_eq!(
        prop(&beg, "segmentName"),
        js("Beginning Segment for Purchase Order")
    );
    let isa = x12kit_wasm::describe_segment(&js(""), &js("00401"), &js("ISA")).unwrap();
    assert_eq!(prop(&isa, "segmentName"), js("Interchange Control Header"));
    assert!(
        x12kit_wasm::describe_segment(&js("850"), &js("004010"), &js("XYZ"))
            .unwrap()
            .is_null()
    );
    // Not a segment identifier, not a version: INVALID_ARGUMENT, as everywhere.
    for (set, version, segment) in [("850", "004010", "beg"), ("850", "5010", "BEG")] {
        let e = x12kit_wasm::describe_segment(&js(set), &js(version), &js(segment)).unwrap_err();
        assert_eq!(prop(&e, "code"), js("INVALID_ARGUMENT"));
    }
    let types = x12kit_wasm::document_types();
    assert_eq!(types.length() as usize, ops::DOCUMENT_TYPES.len());
    assert!(x12kit_wasm::partner_schema().unwrap().is_object());
    assert!(
        x12kit_wasm::document_schema(&js("850"), &JsValue::UNDEFINED)
            .unwrap()
            .dyn_ref::<js_sys::Object>()
            .is_some()
    );
}

#[wasm_bindgen_test]
fn segment_views_split_elements_on_demand() {
    let input = "ISA*00*          *00*          *ZZ*A              *ZZ*B              *230101*1200*^*00501*000000001*0*T*:~REF*AA*1^2*X:Y:Z~";
    let it = x12kit_wasm::segments(&js(input)).unwrap();
    let iterator = js_sys::Iterator::unchecked_from_js_ref(&it);
    let _isa = iterator.next().unwrap();
    let reference = iterator.next().unwrap().value();
    assert!(iterator.next().unwrap().done());
    let call = |name: &str, args: &[JsValue]| -> JsValue {
        let f: js_sys::Function = prop(&reference, name).unchecked_into();
        f.apply(&reference, &args.iter().collect::<js_sys::Array>())
            .unwrap()
    };
    assert_eq!(prop(&reference, "id"), js("REF"));
    assert_eq!(call("element", &[JsValue::from_f64(1.0)]), js("AA"));
    assert!(call("element", &[JsValue::from_f64(4.0)]).is_undefined());
    let reps = js_sys::Array::from(&call("repetitions", &[JsValue::from_f64(2.0)]));
    assert_eq!(reps.to_vec(), vec![js("1"), js("2")]);
    let comps = js_sys::Array::from(&call("components", &[JsValue::from_f64(3.0)]));
    assert_eq!(comps.to_vec(), vec![js("X"), js("Y"), js("Z")]);
    let f: js_sys::Function = prop(&reference, "element").unchecked_into();
    let e = f.call1(&reference, &JsValue::from_f64(1.5)).unwrap_err();
    assert_eq!(prop(&e, "code"), js("INVALID_ARGUMENT"));
    let json: JsValue = js_sys::JSON::stringify(&reference).unwrap().into();
    assert_eq!(
        json,
        js(r#"{"id":"REF","index":1,"offset":106,"elements":["AA","1^2","X:Y:Z"]}"#)
    );
}

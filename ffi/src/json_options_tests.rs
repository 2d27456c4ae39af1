//! Tests of the calls that take an operation's options as JSON text (the
//! `*_with_json_options` family) and of the option-less calls added with
//! them: each gives exactly what `x12kit::ops` gives, and its errors carry the
//! core's code, kind (as the status) and pointer. The C side runs every
//! cross-language vector through them (ffi/tests/vectors.c).

use crate::error::{
    x12kit_error, x12kit_error_code, x12kit_error_free, x12kit_error_new, x12kit_error_path,
    x12kit_status,
};
use crate::json::{x12kit_parse_with_json_options, x12kit_write_with_json_options};
use crate::render::{
    x12kit_document_schema, x12kit_issue, x12kit_issues, x12kit_issues_count, x12kit_issues_free,
    x12kit_issues_get, x12kit_partner_schema, x12kit_render_with_json_options,
};
use crate::string::{x12kit_bytes, x12kit_string, x12kit_string_free};
use crate::validate::{
    x12kit_acknowledge_with_json_options, x12kit_read_acknowledgement,
    x12kit_validate_with_json_options,
};
use crate::webhook::{x12kit_webhook_verified, x12kit_webhook_verify_with_json_options};
use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};
use x12kit_core::{DateTime, ops};

const X12: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~GE*1*1~IEA*1*000000001~";
const NOW: u64 = 1_700_000_000;

/// An error object freed on drop.
struct Err(*mut x12kit_error);

impl Err {
    fn new() -> Self {
        Err(x12kit_error_new())
    }

    fn code(&self) -> String {
        // SAFETY: a live error object; the code is never NULL.
        unsafe { CStr::from_ptr(x12kit_error_code(self.0)) }
            .to_string_lossy()
            .into_owned()
    }

    fn path(&self) -> Option<String> {
        // SAFETY: a live error object.
        let p = unsafe { x12kit_error_path(self.0) };
        // SAFETY: NULL or a NUL-terminated string owned by the error.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

impl Drop for Err {
    fn drop(&mut self) {
        // SAFETY: from x12kit_error_new, freed once.
        unsafe { x12kit_error_free(self.0) }
    }
}

/// The bytes of a filled string, freeing it (it is then empty again).
fn take(s: &mut x12kit_string) -> Vec<u8> {
    let v = if s.data.is_null() {
        Vec::new()
    } else {
        // SAFETY: filled by x12kit: `len` bytes at `data`.
        unsafe { std::slice::from_raw_parts(s.data.cast::<u8>(), s.len) }.to_vec()
    };
    // SAFETY: filled by x12kit (or empty).
    unsafe { x12kit_string_free(s) };
    v
}

fn c(s: &str) -> *const c_char {
    s.as_ptr().cast()
}

#[test]
fn parse_and_validate_take_the_options_of_every_language() {
    let err = Err::new();
    // SAFETY: live local buffers and outputs throughout.
    unsafe {
        for options in [None, Some("null"), Some(r#"{"documents": false}"#)] {
            let (ptr, len) = options.map_or((null(), 0), |o| (c(o), o.len()));
            let mut json = x12kit_string::EMPTY;
            let status = x12kit_parse_with_json_options(
                X12.as_ptr(),
                X12.len(),
                ptr,
                len,
                &mut json,
                null_mut(),
                err.0,
            );
            assert_eq!(status, x12kit_status::Ok);
            let o: ops::ParseOptions = ops::options_str(options.unwrap_or("null")).unwrap();
            assert_eq!(take(&mut json), ops::parse_json(X12, &o), "{options:?}");
        }
        let bad = r#"{"document": false}"#;
        let mut json = x12kit_string::EMPTY;
        let status = x12kit_parse_with_json_options(
            X12.as_ptr(),
            X12.len(),
            c(bad),
            bad.len(),
            &mut json,
            null_mut(),
            err.0,
        );
        assert_eq!(status, x12kit_status::InvalidInput);
        assert_eq!(err.code(), "INVALID_OPTIONS");
        assert_eq!(err.path().as_deref(), Some("/document"));
        assert!(json.data.is_null());

        let structure = r#"{"structure": true}"#;
        let mut json = x12kit_string::EMPTY;
        let status = x12kit_validate_with_json_options(
            X12.as_ptr(),
            X12.len(),
            c(structure),
            structure.len(),
            &mut json,
            null_mut(),
            err.0,
        );
        assert_eq!(status, x12kit_status::Ok);
        let o = ops::ValidateOptions {
            structure: true,
            ..Default::default()
        };
        assert_eq!(take(&mut json), ops::validate_json(X12, &o));
        // Not an object: the pointer is the whole options; empty text is not JSON.
        for (bad, path) in [("[true]", Some("/")), ("", None)] {
            let status = x12kit_validate_with_json_options(
                X12.as_ptr(),
                X12.len(),
                c(bad),
                bad.len(),
                &mut json,
                null_mut(),
                err.0,
            );
            assert_eq!(status, x12kit_status::InvalidInput, "{bad:?}");
            assert_eq!(err.code(), "INVALID_OPTIONS");
            assert_eq!(err.path().as_deref(), path);
        }
        // Both outputs NULL, and options that are not UTF-8.
        let status = x12kit_validate_with_json_options(
            X12.as_ptr(),
            X12.len(),
            null(),
            0,
            null_mut(),
            null_mut(),
            err.0,
        );
        assert_eq!(status, x12kit_status::NullPointer);
        let status = x12kit_parse_with_json_options(
            X12.as_ptr(),
            X12.len(),
            b"\xff".as_ptr().cast(),
            1,
            &mut json,
            null_mut(),
            err.0,
        );
        assert_eq!(status, x12kit_status::InvalidUtf8);
    }
}

#[test]
fn acknowledge_and_read_acknowledgement_equal_the_core() {
    let err = Err::new();
    // SAFETY: live local buffers and outputs throughout.
    unsafe {
        let options = r#"{"kind": "997", "lineBreak": "\r\n"}"#;
        let mut ack = x12kit_string::EMPTY;
        let status = x12kit_acknowledge_with_json_options(
            X12.as_ptr(),
            X12.len(),
            c(options),
            options.len(),
            NOW,
            &mut ack,
            err.0,
        );
        assert_eq!(status, x12kit_status::Ok);
        let ack = take(&mut ack);
        let o: ops::AcknowledgeOptions = ops::options_str(options).unwrap();
        assert_eq!(
            ack,
            ops::acknowledge(X12, &o, DateTime::from_unix(NOW)).unwrap()
        );
        assert!(ack.windows(2).any(|w| w == b"\r\n"));

        let mut json = x12kit_string::EMPTY;
        let status = x12kit_read_acknowledgement(ack.as_ptr(), ack.len(), &mut json, err.0);
        assert_eq!(status, x12kit_status::Ok);
        assert_eq!(take(&mut json), ops::read_acknowledgement_json(&ack));

        for (bad, code, path) in [
            (r#"{"kind": "850"}"#, "INVALID_OPTIONS", "/kind"),
            (r#"{"date": "20231114"}"#, "INVALID_TIMESTAMP", "/time"),
        ] {
            let mut out = x12kit_string::EMPTY;
            let status = x12kit_acknowledge_with_json_options(
                X12.as_ptr(),
                X12.len(),
                c(bad),
                bad.len(),
                NOW,
                &mut out,
                err.0,
            );
            assert_eq!(status, x12kit_status::InvalidInput, "{bad}");
            assert_eq!(err.code(), code, "{bad}");
            assert_eq!(err.path().as_deref(), Some(path), "{bad}");
            assert!(out.data.is_null());
        }
        let status = x12kit_read_acknowledgement(X12.as_ptr(), X12.len(), null_mut(), err.0);
        assert_eq!(status, x12kit_status::NullPointer);
    }
}

/// The issues of a list, as (severity, code, pointer, message), freeing it.
fn issues(list: *mut x12kit_issues) -> Vec<(u32, String, String, String)> {
    let text = |p: *const c_char| {
        // SAFETY: owned by the list, NUL-terminated.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    };
    // SAFETY: a live list from x12kit (or NULL), freed once at the end.
    unsafe {
        let out = (0..x12kit_issues_count(list))
            .map(|i| {
                let mut issue = x12kit_issue {
                    severity: crate::diagnostics::x12kit_severity::Error,
                    code: null(),
                    pointer: null(),
                    message: null(),
                };
                assert!(x12kit_issues_get(list, i, &mut issue));
                (
                    issue.severity as u32,
                    text(issue.code),
                    text(issue.pointer),
                    text(issue.message),
                )
            })
            .collect();
        x12kit_issues_free(list);
        out
    }
}

#[test]
fn render_schemas_and_their_errors() {
    let err = Err::new();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let payload = std::fs::read_to_string(format!("{root}/payloads/850.json")).unwrap();
    let partner = std::fs::read_to_string(format!("{root}/partners/acme-retail.json")).unwrap();
    let options = r#"{"controlNumbers": {"interchange": 7}}"#;
    // SAFETY: live local buffers and outputs throughout.
    unsafe {
        let mut x12 = x12kit_string::EMPTY;
        let mut list: *mut x12kit_issues = null_mut();
        let status = x12kit_render_with_json_options(
            c("850"),
            3,
            c(&payload),
            payload.len(),
            c(&partner),
            partner.len(),
            c(options),
            options.len(),
            NOW,
            &mut x12,
            &mut list,
            err.0,
        );
        assert_eq!(status, x12kit_status::Ok);
        let o: ops::RenderOptions = ops::options_str(options).unwrap();
        let expected =
            ops::render_str("850", &payload, &partner, &o, DateTime::from_unix(NOW)).unwrap();
        assert_eq!(take(&mut x12), expected.x12);
        assert_eq!(issues(list).len(), expected.warnings.len());

        // Payload that is not JSON: INVALID_JSON at /payload, given as one issue.
        let status = x12kit_render_with_json_options(
            c("850"),
            3,
            c("{"),
            1,
            c(&partner),
            partner.len(),
            null(),
            0,
            NOW,
            &mut x12,
            &mut list,
            err.0,
        );
        assert_eq!(status, x12kit_status::InvalidInput);
        assert_eq!(
            (err.code().as_str(), err.path().as_deref()),
            ("INVALID_JSON", Some("/payload"))
        );
        let got = issues(list);
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].1.as_str(), got[0].2.as_str()),
            ("INVALID_JSON", "/payload")
        );
        // A refused payload: rejected, every problem in the list.
        let status = x12kit_render_with_json_options(
            c("850"),
            3,
            c("{}"),
            2,
            c(&partner),
            partner.len(),
            null(),
            0,
            NOW,
            &mut x12,
            &mut list,
            err.0,
        );
        assert_eq!(status, x12kit_status::Rejected);
        assert_eq!(err.code(), "INVALID_PAYLOAD");
        let e = ops::render_str("850", "{}", &partner, &o, DateTime::from_unix(NOW)).unwrap_err();
        let got = issues(list);
        assert_eq!(got.len(), e.details().len());
        assert!(
            got.iter()
                .zip(e.details())
                .all(|(g, d)| g.1 == d.code.as_str() && g.2 == d.pointer && g.3 == d.message)
        );
        // Bad options: no list.
        let bad = r#"{"controlNumber": 5}"#;
        let status = x12kit_render_with_json_options(
            c("850"),
            3,
            c(&payload),
            payload.len(),
            c(&partner),
            partner.len(),
            c(bad),
            bad.len(),
            NOW,
            &mut x12,
            &mut list,
            err.0,
        );
        assert_eq!(status, x12kit_status::InvalidInput);
        assert_eq!(err.code(), "INVALID_OPTIONS");
        assert_eq!(err.path().as_deref(), Some("/controlNumber"));
        assert!(list.is_null() && x12.data.is_null());

        let mut json = x12kit_string::EMPTY;
        assert_eq!(
            x12kit_document_schema(c("850"), 3, &mut json, err.0),
            x12kit_status::Ok
        );
        assert_eq!(
            take(&mut json),
            serde_json::to_vec(&ops::document_schema("850").unwrap()).unwrap()
        );
        let mut json = x12kit_string::EMPTY;
        assert_eq!(
            x12kit_document_schema(c("851"), 3, &mut json, err.0),
            x12kit_status::Rejected
        );
        assert_eq!(err.code(), "UNKNOWN_DOCUMENT_TYPE");
        assert!(json.data.is_null());
        assert_eq!(x12kit_partner_schema(&mut json, err.0), x12kit_status::Ok);
        assert_eq!(
            take(&mut json),
            serde_json::to_vec(&ops::partner_schema()).unwrap()
        );
        assert_eq!(
            x12kit_partner_schema(null_mut(), err.0),
            x12kit_status::NullPointer
        );
    }
}

#[test]
fn write_reads_bytes_and_verify_gives_json() {
    let err = Err::new();
    // SAFETY: live local buffers and outputs throughout.
    unsafe {
        let parsed = ops::parse_json(
            X12,
            &ops::ParseOptions {
                documents: false,
                ..Default::default()
            },
        );
        let options = r#"{"lineBreak": "\n"}"#;
        let mut x12 = x12kit_string::EMPTY;
        let status = x12kit_write_with_json_options(
            parsed.as_ptr(),
            parsed.len(),
            c(options),
            options.len(),
            &mut x12,
            err.0,
        );
        assert_eq!(status, x12kit_status::Ok);
        let o: ops::WriteOptions = ops::options_str(options).unwrap();
        assert_eq!(take(&mut x12), ops::write_json(&parsed, &o).unwrap());
        // Not UTF-8: the core's INVALID_UTF8, an input problem of the data.
        let status =
            x12kit_write_with_json_options(b"\"\xff\"".as_ptr(), 3, null(), 0, &mut x12, err.0);
        assert_eq!(status, x12kit_status::InvalidInput);
        assert_eq!(err.code(), "INVALID_UTF8");

        let secret = b"my-signing-secret";
        let body = b"{}";
        let signature = ops::webhook_sign(secret, NOW, body).unwrap();
        let secrets = [
            x12kit_bytes {
                data: b"old".as_ptr(),
                len: 3,
            },
            x12kit_bytes {
                data: secret.as_ptr(),
                len: secret.len(),
            },
        ];
        let stamp = NOW.to_string();
        let verify = |options: &str, now: u64, json: &mut x12kit_string| {
            let mut verified = x12kit_webhook_verified {
                timestamp: 0,
                secret_index: 9,
            };
            let status = x12kit_webhook_verify_with_json_options(
                secrets.as_ptr(),
                secrets.len(),
                c(&signature),
                signature.len(),
                c(&stamp),
                stamp.len(),
                body.as_ptr(),
                body.len(),
                c(options),
                options.len(),
                now,
                &mut verified,
                json,
                err.0,
            );
            (status, verified.secret_index)
        };
        let mut json = x12kit_string::EMPTY;
        assert_eq!(verify("null", NOW, &mut json), (x12kit_status::Ok, 1));
        assert_eq!(
            take(&mut json),
            format!("{{\"timestamp\":{NOW},\"secretIndex\":1}}").into_bytes()
        );
        let mut json = x12kit_string::EMPTY;
        let (status, _) = verify(r#"{"tolerance": 10}"#, NOW + 11, &mut json);
        assert_eq!(status, x12kit_status::Rejected);
        assert_eq!(err.code(), "TIMESTAMP_OUT_OF_TOLERANCE");
        assert!(json.data.is_null());
        let (status, _) = verify(r#"{"tolerance": -1}"#, NOW, &mut json);
        assert_eq!(status, x12kit_status::InvalidInput);
        assert_eq!(err.code(), "INVALID_OPTIONS");
        assert_eq!(err.path().as_deref(), Some("/tolerance"));
    }
}

//! CSV intake (`x12kit::ops::payloads_from_csv`): a CSV of documents of one
//! type → their payloads and every problem at its row, column and pointer.

use crate::error::{bytes, call, json_options, out, text, x12kit_error, x12kit_status};
use crate::string::{give, x12kit_string};
use std::ffi::c_char;
use x12kit_core::ops::{self, CsvOptions};

/// The documents of one type a CSV holds, and every problem: the header row
/// names JSON pointers into the payload (`/purchaseOrderNumber`; a column
/// whose pointer has a `*` step, the lines' `sku` for one, adds an item per
/// row), consecutive rows with one document key (the first column) are one
/// document.
///
/// `document_type[0..document_type_len]`: the type ("850", UTF-8).
/// `csv[0..csv_len]`: the file's bytes (UTF-8 or not: a file that is not UTF-8
/// is a problem of the result, `CSV_NOT_UTF8`). `options[0..options_len]`:
/// JSON `{"delimiter": "," or ";", "documentKey", "maxRows", "partner": {a
/// partner profile, whose implementation guide is checked too}, "table": true}`,
/// or NULL with length 0 for the defaults.
///
/// On success `*json_out` receives compact JSON (free with
/// `x12kit_string_free`), byte for byte the core's
/// `ops::payloads_from_csv_json`: `{"documentTypeCode", "header",
/// "documents": [{"key", "reference", "rows": [first, last], "payload"}],
/// "problems": [{"row", "column", "pointer", "code", "message"}]}` (and
/// `"table"` when asked). Problems of the file are in the result, not errors.
///
/// Errors: `X12KIT_STATUS_REJECTED` with `UNKNOWN_DOCUMENT_TYPE`, or
/// `INVALID_PARTNER` (path `/partner`); `X12KIT_STATUS_INVALID_INPUT` with
/// `INVALID_OPTIONS` (`x12kit_error_path` names the key);
/// `X12KIT_STATUS_INVALID_UTF8` (the type or the options),
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`;
/// `*json_out` is then empty. Thread safety: may be called from many threads
/// at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// the arguments. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// Each of `document_type`, `csv`, `options` must point to its length in
/// readable bytes (or be NULL with length 0); `json_out` must be valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_payloads_from_csv(
    document_type: *const c_char,
    document_type_len: usize,
    csv: *const u8,
    csv_len: usize,
    options: *const c_char,
    options_len: usize,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (code, csv) = unsafe {
            (
                text(document_type, document_type_len, "document_type")?,
                bytes(csv, csv_len, "csv")?,
            )
        };
        // SAFETY: forwarded to the caller.
        let options: CsvOptions = unsafe { json_options(options, options_len) }?;
        give(json_out, ops::payloads_from_csv_json(code, csv, &options)?);
        Ok(())
    })
}

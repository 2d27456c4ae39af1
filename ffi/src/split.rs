//! Splitting X12 into complete interchanges and merging interchanges into
//! one (`x12kit::ops::split`, `x12kit::ops::merge`).

use crate::error::{bytes, call, json_options, out, text, x12kit_error, x12kit_status};
use crate::string::{byte_list, give, x12kit_bytes, x12kit_string};
use std::ffi::c_char;
use x12kit_core::ops::{self, MergeOptions, SplitOptions};

/// Splits X12 into complete interchanges, each holding one transaction set
/// (`"per": "set"`, the default; up to `maxSets` sets) or one functional
/// group (`"per": "group"`), closed before a set would take it past
/// `maxBytes`: the envelopes copied, GE01 and IEA01 counted, control numbers
/// kept or renumbered. An input with envelope errors is split as far as it
/// can be, with the diagnostics.
///
/// `input[0..input_len]`: the X12 bytes. `options[0..options_len]`: JSON
/// `{"per": "set" | "group", "maxSets": N, "maxBytes": N, "renumber":
/// {"interchange": N, "group": N, "set": N}, "maxSetBytes": N}` (every key
/// optional; `maxSetBytes`, 64 MiB by default and 0 for none, leaves a
/// larger set out of the parts with a `SET_TOO_LARGE` diagnostic), or NULL
/// with length 0 for the defaults.
///
/// On success `*json_out` receives compact JSON (free with
/// `x12kit_string_free`), byte for byte the core's `ops::split_json`:
/// `{"parts": [{"interchangeControlNumber", "originalInterchangeControlNumber",
/// "functionalId", "groupControlNumber", "originalGroupControlNumber",
/// "sets": [{"type", "controlNumber", "originalControlNumber", "segment",
/// "offset", "length"}], "recipe", "x12"}], "diagnostics": [...]}`. A part's
/// `recipe` is what `x12kit_rebuild_part` needs to make it again from the
/// input's bytes alone: keep it rather than the part.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `INVALID_OPTIONS` (a zero
/// `maxSets` or `maxBytes`, an unknown key; `x12kit_error_path` names it) or
/// `INVALID_CONTROL_NUMBER` (a renumbering start outside 1–999999999);
/// `X12KIT_STATUS_INVALID_UTF8` (the options), `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`; `*json_out` is then empty. Thread
/// safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// the arguments. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `input` and `options` must point to their lengths in readable bytes (or be
/// NULL with length 0); `json_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_split(
    input: *const u8,
    input_len: usize,
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
        let input = unsafe { bytes(input, input_len, "input") }?;
        // SAFETY: forwarded to the caller.
        let options: SplitOptions = unsafe { json_options(options, options_len) }?;
        give(json_out, ops::split_json(input, &options)?);
        Ok(())
    })
}

/// Makes a part of `x12kit_split` again from its `recipe` and the input's
/// bytes in the recipe's `ranges`: the same part (numbers, sets with their
/// positions in the input, recipe, `x12`) without reading the rest of the
/// input. Keep a few dozen bytes of recipe per part instead of the parts of
/// a large file; read `ranges` (`[start, end)` byte offsets of the input:
/// its ISA, its GS, the run of its sets, the GE and IEA that closed it) one
/// after the other into one buffer when a part is wanted.
///
/// `recipe[0..recipe_len]`: the part's `recipe` object as JSON text (as
/// `x12kit_split` gives it). `bytes[0..bytes_len]`: the input's bytes in
/// the recipe's ranges, one after the other.
///
/// On success `*json_out` receives the part as compact JSON (free with
/// `x12kit_string_free`), byte for byte as it is in the split's JSON
/// (`ops::rebuild_part_json`).
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `INVALID_ARGUMENT` (the bytes
/// are not the ranges' length, or do not make that part: another input, or
/// it changed since the split), `INVALID_OPTIONS` (a recipe that is not
/// JSON, not an object, or unusable; `x12kit_error_path` is `/recipe` or the
/// member under it, such as `/recipe/ranges/0/1`) or
/// `INVALID_CONTROL_NUMBER` (`/recipe/renumber/set`);
/// `X12KIT_STATUS_INVALID_UTF8` (the recipe), `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`; `*json_out` is then empty. Thread
/// safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// the arguments. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `recipe` and `bytes` must point to their lengths in readable bytes (or
/// be NULL with length 0); `json_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_rebuild_part(
    recipe: *const c_char,
    recipe_len: usize,
    bytes_in: *const u8,
    bytes_len: usize,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let recipe = unsafe { text(recipe, recipe_len, "recipe") }?;
        // SAFETY: forwarded to the caller.
        let input = unsafe { bytes(bytes_in, bytes_len, "bytes") }?;
        let recipe = ops::part_recipe_str(recipe)?;
        give(json_out, ops::rebuild_part_json(&recipe, input)?);
        Ok(())
    })
}

/// Merges interchanges of one sender/receiver pair, version and delimiters
/// into one interchange: groups with the same GS (functional id, application
/// sender and receiver, version and control number; with `renumber.group`,
/// whatever their control number) become one group, their sets in input
/// order. Without renumbering, merging the parts of a split gives back the
/// input byte for byte.
///
/// `inputs[0..input_count]`: the inputs, each holding one or more
/// interchanges. `options[0..options_len]`: JSON `{"renumber":
/// {"interchange": N, "group": N, "set": N}}`, or NULL with length 0.
///
/// On success `*x12_out` receives the merged X12 (free with
/// `x12kit_string_free`).
///
/// Errors: `X12KIT_STATUS_REJECTED` with `MERGE_REFUSED`, whose details
/// (`x12kit_error_details_json`) name each input at fault by its 0-based
/// index (`/0`): no interchange, envelope errors, another sender, receiver,
/// version or delimiters, set control numbers that would repeat in a group;
/// `X12KIT_STATUS_INVALID_INPUT` with `INVALID_ARGUMENT` (no input),
/// `INVALID_OPTIONS` or `INVALID_CONTROL_NUMBER`; `X12KIT_STATUS_INVALID_UTF8`,
/// `X12KIT_STATUS_NULL_POINTER`; `*x12_out` is then empty. Thread safety: may
/// be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// the arguments. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `inputs` must point to `input_count` `x12kit_bytes` (or be NULL with count
/// 0), each pointing to its length in readable bytes; `options` to its length
/// in readable bytes (or NULL with length 0); `x12_out` must be valid for one
/// write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_merge(
    inputs: *const x12kit_bytes,
    input_count: usize,
    options: *const c_char,
    options_len: usize,
    x12_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let inputs = unsafe { byte_list(inputs, input_count, "inputs") }?;
        // SAFETY: forwarded to the caller.
        let options: MergeOptions = unsafe { json_options(options, options_len) }?;
        give(x12_out, ops::merge(&inputs, &options)?);
        Ok(())
    })
}

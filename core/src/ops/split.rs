//! The operations on files of any size: splitting an input into complete
//! interchanges, merging interchanges into one, and the parse result a
//! transaction set at a time ([`crate::split`] and [`crate::sets`] have
//! the rules).

use crate::error::Error;
pub use x12kit_edi::split::{
    MergeOptions, Part, PartRecipe, PartSet, Per, Renumber, Split, SplitFeeder, SplitOptions,
    rebuild_part, split_each, split_releasing,
};

/// Splits X12 into complete interchanges, each holding a set (or up to
/// `maxSets` sets, or a group: `per`), with counts right and control
/// numbers kept or renumbered, and where each set was in the input.
/// Never fails on the input: problems are the diagnostics.
pub fn split(input: &[u8], o: &SplitOptions) -> Result<Split, Error> {
    x12kit_edi::split::split(input, o)
}

/// [`split`] as JSON: `parts`, each
/// with its numbers, sets and `x12`, and `diagnostics`.
pub fn split_json(input: &[u8], o: &SplitOptions) -> Result<Vec<u8>, Error> {
    let s = split(input, o)?;
    serde_json::to_vec(&s).map_err(Error::internal)
}

/// Merges interchanges of one sender/receiver pair, version and
/// delimiters into one (`MERGE_REFUSED` with a problem per input at
/// fault otherwise).
pub fn merge(inputs: &[&[u8]], o: &MergeOptions) -> Result<Vec<u8>, Error> {
    x12kit_edi::split::merge(inputs, o)
}

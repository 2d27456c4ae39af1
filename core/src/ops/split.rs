//! The operations on files of any size: splitting an input into complete
//! interchanges, merging interchanges into one, and the parse result a
//! transaction set at a time ([`crate::split`] and [`crate::sets`] have
//! the rules).

use crate::error::{Error, ErrorCode};
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

/// Reads a part's `recipe` (as [`split`] gives it in each part) from JSON:
/// `INVALID_OPTIONS` at `/recipe` (or the member at fault under it, such as
/// `/recipe/ranges/0`) for anything but a recipe object.
pub fn part_recipe(v: serde_json::Value) -> Result<PartRecipe, Error> {
    if !v.is_object() {
        return Err(Error::new(
            ErrorCode::InvalidOptions,
            format!(
                "recipe must be the `recipe` object of a part of split, found {}",
                x12kit_json::value_kind(&v)
            ),
        )
        .at("/recipe"));
    }
    x12kit_json::de::from_value(&v).map_err(|e| {
        Error::new(
            ErrorCode::InvalidOptions,
            format!("invalid recipe: {}", e.message),
        )
        .at(format!("/recipe{}", e.pointer.trim_end_matches('/')))
    })
}

/// [`part_recipe`] from JSON text (`INVALID_OPTIONS` at `/recipe` when it
/// is not JSON).
pub fn part_recipe_str(text: &str) -> Result<PartRecipe, Error> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidOptions,
            format!("the recipe is not valid JSON: {e}"),
        )
        .at("/recipe")
    })?;
    part_recipe(v)
}

/// [`rebuild_part`] as JSON: the part, byte for byte as it is in the JSON
/// of [`split_json`] (numbers, sets with their positions in the input, the
/// recipe, `x12`).
pub fn rebuild_part_json(recipe: &PartRecipe, bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let p = rebuild_part(recipe, bytes)?;
    serde_json::to_vec(&p).map_err(Error::internal)
}

/// Merges interchanges of one sender/receiver pair, version and
/// delimiters into one (`MERGE_REFUSED` with a problem per input at
/// fault otherwise).
pub fn merge(inputs: &[&[u8]], o: &MergeOptions) -> Result<Vec<u8>, Error> {
    x12kit_edi::split::merge(inputs, o)
}

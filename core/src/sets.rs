//! Transaction sets: the registry of their types (the declared sets, each
//! one's functional identifier and business reference, and the other types
//! the validator knows) and parsing an input one set at a time
//! ([`parse_sets`]: what is held follows the largest set, not the largest
//! interchange).
//!
//! The two halves live in different layers (`x12kit_edi::sets` and
//! `x12kit_syntax::sets`); this module puts them under one name.

pub use x12kit_edi::sets::*;
pub use x12kit_syntax::sets::*;

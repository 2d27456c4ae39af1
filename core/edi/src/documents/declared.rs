//! A compiled declaration with what matching and mapping need of it (a
//! leaf of the compiled form: the model and the matcher's shape).

use super::matcher;
use super::model::SetDecl;

/// A compiled declaration with what mapping a set needs of it, found once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Declared {
    pub decl: &'static SetDecl,
    /// Its payload keys need no JSON escaping.
    pub keys_clean: bool,
    pub shape: &'static matcher::Shape,
    /// The segment ids it uses.
    pub ids: &'static [String],
}

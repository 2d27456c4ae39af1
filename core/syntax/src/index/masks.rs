//! What the index reports for a block: its size and the masks of each
//! byte class (a leaf the kernels and the dispatch share).

/// Bytes per block of the index.
pub const BLOCK: usize = 64;

/// The delimiter and whitespace positions of one 64-byte block: bit `i` is
/// set when byte `i` of the block is of that class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Masks {
    /// The element separator.
    pub element: u64,
    /// The component separator.
    pub component: u64,
    /// The repetition separator (0 when the interchange has none).
    pub repetition: u64,
    /// The segment terminator.
    pub segment: u64,
    /// Space, tab, line feed, vertical tab, form feed and carriage return.
    pub whitespace: u64,
}

impl Masks {
    /// Whitespace the tokenizer skips after a terminator: whitespace that is
    /// not an element, component or repetition separator (a terminator that
    /// is itself whitespace, such as a line feed, is skippable).
    #[inline]
    pub fn skippable(&self) -> u64 {
        self.whitespace & !(self.element | self.component | self.repetition)
    }
}

//! What the tests of this workspace's crates share (not part of the API):
//! committed inputs re-delimited, token streams as text, ISA segments
//! ([`inputs`]), and pseudo-random numbers ([`random`]).

pub mod inputs;
pub mod random;

pub use inputs::{
    PIECE_ISA, VARIANTS, envelope_pieces, isa, redelimit, stream_tokens, token_text, whole_tokens,
};
pub use random::xorshift;

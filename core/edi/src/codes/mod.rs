//! X12 code lists and acknowledgement codes: the tables both the validator
//! and the acknowledgement builder use (a leaf of the crate: it uses no
//! other module of it).

mod ack;
mod envelope;
mod status;

pub use ack::{AckElement, ak5_error, ak9_error, element_error, segment_error, ta1_note, to_997};
pub use envelope::{
    AGENCIES, FUNCTIONAL_IDS, ID_QUALIFIERS, ISA01, ISA03, USAGE, VERSIONS, one_of, one_of_sorted,
};
pub use status::Status;

//! Acknowledgements: building TA1, 997 and 999 from a [`Validation`], and
//! reading received ones ([`read`]).
//!
//! [`acknowledge`] writes one acknowledgement interchange per received
//! interchange, with sender and receiver swapped (reference §5.4): a TA1
//! (§4) when asked for, then one functional group (`GS01` = `FA`) holding one
//! 997 or 999 per received functional group — 997 for 004010 groups and 999
//! for 005010 ones with [`AckKind::Auto`]. AK2 / IK5 are written for every
//! set or only for sets with errors ([`AckOptions::errors_only`]); a group of
//! functional acknowledgements (GS01 `FA`, 997 / 999) is never acknowledged,
//! as X12 requires (its interchange still gets a TA1 when it asks). AK3 / AK4
//! and IK3 / IK4 for segment and element findings, AK9 with its counts and
//! codes, and AK901 `A` / `E` / `P` / `R` by the rule of §5.4. Control
//! numbers are the caller's. The acknowledgement uses the received
//! delimiters unless [`AckOptions::delimiters`] says otherwise; values echoed
//! from the received envelope that would not be valid in the acknowledgement
//! are made valid as `docs/validation.md` describes, so the output always
//! parses and validates clean.
//!
//! ```
//! let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*1*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*7*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~GE*1*7~IEA*1*000000001~";
//! let doc = x12kit_syntax::parse(x12);
//! let v = x12kit_edi::validation::validate(&doc);
//! let options = x12kit_edi::ack::AckOptions {
//!     timestamp: Some(x12kit_syntax::DateTime::new(2024, 2, 29, 13, 5).unwrap()),
//!     ..Default::default()
//! };
//! let ack = x12kit_edi::ack::acknowledge(&v, &options).unwrap();
//! assert_eq!(
//!     String::from_utf8(ack).unwrap(),
//!     "ISA*00*          *00*          *ZZ*RECEIVER       *ZZ*SENDER         *240229*1305*U*00401*000000001*0*P*>~\n\
//!      TA1*000000001*230101*1200*A*000~\n\
//!      GS*FA*RECEIVER*SENDER*20240229*1305*1*X*004010~\n\
//!      ST*997*0001~\n\
//!      AK1*PO*7~\n\
//!      AK2*850*0001~\n\
//!      AK5*A~\n\
//!      AK9*A*1*1*1~\n\
//!      SE*6*0001~\n\
//!      GE*1*1~\n\
//!      IEA*1*000000001~\n"
//! );
//! ```

mod build;
mod options;

pub use crate::received::{
    Acknowledgements, CodeText, ElementAck, GroupAck, InterchangeAck, SegmentAck, SetAck, read,
};

pub use options::{AckKind, AckOptions};

use crate::validate::Validation;
use x12kit_syntax::error::Error;

/// Builds the acknowledgements of a validated input (see the module docs).
///
/// Returns the X12 bytes: one acknowledgement interchange per received
/// interchange that gets one (none at all, an empty result, when nothing is
/// to be acknowledged, e.g. a 997 asked for an input with no groups).
pub fn acknowledge(validation: &Validation, options: &AckOptions) -> Result<Vec<u8>, Error> {
    build::build(validation, options)
}

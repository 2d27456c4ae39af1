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
//! let doc = x12kit::parse(x12);
//! let v = x12kit::validate(&doc);
//! let options = x12kit::AckOptions {
//!     timestamp: Some(x12kit::DateTime::new(2024, 2, 29, 13, 5).unwrap()),
//!     ..Default::default()
//! };
//! let ack = x12kit::acknowledge(&v, &options).unwrap();
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
mod read;

pub use read::{
    Acknowledgements, CodeText, ElementAck, GroupAck, InterchangeAck, SegmentAck, SetAck, read,
};

use crate::delimiters::Delimiters;
use crate::error::Error;
use crate::time::DateTime;
use crate::validate::Validation;

/// Which acknowledgement to build (JSON: `"auto"`, `"ta1"`, `"997"`, `"999"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
pub enum AckKind {
    /// Only a TA1 per interchange.
    #[serde(rename = "ta1")]
    Ta1,
    /// A 997 per functional group (whatever its version).
    #[serde(rename = "997")]
    Fa997,
    /// A 999 per functional group (whatever its version).
    #[serde(rename = "999")]
    Fa999,
    /// 997 for groups before 005010, 999 from 005010, plus a TA1 when the
    /// interchange asks for one (ISA14 = 1) or was not accepted cleanly.
    #[default]
    #[serde(rename = "auto")]
    Auto,
}

/// How to build acknowledgements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckOptions {
    /// TA1, 997, 999 or automatic.
    pub kind: AckKind,
    /// ISA13 of the first acknowledgement interchange (then +1 per interchange).
    pub interchange_control_number: u64,
    /// GS06 of the first acknowledgement group (then +1 per group).
    pub group_control_number: u64,
    /// ST02 of the first 997 / 999 (then +1 per set; written with at least 4 digits).
    pub set_control_number: u64,
    /// Write AK2 / IK5 only for sets that are not accepted without errors.
    pub errors_only: bool,
    /// Delimiters of the acknowledgement; `None`: those of the received interchange.
    pub delimiters: Option<Delimiters>,
    /// Date and time of the acknowledgement (ISA09/ISA10, GS04/GS05). The core
    /// reads no clock: pass the current time ([`crate::ops::acknowledge`] does;
    /// `None` writes the received interchange's own date and time).
    pub timestamp: Option<DateTime>,
    /// What follows each segment terminator (CR / LF only); `None`: a line
    /// feed, or nothing when a line break is one of the delimiters.
    pub line_break: Option<String>,
}

impl Default for AckOptions {
    fn default() -> Self {
        AckOptions {
            kind: AckKind::Auto,
            interchange_control_number: 1,
            group_control_number: 1,
            set_control_number: 1,
            errors_only: false,
            delimiters: None,
            timestamp: None,
            line_break: None,
        }
    }
}

/// Builds the acknowledgements of a validated input (see the module docs).
///
/// Returns the X12 bytes: one acknowledgement interchange per received
/// interchange that gets one (none at all, an empty result, when nothing is
/// to be acknowledged, e.g. a 997 asked for an input with no groups).
pub fn acknowledge(validation: &Validation, options: &AckOptions) -> Result<Vec<u8>, Error> {
    build::build(validation, options)
}

//! Envelope validation: the interchange (ISA/IEA), functional group (GS/GE)
//! and transaction set (ST/SE) rules, each reported as a [`Diagnostic`](crate::Diagnostic)
//! with a stable [`Code`](crate::Code) and the TA1 / 997 / 999 codes it maps
//! to, plus a [`Validation`] summary per interchange, group and set; with
//! [`Options::structure`], the structure of the declared sets too.
//!
//! The engine and its types are `x12kit-edi`'s `validate`; the entry points
//! that read [`Options::structure`] ([`validate()`], [`validate_with`],
//! [`validate_reader`], [`Validator::new`], [`Validator::with_sink`],
//! [`StreamValidator::new`]) are its `validation`, which gives the engine
//! the rules of [`crate::documents`]. `docs/validation.md` lists every rule.
//!
//! ```
//! let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*1~IEA*1*000000001~";
//! let v = x12kit::validate(&x12kit::parse(x12));
//! assert!(!v.is_valid());
//! let d = &v.diagnostics[0];
//! assert_eq!(d.code.as_str(), "SE01_COUNT");
//! assert_eq!(d.ack.as_ref().unwrap().ik5, Some("4"));
//! assert_eq!(v.interchanges[0].groups[0].ak9.code, "R");
//! ```

pub use x12kit_edi::validate::*;
pub use x12kit_edi::validation::{validate, validate_reader, validate_with};

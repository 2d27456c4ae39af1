//! Validation with the structure rules of the declared sets: the entry
//! points that read [`Options::structure`]. The envelope validator
//! ([`crate::validate`]) knows no transaction set; with `structure` these
//! constructors give it the rules of [`crate::documents`] (segment order,
//! loops, mandatory segments and elements, types, lengths, codes), so that
//! their findings reach the acknowledgements as AK3/AK4 and IK3/IK4.
//! `x12kit::validate` re-exports them beside the engine.

use crate::documents::{GuidedRules, StructureRules};
use crate::validate::{Buffered, Options, SetRules, Sink, StreamValidator, Validation, Validator};
use std::io;
use x12kit_syntax::envelope::Document;

/// The set rules [`Options::structure`] and [`Options::guides`] ask for.
fn rules(options: &Options) -> Option<Box<dyn SetRules + Send>> {
    if !options.guides.is_empty() {
        return Some(Box::new(Buffered::new(GuidedRules::new(
            options.guides.clone(),
        ))));
    }
    options
        .structure
        .then(|| Box::new(Buffered::new(StructureRules)) as Box<dyn SetRules + Send>)
}

impl Validator<Validation> {
    /// A validator that collects everything into a [`Validation`].
    pub fn new(options: Options) -> Self {
        Self::with_sink(options, Validation::default())
    }
}

impl<S: Sink> Validator<S> {
    /// A validator that reports to `sink`. With [`Options::structure`], the
    /// structure rules of the declared sets are installed (as if by
    /// [`Validator::with_rules`]).
    pub fn with_sink(options: Options, sink: S) -> Self {
        let rules = rules(&options);
        Validator::with_sink_and_rules(options, sink, rules)
    }
}

impl StreamValidator<Validation> {
    /// A validator collecting a [`Validation`], waiting for its first chunk.
    pub fn new(options: Options) -> Self {
        Self::with_validator(Validator::new(options))
    }
}

/// Validates a parsed document with the default [`Options`].
pub fn validate(doc: &Document<'_>) -> Validation {
    validate_with(doc, &Options::default())
}

/// Validates a parsed document. Also reads the acknowledgements the input
/// carries (TA1, 997, 999) into [`Validation::acknowledgements`].
pub fn validate_with(doc: &Document<'_>, options: &Options) -> Validation {
    Validator::new(options.clone()).run(doc)
}

/// Validates X12 read from `reader` in chunks, with memory bounded by the
/// longest segment plus what `options.retain` keeps (see
/// [`Retain::Counts`](crate::validate::Retain::Counts) for inputs with
/// millions of sets). The result is that of [`validate_with`] over the
/// whole input (see [`StreamValidator`]).
pub fn validate_reader<R: io::Read>(reader: R, options: &Options) -> io::Result<Validation> {
    Validator::new(options.clone()).read(reader)
}

//! The X12 syntax notes of a segment (X12.6; reference §6 notation) and
//! what they require, in one place for the three users: the renderer
//! (`encode`: a payload that breaks a rule, and the defaults a rule holds
//! back), the structure checks (`elements`: a received segment that breaks
//! a rule) and the payload schema (`schema`: the rules JSON Schema can say,
//! as `dependentRequired`).
//!
//! A rule names two or more element positions of one segment:
//!
//! | kind | letter | broken when |
//! |------|--------|-------------|
//! | [`RuleKind::Paired`] | P | some but not all of the elements are present |
//! | [`RuleKind::Required`] | R | none of the elements is present |
//! | [`RuleKind::Conditional`] | C | the first is present and one of the others is not |
//! | [`RuleKind::Exclusion`] | E | more than one of the elements is present |
//! | [`RuleKind::ListConditional`] | L | the first is present and none of the others is |

/// The kind of a syntax rule (the letter of `P0304`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `P`: if any of the elements is present, all are.
    Paired,
    /// `R`: at least one of the elements is present.
    Required,
    /// `C`: if the first element is present, all the others are.
    Conditional,
    /// `E`: at most one of the elements is present.
    Exclusion,
    /// `L`: if the first element is present, at least one of the others is.
    ListConditional,
}

impl RuleKind {
    /// The kind of a rule letter (`P`, `R`, `C`, `E`, `L`).
    pub fn from_letter(c: char) -> Option<RuleKind> {
        Some(match c {
            'P' => RuleKind::Paired,
            'R' => RuleKind::Required,
            'C' => RuleKind::Conditional,
            'E' => RuleKind::Exclusion,
            'L' => RuleKind::ListConditional,
            _ => return None,
        })
    }

    /// The rule letter (`P`, `R`, `C`, `E`, `L`).
    pub fn letter(self) -> char {
        match self {
            RuleKind::Paired => 'P',
            RuleKind::Required => 'R',
            RuleKind::Conditional => 'C',
            RuleKind::Exclusion => 'E',
            RuleKind::ListConditional => 'L',
        }
    }

    /// What JSON Schema's `dependentRequired` can say of a rule over
    /// `items` (its elements, in the rule's order): each item whose presence
    /// requires others, with those others. P: every item requires all the
    /// others; C: the first requires the rest; R, E and L: nothing (they are
    /// not dependencies of one field on others).
    pub fn dependencies<T: PartialEq>(self, items: &[T]) -> Vec<(&T, Vec<&T>)> {
        match (self, items) {
            (RuleKind::Paired, _) => items
                .iter()
                .map(|f| (f, items.iter().filter(|g| *g != f).collect()))
                .collect(),
            (RuleKind::Conditional, [first, rest @ ..]) => vec![(first, rest.iter().collect())],
            _ => Vec::new(),
        }
    }
}

/// A syntax rule of a segment, as declared (`rule P0304`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    /// What the rule requires.
    pub(crate) kind: RuleKind,
    /// 1-based element positions, at least two (the declaration parser
    /// refuses fewer).
    pub(crate) positions: Vec<u8>,
}

/// A broken rule: its kind and the positions the problem is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// The kind of the rule broken.
    pub(crate) kind: RuleKind,
    /// The positions concerned, in the rule's order: for P and C the
    /// elements that are missing; for R all the rule's elements (none is
    /// present); for E the elements present (two or more); for L the
    /// elements after the first (none is present).
    pub(crate) at: Vec<u8>,
}

impl Rule {
    /// The rule's first element.
    #[inline]
    pub(crate) fn first(&self) -> u8 {
        self.positions[0]
    }

    /// The rule's elements after the first.
    #[inline]
    pub(crate) fn others(&self) -> &[u8] {
        &self.positions[1..]
    }

    /// The positions as the rule writes them (`0304`).
    pub(crate) fn digits(&self) -> String {
        self.positions.iter().map(|p| format!("{p:02}")).collect()
    }

    /// Checks the rule against a segment whose element at position `p` is
    /// present when `has(p)`; `None` when the rule holds.
    pub(crate) fn check(&self, has: impl Fn(u8) -> bool) -> Option<Violation> {
        let positions = &self.positions;
        let count = positions.iter().filter(|&&p| has(p)).count();
        let at: Vec<u8> = match self.kind {
            RuleKind::Paired if count > 0 && count < positions.len() => {
                positions.iter().copied().filter(|&p| !has(p)).collect()
            }
            RuleKind::Required if count == 0 => positions.clone(),
            RuleKind::Conditional if has(self.first()) => {
                self.others().iter().copied().filter(|&p| !has(p)).collect()
            }
            RuleKind::Exclusion if count > 1 => {
                positions.iter().copied().filter(|&p| has(p)).collect()
            }
            RuleKind::ListConditional
                if has(self.first()) && !self.others().iter().any(|&p| has(p)) =>
            {
                self.others().to_vec()
            }
            _ => return None,
        };
        (!at.is_empty()).then_some(Violation {
            kind: self.kind,
            at,
        })
    }

    /// True when a default for the element at `pos` must wait: a P or C
    /// rule that includes `pos` ties it to elements that are not (yet)
    /// present, and a default must not be what breaks or half-fills it.
    pub(crate) fn holds_back_default(&self, pos: u8, has: impl Fn(u8) -> bool) -> bool {
        matches!(self.kind, RuleKind::Paired | RuleKind::Conditional)
            && self.positions.contains(&pos)
            && self.positions.iter().any(|&q| q != pos && !has(q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(s: &str) -> Rule {
        let kind = RuleKind::from_letter(s.chars().next().unwrap()).unwrap();
        let positions = (1..s.len())
            .step_by(2)
            .map(|i| s[i..i + 2].parse().unwrap())
            .collect();
        Rule { kind, positions }
    }

    /// The violation of `r` for a segment whose present elements are `present`.
    fn check(r: &str, present: &[u8]) -> Option<(char, Vec<u8>)> {
        rule(r)
            .check(|p| present.contains(&p))
            .map(|v| (v.kind.letter(), v.at))
    }

    #[test]
    fn paired() {
        assert_eq!(check("P0304", &[]), None);
        assert_eq!(check("P0304", &[3, 4]), None);
        assert_eq!(check("P0304", &[3]), Some(('P', vec![4])));
        assert_eq!(check("P030405", &[4]), Some(('P', vec![3, 5])));
    }

    #[test]
    fn required() {
        assert_eq!(check("R0203", &[]), Some(('R', vec![2, 3])));
        assert_eq!(check("R0203", &[3]), None);
        assert_eq!(check("R0203", &[1, 4]), Some(('R', vec![2, 3])));
    }

    #[test]
    fn conditional() {
        assert_eq!(check("C0201", &[]), None);
        assert_eq!(check("C0201", &[1]), None);
        assert_eq!(check("C0201", &[2]), Some(('C', vec![1])));
        assert_eq!(check("C020103", &[2, 3]), Some(('C', vec![1])));
        assert_eq!(check("C020103", &[2, 1, 3]), None);
    }

    #[test]
    fn exclusion() {
        assert_eq!(check("E0103", &[]), None);
        assert_eq!(check("E0103", &[3]), None);
        assert_eq!(check("E0103", &[1, 3]), Some(('E', vec![1, 3])));
        assert_eq!(check("E010304", &[4, 3]), Some(('E', vec![3, 4])));
    }

    #[test]
    fn list_conditional() {
        assert_eq!(check("L010203", &[]), None);
        assert_eq!(check("L010203", &[2]), None);
        assert_eq!(check("L010203", &[1, 3]), None);
        assert_eq!(check("L010203", &[1]), Some(('L', vec![2, 3])));
    }

    #[test]
    fn letters_round_trip() {
        for c in "PRCEL".chars() {
            assert_eq!(RuleKind::from_letter(c).map(RuleKind::letter), Some(c));
        }
        assert_eq!(RuleKind::from_letter('X'), None);
    }

    #[test]
    fn defaults_wait_for_the_other_elements_of_p_and_c() {
        let has = |p: &[u8]| {
            let p = p.to_vec();
            move |q| p.contains(&q)
        };
        assert!(rule("P0304").holds_back_default(3, has(&[])));
        assert!(!rule("P0304").holds_back_default(3, has(&[4])));
        assert!(rule("C0201").holds_back_default(2, has(&[])));
        assert!(!rule("C0201").holds_back_default(2, has(&[1])));
        assert!(!rule("R0304").holds_back_default(3, has(&[])));
        assert!(!rule("P0304").holds_back_default(5, has(&[])));
    }

    #[test]
    fn dependencies_are_those_of_p_and_c() {
        let f = ["a", "b", "c"];
        let d = RuleKind::Paired.dependencies(&f);
        assert_eq!(d.len(), 3);
        assert_eq!(d[1], (&"b", vec![&"a", &"c"]));
        assert_eq!(
            RuleKind::Conditional.dependencies(&f),
            vec![(&"a", vec![&"b", &"c"])]
        );
        for k in [
            RuleKind::Required,
            RuleKind::Exclusion,
            RuleKind::ListConditional,
        ] {
            assert!(k.dependencies(&f).is_empty());
        }
    }
}

//! Small value checks shared by the envelope rules: dates, times, digits
//! and the characters of AN elements.

/// True for a non-empty run of ASCII digits.
pub fn digits(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(u8::is_ascii_digit)
}

/// The number in a run of at most 18 ASCII digits.
pub fn number(b: &[u8]) -> Option<u64> {
    if !digits(b) || b.len() > 18 {
        return None;
    }
    Some(b.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')))
}

/// True when a string (AN) value holds no control characters.
pub fn text(b: &[u8]) -> bool {
    !b.iter().any(|&c| c < 0x20 || c == 0x7F)
}

/// Number of characters of a value (UTF-8 continuation bytes not counted).
pub fn chars(b: &[u8]) -> usize {
    b.iter().filter(|&&c| !(0x80..0xC0).contains(&c)).count()
}

fn leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

fn two(b: &[u8]) -> u32 {
    u32::from(b[0] - b'0') * 10 + u32::from(b[1] - b'0')
}

/// A real calendar date in YYMMDD form (Feb 29 accepted in any year a
/// century could make a leap year: `000229` is 2000-02-29).
pub fn date6(b: &[u8]) -> bool {
    if b.len() != 6 || !digits(b) {
        return false;
    }
    let (yy, mm, dd) = (two(&b[0..2]), two(&b[2..4]), two(&b[4..6]));
    dd >= 1 && (dd <= days_in(2000 + yy, mm) || dd <= days_in(1900 + yy, mm))
}

/// A real calendar date in CCYYMMDD form.
pub fn date8(b: &[u8]) -> bool {
    if b.len() != 8 || !digits(b) {
        return false;
    }
    let year = two(&b[0..2]) * 100 + two(&b[2..4]);
    let (mm, dd) = (two(&b[4..6]), two(&b[6..8]));
    year > 0 && dd >= 1 && dd <= days_in(year, mm)
}

/// A real time HHMM, HHMMSS, HHMMSSD or HHMMSSDD whose length is within `min..=max`.
pub fn time(b: &[u8], min: usize, max: usize) -> bool {
    if !(min..=max).contains(&b.len()) || !matches!(b.len(), 4 | 6 | 7 | 8) || !digits(b) {
        return false;
    }
    two(&b[0..2]) <= 23 && two(&b[2..4]) <= 59 && (b.len() < 6 || two(&b[4..6]) <= 59)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(date6(b"230101") && date6(b"000229") && date6(b"240229"));
        assert!(!date6(b"230229") && !date6(b"231301") && !date6(b"230100"));
        assert!(!date6(b"000000") && !date6(b"23010") && !date6(b"2301a1"));
        assert!(date8(b"20230101") && date8(b"20000229") && !date8(b"19000229"));
        assert!(!date8(b"19461301") && !date8(b"00000101") && !date8(b"230101"));
    }

    #[test]
    fn times() {
        assert!(time(b"1200", 4, 4) && time(b"2359", 4, 8) && time(b"235959", 4, 8));
        assert!(time(b"2359591", 4, 8) && time(b"23595912", 4, 8));
        assert!(!time(b"2400", 4, 4) && !time(b"1260", 4, 4) && !time(b"3339", 4, 4));
        assert!(!time(b"12000", 4, 8) && !time(b"120000", 4, 4) && !time(b"295335", 4, 8));
    }

    #[test]
    fn numbers_and_text() {
        assert_eq!(number(b"000000001"), Some(1));
        assert_eq!(number(b""), None);
        assert_eq!(number(b"1a"), None);
        assert!(text(b"ACME CORP") && !text(b"A\nB"));
        assert_eq!(chars("Ö1".as_bytes()), 2);
    }
}

//! Conversions between payload values (JSON) and X12 element text, and the
//! checks of X12 data types (reference §7.1–7.3).

use super::model::{PType, XType};
use serde_json::{Number, Value};
use x12kit_json::value_kind as kind;

/// Why a value cannot be written or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Wrong JSON type or format.
    Invalid(String),
    /// Longer than the maximum.
    TooLong(String),
    /// Shorter than the minimum.
    TooShort(String),
}

/// Decimal text of a JSON number without exponent (`9.25`, `150`, `-3`).
/// A negative zero (`-0`, `-0.0`, which JSON parsers read as the float
/// -0.0) is `0`: X12 numbers have no negative zero.
fn decimal(n: &Number) -> Option<String> {
    if let Some(i) = n.as_i64() {
        return Some(i.to_string());
    }
    if let Some(u) = n.as_u64() {
        return Some(u.to_string());
    }
    let f = n.as_f64()?;
    if !f.is_finite() {
        return None;
    }
    if f == 0.0 {
        return Some("0".into());
    }
    let s = format!("{f}");
    Some(match s.strip_suffix(".0") {
        Some(t) => t.to_string(),
        None => s,
    })
}

/// Number of digits (sign and point excluded), the X12 length of R and Nn values.
pub fn digits(s: &str) -> usize {
    s.bytes().filter(u8::is_ascii_digit).count()
}

/// True when the year/month/day is a real calendar date (years 1800–9999).
pub fn valid_date(y: u32, m: u32, d: u32) -> bool {
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1800..=9999).contains(&y) && d >= 1 && d <= days
}

fn num(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Turns a payload value into element text for an element of type `xt`,
/// checking the JSON type, format and length (characters are checked apart).
pub fn to_x12(v: &Value, pt: PType, xt: XType, min: u16, max: u16) -> Result<String, Problem> {
    let text = match pt {
        PType::Str => match v {
            Value::String(s) => s.clone(),
            _ => {
                return Err(Problem::Invalid(format!(
                    "expected a string, found {}",
                    kind(v)
                )));
            }
        },
        PType::StrOrInt => match v {
            Value::String(s) => s.clone(),
            Value::Number(n) if n.is_i64() || n.is_u64() => decimal(n).unwrap_or_default(),
            _ => {
                return Err(Problem::Invalid(format!(
                    "expected a string or an integer, found {}",
                    kind(v)
                )));
            }
        },
        PType::Int => match v {
            Value::Number(n) if n.is_i64() || n.is_u64() => decimal(n).unwrap_or_default(),
            Value::Number(n)
                if n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e15) =>
            {
                decimal(n).unwrap_or_default()
            }
            _ => {
                return Err(Problem::Invalid(format!(
                    "expected an integer, found {}",
                    kind(v)
                )));
            }
        },
        PType::Num => match v {
            Value::Number(n) => {
                decimal(n).ok_or(Problem::Invalid("the number is not finite".into()))?
            }
            _ => {
                return Err(Problem::Invalid(format!(
                    "expected a number, found {}",
                    kind(v)
                )));
            }
        },
        PType::Date => {
            let Value::String(s) = v else {
                return Err(Problem::Invalid(format!(
                    "expected a date string YYYY-MM-DD, found {}",
                    kind(v)
                )));
            };
            let p: Vec<&str> = s.split('-').collect();
            let ok = p.len() == 3 && p[0].len() == 4 && p[1].len() == 2 && p[2].len() == 2;
            match (
                ok,
                num(p[0]),
                p.get(1).and_then(|x| num(x)),
                p.get(2).and_then(|x| num(x)),
            ) {
                (true, Some(y), Some(m), Some(d)) if valid_date(y, m, d) => {
                    if max == 6 {
                        format!("{}{}{}", &p[0][2..], p[1], p[2])
                    } else {
                        format!("{}{}{}", p[0], p[1], p[2])
                    }
                }
                _ => {
                    return Err(Problem::Invalid(format!(
                        "\"{s}\" is not a date in the form YYYY-MM-DD (a real calendar date)"
                    )));
                }
            }
        }
        PType::Time => {
            let Value::String(s) = v else {
                return Err(Problem::Invalid(format!(
                    "expected a time string HH:MM or HH:MM:SS, found {}",
                    kind(v)
                )));
            };
            match time_to_x12(s) {
                Some(t) => t,
                None => {
                    return Err(Problem::Invalid(format!(
                        "\"{s}\" is not a time in the form HH:MM, HH:MM:SS or HH:MM:SS.DD (24-hour clock)"
                    )));
                }
            }
        }
    };
    // Numbers in X12 form.
    let text = match xt {
        XType::N(n) if pt == PType::Num || pt == PType::Int => implied(&text, n)?,
        _ => text,
    };
    if xt == XType::R && pt == PType::Str && !is_r(&text) {
        return Err(Problem::Invalid(format!(
            "\"{text}\" is not a decimal number"
        )));
    }
    let len = match xt {
        XType::R | XType::N(_) => digits(&text),
        _ => text.chars().count(),
    };
    if len > max as usize {
        return Err(Problem::TooLong(format!(
            "\"{text}\" has {len} {}; at most {max} allowed",
            if matches!(xt, XType::R | XType::N(_)) {
                "digits"
            } else {
                "characters"
            }
        )));
    }
    if len < min as usize {
        // Numbers and codes are padded only by the caller; AN gets no padding.
        if matches!(xt, XType::N(_)) && !text.starts_with('-') {
            let pad = min as usize - len;
            return Ok(format!("{}{text}", "0".repeat(pad)));
        }
        return Err(Problem::TooShort(format!(
            "\"{text}\" has {len} characters; at least {min} required"
        )));
    }
    Ok(text)
}

fn is_r(s: &str) -> bool {
    let t = s.strip_prefix('-').unwrap_or(s);
    let mut dot = false;
    let mut any = false;
    for b in t.bytes() {
        match b {
            b'0'..=b'9' => any = true,
            b'.' if !dot => dot = true,
            _ => return false,
        }
    }
    any
}

/// `970` with 2 implied decimals is `97000`; more decimals than `n` is an error.
fn implied(text: &str, n: u8) -> Result<String, Problem> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let frac = frac.trim_end_matches('0');
    if frac.len() > n as usize {
        return Err(Problem::Invalid(format!(
            "{text} has more than {n} decimal place{}",
            if n == 1 { "" } else { "s" }
        )));
    }
    let mut s = format!("{int}{frac}{}", "0".repeat(n as usize - frac.len()));
    let trimmed = s.trim_start_matches('0');
    s = if trimmed.is_empty() {
        "0".into()
    } else {
        trimmed.into()
    };
    Ok(if neg && s != "0" { format!("-{s}") } else { s })
}

fn time_to_x12(s: &str) -> Option<String> {
    let (hms, frac) = match s.split_once('.') {
        Some((a, f)) if (1..=2).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) => {
            (a, f)
        }
        Some(_) => return None,
        None => (s, ""),
    };
    let p: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&p.len()) || p.iter().any(|x| x.len() != 2) {
        return None;
    }
    let h = num(p[0])?;
    let m = num(p[1])?;
    let sec = if p.len() == 3 { num(p[2])? } else { 0 };
    if h > 23 || m > 59 || sec > 59 || (!frac.is_empty() && p.len() != 3) {
        return None;
    }
    Some(format!("{}{frac}", p.concat()))
}

/// A JSON number from decimal text, as an integer when it is one.
pub fn number(s: &str) -> Option<Value> {
    if !is_r(s) {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Some(Value::from(f as i64));
    }
    Number::from_f64(f).map(Value::Number)
}

/// Canonical form of a JSON number (integral values as integers).
pub fn canonical(v: &Value) -> Value {
    match v {
        // An integer is its own canonical form where `number` keeps it one
        // (below 9e15, exact as an f64); no text round trip.
        Value::Number(n)
            if n.as_i64()
                .is_some_and(|i| i.unsigned_abs() < 9_000_000_000_000_000) =>
        {
            v.clone()
        }
        // So is a finite fraction: its shortest text reads back as itself.
        Value::Number(n)
            if n.is_f64()
                && n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() != 0.0) =>
        {
            v.clone()
        }
        Value::Number(n) => match decimal(n).and_then(|d| number(&d)) {
            Some(c) => c,
            None => v.clone(),
        },
        _ => v.clone(),
    }
}

/// Reads element text back into its payload form; `None` when it does not
/// have the element's type (map-back then keeps the text as a string).
pub fn from_x12(s: &str, pt: PType, xt: XType) -> Option<Value> {
    match pt {
        PType::Str | PType::StrOrInt => Some(Value::String(s.to_string())),
        PType::Int | PType::Num => {
            let t = match xt {
                XType::N(n) if n > 0 => {
                    let (neg, d) = match s.strip_prefix('-') {
                        Some(d) => (true, d),
                        None => (false, s),
                    };
                    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    let n = n as usize;
                    let padded = format!("{}{d}", "0".repeat(n.saturating_sub(d.len())));
                    let (i, f) = padded.split_at(padded.len() - n);
                    format!(
                        "{}{}.{f}",
                        if neg { "-" } else { "" },
                        if i.is_empty() { "0" } else { i }
                    )
                }
                _ => s.to_string(),
            };
            let v = number(&t)?;
            if pt == PType::Int && !(v.is_i64() || v.is_u64()) {
                return None;
            }
            Some(v)
        }
        PType::Date | PType::Time => {
            let mut out = Vec::new();
            let read = if pt == PType::Date {
                date_into(s.as_bytes(), &mut out)
            } else {
                time_into(s.as_bytes(), &mut out)
            };
            // Both write ASCII digits and separators only.
            (read == Read::Text).then(|| Value::String(String::from_utf8_lossy(&out).into_owned()))
        }
    }
}

/// What [`from_x12_into`] made of element text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Read {
    /// Not of the element's type (or a string field): the text itself.
    Same,
    /// A string, appended (unescaped) to the buffer.
    Text,
    /// A number, appended to the buffer as the JSON text serde_json writes for it.
    Number,
    /// A number too long or too large for the direct path.
    Other(Value),
}

/// [`from_x12`] without allocating: the payload form of UTF-8 element text
/// `s` is appended to `out` (see [`Read`]). The text of a number is exactly
/// what serde_json writes for the value `from_x12` returns.
pub(crate) fn from_x12_into(s: &[u8], pt: PType, xt: XType, out: &mut Vec<u8>) -> Read {
    match pt {
        PType::Str | PType::StrOrInt => return Read::Same,
        PType::Int | PType::Num => {
            if let Some(r) = number_into(s, pt, xt, out) {
                return r;
            }
        }
        PType::Date => return date_into(s, out),
        PType::Time => return time_into(s, out),
    }
    let Ok(s) = std::str::from_utf8(s) else {
        return Read::Same;
    };
    match from_x12(s, pt, xt) {
        None => Read::Same,
        Some(Value::String(t)) => {
            out.extend_from_slice(t.as_bytes());
            Read::Text
        }
        Some(v) => Read::Other(v),
    }
}

fn all_digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

fn two(s: &[u8]) -> u32 {
    u32::from(s[0] - b'0') * 10 + u32::from(s[1] - b'0')
}

/// The date part of [`from_x12`]: `CCYYMMDD` or `YYMMDD` (20YY) that
/// exists, appended as `CCYY-MM-DD`.
fn date_into(s: &[u8], out: &mut Vec<u8>) -> Read {
    if !all_digits(s) {
        return Read::Same;
    }
    let (century, y) = match s.len() {
        8 => (&s[..2], &s[2..4]),
        6 => (&b"20"[..], &s[..2]),
        _ => return Read::Same,
    };
    let md = &s[s.len() - 4..];
    let year = two(century) * 100 + two(y);
    if !valid_date(year, two(&md[..2]), two(&md[2..])) {
        return Read::Same;
    }
    x12kit_json::copy::append(
        out,
        &[
            century[0], century[1], y[0], y[1], b'-', md[0], md[1], b'-', md[2], md[3],
        ],
    );
    Read::Text
}

/// The time part of [`from_x12`]: `HHMM[SS[d..]]`, appended as
/// `HH:MM[:SS[.d..]]`.
fn time_into(s: &[u8], out: &mut Vec<u8>) -> Read {
    if !matches!(s.len(), 4 | 6 | 7 | 8) || !all_digits(s) {
        return Read::Same;
    }
    if two(&s[..2]) > 23 || two(&s[2..4]) > 59 || (s.len() >= 6 && two(&s[4..6]) > 59) {
        return Read::Same;
    }
    out.extend_from_slice(&s[..2]);
    out.push(b':');
    out.extend_from_slice(&s[2..4]);
    if s.len() >= 6 {
        out.push(b':');
        out.extend_from_slice(&s[4..6]);
    }
    if s.len() > 6 {
        out.push(b'.');
        out.extend_from_slice(&s[6..]);
    }
    Read::Text
}

/// Whether number text without implied decimals is already what
/// [`number_into`] writes for it (`Some(has a fraction)`): at most 15
/// digits, no sign, no leading zero but a lone one before the point, and a
/// fraction that does not end in 0 with at most three zeros after `0.`
/// (`24`, `3.75`, `0.99`). `None`: anything else, left to the general steps.
#[inline]
fn written_as_is(s: &[u8]) -> Option<bool> {
    let n = s.len();
    if n == 0 || n > 16 {
        return None;
    }
    let mut point = n;
    for (i, &b) in s.iter().enumerate() {
        if b == b'.' && point == n {
            point = i;
        } else if !b.is_ascii_digit() {
            return None;
        }
    }
    if point == n {
        // An integer: `0`, or digits that do not start with 0.
        return (n <= 15 && (s[0] != b'0' || n == 1)).then_some(false);
    }
    // `I.F`: both present, F not ending in 0, I a lone 0 (then at most
    // three zeros start F) or not starting with 0.
    if point == 0 || point + 1 == n || s[n - 1] == b'0' {
        return None;
    }
    let ok = if s[0] == b'0' {
        point == 1 && s[2..].iter().take_while(|&&b| b == b'0').count() <= 3
    } else {
        true
    };
    ok.then_some(true)
}

/// The number part of [`from_x12`] for the common case, writing the text
/// serde_json writes for the value: integers of at most 15 digits, and
/// decimals of at most 15 significant digits between 0.0001 and 10^15. Such
/// a decimal parses to the nearest f64 and that f64's shortest round-trip
/// form has the same digits (15 digits always round-trip through f64), which
/// serde_json writes without exponent in that range. `None`: anything else
/// (the caller takes the general path).
fn number_into(s: &[u8], pt: PType, xt: XType, out: &mut Vec<u8>) -> Option<Read> {
    if !matches!(xt, XType::N(n) if n > 0) {
        match written_as_is(s) {
            Some(false) => {
                x12kit_json::copy::append(out, s);
                return Some(Read::Number);
            }
            Some(true) if pt == PType::Int => return Some(Read::Same),
            Some(true) => {
                x12kit_json::copy::append(out, s);
                return Some(Read::Number);
            }
            None => {}
        }
    }
    let (neg, body) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    // Integer digits, then `pad` zeros and `frac` as the fraction digits.
    let (int, pad, frac) = match xt {
        XType::N(n) if n > 0 => {
            if !all_digits(body) {
                return None;
            }
            let n = n as usize;
            if body.len() > n {
                (&body[..body.len() - n], 0, &body[body.len() - n..])
            } else {
                (&body[..0], n - body.len(), body)
            }
        }
        _ => {
            let (int, frac) = match body.iter().position(|&b| b == b'.') {
                Some(p) => (&body[..p], &body[p + 1..]),
                None => (body, &body[..0]),
            };
            if !int.iter().all(u8::is_ascii_digit)
                || !frac.iter().all(u8::is_ascii_digit)
                || int.len() + frac.len() == 0
            {
                return None;
            }
            (int, 0, frac)
        }
    };
    let int = &int[int.iter().position(|&b| b != b'0').unwrap_or(int.len())..];
    let frac = &frac[..frac.iter().rposition(|&b| b != b'0').map_or(0, |p| p + 1)];
    // The text is put together here and appended at once: at most a sign,
    // 15 digits, a point and 3 leading zeros (see the checks below).
    let mut text = [0u8; 24];
    let mut len = 0;
    let mut put = |b: &[u8]| {
        text[len..len + b.len()].copy_from_slice(b);
        len += b.len();
    };
    if frac.is_empty() {
        // Integral: written as an integer (no sign for zero).
        if int.len() > 15 {
            return None;
        }
        if int.is_empty() {
            out.push(b'0');
        } else {
            if neg {
                put(b"-");
            }
            put(int);
            x12kit_json::copy::append(out, &text[..len]);
        }
        return Some(Read::Number);
    }
    let zeros = pad + frac.iter().take_while(|&&b| b == b'0').count();
    let significant = if int.is_empty() {
        if zeros > 3 {
            return None;
        }
        pad + frac.len() - zeros
    } else {
        int.len() + pad + frac.len()
    };
    if significant > 15 {
        return None;
    }
    if pt == PType::Int {
        // Not integral (and stays so as an f64): the text is kept.
        return Some(Read::Same);
    }
    if neg {
        put(b"-");
    }
    if int.is_empty() {
        put(b"0");
    } else {
        put(int);
    }
    put(b".");
    put(&b"000000000000000"[..pad]);
    put(frac);
    x12kit_json::copy::append(out, &text[..len]);
    Some(Read::Number)
}

/// Checks X12 element text against its type (for received data): returns
/// the AK4/IK4 error code (`6` character, `8` date, `9` time) and a message.
pub fn check_x12(s: &str, xt: XType) -> Option<(&'static str, String)> {
    match xt {
        XType::AN | XType::ID => None,
        XType::R => (!is_r(s)).then(|| ("6", format!("\"{s}\" is not a decimal number (type R)"))),
        XType::N(_) => {
            let d = s.strip_prefix('-').unwrap_or(s);
            (d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit())).then(|| {
                (
                    "6",
                    format!("\"{s}\" is not an integer (type {})", xt.name()),
                )
            })
        }
        XType::DT => {
            let ok = match s.len() {
                8 => {
                    num(s).is_some()
                        && valid_date(
                            num(&s[..4]).unwrap_or(0),
                            num(&s[4..6]).unwrap_or(0),
                            num(&s[6..]).unwrap_or(0),
                        )
                }
                6 => {
                    num(s).is_some()
                        && valid_date(
                            2000 + num(&s[..2]).unwrap_or(0),
                            num(&s[2..4]).unwrap_or(0),
                            num(&s[4..]).unwrap_or(0),
                        )
                }
                _ => false,
            };
            (!ok).then(|| ("8", format!("\"{s}\" is not a valid date (CCYYMMDD)")))
        }
        XType::TM => from_x12(s, PType::Time, xt)
            .is_none()
            .then(|| ("9", format!("\"{s}\" is not a valid time (HHMM[SS[DD]])"))),
    }
}

/// Checks the characters of a value: printable ASCII, minus `^` and `` ` ``
/// before 005010 (reference §7.3). Returns a message on failure.
pub fn check_chars(s: &str, v5010: bool) -> Option<String> {
    for c in s.chars() {
        let bad = match c {
            ' '..='~' => !v5010 && (c == '^' || c == '`'),
            _ => true,
        };
        if bad {
            return Some(if c.is_ascii_control() {
                format!(
                    "contains the control character U+{:04X}, which X12 does not allow",
                    c as u32
                )
            } else if c.is_ascii() {
                format!(
                    "contains '{c}', which is not in the 004010 character set (allowed from 005010)"
                )
            } else {
                format!(
                    "contains '{c}' (U+{:04X}): X12 allows only ASCII characters",
                    c as u32
                )
            });
        }
    }
    None
}

/// Sum of decimal texts, exactly (as scaled integers).
pub fn add(acc: &mut (i128, u32), s: &str) {
    add_implied(acc, s, 0)
}

/// Adds element text that has `implied` implied decimal places (Nn types).
pub fn add_implied(acc: &mut (i128, u32), s: &str, implied: u32) {
    if let Some((m, scale)) = scaled(s).map(|(m, sc)| (m, sc + implied)) {
        let (am, ascale) = *acc;
        let target = ascale.max(scale);
        let a = am * 10i128.pow(target - ascale);
        let b = m * 10i128.pow(target - scale);
        *acc = (a + b, target);
    }
}

/// Product of two decimal texts, as a scaled integer.
pub fn mul(a: &str, b: &str, implied: (u32, u32)) -> Option<(i128, u32)> {
    let (x, sx) = scaled(a)?;
    let (y, sy) = scaled(b)?;
    x.checked_mul(y)
        .map(|p| (p, sx + sy + implied.0 + implied.1))
}

fn scaled(s: &str) -> Option<(i128, u32)> {
    if !is_r(s) || digits(s) > 30 {
        return None;
    }
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    let (i, f) = t.split_once('.').unwrap_or((t, ""));
    // At most 30 ASCII digits (checked above): no overflow of an i128.
    let m = i
        .bytes()
        .chain(f.bytes())
        .fold(0i128, |m, d| m * 10 + i128::from(d - b'0'));
    Some((if neg { -m } else { m }, f.len() as u32))
}

/// Rounds decimal text to `places` decimals, half away from zero (`1.005` → `1.01`).
pub fn round(s: &str, places: u32) -> String {
    match scaled(s) {
        Some((m, scale)) if scale > places => {
            let div = 10i128.pow(scale - places);
            let q = m / div;
            let r = (m % div).abs();
            let q = if r * 2 >= div { q + m.signum() } else { q };
            scaled_text((q, places))
        }
        _ => s.to_string(),
    }
}

/// Decimal text of a scaled integer, trailing zeros removed (`(12500, 2)` → `125`).
pub fn scaled_text((m, scale): (i128, u32)) -> String {
    let neg = m < 0;
    let digits = m.unsigned_abs().to_string();
    let s = scale as usize;
    let padded = format!(
        "{}{digits}",
        "0".repeat((s + 1).saturating_sub(digits.len()))
    );
    let (i, f) = padded.split_at(padded.len() - s);
    let f = f.trim_end_matches('0');
    let body = if f.is_empty() {
        i.to_string()
    } else {
        format!("{i}.{f}")
    };
    if neg && !body.trim_matches(|c| c == '0' || c == '.').is_empty() {
        format!("-{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers() {
        assert_eq!(
            to_x12(&json!(9.25), PType::Num, XType::R, 1, 15).unwrap(),
            "9.25"
        );
        assert_eq!(
            to_x12(&json!(150.0), PType::Num, XType::R, 1, 15).unwrap(),
            "150"
        );
        assert_eq!(
            to_x12(&json!(970.0), PType::Num, XType::N(2), 1, 15).unwrap(),
            "97000"
        );
        assert_eq!(
            to_x12(&json!(100.25), PType::Num, XType::N(2), 1, 15).unwrap(),
            "10025"
        );
        assert_eq!(
            to_x12(&json!(0.5), PType::Num, XType::N(2), 1, 15).unwrap(),
            "50"
        );
        assert_eq!(
            to_x12(&json!(-1.5), PType::Num, XType::N(2), 1, 15).unwrap(),
            "-150"
        );
        assert!(matches!(
            to_x12(&json!(1.005), PType::Num, XType::N(2), 1, 15),
            Err(Problem::Invalid(_))
        ));
        assert!(matches!(
            to_x12(&json!(1234567), PType::Num, XType::R, 1, 6),
            Err(Problem::TooLong(_))
        ));
        assert_eq!(
            to_x12(&json!(7), PType::Int, XType::N(0), 6, 6).unwrap(),
            "000007"
        );
        assert_eq!(from_x12("97000", PType::Num, XType::N(2)), Some(json!(970)));
        assert_eq!(
            from_x12("10025", PType::Num, XType::N(2)),
            Some(json!(100.25))
        );
        assert_eq!(from_x12("5", PType::Num, XType::N(2)), Some(json!(0.05)));
        assert_eq!(from_x12("-150", PType::Num, XType::N(2)), Some(json!(-1.5)));
        assert_eq!(from_x12("9.25", PType::Num, XType::R), Some(json!(9.25)));
        assert_eq!(from_x12("x", PType::Num, XType::R), None);
        assert_eq!(canonical(&json!(3.0)), json!(3));
        // No negative zero in X12 (JSON `-0` reads as the float -0.0).
        for (pt, xt) in [
            (PType::Num, XType::R),
            (PType::Num, XType::N(2)),
            (PType::Int, XType::N(0)),
            (PType::Int, XType::AN),
        ] {
            assert_eq!(to_x12(&json!(-0.0), pt, xt, 1, 15).unwrap(), "0");
        }
        assert_eq!(canonical(&json!(-0.0)), json!(0));
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(
            to_x12(&json!("2024-02-29"), PType::Date, XType::DT, 8, 8).unwrap(),
            "20240229"
        );
        assert!(to_x12(&json!("2023-02-29"), PType::Date, XType::DT, 8, 8).is_err());
        assert!(to_x12(&json!("20230101"), PType::Date, XType::DT, 8, 8).is_err());
        assert_eq!(
            to_x12(&json!("09:30"), PType::Time, XType::TM, 4, 8).unwrap(),
            "0930"
        );
        assert_eq!(
            to_x12(&json!("23:59:58.5"), PType::Time, XType::TM, 4, 8).unwrap(),
            "2359585"
        );
        assert!(to_x12(&json!("24:00"), PType::Time, XType::TM, 4, 8).is_err());
        assert_eq!(
            from_x12("20240229", PType::Date, XType::DT),
            Some(json!("2024-02-29"))
        );
        assert_eq!(
            from_x12("093015", PType::Time, XType::TM),
            Some(json!("09:30:15"))
        );
        assert_eq!(check_x12("20230230", XType::DT).unwrap().0, "8");
        assert_eq!(check_x12("2500", XType::TM).unwrap().0, "9");
    }

    #[test]
    fn sums() {
        let mut acc = (0, 0);
        add(&mut acc, "1.5");
        add(&mut acc, "2.25");
        add(&mut acc, "-1");
        assert_eq!(scaled_text(acc), "2.75");
        assert_eq!(scaled_text(mul("9.25", "120", (0, 0)).unwrap()), "1110");
        assert_eq!(scaled_text((5, 2)), "0.05");
        assert_eq!(round("1.005", 2), "1.01");
        assert_eq!(round("-1.005", 2), "-1.01");
        assert_eq!(round("2.5", 0), "3");
        assert_eq!(round("7.25", 2), "7.25");
        assert!(check_chars("Café", true).unwrap().contains("ASCII"));
        assert!(check_chars("a^b", false).is_some());
        assert!(check_chars("a^b", true).is_none());
    }

    /// The JSON map-back writes for element text through `from_x12_into`.
    fn read_into(s: &[u8], pt: PType, xt: XType) -> String {
        let mut out = b"prefix".to_vec();
        let r = from_x12_into(s, pt, xt, &mut out);
        let added = String::from_utf8(out[6..].to_vec()).unwrap();
        match r {
            Read::Same => {
                assert!(added.is_empty());
                serde_json::to_string(&String::from_utf8_lossy(s)).unwrap()
            }
            Read::Text => serde_json::to_string(&added).unwrap(),
            Read::Number => {
                // The direct text is plain decimal JSON.
                assert!(
                    added
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
                );
                added
            }
            Read::Other(v) => {
                assert!(added.is_empty());
                serde_json::to_string(&v).unwrap()
            }
        }
    }

    /// The JSON map-back wrote for element text before `from_x12_into`.
    fn read_old(s: &[u8], pt: PType, xt: XType) -> String {
        let t = String::from_utf8_lossy(s);
        match from_x12(&t, pt, xt) {
            Some(v) => serde_json::to_string(&v).unwrap(),
            None => serde_json::to_string(&t).unwrap(),
        }
    }

    /// `from_x12_into` (direct number, date and time text) writes exactly
    /// what `from_x12` and serde_json write, for every kind of element text.
    #[test]
    fn direct_reading_matches_from_x12() {
        let types = [
            (PType::Num, XType::R),
            (PType::Int, XType::R),
            (PType::Num, XType::N(0)),
            (PType::Int, XType::N(0)),
            (PType::Num, XType::N(1)),
            (PType::Num, XType::N(2)),
            (PType::Int, XType::N(2)),
            (PType::Num, XType::N(4)),
            (PType::Num, XType::N(9)),
            (PType::Num, XType::AN),
            (PType::Date, XType::DT),
            (PType::Time, XType::TM),
            (PType::Str, XType::AN),
        ];
        let mut cases: Vec<Vec<u8>> = [
            "",
            "-",
            ".",
            "-.",
            "0",
            "-0",
            "00",
            "-0.0",
            "0.",
            ".0",
            ".5",
            "5.",
            "-.5",
            "-5.",
            "1",
            "10",
            "100",
            "1.50",
            "224.38",
            "2224.65",
            "101.60",
            "0.1",
            "0.01",
            "0.001",
            "0.0001",
            "0.00001",
            "0.000001",
            "-0.00001",
            "0.000012345",
            "1e5",
            "1E5",
            "+5",
            "1.2.3",
            "--1",
            "1-",
            " 1",
            "1 ",
            "9007199254740993",
            "999999999999999",
            "9999999999999999",
            "99999999999999999",
            "123456789012345",
            "1234567890123456",
            "12345678901234.5",
            "1234567890123.45",
            "0.123456789012345",
            "0.1234567890123456",
            "8999999999999999",
            "9000000000000000",
            "9000000000000001",
            "123456789.123456789",
            "1.0000000000000001",
            "0.30000000000000004",
            "4.35",
            "0.1e1",
            "１２",
            "é",
            "20240229",
            "20230229",
            "20000229",
            "19000229",
            "17991231",
            "240229",
            "000101",
            "991231",
            "2024022",
            "202402290",
            "0930",
            "093015",
            "0930155",
            "09301599",
            "2400",
            "2359",
            "235960",
            "2360",
            "093",
            "09301",
            "093015999",
            "abcd",
            "12:30",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        cases.push(b"12\xFF".to_vec());
        cases.push(vec![b'1'; 400]);
        cases.push([&b"0."[..], &vec![b'0'; 330], b"1"].concat());
        // Random decimal-looking texts (a fixed xorshift, so the test is stable).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let len = (next() % 22) as usize;
            let s: Vec<u8> = (0..len)
                .map(|_| match next() % 24 {
                    0 => b'-',
                    1 => b'.',
                    2..=5 => b'0',
                    6 => b'9',
                    k => b'0' + (k % 10) as u8,
                })
                .collect();
            cases.push(s);
        }
        for s in &cases {
            for (pt, xt) in types {
                assert_eq!(
                    read_into(s, pt, xt),
                    read_old(s, pt, xt),
                    "{:?} as {pt:?}/{xt:?}",
                    String::from_utf8_lossy(s)
                );
            }
        }
    }
}
